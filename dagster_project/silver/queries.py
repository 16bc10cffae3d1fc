"""Bitemporal reads of the ledger (S6) in the CLI's JSON shape (the CLI's JSON shape).

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


def iso(value: datetime | None) -> str | None:
    """A timestamp as served (ISO 8601), or None."""
    return value.isoformat() if value is not None else None


def as_json(row: tuple[Any, ...]) -> dict[str, Any]:
    """One ledger row in the CLI's JSON shape."""
    (fact_id, subject, pred, value, statement, valid_from, valid_to, recorded_at, superseded_at, verified_at,
     authority, confidence, contested, superseded_by, importance, event_id, namespace, source, seid, root) = row
    return {
        "fact_id": fact_id, "subject": subject, "predicate": pred,
        "value": value,
        "statement": statement, "valid_from": iso(valid_from), "valid_to": iso(valid_to),
        "recorded_at": iso(recorded_at), "superseded_at": iso(superseded_at), "verified_at": iso(verified_at),
        "authority": authority, "confidence": round(float(confidence), 4), "contested": contested,
        "superseded_by": superseded_by, "importance": round(float(importance), 4),
        "provenance": {"bronze_event_id": event_id, "namespace": namespace, "source": source,
                       "source_event_id": seid, "provenance_root": root},
    }


def _slot(conn: psycopg.Connection, namespace: str, subject: str, predicate: str, *, open_only: bool,
          order: str) -> list[dict[str, Any]]:
    ids = entities.find(conn, namespace, subject)
    if not ids:
        return []
    rows = conn.execute(
        _SELECT.format(source="silver.facts")
        + "WHERE f.namespace = %s AND f.subject_id = ANY(%s) AND f.predicate = %s "
        + ("AND f.valid_to IS NULL " if open_only else "")
        + f"ORDER BY {order}",
        (namespace, ids, predicate),
    ).fetchall()
    return [as_json(r) for r in rows]


def current(conn: psycopg.Connection, namespace: str, subject: str, predicate: str) -> list[dict[str, Any]]:
    """Every open version of the slot (several for a many-valued predicate or a contested pair)."""
    return _slot(conn, namespace, subject, predicate, open_only=True, order="f.valid_from DESC, f.fact_id")


def history(conn: psycopg.Connection, namespace: str, subject: str, predicate: str) -> list[dict[str, Any]]:
    """All versions of the slot, ordered by valid_from."""
    return _slot(conn, namespace, subject, predicate, open_only=False,
                 order="f.valid_from, f.recorded_at, f.fact_id")


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


def related(conn: psycopg.Connection, namespace: str, a: str, b: str, max_depth: int = 3) -> list[dict[str, Any]]:
    """How A and B are related (S11): shortest paths over current edges, either direction, bounded depth.

    A recursive CTE walks the edge graph from A; each path lists the hops with the fact that supports
    each one, so the answer stays auditable.
    """
    starts, ends = entities.find(conn, namespace, a), entities.find(conn, namespace, b)
    if not starts or not ends:
        return []
    rows = conn.execute(
        """
        WITH RECURSIVE current_edges AS (
            SELECT g.subject_id AS src, g.object_id AS dst, g.predicate, g.fact_id, false AS reversed
            FROM silver.edges g JOIN silver.facts f ON f.fact_id = g.fact_id
            WHERE g.namespace = %(ns)s AND f.valid_to IS NULL
            UNION ALL
            SELECT g.object_id, g.subject_id, g.predicate, g.fact_id, true
            FROM silver.edges g JOIN silver.facts f ON f.fact_id = g.fact_id
            WHERE g.namespace = %(ns)s AND f.valid_to IS NULL
        ), walk AS (
            SELECT e.dst AS node, ARRAY[e.src, e.dst] AS nodes, ARRAY[e.fact_id] AS facts, 1 AS depth
            FROM current_edges e WHERE e.src = ANY(%(starts)s)
            UNION ALL
            SELECT e.dst, w.nodes || e.dst, w.facts || e.fact_id, w.depth + 1
            FROM walk w JOIN current_edges e ON e.src = w.node
            WHERE w.depth < %(depth)s AND NOT e.dst = ANY(w.nodes)
        )
        SELECT nodes, facts FROM walk WHERE node = ANY(%(ends)s) ORDER BY depth, facts LIMIT 10
        """,
        {"ns": namespace, "starts": starts, "ends": ends, "depth": max_depth},
    ).fetchall()
    names = dict(conn.execute("SELECT entity_id, canonical_name FROM silver.entities WHERE namespace = %s",
                              (namespace,)).fetchall())
    out = []
    for nodes, facts in rows:
        hops = conn.execute(
            "SELECT fact_id, statement FROM silver.facts WHERE fact_id = ANY(%s)", (facts,)
        ).fetchall()
        statements = dict(hops)
        out.append({"path": [names.get(n, n) for n in nodes],
                    "facts": [{"fact_id": f, "statement": statements.get(f)} for f in facts]})
    return out


def stale(conn: psycopg.Connection, namespace: str, now: datetime, min_importance: float = 0.5) -> list[dict[str, Any]]:
    """Load-bearing current facts past their half-life since last verified (S12: re-verify queue)."""
    rows = conn.execute(
        _SELECT.format(source="silver.facts")
        + "WHERE f.namespace = %s AND f.valid_to IS NULL AND f.importance >= %s AND %s - f.verified_at > f.half_life "
        "ORDER BY f.importance DESC, f.verified_at, f.fact_id",
        (namespace, min_importance, now),
    ).fetchall()
    return [as_json(r) for r in rows]
