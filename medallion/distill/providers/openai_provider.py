"""The ``openai`` distiller (S1) and judge (S3) over any OpenAI-compatible endpoint.

Both ask for structured output against the JSON schema of their model card (``model_configs/distill.yaml``,
``model_configs/judge.yaml``; 4.1) through :class:`~medallion.distill.llm.LLMClient`, which negotiates the
structured-output mode the endpoint takes, retries 429/5xx/timeouts with backoff and repairs one
malformed answer. When that is not enough they raise
:class:`DistillError` with a one-sentence reason, and the caller parks the event (R4).

The distiller emits the same shape as the heuristic: the model names a predicate (a curated name or a
key read from the relation phrase) and this module puts it through the open vocabulary
(:func:`~medallion.distill.predicates.slot_for`): a curated alias becomes its curated name, an
inverse phrasing ("X manages Y") swaps subject and value, anything else is a learned key. Values are
typed (entity, ISO date, ``{"number": n, "unit": u}``, text). One unusable fact in an answer is
dropped and counted, not the whole event; an answer with no usable fact at all is malformed and goes
through the repair path.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from medallion.distill import predicates as vocab
from medallion.distill.llm import MALFORMED_NOTE, LLMClient, Usage, load_card, load_prompt
from medallion.distill.providers import DistillError
from medallion.distill.types import EventInput, FactCandidate, Judgement, Neighbour, ValueType
from medallion.distill.vocabulary import predicates
from medallion.settings import Settings

log = logging.getLogger(__name__)

DISTILL_SCHEMA_NAME = "distill"
JUDGE_SCHEMA_NAME = "judge"
FALLBACK_PREDICATE = "states"
DECISIONS = ("add", "update", "supersede", "skip")
VALUE_TYPES: tuple[ValueType, ...] = ("entity", "date", "number", "text")
CARDINALITIES = ("one", "many")
# What a fact cannot do without; every other field has a default (predicate → states, valid_from →
# the event time, confidence → 0.5, value_type → inferred, cardinality and relation → None).
ESSENTIAL_FIELDS = ("subject", "value", "statement")

_PRESENT = {"type": "string", "pattern": r"\S"}
USABLE_FACT: dict[str, Any] = {
    "type": "object",
    "required": list(ESSENTIAL_FIELDS),
    "properties": {"subject": _PRESENT, "statement": _PRESENT, "value": {"anyOf": [_PRESENT, {"type": "number"}]}},
}
# What the distiller accepts from the model (the model is still asked for the card's strict schema):
# a ``facts`` list that is empty or holds at least one usable fact. Unusable facts beside a usable one
# are dropped one by one; a list of nothing but unusable facts is malformed (repair, then DistillError).
DISTILL_ACCEPT: dict[str, Any] = {
    "type": "object",
    "required": ["facts"],
    "properties": {"facts": {"type": "array", "if": {"minItems": 1}, "then": {
        "contains": USABLE_FACT,
        MALFORMED_NOTE: "no fact has a non-empty subject, value and statement (an empty list says there is none)",
    }}},
}

__all__ = [
    "DISTILL_ACCEPT",
    "DISTILL_SCHEMA_NAME",
    "JUDGE_SCHEMA_NAME",
    "DistillError",
    "OpenAIDistiller",
    "OpenAIJudge",
    "UnusableFact",
    "distill_user_message",
    "fact_candidate",
    "iso_date",
    "judge_user_message",
    "parse_valid_from",
    "predicate_list",
    "slot_cardinality",
    "speaker_name",
    "typed_value",
]


def speaker_name(actor: str | None) -> str:
    """Display name of an actor id: "user:alice" → "Alice", "system:workday" → "workday"."""
    if not actor:
        return "unknown"
    prefix, _, rest = actor.partition(":")
    name = (rest or prefix).strip()
    name = name.replace("_", " ").replace(".", " ").strip() or actor
    if prefix.lower() in {"user", "person", "human"} and name == name.lower():
        name = " ".join(part.capitalize() for part in name.split())
    return name


def distill_user_message(event: EventInput) -> str:
    """The user message of a distill request: speaker, event time, kind, then the content verbatim."""
    actor = f" (actor id {event.actor})" if event.actor else ""
    return (
        f"Speaker: {speaker_name(event.actor)}{actor}\n"
        f"Event time: {event.occurred_at.isoformat()}\n"
        f"Kind: {event.kind}\n"
        f"Source: {event.source}\n"
        f"Content:\n{event.content}"
    )


def parse_valid_from(text: Any, default: datetime) -> datetime:
    """An ISO 8601 date or timestamp as an aware datetime (naive → UTC); ``default`` when unparseable."""
    if not isinstance(text, str) or not text.strip():
        return default
    raw = text.strip()
    try:
        parsed = datetime.fromisoformat(raw)
    except ValueError:
        try:
            parsed = datetime.combine(date.fromisoformat(raw[:10]), datetime.min.time())
        except ValueError:
            return default
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _confidence(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.5
    if not math.isfinite(number):
        return 0.5
    return min(1.0, max(0.0, number))


def _text(value: Any) -> str | None:
    """A string with its whitespace collapsed, or None when it is not a string or is blank."""
    if not isinstance(value, str):
        return None
    return " ".join(value.split()) or None


# -- typed values -----------------------------------------------------------------------------------

_FULL_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}.*")
_YEAR_MONTH = re.compile(r"(\d{4})(?:-(\d{2}))?")
_NO_YEAR = re.compile(r"--(\d{2})-(\d{2})")
# A number with an optional unit after it ("42 km", "1,200", "-3.5%"); a unit never starts with a digit or a
# separator, so "1,5" (a decimal comma) is not read as 1 with the unit ",5".
_NUMBER = re.compile(r"([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+)(?:\s*([^\d\s.,+-].*))?")


def iso_date(text: str) -> str | None:
    """``text`` as an ISO date the ledger can compare, or None when it is not one.

    Accepts what people know of a date: a full date ("2023-05-07"), a timestamp, a month
    ("2023-05"), a year ("2023") and a day without its year ("--05-07", as the heuristic writes
    birthdays). Calendar validity is checked, so "2023-02-30" is not a date (and stays text).
    """
    raw = text.strip()
    try:
        if _FULL_DATE.fullmatch(raw):
            return date.fromisoformat(raw).isoformat()
        if _TIMESTAMP.fullmatch(raw):
            return datetime.fromisoformat(raw).isoformat()
        if m := _YEAR_MONTH.fullmatch(raw):
            year, month = int(m[1]), int(m[2] or 1)
            date(year, month, 1)  # validates both
            return raw
        if m := _NO_YEAR.fullmatch(raw):
            date(2000, int(m[1]), int(m[2]))  # a leap year, so --02-29 is a day
            return raw
    except ValueError:
        return None
    return None


def _number(value: Any) -> tuple[int | float, str | None] | None:
    """A finite number (and a unit written after it, "42 km") from a JSON number or numeric text."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value, None  # always finite (and math.isfinite would overflow on a huge one)
    if isinstance(value, float):
        number, trailing = value, None
    elif isinstance(value, str) and (m := _NUMBER.fullmatch(value.strip())):
        number, trailing = float(m[1].replace(",", "")), _text(m[2])
    else:
        return None
    if not math.isfinite(number):
        return None
    # 3.0 and 3 are one value: the canonical form (and so the fact id) must not depend on the spelling.
    if number.is_integer() and abs(number) < 2**53:
        return int(number), trailing
    return number, trailing


