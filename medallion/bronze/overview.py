"""What Bronze holds, for previews: the newest events and the archive's size (asset metadata, demo output).

Read-only helpers kept apart from the landing path (``bronze/ingest.py``), which writes.
"""

from __future__ import annotations

from typing import Any

import psycopg


def latest_events(conn: psycopg.Connection, limit: int = 10) -> list[dict[str, Any]]:
    """The newest events, for previews (asset metadata, demo output)."""
    cur = conn.execute(
        "SELECT event_id, namespace, source, source_event_id, kind, actor, left(content, 80) AS content, received_at "
        "FROM bronze.events ORDER BY event_id DESC LIMIT %s",
        (limit,),
    )
    cols = [d.name for d in cur.description or []]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def archive_size(conn: psycopg.Connection) -> tuple[int, int]:
    """How many events Bronze holds, and in how many namespaces (asset metadata, demo output)."""
    row = conn.execute("SELECT count(*), count(DISTINCT namespace) FROM bronze.events").fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)
