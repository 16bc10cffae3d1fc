"""Record lines and questions about before, through the tools on a real database.

A ticket's follow-up line files a new value under the ticket's number ("5521: owner changed to
Brisa Lund"), and the ledger must close the old value of that field on the ticket the number names,
whatever word went before the number the first time ("Case 5521"). A question about before ("Where
did Noor live before?") must find the belief the ledger closed, marked as no longer current, while
the same question about now keeps to what is believed.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from medallion.serve.tools import Tools
from tests.support.remembered import remembered_tools

NS = "records-before"
TURNS = [
    ("agent:desk", "issue", "Case 5521: owner is Hallvard Moen, escalation level 2."),
    ("agent:desk", "issue", "5521: owner changed to Brisa Lund after the handover."),
    ("agent:desk", "issue", "Order 7734 status: waiting for stock."),
    ("agent:desk", "issue", "Order 7734: status set to shipped, courier Velt."),
    ("user:noor", "transcript", "I live in Tarvik, right by the old harbour."),
    ("user:noor", "transcript", "I moved to Oslen last week, the flat is tiny but bright."),
]
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def tools(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tools]:
    turns = [{"namespace": NS, "content": text, "kind": kind, "actor": actor, "source": "records",
              "source_event_id": str(n), "occurred_at": (START + timedelta(days=n)).isoformat()}
             for n, (actor, kind, text) in enumerate(TURNS)]
    with remembered_tools(pg_server, tmp_path_factory.mktemp("records"), turns, [NS]) as opened:
        yield opened


def test_a_follow_up_under_the_bare_number_closes_the_fields_old_value(tools: Tools) -> None:
    current = tools.current("Case 5521", "owner", namespace=NS)
    assert [f["value"] for f in current] == ["Brisa Lund"]
    history = tools.history("Case 5521", "owner", namespace=NS)
    assert [(f["value"], f["valid_to"] is None) for f in history] == [("Hallvard Moen", False), ("Brisa Lund", True)]


def test_the_bare_number_names_the_same_record(tools: Tools) -> None:
    assert [f["value"] for f in tools.current("5521", "owner", namespace=NS)] == ["Brisa Lund"]


def test_a_record_heading_names_the_field(tools: Tools) -> None:
    """'Order 7734 status: waiting for stock' files 'waiting for stock' as the order's status."""
    history = tools.history("Order 7734", "status", namespace=NS)
    assert [f["value"] for f in history] == ["waiting for stock", "shipped"]
    assert [f["value"] for f in tools.current("Order 7734", "courier", namespace=NS)] == ["Velt"]


def test_a_question_about_before_finds_the_closed_belief(tools: Tools) -> None:
    hits = tools.search("Where did Noor live before?", namespace=NS, k=5)
    assert "Tarvik" in hits[0]["statement"], [h["statement"] for h in hits]
    assert hits[0]["current"] is False


def test_the_same_question_about_now_keeps_to_what_is_believed(tools: Tools) -> None:
    hits = tools.search("Where does Noor live?", namespace=NS, k=5)
    assert "Oslen" in hits[0]["statement"], [h["statement"] for h in hits]
    assert all(h["current"] for h in hits)
