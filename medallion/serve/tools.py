"""The tools: one implementation behind the Python API, the CLI and the MCP server.

A :class:`Tools` is a :class:`~medallion.serve.session.Session` (the caller's verified grant,
row-level-security scopes, telemetry) with the verbs: the reads here, the writes in
``serve/writes.py``. Reads serve facts through the one read model (``serve/served.py``: overlays
composed, redactions masked); search runs the stages of ``serve/search.py``. Discovery
(``namespaces``, ``predicates``) says what exists, and a read that finds nothing in a namespace that
holds nothing, or with a predicate no fact uses, says so (``serve/discovery.py``) instead of
answering an empty list. A fact id may be given whole or as a unique prefix (``serve/ids.py``).

Results are plain dicts in the CLI's JSON shape.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from medallion.serve import capabilities, discovery, graph, ids, served, verbs
from medallion.serve import search as searching
from medallion.serve.served import REDACTED
from medallion.serve.session import Denied, ToolError, UnknownNamespace, UnknownPredicate
from medallion.serve.writes import Writes
from medallion.settings import Settings, get_settings
from medallion.silver import entities, withhold
from medallion.silver import queries as silver_queries

__all__ = ["REDACTED", "Denied", "ToolError", "Tools", "UnknownNamespace", "UnknownPredicate", "open_tools"]
LOW_CONFIDENCE = 0.5
DISCOVERY_VERBS = ("list", "read", "search")  # any one of them lets a caller see what a namespace holds


class Tools(Writes):
    """Capability-gated access to one memory. Use :func:`open_tools`; close it (or use ``with``)."""

    def __init__(self, settings: Settings, token: str | None, *, origin: str = "api") -> None:
        self._peer: Any = None  # the Hindsight peer, opened on the first low-stakes recall
        super().__init__(settings, token, origin=origin)

    def close(self) -> None:
        try:
            if self._peer is not None:
                self._peer.close()
        finally:
            super().close()

    # ------------------------------------------------------------------ discovery
    @verbs.serves(verbs.Namespaces)
    def namespaces(self) -> list[dict[str, Any]]:
        """The namespaces the caller can see, with the verbs it holds there and how much each holds.

        A token sees the namespaces its grant names (those holding nothing yet too); the local admin
        and a ``*`` grant see every namespace that holds an event. Counts come through the caller's
        row-level security: events, facts ever derived, and facts believed now.
        """
        def run() -> list[dict[str, Any]]:
            cap = self.check_token()
            granted = self.granted()
            with self.scope(granted) as conn:
                events = discovery.event_counts(conn)
                facts = discovery.fact_counts(conn)
                names = discovery.visible_names(conn, granted)
            verbs = list(capabilities.VERBS) if cap is None else list(cap.verbs)
            return [{"namespace": ns, "verbs": verbs, "events": events.get(ns, 0),
                     "facts": facts.get(ns, (0, 0))[0], "current_facts": facts.get(ns, (0, 0))[1]} for ns in names]
        return self.call("namespaces", None, None, run, logged=lambda _: [])

    @verbs.serves(verbs.Predicates)
    def predicates(self, *, namespace: str) -> list[dict[str, Any]]:
        """The predicates a namespace's facts use, the most used first (``serve/discovery.py``)."""
        def run() -> list[dict[str, Any]]:
            self.authorize_any(DISCOVERY_VERBS, namespace)
            with self.scope([namespace]) as conn:
                found = discovery.in_use(conn, namespace)
            if not found:
                self._explain_empty(namespace)
            return found
        return self.call("predicates", namespace, None, run, logged=lambda _: [])

    def _explain_empty(self, namespace: str, predicate: str | None = None) -> None:
        """Raise why a read of ``namespace`` found nothing, when the question itself was wrong: a
        namespace that holds nothing (:class:`UnknownNamespace`, naming those the caller can see) or a
        predicate no fact of it uses (:class:`UnknownPredicate`, naming close ones). Runs only when a
        read came back empty, so an answer costs nothing more."""
        granted = self.granted()
        with self.scope(granted) as conn:
            if not discovery.has_events(conn, namespace):
                raise UnknownNamespace(discovery.unknown_namespace_message(
                    namespace, discovery.visible_names(conn, granted)))
            if predicate is None or discovery.is_in_use(conn, namespace, predicate):
                return
            close = discovery.close_predicates(predicate, discovery.keys_and_phrases(conn, namespace))
        raise UnknownPredicate(discovery.unknown_predicate_message(namespace, predicate, close))

    # ------------------------------------------------------------------ read verbs
    @verbs.serves(verbs.Current)
    def current(self, subject: str, predicate: str, *, namespace: str) -> list[dict[str, Any]]:
        """Every open version of a slot (several when many-valued or contested)."""
        def run() -> list[dict[str, Any]]:
            self.authorize("read", namespace)
            with self.scope([namespace]) as conn:
                found = served.current(conn, namespace, subject, predicate)
            if not found:
                self._explain_empty(namespace, predicate)
            return found
        return self.call("current", namespace, f"{subject} {predicate}", run)

    @verbs.serves(verbs.History)
    def history(self, subject: str, predicate: str, *, namespace: str) -> list[dict[str, Any]]:
        """Every version of a slot, by valid_from."""
        def run() -> list[dict[str, Any]]:
            self.authorize("read", namespace)
            with self.scope([namespace]) as conn:
                found = served.history(conn, namespace, subject, predicate)
            if not found:
                self._explain_empty(namespace, predicate)
            return found
        return self.call("history", namespace, f"{subject} {predicate}", run)

    @verbs.serves(verbs.ListFacts)
    def list(self, *, namespace: str, subject: str | None = None, predicate: str | None = None,
             include_superseded: bool = False, limit: int = 100) -> list[dict[str, Any]]:
        """Facts of a namespace, optionally of one subject and/or predicate (current only by default)."""
        def run() -> list[dict[str, Any]]:
            self.authorize("list", namespace)
            with self.scope([namespace]) as conn:
                where = ["f.namespace = %(ns)s"]
                params: dict[str, Any] = {"ns": namespace}
                found = []
                if served.slot_filters(conn, namespace, subject, predicate, where, params):
                    if not include_superseded:
                        where.append("f.valid_to IS NULL")
                    found = served.served_facts(conn, " AND ".join(where), params,
                                                order="e.canonical_name, f.predicate, f.valid_from, f.fact_id",
                                                limit=limit)
            if not found:
                self._explain_empty(namespace, predicate)
            return found
        return self.call("list", namespace, " ".join(x for x in (subject, predicate) if x) or None, run)

    @verbs.serves(verbs.Read)
    def read(self, fact_id: str | None = None, *, path: str | None = None,
             namespace: str | None = None) -> list[dict[str, Any]]:
        """One fact by id (with its overlays), or a document's HEAD version by path (needs ``namespace``).

        ``fact_id`` is the id or any unique prefix of it of at least ``ids.MIN_PREFIX`` characters
        (tables show 12), matched only among the facts the caller can read.
        """
        if path is not None:
            return self._read_document(path, namespace)

        def run() -> list[dict[str, Any]]:
            if not fact_id:
                raise ToolError("read needs a fact id, or a document path with a namespace")
            scope = [namespace] if namespace else self.readable("read")
            if namespace:
                self.authorize("read", namespace)
            try:
                with self.scope(scope) as conn:
                    try:
                        full = ids.resolve_fact(conn, fact_id, where="in the namespaces this caller can read")
                    except ToolError:  # a fact its data subject asked to forget: say so, and whose request
                        held = withhold.withheld_fact(conn, fact_id)
                        if held is None:
                            raise
                        return [held]
                    return served.served_facts(conn, "f.fact_id = %(id)s", {"id": full})
            except ids.AmbiguousId:
                raise
            except ToolError:
                if namespace:
                    self._explain_empty(namespace)
                raise
        return self.call("read", namespace, fact_id, run)

    def _read_document(self, path: str, namespace: str | None) -> list[dict[str, Any]]:
        def run() -> list[dict[str, Any]]:
            if not namespace:
                raise ToolError("reading a document needs its namespace (-n NS)")
            self.authorize("read", namespace)
            with self.scope([namespace]) as conn:
                head = conn.execute(
                    "SELECT d.path, d.version_hash, d.parent_hash, d.bronze_event_id, d.recorded_at, p.source, "
                    "p.source_event_id, p.provenance_root FROM silver.documents d "
                    "LEFT JOIN LATERAL (SELECT p.source, p.source_event_id, p.provenance_root "
                    "FROM gold.event_provenance p WHERE p.event_id = d.bronze_event_id OFFSET 0) p ON true "
                    "WHERE d.namespace = %s AND d.path = %s AND d.is_head", (namespace, path),
                ).fetchone()
                pieces = None if head is None else conn.execute(
                    "SELECT char_start, text FROM silver.chunks WHERE namespace = %s AND bronze_event_id = %s "
                    "ORDER BY char_start", (namespace, head[3]),
                ).fetchall()
            if head is None or pieces is None:
                self._explain_empty(namespace)
                raise ToolError(f"no document {path!r} in namespace '{namespace}'")
            content = ""
            for start, text in pieces:  # chunks may overlap: append what extends the text
                if start + len(text) > len(content):
                    content += text[max(0, len(content) - start):]
            return [{"path": head[0], "version_hash": head[1], "parent_hash": head[2], "content": content,
                     "recorded_at": silver_queries.iso(head[4]),
                     "provenance": {"bronze_event_id": head[3], "namespace": namespace, "source": head[5],
                                    "source_event_id": head[6], "provenance_root": head[7]}}]
        return self.call("read", namespace, path, run)

    @verbs.serves(verbs.Relate)
    def relate(self, a: str, b: str, *, namespace: str, max_depth: int = 3) -> list[dict[str, Any]]:
        """How two entities are related: shortest paths over current edges, each hop with its fact."""
        def run() -> list[dict[str, Any]]:
            self.authorize("read", namespace)
            with self.scope([namespace]) as conn:
                found = silver_queries.related(conn, namespace, a, b, max_depth=max_depth)
            if not found:
                self._explain_empty(namespace)
            return found
        return self.call("relate", namespace, f"{a} ~ {b}", run)

    @verbs.serves(verbs.Follow)
    def follow(self, entity: str, predicates: list[str], *, namespace: str,
               as_of: datetime | str | None = None) -> dict[str, Any]:
        """Walk a known chain of predicates from ``entity`` over current edges (or those believed at ``as_of``).

        "Where is Alice's employer located?" is ``follow('Alice', ['works_at', 'located_in'])``: two
        slot reads chained through the entity the first one names, which no similarity search can
        promise. Returns each hop's facts (served like every fact: provenance, overlays, redactions)
        and the values the last hop reached; a hop that reaches nothing leaves the later ones empty.
        """
        def run() -> dict[str, Any]:
            when = verbs.when(as_of)
            self.authorize("read", namespace)
            try:
                path = graph.steps(predicates)
            except ValueError as exc:
                raise ToolError(str(exc)) from None
            with self.scope([namespace]) as conn:
                starts = entities.find(conn, namespace, entity)
                if starts:
                    walked = graph.follow_in(conn, namespace, starts, path, when)
                    reached = [h.fact_id for found in walked for h in found]
                    shown = {f["fact_id"]: f for f in served.served_facts(conn, "f.fact_id = ANY(%(ids)s)",
                                                                          {"ids": reached})}
            if not starts:
                self._explain_empty(namespace)
                raise ToolError(f"no entity named {entity!r} in namespace '{namespace}'; "
                                "find its exact name with search or list, then follow again")
            hops = [{"predicate": step.given, "key": step.key, "inverse": step.inverse,
                     "facts": [shown[h.fact_id] for h in found if h.fact_id in shown]}
                    for step, found in zip(path, walked, strict=True)]
            last = hops[-1]
            values = [f["subject"] if last["inverse"] else f["value"] for f in last["facts"]]
            return {"entity": entity, "namespace": namespace, "as_of": silver_queries.iso(when), "hops": hops,
                    "values": values}
        return self.call("follow", namespace, " ".join([entity, *map(str, predicates or [])]), run,
                          logged=lambda r: [f for hop in r["hops"] for f in hop["facts"]])

    # ------------------------------------------------------------------ search (G4)
    @verbs.serves(verbs.Search)
    def search(self, query: str, *, namespace: str, k: int = 10, subject: str | None = None,
               predicate: str | None = None, min_authority: int | None = None, include_superseded: bool = False,
               as_of: datetime | str | None = None, include_chunks: bool = True,
               per_event: bool = True, detail: str = "full") -> list[dict[str, Any]]:
        """Hybrid search (G4): pgvector HNSW + full text over facts and chunks, fused by RRF.

        With ``per_event`` (the default) the k results are k different Bronze events: the best item
        of each, and the event's other hits (its other facts, its chunk) under ``same_event``, so
        one turn distilled into three facts does not take three of the k places.

        ``min_authority`` keeps facts at least that authoritative (tier ≤ N). ``as_of`` answers with
        what was believed then about then. Chunk hits are verified against the ledger: they carry
        the facts they support that are believed (now, or at ``as_of``); a superseded fact, or a
        chunk whose facts are all superseded (with ``superseded_by``), is only returned with
        ``include_superseded`` and is then marked ``current: false``. A chunk that supports no
        believed fact (it stated some, all closed) ranks lower (``fusion.NO_CURRENT_FACT``).
        Besides the vector and full-text lists, the ``graph`` list follows current edges from the
        entities the query names (``serve/graph.py``): "where does the author of X live" reaches the
        author's home.

        ``detail="compact"`` cuts each result to its statement, id, score, whether it is current and
        where it came from (``searching.compact``); a search that finds nothing in a namespace that
        holds nothing, or with a predicate no fact uses, says so (``_explain_empty``).
        """
        def run() -> list[dict[str, Any]]:
            when = verbs.when(as_of)
            self.authorize("search", namespace)
            vector = searching.query_vector(self.settings.embedding_model, query)
            request = searching.SearchRequest(
                namespace=namespace, query=query, k=k, subject=subject, predicate=predicate,
                min_authority=min_authority, include_superseded=include_superseded, as_of=when,
                include_chunks=include_chunks, per_event=per_event)
            with self.scope([namespace]) as conn:
                found = searching.search(conn, request, vector)
            if not found:
                self._explain_empty(namespace, predicate)
            return searching.compact(found) if detail == "compact" else found
        return self.call("search", namespace, query, run)

    # ------------------------------------------------------------------ recall (G5)
    @verbs.serves(verbs.Recall)
    def recall(self, query: str, *, namespace: str, stakes: str = "low", k: int = 5) -> dict[str, Any]:
        """The retrieval cascade (G5); the answer says which hop answered and why.

        Relational questions naming two known entities go to the graph (when the caller may read).
        Low stakes ask the Hindsight peer first when one is configured (fast, possibly lossy): its
        answers are verified against the ledger (a superseded fact is never served as current) and
        served as the ledger serves them; no answer, an unreachable peer or a low-confidence answer
        escalates to the ledger. High stakes go to the ledger, the auditable hop.
        """
        def run() -> dict[str, Any]:
            cap = self.authorize("search", namespace)
            names = self._entities_named(query, namespace)
            relational = re.search(r"\b(relat\w*|connect\w*|know|between|link\w*)\b", query, re.I)
            if len(names) >= 2 and relational and (cap is None or cap.allows("read", namespace)):
                with self.scope([namespace]) as conn:
                    paths = silver_queries.related(conn, namespace, names[0], names[1])
                if paths:
                    return {"hop": "graph", "reason": f"relational question about {names[0]} and {names[1]}",
                            "stakes": stakes, "answers": paths}
            reason = "high stakes: the auditable ledger answered"
            if stakes == "low":
                answers, reason = self._hindsight_hop(query, namespace, k)
                if answers:
                    return {"hop": "hindsight", "reason": reason, "stakes": stakes, "answers": answers}
            with self.scope([namespace]) as conn:
                answers = searching.search(conn, searching.SearchRequest(namespace=namespace, query=query, k=k),
                                           searching.query_vector(self.settings.embedding_model, query))
            if not answers:
                self._explain_empty(namespace)
            return {"hop": "ledger", "reason": reason, "stakes": stakes, "answers": answers}
        return self.call("recall", namespace, query, run)

    def _hindsight_hop(self, query: str, namespace: str, k: int) -> tuple[list[dict[str, Any]], str]:
        """Hindsight's verified answers in the ledger's shape, or none and why the ledger must answer."""
        if not self.settings.hindsight_url:
            return [], "Hindsight is not configured; the ledger answered"
        from medallion.peers import hindsight  # the client; imported only when configured

        try:
            if self._peer is None:
                self._peer = hindsight.HindsightPeer(self.settings.hindsight_url)
            found = hindsight.recall(self._peer, namespace, query, k)
        except hindsight.HindsightError as exc:
            return [], f"Hindsight did not answer ({exc}); escalated to the ledger"
        ids = list(dict.fromkeys(a["fact_id"] for a in found if a.get("fact_id")))
        if not ids:
            return [], "Hindsight had no current answer; escalated to the ledger"
        # verified under the caller's row-level security: only what the ledger holds now as current,
        # uncontested and authoritative (what the mirror retains) is served, as the ledger serves it
        with self.scope([namespace]) as conn:
            facts = {f["fact_id"]: f for f in served.served_facts(
                conn, f"f.fact_id = ANY(%(ids)s) AND {served.AUTHORITATIVE}",
                {"ids": ids, "max_authority": served.MIRRORED_MAX_AUTHORITY})}
        answers = [{**facts[i], "kind": "fact"} for i in ids if i in facts]
        if not answers or min(a["confidence"] for a in answers) < LOW_CONFIDENCE:
            return [], "Hindsight's answer has low confidence; escalated to the ledger"
        return answers, "low stakes: the Hindsight peer answered; every answer verified against the ledger"

    def _entities_named(self, query: str, namespace: str) -> list[str]:
        """The canonical names of the entities ``query`` names (whole words, aliases too), longest first."""
        with self.scope([namespace]) as conn:
            return [m.name for m in graph.mentions(conn, namespace, query)][:5]


def open_tools(token: str | None = None, settings: Settings | None = None, *, origin: str = "api") -> Tools:
    """The tools for ``token`` (None = the local admin), with settings from the environment by default."""
    settings = settings or get_settings()
    return Tools(settings, token if token is not None else settings.token, origin=origin)
