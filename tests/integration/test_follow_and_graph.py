"""Multi-hop answers over current beliefs (serve/graph.py): the ``follow`` tool through the Python API,
the CLI and its door, search's ``graph`` list, and chunks verified against the ledger (a chunk whose
facts were all superseded is not served as current, and with include_superseded ranks lower).

The namespace is built through the normal ingest + derive path: transcripts the heuristic distiller
reads into curated, entity-valued predicates (works_at, located_in, lives_in), and ``kind=fact``
events for learned keys (author, spouse), which skip distillation and so do not depend on its rules.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from medallion.bronze.ingest import ingest_events
from medallion.interfaces.cli import app
from medallion.serve import capabilities, fusion, graph
from medallion.serve.tools import REDACTED, Denied, ToolError, open_tools
from medallion.settings import Settings
from medallion.silver.derive import derive
from tests.conftest import fresh_database

NS, OTHER, MASKED = "graph-a", "graph-b", "graph-r"
T0 = datetime.now(UTC) - timedelta(days=30)
TRANSCRIPTS = [
    ("user:alice", "I work at Acme."),
    ("user:bob", "Acme is located in Lisbon."),
    ("user:bob", "Globex is located in Madrid."),
    ("user:bob", "Initech is located in Berlin."),
    ("user:carol", "I work at Globex."),
    ("user:alice", "I live in Braga."),
    ("user:dan", "Good morning everyone!"),
]
FACTS = [  # invented names: the embedding model knows nothing of who wrote what
    ("Quillmoor", "author", "Tavi Rensk"), ("Tavi Rensk", "spouse", "Odo Brack"),
    ("Tavi Rensk", "lives_in", "Harrowgate"), ("Odo Brack", "lives_in", "Saltmere"),
    ("Veltrana", "author", "Mira Quell"), ("Mira Quell", "lives_in", "Dunmoor"),
    # distractors sharing the question's words ("Quillmoor", "live", "spouse") but not its path
    ("Quillmoor Reader", "lives_in", "Fenwick"), ("Quillmoor Reader", "spouse", "Pell Ardent"),
]


def _transcript(ns: str, i: int, actor: str, content: str) -> dict[str, Any]:
    return {"namespace": ns, "source": "chat", "source_event_id": f"m{i}", "kind": "transcript", "actor": actor,
            "content": content, "occurred_at": (T0 + timedelta(minutes=i)).isoformat(), "provenance_root": f"chat://{i}"}


def _fact(ns: str, i: int, subject: str, predicate: str, value: str) -> dict[str, Any]:
    return {"namespace": ns, "source": "catalog", "source_event_id": f"f{i}", "kind": "fact", "actor": "system:catalog",
            "content": json.dumps({"subject": subject, "predicate": predicate, "value": value}),
            "occurred_at": (T0 + timedelta(minutes=100 + i)).isoformat(), "provenance_root": f"catalog://{i}"}


@pytest.fixture(scope="module")
def world(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The namespace before and after Alice moves (``believed_then`` lies between the two derivations)."""
    tmp = tmp_path_factory.mktemp("graph")
    with fresh_database(pg_server) as url:
        settings = Settings(home=tmp / "home", database_url=url, inbox=tmp / "inbox")
        with open_tools(None, settings) as admin:
            events = [_transcript(NS, i, a, c) for i, (a, c) in enumerate(TRANSCRIPTS)]
            events += [_fact(NS, i, *f) for i, f in enumerate(FACTS)]
            events += [_transcript(OTHER, 0, "user:alice", "I work at Acme."),
                       _transcript(OTHER, 1, "user:bob", "Acme is located in Oslo.")]
            events += [_transcript(MASKED, 0, "user:alice", "I work at Acme."),
                       _transcript(MASKED, 1, "user:bob", "Acme is located in Lisbon.")]
            ingest_events(admin.engine, events, origin="test")
            derive(admin.engine, settings)
            time.sleep(0.05)
            believed_then = datetime.now(UTC)
            time.sleep(0.05)
            ingest_events(admin.engine, [_transcript(NS, 50, "user:alice", "I moved to Porto.")], origin="test")
            derive(admin.engine, settings, namespaces=[NS])
            [masked] = admin.current("Alice", "works_at", namespace=MASKED)
            admin.overlay(masked["fact_id"], "redact", quote="Acme")
        with psycopg.connect(url, autocommit=True) as conn:
            reader = capabilities.grant(conn, principal="agent:reader", verbs=["read", "search"], namespaces=[NS],
                                        created_by="test")[1]
            searcher = capabilities.grant(conn, principal="agent:searcher", verbs=["search"], namespaces=[NS],
                                          created_by="test")[1]
        yield {"settings": settings, "url": url, "then": believed_then, "reader": reader, "searcher": searcher}


