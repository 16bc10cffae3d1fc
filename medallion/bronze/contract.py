"""The event contract (B2): one JSON object per event, for every entry point.

JSONL files, the CLI, the Python API and the MCP ``remember`` tool all validate through
:func:`validate_line` / :func:`validate_object`, so a rejection reads the same everywhere. Each
rejection is one human-readable sentence plus a short machine code.

Besides each field's shape, the contract refuses what could not be stored or derived later:

* the same key twice in one JSON object, at any depth, fact content included (``duplicate_key``);
* a NUL character or an unpaired surrogate in any string, key or value, at any depth, including the
  strings a fact's or overlay's content decodes to (``nul_byte``, ``invalid_unicode``);
* an integer outside the signed 64-bit range anywhere, fact content included
  (``integer_out_of_range``), and nesting deeper than :data:`MAX_DEPTH` (``too_deep``);
  NaN and Infinity (not JSON) in metadata or a fact's value;
* a time (``occurred_at``, a fact's ``valid_from``) outside [:data:`EARLIEST_TIME`,
  :data:`LATEST_TIME`) in UTC, so that no zone shift or interval overflows datetime or PostgreSQL;
* a blank fact subject, and overlay metadata whose ``anchor``, ``replaces``, ``retracts`` or
  ``approval_id`` has the wrong type (:class:`OverlayMetadata`, read by :func:`overlay_metadata`).

A top-level ``thread`` is stored as ``metadata.thread`` (:mod:`medallion.bronze.thread`).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from medallion.bronze.thread import fold_thread

NAMESPACE_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,62}$"
KINDS = ("transcript", "note", "commit", "issue", "document", "fact", "overlay")
FUTURE_TOLERANCE = timedelta(days=1)
# Times lie in [EARLIEST_TIME, LATEST_TIME) UTC: no zone shift overflows datetime or timestamptz.
EARLIEST_TIME = datetime(1000, 1, 1, tzinfo=UTC)
LATEST_TIME = datetime(9000, 1, 1, tzinfo=UTC)
TIME_RANGE = "from 1000-01-01T00:00:00Z up to (not including) 9000-01-01T00:00:00Z once converted to UTC"
# Integers are stored as signed 64-bit numbers (jsonb encoding, bigint ids).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_DEPTH = 64  # nesting of objects and arrays within one event; the jsonb encoder stops at 255


def _in_time_range(value: datetime) -> datetime:
    """Refuse instants outside [EARLIEST_TIME, LATEST_TIME): aware comparison, so UTC is what counts."""
    if not EARLIEST_TIME <= value < LATEST_TIME:
        raise ValueError(f"is out of range: times must be {TIME_RANGE}")
    return value


Kind = Literal["transcript", "note", "commit", "issue", "document", "fact", "overlay"]
Time = Annotated[AwareDatetime, AfterValidator(_in_time_range)]
NonEmpty = Annotated[StrictStr, Field(min_length=1)]
PositiveId = Annotated[StrictInt, Field(ge=1, le=INT64_MAX)]
_M = TypeVar("_M", bound=BaseModel)
# Rejection codes a validator raises itself (PydanticCustomError type = code, message = reason).
_OWN_CODES = frozenset({"duplicate_key", "nul_byte", "invalid_unicode", "integer_out_of_range", "too_deep",
                        "invalid_payload", "invalid_metadata"})


class Rejection(ValueError):
    """An event that does not meet the contract: ``code`` for machines, ``reason`` for people."""

    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code, self.reason = code, reason


class FactPayload(BaseModel):
    """Content of a ``kind=fact`` event, a JSON string holding this object: a structured assertion (it
    skips distillation). Decoded, it follows the event's rules (no duplicate keys, NUL, bad integers)."""

    model_config = ConfigDict(extra="forbid")

    subject: Annotated[NonEmpty, Field(description="The entity the fact is about; not blank.")]
    predicate: Annotated[StrictStr, Field(pattern=r"^[a-z][a-z0-9_]{0,62}$")]
    value: Any
    valid_from: Annotated[
        Time | None,
        Field(description=f"ISO 8601 with a UTC offset, {TIME_RANGE}; defaults to the event's occurred_at."),
    ] = None
    confidence: Annotated[StrictFloat | StrictInt, Field(ge=0, le=1)] | None = None

    @field_validator("subject")
    @classmethod
    def _subject_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank (it names an entity)")
        return value

    @field_validator("value")
    @classmethod
    def _value_present(cls, value: Any) -> Any:
        if value is None or (isinstance(value, str) and not value.strip()):
            raise ValueError("value must not be null or empty")
        if _non_finite(value):
            raise ValueError("value must not contain NaN or Infinity")
        return value


