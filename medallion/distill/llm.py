"""The shared LLM layer of the ``openai`` providers (4.1, S1, S3, R4).

Model cards live in ``model_configs/<name>.yaml`` (provider, model, temperature, prompt file, timeout,
retries, output JSON schema) with their prompts in ``model_configs/prompts/``. :class:`LLMClient` wraps the
real ``openai`` client against any OpenAI-compatible endpoint and asks for structured output against
the card's schema. OpenAI-compatible servers differ in what structured output they take, so the mode is
negotiated per endpoint (base URL + model) and remembered for the life of the process (not persisted:
a new process pays at most two refused requests to find it again):

- ``json_schema``: ``response_format`` of type ``json_schema``, strict (OpenAI, vLLM, recent Ollama);
- ``json_object``: ``response_format`` of type ``json_object`` carrying the schema (llama-cpp-python
  turns it into a grammar; a server that ignores it still returns JSON), and the schema in the prompt;
- ``prompt``: no ``response_format``; the schema is in the prompt and the answer is validated like any.

A refusal of the structured-output parameter itself (a 4xx, 500 or 501 whose body names
``response_format``, ``json_schema`` or ``json_object``, or a 400 saying "unsupported") moves the
endpoint one mode down at once; a transient failure (timeout, 429, 502-504, a connection error, a 5xx
that names none of those) is retried in the same mode and never changes it. The mode is not part of
any fingerprint: an answer cached under one mode serves a rebuild under another. Each call's
:class:`Usage` says which mode answered it. The reliability policy:

- the ``openai`` client's own retries are off; 429, 5xx, timeouts and connection errors are retried
  here with exponential backoff and jitter (0.2 s base, 2 s cap; the sleep is injectable);
- an answer that is not JSON, or not valid for the schema, gets exactly one repair request (a caller
  that can use part of an answer passes a looser ``accept`` schema to validate against, while the
  model is still asked for the strict one);
- when neither works, :class:`~medallion.distill.providers.DistillError` carries a one-sentence
  reason, and the caller parks the event in ``silver.derivation_failures`` (retried next run).
"""

from __future__ import annotations

import json
import logging
import math
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import openai
import yaml

from medallion.distill.providers import DistillError
from medallion.settings import Settings

log = logging.getLogger(__name__)

MODELS = Path(__file__).resolve().parent / "model_configs"  # package data: the wheel ships it

BACKOFF_BASE_SECONDS = 0.2
BACKOFF_CAP_SECONDS = 2.0
DEFAULT_TIMEOUT_SECONDS = 30.0
DEFAULT_MAX_RETRIES = 4
_REASON_DETAIL_CHARS = 200

# A schema (an ``accept`` schema: it is never sent) may say in its own words what an answer failing it
# lacks; the repair request and the parked event's reason then read that, not a dump of the answer.
MALFORMED_NOTE = "x-malformed"

RETRYABLE = (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError, openai.InternalServerError)

# Structured-output modes, strongest first; an endpoint only ever moves down this list.
RESPONSE_MODES = ("json_schema", "json_object", "prompt")
_FORMAT_WORDS = ("response_format", "response format", "json_schema", "json_object")
_UNSUPPORTED_WORDS = ("unsupported", "not supported")
# Gateway and overload statuses say nothing about the request's parameters, whatever their body says.
_TRANSIENT_STATUSES = (408, 429, 502, 503, 504)

_negotiated: dict[tuple[str, str], str] = {}
_negotiation_lock = threading.Lock()


def endpoint_key(base_url: str, model: str) -> tuple[str, str]:
    """What a negotiated mode is remembered under: the base URL (without a trailing slash) and the model."""
    return str(base_url).rstrip("/"), model


def negotiated_mode(base_url: str, model: str) -> str:
    """The structured-output mode this process uses for an endpoint (``json_schema`` until refused)."""
    with _negotiation_lock:
        return _negotiated.get(endpoint_key(base_url, model), RESPONSE_MODES[0])


