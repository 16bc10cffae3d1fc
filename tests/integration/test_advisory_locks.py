"""The engine's advisory locks belong to the engine (security issue 30, point 4).

The tool login cannot take the migration lock, a namespace's ingest lock or its derivation lock
(migration 0025 takes EXECUTE on PostgreSQL's advisory-lock functions from PUBLIC), so it cannot
stall every new process, or a namespace's ingest, ``remember`` or derivation. The engine's own
sessions still hold them for real work; a wait behind one is bounded and ends with one sentence
naming the lock and the session that holds it. Over TCP with password logins too.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from medallion.bronze.ingest import ingest_events
from medallion.db.connection import connect
from medallion.db.locks import LockBusy
from medallion.db.migrate import migrate
from medallion.interfaces.cli import app
from medallion.serve.tools import ToolError, open_tools
from medallion.settings import Settings
from medallion.silver.derive import derive
from medallion.silver.namespace_lock import NamespaceBusy, deriving
from tests.integration.test_external_server import migrated, server  # noqa: F401 - fixtures

MIGRATION_KEY = 0x6D656461  # db/migrate.py
INGEST_CLASS = 0x62726F6E  # bronze/ingest.py, and Bronze's row-hash trigger (migration 0015)
NS = "team-a"
# Each of the engine's locks as the tool login would try to take it, blocking and not.
TOOL_ATTEMPTS = {
    "migration lock": [("SELECT pg_advisory_lock(%s)", (MIGRATION_KEY,)),
                       ("SELECT pg_try_advisory_lock(%s)", (MIGRATION_KEY,)),
                       ("SELECT pg_advisory_lock_shared(%s)", (MIGRATION_KEY,))],
    "ingest lock": [("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (INGEST_CLASS, NS)),
                    ("SELECT pg_try_advisory_xact_lock(%s, hashtext(%s))", (INGEST_CLASS, NS)),
                    ("SELECT pg_advisory_lock(%s, hashtext(%s))", (INGEST_CLASS, NS))],
    "derivation lock": [("SELECT pg_advisory_lock(hashtext('medallion.derive'), hashtext(%s))", (NS,)),
                        ("SELECT pg_try_advisory_lock(hashtext('medallion.derive'), hashtext(%s))", (NS,))],
}
WAIT = 1.0  # the bound the tests set; a refusal must come well within GENEROUS
GENEROUS = 30.0


def _event(i: int, namespace: str = NS) -> dict[str, Any]:
    return {"namespace": namespace, "source": "slack", "source_event_id": f"C01/{i}", "kind": "note",
            "actor": "user:alice", "content": f"Alice moved to Oslo in year {2000 + i}.",
            "provenance_root": f"slack://C01/p{i}"}


def _pid(conn: psycopg.Connection) -> int:
    return conn.execute("SELECT pg_backend_pid()").fetchone()[0]


def _one_sentence(message: str, lock: str, holder_pid: int, role: str) -> None:
    assert lock in message, message
    assert f"database session {holder_pid} of role {role}" in message, message
    assert "\n" not in message and "Traceback" not in message


@pytest.fixture
def other_engine(settings: Settings) -> Iterator[psycopg.Connection]:
    """A second engine session: the engine's own work holding a lock for long."""
    conn = connect(settings, "engine")
    yield conn
    conn.close()


@pytest.mark.parametrize("lock", sorted(TOOL_ATTEMPTS))
def test_the_tool_login_cannot_take_the_engines_locks(settings: Settings, lock: str) -> None:
    """Every way of taking the lock, blocking or not, is refused to the tool login by the database."""
    with connect(settings, "tool", autocommit=True) as tool:
        for statement, params in TOOL_ATTEMPTS[lock]:
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied for function"):
                tool.execute(statement, params)
        assert tool.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
                            ).fetchone() == (0,)


