"""The derivation's progress accounting (silver/derive_progress.py): the count moves with a window's
work and never runs past what the window holds, and the committed count is what the report says."""

from __future__ import annotations

from medallion.silver.derive_progress import WindowTally, shifted
from medallion.silver.report import DeriveReport


def test_the_tally_counts_a_window_s_work_and_never_runs_past_its_commits() -> None:
    """One unit per event distilled, per text embedded and per event resolved: ``done`` is the window's
    events in proportion, capped at the window, and equal to ``committed`` once the window commits."""
    report = DeriveReport()
    seen: list[tuple[int, int, int]] = []
    tally = WindowTally(lambda *counts: seen.append(counts), 10, report)
    tally.update()
    tally.start(4)
    for _ in range(4):
        tally.step()  # distilled: 4 of 16 units (4 distilled, 8 texts, 4 resolved)
    batch = tally.embedding(8)
    assert batch is not None
    batch(4, 8)  # half the texts the cache lacked
    assert seen[-1] == (2, 10, 0)  # 8 of 16 units: half the window's 4 events
    tally.embedding_done()
    assert tally.embedding(1) is None  # derived again event by event after a failure: not counted twice
    tally.embedding_done()
    assert seen[-1] == (3, 10, 0)
    for _ in range(4):
        tally.step()
    assert seen[-1] == (4, 10, 0)  # the window's work done, none of it committed yet
    report.events += 4
    tally.update()
    assert seen[-1] == (4, 10, 4)
    tally.start(6)  # the next window starts from the events committed
    report.failures.append({"event_id": 1})  # a parked event counts as settled at once
    tally.step()
    assert seen[-1] == (5, 10, 5)
    assert [s[0] for s in seen] == sorted(s[0] for s in seen)
    # a later lock group continues the counts of the earlier ones
    later: list[tuple[int, int, int]] = []
    step = shifted(lambda *counts: later.append(counts), 10)
    assert step is not None
    step(3, 5, 2)
    assert later == [(13, 15, 12)]