class TextQuoteSelector(BaseModel):
    """W3C Web Annotation text-quote selector anchoring an overlay inside a fact's statement."""

    model_config = ConfigDict(extra="forbid")

    exact: NonEmpty
    prefix: StrictStr = ""
    suffix: StrictStr = ""


class OverlayPayload(BaseModel):
    """Content of a ``kind=overlay`` event: a person's edit, annotation or redaction of a fact span."""

    model_config = ConfigDict(extra="forbid")

    fact_id: NonEmpty
    action: Literal["edit", "annotate", "redact"]
    selector: TextQuoteSelector
    text: StrictStr | None = None
    note: StrictStr | None = None

    @model_validator(mode="after")
    def _action_needs(self) -> OverlayPayload:
        if self.action == "edit" and self.text is None:
            raise ValueError("an edit overlay needs 'text' (the replacement)")
        if self.action == "annotate" and not self.note:
            raise ValueError("an annotate overlay needs a non-empty 'note'")
        return self


class OverlayAnchor(BaseModel):
    """Where an overlay's fact came from, so it re-anchors after a re-derivation (every part optional)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bronze_event_id: PositiveId | None = None
    subject_id: StrictStr | None = None
    predicate: StrictStr | None = None


class OverlayMetadata(BaseModel):
    """The typed keys of a ``kind=overlay`` event's metadata (other keys are kept as they are).

    Ids are positive integers within the signed 64-bit range: ``replaces`` / ``retracts`` name the
    overlay event this one supersedes or withdraws (one of them at most), ``approval_id`` the
    approval that allowed it.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    anchor: OverlayAnchor | None = None
    replaces: PositiveId | None = None
    retracts: PositiveId | None = None
    approval_id: PositiveId | None = None

    @model_validator(mode="after")
    def _one_link(self) -> OverlayMetadata:
        if self.replaces is not None and self.retracts is not None:
            raise ValueError("an overlay replaces or retracts one earlier overlay, not both")
        return self


