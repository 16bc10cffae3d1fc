"""Every tool argument is checked at the door, and telemetry never costs a call or another row
(security issue points 8 and 9).

Over MCP a ``current`` call with subject ``"Bob\\u0000"`` once made the next buffered telemetry write
fail: 7 rows were lost, 5 of them from legitimate calls, and an unrelated call returned an error.
Through the Python API, NUL or a lone surrogate raised a raw ``DataError`` or
``UnicodeEncodeError``, and ``search -n ''`` or ``-n 'a,b'`` ended in tracebacks.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from typer.testing import CliRunner

from medallion.interfaces.cli import app
from medallion.serve import capabilities
from medallion.serve.tools import ToolError, open_tools
from medallion.settings import Settings

REPO = Path(__file__).resolve().parents[2]
NS = "door-a"
HOSTILE = ["Bob\x00", "Bob\ud800", "\udfff"]


def _rows(admin_conn: psycopg.Connection) -> list[tuple[Any, ...]]:
    return admin_conn.execute("SELECT tool, ok, error FROM telemetry.retrievals ORDER BY retrieval_id").fetchall()


@pytest.fixture
def remembered(settings: Settings) -> Settings:
    with open_tools(None, settings) as tools:
        tools.remember(namespace=NS, content="I live in Lisbon.", actor="user:bob", kind="transcript")
    return settings


def test_hostile_text_is_refused_in_one_sentence_and_every_call_is_logged(
    remembered: Settings, admin_conn: psycopg.Connection
) -> None:
    """Point 9: NUL and lone surrogates in any argument, nested ones included, are one ToolError each."""
    before = len(_rows(admin_conn))
    calls = [
        lambda t, bad: t.current(bad, "lives_in", namespace=NS),
        lambda t, bad: t.history("Bob", bad, namespace=NS),
        lambda t, bad: t.search(bad, namespace=NS),
        lambda t, bad: t.list(namespace=NS, subject=bad),
        lambda t, bad: t.read(bad),
        lambda t, bad: t.relate(bad, "Lisbon", namespace=NS),
        lambda t, bad: t.recall(bad, namespace=NS),
        lambda t, bad: t.remember(namespace=NS, content="fine", metadata={"note": bad}),
        lambda t, bad: t.remember(namespace=NS, content="fine", metadata={bad: 1}),
    ]
    with open_tools(None, remembered) as tools:
        for call in calls:
            for bad in HOSTILE:
                with pytest.raises(ToolError) as refused:
                    call(tools, bad)
                message = str(refused.value)
                assert "\n" not in message and "\x00" not in message and "\ud800" not in message
                assert "argument" in message
                assert tools.current("Bob", "lives_in", namespace=NS)[0]["value"] == "Lisbon"
    rows = _rows(admin_conn)[before:]
    assert len(rows) == 2 * len(calls) * len(HOSTILE)  # every refusal and every legitimate call
    assert [ok for _, ok, _ in rows] == [False, True] * (len(calls) * len(HOSTILE))


@pytest.mark.parametrize("namespace", ["", "a,b", "Team A", "x" * 64, "*", "door-a\n"])
def test_a_malformed_namespace_is_one_sentence(remembered: Settings, namespace: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Point 8: `search -n ''` or `-n 'a,b'` gives one sentence naming the rule, through the API and the CLI."""
    with open_tools(None, remembered) as tools, pytest.raises(ToolError, match="namespace .* is not valid"):
        tools.search("Lisbon", namespace=namespace)
    monkeypatch.setenv("MEDALLION_DATABASE_URL", remembered.database_url or "")
    monkeypatch.setenv("MEDALLION_HOME", str(remembered.home))
    monkeypatch.delenv("MEDALLION_TOKEN", raising=False)
    result = CliRunner().invoke(app, ["search", "Lisbon", "-n", namespace])
    # the CLI refuses it before any call: an invalid namespace exits 2, like one the caller cannot see
    assert result.exit_code == 2 and (result.exception is None or isinstance(result.exception, SystemExit))
    assert len(result.stderr.strip().splitlines()) == 1 and re.search(r"is not (a )?valid", result.stderr)


def test_a_failing_telemetry_write_loses_nothing_and_fails_no_call(
    remembered: Settings, admin_conn: psycopg.Connection
) -> None:
    """Point 9: while one row cannot be written, the call still answers, other rows land, and the row
    lands once it can; a crash of the caller loses none, since every row is written with its call."""
    admin_conn.execute("ALTER TABLE telemetry.retrievals ADD CONSTRAINT refuse_history CHECK (tool <> 'history')")
    before = len(_rows(admin_conn))
    with open_tools(None, remembered) as tools:
        assert tools.history("Bob", "lives_in", namespace=NS)[0]["value"] == "Lisbon"
        assert tools.current("Bob", "lives_in", namespace=NS)
        assert [r[0] for r in _rows(admin_conn)[before:]] == ["current"]  # written at once, history held back
        admin_conn.execute("ALTER TABLE telemetry.retrievals DROP CONSTRAINT refuse_history")
        tools.list(namespace=NS)
        assert sorted(r[0] for r in _rows(admin_conn)[before:]) == ["current", "history", "list"]


def test_mcp_hostile_argument_is_a_tool_error_and_telemetry_survives(
    remembered: Settings, admin_conn: psycopg.Connection, tmp_path: Path
) -> None:
    """Point 9 over MCP with the SDK client: the NUL call is a one-sentence tool error, the next call works,
    and every call, legitimate or not, is in telemetry."""
    _, token = capabilities.grant(admin_conn, principal="agent:door", verbs=["read", "search"], namespaces=[NS],
                                  created_by="test")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDALLION_")}
    env.update({"MEDALLION_DATABASE_URL": remembered.database_url or "", "MEDALLION_HOME": str(remembered.home),
                "MEDALLION_TOKEN": token, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "MEDALLION_DATA_DICTIONARY_PATH": str(tmp_path / "DATA_DICTIONARY.md")})
    params = StdioServerParameters(command=sys.executable, args=["-m", "medallion.interfaces.mcp_server"], env=env,
                                   cwd=str(REPO))
    before = len(_rows(admin_conn))

    async def scenario() -> list[Any]:
        results = []
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                args = {"subject": "Bob", "predicate": "lives_in", "namespace": NS}
                # (the SDK client cannot encode a lone surrogate; the Python API test covers those)
                for bad in ({}, {"subject": "Bob\u0000"}, {}, {"namespace": "door-a\u0000"}, {}):
                    results.append(await session.call_tool("current", {**args, **bad}))
        return results

    results = anyio.run(scenario)
    assert [r.is_error for r in results] == [False, True, False, True, False]
    for refused, name in ((results[1], "subject"), (results[3], "namespace")):
        [block] = refused.content
        assert f"argument '{name}'" in block.text and "\n" not in block.text
    assert json.loads(results[4].content[0].text)[0]["value"] == "Lisbon"
    rows = _rows(admin_conn)[before:]
    assert [(tool, ok) for tool, ok, _ in rows] == [("current", True), ("current", False)] * 2 + [("current", True)]