def test_no_advisory_lock_function_is_left_to_the_tool_login(admin_conn: psycopg.Connection) -> None:
    """All of PostgreSQL's advisory-lock functions (lock, try, shared, xact, unlock) are closed to the tool
    login and open to the engine and the owner, the roles that take the engine's locks."""
    rows = admin_conn.execute(
        "SELECT p.oid::regprocedure::text, has_function_privilege('medallion_tool', p.oid, 'EXECUTE'), "
        "has_function_privilege('medallion_engine', p.oid, 'EXECUTE'), "
        "has_function_privilege('medallion_owner', p.oid, 'EXECUTE') FROM pg_proc p "
        "WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname LIKE '%advisory%'").fetchall()
    assert len(rows) >= 20, rows
    assert [r[0] for r in rows if r[1] or not r[2] or not r[3]] == []


def test_a_held_ingest_lock_ends_ingest_within_the_bound_naming_the_holder(
        engine_conn: psycopg.Connection, other_engine: psycopg.Connection) -> None:
    """While another engine session holds team-a's ingest lock, ingest waits the session's lock_timeout and
    then fails with one sentence naming the lock and the holder; nothing is stored or quarantined, the
    connection is usable, and other namespaces land meanwhile; once the lock is free the same batch lands."""
    other_engine.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (INGEST_CLASS, NS))
    engine_conn.execute(f"SET lock_timeout = '{WAIT:g}s'")
    started = time.monotonic()
    with pytest.raises(LockBusy) as busy:
        ingest_events(engine_conn, [_event(1), _event(2), _event(3, "team-b")], origin="test")
    assert WAIT <= time.monotonic() - started < GENEROUS
    _one_sentence(str(busy.value), "namespace 'team-a''s ingest lock is held by", _pid(other_engine),
                  "medallion_engine")
    assert f"waited {WAIT:g} s" in str(busy.value)
    assert engine_conn.execute("SELECT (SELECT count(*) FROM bronze.events), (SELECT count(*) FROM bronze.quarantine)"
                               ).fetchone() == (0, 0)
    assert ingest_events(engine_conn, [_event(4, "team-b")], origin="test").inserted == 1
    other_engine.rollback()
    assert ingest_events(engine_conn, [_event(1), _event(2), _event(3, "team-b")], origin="test").inserted == 3


def test_remember_behind_a_held_ingest_lock_is_one_sentence(
        settings: Settings, other_engine: psycopg.Connection) -> None:
    """`remember` writes on the session's engine login (the tool login takes no lock for it): behind a held
    ingest lock it fails within the bound with the same sentence, and works once the lock is free."""
    with open_tools(None, settings) as tools:
        tools.engine.execute(f"SET lock_timeout = '{WAIT:g}s'")
        with other_engine.transaction():
            other_engine.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (INGEST_CLASS, NS))
            with pytest.raises((LockBusy, ToolError)) as busy:
                tools.remember(namespace=NS, content="Alice lives in Oslo.", derive_now=False)
        _one_sentence(str(busy.value), "namespace 'team-a''s ingest lock is held by", _pid(other_engine),
                      "medallion_engine")
        assert tools.remember(namespace=NS, content="Alice lives in Oslo.", derive_now=False)["status"] == "inserted"


def test_a_held_derivation_lock_ends_derivation_within_the_bound_naming_the_holder(
        engine_conn: psycopg.Connection, settings: Settings) -> None:
    """Another engine session deriving team-a: a derivation of team-a is refused after its bound with one
    sentence naming team-a's derivation lock and the holder's pid and role."""
    ingest_events(engine_conn, [_event(1)], origin="test")
    with connect(settings, "engine", autocommit=True) as other, deriving(other, [NS]):
        started = time.monotonic()
        with pytest.raises(NamespaceBusy) as busy:
            derive(engine_conn, settings, namespaces=[NS], lock_wait_seconds=WAIT)
        assert WAIT <= time.monotonic() - started < GENEROUS
        _one_sentence(str(busy.value), "namespace 'team-a''s derivation lock is held by", _pid(other),
                      "medallion_engine")
    assert isinstance(busy.value, LockBusy)


