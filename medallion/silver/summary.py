"""What the derivation left behind, for people watching a run: row counts of the Silver tables and the
newest decisions of one namespace (the Dagster asset's metadata and preview, one namespace partition
each).

Ids, counts, namespaces, decision kinds and predicate names only, never event content: run metadata is
kept by the orchestrator and served by its UI, where an erasure cannot reach it.
"""

from __future__ import annotations

from typing import Any

import psycopg

from medallion.silver.derive import SILVER_TABLES


def table_counts(conn: psycopg.Connection, namespace: str | None = None) -> dict[str, int]:
    """Rows per Silver table the derivation writes, keyed by table name without the schema: of
    ``namespace`` alone, or of every namespace when None."""
    counts = {}
    for table in SILVER_TABLES:
        row = conn.execute(f"SELECT count(*) FROM {table} "  # noqa: S608 - fixed table names
                           "WHERE %(ns)s::text IS NULL OR namespace = %(ns)s", {"ns": namespace}).fetchone()
        counts[table.split(".", 1)[1]] = int(row[0]) if row else 0
    return counts


def recent_decisions(conn: psycopg.Connection, limit: int = 10, namespace: str | None = None) -> list[dict[str, Any]]:
    """The newest resolution decisions of ``namespace`` (every namespace when None): decision, outcome,
    predicate, the candidate fact and the Bronze event it came from."""
    cur = conn.execute(
        "SELECT r.decision, r.outcome, r.namespace, f.predicate, r.candidate_fact_id AS fact_id, "
        "r.bronze_event_id AS event_id "
        "FROM silver.resolutions r JOIN silver.facts f ON f.fact_id = r.candidate_fact_id "
        "WHERE %(ns)s::text IS NULL OR r.namespace = %(ns)s "
        "ORDER BY r.decided_at DESC, r.bronze_event_id DESC, r.candidate_index LIMIT %(limit)s",
        {"ns": namespace, "limit": limit},
    )
    cols = [d.name for d in cur.description or []]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]
