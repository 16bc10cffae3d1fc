"""Connections to the medallion database, each logged in as one of the project's roles.

``admin_url`` is the configured login (``MEDALLION_DATABASE_URL``; the embedded server's superuser by
default): the local admin's identity, which mints capabilities and which dbt logs in with. Engine
and tool work logs in *as* ``medallion_engine`` / ``medallion_tool`` (same server and database, the
configured login's user swapped; the embedded server trusts local socket logins). Because these are
the session users, SQL on such a connection cannot ``RESET ROLE`` its way to the configured login, so
the grants, triggers and row-level security apply to the code exactly as to any other client.
``medallion_owner`` never logs in.

Who migrates: a configured login that is a superuser (the embedded server; a server the app
administers itself) applies pending migrations on first use. Any other login only checks: on an
external server the administrator runs ``medallion db migrate --admin-url URL`` once
(:mod:`medallion.db.provision`), which also gives ``medallion_engine`` and ``medallion_tool`` the
passwords of ``MEDALLION_ENGINE_DATABASE_URL`` / ``MEDALLION_TOOL_DATABASE_URL`` and creates the
configured login as a non-superuser member of ``medallion_owner`` and ``medallion_engine``. The app
then runs with those password logins alone; when the database is behind it stops with
:class:`DatabaseNotReady`, one sentence saying what to run, rather than half-applying a migration it
has no right to. A refused login is :class:`LoginFailed`, and an embedded server the user stopped is
:class:`~medallion.db.embedded.ServerStopped` (it is not started on demand). None of these messages
holds a password: a refused login's reason is scrubbed of it and does not chain libpq's own error.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import ConnectionPool

from medallion.db import embedded
from medallion.db.migrate import migrate, pending
from medallion.db.urls import failure_reason, masked, scrubbed
from medallion.settings import Settings

Role = Literal["admin", "engine", "tool"]
ROLE_NAMES: dict[str, str | None] = {
    "admin": None,
    "engine": "medallion_engine",
    "tool": "medallion_tool",
}
APP_DATABASE = "medallion"
_ready: set[str] = set()


class LoginFailed(psycopg.OperationalError):
    """A login was refused or the server not reached; the message names the masked URL and the setting to fix."""


class DatabaseNotReady(psycopg.OperationalError):
    """The database lacks migrations (or database grants) that the configured login may not apply."""


def _setting(settings: Settings, role: Role) -> str:
    """Where the URL of ``role``'s login comes from, for messages that say what to check."""
    if settings.uses_embedded:
        return "the embedded server (`medallion db status`)"
    explicit = {"engine": (settings.engine_database_url, "MEDALLION_ENGINE_DATABASE_URL"),
                "tool": (settings.tool_database_url, "MEDALLION_TOOL_DATABASE_URL")}.get(role)
    if explicit is None:
        return "MEDALLION_DATABASE_URL"
    return explicit[1] if explicit[0] else f"{explicit[1]}, which is unset"


def open_login(url: str, setting: str, **kwargs: object) -> psycopg.Connection:
    """``psycopg.connect`` whose failure is one sentence: the URL masked, the reason, the setting to check."""
    try:
        return psycopg.connect(url, **kwargs)  # type: ignore[arg-type]
    except psycopg.OperationalError as exc:
        raise LoginFailed(f"cannot log in to {masked(url)}: {scrubbed(failure_reason(exc), url)}; "
                          f"check {setting}") from None
    except psycopg.ProgrammingError:  # its message quotes the string, password included
        raise LoginFailed(f"{setting} is not a valid PostgreSQL connection URL") from None


def is_superuser(conn: psycopg.Connection) -> bool:
    """Whether the session user is a superuser (reported by the server at login)."""
    return conn.info.parameter_status("is_superuser") == "on"


def admin_url(settings: Settings) -> str:
    """URL of the application database as the administrative login; starts the embedded server."""
    if not settings.uses_embedded:
        return settings.database_url  # type: ignore[return-value]
    server_url = embedded.start(settings)
    with psycopg.connect(server_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (APP_DATABASE,)).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(APP_DATABASE)))
    return embedded.with_database(server_url, APP_DATABASE)


def ensure_ready(settings: Settings) -> str:
    """Start the server if embedded and make sure the schema is current, once per process; return the admin URL.

    A superuser login applies what is pending; any other login raises :class:`DatabaseNotReady`.
    """
    url = admin_url(settings)
    if url not in _ready:
        with open_login(url, _setting(settings, "admin"), autocommit=True) as conn:
            prepare(conn)
        _ready.add(url)
    return url


