"""``medallion materialize``: run the Dagster job in-process and summarise what each layer did.

While Silver derives, stderr shows events derived / total with a rate and an ETA: a live bar on a
terminal, else one line per update (the derive steps report every few seconds).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn

from medallion.db import embedded
from medallion.interfaces.cli.common import JsonOpt, app, emit_json, err, fail, load_settings, out, refuse


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
def _progress(job: str) -> Iterator[Callable[[int, int, float], None]]:
    """A ``progress(done, total, rate)`` for :func:`run_job`, shown on stderr: a bar with the rate and
    ETA on a terminal, else a line per update (logs and CI keep them)."""
    from dagster_project.runs import progress_text

    if not err.is_terminal:
        yield lambda done, total, rate: err.print(f"silver: {progress_text(done, total, rate)}", highlight=False)
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[text]}"))
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task(f"running {job}", total=None, text="")

        def show(done: int, total: int, rate: float) -> None:
            bar.update(task, description="deriving Silver" if done < total else f"running {job}",
                       completed=done, total=total, text=progress_text(done, total, rate))

        yield show
