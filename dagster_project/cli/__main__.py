"""``python -m dagster_project.cli``: the same command line as ``medallion``."""

from dagster_project.cli import app

app()
