"""Structured-output negotiation of the ``openai`` providers against a real loopback server.

OpenAI-compatible servers differ in the ``response_format`` they take: llama-cpp-python refuses
``json_schema`` with a 500, some servers have no JSON mode at all. The REAL ``openai`` client talks to
``tests/support/fake_openai.py`` on 127.0.0.1, which refuses the modes a test names the way such a
server does and records every request, so each test counts what was sent in which mode.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from medallion.distill.llm import (
    LLMClient,
    forget_negotiations,
    load_card,
    negotiated_mode,
    schema_instruction,
)
from medallion.distill.providers import DistillError
from medallion.distill.providers.openai_provider import OpenAIDistiller, OpenAIJudge
from medallion.distill.types import EventInput, FactCandidate, Neighbour
from medallion.settings import Settings
from tests.support.fake_openai import (
    LLAMA_CPP_REFUSAL,
    NO_JSON_MODE_REFUSAL,
    FakeOpenAI,
    distill_fact,
    heuristic_responder,
)

MODEL = "local-model"
T0 = datetime(2026, 5, 4, 8, 30, tzinfo=UTC)
GOOD = {"facts": [distill_fact("Priya", "works_at", "Quarry Labs", "Priya works at Quarry Labs.",
                               value_type="entity")]}


def event(n: int = 1, content: str = "I work at Quarry Labs.") -> EventInput:
    return EventInput(n, "team-q", "chat", f"m{n}", "transcript", "user:priya", content, T0,
                      T0 + timedelta(seconds=1), 1, f"chat://m{n}")


class Harness:
    """Providers whose clients never sleep (the delays are recorded) and time out quickly."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.sleeps: list[float] = []
        self.clients: list[LLMClient] = []

    def settings(self, url: str, model: str = MODEL) -> Settings:
        return Settings(home=self.tmp_path / "home", inbox=self.tmp_path / "inbox", llm_provider="openai",
                        llm_model=model, openai_base_url=url, openai_api_key=None)

    def client(self, url: str, card: str, model: str = MODEL, **kw: Any) -> LLMClient:
        kw.setdefault("timeout", 0.5)
        client = LLMClient(self.settings(url, model), load_card(card), sleep=self.sleeps.append, **kw)
        self.clients.append(client)
        return client

    def distiller(self, url: str, model: str = MODEL, **kw: Any) -> OpenAIDistiller:
        return OpenAIDistiller(self.settings(url, model), client=self.client(url, "distill", model, **kw))

    def judge(self, url: str, **kw: Any) -> OpenAIJudge:
        return OpenAIJudge(self.settings(url), client=self.client(url, "judge", **kw))


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    forget_negotiations()
    h = Harness(tmp_path)
    yield h
    for client in h.clients:
        client.close()
    forget_negotiations()


def answers(*contents: Any) -> Any:
    """A responder that returns ``contents`` in order (the last one repeats)."""
    queue = list(contents)

    def respond(request: dict[str, Any]) -> Any:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return respond


def test_llama_cpp_refusal_falls_back_to_json_object(harness: Harness) -> None:
    """A server that refuses json_schema the way llama-cpp-python does (500 naming response_format) gets
    the same request again at once as json_object, carrying the schema (in response_format and in the
    prompt); the event derives, the refusal costs no retry and no backoff."""
    card = load_card("distill")
    with FakeOpenAI(answers(GOOD), refuse={"json_schema": LLAMA_CPP_REFUSAL}) as fake:
        distiller = harness.distiller(fake.url)
        out = distiller.distill(event())
        assert fake.modes() == ["json_schema", "json_object"]
        assert fake.outcomes == ["refused", "ok"]
        second = fake.requests[1]
    assert [(c.subject, c.predicate, c.value) for c in out] == [("Priya", "works_at", "Quarry Labs")]
    assert second["response_format"] == {"type": "json_object", "schema": card["output_schema"]}
    assert second["messages"][0]["content"].endswith(schema_instruction(card["output_schema"]))
    assert harness.sleeps == []
    usage = distiller.last_usage
    assert usage is not None and usage.mode == "json_object" and usage.attempts == 2
    assert negotiated_mode(fake.url, MODEL) == "json_object"


