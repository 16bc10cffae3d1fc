"""Poison events cannot sink a batch, a file or the inbox (security issue; B5, B8).

Each test reproduces one attack from the issue against the real database: a line or a file that
once crashed ingest (losing every event after it, with no quarantine row and no report) or the
Dagster landing step. Contract-level poison (one bad line between two good ones) is covered class
by class in test_malformed_inputs.py; here are the batch-, file- and inbox-level effects.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import dagster as dg
import psycopg
import pytest

from dagster_project.assets.bronze import bronze_events
from dagster_project.resources import MedallionResource
from medallion.bronze.contract import Event
from medallion.bronze.ingest import ingest_events, ingest_jsonl
from medallion.bronze.landing import land_inbox
from medallion.settings import Settings

_LOCK_CLASS = 0x62726F6E  # ingest's advisory-lock class for chain assignment ("bron")


def _event(i: int, **extra: Any) -> dict[str, Any]:
    return {
        "namespace": "team-a", "source": "slack", "source_event_id": f"C01/{i}", "kind": "transcript",
        "actor": "user:alice", "content": f"message number {i}", "provenance_root": f"slack://C01/p{i}", **extra,
    }


def _jsonl(events: list[dict[str, Any]], sep: bytes = b"\n") -> bytes:
    return sep.join(json.dumps(e).encode() for e in events)


def _quarantine(conn: psycopg.Connection) -> list[tuple[Any, ...]]:
    rows = conn.execute(
        "SELECT line_number, byte_offset, error_code, reason, raw FROM bronze.quarantine ORDER BY quarantine_id"
    ).fetchall()
    return [(*r[:4], bytes(r[4])) for r in rows]


def _stored(conn: psycopg.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT source_event_id FROM bronze.events ORDER BY event_id")]


# --- 1. a big integer deep in a big file ----------------------------------------------------------


def test_big_integer_late_in_a_file_is_quarantined_and_every_other_line_lands(
    engine_conn: psycopg.Connection,
) -> None:
    """The issue's attack, scaled down: ``"metadata": {"x": 18446744073709551616}`` at line 70 of a
    100-line file landed in batches of 10. Before: the batch of line 70 raised TypeError, lines 61-100
    were lost and nothing was quarantined. Now the line is refused by the contract and quarantined with
    its position, and the 99 other lines land, in order."""
    events = [_event(i) for i in range(1, 101)]
    events[69]["metadata"] = {"x": 18446744073709551616}
    data = _jsonl(events)

    result = ingest_jsonl(engine_conn, data, origin="file:big.jsonl", batch_size=10)

    assert (result.inserted, result.rejected) == (99, 1)
    bad = result.statuses[69]
    assert (bad.position, bad.status, bad.code) == (70, "rejected", "integer_out_of_range")
    assert "'metadata.x'" in (bad.reason or "") and "64-bit" in (bad.reason or "")
    assert _stored(engine_conn) == [f"C01/{i}" for i in range(1, 101) if i != 70]
    offset = data.index(b'{"namespace": "team-a", "source": "slack", "source_event_id": "C01/70"')
    raw = json.dumps(events[69]).encode()
    assert _quarantine(engine_conn) == [(70, offset, "integer_out_of_range", bad.reason, raw)]


# --- 1b. whatever else fails while landing a batch ------------------------------------------------


def test_row_the_database_refuses_is_quarantined_alone(engine_conn: psycopg.Connection) -> None:
    """A row that passes the contract but that PostgreSQL refuses (here a 3,000-character random
    provenance_root: its entry in the events_thread index is over the btree size limit) no longer
    rolls back its batch and ends the file: the batch is landed again in halves down to that row,
    which is quarantined with the database's error, and every other row lands in order.

    Before: ProgramLimitExceeded escaped ingest_jsonl; the batch and all later batches were lost.
    """
    rng = random.Random(7)
    huge_root = "".join(chr(rng.randrange(0x4E00, 0x9FFF)) for _ in range(3000))  # incompressible
    events = [_event(i) for i in range(1, 31)]
    events[12]["provenance_root"] = huge_root
    data = _jsonl(events)

    result = ingest_jsonl(engine_conn, data, origin="file:root.jsonl", batch_size=8)

    assert (result.inserted, result.rejected) == (29, 1)
    assert [s.position for s in result.statuses] == list(range(1, 31))
    bad = result.statuses[12]
    assert (bad.status, bad.code, bad.source_event_id) == ("rejected", "landing_failed", "C01/13")
    assert "ProgramLimitExceeded" in (bad.reason or "") and (bad.reason or "").count("\n") == 0
    assert _stored(engine_conn) == [f"C01/{i}" for i in range(1, 31) if i != 13]
    [(line, offset, code, reason, raw)] = _quarantine(engine_conn)
    assert (line, code, reason) == (13, "landing_failed", bad.reason)
    assert data[offset : offset + len(raw)] == raw == json.dumps(events[12]).encode()


@pytest.mark.parametrize(
    ("poison", "error"),
    [
        pytest.param({"metadata": {"x": 2**64}}, "64-bit", id="big_integer_fails_in_the_jsonb_encoder"),
        pytest.param({"content": "a\x00b"}, "NUL", id="nul_fails_inside_the_copy"),
    ],
)
def test_unvalidated_event_object_cannot_sink_its_batch(
    engine_conn: psycopg.Connection, poison: dict[str, Any], error: str
) -> None:
    """``ingest_events`` trusts Event objects as validated. One built without validation
    (``Event.model_construct``) holding a 2**64 integer (the jsonb encoder raises TypeError) or a NUL
    (the COPY raises DataError mid-stream) lost the whole batch; now that one is quarantined
    (``landing_failed``) and the others land."""
    events: list[Any] = [_event(i) for i in range(1, 6)]
    events[2] = Event.model_construct(**{**_event(3), "metadata": {}, "occurred_at": None, "authority": None,
                                         **poison})

    result = ingest_events(engine_conn, events, batch_size=5)

    assert [s.status for s in result.statuses] == ["inserted", "inserted", "rejected", "inserted", "inserted"]
    assert result.statuses[2].code == "landing_failed" and error in (result.statuses[2].reason or "")
    assert _stored(engine_conn) == ["C01/1", "C01/2", "C01/4", "C01/5"]
    assert [(q[0], q[2]) for q in _quarantine(engine_conn)] == [(3, "landing_failed")]


def test_lock_timeout_is_raised_not_blamed_on_rows(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection
) -> None:
    """A failure no row causes (here: the namespace's chain lock is held elsewhere and lock_timeout
    expires) is raised to the caller, not turned into quarantined valid events; nothing is stored."""
    engine_conn.execute("SET lock_timeout = '200ms'")
    with admin_conn.transaction():
        admin_conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_CLASS, "team-a"))
        with pytest.raises(psycopg.errors.LockNotAvailable):
            ingest_jsonl(engine_conn, _jsonl([_event(1), _event(2)]), origin="file:locked.jsonl")
    assert _stored(engine_conn) == [] and _quarantine(admin_conn) == []
    # Once the lock is free the same input lands: the failure left nothing behind.
    assert ingest_jsonl(engine_conn, _jsonl([_event(1), _event(2)]), origin="file:locked.jsonl").inserted == 2


# --- 4. ingest hygiene ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"\n  \r\n\t\n", id="whitespace_only"),
        pytest.param(b"\xef\xbb\xbf\n", id="byte_order_mark_only"),
    ],
)
def test_input_without_events_is_one_rejection(engine_conn: psycopg.Connection, data: bytes) -> None:
    """Regression (ingest_jsonl returned an empty result: ``rejected: 0``, ``ok`` True, exit 0): an
    input holding no event is one rejected item, quarantined once with the reason and the bytes."""
    result = ingest_jsonl(engine_conn, data, origin="cli:stdin")

    assert not result.ok
    assert (result.inserted, result.rejected) == (0, 1)
    assert result.summary()["rejects"] == [
        {"line": 1, "status": "rejected", "code": "empty_input", "reason": "the input holds no events"}
    ]
    assert _quarantine(engine_conn) == [(1, 0, "empty_input", "the input holds no events", data)]


def test_cr_only_file_lands_line_by_line(engine_conn: psycopg.Connection) -> None:
    """Regression (lines were split on LF only): a file whose lines end in a lone CR was one line,
    so all its events were refused as one invalid JSON line. Now each CR ends a line, and a bad line's
    quarantine row has its own line number and byte offset."""
    lines = [json.dumps(_event(1)).encode(), b"not json", json.dumps(_event(2)).encode(), b"",
             json.dumps(_event(3)).encode()]
    data = b"\r".join(lines) + b"\r"

    result = ingest_jsonl(engine_conn, data, origin="file:mac.jsonl")

    assert [s.status for s in result.statuses] == ["inserted", "rejected", "inserted", "inserted"]
    assert [s.position for s in result.statuses] == [1, 2, 3, 5]
    assert _stored(engine_conn) == ["C01/1", "C01/2", "C01/3"]
    [(line, offset, code, _, raw)] = _quarantine(engine_conn)
    assert (line, offset, code, raw) == (2, len(lines[0]) + 1, "invalid_json", b"not json")


def test_duplicate_keys_are_quarantined_with_the_key_named(engine_conn: psycopg.Connection) -> None:
    """Regression (the last of two equal keys won silently, so what landed was not what a reader of
    the line sees): a line with a key twice, at any depth or inside a fact's content, is quarantined
    naming the key; its neighbours land."""
    good = json.dumps(_event(1)).encode()
    twice_top = good[:-1] + b', "namespace": "team-b"}'
    twice_nested = json.dumps(_event(2)).encode()[:-1] + b', "metadata": {"m": {"k": 1, "k": 2}}}'
    fact = {**_event(3), "kind": "fact",
            "content": '{"subject": "alice", "predicate": "lives_in", "value": "Lisbon", "value": "Porto"}'}
    data = b"\n".join([twice_top, twice_nested, json.dumps(fact).encode(), json.dumps(_event(4)).encode()])

    result = ingest_jsonl(engine_conn, data, origin="file:dups.jsonl")

    assert [s.code for s in result.statuses] == ["duplicate_key", "duplicate_key", "duplicate_key", None]
    assert ["'namespace'" in (s.reason or "") for s in result.statuses[:1]] == [True]
    assert "'k'" in (result.statuses[1].reason or "") and "'value'" in (result.statuses[2].reason or "")
    assert _stored(engine_conn) == ["C01/4"]
    assert [bytes(q[4]) for q in _quarantine(engine_conn)] == data.split(b"\n")[:3]


# --- 2. the inbox -----------------------------------------------------------------------------------


def _drop(inbox: Path, name: str, events: list[dict[str, Any]]) -> None:
    (inbox / name).write_bytes(_jsonl(events) + b"\n")


def test_one_failing_file_does_not_stop_the_inbox(
    settings: Settings, engine_conn: psycopg.Connection, admin_conn: psycopg.Connection
) -> None:
    """Regression (an exception while landing one file ended land_inbox): the failing file moves to
    rejected/ with the error in its .reason, and the files before and after it land and move to done/.
    The failure here is real: the namespace of the middle file is locked elsewhere past lock_timeout."""
    inbox = settings.inbox
    _drop(inbox, "a.jsonl", [_event(1)])
    _drop(inbox, "b.jsonl", [_event(2, namespace="team-locked")])
    _drop(inbox, "c.jsonl", [_event(3)])
    engine_conn.execute("SET lock_timeout = '200ms'")
    with admin_conn.transaction():
        admin_conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_CLASS, "team-locked"))
        report = land_inbox(engine_conn, inbox, max_content_bytes=settings.max_content_bytes)

    assert (report.done, report.rejected, list(report.failed)) == (["a.jsonl", "c.jsonl"], ["b.jsonl"], ["b.jsonl"])
    assert sorted(p.name for p in (inbox / "done").iterdir()) == ["a.jsonl", "c.jsonl"]
    reason = (inbox / "rejected" / "b.jsonl.reason").read_text()
    assert "could not land the file: LockBusy: namespace 'team-locked''s ingest lock is held by" in reason
    assert "drop the file again" in reason
    assert (inbox / "rejected" / "b.jsonl").read_bytes() == _jsonl([_event(2, namespace="team-locked")]) + b"\n"
    assert list(inbox.glob("*.jsonl")) == []
    assert _stored(engine_conn) == ["C01/1", "C01/3"]


def test_empty_file_in_the_inbox_is_rejected_with_one_quarantine_row(
    settings: Settings, engine_conn: psycopg.Connection
) -> None:
    """An empty inbox file goes to rejected/ with the reason, quarantined exactly once (the landing
    code no longer adds its own row on top of ingest's)."""
    (settings.inbox / "empty.jsonl").write_bytes(b"\n\n")
    _drop(settings.inbox, "full.jsonl", [_event(1)])

    report = land_inbox(engine_conn, settings.inbox, max_content_bytes=settings.max_content_bytes)

    assert (report.done, report.rejected) == (["full.jsonl"], ["empty.jsonl"])
    assert "line 1: the input holds no events" in (settings.inbox / "rejected" / "empty.jsonl.reason").read_text()
    assert [(q[2], q[3]) for q in _quarantine(engine_conn)] == [("empty_input", "the input holds no events")]


def test_bronze_asset_step_survives_a_failing_file(
    settings: Settings, engine_conn: psycopg.Connection, admin_conn: psycopg.Connection,
    examples_dir: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Dagster step (the bronze/events asset) succeeds when one inbox file fails: the others land,
    the failing file is in rejected/ and named in the materialization's ``files_failed``."""
    shutil.copy(examples_dir / "team_events.jsonl", settings.inbox / "a_team.jsonl")
    _drop(settings.inbox, "b_locked.jsonl", [_event(2, namespace="team-locked")])
    monkeypatch.setenv("PGOPTIONS", "-c lock_timeout=200")  # libpq reads it for the asset's own connection
    resource = MedallionResource(database_url=settings.database_url, home=str(settings.home),
                                 inbox=str(settings.inbox))
    with admin_conn.transaction():
        admin_conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_CLASS, "team-locked"))
        result = dg.materialize([bronze_events], resources={"medallion": resource})

    assert result.success
    meta = result.asset_materializations_for_node("bronze__events")[0].metadata
    assert list(meta["files_failed"].value) == ["b_locked.jsonl"]
    assert meta["files_done"].value == ["a_team.jsonl"]
    assert (settings.inbox / "rejected" / "b_locked.jsonl.reason").exists()
    team_lines = len((examples_dir / "team_events.jsonl").read_text().splitlines())
    assert engine_conn.execute("SELECT count(*) FROM bronze.events").fetchone()[0] == team_lines
