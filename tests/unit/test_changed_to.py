"""A change told by what it changed to (serve/changed_to.py), on our own sentences."""

from __future__ import annotations

from datetime import date
from typing import Any

from medallion.serve import changed_to

TODAY = date(2026, 11, 25)


def test_the_kinds_of_value_a_text_holds() -> None:
    assert changed_to.kinds("standup is at 9:30 in the big room", TODAY) == {"time"}
    assert changed_to.kinds("Sev: S3. Quarry sync drops attachments", TODAY) >= {"code"}
    assert "name" in changed_to.kinds("Routing this to Magda on the infra team", TODAY)
    assert changed_to.kinds("the gym was packed again", TODAY) == set()


def test_the_kind_of_the_new_value_of_a_change() -> None:
    assert changed_to.new_value_kinds("they called, moved my haircut to friday 4pm", TODAY) == {"time"}
    assert changed_to.new_value_kinds("Escalated to S1 after the outage report.", TODAY) == {"code"}
    assert changed_to.new_value_kinds("Handed over to Joris, he knows the billing code.", TODAY) == {"name"}
    assert changed_to.new_value_kinds("I went to the market for apples.", TODAY) == set()
    assert changed_to.new_value_kinds("Handing this over to Joris for the weekend rota.", TODAY) == {"name"}


def test_a_change_that_names_another_subject_counts_for_nothing() -> None:
    older = "Ticket 5120: sync drops attachments. Assigned to Magda."
    assert changed_to.new_value_kinds("Ticket 5121 (another customer) assigned to Joris.", TODAY, older) == set()
    assert changed_to.new_value_kinds("my brother just moved to Tallow Bay.", TODAY, "I live in Corbin.") == set()
    assert changed_to.new_value_kinds("Reassigned to Joris.", TODAY, older) == {"name"}
    # a change of the speaker's own, or of someone named, is about them: the present stage reads it by subject
    assert changed_to.new_value_kinds("I moved to Madrid.", TODAY, "Bob moved to Porto.") == set()
    assert changed_to.new_value_kinds("Alice moved to Madrid.", TODAY, "Bob moved to Porto.") == set()
    # a capitalised opener that names nobody is no subject of its own
    assert changed_to.new_value_kinds("Ugh, they rang, pushed me to friday 4pm", TODAY, "haircut is thursday 2pm") == {
        "time"}


def _item(event: int, text: str) -> dict[str, Any]:
    return {"kind": "chunk", "statement": text, "provenance": {"bronze_event_id": event}}


def test_the_change_takes_the_place_of_the_older_value_of_its_kind() -> None:
    results = [_item(1, "haircut is thursday 2pm at Snip on Vale Rd"), _item(5, "Sounds good."),
               _item(3, "ugh the salon rang, moved me to friday 4pm"), _item(2, "the gym was packed again")]
    assert [r["provenance"]["bronze_event_id"] for r in changed_to.changes_first(results, TODAY)] == [3, 1, 5, 2]


def test_nothing_moves_without_an_older_value_of_the_kind_above_it() -> None:
    results = [_item(4, "the gym was packed again"), _item(6, "ugh the salon rang, moved me to friday 4pm")]
    assert changed_to.changes_first(results, TODAY) == results
    # an older change below the newer value stays where it is
    results = [_item(6, "haircut moved to friday 4pm"), _item(1, "haircut is thursday 2pm")]
    assert changed_to.changes_first(results, TODAY) == results


def test_only_the_turns_looked_at_move_and_the_rest_keep_their_places() -> None:
    results = [_item(1, "haircut is thursday 2pm at Snip on Vale Rd"), {"kind": "fact", "statement": "x"},
               _item(3, "ugh the salon rang, moved me to friday 4pm")]
    out = changed_to.changes_first(results, TODAY)
    assert [r["statement"][:5] for r in out] == ["ugh t", "x", "hairc"]


def test_a_change_only_weighed_moves_nothing() -> None:
    results = [_item(1, "haircut is thursday 2pm at Snip on Vale Rd"),
               _item(3, "might get it moved to friday 4pm, not sure yet")]
    assert changed_to.changes_first(results, TODAY) == results

