"""What the LoCoMo failure analysis changed in retrieval (bench/results/locomo_proposals.md):
contextual chunks (the previous turn of a thread), BM25 full text with exact per-namespace statistics,
and an answer turn found by the words of the question it replies to."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from medallion.bronze.ingest import ingest_events
from medallion.db.connection import connect
from medallion.serve import capabilities
from medallion.serve.tools import open_tools
from medallion.settings import Settings
from medallion.silver.derive import derive

NS = "quality"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _event(i: int, actor: str, content: str, root: str, kind: str = "transcript") -> dict[str, Any]:
    event = {"namespace": NS, "source": "chat", "source_event_id": f"m{i}", "kind": kind, "actor": actor,
             "content": content, "occurred_at": (T0 + timedelta(minutes=i)).isoformat(), "provenance_root": root}
    if kind == "document":
        event["metadata"] = {"path": "docs/handbook.md"}
    return event


def _stats_disagreement(conn: psycopg.Connection) -> list[tuple[Any, ...]]:
    """Rows where silver.fts_docs / fts_terms differ from a recount of the tables (both directions)."""
    stored_docs = "SELECT namespace, relation, docs, total_len FROM silver.fts_docs WHERE docs <> 0"
    counted_docs = ("SELECT namespace, 'facts', count(*), sum(length(tsv)) FROM silver.facts GROUP BY namespace "
                    "UNION ALL SELECT namespace, 'chunks', count(*), sum(length(tsv)) FROM silver.chunks "
                    "GROUP BY namespace")
    stored_terms = "SELECT namespace, relation, lexeme, ndoc FROM silver.fts_terms"
    counted_terms = ("SELECT f.namespace, 'facts', u.lexeme, count(*) FROM silver.facts f, unnest(f.tsv) u "
                     "GROUP BY 1, 3 UNION ALL SELECT c.namespace, 'chunks', u.lexeme, count(*) "
                     "FROM silver.chunks c, unnest(c.tsv) u GROUP BY 1, 3")
    rows: list[tuple[Any, ...]] = []
    for a, b in ((stored_docs, counted_docs), (counted_docs, stored_docs), (stored_terms, counted_terms),
                 (counted_terms, stored_terms)):
        rows += conn.execute(f"({a}) EXCEPT ({b})").fetchall()
    return rows


def test_chunk_context_is_the_previous_turn_of_its_thread(engine_conn: psycopg.Connection,
                                                          settings: Settings) -> None:
    ingest_events(engine_conn, [
        _event(1, "user:alice", "Where are you going this summer?", "chat://a"),
        _event(2, "user:zoe", "Unrelated thread opener about the roof.", "chat://b"),
        _event(3, "user:bob", "Lisbon, with my sister.", "chat://a"),
        _event(4, "agent:helper", "Noted.", "chat://b"),
        _event(5, "user:bob", "A long handbook.\n\nSecond paragraph.", "chat://a", kind="document"),
    ], origin="test")
    derive(engine_conn, settings)
    assert engine_conn.execute("SELECT count(*) FROM silver.derivation_failures").fetchone()[0] == 0
    context = dict(engine_conn.execute(
        "SELECT e.source_event_id, c.context FROM silver.chunks c JOIN bronze.events e "
        "ON e.event_id = c.bronze_event_id").fetchall())
    assert context["m1"] == "alice:"  # first turn of its thread: only its speaker
    # not m2 (another thread); then the turn restated to stand alone
    assert context["m3"] == "alice: Where are you going this summer?\nbob:\nLisbon, with Bob's sister."
    assert context["m4"] == "zoe: Unrelated thread opener about the roof.\nhelper:"
    assert context["m5"] is None  # documents are not turns
    # the chunk serves its own text and span; the context is only embedded and indexed with it
    text, tsv_has_question = engine_conn.execute(
        "SELECT c.text, c.tsv @@ to_tsquery('english', 'summer') FROM silver.chunks c JOIN bronze.events e "
        "ON e.event_id = c.bronze_event_id WHERE e.source_event_id = 'm3'").fetchone()
    assert text == "Lisbon, with my sister." and tsv_has_question


def test_a_named_thread_links_messages_with_roots_of_their_own(engine_conn: psycopg.Connection,
                                                               settings: Settings) -> None:
    """A chat export gives every message its own permalink as provenance root; the conversation is
    named by ``thread`` (top level) or ``metadata.thread``, and the chunk context follows it. Without a
    thread, each message is a thread of its own and an answer has no question to be found by."""
    events = [
        _event(1, "user:alice", "Where are you going this summer?", "chat://msg/1"),
        _event(2, "user:zoe", "Unrelated thread opener about the roof.", "chat://msg/2"),
        _event(3, "user:bob", "Lisbon, with my sister.", "chat://msg/3"),
        _event(4, "agent:helper", "Noted.", "chat://msg/4"),
        _event(5, "user:carol", "Which trains still run at night?", "chat://msg/5"),
    ]
    events[0]["thread"] = events[2]["thread"] = "summer-plans"
    events[1]["metadata"] = events[3]["metadata"] = {"thread": "roof"}
    result = ingest_events(engine_conn, events, origin="test")
    assert result.ok
    stored = dict(engine_conn.execute(
        "SELECT source_event_id, metadata ->> 'thread' FROM bronze.events WHERE namespace = %s", (NS,)).fetchall())
    assert stored == {"m1": "summer-plans", "m2": "roof", "m3": "summer-plans", "m4": "roof", "m5": None}
    derive(engine_conn, settings)
    context = dict(engine_conn.execute(
        "SELECT e.source_event_id, c.context FROM silver.chunks c JOIN bronze.events e "
        "ON e.event_id = c.bronze_event_id").fetchall())
    assert context["m3"] == "alice: Where are you going this summer?\nbob:\nLisbon, with Bob's sister."
    assert context["m4"] == "zoe: Unrelated thread opener about the roof.\nhelper:"
    assert context["m5"] == "carol:"  # no thread: its own root, nothing before it
    engine_conn.execute("SET enable_seqscan = off")  # a table this small would be scanned whatever the index
    plan = "\n".join(r[0] for r in engine_conn.execute(
        "EXPLAIN SELECT p.event_id FROM bronze.events p WHERE p.namespace = 'quality' "
        "AND coalesce(p.metadata ->> 'thread', p.provenance_root) = 'roof' AND p.event_id < 100 "
        "ORDER BY p.event_id DESC LIMIT 1").fetchall())
    engine_conn.execute("RESET enable_seqscan")
    assert "events_thread_key" in plan


@pytest.mark.xfail(strict=True, reason=(
    "the fragment answer has only its chunk; with facts and chunks in one list per view it now outranks "
    "every fact (the 'calls every Sunday' fact among them), but the question turn it replies to shares "
    "'call' and 'puppy' with the query and ranks first (0.364 vs 0.334)"))
def test_answer_turn_is_found_by_the_question_it_replies_to(settings: Settings,
                                                            engine_conn: psycopg.Connection) -> None:
    turns = [
        ("user:alice", "What did you call the new puppy you adopted?"),
        ("user:bob", "Biscuit, after my grandmother's recipe."),
        ("user:alice", "My neighbour's dog barks all night long."),
        ("user:bob", "I can never remember names at parties."),
        ("user:alice", "We adopted a new routine for the weekends."),
        ("user:bob", "The bakery on the corner sells the best bread."),
        ("user:alice", "I painted the kitchen a pale green colour."),
        ("user:bob", "My sister calls every Sunday evening."),
    ]
    ingest_events(engine_conn, [_event(i, actor, text, "chat://pets") for i, (actor, text) in enumerate(turns, 1)],
                  origin="test")
    derive(engine_conn, settings)
    with open_tools(None, settings) as tools:
        hits = tools.search("What did Bob call his puppy?", namespace=NS, k=10)
    events = list(dict.fromkeys(h["provenance"]["source_event_id"] for h in hits))
    # the answer turn shares no word with the question; without its context it ranks below "My sister calls…"
    assert events[0] == "m2", events


def test_bm25_prefers_the_rare_word_to_a_repeated_common_one(settings: Settings,
                                                              engine_conn: psycopg.Connection,
                                                              admin_conn: psycopg.Connection) -> None:
    common = [_event(i, "user:ann", f"Coffee again this morning, number {i}.", f"chat://{i}") for i in range(1, 13)]
    ingest_events(engine_conn, [*common,
                                _event(20, "user:ann", "Coffee, coffee, coffee: coffee all day.", "chat://x"),
                                _event(21, "user:ann", "The ferry to Zanzibar leaves at noon.", "chat://y")],
                  origin="test")
    derive(engine_conn, settings)
    with admin_conn.transaction():
        admin_conn.execute("SELECT set_config('medallion.namespaces', %s, true)", (NS,))
        ranked = [r[0] for r in admin_conn.execute(
            "SELECT c.text FROM silver.fts_chunks(%s, 'coffee & zanzibar', '(coffee & zanzibar)', 'coffee | zanzibar', "
            "5, NULL) f JOIN silver.chunks c USING (chunk_id)", (NS,)).fetchall()]
    assert ranked[0] == "The ferry to Zanzibar leaves at noon."
    assert "Coffee, coffee, coffee: coffee all day." in ranked[1:]


def test_a_turn_is_found_by_its_whole_passage_when_the_question_spans_its_sentences(
        settings: Settings, engine_conn: psycopg.Connection, admin_conn: psycopg.Connection) -> None:
    turns = [
        ("user:ines", "The ferry to Zanzibar leaves at noon on Saturday. "
                      "Pack the snorkel gear and plenty of sunscreen."),
        ("user:ines", "Zanzibar was hot, we mostly stayed near the hotel pool."),
        ("user:ines", "My old snorkel cracked, so I threw it out."),
        ("user:ines", "The ferry was late again this morning because of the fog."),
    ]
    ingest_events(engine_conn, [_event(i, actor, text, f"chat://{i}") for i, (actor, text) in enumerate(turns, 1)],
                  origin="test")
    derive(engine_conn, settings)
    units = dict(admin_conn.execute("SELECT text, unit FROM silver.chunks WHERE namespace = %s", (NS,)).fetchall())
    assert units[turns[0][1]] == "passage"
    assert units["The ferry to Zanzibar leaves at noon on Saturday."] == "sentence"
    with admin_conn.transaction():
        admin_conn.execute("SELECT set_config('medallion.namespaces', %s, true)", (NS,))
        ranked = [r[0] for r in admin_conn.execute(
            "SELECT c.text FROM silver.fts_passages(%s, 'zanzibar & snorkel', '(zanzibar & snorkel)', "
            "'zanzibar | snorkel', 5, NULL) f JOIN silver.chunks c USING (chunk_id)", (NS,)).fetchall()]
    assert ranked[0] == turns[0][1]  # only the whole turn holds both words
    assert all(units[t] == "passage" for t in ranked)
    with open_tools(None, settings) as tools:
        hits = tools.search("snorkel gear for the Zanzibar trip", namespace=NS, k=4, per_event=False)
    served = {(h["statement"], h["unit"]) for h in hits if h["kind"] == "chunk"}
    assert (turns[0][1], "passage") in served, hits


def test_bm25_statistics_stay_exact_through_inserts_deletes_and_rebuilds(
        settings: Settings, engine_conn: psycopg.Connection, admin_conn: psycopg.Connection) -> None:
    ingest_events(engine_conn, [_event(i, "user:ann", f"I live in City {i} and work at Firm {i % 3}.", "chat://s")
                                for i in range(1, 30)], origin="test")
    derive(engine_conn, settings)
    assert admin_conn.execute("SELECT count(*) FROM silver.fts_terms").fetchone()[0] > 10
    assert _stats_disagreement(admin_conn) == []
    derive(engine_conn, settings, full_rebuild=True, namespaces=[NS])  # DELETE per namespace, then inserts
    assert _stats_disagreement(admin_conn) == []
    derive(engine_conn, settings, full_rebuild=True)  # TRUNCATE, then inserts
    assert _stats_disagreement(admin_conn) == []
    admin_conn.execute("DELETE FROM silver.chunks WHERE char_start = 0 AND text LIKE '%%City 1%%'")
    assert _stats_disagreement(admin_conn) == []


@pytest.mark.parametrize("function", ["fts_facts", "fts_chunks", "fts_passages"])
def test_bm25_functions_keep_the_namespace_firewall(settings: Settings, engine_conn: psycopg.Connection,
                                                    admin_conn: psycopg.Connection, function: str) -> None:
    ingest_events(engine_conn, [_event(1, "user:ann", "The ferry to Zanzibar serves coffee.", "chat://y")],
                  origin="test")
    derive(engine_conn, settings)
    third = "true" if function == "fts_facts" else "NULL"
    sql = f"SELECT count(*) FROM silver.{function}(%s, 'ferry', 'ferry', 'ferry', 5, {third})"
    _, token = capabilities.grant(admin_conn, principal="agent:fts", verbs=["search"], namespaces=[NS],
                                  created_by="test")
    with connect(settings, "tool") as conn:
        conn.execute("SELECT set_config('medallion.namespaces', %s, true)", (NS,))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # no verified token: nothing is visible
            conn.execute(sql, (NS,))
        conn.rollback()
        conn.execute("SELECT capability_id FROM auth.enter(%s)", (token,))
        conn.execute("SELECT set_config('medallion.namespaces', %s, true)", (NS,))
        assert conn.execute(sql, (NS,)).fetchone()[0] == 1
        conn.rollback()
        conn.execute("SET LOCAL medallion.namespaces = 'somewhere-else'")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(sql, (NS,))
