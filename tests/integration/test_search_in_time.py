"""A question's time weighed into search (serve/in_time.py), through the real Tools.search: the day a
question names finds what was said that day, and "when" finds the turn that says when; and for a question
about now, a change told by its new value ranks above the value it replaced (serve/changed_to.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from medallion.bronze.ingest import ingest_events
from medallion.serve.tools import open_tools
from medallion.settings import Settings
from medallion.silver.derive import derive

NS = "in-time"


def _turn(i: int, actor: str, content: str, day: datetime, root: str) -> dict[str, Any]:
    return {"namespace": NS, "source": "chat", "source_event_id": f"t{i}", "kind": "transcript", "actor": actor,
            "content": content, "occurred_at": (day + timedelta(minutes=i)).isoformat(), "provenance_root": root}


def _first_events(settings: Settings, question: str) -> list[str]:
    with open_tools(None, settings) as tools:
        hits = tools.search(question, namespace=NS, k=5)
    return list(dict.fromkeys(h["provenance"]["source_event_id"] for h in hits))


SESSIONS = [
    (datetime(2026, 3, 2, 18, 0, tzinfo=UTC), [
        ("user:priya", "The sourdough starter is finally bubbly, I baked sourdough bread with the sourdough starter."),
        ("user:jonah", "Nice, the bread looks great."),
    ]),
    (datetime(2026, 3, 14, 18, 0, tzinfo=UTC), [
        ("user:priya", "Spent the afternoon in the kitchen: a lemon drizzle cake for my neighbour's party."),
        ("user:jonah", "Lucky neighbour! Did it turn out?"),
    ]),
    (datetime(2026, 4, 20, 18, 0, tzinfo=UTC), [
        ("user:priya", "I keep meaning to bake more bread, the oven has been idle for weeks."),
        ("user:jonah", "Bread is a lot of work though."),
    ]),
]


def _ingest_sessions(conn: psycopg.Connection, settings: Settings) -> None:
    events, i = [], 0
    for n, (day, turns) in enumerate(SESSIONS, 1):
        for actor, text in turns:
            i += 1
            events.append(_turn(i, actor, text, day, f"chat://session-{n}"))
    ingest_events(conn, events, origin="test")
    derive(conn, settings)


def test_a_question_that_names_a_day_finds_what_was_said_that_day(settings: Settings,
                                                                   engine_conn: psycopg.Connection) -> None:
    """"bake" matches the bread turns by their words; the cake was said on the day asked about."""
    _ingest_sessions(engine_conn, settings)
    assert _first_events(settings, "What did Priya bake on 14 March 2026?")[0] == "t3"
    # without a day, the words decide
    assert _first_events(settings, "What did Priya bake?")[0] != "t3"


def test_a_question_that_asks_when_finds_the_turn_that_says_when(settings: Settings,
                                                                  engine_conn: psycopg.Connection) -> None:
    day = datetime(2026, 5, 6, 19, 0, tzinfo=UTC)
    turns = [
        ("user:tomas", "Bouldering is the best workout there is, I could go bouldering every single day."),
        ("user:lea", "Ha, you and your bouldering."),
        ("user:tomas", "My cousin came along last Thursday, we bouldered for hours."),
        ("user:lea", "Did she like it?"),
        ("user:tomas", "She did, she wants to come every week now."),
    ]
    ingest_events(engine_conn, [_turn(i, a, t, day, "chat://gym") for i, (a, t) in enumerate(turns, 1)],
                  origin="test")
    derive(engine_conn, settings)
    assert _first_events(settings, "When did Tomas go bouldering?")[0] == "t3"



def test_a_change_told_by_its_new_value_ranks_above_the_value_it_replaced(settings: Settings,
                                                                           engine_conn: psycopg.Connection) -> None:
    """"Escalated to S1 …" names neither the bug nor the field; the older comment holds a severity code
    and the question's words, and without the change's reading it ranks first."""
    day = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
    comments = [
        ("agent:odile", "S3 - Quarry sync drops attachments over 20 MB."),
        ("user:bram", "Still happening for our whole legal team, this blocks filings."),
        ("agent:odile", "Escalated to S1 after the outage report."),
    ]
    events = [{**_turn(i, a, t, day + timedelta(days=i), "ticket://quarry"), "kind": "issue"}
              for i, (a, t) in enumerate(comments, 1)]
    ingest_events(engine_conn, events, origin="test")
    derive(engine_conn, settings)
    assert _first_events(settings, "What severity is the Quarry sync bug?")[0] == "t3"