def forget_negotiations() -> None:
    """Forget every negotiated mode, so the next call to each endpoint starts again at ``json_schema``
    (for a process that knows its servers changed)."""
    with _negotiation_lock:
        _negotiated.clear()


def _step_down(key: tuple[str, str], refused: str) -> str | None:
    """Record that ``refused`` is refused by the endpoint; the mode to use now (None: none is left).

    A concurrent call may have stepped down already: the endpoint never moves back up.
    """
    with _negotiation_lock:
        current = RESPONSE_MODES.index(_negotiated.get(key, RESPONSE_MODES[0]))
        position = max(current, RESPONSE_MODES.index(refused) + 1)
        if position >= len(RESPONSE_MODES):
            return None
        _negotiated[key] = RESPONSE_MODES[position]
        return RESPONSE_MODES[position]


def is_format_refusal(exc: BaseException) -> bool:
    """True when an HTTP error refuses the structured-output parameter rather than failing the request.

    llama-cpp-python answers an unknown ``response_format`` type with a 500 whose body names it; other
    servers use 400 or 422. A timeout, a 429, a gateway or overload status and a connection error are
    never a refusal, whatever their text.
    """
    if not isinstance(exc, openai.APIStatusError):
        return False
    status = exc.status_code
    if status in _TRANSIENT_STATUSES or not (400 <= status <= 501):
        return False
    text = f"{exc.message} {json.dumps(exc.body, default=str)}".casefold()
    if any(word in text for word in _FORMAT_WORDS):
        return True
    return status == 400 and any(word in text for word in _UNSUPPORTED_WORDS)


def schema_instruction(schema: dict[str, Any]) -> str:
    """What the system prompt gains when the endpoint does not enforce the schema itself."""
    return ("\n\nAnswer with one JSON object and nothing else (no prose, no code fence). It must be valid for "
            "this JSON Schema:\n" + json.dumps(schema, ensure_ascii=False, separators=(",", ":")))


def response_format(mode: str, schema: dict[str, Any], schema_name: str) -> dict[str, Any] | None:
    """The ``response_format`` of a request in ``mode`` (None: the parameter is left out)."""
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": schema_name, "schema": schema, "strict": True}}
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


def unwrap_json(content: str) -> str:
    """The JSON object inside an answer that was only asked for JSON in the prompt: a Markdown code fence
    or words around the object are dropped (an answer without braces is returned as it is)."""
    text = content.strip()
    fence = re.fullmatch(r"```[A-Za-z0-9_-]*\s*(.*?)\s*```", text, flags=re.DOTALL)
    if fence:
        text = fence[1].strip()
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text


def load_card(name: str) -> dict[str, Any]:
    """The model card ``model_configs/<name>.yaml`` as a dict (read afresh each call)."""
    path = MODELS / f"{name}.yaml"
    card = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(card, dict):
        raise ValueError(f"model card {path} is not a mapping")
    return card


