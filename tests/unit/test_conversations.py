"""The generated chat (tests/support/conversations.py) that the rebuild, kill-and-resume and faulty-LLM
tests run on: it must be the same stream every time, valid Bronze, long enough for a scale slice, and
hold the changes of mind (moves, new jobs, switched habits) that make a ledger revise itself."""

from __future__ import annotations

from datetime import UTC, datetime

from medallion.bronze.contract import validate_object
from medallion.bronze.ingest import DEFAULT_MAX_CONTENT_BYTES
from tests.support.conversations import generate

TURNS = 5000


def test_a_seed_gives_one_stream_and_a_slice_is_its_prefix() -> None:
    long = generate(seed=5, turns=600)
    assert generate(seed=5, turns=600) == long
    short = generate(seed=5, turns=120)
    assert short.events == long.events[:120]
    assert short.updates == [u for u in long.updates if u.turn < 120]
    assert generate(seed=6, turns=120).events != short.events


def test_several_thousand_turns_of_valid_bronze_among_several_speakers() -> None:
    chat = generate(seed=2016, turns=TURNS, speakers=4, namespace="chat-harbour")
    assert len(chat.events) == TURNS
    events = [validate_object(e, max_content_bytes=DEFAULT_MAX_CONTENT_BYTES) for e in chat.events]
    assert len({e.source_event_id for e in events}) == TURNS
    assert {e.actor for e in events} == {f"user:{name.lower()}" for name in chat.speakers}
    assert len(chat.speakers) == 4
    times = [e.occurred_at for e in events]
    assert times == sorted(times) and times[-1] is not None and times[-1] < datetime.now(UTC)
    threads = {e.metadata["thread"] for e in events}
    assert len(threads) == chat.sessions >= 100
    assert len({e.content for e in events}) > 1000, "the phrasing varies, not a handful of lines repeated"


def test_updates_revise_values_said_earlier() -> None:
    chat = generate(seed=2016, turns=TURNS)
    assert {u.slot for u in chat.updates} == {"town", "job", "drink"}
    assert len(chat.updates) > 300
    for update in chat.updates:
        assert update.old != update.new
        assert update.new in chat.events[update.turn]["content"]
        about = f"user:{update.person.lower()}"
        assert any(update.old in e["content"] and (e["actor"] == about or update.person in e["content"])
                   for e in chat.events[:update.turn]), f"{update} revises a value nobody said before"
    assert any(u.person not in chat.speakers for u in chat.updates), "people talked about change too"
