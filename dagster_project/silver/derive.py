"""The Silver derivation (SPEC S1-S13): Bronze events → facts, chunks, documents, working memory.

Events are processed per namespace in Bronze ``(received_at, event_id)`` order. Each event commits
in its own transaction together with its ``silver.derivations`` row, so a killed run resumes where it
stopped and reaches the same ledger (R3). Work is prepared in windows: a window's events are
distilled, then all their statements and chunks are embedded in one batch (cache first), then each
event is resolved and written in order.

Incremental runs derive only events without a derivation; a namespace whose derivations were made
under another fingerprint, or that lost a Bronze event (erasure), is re-derived from scratch, because
resolving one old event against a newer ledger would not reproduce a full rebuild (S13).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import psycopg

from dagster_project.bronze.contract import fact_payload
from dagster_project.settings import Settings
from dagster_project.silver import chunks as chunking
from dagster_project.silver import documents, overlays
from dagster_project.silver.distill import Distiller, DistillError
from dagster_project.silver.embed import Embedder
from dagster_project.silver.fingerprint import derivation_fingerprint, distill_fingerprint
from dagster_project.silver.judge import HeuristicJudge
from dagster_project.silver.ledger_state import NamespaceState, WriteBuffer
from dagster_project.silver.resolve import Prepared, resolve_candidate
from dagster_project.silver.types import EventInput, FactCandidate

SILVER_TABLES = (
    "silver.edges", "silver.resolutions", "silver.facts", "silver.entities", "silver.chunks", "silver.documents",
    "silver.working_memory", "silver.derivations", "silver.derivation_failures", "silver.overlays",
)
WINDOW = 256


@dataclass
class DeriveReport:
    """Counts for asset metadata and the CLI."""

    events: int = 0
    facts: int = 0
    decisions: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)
    chunks: int = 0
    documents: Counter = field(default_factory=Counter)
    failures: list[dict[str, Any]] = field(default_factory=list)
    namespaces_rebuilt: list[str] = field(default_factory=list)
    model_calls: int = 0
    embeddings_encoded: int = 0
    cache_hits: int = 0
    seconds: float = 0.0
    overlays: dict[str, int] = field(default_factory=dict)

    @property
    def cache_hit_rate(self) -> float:
        total = self.embeddings_encoded + self.cache_hits
        return round(self.cache_hits / total, 4) if total else 1.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "events": self.events, "facts": self.facts, "decisions": dict(self.decisions),
            "outcomes": dict(self.outcomes), "contested": self.outcomes.get("contested", 0),
            "chunks": self.chunks, "documents": dict(self.documents), "failures": len(self.failures),
            "namespaces_rebuilt": self.namespaces_rebuilt, "model_calls": self.model_calls,
            "embeddings_encoded": self.embeddings_encoded, "cache_hits": self.cache_hits,
            "cache_hit_rate": self.cache_hit_rate, "seconds": round(self.seconds, 3), "overlays": self.overlays,
        }


def make_distiller(settings: Settings) -> Distiller:
    """The configured distiller (heuristic by default)."""
    if settings.llm_provider == "openai":
        from dagster_project.silver.distill.openai_provider import OpenAIDistiller

        return OpenAIDistiller(settings)
    from dagster_project.silver.distill.heuristic import HeuristicDistiller

    return HeuristicDistiller()


def make_judge(settings: Settings) -> Any:
    """The configured judge (heuristic by default)."""
    if settings.llm_provider == "openai":
        from dagster_project.silver.distill.openai_provider import OpenAIJudge

        return OpenAIJudge(settings)
    return HeuristicJudge(settings.conflict_threshold)


def wipe(conn: psycopg.Connection, namespace: str | None = None) -> None:
    """Drop derived Silver state (all, or one namespace); the derivation cache is kept."""
    with conn.transaction():
        if namespace is None:
            conn.execute("TRUNCATE " + ", ".join(SILVER_TABLES))
            return
        for table in SILVER_TABLES:
            conn.execute(f"DELETE FROM {table} WHERE namespace = %s", (namespace,))


def _stale_namespaces(conn: psycopg.Connection, fingerprint: str) -> list[str]:
    rows = conn.execute(
        "SELECT DISTINCT d.namespace FROM silver.derivations d "
        "WHERE d.fingerprint <> %s OR NOT EXISTS (SELECT 1 FROM bronze.events e WHERE e.event_id = d.bronze_event_id) "
        "ORDER BY 1",
        (fingerprint,),
    ).fetchall()
    return [r[0] for r in rows]


def _pending(conn: psycopg.Connection, namespaces: list[str] | None) -> list[list[EventInput]]:
    """Events without a derivation, in namespace / received_at / event_id order, cut into windows.

    Read in full up front: the windows commit as they go, which would end a streaming cursor.
    """
    rows = conn.execute(
        "SELECT e.event_id, e.namespace, e.source, e.source_event_id, e.kind, e.actor, e.content, e.occurred_at, "
        "e.received_at, e.authority, e.provenance_root, e.metadata FROM bronze.events e "
        "WHERE NOT EXISTS (SELECT 1 FROM silver.derivations d WHERE d.bronze_event_id = e.event_id) "
        "AND (%(ns)s::text[] IS NULL OR e.namespace = ANY(%(ns)s)) "
        "ORDER BY e.namespace, e.received_at, e.event_id",
        {"ns": namespaces},
    ).fetchall()
    events = [EventInput(*row[:11], metadata=row[11] or {}) for row in rows]
    return [events[i : i + WINDOW] for i in range(0, len(events), WINDOW)]


def fact_event_candidate(event: EventInput) -> FactCandidate:
    """A ``kind=fact`` event's content is the fact (no distillation)."""
    payload = fact_payload(event.content)
    value = payload.value
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    statement = f"{payload.subject} {payload.predicate.replace('_', ' ')}: {shown}."
    return FactCandidate(
        subject=payload.subject, predicate=payload.predicate, value=value, statement=statement,
        valid_from=payload.valid_from or event.occurred_at,
        confidence=float(payload.confidence) if payload.confidence is not None else 1.0,
        span=(0, len(event.content)),
        object_entity=value if isinstance(value, str) else None,
    )


