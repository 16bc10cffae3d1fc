"""The event contract (B2), without a database.

Covers: valid minimal and full events, default authority tiers, fact and overlay payloads, the exported
JSON Schema, line splitting (CRLF, lone CR, blank lines, offsets) and hypothesis properties: content
round-trips with ``content_hash == sha256(content)`` and ``validate_line`` raises nothing but
:class:`Rejection` for arbitrary bytes (B5: bad input never crashes a batch). Hostile input and the
poison rules are in ``test_contract_poison.py``.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from medallion.bronze.contract import (
    KINDS,
    Event,
    FactPayload,
    OverlayPayload,
    Rejection,
    default_authority,
    event_json_schema,
    fact_payload,
    overlay_payload,
    validate_line,
    validate_object,
)
from medallion.bronze.ingest import parse_jsonl, split_lines
from tests.support.contract_events import FULL, LIMIT, MINIMAL, RELAXED, REQUIRED, SLOW

# --- valid events ---------------------------------------------------------------------------------


def test_minimal_event_validates_with_defaults() -> None:
    """B2: the six required fields are enough; the rest defaults."""
    event = validate_line(json.dumps(MINIMAL).encode(), max_content_bytes=LIMIT)
    assert isinstance(event, Event)
    assert event.key == ("team-a", "slack", "C01/1699999.0012")
    assert (event.actor, event.occurred_at, event.authority, event.metadata) == (None, None, None, {})
    assert event.content == MINIMAL["content"]


def test_full_event_validates_every_field() -> None:
    """B2: the example event of docs/event.schema.json, with every optional field, validates and keeps its values."""
    event = validate_line(json.dumps(FULL).encode(), max_content_bytes=LIMIT)
    assert event.actor == "user:alice"
    assert event.occurred_at == datetime(2026, 11, 30, 9, 12, tzinfo=UTC)
    assert event.authority == 1
    assert event.metadata == FULL["metadata"]
    assert event == validate_object(FULL, max_content_bytes=LIMIT)


@pytest.mark.parametrize("kind", [k for k in KINDS if k not in ("fact", "overlay", "document")])
def test_free_text_kinds_validate(kind: str) -> None:
    assert validate_object({**MINIMAL, "kind": kind}, max_content_bytes=LIMIT).kind == kind


def test_document_fact_and_overlay_kinds_validate_with_their_payloads() -> None:
    doc = validate_object(
        {**MINIMAL, "kind": "document", "metadata": {"path": "docs/a.md"}}, max_content_bytes=LIMIT
    )
    assert doc.metadata["path"] == "docs/a.md"
    fact = {"subject": "alice", "predicate": "lives_in", "value": "Lisbon", "confidence": 1}
    assert validate_object({**MINIMAL, "kind": "fact", "content": json.dumps(fact)}, max_content_bytes=LIMIT)
    overlay = {"fact_id": "f1", "action": "redact", "selector": {"exact": "Lisbon"}}
    assert validate_object(
        {**MINIMAL, "kind": "overlay", "content": json.dumps(overlay)}, max_content_bytes=LIMIT
    )


def test_event_is_frozen() -> None:
    event = validate_object(MINIMAL, max_content_bytes=LIMIT)
    with pytest.raises(ValueError):
        event.content = "changed"  # type: ignore[misc]


def test_rejection_is_a_value_error_with_code_and_reason() -> None:
    with pytest.raises(Rejection) as info:
        validate_object(["not", "an", "object"], max_content_bytes=LIMIT)
    assert isinstance(info.value, ValueError)
    assert info.value.code == "not_an_object"
    assert "list" in info.value.reason and str(info.value) == info.value.reason


def test_content_limit_counts_utf8_bytes_not_characters() -> None:
    """B5: the size limit is in bytes: 3 two-byte characters are 6 bytes."""
    assert validate_object({**MINIMAL, "content": "ééé"}, max_content_bytes=6)
    with pytest.raises(Rejection) as info:
        validate_object({**MINIMAL, "content": "ééé"}, max_content_bytes=5)
    assert info.value.code == "content_too_large" and "6 bytes" in info.value.reason


# --- default authority ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("actor", "source", "kind", "expected"),
    [
        pytest.param("user:alice", "slack", "transcript", 1, id="user"),
        pytest.param("person:bob", "slack", "note", 1, id="person"),
        pytest.param("USER:alice", "slack", "note", 1, id="prefix_case_insensitive"),
        pytest.param("system:cron", "slack", "note", 2, id="system"),
        pytest.param("bot:ci", "slack", "note", 4, id="bot_derived"),
        pytest.param("agent:helper", "slack", "transcript", 5, id="agent"),
        pytest.param("assistant:x", "slack", "note", 5, id="assistant"),
        pytest.param("agent:helper", "github", "commit", 5, id="actor_wins_over_primary_kind"),
        pytest.param(None, "slack", "commit", 2, id="commit_no_actor"),
        pytest.param(None, "slack", "issue", 2, id="issue_no_actor"),
        pytest.param(None, "slack", "document", 2, id="document_no_actor"),
        pytest.param(None, "GitHub", "note", 2, id="primary_source_no_actor"),
        pytest.param(None, "slack", "note", 3, id="unknown_secondary"),
        pytest.param("alice", "slack", "transcript", 3, id="actor_without_prefix"),
        pytest.param("robot:r2", "slack", "transcript", 3, id="unknown_prefix"),
        pytest.param("", "slack", "note", 3, id="empty_actor"),
    ],
)
def test_default_authority_tiers(actor: str | None, source: str, kind: str, expected: int) -> None:
    """B2: authority defaults from the actor's prefix, else the source/kind (user 1 … agent 5)."""
    assert default_authority(actor, source, kind) == expected


