"""What the derivation left behind, for people watching a run: row counts of the Silver tables and the
newest decisions with the slot they touched (the Dagster asset's metadata and preview)."""

from __future__ import annotations

from typing import Any

import psycopg

from medallion.silver.derive import SILVER_TABLES, DeriveReport


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


def merge_reports(reports: list[DeriveReport]) -> DeriveReport:
    """One report for a run whose namespaces were derived in several parallel steps."""
    merged = DeriveReport()
    for r in reports:
        merged.events += r.events
        merged.facts += r.facts
        merged.decisions.update(r.decisions)
        merged.outcomes.update(r.outcomes)
        merged.chunks += r.chunks
        merged.documents.update(r.documents)
        merged.failures.extend(r.failures)
        merged.namespaces_rebuilt.extend(r.namespaces_rebuilt)
        merged.model_calls += r.model_calls
        merged.embeddings_encoded += r.embeddings_encoded
        merged.cache_hits += r.cache_hits
        merged.seconds = max(merged.seconds, r.seconds)  # the steps ran side by side
        merged.overlays.update(r.overlays)
        merged.overlay_failures.update(r.overlay_failures)
    merged.namespaces_rebuilt.sort()
    return merged
