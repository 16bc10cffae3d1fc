"""Running a job of the code location in-process, as the CLI's ``medallion materialize`` does.

The CLI is part of the engine package and never imports Dagster itself; this module is the one
door it opens into the code location, and it hands back plain data.
"""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass
from typing import Any

import dagster as dg

from dagster_project.definitions import defs
from dagster_project.keys import PYTHON_ASSETS
from medallion.settings import Settings


@dataclass(frozen=True)
class JobRun:
    """What one run did: success, its summary per layer, and (on failure) the reason and log tail."""

    success: bool
    summary: dict[str, Any]
    failure: str = ""
    log_tail: str = ""


def run_job(settings: Settings, full_rebuild: bool = False) -> JobRun:
    """Run ``incremental`` (or ``materialize_all``) against the settings' Dagster instance.

    ``DAGSTER_HOME`` is the settings' ``home/dagster`` unless the caller already set one.
    """
    dagster_home = (settings.home / "dagster").resolve()
    dagster_home.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("DAGSTER_HOME", str(dagster_home))
    job = "materialize_all" if full_rebuild else "incremental"
    captured = io.StringIO()  # dbt's log lines; returned only when the run fails
    with contextlib.redirect_stdout(captured):
        result = defs.resolve_job_def(job).execute_in_process(
            instance=dg.DagsterInstance.get(), raise_on_error=False,
            run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
        )
    summary = run_summary(result, job)
    if result.success:
        return JobRun(True, summary)
    failure = next((e for e in result.all_events if e.is_failure), None)
    return JobRun(False, summary, failure.message if failure and failure.message else "see the Dagster run log",
                  "\n".join(captured.getvalue().splitlines()[-30:]))


def _plain(value: Any) -> Any:
    """A metadata value as JSON-friendly Python (Markdown and JSON wrappers unwrapped)."""
    for attr in ("md_str", "data", "text", "value"):
        if hasattr(value, attr) and not isinstance(value, str | int | float | bool | list | dict):
            return getattr(value, attr)
    return value


def run_summary(result: dg.ExecuteInProcessResult, job: str) -> dict[str, Any]:
    """What a materialize run did, per layer, from its materialization metadata and check results."""
    metadata: dict[str, dict[str, Any]] = {}
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        metadata["/".join(mat.asset_key.path)] = {k: _plain(v.value) for k, v in mat.metadata.items()}
    checks = result.get_asset_check_evaluations()
    failed = sorted(f"{'/'.join(c.asset_key.path)}:{c.check_name}" for c in checks if not c.passed)
    python_keys = {"/".join(key.path) for key in PYTHON_ASSETS}
    dbt_keys = [k for k in metadata if k not in python_keys]
    return {
        "job": job,
        "run_id": result.run_id,
        "bronze": metadata.get("bronze/events", {}),
        "silver": metadata.get("silver/facts", {}),
        "dbt": {"models": len(dbt_keys), "checks_passed": len(checks) - len(failed),
                "checks_failed": len(failed), "failed_checks": failed},
        "gold": {k: v for k, v in metadata.items()
                 if k.startswith(("gold/", "gold_marts/")) and k != "gold/column_meta"},
        "dictionary": metadata.get("gold/column_meta", {}),
    }
