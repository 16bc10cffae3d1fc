"""The MCP server's sessions stay bounded (issue 30, point 8).

Over HTTP every distinct token used to keep two database connections until the server stopped:
47 tokens exhausted the server, and the CLI then failed with "remaining connection slots are
reserved". Now the sessions are one bounded pool: a new caller takes the place of the one idle
longest, idle sessions are closed, and a caller is refused in one sentence only while every session
is in a call. Connections are counted in ``pg_stat_activity``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import psycopg
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from typer.testing import CliRunner

from medallion.interfaces.cli import app
from medallion.interfaces.mcp_sessions import ServerBusy, SessionPool
from medallion.serve import capabilities
from medallion.serve.tools import open_tools
from medallion.settings import Settings

REPO = Path(__file__).resolve().parents[2]
NS = "mcp-pool"
BOUND = 3
CONNECTIONS_PER_SESSION = 3  # engine and tool logins, and the admin login a local admin's decision opens


def _backends(admin_conn: psycopg.Connection) -> int:
    """Client connections to the test's database, this one left out."""
    return admin_conn.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
        "AND backend_type = 'client backend'").fetchone()[0]


def _settle(admin_conn: psycopg.Connection, done: Callable[[int], bool]) -> int:
    """The connection count once ``done`` holds for it (a closed connection's backend exits a moment later)."""
    deadline = time.monotonic() + 30
    while not done(count := _backends(admin_conn)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return count


@pytest.fixture
def memory(settings: Settings, admin_conn: psycopg.Connection) -> dict[str, Any]:
    with open_tools(None, settings) as admin:
        admin.remember(namespace=NS, content="Alice lives in Lisbon.", actor="user:alice", kind="transcript")
    tokens = [capabilities.grant(admin_conn, principal=f"agent:{i}", verbs=["read", "list"], namespaces=[NS],
                                 created_by="test")[1] for i in range(4 * BOUND)]
    baseline = _settle(admin_conn, lambda n: n == 0)
    return {"settings": settings, "tokens": tokens, "baseline": baseline}


def _listing(tools: Any) -> list[dict[str, Any]]:
    return tools.list(namespace=NS)


def test_the_pool_keeps_at_most_its_bound_and_refuses_only_when_every_session_is_in_a_call(
        memory: dict[str, Any], admin_conn: psycopg.Connection) -> None:
    tokens = memory["tokens"]
    now = [0.0]
    settings = memory["settings"].model_copy(update={"mcp_max_sessions": 2, "mcp_session_idle_seconds": 60.0})
    pool = SessionPool(settings, require_token=True, clock=lambda: now[0])
    try:
        for i, token in enumerate(tokens):  # more callers than the bound: each takes the idlest one's place
            now[0] += 1
            assert [r["statement"] for r in pool.call(token, _listing)] == ["Alice lives in Lisbon."]
            assert pool.size == min(i + 1, 2)
            assert _backends(admin_conn) <= 2 * CONNECTIONS_PER_SESSION
        assert pool.call(tokens[-1], _listing)  # a known caller reuses its session

        # both sessions in a call: a third caller is refused in one sentence, and served once one is free
        started, release = threading.Barrier(3), threading.Event()

        def hold(tools: Any) -> list[dict[str, Any]]:
            started.wait(timeout=30)
            release.wait(timeout=30)
            return _listing(tools)

        holders = [threading.Thread(target=pool.call, args=(token, hold)) for token in tokens[:2]]
        for holder in holders:
            holder.start()
        started.wait(timeout=30)
        with pytest.raises(ServerBusy) as busy:
            pool.call(tokens[2], _listing)
        message = str(busy.value)
        assert "\n" not in message and "all 2 of its sessions are in a call" in message
        assert "MEDALLION_MCP_MAX_SESSIONS" in message
        release.set()
        for holder in holders:
            holder.join(timeout=30)
        assert pool.call(tokens[2], _listing)

        # idle for the timeout: closed, and their connections freed
        now[0] += 61
        assert pool.sweep() == 2 and pool.size == 0
        assert _settle(admin_conn, lambda n: n == 0) == 0
    finally:
        pool.close()


def test_the_sweeper_closes_idle_sessions_without_any_call(memory: dict[str, Any],
                                                           admin_conn: psycopg.Connection) -> None:
    now = [0.0]
    settings = memory["settings"].model_copy(update={"mcp_session_idle_seconds": 0.2})
    pool = SessionPool(settings, require_token=True, clock=lambda: now[0])
    try:
        for token in memory["tokens"][:2]:
            assert pool.call(token, _listing)
        assert _backends(admin_conn) > 0
        pool.start_sweeper()
        now[0] += 1  # idle past the timeout: the background sweep closes them, no call needed
        assert _settle(admin_conn, lambda n: n == 0) == 0
        assert pool.size == 0
    finally:
        pool.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server(memory: dict[str, Any], tmp_path: Path) -> Iterator[str]:
    """The server over streamable HTTP, bounded to BOUND sessions."""
    settings: Settings = memory["settings"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDALLION_")}
    env.update({"MEDALLION_DATABASE_URL": settings.database_url or "", "MEDALLION_HOME": str(settings.home),
                "MEDALLION_DATA_DICTIONARY_PATH": str(tmp_path / "DATA_DICTIONARY.md"),
                "MEDALLION_MCP_MAX_SESSIONS": str(BOUND), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    port = _free_port()
    log = (tmp_path / "http.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "medallion.interfaces.mcp_server", "--http", str(port)],
                            env=env, cwd=str(REPO), stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, (tmp_path / "http.log").read_text()
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def test_many_tokens_over_http_keep_the_connections_bounded_and_the_cli_working(
        memory: dict[str, Any], http_server: str, admin_conn: psycopg.Connection,
        monkeypatch: pytest.MonkeyPatch) -> None:
    tokens = memory["tokens"]
    seen: list[int] = []

    async def list_as(token: str) -> Any:
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=120)) as client, \
                streamable_http_client(http_server, http_client=client) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            return await session.call_tool("list", {"namespace": NS})

    async def scenario() -> None:
        with anyio.fail_after(240):
            for token in tokens:  # four times as many callers as the server keeps sessions for
                result = await list_as(token)
                assert not result.is_error, result.content
                assert [r["statement"] for r in json.loads(result.content[0].text)] == ["Alice lives in Lisbon."]
                seen.append(_backends(admin_conn))
            again = await list_as(tokens[0])  # an evicted caller is served again, with a new session
            assert not again.is_error, again.content

    anyio.run(scenario)
    # tokens are not the local admin: two connections per session (2 per token before the bound: 24)
    assert max(seen) <= BOUND * 2, seen

    settings: Settings = memory["settings"]
    monkeypatch.setenv("MEDALLION_DATABASE_URL", settings.database_url or "")
    monkeypatch.setenv("MEDALLION_HOME", str(settings.home))
    monkeypatch.delenv("MEDALLION_TOKEN", raising=False)
    listed = CliRunner().invoke(app, ["list", "-n", NS, "--json"])
    assert listed.exit_code == 0, listed.output
    assert [r["statement"] for r in json.loads(listed.stdout)] == ["Alice lives in Lisbon."]
