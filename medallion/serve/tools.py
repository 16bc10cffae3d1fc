"""The Gold tools: one implementation behind the Python API, the CLI and the MCP server.

A :class:`Tools` is a :class:`~medallion.serve.session.Session` (the caller's verified grant,
row-level-security scopes, telemetry) with the verbs. Reads serve facts through the one read model
(``serve/served.py``: overlays composed, redactions masked); search runs the stages of
``serve/search.py``. Writes (``remember``, ``overlay``) go to Bronze through the event contract on an
engine connection, capped by the capability's maximum authority.

Results are plain dicts in the CLI's JSON shape.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from typing import Any

import psycopg

from medallion.bronze.contract import OverlayPayload, TextQuoteSelector
from medallion.bronze.ingest import ingest_events
from medallion.serve import capabilities, graph, served
from medallion.serve import search as searching
from medallion.serve.served import REDACTED
from medallion.serve.session import Denied, Session, ToolError, checked_at_the_door
from medallion.settings import Settings, get_settings
from medallion.silver import entities, overlays
from medallion.silver import queries as silver_queries
from medallion.silver.derive import derive

__all__ = ["REDACTED", "Denied", "ToolError", "Tools", "open_tools"]
LOW_CONFIDENCE = 0.5


def _when(as_of: datetime | str | None) -> datetime | None:
    """An ``as_of`` argument as an aware datetime; a malformed or naive one is a ToolError."""
    try:
        when = datetime.fromisoformat(as_of) if isinstance(as_of, str) else as_of
    except ValueError:
        raise ToolError(f"as_of {as_of!r} is not an ISO 8601 timestamp") from None
    if when is not None and when.tzinfo is None:
        raise ToolError("as_of needs a UTC offset, e.g. 2026-03-01T00:00:00Z")
    return when


class Tools(Session):
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

    # ------------------------------------------------------------------ read verbs
    @checked_at_the_door
    def current(self, subject: str, predicate: str, *, namespace: str) -> list[dict[str, Any]]:
        """Every open version of a slot (several when many-valued or contested)."""
        def run() -> list[dict[str, Any]]:
            self.authorize("read", namespace)
            with self.scope([namespace]) as conn:
                return served.current(conn, namespace, subject, predicate)
        return self.call("current", namespace, f"{subject} {predicate}", run)

    @checked_at_the_door
    def history(self, subject: str, predicate: str, *, namespace: str) -> list[dict[str, Any]]:
        """Every version of a slot, by valid_from."""
        def run() -> list[dict[str, Any]]:
            self.authorize("read", namespace)
            with self.scope([namespace]) as conn:
                return served.history(conn, namespace, subject, predicate)
        return self.call("history", namespace, f"{subject} {predicate}", run)

    @checked_at_the_door
    def list(self, *, namespace: str, subject: str | None = None, predicate: str | None = None,
             include_superseded: bool = False, limit: int = 100) -> list[dict[str, Any]]:
        """Facts of a namespace, optionally of one subject and/or predicate (current only by default)."""
        def run() -> list[dict[str, Any]]:
            self.authorize("list", namespace)
            with self.scope([namespace]) as conn:
                where = ["f.namespace = %(ns)s"]
                params: dict[str, Any] = {"ns": namespace}
                if not served.slot_filters(conn, namespace, subject, predicate, where, params):
                    return []
                if not include_superseded:
                    where.append("f.valid_to IS NULL")
                return served.served_facts(conn, " AND ".join(where), params,
                                   order="e.canonical_name, f.predicate, f.valid_from, f.fact_id", limit=limit)
        return self.call("list", namespace, " ".join(x for x in (subject, predicate) if x) or None, run)

    @checked_at_the_door
    def read(self, fact_id: str | None = None, *, path: str | None = None,
             namespace: str | None = None) -> list[dict[str, Any]]:
        """One fact by id (with its overlays), or a document's HEAD version by path (needs ``namespace``)."""
        if path is not None:
            return self._read_document(path, namespace)

        def run() -> list[dict[str, Any]]:
            if not fact_id:
                raise ToolError("read needs a fact id, or a document path with a namespace")
            scope = [namespace] if namespace else self.readable("read")
            if namespace:
                self.authorize("read", namespace)
            with self.scope(scope) as conn:
                found = served.served_facts(conn, "f.fact_id = %(id)s", {"id": fact_id})
            if not found:
                raise ToolError(f"no fact {fact_id} in the namespaces this caller can read")
            return found
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
                if head is None:
                    raise ToolError(f"no document {path!r} in namespace '{namespace}'")
                pieces = conn.execute(
                    "SELECT char_start, text FROM silver.chunks WHERE namespace = %s AND bronze_event_id = %s "
                    "ORDER BY char_start", (namespace, head[3]),
                ).fetchall()
            content = ""
            for start, text in pieces:  # chunks may overlap: append what extends the text
                if start + len(text) > len(content):
                    content += text[max(0, len(content) - start):]
            return [{"path": head[0], "version_hash": head[1], "parent_hash": head[2], "content": content,
                     "recorded_at": silver_queries.iso(head[4]),
                     "provenance": {"bronze_event_id": head[3], "namespace": namespace, "source": head[5],
                                    "source_event_id": head[6], "provenance_root": head[7]}}]
        return self.call("read", namespace, path, run)

    @checked_at_the_door
    def relate(self, a: str, b: str, *, namespace: str, max_depth: int = 3) -> list[dict[str, Any]]:
        """How two entities are related: shortest paths over current edges, each hop with its fact."""
        def run() -> list[dict[str, Any]]:
            self.authorize("read", namespace)
            with self.scope([namespace]) as conn:
                return silver_queries.related(conn, namespace, a, b, max_depth=max_depth)
        return self.call("relate", namespace, f"{a} ~ {b}", run)

    @checked_at_the_door
    def follow(self, entity: str, predicates: list[str], *, namespace: str,
               as_of: datetime | str | None = None) -> dict[str, Any]:
        """Walk a known chain of predicates from ``entity`` over current edges (or those believed at ``as_of``).

        "Where is Alice's employer located?" is ``follow('Alice', ['works_at', 'located_in'])``: two
        slot reads chained through the entity the first one names, which no similarity search can
        promise. Returns each hop's facts (served like every fact: provenance, overlays, redactions)
        and the values the last hop reached; a hop that reaches nothing leaves the later ones empty.
        """
        def run() -> dict[str, Any]:
            when = _when(as_of)
            self.authorize("read", namespace)
            try:
                path = graph.steps(predicates)
            except ValueError as exc:
                raise ToolError(str(exc)) from None
            with self.scope([namespace]) as conn:
                starts = entities.find(conn, namespace, entity)
                if not starts:
                    raise ToolError(f"no entity named {entity!r} in namespace '{namespace}'; "
                                    "find its exact name with search or list, then follow again")
                walked = graph.follow_in(conn, namespace, starts, path, when)
                ids = [h.fact_id for found in walked for h in found]
                shown = {f["fact_id"]: f for f in served.served_facts(conn, "f.fact_id = ANY(%(ids)s)", {"ids": ids})}
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
    @checked_at_the_door
    def search(self, query: str, *, namespace: str, k: int = 10, subject: str | None = None,
               predicate: str | None = None, min_authority: int | None = None, include_superseded: bool = False,
               as_of: datetime | str | None = None, include_chunks: bool = True,
               per_event: bool = True) -> list[dict[str, Any]]:
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
        """
        def run() -> list[dict[str, Any]]:
            if not query or not query.strip():
                raise ToolError("search needs a non-empty query")
            when = _when(as_of)
            self.authorize("search", namespace)
            vector = searching.query_vector(self.settings.embedding_model, query)
            request = searching.SearchRequest(
                namespace=namespace, query=query, k=k, subject=subject, predicate=predicate,
                min_authority=min_authority, include_superseded=include_superseded, as_of=when,
                include_chunks=include_chunks, per_event=per_event)
            with self.scope([namespace]) as conn:
                return searching.search(conn, request, vector)
        return self.call("search", namespace, query, run)

    # ------------------------------------------------------------------ recall (G5)
    @checked_at_the_door
    def recall(self, query: str, *, namespace: str, stakes: str = "low", k: int = 5) -> dict[str, Any]:
        """The retrieval cascade (G5); the answer says which hop answered and why.

        Relational questions naming two known entities go to the graph (when the caller may read).
        Low stakes ask the Hindsight peer first when one is configured (fast, possibly lossy): its
        answers are verified against the ledger (a superseded fact is never served as current) and
        served as the ledger serves them; no answer, an unreachable peer or a low-confidence answer
        escalates to the ledger. High stakes go to the ledger, the auditable hop.
        """
        def run() -> dict[str, Any]:
            if stakes not in ("low", "high"):
                raise ToolError("stakes must be 'low' or 'high'")
            if not query.strip():
                raise ToolError("recall needs a non-empty query")
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

    # ------------------------------------------------------------------ writes
    @checked_at_the_door
    def remember(self, *, namespace: str, content: str, kind: str = "note", source: str | None = None,
                 source_event_id: str | None = None, actor: str | None = None, authority: int | None = None,
                 occurred_at: str | None = None, provenance_root: str | None = None,
                 metadata: dict[str, Any] | None = None, derive_now: bool = True) -> dict[str, Any]:
        """Write one event to Bronze through the B2 contract, then derive it (unless ``derive_now`` is False)."""
        def run() -> dict[str, Any]:
            cap = self.authorize("remember", namespace)
            if kind == "overlay":
                raise ToolError("overlays are written with the overlay tool, which anchors them and asks for approval")
            src = source or self.origin
            seid = source_event_id or hashlib.sha256(f"{kind}\n{content}".encode()).hexdigest()[:32]
            event = {
                "namespace": namespace, "source": src, "source_event_id": seid, "kind": kind, "content": content,
                "provenance_root": provenance_root or f"{src}://{seid}", "actor": actor or self.author(cap),
                "occurred_at": occurred_at or datetime.now(UTC).isoformat(), "metadata": metadata or {},
            }
            if authority is not None:
                event["authority"] = authority
            result = ingest_events(self.engine, [event], origin=self.origin,
                                   max_content_bytes=self.settings.max_content_bytes,
                                   max_authority=cap.max_authority if cap else None,
                                   allowed_namespaces=cap.namespaces if cap and "*" not in cap.namespaces else None)
            outcome = _single_outcome(result)
            if outcome["status"] == "inserted" and derive_now:
                derive(self.engine, self.settings, namespaces=[namespace])
            return {**outcome, "namespace": namespace, "source": src, "source_event_id": seid}
        return self.call("remember", namespace, None, run)

    @checked_at_the_door
    def overlay(self, fact_id: str, action: str, *, quote: str, text: str | None = None, note: str | None = None,
                prefix: str = "", suffix: str = "", reason: str | None = None) -> dict[str, Any]:
        """Edit, annotate or redact a span of a fact (G6). Overwriting a person's overlay needs approval."""
        def run() -> dict[str, Any]:
            namespaces = self.readable("overlay")
            with self.scope(namespaces) as conn:
                row = conn.execute("SELECT namespace, statement, bronze_event_id, subject_id, predicate FROM "
                                   "silver.facts WHERE fact_id = %s", (fact_id,)).fetchone()
                if row is None:
                    raise ToolError(f"no fact {fact_id} in the namespaces this caller can overlay")
                namespace, statement, event_id, subject_id, pred = row
                existing = conn.execute(
                    "SELECT bronze_event_id, span_start, span_end FROM silver.overlays WHERE fact_id = %s AND status "
                    "IN ('anchored', 'reanchored') AND action <> 'annotate'", (fact_id,)).fetchall()
            cap = self.authorize("overlay", namespace)
            try:
                payload = OverlayPayload(fact_id=fact_id, action=action,  # type: ignore[arg-type]
                                         selector=TextQuoteSelector(exact=quote, prefix=prefix, suffix=suffix),
                                         text=text, note=note)
            except ValueError as exc:
                raise ToolError(f"invalid overlay: {str(exc).splitlines()[-1]}") from None
            span = overlays.locate(statement, quote, prefix, suffix)
            if span is None:
                raise ToolError(f"the quote {quote!r} is not in fact {fact_id}'s statement")
            hint = {"anchor": {"bronze_event_id": event_id, "subject_id": subject_id, "predicate": pred}}
            clash = [e for e, s, t in existing if action != "annotate" and s is not None and s < span[1]
                     and span[0] < t]
            if clash:
                approval_id = self.engine.execute(
                    "INSERT INTO gold.approvals (kind, namespace, fact_id, overlay_event_id, proposal, reason, "
                    "requested_by) VALUES ('overlay_overwrite', %s, %s, %s, %s, %s, %s) RETURNING approval_id",
                    (namespace, fact_id, clash[-1], json.dumps({"payload": payload.model_dump(), "metadata": hint}),
                     reason, self.author(cap))).fetchone()[0]
                return {"status": "pending_approval", "approval_id": approval_id, "fact_id": fact_id,
                        "namespace": namespace,
                        "reason": "this span already carries a person's overlay; another person must approve"}
            return self._write_overlay(namespace, payload, hint, cap)
        return self.call("overlay", None, fact_id, run)

    def _write_overlay(self, namespace: str, payload: OverlayPayload, metadata: dict[str, Any],
                       cap: capabilities.Capability | None, approval_id: int | None = None) -> dict[str, Any]:
        """Land an overlay event (authored by the caller's verified principal) and derive its namespace.

        With ``approval_id`` the event carries out that approval: the event and the decision, taken
        by ``gold.approve_overlay`` from the caller's token (or the administrative login for the local
        admin), commit together or not at all.
        """
        author = self.author(cap)
        if approval_id is not None:
            metadata = {**metadata, "approval_id": approval_id}
        content = payload.model_dump_json()
        seid = hashlib.sha256(f"{author}\n{content}\n{json.dumps(metadata, sort_keys=True)}".encode()).hexdigest()[:32]
        actor = author if ":" in author else f"user:{author}"
        event = {"namespace": namespace, "source": "overlay", "source_event_id": seid, "kind": "overlay",
                 "content": content, "provenance_root": f"overlay://{payload.fact_id}", "actor": actor,
                 "occurred_at": datetime.now(UTC).isoformat(), "metadata": metadata}
        conn = self.engine if approval_id is None or cap is not None else self.admin_login()
        with conn.transaction():
            result = ingest_events(conn, [event], origin=self.origin,
                                   max_authority=cap.max_authority if cap else None,
                                   allowed_namespaces=cap.namespaces if cap and "*" not in cap.namespaces else None)
            outcome = _single_outcome(result)
            if approval_id is not None:
                if outcome["status"] != "inserted":
                    raise ToolError(f"approval request {approval_id} was already carried out by an earlier event")
                try:
                    conn.execute("SELECT gold.approve_overlay(%s, %s, %s, %s)",
                                 (approval_id, outcome.get("event_id"), self.token if cap else None,
                                  None if cap else author))
                except psycopg.errors.InsufficientPrivilege as exc:
                    raise Denied(_db_message(exc)) from None
                except psycopg.Error as exc:
                    raise ToolError(_db_message(exc)) from None
        if outcome["status"] in ("inserted", "duplicate"):
            derive(self.engine, self.settings, namespaces=[namespace])
            anchored = self.engine.execute(
                "SELECT status, fact_id FROM silver.overlays WHERE bronze_event_id = %s", (outcome.get("event_id"),)
            ).fetchone() if outcome.get("event_id") else None
            if anchored:
                outcome["anchor_status"], outcome["anchored_fact_id"] = anchored
        return {**outcome, "fact_id": payload.fact_id, "namespace": namespace, "action": payload.action}

    @checked_at_the_door
    def retract(self, overlay_id: int, *, reason: str) -> dict[str, Any]:
        """Ask to delete a person's overlay (G7): a request another admin approves, never immediate."""
        def run() -> dict[str, Any]:
            namespaces = self.readable("overlay")
            with self.scope(namespaces) as conn:
                row = conn.execute(
                    "SELECT namespace, fact_id, target_fact_id, exact, prefix, suffix FROM silver.overlays "
                    "WHERE bronze_event_id = %s AND status IN ('anchored', 'reanchored', 'unanchored')",
                    (overlay_id,)).fetchone()
            if row is None:
                raise ToolError(f"no active overlay {overlay_id} this caller can retract")
            namespace, fact_id, target, exact, prefix, suffix = row
            cap = self.authorize("overlay", namespace)
            payload = OverlayPayload(fact_id=fact_id or target, action="annotate",
                                     selector=TextQuoteSelector(exact=exact, prefix=prefix, suffix=suffix),
                                     note=f"Retracts overlay {overlay_id}: {reason}")
            approval_id = self.engine.execute(
                "INSERT INTO gold.approvals (kind, namespace, fact_id, overlay_event_id, proposal, reason, "
                "requested_by) VALUES ('overlay_retract', %s, %s, %s, %s, %s, %s) RETURNING approval_id",
                (namespace, fact_id or target, overlay_id,
                 json.dumps({"payload": payload.model_dump(), "metadata": {}}), reason, self.author(cap)),
            ).fetchone()[0]
            return {"status": "pending_approval", "approval_id": approval_id, "overlay_id": overlay_id,
                    "namespace": namespace, "reason": "retracting a person's overlay needs another person's approval"}
        return self.call("retract", None, str(overlay_id), run)

    @checked_at_the_door
    def approve(self, approval_id: int) -> dict[str, Any]:
        """Approve a pending overlay overwrite (G7): needs ``admin`` and a different principal."""
        def run() -> dict[str, Any]:
            cap = self.check_token()
            if cap is not None and "admin" not in cap.verbs:
                raise Denied("approving needs the admin capability")
            row = self.engine.execute(
                "SELECT namespace, proposal, overlay_event_id, requested_by, status, kind FROM gold.approvals "
                "WHERE approval_id = %s", (approval_id,)).fetchone()
            if row is None or (cap is not None and not cap.allows("admin", row[0])):
                raise ToolError(f"no approval request {approval_id} this caller can decide")
            namespace, proposal, replaced, requested_by, status, kind = row
            if status != "pending":
                raise ToolError(f"approval request {approval_id} is already {status}")
            if requested_by == self.author(cap):
                raise Denied("the person who asked cannot approve their own request; another admin must")
            payload = OverlayPayload.model_validate(proposal["payload"])
            link = "retracts" if kind == "overlay_retract" else "replaces"
            written = self._write_overlay(namespace, payload, {**proposal["metadata"], link: replaced}, cap,
                                          approval_id=approval_id)
            return {**written, "approval_id": approval_id, "status": "approved"}
        return self.call("approve", None, str(approval_id), run)



def _db_message(exc: psycopg.Error) -> str:
    """The database's one-sentence message of an error raised by one of the project's functions."""
    diag = getattr(exc, "diag", None)
    primary = diag.message_primary if diag is not None else None
    return primary or str(exc).splitlines()[0]


def _single_outcome(result: Any) -> dict[str, Any]:
    """The ingest outcome of one event as a small dict; a rejection or conflict is a ToolError."""
    [status] = result.statuses
    if status.status in ("rejected", "conflict"):
        raise ToolError(f"{status.status}: {status.reason or status.code}")
    return {"status": status.status, "event_id": status.event_id}


def open_tools(token: str | None = None, settings: Settings | None = None, *, origin: str = "api") -> Tools:
    """The tools for ``token`` (None = the local admin), with settings from the environment by default."""
    settings = settings or get_settings()
    return Tools(settings, token if token is not None else settings.token, origin=origin)