# --- fact and overlay payloads --------------------------------------------------------------------


def test_fact_payload_parses_all_fields() -> None:
    fact = fact_payload(
        json.dumps(
            {"subject": "alice", "predicate": "lives_in", "value": {"city": "Lisbon"},
             "valid_from": "2026-01-01T00:00:00+01:00", "confidence": 0.8}
        )
    )
    assert isinstance(fact, FactPayload)
    assert (fact.subject, fact.predicate, fact.value, fact.confidence) == (
        "alice", "lives_in", {"city": "Lisbon"}, 0.8,
    )
    assert fact.valid_from == datetime(2025, 12, 31, 23, 0, tzinfo=UTC)


def test_fact_payload_optional_fields_default_to_none() -> None:
    fact = fact_payload('{"subject": "alice", "predicate": "age", "value": 41}')
    assert (fact.value, fact.valid_from, fact.confidence) == (41, None, None)


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        pytest.param("alice lives in Lisbon", "not valid JSON", id="not_json"),
        pytest.param('{"subject": "alice", "value": 1}', "'predicate'", id="missing_predicate"),
        pytest.param('{"subject": "", "predicate": "p", "value": 1}', "subject", id="empty_subject"),
        pytest.param('{"subject": "a", "predicate": "Lives", "value": 1}', "predicate", id="predicate_case"),
        pytest.param('{"subject": "a", "predicate": "p", "value": "  "}', "value", id="blank_value"),
        pytest.param('{"subject": "a", "predicate": "p", "value": 1, "confidence": 1.5}', "confidence",
                     id="confidence_over_1"),
        pytest.param('{"subject": "a", "predicate": "p", "value": 1, "confidence": -0.1}', "confidence",
                     id="confidence_negative"),
        pytest.param('{"subject": "a", "predicate": "p", "value": 1, "why": "x"}', "unknown field 'why'",
                     id="extra_field"),
    ],
)
def test_fact_payload_rejects(content: str, fragment: str) -> None:
    with pytest.raises(ValueError) as info:
        fact_payload(content)
    message = str(info.value)
    assert message.startswith("fact content does not match the fact schema")
    assert fragment in message


def _overlay(**fields: Any) -> str:
    return json.dumps({"fact_id": "f1", "selector": {"exact": "Lisbon", "prefix": "in "}, **fields})


def test_overlay_payload_actions() -> None:
    edit = overlay_payload(_overlay(action="edit", text="Porto"))
    assert isinstance(edit, OverlayPayload)
    assert (edit.action, edit.text) == ("edit", "Porto")
    assert (edit.selector.exact, edit.selector.prefix) == ("Lisbon", "in ")
    note = overlay_payload(_overlay(action="annotate", note="she moved in May"))
    assert note.note == "she moved in May"
    redact = overlay_payload(_overlay(action="redact"))
    assert (redact.text, redact.note, redact.selector.suffix) == (None, None, "")


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        pytest.param({"action": "edit"}, "'text'", id="edit_needs_text"),
        pytest.param({"action": "annotate"}, "'note'", id="annotate_needs_note"),
        pytest.param({"action": "annotate", "note": ""}, "'note'", id="annotate_needs_nonempty_note"),
        pytest.param({"action": "delete"}, "action", id="unknown_action"),
    ],
)
def test_overlay_payload_rejects(fields: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ValueError) as info:
        overlay_payload(_overlay(**fields))
    assert str(info.value).startswith("overlay content does not match the overlay schema")
    assert fragment in str(info.value)


