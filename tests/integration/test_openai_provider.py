"""The ``openai`` providers against a real loopback server (SPEC S1, S3, R4; 4.1 model cards).

The REAL ``openai`` client talks to ``tests/support/fake_openai.py`` on 127.0.0.1; the server records
every request, so the tests assert what was sent (model, temperature, schema, messages) as well as what
came back. No database is needed here: the pipeline half of R4 (parking in
``silver.derivation_failures``) is tested with the pipeline.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from dagster_project.settings import Settings
from dagster_project.silver.distill import DistillError
from dagster_project.silver.distill.openai_provider import OpenAIDistiller, OpenAIJudge
from dagster_project.silver.llm import BACKOFF_CAP_SECONDS, LLMClient, load_card, load_prompt
from dagster_project.silver.types import EventInput, FactCandidate, Neighbour
from dagster_project.silver.vocabulary import predicates
from tests.support.fake_openai import FakeOpenAI, heuristic_responder

MODEL = "test-model-7b"
CLIENT_TIMEOUT = 0.5  # seconds; the fake server's "timeout" fault sleeps 1.0 s
T0 = datetime(2026, 11, 2, 9, 7, tzinfo=UTC)


def event(content: str = "I'm Alice and I work at Atlas.", n: int = 1, actor: str | None = "user:alice") -> EventInput:
    return EventInput(
        event_id=n,
        namespace="team-atlas",
        source="slack",
        source_event_id=f"C03GEN/{n}",
        kind="transcript",
        actor=actor,
        content=content,
        occurred_at=T0,
        received_at=T0 + timedelta(seconds=1),
        authority=1,
        provenance_root=f"slack://C03GEN/{n}",
    )


def scripted(*answers: Any) -> Callable[[dict[str, Any]], Any]:
    """A responder that returns ``answers`` in order (the last one repeats)."""
    queue = list(answers)

    def respond(request: dict[str, Any]) -> Any:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return respond


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(heuristic_responder) as fake:
        yield fake


def make_settings(url: str, tmp_path: Path) -> Settings:
    return Settings(
        home=tmp_path / "home",
        inbox=tmp_path / "inbox",
        llm_provider="openai",
        llm_model=MODEL,
        openai_base_url=url,
        openai_api_key=None,
    )


class Harness:
    """Builds providers whose clients use a short timeout and a recording, non-sleeping sleep."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.sleeps: list[float] = []
        self.clients: list[LLMClient] = []

    def client(self, url: str, card: str, **kw: Any) -> LLMClient:
        kw.setdefault("timeout", CLIENT_TIMEOUT)
        client = LLMClient(make_settings(url, self.tmp_path), load_card(card), sleep=self.sleeps.append, **kw)
        self.clients.append(client)
        return client

    def distiller(self, url: str, **kw: Any) -> OpenAIDistiller:
        return OpenAIDistiller(make_settings(url, self.tmp_path), client=self.client(url, "distill", **kw))

    def judge(self, url: str, **kw: Any) -> OpenAIJudge:
        return OpenAIJudge(make_settings(url, self.tmp_path), client=self.client(url, "judge", **kw))


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    h = Harness(tmp_path)
    yield h
    for client in h.clients:
        client.close()


# -- (a) what is sent -------------------------------------------------------------------------------


def test_distill_request_carries_model_schema_prompt_and_event(server: FakeOpenAI, harness: Harness) -> None:
    """S1 / 4.1: model from settings, card temperature, strict json_schema = the card's schema, the prompt
    with the vocabulary, and a user message with speaker, event time and content."""
    distiller = harness.distiller(server.url)
    ev = event("I moved to Lisbon last month.")
    distiller.distill(ev)

    assert len(server.requests) == 1
    req = server.requests[0]
    card = load_card("distill")
    assert req["model"] == MODEL
    assert req["temperature"] == 0 == card["temperature"]
    assert req["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "distill", "schema": card["output_schema"], "strict": True},
    }
    system, user = req["messages"]
    assert system["role"] == "system" and user["role"] == "user"
    prompt_head = load_prompt(card).split("{predicates}")[0]
    assert system["content"].startswith(prompt_head)
    assert "{predicates}" not in system["content"]
    for name in predicates():
        assert name in system["content"]
    assert "Speaker: Alice" in user["content"] and "user:alice" in user["content"]
    assert ev.occurred_at.isoformat() in user["content"]
    assert "Kind: transcript" in user["content"]
    assert user["content"].endswith("I moved to Lisbon last month.")


# -- (b) what comes back ----------------------------------------------------------------------------


