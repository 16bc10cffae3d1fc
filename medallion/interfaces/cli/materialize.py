"""``medallion materialize``: run the Dagster job in-process and summarise what each layer did.

While Silver derives, stderr shows events derived / total with a rate and an ETA, and the events
committed while they trail the count: a live line on a terminal, redrawn every second (the count moves
as the derive steps report it, about every second: within a window of events as they are distilled,
embedded and resolved, see :mod:`medallion.silver.derive_progress`; the committed count window by
window; the ETA counts down and the time elapsed between reports), else a line every few seconds and
the last.

The live line is drawn on a copy of the terminal's descriptor taken before the runs start: Dagster
captures a step's stdout and stderr into its compute log by pointing descriptors 1 and 2 at a file
while the step runs in this process, and a display written through ``sys.stderr`` would go there
(and stop drawing, the file being no terminal) for as long as Silver derives.
"""

from __future__ import annotations

import io
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, SpinnerColumn, Task, TextColumn
from rich.text import Text

from medallion.db import embedded
from medallion.interfaces.cli.shared import JsonOpt, app, emit_json, err, fail, load_settings, out, refuse


@app.command("materialize")
def materialize(
    full_rebuild: Annotated[bool, typer.Option("--full-rebuild", help="Re-derive everything from Bronze.")] = False,
    namespace: Annotated[list[str] | None, typer.Option(
        "--namespace", "-n", help="Derive only this namespace (repeatable); dbt and Gold still cover all.")] = None,
    workers: Annotated[int, typer.Option(
        "--workers", min=1, max=64,
        help="Parallel derive steps, each in its own process (Dagster's multiprocess executor); 1 runs in this "
        "process.")] = 1,
    as_json: JsonOpt = False,
) -> None:
    """Run the Dagster jobs: land the inbox, derive Silver per namespace, build dbt and the data dictionary.

    The runs are recorded in the Dagster instance the UI shows; each namespace is a partition.
    """
    from dagster_project.runs import UnknownNamespace, run_job  # the one door into the code location

    settings = load_settings()
    if embedded.stopped_by_user(settings):  # the runs would otherwise fail inside Dagster with a log tail
        fail(str(embedded.ServerStopped()))
    job = "materialize_all" if full_rebuild else "incremental"
    with _progress(job) as progress:
        try:
            run = run_job(settings, full_rebuild, namespaces=namespace or None, workers=workers, progress=progress)
        except UnknownNamespace as exc:
            refuse(str(exc))
    summary = run.summary
    if not run.success:
        if run.log_tail:
            err.print(run.log_tail, markup=False, highlight=False)
        fail(f"{job} failed: {run.failure}")
    if as_json:
        emit_json(summary)
        return
    bronze, facts, dbt = summary["bronze"], summary["silver"], summary["dbt"]
    out.print(f"{job}: run {summary['run_id']}")
    out.print(f"  bronze: inserted {bronze.get('inserted', 0)}, rejected {bronze.get('rejected', 0)}")
    out.print(f"  silver: {facts.get('events_processed', 0)} events → added {facts.get('added', 0)}, "
              f"updated {facts.get('updated', 0)}, superseded {facts.get('superseded', 0)}, skipped "
              f"{facts.get('skipped', 0)}, contested {facts.get('contested', 0)}; failures {facts.get('failures', 0)}")
    out.print(f"  dbt: {dbt['models']} models and seeds built; checks {dbt['checks_passed']} passed, "
              f"{dbt['checks_failed']} failed")
    out.print(f"  data dictionary: {summary['dictionary'].get('dagster/row_count', 0)} columns documented")


@contextmanager
def _terminal() -> Iterator[Console]:
    """A console on a copy of the descriptor behind ``sys.stderr`` now, which Dagster's capture of a
    step's output (it repoints descriptor 2) leaves alone; ``err`` itself where stderr has no
    descriptor (a test runner's buffer)."""
    try:
        fd = os.dup(sys.stderr.fileno())
    except (AttributeError, OSError, io.UnsupportedOperation):
        yield err
        return
    with os.fdopen(fd, "w", buffering=1, encoding="utf-8", errors="replace") as stream:
        yield Console(file=stream, stderr=True)


class _Pace(ProgressColumn):
    """``done/total events derived, n committed (rate/s, ETA m:ss) · m:ss elapsed``: the counts and rate as last
    reported, the ETA counted down since that report and the time since the run began, so that the
    line moves every second between the derive steps' reports."""

    def __init__(self, describe: Callable[..., str], clock: Callable[[float], str]) -> None:
        super().__init__()
        self.describe, self.clock, self.started = describe, clock, time.monotonic()

    def render(self, task: Task) -> Text:
        now = time.monotonic()
        elapsed = f"{self.clock(now - self.started)} elapsed"
        reported = task.fields.get("reported")
        if reported is None:
            return Text(elapsed)
        done, total, rate, at, committed = reported
        left = (total - done) / rate - (now - at) if rate > 0 and done < total else None
        return Text(f"{self.describe(done, total, rate, left, committed)} · {elapsed}")


LINE_SECONDS = 5.0  # off a terminal, a progress line at most this often (and always the last)


@contextmanager
def _progress(job: str) -> Iterator[Callable[[int, int, float, int], None]]:
    """A ``progress(done, total, rate, committed)`` for :func:`run_job`, shown on stderr: a bar with
    the counts, rate and ETA on a terminal, redrawn every second; else a line every few seconds and
    the last (logs and CI keep them)."""
    from dagster_project.runs import clock_text, progress_text

    with _terminal() as console:
        if not console.is_terminal:
            last = [float("-inf")]

            def line(done: int, total: int, rate: float, committed: int) -> None:
                now = time.monotonic()
                if committed < total and now - last[0] < LINE_SECONDS:
                    return
                last[0] = now
                console.print(f"silver: {progress_text(done, total, rate, committed=committed)}", highlight=False)

            yield line
            return
        columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                   _Pace(progress_text, clock_text))
        # the Live display leaves sys.stdout and sys.stderr as they are: run_job captures dbt's output
        with Progress(*columns, console=console, transient=True, refresh_per_second=4,
                      redirect_stdout=False, redirect_stderr=False) as bar:
            task = bar.add_task(f"running {job}", total=None)

            def show(done: int, total: int, rate: float, committed: int) -> None:
                bar.update(task, description="deriving Silver" if committed < total else f"running {job}",
                           completed=done, total=total, reported=(done, total, rate, time.monotonic(), committed))

            yield show