def typed_value(value_type: Any, value: Any, unit: Any) -> tuple[ValueType, Any]:
    """The (value_type, value) a fact stores, from what the model answered.

    A number becomes ``{"number": n, "unit": u}`` (the JSON the ledger compares); a date must be an
    ISO date; a claim the value does not bear out (an unreadable number or date) falls back to text
    rather than losing the fact. An unknown value_type is inferred: a JSON number is a number, the
    rest text.
    """
    kind: ValueType
    if value_type in VALUE_TYPES:
        kind = value_type
    else:
        kind = "number" if isinstance(value, int | float) and not isinstance(value, bool) else "text"
    text = _text(value) if isinstance(value, str) else str(value)
    if kind == "number":
        parsed = _number(value)
        if parsed is not None:
            number, trailing = parsed
            return "number", {"number": number, "unit": _text(unit) or trailing}
        extra = _text(unit)
        return "text", f"{text} {extra}" if extra else text
    if kind == "date":
        iso = iso_date(text or "")
        return ("date", iso) if iso else ("text", text)
    return kind, text


# -- one fact of an answer --------------------------------------------------------------------------


class UnusableFact(ValueError):
    """A fact of the model's answer that cannot become a candidate (the reason is the message)."""


def _strip_speaker_label(statement: str, speaker: str) -> str:
    """The statement without a chat-log label in front ("Nate: I moved." → "I moved."): the label
    names who spoke, which is provenance, not part of the claim."""
    if not speaker or speaker == "unknown":
        return statement
    return re.sub(rf"^\s*{re.escape(speaker)}\s*:\s*", "", statement, count=1, flags=re.IGNORECASE)


