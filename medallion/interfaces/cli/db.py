"""The ``medallion db`` commands: the embedded PostgreSQL server's lifecycle, and migrating a server.

``db migrate`` is how an administrator prepares a PostgreSQL the app did not start: with
``--admin-url`` (or ``MEDALLION_ADMIN_DATABASE_URL``) it applies the migrations as the administrator
and sets up the app's password logins from the app's own settings (:mod:`medallion.db.provision`);
without one, the configured login migrates. ``start`` and ``status`` show URLs with the password
masked; ``db url`` prints the configured login whole, because its point is to be handed to psql or
dbt, and refuses under a token. ``db env`` prints the same login as the variables that
``dbt_project/profiles.yml`` reads, and the Dagster instance directory, as ``export`` lines for a shell
(``eval "$(medallion db env)"``): plain ``dbt`` and ``dagster`` then reach what ``medallion`` does.

``status`` logs in to an external server to tell whether it answers (exit 1 when it does not).
``stop`` is kept: until ``db start``, no command starts the embedded server again on demand
(:mod:`medallion.db.embedded`).
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import Annotated

import psycopg
import typer

from medallion.db import embedded
from medallion.db.migrate import MigrationChecksumError
from medallion.db.urls import masked
from medallion.interfaces.cli.shared import (
    JsonOpt,
    db_app,
    emit_json,
    fail,
    first_line,
    load_settings,
    out,
    refuse,
)
from medallion.settings import Settings


def _admin_url_shown(settings: Settings, url: str | None) -> str | None:
    """The administrative URL, password masked, for the local admin only: under a token it is left out."""
    return None if settings.token or url is None else masked(url)


@db_app.command("start")
def db_start(as_json: JsonOpt = False) -> None:
    """Start the embedded server (no-op with an external MEDALLION_DATABASE_URL)."""
    settings = load_settings()
    if not settings.uses_embedded:
        payload = {"mode": "external", "started": False, "url": _admin_url_shown(settings, settings.database_url)}
    else:
        try:
            url = embedded.start(settings, explicit=True)
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
    """Stop the embedded server; it stays stopped (no command starts it on demand) until `medallion db start`."""
    settings = load_settings()
    stopped = embedded.stop(settings)
    if as_json:
        emit_json({"mode": "embedded" if settings.uses_embedded else "external", "stopped": stopped})
    elif not settings.uses_embedded:
        out.print("An external database is configured; nothing to stop.")
    else:
        out.print(("Embedded PostgreSQL stopped" if stopped else "Embedded PostgreSQL was not running")
                  + "; no command starts it again until `medallion db start`.", soft_wrap=True)


@db_app.command("status")
def db_status(as_json: JsonOpt = False) -> None:
    """Report whether the server runs and where; an external one is asked with a login (exit 1 when it fails)."""
    settings = load_settings()
    st = embedded.status(settings)
    shown = _admin_url_shown(settings, st.url)
    payload = {"mode": st.mode, "running": st.running, "url": shown, "pgdata": st.pgdata, "pid": st.pid}
    if st.mode == "external":
        payload["problem"] = st.problem
    else:
        payload["stopped_by_user"] = st.stopped_by_user
    if as_json:
        emit_json(payload)
    elif st.mode == "external" and not st.running:
        where = f" at {shown}" if shown else ""
        out.print(f"external server: unreachable{where} ({st.problem}); check MEDALLION_DATABASE_URL and that "
                  "the server is up and accepts this login", markup=False, highlight=False, soft_wrap=True)
    elif st.mode == "embedded" and not st.running:
        out.print("embedded server: stopped; " + ("it stays stopped until `medallion db start`" if st.stopped_by_user
                                                  else "the next command starts it (or `medallion db start`)"),
                  markup=False, highlight=False, soft_wrap=True)
    else:
        out.print(f"{st.mode} server: running" + (f" at {shown}" if shown else ""), markup=False, highlight=False,
                  soft_wrap=True)
    if not st.running and st.mode == "external":
        raise typer.Exit(1)


@db_app.command("url")
def db_url(as_json: JsonOpt = False) -> None:
    """Print the connection URL of the application database (starts the embedded server)."""
    from medallion.db.connection import ensure_ready

    settings = load_settings()
    if settings.token:
        refuse("`db url` prints the administrative login and is for the local admin only: unset MEDALLION_TOKEN")
    try:
        url = ensure_ready(settings)
    except (embedded.ServerStopped, embedded.UnsafeRuntimeDir, MigrationChecksumError) as exc:
        fail(str(exc))
    except psycopg.OperationalError as exc:  # LoginFailed, DatabaseNotReady: one sentence, the password masked
        fail(first_line(exc))
    if as_json:
        emit_json({"url": url})
    else:
        sys.stdout.write(url + "\n")


@db_app.command("env")
def db_env(as_json: JsonOpt = False) -> None:
    """Print `export` lines for plain dbt and dagster: the MEDALLION_DBT_* variables profiles.yml reads (the
    embedded server's socket, or the external server) and DAGSTER_HOME; use `eval "$(medallion db env)"`."""
    from medallion.publish.dbt_runner import dbt_env

    settings = load_settings()
    if settings.token:
        refuse("`db env` prints the administrative login and is for the local admin only: unset MEDALLION_TOKEN")
    try:
        variables = dbt_env(settings)
    except (embedded.ServerStopped, embedded.UnsafeRuntimeDir, MigrationChecksumError) as exc:
        fail(str(exc))
    except psycopg.OperationalError as exc:
        fail(first_line(exc))
    # the instance rule of dagster_project/instance.py (the engine does not import Dagster)
    variables["DAGSTER_HOME"] = str(os.environ.get("DAGSTER_HOME", "").strip()
                                    or (settings.home / "dagster").resolve())
    if as_json:
        emit_json(variables)
        return
    sys.stdout.write("".join(f"export {key}={shlex.quote(value)}\n" for key, value in variables.items()))


@db_app.command("migrate")
def db_migrate(
    admin_url: Annotated[str | None, typer.Option(
        "--admin-url", help="The database administrator's URL (default: MEDALLION_ADMIN_DATABASE_URL, which keeps "
        "the password off the command line); without either, the configured login migrates.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Apply pending migrations; with an administrator's URL, also set up the app's logins from its settings."""
    from medallion.db import provision

    settings = load_settings()
    admin = admin_url or settings.admin_database_url
    try:
        report = provision.provision(settings, admin) if admin else provision.migrate_configured(settings)
    except (provision.ProvisionRefused, MigrationChecksumError, embedded.UnsafeRuntimeDir) as exc:
        fail(str(exc))
    except psycopg.OperationalError as exc:  # LoginFailed: already one sentence with the URL masked
        fail(first_line(exc))
    except psycopg.Error as exc:
        fail(f"migrating failed ({first_line(exc)}): run it with a login that may create roles and extensions, "
             "`medallion db migrate --admin-url ADMIN_URL`")
    if as_json:
        emit_json(report.summary())
        return
    applied = report.applied
    if applied:
        span = applied[0] if len(applied) == 1 else f"{applied[0]} to {applied[-1]}"
        out.print(f"{report.database}: applied {len(applied)} migration(s), {span}.", markup=False, highlight=False)
    else:
        out.print(f"{report.database}: no migration pending.", markup=False, highlight=False)
    for login in report.logins:
        done = ["created"] if login.created else []
        done.append("password set" if login.password_set else f"no password given in {login.setting}, none set")
        if login.member_of:
            done.append("member of " + ", ".join(login.member_of))
        out.print(f"  {login.role}: " + "; ".join(done), markup=False, highlight=False)
