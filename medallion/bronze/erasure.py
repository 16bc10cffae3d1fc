"""Erasure, the only destructive operation: request → approve by another admin → delete.

The checks live in the database (``bronze.request_erasure`` / ``bronze.approve_erasure`` for one
event, ``bronze.request_erasure_scope`` / ``bronze.approve_erasure_scope`` for every event of one
actor or of a whole namespace; SECURITY DEFINER functions): the engine role has no DELETE privilege
on Bronze at all, so there is no other path. Both people are identified inside those functions, from
a capability token they verify (which must hold ``admin`` in the namespace) or, with no token, as the
administrative login's ``local:<user>``; no caller passes anyone's name. Each deleted row leaves a
tombstone (key, hashes, who, when, why; no content) so that the chain still verifies. A scope is one
request and one approval; it covers the events that match when it is approved. Re-deriving the
affected namespace is the Silver layer's job, triggered by callers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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


def request_scope(conn: psycopg.Connection, namespace: str, reason: str, *, actor: str | None, token: str | None,
                  local_name: str | None = None) -> int:
    """File one erasure request for every event of ``actor`` in ``namespace`` (``actor`` None: every
    event of the namespace); returns its id. Refused in one sentence when nothing matches, or when an
    identical request is pending. The requester is identified as in :func:`request_erasure`."""
    return _call(conn, "SELECT bronze.request_erasure_scope(%s, %s, %s, %s, %s)",
                 (namespace, actor, reason, token, local_name))


@dataclass(frozen=True)
class Approved:
    """What an approval erased: the namespace to re-derive and the number of events."""

    request_id: int
    namespace: str
    erased: int
    event_id: int | None  # the one event of a single-event request; None for a scope
    actor: str | None  # the actor of a scoped request (None: the whole namespace, or a single event)


def approve(conn: psycopg.Connection, request_id: int, *, token: str | None, local_name: str | None = None) -> Approved:
    """Approve and execute request ``request_id``, of one event or of a scope; the approver is identified
    as in :func:`request_erasure` and must differ from the requester."""
    scope = conn.execute("SELECT s.actor FROM bronze.erasure_scopes s WHERE s.request_id = %s",
                         (request_id,)).fetchone()
    if scope is None:
        try:
            event_id = approve_erasure(conn, request_id, token=token, local_name=local_name)
        except ErasureError as exc:
            raise _closed_reason(conn, request_id, exc) from None
        namespace = erased_namespace(conn, event_id)
        assert namespace is not None, "an approved erasure leaves a tombstone"
        return Approved(request_id, namespace, 1, event_id, None)
    try:
        erased = _call(conn, "SELECT bronze.approve_erasure_scope(%s, %s, %s)", (request_id, token, local_name))
    except ErasureError as exc:
        raise _closed_reason(conn, request_id, exc) from None
    row = conn.execute("SELECT namespace FROM bronze.erasure_requests WHERE request_id = %s", (request_id,)).fetchone()
    assert row is not None
    return Approved(request_id, row[0], erased, None, scope[0])


def erased_namespace(conn: psycopg.Connection, event_id: int) -> str | None:
    """The namespace an erased event belonged to (its tombstone keeps it), for the re-derivation."""
    row = conn.execute("SELECT namespace FROM bronze.tombstones WHERE event_id = %s", (event_id,)).fetchone()
    return row[0] if row else None


def list_requests(conn: psycopg.Connection, status: str | None = None,
                  namespaces: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Erasure requests, newest first; only those of ``namespaces`` when given (``*`` = all).

    ``scope`` is ``event`` (one event: ``event_id``), ``actor`` (every event of ``actor`` in the
    namespace) or ``namespace``; ``events`` is how many it covers: those matched when it was requested
    while it is pending, those erased once executed."""
    scope = None if namespaces is None or "*" in namespaces else list(namespaces)
    cur = conn.execute(
        "SELECT r.request_id, CASE WHEN r.event_id IS NOT NULL THEN 'event' WHEN s.actor IS NOT NULL THEN 'actor' "
        "ELSE 'namespace' END AS scope, r.event_id, s.actor, r.namespace, "
        "coalesce(s.events_erased, s.events_requested, 1) AS events, r.reason, r.requested_by, r.requested_at, "
        "r.status, r.approved_by, r.executed_at, r.closed_by, r.closed_at "
        "FROM bronze.erasure_requests r LEFT JOIN bronze.erasure_scopes s USING (request_id) "
        "WHERE (%(s)s::text IS NULL OR r.status = %(s)s) "
        "AND (%(ns)s::text[] IS NULL OR r.namespace = ANY(%(ns)s)) ORDER BY r.request_id DESC",
        {"s": status, "ns": scope},
    )
    cols = [d.name for d in cur.description or []]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def cancel(conn: psycopg.Connection, request_id: int, *, token: str | None, local_name: str | None = None) -> str:
    """Cancel pending request ``request_id``: nothing is erased and it can no longer be approved. Anyone
    with ``admin`` in its namespace may, identified as in :func:`request_erasure`; returns who did."""
    return str(_first(conn, "SELECT bronze.cancel_erasure(%s, %s, %s)", (request_id, token, local_name)))


