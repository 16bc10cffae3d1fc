"""Integrity (B6): a clean Bronze verifies; every quiet superuser edit is detected and named.

Quiet edits are made as the superuser with the immutability triggers out of the way
(``session_replication_role = replica`` or ``DISABLE TRIGGER``): content edited in place, rows
deleted, the tail pruned, and an in-place edit of each stored column of ``bronze.events`` (the key
boundary move ``overlay``/``o1`` → ``overla``/``yo1`` included), of a tombstone, and of the row-hash
table itself. Each must be found by the verifier and by the drift audit, while an untouched
database, one with approved erasures, and one whose row hashes were backfilled by migration 0015
verify clean. Erasure's permissions (B7) are tested in test_erasure.py.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import errors, sql

from medallion.audit import drift
from medallion.bronze.erasure import approve_erasure, request_erasure
from medallion.bronze.ingest import _LOCK_CLASS, ingest_events
from medallion.bronze.integrity import Finding, verify
from medallion.db import embedded
from medallion.db.migrate import MIGRATIONS_DIR, migrate
from medallion.serve.capabilities import grant
from medallion.settings import Settings

NS = "team-a"
OTHER = "team-b"


def _event(i: int, ns: str = NS, content: str | None = None) -> dict[str, Any]:
    return {
        "namespace": ns, "source": "slack", "source_event_id": f"C01/{i}", "kind": "transcript",
        "actor": "user:alice", "content": content or f"message number {i} in {ns}",
        "provenance_root": f"slack://C01/p{i}", "occurred_at": f"2026-03-0{1 + i % 9}T10:00:00.{i:06d}Z",
        "metadata": {"turn": i, "tags": ["standup", "é"]},
    }


@pytest.fixture
def ids(engine_conn: psycopg.Connection) -> list[int]:
    """Six events of NS in two batches (two checkpoints), plus three of OTHER; returns NS's ids in order."""
    first = ingest_events(engine_conn, [_event(i) for i in range(3)] + [_event(i, OTHER) for i in range(3)])
    second = ingest_events(engine_conn, [_event(i) for i in range(3, 6)])
    assert first.inserted == 6 and second.inserted == 3
    rows = engine_conn.execute(
        "SELECT event_id FROM bronze.events WHERE namespace = %s ORDER BY event_id", (NS,)
    ).fetchall()
    return [r[0] for r in rows]


@pytest.fixture
def untriggered(admin_conn: psycopg.Connection) -> Iterator[psycopg.Connection]:
    """The superuser with bronze.events' triggers disabled (what a quiet edit needs); re-enabled after."""
    admin_conn.execute("ALTER TABLE bronze.events DISABLE TRIGGER USER")
    yield admin_conn
    admin_conn.execute("ALTER TABLE bronze.events ENABLE TRIGGER USER")


@pytest.fixture
def replica(admin_conn: psycopg.Connection) -> psycopg.Connection:
    """The superuser in replica mode: no ordinary trigger fires (immutability, row hashes); CHECKs still do."""
    admin_conn.execute("SET session_replication_role = replica")
    return admin_conn


def _by_check(findings: list[Finding], check: str) -> list[Finding]:
    return [f for f in findings if f.check == check]


def _named(findings: list[Finding]) -> set[int | None]:
    return {f.event_id for f in findings}


def _erase(conn: psycopg.Connection, admin_conn: psycopg.Connection, event_id: int) -> None:
    """An approved erasure: requested by one admin of the namespace, approved by another."""
    tokens = [grant(admin_conn, principal=p, verbs=["admin"], namespaces=["*"], created_by="test")[1]
              for p in (f"user:req-{event_id}", f"user:appr-{event_id}")]
    request_id = request_erasure(conn, event_id, "asked to be forgotten", token=tokens[0])
    assert approve_erasure(conn, request_id, token=tokens[1]) == event_id


def _assert_audit_finds(settings: Settings, conn: psycopg.Connection, event_id: int) -> None:
    """The drift audit (not only the verifier) reports the tampering as a Bronze error naming the event."""
    report = drift.run_audit(conn, settings)
    bronze = [f for f in report.findings if f.check in ("bronze_chain", "bronze_checkpoint")]
    assert not report.ok and bronze and all(f.severity == "error" for f in bronze)
    assert any(f.detail.startswith(f"event {event_id}:") for f in bronze), [f.detail for f in bronze]
    assert drift.check_bronze(conn)


