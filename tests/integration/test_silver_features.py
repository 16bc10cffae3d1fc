"""Silver features on natural language and the example team (S3, S7, S8, S10, S11, S12)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from medallion.bronze.ingest import ingest_events
from medallion.db.connection import connect
from medallion.serve import served
from medallion.serve.tools import open_tools
from medallion.settings import Settings
from medallion.silver import chunks, documents, entities, queries
from medallion.silver.derive import derive

NS = "nl"


def said(i: int, text: str, actor: str = "user:bob", day: int = 1) -> dict:
    return {"namespace": NS, "source": "slack", "source_event_id": f"m{i}", "kind": "transcript", "actor": actor,
            "content": text, "provenance_root": f"slack://C1/p{i}",
            "occurred_at": f"2026-11-{day:02d}T10:00:00Z"}


@pytest.fixture
def team(team_database_url: str, tmp_path: Path) -> Iterator[psycopg.Connection]:
    """An engine connection to a copy of the example team, landed and derived (tests/conftest.py)."""
    settings = Settings(home=tmp_path / "team-home", database_url=team_database_url, inbox=tmp_path)
    with connect(settings, "engine", autocommit=True) as conn:
        yield conn


def test_each_decision_type_via_natural_language(engine_conn: psycopg.Connection, settings: Settings) -> None:
    """S3: add, skip, update, supersede and contested from chat turns, one event at a time."""
    turns = [
        said(1, "I live in Berlin.", day=1),
        said(2, "I live in Berlin.", day=2),
        said(3, "I like coffee.", day=3),
        said(4, "I like black coffee.", day=4),
        said(5, "I moved to Lisbon.", day=5),
        said(6, "Bob lives in Madrid.", actor="agent:helper", day=6),
    ]
    for turn in turns:
        ingest_events(engine_conn, [turn])
        derive(engine_conn, settings)
    rows = engine_conn.execute(
        "SELECT b.source_event_id, r.decision, r.outcome, f.predicate FROM silver.resolutions r "
        "JOIN bronze.events b ON b.event_id = r.bronze_event_id "
        "LEFT JOIN silver.facts f ON f.fact_id = r.candidate_fact_id ORDER BY r.bronze_event_id, r.candidate_index"
    ).fetchall()
    by_turn = {seid: (decision, outcome) for seid, decision, outcome, _ in rows}
    assert by_turn["m1"] == ("add", "added")
    assert by_turn["m2"] == ("skip", "refreshed")
    assert by_turn["m3"] == ("add", "added")
    assert by_turn["m4"] == ("update", "closed_previous")
    assert by_turn["m5"] == ("supersede", "closed_previous")
    assert by_turn["m6"] == ("supersede", "contested")  # an agent's inference does not overrule Bob
    assert {r["value"] for r in served.current(engine_conn, NS, "Bob", "lives_in")} == {"Lisbon", "Madrid"}
    assert [r["value"] for r in served.current(engine_conn, NS, "Bob", "prefers")] == ["black coffee"]
    history = served.history(engine_conn, NS, "bob", "lives_in")
    [statement] = {r["statement"] for r in history if r["value"] == "Berlin"}
    assert "Bob" in statement and " I " not in f" {statement} "


def test_example_team_scenarios(team: psycopg.Connection) -> None:
    """S3/S4 on the example team: a supersede, a refinement skip, contested pairs, out-of-order history."""
    assert [r["value"] for r in served.history(team, "team-atlas", "Bob", "lives_in")] == ["Berlin", "Lisbon"]
    assert [r["value"] for r in served.current(team, "team-atlas", "atlas-api database", "version")] == [
        "PostgreSQL 18"]
    dan_tz = served.current(team, "team-atlas", "Dan", "timezone")
    assert {r["value"] for r in dan_tz} == {"Europe/London", "PST"} and all(r["contested"] for r in dan_tz)
    carol = {r["value"]: r for r in served.current(team, "team-atlas", "Carol", "birthday")}
    assert set(carol) == {"1991-05-03", "--03-05"} and all(r["contested"] for r in carol.values())
    roles = served.history(team, "team-atlas", "Carol", "role")
    backfill = next(r for r in roles if r["value"] == "Senior Product Designer")
    assert backfill["valid_to"] is not None and backfill["superseded_at"] == backfill["recorded_at"]
    assert [r["value"] for r in served.current(team, "team-atlas", "Carol", "role")] == ["Design Lead"]
    # namespaces are independent: team-borealis's Bob is someone else
    assert [r["value"] for r in served.current(team, "team-borealis", "Bob", "lives_in")] == ["Oslo"]


def test_entities_are_alias_aware_but_never_fuzzy(team: psycopg.Connection) -> None:
    """S11: "Room 101" ≠ "Room 102", "Tigran" ≠ "Iran"; the speaker's actor id is an alias."""
    room_101 = entities.find(team, "team-atlas", "room 101")
    room_102 = entities.find(team, "team-atlas", "Room 102")
    assert room_101 and room_102 and set(room_101).isdisjoint(room_102)
    assert entities.find(team, "team-atlas", "user:alice") == entities.find(team, "team-atlas", "Alice")
    assert entities.find(team, "team-atlas", "Iran") != entities.find(team, "team-atlas", "Tigran")
    assert entities.normalize("  Room  101! ") == "room 101"
    assert entities.normalize("Tigran") != entities.normalize("Iran")
    paths = queries.related(team, "team-atlas", "Alice", "Bob")
    assert paths and paths[0]["path"] == ["Alice", "Bob"] and paths[0]["facts"][0]["statement"]
    two_hops = queries.related(team, "team-atlas", "Carol", "Alice", max_depth=3)
    assert two_hops and all(len(p["path"]) <= 4 for p in two_hops)
    assert queries.related(team, "team-atlas", "Carol", "Alice", max_depth=1) == []


