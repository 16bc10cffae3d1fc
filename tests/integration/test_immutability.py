"""Bronze is append-only, enforced by the database (B4, R1).

Every role the code can connect as (engine, tool) is refused UPDATE, DELETE and TRUNCATE on
``bronze.events``; the tool role cannot even read Bronze; the erasure guard cannot be opened by
setting its session variable; and even the superuser's plain statements hit the triggers — only
disabling the triggers (a deliberate, superuser-only act that the integrity audit detects) works.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import errors
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from medallion.bronze.erasure import request_erasure
from medallion.bronze.ingest import ingest_events
from medallion.db.connection import Role, connect
from medallion.settings import Settings

MUTATIONS = {
    "UPDATE": "UPDATE bronze.events SET actor = 'mallory'",
    "DELETE": "DELETE FROM bronze.events",
    "TRUNCATE": "TRUNCATE bronze.events",
}
SNAPSHOT = (
    "SELECT event_id, namespace, source, source_event_id, kind, actor, content, content_hash, chain_hash "
    "FROM bronze.events ORDER BY event_id"
)


def _event(i: int, ns: str = "team-a") -> dict[str, Any]:
    return {
        "namespace": ns, "source": "slack", "source_event_id": f"C01/{i}", "kind": "transcript",
        "actor": "user:alice", "content": f"message number {i} in {ns}",
        "provenance_root": f"slack://C01/p{i}",
    }


@pytest.fixture
def seeded(engine_conn: psycopg.Connection, admin_conn: psycopg.Connection) -> list[tuple[Any, ...]]:
    """Five events in two namespaces; returns the superuser's snapshot of bronze.events."""
    result = ingest_events(engine_conn, [_event(i) for i in range(3)] + [_event(i, "team-b") for i in range(2)])
    assert result.inserted == 5
    return admin_conn.execute(SNAPSHOT).fetchall()


@pytest.fixture
def role_conn(settings: Settings, request: pytest.FixtureRequest) -> Iterator[psycopg.Connection]:
    conn = connect(settings, request.param, autocommit=True)
    yield conn
    conn.close()


def _attempt(conn: psycopg.Connection, statements: list[str]) -> psycopg.Error | None:
    """Run statements in order; return the first error (None when every statement succeeded)."""
    for stmt in statements:
        try:
            conn.execute(stmt)  # type: ignore[arg-type]
        except psycopg.Error as exc:
            return exc
    return None


@pytest.mark.parametrize("role_conn", ["engine", "tool"], indirect=True)
@pytest.mark.parametrize("op", list(MUTATIONS))
def test_no_role_can_mutate_bronze_events(
    seeded: list[tuple[Any, ...]], role_conn: psycopg.Connection, admin_conn: psycopg.Connection, op: str
) -> None:
    """R1/B4: UPDATE, DELETE and TRUNCATE on bronze.events are rejected for engine, tool and owner."""
    with pytest.raises(errors.InsufficientPrivilege):
        role_conn.execute(MUTATIONS[op])  # type: ignore[arg-type]
    assert admin_conn.execute(SNAPSHOT).fetchall() == seeded


@pytest.mark.parametrize("role_conn", ["engine"], indirect=True)
def test_targeted_mutations_inside_a_transaction_are_rejected(
    seeded: list[tuple[Any, ...]], role_conn: psycopg.Connection, admin_conn: psycopg.Connection
) -> None:
    """R1/B4: a single-row DELETE/UPDATE inside an explicit transaction fails and leaves nothing changed."""
    target = seeded[1][0]
    for stmt in (
        "DELETE FROM bronze.events WHERE event_id = %s",
        "UPDATE bronze.events SET content = 'rewritten', "
        "content_hash = encode(sha256(convert_to('rewritten', 'UTF8')), 'hex') WHERE event_id = %s",
    ):
        with pytest.raises(errors.InsufficientPrivilege), role_conn.transaction():
            role_conn.execute(stmt, (target,))  # type: ignore[arg-type]
    assert admin_conn.execute(SNAPSHOT).fetchall() == seeded