def _statements(rows: list[dict[str, Any]]) -> list[str]:
    return [r["statement"] for r in rows]


# ------------------------------------------------------------------ follow
def test_follow_walks_current_edges_hop_by_hop(world: dict[str, Any]) -> None:
    with open_tools(None, world["settings"]) as tools:
        walked = tools.follow("Alice", ["works_at", "located_in"], namespace=NS)
        home = tools.follow("alice", ["lives_in"], namespace=NS)
        spouse_home = tools.follow("Quillmoor", ["author", "spouse", "lives in"], namespace=NS)
        staff = tools.follow("Acme", ["employs"], namespace=NS)
    assert [hop["key"] for hop in walked["hops"]] == ["works_at", "located_in"]
    [employer], [place] = (hop["facts"] for hop in walked["hops"])
    assert employer["value"] == "Acme" and place["statement"] == "Acme is located in Lisbon."
    assert walked["values"] == ["Lisbon"]  # not Oslo: another namespace's Acme is not this one
    for fact in (employer, place):  # served like every fact: provenance, overlays, currency
        assert fact["current"] and "overlays" in fact
        assert set(fact["provenance"]) == {"bronze_event_id", "namespace", "source", "source_event_id",
                                           "provenance_root"}
    assert home["values"] == ["Porto"]  # the current edge only: Braga was superseded
    assert spouse_home["values"] == ["Saltmere"] and spouse_home["hops"][2]["key"] == "lives_in"
    assert staff["hops"][0]["inverse"] and staff["values"] == ["Alice"]  # "employs" walks works_at backwards


def test_follow_as_of_walks_what_was_believed_then(world: dict[str, Any]) -> None:
    with open_tools(None, world["settings"]) as tools:
        then = tools.follow("Alice", ["lives_in"], namespace=NS, as_of=world["then"].isoformat())
        with pytest.raises(ToolError, match="UTC offset"):
            tools.follow("Alice", ["lives_in"], namespace=NS, as_of="2026-01-01T00:00:00")
    assert then["values"] == ["Braga"] and then["as_of"] == world["then"].isoformat()


def test_follow_stops_where_nothing_is_believed_and_at_a_masked_value(world: dict[str, Any]) -> None:
    with open_tools(None, world["settings"]) as tools:
        nowhere = tools.follow("Alice", ["works_at", "spouse", "lives_in"], namespace=NS)
        masked = tools.follow("Alice", ["works_at", "located_in"], namespace=MASKED)
    assert [len(hop["facts"]) for hop in nowhere["hops"]] == [1, 0, 0] and nowhere["values"] == []
    # a person redacted the employer: the hop is served redacted, and the link is not walked past it
    [employer] = masked["hops"][0]["facts"]
    assert REDACTED in employer["statement"] and "Acme" not in json.dumps(masked)
    assert masked["hops"][1]["facts"] == [] and masked["values"] == []


