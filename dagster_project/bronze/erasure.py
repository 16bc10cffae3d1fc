"""Erasure, the only destructive operation (SPEC B7): request → approve by another admin → delete.

The checks live in the database (``bronze.request_erasure`` / ``bronze.approve_erasure``, SECURITY
DEFINER functions): the engine role has no DELETE privilege on Bronze at all, so there is no other
path. The deleted row leaves a tombstone (key, hashes, who, when, why; no content) so that the chain
still verifies. Re-deriving the affected namespace is the Silver layer's job, triggered by callers.
"""

from __future__ import annotations

from typing import Any

import psycopg


class ErasureError(RuntimeError):
    """A refused erasure step, with the database's one-sentence reason."""


def find_event(conn: psycopg.Connection, namespace: str, source: str, source_event_id: str) -> int | None:
    """Event id of a natural key, or None."""
    row = conn.execute(
        "SELECT event_id FROM bronze.events WHERE namespace = %s AND source = %s AND source_event_id = %s",
        (namespace, source, source_event_id),
    ).fetchone()
    return row[0] if row else None


def request_erasure(conn: psycopg.Connection, event_id: int, reason: str, requested_by: str) -> int:
    """File an erasure request; returns its id. Nothing is deleted yet."""
    try:
        with conn.transaction():
            row = conn.execute(
                "SELECT bronze.request_erasure(%s, %s, %s)", (event_id, reason, requested_by)
            ).fetchone()
    except psycopg.Error as exc:
        raise ErasureError(_message(exc)) from None
    assert row is not None
    return int(row[0])


def approve_erasure(conn: psycopg.Connection, request_id: int, approved_by: str) -> int:
    """Approve and execute a request (a different principal holding ``admin``); returns the event id."""
    try:
        with conn.transaction():
            row = conn.execute("SELECT bronze.approve_erasure(%s, %s)", (request_id, approved_by)).fetchone()
    except psycopg.Error as exc:
        raise ErasureError(_message(exc)) from None
    assert row is not None
    return int(row[0])


def list_requests(conn: psycopg.Connection, status: str | None = None) -> list[dict[str, Any]]:
    """Erasure requests, newest first."""
    cur = conn.execute(
        "SELECT request_id, event_id, namespace, reason, requested_by, requested_at, status, approved_by, "
        "executed_at FROM bronze.erasure_requests WHERE (%(s)s::text IS NULL OR status = %(s)s) "
        "ORDER BY request_id DESC",
        {"s": status},
    )
    cols = [d.name for d in cur.description or []]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def _message(exc: psycopg.Error) -> str:
    diag = getattr(exc, "diag", None)
    primary = diag.message_primary if diag is not None else None
    return primary or str(exc).splitlines()[0]
