"""The Gold tools (SPEC G1–G9): one implementation behind the Python API, the CLI and the MCP server.

Every call checks the caller's capability (SPEC G2) and then reads as ``medallion_tool`` with the
call's namespaces set for the transaction, under row-level security: a query here that forgot its
namespace filter would still see nothing of another namespace. Writes (``remember``, ``overlay``)
go to Bronze through the B2 contract on an engine connection, capped by the capability's maximum
authority. Every call, denied ones included, appends to ``telemetry.retrievals`` (SPEC G8).

Results are plain dicts in the CLI's JSON shape (SPEC section 8), composed with the people's
overlays (SPEC G6): an edit replaces its span, a redaction masks it everywhere it is served (the
statement, the value, chunk snippets) and a search for the redacted words does not return it.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import itertools
import json
import logging
import math
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import psycopg

from dagster_project.bronze.contract import OverlayPayload, TextQuoteSelector
from dagster_project.bronze.ingest import ingest_events
from dagster_project.db.connection import connect
from dagster_project.gold import capabilities, door, fusion, graph
from dagster_project.settings import Settings, get_settings
from dagster_project.silver import entities, overlays
from dagster_project.silver import queries as silver_queries
from dagster_project.silver.derive import derive
from dagster_project.silver.embed import load_model

log = logging.getLogger(__name__)
REDACTED = "[redacted]"
TELEMETRY_QUEUE_LIMIT = 1000
LOW_CONFIDENCE = 0.5
CANDIDATES = 50
_WORD = re.compile(r"[\w'-]+", re.UNICODE)
_STOP = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from", "has", "have",
    "how", "i", "in", "is", "it", "its", "of", "on", "or", "our", "she", "he", "that", "the", "their",
    "them", "they", "this", "to", "was", "were", "what", "when", "where", "which", "who", "whom", "why",
    "will", "with", "you", "your",
))

# The active overlays of each fact ``f`` as one JSON column ``overlays`` (composed on read, SPEC G6).
OVERLAYS_JOIN = """
LEFT JOIN LATERAL (
    SELECT json_agg(json_build_object(
               'overlay_id', o.bronze_event_id, 'action', o.action, 'exact', o.exact, 'text', o.text,
               'note', o.note, 'author', o.author, 'status', o.status, 'anchor_method', o.anchor_method,
               'span', json_build_array(o.span_start, o.span_end), 'recorded_at', o.recorded_at)
           ORDER BY o.recorded_at, o.bronze_event_id) AS overlays
    FROM silver.overlays o
    WHERE o.fact_id = f.fact_id AND o.status IN ('anchored', 'reanchored')
) ov ON true
"""


# gold.event_provenance is a security-barrier view: joined directly, its key cannot drive an index scan
# (the join clause may not move below the barrier's own filter), so each fact looks up its event in a
# lateral subquery that OFFSET 0 keeps whole, where the key is a leakproof restriction the index serves.
FACT_SELECT = """
SELECT f.fact_id, e.canonical_name, f.predicate, f.value, f.statement, f.valid_from, f.valid_to, f.recorded_at,
       f.superseded_at, f.verified_at, f.authority, f.confidence, f.contested, f.superseded_by, f.importance,
       f.bronze_event_id, f.namespace, f.source, p.source_event_id, f.provenance_root
       , ov.overlays
FROM {source} f
JOIN silver.entities e ON e.entity_id = f.subject_id
LEFT JOIN LATERAL (SELECT p.source_event_id FROM gold.event_provenance p WHERE p.event_id = f.bronze_event_id
                   OFFSET 0) p ON true