def test_a_held_migration_lock_ends_migrate_within_the_bound_naming_the_holder(
        admin_conn: psycopg.Connection, other_engine: psycopg.Connection) -> None:
    """While a session holds the migration lock, a migration run waits its bound and stops with one sentence
    naming the lock and the holder; when the lock is free the run goes through."""
    other_engine.autocommit = True
    other_engine.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_KEY,))
    started = time.monotonic()
    with pytest.raises(LockBusy) as busy:
        migrate(admin_conn, wait_seconds=WAIT)
    assert WAIT <= time.monotonic() - started < GENEROUS
    _one_sentence(str(busy.value), "the migration lock is held by", _pid(other_engine), "medallion_engine")
    other_engine.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_KEY,))
    assert migrate(admin_conn, wait_seconds=WAIT) == []


def test_cli_migrate_behind_a_held_migration_lock_is_one_sentence(
        settings: Settings, other_engine: psycopg.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    """`medallion db migrate --json` behind a held migration lock: exit 1 and one JSON error naming the lock and
    its holder, within the login's lock_timeout (set here through libpq's PGOPTIONS)."""
    other_engine.autocommit = True
    other_engine.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_KEY,))
    env = {"MEDALLION_DATABASE_URL": settings.database_url, "MEDALLION_HOME": str(settings.home),
           "MEDALLION_INBOX": str(settings.inbox), "MEDALLION_TOKEN": None, "MEDALLION_ADMIN_DATABASE_URL": None,
           "PGOPTIONS": f"-c lock_timeout={round(WAIT * 1000)}"}
    result = CliRunner().invoke(app, ["db", "migrate", "--json"], env=env)
    assert result.exit_code == 1, result.output
    error = json.loads(result.stderr)["error"]
    _one_sentence(error, "the migration lock is held by", _pid(other_engine), "medallion_engine")


def test_cli_ingest_behind_a_held_ingest_lock_is_one_sentence(
        settings: Settings, other_engine: psycopg.Connection, tmp_path: Path) -> None:
    """`medallion ingest --json` behind a held ingest lock: exit 1 and one JSON error naming team-a's ingest lock
    and its holder (not "the database went away"); nothing is stored."""
    other_engine.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (INGEST_CLASS, NS))
    events = tmp_path / "events.jsonl"
    events.write_text(json.dumps(_event(1)) + "\n")
    env = {"MEDALLION_DATABASE_URL": settings.database_url, "MEDALLION_HOME": str(settings.home),
           "MEDALLION_INBOX": str(settings.inbox), "MEDALLION_TOKEN": None, "MEDALLION_ADMIN_DATABASE_URL": None,
           "PGOPTIONS": f"-c lock_timeout={round(WAIT * 1000)}"}
    result = CliRunner().invoke(app, ["ingest", str(events), "--json"], env=env)
    assert result.exit_code == 1, result.output
    error = json.loads(result.stderr)["error"]
    _one_sentence(error, "namespace 'team-a''s ingest lock is held by", _pid(other_engine), "medallion_engine")
    assert "went away" not in error
    other_engine.rollback()
    assert other_engine.execute("SELECT count(*) FROM bronze.events").fetchone() == (0,)


def test_over_tcp_the_tool_login_cannot_stall_ingest(migrated: dict[str, object]) -> None:  # noqa: F811
    """On an external server with password logins over TCP: the tool login is refused every lock, and an
    engine session's held ingest lock ends another engine session's ingest within the bound, naming it."""
    settings = migrated["settings"]
    assert isinstance(settings, Settings)
    with connect(settings, "tool", autocommit=True) as tool:
        assert tool.execute("SELECT inet_client_addr() IS NOT NULL").fetchone() == (True,)
        for attempts in TOOL_ATTEMPTS.values():
            for statement, params in attempts:
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    tool.execute(statement, params)
    with connect(settings, "engine") as holder, connect(settings, "engine", autocommit=True) as engine:
        holder.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (INGEST_CLASS, "team-tcp"))
        engine.execute(f"SET lock_timeout = '{WAIT:g}s'")
        with pytest.raises(LockBusy) as busy:
            ingest_events(engine, [_event(1, "team-tcp")], origin="test")
        _one_sentence(str(busy.value), "namespace 'team-tcp''s ingest lock is held by", _pid(holder),
                      "medallion_engine")
        holder.rollback()
        assert ingest_events(engine, [_event(1, "team-tcp")], origin="test").inserted == 1