@pytest.mark.parametrize("role_conn", ["tool"], indirect=True)
@pytest.mark.parametrize(
    "table", ["bronze.events", "bronze.quarantine", "bronze.checkpoints", "bronze.tombstones", "bronze.chain_heads"]
)
def test_tool_role_cannot_read_bronze(seeded: list[tuple[Any, ...]], role_conn: psycopg.Connection, table: str) -> None:
    """R1/B4 (and G3): the tool role gets nothing on Bronze, not even SELECT."""
    with pytest.raises(errors.InsufficientPrivilege, match="permission denied"):
        role_conn.execute(f"SELECT count(*) FROM {table}")  # type: ignore[arg-type]


@pytest.mark.parametrize("role_conn", ["engine"], indirect=True)
def test_engine_cannot_open_the_erasure_guard_itself(
    seeded: list[tuple[Any, ...]],
    engine_conn: psycopg.Connection,
    role_conn: psycopg.Connection,
    admin_conn: psycopg.Connection,
) -> None:
    """R1/B7: setting medallion.erasure_request (even to a real, pending request) does not allow DELETE."""
    target = seeded[0][0]
    request_id = request_erasure(admin_conn, target, "privacy request", token=None, local_name="local:alice")
    for value in (str(request_id), "1", "999"):
        with pytest.raises(errors.InsufficientPrivilege), role_conn.transaction():
            role_conn.execute("SELECT set_config('medallion.erasure_request', %s, true)", (value,))
            role_conn.execute("DELETE FROM bronze.events WHERE event_id = %s", (target,))
    # Nor can it mark its own request approved, nor write a tombstone to paper over a deletion.
    with pytest.raises(errors.InsufficientPrivilege):
        role_conn.execute("UPDATE bronze.erasure_requests SET approved_by = 'bob' WHERE request_id = %s",
                          (request_id,))
    with pytest.raises(errors.InsufficientPrivilege):
        role_conn.execute(
            "INSERT INTO bronze.erasure_requests (event_id, namespace, reason, requested_by, approved_by) "
            "VALUES (%s, 'team-a', 'forged', 'mallory', 'eve')",
            (target,),
        )
    assert admin_conn.execute(SNAPSHOT).fetchall() == seeded
    status = admin_conn.execute(
        "SELECT status, approved_by FROM bronze.erasure_requests WHERE request_id = %s", (request_id,)
    ).fetchone()
    assert status == ("pending", None)


def test_guard_rejects_unapproved_request_even_for_superuser(
    seeded: list[tuple[Any, ...]], engine_conn: psycopg.Connection, admin_conn: psycopg.Connection
) -> None:
    """B4/B7: the delete guard only opens for an *approved* pending request naming that very event."""
    target, other = seeded[0][0], seeded[1][0]
    request_id = request_erasure(admin_conn, target, "privacy request", token=None, local_name="local:alice")
    with pytest.raises(errors.InsufficientPrivilege, match="append-only"), admin_conn.transaction():
        admin_conn.execute("SELECT set_config('medallion.erasure_request', %s, true)", (str(request_id),))
        admin_conn.execute("DELETE FROM bronze.events WHERE event_id = %s", (target,))
    # An approved-looking request for one event does not open the guard for another event.
    with pytest.raises(errors.InsufficientPrivilege, match="append-only"), admin_conn.transaction():
        admin_conn.execute("SELECT set_config('medallion.erasure_request', %s, true)", (str(request_id),))
        admin_conn.execute("DELETE FROM bronze.events WHERE event_id = %s", (other,))
    assert admin_conn.execute(SNAPSHOT).fetchall() == seeded


