"""Conflict resolution and ledger writes (S3, S4, S5).

For each candidate: find neighbours (the same slot, plus the nearest facts of the namespace by
cosine above ``MEDALLION_CONFLICT_THRESHOLD``; held in memory, see ``ledger_state``), ask the judge,
then apply the policy — authority, then recency, then contested:

- a supersede/update by an equal or more authoritative source (tier number ≤) with a later or equal
  ``valid_from`` closes the old version (``valid_to``, ``superseded_at``, ``superseded_by``);
- the same, but with an *earlier* ``valid_from`` (out-of-order arrival): the candidate is stored as
  history, already closed by the version it predates;
- by a less authoritative source claiming the same or a later ``valid_from``: nothing closes; both
  versions are marked ``contested`` and the pair goes to review;
- by any source, with a ``valid_from`` earlier than a current version's: the candidate does not
  claim the present, so it is stored as history closed by the earliest version it predates, and
  nothing is contested (a less authoritative past is still a past).

Transaction time comes from Bronze (``received_at`` of the event being derived), so a rebuild
reproduces the same history. Every decision is written to ``silver.resolutions``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from psycopg.types.json import Jsonb

from medallion.distill.providers import Judge
from medallion.distill.types import EventInput, FactCandidate, Judgement, Neighbour
from medallion.distill.vocabulary import Predicate
from medallion.silver import entities, slot_meaning
from medallion.silver.judge import canonical_value
from medallion.silver.ledger_state import NamespaceState, WriteBuffer
from medallion.silver.routing import importance, route

VECTOR_NEIGHBOURS = 5
# Slots a change word never empties: the catch-all, intentions, and events that happened.
NO_CHANGE = frozenset({"states", "plans", "goal", "attended"})


@dataclass(frozen=True)
class Prepared:
    """A candidate with what resolution needs: its index in the event, embedding and chunk, and the
    note of its slot by meaning when :mod:`medallion.silver.slot_meaning` chose the predicate."""

    index: int
    candidate: FactCandidate
    embedding: np.ndarray
    chunk_id: str | None
    note: str | None = None


def fact_id(namespace: str, subject_id: str, pred: str, value: Any, event_id: int) -> str:
    """Content-addressed id: namespace, subject, predicate, canonical value, source event."""
    key = "\x1f".join([namespace, subject_id, pred, canonical_value(value), str(event_id)])
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)


@dataclass
class Outcome:
    """What happened to one candidate."""

    decision: str
    outcome: str  # added | closed_previous | stored_as_history | contested | refreshed | working_memory | duplicate
    fact_id: str


def _new_fact(
    state: NamespaceState, buffer: WriteBuffer, event: EventInput, prep: Prepared, pred: Predicate, fid: str,
    subject_id: str, object_id: str | None, fingerprint: str, *, valid_to: datetime | None = None,
    superseded_by: str | None = None, contested: bool = False,
) -> None:
    c = prep.candidate
    buffer.facts[fid] = {
        "fact_id": fid, "namespace": event.namespace, "subject_id": subject_id, "predicate": pred.name,
        "cardinality": pred.cardinality, "value": Jsonb(c.value),
        "value_text": value_text(c.value), "statement": c.statement, "valid_from": c.valid_from,
        "valid_to": valid_to, "recorded_at": event.received_at,
        "superseded_at": event.received_at if valid_to is not None else None, "verified_at": event.received_at,
        "source": event.source, "authority": event.authority, "confidence": min(max(c.confidence, 0.0), 1.0),
        "contested": contested, "superseded_by": superseded_by, "half_life": pred.half_life,
        "importance": importance(pred, event.authority, c.statement), "retention_class": pred.retention_class,
        "bronze_event_id": event.event_id, "provenance_root": event.provenance_root, "object_entity_id": object_id,
        "chunk_id": prep.chunk_id, "span_start": c.span[0] if c.span else None,
        "span_end": c.span[1] if c.span else None, "fingerprint": fingerprint, "embedding": prep.embedding,
    }
    if valid_to is None:
        state.add(fid, subject_id, pred.name, pred.cardinality, c.value, c.statement, c.valid_from,
                  event.authority, prep.embedding)
    if object_id is not None:
        buffer.edges.append((fid, event.namespace, subject_id, object_id, pred.name))


# A change dated this close to its telling is news, not a story about before: "moved to Leeds last month"
# is dated the 1st of that month, up to 62 days before it is told.
NEWS_WINDOW = timedelta(days=62)


def news(c: FactCandidate, event: EventInput, target: Neighbour) -> bool:
    """Whether a candidate dated before ``target`` still reports a change after it: it was told after
    the target's time, about a moment close to its telling ("got promoted last Friday", told the day
    after "I'm a junior analyst", which was dated by its own telling). A story about long before
    ("in 2019 I lived in Porto") is not news and stays history."""
    return event.occurred_at > target.valid_from and event.occurred_at - c.valid_from <= NEWS_WINDOW


def resolve_candidate(
    state: NamespaceState, buffer: WriteBuffer, event: EventInput, prep: Prepared, judge: Judge, *,
    threshold: float, fingerprint: str, judge_name: str, written: set[str],
) -> Outcome:
    """Resolve one candidate against the namespace's ledger and buffer the result."""
    pred = state.vocabulary(prep.candidate)
    # the judge sees the slot's kind, and whether the sentence says its value took another's place
    changed = prep.candidate.change or (pred.name not in NO_CHANGE and slot_meaning.states_change(
        prep.candidate.statement))
    c = replace(prep.candidate, cardinality=pred.cardinality, change=changed)
    speaker_alias = event.actor if event.actor and ":" in event.actor else None
    is_speaker = speaker_alias is not None and entities.normalize(speaker_alias.split(":", 1)[1]) == entities.normalize(
        c.subject)
    subject_id = state.entity(c.subject, event.event_id, buffer, "person" if is_speaker else "thing",
                              alias=speaker_alias if is_speaker else None)
    object_id = (state.entity(c.object_entity, event.event_id, buffer)
                 if c.object_entity and pred.entity_valued else None)
    fid = fact_id(event.namespace, subject_id, pred.name, c.value, event.event_id)

    def record(decision: str, outcome: str, target: str | None, found: list[Neighbour], reason: str) -> Outcome:
        reason = f"{prep.note}; {reason}" if prep.note else reason
        buffer.resolutions.append((
            event.event_id, prep.index, event.namespace, fid, decision, outcome, target,
            json.dumps([{"fact_id": n.fact_id, "score": n.score, "same_slot": n.same_slot} for n in found]),
            reason, judge_name, fingerprint, event.received_at, json.dumps({
                "subject": c.subject, "predicate": c.predicate, "value": c.value, "statement": c.statement,
                "valid_from": c.valid_from.isoformat(), "confidence": c.confidence, "value_type": c.value_type,
                "cardinality": pred.cardinality, "relation": c.relation}, ensure_ascii=False),
        ))
        return Outcome(decision, outcome, fid)

    if route(pred) == "working_memory":
        buffer.working_memory.append((
            fid, event.namespace, c.subject, pred.name, json.dumps(c.value, ensure_ascii=False), c.statement,
            event.event_id, event.provenance_root, event.received_at, c.valid_from + pred.half_life, fingerprint,
        ))
        return record("add", "working_memory", None, [], f"{pred.name} is low-stakes and ephemeral: working memory")
    if fid in written:
        return record("skip", "duplicate", fid, [], "the same event already stated this fact")
    written.add(fid)

    found = state.neighbours(subject_id, pred.name, pred.cardinality, prep.embedding, c.value, threshold,
                             VECTOR_NEIGHBOURS)
    verdict: Judgement = slot_rule(judge.judge(c, found), c, pred.cardinality, found)
    by_id = {n.fact_id: n for n in found}

    if verdict.decision == "skip" and verdict.target_fact_id in by_id:
        buffer.refresh(verdict.target_fact_id, event.received_at)  # type: ignore[arg-type]
        return record("skip", "refreshed", verdict.target_fact_id, found, verdict.reason)

    if verdict.decision in ("update", "supersede") and verdict.target_fact_id in by_id:
        if verdict.decision == "supersede" and (pred.cardinality == "one" or c.change):
            targets = [n for n in found if n.same_slot and n.open]
        else:
            targets = [by_id[verdict.target_fact_id]]  # type: ignore[index]
        newer_than_candidate = [t for t in targets if c.valid_from < t.valid_from and not news(c, event, t)]
        if newer_than_candidate:
            # Out-of-order arrival: the candidate predates a current version, whatever their authorities,
            # so it describes the past and closes nothing; contested is for claims on the same or a later time.
            closer = min(newer_than_candidate, key=lambda t: (t.valid_from, t.fact_id))
            _new_fact(state, buffer, event, prep, pred, fid, subject_id, object_id, fingerprint,
                      valid_to=closer.valid_from, superseded_by=closer.fact_id)
            return record(verdict.decision, "stored_as_history", closer.fact_id, found,
                          f"{verdict.reason}; older than {closer.fact_id}, stored as already-closed history")
        stronger = [t for t in targets if event.authority > t.authority]
        settled = [t for t in targets if event.authority <= t.authority]
        for t in settled:
            buffer.close(t.fact_id, max(c.valid_from, t.valid_from), event.received_at, fid)
            state.close(t.fact_id)
        if stronger:
            for t in stronger:
                buffer.contest(t.fact_id)
            _new_fact(state, buffer, event, prep, pred, fid, subject_id, object_id, fingerprint, contested=True)
            return record(verdict.decision, "contested", stronger[0].fact_id, found,
                          f"{verdict.reason}; less authoritative (tier {event.authority} vs "
                          f"{stronger[0].authority}): both kept, contested, sent to review")
        _new_fact(state, buffer, event, prep, pred, fid, subject_id, object_id, fingerprint)
        return record(verdict.decision, "closed_previous", verdict.target_fact_id, found, verdict.reason)

    _new_fact(state, buffer, event, prep, pred, fid, subject_id, object_id, fingerprint)
    return record("add", "added", None, found, verdict.reason)


