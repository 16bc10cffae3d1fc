"""The Silver derivation (S1-S13): Bronze events → facts, chunks, documents, working memory.

Events are processed per namespace in Bronze ``(received_at, event_id)`` order, in windows of
:data:`WINDOW` events: a window's events are distilled, then all their statements and chunks are
embedded in one batch (cache first), then each event is resolved in order and the window commits in
one transaction together with its ``silver.derivations`` rows (event by event when the judge is a
model that can fail), so a killed run resumes where it stopped and reaches the same ledger (R3).
Which events a run derives, and in which windows, is read by :mod:`medallion.silver.pending`; the
caller's ``progress`` hears of each event and embedding batch (:mod:`medallion.silver.derive_progress`).

Incremental runs derive only events without a derivation; a namespace whose derivations were made
under another fingerprint, or that lost a Bronze event (erasure), is re-derived from scratch, because
resolving one old event against a newer ledger would not reproduce a full rebuild (S13).

An event the derivation cannot handle (poison input that got past the contract, a model fault) is
parked in ``silver.derivation_failures`` with its step and reason and retried by the next run; the
rest of its namespace and every other namespace go on (R10). So is an event whose distillation uses
more than its CPU budget (:mod:`medallion.silver.distill_budget`). A window that fails as a whole is rolled
back and derived again one event at a time, so that only the culprit is parked; the outcome is the
same as if the culprit had never been in Bronze, in an incremental run and in a full rebuild alike.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import psycopg

from medallion.bronze.contract import (
    EARLIEST_TIME,
    LATEST_TIME,
    fact_payload,
    overlay_metadata,
    overlay_payload,
)
from medallion.bronze.namespaces import namespaces as bronze_namespaces
from medallion.distill.providers import Distiller, DistillError, Judge, record_model_call
from medallion.distill.types import EventInput, FactCandidate
from medallion.settings import Settings
from medallion.silver import chunks as chunking
from medallion.silver import (
    distill_memo,
    documents,
    forget_requests,
    overlays,
    restate,
    slot_meaning,
    vocabulary_table,
    withhold,
)
from medallion.silver.derive_progress import Progress, WindowTally, shifted
from medallion.silver.distill_budget import BudgetedDistiller
from medallion.silver.embed import Embedder
from medallion.silver.fingerprint import derivation_fingerprint, distill_fingerprint, judge_answer_fingerprint
from medallion.silver.judge import HeuristicJudge
from medallion.silver.ledger_state import NamespaceState, WriteBuffer
from medallion.silver.namespace_lock import deriving, lock_groups
from medallion.silver.pending import pending_windows, reason, stale_namespaces
from medallion.silver.report import DeriveReport
from medallion.silver.resolve import Prepared, close_negated, resolve_candidate

SILVER_TABLES = (
    "silver.edges", "silver.resolutions", "silver.facts", "silver.entities", "silver.chunks", "silver.documents",
    "silver.working_memory", "silver.derivations", "silver.derivation_failures", "silver.overlays",
    "silver.predicates", "silver.withheld",
)
WINDOW = 256
# SQLSTATE classes that say nothing about the event: connection, transaction rollback (deadlock,
# serialization), insufficient resources, operator intervention, system error. Such a failure is
# raised (the run stops and resumes next time), never parked as if the event were poison.
_TRANSIENT_CLASSES = ("08", "40", "53", "57", "58")
_TRANSIENT_STATES = ("55P03", "23505")  # lock not available; unique violation (a concurrent run wrote it)
TOLD = frozenset({"transcript", "note", "issue"})  # kinds whose sentences can end a state


@dataclass
class _Run:
    """What every window of one derive() call shares."""

    conn: psycopg.Connection
    settings: Settings
    distiller: Distiller
    judge: Judge
    embedder: Embedder
    fingerprint: str
    distill_fp: str
    report: DeriveReport
    parked: set[int]  # events with a derivation_failures row (cleared when they derive)
    tally: WindowTally  # what the caller's progress callback is told
    states: dict[str, NamespaceState] = field(default_factory=dict)


def make_distiller(settings: Settings) -> Distiller:
    """The configured distiller (heuristic by default)."""
    if settings.llm_provider == "openai":
        from medallion.distill.providers.openai_provider import OpenAIDistiller

        return OpenAIDistiller(settings)
    from medallion.distill.providers.heuristic import HeuristicDistiller

    return HeuristicDistiller()


def make_judge(settings: Settings) -> Judge:
    """The configured judge (heuristic by default)."""
    if settings.llm_provider == "openai":
        from medallion.distill.providers.openai_provider import OpenAIJudge

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


def supported_time(value: Any) -> bool:
    """Whether ``value`` is a datetime the read side can convert (naive is taken as UTC)."""
    if not isinstance(value, datetime):
        return False
    aware = value if value.utcoffset() is not None else value.replace(tzinfo=UTC)
    return EARLIEST_TIME <= aware < LATEST_TIME


def _within_range(event: EventInput, candidates: list[FactCandidate]) -> list[FactCandidate]:
    """A ``valid_from`` the read side could not convert (a distiller's weird date, a fact payload's
    year 1) becomes the event's ``occurred_at``, as if the candidate had named no date."""
    return [c if supported_time(c.valid_from) else replace(c, valid_from=event.occurred_at) for c in candidates]


