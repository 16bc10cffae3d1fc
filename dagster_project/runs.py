"""Running the code location's jobs from the CLI's ``medallion materialize``.

The CLI is part of the engine package and never imports Dagster itself; this module is the one
door it opens into the code location, and it hands back plain data. A materialize is two runs on
the Dagster instance of :mod:`dagster_project.instance` (``DAGSTER_HOME`` when set, else
``$MEDALLION_HOME/dagster``), the one the UI shows: ``land_bronze`` lands the inbox (and
adds a partition for every new namespace), then ``materialize_all`` or ``incremental`` runs over
the namespaces' partitions: one run over the range of partitions when they are all wanted (or
adjacent), else one Silver run per namespace and one run of what lies downstream. With more than
one worker the run uses Dagster's multiprocess executor and the Silver derivation is shared out
into that many parallel steps; Dagster, not this module, spreads the steps over processes. While
the runs go, the derive steps' progress lines are read back from the instance (see
:mod:`dagster_project.progress`) and handed to the caller's ``progress(done, total, rate)``.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import dagster as dg

from dagster_project.automation import MATERIALIZE_TAG
from dagster_project.definitions import defs
from dagster_project.instance import instance_for
from dagster_project.keys import PYTHON_ASSETS, SILVER
from dagster_project.partitions import NAMESPACES, register
from dagster_project.progress import ProgressWatch, clock, describe
from medallion.bronze.namespaces import namespaces as bronze_namespaces
from medallion.db.connection import connect
from medallion.settings import Settings

RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"


class UnknownNamespace(ValueError):
    """A namespace asked for by name has no events in Bronze, so it has no partition."""


@dataclass(frozen=True)
class JobRun:
    """What one materialize did: success, its summary per layer, and (on failure) the reason and log tail."""

    success: bool
    summary: dict[str, Any]
    failure: str = ""
    log_tail: str = ""


def materialize_all_job() -> dg.JobDefinition:
    """The full rebuild, for ``reconstructable`` (the multiprocess executor re-imports the job)."""
    return defs.resolve_job_def("materialize_all")


def incremental_job() -> dg.JobDefinition:
    """The incremental run, for ``reconstructable``."""
    return defs.resolve_job_def("incremental")


def silver_job() -> dg.JobDefinition:
    """Silver alone, one namespace per run, when the namespaces asked for are not adjacent partitions."""
    return defs.resolve_job_def("derive_silver")


def downstream_job() -> dg.JobDefinition:
    """What lies downstream of Silver (dbt, Gold, the dictionary), run after per-namespace Silver runs."""
    return defs.resolve_job_def("downstream_of_silver")


JOBS = {"materialize_all": materialize_all_job, "incremental": incremental_job, "derive_silver": silver_job,
        "downstream_of_silver": downstream_job}


def run_config_for(job: str, full_rebuild: bool, workers: int) -> dict[str, Any]:
    """The run config of one of the materialize's runs: quiet console, the derivation's settings, and
    with more than one worker the multiprocess executor."""
    config: dict[str, Any] = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
    if job != "downstream_of_silver":
        # side by side, each step keeps to its share of the cores (one thread each on this 2-core machine)
        threads = max(1, (os.cpu_count() or 1) // workers) if workers > 1 else 0
        # a progress line every second (the engine's count moves within a window; the CLI redraws every second)
        config["ops"] = {"silver_derive": {"config": {"full_rebuild": full_rebuild, "steps": workers,
                                                      "threads_per_step": threads, "progress_seconds": 1.0}}}
    if workers > 1:
        # every step is a process of its own: fork them from a server that has imported the code
        # location once, rather than import it again in each
        config["execution"] = {"config": {"multiprocess": {
            "max_concurrent": workers,
            "start_method": {"forkserver": {"preload_modules": ["dagster_project.definitions"]}}}}}
    return config


@contextlib.contextmanager
def execute_run(instance: dg.DagsterInstance, job: str, run_config: dict[str, Any], workers: int,
             tags: dict[str, str] | None = None, partition_key: str | None = None,
             ) -> Iterator[dg.ExecuteInProcessResult | dg.ExecuteJobResult]:
    """One run of ``job``: in this process with one worker, under the multiprocess executor with more."""
    if workers <= 1:
        run_config = {k: v for k, v in run_config.items() if k != "execution"}
        yield JOBS[job]().execute_in_process(instance=instance, raise_on_error=False, run_config=run_config,
                                             tags=tags, partition_key=partition_key)
        return
    if partition_key is not None:
        tags = {**(tags or {}), "dagster/partition": partition_key}
    with dg.execute_job(dg.reconstructable(JOBS[job]), instance, run_config=run_config, tags=tags,
                        raise_on_error=False) as result:
        yield result


def land(instance: dg.DagsterInstance, settings: Settings,
         tags: dict[str, str] | None = None) -> dg.ExecuteInProcessResult:
    """The ``land_bronze`` run, then a partition for every namespace in Bronze that has none (those
    that came by ``remember`` or ``ingest`` as well as the inbox's). With ``MATERIALIZE_TAG`` in
    ``tags`` the automation leaves the landing to the caller, which derives it itself."""
    landing = defs.resolve_job_def("land_bronze").execute_in_process(
        instance=instance, raise_on_error=False, run_config=run_config_for("downstream_of_silver", False, 1),
        tags=tags)
    if landing.success:
        with connect(settings, "engine", autocommit=True) as conn:
            register(instance, bronze_namespaces(conn))
    return landing


def progress_text(done: int, total: int, rate: float, left: float | None = None,
                  committed: int | None = None) -> str:
    """The CLI's progress words: those of the derive steps' log lines (``left``: the ETA in seconds)."""
    return describe(done, total, rate, left, committed)


def clock_text(seconds: float) -> str:
    """A duration in the progress line's words (``m:ss``, ``h:mm:ss``)."""
    return clock(seconds)


def every_partition(instance: dg.DagsterInstance) -> dict[str, str]:
    """Run tags covering every namespace partition (empty when there is none yet)."""
    keys = instance.get_dynamic_partitions(NAMESPACES.name)
    return {RANGE_START: keys[0], RANGE_END: keys[-1]} if keys else {}


class _Captured:
    """dbt's log lines from this process (Python's stdout) and from step processes (file descriptor 1)."""

    def __init__(self) -> None:
        self.python = io.StringIO()
        self.file = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - closed by _captured_output

    def tail(self, lines: int = 30) -> str:
        self.file.flush()
        self.file.seek(0)
        return "\n".join((self.python.getvalue() + self.file.read()).splitlines()[-lines:])


@contextlib.contextmanager
def _captured_output() -> Iterator[_Captured]:
    """Keep stdout clean for the caller (``--json``): dbt prints its log, in this process and in the
    step processes of the multiprocess executor, which write to the inherited descriptor 1."""
    captured = _Captured()
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(captured.file.fileno(), 1)
    try:
        with contextlib.redirect_stdout(captured.python):
            yield captured
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
        captured.file.close()


def _contiguous(wanted: list[str], order: list[str]) -> bool:
    """Whether ``wanted`` (in partition order) is one unbroken range of ``order``."""
    first = order.index(wanted[0])
    return order[first:first + len(wanted)] == wanted


Run = tuple[str, dict[str, str] | None, str | None]  # job name, run tags, partition key


def plan_runs(job: str, order: list[str], namespaces: list[str] | None) -> list[Run]:
    """The runs of one materialize over the partitions in ``order``: one run over the range when the
    wanted namespaces are adjacent partitions (all of them, by default), else one ``derive_silver`` run
    per namespace and one ``downstream_of_silver`` run; without partitions, only what is downstream.

    Raises :class:`UnknownNamespace` for a namespace that is not a partition.
    """
    asked = set(order if namespaces is None else namespaces)
    unknown = sorted(asked - set(order))
    if unknown:
        raise UnknownNamespace(
            f"no events in namespace(s) {', '.join(unknown)}: the known namespaces are "
            f"{', '.join(order) or 'none yet (land some events first)'}")
    wanted = [ns for ns in order if ns in asked]  # in partition order
    if not wanted:  # nothing landed yet: there is no partition to derive
        return [("downstream_of_silver", None, None)]
    if _contiguous(wanted, order):
        return [(job, {RANGE_START: wanted[0], RANGE_END: wanted[-1]}, None)]
    return [*(("derive_silver", None, ns) for ns in wanted), ("downstream_of_silver", None, None)]


def run_job(settings: Settings, full_rebuild: bool = False, namespaces: list[str] | None = None,
            workers: int = 1, progress: Callable[[int, int, float, int], None] | None = None) -> JobRun:
    """Land the inbox, then run ``materialize_all`` (or ``incremental``) over the namespaces'
    partitions (all of them, or ``namespaces``) with ``workers`` parallel derive steps.

    ``progress(done, total, rate, committed)`` is called from a background thread with the events
    derived so far, the events to derive, the events per second and the events committed, over the
    derive steps, as the steps log them (every second; see :mod:`medallion.silver.derive_progress`).

    Raises :class:`UnknownNamespace` (nothing run past the landing) for a namespace with no events.
    """
    instance = instance_for(settings)
    job = "materialize_all" if full_rebuild else "incremental"
    summaries: list[dict[str, Any]] = []
    tag = (MATERIALIZE_TAG, uuid.uuid4().hex)
    with _captured_output() as captured:  # dbt's log lines; returned only when the run fails
        landing = land(instance, settings, {tag[0]: tag[1]})
        summaries.append(run_summary(landing, "land_bronze"))
        if not landing.success:
            return _failed(landing, summaries, job, captured)
        runs = plan_runs(job, instance.get_dynamic_partitions(NAMESPACES.name), namespaces)
        watch = ProgressWatch(instance, tag, progress) if progress else contextlib.nullcontext()
        with watch:
            for name, tags, key in runs:
                with execute_run(instance, name, run_config_for(name, full_rebuild, workers), workers,
                                 {**(tags or {}), tag[0]: tag[1]}, key) as result:
                    summaries.append(run_summary(result, name))
                    if not result.success:
                        return _failed(result, summaries, job, captured)
    return JobRun(True, _combined(summaries, job))


def _failed(result: Any, summaries: list[dict[str, Any]], job: str, captured: _Captured) -> JobRun:
    failure = next((e for e in result.all_events if e.is_failure), None)
    return JobRun(False, _combined(summaries, job),
                  failure.message if failure and failure.message else "see the Dagster run log", captured.tail())


def _combined(summaries: list[dict[str, Any]], job: str) -> dict[str, Any]:
    """The summaries of a materialize's runs as one: each layer from the run that built it."""
    combined: dict[str, Any] = {"job": job, "run_ids": [s["run_id"] for s in summaries]}
    combined["run_id"] = summaries[-1]["run_id"]
    for layer in ("bronze", "silver", "dictionary"):
        combined[layer] = next((s[layer] for s in summaries if s[layer]), {})
    combined["dbt"] = next((s["dbt"] for s in reversed(summaries) if s["dbt"]["models"]), summaries[-1]["dbt"])
    combined["gold"] = {k: v for s in summaries for k, v in s["gold"].items()}
    return combined


# Metadata kinds that are data: numbers, flags, text, JSON, paths and times. Markdown tables, table
# schemas and lineage are for the UI and stay out of the summary (and of `materialize --json`).
_DATA = (dg.IntMetadataValue, dg.FloatMetadataValue, dg.BoolMetadataValue, dg.TextMetadataValue,
         dg.JsonMetadataValue, dg.PathMetadataValue, dg.UrlMetadataValue, dg.TimestampMetadataValue)


def _data(metadata: Any) -> dict[str, Any]:
    """A materialization's metadata as plain JSON-friendly data, its data-valued entries only."""
    return {key: value.value for key, value in metadata.items() if isinstance(value, _DATA)}


def run_summary(result: dg.ExecuteInProcessResult | dg.ExecuteJobResult, job: str) -> dict[str, Any]:
    """What a run did, per layer, from its materialization metadata and check results."""
    metadata: dict[str, dict[str, Any]] = {}
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        # the first materialization of an asset is the run's; those after it describe one partition each
        metadata.setdefault("/".join(mat.asset_key.path), _data(mat.metadata))
    checks = result.get_asset_check_evaluations()
    failed = sorted(f"{'/'.join(c.asset_key.path)}:{c.check_name}" for c in checks if not c.passed)
    python_keys = {"/".join(key.path) for key in PYTHON_ASSETS}
    dbt_keys = [k for k in metadata if k not in python_keys]
    return {
        "job": job,
        "run_id": result.run_id,
        "bronze": metadata.get("bronze/events", {}),
        "silver": metadata.get("/".join(SILVER["facts"].path), {}),
        "dbt": {"models": len(dbt_keys), "checks_passed": len(checks) - len(failed),
                "checks_failed": len(failed), "failed_checks": failed},
        "gold": {k: v for k, v in metadata.items()
                 if k.startswith(("gold/", "gold_marts/")) and k != "gold/column_meta"},
        "dictionary": metadata.get("gold/column_meta", {}),
    }
