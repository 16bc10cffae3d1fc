"""The event contract (B2) against hostile input, without a database: inputs that once escaped
``validate_line``, and the poison rules (duplicate keys, NUL and unpaired surrogates at any depth and
inside fact content, integers beyond 64 bits, deep nesting, the time range, typed overlay metadata):
what passed the contract once and then crashed a batch or a derivation is refused at the door, in
one sentence (B5)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medallion.bronze.contract import (
    EARLIEST_TIME,
    INT64_MAX,
    INT64_MIN,
    LATEST_TIME,
    MAX_DEPTH,
    Event,
    OverlayMetadata,
    Rejection,
    fact_payload,
    full_json_schema,
    overlay_metadata,
    validate_line,
    validate_object,
)
from tests.support.contract_events import LIMIT, MINIMAL, RELAXED

# --- regression: inputs that once escaped validate_line -------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        # Regression (contract.validate_line, the json.loads fallback): jiter flags the depth as
        # json_invalid, then json.loads raises RecursionError instead of Rejection: the batch crashes.
        pytest.param(b"[" * 5000 + b"]" * 5000, id="deep_nesting"),
        # Regression (contract.validate_line, the escape-aware json.loads path): RecursionError.
        pytest.param(b'["\\u0041", ' + b"[" * 5000 + b"]" * 5001, id="deep_nesting_with_escape"),
        # Regression (contract.validate_line, the json.loads fallback): jiter says "number out of range",
        # then json.loads raises ValueError (int max str digits), not a JSONDecodeError: it escapes.
        pytest.param(b'{"n": ' + b"1" * 5000 + b"}", id="huge_integer"),
        # Regression (contract.validate_line, the escape-aware json.loads path): same ValueError.
        pytest.param(b'{"s": "\\u0041", "n": ' + b"1" * 5000 + b"}", id="huge_integer_with_escape"),
    ],
)
def test_validate_line_pathological_json_raises_rejection(raw: bytes) -> None:
    """B5: a line the parsers cannot handle is a Rejection (invalid_json), never another exception."""
    with pytest.raises(Rejection) as info:
        validate_line(raw, max_content_bytes=LIMIT)
    assert info.value.code == "invalid_json"


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity", b"1e400"])
def test_non_finite_metadata_number_is_rejected(number: bytes) -> None:
    """B5: NaN/Infinity are not JSON and jsonb cannot store them.

    Regression (Event.metadata accepts them; ingest._land's json.dumps emits NaN/Infinity): the COPY
    into jsonb then fails inside the batch transaction and the whole batch (valid neighbours too) is
    lost without a quarantine row. Proposed fix: reject non-finite floats anywhere in metadata with a
    field validator, giving code ``invalid_metadata``.
    """
    raw = json.dumps(MINIMAL)[:-1].encode() + b', "metadata": {"x": ' + number + b"}}"
    with pytest.raises(Rejection) as info:
        validate_line(raw, max_content_bytes=LIMIT)
    assert info.value.code == "invalid_metadata"
    assert "metadata" in info.value.reason


# --- poison: what passed the contract once and then crashed a batch or a derivation ---------------


def _reject(obj: dict[str, Any]) -> Rejection:
    """The rejection of ``obj`` on both entry points (JSONL line and Python API), which must agree."""
    with pytest.raises(Rejection) as line:
        validate_line(json.dumps(obj).encode(), max_content_bytes=LIMIT)
    with pytest.raises(Rejection) as api:
        validate_object(obj, max_content_bytes=LIMIT)
    assert (line.value.code, line.value.reason) == (api.value.code, api.value.reason)
    assert line.value.reason.splitlines() == [line.value.reason]
    return line.value


def _fact_event(**payload: Any) -> dict[str, Any]:
    return {**MINIMAL, "kind": "fact",
            "content": json.dumps({"subject": "alice", "predicate": "lives_in", "value": "Lisbon", **payload})}


@pytest.mark.parametrize(
    ("obj", "where"),
    [
        pytest.param({**MINIMAL, "metadata": {"x": 2**64}}, "field 'metadata.x'", id="metadata_2_pow_64"),
        pytest.param({**MINIMAL, "metadata": {"a": [1, {"b": INT64_MIN - 1}]}}, "field 'metadata.a[1].b'",
                     id="metadata_nested_below_min"),
        pytest.param({**MINIMAL, "authority": 2**70}, "field 'authority'", id="authority"),
        pytest.param(_fact_event(value=2**64), "in the fact content, field 'value'", id="fact_value"),
        pytest.param(_fact_event(value={"n": [2**100]}), "field 'value.n[0]'", id="fact_value_nested"),
    ],
)
def test_integer_beyond_64_bits_is_refused(obj: dict[str, Any], where: str) -> None:
    """An integer outside the signed 64-bit range anywhere is one clear rejection.

    Regression (the contract accepted any integer): ``{"metadata": {"x": 18446744073709551616}}``
    passed, then the jsonb encoder raised TypeError inside the batch, and the batch and the rest of
    the file were lost without a quarantine row.
    """
    rejection = _reject(obj)
    assert rejection.code == "integer_out_of_range"
    assert where in rejection.reason and "64-bit" in rejection.reason


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b'{"a": 18446744073709551616, "b": }', id="syntax_error_after"),
        pytest.param(b'{"a": 18446744073709551616, "a": 1}', id="duplicate_key_after"),
        pytest.param(b'[18446744073709551616, ' + b"[" * 5000 + b"]" * 5001, id="depth_bomb_after"),
    ],
)
def test_big_integer_before_other_damage_is_still_a_rejection(raw: bytes) -> None:
    """The big integer stops the parse; naming its place must not trip over what follows it."""
    with pytest.raises(Rejection) as info:
        validate_line(raw, max_content_bytes=LIMIT)
    assert info.value.code == "integer_out_of_range" and "64-bit" in info.value.reason


def test_integers_at_the_64_bit_bounds_are_accepted() -> None:
    event = validate_object({**MINIMAL, "metadata": {"max": INT64_MAX, "min": INT64_MIN}}, max_content_bytes=LIMIT)
    assert orjson.loads(orjson.dumps(event.metadata)) == {"max": INT64_MAX, "min": INT64_MIN}
    assert validate_object(_fact_event(value=INT64_MAX), max_content_bytes=LIMIT)


def test_huge_integer_is_described_not_printed() -> None:
    """A 4,000-digit integer from the Python API is named by its size: the reason stays one short line."""
    rejection = _reject({**MINIMAL, "metadata": {"x": 10**4000}})
    assert rejection.code == "integer_out_of_range" and "4001 digits" in rejection.reason
    assert len(rejection.reason) < 300


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        pytest.param('{"namespace": "team-a", "namespace": "team-b"}', "namespace", id="top_level"),
        pytest.param('{"metadata": {"a": {"b": 1, "b": 2}}}', "b", id="nested_metadata"),
        pytest.param('{"metadata": {"l": [{"k\\n": 1, "k\\n": 2}]}}', "k\\n", id="in_array_key_escaped"),
    ],
)
def test_duplicate_key_is_refused_at_any_depth(raw: str, key: str) -> None:
    """Regression (the parser kept the last of two equal keys): the same key twice in one object is
    refused with its name, wherever the object is; the name is escaped so the reason stays one line."""
    base = json.dumps(MINIMAL)[1:-1]
    line = ("{" + base + ", " + raw[1:]).encode() if not raw.startswith('{"namespace"') else raw.encode()
    with pytest.raises(Rejection) as info:
        validate_line(line, max_content_bytes=LIMIT)
    assert info.value.code == "duplicate_key"
    assert f"the key '{key}' appears twice" in info.value.reason
    assert info.value.reason.splitlines() == [info.value.reason]


def test_duplicate_key_inside_fact_content_is_refused() -> None:
    """Regression: a fact content ``{"subject": "a", "subject": "b", ...}`` landed as subject b."""
    content = '{"subject": "alice", "predicate": "lives_in", "value": {"city": "Lisbon", "city": "Porto"}}'
    rejection = _reject({**MINIMAL, "kind": "fact", "content": content})
    assert rejection.code == "duplicate_key"
    assert rejection.reason.startswith("in the fact content, the key 'city' appears twice")
    with pytest.raises(ValueError, match="'city' appears twice"):
        fact_payload(content)


@pytest.mark.parametrize(
    ("obj", "code", "where"),
    [
        pytest.param({**MINIMAL, "metadata": {"a": {"k\u0000": 1}}}, "nul_byte", "a key in field 'metadata.a'",
                     id="nul_in_nested_metadata_key"),
        pytest.param({**MINIMAL, "metadata": {"a": ["x", "y\u0000"]}}, "nul_byte", "field 'metadata.a[1]'",
                     id="nul_in_nested_metadata_value"),
        pytest.param({**MINIMAL, "metadata": {"a": {"\ud800": 1}}}, "invalid_unicode", "a key in field 'metadata.a'",
                     id="surrogate_in_nested_metadata_key"),
        pytest.param({**MINIMAL, "actor": "user:\udfff"}, "invalid_unicode", "field 'actor'", id="surrogate_in_actor"),
        pytest.param(_fact_event(subject="ali\u0000ce"), "nul_byte", "in the fact content, field 'subject'",
                     id="nul_in_fact_subject"),
        pytest.param(_fact_event(value={"note": "x\u0000"}), "nul_byte", "in the fact content, field 'value.note'",
                     id="nul_in_fact_value"),
        pytest.param(_fact_event(value=["\ud800"]), "invalid_unicode", "in the fact content, field 'value[0]'",
                     id="surrogate_in_fact_value"),
        pytest.param({**MINIMAL, "kind": "overlay", "content": json.dumps(
            {"fact_id": "f1", "action": "edit", "text": "a\u0000", "selector": {"exact": "x"}})},
            "nul_byte", "in the overlay content, field 'text'", id="nul_in_overlay_text"),
    ],
)
def test_nul_and_unpaired_surrogates_are_refused_everywhere(obj: dict[str, Any], code: str, where: str) -> None:
    """PostgreSQL text holds neither NUL nor unpaired surrogates: refused in any string, key or value,
    at any depth, including the strings a fact's (or overlay's) JSON content decodes to.

    Regression (the NUL check looked at the event's own strings only): a fact content holding
    ``\\u0000`` passed, and the derivation then failed to store its subject or value.
    """
    rejection = _reject(obj)
    assert rejection.code == code
    assert rejection.reason.startswith(where), rejection.reason


def test_nesting_deeper_than_the_limit_is_refused() -> None:
    """Objects nested beyond MAX_DEPTH are refused: the jsonb encoder gives up at 255 levels, and a
    depth json.loads still accepts (a few hundred) reached it and crashed the batch."""
    deep: Any = 1
    for _ in range(MAX_DEPTH):
        deep = {"a": deep}
    assert _reject({**MINIMAL, "metadata": deep}).code == "too_deep"
    assert validate_object({**MINIMAL, "metadata": deep["a"]}, max_content_bytes=LIMIT)


@pytest.mark.parametrize(
    "occurred_at",
    [
        pytest.param("0001-01-01T00:00:00+01:00", id="year_1_plus_one_hour"),
        pytest.param("0001-01-01T00:00:00Z", id="year_1_utc"),
        pytest.param("0999-12-31T23:59:59Z", id="just_before_1000"),
        pytest.param("1000-01-01T00:30:00+01:00", id="1000_local_but_999_in_utc"),
    ],
)
def test_occurred_at_before_the_earliest_time_is_refused(occurred_at: str) -> None:
    """Times must lie in [1000-01-01Z, 9000-01-01Z) after conversion to UTC.

    Regression: ``0001-01-01T00:00:00+01:00`` was stored as year 1 BC, and the derivation then
    failed with "timestamp too small" on every run.
    """
    rejection = _reject({**MINIMAL, "occurred_at": occurred_at})
    assert rejection.code == "invalid_occurred_at"
    assert "1000-01-01T00:00:00Z" in rejection.reason and "9000-01-01T00:00:00Z" in rejection.reason


@pytest.mark.parametrize(
    ("valid_from", "ok"),
    [
        pytest.param("0001-01-01T00:00:00Z", False, id="year_1"),
        pytest.param("9000-01-01T00:00:00Z", False, id="latest_is_excluded"),
        pytest.param("8999-12-31T23:00:00-02:00", False, id="9000_in_utc"),
        pytest.param("9999-12-31T23:59:59-01:00", False, id="overflows_on_conversion"),
        pytest.param("1000-01-01T00:00:00Z", True, id="earliest_is_included"),
        pytest.param("8999-12-31T23:59:59Z", True, id="just_before_latest"),
    ],
)
def test_fact_valid_from_range(valid_from: str, ok: bool) -> None:
    """Regression: a fact ``valid_from`` in year 1 passed; interval arithmetic in the derivation overflowed."""
    obj = _fact_event(valid_from=valid_from)
    if ok:
        fact = fact_payload(obj["content"])
        assert fact.valid_from is not None and EARLIEST_TIME <= fact.valid_from < LATEST_TIME
    else:
        rejection = _reject(obj)
        assert rejection.code == "invalid_payload" and "'valid_from' is out of range" in rejection.reason


def test_time_range_constants_leave_room_for_shifts() -> None:
    """The bounds are far from datetime's limits: a day or a zone shift either way cannot overflow."""
    assert (datetime(1000, 1, 1, tzinfo=UTC), datetime(9000, 1, 1, tzinfo=UTC)) == (EARLIEST_TIME, LATEST_TIME)
    assert (EARLIEST_TIME - timedelta(days=2)).year == 999
    assert (LATEST_TIME + timedelta(days=2)).year == 9000


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        pytest.param({"subject": "   "}, "'subject' must not be blank", id="blank_subject"),
        pytest.param({"subject": "\t\n"}, "'subject' must not be blank", id="whitespace_subject"),
        pytest.param({"predicate": " "}, "'predicate'", id="blank_predicate"),
        pytest.param({"predicate": ""}, "'predicate'", id="empty_predicate"),
    ],
)
def test_blank_fact_subject_or_predicate_is_refused(payload: dict[str, Any], field: str) -> None:
    """Regression (subject only needed one character): a blank subject made an entity without a name."""
    rejection = _reject(_fact_event(**payload))
    assert rejection.code == "invalid_payload" and field in rejection.reason


