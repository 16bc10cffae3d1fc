"""Database plumbing (the project layout, `db/`, the settings): roles, pool, settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medallion.bronze.contract import full_json_schema
from medallion.db.connection import connect, make_pool
from medallion.settings import Settings, get_settings

REPO = Path(__file__).resolve().parents[2]


def test_connections_act_as_project_roles(settings: Settings) -> None:
    """Every engine/tool connection runs as its role, never as the administrative login."""
    for role, name in (("engine", "medallion_engine"), ("tool", "medallion_tool")):
        with connect(settings, role) as conn:  # type: ignore[arg-type]
            assert conn.execute("SELECT current_user, session_user").fetchone() == (name, name)
    with pytest.raises(ValueError, match="unknown role"):
        connect(settings, "owner")  # type: ignore[arg-type]


def test_pool_connections_keep_their_role(settings: Settings) -> None:
    """The psycopg pool hands out connections already switched to the engine role."""
    pool = make_pool(settings, "engine", max_size=2)
    try:
        for _ in range(3):
            with pool.connection() as conn:
                assert conn.execute("SELECT current_user").fetchone()[0] == "medallion_engine"
                assert conn.execute("SELECT count(*) FROM bronze.events").fetchone()[0] == 0
    finally:
        pool.close()


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Settings: one typed settings object reads MEDALLION_* and the OpenAI/Hindsight variables."""
    monkeypatch.setenv("MEDALLION_HOME", str(tmp_path))
    monkeypatch.setenv("MEDALLION_CONFLICT_THRESHOLD", "0.72")
    monkeypatch.setenv("MEDALLION_LLM_PROVIDER", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("HINDSIGHT_URL", "http://127.0.0.1:8888")
    monkeypatch.delenv("MEDALLION_DATABASE_URL", raising=False)
    s = get_settings()
    assert s.home == tmp_path and s.pgdata == tmp_path / "pgdata" and s.uses_embedded
    assert s.conflict_threshold == 0.72 and s.llm_provider == "openai"
    assert s.openai_base_url == "http://127.0.0.1:9/v1" and s.hindsight_url == "http://127.0.0.1:8888"
    monkeypatch.setenv("MEDALLION_CONFLICT_THRESHOLD", "2")
    with pytest.raises(ValueError, match="conflict_threshold"):
        get_settings()


def test_exported_event_schema_is_current() -> None:
    """B2: docs/event.schema.json equals the schema generated from the contract (regenerate if not)."""
    schema = full_json_schema()
    committed = json.loads((REPO / "docs" / "event.schema.json").read_text())
    assert committed == json.loads(json.dumps(schema)), (
        "stale: python -m medallion.bronze.contract > docs/event.schema.json"
    )
    assert set(committed["required"]) == {
        "namespace", "source", "source_event_id", "kind", "content", "provenance_root",
    }


def test_embedded_server_admits_only_its_own_os_user(tmp_path: Path) -> None:
    """Security issue point 5: the embedded server trusts every local login without a password, so the
    socket is the boundary: no TCP listener, and the socket and data directory open to the owner only."""
    import psycopg

    from medallion.db import embedded

    settings = Settings(home=tmp_path / "home", database_url=None, inbox=tmp_path / "inbox")
    url = embedded.start(settings)
    try:
        with psycopg.connect(url) as conn:
            assert conn.execute("SHOW listen_addresses").fetchone()[0] == ""
            socket_dir = Path(conn.execute("SHOW unix_socket_directories").fetchone()[0])
            port = conn.execute("SHOW port").fetchone()[0]
        socket = socket_dir / f".s.PGSQL.{port}"
        assert socket.is_socket() and socket.stat().st_mode & 0o077 == 0
        assert settings.pgdata.stat().st_mode & 0o077 == 0
    finally:
        embedded.stop(settings)


def test_the_embedded_server_gets_the_buffers_search_needs_and_keeps_a_users_own(tmp_path: Path) -> None:
    """A fresh embedded server runs with a quarter of the machine's memory as shared buffers (up to
    1 GB, at least PostgreSQL's 128 MB), set once; a value the user set later survives a restart."""
    import psycopg

    from medallion.db import embedded

    settings = Settings(home=tmp_path / "home", database_url=None, inbox=tmp_path / "inbox")
    url = embedded.start(settings)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            pages = int(conn.execute("SELECT setting FROM pg_settings WHERE name = 'shared_buffers'").fetchone()[0])
            assert pages * 8 // 1024 == embedded.shared_buffers_mb()
            assert conn.execute("SHOW listen_addresses").fetchone()[0] == ""  # the restart kept the socket only
            conn.execute("ALTER SYSTEM SET shared_buffers = '160MB'")
        embedded.stop(settings)
        url = embedded.start(settings, explicit=True)
        with psycopg.connect(url) as conn:
            assert conn.execute("SHOW shared_buffers").fetchone()[0] == "160MB"
    finally:
        embedded.stop(settings)
