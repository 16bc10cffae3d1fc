"""A small OpenAI-compatible HTTP server for tests (S1, S3, R4): no mocks of the ``openai`` client.

``FakeOpenAI(responder, fault_rate=0.3, seed=1)`` listens on 127.0.0.1 (a free port) and implements
``POST /v1/chat/completions``. Every request body is recorded (``.requests``) with the outcome served
(``.outcomes``). Answers come from ``responder(request_json) -> str | dict`` (the assistant content; a
dict is JSON-encoded). Faults are either scripted (``.script("429", "503")`` — served first, in order)
or drawn from a seeded ``random.Random`` at ``fault_rate``, split evenly among 429 (``Retry-After: 0``),
5xx (500 or 503), a timeout (the handler sleeps ``timeout_sleep`` seconds, longer than the client's
timeout) and malformed JSON content (``{not json``).

Servers differ in the structured output they take: ``refuse={"json_schema": LLAMA_CPP_REFUSAL}``
answers every request whose ``response_format`` is of that type with that (status, message), before
any scripted or random fault (``refuse={"json_schema": ..., "json_object": ...}`` leaves only
prompt-only requests), the way llama-cpp-python's server refuses ``json_schema``.

Use it as a context manager or call ``.close()``::

    with FakeOpenAI(heuristic_responder) as server:
        settings = Settings(openai_base_url=server.url, ...)
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], "str | dict[str, Any]"]

OK = "ok"
FAULTS = ("429", "500", "503", "timeout", "malformed")
MALFORMED_CONTENT = "{not json"
REFUSED = "refused"
# llama-cpp-python 0.3.36 validates response_format.type against a Literal and answers the validation
# error with a 500 (the message as its server sends it, traceback line included).
LLAMA_CPP_REFUSAL = (500, "1 validation error:\n  {'type': 'literal_error', "
                     "'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", "
                     "'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}\n\n  "
                     "File \"llama_cpp/server/app.py\", line 376, in create_chat_completion\n"
                     "    POST /v1/chat/completions")
# How a server that has no JSON mode at all might say so.
NO_JSON_MODE_REFUSAL = (400, "response_format is not supported by this model")


def response_mode(request: dict[str, Any]) -> str:
    """The structured-output mode of a request: json_schema, json_object, or prompt (no response_format)."""
    fmt = request.get("response_format")
    return str(fmt.get("type")) if isinstance(fmt, dict) and fmt.get("type") else "prompt"


def schema_name(request: dict[str, Any]) -> str | None:
    """Which request this is ("distill", "judge"), how a responder tells them apart: the ``json_schema``
    name, or (a request without one) the judge's user message, which starts with its Slot."""
    fmt = request.get("response_format") or {}
    name = (fmt.get("json_schema") or {}).get("name")
    if name:
        return name
    return "judge" if last_user_message(request).startswith("Slot:") else "distill"


def last_user_message(request: dict[str, Any]) -> str:
    """The request's own user message (a repair request's "Your previous answer ..." is skipped)."""
    for message in reversed(request.get("messages", [])):
        if message.get("role") == "user" and not str(message.get("content", "")).startswith("Your previous answer"):
            return str(message.get("content", ""))
    return ""


def parse_distill_message(text: str) -> dict[str, str]:
    """Speaker, event time, kind and content from the provider's distill user message."""
    out = {"speaker": "", "time": "", "kind": "", "content": ""}
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Speaker:"):
            out["speaker"] = line.removeprefix("Speaker:").split(" (actor id ")[0].strip()
        elif line.startswith("Event time:"):
            out["time"] = line.removeprefix("Event time:").strip()
        elif line.startswith("Kind:"):
            out["kind"] = line.removeprefix("Kind:").strip()
        elif line.startswith("Content:"):
            out["content"] = "\n".join(lines[i + 1 :])
            break
    return out


def distill_fact(subject: str, predicate: str, value: Any, statement: str, **fields: Any) -> dict[str, Any]:
    """One fact as the distill card's strict schema asks for it: every field present, the optional ones
    null (``relation``, ``cardinality``, ``unit``), ``value_type`` text, ``valid_from`` empty (so the
    event time), confidence 0.9; ``fields`` override any of them."""
    fact: dict[str, Any] = {
        "subject": subject, "predicate": predicate, "relation": None, "cardinality": None, "value_type": "text",
        "value": value, "unit": None, "statement": statement, "valid_from": "", "confidence": 0.9,
    }
    fact.update(fields)
    return fact


def distill_responder(request: dict[str, Any]) -> dict[str, Any]:
    """A plausible distill answer: one ``states`` fact by the speaker, valid from the event time."""
    parsed = parse_distill_message(last_user_message(request))
    content = " ".join(parsed["content"].split())
    if not content:
        return {"facts": []}
    speaker = parsed["speaker"] or "someone"
    statement = f"{speaker} said: {content}"
    return {"facts": [distill_fact(speaker, "states", content[:120], statement, valid_from=parsed["time"],
                                   confidence=0.6)]}