def test_valid_answer_becomes_fact_candidates(tmp_path: Path, harness: Harness) -> None:
    """S1: the answer's facts become FactCandidates: valid_from parsed (date, naive → UTC, offset kept,
    unparseable → occurred_at), unknown predicate → states, confidence clamped, entity-valued objects."""
    answer = {
        "facts": [
            {"subject": "Alice", "predicate": "lives_in", "value": "Lisbon", "statement": "Alice lives in Lisbon.",
             "valid_from": "2026-10-01", "confidence": 0.9},
            {"subject": "Alice", "predicate": "works_at", "value": "Atlas", "statement": "Alice works at Atlas.",
             "valid_from": "2026-10-05T12:00:00", "confidence": 1.7},
            {"subject": "Alice", "predicate": "favourite_colour", "value": "teal",
             "statement": "Alice's favourite colour is teal.", "valid_from": "2026-10-06T12:00:00+02:00",
             "confidence": -0.2},
            {"subject": "Alice", "predicate": "plans", "value": "a trip", "statement": "Alice plans a trip.",
             "valid_from": "sometime soon", "confidence": 0.3},
        ]
    }
    with FakeOpenAI(scripted(answer)) as fake:
        distiller = harness.distiller(fake.url)
        out = distiller.distill(event())

    assert [c.predicate for c in out] == ["lives_in", "works_at", "states", "plans"]
    assert all(isinstance(c, FactCandidate) and c.span is None for c in out)
    assert out[0].valid_from == datetime(2026, 10, 1, tzinfo=UTC)
    assert out[1].valid_from == datetime(2026, 10, 5, 12, tzinfo=UTC)
    assert out[2].valid_from == datetime(2026, 10, 6, 12, tzinfo=timezone(timedelta(hours=2)))
    assert out[3].valid_from == T0
    assert [c.confidence for c in out] == [0.9, 1.0, 0.0, 0.3]
    assert out[0].object_entity == "Lisbon" and out[1].object_entity == "Atlas" and out[2].object_entity is None
    assert out[0].statement == "Alice lives in Lisbon." and out[0].value == "Lisbon" and out[0].subject == "Alice"
    usage = distiller.last_usage
    assert usage is not None and usage.attempts == 1 and usage.input_tokens > 0 and usage.output_tokens > 0
    assert usage.latency_ms >= 0


def test_empty_fact_list(harness: Harness) -> None:
    """S1: noise yields no facts — an empty list is a valid answer, not a failure."""
    with FakeOpenAI(scripted({"facts": []})) as fake:
        assert harness.distiller(fake.url).distill(event("hi all")) == []


# -- (c) repair -------------------------------------------------------------------------------------


def test_malformed_once_is_repaired(server: FakeOpenAI, harness: Harness) -> None:
    """S1 / R4: one malformed answer → exactly one repair request carrying the bad answer, then success."""
    server.script("malformed")
    out = harness.distiller(server.url).distill(event())
    assert len(out) == 1 and out[0].subject == "Alice"
    assert len(server.requests) == 2
    repair = server.requests[1]["messages"]
    assert [m["role"] for m in repair] == ["system", "user", "assistant", "user"]
    assert repair[2]["content"] == "{not json"
    assert repair[3]["content"].startswith("Your previous answer was not valid JSON for the schema:")
    assert repair[3]["content"].endswith("Answer again with only valid JSON.")
    assert server.requests[1]["response_format"] == server.requests[0]["response_format"]


def test_schema_invalid_answer_is_repaired(harness: Harness) -> None:
    """S1: JSON that breaks the card's schema (a missing field) counts as malformed and is repaired."""
    bad = {"facts": [{"subject": "Alice", "predicate": "states", "value": "x", "statement": "Alice said x."}]}
    good = {"facts": []}
    with FakeOpenAI(scripted(bad, good)) as fake:
        assert harness.distiller(fake.url).distill(event()) == []
        assert len(fake.requests) == 2
        assert "valid_from" in fake.requests[1]["messages"][3]["content"]


def test_malformed_twice_raises(server: FakeOpenAI, harness: Harness) -> None:
    """R4: malformed twice → DistillError whose reason says so (the caller parks the event)."""
    server.script("malformed", "malformed")
    with pytest.raises(DistillError) as info:
        harness.distiller(server.url).distill(event())
    assert "malformed JSON" in info.value.reason
    assert len(server.requests) == 2


# -- (d) backoff ------------------------------------------------------------------------------------