def _poison(exc: BaseException) -> bool:
    """Whether a failure may be the event's own doing (park it) rather than the database's (raise)."""
    if not isinstance(exc, psycopg.Error):
        return isinstance(exc, Exception)
    if not exc.sqlstate:  # raised by the client: a connection lost, or a value PostgreSQL cannot take
        return not isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError)
    return exc.sqlstate[:2] not in _TRANSIENT_CLASSES and exc.sqlstate not in _TRANSIENT_STATES


def _park(run: _Run, event_id: int, namespace: str, step: str, reason: str) -> None:
    """Record the event's failure (its own transaction) so the run goes on; the next run retries it.

    The reason may quote the very input that failed: NUL and lone surrogates are escaped to be storable.
    """
    reason = reason.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")
    reason = reason if len(reason) <= 500 else reason[:497] + "..."
    run.conn.execute(
        "INSERT INTO silver.derivation_failures (bronze_event_id, step, namespace, fingerprint, reason) "
        "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (bronze_event_id, step) DO UPDATE SET "
        "attempts = silver.derivation_failures.attempts + 1, reason = EXCLUDED.reason, "
        "fingerprint = EXCLUDED.fingerprint, last_attempt_at = clock_timestamp()",
        (event_id, step, namespace, run.fingerprint, reason),
    )
    run.conn.commit()
    run.parked.add(event_id)
    run.report.failures.append({"event_id": event_id, "namespace": namespace, "step": step, "reason": reason})
    run.tally.update()


def derive(
    conn: psycopg.Connection,
    settings: Settings,
    *,
    full_rebuild: bool = False,
    namespaces: list[str] | None = None,
    distiller: Distiller | None = None,
    judge: Judge | None = None,
    progress: Progress | None = None,
    lock_wait_seconds: float = 300.0,
) -> DeriveReport:
    """Derive Silver from Bronze (incrementally, or from scratch with ``full_rebuild``), for every
    namespace or only ``namespaces``, holding each namespace's derivation lock (see
    :mod:`medallion.silver.namespace_lock`) while it is derived.

    Up to :data:`~medallion.silver.namespace_lock.LOCK_GROUP` namespaces are derived together under
    their locks; a larger scope is derived group after group, because PostgreSQL's shared lock table
    (``max_locks_per_transaction`` × ``max_connections``, 6,400 by default) cannot hold a lock for each
    of ten thousand tenants at once.

    ``progress(done, total, committed)`` follows the run (:mod:`medallion.silver.derive_progress`):
    events committed, and ``done`` moving within a window as its events are derived."""
    scope = namespaces if namespaces is not None else bronze_namespaces(conn)
    if not conn.autocommit:
        conn.commit()  # ends the read above; the derivation manages its own transactions
    groups = lock_groups(scope)
    reports: list[DeriveReport] = []
    for group in groups:
        step = shifted(progress, sum(r.events + len(r.failures) for r in reports))
        with deriving(conn, group, lock_wait_seconds):
            reports.append(_derive(conn, settings, full_rebuild=full_rebuild,
                                   namespaces=namespaces if len(groups) == 1 else group, scope=group,
                                   distiller=distiller, judge=judge, progress=step))
    return reports[0] if len(reports) == 1 else DeriveReport.merged(reports, side_by_side=False)


