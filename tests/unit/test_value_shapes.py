"""The kinds of personal datum a value's shape names (``silver/value_shapes.py``), which a forget request
for an address, a phone number or an email matches the speaker's turns by when no turn names it in words.

Why: "forget my home address" must find "and i'm at 17 Wrenfield Row, top floor" and must not take
"my email address is …", whose words are closer to the request than the street is.
"""

from __future__ import annotations

import pytest

from medallion.silver.value_shapes import kind_named, kinds_in


@pytest.mark.parametrize(("target", "kind"), [
    ("home address", "street"), ("address", "street"), ("email address", "email"), ("e-mail", "email"),
    ("phone number", "phone"), ("mobile", "phone"), ("direct line", "phone"), ("new number", "phone"),
    ("passport number", None), ("diagnosis", None), ("salary", None),
])
def test_a_request_names_a_kind_of_datum_or_none(target: str, kind: str | None) -> None:
    assert kind_named(target) == kind


@pytest.mark.parametrize(("text", "kinds"), [
    ("and i'm at 17 Wrenfield Row, top floor", {"street"}),
    ("Ship it to 4B Alder Close please", {"street"}),
    ("email is corin.vale@larchmail.net fyi", {"email"}),
    ("Or my direct line, 0161 496 0732, if that is quicker.", {"phone"}),
    ("call me on +44 7700 900456 or mail corin@larchmail.net", {"phone", "email"}),
    ("my son turned 7 on the 12th", set()),
    ("the meeting moved to room 1204 at 10:30", set()),
    ("We paid 1,250 for 3 nights in 2024", set()),
])
def test_a_text_holds_the_kinds_its_values_are_shaped_as(text: str, kinds: set[str]) -> None:
    assert kinds_in(text) == kinds
