"""Distillers (S1): turn a Bronze event into atomic fact candidates.

Two providers share one interface: ``heuristic`` (offline default, deterministic) and ``openai``
(any OpenAI-compatible endpoint). A provider raises :class:`DistillError` when it cannot produce an
answer (after its retries); the caller parks the event in ``silver.derivation_failures``.
"""

from __future__ import annotations

from typing import Protocol

from medallion.silver.types import EventInput, FactCandidate


class DistillError(RuntimeError):
    """The provider could not distill the event; ``reason`` says why (kept with the parked event)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Distiller(Protocol):
    """Anything that turns an event into fact candidates."""

    name: str

    def distill(self, event: EventInput) -> list[FactCandidate]: ...
