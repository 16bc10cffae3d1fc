"""Memoised distiller output (``silver.derivation_cache``), keyed by the distill fingerprint and a
hash of what the output depends on.

The LLM's answers are memoised because they cost money, the heuristic's because its dependency
parse costs time: a warm rebuild, or a re-derivation after an erasure, reads them back instead.
"""

from __future__ import annotations

import hashlib
import json
import time
from datetime import datetime
from typing import Any, Protocol

import psycopg

from medallion.silver.providers import Distiller
from medallion.silver.types import EventInput, FactCandidate


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
    row = conn.execute("SELECT output FROM silver.derivation_cache WHERE fingerprint = %s AND input_hash = %s",
                       (fp, key)).fetchone()
    metered = distiller.name != "heuristic"  # telemetry counts calls to a model, not the offline rules
    if row is not None and row[0] is not None:
        if metered:
            conn.execute("INSERT INTO telemetry.model_calls (step, provider, model, namespace, cache_hit) "
                         "VALUES ('distill', %s, '', %s, true)", (distiller.name, event.namespace))
        return [_candidate_from_json(c) for c in row[0]]
    started = time.perf_counter()
    result = distiller.distill(event)
    if not metered:
        _remember(conn, fp, key, result)
        return result
    usage = getattr(distiller, "last_usage", None)
    report.model_calls += 1
    conn.execute(
        "INSERT INTO telemetry.model_calls (step, provider, model, namespace, input_tokens, output_tokens, latency_ms, "
        "cache_hit) VALUES ('distill', %s, %s, %s, %s, %s, %s, false)",
        (distiller.name, getattr(distiller, "model", ""), event.namespace, getattr(usage, "input_tokens", 0),
         getattr(usage, "output_tokens", 0), (time.perf_counter() - started) * 1000),
    )
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
    conn.execute(
        "INSERT INTO silver.derivation_cache (fingerprint, input_hash, output) VALUES (%s, %s, %s) "
        "ON CONFLICT DO NOTHING", (fp, key, text),
    )


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