def _distill_cached(conn: psycopg.Connection, distiller: Distiller, event: EventInput, fp: str,
                    report: DeriveReport) -> list[FactCandidate]:
    """Heuristic output is recomputed (cheap, deterministic); LLM output is memoised by input hash."""
    if distiller.name == "heuristic":
        return distiller.distill(event)
    key = hashlib.sha256(json.dumps(
        [event.kind, event.actor, event.occurred_at.isoformat(), event.content], ensure_ascii=False
    ).encode()).hexdigest()
    row = conn.execute("SELECT output FROM silver.derivation_cache WHERE fingerprint = %s AND input_hash = %s",
                       (fp, key)).fetchone()
    if row is not None and row[0] is not None:
        conn.execute("INSERT INTO telemetry.model_calls (step, provider, model, namespace, cache_hit) "
                     "VALUES ('distill', %s, '', %s, true)", (distiller.name, event.namespace))
        return [_candidate_from_json(c) for c in row[0]]
    started = time.perf_counter()
    result = distiller.distill(event)
    usage = getattr(distiller, "last_usage", None)
    report.model_calls += 1
    conn.execute(
        "INSERT INTO telemetry.model_calls (step, provider, model, namespace, input_tokens, output_tokens, latency_ms, "
        "cache_hit) VALUES ('distill', %s, %s, %s, %s, %s, %s, false)",
        (distiller.name, getattr(distiller, "model", ""), event.namespace, getattr(usage, "input_tokens", 0),
         getattr(usage, "output_tokens", 0), (time.perf_counter() - started) * 1000),
    )
    conn.execute(
        "INSERT INTO silver.derivation_cache (fingerprint, input_hash, output) VALUES (%s, %s, %s) "
        "ON CONFLICT DO NOTHING",
        (fp, key, json.dumps([_candidate_to_json(c) for c in result], ensure_ascii=False)),
    )
    return result


def _candidate_to_json(c: FactCandidate) -> dict[str, Any]:
    return {"subject": c.subject, "predicate": c.predicate, "value": c.value, "statement": c.statement,
            "valid_from": c.valid_from.isoformat(), "confidence": c.confidence,
            "span": list(c.span) if c.span else None, "object_entity": c.object_entity}


def _candidate_from_json(d: dict[str, Any]) -> FactCandidate:
    return FactCandidate(d["subject"], d["predicate"], d["value"], d["statement"],
                         datetime.fromisoformat(d["valid_from"]), float(d["confidence"]),
                         tuple(d["span"]) if d.get("span") else None, d.get("object_entity"))  # type: ignore[arg-type]


def _park(conn: psycopg.Connection, event: EventInput, step: str, fp: str, reason: str) -> None:
    conn.execute(
        "INSERT INTO silver.derivation_failures (bronze_event_id, step, namespace, fingerprint, reason) "
        "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (bronze_event_id, step) DO UPDATE SET "
        "attempts = silver.derivation_failures.attempts + 1, reason = EXCLUDED.reason, "
        "fingerprint = EXCLUDED.fingerprint, last_attempt_at = clock_timestamp()",
        (event.event_id, step, event.namespace, fp, reason),
    )


