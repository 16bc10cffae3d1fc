"""Idempotent batched ingest (B3) and quarantine of conflicts (B5)."""

from __future__ import annotations

import json

import psycopg

from medallion.bronze.ingest import ingest_events, ingest_jsonl


def _event(i: int, content: str | None = None, ns: str = "team-a", **extra: object) -> dict:
    return {
        "namespace": ns, "source": "slack", "source_event_id": f"C01/{i}", "kind": "transcript",
        "actor": "user:alice", "content": content or f"message number {i}",
        "provenance_root": f"slack://C01/p{i}", **extra,
    }


def _jsonl(events: list[dict]) -> bytes:
    return "\n".join(json.dumps(e) for e in events).encode()


def test_resubmission_is_duplicate_and_stores_nothing(engine_conn: psycopg.Connection) -> None:
    """B3: the same (namespace, source, source_event_id) and content twice → duplicate, one row."""
    first = ingest_jsonl(engine_conn, _jsonl([_event(1), _event(2)]), origin="test")
    assert (first.inserted, first.duplicate) == (2, 0)
    again = ingest_jsonl(engine_conn, _jsonl([_event(1), _event(2), _event(3)]), origin="test")
    assert (again.inserted, again.duplicate, again.conflict) == (1, 2, 0)
    assert [s.status for s in again.statuses] == ["duplicate", "duplicate", "inserted"]
    assert again.statuses[0].event_id == first.statuses[0].event_id
    assert engine_conn.execute("SELECT count(*) FROM bronze.events").fetchone()[0] == 3


def test_same_key_different_content_is_conflict_original_kept(engine_conn: psycopg.Connection) -> None:
    """B3: same key with different content → conflict, the original kept, the attempt quarantined."""
    ingest_events(engine_conn, [_event(1, "I moved to Lisbon")])
    result = ingest_events(engine_conn, [_event(1, "I moved to Porto")], origin="api")
    assert result.conflict == 1 and result.inserted == 0
    assert "different content" in (result.statuses[0].reason or "")
    stored = engine_conn.execute("SELECT content FROM bronze.events").fetchall()
    assert stored == [("I moved to Lisbon",)]
    q = engine_conn.execute(
        "SELECT error_code, namespace, source_event_id, raw, conflict_event_id FROM bronze.quarantine"
    ).fetchall()
    assert len(q) == 1
    code, ns, seid, raw, conflict_id = q[0]
    assert (code, ns, seid) == ("conflict", "team-a", "C01/1")
    assert b"Porto" in bytes(raw)
    assert conflict_id == result.statuses[0].event_id


def test_conflict_within_one_batch(engine_conn: psycopg.Connection) -> None:
    """B3: two lines of one file with the same key and different content: first lands, second conflicts."""
    result = ingest_jsonl(engine_conn, _jsonl([_event(7, "a"), _event(7, "a"), _event(7, "b")]), origin="f")
    assert [s.status for s in result.statuses] == ["inserted", "duplicate", "conflict"]


def test_defaults_received_at_occurred_at_and_authority(engine_conn: psycopg.Connection) -> None:
    """B1/B2: occurred_at defaults to received_at; authority defaults from the actor."""
    ingest_events(
        engine_conn,
        [
            _event(1),
            _event(2, actor="agent:helper"),
            _event(3, occurred_at="2026-11-01T10:00:00+02:00", authority=2),
        ],
    )
    rows = engine_conn.execute(
        "SELECT source_event_id, authority, occurred_at = received_at, occurred_at "
        "FROM bronze.events ORDER BY event_id"
    ).fetchall()
    assert rows[0][1:3] == (1, True)
    assert rows[1][1:3] == (5, True)
    assert rows[2][1] == 2 and rows[2][2] is False
    assert rows[2][3].isoformat().startswith("2026-11-01T08:00:00")


def test_authority_capped_by_writer(engine_conn: psycopg.Connection) -> None:
    """B2/G2: an explicit authority above the writer's cap is rejected; a default one is clamped."""
    result = ingest_events(engine_conn, [_event(1, authority=1), _event(2)], max_authority=3)
    assert [s.status for s in result.statuses] == ["rejected", "inserted"]
    assert result.statuses[0].code == "authority_above_capability"
    assert engine_conn.execute("SELECT authority FROM bronze.events").fetchone()[0] == 3


def test_namespaces_are_independent_keys(engine_conn: psycopg.Connection) -> None:
    """B1: the unique key includes the namespace; the same source id in two namespaces is two events."""
    result = ingest_events(engine_conn, [_event(1, ns="team-a"), _event(1, "other", ns="team-b")])
    assert result.inserted == 2


def test_erased_event_cannot_come_back(engine_conn: psycopg.Connection, admin_conn: psycopg.Connection) -> None:
    """B7: re-submitting an erased key is rejected and its content is not stored again, not even in quarantine."""
    from medallion.bronze.erasure import approve_erasure, request_erasure
    from medallion.serve.capabilities import grant

    first = ingest_events(engine_conn, [_event(1, "my home address is 1 Secret Lane")])
    _, bob = grant(admin_conn, principal="bob", verbs=["admin"], namespaces=["team-a"], created_by="test")
    request_id = request_erasure(admin_conn, first.statuses[0].event_id, "personal data", token=None,
                                 local_name="local:alice")
    approve_erasure(engine_conn, request_id, token=bob)

    again = ingest_events(engine_conn, [_event(1, "my home address is 1 Secret Lane"), _event(2)])
    assert [s.status for s in again.statuses] == ["rejected", "inserted"]
    assert again.statuses[0].code == "erased" and f"request {request_id}" in (again.statuses[0].reason or "")
    rows = admin_conn.execute("SELECT raw FROM bronze.quarantine WHERE error_code = 'erased'").fetchall()
    assert rows == [(b"",)]
    assert engine_conn.execute(
        "SELECT count(*) FROM bronze.events WHERE content LIKE '%Secret Lane%'"
    ).fetchone()[0] == 0
