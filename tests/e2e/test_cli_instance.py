"""`medallion ui` starts the code location's launcher. That its runs and the CLI's share one instance is
checked where a materialization runs anyway: tests/e2e/test_cli_silver.py (without DAGSTER_HOME) and
tests/e2e/test_cli_materialize.py (with it)."""

from __future__ import annotations

import sys

import pytest

from medallion.interfaces.cli import services


def test_ui_command_starts_the_code_locations_launcher(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """`medallion ui` starts dagster_project/ui.py, which resolves the instance by the rule every other
    entry point uses (the engine cannot import Dagster to resolve it itself)."""
    started: list[list[str]] = []
    monkeypatch.setattr(services.subprocess, "call", lambda argv, **_: started.append(argv) or 0)
    code, _, err = cli("ui", "--port", "3123")
    assert code == 0, err
    assert started == [[sys.executable, "-m", "dagster_project.ui", "--port", "3123"]]
