"""A chunk restated to stand alone: the speaker for I / my, absolute dates (silver/restate.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from medallion.distill.types import EventInput
from medallion.silver import restate

SAID = datetime(2026, 5, 14, 16, 0, tzinfo=UTC)  # a Thursday


def _turn(content: str, actor: str = "user:ines", kind: str = "transcript") -> EventInput:
    return EventInput(event_id=1, namespace="ns", source="chat", source_event_id="m1", kind=kind, actor=actor,
                      content=content, occurred_at=SAID, received_at=SAID, authority=2, provenance_root="chat://1")


def test_first_person_becomes_the_speaker_and_a_relative_day_a_date() -> None:
    text = "Yesterday I took my nephew to the aquarium."
    assert restate.restate(_turn(text), text) == "on 2026-05-13 Ines took Ines' nephew to the aquarium."


def test_a_sentence_that_already_stands_alone_is_not_restated() -> None:
    text = "The release train leaves on 2026-06-01."
    assert restate.restate(_turn(text), text) is None


def test_the_restatement_joins_the_context_on_a_line_of_its_own() -> None:
    content = "I moved the standup to 9:30. Marta agreed."
    spans = [(0, len(content)), (0, 28), (29, len(content))]
    contexts = restate.with_restatements(_turn(content), spans, ["Marta: Can we start later?\nInes:", "Ines:", "Ines:"])
    assert contexts[0] == "Marta: Can we start later?\nInes:\nInes moved the standup to 9:30. Marta agreed."
    assert contexts[1] == "Ines:\nInes moved the standup to 9:30."
    assert contexts[2] == "Ines:"  # nothing to restate