def _derive(
    conn: psycopg.Connection,
    settings: Settings,
    *,
    full_rebuild: bool,
    namespaces: list[str] | None,
    scope: list[str],
    distiller: Distiller | None,
    judge: Judge | None,
    progress: Progress | None,
) -> DeriveReport:
    """The derivation itself, for the namespaces in ``scope`` (``namespaces`` None: every one, and a
    full rebuild then empties Silver as a whole)."""
    started = time.perf_counter()
    report = DeriveReport()
    fingerprint = derivation_fingerprint(settings)
    distiller = distiller or make_distiller(settings)
    if settings.distill_budget_seconds > 0:  # one slow event is parked instead of stalling the run
        distiller = BudgetedDistiller(distiller, settings.distill_budget_seconds)
    judge = judge or make_judge(settings)
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
            for ns in stale_namespaces(conn, fingerprint):
                if ns in scope:
                    wipe(conn, ns)
                    report.namespaces_rebuilt.append(ns)
        windows, refused = pending_windows(conn, scope, WINDOW)
        tally = WindowTally(progress, sum(len(w) for w in windows) + len(refused), report)
        tally.update()  # the total is known before the first window is derived
        parked = {r[0] for r in conn.execute("SELECT bronze_event_id FROM silver.derivation_failures").fetchall()}
        conn.commit()
        run = _Run(conn, settings, distiller, judge, embedder, fingerprint,
                   distill_fingerprint(distiller.name, settings.llm_model), report, parked, tally)
        if getattr(judge, "name", "heuristic") != "heuristic":  # a model's verdicts are memoised like its facts
            run.judge = distill_memo.MemoJudge(conn, judge, judge_answer_fingerprint(
                judge.name, getattr(judge, "model", settings.llm_model)), lambda: next(iter(run.states), None))
        for event_id, namespace, reason in refused:
            _park(run, event_id, namespace, "load", reason)
        for window in windows:
            tally.start(len(window))
            _derive_window(run, window)
            tally.update()
        # Overlays re-anchor against the ledger just derived (G6): those of every namespace this
        # run touched (after a full rebuild, that is every namespace in Bronze).
        touched = {e.namespace for w in windows for e in w} | {ns for _, ns, _ in refused}
        _anchor_overlays(run, sorted(touched | set(report.namespaces_rebuilt)))
        for ns in sorted(touched | set(report.namespaces_rebuilt)):
            vocabulary_table.refresh(conn, ns)
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


def _anchor_overlays(run: _Run, namespaces: list[str]) -> None:
    """Anchor each namespace's overlays, and withhold what its forget requests ask for, in a savepoint
    of its own: a namespace whose anchoring fails keeps its previous rows and is reported; the others
    are anchored all the same."""
    for ns in namespaces:
        try:
            with run.conn.transaction():
                counts = overlays.rebuild(run.conn, run.fingerprint, [ns])
                withhold.rebuild(run.conn, run.embedder.embed, run.fingerprint, ns)  # the data subjects' overlay
        except Exception as exc:
            if not _poison(exc):
                raise
            run.report.overlay_failures[ns] = reason(exc)
            continue
        for status, n in counts.items():
            run.report.overlays[status] = run.report.overlays.get(status, 0) + n


@dataclass
class _Step:
    """The step a window is in, so a failure is parked under the step it happened in."""

    name: str = "distill"


def _derive_window(run: _Run, window: list[EventInput]) -> None:
    """Derive a window in batches (the fast path); should anything fail unexpectedly, roll back and
    derive its uncommitted events one at a time, parking only the events that fail on their own."""
    done: set[int] = set()  # events committed (derived or parked)
    prepare = getattr(run.distiller, "prepare", None)
    if prepare is not None:  # a distiller that works faster in batches gets the uncached events ahead
        todo = {distill_memo.cache_key(e): e for e in window if e.kind not in ("fact", "overlay", "document")}
        cached = {r[0] for r in run.conn.execute(
            "SELECT input_hash FROM silver.derivation_cache WHERE fingerprint = %s AND input_hash = ANY(%s)",
            (run.distill_fp, list(todo))).fetchall()}
        prepare([e for k, e in todo.items() if k not in cached])
    try:
        _derive_events(run, window, done, _Step())
        return
    except Exception as exc:
        if not _poison(exc):
            raise
        run.conn.rollback()
        run.states.clear()  # the in-memory ledger holds the rolled-back writes: reload it
    for event in window:
        if event.event_id in done:
            continue
        step = _Step()
        try:
            _derive_events(run, [event], done, step)
        except Exception as exc:
            if not _poison(exc):
                raise
            run.conn.rollback()
            run.states.clear()
            _park(run, event.event_id, event.namespace, step.name, reason(exc))


