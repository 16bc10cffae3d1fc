"""The one Dagster instance every entry point uses, by one rule.

``DAGSTER_HOME`` when it is set (docker-compose sets it for every service, and a data engineer's own
deployment does), else ``$MEDALLION_HOME/dagster`` (``.medallion/dagster`` by default), created on first
use. ``medallion materialize``, ``medallion ui`` / ``make ui`` (the webserver and the daemon that
``dagster dev`` starts), ``make demo`` and the step processes of the multiprocess executor all resolve
it here, so a run started from any of them is in the instance the UI shows.
"""

import os
from pathlib import Path

import dagster as dg

from medallion.settings import Settings


def dagster_home(settings: Settings) -> Path:
    """The instance directory: ``DAGSTER_HOME`` when set, else ``<home>/dagster``; created if missing."""
    configured = os.environ.get("DAGSTER_HOME", "").strip()
    home = (Path(configured).expanduser() if configured else settings.home / "dagster").resolve()
    home.mkdir(parents=True, exist_ok=True)
    return home


def instance_for(settings: Settings) -> dg.DagsterInstance:
    """The instance of :func:`dagster_home`. ``DAGSTER_HOME`` is exported too: the step processes of
    the multiprocess executor and ``dagster`` subprocesses load the instance from it."""
    os.environ["DAGSTER_HOME"] = str(dagster_home(settings))
    return dg.DagsterInstance.get()