# --- JSON schema ----------------------------------------------------------------------------------


def test_event_json_schema_lists_required_fields_and_kinds() -> None:
    schema = event_json_schema()
    assert set(schema["required"]) == REQUIRED
    assert set(schema["properties"]) == REQUIRED | {"actor", "occurred_at", "authority", "metadata"}
    assert schema["properties"]["kind"]["enum"] == list(KINDS)
    assert schema["properties"]["namespace"]["pattern"] == r"^[a-z0-9][a-z0-9_-]{0,62}$"
    assert schema.get("additionalProperties") is False
    json.dumps(schema)  # serialisable, as exported to docs/event.schema.json


# --- line splitting -------------------------------------------------------------------------------


def test_split_lines_crlf_and_blank_lines() -> None:
    """B5: line numbers count blank lines; offsets are byte offsets of each line start; CR dropped."""
    data = b"a\r\n\r\nb\n   \nc"
    assert list(split_lines(data)) == [(1, 0, b"a"), (3, 5, b"b"), (5, 11, b"c")]


def test_split_lines_trailing_newline_and_empty_input() -> None:
    assert list(split_lines(b"")) == []
    assert list(split_lines(b"\n\r\n \t\n")) == []
    assert list(split_lines(b"x\n")) == [(1, 0, b"x")]
    assert list(split_lines(b"x\r\ny\r\n")) == [(1, 0, b"x"), (2, 3, b"y")]


def test_parse_jsonl_positions_with_crlf() -> None:
    good = json.dumps(MINIMAL).encode()
    data = b"\r\n" + good + b"\r\n" + b"not json\r\n\r\n" + good.replace(b"C01/", b"C02/") + b"\r\n"
    parsed = parse_jsonl(data)
    assert [(c.position, c.offset) for c in parsed] == [
        (2, 2), (3, 2 + len(good) + 2), (5, 2 + len(good) + 2 + 10 + 2),
    ]
    assert [c.rejection.code if c.rejection else None for c in parsed] == [None, "invalid_json", None]
    assert parsed[1].raw == b"not json"


def test_leading_byte_order_mark_is_not_data() -> None:
    """B5: a file saved with a UTF-8 BOM lands its first line; offsets still index the raw file."""
    good = json.dumps(MINIMAL).encode()
    data = b"\xef\xbb\xbf" + good + b"\n" + good.replace(b"C01/", b"C02/")
    parsed = parse_jsonl(data)
    assert [c.rejection for c in parsed] == [None, None]
    assert [(c.position, c.offset) for c in parsed] == [(1, 3), (2, 3 + len(good) + 1)]
    assert data[parsed[1].offset : parsed[1].offset + len(parsed[1].raw)] == parsed[1].raw


def test_split_lines_lone_cr_ends_a_line() -> None:
    """A CR-only file (old Mac tools) is many lines, not one: numbers and offsets count each CR.

    Regression (split_lines split on LF only): the whole file was one line, so every event in it
    was rejected as one invalid JSON line.
    """
    data = b"a\rb\r\rc\r\nd\ne\r"
    assert list(split_lines(data)) == [(1, 0, b"a"), (2, 2, b"b"), (4, 5, b"c"), (5, 8, b"d"), (6, 10, b"e")]


@given(
    st.lists(
        st.tuples(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b"")),
                  st.sampled_from([b"\n", b"\r\n", b"\r"])),
        max_size=20,
    )
)
@RELAXED
def test_split_lines_offsets_point_at_the_line(lines: list[tuple[bytes, bytes]]) -> None:
    """Property: with any mix of LF, CRLF and lone CR endings, line numbers count every ending and
    every yielded (number, offset, line) points back into the data exactly."""
    data = b"".join(line + end for line, end in lines)
    assume(not data.startswith(b"\xef\xbb\xbf"))  # a leading byte-order mark is skipped (next test)
    # A CR ending followed by an empty LF-ended line is one CRLF ending, not two: not this property.
    assume(not any(end == b"\r" and nxt == (b"", b"\n") for (_, end), nxt in zip(lines, lines[1:], strict=False)))
    got = list(split_lines(data))
    expected = [(n, line) for n, (line, _) in enumerate(lines, start=1) if line.strip()]
    assert [(n, line) for n, _, line in got] == expected
    for _, offset, line in got:
        assert data[offset : offset + len(line)] == line


# --- properties -----------------------------------------------------------------------------------