def _distill(run: _Run, event: EventInput) -> list[FactCandidate]:
    if event.kind == "fact":
        return _within_range(event, [fact_event_candidate(event)])
    if event.kind == "overlay":  # what anchoring will read: refused here rather than there
        overlay_payload(event.content)
        overlay_metadata(event.metadata)
        return []
    if event.kind == "document" or forget_requests.detect(event.content) is not None:
        return []  # a forget request states nothing to remember (silver/withhold.py acts on it)
    return _within_range(event, distill_memo.distill_cached(run.conn, run.distiller, event, run.distill_fp, run.report))


def _derive_events(run: _Run, events: list[EventInput], done: set[int], step: _Step) -> None:
    conn = run.conn
    # 1. distill (per event; failures parked, the rest of the window goes on)
    distilled: dict[int, list[FactCandidate]] = {}
    spans: dict[int, list[tuple[int, int]]] = {}
    for event in events:
        try:
            spans[event.event_id] = chunking.split(
                event.content, by_sentence=event.kind in chunking.TURN_KINDS) if event.kind != "overlay" else []
            distilled[event.event_id] = _distill(run, event)
            conn.commit()
        except DistillError as exc:
            conn.rollback()
            _park(run, event.event_id, event.namespace, "distill", exc.reason)
            done.add(event.event_id)
        except Exception as exc:
            if not _poison(exc):
                raise
            conn.rollback()
            distilled.pop(event.event_id, None)
            _park(run, event.event_id, event.namespace, "distill", reason(exc))
            done.add(event.event_id)
        run.tally.step()
    # 2. embed every statement and chunk (with its context) of the window in one batch (cache first)
    step.name = "embed"
    turns = [e for e in events if e.event_id in distilled and e.kind not in ("document", "overlay")]
    previous = chunking.previous_turns(conn, [e.event_id for e in turns])
    contexts = {e.event_id: chunking.context_text(e.actor, previous.get(e.event_id)) for e in turns}
    chunk_contexts = {e.event_id: _chunk_contexts(e, spans[e.event_id], contexts.get(e.event_id))
                      for e in events if e.event_id in distilled}
    texts: list[str] = []
    ends: dict[int, list[slot_meaning.Negation]] = {}
    for event in events:
        if event.event_id not in distilled:
            continue
        texts += [c.statement for c in distilled[event.event_id]]
        texts += [chunking.embed_text(c, event.content[s:e])
                  for (s, e), c in zip(spans[event.event_id], chunk_contexts[event.event_id], strict=True)]
        ends[event.event_id] = slot_meaning.negations(event.content, event.actor) if event.kind in TOLD else []
        texts += slot_meaning.window_texts(distilled[event.event_id], ends[event.event_id])
    hook = run.tally.embedding(len(texts))
    vectors = dict(zip(texts, run.embedder.embed(texts, progress=hook), strict=True)) if texts else {}
    run.tally.embedding_done()
    meaning = slot_meaning.meaning_for(run.embedder.fingerprint, run.embedder.embed)
    notes = {eid: [slot_meaning.remap(c, meaning, vectors) for c in cands] for eid, cands in distilled.items()}
    conn.commit()
    # 3. resolve in order against the in-memory ledger; write the window in one transaction. A judge
    #    that can fail (an LLM) is flushed event by event so that a failure discards only its event.
    fallible = getattr(run.judge, "name", "heuristic") != "heuristic"
    buffer = WriteBuffer()
    pending: list[tuple[int, DeriveReport]] = []  # events resolved into the buffer, with their counts
    for event in events:
        if event.event_id not in distilled:
            continue
        step.name = "resolve"
        if event.namespace not in run.states:
            run.states.clear()  # windows are namespace-ordered: an earlier namespace is finished
            run.states[event.namespace] = NamespaceState(conn, event.namespace)
        tally = DeriveReport()
        try:
            _resolve_event(run, run.states[event.namespace], buffer, event, notes[event.event_id],
                           spans[event.event_id], chunk_contexts[event.event_id], vectors, tally, ends[event.event_id])
        except DistillError as exc:  # only a fallible judge gets here, with its event alone in the buffer
            buffer = WriteBuffer()
            run.states.pop(event.namespace, None)  # reload from what is committed
            conn.rollback()
            _record_judge_calls(run, event.namespace)
            _park(run, event.event_id, event.namespace, "resolve", exc.reason)
            done.add(event.event_id)
            continue
        _record_judge_calls(run, event.namespace)
        pending.append((event.event_id, tally))
        run.tally.step()
        if fallible:
            step.name = "write"
            _commit(run, buffer, pending, done)
            buffer, pending = WriteBuffer(), []
    step.name = "write"
    _commit(run, buffer, pending, done)


