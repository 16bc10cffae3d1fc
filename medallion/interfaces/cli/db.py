"""The ``medallion db`` commands: the embedded PostgreSQL server's lifecycle."""

from __future__ import annotations

import sys

from medallion.db import embedded
from medallion.interfaces.cli.common import (
    JsonOpt,
    db_app,
    emit_json,
    fail,
    load_settings,
    out,
    refuse,
)
from medallion.settings import Settings


def _admin_url_shown(settings: Settings, url: str | None) -> str | None:
    """The administrative URL, for the local admin only: under a token it is left out."""
    return None if settings.token else url


@db_app.command("start")
def db_start(as_json: JsonOpt = False) -> None:
    """Start the embedded server (no-op with an external MEDALLION_DATABASE_URL)."""
    settings = load_settings()
    if not settings.uses_embedded:
        payload = {"mode": "external", "started": False, "url": _admin_url_shown(settings, settings.database_url)}
    else:
        try:
            url = embedded.start(settings)
        except embedded.UnsafeRuntimeDir as exc:
            fail(str(exc))
        payload = {"mode": "embedded", "started": True, "url": _admin_url_shown(settings, url),
                   "pgdata": str(settings.pgdata)}
    if as_json:
        emit_json(payload)
    elif payload["mode"] == "external":
        out.print("An external database is configured (MEDALLION_DATABASE_URL); nothing to start.")
    else:
        out.print("Embedded PostgreSQL is running" + (f": {payload['url']}" if payload["url"] else "."))


@db_app.command("stop")
def db_stop(as_json: JsonOpt = False) -> None:
    """Stop the embedded server."""
    settings = load_settings()
    stopped = embedded.stop(settings)
    if as_json:
        emit_json({"mode": "embedded" if settings.uses_embedded else "external", "stopped": stopped})
    elif not settings.uses_embedded:
        out.print("An external database is configured; nothing to stop.")
    else:
        out.print("Embedded PostgreSQL stopped." if stopped else "Embedded PostgreSQL was not running.")


@db_app.command("status")
def db_status(as_json: JsonOpt = False) -> None:
    """Report whether the server runs and where."""
    settings = load_settings()
    st = embedded.status(settings)
    payload = {"mode": st.mode, "running": st.running, "url": _admin_url_shown(settings, st.url),
               "pgdata": st.pgdata, "pid": st.pid}
    if as_json:
        emit_json(payload)
    else:
        state = "running" if st.running else "stopped"
        out.print(f"{st.mode} server: {state}" + (f" at {payload['url']}" if payload["url"] else ""))


@db_app.command("url")
def db_url(as_json: JsonOpt = False) -> None:
    """Print the connection URL of the application database (starts the embedded server)."""
    from medallion.db.connection import ensure_ready

    settings = load_settings()
    if settings.token:
        refuse("`db url` prints the administrative login and is for the local admin only: unset MEDALLION_TOKEN")
    url = ensure_ready(settings)
    if as_json:
        emit_json({"url": url})
    else:
        sys.stdout.write(url + "\n")