class Event(BaseModel):
    """One Bronze event as submitted (B2). ``authority`` None means: default from actor/source.

    Anywhere in the event (and in a fact's or overlay's decoded content): no key twice in one object,
    no NUL (\\u0000) or unpaired surrogate in any string, integers within the signed 64-bit range,
    objects and arrays nested at most 64 levels.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    namespace: Annotated[StrictStr, Field(pattern=NAMESPACE_PATTERN)]
    source: Annotated[StrictStr, Field(min_length=1, max_length=200)]
    source_event_id: Annotated[StrictStr, Field(min_length=1, max_length=500)]
    kind: Kind
    content: NonEmpty
    provenance_root: NonEmpty
    actor: Annotated[StrictStr, Field(min_length=1, max_length=200)] | None = None
    occurred_at: Annotated[
        Time | None,
        Field(description=f"ISO 8601 with a UTC offset, {TIME_RANGE}, at most a day in the future; "
                          "defaults to the time of receipt."),
    ] = None
    authority: Annotated[StrictInt, Field(ge=1, le=5)] | None = None
    metadata: dict[str, Any] = Field(
        default_factory=dict,
        description="Free JSON object; no NaN or Infinity. A document event needs 'path'; an overlay "
        "event's anchor, replaces, retracts and approval_id are typed (OverlayMetadata); 'thread' (also "
        "a top-level field) names the conversation when provenance_root is per message.",
    )

    @model_validator(mode="before")
    @classmethod
    def _thread(cls, data: Any) -> Any:
        return fold_thread(data)

    @field_validator("source", "source_event_id", "provenance_root", "content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("metadata")
    @classmethod
    def _finite_metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
        if _non_finite(value):
            raise ValueError("must not contain NaN or Infinity (not representable in JSON)")
        return value

    @field_validator("occurred_at", mode="before")
    @classmethod
    def _timestamp_is_text(cls, value: Any) -> Any:
        if value is not None and not isinstance(value, str | datetime):
            raise ValueError("must be an ISO 8601 string, not a number")
        return value

    @field_validator("occurred_at")
    @classmethod
    def _not_in_future(cls, value: datetime | None) -> datetime | None:
        if value is not None and value > datetime.now(UTC) + FUTURE_TOLERANCE:
            raise ValueError("is more than a day in the future")
        return value

    @model_validator(mode="after")
    def _kind_payload(self) -> Event:
        try:
            if self.kind == "fact":
                fact_payload(self.content)
            elif self.kind == "overlay":
                overlay_payload(self.content)
                overlay_metadata(self.metadata)
        except Rejection as rej:  # keep the payload's own code (duplicate_key, nul_byte, ...)
            raise PydanticCustomError(rej.code, "{reason}", {"reason": rej.reason}) from None
        if self.kind == "document":
            path = self.metadata.get("path")
            if not isinstance(path, str) or not path.strip():
                raise ValueError("a document event needs metadata.path (the document's path)")
        return self

    @property
    def content_hash(self) -> str:
        """sha256 hex of the UTF-8 content (the database re-checks it). Ingest computes it once."""
        return hashlib.sha256(self.content.encode("utf-8")).hexdigest()

    @property
    def key(self) -> tuple[str, str, str]:
        """The idempotency key (namespace, source, source_event_id)."""
        return (self.namespace, self.source, self.source_event_id)


def fact_payload(content: str) -> FactPayload:
    """Parse a fact event's content; raises :class:`Rejection` (a ValueError) with a readable reason."""
    return _parse_payload(FactPayload, content, "fact")


def overlay_payload(content: str) -> OverlayPayload:
    """Parse an overlay event's content; raises :class:`Rejection` (a ValueError) with a readable reason."""
    return _parse_payload(OverlayPayload, content, "overlay")


def overlay_metadata(metadata: Mapping[str, Any]) -> OverlayMetadata:
    """The typed view of an overlay event's metadata; raises :class:`Rejection` if a known key is mistyped."""
    try:
        return OverlayMetadata.model_validate(dict(metadata))
    except ValidationError as exc:
        raise Rejection(
            "invalid_metadata", f"overlay metadata does not match its schema: {_describe(exc, prefix='metadata.')} "
            "(anchor is an object of bronze_event_id, subject_id and predicate; replaces, retracts and "
            "approval_id are positive integers)",
        ) from None


def _parse_payload(model: type[_M], content: str, name: str) -> _M:
    """Decode a fact/overlay content with the standard library first, so that duplicate keys, NUL
    characters, unpaired surrogates and out-of-range integers inside it are found (the derivation
    stores them), then validate it against its schema."""
    mismatch = f"{name} content does not match the {name} schema: "
    try:
        obj = _loads(content)
    except Rejection as rej:
        if rej.code == "invalid_json":
            raise Rejection("invalid_payload", mismatch + rej.reason.removeprefix("is ")) from None
        raise Rejection(rej.code, f"in the {name} content, {rej.reason}") from None
    found = _scan(obj)
    if found is not None:
        raise Rejection(found[0], f"in the {name} content, {found[1]}")
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise Rejection("invalid_payload", mismatch + _describe(exc)) from None


