"""Search reads in one statement (issue 33 point 4, ``serve/retrieve.py``), on a real database.

Why: every statement is a round trip and a plan; a search used to run about a dozen (one per list,
per graph hop, per stage), which made it 30× a bare vector probe. A caller depends on search being
one statement whatever it asks (a name the graph walks from, a question about now, a past moment,
a subject filter, closed beliefs), and on the graph list being the one the walk gives when it reads
each hop itself. Statements are counted on the real connection by recording every cursor's
``execute`` on it (no database double).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from medallion.serve import graph, retrieve, search_graph
from medallion.serve import search as searching
from medallion.serve.tools import Tools
from tests.support.remembered import remembered_tools

NS = "one-statement"
FIRST_AT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
TURNS = (
    ("maria", "Maria Lopez lives in Lisbon."),
    ("maria", "Maria Lopez works at Acme Corp."),
    ("maria", "Acme Corp is located in Porto."),
    ("tom", "Tom Barrowby works at Acme Corp as an engineer."),
    ("maria", "Maria Lopez moved to Madrid."),
    ("maria", "Maria Lopez prefers green tea."),
    ("tom", "Honestly the weather was lovely on Sunday."),
)


@contextmanager
def counting(conn: psycopg.Connection) -> Iterator[list[str]]:
    """The statements sent on ``conn`` meanwhile: every ``execute`` of a cursor of it. Recorded on
    ``psycopg.Cursor`` itself, from which every cursor class derives (search's one statement goes
    through a raw cursor, ``conn.execute`` through the connection's default one)."""
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def recording(self: psycopg.Cursor, query: Any, params: Any = None, **kwargs: Any) -> psycopg.Cursor:
        if self.connection is conn:
            sent.append(str(query))
        return execute(self, query, params, **kwargs)

    psycopg.Cursor.execute = recording  # type: ignore[method-assign]
    try:
        yield sent
    finally:
        psycopg.Cursor.execute = execute  # type: ignore[method-assign]


@pytest.fixture(scope="module")
def tools(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tools]:
    turns = [{"namespace": NS, "content": text, "kind": "transcript", "actor": actor, "source": "chat",
              "source_event_id": f"t{n}", "occurred_at": (FIRST_AT + timedelta(days=n)).isoformat()}
             for n, (actor, text) in enumerate(TURNS)]
    with remembered_tools(pg_server, tmp_path_factory.mktemp("one-statement"), turns, [NS]) as opened:
        yield opened


def counted(tools: Tools, request: searching.SearchRequest) -> tuple[list[dict[str, Any]], list[str]]:
    """The request's results and the statements ``search`` sent for it, inside the caller's scope."""
    vector = searching.query_vector(tools.settings.embedding_model, request.query)
    with tools.scope([request.namespace]) as conn, counting(conn) as sent:
        results = searching.search(conn, request, vector)
    return results, sent


@pytest.mark.parametrize("request_", [
    searching.SearchRequest(NS, "Where does Maria Lopez live?"),  # names an entity: the graph walks
    searching.SearchRequest(NS, "Where is the company Maria Lopez works at located?"),  # two hops
    searching.SearchRequest(NS, "What does Maria drink these days?"),  # about now: the present stage
    searching.SearchRequest(NS, "lovely weather"),  # a turn that stated no fact: chunks
    searching.SearchRequest(NS, "Where does Maria Lopez live?", include_superseded=True),
    searching.SearchRequest(NS, "Where does Maria Lopez live?", subject="Maria Lopez", predicate="lives_in"),
    searching.SearchRequest(NS, "Where does Maria Lopez live?", min_authority=5, per_event=False),
    searching.SearchRequest(NS, "Where did Maria Lopez live?", as_of=FIRST_AT + timedelta(days=2)),
], ids=["graph", "two-hops", "present", "chunks", "superseded", "slot", "authority", "as-of"])
def test_a_search_is_one_statement(tools: Tools, request_: searching.SearchRequest) -> None:
    results, sent = counted(tools, request_)
    assert results, request_
    assert len(sent) == 1, sent


def test_a_subject_that_names_no_entity_finds_nothing_in_one_statement(tools: Tools) -> None:
    results, sent = counted(tools, searching.SearchRequest(NS, "Where does she live?", subject="Nobody Known"))
    assert results == [] and len(sent) == 1


def test_the_tool_call_reads_once(tools: Tools) -> None:
    """Through ``Tools.search``: the scope's settings, the one read, and the call's telemetry row."""
    with counting(tools.reader) as sent:
        assert tools.search("Where does Maria Lopez live?", namespace=NS)
    reads = [q for q in sent if "silver." in q]
    assert len(reads) == 1, sent
    assert len(sent) == 3, sent  # set_config, the search, telemetry
    assert "telemetry.retrievals" in sent[-1]


@pytest.mark.parametrize("query", ["Where does Maria Lopez live?", "Where is the company Maria Lopez works at located?",
                                   "Where is Acme Corp located?"])
@pytest.mark.parametrize("read_ahead", [retrieve.HOP_NODES, 0])
def test_the_graph_list_is_the_walks_own(tools: Tools, query: str, read_ahead: int) -> None:
    """The graph list from the rows read ahead is the list ``graph.search_list`` gives reading each
    hop itself; with no third level read ahead, the walk reads it and the list is still the same."""
    request = searching.SearchRequest(NS, query)
    vector = searching.query_vector(tools.settings.embedding_model, query)
    params: dict[str, Any] = {"ns": NS, "q": str(vector), "n": searching.CANDIDATES, **searching.tsqueries(query)}
    plan = searching.plan(request, params)
    params["hop_nodes"] = read_ahead
    with tools.scope([NS]) as conn:
        fetched = retrieve.fetch(conn, plan, params)
        ours = search_graph.search_list(conn, fetched, NS, query, source="silver.facts", where=plan.where,
                                        params=params, believed=plan.believed, limit=searching.CANDIDATES)
        walked = graph.search_list(conn, NS, query, source="silver.facts", where=plan.where, params=params,
                                   believed=plan.believed, limit=searching.CANDIDATES)
    assert ours == walked and ours[0], (ours, walked)


@pytest.mark.parametrize("query", ["What does Maria drink these days?", "Where does Maria Lopez live now?",
                                   "Is the weather lovely today?"])
def test_the_statement_reads_what_the_later_stages_would_read_on_their_own(tools: Tools, query: str) -> None:
    """The present stage's columns and the retold flag come with each candidate's served row (one
    lookup per candidate, ``retrieve._hydration`` and the chunks' ``crow``): they are the rows
    ``retrieve.ITEMS_SQL`` and ``retrieve.RETOLD`` give when asked for the same candidates on their own."""
    request = searching.SearchRequest(NS, query)
    vector = searching.query_vector(tools.settings.embedding_model, query)
    params: dict[str, Any] = {"ns": NS, "q": str(vector), "n": searching.CANDIDATES, **searching.tsqueries(query)}
    plan = searching.plan(request, params)
    assert plan.present and plan.chunks
    with tools.scope([NS]) as conn:
        fetched = retrieve.fetch(conn, plan, params)
        alone = {row[0]: row for row in conn.execute(
            retrieve.items_sql("SELECT unnest(%(facts)s::text[])", "SELECT unnest(%(chunks)s::text[])"),
            {"facts": list(fetched.facts), "chunks": list(fetched.chunks)}).fetchall()}
        retold = {row[0] for row in conn.execute(
            f"SELECT f.fact_id FROM silver.facts f WHERE f.fact_id = ANY(%(ids)s) AND {retrieve.RETOLD}",
            {"ids": list(fetched.facts)}).fetchall()}
    assert fetched.facts and fetched.chunks and set(fetched.items) == set(alone)
    for key, row in fetched.items.items():
        assert list(row[1]) == list(alone[key][1].to_numpy()), key  # the embedding, value for value
        assert row[2:] == alone[key][2:], key
    assert fetched.retold == retold


def _served(results: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What a search served, each item's score to four places (a fact's freshness moves between calls)."""
    return [(r.get("fact_id") or r.get("chunk_id"), r["statement"], r["current"], round(r["score"], 4),
             [s.get("fact_id") or s.get("chunk_id") for s in r.get("same_event", [])]) for r in results]


@pytest.mark.parametrize("query", ["Where does Maria Lopez live?", "What does Maria drink these days?",
                                   "lovely weather", "Who works at Acme Corp?"])
def test_a_candidate_the_statement_left_cold_is_read_once_fusion_serves_it(
        tools: Tools, query: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The statement serves in full only the facts of the events fusion can serve (``hot`` in
    ``retrieve._known``); a fact fusion serves beyond them is read in one more statement with the same
    columns, so the results are those of a search that read every candidate in full. Here no event but
    the walk's is hot: every other fact served is read after fusion."""
    request = searching.SearchRequest(NS, query)
    expected, sent = counted(tools, request)
    assert expected and len(sent) == 1, sent
    monkeypatch.setattr(retrieve, "HOT_MARGIN", -10_000)
    results, sent = counted(tools, request)
    assert len(sent) == 2 and "unnest" in sent[1], sent
    assert _served(results) == _served(expected)
