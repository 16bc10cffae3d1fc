"""Plain data passed between the Silver steps (distill → embed → resolve → ledger)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

Decision = Literal["add", "update", "supersede", "skip"]
ValueType = Literal["entity", "date", "number", "text"]


@dataclass(frozen=True)
class EventInput:
    """The slice of a Bronze event that derivation sees."""

    event_id: int
    namespace: str
    source: str
    source_event_id: str
    kind: str
    actor: str | None
    content: str
    occurred_at: datetime
    received_at: datetime
    authority: int
    provenance_root: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FactCandidate:
    """One atomic fact proposed by a distiller, before conflict resolution.

    ``subject`` is what the clause is about ("Alice", "atlas-api", "The Marriage of Figaro"), never
    the speaker unless the clause is about the speaker; ``predicate`` a curated name
    (medallion/distill/seeds/predicates.csv) or a learned key normalised from the relation phrase
    ("author", "famous_for"); ``value`` typed JSON: an entity's name, an ISO date, ``{"number": 3.5,
    "unit": "km"}`` or text, as ``value_type`` says;
    ``statement`` one self-contained sentence; ``valid_from`` when it became true; ``span`` the
    (start, end) character span of the source text in the event content it came from;
    ``object_entity`` the entity name when the value is itself an entity (works_at, member_of,
    relationship, lives_in, located_in, owns, attended, ...), so that an edge can be drawn.
    ``cardinality`` is the distiller's hint for a learned predicate (``one`` | ``many``; a curated
    predicate's comes from the seed), ``relation`` the phrase the predicate was read from ("is famous
    for"), kept as an alias in the vocabulary. ``change`` says the sentence states a change
    ("switched to", "now", "no longer"): in a many-valued slot the new value then replaces the old.
    """

    subject: str
    predicate: str
    value: Any
    statement: str
    valid_from: datetime
    confidence: float
    span: tuple[int, int] | None = None
    object_entity: str | None = None
    value_type: ValueType = "text"
    cardinality: str | None = None
    relation: str | None = None
    change: bool = False


@dataclass(frozen=True)
class Neighbour:
    """An existing ledger fact close to a candidate (same slot, or near in embedding space)."""

    fact_id: str
    subject: str
    predicate: str
    value: Any
    statement: str
    valid_from: datetime
    authority: int
    score: float  # cosine similarity of the statements' embeddings
    same_slot: bool  # same (subject, predicate)
    open: bool  # current (not closed) version


@dataclass(frozen=True)
class Judgement:
    """A judge's classification of a candidate against its neighbours (S3)."""

    decision: Decision
    target_fact_id: str | None  # the neighbour updated / superseded / matched (skip)
    reason: str