def test_follow_refuses_in_one_sentence_at_the_door(world: dict[str, Any], admin_conn_url: str) -> None:
    with open_tools(None, world["settings"]) as tools:
        assert len(tools.follow("Alice", ["works_at", "located_in"], namespace=NS)["hops"]) == 2  # one walk served
        with pytest.raises(ToolError, match="no entity named 'Zed'.*search or list") as unknown:
            tools.follow("Zed", ["works_at"], namespace=NS)
        assert "\n" not in str(unknown.value)
        with pytest.raises(ToolError, match="non-empty list"):
            tools.follow("Alice", "works_at", namespace=NS)  # type: ignore[arg-type]
        with pytest.raises(ToolError, match="non-empty list"):
            tools.follow("Alice", [], namespace=NS)
        with pytest.raises(ToolError, match="argument 'predicates'"):
            tools.follow("Alice", ["works_at\x00"], namespace=NS)
        with pytest.raises(ToolError, match="namespace given is not valid"):
            tools.follow("Alice", ["works_at"], namespace="a,b")
    with psycopg.connect(admin_conn_url) as conn:
        rows = conn.execute("SELECT ok, hit, cardinality(fact_ids), error FROM telemetry.retrievals "
                            "WHERE tool = 'follow' ORDER BY retrieval_id").fetchall()
    assert rows and all(not ok for ok, _, _, _ in rows[-5:])  # every refusal is logged
    assert any(ok and hit and n == 2 for ok, hit, n, _ in rows)  # a walk logs the facts it served


def test_follow_needs_the_read_verb_in_the_namespace(world: dict[str, Any]) -> None:
    with open_tools(world["reader"], world["settings"]) as tools:
        assert tools.follow("Alice", ["works_at"], namespace=NS)["values"] == ["Acme"]
        with pytest.raises(Denied, match="does not allow 'read' in namespace"):
            tools.follow("Alice", ["works_at", "located_in"], namespace=OTHER)
    with open_tools(world["searcher"], world["settings"]) as tools, pytest.raises(Denied, match="'read'"):
        tools.follow("Alice", ["works_at"], namespace=NS)


