"""The event contract (SPEC B2): one JSON object per event, for every entry point.

JSONL files, the CLI, the Python API and the MCP ``remember`` tool all validate through
:func:`validate_line` / :func:`validate_object`, so a rejection reads the same everywhere. Each
rejection is one human-readable sentence plus a short machine code.
"""

from __future__ import annotations

import hashlib
import json
import math
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import (
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

NAMESPACE_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,62}$"
KINDS = ("transcript", "note", "commit", "issue", "document", "fact", "overlay")
FUTURE_TOLERANCE = timedelta(days=1)

Kind = Literal["transcript", "note", "commit", "issue", "document", "fact", "overlay"]
NonEmpty = Annotated[StrictStr, Field(min_length=1)]


class Rejection(ValueError):
    """An event that does not meet the contract: ``code`` for machines, ``reason`` for people."""

    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code
        self.reason = reason


class FactPayload(BaseModel):
    """Content of a ``kind=fact`` event: a structured assertion (it skips distillation)."""

    model_config = ConfigDict(extra="forbid")

    subject: NonEmpty
    predicate: Annotated[StrictStr, Field(pattern=r"^[a-z][a-z0-9_]{0,62}$")]
    value: Any
    valid_from: AwareDatetime | None = None
    confidence: Annotated[StrictFloat | StrictInt, Field(ge=0, le=1)] | None = None

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


class Event(BaseModel):
    """One Bronze event as submitted (SPEC B2). ``authority`` None means: default from actor/source."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    namespace: Annotated[StrictStr, Field(pattern=NAMESPACE_PATTERN)]
    source: Annotated[StrictStr, Field(min_length=1, max_length=200)]
    source_event_id: Annotated[StrictStr, Field(min_length=1, max_length=500)]
    kind: Kind
    content: NonEmpty
    provenance_root: NonEmpty
    actor: Annotated[StrictStr, Field(min_length=1, max_length=200)] | None = None
    occurred_at: AwareDatetime | None = None
    authority: Annotated[StrictInt, Field(ge=1, le=5)] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

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
        if self.kind == "fact":
            fact_payload(self.content)
        elif self.kind == "overlay":
            overlay_payload(self.content)
        elif self.kind == "document":
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
    """Parse a fact event's content; raises ValueError with a readable reason."""
    try:
        return FactPayload.model_validate_json(content)
    except ValidationError as exc:
        raise ValueError(f"fact content does not match the fact schema: {_describe(exc)}") from None


def overlay_payload(content: str) -> OverlayPayload:
    """Parse an overlay event's content; raises ValueError with a readable reason."""
    try:
        return OverlayPayload.model_validate_json(content)
    except ValidationError as exc:
        raise ValueError(f"overlay content does not match the overlay schema: {_describe(exc)}") from None


# Authority tiers (SPEC B2, STANDARDS.md): 1 user, 2 primary, 3 secondary, 4 derived, 5 inference.
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
    if isinstance(value, list):
        return any(_non_finite(v) for v in value)
    return False


def _contains_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_contains_nul(k) or _contains_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_contains_nul(v) for v in value)
    return False


def _unencodable(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_unencodable(k) or _unencodable(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_unencodable(v) for v in value)
    return False


_FIELD_HINTS = {
    "namespace": "use 1-63 characters of lowercase letters, digits, '-' or '_', starting with a letter or digit",
    "kind": f"use one of {', '.join(KINDS)}",
    "authority": "use an integer from 1 (user) to 5 (agent inference)",
    "occurred_at": "use an ISO 8601 timestamp with a UTC offset, e.g. 2026-11-30T09:12:00Z",
}


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"]).encode("unicode_escape").decode("ascii")
        etype = err["type"]
        msg = err["msg"].removeprefix("Value error, ")
        if not loc and etype == "value_error":
            parts.append(msg)
        elif etype == "missing":
            parts.append(f"missing required field '{loc}'")
        elif etype == "extra_forbidden":
            parts.append(f"unknown field '{loc}'")
        elif etype in ("json_invalid", "json_type"):
            parts.append(f"not valid JSON ({err['msg']})")
        elif not loc and etype in ("model_type", "model_attributes_type", "dict_type"):
            parts.append("expected a JSON object")
        else:
            hint = _FIELD_HINTS.get(loc.split(".")[0])
            parts.append(f"field '{loc}' {msg[0].lower() + msg[1:]}" + (f" ({hint})" if hint else ""))
    return "; ".join(parts)


def _code(exc: ValidationError) -> str:
    err = exc.errors(include_url=False)[0]
    loc = err["loc"][0] if err["loc"] else ""
    if err["type"] == "missing":
        return "missing_field"
    if err["type"] == "extra_forbidden":
        return "unknown_field"
    if err["type"] in ("json_invalid", "json_type"):
        return "invalid_json"
    if not err["loc"]:
        return "invalid_payload" if err["type"] == "value_error" else "not_an_object"
    if loc == "namespace":
        return "bad_namespace"
    return f"invalid_{loc}" if loc else "invalid_event"


def validate_object(obj: Any, *, max_content_bytes: int) -> Event:
    """Validate an already-decoded event (Python API, MCP). Raises :class:`Rejection`."""
    if not isinstance(obj, dict):
        raise Rejection("not_an_object", f"expected a JSON object, got {type(obj).__name__}")
    if _contains_nul(obj):
        raise Rejection("nul_byte", "contains a NUL character (\\u0000), which cannot be stored")
    if _unencodable(obj):
        raise Rejection("invalid_unicode", "contains an unpaired surrogate: not valid Unicode text")
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


def _loads(text: str) -> Any:
    """``json.loads`` whose every failure is a :class:`Rejection` (depth bombs and 4,300+-digit ints too)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise Rejection("invalid_json", f"is not valid JSON ({exc.msg}, column {exc.colno})") from None
    except RecursionError:
        raise Rejection("invalid_json", "is not valid JSON we accept (nested too deeply)") from None
    except ValueError as exc:
        raise Rejection("invalid_json", f"is not valid JSON we accept ({exc})") from None


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
    if "\\u" in text:
        # Escapes may hide a NUL or an unpaired surrogate: take the careful path.
        return validate_object(_loads(text), max_content_bytes=max_content_bytes)
    try:
        event = Event.model_validate_json(text)
    except ValidationError as exc:
        if exc.errors(include_url=False)[0]["type"] in ("json_invalid", "json_type"):
            _loads(text)  # for the standard library's clearer message; raises a Rejection
            raise Rejection("invalid_json", f"is not valid JSON ({exc.errors()[0]['msg']})") from None
        raise Rejection(_code(exc), _describe(exc)) from None
    return _check_size(event, max_content_bytes)


def event_json_schema() -> dict[str, Any]:
    """JSON Schema of the contract, exported to docs/event.schema.json."""
    return Event.model_json_schema()


def full_json_schema() -> dict[str, Any]:
    """The event schema plus the fact and overlay payload schemas, as committed in docs/."""
    schema = event_json_schema()
    schema["$defs"] = {
        **schema.get("$defs", {}),
        "FactPayload": FactPayload.model_json_schema(),
        "OverlayPayload": OverlayPayload.model_json_schema(),
    }
    return schema


if __name__ == "__main__":  # python -m dagster_project.bronze.contract > docs/event.schema.json
    print(json.dumps(full_json_schema(), indent=2, sort_keys=True))
