"""Bitemporal reads of the ledger (SPEC S6) in the CLI's JSON shape (SPEC section 8).

Subjects match case-insensitively by canonical name or alias. Timestamps are ISO 8601 with offset.
These are the engine's reads; the capability-gated Gold tools build on the same shape.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg

from dagster_project.silver import entities

_SELECT = """
SELECT f.fact_id, e.canonical_name, f.predicate, f.value, f.statement, f.valid_from, f.valid_to, f.recorded_at,
       f.superseded_at, f.verified_at, f.authority, f.confidence, f.contested, f.superseded_by, f.importance,
       f.bronze_event_id, f.namespace, f.source, b.source_event_id, f.provenance_root
FROM {source} f
JOIN silver.entities e ON e.entity_id = f.subject_id
LEFT JOIN bronze.events b ON b.event_id = f.bronze_event_id
"""


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def as_json(row: tuple[Any, ...]) -> dict[str, Any]:
    """One ledger row in the SPEC 8 shape."""
    (fact_id, subject, pred, value, statement, valid_from, valid_to, recorded_at, superseded_at, verified_at,
     authority, confidence, contested, superseded_by, importance, event_id, namespace, source, seid, root) = row
    return {
        "fact_id": fact_id, "subject": subject, "predicate": pred,
        "value": value,
        "statement": statement, "valid_from": _iso(valid_from), "valid_to": _iso(valid_to),
        "recorded_at": _iso(recorded_at), "superseded_at": _iso(superseded_at), "verified_at": _iso(verified_at),
        "authority": authority, "confidence": round(float(confidence), 4), "contested": contested,
        "superseded_by": superseded_by, "importance": round(float(importance), 4),
        "provenance": {"bronze_event_id": event_id, "namespace": namespace, "source": source,
                       "source_event_id": seid, "provenance_root": root},
    }


def current(conn: psycopg.Connection, namespace: str, subject: str, predicate: str) -> list[dict[str, Any]]:
    """Every open version of the slot (several for a many-valued predicate or a contested pair)."""
    ids = entities.find(conn, namespace, subject)
    if not ids:
        return []
    rows = conn.execute(
        _SELECT.format(source="silver.facts")
        + "WHERE f.namespace = %s AND f.subject_id = ANY(%s) AND f.predicate = %s AND f.valid_to IS NULL "
        "ORDER BY f.valid_from DESC, f.fact_id",
        (namespace, ids, predicate),
    ).fetchall()
    return [as_json(r) for r in rows]


def history(conn: psycopg.Connection, namespace: str, subject: str, predicate: str) -> list[dict[str, Any]]:
    """All versions of the slot, ordered by valid_from."""
    ids = entities.find(conn, namespace, subject)
    if not ids:
        return []
    rows = conn.execute(
        _SELECT.format(source="silver.facts")
        + "WHERE f.namespace = %s AND f.subject_id = ANY(%s) AND f.predicate = %s "
        "ORDER BY f.valid_from, f.recorded_at, f.fact_id",
        (namespace, ids, predicate),
    ).fetchall()
    return [as_json(r) for r in rows]


def as_of(
    conn: psycopg.Connection, namespace: str, *, valid_at: datetime, recorded_at: datetime,
    subject: str | None = None, predicate: str | None = None,
) -> list[dict[str, Any]]:
    """What we believed at transaction time ``recorded_at`` about what was true at ``valid_at``."""
    ids = entities.find(conn, namespace, subject) if subject else None
    if subject and not ids:
        return []
    rows = conn.execute(
        _SELECT.format(source="silver.facts_as_of(%(ns)s, %(v)s, %(r)s)")
        + "WHERE (%(ids)s::text[] IS NULL OR f.subject_id = ANY(%(ids)s)) "
        "AND (%(p)s::text IS NULL OR f.predicate = %(p)s) ORDER BY e.canonical_name, f.predicate, f.valid_from",
        {"ns": namespace, "v": valid_at, "r": recorded_at, "ids": ids, "p": predicate},
    ).fetchall()
    return [as_json(r) for r in rows]


def contested_pairs(conn: psycopg.Connection, namespace: str) -> list[dict[str, Any]]:
    """Open contested facts of a namespace (the review queue's input)."""
    rows = conn.execute(
        _SELECT.format(source="silver.facts")
        + "WHERE f.namespace = %s AND f.contested AND f.valid_to IS NULL ORDER BY e.canonical_name, f.predicate",
        (namespace,),
    ).fetchall()
    return [as_json(r) for r in rows]
