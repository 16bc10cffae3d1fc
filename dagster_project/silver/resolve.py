"""Conflict resolution and ledger writes (SPEC S3, S4, S5).

For each candidate: find neighbours (the same slot, plus the nearest facts of the namespace by
cosine above ``MEDALLION_CONFLICT_THRESHOLD``), ask the judge, then apply the policy — authority,
then recency, then contested:

- a supersede/update by an equal or more authoritative source (tier number ≤) with a later or equal
  ``valid_from`` closes the old version (``valid_to``, ``superseded_at``, ``superseded_by``);
- the same, but with an *earlier* ``valid_from`` (out-of-order arrival): the candidate is stored as
  history, already closed by the version it predates;
- by a less authoritative source: nothing closes; both versions are marked ``contested`` and the
  pair goes to review.

Transaction time comes from Bronze (``received_at`` of the event being derived), so a rebuild
reproduces the same history. Every decision is written to ``silver.resolutions``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import psycopg

from dagster_project.silver import entities
from dagster_project.silver.judge import canonical_value
from dagster_project.silver.routing import importance, route
from dagster_project.silver.types import EventInput, FactCandidate, Judgement, Neighbour
from dagster_project.silver.vocabulary import predicate

VECTOR_NEIGHBOURS = 5


@dataclass(frozen=True)
class Prepared:
    """A candidate with what resolution needs: its index in the event, embedding and chunk."""

    index: int
    candidate: FactCandidate
    embedding: np.ndarray
    chunk_id: str | None


def fact_id(namespace: str, subject_id: str, pred: str, value: Any, event_id: int) -> str:
    """Content-addressed id: namespace, subject, predicate, canonical value, source event."""
    key = "\x1f".join([namespace, subject_id, pred, canonical_value(value), str(event_id)])
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)


def neighbours(
    conn: psycopg.Connection, namespace: str, subject_id: str, pred: str, embedding: np.ndarray, threshold: float,
    value: Any = None,
) -> list[Neighbour]:
    """The facts a candidate must be judged against, in one round trip:

    - a single-valued slot: every open version;
    - a many-valued slot (``states`` can hold hundreds): open versions with the same canonical value,
      plus the ``VECTOR_NEIGHBOURS`` nearest in the slot;
    - the namespace: the ``VECTOR_NEIGHBOURS`` nearest open facts outside the slot, kept when their cosine
      reaches ``threshold``.

    Vector search is exact (``+ 0`` keeps the planner off the HNSW index): results must not depend on
    how an approximate index happened to be built, or rebuilds would not be reproducible.
    """
    rows = conn.execute(
        """
        WITH slot AS MATERIALIZED (
            SELECT f.fact_id, f.subject_id, f.predicate, f.value, f.statement, f.valid_from, f.authority,
                   f.cardinality, f.value_text, (f.embedding <=> %(q)s) AS distance
            FROM silver.facts f
            WHERE f.namespace = %(ns)s AND f.subject_id = %(sid)s AND f.predicate = %(p)s AND f.valid_to IS NULL
        ), picked AS (
            SELECT fact_id, subject_id, predicate, value, statement, valid_from, authority, distance, true AS same_slot
            FROM slot WHERE cardinality = 'one' OR lower(value_text) = %(v)s
            UNION
            (SELECT fact_id, subject_id, predicate, value, statement, valid_from, authority, distance, true
             FROM slot ORDER BY distance, fact_id LIMIT %(k)s)
            UNION ALL
            (SELECT f.fact_id, f.subject_id, f.predicate, f.value, f.statement, f.valid_from, f.authority,
                    (f.embedding <=> %(q)s), false
             FROM silver.facts f
             WHERE f.namespace = %(ns)s AND f.valid_to IS NULL AND NOT (f.subject_id = %(sid)s AND f.predicate = %(p)s)
             ORDER BY (f.embedding <=> %(q)s) + 0, f.fact_id LIMIT %(k)s)
        )
        SELECT p.fact_id, e.canonical_name, p.predicate, p.value, p.statement, p.valid_from, p.authority,
               1 - p.distance AS score, p.same_slot
        FROM picked p JOIN silver.entities e ON e.entity_id = p.subject_id
        ORDER BY p.same_slot DESC, p.distance, p.fact_id
        """,
        {"q": embedding, "ns": namespace, "sid": subject_id, "p": pred, "k": VECTOR_NEIGHBOURS,
         "v": canonical_value(value) if value is not None else None},
    ).fetchall()
    out = []
    for fid, subj, p, val, statement, valid_from, authority, score, same_slot in rows:
        score = float(score) if score is not None else 0.0
        if same_slot or score >= threshold:
            out.append(Neighbour(fid, subj, p, val, statement, valid_from, authority, round(score, 6), same_slot, True))
    return out


@dataclass
class Outcome:
    """What happened to one candidate."""

    decision: str
    outcome: str  # added | closed_previous | stored_as_history | contested | refreshed | working_memory | duplicate
    fact_id: str


def _insert_fact(
    conn: psycopg.Connection, event: EventInput, prep: Prepared, fid: str, subject_id: str,
    object_id: str | None, fingerprint: str, *, valid_to: datetime | None = None,
    superseded_by: str | None = None, contested: bool = False,
) -> None:
    c = prep.candidate
    pred = predicate(c.predicate)
    conn.execute(
        "INSERT INTO silver.facts (fact_id, namespace, subject_id, predicate, cardinality, value, value_text, "
        "statement, valid_from, valid_to, recorded_at, superseded_at, verified_at, source, authority, confidence, "
        "contested, superseded_by, half_life, importance, retention_class, bronze_event_id, provenance_root, "
        "object_entity_id, chunk_id, span_start, span_end, fingerprint, embedding) VALUES "
        "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
        "%s, %s, %s)",
        (
            fid, event.namespace, subject_id, pred.name, pred.cardinality, json.dumps(c.value, ensure_ascii=False),
            value_text(c.value), c.statement, c.valid_from, valid_to, event.received_at,
            event.received_at if valid_to is not None else None, event.received_at, event.source, event.authority,
            min(max(c.confidence, 0.0), 1.0), contested, superseded_by, pred.half_life,
            importance(pred, event.authority, c.statement), pred.retention_class, event.event_id,
            event.provenance_root, object_id, prep.chunk_id, c.span[0] if c.span else None,
            c.span[1] if c.span else None, fingerprint, prep.embedding,
        ),
    )
    if object_id is not None:
        conn.execute(
            "INSERT INTO silver.edges (fact_id, namespace, subject_id, object_id, predicate) "
            "VALUES (%s, %s, %s, %s, %s)",
            (fid, event.namespace, subject_id, object_id, pred.name),
        )


def _working_memory(conn: psycopg.Connection, event: EventInput, c: FactCandidate, fid: str, fingerprint: str) -> None:
    pred = predicate(c.predicate)
    conn.execute(
        "INSERT INTO silver.working_memory (item_id, namespace, subject, predicate, value, statement, "
        "bronze_event_id, provenance_root, recorded_at, expires_at, fingerprint) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (item_id) DO NOTHING",
        (fid, event.namespace, c.subject, pred.name, json.dumps(c.value, ensure_ascii=False), c.statement,
         event.event_id, event.provenance_root, event.received_at, c.valid_from + pred.half_life, fingerprint),
    )


def resolve_candidate(
    conn: psycopg.Connection, event: EventInput, prep: Prepared, judge: Any, *, threshold: float,
    fingerprint: str, judge_name: str, written: set[str] | None = None,
    entity_cache: entities.EntityCache | None = None,
) -> Outcome:
    """Resolve one candidate against the ledger and write the result (inside the caller's transaction)."""
    c = prep.candidate
    pred = predicate(c.predicate)
    speaker_alias = event.actor if event.actor and ":" in event.actor else None
    is_speaker = speaker_alias is not None and entities.normalize(speaker_alias.split(":", 1)[1]) == entities.normalize(
        c.subject)
    subject_id = entities.resolve(conn, event.namespace, c.subject, event.event_id,
                                  "person" if is_speaker else "thing", alias=speaker_alias if is_speaker else None,
                                  cache=entity_cache)
    object_id = (entities.resolve(conn, event.namespace, c.object_entity, event.event_id, cache=entity_cache)
                 if c.object_entity and pred.entity_valued else None)
    fid = fact_id(event.namespace, subject_id, pred.name, c.value, event.event_id)

    def record(decision: str, outcome: str, target: str | None, found: list[Neighbour], reason: str) -> Outcome:
        conn.execute(
            "INSERT INTO silver.resolutions (bronze_event_id, candidate_index, namespace, candidate_fact_id, decision, "
            "outcome, target_fact_id, neighbours, reason, judge, fingerprint, decided_at, candidate) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (event.event_id, prep.index, event.namespace, fid, decision, outcome, target,
             json.dumps([{"fact_id": n.fact_id, "score": n.score, "same_slot": n.same_slot} for n in found]),
             reason, judge_name, fingerprint, event.received_at, json.dumps({
                 "subject": c.subject, "predicate": c.predicate, "value": c.value, "statement": c.statement,
                 "valid_from": c.valid_from.isoformat(), "confidence": c.confidence}, ensure_ascii=False)),
        )
        return Outcome(decision, outcome, fid)

    if route(pred) == "working_memory":
        _working_memory(conn, event, c, fid, fingerprint)
        return record("add", "working_memory", None, [], f"{pred.name} is low-stakes and ephemeral: working memory")
    written = written if written is not None else set()
    if fid in written:
        return record("skip", "duplicate", fid, [], "the same event already stated this fact")
    written.add(fid)

    found = neighbours(conn, event.namespace, subject_id, pred.name, prep.embedding, threshold, c.value)
    verdict: Judgement = judge.judge(c, found)
    by_id = {n.fact_id: n for n in found}

    if verdict.decision == "skip" and verdict.target_fact_id in by_id:
        conn.execute("UPDATE silver.facts SET verified_at = greatest(verified_at, %s) WHERE fact_id = %s",
                     (event.received_at, verdict.target_fact_id))
        return record("skip", "refreshed", verdict.target_fact_id, found, verdict.reason)

    if verdict.decision in ("update", "supersede") and verdict.target_fact_id in by_id:
        if verdict.decision == "supersede" and pred.cardinality == "one":
            targets = [n for n in found if n.same_slot and n.open]
        else:
            targets = [by_id[verdict.target_fact_id]]
        stronger = [t for t in targets if event.authority > t.authority]
        settled = [t for t in targets if event.authority <= t.authority]
        newer_than_candidate = [t for t in settled if c.valid_from < t.valid_from]
        if newer_than_candidate:
            # Out-of-order arrival: the candidate predates a version at least as authoritative.
            closer = min(newer_than_candidate, key=lambda t: (t.valid_from, t.fact_id))
            _insert_fact(conn, event, prep, fid, subject_id, object_id, fingerprint,
                         valid_to=closer.valid_from, superseded_by=closer.fact_id)
            return record(verdict.decision, "stored_as_history", closer.fact_id, found,
                          f"{verdict.reason}; older than {closer.fact_id}, stored as already-closed history")
        for t in settled:
            conn.execute(
                "UPDATE silver.facts SET valid_to = %s, superseded_at = %s, superseded_by = %s "
                "WHERE fact_id = %s AND valid_to IS NULL",
                (c.valid_from, event.received_at, fid, t.fact_id),
            )
        if stronger:
            conn.execute("UPDATE silver.facts SET contested = true WHERE fact_id = ANY(%s)",
                         ([t.fact_id for t in stronger],))
            _insert_fact(conn, event, prep, fid, subject_id, object_id, fingerprint, contested=True)
            return record(verdict.decision, "contested", stronger[0].fact_id, found,
                          f"{verdict.reason}; less authoritative (tier {event.authority} vs "
                          f"{stronger[0].authority}): both kept, contested, sent to review")
        _insert_fact(conn, event, prep, fid, subject_id, object_id, fingerprint)
        return record(verdict.decision, "closed_previous", verdict.target_fact_id, found, verdict.reason)

    _insert_fact(conn, event, prep, fid, subject_id, object_id, fingerprint)
    return record("add", "added", None, found, verdict.reason)