def test_refusing_both_goes_prompt_only_and_repairs(harness: Harness) -> None:
    """A server with no JSON mode (json_schema refused like llama-cpp-python, json_object with a 400)
    gets a prompt-only request: no response_format, the schema in the prompt. Its first answer is prose
    around a broken object, so it is validated, repaired once, and the repaired answer (in a code
    fence, as chat models write it) is used."""
    fenced = "```json\n" + json.dumps(GOOD) + "\n```"
    refuse = {"json_schema": LLAMA_CPP_REFUSAL, "json_object": NO_JSON_MODE_REFUSAL}
    with FakeOpenAI(answers('Here are the facts: {"facts": [{"subject": "Priya"}]} Hope this helps.', fenced),
                    refuse=refuse) as fake:
        distiller = harness.distiller(fake.url)
        out = distiller.distill(event())
        assert fake.modes() == ["json_schema", "json_object", "prompt", "prompt"]
        repair = fake.requests[3]
    assert "response_format" not in repair
    assert [m["role"] for m in repair["messages"]] == ["system", "user", "assistant", "user"]
    assert repair["messages"][3]["content"].startswith("Your previous answer was not valid JSON for the schema")
    assert "no fact has a non-empty subject, value and statement" in repair["messages"][3]["content"]
    assert "JSON Schema" in repair["messages"][0]["content"]
    assert [(c.subject, c.value) for c in out] == [("Priya", "Quarry Labs")]
    assert distiller.last_usage is not None and distiller.last_usage.mode == "prompt"
    assert negotiated_mode(fake.url, MODEL) == "prompt"


def test_prompt_only_malformed_twice_parks_with_one_sentence(harness: Harness) -> None:
    """Prompt-only answers that stay unreadable after the one repair → DistillError with one line."""
    refuse = {"json_schema": LLAMA_CPP_REFUSAL, "json_object": NO_JSON_MODE_REFUSAL}
    with FakeOpenAI(answers("I cannot answer in JSON."), refuse=refuse) as fake:
        with pytest.raises(DistillError) as info:
            harness.distiller(fake.url).distill(event())
        assert fake.modes() == ["json_schema", "json_object", "prompt", "prompt"]
    assert info.value.reason.startswith("the LLM returned malformed JSON twice") and "\n" not in info.value.reason
    assert info.value.usage is not None and info.value.usage.mode == "prompt"


def test_malformed_json_object_answer_is_repaired_in_the_same_mode(harness: Harness) -> None:
    """After the fallback, a malformed answer gets its one repair request in the negotiated mode."""
    with FakeOpenAI(answers(GOOD), refuse={"json_schema": LLAMA_CPP_REFUSAL}) as fake:
        fake.script("malformed")
        out = harness.distiller(fake.url).distill(event())
        assert fake.modes() == ["json_schema", "json_object", "json_object"]
        assert fake.outcomes == ["refused", "malformed", "ok"]
        assert fake.requests[2]["messages"][2]["content"] == "{not json"
    assert len(out) == 1


def test_negotiated_mode_is_remembered_per_endpoint(harness: Harness) -> None:
    """The second call, a new client (the judge) and a new distiller on the same endpoint go straight to
    the mode that works; the same server under another model name negotiates on its own."""
    with FakeOpenAI(heuristic_responder, refuse={"json_schema": LLAMA_CPP_REFUSAL}) as fake:
        distiller = harness.distiller(fake.url)
        distiller.distill(event(1))
        distiller.distill(event(2, "I moved to Oslo."))
        assert fake.modes() == ["json_schema", "json_object", "json_object"]
        candidate = FactCandidate("Priya", "lives_in", "Oslo", "Priya lives in Oslo.", T0, 0.9,
                                  object_entity="Oslo", value_type="entity")
        neighbour = Neighbour("f-bergen", "Priya", "lives_in", "Bergen", "Priya lives in Bergen.",
                              T0 - timedelta(days=3), 1, 0.9, True, True)
        harness.judge(fake.url).judge(candidate, [neighbour])
        harness.distiller(fake.url + "/").distill(event(3))  # the same endpoint, spelled with a slash
        assert fake.modes() == ["json_schema", "json_object", "json_object", "json_object", "json_object"]
        harness.distiller(fake.url, model="another-model").distill(event(4))
        assert fake.modes()[5:] == ["json_schema", "json_object"]