# ------------------------------------------------------------------------------ chain and checkpoints


def test_clean_ingest_verifies(engine_conn: psycopg.Connection, ids: list[int]) -> None:
    """B6: a Bronze written only through ingest verifies, as a whole and per namespace."""
    assert verify(engine_conn) == []
    assert verify(engine_conn, NS) == []
    assert verify(engine_conn, OTHER) == []
    checkpoints = engine_conn.execute(
        "SELECT event_count FROM bronze.checkpoints WHERE namespace = %s ORDER BY checkpoint_id", (NS,)
    ).fetchall()
    assert checkpoints == [(3,), (6,)]
    linked = engine_conn.execute("SELECT namespace, count(*) FROM bronze.row_hashes GROUP BY 1 ORDER BY 1").fetchall()
    assert linked == [(NS, 6), (OTHER, 3)]


def test_content_hash_check_blocks_a_naive_edit(
    engine_conn: psycopg.Connection, ids: list[int], untriggered: psycopg.Connection
) -> None:
    """B1: even with the triggers off, content cannot change without its content_hash (CHECK)."""
    with pytest.raises(errors.CheckViolation):
        untriggered.execute("UPDATE bronze.events SET content = 'forged' WHERE event_id = %s", (ids[2],))
    assert verify(engine_conn) == []


def test_middle_row_deleted_is_detected_at_its_successor(
    engine_conn: psycopg.Connection, ids: list[int], untriggered: psycopg.Connection
) -> None:
    """B6 (b): a deleted middle row breaks the link of its successor and leaves its row hash orphaned."""
    untriggered.execute("DELETE FROM bronze.events WHERE event_id = %s", (ids[2],))
    findings = verify(engine_conn)
    chain = _by_check(findings, "bronze_chain")
    assert [f.event_id for f in chain] == [ids[2], ids[3]]
    assert "neither an event nor a tombstone" in chain[0].detail and "predecessor" in chain[1].detail
    assert all(f.namespace == NS for f in findings)
    # The later checkpoint (6 events) can no longer be matched either.
    assert _by_check(findings, "bronze_checkpoint")


def test_last_row_deleted_is_detected(
    engine_conn: psycopg.Connection, ids: list[int], untriggered: psycopg.Connection
) -> None:
    """B6 (c): a pruned tail leaves a valid chain, but the checkpoint records more events than remain."""
    untriggered.execute("DELETE FROM bronze.events WHERE event_id = %s", (ids[-1],))
    findings = verify(engine_conn)
    assert _named(_by_check(findings, "bronze_chain")) == {ids[-1]}  # its row hash lost its event
    checkpoint = _by_check(findings, "bronze_checkpoint")
    assert len(checkpoint) == 1
    assert checkpoint[0].namespace == NS
    assert "6" in checkpoint[0].detail and "5" in checkpoint[0].detail


def test_whole_tail_batch_deleted_is_detected(
    engine_conn: psycopg.Connection, ids: list[int], untriggered: psycopg.Connection
) -> None:
    """B6 (c'): pruning the whole last batch is caught too (the earlier checkpoint still verifies)."""
    untriggered.execute("DELETE FROM bronze.events WHERE event_id = ANY(%s)", (ids[3:],))
    findings = verify(engine_conn)
    assert [f.check for f in findings].count("bronze_checkpoint") == 1
    assert _named(_by_check(findings, "bronze_chain")) == set(ids[3:])


# ------------------------------------------------------------------- in-place edits of every column

# One edit per stored column of bronze.events (two for actor and metadata), applied to a middle
# event with every trigger off; (SET clause, whether the content CHECK must be dropped first).
COLUMN_EDITS: dict[str, tuple[str, bool]] = {
    "event_id": ("event_id = DEFAULT", False),
    "namespace": ("namespace = 'team-z'", False),
    "source": ("source = 'slack2'", False),
    "source_event_id": ("source_event_id = 'C01/forged'", False),
    "kind": ("kind = 'note'", False),
    "actor": ("actor = 'user:mallory'", False),
    "actor_to_null": ("actor = NULL", False),
    "content_alone": ("content = 'I never said that'", True),
    "content_with_its_hash": ("content = 'forged', content_hash = encode(sha256(convert_to('forged', 'UTF8')), "
                              "'hex')", False),
    "content_hash_alone": ("content_hash = repeat('b', 64)", True),
    "occurred_at_by_1us": ("occurred_at = occurred_at + interval '1 microsecond'", False),
    "received_at_by_1us": ("received_at = received_at + interval '1 microsecond'", False),
    "provenance_root": ("provenance_root = 'slack://C01/elsewhere'", False),
    "authority": ("authority = CASE WHEN authority = 1 THEN 2 ELSE 1 END", False),
    "metadata": ("metadata = metadata || '{\"approved\": true}'", False),
    "metadata_same_number_other_form": ("metadata = jsonb_set(metadata, '{turn}', '2.0')", False),
    "chain_hash": ("chain_hash = repeat('a', 64)", False),
}


