"""The inbox lands regular files only (issue 30, point 10): a symbolic link is refused in one sentence,
left where it is, and counted; the file it points to is neither read nor moved."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg

from medallion.bronze.landing import land_inbox, pending_files
from medallion.settings import Settings


def _line(i: int, content: str) -> str:
    return json.dumps({"namespace": "inbox-links", "source": "drop", "source_event_id": str(i), "kind": "note",
                       "actor": "user:a", "content": content, "provenance_root": f"drop://{i}",
                       "occurred_at": "2026-01-01T00:00:00Z"}) + "\n"


def test_a_symlink_in_the_inbox_is_refused_and_left_in_place(settings: Settings, engine_conn: psycopg.Connection,
                                                             tmp_path: Path) -> None:
    inbox = settings.inbox
    secret = tmp_path / "secret.jsonl"  # a file the landing process may read, outside the inbox
    secret.write_text(_line(1, "the private key is hunter2"))
    (inbox / "a.jsonl").symlink_to(secret)
    (inbox / "b.jsonl").write_text(_line(2, "a regular note"))

    assert [p.name for p in pending_files(inbox)] == ["b.jsonl"]  # the sensor is not woken by a link
    report = land_inbox(engine_conn, inbox, max_content_bytes=settings.max_content_bytes)

    assert report.done == ["b.jsonl"] and report.refused == ["a.jsonl"], report
    why = report.failed["a.jsonl"]
    assert "a.jsonl is a symbolic link" in why and "left in place" in why and "\n" not in why
    assert (inbox / "a.jsonl").is_symlink() and secret.read_text() == _line(1, "the private key is hunter2")
    contents = [r[0] for r in engine_conn.execute("SELECT content FROM bronze.events").fetchall()]
    assert contents == ["a regular note"]
    quarantined = engine_conn.execute("SELECT count(*) FROM bronze.quarantine").fetchone()[0]
    assert quarantined == 0  # nothing of the link's target was read, not even into quarantine