def close_superseded(conn: psycopg.Connection) -> int:
    """Close every pending request whose events are all gone already (for instance erased by a request
    for their actor) as ``superseded``, so none waits forever for an approval that cannot succeed;
    returns how many were closed."""
    return _call(conn, "SELECT bronze.close_superseded_erasures()", ())


def forget_erased(conn: psycopg.Connection, request_id: int) -> dict[str, int]:
    """Delete the copies an executed request's events left outside Silver: their quarantined lines, the
    tool calls that returned or asked for them, the Gold mart rows that name or quote them, and drift
    findings that quoted them (withheld). Run it after the approval and before Silver is re-derived:
    it finds the copies through the Silver rows of the erased events. Returns what it removed, by kind."""
    with conn.transaction():
        row = conn.execute("SELECT bronze.forget_erased(%s)", (request_id,)).fetchone()
    assert row is not None
    return {key: int(value) for key, value in row[0].items()}


def _closed_reason(conn: psycopg.Connection, request_id: int, exc: ErasureError) -> ErasureError:
    """The refusal of an approval, saying how the request was closed when it cannot be approved because
    its events are gone or it was cancelled (the database checked the caller's admin before saying so)."""
    if "no longer exists" in str(exc):
        close_superseded(conn)
        return ErasureError(f"{exc}: an earlier erasure removed it, so request {request_id} is closed as superseded")
    if "already executed" in str(exc):
        row = conn.execute("SELECT status FROM bronze.erasure_requests WHERE request_id = %s",
                           (request_id,)).fetchone()
        if row is not None and row[0] != "executed":
            return ErasureError(f"erasure request {request_id} was {row[0]}: there is nothing left to approve")
    return exc


def _call(conn: psycopg.Connection, query: str, params: tuple[Any, ...]) -> int:
    return int(_first(conn, query, params))


def _first(conn: psycopg.Connection, query: str, params: tuple[Any, ...]) -> Any:
    """The one value an erasure function returns; its refusal as one :class:`ErasureError`."""
    try:
        with conn.transaction():
            row = conn.execute(query, params).fetchone()  # type: ignore[arg-type]
    except psycopg.Error as exc:
        denied = isinstance(exc, psycopg.errors.InsufficientPrivilege
                            | psycopg.errors.InvalidAuthorizationSpecification)
        raise ErasureError(_message(exc), denied=denied) from None
    assert row is not None
    return row[0]


def _message(exc: psycopg.Error) -> str:
    diag = getattr(exc, "diag", None)
    primary = diag.message_primary if diag is not None else None
    return primary or str(exc).splitlines()[0]
