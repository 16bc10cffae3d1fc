"""A change dated a few days before its telling is news, not history (``silver/resolve.py``, ``news``).

Why: "I'm a junior analyst" is dated by its own telling (no date in it); the next day "got promoted to
senior analyst last Friday" is dated before it. Read as out-of-order history, the promotion would be
closed by the older belief and the user would keep hearing "junior". A story about long before ("in
2019 I lived in Porto") is still history, and so is a turn that arrives late (told before the belief).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from medallion.distill.types import EventInput, FactCandidate, Neighbour
from medallion.silver.resolve import news

TOLD = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)  # when the current belief was told (its valid_from)
CURRENT = Neighbour("f1", "Priya", "role", "junior analyst", "Priya is a junior analyst.", TOLD, 1, 0.9, True, True)


def _event(at: datetime) -> EventInput:
    return EventInput(event_id=2, namespace="ns", source="chat", source_event_id="2", kind="transcript",
                      actor="user:priya", content="…", occurred_at=at, received_at=at, authority=1,
                      provenance_root="chat://2")


def _candidate(valid_from: datetime) -> FactCandidate:
    return FactCandidate(subject="Priya", predicate="role", value="senior analyst",
                         statement="Priya got promoted to senior analyst.", valid_from=valid_from, confidence=0.5)


def test_a_change_dated_days_before_its_telling_is_news() -> None:
    told_next_day = TOLD + timedelta(days=1)
    assert news(_candidate(datetime(2026, 1, 2, tzinfo=UTC)), _event(told_next_day), CURRENT)


def test_a_story_about_long_before_is_history() -> None:
    assert not news(_candidate(datetime(2019, 5, 1, tzinfo=UTC)), _event(TOLD + timedelta(days=1)), CURRENT)


def test_a_turn_told_before_the_belief_is_history() -> None:
    assert not news(_candidate(datetime(2026, 1, 1, tzinfo=UTC)), _event(TOLD - timedelta(days=1)), CURRENT)