def _slot(raw: Any, value_type: ValueType) -> vocab.Slot:
    """The slot of the model's predicate: curated through the alias table, else a learned key.

    An empty or unreadable predicate is the generic ``states``. An inverse alias only swaps subject
    and value when the value is a name ("Acme employs Bob" → Bob works_at Acme); with a number or a
    date ("Acme employs 300 people") the phrase is kept as a learned key, since swapping would make
    the quantity the subject.
    """
    text = raw if isinstance(raw, str) else ""
    slot = vocab.slot_for(text) if text.strip() else None
    if slot is None:
        return vocab.Slot(FALLBACK_PREDICATE, False, "curated")
    if slot.inverse and value_type not in ("entity", "text"):
        key = vocab.normalise_key(text)
        assert key is not None  # slot_for found a slot, so the phrase has a key
        return vocab.Slot(key, False, "learned")
    return slot


def fact_candidate(fact: Any, event: EventInput) -> FactCandidate:
    """One fact of a distill answer as a :class:`FactCandidate`; raises :class:`UnusableFact`.

    Only the essential fields (subject, value, statement) make a fact unusable when missing; every
    other field falls back to a default, so a slightly wrong answer still yields its claim.
    """
    if not isinstance(fact, dict):
        raise UnusableFact(f"a {type(fact).__name__}, not a JSON object")
    raw_value = fact.get("value")
    if isinstance(raw_value, bool) or not isinstance(raw_value, str | int | float):
        raw_value = None
    subject = _text(fact.get("subject"))
    statement = _text(fact.get("statement"))
    if statement is not None:
        statement = _text(_strip_speaker_label(statement, speaker_name(event.actor)))
    missing = [name for name, got in zip(ESSENTIAL_FIELDS, (subject, raw_value, statement), strict=True)
               if got is None or (isinstance(got, str) and not got.strip())]
    if missing:
        raise UnusableFact(f"missing or empty {', '.join(missing)}")
    assert subject is not None and statement is not None
    value_type, value = typed_value(fact.get("value_type"), raw_value, fact.get("unit"))
    slot = _slot(fact.get("predicate"), value_type)
    if slot.inverse:
        # "Bob manages Alice" is stored in the curated direction: (Alice, reports_to, Bob).
        subject, value, value_type = value, subject, "entity"
    curated = predicates().get(slot.key) if slot.origin == "curated" else None
    if curated is not None and curated.entity_valued and value_type == "text":
        value_type = "entity"  # a curated entity-valued slot (works_at, lives_in, ...) holds names
    hint = fact.get("cardinality")
    return FactCandidate(
        subject=subject,
        predicate=slot.key,
        value=value,
        statement=statement,
        valid_from=parse_valid_from(fact.get("valid_from"), event.occurred_at),
        confidence=_confidence(fact.get("confidence")),
        span=None,
        object_entity=value if value_type == "entity" else None,
        value_type=value_type,
        cardinality=hint if curated is None and hint in CARDINALITIES else None,
        relation=_text(fact.get("relation")),
    )


