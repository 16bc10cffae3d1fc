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
from medallion.serve import capabilities, retrieve
from medallion.serve import search as searching
from medallion.serve.search import tsqueries
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
    """Rows where silver.fts_docs / fts_terms / fact_terms differ from a recount of the tables (both
    directions), or a lexeme's BM25 bounds understate what its documents hold."""
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
    # the facts' narrow full-text table holds exactly the facts, each believed as the ledger says
    stored_words = "SELECT fact_id, namespace, believed, tsv::text FROM silver.fact_terms"
    ledger_words = "SELECT fact_id, namespace, valid_to IS NULL, tsv::text FROM silver.facts"
    for a, b in ((stored_words, ledger_words), (ledger_words, stored_words)):
        rows += conn.execute(f"({a}) EXCEPT ({b})").fetchall()
    # and each lexeme's bounds hold: at least the most occurrences in one document, at most the
    # shortest document holding it
    rows += conn.execute(
        "SELECT t.* FROM silver.fts_terms t JOIN (SELECT x.namespace, x.relation, u.lexeme, "
        "max(greatest(cardinality(u.positions), 1)) AS tf, min(length(x.tsv)) AS len FROM "
        "(SELECT namespace, 'facts' AS relation, tsv FROM silver.facts UNION ALL "
        "SELECT namespace, 'chunks', tsv FROM silver.chunks) x, unnest(x.tsv) u GROUP BY 1, 2, 3) c "
        "USING (namespace, relation, lexeme) WHERE t.max_tf < c.tf OR t.min_len > c.len").fetchall()
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


def test_search_reads_the_turns_beside_each_candidate_in_its_thread(engine_conn: psycopg.Connection,
                                                                    settings: Settings) -> None:
    """The turns beside a candidate are those of its thread (a named thread across permalink roots, else
    the provenance root), in Bronze order; another thread's turns in between are not its neighbours."""
    events = [
        _event(1, "user:alice", "Where are you going this summer?", "chat://msg/1"),
        _event(2, "user:zoe", "The roof over the garage leaks again.", "chat://roof"),
        _event(3, "user:bob", "Lisbon in August, with my sister.", "chat://msg/3"),
        _event(4, "user:zoe", "A roofer comes on Tuesday.", "chat://roof"),
        _event(5, "user:alice", "Lovely, Lisbon is great in summer.", "chat://msg/5"),
    ]
    for e in (events[0], events[2], events[4]):
        e["thread"] = "summer"
    assert ingest_events(engine_conn, events, origin="test").ok
    derive(engine_conn, settings)
    event = dict(engine_conn.execute("SELECT source_event_id, event_id FROM bronze.events WHERE namespace = %s",
                                     (NS,)).fetchall())
    request = searching.SearchRequest(NS, "Where is Bob going this summer?")
    params: dict[str, Any] = {"ns": NS, "q": searching.query_vector(settings.embedding_model, request.query),
                              "n": searching.CANDIDATES, **tsqueries(request.query)}
    plan = searching.plan(request, params)
    with open_tools(None, settings) as tools, tools.scope([NS]) as conn:
        fetched = retrieve.fetch(conn, plan, params)
    assert fetched.neighbours[event["m3"]] == (event["m1"], event["m5"])
    assert fetched.neighbours[event["m1"]] == (None, event["m3"])
    assert fetched.neighbours[event["m4"]] == (event["m2"], None)


def test_answer_turn_is_found_by_the_question_it_replies_to(settings: Settings,
                                                            engine_conn: psycopg.Connection) -> None:
    """The fragment answer has only its chunk, and the question turn it replies to shares 'call' and
    'puppy' with the query: alone by its words it ranks second. Lent a share of the scores of the turns
    beside it (the question before it, the dog after it), it comes first."""
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
    assert admin_conn.execute("SELECT count(*) FROM silver.fact_terms WHERE NOT believed").fetchone()[0] > 0
    gone = "SELECT fact_id FROM silver.facts WHERE statement LIKE '%%City 2%%'"  # as an erasure deletes them
    admin_conn.execute(f"DELETE FROM silver.edges WHERE fact_id IN ({gone})")
    admin_conn.execute(f"DELETE FROM silver.facts WHERE fact_id IN ({gone})")
    admin_conn.execute("UPDATE silver.facts SET valid_to = valid_from, superseded_at = recorded_at "
                       "WHERE valid_to IS NULL AND statement LIKE '%%Firm%%'")  # a close outside the engine
    assert _stats_disagreement(admin_conn) == []