def test_a_slot_is_read_by_an_alias_as_by_the_name(team: psycopg.Connection, team_database_url: str,
                                                    tmp_path: Path) -> None:
    """S11: ``current`` and ``history`` find a subject by an alias as by its name (entities.find), on the
    engine's connection, which no scope narrows, and through the tool login's scope, where the alias is
    looked up by silver.entities_aliased."""
    [(alias, predicate)] = team.execute(
        "SELECT e.aliases[1], f.predicate FROM silver.entities e JOIN silver.facts f ON f.subject_id = e.entity_id "
        "WHERE e.namespace = 'team-atlas' AND e.normalized_name = 'alice' AND cardinality(e.aliases) > 0 "
        "ORDER BY f.predicate LIMIT 1").fetchall()
    by_name = served.history(team, "team-atlas", "Alice", predicate)
    assert by_name and served.history(team, "team-atlas", alias, predicate) == by_name
    now = served.current(team, "team-atlas", "Alice", predicate)
    assert served.current(team, "team-atlas", alias, predicate) == now
    settings = Settings(home=tmp_path / "tool-home", database_url=team_database_url, inbox=tmp_path)
    with open_tools(settings=settings) as tools:
        shown = tools.history("Alice", predicate, namespace="team-atlas")
        assert [f["fact_id"] for f in shown] == [f["fact_id"] for f in by_name]
        assert tools.history(alias, predicate, namespace="team-atlas") == shown
        assert tools.current(alias, predicate, namespace="team-atlas") == tools.current(
            "Alice", predicate, namespace="team-atlas")


