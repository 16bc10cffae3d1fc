"""``medallion ui`` / ``make ui``: ``dagster dev`` on this code location, on the instance of
:mod:`dagster_project.instance` (the one ``medallion materialize`` records its runs in).

``dagster dev`` starts the webserver and the daemon (sensors, schedules, backfills, the run queue and
the automation sensor) with the same ``DAGSTER_HOME``. Run as ``python -m dagster_project.ui --port N``:
the CLI starts it as a process, since the engine package never imports Dagster.
"""

import argparse
import os
import subprocess
import sys

from dagster_project.instance import dagster_home
from medallion.settings import Settings, get_settings

# `dagster dev` advises `dg dev` (a separate package, dagster-dg-cli, that runs the same services), and
# gRPC logs its fork handling at INFO: neither is for the person who typed `make ui`.
QUIET = {"PYTHONWARNINGS": "ignore:Function `dev_command` is superseded", "GRPC_VERBOSITY": "ERROR"}


def command(settings: Settings, port: int) -> tuple[list[str], dict[str, str]]:
    """The ``dagster dev`` command line and its environment (``DAGSTER_HOME`` by the instance rule).
    It runs in ``DAGSTER_HOME``: started in the repository root, ``dagster dev`` would warn that the
    root's ``dagster.yaml`` (for a plain ``dagster dev`` without ``DAGSTER_HOME``) is not read."""
    env = {**QUIET, **os.environ, "DAGSTER_HOME": str(dagster_home(settings))}
    argv = [sys.executable, "-m", "dagster", "dev", "-m", "dagster_project.definitions", "-h", "127.0.0.1",
            "-p", str(port)]
    return argv, env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dagster_project.ui", description=__doc__)
    parser.add_argument("--port", type=int, default=3000)
    args = parser.parse_args(argv)
    cmd, env = command(get_settings(), args.port)
    print(f"Dagster UI on http://127.0.0.1:{args.port}, instance {env['DAGSTER_HOME']} (Ctrl-C to stop)",
          flush=True)
    return subprocess.call(cmd, env=env, cwd=env["DAGSTER_HOME"])


if __name__ == "__main__":
    raise SystemExit(main())
