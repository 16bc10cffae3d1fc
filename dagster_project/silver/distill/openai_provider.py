"""The ``openai`` distiller (SPEC S1) and judge (SPEC S3) over any OpenAI-compatible endpoint.

Both ask for structured output against the JSON schema of their model card (``models/distill.yaml``,
``models/judge.yaml``; SPEC 4.1) through :class:`~dagster_project.silver.llm.LLMClient`, which retries
429/5xx/timeouts with backoff and repairs one malformed answer. When that is not enough they raise
:class:`DistillError` with a one-sentence reason, and the caller parks the event (SPEC R4).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from dagster_project.settings import Settings
from dagster_project.silver.distill import DistillError
from dagster_project.silver.llm import LLMClient, Usage, load_card, load_prompt
from dagster_project.silver.types import EventInput, FactCandidate, Judgement, Neighbour
from dagster_project.silver.vocabulary import predicates

DISTILL_SCHEMA_NAME = "distill"
JUDGE_SCHEMA_NAME = "judge"
FALLBACK_PREDICATE = "states"
DECISIONS = ("add", "update", "supersede", "skip")

__all__ = [
    "DISTILL_SCHEMA_NAME",
    "JUDGE_SCHEMA_NAME",
    "DistillError",
    "OpenAIDistiller",
    "OpenAIJudge",
    "distill_user_message",
    "judge_user_message",
    "parse_valid_from",
    "speaker_name",
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


class OpenAIDistiller:
    """Distiller (SPEC S1) backed by an OpenAI-compatible chat endpoint; see the module docstring."""

    name = "openai"

    def __init__(
        self, settings: Settings, client: LLMClient | None = None, sleep: Callable[[float], None] = time.sleep
    ):
        self.settings = settings
        self.client = client or LLMClient(settings, load_card("distill"), sleep=sleep)
        self.card = self.client.card
        self.schema: dict[str, Any] = self.card["output_schema"]
        vocabulary = predicates()
        self.vocabulary = list(vocabulary)
        self.entity_valued = {name for name, p in vocabulary.items() if p.entity_valued}
        self.system = load_prompt(self.card).replace("{predicates}", ", ".join(self.vocabulary))
        self.last_usage: Usage | None = None

    def distill(self, event: EventInput) -> list[FactCandidate]:
        """The event's fact candidates; raises :class:`DistillError` when the LLM gives no usable answer."""
        self.last_usage = None
        answer, self.last_usage = self.client.complete_json(
            self.system, distill_user_message(event), self.schema, DISTILL_SCHEMA_NAME
        )
        out: list[FactCandidate] = []
        for fact in answer.get("facts", []):
            subject = str(fact.get("subject", "")).strip()
            statement = str(fact.get("statement", "")).strip()
            value = fact.get("value")
            value = value.strip() if isinstance(value, str) else value
            if not subject or not statement or value in (None, ""):
                continue
            predicate = str(fact.get("predicate", "")).strip()
            if predicate not in self.vocabulary:
                predicate = FALLBACK_PREDICATE
            out.append(
                FactCandidate(
                    subject=subject,
                    predicate=predicate,
                    value=value,
                    statement=statement,
                    valid_from=parse_valid_from(fact.get("valid_from"), event.occurred_at),
                    confidence=_confidence(fact.get("confidence")),
                    span=None,
                    object_entity=value if predicate in self.entity_valued and isinstance(value, str) else None,
                )
            )
        return out


def _fact_json(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def judge_user_message(candidate: FactCandidate, neighbours: list[Neighbour]) -> str:
    """The user message of a judge request: the candidate and its neighbours as JSON."""
    cand = {
        "subject": candidate.subject,
        "predicate": candidate.predicate,
        "value": candidate.value,
        "statement": candidate.statement,
        "valid_from": candidate.valid_from.isoformat(),
    }
    neigh = [
        {
            "fact_id": n.fact_id,
            "subject": n.subject,
            "predicate": n.predicate,
            "value": n.value,
            "statement": n.statement,
            "valid_from": n.valid_from.isoformat(),
            "authority": n.authority,
            "similarity": round(n.score, 4),
            "same_slot": n.same_slot,
            "current": n.open,
        }
        for n in neighbours
    ]
    return (
        "Candidate:\n"
        + json.dumps(cand, ensure_ascii=False, default=_fact_json)
        + "\n\nNeighbours:\n"
        + json.dumps(neigh, ensure_ascii=False, indent=1, default=_fact_json)
    )


class OpenAIJudge:
    """Conflict judge (SPEC S3) backed by an OpenAI-compatible chat endpoint; same output as the heuristic.

    Without neighbours there is nothing to compare, so the answer is **add** without a request. A
    decision whose ``target_fact_id`` is not one of the neighbours becomes **add** (nothing is closed on
    the strength of an invented id); an **add** always has ``target_fact_id`` None.
    """

    name = "openai"

    def __init__(
        self, settings: Settings, client: LLMClient | None = None, sleep: Callable[[float], None] = time.sleep
    ):
        self.settings = settings
        self.client = client or LLMClient(settings, load_card("judge"), sleep=sleep)
        self.card = self.client.card
        self.schema: dict[str, Any] = self.card["output_schema"]
        self.system = load_prompt(self.card)
        self.last_usage: Usage | None = None

    def judge(self, candidate: FactCandidate, neighbours: list[Neighbour]) -> Judgement:
        """Classify ``candidate`` against ``neighbours``; raises :class:`DistillError` like the distiller."""
        self.last_usage = None
        if not neighbours:
            return Judgement("add", None, "no neighbour says this")
        answer, self.last_usage = self.client.complete_json(
            self.system, judge_user_message(candidate, neighbours), self.schema, JUDGE_SCHEMA_NAME
        )
        decision = answer.get("decision")
        target = answer.get("target_fact_id")
        reason = " ".join(str(answer.get("reason") or "").split()) or "no reason given"
        if decision not in DECISIONS:
            return Judgement("add", None, f"the judge answered an unknown decision {decision!r}; kept as new")
        if decision == "add":
            return Judgement("add", None, reason)
        known = {n.fact_id for n in neighbours}
        if target not in known:
            note = f"the judge said {decision} of {target!r}, which is not a neighbour; kept as new ({reason})"
            return Judgement("add", None, note)
        return Judgement(decision, target, reason)  # type: ignore[arg-type]
