"""Over MCP, `recall` and `history` answer compactly by default, like `search` (issue 32, point 5).

A recall of one fact was 2,568 characters and a history of three versions 2,135: every time,
authority, confidence, overlay and provenance field of each fact. The compact form keeps what an
agent reads first; ``detail='full'`` gives the whole record. The server runs in-process, reached by
the SDK's own client.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
from mcp import Client

from medallion.interfaces.mcp_server import build_server
from medallion.serve.tools import open_tools
from medallion.settings import Settings

NS = "mcp-compact"
FACT_KEYS = {"fact_id", "statement", "predicate", "valid_from", "valid_to", "current", "contested", "score",
             "provenance"}


def _text(result: Any) -> str:
    assert not result.is_error, result.content
    return result.content[0].text


def test_recall_and_history_are_compact_unless_asked_for_the_full_record(settings: Settings) -> None:
    with open_tools(None, settings) as admin:
        for day, city in (("01", "Ghent"), ("02", "Bruges"), ("03", "Antwerp")):
            admin.remember(namespace=NS, content=f"I live in {city}.", actor="user:maren", kind="transcript",
                           occurred_at=f"2026-03-{day}T09:00:00Z")
    sizes: dict[str, int] = {}

    async def scenario() -> None:
        with anyio.fail_after(180):
            async with Client(build_server(settings)) as client:
                slot = {"subject": "Maren", "predicate": "lives_in", "namespace": NS}
                compact = _text(await client.call_tool("history", slot))
                full = _text(await client.call_tool("history", {**slot, "detail": "full"}))
                rows, whole = json.loads(compact), json.loads(full)
                assert [r["statement"] for r in rows] == [r["statement"] for r in whole]
                assert [r["fact_id"] for r in rows] == [r["fact_id"] for r in whole] and len(rows) == 3
                assert all(set(r) <= FACT_KEYS for r in rows)
                assert [r["current"] for r in rows] == [False, False, True]
                assert rows[0]["valid_to"] == "2026-03-02" and rows[0]["provenance"]["namespace"] == NS
                assert "confidence" in whole[0] and "confidence" not in rows[0]
                sizes["history"], sizes["history full"] = len(compact), len(full)
                assert len(compact) * 2 < len(full)

                ask = {"query": "Where does Maren live?", "namespace": NS, "k": 1}
                compact = _text(await client.call_tool("recall", ask))
                full = _text(await client.call_tool("recall", {**ask, "detail": "full"}))
                answer, whole_answer = json.loads(compact), json.loads(full)
                assert (answer["hop"], answer["reason"]) == (whole_answer["hop"], whole_answer["reason"])
                [best] = answer["answers"]
                assert best["statement"] == whole_answer["answers"][0]["statement"]
                assert "Antwerp" in best["statement"] and best["current"] is True
                sizes["recall"], sizes["recall full"] = len(compact), len(full)
                assert len(compact) * 2 < len(full)

    anyio.run(scenario)
    print(f"over MCP: {sizes}")
