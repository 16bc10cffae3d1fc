"""Integrity chain (SPEC B6) and erasure (SPEC B7).

B6: a clean Bronze verifies; every quiet superuser edit (content edited in place, a middle row
deleted, the tail pruned, content and hash rewritten consistently) is detected and named.
B7: erasure needs a request and an approval by a *different* principal holding a valid ``admin``
capability on the namespace; only then the row goes, a content-free tombstone stays, and the
chain still verifies.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from psycopg import errors

from dagster_project.bronze.erasure import ErasureError, approve_erasure, list_requests, request_erasure
from dagster_project.bronze.ingest import ingest_events
from dagster_project.bronze.integrity import Finding, verify
from dagster_project.gold.capabilities import grant, revoke

NS = "team-a"
OTHER = "team-b"


def _event(i: int, ns: str = NS, content: str | None = None) -> dict[str, Any]:
    return {
        "namespace": ns, "source": "slack", "source_event_id": f"C01/{i}", "kind": "transcript",
        "actor": "user:alice", "content": content or f"message number {i} in {ns}",
        "provenance_root": f"slack://C01/p{i}",
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


def _by_check(findings: list[Finding], check: str) -> list[Finding]:
    return [f for f in findings if f.check == check]


# --------------------------------------------------------------------------------------------- B6


def test_clean_ingest_verifies(engine_conn: psycopg.Connection, ids: list[int]) -> None:
    """B6: a Bronze written only through ingest verifies, as a whole and per namespace."""
    assert verify(engine_conn) == []
    assert verify(engine_conn, NS) == []
    assert verify(engine_conn, OTHER) == []
    checkpoints = engine_conn.execute(
        "SELECT event_count FROM bronze.checkpoints WHERE namespace = %s ORDER BY checkpoint_id", (NS,)
    ).fetchall()
    assert checkpoints == [(3,), (6,)]


def test_content_hash_check_blocks_a_naive_edit(
    engine_conn: psycopg.Connection, ids: list[int], untriggered: psycopg.Connection
) -> None:
    """B1: even with the triggers off, content cannot change without its content_hash (CHECK)."""
    with pytest.raises(errors.CheckViolation):
        untriggered.execute("UPDATE bronze.events SET content = 'forged' WHERE event_id = %s", (ids[2],))
    assert verify(engine_conn) == []


def test_content_edited_in_place_is_detected(
    engine_conn: psycopg.Connection, ids: list[int], untriggered: psycopg.Connection
) -> None:
    """B6 (a): content edited in place (constraint dropped, triggers off) → a finding naming that event."""
    target = ids[2]
    untriggered.execute("ALTER TABLE bronze.events DROP CONSTRAINT events_content_hash_matches")
    untriggered.execute("UPDATE bronze.events SET content = 'I never said that' WHERE event_id = %s", (target,))
    findings = verify(engine_conn)
    assert findings, "an in-place content edit went unnoticed"
    assert all(f.namespace == NS and f.severity == "error" for f in findings)
    assert [f.event_id for f in _by_check(findings, "bronze_chain")] == [target]
    assert "content" in findings[0].detail and str(target) in findings[0].detail
    assert _by_check(findings, "bronze_checkpoint") == []
    assert verify(engine_conn, OTHER) == []


def test_middle_row_deleted_is_detected_at_its_successor(
    engine_conn: psycopg.Connection, ids: list[int], untriggered: psycopg.Connection
) -> None:
    """B6 (b): a deleted middle row breaks the link of its successor, which the finding names."""
    untriggered.execute("DELETE FROM bronze.events WHERE event_id = %s", (ids[2],))
    findings = verify(engine_conn)
    chain = _by_check(findings, "bronze_chain")
    assert [f.event_id for f in chain] == [ids[3]]
    assert chain[0].namespace == NS and "predecessor" in chain[0].detail
    assert all(f.namespace == NS for f in findings)
    # The later checkpoint (6 events) can no longer be matched either.
    assert _by_check(findings, "bronze_checkpoint")


def test_last_row_deleted_is_detected_by_the_checkpoint(
    engine_conn: psycopg.Connection, ids: list[int], untriggered: psycopg.Connection
) -> None:
    """B6 (c): a pruned tail leaves a valid chain, but the checkpoint records more events than remain."""
    untriggered.execute("DELETE FROM bronze.events WHERE event_id = %s", (ids[-1],))
    findings = verify(engine_conn)
    assert _by_check(findings, "bronze_chain") == []
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
    assert [f.check for f in findings] == ["bronze_checkpoint"]


def test_content_and_hash_rewritten_consistently_is_detected(
    engine_conn: psycopg.Connection, ids: list[int], untriggered: psycopg.Connection
) -> None:
    """B6 (d): content and content_hash rewritten together pass the CHECK but break the chain at that row."""
    target = ids[1]
    untriggered.execute(
        "UPDATE bronze.events SET content = 'forged', "
        "content_hash = encode(sha256(convert_to('forged', 'UTF8')), 'hex') WHERE event_id = %s",
        (target,),
    )
    findings = verify(engine_conn)
    assert [(f.check, f.namespace, f.event_id) for f in findings] == [("bronze_chain", NS, target)]


def test_key_rewritten_is_detected(
    engine_conn: psycopg.Connection, ids: list[int], untriggered: psycopg.Connection
) -> None:
    """B6: the chain covers the key too: a rewritten source_event_id breaks the chain at that row."""
    untriggered.execute("UPDATE bronze.events SET source_event_id = 'C01/forged' WHERE event_id = %s", (ids[4],))
    findings = verify(engine_conn)
    assert [(f.check, f.event_id) for f in findings] == [("bronze_chain", ids[4])]


# --------------------------------------------------------------------------------------------- B7


def test_erasure_needs_another_admin_and_leaves_a_tombstone(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: list[int]
) -> None:
    """B7: request by alice; alice cannot approve; bob needs admin on the namespace; then the row goes."""
    target = ids[2]
    original = admin_conn.execute(
        "SELECT namespace, source, source_event_id, kind, content_hash, chain_hash FROM bronze.events "
        "WHERE event_id = %s",
        (target,),
    ).fetchone()
    assert original is not None
    request_id = request_erasure(engine_conn, target, "user asked to be forgotten", "alice")
    assert list_requests(engine_conn, "pending")[0]["request_id"] == request_id

    with pytest.raises(ErasureError, match="cannot approve their own"):
        approve_erasure(engine_conn, request_id, "alice")
    grant(admin_conn, principal="alice", verbs=["admin"], namespaces=[NS], created_by="test")
    with pytest.raises(ErasureError, match="cannot approve their own"):
        approve_erasure(engine_conn, request_id, "alice")  # holding admin does not change that
    with pytest.raises(ErasureError, match="admin"):
        approve_erasure(engine_conn, request_id, "bob")
    grant(admin_conn, principal="bob", verbs=["admin"], namespaces=[OTHER], created_by="test")
    grant(admin_conn, principal="bob", verbs=["search", "read", "list", "remember"], namespaces=[NS],
          created_by="test")
    with pytest.raises(ErasureError, match="admin"):
        approve_erasure(engine_conn, request_id, "bob")  # admin elsewhere, or other verbs here, do not count
    assert engine_conn.execute("SELECT count(*) FROM bronze.events WHERE event_id = %s", (target,)).fetchone() == (1,)
    assert engine_conn.execute("SELECT count(*) FROM bronze.tombstones").fetchone() == (0,)

    grant(admin_conn, principal="bob", verbs=["admin"], namespaces=[NS], created_by="test")
    assert approve_erasure(engine_conn, request_id, "bob") == target

    assert engine_conn.execute("SELECT count(*) FROM bronze.events WHERE event_id = %s", (target,)).fetchone() == (0,)
    assert admin_conn.execute("SELECT count(*) FROM bronze.events WHERE namespace = %s", (NS,)).fetchone() == (5,)
    tomb = admin_conn.execute(
        "SELECT namespace, source, source_event_id, kind, content_hash, chain_hash, request_id, requested_by, "
        "approved_by, reason, erased_at FROM bronze.tombstones WHERE event_id = %s",
        (target,),
    ).fetchone()
    assert tomb is not None
    assert tomb[:6] == original
    assert tomb[6:10] == (request_id, "alice", "bob", "user asked to be forgotten")
    assert tomb[10] is not None
    columns = {
        r[0]
        for r in admin_conn.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = 'bronze' AND table_name = 'tombstones'"
        ).fetchall()
    }
    assert "content" not in columns and {"source_event_id", "content_hash"} <= columns
    req = admin_conn.execute(
        "SELECT status, approved_by, executed_at FROM bronze.erasure_requests WHERE request_id = %s",
        (request_id,),
    ).fetchone()
    assert req is not None and req[:2] == ("executed", "bob") and req[2] is not None

    # The chain still verifies through the tombstone, and keeps verifying as the namespace grows.
    assert verify(engine_conn) == []
    assert ingest_events(engine_conn, [_event(i) for i in range(6, 9)]).inserted == 3
    assert verify(engine_conn) == []

    with pytest.raises(ErasureError, match="already executed"):
        approve_erasure(engine_conn, request_id, "bob")
    with pytest.raises(ErasureError, match="does not exist"):
        request_erasure(engine_conn, target, "again", "alice")


def test_erasure_of_the_last_event_still_verifies(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: list[int]
) -> None:
    """B6/B7: erasing the head of a chain keeps the checkpoints valid (the tombstone counts)."""
    grant(admin_conn, principal="bob", verbs=["admin"], namespaces=["*"], created_by="test")
    request_id = request_erasure(engine_conn, ids[-1], "mistake", "alice")
    approve_erasure(engine_conn, request_id, "bob")
    assert verify(engine_conn) == []


def test_erasure_of_a_missing_event_is_refused(engine_conn: psycopg.Connection, ids: list[int]) -> None:
    """B7: a request for an event that does not exist is refused; nothing is recorded."""
    with pytest.raises(ErasureError, match="does not exist"):
        request_erasure(engine_conn, max(ids) + 10_000, "no such event", "alice")
    with pytest.raises(ErasureError, match="does not exist"):
        approve_erasure(engine_conn, 987_654, "bob")
    assert list_requests(engine_conn) == []


def test_duplicate_pending_request_is_refused(engine_conn: psycopg.Connection, ids: list[int]) -> None:
    """B7: one pending request per event."""
    request_erasure(engine_conn, ids[0], "first", "alice")
    with pytest.raises(ErasureError, match="already pending"):
        request_erasure(engine_conn, ids[0], "second", "carol")


def test_expired_or_revoked_admin_cannot_approve(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: list[int]
) -> None:
    """B7/G2: only a currently valid admin capability approves: expired and revoked ones are refused."""
    target = ids[0]
    request_id = request_erasure(engine_conn, target, "privacy", "alice")

    grant(admin_conn, principal="carol", verbs=["admin"], namespaces=[NS],
          expires_at=datetime.now(UTC) - timedelta(minutes=5), created_by="test")
    with pytest.raises(ErasureError, match="admin"):
        approve_erasure(engine_conn, request_id, "carol")

    cap_id, _ = grant(admin_conn, principal="dave", verbs=["admin"], namespaces=[NS], created_by="test")
    assert revoke(admin_conn, cap_id)
    with pytest.raises(ErasureError, match="admin"):
        approve_erasure(engine_conn, request_id, "dave")

    assert admin_conn.execute("SELECT count(*) FROM bronze.events WHERE event_id = %s", (target,)).fetchone() == (1,)
    assert [r["status"] for r in list_requests(engine_conn)] == ["pending"]

    # A still-valid (future-expiring) admin capability does approve.
    grant(admin_conn, principal="erin", verbs=["admin"], namespaces=[NS],
          expires_at=datetime.now(UTC) + timedelta(hours=1), created_by="test")
    assert approve_erasure(engine_conn, request_id, "erin") == target
    assert verify(engine_conn) == []