_OVERLAY = json.dumps({"fact_id": "f1", "action": "redact", "selector": {"exact": "Lisbon"}})


@pytest.mark.parametrize(
    ("metadata", "field"),
    [
        pytest.param({"anchor": "x"}, "'metadata.anchor'", id="anchor_string"),
        pytest.param({"retracts": "abc"}, "'metadata.retracts'", id="retracts_string"),
        pytest.param({"replaces": [1]}, "'metadata.replaces'", id="replaces_list"),
        pytest.param({"replaces": 0}, "'metadata.replaces'", id="replaces_zero"),
        pytest.param({"approval_id": True}, "'metadata.approval_id'", id="approval_id_boolean"),
        pytest.param({"retracts": "12"}, "'metadata.retracts'", id="retracts_numeric_string"),
        pytest.param({"anchor": {"bronze_event_id": "7"}}, "'metadata.anchor.bronze_event_id'", id="anchor_id_text"),
        pytest.param({"anchor": {"subject_id": 3}}, "'metadata.anchor.subject_id'", id="anchor_subject_int"),
        pytest.param({"anchor": {"event": 3}}, "unknown field 'metadata.anchor.event'", id="anchor_unknown_key"),
        pytest.param({"replaces": 1, "retracts": 2}, "not both", id="replaces_and_retracts"),
    ],
)
def test_overlay_metadata_shapes_are_typed(metadata: dict[str, Any], field: str) -> None:
    """An overlay event's anchor/replaces/retracts/approval_id have one shape each; wrong shapes seen in
    the wild (``{"anchor": "x"}``, ``{"retracts": "abc"}``, ``{"replaces": [1]}``) are refused.

    Regression (metadata was free for every kind): these landed and the overlay derivation then
    failed on ``.get`` of a string or ``int()`` of a list.
    """
    rejection = _reject({**MINIMAL, "kind": "overlay", "content": _OVERLAY, "metadata": metadata})
    assert rejection.code == "invalid_metadata"
    assert rejection.reason.startswith("overlay metadata does not match its schema") and field in rejection.reason


