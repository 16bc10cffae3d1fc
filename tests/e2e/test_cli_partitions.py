"""`medallion materialize --namespace NS` and `--workers N` (scale-out): one namespace's partition
derived alone, then the rest in parallel steps under Dagster's multiprocess executor (their progress
on stderr), the runs recorded in the instance the UI reads, and an unknown namespace refused in one
sentence. In a module
of its own: the runs are long."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import dagster as dg
import psycopg
import pytest

from medallion.settings import Settings


@pytest.mark.slow
def test_one_namespace_then_the_rest_in_parallel_steps(cli, settings: Settings, examples_dir: Path,
                                                       tmp_path: Path, engine_conn: psycopg.Connection) -> None:
    shutil.copy(examples_dir / "team_events.jsonl", settings.inbox / "team.jsonl")
    code, out, err = cli("materialize", "--namespace", "team-borealis", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["bronze"]["inserted"] == 53  # the landing takes every namespace's events
    assert summary["silver"]["namespaces"] == ["team-borealis"] and summary["silver"]["events_processed"] == 5
    derived = "SELECT namespace, count(*) FROM silver.derivations GROUP BY 1 ORDER BY 1"
    assert engine_conn.execute(derived).fetchall() == [("team-borealis", 5)]
    assert summary["dbt"]["checks_failed"] == 0 and summary["dbt"]["models"] > 10

    code, out, err = cli("materialize", "--workers", "2", "--json")
    assert code == 0, err
    # progress from the step processes, read back from the instance: team-atlas's 48 events (the
    # other step has nothing left to derive)
    assert "silver: 48/48 events derived (" in err
    summary = json.loads(out)
    silver = summary["silver"]
    assert silver["parallel_steps"] == 2 and silver["namespaces"] == ["team-atlas", "team-borealis"]
    assert silver["events_processed"] == 48 and silver["failures"] == 0
    assert engine_conn.execute(derived).fetchall() == [("team-atlas", 48), ("team-borealis", 5)]
    # the run is in the instance the UI reads, each derive step in a process of its own
    instance = dg.DagsterInstance.from_config(str(tmp_path / "dagster_home"))
    run = instance.get_run_by_id(summary["run_id"])
    assert run is not None and run.tags["dagster/asset_partition_range_start"] == "team-atlas"
    pids = {e.dagster_event.pid for e in instance.all_logs(run.run_id)
            if e.dagster_event and e.dagster_event.event_type_value == "STEP_START"
            and (e.step_key or "").startswith("silver_derive.derive_group")}
    assert len(pids) == 2, "two derive steps, two processes"

    code, out, err = cli("materialize", "--namespace", "team-nowhere")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "team-nowhere" in err and "team-atlas, team-borealis" in err