_CHARS = st.characters(exclude_categories=("Cs",), exclude_characters="\x00")  # no surrogates, no NUL
_TEXT = st.text(alphabet=_CHARS, min_size=1).filter(lambda s: bool(s.strip()))


@given(content=_TEXT, ascii_escapes=st.booleans())
@settings(RELAXED, max_examples=300, suppress_health_check=[*SLOW, HealthCheck.filter_too_much])
def test_content_round_trips_and_hash_is_sha256(content: str, ascii_escapes: bool) -> None:
    """B1/B2: any non-blank text without NUL or surrogates is stored verbatim; content_hash is the
    sha256 hex of its UTF-8 bytes. Both the raw-UTF-8 and the \\u-escaped (careful) paths."""
    raw = json.dumps({**MINIMAL, "content": content}, ensure_ascii=ascii_escapes).encode("utf-8")
    event = validate_line(raw, max_content_bytes=LIMIT)
    assert event.content == content
    assert event.content_hash == hashlib.sha256(content.encode("utf-8")).hexdigest()
    assert validate_object({**MINIMAL, "content": content}, max_content_bytes=LIMIT) == event


def _check_only_rejections(raw: bytes) -> None:
    try:
        event = validate_line(raw, max_content_bytes=1000)
    except Rejection as rej:
        assert rej.code and rej.reason
    else:
        assert isinstance(event, Event)


@given(st.binary())
@settings(RELAXED, max_examples=500)
def test_validate_line_only_raises_rejection_for_arbitrary_bytes(raw: bytes) -> None:
    """B5: whatever the bytes, validate_line returns an Event or raises Rejection, nothing else."""
    _check_only_rejections(raw)


_TOKENS = [
    b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"\\u0000", b"\\ud800", b"\\u00e9", b"null", b"true",
    b"1", b"-0", b"1e400", b"NaN", b"Infinity", b"\xff", b"\x00", b"\r", b" ", b'"namespace"', b'"kind"',
    b'"content"', b'"metadata"', b'"authority"', b'"fact"', b'"team-a"', b'"x"', b"18446744073709551616",
]


@given(st.lists(st.sampled_from(_TOKENS), max_size=60).map(b"".join))
@settings(RELAXED, max_examples=500)
def test_validate_line_only_raises_rejection_for_json_like_bytes(raw: bytes) -> None:
    """B5: the same property over JSON-shaped token soup, which reaches deeper into the parsers."""
    _check_only_rejections(raw)


@given(st.dictionaries(st.sampled_from(sorted(REQUIRED | {"actor", "authority", "metadata", "x"})),
                       st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)
                       | st.lists(st.integers(), max_size=2)))
@settings(RELAXED, max_examples=300)
def test_validate_object_only_raises_rejection_for_arbitrary_dicts(obj: dict[str, Any]) -> None:
    """B5 for the Python API/MCP path: arbitrary field values → an Event or a Rejection."""
    try:
        validate_object(obj, max_content_bytes=1000)
    except Rejection as rej:
        assert rej.code and rej.reason


def test_a_thread_is_kept_in_metadata_whichever_way_it_is_given() -> None:
    """``thread`` (top level) is stored as ``metadata.thread``, so an export reads back unchanged; a
    thread given twice must agree, and must be a non-blank string."""
    top = validate_object({**MINIMAL, "thread": "support-4711"}, max_content_bytes=LIMIT)
    inner = validate_object({**MINIMAL, "metadata": {"thread": "support-4711"}}, max_content_bytes=LIMIT)
    assert top.metadata == inner.metadata == {"thread": "support-4711"}
    assert top.model_dump() == inner.model_dump()
    again = validate_line(top.model_dump_json().encode(), max_content_bytes=LIMIT)
    assert again.metadata == {"thread": "support-4711"}
    both = validate_object({**MINIMAL, "thread": "a", "metadata": {"thread": "a", "x": 1}}, max_content_bytes=LIMIT)
    assert both.metadata == {"thread": "a", "x": 1}
    for bad in ({**MINIMAL, "thread": "a", "metadata": {"thread": "b"}}, {**MINIMAL, "thread": 7},
                {**MINIMAL, "metadata": {"thread": "  "}}, {**MINIMAL, "thread": "x" * 501}):
        with pytest.raises(Rejection) as refused:
            validate_object(bad, max_content_bytes=LIMIT)
        assert "thread" in refused.value.reason and "\n" not in refused.value.reason
    line = json.dumps({**MINIMAL, "thread": "a", "metadata": {"thread": "b"}}).encode()
    with pytest.raises(Rejection):
        validate_line(line, max_content_bytes=LIMIT)