def test_429_then_503_then_success_backs_off(server: FakeOpenAI, harness: Harness) -> None:
    """S1 / R4: 429 and 5xx are retried with growing, capped backoff delays."""
    server.script("429", "503")
    distiller = harness.distiller(server.url)
    out = distiller.distill(event())
    assert len(out) == 1
    assert len(server.requests) == 3
    assert server.outcomes == ["429", "503", "ok"]
    assert len(harness.sleeps) == 2
    assert 0 < harness.sleeps[0] < harness.sleeps[1] <= BACKOFF_CAP_SECONDS
    assert distiller.last_usage is not None and distiller.last_usage.attempts == 3


def test_backoff_grows_and_caps(tmp_path: Path) -> None:
    """S1: backoff delays grow from 0.2 s-ish and never exceed the 2 s cap."""
    client = LLMClient(make_settings("http://127.0.0.1:9/v1", tmp_path), load_card("distill"))
    try:
        for _ in range(50):
            delays = [client.backoff(i) for i in range(8)]
            assert delays[:4] == sorted(delays[:4]) and len(set(delays[:4])) == 4
            assert all(0 < d <= BACKOFF_CAP_SECONDS for d in delays)
    finally:
        client.close()


def test_5xx_exhausted_raises_with_reason(server: FakeOpenAI, harness: Harness) -> None:
    """R4: an endpoint that keeps failing → DistillError naming the attempts and the last failure."""
    server.script(*["503"] * 5)
    with pytest.raises(DistillError) as info:
        harness.distiller(server.url).distill(event())
    assert len(server.requests) == 5  # the card's max_retries = 4
    assert "kept failing after 5 attempts" in info.value.reason
    assert "503" in info.value.reason
    assert len(harness.sleeps) == 4


# -- (e) timeouts and transport failures ------------------------------------------------------------


def test_timeout_is_retried(server: FakeOpenAI, harness: Harness) -> None:
    """S1 / R4: a request that outlives the client's timeout is retried."""
    server.script("timeout")
    out = harness.distiller(server.url).distill(event())
    assert len(out) == 1
    assert server.outcomes == ["timeout", "ok"]
    assert len(harness.sleeps) == 1


def test_timeouts_exhausted_raise_with_reason(server: FakeOpenAI, harness: Harness) -> None:
    """R4: every attempt timing out → DistillError whose reason names the timeout."""
    server.script("timeout", "timeout")
    with pytest.raises(DistillError) as info:
        harness.distiller(server.url, max_retries=1).distill(event())
    assert "kept failing after 2 attempts" in info.value.reason
    assert "timed out" in info.value.reason
    assert len(server.requests) == 2


