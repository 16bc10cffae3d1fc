"""Connections to the medallion database, always under one of the project's roles.

``admin_url`` is the configured login (the embedded server's superuser by default). Engine and tool
work never runs as that login: each connection does ``SET ROLE medallion_engine`` or
``SET ROLE medallion_tool`` first, so the grants, triggers and row-level security of the schema
apply to the code exactly as they would to any other client.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

import psycopg
from psycopg import sql
from psycopg_pool import ConnectionPool

from dagster_project.db import embedded
from dagster_project.db.migrate import migrate
from dagster_project.settings import Settings

Role = Literal["admin", "owner", "engine", "tool"]
ROLE_NAMES: dict[Role, str | None] = {
    "admin": None,
    "owner": "medallion_owner",
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
        _ready.add(url)
    return url


def _set_role(conn: psycopg.Connection, role: Role) -> None:
    name = ROLE_NAMES[role]
    if name is not None:
        conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(name)))
        conn.commit()


def connect(settings: Settings, role: Role = "engine", autocommit: bool = False) -> psycopg.Connection:
    """A new connection acting as ``role`` (after migrations are applied)."""
    url = ensure_ready(settings)
    conn = psycopg.connect(url, autocommit=False)
    _set_role(conn, role)
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
    url = ensure_ready(settings)
    return ConnectionPool(
        url,
        min_size=1,
        max_size=max_size,
        configure=lambda conn: _set_role(conn, role),
        open=True,
    )
