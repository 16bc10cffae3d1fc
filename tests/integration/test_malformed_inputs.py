"""Malformed input never crashes a batch and is never lost (R5, B5).

R5: at least 30 classes of malformed input, each quarantined with a clear reason while the valid
neighbours land. B5: invalid events go to ``bronze.quarantine`` with the raw bytes, the line number,
the byte offset and a human-readable reason; the valid events of the same batch land.

Each class below is one raw JSONL line (bytes) together with the exact machine ``code`` the contract
must produce and a fragment the human-readable reason must contain. The classes in
``KNOWN_BUG_CLASSES`` once crashed the whole batch or produced a multi-line reason, and those in
``POISON_CLASSES`` once passed the contract and then crashed the batch or the derivation (see the
comment on each); they stay as regression cases.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from medallion.bronze.ingest import ingest_jsonl
from medallion.db.connection import connect
from medallion.settings import Settings
from tests.conftest import fresh_database

MAX_CONTENT_BYTES = 1000
_DROP = object()  # marks a field to remove from the base event

_BASE: dict[str, Any] = {
    "namespace": "team-a",
    "source": "slack",
    "source_event_id": "C01/bad",
    "kind": "transcript",
    "content": "hello there",
    "provenance_root": "slack://C01/bad",
}


def _line(**overrides: Any) -> bytes:
    """The base event as one JSON line, with fields overridden (or removed with ``_DROP``)."""
    event = dict(_BASE)
    for name, value in overrides.items():
        if value is _DROP:
            event.pop(name)
        else:
            event[name] = value
    return json.dumps(event).encode()


def _fact(payload: Any) -> bytes:
    return _line(kind="fact", content=json.dumps(payload))


def _overlay(payload: Any) -> bytes:
    return _line(kind="overlay", content=json.dumps(payload))


def _valid(i: int, namespace: str = "team-a") -> bytes:
    """A valid event line; ``i`` makes its key unique within the namespace."""
    return json.dumps(
        {
            "namespace": namespace, "source": "slack", "source_event_id": f"C01/ok-{i}",
            "kind": "transcript", "actor": "user:alice", "content": f"valid neighbour {i}",
            "provenance_root": f"slack://C01/ok-{i}",
        }
    ).encode()


_FACT_OK = {"subject": "alice", "predicate": "lives_in", "value": "Lisbon"}
_SELECTOR = {"exact": "Lisbon"}
_VALID_SUFFIX = b', "provenance_root": "slack://C01/bad"}'
_PLAIN = _line()  # the base event, as bytes, for byte-level surgery

# (id, raw line, expected code, fragment of the reason). Every class here passes today.
CONTRACT_CLASSES: list[tuple[str, bytes, str, str]] = [
    # --- not JSON / not an object -------------------------------------------------------------
    ("unparseable_json", b'{"namespace": team-a, "source": "slack"}', "invalid_json", "not valid JSON"),
    ("truncated_object", _PLAIN[:-12], "invalid_json", "not valid JSON"),
    ("single_quoted_keys", b"{'namespace': 'team-a'}", "invalid_json", "not valid JSON"),
    ("trailing_garbage", _PLAIN + b" trailing", "invalid_json", "not valid JSON"),
    ("two_objects_on_one_line", _PLAIN + _valid(99), "invalid_json", "not valid JSON"),
    ("utf8_bom_before_object", b"\xef\xbb\xbf" + _PLAIN, "invalid_json", "BOM"),
    ("invalid_escape_sequence", _PLAIN.replace(b"hello", b"he\\xllo"), "invalid_json", "escape"),
    ("raw_control_char", _PLAIN.replace(b"hello", b"he\x01llo"), "invalid_json", "control character"),
    ("json_array", b'[{"namespace": "team-a"}]', "not_an_object", "JSON object"),
    ("json_null", b"null", "not_an_object", "JSON object"),
    ("json_string", b'"just a string"', "not_an_object", "JSON object"),
    ("json_number", b"42", "not_an_object", "JSON object"),
    ("json_boolean", b"true", "not_an_object", "JSON object"),
    # --- required fields ----------------------------------------------------------------------
    ("missing_namespace", _line(namespace=_DROP), "missing_field", "'namespace'"),
    ("missing_source", _line(source=_DROP), "missing_field", "'source'"),
    ("missing_source_event_id", _line(source_event_id=_DROP), "missing_field", "'source_event_id'"),
    ("missing_kind", _line(kind=_DROP), "missing_field", "'kind'"),
    ("missing_content", _line(content=_DROP), "missing_field", "'content'"),
    ("missing_provenance_root", _line(provenance_root=_DROP), "missing_field", "'provenance_root'"),
    ("empty_object", b"{}", "missing_field", "missing required field 'namespace'"),
    # --- namespace ----------------------------------------------------------------------------
    ("namespace_int", _line(namespace=7), "bad_namespace", "namespace"),
    ("namespace_uppercase_space", _line(namespace="Team A"), "bad_namespace", "namespace"),
    ("namespace_64_chars", _line(namespace="a" * 64), "bad_namespace", "namespace"),
    ("namespace_leading_dash", _line(namespace="-team"), "bad_namespace", "namespace"),
    ("namespace_empty", _line(namespace=""), "bad_namespace", "namespace"),
    ("namespace_trailing_newline", _line(namespace="team-a\n"), "bad_namespace", "namespace"),
    (
        "namespace_uppercase_via_escape",
        _PLAIN.replace(b'"team-a"', b'"\\u0054eam-a"'),
        "bad_namespace",
        "namespace",
    ),
    # --- other scalar fields ------------------------------------------------------------------
    ("source_empty", _line(source=""), "invalid_source", "source"),
    ("source_whitespace_only", _line(source="   "), "invalid_source", "source"),
    ("source_201_chars", _line(source="s" * 201), "invalid_source", "source"),
    ("source_event_id_list", _line(source_event_id=["C01"]), "invalid_source_event_id", "'source_event_id'"),
    ("source_event_id_501_chars", _line(source_event_id="x" * 501), "invalid_source_event_id", "500 chara"),
    ("kind_unknown", _line(kind="email"), "invalid_kind", "kind"),
    ("kind_null", _line(kind=None), "invalid_kind", "kind"),
    ("provenance_root_empty", _line(provenance_root=""), "invalid_provenance_root", "provenance_root"),
    ("actor_empty", _line(actor=""), "invalid_actor", "actor"),
    ("actor_int", _line(actor=5), "invalid_actor", "actor"),
    # --- content ------------------------------------------------------------------------------
    ("content_object", _line(content={"text": "hi"}), "invalid_content", "content"),
    ("content_null", _line(content=None), "invalid_content", "content"),
    ("content_empty", _line(content=""), "invalid_content", "content"),
    ("content_whitespace_only", _line(content=" \t  "), "invalid_content", "blank"),
    ("content_over_limit", _line(content="x" * (MAX_CONTENT_BYTES + 1)), "content_too_large", "bytes"),
    (
        # json.dumps escapes é as \u00e9: the escape-aware path; 600 x 2 UTF-8 bytes > 1000
        "content_over_limit_via_escapes",
        _line(content="\u00e9" * 600),
        "content_too_large",
        "1200 bytes",
    ),
    ("line_far_over_limit", _line(content="x" * 80_000), "line_too_large", "bytes"),
    # --- NUL, UTF-8, Unicode ------------------------------------------------------------------
    ("nul_escape_in_content", _line(content="a\u0000b"), "nul_byte", "NUL"),
    ("nul_escape_in_metadata_value", _line(metadata={"channel": "e\u0000ng"}), "nul_byte", "NUL"),
    ("nul_escape_in_metadata_key", _line(metadata={"chan\u0000nel": "eng"}), "nul_byte", "NUL"),
    ("raw_nul_byte", _PLAIN.replace(b"hello", b"hel\x00lo"), "nul_byte", "NUL"),
    ("invalid_utf8", _PLAIN.replace(b"hello", b"he\xff\xfello"), "invalid_utf8", "UTF-8"),
    ("unpaired_surrogate_escape", _PLAIN.replace(b"hello", b"he\\ud800llo"), "invalid_unicode", "surrogate"),
    # --- occurred_at --------------------------------------------------------------------------
    ("occurred_at_unparseable", _line(occurred_at="yesterday"), "invalid_occurred_at", "occurred_at"),
    ("occurred_at_naive", _line(occurred_at="2026-01-01T10:00:00"), "invalid_occurred_at", "timezone"),
    ("occurred_at_far_future", _line(occurred_at="2999-01-01T00:00:00Z"), "invalid_occurred_at", "future"),
    # --- authority ----------------------------------------------------------------------------
    ("authority_0", _line(authority=0), "invalid_authority", "authority"),
    ("authority_6", _line(authority=6), "invalid_authority", "authority"),
    ("authority_string", _line(authority="1"), "invalid_authority", "authority"),
    ("authority_boolean_true", _line(authority=True), "invalid_authority", "authority"),
    ("authority_float", _line(authority=1.5), "invalid_authority", "authority"),
    # --- metadata, extra fields ---------------------------------------------------------------
    ("metadata_list", _line(metadata=["eng"]), "invalid_metadata", "metadata"),
    ("metadata_string", _line(metadata="eng"), "invalid_metadata", "metadata"),
    ("unknown_top_level_field", _line(colour="red"), "unknown_field", "'colour'"),
    # --- kind-specific payloads ---------------------------------------------------------------
    ("fact_payload_not_json", _line(kind="fact", content="alice lives in Lisbon"), "invalid_payload", "fact"),
    ("fact_payload_json_array", _line(kind="fact", content="[1, 2]"), "invalid_payload", "fact"),
    (
        "fact_missing_predicate",
        _fact({"subject": "alice", "value": "Lisbon"}),
        "invalid_payload",
        "'predicate'",
    ),
    ("fact_confidence_1_5", _fact({**_FACT_OK, "confidence": 1.5}), "invalid_payload", "confidence"),
    ("fact_predicate_uppercase", _fact({**_FACT_OK, "predicate": "LivesIn"}), "invalid_payload", "predicate"),
    ("fact_value_null", _fact({**_FACT_OK, "value": None}), "invalid_payload", "value"),
    ("fact_unknown_field", _fact({**_FACT_OK, "source": "x"}), "invalid_payload", "unknown field"),
    (
        "fact_valid_from_without_timezone",
        _fact({**_FACT_OK, "valid_from": "2026-01-01T00:00:00"}),
        "invalid_payload",
        "valid_from",
    ),
    (
        "overlay_unknown_action",
        _overlay({"fact_id": "f1", "action": "delete", "selector": _SELECTOR}),
        "invalid_payload",
        "action",
    ),
    (
        "overlay_edit_without_text",
        _overlay({"fact_id": "f1", "action": "edit", "selector": _SELECTOR}),
        "invalid_payload",
        "text",
    ),
    (
        "overlay_annotate_without_note",
        _overlay({"fact_id": "f1", "action": "annotate", "selector": _SELECTOR}),
        "invalid_payload",
        "note",
    ),
    (
        "overlay_without_selector",
        _overlay({"fact_id": "f1", "action": "redact"}),
        "invalid_payload",
        "selector",
    ),
    ("document_without_metadata_path", _line(kind="document"), "invalid_payload", "metadata.path"),
    (
        "document_metadata_path_not_string",
        _line(kind="document", metadata={"path": 3}),
        "invalid_payload",
        "metadata.path",
    ),
]

# Regression classes (each crashed the batch or broke the reason before the fix). The expected code
# is the one the contract's own mapping gives the underlying error (jiter reports json_invalid ->
# "invalid_json"; a bad metadata value -> "invalid_metadata").
_DEEP = 5000  # nesting depth well over Python's recursion limit (1000), line still only ~10 kB
KNOWN_BUG_CLASSES: list[tuple[str, bytes, str, str]] = [
    (
        # Regression (contract.validate_line, the json.loads fallback after model_validate_json):
        # jiter rejects the depth (json_invalid), then json.loads raises RecursionError, which
        # escapes validate_line and crashes the whole batch.
        "deeply_nested_array",
        b"[" * _DEEP + b"]" * _DEEP,
        "invalid_json",
        "JSON",
    ),
    (
        # Regression (contract.validate_line, the escape-aware json.loads path): RecursionError.
        "deeply_nested_metadata_with_escape",
        _PLAIN.replace(b"hello", b"h\\u0065llo")[: -len(_VALID_SUFFIX)]
        + b', "metadata": {"a": ' + b"[" * _DEEP + b"]" * _DEEP + b"}" + _VALID_SUFFIX,
        "invalid_json",
        "JSON",
    ),
    (
        # Regression (contract.validate_line, the json.loads fallback): jiter says "number out of
        # range" (json_invalid), then json.loads raises ValueError (int max str digits), which is
        # not a JSONDecodeError: it escapes and crashes the batch.
        "integer_with_5000_digits_in_metadata",
        _line(metadata={"n": 1})[:-2] + b"1" * 5000 + b"}}",
        "invalid_json",
        "JSON",
    ),
    (
        # Regression (contract.validate_line, the escape-aware json.loads path): same ValueError.
        "integer_with_5000_digits_with_escape",
        _line(content="h\u00e9llo", metadata={"n": 1})[:-2] + b"1" * 5000 + b"}}",
        "invalid_json",
        "JSON",
    ),
    (
        # Regression (Event.metadata accepts it; ingest._land json.dumps writes NaN): the jsonb COPY
        # fails inside the batch transaction, so the whole batch rolls back and nothing is
        # quarantined. NaN/Infinity are not JSON and jsonb cannot hold them: reject in the contract.
        "metadata_nan",
        _line(metadata={"x": 1})[:-3] + b"NaN}}",
        "invalid_metadata",
        "metadata",
    ),
    (
        # Regression (same as metadata_nan): 1e400 overflows to inf and json.dumps writes Infinity.
        "metadata_number_overflows_to_infinity",
        _line(metadata={"x": 1})[:-3] + b"1e400}}",
        "invalid_metadata",
        "metadata",
    ),
    (
        # Regression (contract._describe): the unknown field's name is interpolated verbatim, so a key
        # containing a newline yields a multi-line reason (breaks the one-line-per-reject CLI output).
        "unknown_field_name_with_newline",
        _line(**{"colour\nred": 1}),
        "unknown_field",
        "unknown field",
    ),
]

_OVERLAY_OK = json.dumps({"fact_id": "f1", "action": "redact", "selector": _SELECTOR})


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


# Regression classes (security issue): each passed the contract, then crashed the batch (the whole
# file after it lost, no quarantine row) or every later derivation. Now each is refused up front.
POISON_CLASSES: list[tuple[str, bytes, str, str]] = [
    # The jsonb encoder raised "Integer exceeds 64-bit range" (TypeError) inside the batch.
    ("metadata_integer_2_pow_64", _line(metadata={"x": 18446744073709551616}), "integer_out_of_range", "64-bit"),
    ("metadata_integer_below_int64_min", _line(metadata={"x": [-(2**63) - 1]}), "integer_out_of_range",
     "'metadata.x[0]'"),
    # The fact's value is stored by the derivation: same failure there, on every run.
    ("fact_value_integer_2_pow_64", _fact({**_FACT_OK, "value": 2**64}), "integer_out_of_range", "fact content"),
    # The encoder stops at 255 levels while json.loads accepts ~1000: the batch crashed.
    ("metadata_nested_300_deep", _line(metadata=_nested(300)), "too_deep", "levels deep"),
    # The parser kept the last of two equal keys: what landed was not what a reader of the line sees.
    ("duplicate_top_level_key", _PLAIN[:-1] + b', "source": "github"}', "duplicate_key", "'source'"),
    ("duplicate_key_in_metadata", _PLAIN[:-1] + b', "metadata": {"a": 1, "a": 2}}', "duplicate_key", "'a'"),
    (
        "duplicate_key_in_fact_content",
        _line(kind="fact", content='{"subject": "alice", "subject": "bob", "predicate": "p", "value": 1}'),
        "duplicate_key",
        "'subject'",
    ),
    # Stored as year 1 BC; the derivation then failed "timestamp too small" on every run.
    ("occurred_at_year_1_plus_one_hour", _line(occurred_at="0001-01-01T00:00:00+01:00"), "invalid_occurred_at",
     "1000-01-01"),
    ("fact_valid_from_year_1", _fact({**_FACT_OK, "valid_from": "0001-01-01T00:00:00Z"}), "invalid_payload",
     "'valid_from' is out of range"),
    # NUL / unpaired surrogates decoded from the fact content: the derivation could not store them.
    ("nul_in_fact_subject", _fact({**_FACT_OK, "subject": "al\u0000ice"}), "nul_byte", "'subject'"),
    ("surrogate_in_fact_value", _fact({**_FACT_OK, "value": "\ud800"}), "invalid_unicode", "'value'"),
    ("nul_in_nested_metadata_key", _line(metadata={"a": {"k\u0000": 1}}), "nul_byte", "a key in field 'metadata.a'"),
    # An entity without a name.
    ("fact_subject_blank", _fact({**_FACT_OK, "subject": "   "}), "invalid_payload", "'subject' must not be blank"),
    # Overlay metadata of the wrong shape: the overlay derivation failed on it.
    ("overlay_anchor_string", _line(kind="overlay", content=_OVERLAY_OK, metadata={"anchor": "x"}),
     "invalid_metadata", "'metadata.anchor'"),
    ("overlay_retracts_string", _line(kind="overlay", content=_OVERLAY_OK, metadata={"retracts": "abc"}),
     "invalid_metadata", "'metadata.retracts'"),
    ("overlay_replaces_list", _line(kind="overlay", content=_OVERLAY_OK, metadata={"replaces": [1]}),
     "invalid_metadata", "'metadata.replaces'"),
]

ALL_CLASSES = CONTRACT_CLASSES + KNOWN_BUG_CLASSES + POISON_CLASSES


def _params(classes: list[tuple[str, bytes, str, str]]) -> list[Any]:
    return [pytest.param(line, code, fragment, id=name) for name, line, code, fragment in classes]


@pytest.fixture(scope="module")
def module_conn(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[psycopg.Connection]:
    """One database for the module (an engine connection): Bronze refuses deletes, so each test lands
    its batch in a namespace of its own, under an origin of the same name, and reads back only those."""
    tmp = tmp_path_factory.mktemp("r5")
    with fresh_database(pg_server) as url:
        settings = Settings(home=tmp / "home", database_url=url, inbox=tmp)
        with connect(settings, "engine", autocommit=True) as conn:
            yield conn


@pytest.fixture
def batch(module_conn: psycopg.Connection) -> tuple[psycopg.Connection, str]:
    """The module's connection and a namespace no other test uses (also the batch's origin)."""
    return module_conn, f"r5-{uuid.uuid4().hex[:12]}"


def _events(conn: psycopg.Connection, namespace: str) -> list[tuple[str]]:
    return conn.execute("SELECT source_event_id FROM bronze.events WHERE namespace = %s ORDER BY event_id",
                        (namespace,)).fetchall()


def _quarantine(conn: psycopg.Connection, origin: str) -> list[tuple[Any, ...]]:
    rows = conn.execute(
        "SELECT origin, line_number, byte_offset, error_code, reason, raw, namespace, conflict_event_id "
        "FROM bronze.quarantine WHERE origin = %s ORDER BY line_number", (origin,)
    ).fetchall()
    return [(*row[:5], bytes(row[5]), *row[6:]) for row in rows]


def _assert_one_line_reason(reason: str | None, fragment: str) -> None:
    assert reason, "a rejection must carry a human-readable reason"
    assert fragment in reason, f"reason {reason!r} lacks {fragment!r}"
    assert reason.strip() == reason
    assert reason.splitlines() == [reason], f"reason is not one line: {reason!r}"


def test_at_least_thirty_classes() -> None:
    """R5: at least 30 distinct classes of malformed input, each with a unique id and line."""
    assert len(CONTRACT_CLASSES) >= 32
    assert len({name for name, *_ in ALL_CLASSES}) == len(ALL_CLASSES)
    assert len({line for _, line, *_ in ALL_CLASSES}) == len(ALL_CLASSES)
    for _, line, _, _ in ALL_CLASSES:
        assert b"\n" not in line and line.strip(), "a class must be exactly one non-blank line"


@pytest.mark.parametrize(("line", "code", "fragment"), _params(ALL_CLASSES))
def test_malformed_line_is_quarantined_and_neighbours_land(
    batch: tuple[psycopg.Connection, str], line: bytes, code: str, fragment: str
) -> None:
    """R5/B5: one malformed line between two valid ones: it is quarantined, both neighbours land."""
    conn, namespace = batch
    first, last = _valid(1, namespace), _valid(2, namespace)
    data = first + b"\n" + line + b"\n" + last + b"\n"

    result = ingest_jsonl(conn, data, origin=namespace, max_content_bytes=MAX_CONTENT_BYTES)

    assert [s.status for s in result.statuses] == ["inserted", "rejected", "inserted"]
    assert (result.inserted, result.rejected, result.duplicate, result.conflict) == (2, 1, 0, 0)
    bad = result.statuses[1]
    assert bad.position == 2
    assert bad.code == code, f"expected code {code!r}, got {bad.code!r} ({bad.reason})"
    _assert_one_line_reason(bad.reason, fragment)

    assert _events(conn, namespace) == [("C01/ok-1",), ("C01/ok-2",)]

    assert _quarantine(conn, namespace) == [
        (namespace, 2, len(first) + 1, code, bad.reason, line, None, None)
    ]
    summary = result.summary()
    assert summary["rejects"] == [{"line": 2, "status": "rejected", "code": code, "reason": bad.reason}]


def _interleaved(classes: list[tuple[str, bytes, str, str]],
                 namespace: str) -> tuple[bytes, list[int], list[int], int]:
    """One file: valid, bad, valid, blank, bad, valid, blank, ... Returns the data, the rejected
    line numbers, their byte offsets and the number of valid lines."""
    lines: list[bytes] = [_valid(0, namespace)]
    bad_numbers: list[int] = []
    for i, (_, line, _, _) in enumerate(classes, start=1):
        lines.append(line)
        bad_numbers.append(len(lines))
        lines.append(_valid(i, namespace))
        lines.append(b"")  # blank lines are skipped but still count for line numbers
    data = b"\n".join(lines)
    offsets = [sum(len(x) + 1 for x in lines[: n - 1]) for n in bad_numbers]
    return data, bad_numbers, offsets, len(classes) + 1


@pytest.mark.parametrize(
    "classes",
    [
        pytest.param(CONTRACT_CLASSES, id="contract_classes"),
        pytest.param(ALL_CLASSES, id="all_classes_including_known_bugs"),
    ],
)
def test_all_classes_in_one_file(
    batch: tuple[psycopg.Connection, str], classes: list[tuple[str, bytes, str, str]]
) -> None:
    """R5/B5: every class in one file, valid lines interleaved: each bad line is quarantined with its
    own line number and offset, every valid line lands, and the summary lists each reject."""
    conn, namespace = batch
    data, bad_numbers, offsets, n_valid = _interleaved(classes, namespace)
    assert data[offsets[0] : offsets[0] + len(classes[0][1])] == classes[0][1]

    result = ingest_jsonl(conn, data, origin=namespace, max_content_bytes=MAX_CONTENT_BYTES)

    assert result.rejected == len(classes)
    assert result.inserted == n_valid
    assert (result.duplicate, result.conflict) == (0, 0)
    assert len(_events(conn, namespace)) == n_valid

    rejects = result.summary()["rejects"]
    assert [r["line"] for r in rejects] == bad_numbers
    assert [r["code"] for r in rejects] == [code for _, _, code, _ in classes]
    for reject, (name, _, _, fragment) in zip(rejects, classes, strict=True):
        assert reject["status"] == "rejected", name
        _assert_one_line_reason(reject["reason"], fragment)

    rows = _quarantine(conn, namespace)
    assert [(r[1], r[2], r[3], r[5]) for r in rows] == [
        (number, offset, code, line)
        for number, offset, (_, line, code, _) in zip(bad_numbers, offsets, classes, strict=True)
    ]
    assert [r[4] for r in rows] == [r["reason"] for r in rejects]