@pytest.mark.parametrize("edit", list(COLUMN_EDITS))
def test_in_place_edit_of_each_column_is_detected(
    settings: Settings, engine_conn: psycopg.Connection, ids: list[int], replica: psycopg.Connection, edit: str
) -> None:
    """Every stored column is covered: editing any one of them is an error naming the event, in the audit too."""
    target = ids[2]
    assignment, drop_check = COLUMN_EDITS[edit]
    if drop_check:
        replica.execute("ALTER TABLE bronze.events DROP CONSTRAINT events_content_hash_matches")
    assert replica.execute(f"UPDATE bronze.events SET {assignment} WHERE event_id = %s",  # noqa: S608 - fixed
                           (target,)).rowcount == 1
    findings = verify(engine_conn)
    assert target in _named(findings), [f.detail for f in findings]
    assert all(f.severity == "error" for f in findings)
    assert verify(engine_conn, OTHER) == []
    _assert_audit_finds(settings, engine_conn, target)


def test_key_boundary_move_is_detected(
    settings: Settings, engine_conn: psycopg.Connection, replica: psycopg.Connection
) -> None:
    """overlay/o1 → overla/yo1 keeps the event chain (no separators), but the row hash catches it."""
    result = ingest_events(engine_conn, [
        {**_event(0), "source": "overlay", "source_event_id": "o1", "kind": "note"}, _event(1)])
    target = result.statuses[0].event_id
    assert target is not None and verify(engine_conn) == []
    replica.execute("UPDATE bronze.events SET source = 'overla', source_event_id = 'yo1' WHERE event_id = %s",
                    (target,))
    findings = verify(engine_conn)
    assert [(f.check, f.event_id) for f in findings] == [("bronze_chain", target)]
    assert "row hash" in findings[0].detail  # the event chain itself does not see it
    _assert_audit_finds(settings, engine_conn, target)


# One edit per stored column of a tombstone that its row-hash link or the event chain covers.
TOMBSTONE_EDITS = {
    "namespace": "namespace = 'team-z'",
    "source": "source = 'slack2'",
    "source_event_id": "source_event_id = 'C01/forged'",
    "kind": "kind = 'note'",
    "content_hash": "content_hash = repeat('b', 64)",
    "chain_hash": "chain_hash = repeat('a', 64)",
    "occurred_at": "occurred_at = occurred_at - interval '1 day'",
    "received_at": "received_at = received_at + interval '1 microsecond'",
}


@pytest.mark.parametrize("edit", list(TOMBSTONE_EDITS))
def test_erased_event_verifies_and_its_tombstone_is_covered(
    settings: Settings, engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: list[int], edit: str
) -> None:
    """An approved erasure verifies clean (its link is recomputed from the tombstone); an edited tombstone does not."""
    target = ids[2]
    _erase(engine_conn, admin_conn, target)
    assert verify(engine_conn) == []
    admin_conn.execute("SET session_replication_role = replica")
    admin_conn.execute(f"UPDATE bronze.tombstones SET {TOMBSTONE_EDITS[edit]} "  # noqa: S608 - fixed clauses
                       "WHERE event_id = %s", (target,))
    assert target in _named(verify(engine_conn))
    _assert_audit_finds(settings, engine_conn, target)


ROW_HASH_TAMPERING = {
    "entry_deleted": "DELETE FROM bronze.row_hashes WHERE event_id = %(id)s",
    "row_hash_rewritten": "UPDATE bronze.row_hashes SET row_hash = repeat('c', 64) WHERE event_id = %(id)s",
    "erasable_hash_rewritten": "UPDATE bronze.row_hashes SET erasable_hash = repeat('c', 64) WHERE event_id = %(id)s",
    "event_inserted_around_the_trigger": (
        "INSERT INTO bronze.events (namespace, source, source_event_id, kind, content, content_hash, occurred_at, "
        "provenance_root, authority, chain_hash) SELECT namespace, source, 'C01/smuggled', kind, content, "
        "content_hash, occurred_at, provenance_root, authority, chain_hash FROM bronze.events WHERE event_id = %(id)s"
    ),
}


