"""The ``medallion`` command line: a thin shell over the engine functions.

Every command takes ``--json`` for machine output, shows progress on long work, exits non-zero on
failure and reports errors as one sentence on stderr. Without ``MEDALLION_TOKEN`` the CLI acts as
the local admin; with it, as that capability only (a denial exits 2).

One module per group of commands; importing them registers their commands on :data:`app`.
"""

from __future__ import annotations

from medallion.interfaces.cli import (  # noqa: F401
    capability,
    db,
    discover,
    erase,
    export_command,
    ingest_command,
    materialize,
    overlay,
    reads,
    services,
)
from medallion.interfaces.cli.shared import app

__all__ = ["app", "main"]


def main() -> None:  # pragma: no cover - console entry
    app()
