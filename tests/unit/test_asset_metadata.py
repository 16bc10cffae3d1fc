"""The Markdown tables every asset's materialization previews its rows in (``dagster_project.metadata``)."""

from __future__ import annotations

from dagster_project.metadata import markdown_table


def test_rows_become_a_table_in_the_first_rows_column_order() -> None:
    """The asset panel shows one column per key, in the order the asset gave them."""
    table = markdown_table([{"namespace": "team", "facts": 3}, {"namespace": "solo", "facts": 0}])
    assert table.splitlines() == ["| namespace | facts |", "|---|---|", "| team | 3 |", "| solo | 0 |"]


def test_a_stored_statement_cannot_break_the_table() -> None:
    """A ``|`` or a newline in a value (statements are user text) stays inside its cell."""
    table = markdown_table([{"statement": "a | b\nc"}])
    assert table.splitlines()[-1] == "| a \\| b c |"


def test_no_rows_say_so_in_the_callers_words() -> None:
    assert markdown_table([]) == "_no rows_"
    assert markdown_table([], empty="_no events yet_") == "_no events yet_"