def _record_judge_calls(run: _Run, namespace: str) -> None:
    """One ``telemetry.model_calls`` row per request a model judge made for the event just resolved
    (answered or failed): committed with the event's rows, or with its parking record when it failed."""
    for usage, error in getattr(run.judge, "take_usages", list)():
        run.report.model_calls += 1
        record_model_call(run.conn, "judge", run.judge.name, getattr(run.judge, "model", ""), namespace, usage,
                          error=error[:500] if error else None)


def _chunk_contexts(event: EventInput, spans: list[tuple[int, int]], context: str | None) -> list[str | None]:
    """What each chunk of ``event`` is embedded and indexed with: the previous turn and the speaker
    (silver/chunks.py), and for a turn or a note each span restated to stand alone (silver/restate.py)."""
    contexts = chunking.span_contexts(context, event.actor, len(spans))
    return restate.with_restatements(event, spans, contexts) if event.kind in chunking.TURN_KINDS else contexts


def _commit(run: _Run, buffer: WriteBuffer, pending: list[tuple[int, DeriveReport]], done: set[int]) -> None:
    """Write the buffer and commit; only then do its events count as derived."""
    if not pending:
        return
    buffer.flush(run.conn)
    run.conn.commit()
    report = run.report
    for event_id, tally in pending:
        done.add(event_id)
        report.events += 1
        report.facts += tally.facts
        report.chunks += tally.chunks
        report.decisions.update(tally.decisions)
        report.outcomes.update(tally.outcomes)
        report.documents.update(tally.documents)
    run.tally.update()


def _resolve_event(
    run: _Run, state: NamespaceState, buffer: WriteBuffer, event: EventInput,
    candidates: list[tuple[FactCandidate, str | None]], spans: list[tuple[int, int]], span_context: list[str | None],
    vectors: dict[str, Any], tally: DeriveReport, ends: list[slot_meaning.Negation],
) -> None:
    """Resolve an event's candidates (each with the note of its slot by meaning, if any), then let
    each sentence that ends a state close the open fact it negates."""
    fingerprint, settings = run.fingerprint, run.settings
    chunk_ids = [chunking.chunk_id(event.event_id, s, e) for s, e in spans]
    units = chunking.units(spans)
    thread = chunking.thread_of(event.metadata, event.provenance_root)
    buffer.chunks += [(cid, event.namespace, event.event_id, s, e, event.content[s:e], c, event.occurred_at,
                       event.provenance_root, fingerprint, vectors[chunking.embed_text(c, event.content[s:e])], unit,
                       thread)
                      for (s, e), cid, c, unit in zip(spans, chunk_ids, span_context, units, strict=True)]
    tally.chunks += len(spans)
    if event.kind == "document":
        tally.documents[documents.record(state, buffer, event, fingerprint)] += 1
    written: set[str] = set()  # fact ids of this event (a fact id includes its event: no other can clash)
    outcomes = []
    for index, (cand, note) in enumerate(candidates):
        which = chunking.containing(spans, cand.span)
        prep = Prepared(index, cand, vectors[cand.statement], chunk_ids[which] if which is not None else None, note)
        outcomes.append(resolve_candidate(state, buffer, event, prep, run.judge,
                                          threshold=settings.conflict_threshold, fingerprint=fingerprint,
                                          judge_name=getattr(run.judge, "name", "heuristic"), written=written))
    for offset, end in enumerate(ends):
        which = chunking.containing(spans, (end.start, end.end))
        outcomes.append(close_negated(state, buffer, event, len(candidates) + offset, end, vectors,
                                      chunk_ids[which] if which is not None else None,
                                      fingerprint=fingerprint, written=written))
    for outcome in outcomes:
        if outcome is None:
            continue
        tally.decisions[outcome.decision] += 1
        tally.outcomes[outcome.outcome] += 1
        if outcome.outcome in ("added", "closed_previous", "stored_as_history", "contested"):
            tally.facts += 1
    if event.event_id in run.parked:
        buffer.cleared_failures.append(event.event_id)
    buffer.derivations.append((event.event_id, event.namespace, fingerprint, tally.facts))


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
