"""Events for the distiller's unit tests: the speaker is ``user:alice`` in namespace ``team-atlas``
and the event happened on Wednesday 2026-11-25 08:45 UTC unless a test says otherwise."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from medallion.distill.providers.heuristic import HeuristicDistiller
from medallion.distill.types import EventInput, FactCandidate

OCC = datetime(2026, 11, 25, 8, 45, tzinfo=UTC)  # a Wednesday
TODAY = OCC.date()
DAY_IN_2023 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a day in May 2023, a Monday
DISTILLER = HeuristicDistiller()


def make_event(
    content: str,
    actor: str | None = "user:alice",
    occurred: datetime = OCC,
    kind: str = "transcript",
    namespace: str = "team-atlas",
    source: str = "slack",
    metadata: dict[str, Any] | None = None,
) -> EventInput:
    return EventInput(
        event_id=1,
        namespace=namespace,
        source=source,
        source_event_id="test/1",
        kind=kind,
        actor=actor,
        content=content,
        occurred_at=occurred,
        received_at=occurred,
        authority=1,
        provenance_root=f"{source}://test/1",
        metadata=metadata or {},
    )


def summary(facts: list[FactCandidate]) -> list[tuple[str, str, Any, date]]:
    return [(f.subject, f.predicate, f.value, f.valid_from.date()) for f in facts]


def d(text: str) -> date:
    return date.fromisoformat(text)
