"""A line filed under a record's identifier is read field by field (``rules/record.py``), and the
identifier names the record in the ledger whatever word goes before it (``silver/entities.identifier``)."""

from __future__ import annotations

from typing import Any

import pytest

from medallion.distill.language.sentences import make_context
from medallion.distill.providers.heuristic.rules.record import field_key, read_record
from medallion.silver.entities import identifier
from tests.support.distill_events import make_event

LINES = [
    ("Case 2290: severity set to high, customer on a call.", [("Case 2290", "severity", "high", True)]),
    ("2290: the review deadline is December 9.", [("2290", "review_deadline", "2026-12-09", False)]),
    ("Job 6613 state: queued behind the nightly export.", [("Job 6613", "state", "queued behind the nightly export",
                                                             False)]),
    ("HR-204: Ottavia is the approver, Bastien is the requester.",
     [("HR-204", "approver", "Ottavia", False), ("HR-204", "requester", "Bastien", False)]),
    ("Ticket 3318: mobile part handled by Wendeline, web part by Corrado.",
     [("Ticket 3318", "mobile_part", "Wendeline", False), ("Ticket 3318", "web_part", "Corrado", False)]),
    ("PR 4471: reviewer Ingrid, build green.", [("PR 4471", "reviewer", "Ingrid", False)]),
    ("Order 8812: they asked to move the delivery date to December 3.", [("Order 8812", "delivery_date", "2026-12-03",
                                                                      True)]),
    # a list item named by a name, whose every part is a field; an identifier line as a list item
    ("- Project Wrenfold: due 12 March, budget 30k", [("Project Wrenfold", "due", "2027-03-12", False),
                                                      ("Project Wrenfold", "budget", "30k", False)]),
    ("* Ticket 7781: priority P2, assignee Bertil", [("Ticket 7781", "priority", "P2", False),
                                                    ("Ticket 7781", "assignee", "Bertil", False)]),
]


def _read(line: str) -> list[tuple[str, str, Any, bool]]:
    ctx = make_context(make_event(line, kind="issue"))
    return [(c.subject, c.predicate, c.value, c.change) for c in read_record(ctx, line, 0)]


@pytest.mark.parametrize(("line", "expected"), LINES, ids=lambda v: str(v)[:24])
def test_each_field_of_a_record_line(line: str, expected: list[tuple[str, str, Any, bool]]) -> None:
    assert _read(line) == expected


@pytest.mark.parametrize("line", [
    "2024: what a year that was, honestly.",  # a bare year is not a record
    "Meeting at 10:30: bring the slides.",
    "Alice: I moved to Lisbon.",
    "Ticket 5512 is assigned to Rowan.",  # a sentence, not a record line: the sentence rules read it
    "Lunch orders: Bilal, falafel; Chiara, risotto",  # a name's line whose parts are not all fields
    "- Weekly: therapy with Dr Brandt, Tuesdays 6pm",
    "Update: I moved to Lisbon, budget 40k",
])
def test_lines_that_are_not_records(line: str) -> None:
    assert _read(line) == []


def test_spans_cover_the_part_they_read() -> None:
    line = "Case 2290: severity set to high, owner is Marit Olsen."
    ctx = make_context(make_event(line, kind="issue"))
    assert [line[c.span[0]:c.span[1]] for c in read_record(ctx, line, 0)] == [
        "severity set to high", "owner is Marit Olsen"]


def test_field_keys_keep_the_last_two_words() -> None:
    assert field_key("data migration deadline") == field_key("migration deadline") == "migration_deadline"
    assert field_key("status") == "status"


@pytest.mark.parametrize(("name", "ident"), [
    ("Ticket 6120", "6120"), ("#6120", "6120"), ("6120", "6120"), ("ATL-88", "atl-88"), ("Order 7734", "7734"),
    ("2024", None), ("Alice", None), ("Flat 12", None), ("the billing service", None),
])
def test_identifier_of_a_name(name: str, ident: str | None) -> None:
    assert identifier(name) == ident