def test_documents_are_versioned_git_style(team: psycopg.Connection) -> None:
    """S8: versions per path with parents and one HEAD; identical content dedups; drift by hash."""
    versions = documents.history(team, "team-atlas", "handbook/oncall.md")
    assert len(versions) == 2  # the byte-identical re-publish added nothing
    first, second = versions
    assert first["parent_hash"] is None and second["parent_hash"] == first["version_hash"]
    assert [v["is_head"] for v in versions] == [False, True]
    assert not documents.drift(team, "team-atlas", "handbook/oncall.md", second["version_hash"])
    assert documents.drift(team, "team-atlas", "handbook/oncall.md", first["version_hash"])
    assert team.execute("SELECT count(*) FROM silver.facts f JOIN bronze.events b ON b.event_id = f.bronze_event_id "
                        "WHERE b.kind = 'document'").fetchone()[0] == 0


def test_routing_working_memory_and_chunks(team: psycopg.Connection) -> None:
    """S10: low-stakes ephemeral plans go to working memory with an expiry, never to the ledger;
    S7: every event is chunked and facts point at the chunk of their span."""
    plans = team.execute(
        "SELECT w.predicate, w.expires_at - b.occurred_at FROM silver.working_memory w "
        "JOIN bronze.events b ON b.event_id = w.bronze_event_id").fetchall()
    assert plans and all(p == "plans" and ttl == timedelta(days=30) for p, ttl in plans)
    assert team.execute("SELECT count(*) FROM silver.facts WHERE predicate = 'plans'").fetchone()[0] == 0
    unchunked = team.execute(
        "SELECT count(*) FROM bronze.events b WHERE b.kind <> 'overlay' AND NOT EXISTS "
        "(SELECT 1 FROM silver.chunks c WHERE c.bronze_event_id = b.event_id)").fetchone()[0]
    assert unchunked == 0
    mismatched = team.execute(
        "SELECT count(*) FROM silver.facts f JOIN silver.chunks c ON c.chunk_id = f.chunk_id "
        "WHERE c.bronze_event_id <> f.bronze_event_id OR f.span_start < c.char_start - 1").fetchone()[0]
    assert mismatched == 0
    assert team.execute("SELECT count(*) FROM silver.facts WHERE chunk_id IS NOT NULL").fetchone()[0] > 20
    long_text = " ".join(f"Sentence number {i} talks about the billing roadmap." for i in range(80))
    spans = chunks.split(long_text)
    assert len(spans) > 1 and all(end - start <= chunks.MAX_CHARS for start, end in spans)
    assert long_text[spans[0][0]:spans[-1][1]].startswith("Sentence number 0")


def test_importance_and_staleness(team: psycopg.Connection) -> None:
    """S12: importance from stakes and authority; load-bearing facts past their half-life need re-verifying."""
    high, low = team.execute(
        "SELECT max(importance) FILTER (WHERE predicate = 'lives_in'), max(importance) FILTER (WHERE predicate = "
        "'states') FROM silver.facts").fetchone()
    assert high > low
    now = datetime.now(UTC)
    assert served.stale(team, "team-atlas", now) == []
    later = served.stale(team, "team-atlas", now + timedelta(days=400))
    assert {r["predicate"] for r in later} >= {"lives_in"}
    assert all(r["importance"] >= 0.5 for r in later)


def test_fact_events_skip_distillation(engine_conn: psycopg.Connection, settings: Settings) -> None:
    """S1: a kind=fact event's content is the fact (subject, predicate, value, valid_from, confidence)."""
    ingest_events(engine_conn, [{
        "namespace": NS, "source": "hr", "source_event_id": "f1", "kind": "fact", "provenance_root": "hr://1",
        "content": json.dumps({"subject": "Zoe", "predicate": "birthday", "value": "1990-02-03",
                               "valid_from": "1990-02-03T00:00:00Z", "confidence": 0.8}),
    }])
    derive(engine_conn, settings)
    with open_tools(settings=settings) as tools:  # the consumer's path: provenance comes through the tool role
        [row] = tools.current("zoe", "birthday", namespace=NS)
    assert row["value"] == "1990-02-03" and row["confidence"] == 0.8
    assert row["valid_from"].startswith("1990-02-03") and row["provenance"]["source_event_id"] == "f1"
