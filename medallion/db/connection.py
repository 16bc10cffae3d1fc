"""Connections to the medallion database, each logged in as one of the project's roles.

``admin_url`` is the configured login (the embedded server's superuser by default); it runs
migrations and mints capabilities, nothing else. Engine and tool work logs in *as*
``medallion_engine`` / ``medallion_tool`` (same server and database, the configured login's user
swapped; the embedded server trusts local socket logins). Because these are the session users,
SQL on such a connection cannot ``RESET ROLE`` its way to the superuser, so the grants, triggers and
row-level security apply to the code exactly as to any other client. ``medallion_owner`` never
logs in. For an external server, give the two roles passwords (or pg_hba trust) and set
``MEDALLION_ENGINE_DATABASE_URL`` / ``MEDALLION_TOOL_DATABASE_URL`` if the swap is not enough.
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
from medallion.db.migrate import migrate
from medallion.settings import Settings

Role = Literal["admin", "engine", "tool"]
ROLE_NAMES: dict[str, str | None] = {
    "admin": None,
    "engine": "medallion_engine",
    "tool": "medallion_tool",
}
APP_DATABASE = "medallion"
_ready: set[str] = set()


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
    """Start the server if embedded, apply pending migrations once per process; return the admin URL."""
    url = admin_url(settings)
    if url not in _ready:
        with psycopg.connect(url, autocommit=True) as conn:
            migrate(conn)
            grant_database_privileges(conn)
        _ready.add(url)
    return url


def grant_database_privileges(conn: psycopg.Connection) -> None:
    """Database-level grants, which live per database and are not copied by CREATE DATABASE … TEMPLATE.

    medallion_owner needs CREATE on the database so dbt (acting as the owner) can create its
    staging and reference schemas; the engine needs CONNECT and TEMPORARY (ingest stages rows in a
    temporary table); the tool login only CONNECT. PostgreSQL gives every role TEMPORARY on a new
    database through PUBLIC; it is taken back, so the tool login cannot create even a temporary
    function for a leaky predicate to call.
    """
    ready = conn.execute(
        "SELECT has_database_privilege('medallion_owner', current_database(), 'CREATE') "
        "AND has_database_privilege('medallion_engine', current_database(), 'TEMPORARY') "
        "AND has_database_privilege('medallion_tool', current_database(), 'CONNECT') "
        "AND NOT has_database_privilege('medallion_tool', current_database(), 'TEMPORARY')").fetchone()[0]
    if ready:
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
    conn = psycopg.connect(role_url(settings, role), autocommit=True)
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
    """A psycopg pool whose connections all act as ``role``."""
    return ConnectionPool(role_url(settings, role), min_size=1, max_size=max_size, open=True,
                          configure=register_vector)