def derive(
    conn: psycopg.Connection,
    settings: Settings,
    *,
    full_rebuild: bool = False,
    namespaces: list[str] | None = None,
    distiller: Distiller | None = None,
    judge: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> DeriveReport:
    """Derive Silver from Bronze (incrementally, or from scratch with ``full_rebuild``)."""
    started = time.perf_counter()
    report = DeriveReport()
    fingerprint = derivation_fingerprint(settings)
    distiller = distiller or make_distiller(settings)
    judge = judge or make_judge(settings)
    distill_fp = distill_fingerprint(distiller.name, settings.llm_model)
    embedder = Embedder(conn, settings.embedding_model)
    autocommit = conn.autocommit
    conn.autocommit = False
    # Silver is rebuildable from Bronze: a commit lost in a crash is re-derived by the next run (its
    # derivations row is lost with it), so the derivation need not wait for each WAL flush.
    conn.execute("SET synchronous_commit = off")
    conn.commit()
    try:
        if full_rebuild:
            if namespaces is None:
                wipe(conn, None)
                conn.execute("SELECT silver.suspend_search_indexes()")  # rebuilt once at the end
            else:
                for ns in namespaces:
                    wipe(conn, ns)
        else:
            for ns in _stale_namespaces(conn, fingerprint):
                if namespaces is None or ns in namespaces:
                    wipe(conn, ns)
                    report.namespaces_rebuilt.append(ns)
        windows = _pending(conn, namespaces)
        total = sum(len(w) for w in windows)
        parked = {r[0] for r in conn.execute("SELECT bronze_event_id FROM silver.derivation_failures").fetchall()}
        conn.commit()
        states: dict[str, NamespaceState] = {}
        for window in windows:
            _derive_window(conn, settings, window, distiller, judge, embedder, fingerprint, distill_fp, report,
                           parked, states)
            if progress is not None:
                progress(report.events + len(report.failures), total)
        # Overlays re-anchor against the ledger just derived (SPEC G6): all of them after a full
        # rebuild, else those of the namespaces this run touched.
        touched = sorted({e.namespace for w in windows for e in w} | set(report.namespaces_rebuilt))
        scope = (namespaces if namespaces is not None else None) if full_rebuild else touched
        if scope is None or scope:
            report.overlays = overlays.rebuild(conn, fingerprint, scope)
        conn.execute("SELECT silver.ensure_search_indexes()")
        conn.commit()
    finally:
        if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            conn.rollback()
        conn.autocommit = autocommit
    report.model_calls += embedder.calls
    report.embeddings_encoded = embedder.encoded
    report.cache_hits = embedder.cache_hits
    report.seconds = time.perf_counter() - started
    return report


def _derive_window(
    conn: psycopg.Connection, settings: Settings, window: list[EventInput], distiller: Distiller, judge: Any,
    embedder: Embedder, fingerprint: str, distill_fp: str, report: DeriveReport, parked: set[int],
    states: dict[str, NamespaceState],
) -> None:
    # 1. distill (per event; failures parked, the rest of the window goes on)
    distilled: dict[int, list[FactCandidate]] = {}
    spans: dict[int, list[tuple[int, int]]] = {}
    for event in window:
        spans[event.event_id] = chunking.split(event.content) if event.kind != "overlay" else []
        try:
            if event.kind == "fact":
                distilled[event.event_id] = [fact_event_candidate(event)]
            elif event.kind in ("document", "overlay"):
                distilled[event.event_id] = []
            else:
                distilled[event.event_id] = _distill_cached(conn, distiller, event, distill_fp, report)
            conn.commit()
        except DistillError as exc:
            conn.rollback()
            _park(conn, event, "distill", fingerprint, exc.reason)
            conn.commit()
            parked.add(event.event_id)
            report.failures.append({"event_id": event.event_id, "step": "distill", "reason": exc.reason})
    # 2. embed every statement and chunk (with its context) of the window in one batch (cache first)
    turns = [e for e in window if e.event_id in distilled and e.kind not in ("document", "overlay")]
    previous = chunking.previous_turns(conn, [e.event_id for e in turns])
    contexts = {e.event_id: chunking.context_text(e.actor, previous.get(e.event_id)) for e in turns}
    texts: list[str] = []
    for event in window:
        if event.event_id not in distilled:
            continue
        texts += [c.statement for c in distilled[event.event_id]]
        texts += [chunking.embed_text(contexts.get(event.event_id), event.content[s:e])
                  for s, e in spans[event.event_id]]
    vectors = dict(zip(texts, embedder.embed(texts), strict=True)) if texts else {}
    conn.commit()
    # 3. resolve in order against the in-memory ledger; write the window in one transaction. A judge
    #    that can fail (an LLM) is flushed event by event so that a failure discards only its event.
    fallible = getattr(judge, "name", "heuristic") != "heuristic"
    buffer = WriteBuffer()
    pending: list[int] = []  # facts written per event awaiting the commit
    for event in window:
        if event.event_id not in distilled:
            continue
        if event.namespace not in states:
            states.clear()  # windows are namespace-ordered: an earlier namespace is finished
            states[event.namespace] = NamespaceState(conn, event.namespace)
        state = states[event.namespace]
        try:
            facts = _resolve_event(state, buffer, event, distilled[event.event_id], spans[event.event_id],
                                   contexts.get(event.event_id), vectors, judge, settings, fingerprint, report,
                                   event.event_id in parked)
        except DistillError as exc:  # only a fallible judge gets here, with its event alone in the buffer
            buffer = WriteBuffer()
            states.pop(event.namespace, None)  # reload from what is committed
            _park(conn, event, "resolve", fingerprint, exc.reason)
            conn.commit()
            parked.add(event.event_id)
            report.failures.append({"event_id": event.event_id, "step": "resolve", "reason": exc.reason})
            continue
        pending.append(facts)
        if fallible:
            _commit(conn, buffer, pending, report)
            buffer, pending = WriteBuffer(), []
    _commit(conn, buffer, pending, report)


def _commit(conn: psycopg.Connection, buffer: WriteBuffer, pending: list[int], report: DeriveReport) -> None:
    if not pending:
        return
    buffer.flush(conn)
    conn.commit()
    report.events += len(pending)
    report.facts += sum(pending)


def _resolve_event(
    state: NamespaceState, buffer: WriteBuffer, event: EventInput, candidates: list[FactCandidate],
    spans: list[tuple[int, int]], context: str | None, vectors: dict[str, Any], judge: Any, settings: Settings,
    fingerprint: str, report: DeriveReport, was_parked: bool,
) -> int:
    chunk_ids = [chunking.chunk_id(event.event_id, s, e) for s, e in spans]
    buffer.chunks += [(cid, event.namespace, event.event_id, s, e, event.content[s:e], context, event.occurred_at,
                       event.provenance_root, fingerprint, vectors[chunking.embed_text(context, event.content[s:e])])
                      for (s, e), cid in zip(spans, chunk_ids, strict=True)]
    report.chunks += len(spans)
    if event.kind == "document":
        report.documents[documents.record(state, buffer, event, fingerprint)] += 1
    facts = 0
    written: set[str] = set()  # fact ids of this event (a fact id includes its event: no other can clash)
    for index, cand in enumerate(candidates):
        which = chunking.containing(spans, cand.span)
        prep = Prepared(index, cand, vectors[cand.statement], chunk_ids[which] if which is not None else None)
        outcome = resolve_candidate(state, buffer, event, prep, judge, threshold=settings.conflict_threshold,
                                    fingerprint=fingerprint, judge_name=getattr(judge, "name", "heuristic"),
                                    written=written)
        report.decisions[outcome.decision] += 1
        report.outcomes[outcome.outcome] += 1
        if outcome.outcome in ("added", "closed_previous", "stored_as_history", "contested"):
            facts += 1
    if was_parked:
        buffer.cleared_failures.append(event.event_id)
    buffer.derivations.append((event.event_id, event.namespace, fingerprint, facts))
    return facts


def ledger_hash(conn: psycopg.Connection, namespace: str | None = None) -> str:
    """sha256 of the ledger's identity: fact ids, intervals, flags and every decision (for R3/R7)."""
    h = hashlib.sha256()
    for row in conn.execute(
        "SELECT fact_id, namespace, subject_id, predicate, value_text, valid_from, valid_to, recorded_at, "
        "superseded_at, superseded_by, contested, authority, bronze_event_id FROM silver.facts "
        "WHERE %(ns)s::text IS NULL OR namespace = %(ns)s ORDER BY fact_id",
        {"ns": namespace},
    ):
        h.update(repr(tuple(_stable(v) for v in row)).encode())
    for row in conn.execute(
        "SELECT bronze_event_id, candidate_index, candidate_fact_id, decision, outcome, target_fact_id "
        "FROM silver.resolutions WHERE %(ns)s::text IS NULL OR namespace = %(ns)s "
        "ORDER BY bronze_event_id, candidate_index",
        {"ns": namespace},
    ):
        h.update(repr(row).encode())
    return h.hexdigest()


def _stable(value: Any) -> Any:
    return value.astimezone(UTC).isoformat() if isinstance(value, datetime) else value
