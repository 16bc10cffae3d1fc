"""One request per verb: its arguments, their documentation, their bounds and their checks, written once.

Every verb of the memory is reached three ways: the Python API (:class:`~medallion.serve.tools.Tools`),
the command line (``medallion <verb>``) and the MCP server. Each of them takes its arguments from the
verb's request class here:

- the MCP server builds each tool's input schema from it (``interfaces/mcp_server.py``: field docs
  become descriptions, ``ge``/``le`` become the schema's bounds, a ``Literal`` its choices);
- the CLI takes each option's help text and bounds from it (``interfaces/cli/reads.py``);
- each ``Tools`` method is declared with :func:`serves`, which refuses at import time a method whose
  parameters are not the request's API fields, and builds and checks the request on every call.

A field says on which surfaces it appears (``on``): a few are the API's alone (``include_chunks``,
``metadata``), some are presentation the MCP server applies (``detail`` of history and recall). A
refusal is one sentence naming the argument, the same sentence from every entry point.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import time
import typing
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Literal

from medallion.serve import door
from medallion.serve.session import Session, ToolError

API, CLI, MCP = "api", "cli", "mcp"
EVERYWHERE = frozenset({API, CLI, MCP})
API_MCP = frozenset({API, MCP})
API_CLI = frozenset({API, CLI})

# the wording shared by many verbs
NAMESPACE = "The namespace to use; `namespaces` lists the ones you can use."
AUTHORITY = "1 = the person themselves … 5 = an agent's guess"
FACT_ID = "A fact id, or any unique prefix of it of 6 or more characters."
FACT_DETAIL = ("'compact': each fact's statement, id, when it held, whether it is believed now and its source; "
               "'full': every field (authority, confidence, people's edits, full provenance).")

Detail = Literal["compact", "full"]
# 'overlay' events go through the overlay verb (its capability verb and its approval rule), not remember
WritableKind = Literal["transcript", "note", "commit", "issue", "document", "fact"]


@dataclass(frozen=True)
class Doc:
    """What one field of a request says about itself: its help, its bounds, where it appears."""

    help: str
    ge: int | None = None
    le: int | None = None  # None: no most
    mcp_le: int | None = None  # the MCP schema's most, where an agent's answer must stay smaller than the API's
    on: frozenset[str] = EVERYWHERE
    mcp_default: Any = None  # the MCP tool's default, where it differs from the API's (see mcp_default_differs)
    mcp_default_differs: bool = False
    mcp_type: Any = None  # the MCP schema's type, where the API accepts more (a datetime besides a string)
    cli_flag: str | None = None  # the CLI parameter standing for it when it is the negation (--every-item)


def arg(help: str, default: Any = MISSING, **doc: Any) -> Any:
    """A request field carrying its :class:`Doc`."""
    return field(default=default, metadata={"doc": Doc(help, **doc)})


def doc(request: type[Request], name: str) -> Doc:
    """The :class:`Doc` of field ``name`` of ``request``."""
    return next(f.metadata["doc"] for f in dataclasses.fields(request) if f.name == name)


def fields_on(request: type[Request], surface: str) -> list[dataclasses.Field[Any]]:
    """The fields of ``request`` that ``surface`` (API, CLI or MCP) takes, in their order."""
    return [f for f in dataclasses.fields(request) if surface in f.metadata["doc"].on]


def when(as_of: datetime | str | None) -> datetime | None:
    """An ``as_of`` argument as an aware datetime; a malformed or naive one is a ToolError."""
    try:
        moment = datetime.fromisoformat(as_of) if isinstance(as_of, str) else as_of
    except ValueError:
        raise ToolError(f"as_of {as_of!r} is not an ISO 8601 timestamp") from None
    if moment is not None and moment.tzinfo is None:
        raise ToolError("as_of needs a UTC offset, e.g. 2026-03-01T00:00:00Z")
    return moment


@dataclass(frozen=True, kw_only=True)
class Request:
    """The arguments of one verb; :meth:`check` refuses what cannot be used, in one sentence."""

    verb: ClassVar[str]

    def check(self) -> None:
        """Refuse bounds and choices every surface shares, then what only this verb needs (:meth:`more`)."""
        hints = _type_hints(type(self))
        for f in dataclasses.fields(self):
            value, spec = getattr(self, f.name), f.metadata["doc"]
            if spec.ge is not None and (value is not None or f.default is not None):
                problem = door.count_problem(f.name, value, spec.ge, spec.le)
                if problem:
                    raise ToolError(problem)
            choices = typing.get_args(hints[f.name]) if typing.get_origin(hints[f.name]) is Literal else ()
            if choices and value not in choices:
                raise ToolError(f"{f.name} must be " + _either(choices))
        self.more()

    def more(self) -> None:
        """The checks only this verb needs (none by default)."""

    def api(self) -> dict[str, Any]:
        """The request as the keyword arguments of its ``Tools`` method."""
        return {f.name: getattr(self, f.name) for f in fields_on(type(self), API)}


@functools.cache
def _type_hints(request: type[Request]) -> dict[str, Any]:
    """A request class's resolved field types, once per class: resolving the annotations (strings
    here) evaluates them anew on every call, which a lookup that takes a millisecond notices."""
    return typing.get_type_hints(request)


def _either(choices: tuple[Any, ...]) -> str:
    quoted = [repr(c) for c in choices]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _non_empty(verb: str, text: str) -> None:
    if not isinstance(text, str) or not text.strip():
        raise ToolError(f"{verb} needs a non-empty query")


# ---------------------------------------------------------------------------------------- discovery
@dataclass(frozen=True, kw_only=True)
class Namespaces(Request):
    verb = "namespaces"


@dataclass(frozen=True, kw_only=True)
class Predicates(Request):
    verb = "predicates"
    namespace: str = arg(NAMESPACE)


# ---------------------------------------------------------------------------------------- reads
@dataclass(frozen=True, kw_only=True)
class Search(Request):
    verb = "search"
    query: str = arg("What to look for, in plain words.")
    namespace: str = arg(NAMESPACE)
    k: int = arg("How many results at most.", 10, ge=1, le=200)
    subject: str | None = arg("Only facts about this entity (a name or alias).", None)
    predicate: str | None = arg("Only facts with this predicate.", None)
    min_authority: int | None = arg(f"Only facts at least this authoritative ({AUTHORITY}).", None, ge=1, le=5)
    include_superseded: bool = arg("Also facts no longer believed (replaced or retracted).", False)
    as_of: datetime | str | None = arg(
        "ISO 8601 time with a UTC offset: answer with what was believed then about then.", None,
        mcp_type=str | None)
    include_chunks: bool = arg("Also passages of the source text, not only facts.", True, on=frozenset({API}))
    per_event: bool = arg("One result per source message, its other matches under same_event (false: every "
                          "match on its own).", True, cli_flag="every_item")
    detail: Literal["full", "compact"] = arg(
        "'compact': statement, id, score, current, source; 'full': every field of each result (times, authority, "
        "confidence, people's edits, full provenance).", "full", on=API_MCP, mcp_default="compact",
        mcp_default_differs=True)

    def more(self) -> None:
        _non_empty("search", self.query)
        when(self.as_of)


@dataclass(frozen=True, kw_only=True)
class Read(Request):
    verb = "read"
    fact_id: str | None = arg("The fact to read: its id, or any unique prefix of 6 or more characters.", None)
    path: str | None = arg("A document path (instead of fact_id); needs namespace.", None)
    namespace: str | None = arg("The namespace (required with path).", None)


@dataclass(frozen=True, kw_only=True)
class ListFacts(Request):
    verb = "list"
    namespace: str = arg(NAMESPACE)
    subject: str | None = arg("Only facts about this entity (a name or alias).", None)
    predicate: str | None = arg("Only facts with this predicate.", None)
    include_superseded: bool = arg("Also facts no longer believed (replaced or retracted).", False)
    limit: int = arg("How many facts at most.", 100, ge=1, mcp_le=10000)  # the API and CLI may list everything


@dataclass(frozen=True, kw_only=True)
class Current(Request):
    verb = "current"
    subject: str = arg("An entity's name or alias, e.g. 'Alice'.")
    predicate: str = arg("A relation, e.g. 'lives_in'; `predicates` lists those in use.")
    namespace: str = arg(NAMESPACE)


@dataclass(frozen=True, kw_only=True)
class History(Current):
    verb = "history"
    detail: Detail = arg(FACT_DETAIL, "compact", on=frozenset({MCP}))


@dataclass(frozen=True, kw_only=True)
class Relate(Request):
    verb = "relate"
    a: str = arg("One entity's name.")
    b: str = arg("The other entity's name.")
    namespace: str = arg(NAMESPACE)
    max_depth: int = arg("The longest chain to look for, in facts.", 3, ge=1, le=6)


@dataclass(frozen=True, kw_only=True)
class Follow(Request):
    verb = "follow"
    entity: str = arg("The entity to start from (a name or alias), e.g. 'Alice'.")
    predicates: list[str] = arg("The predicates to follow in order (1 to 6), e.g. ['works_at', 'located_in'].")
    namespace: str = arg(NAMESPACE)
    as_of: datetime | str | None = arg("ISO 8601 time with a UTC offset: follow what was believed then.", None,
                                       mcp_type=str | None)

    def more(self) -> None:
        when(self.as_of)


@dataclass(frozen=True, kw_only=True)
class Recall(Request):
    verb = "recall"
    query: str = arg("The question, in plain words.")
    namespace: str = arg(NAMESPACE)
    stakes: Literal["low", "high"] = arg(
        "'high' answers only from recorded facts with their sources, never from a faster approximate memory.",
        "low")
    k: int = arg("How many answers at most.", 5, ge=1, le=200, mcp_le=50, on=API_MCP)
    detail: Detail = arg(FACT_DETAIL, "compact", on=frozenset({MCP}))

    def more(self) -> None:
        _non_empty("recall", self.query)


# ---------------------------------------------------------------------------------------- writes
@dataclass(frozen=True, kw_only=True)
class Remember(Request):
    verb = "remember"
    namespace: str = arg(NAMESPACE)
    content: str = arg("The text to remember (an utterance, a note, a document).")
    kind: str = arg("What the text is ('fact' takes a JSON assertion).", "note", mcp_type=WritableKind)
    source: str | None = arg("Where it comes from (default: the entry point, e.g. cli).", None, on=API_CLI)
    source_event_id: str | None = arg("An idempotency key; default: a hash of kind and content.", None)
    actor: str | None = arg("Who said it, e.g. 'user:alice'.", None)
    authority: int | None = arg(f"How authoritative the source is ({AUTHORITY}).", None, ge=1, le=5, on=API_MCP)
    occurred_at: str | None = arg("When it happened (ISO 8601 with offset); default: now.", None, on=API_MCP)
    provenance_root: str | None = arg("The root of its provenance; default: source://source_event_id.", None,
                                      on=frozenset({API}))
    metadata: dict[str, Any] | None = arg("The event's metadata.", None, on=frozenset({API}))
    derive_now: bool = arg("Turn it into facts at once (false: land it in Bronze only; derive later).", True,
                           on=API_CLI, cli_flag="no_derive")

    def more(self) -> None:
        if self.kind == "overlay":
            raise ToolError("overlays are written with the overlay tool, which anchors them and asks for approval")


@dataclass(frozen=True, kw_only=True)
class Overlay(Request):
    verb = "overlay"
    fact_id: str = arg(FACT_ID)
    action: Literal["edit", "annotate", "redact"] = arg("What to do with the words.")
    quote: str = arg("The exact words of the fact's statement the change applies to.")
    text: str | None = arg("The replacement text (for 'edit').", None)
    note: str | None = arg("A note (for 'annotate', or why).", None)
    prefix: str = arg("Words just before the quote, when it occurs more than once.", "", on=frozenset({API}))
    suffix: str = arg("Words just after the quote, when it occurs more than once.", "", on=frozenset({API}))
    reason: str | None = arg("Why, for the person who approves an overwrite.", None, on=frozenset({API}))


@dataclass(frozen=True, kw_only=True)
class Retract(Request):
    verb = "retract"
    overlay_id: int = arg("The overlay to retract (its event id).", on=API_CLI)
    reason: str = arg("Why.", on=API_CLI)


@dataclass(frozen=True, kw_only=True)
class Approve(Request):
    verb = "approve"
    approval_id: int = arg("The approval request to approve.", on=API_CLI)


@dataclass(frozen=True, kw_only=True)
class RequestErasure(Request):
    verb = "request_erasure"
    reason: str = arg("Why it must be forgotten; the person who approves reads it.")
    event_id: int | None = arg("The source event to erase (provenance.event_id in search results).", None)
    fact_id: str | None = arg("Or a fact (id or unique prefix): the event that stated it is erased.", None)

    def more(self) -> None:
        if (self.event_id is None) == (self.fact_id is None):
            raise ToolError("name what to erase: an event_id, or a fact_id (its event is erased)")
        if not self.reason or not self.reason.strip():
            raise ToolError("give a reason for the erasure; the person who approves it reads it")


@dataclass(frozen=True, kw_only=True)
class Ingest(Request):
    verb = "ingest"
    data: bytes = arg("The events, one JSON object a line (the B2 contract).", on=frozenset({API}))
    origin: str = arg("Where the lines come from, kept with each event (e.g. file:/path).", on=frozenset({API}))
    batch_size: int = arg("How many lines to land in one transaction.", 5000, ge=1, le=1_000_000,
                          on=frozenset({API}))
    progress: Callable[[int, int], None] | None = arg("Called with (lines done, lines in all) as it goes.", None,
                                                      on=frozenset({API}))


REQUESTS: tuple[type[Request], ...] = (Namespaces, Predicates, Search, Read, ListFacts, Current, History, Relate,
                                       Follow, Recall, Remember, Overlay, Retract, Approve, RequestErasure, Ingest)


def serves(request: type[Request]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a ``Tools`` method as the API of ``request``; every call is checked at the door first.

    The method's parameters must be the request's API fields, with the same defaults (refused at
    import otherwise, so the API cannot drift from the MCP schema and the CLI). A call first refuses
    text that cannot be stored and a malformed namespace (``serve/door.py``), then builds the request
    and runs its :meth:`Request.check`; a refusal is logged like any other call, without the
    offending text, and raised as one sentence.
    """
    def declare(method: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(method)
        params = [p for p in list(signature.parameters.values())[1:]]
        wanted = {f.name: f.default for f in fields_on(request, API)}
        given = {p.name: (MISSING if p.default is inspect.Parameter.empty else p.default) for p in params}
        if given != wanted:
            raise TypeError(f"Tools.{method.__name__} takes {given}, but {request.__name__} says {wanted}")

        @functools.wraps(method)
        def checked(self: Session, *args: Any, **kwargs: Any) -> Any:
            try:
                bound = signature.bind(self, *args, **kwargs)
            except TypeError as exc:
                raise ToolError(f"{method.__name__}: {exc}") from None
            bound.apply_defaults()
            arguments = dict(list(bound.arguments.items())[1:])
            problem = next((p for p in (door.argument_problem(n, v) for n, v in arguments.items()) if p), None)
            if problem is None:
                try:
                    request(**arguments).check()
                except ToolError as exc:
                    problem = str(exc)
            if problem:
                self.log_call(method.__name__, None, None, [], time.perf_counter(), problem)
                raise ToolError(problem)
            return method(self, *args, **kwargs)
        checked.request = request  # type: ignore[attr-defined]
        return checked
    return declare