def test_connection_refused_raises_with_reason(harness: Harness) -> None:
    """R4: no server at all → retried, then DistillError naming the connection error."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(DistillError) as info:
        harness.distiller(f"http://127.0.0.1:{port}/v1", max_retries=2).distill(event())
    assert "kept failing after 3 attempts" in info.value.reason
    assert "connection error" in info.value.reason
    assert len(harness.sleeps) == 2


def test_client_error_is_not_retried(server: FakeOpenAI, harness: Harness) -> None:
    """R4: a 4xx other than 429 (here 404, a wrong base URL) fails at once with the status in the reason."""
    with pytest.raises(DistillError) as info:
        harness.distiller(server.url + "/wrong").distill(event())
    assert "404" in info.value.reason
    assert harness.sleeps == []


# -- (f) R4 at the provider level -------------------------------------------------------------------


def test_r4_thirty_percent_faults_every_event_derived_or_failed_with_reason(harness: Harness) -> None:
    """R4 (provider part): at 30 % injected faults (429, 5xx, timeouts, malformed JSON) over 60 events,
    every event either yields candidates or raises DistillError with a non-empty reason; nothing hangs
    and nothing else escapes."""
    with FakeOpenAI(heuristic_responder, fault_rate=0.3, seed=4, timeout_sleep=0.6) as fake:
        distiller = harness.distiller(fake.url, timeout=0.3, max_retries=2)
        results: dict[int, list[FactCandidate] | str] = {}
        unexpected: list[BaseException] = []

        def run() -> None:
            for n in range(1, 61):
                try:
                    results[n] = distiller.distill(event(f"Event number {n}: the build is green.", n=n))
                except DistillError as exc:
                    results[n] = exc.reason
                except BaseException as exc:  # noqa: BLE001 - the point is that nothing else escapes
                    unexpected.append(exc)
                    return

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(timeout=50)
        assert not worker.is_alive(), "the provider hung"
        assert unexpected == []
        assert sorted(results) == list(range(1, 61))
        derived = {n: r for n, r in results.items() if isinstance(r, list)}
        parked = {n: r for n, r in results.items() if isinstance(r, str)}
        assert len(derived) + len(parked) == 60
        for n, cands in derived.items():
            assert len(cands) == 1 and f"Event number {n}:" in cands[0].statement
        for reason in parked.values():
            assert reason.strip()
            assert "malformed JSON" in reason or "kept failing" in reason
        served = set(fake.outcomes)
        assert {"429", "timeout", "malformed"} <= served and served & {"500", "503"}, fake.outcomes
        assert len(derived) >= 45, parked
        assert parked, "seed 4 parks a few events (retries exhausted), so both outcomes are exercised"


# -- (g) the judge ----------------------------------------------------------------------------------


def candidate() -> FactCandidate:
    return FactCandidate("Alice", "lives_in", "Porto", "Alice lives in Porto.", T0, 0.9, object_entity="Porto")


def neighbours() -> list[Neighbour]:
    return [
        Neighbour("f-lisbon", "Alice", "lives_in", "Lisbon", "Alice lives in Lisbon.", T0 - timedelta(days=30), 1,
                  0.91, True, True),
        Neighbour("f-atlas", "Alice", "works_at", "Atlas", "Alice works at Atlas.", T0 - timedelta(days=60), 2,
                  0.52, False, True),
    ]


def test_judge_request_and_answer(harness: Harness) -> None:
    """S3 / 4.1: the judge asks with models/judge.yaml's schema and prompt; the answer maps to a Judgement."""
    answer = {"decision": "supersede", "target_fact_id": "f-lisbon", "reason": "Alice moved from Lisbon to Porto."}
    with FakeOpenAI(scripted(answer)) as fake:
        judge = harness.judge(fake.url)
        result = judge.judge(candidate(), neighbours())
        req = fake.requests[0]

    card = load_card("judge")
    assert req["model"] == MODEL and req["temperature"] == card["temperature"]
    assert req["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "judge", "schema": card["output_schema"], "strict": True},
    }
    assert req["messages"][0] == {"role": "system", "content": load_prompt(card)}
    user = req["messages"][1]["content"]
    assert "Alice lives in Porto." in user and "f-lisbon" in user and "f-atlas" in user
    assert (result.decision, result.target_fact_id) == ("supersede", "f-lisbon")
    assert result.reason == "Alice moved from Lisbon to Porto."
    assert judge.last_usage is not None and judge.last_usage.attempts == 1


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"decision": "skip", "target_fact_id": "f-lisbon", "reason": "same"}, ("skip", "f-lisbon")),
        ({"decision": "update", "target_fact_id": "f-lisbon", "reason": "more specific"}, ("update", "f-lisbon")),
        ({"decision": "add", "target_fact_id": None, "reason": "new"}, ("add", None)),
        ({"decision": "add", "target_fact_id": "f-lisbon", "reason": "new"}, ("add", None)),
        ({"decision": "supersede", "target_fact_id": "f-invented", "reason": "changed"}, ("add", None)),
        ({"decision": "skip", "target_fact_id": None, "reason": "same"}, ("add", None)),
    ],
)
def test_judge_decisions_and_unknown_target(harness: Harness, answer: dict, expected: tuple) -> None:
    """S3: decisions map one to one; a target that is not a neighbour (or none) → add, with the reason noting it."""
    with FakeOpenAI(scripted(answer)) as fake:
        result = harness.judge(fake.url).judge(candidate(), neighbours())
    assert (result.decision, result.target_fact_id) == expected
    if answer["decision"] != "add" and expected[0] == "add":
        assert "not a neighbour" in result.reason and str(answer["target_fact_id"]) in result.reason


def test_judge_without_neighbours_adds_without_a_call(server: FakeOpenAI, harness: Harness) -> None:
    """S3: with no neighbours there is nothing to compare: add, and no request is made."""
    result = harness.judge(server.url).judge(candidate(), [])
    assert result.decision == "add" and result.target_fact_id is None
    assert server.requests == []


def test_judge_failure_raises_distill_error(server: FakeOpenAI, harness: Harness) -> None:
    """R4: the judge fails like the distiller: malformed twice → DistillError with a reason."""
    server.script("malformed", "malformed")
    with pytest.raises(DistillError) as info:
        harness.judge(server.url).judge(candidate(), neighbours())
    assert "malformed JSON" in info.value.reason


def test_fake_server_heuristic_responder_answers_both(server: FakeOpenAI, harness: Harness) -> None:
    """S1 / S3 end to end with the fake's default responder: one states fact; the judge adds."""
    out = harness.distiller(server.url).distill(event("The deploy is on Friday."))
    assert len(out) == 1 and out[0].predicate == "states" and out[0].subject == "Alice"
    assert out[0].valid_from == T0
    result = harness.judge(server.url).judge(out[0], neighbours())
    assert result.decision == "add"
