"""Distillers (S1): turn a Bronze event into atomic fact candidates; judges decide a candidate
against the facts near it.

Two providers share one interface each (:class:`Distiller`, :class:`Judge`): ``heuristic`` (offline
default, deterministic) and ``openai`` (any OpenAI-compatible endpoint). A provider raises
:class:`DistillError` when it cannot produce an answer (after its retries); the caller parks the
event in ``silver.derivation_failures``. :func:`record_model_call` is how a call that reached a model
lands in ``telemetry.model_calls``.
"""

from __future__ import annotations

from typing import Any, Protocol

import psycopg

from medallion.distill.types import EventInput, FactCandidate, Judgement, Neighbour


class DistillError(RuntimeError):
    """The provider could not distill the event; ``reason`` says why (kept with the parked event).

    ``usage`` is what the failed call cost (tokens, latency, mode), when the provider measured it, so
    the caller can record a failed call in telemetry as well as a successful one.
    """

    def __init__(self, reason: str, usage: Any = None):
        super().__init__(reason)
        self.reason = reason
        self.usage = usage


class Distiller(Protocol):
    """Anything that turns an event into fact candidates."""

    name: str

    def distill(self, event: EventInput) -> list[FactCandidate]: ...


class Judge(Protocol):
    """Anything that decides a candidate against its nearest facts (add, update, skip, …): the offline
    ``medallion.silver.judge.HeuristicJudge`` and ``OpenAIJudge`` here. ``name`` is the provider
    recorded with each resolution and model call."""

    name: str

    def judge(self, candidate: FactCandidate, neighbours: list[Neighbour]) -> Judgement: ...


class CallUsage(Protocol):
    """What one model call cost (``medallion.distill.llm.Usage`` has this shape)."""

    input_tokens: int
    output_tokens: int
    latency_ms: float
    mode: str


def record_model_call(
    conn: psycopg.Connection,
    step: str,
    provider: str,
    model: str,
    namespace: str | None,
    usage: CallUsage | None,
    *,
    latency_ms: float | None = None,
    error: str | None = None,
) -> None:
    """Append one ``telemetry.model_calls`` row for a call that reached a model: its tokens (from the
    server's ``usage``), latency (``latency_ms``, else the usage's), structured-output mode, and ``error``
    when it failed (then ``ok`` is false). A call with no usage records zeros and no mode."""
    conn.execute(
        "INSERT INTO telemetry.model_calls (step, provider, model, namespace, input_tokens, output_tokens, "
        "latency_ms, cache_hit, ok, error, response_mode) VALUES (%s, %s, %s, %s, %s, %s, %s, false, %s, %s, %s)",
        (step, provider, model, namespace, usage.input_tokens if usage else 0, usage.output_tokens if usage else 0,
         latency_ms if latency_ms is not None else (usage.latency_ms if usage else 0.0), error is None, error,
         usage.mode if usage else None),
    )
