"""An agent driving the MCP server with the SDK's own client: over stdio, discovering namespaces and
predicates, told what it got wrong, answered with beliefs, reading by a short id, asking to forget,
served compact search results and one-sentence argument errors, from descriptions that say when to
call each tool; over HTTP, identified by a standard ``Authorization: Bearer`` header.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import psycopg
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from medallion.serve import capabilities
from medallion.serve.tools import open_tools
from medallion.settings import Settings

REPO = Path(__file__).resolve().parents[2]
OWN, EMPTY, OTHER = "mcp-own", "mcp-empty", "mcp-other"
JARGON = re.compile(r"\b(hops?|slots?|bronze|silver|gold|ledger|chunks?|rrf|bm25|hnsw)\b", re.I)
# a week of notes, so that search answers with a realistic amount of text
NOTES = [
    ("user:maren", "I live in Ghent and I work at Lumen as a data engineer on the billing pipeline."),
    ("user:maren", "Our team moved the nightly export to six in the morning because the warehouse was busy."),
    ("user:tobias", "I live in Bruges; the commute to the Ghent office takes forty minutes by train."),
    ("user:maren", "Tobias is my manager and he prefers written updates on Fridays before noon."),
    ("user:tobias", "The billing pipeline failed twice this week because a supplier sent malformed invoices."),
    ("user:maren", "I prefer tea over coffee and I am learning Portuguese for a trip to Porto in spring."),
    ("user:tobias", "We use Postgres for the ledger of invoices and a queue for the retries."),
    ("user:maren", "My sister Ilke lives in Antwerp and works at a hospital as a nurse."),
    ("user:tobias", "The quarterly review is on the twelfth; Maren presents the export timings."),
    ("user:maren", "I own a green bicycle and I ride it to the station every morning."),
    ("user:tobias", "Lumen is located in Ghent, near the old harbour."),
    ("user:maren", "I moved the team wiki to the new documentation site last month."),
]


def _env(settings: Settings, tmp_path: Path, token: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDALLION_")}
    env.update({"MEDALLION_DATABASE_URL": settings.database_url or "", "MEDALLION_HOME": str(settings.home),
                "MEDALLION_DATA_DICTIONARY_PATH": str(tmp_path / "DATA_DICTIONARY.md"),
                "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    if token:
        env["MEDALLION_TOKEN"] = token
    return env


def _ok(result: Any) -> Any:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def _err(result: Any) -> str:
    """The one-sentence message of a refused call: no traceback, no pydantic report, no URL."""
    assert result.is_error, result.content
    [block] = result.content
    text = block.text
    assert text and "\n" not in text and "Traceback" not in text
    assert "http" not in text and "pydantic" not in text.lower() and "validation error" not in text.lower()
    return text


@pytest.fixture
def memory(settings: Settings, admin_conn: psycopg.Connection) -> Iterator[dict[str, Any]]:
    with open_tools(None, settings) as admin:
        for actor, content in NOTES:
            admin.remember(namespace=OWN, content=content, actor=actor, kind="transcript")
        admin.remember(namespace=OTHER, content="I live in Namur.", actor="user:ilse", kind="transcript")
    tokens = {
        "agent": capabilities.grant(admin_conn, principal="agent:helper", verbs=["search", "read", "list", "remember"],
                                    namespaces=[OWN, EMPTY], created_by="test")[1],
        "ana": capabilities.grant(admin_conn, principal="person:ana", verbs=["admin", "read"], namespaces=[OWN],
                                  created_by="test")[1],
        "other": capabilities.grant(admin_conn, principal="agent:other", verbs=["read", "list"],
                                    namespaces=[OTHER], created_by="test")[1],
    }
    yield {"settings": settings, "tokens": tokens}


def test_an_agent_over_stdio(memory: dict[str, Any], tmp_path: Path) -> None:
    settings, tokens = memory["settings"], memory["tokens"]
    params = StdioServerParameters(command=sys.executable, args=["-m", "medallion.interfaces.mcp_server"],
                                   env=_env(settings, tmp_path, tokens["agent"]), cwd=str(REPO))
    sizes: dict[str, int] = {}

    async def scenario() -> None:
        with anyio.fail_after(180):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                started = await session.initialize()
                call = session.call_tool

                # point 9: descriptions say when to call each tool, in plain words
                listed = {t.name: t for t in (await session.list_tools()).tools}
                assert {"namespaces", "predicates", "request_erasure"} <= set(listed)
                assert not JARGON.search(started.instructions or ""), started.instructions
                for tool in listed.values():
                    assert (tool.description or "").startswith("Call this "), tool.name
                    assert " when " in f" {tool.description} ", tool.name
                    texts = [tool.description] + [p.get("description", "") for p in
                                                  tool.input_schema["properties"].values()]
                    for text in texts:
                        assert not JARGON.search(text or ""), (tool.name, text)

                # point 6: discovery, and an error that says what exists instead of []
                seen = _ok(await call("namespaces", {}))
                assert [r["namespace"] for r in seen] == [EMPTY, OWN] and seen[1]["events"] == len(NOTES)
                used = {p["predicate"]: p for p in _ok(await call("predicates", {"namespace": OWN}))}
                assert used["lives_in"]["current_facts"] >= 3 and used["lives_in"]["example"]
                empty = _err(await call("current", {"subject": "Maren", "predicate": "lives_in",
                                                    "namespace": EMPTY}))
                assert f"the namespaces this caller can see are {EMPTY}, {OWN}" in empty
                outside = _err(await call("list", {"namespace": "mcp-typo"}))
                assert f"can see are {EMPTY}, {OWN}" in outside and OTHER not in outside
                hint = _err(await call("current", {"subject": "Maren", "predicate": "livesin", "namespace": OWN}))
                assert "close ones in use: lives_in" in hint

                # point 8: a write answers with its beliefs
                wrote = _ok(await call("remember", {"namespace": OWN, "content": "I live in Leuven now.",
                                                    "actor": "user:ilke"}))
                assert [(b["predicate"], b["value"]) for b in wrote["beliefs"]["added"]] == [("lives_in", "Leuven")]
                assert set(wrote["beliefs"]) >= {"added", "superseded", "skipped", "contested"}

                # point 9: compact search by default, the full form on request
                compact = await call("search", {"query": "what does Maren do at work", "namespace": OWN})
                full = await call("search", {"query": "what does Maren do at work", "namespace": OWN,
                                             "detail": "full"})
                sizes["compact"], sizes["full"] = len(compact.content[0].text), len(full.content[0].text)
                rows, whole = _ok(compact), _ok(full)
                assert [r.get("fact_id") or r.get("chunk_id") for r in rows] == \
                    [r.get("fact_id") or r.get("chunk_id") for r in whole]
                assert all(set(r) <= {"kind", "fact_id", "chunk_id", "statement", "predicate", "valid_from",
                                      "contested", "supports", "score", "current", "provenance", "same_event"}
                           for r in rows)
                assert sizes["compact"] * 2.5 < sizes["full"]

                # point 10: the 12 characters a table shows are enough
                fact = next(r for r in rows if r["kind"] == "fact")
                [opened] = _ok(await call("read", {"fact_id": fact["fact_id"][:12]}))
                assert opened["fact_id"] == fact["fact_id"] and opened["provenance"]["namespace"] == OWN
                assert "at least 6" in _err(await call("read", {"fact_id": fact["fact_id"][:4]}))

                # point 8: asking to forget files a request that a person approves; it needs admin
                assert "'admin'" in _err(await call("request_erasure", {"fact_id": fact["fact_id"][:12],
                                                                        "reason": "asked to forget"}))
                filed = _ok(await call("request_erasure", {"fact_id": fact["fact_id"][:12], "reason": "asked",
                                                           "token": tokens["ana"]}))
                assert filed["status"] == "pending_approval" and filed["requested_by"] == "person:ana"
                assert _ok(await call("read", {"fact_id": fact["fact_id"]}))  # nothing erased

                # point 9: a wrong-typed or missing argument is one sentence naming it
                wrong = _err(await call("search", {"query": "Maren", "namespace": OWN, "k": "ten"}))
                assert wrong.startswith("the argument 'k' of search is not valid: input should be a valid integer")
                missing = _err(await call("current", {"subject": "Maren", "namespace": OWN}))
                assert missing == "current needs the argument 'predicate'"

    anyio.run(scenario)
    print(f"search over MCP: compact {sizes['compact']} bytes, full {sizes['full']} bytes")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server(memory: dict[str, Any], tmp_path: Path) -> Iterator[str]:
    """The server over streamable HTTP, with no MEDALLION_TOKEN: every call must bring its own."""
    port = _free_port()
    log = (tmp_path / "http.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "medallion.interfaces.mcp_server", "--http", str(port)],
                            env=_env(memory["settings"], tmp_path, None), cwd=str(REPO), stdout=log, stderr=log)
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


def test_http_takes_the_token_from_the_authorization_header(memory: dict[str, Any], http_server: str) -> None:
    tokens = memory["tokens"]

    async def session_with(headers: dict[str, str], calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
        results = []
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=120)) as client, \
                streamable_http_client(http_server, http_client=client) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            for name, args in calls:
                results.append(await session.call_tool(name, args))
        return results

    async def scenario() -> None:
        with anyio.fail_after(180):
            bearer = {"Authorization": f"Bearer {tokens['agent']}"}
            listed, refused, same, differs = await session_with(bearer, [
                ("list", {"namespace": OWN}),
                ("list", {"namespace": OTHER}),
                ("namespaces", {"token": tokens["agent"]}),
                ("list", {"namespace": OWN, "token": tokens["other"]}),
            ])
            assert all(r["provenance"]["namespace"] == OWN for r in _ok(listed))
            assert "does not allow 'list' in namespace" in _err(refused)
            assert [r["namespace"] for r in _ok(same)] == [EMPTY, OWN]
            assert "differs from the Authorization header" in _err(differs)
            [other] = await session_with({"authorization": f"bearer {tokens['other']}"},
                                         [("list", {"namespace": OTHER})])
            assert [r["statement"] for r in _ok(other)] == ["Ilse lives in Namur."]
            nothing, basic = (await session_with({}, [("list", {"namespace": OWN})]))[0], \
                (await session_with({"Authorization": "Basic abc"}, [("list", {"namespace": OWN})]))[0]
            assert "Authorization: Bearer" in _err(nothing)
            assert "must be 'Bearer <capability token>'" in _err(basic)
            [bogus] = await session_with({"Authorization": "Bearer mm_not-a-token"}, [("list", {"namespace": OWN})])
            assert "not a valid capability" in _err(bogus)

    anyio.run(scenario)
