"""Erasure, the only destructive operation: request → approve by another admin → delete.

The checks live in the database (``bronze.request_erasure`` / ``bronze.approve_erasure``, SECURITY
DEFINER functions): the engine role has no DELETE privilege on Bronze at all, so there is no other
path. Both people are identified inside those functions, from a capability token they verify (which
must hold ``admin`` in the event's namespace) or, with no token, as the administrative login's
``local:<user>``; no caller passes anyone's name. The deleted row leaves a tombstone (key, hashes,
who, when, why; no content) so that the chain still verifies. Re-deriving the affected namespace is
the Silver layer's job, triggered by callers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg


class ErasureError(RuntimeError):
    """A refused erasure step, with the database's one-sentence reason; ``denied`` when it is a permission."""

    def __init__(self, message: str, *, denied: bool = False) -> None:
        super().__init__(message)
        self.denied = denied


def find_event(conn: psycopg.Connection, namespace: str, source: str, source_event_id: str) -> int | None:
    """Event id of a natural key, or None."""
    row = conn.execute(
        "SELECT event_id FROM bronze.events WHERE namespace = %s AND source = %s AND source_event_id = %s",
        (namespace, source, source_event_id),
    ).fetchone()
    return row[0] if row else None


def request_erasure(conn: psycopg.Connection, event_id: int, reason: str, *, token: str | None,
                    local_name: str | None = None) -> int:
    """File an erasure request; returns its id. Nothing is deleted yet.

    The requester is the principal of ``token``, verified by the database (it must hold ``admin`` in
    the event's namespace); with no token, ``conn`` must be the administrative login and the
    requester is ``local_name`` (``local:<user>``).
    """
    return _call(conn, "SELECT bronze.request_erasure(%s, %s, %s, %s)", (event_id, reason, token, local_name))


def approve_erasure(conn: psycopg.Connection, request_id: int, *, token: str | None,
                    local_name: str | None = None) -> int:
    """Approve and execute a request; returns the erased event id.

    The approver is identified exactly as in :func:`request_erasure` and must differ from the requester.
    """
    return _call(conn, "SELECT bronze.approve_erasure(%s, %s, %s)", (request_id, token, local_name))


def erased_namespace(conn: psycopg.Connection, event_id: int) -> str | None:
    """The namespace an erased event belonged to (its tombstone keeps it), for the re-derivation."""
    row = conn.execute("SELECT namespace FROM bronze.tombstones WHERE event_id = %s", (event_id,)).fetchone()
    return row[0] if row else None


def list_requests(conn: psycopg.Connection, status: str | None = None,
                  namespaces: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Erasure requests, newest first; only those of ``namespaces`` when given (``*`` = all)."""
    scope = None if namespaces is None or "*" in namespaces else list(namespaces)
    cur = conn.execute(
        "SELECT request_id, event_id, namespace, reason, requested_by, requested_at, status, approved_by, "
        "executed_at FROM bronze.erasure_requests WHERE (%(s)s::text IS NULL OR status = %(s)s) "
        "AND (%(ns)s::text[] IS NULL OR namespace = ANY(%(ns)s)) ORDER BY request_id DESC",
        {"s": status, "ns": scope},
    )
    cols = [d.name for d in cur.description or []]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def _call(conn: psycopg.Connection, query: str, params: tuple[Any, ...]) -> int:
    try:
        with conn.transaction():
            row = conn.execute(query, params).fetchone()  # type: ignore[arg-type]
    except psycopg.Error as exc:
        denied = isinstance(exc, psycopg.errors.InsufficientPrivilege
                            | psycopg.errors.InvalidAuthorizationSpecification)
        raise ErasureError(_message(exc), denied=denied) from None
    assert row is not None
    return int(row[0])


def _message(exc: psycopg.Error) -> str:
    diag = getattr(exc, "diag", None)
    primary = diag.message_primary if diag is not None else None
    return primary or str(exc).splitlines()[0]