def predicate_list() -> str:
    """The curated predicates for the distill prompt: one line each, with cardinality and description."""
    return "\n".join(f"- {p.name} ({p.cardinality}): {p.description}" for p in predicates().values())


class OpenAIDistiller:
    """Distiller (S1) backed by an OpenAI-compatible chat endpoint; see the module docstring.

    ``last_dropped`` holds the reasons of the facts the last answer had to drop, ``dropped_total`` the
    count over the distiller's life (each drop is also logged as a warning).
    """

    name = "openai"

    def __init__(
        self, settings: Settings, client: LLMClient | None = None, sleep: Callable[[float], None] = time.sleep
    ):
        self.settings = settings
        self.client = client or LLMClient(settings, load_card("distill"), sleep=sleep)
        self.model = self.client.model  # what telemetry records the calls under
        self.card = self.client.card
        self.schema: dict[str, Any] = self.card["output_schema"]
        self.vocabulary = list(predicates())
        self.system = load_prompt(self.card).replace("{predicates}", predicate_list())
        self.last_usage: Usage | None = None
        self.last_dropped: list[str] = []
        self.dropped_total = 0

    def distill(self, event: EventInput) -> list[FactCandidate]:
        """The event's fact candidates; raises :class:`DistillError` when the LLM gives no usable answer."""
        self.last_usage = None
        self.last_dropped = []
        answer, self.last_usage = self.client.complete_json(
            self.system, distill_user_message(event), self.schema, DISTILL_SCHEMA_NAME, accept=DISTILL_ACCEPT
        )
        facts = answer.get("facts", [])
        out: list[FactCandidate] = []
        for index, fact in enumerate(facts):
            try:
                out.append(fact_candidate(fact, event))
            except UnusableFact as exc:
                self.last_dropped.append(f"fact {index}: {exc}")
        if self.last_dropped:
            self.dropped_total += len(self.last_dropped)
            log.warning("event %s: dropped %d of %d facts of the LLM's answer (%s)", event.event_id,
                        len(self.last_dropped), len(facts), "; ".join(self.last_dropped))
        return out


# -- the judge --------------------------------------------------------------------------------------


