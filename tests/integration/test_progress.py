"""Long runs are not silent: each derive step logs events derived / total with a rate and an ETA to
the run's log, and the log read back from the instance (as ``medallion materialize`` follows its runs,
across step processes) gives the same counts."""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg

from dagster_project.assets.bronze import bronze_events
from dagster_project.assets.silver import silver_derive
from dagster_project.progress import PREFIX, ProgressLog, ProgressWatch, Throughput, describe, parse
from dagster_project.resources import MedallionResource
from dagster_project.runs import every_partition
from medallion.settings import Settings
from tests.support.dagster_runs import materialize_all_partitions

TAG = ("medallion/materialize", "progress-test")


def _resource(settings: Settings) -> MedallionResource:
    return MedallionResource(database_url=settings.database_url, home=str(settings.home), inbox=str(settings.inbox))


def test_derive_steps_log_their_progress_and_the_log_reads_back(settings: Settings, examples_dir: Path) -> None:
    """Two derive steps each log ``derive progress: done/total events derived (rate/s, ETA ...)``; the
    watcher that ``medallion materialize`` uses reads them back from the instance and sums them."""
    shutil.copy(examples_dir / "team_events.jsonl", settings.inbox / "team.jsonl")
    events = len((examples_dir / "team_events.jsonl").read_text().splitlines())
    instance = dg.DagsterInstance.ephemeral()
    assert materialize_all_partitions([bronze_events], _resource(settings), instance=instance).success

    seen: list[tuple[int, int, int]] = []
    with ProgressWatch(instance, TAG, lambda done, total, rate, committed: seen.append((done, total, committed)),
                       interval=0.2):
        run = dg.materialize(
            [silver_derive], resources={"medallion": _resource(settings)}, instance=instance,
            tags={**every_partition(instance), TAG[0]: TAG[1]},
            run_config={"ops": {"silver_derive": {"config": {"steps": 2, "progress_seconds": 0}}}})
    assert run.success

    lines = [e.user_message for e in instance.all_logs(run.run_id) if not e.is_dagster_event
             and e.user_message.startswith(PREFIX)]
    assert lines, "the derive steps logged their progress"
    assert all("/s, ETA " in line for line in lines)
    by_step: dict[str, tuple[int, int, float, int]] = {}
    for entry in instance.all_logs(run.run_id):
        progress = None if entry.is_dagster_event else parse(entry.user_message)
        if progress:
            by_step[entry.step_key or ""] = progress
    assert len(by_step) == 2, "one progress line per derive step, at least"
    assert all(done == total == committed and rate > 0 for done, total, rate, committed in by_step.values())
    assert sum(total for _, total, _, _ in by_step.values()) == events
    # the watcher sums the newest line of each step: every event derived and committed, in the end
    assert seen and seen[-1] == (events, events, events)


def test_progress_words_and_pace() -> None:
    """The words of the log line and the CLI: count, rate and ETA (unknown while nothing is derived);
    a step logs at most every few seconds, and always its last count."""
    assert describe(0, 1000, 0.0) == "0/1000 events derived (0.0/s, ETA ?)"
    assert describe(250, 1000, 25.0) == "250/1000 events derived (25.0/s, ETA 0:30)"
    assert describe(1000, 1000, 25.0) == "1000/1000 events derived (25.0/s, ETA 0:00)"
    # within a window the count runs ahead of the commits, which are shown beside it while they trail
    assert describe(300, 1000, 25.0, committed=256) == "300/1000 events derived, 256 committed (25.0/s, ETA 0:28)"
    assert describe(300, 1000, 25.0, committed=300) == "300/1000 events derived (25.0/s, ETA 0:28)"
    assert describe(100, 400_000, 10.0).endswith("ETA 11:06:30)")
    assert Throughput(started=100.0).rate(250, now=110.0) == 25.0
    assert parse(f"{PREFIX} {describe(250, 1000, 25.0)} in team-a") == (250, 1000, 25.0, 250)
    assert parse(f"{PREFIX} {describe(300, 1000, 25.0, committed=256)} in team-a") == (300, 1000, 25.0, 256)
    assert parse("derived 12 events") is None

    class Log:
        def __init__(self) -> None:
            self.lines: list[str] = []

        def info(self, line: str) -> None:
            self.lines.append(line)

    log = Log()
    step = ProgressLog(log, "team-a", every=3600)
    for done, committed in ((100, 0), (256, 256), (700, 512), (1000, 768), (1000, 1000)):
        step(done, 1000, committed)
    # the first line, then none until the last: every event committed (not merely counted)
    assert [parse(line) and (parse(line)[0], parse(line)[3]) for line in log.lines] == [(100, 0), (1000, 1000)]
    assert log.lines[-1].endswith(" in team-a")
