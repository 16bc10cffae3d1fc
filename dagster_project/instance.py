"""The one Dagster instance every entry point uses, by one rule.

``DAGSTER_HOME`` when it is set (docker-compose sets it for every service, and a data engineer's own
deployment does), else ``$MEDALLION_HOME/dagster`` (``.medallion/dagster`` by default), created on first
use. ``medallion materialize``, ``medallion ui`` / ``make ui`` (the webserver and the daemon that
``dagster dev`` starts), ``make demo`` and the step processes of the multiprocess executor all resolve
it here, so a run started from any of them is in the instance the UI shows. A plain ``dagster dev`` in
the repository root reaches the same storage through the root ``dagster.yaml``.

The default directory gets a ``dagster.yaml`` of its own on first use (Dagster's default storage, no
telemetry): an instance directory without one makes every Dagster process warn that it found no
configuration file. A ``DAGSTER_HOME`` set by hand is the deployment's to configure, and left as it is.
"""

import os
from pathlib import Path

import dagster as dg

from medallion.settings import Settings

LOCAL_CONFIG = """\
# The local Dagster instance of medallion-memory (dagster_project/instance.py): Dagster's default
# storage in this directory. Written on first use; yours to edit.
telemetry:
  enabled: false
"""


def dagster_home(settings: Settings) -> Path:
    """The instance directory: ``DAGSTER_HOME`` when set, else ``<home>/dagster``, created (with its
    ``dagster.yaml``) if missing."""
    configured = os.environ.get("DAGSTER_HOME", "").strip()
    home = (Path(configured).expanduser() if configured else settings.home / "dagster").resolve()
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not configured and not config.exists():
        config.write_text(LOCAL_CONFIG)
    return home


def instance_for(settings: Settings) -> dg.DagsterInstance:
    """The instance of :func:`dagster_home`. ``DAGSTER_HOME`` is exported too: the step processes of
    the multiprocess executor and ``dagster`` subprocesses load the instance from it."""
    os.environ["DAGSTER_HOME"] = str(dagster_home(settings))
    return dg.DagsterInstance.get()
