"""Conflict resolution and the S4 policy through kind=fact events (S3, S4, S5, S6)."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import psycopg
import pytest

from medallion.bronze.ingest import ingest_events
from medallion.serve import served
from medallion.settings import Settings
from medallion.silver.derive import derive

NS = "policy"
_counter = iter(range(1, 10_000))


def fact(subject: str, predicate: str, value: object, *, valid_from: str, authority: int, ns: str = NS) -> dict:
    return {
        "namespace": ns, "source": "facts", "source_event_id": f"f{next(_counter)}", "kind": "fact",
        "content": json.dumps({"subject": subject, "predicate": predicate, "value": value, "valid_from": valid_from}),
        "provenance_root": "test://facts", "authority": authority,
    }


def land_and_derive(conn: psycopg.Connection, settings: Settings, *events: dict) -> None:
    result = ingest_events(conn, list(events))
    assert result.inserted == len(events), result.summary()
    derive(conn, settings)


def outcomes(conn: psycopg.Connection) -> list[tuple[str, str]]:
    return conn.execute(
        "SELECT decision, outcome FROM silver.resolutions ORDER BY bronze_event_id, candidate_index"
    ).fetchall()


def test_each_decision_type_via_fact_events(engine_conn: psycopg.Connection, settings: Settings) -> None:
    """S3: add, update (refinement), supersede (changed value) and skip (already known), each recorded."""
    land_and_derive(engine_conn, settings, fact("Alice", "lives_in", "Berlin", valid_from="2026-01-01T00:00:00Z",
                                                authority=1))
    land_and_derive(engine_conn, settings, fact("Alice", "lives_in", "Berlin", valid_from="2026-02-01T00:00:00Z",
                                                authority=1))
    land_and_derive(engine_conn, settings, fact("Alice", "works_at", "Atlas", valid_from="2026-01-01T00:00:00Z",
                                                authority=1))
    land_and_derive(engine_conn, settings, fact("Alice", "works_at", "Atlas Lisbon office",
                                                valid_from="2026-03-01T00:00:00Z", authority=1))
    land_and_derive(engine_conn, settings, fact("Alice", "lives_in", "Lisbon", valid_from="2026-06-01T00:00:00Z",
                                                authority=1))
    assert outcomes(engine_conn) == [
        ("add", "added"), ("skip", "refreshed"), ("add", "added"), ("update", "closed_previous"),
        ("supersede", "closed_previous"),
    ]
    [lives] = served.current(engine_conn, NS, "alice", "lives_in")
    assert lives["value"] == "Lisbon" and lives["valid_to"] is None
    history = served.history(engine_conn, NS, "Alice", "lives_in")
    assert [h["value"] for h in history] == ["Berlin", "Lisbon"]
    assert history[0]["valid_to"] == history[1]["valid_from"]
    assert history[0]["superseded_at"] is not None
    # skip refreshed verified_at instead of adding a row
    assert history[0]["verified_at"] > history[0]["recorded_at"]
    resolution = engine_conn.execute(
        "SELECT reason, neighbours FROM silver.resolutions WHERE decision = 'supersede'"
    ).fetchone()
    # the reason names the slot and the rule that decided
    assert "slot (Alice, lives_in, one-valued)" in resolution[0] and "single-valued" in resolution[0]
    assert resolution[1][0]["same_slot"] is True


# (authority of the candidate vs the existing version, candidate valid_from later/earlier, predicate) → outcome
# The existing version has authority 2 and valid_from 2026-06-01.
MATRIX = [
    ("higher", "later", "one", "closed_previous"),
    ("higher", "earlier", "one", "stored_as_history"),
    ("equal", "later", "one", "closed_previous"),
    ("equal", "earlier", "one", "stored_as_history"),
    ("lower", "later", "one", "contested"),
    ("lower", "same", "one", "contested"),
    ("lower", "earlier", "one", "stored_as_history"),
    ("higher", "later", "many", "closed_previous"),
    ("higher", "earlier", "many", "stored_as_history"),
    ("equal", "later", "many", "closed_previous"),
    ("equal", "earlier", "many", "stored_as_history"),
    ("lower", "later", "many", "contested"),
    ("lower", "same", "many", "contested"),
    ("lower", "earlier", "many", "stored_as_history"),
]


@pytest.mark.parametrize(("authority", "when", "cardinality", "expected"), MATRIX,
                         ids=["-".join(m[:3]) for m in MATRIX])
def test_authority_then_recency_then_contested(
    engine_conn: psycopg.Connection, settings: Settings, authority: str, when: str, cardinality: str, expected: str
) -> None:
    """S4: a table-driven matrix of authority × recency × cardinality (supersede for single-valued slots,
    a refinement update for many-valued ones). A candidate older than the current version is history
    whatever its authority (it does not claim the present); a less authoritative one that claims the
    same or a later time contests."""
    tier = {"higher": 1, "equal": 2, "lower": 3}[authority]
    valid_from = {"later": "2026-09-01T00:00:00Z", "same": "2026-06-01T00:00:00Z",
                  "earlier": "2026-01-01T00:00:00Z"}[when]
    if cardinality == "one":
        old, new, pred = "Berlin", "Lisbon", "lives_in"
    else:
        old, new, pred = "coffee", "black coffee", "prefers"
    land_and_derive(engine_conn, settings, fact("Bob", pred, old, valid_from="2026-06-01T00:00:00Z", authority=2))
    land_and_derive(engine_conn, settings, fact("Bob", pred, new, valid_from=valid_from, authority=tier))
    last = outcomes(engine_conn)[-1]
    assert last[1] == expected
    assert last[0] == ("supersede" if cardinality == "one" else "update")

    rows = {r["value"]: r for r in served.history(engine_conn, NS, "Bob", pred)}
    current = {r["value"] for r in served.current(engine_conn, NS, "Bob", pred)}
    if expected == "closed_previous":
        assert current == {new}
        assert rows[old]["valid_to"] == rows[new]["valid_from"] and rows[old]["superseded_by"] == rows[new]["fact_id"]
    elif expected == "stored_as_history":
        assert current == {old}
        assert rows[new]["valid_to"] == rows[old]["valid_from"] and rows[new]["superseded_by"] == rows[old]["fact_id"]
        assert rows[new]["superseded_at"] == rows[new]["recorded_at"]  # closed on arrival
        assert not rows[new]["contested"] and not rows[old]["contested"]
        assert served.contested(engine_conn, NS) == []
    else:
        assert current == {old, new}
        assert rows[old]["contested"] and rows[new]["contested"]
        assert {r["value"] for r in served.contested(engine_conn, NS)} == {old, new}


def test_what_we_believed_then_about_when(engine_conn: psycopg.Connection, settings: Settings) -> None:
    """S6: belief as of transaction time T about valid time V; current belief; history."""
    land_and_derive(engine_conn, settings, fact("Carol", "lives_in", "Berlin", valid_from="2026-01-01T00:00:00Z",
                                                authority=1))
    monday = datetime.now(UTC)
    time.sleep(0.05)
    land_and_derive(engine_conn, settings, fact("Carol", "lives_in", "Lisbon", valid_from="2026-06-01T00:00:00Z",
                                                authority=1))
    now = datetime.now(UTC)
    july, march, before = (datetime(2026, m, 1, tzinfo=UTC) for m in (7, 3, 1))

    def believed(valid_at: datetime, recorded_at: datetime) -> list[str]:
        return [r["value"] for r in served.as_of(engine_conn, NS, valid_at=valid_at, recorded_at=recorded_at,
                                                   subject="Carol", predicate="lives_in")]

    assert believed(july, monday) == ["Berlin"]  # on Monday we did not know about the move yet
    assert believed(july, now) == ["Lisbon"]
    assert believed(march, now) == ["Berlin"]  # what was true in March, as we know it now
    assert believed(before.replace(year=2025), now) == []
    assert believed(july, monday.replace(year=2025)) == []  # before anything was recorded


def test_ledger_constraints_make_bad_states_impossible(engine_conn: psycopg.Connection, settings: Settings,
                                                      admin_conn: psycopg.Connection) -> None:
    """S5: one open version per single-valued slot, provenance NOT NULL, authority 1-5, well-formed intervals."""
    land_and_derive(engine_conn, settings, fact("Dan", "timezone", "Europe/London",
                                                valid_from="2026-01-01T00:00:00Z", authority=1))
    copy = ("INSERT INTO silver.facts ({names}) SELECT {cols} FROM silver.facts LIMIT 1")
    cols = [r[0] for r in admin_conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'silver' AND table_name = 'facts' "
        "AND is_generated = 'NEVER' ORDER BY ordinal_position").fetchall()]

    def variant(**override: str) -> str:
        return copy.format(names=", ".join(cols), cols=", ".join(override.get(c, c) for c in cols))

    with pytest.raises(psycopg.errors.UniqueViolation):
        engine_conn.execute(variant(fact_id="'x1'"))  # a second open version of the slot
    with pytest.raises(psycopg.errors.NotNullViolation):
        engine_conn.execute(variant(fact_id="'x2'", contested="true", provenance_root="NULL"))
    with pytest.raises(psycopg.errors.CheckViolation):
        engine_conn.execute(variant(fact_id="'x3'", contested="true", authority="6"))
    with pytest.raises(psycopg.errors.CheckViolation):
        engine_conn.execute(variant(fact_id="'x4'", contested="true", confidence="1.5"))
    with pytest.raises(psycopg.errors.CheckViolation):
        engine_conn.execute(variant(fact_id="'x5'", valid_to="valid_from - interval '1 day'",
                                    superseded_at="recorded_at"))
    with pytest.raises(psycopg.errors.CheckViolation):
        # closed in valid time only, not in transaction time
        engine_conn.execute(variant(fact_id="'x6'", valid_to="valid_from + interval '1 day'"))
    # a contested second open version is allowed (S4)
    engine_conn.execute(variant(fact_id="'x7'", contested="true"))
