"""Dagster's own check of the code location every deployment loads (docs/DEPLOY.md).

`dagster definitions validate -m dagster_project.definitions` is what a code server does at start:
import the module and build every asset, job, schedule and sensor. It runs as a subprocess of the
venv's `dagster`, with DAGSTER_HOME in a temporary directory: run from the repository root without
it, the CLI would read ./dagster.yaml (the local instance in .medallion/dagster) and write there.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DAGSTER = Path(sys.executable).parent / "dagster"


def _validate(module: str, dagster_home: Path) -> subprocess.CompletedProcess[str]:
    dagster_home.mkdir(exist_ok=True)
    env = {**os.environ, "DAGSTER_HOME": str(dagster_home), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([str(DAGSTER), "definitions", "validate", "-m", module], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module", autouse=True)
def _dagster_cli() -> None:
    assert DAGSTER.is_file(), f"no dagster CLI next to {sys.executable}"


def test_definitions_validate(tmp_path: Path) -> None:
    """Deployment: the code location loads and validates, as a code server would load it."""
    result = _validate("dagster_project.definitions", tmp_path / "dagster_home")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Validation successful" in result.stdout + result.stderr


def test_definitions_validate_fails_on_a_broken_location(tmp_path: Path) -> None:
    """Deployment: the check above can fail (a module that does not load is refused)."""
    result = _validate("dagster_project.no_such_module", tmp_path / "dagster_home")
    assert result.returncode != 0
