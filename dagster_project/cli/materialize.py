"""``medallion materialize``: run the Dagster job in-process and summarise what each layer did."""

from __future__ import annotations

import contextlib
import io
import os
from typing import Annotated, Any

import typer

from dagster_project.cli.common import (
    JsonOpt,
    app,
    emit_json,
    err,
    fail,
    load_settings,
    out,
    plain,
)


@app.command("materialize")
def materialize(
    full_rebuild: Annotated[bool, typer.Option("--full-rebuild", help="Re-derive everything from Bronze.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Run the Dagster job in-process: land the inbox, derive Silver, build dbt and the data dictionary."""
    import dagster as dg

    from dagster_project.definitions import defs

    settings = load_settings()
    dagster_home = (settings.home / "dagster").resolve()
    dagster_home.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("DAGSTER_HOME", str(dagster_home))
    job = "materialize_all" if full_rebuild else "incremental"
    captured = io.StringIO()  # dbt's log lines; shown only when the run fails
    with err.status(f"running {job}…"), contextlib.redirect_stdout(captured):
        result = defs.resolve_job_def(job).execute_in_process(
            instance=dg.DagsterInstance.get(), raise_on_error=False,
            run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
        )
    summary = run_summary(result, job)
    if not result.success:
        tail = "\n".join(captured.getvalue().splitlines()[-30:])
        if tail:
            err.print(tail, markup=False, highlight=False)
        failure = next((e for e in result.all_events if e.is_failure), None)
        fail(f"{job} failed: {failure.message if failure else 'see the Dagster run log'}")
    if as_json:
        emit_json(summary)
        return
    bronze, facts, dbt = summary["bronze"], summary["silver"], summary["dbt"]
    out.print(f"{job}: run {result.run_id}")
    out.print(f"  bronze: inserted {bronze.get('inserted', 0)}, rejected {bronze.get('rejected', 0)}")
    out.print(f"  silver: {facts.get('events_processed', 0)} events → added {facts.get('added', 0)}, "
              f"updated {facts.get('updated', 0)}, superseded {facts.get('superseded', 0)}, skipped "
              f"{facts.get('skipped', 0)}, contested {facts.get('contested', 0)}; failures {facts.get('failures', 0)}")
    out.print(f"  dbt: {dbt['models']} models and seeds built; checks {dbt['checks_passed']} passed, "
              f"{dbt['checks_failed']} failed")
    out.print(f"  data dictionary: {summary['dictionary'].get('dagster/row_count', 0)} columns documented")


def run_summary(result: Any, job: str) -> dict[str, Any]:
    """What a materialize run did, per layer, from its materialization metadata and check results."""
    metadata: dict[str, dict[str, Any]] = {}
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        metadata["/".join(mat.asset_key.path)] = {k: plain(v.value) for k, v in mat.metadata.items()}
    checks = result.get_asset_check_evaluations()
    failed = sorted(f"{'/'.join(c.asset_key.path)}:{c.check_name}" for c in checks if not c.passed)
    from dagster_project.keys import PYTHON_ASSETS

    python_keys = {"/".join(key.path) for key in PYTHON_ASSETS}
    dbt_keys = [k for k in metadata if k not in python_keys]
    return {
        "job": job,
        "run_id": result.run_id,
        "bronze": metadata.get("bronze/events", {}),
        "silver": metadata.get("silver/facts", {}),
        "dbt": {"models": len(dbt_keys), "checks_passed": len(checks) - len(failed),
                "checks_failed": len(failed), "failed_checks": failed},
        "gold": {k: v for k, v in metadata.items() if k.startswith("gold/") and k != "gold/column_meta"},
        "dictionary": metadata.get("gold/column_meta", {}),
    }