def prepare(conn: psycopg.Connection, *, apply: bool | None = None) -> list[str]:
    """Apply pending migrations and database grants (``apply``; default: when ``conn`` is a superuser),
    else check that none are pending. Returns the names of the migrations applied."""
    if apply is None:
        apply = is_superuser(conn)
    if apply:
        applied = migrate(conn)
        grant_database_privileges(conn)
        return applied
    problem = _readiness_problem(conn)
    if problem:
        info = conn.info
        raise DatabaseNotReady(
            f"the database {info.dbname} at {info.host}:{info.port} {problem}, and {info.user} is not a superuser, "
            "so the app applies no migration: run `medallion db migrate --admin-url ADMIN_URL` once as the "
            "database administrator")
    return []


def _readiness_problem(conn: psycopg.Connection) -> str | None:
    """What keeps a login that may not migrate from using the database, as a clause; None when nothing does."""
    todo = pending(conn)
    if todo is None:
        return f"keeps a migration history that {conn.info.user} cannot read"
    if todo:
        names = [m.name.removesuffix(".sql") for m in todo]
        span = names[0] if len(names) == 1 else f"{names[0]} to {names[-1]}"
        return f"has {len(names)} pending migration{'s' if len(names) > 1 else ''} ({span})"
    if not _database_privileges_granted(conn):
        return "lacks the database privileges of the medallion roles"
    return None


def _database_privileges_granted(conn: psycopg.Connection) -> bool:
    return bool(conn.execute(
        "SELECT has_database_privilege('medallion_owner', current_database(), 'CREATE') "
        "AND has_database_privilege('medallion_engine', current_database(), 'TEMPORARY') "
        "AND has_database_privilege('medallion_tool', current_database(), 'CONNECT') "
        "AND NOT has_database_privilege('medallion_tool', current_database(), 'TEMPORARY')").fetchone()[0])


def grant_database_privileges(conn: psycopg.Connection) -> None:
    """Database-level grants, which live per database and are not copied by CREATE DATABASE … TEMPLATE.

    medallion_owner needs CREATE on the database so dbt (acting as the owner) can create its
    staging and reference schemas; the engine needs CONNECT and TEMPORARY (ingest stages rows in a
    temporary table); the tool login only CONNECT. PostgreSQL gives every role TEMPORARY on a new
    database through PUBLIC; it is taken back, so the tool login cannot create even a temporary
    function for a leaky predicate to call.
    """
    if _database_privileges_granted(conn):
        return
    database = sql.Identifier(conn.info.dbname)
    try:
        conn.execute(sql.SQL("GRANT CREATE, CONNECT, TEMPORARY ON DATABASE {} TO medallion_owner").format(database))
        conn.execute(sql.SQL("GRANT CONNECT, TEMPORARY ON DATABASE {} TO medallion_engine").format(database))
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO medallion_tool").format(database))
        conn.execute(sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM PUBLIC, medallion_tool").format(database))
    except psycopg.errors.InternalError:
        pass  # "tuple concurrently updated": another process granted the same privileges at the same moment


def role_url(settings: Settings, role: Role) -> str:
    """Connection string that logs in as ``role`` (after migrations are applied)."""
    if role not in ROLE_NAMES:
        raise ValueError(f"unknown role {role!r}: the code connects as admin, engine or tool only")
    url = ensure_ready(settings)
    explicit = {"engine": settings.engine_database_url, "tool": settings.tool_database_url}.get(role)
    if explicit:
        return explicit
    name = ROLE_NAMES[role]
    if name is None:
        return url
    params = conninfo_to_dict(url)
    params["user"] = name
    params.pop("password", None)
    return make_conninfo(**params)


def connect(settings: Settings, role: Role = "engine", autocommit: bool = False) -> psycopg.Connection:
    """A new connection logged in as ``role``, with pgvector's ``vector`` type adapted to numpy."""
    conn = open_login(role_url(settings, role), _setting(settings, role), autocommit=True)
    register_vector(conn)
    conn.autocommit = autocommit
    return conn


@contextmanager
def connection(settings: Settings, role: Role = "engine") -> Iterator[psycopg.Connection]:
    """Context-managed :func:`connect`; commits on success, rolls back on error."""
    conn = connect(settings, role)
    try:
        with conn:
            yield conn
    finally:
        conn.close()


def make_pool(settings: Settings, role: Role = "engine", max_size: int = 4) -> ConnectionPool:
    """A psycopg pool whose connections all act as ``role``.

    One login is tried first: a pool retries a refused login in the background until its caller
    times out without a reason, so a wrong password is reported here, in one sentence, instead.
    """
    url = role_url(settings, role)
    open_login(url, _setting(settings, role)).close()
    return ConnectionPool(url, min_size=1, max_size=max_size, open=True, configure=register_vector)
