"""The MCP server end to end (G1): the SDK's own client over stdio against ``python -m …mcp_server``.

One server process per test (the embedding model loads once in it): the tool list and its schemas,
the verbs with the environment's token, the capability firewall against another namespace, and a
token passed with the call overriding the environment's.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import psycopg
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from medallion.serve import capabilities
from medallion.serve.tools import open_tools
from medallion.settings import Settings

REPO = Path(__file__).resolve().parents[2]
OWN, OTHER = "mcp-a", "mcp-b"
TOOLS = {"namespaces", "predicates", "search", "read", "list", "current", "history", "relate", "follow", "remember",
         "overlay", "recall", "request_erasure"}
SECRET = "Bob lives in Porto."  # mcp-b's only event: none of its words may reach mcp-a's token


def _server(settings: Settings, tmp_path: Path, token: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDALLION_")}
    env.update({
        "MEDALLION_DATABASE_URL": settings.database_url or "",
        "MEDALLION_HOME": str(settings.home),
        "MEDALLION_INBOX": str(settings.inbox),
        "MEDALLION_DATA_DICTIONARY_PATH": str(tmp_path / "DATA_DICTIONARY.md"),
        "MEDALLION_TOKEN": token,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    })
    return StdioServerParameters(command=sys.executable, args=["-m", "medallion.interfaces.mcp_server"], env=env,
                                 cwd=str(REPO))


def _ok(result: Any) -> Any:
    """The JSON a successful call returned (its text block; the structured content must agree)."""
    assert not result.is_error, result.content
    [block] = result.content
    value = json.loads(block.text)
    structured = result.structured_content
    assert structured == ({"result": value} if isinstance(value, list) else value)
    return value


def _err(result: Any) -> str:
    """The one-sentence message of a refused call."""
    assert result.is_error, result.content
    [block] = result.content
    text = block.text
    assert text and "\n" not in text and "Traceback" not in text
    return text


def test_mcp_server_over_stdio(settings: Settings, admin_conn: psycopg.Connection, tmp_path: Path) -> None:
    """G1 through a real MCP client: schemas, every verb, the namespace firewall, per-call tokens."""
    with open_tools(None, settings) as admin:  # the local admin gives mcp-b something to hide
        admin.remember(namespace=OTHER, content=SECRET, actor="user:bob", kind="transcript")
        [hidden] = admin.current("Bob", "lives_in", namespace=OTHER)
    hidden_id = hidden["fact_id"]
    _, token_a = capabilities.grant(admin_conn, principal="agent:mcp-a", verbs=["search", "read", "list", "remember"],
                                    namespaces=[OWN], created_by="test")
    _, token_edit = capabilities.grant(admin_conn, principal="person:ana", verbs=["overlay"], namespaces=[OWN],
                                       created_by="test")
    _, token_b = capabilities.grant(admin_conn, principal="agent:mcp-b", verbs=["read"], namespaces=[OTHER],
                                    created_by="test")

    async def scenario() -> None:
        with anyio.fail_after(120):
            await session_scenario()

    async def session_scenario() -> None:
        async with stdio_client(_server(settings, tmp_path, token_a)) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            call = session.call_tool

            # a) thirteen tools, each described, with JSON schemas derived from the signatures
            listed = {t.name: t for t in (await session.list_tools()).tools}
            assert set(listed) == TOOLS
            for tool in listed.values():
                assert tool.description and tool.input_schema["type"] == "object"
                assert "token" in tool.input_schema["properties"]
            assert set(listed["search"].input_schema["required"]) == {"query", "namespace"}
            assert set(listed["current"].input_schema["required"]) == {"subject", "predicate", "namespace"}
            assert listed["overlay"].input_schema["properties"]["action"]["enum"] == ["edit", "annotate", "redact"]

            # b) the environment's token works in its namespace
            written = _ok(await call("remember", {"namespace": OWN, "content": "Alice lives in Lisbon.",
                                                  "actor": "user:alice"}))
            assert written["status"] == "inserted" and written["namespace"] == OWN and written["source"] == "mcp"
            [now] = _ok(await call("current", {"subject": "Alice", "predicate": "lives_in", "namespace": OWN}))
            assert now["value"] == "Lisbon" and now["current"]
            found = _ok(await call("search", {"query": "Where does Alice live", "namespace": OWN, "k": 5}))
            facts = [r for r in found if r["kind"] == "fact"]
            assert facts and all(r["provenance"]["namespace"] == OWN for r in found)
            assert facts[0]["fact_id"] == now["fact_id"]
            [again] = _ok(await call("read", {"fact_id": facts[0]["fact_id"]}))
            assert again["statement"] == now["statement"] and again["provenance"]["namespace"] == OWN
            listing = _ok(await call("list", {"namespace": OWN}))
            assert now["fact_id"] in {f["fact_id"] for f in listing}
            assert _ok(await call("recall", {"query": "Where does Alice live?", "namespace": OWN}))["answers"]
            walked = _ok(await call("follow", {"entity": "Alice", "predicates": ["lives_in"], "namespace": OWN}))
            assert walked["values"] == ["Lisbon"] and walked["hops"][0]["facts"][0]["fact_id"] == now["fact_id"]
            assert "non-empty" in _err(await call("follow", {"entity": "Alice", "predicates": [], "namespace": OWN}))
            assert "no entity named" in _err(await call("follow", {"entity": "Zed", "predicates": ["lives_in"],
                                                                   "namespace": OWN}))

            # c) the same token against mcp-b: every verb refused, in one sentence that leaks nothing of mcp-b
            refused = {
                "search": {"query": "Where does Bob live", "namespace": OTHER},
                "read": {"fact_id": hidden_id, "namespace": OTHER},
                "list": {"namespace": OTHER},
                "current": {"subject": "Bob", "predicate": "lives_in", "namespace": OTHER},
                "history": {"subject": "Bob", "predicate": "lives_in", "namespace": OTHER},
                "relate": {"a": "Bob", "b": "Porto", "namespace": OTHER},
                "follow": {"entity": "Bob", "predicates": ["lives_in"], "namespace": OTHER},
                "remember": {"namespace": OTHER, "content": "Eve was here."},
                "overlay": {"fact_id": hidden_id, "action": "redact", "quote": "Porto"},
                "recall": {"query": "Where does Bob live?", "namespace": OTHER},
                "predicates": {"namespace": OTHER},
                "request_erasure": {"fact_id": hidden_id, "reason": "forget it"},
            }
            assert set(refused) == TOOLS - {"namespaces"}  # it takes no namespace: it lists the caller's own
            assert [r["namespace"] for r in _ok(await call("namespaces", {}))] == [OWN]
            for name, args in refused.items():
                message = _err(await call(name, args))
                assert not {"Bob", "Porto", hidden_id} & set(message.replace("'", " ").split()), message
                assert "not allow" in message, (name, message)
            # a fact of mcp-b read by id is indistinguishable from one that does not exist
            unknown = "f" + "0" * (len(hidden_id) - 1)
            hidden_msg = _err(await call("read", {"fact_id": hidden_id}))
            unknown_msg = _err(await call("read", {"fact_id": unknown}))
            assert hidden_msg.replace(hidden_id, "ID") == unknown_msg.replace(unknown, "ID")
            overlay = {"action": "redact", "quote": "Porto", "token": token_edit}  # may overlay, but only in mcp-a
            hidden_msg = _err(await call("overlay", {"fact_id": hidden_id, **overlay}))
            unknown_msg = _err(await call("overlay", {"fact_id": unknown, **overlay}))
            assert hidden_msg.replace(hidden_id, "ID") == unknown_msg.replace(unknown, "ID")

            # d) a token passed with the call overrides the environment's, for that call only
            assert "not a valid capability" in _err(await call("list", {"namespace": OWN, "token": "bogus"}))
            [seen] = _ok(await call("read", {"fact_id": hidden_id, "token": token_b}))
            assert seen["statement"] == SECRET
            assert "not allow" in _err(await call("list", {"namespace": OTHER, "token": token_b}))
            assert _ok(await call("list", {"namespace": OWN}))  # the environment's token again

    anyio.run(scenario)