def test_overlay_metadata_helper_gives_typed_values() -> None:
    """overlay_metadata() is what the derivation reads: typed fields, other keys kept, absent = None."""
    meta = overlay_metadata({"anchor": {"bronze_event_id": 7, "predicate": "lives_in"}, "replaces": 12, "by": "x"})
    assert isinstance(meta, OverlayMetadata)
    assert meta.anchor is not None and (meta.anchor.bronze_event_id, meta.anchor.subject_id) == (7, None)
    assert (meta.replaces, meta.retracts, meta.approval_id) == (12, None, None)
    assert meta.model_extra == {"by": "x"}
    assert overlay_metadata({}).anchor is None
    with pytest.raises(Rejection):
        overlay_metadata({"retracts": "abc"})
    # Other kinds keep free metadata: the typed keys mean something for overlays only.
    assert validate_object({**MINIMAL, "metadata": {"anchor": "x"}}, max_content_bytes=LIMIT)


def test_schema_documents_the_rules() -> None:
    """The exported schema states the time range and the typed overlay metadata."""
    schema = full_json_schema()
    assert "9000-01-01T00:00:00Z" in schema["properties"]["occurred_at"]["description"]
    assert "1000-01-01T00:00:00Z" in schema["$defs"]["FactPayload"]["properties"]["valid_from"]["description"]
    assert set(schema["$defs"]["OverlayMetadata"]["properties"]) == {"anchor", "replaces", "retracts", "approval_id"}
    assert "64-bit" in schema["description"]