def _full_scan_bm25(conn: psycopg.Connection, query: str, k: int) -> list[tuple[str, float]]:
    """BM25 over every believed fact of the namespace, with the same statistics and formula: what the
    candidate passes of silver.fts_facts must agree with."""
    return conn.execute(
        "WITH s AS (SELECT * FROM silver.bm25_terms(%(ns)s, 'facts', %(q)s, 1000000)) "
        "SELECT f.fact_id, sum(w.idf * tf.n * 2.2 / (tf.n + 1.2 * (0.25 + 0.75 * length(f.tsv) / s.avg_len)))::real "
        "FROM silver.facts f CROSS JOIN s CROSS JOIN unnest(f.tsv) u "
        "JOIN unnest(s.lexemes, s.idf) AS w(lexeme, idf) ON w.lexeme = u.lexeme "
        "CROSS JOIN LATERAL (SELECT greatest(cardinality(u.positions), 1)::float8 AS n) tf "
        "WHERE f.namespace = %(ns)s AND f.valid_to IS NULL GROUP BY f.fact_id ORDER BY 2 DESC, 1 LIMIT %(k)s",
        {"ns": NS, "q": query, "k": k}).fetchall()


def test_bm25_over_facts_ranks_as_a_scan_of_every_fact_would(
        settings: Settings, engine_conn: psycopg.Connection, admin_conn: psycopg.Connection) -> None:
    """The full-text list reads candidates in passes and skips a rare word none of whose documents could
    reach the top k (silver.fts_rank); whatever it skips, its top k is the one a scan of every fact gives."""
    ingest_events(engine_conn, [_event(1, "user:ann", "I live in Tromso.", "chat://s")], origin="test")
    derive(engine_conn, settings)
    texts = ([f"Alma Quist repaired {n} violins in the workshop." for n in range(12)]
             + [f"The oboe number {n} needs a reed." for n in range(40)]
             + ["A zither hangs on the wall.", "The zither zither zither solo."]
             + [f"Alma keeps an oboe in locker {n}." for n in range(3)])
    cols = [r[0] for r in admin_conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'silver' "
        "AND table_name = 'facts' AND is_generated = 'NEVER' ORDER BY ordinal_position").fetchall()]
    for n, text in enumerate(texts):
        picked = {"fact_id": "%(id)s", "statement": "%(text)s", "cardinality": "'many'"}
        admin_conn.execute(f"INSERT INTO silver.facts ({', '.join(cols)}) SELECT "
                           f"{', '.join(picked.get(c, c) for c in cols)} FROM silver.facts "
                           "WHERE namespace = %(ns)s LIMIT 1", {"id": f"bm25-{n:03d}", "text": text, "ns": NS})
    with admin_conn.transaction():
        admin_conn.execute("SELECT set_config('medallion.namespaces', %s, true)", (NS,))
        for query in ("Alma Quist oboe zither", "zither oboe", "which violins did Alma Quist repair",
                      "oboe reed locker", "Quist"):
            for k in (1, 3, 5, 10, 20):
                params = {"ns": NS, **tsqueries(query), "k": k}
                ranked = admin_conn.execute(
                    "SELECT fact_id, rank FROM silver.fts_facts(%(ns)s, %(tsq_all)s, %(tsq_pairs)s, %(tsq)s, "
                    "%(k)s, true)", params).fetchall()
                assert ranked == _full_scan_bm25(admin_conn, params["tsq"], k), (query, k)


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