@pytest.mark.parametrize("op", list(MUTATIONS))
def test_superuser_plain_mutations_hit_the_triggers(
    seeded: list[tuple[Any, ...]], admin_conn: psycopg.Connection, op: str
) -> None:
    """B4: even the superuser's plain UPDATE/DELETE/TRUNCATE on bronze.events is rejected by trigger."""
    assert admin_conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone() == (True,)
    with pytest.raises(errors.InsufficientPrivilege, match="append-only"):
        admin_conn.execute(MUTATIONS[op])  # type: ignore[arg-type]
    assert admin_conn.execute(SNAPSHOT).fetchall() == seeded


@pytest.mark.parametrize("table", ["bronze.checkpoints", "bronze.quarantine", "bronze.tombstones"])
@pytest.mark.parametrize("op", ["UPDATE {t} SET {c} = {c}", "DELETE FROM {t}", "TRUNCATE {t}"])
def test_superuser_cannot_rewrite_the_other_bronze_records(
    seeded: list[tuple[Any, ...]], admin_conn: psycopg.Connection, table: str, op: str
) -> None:
    """B4/B6: checkpoints, quarantine and tombstones are append-only too (they are the audit's evidence)."""
    column = {"bronze.checkpoints": "namespace", "bronze.quarantine": "origin", "bronze.tombstones": "reason"}[table]
    before = admin_conn.execute(f"SELECT count(*) FROM {table}").fetchone()  # type: ignore[arg-type]
    with pytest.raises(errors.InsufficientPrivilege, match="append-only"):
        admin_conn.execute(op.format(t=table, c=column))  # type: ignore[arg-type]
    assert admin_conn.execute(f"SELECT count(*) FROM {table}").fetchone() == before  # type: ignore[arg-type]


def test_only_disabling_triggers_lets_the_superuser_delete(
    seeded: list[tuple[Any, ...]], admin_conn: psycopg.Connection
) -> None:
    """B4: the only way around the triggers is the superuser disabling them (then B6 detects the damage)."""
    target = seeded[-1][0]
    try:
        admin_conn.execute("ALTER TABLE bronze.events DISABLE TRIGGER USER")
        admin_conn.execute("DELETE FROM bronze.events WHERE event_id = %s", (target,))
    finally:
        admin_conn.execute("ALTER TABLE bronze.events ENABLE TRIGGER USER")
    assert admin_conn.execute(SNAPSHOT).fetchall() == seeded[:-1]
    with pytest.raises(errors.InsufficientPrivilege):
        admin_conn.execute("DELETE FROM bronze.events")
    assert admin_conn.execute(SNAPSHOT).fetchall() == seeded[:-1]


@pytest.mark.parametrize("role", ["engine", "tool"])
@pytest.mark.parametrize("escape", ["RESET ROLE", "SET ROLE medallion_owner"])
def test_engine_and_tool_connections_cannot_escape_their_role(
    settings: Settings, seeded: list[tuple[Any, ...]], admin_conn: psycopg.Connection, role: Role, escape: str
) -> None:
    """R1 ("any non-superuser path"): an engine/tool connection must not be able to become another role.

    If it could, any SQL it runs (R6's raw SQL as the tool role, say) could disable the triggers and
    prune Bronze.
    """
    conn = connect(settings, role, autocommit=True)
    try:
        error = _attempt(
            conn,
            [escape, "ALTER TABLE bronze.events DISABLE TRIGGER USER", "DELETE FROM bronze.events"],
        )
    finally:
        conn.close()
        admin_conn.execute("ALTER TABLE bronze.events ENABLE TRIGGER USER")
    assert admin_conn.execute(SNAPSHOT).fetchall() == seeded, f"{role} connection escaped via {escape!r}"
    assert error is not None


def test_owner_role_is_unreachable(settings: Settings, database_url: str) -> None:
    """R1/B4: the owner (who could disable triggers) cannot log in, and the code cannot connect as it."""
    with pytest.raises(ValueError, match="unknown role"):
        connect(settings, "owner")  # type: ignore[arg-type]
    params = conninfo_to_dict(database_url)
    params["user"] = "medallion_owner"
    with pytest.raises(psycopg.OperationalError, match="not permitted to log in"):
        psycopg.connect(make_conninfo(**params))