# Authority tiers (B2, STANDARDS.md): 1 user, 2 primary, 3 secondary, 4 derived, 5 inference.
_ACTOR_TIERS = {
    "user": 1, "person": 1, "human": 1,
    "system": 2, "bot": 4, "pipeline": 4, "derived": 4,
    "agent": 5, "assistant": 5, "model": 5,
}
_PRIMARY_KINDS = {"commit", "issue", "document"}
_PRIMARY_SOURCES = {"github", "gitlab", "git", "jira", "linear", "docs", "hr", "calendar"}


def default_authority(actor: str | None, source: str, kind: str) -> int:
    """Authority when the event does not state one: from the actor's prefix, else the source/kind."""
    if actor:
        prefix = actor.split(":", 1)[0].lower() if ":" in actor else ""
        if prefix in _ACTOR_TIERS:
            return _ACTOR_TIERS[prefix]
    if kind in _PRIMARY_KINDS or source.lower() in _PRIMARY_SOURCES:
        return 2
    return 3


def _non_finite(value: Any) -> bool:
    """True when a JSON value holds NaN or ±Infinity anywhere (jsonb cannot store them)."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_non_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_non_finite(v) for v in value)
    return False


def _scan(value: Any) -> tuple[str, str] | None:
    """The first value no store or derivation can hold, as (code, reason naming the place), or None:
    NUL and unpaired surrogates (PostgreSQL text), integers beyond 64 bits and deep nesting (jsonb)."""
    found = _find(value, 0)
    if found is None:
        return None
    code, steps, number = found
    in_key = bool(steps) and steps[0] is _KEY
    path = "".join(f"[{s}]" if isinstance(s, int) else f".{_show_key(s)}" for s in reversed(steps[in_key:]))
    path = path.removeprefix(".")
    where = f"field '{path if len(path) <= 80 else path[:77] + '...'}'"
    if in_key:
        where = f"a key in {where}" if path else "a field name"
    if code in _PROBLEMS:
        return code, f"{where} {_PROBLEMS[code]}"
    return code, f"{where} holds {_show_int(number)}, outside the signed 64-bit range that can be stored ({_RANGE})"


_KEY = object()  # marks, in a path, that the problem is a key of the container, not a value
_PROBLEMS = {
    "nul_byte": "contains a NUL character (\\u0000), which cannot be stored",
    "invalid_unicode": "contains an unpaired surrogate (e.g. \\ud800): not valid Unicode text",
    "too_deep": f"nests objects and arrays more than {MAX_DEPTH} levels deep",
}
_RANGE = f"{INT64_MIN} to {INT64_MAX}"


def _find(value: Any, depth: int, keys: list[int] | None = None) -> tuple[str, list[Any], int] | None:
    """(code, path steps innermost first, the integer if any) of the first problem; the path is
    built only when something is found, so the common case allocates nothing. ``keys[0]`` counts
    the object keys walked."""
    if isinstance(value, str):
        code = _text_code(value)
        return None if code is None else (code, [], 0)
    if isinstance(value, int) and not isinstance(value, bool):
        return None if INT64_MIN <= value <= INT64_MAX else ("integer_out_of_range", [], value)
    if isinstance(value, dict | list | tuple):
        if depth >= MAX_DEPTH:
            return "too_deep", [], 0
        if keys is not None and isinstance(value, dict):
            keys[0] += len(value)
        for key, item in value.items() if isinstance(value, dict) else enumerate(value):
            if isinstance(key, str) and (code := _text_code(key)) is not None:
                return code, [_KEY], 0
            found = _find(item, depth + 1, keys)
            if found is not None:
                found[1].append(key)
                return found
    return None


def _text_code(text: str) -> str | None:
    if "\x00" in text:
        return "nul_byte"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "invalid_unicode"
    return None


def _show_key(key: Any) -> str:
    """A key as it can appear in a one-line reason: escaped, and cut when long."""
    text = str(key)
    short = text[:60] + ("..." if len(text) > 60 else "")
    return short.encode("unicode_escape").decode("ascii").replace("'", "\\'")


def _show_int(value: int) -> str:
    bits = value.bit_length()
    return f"the integer {value}" if bits <= 200 else f"an integer of about {int(bits * math.log10(2)) + 1} digits"


_FIELD_HINTS = {
    "namespace": "use 1-63 characters of lowercase letters, digits, '-' or '_', starting with a letter or digit",
    "kind": f"use one of {', '.join(KINDS)}",
    "authority": "use an integer from 1 (user) to 5 (agent inference)",
    "occurred_at": "use an ISO 8601 timestamp with a UTC offset, e.g. 2026-11-30T09:12:00Z",
}


def _describe(exc: ValidationError, prefix: str = "") -> str:
    parts = []
    for err in exc.errors(include_url=False):
        loc = prefix + ".".join(str(p) for p in err["loc"]).encode("unicode_escape").decode("ascii")
        loc = loc.removesuffix(".")
        etype = err["type"]
        msg = err["msg"].removeprefix("Value error, ")
        if etype in _OWN_CODES or (not err["loc"] and etype == "value_error"):
            parts.append(msg)
        elif etype == "missing":
            parts.append(f"missing required field '{loc}'")
        elif etype == "extra_forbidden":
            parts.append(f"unknown field '{loc}'")
        elif not err["loc"] and etype in ("model_type", "model_attributes_type", "dict_type"):
            parts.append("expected a JSON object")
        else:
            hint = _FIELD_HINTS.get(loc.split(".")[0])
            parts.append(f"field '{loc}' {msg[0].lower() + msg[1:]}" + (f" ({hint})" if hint else ""))
    return "; ".join(parts)


def _code(exc: ValidationError) -> str:
    err = exc.errors(include_url=False)[0]
    loc = err["loc"][0] if err["loc"] else ""
    if err["type"] in _OWN_CODES:
        return err["type"]
    if err["type"] == "missing":
        return "missing_field"
    if err["type"] == "extra_forbidden":
        return "unknown_field"
    if not err["loc"]:
        return "invalid_payload" if err["type"] == "value_error" else "not_an_object"
    if loc == "namespace":
        return "bad_namespace"
    return f"invalid_{loc}" if loc else "invalid_event"


def validate_object(obj: Any, *, max_content_bytes: int) -> Event:
    """Validate an already-decoded event (Python API, MCP). Raises :class:`Rejection`."""
    if not isinstance(obj, dict):
        raise Rejection("not_an_object", f"expected a JSON object, got {type(obj).__name__}")
    found = _scan(obj)
    if found is not None:
        raise Rejection(*found)
    try:
        event = Event.model_validate(obj)
    except ValidationError as exc:
        raise Rejection(_code(exc), _describe(exc)) from None
    return _check_size(event, max_content_bytes)


def _check_size(event: Event, max_content_bytes: int) -> Event:
    size = len(event.content.encode("utf-8"))
    if size > max_content_bytes:
        raise Rejection(
            "content_too_large",
            f"content is {size} bytes, over the limit of {max_content_bytes} bytes (MEDALLION_MAX_CONTENT_BYTES)",
        )
    return event


class _ParseStop(ValueError):
    """Raised by the decoder's hooks, as (code, key or integer text): the parse ends there."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` that refuses a key given twice (``json.loads`` would keep the last)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _ParseStop("duplicate_key", key)
            seen.add(key)
    return obj