@pytest.mark.parametrize("faults", [("503",), ("500", "500"), ("429",), ("timeout",), ("500", "429", "503")])
def test_transient_errors_do_not_downgrade(harness: Harness, faults: tuple[str, ...]) -> None:
    """A 5xx that does not name response_format, a 429 and a timeout are retried in json_schema with
    backoff, and the call that follows them is still in json_schema; only the refusal that comes after
    moves the endpoint down (then at once, without a backoff)."""
    with FakeOpenAI(heuristic_responder, timeout_sleep=1.0) as fake:
        fake.script(*faults)
        distiller = harness.distiller(fake.url)
        distiller.distill(event())
        assert distiller.last_usage is not None and distiller.last_usage.mode == "json_schema"
        assert negotiated_mode(fake.url, MODEL) == "json_schema"
        fake.script(*faults, "refused")
        distiller.distill(event(2))
        assert fake.modes() == ["json_schema"] * (2 * len(faults) + 2) + ["json_object"]
        assert fake.outcomes == [*faults, "ok", *faults, "refused", "ok"]
    assert len(harness.sleeps) == 2 * len(faults)
    assert distiller.last_usage.mode == "json_object"


def test_unreachable_endpoint_does_not_downgrade(harness: Harness) -> None:
    """Connection refused is retried, then parks the event; it says nothing about structured output."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    with pytest.raises(DistillError) as info:
        harness.distiller(url, max_retries=1).distill(event())
    assert "connection error" in info.value.reason
    assert info.value.usage is not None and info.value.usage.attempts == 2
    assert negotiated_mode(url, MODEL) == "json_schema"


def test_other_client_errors_do_not_downgrade(harness: Harness) -> None:
    """A 4xx that is not about response_format (a wrong path) fails at once and changes no mode."""
    with FakeOpenAI(heuristic_responder) as fake:
        url = fake.url + "/wrong"
        with pytest.raises(DistillError) as info:
            harness.distiller(url).distill(event())
        assert len(fake.requests) == 0  # the fake answers 404 before recording anything
    assert "404" in info.value.reason
    assert info.value.usage is not None and info.value.usage.attempts == 1 and info.value.usage.mode == "json_schema"
    assert negotiated_mode(url, MODEL) == "json_schema"


def test_refused_after_a_transient_error(harness: Harness) -> None:
    """A 503 first (retried in json_schema after a backoff), then the refusal: one step down at once,
    without a backoff and without spending one of the retries the 503 left."""
    with FakeOpenAI(answers(GOOD)) as fake:
        fake.script("503", "refused")
        out = harness.distiller(fake.url, max_retries=1).distill(event())
        assert fake.modes() == ["json_schema", "json_schema", "json_object"]
        assert fake.outcomes == ["503", "refused", "ok"]
    assert len(out) == 1 and len(harness.sleeps) == 1
    assert negotiated_mode(fake.url, MODEL) == "json_object"


def test_judge_keeps_every_request_usage_for_telemetry(harness: Harness) -> None:
    """Each judge request's usage (tokens, latency, mode), a failed one's too, waits for the caller to
    record it; a judgement without neighbours asked nothing and adds none."""
    candidate = FactCandidate("Priya", "lives_in", "Oslo", "Priya lives in Oslo.", T0, 0.9, object_entity="Oslo",
                              value_type="entity")
    neighbour = Neighbour("f-bergen", "Priya", "lives_in", "Bergen", "Priya lives in Bergen.",
                          T0 - timedelta(days=3), 1, 0.9, True, True)
    with FakeOpenAI(heuristic_responder, refuse={"json_schema": LLAMA_CPP_REFUSAL}) as fake:
        judge = harness.judge(fake.url)
        judge.judge(candidate, [neighbour])
        judge.judge(candidate, [])
        fake.script("malformed", "malformed")
        with pytest.raises(DistillError):
            judge.judge(candidate, [neighbour])
        taken = judge.take_usages()
    assert [(u.mode, u.attempts, error is None) for u, error in taken] == [("json_object", 2, True),
                                                                           ("json_object", 2, False)]
    assert taken[1][1] is not None and taken[1][1].startswith("the LLM returned malformed JSON twice")
    assert all(u.input_tokens > 0 and u.output_tokens > 0 and u.latency_ms > 0 for u, _ in taken)
    assert judge.take_usages() == []
