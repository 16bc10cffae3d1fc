"""The shared LLM layer of the ``openai`` providers (4.1, S1, S3, R4).

Model cards live in ``models/<name>.yaml`` (provider, model, temperature, prompt file, timeout,
retries, output JSON schema) with their prompts in ``models/prompts/``. :class:`LLMClient` wraps the
real ``openai`` client against any OpenAI-compatible endpoint and asks for structured output
(``response_format=json_schema``, strict) against the card's schema. It owns its reliability policy:

- the ``openai`` client's own retries are off; 429, 5xx, timeouts and connection errors are retried
  here with exponential backoff and jitter (0.2 s base, 2 s cap; the sleep is injectable);
- an answer that is not JSON, or not valid for the schema, gets exactly one repair request (a caller
  that can use part of an answer passes a looser ``accept`` schema to validate against, while the
  model is still asked for the strict one);
- when neither works, :class:`~medallion.silver.providers.DistillError` carries a one-sentence
  reason, and the caller parks the event in ``silver.derivation_failures`` (retried next run).
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import openai
import yaml

from medallion.settings import Settings
from medallion.silver.providers import DistillError

MODELS = Path(__file__).resolve().parents[2] / "models"

BACKOFF_BASE_SECONDS = 0.2
BACKOFF_CAP_SECONDS = 2.0
DEFAULT_TIMEOUT_SECONDS = 30.0
DEFAULT_MAX_RETRIES = 4
_REASON_DETAIL_CHARS = 200

# A schema (an ``accept`` schema: it is never sent) may say in its own words what an answer failing it
# lacks; the repair request and the parked event's reason then read that, not a dump of the answer.
MALFORMED_NOTE = "x-malformed"

RETRYABLE = (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError, openai.InternalServerError)


def load_card(name: str) -> dict[str, Any]:
    """The model card ``models/<name>.yaml`` as a dict (read afresh each call)."""
    path = MODELS / f"{name}.yaml"
    card = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(card, dict):
        raise ValueError(f"model card {path} is not a mapping")
    return card


def load_prompt(card: dict[str, Any]) -> str:
    """The prompt file a card names (relative to ``models/``), as text."""
    return (MODELS / card["prompt"]).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Usage:
    """Telemetry of one :meth:`LLMClient.complete_json` call (summed over its HTTP attempts)."""

    input_tokens: int
    output_tokens: int
    latency_ms: float
    attempts: int


class _Malformed(ValueError):
    """The answer was not JSON, or not valid for the schema."""


def _short(text: str, limit: int = _REASON_DETAIL_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def describe_error(exc: BaseException) -> str:
    """A short human description of an ``openai`` failure ("503 service unavailable", "timed out")."""
    if isinstance(exc, openai.APITimeoutError):
        return "the request timed out"
    if isinstance(exc, openai.APIStatusError):
        message = exc.message
        body = exc.body
        if isinstance(body, dict):
            inner = body.get("error", body)
            if isinstance(inner, dict) and isinstance(inner.get("message"), str):
                message = inner["message"]
        return _short(f"{exc.status_code} {message}")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        return _short(f"connection error ({cause or exc})")
    return _short(f"{type(exc).__name__}: {exc}")


class LLMClient:
    """A JSON-schema-constrained chat client built from :class:`Settings` and a model card.

    ``timeout`` and ``max_retries`` default to the card's ``timeout_seconds`` and ``max_retries``
    (retries after the first attempt, so 4 means up to 5 requests per call). ``sleep`` is called with
    each backoff delay in seconds; tests pass a recorder. ``rng`` drives the jitter.
    """

    def __init__(
        self,
        settings: Settings,
        card: dict[str, Any] | str,
        *,
        sleep: Callable[[float], None] = time.sleep,
        timeout: float | None = None,
        max_retries: int | None = None,
        rng: random.Random | None = None,
    ):
        self.card = load_card(card) if isinstance(card, str) else card
        self.model = settings.llm_model
        self.temperature = float(self.card.get("temperature", 0))
        self.timeout = float(
            timeout if timeout is not None else self.card.get("timeout_seconds", DEFAULT_TIMEOUT_SECONDS)
        )
        self.max_retries = int(
            max_retries if max_retries is not None else self.card.get("max_retries", DEFAULT_MAX_RETRIES)
        )
        self.sleep = sleep
        self.rng = rng or random.Random()
        self._client = openai.OpenAI(
            base_url=settings.openai_base_url,
            api_key=settings.openai_api_key or "unused",
            max_retries=0,
            timeout=self.timeout,
        )

    def close(self) -> None:
        """Release the HTTP connection pool."""
        self._client.close()

    def backoff(self, retry: int) -> float:
        """Delay before retry number ``retry`` (0-based): equal jitter over ``min(cap, base·2^retry)``.

        The jitter keeps the half-open ranges of consecutive retries disjoint below the cap, so the
        delays always grow until they reach it.
        """
        ceiling = min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * (2**retry))
        return ceiling / 2 + self.rng.random() * ceiling / 2

    def complete_json(
        self, system: str, user: str, schema: dict[str, Any], schema_name: str, *, accept: dict[str, Any] | None = None
    ) -> tuple[dict, Usage]:
        """Ask for one JSON object valid for ``schema``; return it with the call's :class:`Usage`.

        ``accept`` (default ``schema``) is the schema the answer is checked against before it is
        returned: a caller that drops bad parts of an answer itself (the distiller keeps the good facts
        of a partial answer) passes a looser one, so one bad part does not cost a repair of the whole.

        Raises :class:`DistillError` when the endpoint keeps failing (after the retries), refuses a
        request outright (4xx other than 429), or answers with invalid JSON twice (answer + repair).
        """
        started = time.monotonic()
        tally = {"input": 0, "output": 0, "attempts": 0}
        messages: list[dict[str, str]] = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        validator = jsonschema.Draft202012Validator(schema if accept is None else accept)

        def usage() -> Usage:
            return Usage(tally["input"], tally["output"], (time.monotonic() - started) * 1000.0, tally["attempts"])

        content = self._request(messages, schema, schema_name, tally)
        try:
            return self._parse(content, validator), usage()
        except _Malformed as first:
            first_error = str(first)
        messages = [
            *messages,
            {"role": "assistant", "content": content or ""},
            {
                "role": "user",
                "content": f"Your previous answer was not valid JSON for the schema: {first_error}. "
                "Answer again with only valid JSON.",
            },
        ]
        content = self._request(messages, schema, schema_name, tally)
        try:
            return self._parse(content, validator), usage()
        except _Malformed as second:
            raise DistillError(
                f"the LLM returned malformed JSON twice: {_short(first_error)}; then {_short(str(second))}"
            ) from None

    def _request(
        self, messages: list[dict[str, str]], schema: dict[str, Any], schema_name: str, tally: dict[str, int]
    ) -> str | None:
        """One logical request with retries; returns the assistant's content (None for a refusal)."""
        attempts = self.max_retries + 1
        last: BaseException | None = None
        for attempt in range(attempts):
            if attempt:
                self.sleep(self._delay(attempt - 1, last))
            tally["attempts"] += 1
            try:
                response = self._client.chat.completions.create(
                    model=self.model,
                    temperature=self.temperature,
                    messages=messages,  # type: ignore[arg-type]
                    response_format={
                        "type": "json_schema",
                        "json_schema": {"name": schema_name, "schema": schema, "strict": True},
                    },
                    timeout=self.timeout,
                )
            except RETRYABLE as exc:
                last = exc
                continue
            except openai.APIStatusError as exc:
                raise DistillError(f"the LLM endpoint rejected the request: {describe_error(exc)}") from None
            except openai.OpenAIError as exc:
                raise DistillError(f"the LLM call failed: {describe_error(exc)}") from None
            if response.usage is not None:
                tally["input"] += response.usage.prompt_tokens or 0
                tally["output"] += response.usage.completion_tokens or 0
            if not response.choices:
                return None
            message = response.choices[0].message
            if message.content is None and getattr(message, "refusal", None):
                return None
            return message.content
        assert last is not None
        raise DistillError(f"the LLM endpoint kept failing after {attempts} attempts: {describe_error(last)}")

    def _delay(self, retry: int, exc: BaseException | None) -> float:
        delay = self.backoff(retry)
        if isinstance(exc, openai.RateLimitError):
            header = exc.response.headers.get("retry-after") if exc.response is not None else None
            try:
                asked = float(header) if header is not None else 0.0
            except ValueError:
                asked = 0.0
            if math.isfinite(asked):
                delay = max(delay, min(asked, BACKOFF_CAP_SECONDS))
        return delay

    @staticmethod
    def _parse(content: str | None, validator: jsonschema.protocols.Validator) -> dict:
        if content is None:
            raise _Malformed("the answer was empty (or a refusal)")
        try:
            value = json.loads(content, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            raise _Malformed(f"{_short(str(exc))} in {_short(content, 60)!r}") from None
        if not isinstance(value, dict):
            raise _Malformed(f"expected a JSON object, got {type(value).__name__}")
        error = jsonschema.exceptions.best_match(validator.iter_errors(value))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "(root)"
            note = error.schema.get(MALFORMED_NOTE) if isinstance(error.schema, dict) else None
            raise _Malformed(f"at {where}: {_short(note if isinstance(note, str) else error.message)}")
        return value