def _int64(text: str) -> int:
    """``parse_int`` hook: an integer beyond 64 bits stops the parse (found without walking the result)."""
    value = int(text)
    if not INT64_MIN <= value <= INT64_MAX:
        raise _ParseStop("integer_out_of_range", text)
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_int=_int64)
_LENIENT = json.JSONDecoder(object_pairs_hook=_unique_keys)


def _loads(text: str) -> Any:
    """Decode JSON; every failure is a :class:`Rejection`: syntax, depth bombs, 4,300+-digit integers,
    duplicate keys (``duplicate_key``) and integers beyond 64 bits (``integer_out_of_range``)."""
    if text.startswith("\ufeff"):  # json.loads checks this itself; JSONDecoder.decode does not
        raise Rejection("invalid_json", "is not valid JSON (Unexpected UTF-8 BOM (decode using utf-8-sig), column 1)")
    try:
        return _DECODER.decode(text)
    except _ParseStop as exc:
        code, detail = exc.args
        if code == "integer_out_of_range":
            raise Rejection(*_locate(text, int(detail))) from None
        raise Rejection(code, f"the key '{_show_key(detail)}' appears twice in one object "
                              "(JSON parsers disagree on which value counts)") from None
    except json.JSONDecodeError as exc:
        raise Rejection("invalid_json", f"is not valid JSON ({exc.msg}, column {exc.colno})") from None
    except RecursionError:
        raise Rejection("invalid_json", "is not valid JSON we accept (nested too deeply)") from None
    except ValueError as exc:
        raise Rejection("invalid_json", f"is not valid JSON we accept ({exc})") from None


