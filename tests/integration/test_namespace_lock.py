"""Two derivations of one namespace never run at once (scale-out): the second waits for the first,
or is refused in one sentence when the first does not finish in time; other namespaces go ahead."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import psycopg
import pytest

from medallion.bronze.ingest import ingest_jsonl
from medallion.db.connection import connect
from medallion.settings import Settings
from medallion.silver import namespace_lock
from medallion.silver.derive import derive
from medallion.silver.namespace_lock import NamespaceBusy, deriving


@pytest.fixture
def landed(engine_conn: psycopg.Connection, examples_dir: Path) -> psycopg.Connection:
    ingest_jsonl(engine_conn, (examples_dir / "team_events.jsonl").read_bytes(), origin="test")
    return engine_conn


def test_second_derivation_of_a_busy_namespace_is_refused(landed: psycopg.Connection, settings: Settings) -> None:
    """While another session derives team-atlas, a run for it is refused after its wait, naming the
    namespace's derivation lock and the session holding it (pid and role); nothing of team-atlas is
    written; team-borealis is derived meanwhile."""
    with connect(settings, "engine", autocommit=True) as other, deriving(other, ["team-atlas"]):
        holder = other.execute("SELECT pg_backend_pid()").fetchone()[0]
        started = time.monotonic()
        with pytest.raises(NamespaceBusy) as refused:
            derive(landed, settings, namespaces=["team-atlas"], lock_wait_seconds=0.6)
        assert time.monotonic() - started >= 0.6, "it waited before refusing"
        message = str(refused.value)
        assert f"namespace 'team-atlas''s derivation lock is held by database session {holder} of role " \
               "medallion_engine" in message and "\n" not in message
        assert landed.execute("SELECT count(*) FROM silver.derivations WHERE namespace = 'team-atlas'"
                              ).fetchone()[0] == 0
        # a whole-store run needs every namespace, so it is refused too; another namespace is free
        with pytest.raises(NamespaceBusy):
            derive(landed, settings, lock_wait_seconds=0.1)
        report = derive(landed, settings, namespaces=["team-borealis"], lock_wait_seconds=0.1)
        assert report.events == 5
    # the lock was released with the block: the same call now goes through
    assert derive(landed, settings, namespaces=["team-atlas"], lock_wait_seconds=0.1).events == 48


def test_second_derivation_waits_for_the_first(landed: psycopg.Connection, settings: Settings) -> None:
    """Two real derivations of one namespace started together: one derives every event, the other
    waits for it and then finds nothing left to do; no event is derived twice."""
    reports: list = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with connect(settings, "engine", autocommit=True) as conn:
                reports.append(derive(conn, settings, namespaces=["team-atlas"], lock_wait_seconds=120))
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert errors == []
    assert sorted(r.events for r in reports) == [0, 48]
    assert landed.execute("SELECT count(*), count(DISTINCT bronze_event_id) FROM silver.derivations "
                          "WHERE namespace = 'team-atlas'").fetchone() == (48, 48)


def test_a_run_over_many_namespaces_locks_them_a_group_at_a_time(
        landed: psycopg.Connection, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL's lock table cannot hold a lock per tenant for ten thousand tenants, so a run over
    more namespaces than a group derives them group after group: the session never holds more than
    a group's locks, every namespace is derived, and the progress count keeps rising across groups."""
    namespaces = [r[0] for r in landed.execute(
        "SELECT DISTINCT namespace FROM bronze.events ORDER BY 1").fetchall()]
    assert len(namespaces) >= 2
    monkeypatch.setattr(namespace_lock, "LOCK_GROUP", 1)
    pid = landed.execute("SELECT pg_backend_pid()").fetchone()[0]
    landed.commit()
    held: list[int] = []  # advisory locks the deriving session holds, seen from another session
    seen: list[tuple[int, int]] = []
    with connect(settings, "engine", autocommit=True) as watcher:
        def progress(done: int, total: int, committed: int) -> None:
            seen.append((done, total))
            held.append(watcher.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = %s AND granted",
                (pid,)).fetchone()[0])

        report = derive(landed, settings, progress=progress)
    bronze = landed.execute("SELECT count(*) FROM bronze.events").fetchone()[0]
    assert report.events + len(report.failures) == bronze
    assert landed.execute("SELECT count(DISTINCT namespace) FROM silver.derivations").fetchone()[0] == len(namespaces)
    assert held and max(held) == 1
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1] == (bronze, bronze)
    assert landed.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = %s",
                          (pid,)).fetchone()[0] == 0
