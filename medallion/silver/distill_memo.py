"""Memoised model output (``silver.derivation_cache``), keyed by a fingerprint and a hash of what the
output depends on: the distiller's candidates and a model judge's verdicts.

The LLM's answers are memoised because they cost money, the heuristic's because its dependency
parse costs time: a warm rebuild, or a re-derivation after an erasure, reads them back instead. A
rebuild meets the same candidates and the same neighbours (fact ids are content hashes), so it asks
a model judge nothing either.
"""

from __future__ import annotations

import hashlib
import json
import time
from datetime import datetime
from typing import Any, Protocol

import psycopg

from medallion.distill.providers import Distiller, DistillError, Judge, record_model_call
from medallion.distill.types import EventInput, FactCandidate, Judgement, Neighbour


class CountsModelCalls(Protocol):
    """The run's report: a distiller call that reaches a model is counted in it."""

    model_calls: int


def cache_key(event: EventInput) -> str:
    """What a distiller's output depends on, hashed: namespace (a team's namespace names the team a
    note is about), kind, actor, time, content, source, metadata."""
    return hashlib.sha256(json.dumps(
        [event.namespace, event.kind, event.actor, event.occurred_at.isoformat(), event.content, event.source,
         event.metadata],
        ensure_ascii=False, sort_keys=True, default=str,
    ).encode()).hexdigest()


def distill_cached(conn: psycopg.Connection, distiller: Distiller, event: EventInput, fp: str,
                    report: CountsModelCalls) -> list[FactCandidate]:
    """Output is memoised by input hash under the distill fingerprint: the LLM's because it costs
    money, the heuristic's because its dependency parse costs time (a warm rebuild reads both)."""
    key = cache_key(event)
    memo = _lookup(conn, fp, key)
    metered = distiller.name != "heuristic"  # telemetry counts calls to a model, not the offline rules
    if memo is not None:
        if metered:
            _record_hit(conn, "distill", distiller.name, "", event.namespace)
        return [_candidate_from_json(c) for c in memo]
    started = time.perf_counter()
    if not metered:
        result = distiller.distill(event)
        _remember(conn, fp, key, result)
        return result
    report.model_calls += 1
    model = getattr(distiller, "model", "")
    try:
        result = distiller.distill(event)
    except DistillError as exc:  # a failed call still cost tokens and time: it is recorded, then parked
        conn.rollback()
        record_model_call(conn, "distill", distiller.name, model, event.namespace, exc.usage,
                          latency_ms=(time.perf_counter() - started) * 1000, error=exc.reason[:500])
        conn.commit()
        raise
    record_model_call(conn, "distill", distiller.name, model, event.namespace, getattr(distiller, "last_usage", None),
                      latency_ms=(time.perf_counter() - started) * 1000)
    _remember(conn, fp, key, result)
    return result


def _remember(conn: psycopg.Connection, fp: str, key: str, result: list[FactCandidate]) -> None:
    """Memoise a distiller's output. Output that cannot be stored as JSON text (a set, a lone
    surrogate, a NUL) is not memoised: the step that cannot handle it parks the event instead."""
    try:
        text = json.dumps([_candidate_to_json(c) for c in result], ensure_ascii=False)
        text.encode("utf-8")
    except (TypeError, ValueError):
        return
    if "\\u0000" in text:
        return
    _store(conn, fp, key, text)


def _lookup(conn: psycopg.Connection, fp: str, key: str) -> Any:
    """The memoised output under (fingerprint, input hash), or None."""
    row = conn.execute("SELECT output FROM silver.derivation_cache WHERE fingerprint = %s AND input_hash = %s",
                       (fp, key)).fetchone()
    return row[0] if row is not None else None


def _store(conn: psycopg.Connection, fp: str, key: str, text: str) -> None:
    conn.execute("INSERT INTO silver.derivation_cache (fingerprint, input_hash, output) VALUES (%s, %s, %s) "
                 "ON CONFLICT DO NOTHING", (fp, key, text))


def _record_hit(conn: psycopg.Connection, step: str, provider: str, model: str, namespace: str | None) -> None:
    """A memo hit in telemetry: no tokens, no latency, ``cache_hit`` true."""
    conn.execute("INSERT INTO telemetry.model_calls (step, provider, model, namespace, cache_hit) "
                 "VALUES (%s, %s, %s, %s, true)", (step, provider, model, namespace))


def _candidate_to_json(c: FactCandidate) -> dict[str, Any]:
    return {"subject": c.subject, "predicate": c.predicate, "value": c.value, "statement": c.statement,
            "valid_from": c.valid_from.isoformat(), "confidence": c.confidence,
            "span": list(c.span) if c.span else None, "object_entity": c.object_entity,
            "value_type": c.value_type, "cardinality": c.cardinality, "relation": c.relation, "change": c.change}


def _candidate_from_json(d: dict[str, Any]) -> FactCandidate:
    return FactCandidate(d["subject"], d["predicate"], d["value"], d["statement"],
                         datetime.fromisoformat(d["valid_from"]), float(d["confidence"]),
                         tuple(d["span"]) if d.get("span") else None, d.get("object_entity"),  # type: ignore[arg-type]
                         d.get("value_type") or "text", d.get("cardinality"), d.get("relation"),
                         bool(d.get("change")))


class MemoJudge:
    """A model judge whose verdicts are memoised under ``fingerprint`` by a hash of the candidate and
    its neighbours. A hit is a ``cache_hit`` telemetry row and no request; ``take_usages`` hands on the
    wrapped judge's real requests only."""

    def __init__(self, conn: psycopg.Connection, judge: Judge, fingerprint: str, namespace_of: Any):
        self.conn, self.inner, self.fingerprint, self.namespace_of = conn, judge, fingerprint, namespace_of
        self.name = judge.name
        self.model = getattr(judge, "model", "")

    def take_usages(self) -> list[Any]:
        return self.inner.take_usages() if hasattr(self.inner, "take_usages") else []

    def judge(self, candidate: FactCandidate, neighbours: list[Neighbour]) -> Judgement:
        if not neighbours:  # answered without a request
            return self.inner.judge(candidate, neighbours)
        key = judge_key(candidate, neighbours)
        memo = _lookup(self.conn, self.fingerprint, key)
        if memo is not None:
            _record_hit(self.conn, "judge", self.name, self.model, self.namespace_of())
            return Judgement(memo["decision"], memo["target_fact_id"], memo["reason"])
        verdict = self.inner.judge(candidate, neighbours)
        _store(self.conn, self.fingerprint, key, json.dumps(
            {"decision": verdict.decision, "target_fact_id": verdict.target_fact_id, "reason": verdict.reason},
            ensure_ascii=False))
        return verdict


def judge_key(candidate: FactCandidate, neighbours: list[Neighbour]) -> str:
    """What a judge's verdict depends on, hashed: the candidate and each neighbour as the prompt shows
    them (scores rounded, so float noise in a cosine does not miss the memo)."""
    return hashlib.sha256(json.dumps(
        [_candidate_to_json(candidate), [[n.fact_id, n.subject, n.predicate, n.value, n.statement,
                                          n.valid_from.isoformat(), n.authority, round(n.score, 3), n.same_slot,
                                          n.open] for n in neighbours]],
        ensure_ascii=False, sort_keys=True, default=str,
    ).encode()).hexdigest()