""" + OVERLAYS_JOIN


class ToolError(Exception):
    """A tool call that cannot be served: one sentence saying why and what to do."""

    exit_code = 1


class Denied(ToolError):
    """The capability does not allow the call. Reveals nothing about other namespaces."""

    exit_code = 2


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text or "")}


@lru_cache(maxsize=2048)
def _query_vector(model_name: str, query: str) -> list[float]:
    """Query embeddings (not cached in Silver: queries are not derivations).

    One short sentence is encoded on one thread: thread start-up and contention cost more than the
    work (measured: 10–25 ms on one thread against 150–450 ms with torch's default two on a busy box).
    """
    import torch

    model = load_model(model_name)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return model.encode([query], normalize_embeddings=True)[0].tolist()
    finally:
        torch.set_num_threads(threads)


def _content_words(query: str) -> list[str]:
    """The query's content words, in order, once each (stop words and punctuation dropped)."""
    words = [re.sub(r"[^\w]", "", w) for w in (m.lower() for m in _WORD.findall(query))]
    return list(dict.fromkeys(w for w in words if w and w not in _STOP and len(w) > 1))


def _tsquery(query: str) -> str | None:
    """An OR of the query's content words for ``to_tsquery``."""
    return " | ".join(_content_words(query)) or None


def _tsqueries(query: str) -> dict[str, str | None]:
    """The three full-text passes: all words, any two of the first eight, any one (see silver.fts_facts)."""
    words = _content_words(query)
    if not words:
        return {"tsq_all": None, "tsq_pairs": None, "tsq": None}
    head = words[:8]
    pairs = " | ".join(f"({a} & {b})" for a, b in itertools.combinations(head, 2)) or head[0]
    return {"tsq_all": " & ".join(words), "tsq_pairs": pairs, "tsq": " | ".join(words)}


def _when(as_of: datetime | str | None) -> datetime | None:
    """An ``as_of`` argument as an aware datetime; a malformed or naive one is a ToolError."""
    try:
        when = datetime.fromisoformat(as_of) if isinstance(as_of, str) else as_of
    except ValueError:
        raise ToolError(f"as_of {as_of!r} is not an ISO 8601 timestamp") from None
    if when is not None and when.tzinfo is None:
        raise ToolError("as_of needs a UTC offset, e.g. 2026-03-01T00:00:00Z")
    return when


def _slot_filters(conn: psycopg.Connection, namespace: str, subject: str | None, predicate: str | None,
                  where: list[str], params: dict[str, Any]) -> bool:
    """Add the subject / predicate conditions of a fact query; False when the subject names no entity."""
    if subject:
        ids = entities.find(conn, namespace, subject)
        if not ids:
            return False
        where.append("f.subject_id = ANY(%(ids)s)")
        params["ids"] = ids
    if predicate:
        where.append("f.predicate = %(p)s")
        params["p"] = predicate
    return True


def _checked_at_the_door(method: Callable[..., Any]) -> Callable[..., Any]:
    """Refuse a call whose arguments cannot be used (NUL, lone surrogates, a malformed namespace), in one sentence.

    The refusal is logged like any other call, without the offending text.
    """
    signature = inspect.signature(method)

    @functools.wraps(method)
    def checked(self: Tools, *args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as exc:
            raise ToolError(f"{method.__name__}: {exc}") from None
        for name, value in list(bound.arguments.items())[1:]:
            problem = door.argument_problem(name, value)
            if problem:
                self._log(method.__name__, None, None, [], time.perf_counter(), problem)
                raise ToolError(problem)
        return method(self, *args, **kwargs)
    return checked


class Tools:
    """Capability-gated access to one memory. Use :func:`open_tools`; close it (or use ``with``)."""

    def __init__(self, settings: Settings, token: str | None, *, origin: str = "api") -> None:
        self.settings = settings
        self.token = token
        self.origin = origin
        self._telemetry: list[tuple[Any, ...]] = []  # rows whose write failed, retried with the next one
        self._last_cap: capabilities.Capability | None = None
        self._peer: Any = None  # the Hindsight peer, opened on the first low-stakes recall
        self._admin: psycopg.Connection | None = None  # the local admin's verified login, opened on demand
        if token is not None:
            problem = door.text_problem(token)
            if problem or not token:
                raise Denied("the token is not a valid capability (unknown, expired or revoked)")
        self.engine = connect(settings, "engine", autocommit=True)
        try:
            self.reader = connect(settings, "tool", autocommit=True)
        except BaseException:
            self.engine.close()
            raise
        try:
            self._enter()
            self._check_token()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ plumbing
    def _enter(self) -> None:
        """Bind the tool login's backend to this caller's grant, verified inside the database.

        A token is checked by ``auth.enter``; the local admin's backend is admitted by the engine
        login. Row-level security then shows the backend only the granted namespaces, whatever the
        session sets. Telemetry commits asynchronously on this connection (see :meth:`_log`).
        """
        self.reader.execute("SET synchronous_commit = off")
        if self.token is not None:
            try:
                self.reader.execute("SELECT capability_id FROM auth.enter(%s)", (self.token,))
            except psycopg.errors.InvalidAuthorizationSpecification:
                raise Denied("the token is not a valid capability (unknown, expired or revoked)") from None
            return
        pid = self.reader.execute("SELECT pg_backend_pid()").fetchone()[0]
        nonce = self.engine.execute("SELECT auth.admit_local(%s, %s)",
                                    (pid, capabilities.local_principal())).fetchone()[0]
        self.reader.execute("SELECT set_config('medallion.session', %s, false)", (nonce,))

    def _admin_login(self) -> psycopg.Connection:
        """The administrative login, for decisions the database attributes to the local admin."""
        if self._admin is None:
            self._admin = connect(self.settings, "admin", autocommit=True)
        return self._admin

    def close(self) -> None:
        try:
            self.flush_telemetry()
            if self._peer is not None:
                self._peer.close()
        finally:
            self.engine.close()
            self.reader.close()
            if self._admin is not None:
                self._admin.close()

    def __enter__(self) -> Tools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_token(self) -> capabilities.Capability | None:
        if self.token is None:
            return None
        cap = capabilities.resolve(self.engine, self.token)
        self._last_cap = cap
        if cap is None:
            raise Denied("the token is not a valid capability (unknown, expired or revoked)")
        return cap

    @property
    def principal(self) -> str:
        cap = self._check_token()
        return cap.capability_id if cap else capabilities.local_principal()

    def _author(self, cap: capabilities.Capability | None) -> str:
        return cap.principal if cap else capabilities.local_principal()

    def _authorize(self, verb: str, namespace: str) -> capabilities.Capability | None:
        cap = self._check_token()
        if cap is not None and not cap.allows(verb, namespace):
            raise Denied(f"this capability does not allow '{verb}' in namespace '{namespace}'")
        return cap

    def _readable(self, verb: str) -> list[str]:
        """The namespaces the caller may use ``verb`` in ('*' for the local admin)."""
        cap = self._check_token()
        if cap is None:
            return ["*"]
        if verb not in cap.verbs:
            raise Denied(f"this capability does not allow '{verb}'")
        return list(cap.namespaces)

    @contextmanager
    def _scope(self, namespaces: Sequence[str]) -> Iterator[psycopg.Connection]:
        """A read transaction as medallion_tool, narrowed to ``namespaces`` within the verified grant."""
        with self.reader.transaction():
            self.reader.execute("SELECT set_config('medallion.namespaces', %s, true), "
                                "set_config('hnsw.iterative_scan', 'relaxed_order', true)", (",".join(namespaces),))
            yield self.reader

    def _log(self, tool: str, namespace: str | None, query: str | None, results: Sequence[dict[str, Any]],
             started: float, error: str | None = None) -> None:
        """One telemetry row per call, allowed or not, written at once.

        The row commits with ``synchronous_commit = off``: the call does not wait for the WAL flush
        (about a round trip, not a disk write), a crash of this process loses no row, and a crash of
        the database server loses at most its last few hundred milliseconds of commits. A row that
        cannot be written stays queued and is retried with the next one; a telemetry failure never
        fails the caller's call and never takes other rows with it.
        """
        fact_ids = [r["fact_id"] for r in results if r.get("fact_id")]
        chunk_ids = [r["chunk_id"] for r in results if r.get("chunk_id")]
        if self.token is None:
            principal = capabilities.local_principal()
        else:  # the capability this call resolved (no second lookup)
            principal = self._last_cap.capability_id if self._last_cap else "invalid-token"
        self._telemetry.append(tuple(door.printable(v) for v in (
            tool, namespace, principal, query, fact_ids, chunk_ids, bool(results),
            (time.perf_counter() - started) * 1000, error is None, error)))
        self.flush_telemetry()

    def flush_telemetry(self) -> None:
        """Write the queued telemetry rows, each on its own; one that fails stays queued (bounded)."""
        if not self._telemetry or self.reader.closed:
            return
        kept: list[tuple[Any, ...]] = []
        for row in self._telemetry:
            try:
                with self.reader.transaction():
                    self.reader.execute(
                        "INSERT INTO telemetry.retrievals (tool, namespace, principal, query, fact_ids, chunk_ids, "
                        "hit, latency_ms, ok, error) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", row)
            except psycopg.Error as exc:
                log.warning("telemetry row kept for a retry: %s", str(exc).splitlines()[0] if str(exc) else exc)
                kept.append(row)
        self._telemetry = kept[-TELEMETRY_QUEUE_LIMIT:]

    def _call(self, tool: str, namespace: str | None, query: str | None, fn: Any,
              logged: Callable[[Any], list[dict[str, Any]]] | None = None) -> Any:
        """Run one call and log it; ``logged`` picks the rows whose ids telemetry records (default: the result)."""
        started = time.perf_counter()
        try:
            result = fn()
        except ToolError as exc:
            self._log(tool, namespace, query, [], started, str(exc))
            raise
        if logged is not None:
            rows = logged(result)
        else:
            rows = result if isinstance(result, list) else [result] if isinstance(result, dict) else []
        self._log(tool, namespace, query, [r for r in rows if isinstance(r, dict)], started)
        return result

    # ------------------------------------------------------------------ composition with overlays
    @staticmethod
    def _compose(fact: dict[str, Any], applied: list[dict[str, Any]]) -> dict[str, Any]:
        """The fact as served: edits and redactions applied to statement and value; the person wins."""
        statement = fact["statement"]
        value = fact["value"]
        taken: list[tuple[int, int]] = []
        # later overlays win: apply newest first, skip spans an applied overlay already covers
        for item in sorted(applied, key=lambda o: (o["recorded_at"] or "", o["overlay_id"]), reverse=True):
            if item["action"] == "annotate":
                continue
            start, end = item["span"]
            if start is None or any(s < end and start < e for s, e in taken):
                continue
            taken.append((start, end))
        replacements = {(o["span"][0], o["span"][1]): o for o in applied if o["action"] != "annotate"
                        and (o["span"][0], o["span"][1]) in taken}
        for (start, end), item in sorted(replacements.items(), reverse=True):
            new = REDACTED if item["action"] == "redact" else (item["text"] or "")
            statement = statement[:start] + new + statement[end:]
            if isinstance(value, str) and item["exact"] in value:
                value = value.replace(item["exact"], new)
        composed = dict(fact)
        composed["statement"] = statement
        composed["value"] = value
        composed["overlays"] = [
            {"overlay_id": o["overlay_id"], "action": o["action"], "author": o["author"], "status": o["status"],
             "anchor_method": o["anchor_method"], "recorded_at": o["recorded_at"],
             **({"text": o["text"]} if o["action"] == "edit" else {}),
             **({"note": o["note"]} if o["note"] else {})}
            for o in applied
        ]
        composed["_redacted"] = [o["exact"] for o in applied if o["action"] == "redact"]
        return composed

    def _facts(self, conn: psycopg.Connection, where: str, params: dict[str, Any], source: str = "silver.facts",
               order: str = "f.valid_from, f.recorded_at, f.fact_id", limit: int | None = None,
               keep_redactions: bool = False) -> list[dict[str, Any]]:
        sql = FACT_SELECT.format(source=source) + f"WHERE {where} ORDER BY {order}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        composed = []
        for row in conn.execute(sql, params).fetchall():
            applied = [{**o, "span": tuple(o["span"])} for o in (row[-1] or [])]
            composed.append(self._compose(silver_queries.as_json(row[:-1]), applied))
        return composed if keep_redactions else [self._finish(r) for r in composed]

    @staticmethod
    def _finish(fact: dict[str, Any]) -> dict[str, Any]:
        fact = dict(fact)
        fact.pop("_redacted", None)
        fact["current"] = fact["valid_to"] is None
        return fact

    # ------------------------------------------------------------------ read verbs
    @_checked_at_the_door
    def current(self, subject: str, predicate: str, *, namespace: str) -> list[dict[str, Any]]:
        """Every open version of a slot (several when many-valued or contested)."""
        def run() -> list[dict[str, Any]]:
            self._authorize("read", namespace)
            with self._scope([namespace]) as conn:
                ids = entities.find(conn, namespace, subject)
                if not ids:
                    return []
                return self._facts(conn, "f.namespace = %(ns)s AND f.subject_id = ANY(%(ids)s) "
                                   "AND f.predicate = %(p)s AND f.valid_to IS NULL",
                                   {"ns": namespace, "ids": ids, "p": predicate},
                                   order="f.authority, f.valid_from DESC, f.fact_id")
        return self._call("current", namespace, f"{subject} {predicate}", run)

    @_checked_at_the_door
    def history(self, subject: str, predicate: str, *, namespace: str) -> list[dict[str, Any]]:
        """Every version of a slot, by valid_from."""
        def run() -> list[dict[str, Any]]:
            self._authorize("read", namespace)
            with self._scope([namespace]) as conn:
                ids = entities.find(conn, namespace, subject)
                if not ids:
                    return []
                return self._facts(conn, "f.namespace = %(ns)s AND f.subject_id = ANY(%(ids)s) AND f.predicate = %(p)s",
                                   {"ns": namespace, "ids": ids, "p": predicate})
        return self._call("history", namespace, f"{subject} {predicate}", run)

    @_checked_at_the_door
    def list(self, *, namespace: str, subject: str | None = None, predicate: str | None = None,
             include_superseded: bool = False, limit: int = 100) -> list[dict[str, Any]]:
        """Facts of a namespace, optionally of one subject and/or predicate (current only by default)."""
        def run() -> list[dict[str, Any]]:
            self._authorize("list", namespace)
            with self._scope([namespace]) as conn:
                where = ["f.namespace = %(ns)s"]
                params: dict[str, Any] = {"ns": namespace}
                if not _slot_filters(conn, namespace, subject, predicate, where, params):
                    return []
                if not include_superseded:
                    where.append("f.valid_to IS NULL")
                return self._facts(conn, " AND ".join(where), params,
                                   order="e.canonical_name, f.predicate, f.valid_from, f.fact_id", limit=limit)
        return self._call("list", namespace, " ".join(x for x in (subject, predicate) if x) or None, run)

    @_checked_at_the_door
    def read(self, fact_id: str | None = None, *, path: str | None = None,
             namespace: str | None = None) -> list[dict[str, Any]]:
        """One fact by id (with its overlays), or a document's HEAD version by path (needs ``namespace``)."""
        if path is not None:
            return self._read_document(path, namespace)

        def run() -> list[dict[str, Any]]:
            if not fact_id:
                raise ToolError("read needs a fact id, or a document path with a namespace")
            scope = [namespace] if namespace else self._readable("read")
            if namespace:
                self._authorize("read", namespace)
            with self._scope(scope) as conn:
                found = self._facts(conn, "f.fact_id = %(id)s", {"id": fact_id})
            if not found:
                raise ToolError(f"no fact {fact_id} in the namespaces this caller can read")
            return found
        return self._call("read", namespace, fact_id, run)

    def _read_document(self, path: str, namespace: str | None) -> list[dict[str, Any]]:
        def run() -> list[dict[str, Any]]:
            if not namespace:
                raise ToolError("reading a document needs its namespace (-n NS)")
            self._authorize("read", namespace)
            with self._scope([namespace]) as conn:
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
                     "recorded_at": _iso(head[4]),
                     "provenance": {"bronze_event_id": head[3], "namespace": namespace, "source": head[5],
                                    "source_event_id": head[6], "provenance_root": head[7]}}]
        return self._call("read", namespace, path, run)

    @_checked_at_the_door
    def relate(self, a: str, b: str, *, namespace: str, max_depth: int = 3) -> list[dict[str, Any]]:
        """How two entities are related: shortest paths over current edges, each hop with its fact."""
        def run() -> list[dict[str, Any]]:
            self._authorize("read", namespace)
            with self._scope([namespace]) as conn:
                return silver_queries.related(conn, namespace, a, b, max_depth=max_depth)
        return self._call("relate", namespace, f"{a} ~ {b}", run)

    @_checked_at_the_door
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
            self._authorize("read", namespace)
            try:
                path = graph.steps(predicates)
            except ValueError as exc:
                raise ToolError(str(exc)) from None
            with self._scope([namespace]) as conn:
                starts = entities.find(conn, namespace, entity)
                if not starts:
                    raise ToolError(f"no entity named {entity!r} in namespace '{namespace}'; "
                                    "find its exact name with search or list, then follow again")
                walked = graph.follow_in(conn, namespace, starts, path, when)
                ids = [h.fact_id for found in walked for h in found]
                served = {f["fact_id"]: f for f in self._facts(conn, "f.fact_id = ANY(%(ids)s)", {"ids": ids})}
            hops = [{"predicate": step.given, "key": step.key, "inverse": step.inverse,
                     "facts": [served[h.fact_id] for h in found if h.fact_id in served]}
                    for step, found in zip(path, walked, strict=True)]
            last = hops[-1]
            values = [f["subject"] if last["inverse"] else f["value"] for f in last["facts"]]
            return {"entity": entity, "namespace": namespace, "as_of": _iso(when), "hops": hops, "values": values}
        return self._call("follow", namespace, " ".join([entity, *map(str, predicates or [])]), run,
                          logged=lambda r: [f for hop in r["hops"] for f in hop["facts"]])

    # ------------------------------------------------------------------ search (G4)
    @_checked_at_the_door
    def search(self, query: str, *, namespace: str, k: int = 10, subject: str | None = None,
               predicate: str | None = None, min_authority: int | None = None, include_superseded: bool = False,
               as_of: datetime | str | None = None, include_chunks: bool = True,
               per_event: bool = True) -> list[dict[str, Any]]:
        """Hybrid search (SPEC G4): pgvector HNSW + full text over facts and chunks, fused by RRF.

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
        entities the query names (``gold/graph.py``): "where does the author of X live" reaches the
        author's home.
        """
        def run() -> list[dict[str, Any]]:
            if not query or not query.strip():
                raise ToolError("search needs a non-empty query")
            when = _when(as_of)
            self._authorize("search", namespace)
            vector = _query_vector(self.settings.embedding_model, query)
            tsq = _tsquery(query)
            with self._scope([namespace]) as conn:
                return self._search(conn, namespace, query, vector, tsq, k, subject, predicate, min_authority,
                                    include_superseded, when, include_chunks, per_event)
        return self._call("search", namespace, query, run)

    def _search(self, conn: psycopg.Connection, namespace: str, query: str, vector: list[float], tsq: str | None,
                k: int, subject: str | None, predicate: str | None, min_authority: int | None,
                include_superseded: bool, when: datetime | None, include_chunks: bool,
                per_event: bool = True) -> list[dict[str, Any]]:
        filters = ["f.namespace = %(ns)s", "f.embedding IS NOT NULL"]
        params: dict[str, Any] = {"ns": namespace, "q": str(vector), "n": CANDIDATES, **_tsqueries(query)}
        if not _slot_filters(conn, namespace, subject, predicate, filters, params):
            return []
        if min_authority is not None:
            filters.append("f.authority <= %(auth)s")
            params["auth"] = int(min_authority)
        source = "silver.facts"
        if when is not None:
            source = "silver.facts_as_of(%(ns)s, %(when)s, %(when)s)"
            params["when"] = when
        elif not include_superseded:
            filters.append("f.valid_to IS NULL")
        where = " AND ".join(filters)
        filtered = bool(subject or predicate or min_authority is not None or when is not None)
        lists: dict[str, list[str]] = {}
        lists["fact_vector"] = [r[0] for r in conn.execute(
            f"SELECT f.fact_id FROM {source} f WHERE {where} ORDER BY f.embedding <=> %(q)s::vector LIMIT %(n)s",
            params).fetchall()]
        if tsq:
            # full-text candidates (BM25) through the owner function (the GIN index cannot serve `@@`
            # under row-level security), then the same filters as the vector list, in rank order
            fts_rows = conn.execute(
                "SELECT fact_id FROM silver.fts_facts(%(ns)s, %(tsq_all)s, %(tsq_pairs)s, %(tsq)s, %(fts_n)s, "
                "%(current_only)s)",
                {**params, "fts_n": CANDIDATES * 4 if filtered else CANDIDATES,
                 "current_only": when is None and not include_superseded},
            ).fetchall()
            if filtered:  # the function filters by namespace and currency only: apply the rest, keep its order
                keep = {r[0] for r in conn.execute(
                    f"SELECT f.fact_id FROM {source} f WHERE {where} AND f.fact_id = ANY(%(ids)s)",
                    {**params, "ids": [r[0] for r in fts_rows]}).fetchall()}
                fts_rows = [r for r in fts_rows if r[0] in keep][:CANDIDATES]
            lists["fact_text"] = [r[0] for r in fts_rows]
        # the graph's answer: the slots the question names, and multi-hop paths over current beliefs
        lists["graph"], graph_weight = graph.search_list(
            conn, namespace, query, source=source, where=where, params=params,
            believed="f.valid_to IS NULL" if when is None else "TRUE", limit=CANDIDATES)

        chunk_rows: dict[str, tuple[Any, ...]] = {}
        if include_chunks and not (subject or predicate or min_authority is not None):
            cfilter = "c.namespace = %(ns)s AND c.embedding IS NOT NULL"
            if when is not None:
                cfilter += " AND c.occurred_at <= %(when)s"
            # every chunk, then whole passages only: a turn is also found by what it says as a whole
            for name, unit_filter in (("chunk_vector", ""), ("passage_vector", " AND c.unit = 'passage'")):
                lists[name] = [r[0] for r in conn.execute(
                    f"SELECT c.chunk_id FROM silver.chunks c WHERE {cfilter}{unit_filter} "
                    "ORDER BY c.embedding <=> %(q)s::vector LIMIT %(n)s", params).fetchall()]
            if tsq:
                for name, function in (("chunk_text", "fts_chunks"), ("passage_text", "fts_passages")):
                    lists[name] = [r[0] for r in conn.execute(
                        f"SELECT chunk_id FROM silver.{function}(%(ns)s, %(tsq_all)s, %(tsq_pairs)s, %(tsq)s, "
                        "%(n)s, %(before)s)", {**params, "before": when}).fetchall()]
            chunk_ids = list(dict.fromkeys(lists["chunk_vector"] + lists.get("chunk_text", [])
                                           + lists["passage_vector"] + lists.get("passage_text", [])))
            if chunk_ids:
                for row in conn.execute(
                        "SELECT c.chunk_id, c.bronze_event_id, c.char_start, c.char_end, c.text, c.occurred_at, "
                        "c.provenance_root, p.source, p.source_event_id, c.unit FROM silver.chunks c "
                        "LEFT JOIN LATERAL (SELECT p.source, p.source_event_id FROM gold.event_provenance p "
                        "WHERE p.event_id = c.bronze_event_id OFFSET 0) p ON true "
                        "WHERE c.chunk_id = ANY(%s)", (chunk_ids,)).fetchall():
                    chunk_rows[row[0]] = row
        # turn-level fusion: every list votes once per Bronze event (gold/fusion.py)
        fact_ids = list(dict.fromkeys(lists["fact_vector"] + lists.get("fact_text", []) + lists["graph"]))
        event_of: dict[str, Any] = dict(conn.execute(
            "SELECT fact_id, bronze_event_id FROM silver.facts WHERE fact_id = ANY(%s)", (fact_ids,)).fetchall()
            if fact_ids else [])
        event_of.update({cid: row[1] for cid, row in chunk_rows.items()})
        # verify chunk hits against the ledger: the facts each chunk supports, believed now (or then)
        standing = self._chunk_standing(conn, chunk_rows, params, when)
        # a turn that stated no fact has only its text to stand for it: its chunk votes for both views
        unstated = {chunk_rows[cid][1] for cid, st in standing.items() if not st.supports and not st.closed}
        scores = fusion.fuse(lists, event_of, weights={"graph": graph_weight},
                             stand_in={"chunk_vector": unstated, "chunk_text": unstated})
        # only the best candidates are loaded in full (room for those a redaction removes)
        best = sorted(fact_ids, key=lambda fid: (-scores[fid], fid))[:max(3 * k, 30)]
        facts = self._facts(conn, "f.fact_id = ANY(%(ids)s)", {**params, "ids": best}, source=source,
                            keep_redactions=True) if best else []
        query_words = _words(query) - _STOP
        results: list[dict[str, Any]] = []
        redacted_by_event = self._redactions_by_event(conn, sorted({r[1] for r in chunk_rows.values()}))
        for fact in facts:
            redacted = fact.get("_redacted") or []
            if redacted and query_words & set().union(*(_words(r) for r in redacted)):
                continue  # a search for redacted words does not return the fact
            boost = 1.0 + 0.1 * float(fact.get("importance") or 0) + 0.05 * self._freshness(fact)
            results.append({**self._finish(fact), "score": round(scores[fact["fact_id"]] * boost, 6),
                            "kind": "fact"})
        superseding = self._superseding(conn, standing, include_superseded)
        for cid, row in chunk_rows.items():
            _, event_id, start, end, text, occurred_at, root, src, seid, unit = row
            stands = standing.get(cid, fusion.ChunkStanding())
            if not stands.current and not include_superseded:
                continue  # its facts are no longer believed: not served as current
            redacted = redacted_by_event.get(event_id, [])
            if redacted and query_words & set().union(*(_words(r) for r in redacted)):
                continue
            snippet = text
            for phrase in redacted:
                snippet = snippet.replace(phrase, REDACTED)
            results.append({
                "kind": "chunk", "chunk_id": cid, "fact_id": None, "subject": None, "predicate": None, "value": None,
                "statement": snippet, "valid_from": _iso(occurred_at), "valid_to": None, "recorded_at": None,
                "superseded_at": None, "authority": None, "confidence": None, "contested": False,
                "current": stands.current, "score": round(scores[cid] * stands.factor, 6),
                "supports": list(stands.supports),
                "superseded_by": [superseding[f] for f in stands.superseded_by if f in superseding],
                "span": [start, end], "unit": unit,
                "provenance": {"bronze_event_id": event_id, "namespace": namespace, "source": src,
                               "source_event_id": seid, "provenance_root": root},
            })
        results.sort(key=lambda r: (-r["score"], r["kind"], r.get("fact_id") or r.get("chunk_id")))
        return (_group_by_event(results) if per_event else results)[:k]

    @staticmethod
    def _chunk_standing(conn: psycopg.Connection, chunk_rows: dict[str, tuple[Any, ...]], params: dict[str, Any],
                        when: datetime | None) -> dict[str, fusion.ChunkStanding]:
        """Each chunk's standing in the ledger: the facts of its event overlapping it, believed now (or
        at ``when``: those of ``facts_as_of``, among the facts recorded and valid by then) or not."""
        if not chunk_rows:
            return {}
        believed, existed = "f.valid_to IS NULL", ""
        if when is not None:
            believed = ("f.fact_id IN (SELECT a.fact_id FROM silver.facts_as_of(%(ns)s, %(when)s, %(when)s) a "
                        "WHERE a.bronze_event_id = ANY(%(events)s))")
            existed = " AND f.recorded_at <= %(when)s AND f.valid_from <= %(when)s"
        rows = conn.execute(
            f"SELECT f.fact_id, f.bronze_event_id, f.span_start, f.span_end, {believed}, f.superseded_by "
            f"FROM silver.facts f WHERE f.namespace = %(ns)s AND f.bronze_event_id = ANY(%(events)s){existed}",
            {**params, "events": sorted({r[1] for r in chunk_rows.values()})}).fetchall()
        return fusion.chunk_standing({cid: (r[1], r[2], r[3]) for cid, r in chunk_rows.items()}, rows)

    def _superseding(self, conn: psycopg.Connection, standing: dict[str, fusion.ChunkStanding],
                     include_superseded: bool) -> dict[str, dict[str, Any]]:
        """The facts that closed the facts of superseded chunks, as served (overlays applied), by id."""
        ids = sorted({f for s in standing.values() if not s.current for f in s.superseded_by})
        if not include_superseded or not ids:
            return {}
        return {f["fact_id"]: {"fact_id": f["fact_id"], "statement": f["statement"], "current": f["current"]}
                for f in self._facts(conn, "f.fact_id = ANY(%(ids)s)", {"ids": ids})}

    @staticmethod
    def _freshness(fact: dict[str, Any]) -> float:
        verified = fact.get("verified_at")
        if not verified:
            return 0.0
        age_days = (datetime.now(UTC) - datetime.fromisoformat(verified)).total_seconds() / 86400
        return math.exp(-max(age_days, 0.0) / 365.0)

    @staticmethod
    def _redactions_by_event(conn: psycopg.Connection, event_ids: Sequence[int]) -> dict[int, list[str]]:
        """Redacted phrases of the facts of these Bronze events: masked in their chunks' snippets too."""
        if not event_ids:
            return {}
        found: dict[int, list[str]] = {}
        for event_id, exact in conn.execute(
                "SELECT f.bronze_event_id, o.exact FROM silver.overlays o JOIN silver.facts f ON f.fact_id = o.fact_id "
                "WHERE f.bronze_event_id = ANY(%s) AND o.action = 'redact' AND o.status IN ('anchored', 'reanchored')",
                (list(event_ids),)).fetchall():
            found.setdefault(event_id, []).append(exact)
        return found

    # ------------------------------------------------------------------ recall (G5)
    @_checked_at_the_door
    def recall(self, query: str, *, namespace: str, stakes: str = "low", k: int = 5) -> dict[str, Any]:
        """The retrieval cascade (SPEC G5); the answer says which hop answered and why.

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
            cap = self._authorize("search", namespace)
            names = self._entities_named(query, namespace)
            relational = re.search(r"\b(relat\w*|connect\w*|know|between|link\w*)\b", query, re.I)
            if len(names) >= 2 and relational and (cap is None or cap.allows("read", namespace)):
                with self._scope([namespace]) as conn:
                    paths = silver_queries.related(conn, namespace, names[0], names[1])
                if paths:
                    return {"hop": "graph", "reason": f"relational question about {names[0]} and {names[1]}",
                            "stakes": stakes, "answers": paths}
            reason = "high stakes: the auditable ledger answered"
            if stakes == "low":
                answers, reason = self._hindsight_hop(query, namespace, k)
                if answers:
                    return {"hop": "hindsight", "reason": reason, "stakes": stakes, "answers": answers}
            with self._scope([namespace]) as conn:
                answers = self._search(conn, namespace, query, _query_vector(self.settings.embedding_model, query),
                                       _tsquery(query), k, None, None, None, False, None, True)
            return {"hop": "ledger", "reason": reason, "stakes": stakes, "answers": answers}
        return self._call("recall", namespace, query, run)

    def _hindsight_hop(self, query: str, namespace: str, k: int) -> tuple[list[dict[str, Any]], str]:
        """Hindsight's verified answers in the ledger's shape, or none and why the ledger must answer."""
        if not self.settings.hindsight_url:
            return [], "Hindsight is not configured; the ledger answered"
        from dagster_project.audit import hindsight  # the peer adapter; imported only when configured

        try:
            if self._peer is None:
                self._peer = hindsight.HindsightPeer(self.settings.hindsight_url)
            found = hindsight.recall(self._peer, namespace, query, k, conn=self.engine)
        except hindsight.HindsightError as exc:
            return [], f"Hindsight did not answer ({exc}); escalated to the ledger"
        ids = list(dict.fromkeys(a["fact_id"] for a in found if a.get("fact_id")))
        if not ids:
            return [], "Hindsight had no current answer; escalated to the ledger"
        with self._scope([namespace]) as conn:
            facts = {f["fact_id"]: f for f in self._facts(conn, "f.fact_id = ANY(%(ids)s) AND f.valid_to IS NULL",
                                                          {"ids": ids})}
        answers = [{**facts[i], "kind": "fact"} for i in ids if i in facts]
        if not answers or min(a["confidence"] for a in answers) < LOW_CONFIDENCE:
            return [], "Hindsight's answer has low confidence; escalated to the ledger"
        return answers, "low stakes: the Hindsight peer answered; every answer verified against the ledger"

    def _entities_named(self, query: str, namespace: str) -> list[str]:
        """The canonical names of the entities ``query`` names (whole words, aliases too), longest first."""
        with self._scope([namespace]) as conn:
            return [m.name for m in graph.mentions(conn, namespace, query)][:5]

    # ------------------------------------------------------------------ writes
    @_checked_at_the_door
    def remember(self, *, namespace: str, content: str, kind: str = "note", source: str | None = None,
                 source_event_id: str | None = None, actor: str | None = None, authority: int | None = None,
                 occurred_at: str | None = None, provenance_root: str | None = None,
                 metadata: dict[str, Any] | None = None, derive_now: bool = True) -> dict[str, Any]:
        """Write one event to Bronze through the B2 contract, then derive it (unless ``derive_now`` is False)."""
        def run() -> dict[str, Any]:
            cap = self._authorize("remember", namespace)
            if kind == "overlay":
                raise ToolError("overlays are written with the overlay tool, which anchors them and asks for approval")
            src = source or self.origin
            seid = source_event_id or hashlib.sha256(f"{kind}\n{content}".encode()).hexdigest()[:32]
            event = {
                "namespace": namespace, "source": src, "source_event_id": seid, "kind": kind, "content": content,
                "provenance_root": provenance_root or f"{src}://{seid}", "actor": actor or self._author(cap),
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
        return self._call("remember", namespace, None, run)

    @_checked_at_the_door
    def overlay(self, fact_id: str, action: str, *, quote: str, text: str | None = None, note: str | None = None,
                prefix: str = "", suffix: str = "", reason: str | None = None) -> dict[str, Any]:
        """Edit, annotate or redact a span of a fact (SPEC G6). Overwriting a person's overlay needs approval."""
        def run() -> dict[str, Any]:
            namespaces = self._readable("overlay")
            with self._scope(namespaces) as conn:
                row = conn.execute("SELECT namespace, statement, bronze_event_id, subject_id, predicate FROM "
                                   "silver.facts WHERE fact_id = %s", (fact_id,)).fetchone()
                if row is None:
                    raise ToolError(f"no fact {fact_id} in the namespaces this caller can overlay")
                namespace, statement, event_id, subject_id, pred = row
                existing = conn.execute(
                    "SELECT bronze_event_id, span_start, span_end FROM silver.overlays WHERE fact_id = %s AND status "
                    "IN ('anchored', 'reanchored') AND action <> 'annotate'", (fact_id,)).fetchall()
            cap = self._authorize("overlay", namespace)
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
                     reason, self._author(cap))).fetchone()[0]
                return {"status": "pending_approval", "approval_id": approval_id, "fact_id": fact_id,
                        "namespace": namespace,
                        "reason": "this span already carries a person's overlay; another person must approve"}
            return self._write_overlay(namespace, payload, hint, cap)
        return self._call("overlay", None, fact_id, run)

    def _write_overlay(self, namespace: str, payload: OverlayPayload, metadata: dict[str, Any],
                       cap: capabilities.Capability | None, approval_id: int | None = None) -> dict[str, Any]:
        """Land an overlay event (authored by the caller's verified principal) and derive its namespace.

        With ``approval_id`` the event carries out that approval: the event and the decision, taken
        by ``gold.approve_overlay`` from the caller's token (or the administrative login for the local
        admin), commit together or not at all.
        """
        author = self._author(cap)
        if approval_id is not None:
            metadata = {**metadata, "approval_id": approval_id}
        content = payload.model_dump_json()
        seid = hashlib.sha256(f"{author}\n{content}\n{json.dumps(metadata, sort_keys=True)}".encode()).hexdigest()[:32]
        actor = author if ":" in author else f"user:{author}"
        event = {"namespace": namespace, "source": "overlay", "source_event_id": seid, "kind": "overlay",
                 "content": content, "provenance_root": f"overlay://{payload.fact_id}", "actor": actor,
                 "occurred_at": datetime.now(UTC).isoformat(), "metadata": metadata}
        conn = self.engine if approval_id is None or cap is not None else self._admin_login()
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

    @_checked_at_the_door
    def retract(self, overlay_id: int, *, reason: str) -> dict[str, Any]:
        """Ask to delete a person's overlay (SPEC G7): a request another admin approves, never immediate."""
        def run() -> dict[str, Any]:
            namespaces = self._readable("overlay")
            with self._scope(namespaces) as conn:
                row = conn.execute(
                    "SELECT namespace, fact_id, target_fact_id, exact, prefix, suffix FROM silver.overlays "
                    "WHERE bronze_event_id = %s AND status IN ('anchored', 'reanchored', 'unanchored')",
                    (overlay_id,)).fetchone()
            if row is None:
                raise ToolError(f"no active overlay {overlay_id} this caller can retract")
            namespace, fact_id, target, exact, prefix, suffix = row
            cap = self._authorize("overlay", namespace)
            payload = OverlayPayload(fact_id=fact_id or target, action="annotate",
                                     selector=TextQuoteSelector(exact=exact, prefix=prefix, suffix=suffix),
                                     note=f"Retracts overlay {overlay_id}: {reason}")
            approval_id = self.engine.execute(
                "INSERT INTO gold.approvals (kind, namespace, fact_id, overlay_event_id, proposal, reason, "
                "requested_by) VALUES ('overlay_retract', %s, %s, %s, %s, %s, %s) RETURNING approval_id",
                (namespace, fact_id or target, overlay_id,
                 json.dumps({"payload": payload.model_dump(), "metadata": {}}), reason, self._author(cap)),
            ).fetchone()[0]
            return {"status": "pending_approval", "approval_id": approval_id, "overlay_id": overlay_id,
                    "namespace": namespace, "reason": "retracting a person's overlay needs another person's approval"}
        return self._call("retract", None, str(overlay_id), run)

    @_checked_at_the_door
    def approve(self, approval_id: int) -> dict[str, Any]:
        """Approve a pending overlay overwrite (SPEC G7): needs ``admin`` and a different principal."""
        def run() -> dict[str, Any]:
            cap = self._check_token()
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
            if requested_by == self._author(cap):
                raise Denied("the person who asked cannot approve their own request; another admin must")
            payload = OverlayPayload.model_validate(proposal["payload"])
            link = "retracts" if kind == "overlay_retract" else "replaces"
            written = self._write_overlay(namespace, payload, {**proposal["metadata"], link: replaced}, cap,
                                          approval_id=approval_id)
            return {**written, "approval_id": approval_id, "status": "approved"}
        return self._call("approve", None, str(approval_id), run)


def _group_by_event(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One result per Bronze event, in rank order: the event's best item, its other hits under ``same_event``."""
    grouped: list[dict[str, Any]] = []
    first: dict[Any, dict[str, Any]] = {}
    for item in results:
        event = (item.get("provenance") or {}).get("bronze_event_id")
        if event is None or event not in first:
            item = {**item, "same_event": []}
            grouped.append(item)
            if event is not None:
                first[event] = item
            continue
        first[event]["same_event"].append({
            key: item.get(key) for key in ("kind", "fact_id", "chunk_id", "statement", "current", "score")})
    return grouped


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