@pytest.mark.parametrize("tampering", list(ROW_HASH_TAMPERING))
def test_row_hash_table_tampering_is_detected(
    settings: Settings, engine_conn: psycopg.Connection, ids: list[int], replica: psycopg.Connection, tampering: str
) -> None:
    """The row hashes are chained and every event must have one: removing, rewriting or skipping them shows."""
    replica.execute(ROW_HASH_TAMPERING[tampering], {"id": ids[-1]})
    findings = verify(engine_conn)
    assert findings and all(f.namespace == NS and f.check == "bronze_chain" for f in findings)
    target = ids[-1] if tampering != "event_inserted_around_the_trigger" else max(_named(findings) - {None})
    assert target in _named(findings)
    _assert_audit_finds(settings, engine_conn, target)


# ------------------------------------------------------------------------ clean cases and the table


def test_awkward_values_and_interleaved_namespaces_verify_clean(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection
) -> None:
    """The trigger (SQL functions) and the verifier (its own query) agree on every kind of value."""
    awkward = [
        {**_event(1, "ns-x"), "actor": None, "content": "quote \" backslash \\ newline \n tab \t",
         "metadata": {"z": 1, "a": [1.5, 2e3, -0.0, None, True], "nested": {"ключ": "値", "": ""}}},
        {**_event(2, "ns-y"), "source": "a\"b", "source_event_id": "[1, \"x\"]", "kind": "note", "authority": 1,
         "occurred_at": "1000-01-01T00:00:00Z", "content": "emoji 🙂 and combining é"},
        {**_event(3, "ns-x"), "occurred_at": "1969-12-31T23:59:59.999999-09:30", "metadata": {}},
        {**_event(4, "ns_y"), "provenance_root": "x" * 5000, "metadata": {"big": 2**63 - 1, "small": -(2**63)}},
        {**_event(5, "ns-y"), "actor": "agent:ü", "metadata": {"float": 0.1, "exp": 1e-7}},
    ]
    landed = ingest_events(engine_conn, awkward)
    assert landed.inserted == 5, landed.summary()
    result = ingest_events(engine_conn, [_event(i, ns) for i in range(6, 40) for ns in ("ns-x", "ns-y", "ns_y")])
    assert result.inserted == 102
    for status in result.statuses[:2]:  # one erasure in each of two namespaces, then more events after them
        assert status.event_id is not None
        _erase(engine_conn, admin_conn, status.event_id)
    assert ingest_events(engine_conn, [_event(51, "ns-x"), _event(51, "ns-y")]).inserted == 2
    admin_conn.execute("SET TimeZone = 'Pacific/Chatham'")  # the encoding depends on no session setting
    admin_conn.execute("SET DateStyle = 'SQL, DMY'")
    assert verify(engine_conn) == [] and verify(admin_conn) == []


def test_row_hashes_are_append_only_and_written_only_by_the_trigger(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: list[int]
) -> None:
    """The engine reads row hashes but cannot write them; nobody updates, deletes or truncates them."""
    before = admin_conn.execute("SELECT * FROM bronze.row_hashes ORDER BY event_id").fetchall()
    for statement in ("INSERT INTO bronze.row_hashes (event_id, namespace, row_hash) "
                      "VALUES (999, 'x', repeat('0', 64))",
                      "UPDATE bronze.row_hashes SET row_hash = repeat('0', 64)", "DELETE FROM bronze.row_hashes",
                      "TRUNCATE bronze.row_hashes",
                      "SELECT bronze.append_row_hashes('x', ARRAY[999]::bigint[], ARRAY[NULL]::text[], "
                      "ARRAY[repeat('0', 64)])"):
        with pytest.raises(errors.InsufficientPrivilege), engine_conn.transaction():
            engine_conn.execute(statement)  # type: ignore[arg-type]
    for role in ("SET ROLE medallion_owner", "RESET ROLE"):
        admin_conn.execute(role)  # type: ignore[arg-type]
        for statement in ("UPDATE bronze.row_hashes SET row_hash = repeat('0', 64)", "DELETE FROM bronze.row_hashes",
                          "TRUNCATE bronze.row_hashes"):
            with pytest.raises(errors.InsufficientPrivilege, match="append-only"), admin_conn.transaction():
                admin_conn.execute(statement)  # type: ignore[arg-type]
    assert admin_conn.execute("SELECT * FROM bronze.row_hashes ORDER BY event_id").fetchall() == before


