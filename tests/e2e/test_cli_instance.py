"""One Dagster instance for the CLI and the UI: without DAGSTER_HOME, `medallion materialize` records its
runs in $MEDALLION_HOME/dagster, which is the instance `medallion ui` opens (with DAGSTER_HOME set,
both use it: tests/e2e/test_cli_materialize_dbt.py). In a module of its own: the run is long."""

from __future__ import annotations

import json
import sys

import dagster as dg
import pytest

from dagster_project import ui
from medallion.interfaces.cli import services
from medallion.settings import Settings, get_settings
from tests.support.cli_events import hr_fact


def test_ui_command_starts_the_code_locations_launcher(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """`medallion ui` starts dagster_project/ui.py, which resolves the instance by the rule every other
    entry point uses (the engine cannot import Dagster to resolve it itself)."""
    started: list[list[str]] = []
    monkeypatch.setattr(services.subprocess, "call", lambda argv, **_: started.append(argv) or 0)
    code, _, err = cli("ui", "--port", "3123")
    assert code == 0, err
    assert started == [[sys.executable, "-m", "dagster_project.ui", "--port", "3123"]]


@pytest.mark.slow
def test_without_dagster_home_materialize_records_in_the_instance_the_ui_opens(
        cli, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DAGSTER_HOME")
    argv, ui_env = ui.command(get_settings(), 3000)
    assert argv[1:4] == ["-m", "dagster", "dev"]
    assert ui_env["DAGSTER_HOME"] == str((settings.home / "dagster").resolve())

    (settings.inbox / "hr.jsonl").write_text(json.dumps(hr_fact(1, "Ines", "works_on", "billing",
                                                                "2026-02-01T00:00:00Z", 1)))
    code, out, err = cli("materialize", "--json")
    assert code == 0, err
    runs = json.loads(out)["run_ids"]
    ui_instance = dg.DagsterInstance.from_config(ui_env["DAGSTER_HOME"])
    assert len(runs) == 2 and all(ui_instance.get_run_by_id(run_id) for run_id in runs)
    assert ui_instance.get_latest_materialization_event(dg.AssetKey(["silver", "facts"])) is not None
