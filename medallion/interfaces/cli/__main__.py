"""``python -m medallion.interfaces.cli``: the same command line as ``medallion``."""

from medallion.interfaces.cli import app

app()
