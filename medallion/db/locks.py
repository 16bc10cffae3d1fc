"""Bounded waits for the engine's advisory locks, and the one sentence a wait that runs out ends with.

The engine guards three things with PostgreSQL advisory locks: the migration runner (one lock for
the database), each namespace's ingest (the hash chain is assigned in insert order) and each
namespace's derivation. Only the engine login, the owner and the administrator may take them:
migration 0025 takes EXECUTE on PostgreSQL's advisory-lock functions from PUBLIC, so the tool login
cannot hold one of these locks to stall every new process, ingest or ``remember``.

The engine's own sessions can still hold a lock for long (a large backfill derives for minutes), so
no wait is open-ended: it ends after a bound with :class:`LockBusy`, whose message names the lock
and the session holding it (pid, role, application, since when) from ``pg_locks`` and
``pg_stat_activity``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

# How long a lock is waited for when neither the caller nor the session's lock_timeout says.
DEFAULT_WAIT_SECONDS = 300.0


class LockBusy(psycopg.errors.LockNotAvailable):
    """A lock the engine needs stayed held by another session for the whole wait.

    The server's own lock timeout, with the holder named: callers that handle a lock timeout (or any
    :class:`psycopg.OperationalError`) handle this one, and ingest does not take it for the fault of
    one row (it would quarantine valid rows for it)."""


def take(conn: psycopg.Connection, lock_sql: str, keys: Sequence[Sequence[Any]],
         wait_seconds: float | None = None) -> tuple[int | None, float]:
    """Run ``lock_sql`` (a blocking ``pg_advisory_lock`` or ``pg_advisory_xact_lock`` call) once for
    each of ``keys`` in order, each wait at most ``wait_seconds``; return the index of the key whose
    wait ran out (None when every lock was taken) and the bound used.

    The bound is ``wait_seconds`` when given, else the session's ``lock_timeout`` when it sets one (an
    operator's ``ALTER ROLE medallion_engine SET lock_timeout = '30s'`` bounds these waits too), else
    :data:`DEFAULT_WAIT_SECONDS`. The wait is PostgreSQL's own (``lock_timeout`` for these
    statements), so a lock is granted the moment its holder lets go, in the order the waiters queued.
    The calls run in a transaction of their own, or in a savepoint inside the caller's: a wait that
    runs out rolls back only that (and the locks taken before it), so the caller's transaction stays
    usable, to name the holder for one. A session lock outlives the transaction it was taken in; a
    transaction lock lasts until the caller's transaction ends."""
    wanted = None if wait_seconds is None else max(1, round(wait_seconds * 1000))
    taken = 0
    try:
        with conn.transaction():
            previous, bound, _ = conn.execute(
                "SELECT previous, ms, set_config('lock_timeout', ms::text, true) FROM (SELECT s.setting AS previous, "
                "coalesce(%s::bigint, nullif(s.setting::bigint, 0), %s::bigint) AS ms "
                "FROM pg_settings s WHERE s.name = 'lock_timeout') t",
                (wanted, round(DEFAULT_WAIT_SECONDS * 1000))).fetchone()  # type: ignore[misc]
            for key in keys:
                conn.execute(lock_sql, key)  # type: ignore[arg-type]
                taken += 1
            conn.execute("SELECT set_config('lock_timeout', %s, true)", (previous,))
    except psycopg.errors.LockNotAvailable:
        return taken, bound / 1000
    return None, bound / 1000


def holder(conn: psycopg.Connection, where: str, params: Sequence[Any] = ()) -> str:
    """The session holding the advisory lock that ``where`` (a condition on ``pg_locks l``) picks, as
    words for a refusal: its pid, role, application and start when this login may see them.

    PostgreSQL shows every login the pid, role and application of any session; the start only for
    sessions of its own role (or to an administrator). A lock let go in between is "another session"."""
    row = conn.execute(
        "SELECT a.pid, a.usename, a.application_name, a.backend_start FROM pg_locks l "
        "JOIN pg_stat_activity a ON a.pid = l.pid "
        f"WHERE l.locktype = 'advisory' AND l.granted AND l.database = "
        f"(SELECT oid FROM pg_database WHERE datname = current_database()) AND {where} LIMIT 1",
        params,  # type: ignore[arg-type]
    ).fetchone()
    if row is None:
        return "another session, which let go of it just as the wait ended"
    pid, role, app, since = row
    words = f"database session {pid}"
    if role:
        words += f" of role {role}"
    if app:
        words += f" (application {app!r})"
    if since is not None:
        words += f", connected since {since:%Y-%m-%d %H:%M:%S %Z}"
    return words
