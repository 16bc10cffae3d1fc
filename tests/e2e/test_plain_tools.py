"""Plain tools work from a checkout, on what `medallion` uses: `dagster dev` in the repository root
reads the root dagster.yaml, which keeps its storage where `make ui` and `medallion materialize` keep
theirs (no PostgreSQL storage, no dagster-postgres); `medallion db env` prints what a shell exports for
plain `dbt` and `dagster`; profiles.yml finds the embedded server's socket without any variable."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.instance.ref import InstanceRef
from psycopg.conninfo import conninfo_to_dict

from dagster_project.instance import instance_for
from medallion.publish.dbt_runner import DBT_PROJECT_DIR, dbt_executable
from medallion.settings import Settings

REPO = Path(__file__).resolve().parents[2]


def test_plain_dagster_dev_in_the_root_uses_the_instance_of_make_ui(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """What `dagster dev` does without DAGSTER_HOME (a temporary directory, configured by ./dagster.yaml)
    lands its runs in .medallion/dagster, where the instance of `make ui` reads them."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "dagster.yaml").write_text((REPO / "dagster.yaml").read_text())
    monkeypatch.chdir(checkout)
    monkeypatch.setenv("DAGSTER_HOME", "")  # restored after the test: instance_for exports it
    monkeypatch.delenv("DAGSTER_HOME")
    scratch = tmp_path / ".tmp_dagster_home_x"
    scratch.mkdir()
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(scratch), config_dir=str(checkout))) as plain:
        run = plain.create_run_for_job(dg.GraphDefinition(name="noop").to_job())
    with caplog.at_level(logging.WARNING, logger="dagster"):
        local = instance_for(Settings(home=checkout / ".medallion"))
    assert local.get_run_by_id(run.run_id) is not None, "the run is in the instance the UI opens"
    assert (checkout / ".medallion" / "dagster" / "dagster.yaml").is_file()
    assert not list(scratch.iterdir()), "nothing kept in dagster dev's temporary directory"
    # the default instance directory has its own configuration: Dagster does not warn about a missing one
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    with caplog.at_level(logging.WARNING, logger="dagster"):
        instance_for(Settings(home=checkout / ".medallion"))
        dg.DagsterInstance.get()
    assert "No dagster instance configuration file" not in caplog.text


def test_db_env_exports_what_plain_dbt_and_dagster_need(run, settings: Settings) -> None:
    code, out, _ = run("db", "env", "--json")
    assert code == 0
    variables = json.loads(out)
    params = conninfo_to_dict(settings.database_url or "")
    assert variables["MEDALLION_DBT_HOST"] == params["host"]
    assert variables["MEDALLION_DBT_DBNAME"] == params["dbname"]
    assert variables["DAGSTER_HOME"]
    code, out, _ = run("db", "env")
    assert code == 0
    assert out.splitlines()[0].startswith("export MEDALLION_DBT_HOST=")
    assert f"export MEDALLION_DBT_DBNAME={params['dbname']}" in out.splitlines()

    # a plain `dbt debug` in dbt_project/ with those variables exported connects
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDALLION_")}
    env.update({k: v for k, v in variables.items() if k.startswith("MEDALLION_DBT_")})
    debug = subprocess.run([dbt_executable(), "debug"], cwd=DBT_PROJECT_DIR, env={**env, "PWD": str(DBT_PROJECT_DIR)},
                           capture_output=True, text=True, check=False)
    assert debug.returncode == 0 and "Connection test: [OK connection ok]" in debug.stdout, debug.stdout[-2000:]

    # without MEDALLION_DBT_HOST the profile finds the socket in the home's pgdata (MEDALLION_HOME's,
    # else ../.medallion from dbt_project/)
    socket_dir = Path(params["host"])
    assert socket_dir.name == "pgdata", "the test server keeps its socket in its data directory"
    env.pop("MEDALLION_DBT_HOST")
    env["MEDALLION_HOME"] = str(socket_dir.parent)
    debug = subprocess.run([dbt_executable(), "debug"], cwd=DBT_PROJECT_DIR,
                           env={**env, "PWD": str(DBT_PROJECT_DIR)}, capture_output=True, text=True, check=False)
    assert debug.returncode == 0, debug.stdout[-2000:]


def test_plain_dg_in_the_root_loads_this_code_location() -> None:
    """`dg` (dg dev, dg list, dg check) reads [tool.dg] in pyproject.toml: from the repository root it
    finds this code location, its jobs and the inbox sensor, with no option."""
    env = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
    listed = subprocess.run([str(Path(sys.executable).with_name("dg")), "list", "defs", "--json"], cwd=REPO,
                            env=env, capture_output=True, text=True, check=False)
    assert listed.returncode == 0, listed.stderr[-2000:]
    defs = json.loads(listed.stdout)
    assert "materialize_all" in {job["name"] for job in defs["jobs"]}
    assert "inbox_sensor" in {sensor["name"] for sensor in defs.get("sensors", [])}