def judge_responder(request: dict[str, Any]) -> dict[str, Any]:
    """A judge answer that always keeps the candidate as new."""
    return {"decision": "add", "target_fact_id": None, "reason": "the fake judge keeps every candidate as new"}


def heuristic_responder(request: dict[str, Any]) -> dict[str, Any]:
    """Answer distill and judge requests plausibly (told apart by ``response_format.json_schema.name``)."""
    if schema_name(request) == "judge":
        return judge_responder(request)
    return distill_responder(request)


class FakeOpenAI:
    """The server; see the module docstring."""

    def __init__(
        self,
        responder: Responder | None = None,
        fault_rate: float = 0.0,
        seed: int = 1,
        timeout_sleep: float = 1.0,
        faults: tuple[str, ...] = FAULTS,
        refuse: dict[str, tuple[int, str]] | None = None,
    ):
        self.responder: Responder = responder or heuristic_responder
        self.refuse = dict(refuse or {})
        self.fault_rate = fault_rate
        self.rng = random.Random(seed)
        self.timeout_sleep = timeout_sleep
        self.faults = faults
        self.requests: list[dict[str, Any]] = []
        self.outcomes: list[str] = []
        self._lock = threading.Lock()
        self._script: deque[str] = deque()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-openai", daemon=True
        )
        self._thread.start()

    # -- control -----------------------------------------------------------------------------------

    def script(self, *outcomes: str) -> None:
        """Serve these outcomes ("ok", "429", "500", "503", "timeout", "malformed", or "refused": the
        refusal ``refuse`` names for the request's mode, else llama-cpp-python's) to the next requests."""
        for outcome in outcomes:
            if outcome not in (OK, REFUSED) and outcome not in FAULTS:
                raise ValueError(f"unknown outcome {outcome!r}")
        with self._lock:
            self._script.extend(outcomes)

    def close(self) -> None:
        """Stop serving; sleeping timeout handlers wake up and their threads end."""
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- serving -----------------------------------------------------------------------------------

    def modes(self) -> list[str]:
        """The structured-output mode of every request seen, in order."""
        with self._lock:
            return [response_mode(r) for r in self.requests]

    def _next_outcome(self, body: dict[str, Any]) -> str:
        with self._lock:
            self.requests.append(body)
            if response_mode(body) in self.refuse:
                outcome = REFUSED
            elif self._script:
                outcome = self._script.popleft()
            elif self.fault_rate > 0 and self.rng.random() < self.fault_rate:
                outcome = self.rng.choice(self._fault_menu())
            else:
                outcome = OK
            self.outcomes.append(outcome)
            return outcome

    def _fault_menu(self) -> list[str]:
        """429, 5xx, timeout and malformed with equal weight (500 and 503 share the 5xx share)."""
        menu: list[str] = []
        for fault in self.faults:
            menu += [fault] if fault in ("500", "503") and {"500", "503"} <= set(self.faults) else [fault, fault]
        return menu

    def _completion(self, body: dict[str, Any], content: str) -> dict[str, Any]:
        prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        prompt_tokens, completion_tokens = max(1, prompt_chars // 4), max(1, len(content) // 4)
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            server_version = "FakeOpenAI/1.0"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - BaseHTTPRequestHandler API
                pass

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout); nothing to answer

            def _error(self, status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> None:
                self._send(status, {"error": {"message": message, "type": kind, "code": None}}, headers)

            def do_POST(self) -> None:  # noqa: N802 - BaseHTTPRequestHandler API
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._error(404, f"no route {self.path}", "invalid_request_error")
                    return
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    self._error(400, "the request body is not JSON", "invalid_request_error")
                    return
                outcome = fake._next_outcome(body)
                if outcome == REFUSED:
                    status, message = fake.refuse.get(response_mode(body), LLAMA_CPP_REFUSAL)
                    self._error(status, message, "invalid_request_error" if status < 500 else "server_error")
                elif outcome == "429":
                    self._error(429, "Rate limit reached", "rate_limit_error", {"Retry-After": "0"})
                elif outcome == "500":
                    self._error(500, "The server had an error while processing your request", "server_error")
                elif outcome == "503":
                    self._error(503, "The engine is currently overloaded", "server_error")
                elif outcome == "timeout":
                    fake._stopping.wait(fake.timeout_sleep)
                    self._error(504, "too late", "server_error")
                elif outcome == "malformed":
                    self._send(200, fake._completion(body, MALFORMED_CONTENT))
                else:
                    try:
                        answer = fake.responder(body)
                    except Exception as exc:  # a broken responder is a test bug: make it loud
                        self._error(500, f"responder failed: {exc!r}", "server_error")
                        return
                    content = answer if isinstance(answer, str) else json.dumps(answer)
                    self._send(200, fake._completion(body, content))

        return Handler
