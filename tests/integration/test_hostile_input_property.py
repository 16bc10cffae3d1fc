"""Property: valid, hostile and random input through every write door, then the derivation
(security issue, "How to know it works").

Hypothesis generates JSONL files mixing valid events, hostile ones (NUL, lone surrogates, integers
beyond 64 bits, times outside the documented range, malformed overlay metadata, duplicate keys, blank
subjects) and random bytes, plus hostile arguments for ``remember`` through the Python API and the MCP
server. Whatever it draws: nothing raises but a one-sentence refusal, every valid event lands, no
hostile one does, and a namespace that received no poison derives completely.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import psycopg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from medallion.bronze.ingest import ingest_jsonl
from medallion.serve import capabilities
from medallion.serve.tools import ToolError, open_tools
from medallion.settings import Settings
from medallion.silver.derive import derive

REPO = Path(__file__).resolve().parents[2]
_counter = itertools.count()
text = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), min_size=1, max_size=60)
words = st.text("abcdefghij klmnop", min_size=3, max_size=40).filter(lambda s: s.strip())
scalars = st.one_of(st.integers(-(2**63), 2**63 - 1), text, st.booleans(), st.none(),
                    st.floats(allow_nan=False, allow_infinity=False))
metadata = st.dictionaries(text.filter(lambda k: k.strip()), scalars, max_size=3)
times = st.datetimes(min_value=datetime(1001, 1, 1), max_value=datetime(2026, 1, 1), timezones=st.just(UTC))


@st.composite
def valid_event(draw: st.DrawFn, namespace: str) -> dict[str, Any]:
    kind = draw(st.sampled_from(["note", "transcript", "fact"]))
    content = draw(text.filter(lambda s: s.strip()))
    if kind == "fact":
        content = json.dumps({"subject": draw(words), "predicate": draw(st.sampled_from(["lives_in", "works_at",
                                                                                        "likes"])),
                              "value": draw(st.one_of(words, st.integers(-1000, 1000)))})
    return {"namespace": namespace, "source": "prop", "source_event_id": f"ok-{next(_counter)}", "kind": kind,
            "actor": draw(st.sampled_from(["user:alice", "agent:bot", None])), "content": content,
            "occurred_at": draw(times).isoformat(), "provenance_root": "prop://x", "metadata": draw(metadata)}


HOSTILE_KINDS = ["nul", "surrogate", "bigint", "old_time", "overlay_meta", "duplicate_key", "blank_subject",
                 "fact_nul"]


def hostile_line(base: dict[str, Any], how: str, where: int) -> str:
    """A JSONL line that must be refused, made from a valid event."""
    event = {**base, "source_event_id": f"bad-{next(_counter)}"}
    if how == "nul":
        field = ["content", "actor", "source", "provenance_root"][where % 4]
        event[field] = (event.get(field) or "x") + "\x00"
    elif how == "surrogate":
        event["metadata"] = {"k": "x\ud800y"} if where % 2 else {"x\udfff": 1}
    elif how == "bigint":
        event["metadata"] = {"n": [1, {"deep": 2**64 + where}]}
    elif how == "old_time":
        event["occurred_at"] = ["0001-01-01T00:00:00+01:00", "0999-12-31T23:59:59Z", "9500-01-01T00:00:00Z"][where % 3]
    elif how == "overlay_meta":
        event["kind"] = "overlay"
        event["content"] = json.dumps({"fact_id": "f" * 24, "action": "annotate", "note": "n",
                                       "selector": {"exact": "x"}})
        event["metadata"] = [{"anchor": "x"}, {"retracts": "abc"}, {"replaces": [1]}][where % 3]
    elif how == "duplicate_key":
        line = json.dumps(event, ensure_ascii=False)
        return line[:-1] + ', "namespace": "' + event["namespace"] + '"}'
    elif how == "blank_subject":
        event["kind"], event["content"] = "fact", json.dumps({"subject": " ", "predicate": "likes", "value": "tea"})
    elif how == "fact_nul":
        event["kind"], event["content"] = "fact", '{"subject": "Bob\\u0000", "predicate": "likes", "value": "tea"}'
    return json.dumps(event, ensure_ascii=False) if how != "surrogate" else json.dumps(event)


@st.composite
def batch(draw: st.DrawFn, namespace: str) -> tuple[list[str], int, int]:
    """Lines of one file, with how many are valid and how many hostile."""
    valid = draw(st.lists(valid_event(namespace), min_size=1, max_size=6))
    hostile = [hostile_line(draw(valid_event(namespace)), draw(st.sampled_from(HOSTILE_KINDS)),
                            draw(st.integers(0, 11))) for _ in range(draw(st.integers(0, 5)))]
    noise = [b.decode("latin-1") for b in draw(st.lists(
        st.binary(min_size=1, max_size=40).filter(lambda b: b"\n" not in b and b"\r" not in b and b.strip()),
        max_size=3))]
    lines = [json.dumps(e, ensure_ascii=False) for e in valid] + hostile + noise
    return draw(st.permutations(lines)), len(valid), len(hostile)


def _namespace() -> str:
    return f"prop-{next(_counter)}"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_files_of_valid_hostile_and_random_lines(data: st.DataObject, settings: Settings,
                                                  engine_conn: psycopg.Connection) -> None:
    """Every valid line lands, no hostile line does, nothing raises, and the namespace derives completely."""
    namespace = _namespace()
    lines, n_valid, n_hostile = data.draw(batch(namespace))
    raw = "\n".join(lines).encode("utf-8", "surrogatepass")
    result = ingest_jsonl(engine_conn, raw, origin="prop")
    assert result.inserted == n_valid, result.summary()
    assert engine_conn.execute("SELECT count(*) FROM bronze.events WHERE namespace = %s AND source_event_id "
                               "LIKE 'bad-%%'", (namespace,)).fetchone()[0] == 0
    assert result.rejected >= n_hostile
    derive(engine_conn, settings, namespaces=[namespace])
    underived = engine_conn.execute(
        "SELECT count(*) FROM bronze.events e WHERE e.namespace = %s AND NOT EXISTS "
        "(SELECT 1 FROM silver.derivations d WHERE d.bronze_event_id = e.event_id)", (namespace,)).fetchone()[0]
    parked = engine_conn.execute("SELECT count(*) FROM silver.derivation_failures WHERE namespace = %s",
                                 (namespace,)).fetchone()[0]
    assert (underived, parked) == (0, 0)


hostile_text = st.one_of(text, st.sampled_from(["Bob\x00", "x\ud800", "\udfff", "", " ", "a" * 70]))
hostile_args = st.fixed_dictionaries({
    "namespace": st.one_of(st.just("prop-api"), st.sampled_from(["", "a,b", "Team", "prop-api\x00"])),
    "content": hostile_text,
    "kind": st.sampled_from(["note", "transcript", "fact", "overlay", "nonsense"]),
    "occurred_at": st.one_of(st.none(), st.sampled_from(["0001-01-01T00:00:00+01:00", "not a time",
                                                         "2026-01-01T00:00:00Z"])),
    "metadata": st.one_of(st.none(), metadata, st.just({"n": 2**70}), st.just({"k\x00": 1})),
})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=hostile_args)
def test_remember_through_the_api_answers_or_refuses_in_one_sentence(args: dict[str, Any], settings: Settings,
                                                                     engine_conn: psycopg.Connection) -> None:
    """`remember` with any arguments: an outcome or one ToolError sentence; the namespace still derives."""
    with open_tools(None, settings) as tools:
        try:
            outcome = tools.remember(derive_now=False, **args)
            assert outcome["status"] in ("inserted", "duplicate")
        except ToolError as exc:
            assert "\n" not in str(exc) and str(exc)
    derive(engine_conn, settings, namespaces=["prop-api"])
    assert engine_conn.execute("SELECT count(*) FROM silver.derivation_failures").fetchone()[0] == 0


@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=st.lists(hostile_args, min_size=25, max_size=25))
def test_remember_through_mcp_then_derive(calls: list[dict[str, Any]], settings: Settings,
                                          admin_conn: psycopg.Connection, engine_conn: psycopg.Connection,
                                          tmp_path: Path) -> None:
    """25 drawn `remember` calls over MCP (the SDK client): each one a result or a one-line tool error, the
    server keeps answering, and the derivation afterwards parks nothing."""
    _, token = capabilities.grant(admin_conn, principal="agent:prop", verbs=["remember", "list"],
                                  namespaces=["prop-api"], created_by="test")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDALLION_")}
    env.update({"MEDALLION_DATABASE_URL": settings.database_url or "", "MEDALLION_HOME": str(settings.home),
                "MEDALLION_TOKEN": token, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "MEDALLION_DATA_DICTIONARY_PATH": str(tmp_path / "DATA_DICTIONARY.md")})
    params = StdioServerParameters(command=sys.executable, args=["-m", "medallion.interfaces.mcp_server"], env=env,
                                   cwd=str(REPO))
    sendable = [c for c in calls if _encodable(c)]  # the SDK client cannot send a lone surrogate at all

    async def scenario() -> list[Any]:
        with anyio.fail_after(180):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                results = [await session.call_tool("remember", {k: v for k, v in c.items() if v is not None})
                           for c in sendable]
                results.append(await session.call_tool("list", {"namespace": "prop-api"}))
                return results

    results = anyio.run(scenario)
    for result in results:
        if result.is_error:
            [block] = result.content
            assert block.text and "\n" not in block.text and "Traceback" not in block.text
    assert not results[-1].is_error  # still serving after every hostile call
    derive(engine_conn, settings, namespaces=["prop-api"])
    assert engine_conn.execute("SELECT count(*) FROM silver.derivation_failures").fetchone()[0] == 0


def _encodable(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def test_the_time_range_is_documented_and_enforced(engine_conn: psycopg.Connection) -> None:
    """Times just inside the documented range land; just outside are refused."""
    base = {"namespace": "prop-time", "source": "prop", "kind": "note", "content": "x", "provenance_root": "p://"}
    inside = [datetime(1000, 1, 1, tzinfo=UTC), datetime.now(UTC) - timedelta(seconds=5)]
    outside = ["0999-12-31T23:59:59.999999Z", "1000-01-01T00:30:00+01:00"]
    lines = [json.dumps({**base, "source_event_id": f"in-{i}", "occurred_at": t.isoformat()})
             for i, t in enumerate(inside)]
    lines += [json.dumps({**base, "source_event_id": f"out-{i}", "occurred_at": t}) for i, t in enumerate(outside)]
    result = ingest_jsonl(engine_conn, "\n".join(lines).encode(), origin="prop")
    assert (result.inserted, result.rejected) == (2, 2)
