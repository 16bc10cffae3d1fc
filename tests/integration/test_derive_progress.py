"""The derivation's progress callback moves within a window of events, not only when a window commits,
and its committed count is exactly what is committed (what a killed run would keep).

A window of 256 events takes seconds (most of it the embedding model), so a count of commits alone
sits still for that long in ``medallion materialize`` and the Dagster run log."""

from __future__ import annotations

import psycopg
import pytest

from medallion.bronze.ingest import ingest_events
from medallion.db.connection import connect
from medallion.settings import Settings
from medallion.silver import derive as deriving
from medallion.silver.derive import derive
from tests.support.conversations import generate

WINDOW = 96  # smaller than the engine's 256, to keep the test short: the accounting is the same
TURNS = WINDOW + 30  # a full window and a part of one


def test_progress_moves_event_by_event_within_a_window_and_commits_are_counted_as_committed(
        engine_conn: psycopg.Connection, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deriving, "WINDOW", WINDOW)
    ingest_events(engine_conn, generate(seed=2016, turns=TURNS, speakers=4, namespace="chat").events)
    seen: list[tuple[int, int, int]] = []
    in_database: dict[int, int] = {}  # committed count -> derivations and parked events another session sees
    with connect(settings, "engine", autocommit=True) as watcher:
        def progress(done: int, total: int, committed: int) -> None:
            if not seen or seen[-1][2] != committed:
                in_database[committed] = watcher.execute(
                    "SELECT (SELECT count(*) FROM silver.derivations) "
                    "+ (SELECT count(*) FROM silver.derivation_failures)").fetchone()[0]
            seen.append((done, total, committed))

        report = derive(engine_conn, settings, progress=progress)
    assert report.events == TURNS and not report.failures
    assert seen[0] == (0, TURNS, 0) and seen[-1] == (TURNS, TURNS, TURNS)
    assert all(total == TURNS and committed <= done <= total for done, total, committed in seen)
    assert [s[0] for s in seen] == sorted(s[0] for s in seen), "done never goes back"
    assert [s[2] for s in seen] == sorted(s[2] for s in seen), "committed never goes back"
    # committed moves when a window commits, and says what another session sees committed
    assert sorted(in_database) == [0, WINDOW, TURNS]
    assert all(in_database[committed] == committed for committed in in_database)
    # done moves many times within the first window, before anything of it is committed: as its events
    # are distilled, as its texts are embedded batch by batch, and as its events are resolved
    first = {done for done, _, committed in seen if committed == 0}
    assert len(first) >= WINDOW // 5 and max(first) <= WINDOW, sorted(first)