def _locate(text: str, number: int) -> tuple[str, str]:
    """Decode again without the range check, only to name where the out-of-range integer is."""
    try:
        found = _scan(_LENIENT.decode(text))
    except (ValueError, RecursionError):  # the text fails further on too; the integer is reason enough
        found = None
    return found or ("integer_out_of_range", f"holds {_show_int(number)}, outside the signed 64-bit range")


def _fast(text: str) -> Event | None:
    """The common line validated by pydantic's own parser (one parse, not two), or None for the
    careful path (which also words every rejection), when the two provably agree: no ``\\u`` escape
    (strings are the text itself: no NUL, valid UTF-8); no escaped quote, no quote before whitespace,
    no raw line break (so ``":`` counts every key at least once, and a key given twice shows as more
    occurrences than parsed keys); the metadata's integers and nesting within bounds."""
    if ("\\" in text and ("\\u" in text or '\\"' in text)) or '" ' in text or '"\t' in text \
            or "\n" in text or "\r" in text:
        return None
    try:
        event = Event.model_validate_json(text)
    except ValidationError:
        return None
    keys = [len(event.model_fields_set)]
    return event if _find(event.metadata, 1, keys) is None and keys[0] == text.count('":') else None


def validate_line(raw: bytes, *, max_content_bytes: int) -> Event:
    """Validate one JSONL line given as raw bytes. Raises :class:`Rejection`."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Rejection("invalid_utf8", f"is not valid UTF-8 (byte {exc.start} of the line)") from None
    if "\x00" in text:
        raise Rejection("nul_byte", "contains a raw NUL byte, which cannot be stored")
    # Bound the parse: a line far over the content limit cannot hold a valid event.
    if len(raw) > max_content_bytes * 6 + 65536:
        raise Rejection("line_too_large", f"line is {len(raw)} bytes, far over the content limit")
    event = _fast(text)
    if event is not None:
        return _check_size(event, max_content_bytes)
    # The standard library parses: it can refuse duplicate keys, which pydantic's parser keeps silently.
    return validate_object(_loads(text), max_content_bytes=max_content_bytes)


def event_json_schema() -> dict[str, Any]:
    """JSON Schema of the contract, exported to docs/event.schema.json."""
    return Event.model_json_schema()


def full_json_schema() -> dict[str, Any]:
    """The event schema plus the fact and overlay payload and overlay metadata schemas, as committed in docs/."""
    schema = event_json_schema()
    schema["$defs"] = {
        **schema.get("$defs", {}),
        "FactPayload": FactPayload.model_json_schema(),
        "OverlayPayload": OverlayPayload.model_json_schema(),
        "OverlayMetadata": OverlayMetadata.model_json_schema(),
    }
    return schema


if __name__ == "__main__":  # python -m medallion.bronze.contract > docs/event.schema.json
    print(json.dumps(full_json_schema(), indent=2, sort_keys=True))