def test_follow_through_the_cli_is_the_api(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    settings = world["settings"]
    monkeypatch.setenv("MEDALLION_DATABASE_URL", settings.database_url or "")
    monkeypatch.setenv("MEDALLION_HOME", str(settings.home))
    monkeypatch.delenv("MEDALLION_TOKEN", raising=False)
    with open_tools(None, settings) as tools:
        api = tools.follow("Alice", ["works_at", "located_in"], namespace=NS)
    result = CliRunner().invoke(app, ["follow", "Alice", "works_at", "located_in", "--namespace", NS, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == json.loads(json.dumps(api, default=str))
    shown = CliRunner().invoke(app, ["follow", "Alice", "lives_in", "-n", NS, "--as-of", world["then"].isoformat()])
    assert shown.exit_code == 0 and "values: Braga" in shown.stdout
    missing = CliRunner().invoke(app, ["follow", "Zed", "works_at", "-n", NS])
    assert missing.exit_code == 1 and len(missing.stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------ search: the graph list
def _graph_list(world: dict[str, Any], query: str) -> list[str]:
    with open_tools(None, world["settings"]) as tools, tools.scope([NS]) as conn:
        ids, _ = graph.search_list(conn, NS, query, source="silver.facts", where="f.namespace = %(ns)s AND "
                                "f.valid_to IS NULL", params={"ns": NS}, believed="f.valid_to IS NULL", limit=50)
        return [r[0] for r in conn.execute("SELECT statement FROM silver.facts WHERE fact_id = ANY(%s) "
                                           "ORDER BY array_position(%s, fact_id)", (ids, ids)).fetchall()]


def test_graph_list_ranks_the_last_hop_of_the_best_path_first(world: dict[str, Any]) -> None:
    assert _graph_list(world, "Where is the company Alice works at located?")[:2] == [
        "Acme is located in Lisbon.", "Alice works at Acme."]
    spouse = _graph_list(world, "Who is the spouse of the author of Quillmoor?")
    assert spouse[:2] == ["Tavi Rensk spouse: Odo Brack.", "Quillmoor author: Tavi Rensk."]
    assert _graph_list(world, "Where does Alice live?") == ["Alice moved to Porto."]  # one hop, current only
    assert _graph_list(world, "What happened to Quillmoor?") == []  # no predicate matches: no list


def test_search_answers_a_two_hop_question_with_the_last_hop(world: dict[str, Any]) -> None:
    """The answer's statement shares only "lives" with the question, while the Quillmoor Reader's
    home shares "Quillmoor" too: only the walk knows who wrote Quillmoor."""
    with open_tools(None, world["settings"]) as tools:
        hits = tools.search("Where does the author of Quillmoor live?", namespace=NS, k=5)
        spouse = tools.search("Who is the spouse of the author of Quillmoor?", namespace=NS, k=5)
    homes = [h["statement"] for h in hits if h["kind"] == "fact" and h["predicate"] == "lives_in"]
    assert homes[0] == "Tavi Rensk lives in: Harrowgate.", _statements(hits)
    spouses = [h["statement"] for h in spouse if h["kind"] == "fact" and h["predicate"] == "spouse"]
    assert spouses[0] == "Tavi Rensk spouse: Odo Brack.", _statements(spouse)


# ------------------------------------------------------------------ search: chunks and the ledger
def test_a_chunk_whose_facts_are_all_superseded_is_not_served_as_current(world: dict[str, Any]) -> None:
    with open_tools(None, world["settings"]) as tools:
        now = tools.search("Braga", namespace=NS, k=20, per_event=False)
        everything = tools.search("Braga", namespace=NS, k=20, per_event=False, include_superseded=True)
        then = tools.search("Braga", namespace=NS, k=20, per_event=False, as_of=world["then"].isoformat())
        [porto] = tools.current("Alice", "lives_in", namespace=NS)
    assert not [h for h in now if "Braga" in h["statement"]], _statements(now)
    [old] = [h for h in everything if h["kind"] == "chunk" and "Braga" in h["statement"]]
    assert old["current"] is False and old["supports"] == []
    assert old["superseded_by"] == [{"fact_id": porto["fact_id"], "statement": porto["statement"], "current": True}]
    [believed] = [h for h in then if h["kind"] == "chunk" and "Braga" in h["statement"]]
    assert believed["current"] and believed["supports"]  # believed then: served as it was
    with open_tools(None, world["settings"]) as tools:
        home = tools.search("Where does Alice live?", namespace=NS, k=3, as_of=world["then"].isoformat())
    assert home[0]["statement"] == "Alice lives in Braga."  # the graph list walks what was believed then


def test_a_chunk_supporting_no_current_fact_ranks_below_one_that_does(
        world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    fused: dict[str, float] = {}
    fuse = fusion.fuse

    def keep(*args: Any, **kwargs: Any) -> dict[str, float]:
        fused.update(fuse(*args, **kwargs))
        return fused

    monkeypatch.setattr(fusion, "fuse", keep)
    with open_tools(None, world["settings"]) as tools:
        hits = tools.search("Good morning, where does Alice live, Braga?", namespace=NS, k=30, per_event=False,
                            include_superseded=True)
    chunks = {h["statement"]: h for h in hits if h["kind"] == "chunk"}
    old = next(h for text, h in chunks.items() if "Braga" in text)
    greeting = chunks["Good morning everyone!"]
    assert not old["current"] and old["supports"] == []  # its fact was superseded: half its fused score
    assert fusion.NO_CURRENT_FACT < 1
    # (times its turn's boost, which its closed fact gives it: 1 + 0.1 importance + 0.05 freshness at most)
    assert fusion.NO_CURRENT_FACT <= old["score"] / fused[old["chunk_id"]] <= fusion.NO_CURRENT_FACT * 1.15 + 1e-6
    # a chunk that stated no fact at all is not contradicted by anything: it keeps its score
    assert greeting["current"] and greeting["supports"] == []
    assert greeting["score"] == round(fused[greeting["chunk_id"]], 6)


@pytest.fixture
def admin_conn_url(world: dict[str, Any]) -> str:
    return world["url"]