def load_prompt(card: dict[str, Any]) -> str:
    """The prompt file a card names (relative to ``model_configs/``), as text."""
    return (MODELS / card["prompt"]).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Usage:
    """Telemetry of one :meth:`LLMClient.complete_json` call (summed over its HTTP attempts)."""

    input_tokens: int
    output_tokens: int
    latency_ms: float
    attempts: int
    mode: str = RESPONSE_MODES[0]  # the structured-output mode of the request that answered


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
    each backoff delay in seconds; tests pass a recorder. ``rng`` drives the jitter. ``max_tokens``
    (default: the card's ``max_tokens``, else unset) bounds each answer, for a local model that would
    otherwise write until its context is full.
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
        max_tokens: int | None = None,
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
        limit = max_tokens if max_tokens is not None else self.card.get("max_tokens")
        self.max_tokens = int(limit) if limit is not None else None
        self.sleep = sleep
        self.rng = rng or random.Random()
        self._client = openai.OpenAI(
            base_url=settings.openai_base_url,
            api_key=settings.openai_api_key or "unused",
            max_retries=0,
            timeout=self.timeout,
        )
        self.endpoint = endpoint_key(str(self._client.base_url), self.model)

    @property
    def mode(self) -> str:
        """The structured-output mode the next request to this client's endpoint uses."""
        return negotiated_mode(*self.endpoint)

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
        request outright (4xx other than 429, or every structured-output mode), or answers with invalid
        JSON twice (answer + repair). The error's ``usage`` holds what the call cost until then.
        """
        started = time.monotonic()
        tally: dict[str, Any] = {"input": 0, "output": 0, "attempts": 0, "mode": self.mode}
        messages: list[dict[str, str]] = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        validator = jsonschema.Draft202012Validator(schema if accept is None else accept)

        def usage() -> Usage:
            return Usage(tally["input"], tally["output"], (time.monotonic() - started) * 1000.0, tally["attempts"],
                         tally["mode"])

        try:
            content = self._request(messages, schema, schema_name, tally)
            try:
                return self._parse(content, validator, tally["mode"]), usage()
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
                return self._parse(content, validator, tally["mode"]), usage()
            except _Malformed as second:
                raise DistillError(
                    f"the LLM returned malformed JSON twice: {_short(first_error)}; then {_short(str(second))}"
                ) from None
        except DistillError as exc:
            exc.usage = usage()
            raise

    def _request(
        self, messages: list[dict[str, str]], schema: dict[str, Any], schema_name: str, tally: dict[str, Any]
    ) -> str | None:
        """One logical request with retries; returns the assistant's content (None for a refusal).

        A refusal of the structured-output mode is not a failed attempt: the same request is sent at
        once in the next mode down, which the endpoint keeps from then on (``tally["mode"]`` says which
        answered).
        """
        attempts = self.max_retries + 1
        last: BaseException | None = None
        attempt = 0
        mode = self.mode
        while attempt < attempts:
            if attempt and last is not None:
                self.sleep(self._delay(attempt - 1, last))
            tally["attempts"] += 1
            tally["mode"] = mode
            try:
                response = self._client.chat.completions.create(**self._arguments(mode, messages, schema, schema_name))
            except openai.APIStatusError as exc:
                if is_format_refusal(exc):
                    lower = _step_down(self.endpoint, mode)
                    if lower is not None:
                        log.warning("the LLM endpoint %s (model %s) refused %s structured output (%s); using %s "
                                    "from now on", self.endpoint[0], self.model, mode, describe_error(exc), lower)
                        mode, last = lower, None
                        continue
                if isinstance(exc, RETRYABLE):
                    last, attempt = exc, attempt + 1
                    continue
                raise DistillError(f"the LLM endpoint rejected the request: {describe_error(exc)}") from None
            except RETRYABLE as exc:
                last, attempt = exc, attempt + 1
                continue
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

    def _arguments(
        self, mode: str, messages: list[dict[str, str]], schema: dict[str, Any], schema_name: str
    ) -> dict[str, Any]:
        """The keyword arguments of one chat completion in ``mode``: the schema goes into the system
        prompt when the endpoint does not take it as ``json_schema``."""
        if mode != "json_schema":
            system, *rest = messages
            messages = [{**system, "content": system["content"] + schema_instruction(schema)}, *rest]
        arguments: dict[str, Any] = {"model": self.model, "temperature": self.temperature, "messages": messages,
                                     "timeout": self.timeout}
        fmt = response_format(mode, schema, schema_name)
        if fmt is not None:
            arguments["response_format"] = fmt
        if self.max_tokens is not None:
            arguments["max_tokens"] = self.max_tokens
        return arguments

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
    def _parse(content: str | None, validator: jsonschema.protocols.Validator, mode: str = RESPONSE_MODES[0]) -> dict:
        if content is None:
            raise _Malformed("the answer was empty (or a refusal)")
        if mode != "json_schema":
            content = unwrap_json(content)
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