_JSON_LEAF = (
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6)
    | st.sampled_from(["\x00", "a\ud800", "\udfff", "ok"])
)
_JSON = st.recursive(_JSON_LEAF, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=4) | st.sampled_from(["\x00", "\ud800"]), inner, max_size=3),
                     max_leaves=12)


@given(metadata=st.dictionaries(st.text(max_size=4), _JSON, max_size=3), value=_JSON)
@settings(RELAXED, max_examples=300)
def test_whatever_the_contract_accepts_can_be_encoded(metadata: dict[str, Any], value: Any) -> None:
    """Property: an accepted event's metadata encodes for jsonb (orjson, as ingest does) and its fact
    content decodes to strings PostgreSQL can hold; anything else is a Rejection, never a crash."""
    for obj in ({**MINIMAL, "metadata": metadata}, _fact_event(value=value)):
        try:
            event = validate_object(obj, max_content_bytes=LIMIT)
        except Rejection as rej:
            assert rej.code and rej.reason
            continue
        orjson.dumps(event.metadata)
        if event.kind == "fact":
            fact = fact_payload(event.content)
            encoded = orjson.dumps(fact.value).decode()
            assert "\\u0000" not in encoded


_KEYS = st.sampled_from(["a", "b", 'q"', "c:", "\\", " ", "k\n"])
_PAIRS_LEAF = st.none() | st.booleans() | st.integers(min_value=INT64_MIN, max_value=INT64_MAX) | st.sampled_from(
    ["x", '":', "a b", "\\", "\u00e9", "\x00", "line\nbreak", '" :']
)
_PAIRS = st.recursive(
    _PAIRS_LEAF,
    lambda inner: st.lists(inner, max_size=3).map(tuple) | st.lists(st.tuples(_KEYS, inner), max_size=3),
    max_leaves=10,
)


