"""What the derivation left behind, for people watching a run: row counts of the Silver tables and the
newest decisions with the slot they touched (the Dagster asset's metadata and preview)."""

from __future__ import annotations

from typing import Any

import psycopg

from medallion.silver.derive import SILVER_TABLES


def table_counts(conn: psycopg.Connection) -> dict[str, int]:
    """Rows per Silver table the derivation writes, keyed by table name without the schema."""
    counts = {}
    for table in SILVER_TABLES:
        row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()  # noqa: S608 - fixed table names
        counts[table.split(".", 1)[1]] = int(row[0]) if row else 0
    return counts


def recent_decisions(conn: psycopg.Connection, limit: int = 10) -> list[dict[str, Any]]:
    """The newest resolution decisions: decision, outcome, the slot's subject and predicate, the statement."""
    cur = conn.execute(
        "SELECT r.decision, r.outcome, e.canonical_name AS subject, f.predicate, left(f.statement, 70) AS statement "
        "FROM silver.resolutions r JOIN silver.facts f ON f.fact_id = r.candidate_fact_id "
        "JOIN silver.entities e ON e.entity_id = f.subject_id "
        "ORDER BY r.decided_at DESC, r.bronze_event_id DESC, r.candidate_index LIMIT %s",
        (limit,),
    )
    cols = [d.name for d in cur.description or []]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]