def _fact_json(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def slot_cardinality(candidate: FactCandidate) -> tuple[str, str]:
    """The cardinality of the candidate's slot and where it comes from: the seed for a curated
    predicate, else the distiller's hint, else the learned-predicate rule (``learned_predicate``)."""
    if vocab.is_curated(candidate.predicate):
        return predicates()[candidate.predicate].cardinality, "curated"
    hint = candidate.cardinality
    if hint is not None and hint in CARDINALITIES:
        return hint, "distiller hint"
    learned = vocab.learned_predicate(candidate.predicate, "", candidate.object_entity is not None)
    return learned.cardinality, "rule"


def judge_user_message(candidate: FactCandidate, neighbours: list[Neighbour]) -> str:
    """The user message of a judge request: the candidate's slot (with its cardinality, which decides
    between supersede and add), the candidate, and its neighbours (each with its predicate and whether
    it is in the same slot) as JSON."""
    cardinality, origin = slot_cardinality(candidate)
    slot = {"subject": candidate.subject, "predicate": candidate.predicate, "cardinality": cardinality,
            "cardinality_from": origin}
    cand = {
        "subject": candidate.subject,
        "predicate": candidate.predicate,
        "relation": candidate.relation,
        "value_type": candidate.value_type,
        "value": candidate.value,
        "statement": candidate.statement,
        "valid_from": candidate.valid_from.isoformat(),
    }
    neigh = [
        {
            "fact_id": n.fact_id,
            "subject": n.subject,
            "predicate": n.predicate,
            "same_slot": n.same_slot,
            "value": n.value,
            "statement": n.statement,
            "valid_from": n.valid_from.isoformat(),
            "authority": n.authority,
            "similarity": round(n.score, 4),
            "current": n.open,
        }
        for n in neighbours
    ]
    return (
        "Slot:\n"
        + json.dumps(slot, ensure_ascii=False)
        + "\n\nCandidate:\n"
        + json.dumps(cand, ensure_ascii=False, default=_fact_json)
        + "\n\nNeighbours:\n"
        + json.dumps(neigh, ensure_ascii=False, indent=1, default=_fact_json)
    )


def _slot_label(candidate: FactCandidate) -> str:
    return f"({candidate.subject}, {candidate.predicate})"


def _naming_slot(reason: str, candidate: FactCandidate) -> str:
    """``reason`` as is when it names the candidate's predicate (as key or words), else prefixed with
    the slot: a resolution read later must say which slot it decided about."""
    folded = reason.casefold()
    key = candidate.predicate.casefold()
    if key in folded or key.replace("_", " ") in folded:
        return reason
    return f"{_slot_label(candidate)} {reason}"


class OpenAIJudge:
    """Conflict judge (S3) backed by an OpenAI-compatible chat endpoint; same output as the heuristic.

    Without neighbours there is nothing to compare, so the answer is **add** without a request. A
    decision whose ``target_fact_id`` is not one of the neighbours becomes **add** (nothing is closed on
    the strength of an invented id); an **add** always has ``target_fact_id`` None. Every reason names
    the candidate's slot (the judge is asked to; a reason that does not is prefixed with it).
    """

    name = "openai"

    def __init__(
        self, settings: Settings, client: LLMClient | None = None, sleep: Callable[[float], None] = time.sleep
    ):
        self.settings = settings
        self.client = client or LLMClient(settings, load_card("judge"), sleep=sleep)
        self.model = self.client.model  # what telemetry records the calls under
        self.card = self.client.card
        self.schema: dict[str, Any] = self.card["output_schema"]
        self.system = load_prompt(self.card)
        self.last_usage: Usage | None = None
        self._unrecorded: list[tuple[Usage, str | None]] = []

    def take_usages(self) -> list[tuple[Usage, str | None]]:
        """The usage of every request made since the last take, each with its failure reason (None when
        it answered), for telemetry: one event's candidates may each ask the judge."""
        taken, self._unrecorded = self._unrecorded, []
        return taken

    def judge(self, candidate: FactCandidate, neighbours: list[Neighbour]) -> Judgement:
        """Classify ``candidate`` against ``neighbours``; raises :class:`DistillError` like the distiller."""
        self.last_usage = None
        if not neighbours:
            return Judgement("add", None, "no neighbour says this")
        try:
            answer, self.last_usage = self.client.complete_json(
                self.system, judge_user_message(candidate, neighbours), self.schema, JUDGE_SCHEMA_NAME
            )
        except DistillError as exc:
            if exc.usage is not None:
                self._unrecorded.append((exc.usage, exc.reason))
            raise
        self._unrecorded.append((self.last_usage, None))
        decision = answer.get("decision")
        target = answer.get("target_fact_id")
        reason = _naming_slot(" ".join(str(answer.get("reason") or "").split()) or "no reason given", candidate)
        slot = _slot_label(candidate)
        if decision not in DECISIONS:
            return Judgement("add", None, f"the judge answered an unknown decision {decision!r} for {slot}; "
                             "kept as new")
        if decision == "add":
            return Judgement("add", None, reason)
        known = {n.fact_id for n in neighbours}
        if target not in known:
            note = f"the judge said {decision} of {target!r}, which is not a neighbour; kept as new ({reason})"
            return Judgement("add", None, note)
        return Judgement(decision, target, reason)  # type: ignore[arg-type]