def _dump(value: Any, sep: tuple[str, str]) -> str:
    """JSON text in which an object is a list of (key, value) pairs, so a key may repeat."""
    if isinstance(value, list):
        return "{" + sep[0].join(json.dumps(k) + sep[1] + _dump(v, sep) for k, v in value) + "}"
    if isinstance(value, tuple):
        return "[" + sep[0].join(_dump(v, sep) for v in value) + "]"
    return json.dumps(value)


def _no_dups(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({k for k, _ in pairs}) != len(pairs):
        raise KeyError("duplicate")
    return dict(pairs)


@given(metadata=st.lists(st.tuples(_KEYS, _PAIRS), max_size=4), top_dup=st.booleans(),
       sep=st.sampled_from([(", ", ": "), (",", ":"), (" , ", " : "), (",\t", "\t:\t")]))
@settings(RELAXED, max_examples=400)
def test_every_line_is_judged_as_its_decoded_object(
    metadata: list[tuple[str, Any]], top_dup: bool, sep: tuple[str, str]
) -> None:
    """Property: a JSONL line is accepted exactly when its decoded object would be, with the same
    event or the same rejection, whatever its spacing, escapes or key names; a key repeated anywhere
    is a ``duplicate_key`` rejection. (validate_line takes a one-parse path for plain lines: it must
    never let through what the careful path refuses.)"""
    fields = [(k, v) for k, v in MINIMAL.items()] + ([("source", "again")] if top_dup else [])
    text = "{" + sep[0].join(json.dumps(k) + sep[1] + json.dumps(v) for k, v in fields)
    text += sep[0] + '"metadata"' + sep[1] + _dump(metadata, sep) + "}"
    try:
        obj = json.loads(text, object_pairs_hook=_no_dups)
    except KeyError:
        with pytest.raises(Rejection) as info:
            validate_line(text.encode(), max_content_bytes=LIMIT)
        assert info.value.code == "duplicate_key"
        return
    try:
        expected: Event | tuple[str, str] = validate_object(obj, max_content_bytes=LIMIT)
    except Rejection as rej:
        expected = (rej.code, rej.reason)
    try:
        got: Event | tuple[str, str] = validate_line(text.encode(), max_content_bytes=LIMIT)
    except Rejection as rej:
        got = (rej.code, rej.reason)
    assert got == expected
