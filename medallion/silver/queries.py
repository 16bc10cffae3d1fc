"""The ledger's JSON shape, and how two entities are related over current edges.

A fact row becomes the one JSON shape every reader serves (:func:`as_json`; timestamps ISO 8601 with
offset). Reading facts (current, history, as-of, contested, stale) is the read model's job,
:mod:`medallion.serve.served`, so that every consumer is served a fact the same way, overlays
included.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg

from medallion.silver import entities


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
