"""The fixtures of the end-to-end CLI tests: the ``medallion`` app in-process. ``cli`` points it at the
test's database, home, inbox and Dagster instance; ``run`` at the database and home, with an optional
token and standard input."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from medallion.interfaces.cli import app
from medallion.settings import Settings


@pytest.fixture
def cli(settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("MEDALLION_DATABASE_URL", settings.database_url or "")
    monkeypatch.setenv("MEDALLION_HOME", str(settings.home))
    monkeypatch.setenv("MEDALLION_INBOX", str(settings.inbox))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    (tmp_path / "dagster_home").mkdir()
    monkeypatch.delenv("MEDALLION_TOKEN", raising=False)

    def invoke(*args: str):
        result = CliRunner().invoke(app, list(args))
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result.exit_code, result.stdout, result.stderr

    return invoke


@pytest.fixture
def run(settings: Settings, monkeypatch: pytest.MonkeyPatch):
    """Invoke the CLI in-process against the test database; returns (exit code, stdout, stderr)."""
    monkeypatch.setenv("MEDALLION_DATABASE_URL", settings.database_url or "")
    monkeypatch.setenv("MEDALLION_HOME", str(settings.home))
    monkeypatch.delenv("MEDALLION_TOKEN", raising=False)

    def invoke(*args: str, input: str | None = None, token: str | None = None):
        if token is None:
            monkeypatch.delenv("MEDALLION_TOKEN", raising=False)
        else:
            monkeypatch.setenv("MEDALLION_TOKEN", token)
        result = CliRunner().invoke(app, list(args), input=input)
        return result.exit_code, result.stdout, result.stderr

    return invoke
