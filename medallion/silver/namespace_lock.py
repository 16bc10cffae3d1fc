"""One derivation per namespace at a time, across processes and machines.

A namespace is the unit of ordering: its events are resolved one after another against its own
ledger. Two runs deriving the same namespace at once (a backfill and the automation sensor, two
CLI runs, two pods) would interleave their decisions, so every derivation holds a PostgreSQL
session-level advisory lock per namespace for as long as it works on it. The lock lives in the
database both runs share, so it holds whatever starts them; a crashed process releases it with its
session. A second run waits up to ``wait_seconds`` and is then refused with one sentence naming the
namespace's derivation lock and the session that holds it. Only the engine, the owner and the
administrator may take the lock (migration 0025): the tool login cannot hold it to stall a namespace's
derivation or ``remember``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

from medallion.db.locks import LockBusy, holder

# Two-key advisory locks: the first key marks them as this module's, the second is the namespace.
LOCK_CLASS_SQL = "hashtext('medallion.derive')"
POLL_SECONDS = 0.25
# Namespaces one session locks at once. Advisory locks live in PostgreSQL's shared lock table, sized
# max_locks_per_transaction x max_connections (64 x 100 = 6,400 slots by default) for all sessions
# together; a run over ten thousand tenants locks and derives them in groups of this size.
LOCK_GROUP = 256


class NamespaceBusy(LockBusy):
    """Another session is deriving the namespace and did not finish within the wait."""


def _try_lock(conn: psycopg.Connection, namespace: str) -> bool:
    row = conn.execute(f"SELECT pg_try_advisory_lock({LOCK_CLASS_SQL}, hashtext(%s))", (namespace,)).fetchone()
    return bool(row and row[0])


def _holder(conn: psycopg.Connection, namespace: str) -> str:
    """Who holds the namespace's derivation lock, for the refusal message."""
    return holder(conn, f"l.classid::int = {LOCK_CLASS_SQL} AND l.objid::int = hashtext(%s) AND l.objsubid = 2",
                  (namespace,))


def _unlock(conn: psycopg.Connection, namespace: str) -> None:
    conn.execute(f"SELECT pg_advisory_unlock({LOCK_CLASS_SQL}, hashtext(%s))", (namespace,))


def lock_groups(namespaces: list[str], size: int | None = None) -> list[list[str]]:
    """The namespaces in sorted order, cut into groups of at most ``size`` (default
    :data:`LOCK_GROUP`) to be locked and derived one group at a time; at least one group, so an
    empty scope still runs (and finds nothing to do)."""
    ordered = sorted(set(namespaces))
    size = size or LOCK_GROUP
    return [ordered[i : i + size] for i in range(0, len(ordered), size)] or [[]]


@contextmanager
def deriving(conn: psycopg.Connection, namespaces: list[str], wait_seconds: float = 300.0) -> Iterator[None]:
    """Hold every namespace's derivation lock for the block, taken in sorted order (so two runs
    asking for overlapping sets never deadlock); wait up to ``wait_seconds`` for each, then raise
    :class:`NamespaceBusy`. The locks are released on the way out, also on error."""
    held: list[str] = []
    autocommit = conn.autocommit
    conn.autocommit = True  # lock calls outside the caller's transactions; session-level locks outlive them
    try:
        for ns in sorted(set(namespaces)):
            deadline = time.monotonic() + wait_seconds
            while not _try_lock(conn, ns):
                if time.monotonic() >= deadline:
                    raise NamespaceBusy(
                        f"namespace {ns!r}'s derivation lock is held by {_holder(conn, ns)}; waited "
                        f"{wait_seconds:g} s: run again when that run has finished (its progress is in the "
                        "Dagster UI or the CLI that started it)")
                time.sleep(POLL_SECONDS)
            held.append(ns)
        conn.autocommit = autocommit
        yield
    finally:
        if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            conn.rollback()
        conn.autocommit = True
        for ns in held:
            _unlock(conn, ns)
        conn.autocommit = autocommit