def slot_rule(verdict: Judgement, c: FactCandidate, cardinality: str, found: list[Neighbour]) -> Judgement:
    """A single-valued slot holds one current value whatever a judge answers: an **add** (or a decision
    naming no neighbour) beside an open value of the slot becomes a **skip** of that value when it is the
    same, else a **supersede** of it (authority and recency then apply as for any supersede). A model
    judge can answer add here; the ledger's one-open-version constraint would refuse the write."""
    open_slot = [n for n in found if n.same_slot and n.open]
    if cardinality != "one" or not open_slot or (
            verdict.decision != "add" and verdict.target_fact_id in {n.fact_id for n in found}):
        return verdict
    target = open_slot[0]
    if canonical_value(c.value) == canonical_value(target.value):
        return Judgement("skip", target.fact_id, f"{verdict.reason}; the slot already holds this value: skip")
    return Judgement("supersede", target.fact_id,
                     f"{verdict.reason}; the slot holds one value, so a different value supersedes it")


def close_negated(
    state: NamespaceState, buffer: WriteBuffer, event: EventInput, index: int, end: slot_meaning.Negation,
    vectors: dict[str, np.ndarray], chunk_id: str | None, *, fingerprint: str, written: set[str],
) -> Outcome | None:
    """A sentence that ends a state ("I'm no longer vegetarian") supersedes the open fact it negates:
    the one closest to its positive form (cosine ≥ ``slot_meaning.NEGATION_THRESHOLD``) among the
    facts about a subject the sentence names, not stated by this event. The negated statement is
    stored in the same slot as the version that closes it; None when no open fact is negated."""
    positive = vectors[end.positive]
    said = end.positive.casefold()
    best: tuple[float, str] | None = None
    for fid, fact in state.facts.items():
        name = state.names.get(fact.subject_id, "")
        if fid in written or not name or not re.search(r"(?<!\w)" + re.escape(name.casefold()) + r"(?!\w)", said):
            continue
        score = float(state.matrix[fact.row] @ positive)
        if score >= slot_meaning.NEGATION_THRESHOLD and (best is None or (-score, fid) < (-best[0], best[1])):
            best = (score, fid)
    if best is None:
        return None
    target = state.facts[best[1]]
    name = state.names[target.subject_id]
    pred = state.vocabulary(FactCandidate(subject=name, predicate=target.predicate, value=end.said,
                                          statement=end.said, valid_from=event.occurred_at, confidence=0.0))
    c = FactCandidate(subject=name, predicate=pred.name, value=end.said.rstrip("."), statement=end.said,
                      valid_from=event.occurred_at, confidence=0.6, span=(end.start, end.end), change=True)
    prep = Prepared(index, c, vectors[end.said], chunk_id)
    fid = fact_id(event.namespace, target.subject_id, pred.name, c.value, event.event_id)
    if fid in written or c.valid_from < target.valid_from:
        return None
    written.add(fid)
    reason = (f"'{end.said}' ends '{target.statement}' (cosine {best[0]:.2f} of its positive form) "
              "[rule: a negated state closes the state]")
    found = [Neighbour(target.fact_id, name, target.predicate, target.value, target.statement, target.valid_from,
                       target.authority, round(best[0], 6), True, True)]
    if event.authority > target.authority:
        buffer.contest(target.fact_id)
        _new_fact(state, buffer, event, prep, pred, fid, target.subject_id, None, fingerprint, contested=True)
        decision, outcome = "supersede", "contested"
    else:
        buffer.close(target.fact_id, c.valid_from, event.received_at, fid)
        state.close(target.fact_id)
        _new_fact(state, buffer, event, prep, pred, fid, target.subject_id, None, fingerprint)
        decision, outcome = "supersede", "closed_previous"
    buffer.resolutions.append((
        event.event_id, index, event.namespace, fid, decision, outcome, target.fact_id,
        json.dumps([{"fact_id": n.fact_id, "score": n.score, "same_slot": n.same_slot} for n in found]),
        reason, "negation", fingerprint, event.received_at, json.dumps({
            "subject": c.subject, "predicate": c.predicate, "value": c.value, "statement": c.statement,
            "valid_from": c.valid_from.isoformat(), "confidence": c.confidence, "value_type": c.value_type,
            "cardinality": pred.cardinality, "relation": None}, ensure_ascii=False),
    ))
    return Outcome(decision, outcome, fid)