def test_row_hash_trigger_takes_the_ingest_lock_of_the_namespace(
    database_url: str, admin_conn: psycopg.Connection, ids: list[int]
) -> None:
    """A writer outside ingest waits for ingest's namespace lock, so two writers never link from one entry."""
    insert = ("INSERT INTO bronze.events (namespace, source, source_event_id, kind, content, content_hash, "
              "occurred_at, provenance_root, authority, chain_hash) SELECT namespace, source, "
              "source_event_id || '/raw', kind, content, content_hash, occurred_at, provenance_root, authority, "
              "chain_hash FROM bronze.events WHERE event_id = %s")
    with psycopg.connect(database_url) as holder:
        holder.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_CLASS, NS))
        admin_conn.execute("SET lock_timeout = '200ms'")
        with pytest.raises(errors.LockNotAvailable):
            admin_conn.execute(insert, (ids[0],))
        holder.rollback()
    admin_conn.execute(insert, (ids[0],))
    assert admin_conn.execute("SELECT count(*) FROM bronze.row_hashes WHERE namespace = %s", (NS,)).fetchone() == (7,)


def test_backfilled_row_hashes_verify_and_cover_old_rows(pg_server: str, tmp_path: Path) -> None:
    """Migration 0015 links the events and tombstones that existed before it; they verify, and edits show.

    The tombstone here is written the way bronze.approve_erasure writes one (request, tombstone,
    guarded DELETE), by the superuser, so the test does not depend on the erasure API of later files.
    """
    name = f"t_{uuid.uuid4().hex[:12]}"
    earlier = tmp_path / "migrations"
    earlier.mkdir()
    for path in MIGRATIONS_DIR.glob("*.sql"):
        if int(path.name[:4]) < 15:
            (earlier / path.name).write_text(path.read_text())
    with psycopg.connect(pg_server, autocommit=True) as server:
        server.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        with psycopg.connect(embedded.with_database(pg_server, name), autocommit=True) as conn:
            migrate(conn, earlier)
            assert conn.execute("SELECT to_regclass('bronze.row_hashes')").fetchone() == (None,)
            ingest_events(conn, [_event(i, ns) for i in range(4) for ns in (NS, OTHER)])
            first, erased = (r[0] for r in conn.execute(
                "SELECT event_id FROM bronze.events WHERE namespace = %s ORDER BY event_id LIMIT 2", (NS,)))
            with conn.transaction():
                rid = conn.execute("INSERT INTO bronze.erasure_requests (event_id, namespace, reason, requested_by, "
                                   "approved_by) VALUES (%s, %s, 'test', 'a', 'b') RETURNING request_id",
                                   (erased, NS)).fetchone()[0]
                conn.execute("INSERT INTO bronze.tombstones (event_id, namespace, source, source_event_id, kind, "
                             "content_hash, chain_hash, occurred_at, received_at, request_id, requested_by, "
                             "approved_by, reason) SELECT event_id, namespace, source, source_event_id, kind, "
                             "content_hash, chain_hash, occurred_at, received_at, %s, 'a', 'b', 'test' "
                             "FROM bronze.events WHERE event_id = %s", (rid, erased))
                conn.execute("SELECT set_config('medallion.erasure_request', %s, true)", (str(rid),))
                conn.execute("DELETE FROM bronze.events WHERE event_id = %s", (erased,))
                conn.execute("UPDATE bronze.erasure_requests SET status = 'executed' WHERE request_id = %s", (rid,))

            migrate(conn)
            assert conn.execute("SELECT count(*), count(erasable_hash) FROM bronze.row_hashes").fetchone() == (8, 7)
            assert verify(conn) == []
            ingest_events(conn, [_event(i, NS) for i in range(4, 6)])
            assert verify(conn) == []
            conn.execute("SET session_replication_role = replica")
            conn.execute("UPDATE bronze.events SET actor = 'user:mallory' WHERE event_id = %s", (first,))
            assert _named(verify(conn)) == {first}
    finally:
        with psycopg.connect(pg_server, autocommit=True) as server:
            server.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
