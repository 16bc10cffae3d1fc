"""The ``openai`` providers against a real loopback server (S1, S3, R4; 4.1 model cards).

The REAL ``openai`` client talks to ``tests/support/fake_openai.py`` on 127.0.0.1; the server records
every request, so the tests assert what was sent (model, temperature, schema, messages) as well as what
came back. No database is needed here: the pipeline half of R4 (parking in
``silver.derivation_failures``) is tested with the pipeline.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from medallion.distill.llm import BACKOFF_CAP_SECONDS, LLMClient, load_card, load_prompt
from medallion.distill.predicates import learned_predicate
from medallion.distill.providers import DistillError
from medallion.distill.providers.openai_provider import OpenAIDistiller, OpenAIJudge
from medallion.distill.types import EventInput, FactCandidate, Neighbour
from medallion.distill.vocabulary import predicates
from medallion.settings import Settings
from tests.support.fake_openai import FakeOpenAI, distill_fact, heuristic_responder

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
    for name, pred in predicates().items():
        assert f"- {name} ({pred.cardinality}): {pred.description}" in system["content"]
    assert "Speaker: Alice" in user["content"] and "user:alice" in user["content"]
    assert ev.occurred_at.isoformat() in user["content"]
    assert "Kind: transcript" in user["content"]
    assert user["content"].endswith("I moved to Lisbon last month.")


# -- (b) what comes back ----------------------------------------------------------------------------


def test_valid_answer_becomes_fact_candidates(tmp_path: Path, harness: Harness) -> None:
    """S1: the answer's facts become FactCandidates: valid_from parsed (date, naive → UTC, offset kept,
    unparseable → occurred_at), an unreadable or empty predicate → states, a predicate outside the
    curated list → a learned key with its cardinality hint, confidence clamped, entity-valued objects."""
    answer = {
        "facts": [
            distill_fact("Alice", "lives_in", "Lisbon", "Alice lives in Lisbon.", value_type="entity",
                         relation="lives in", valid_from="2026-10-01", confidence=0.9),
            distill_fact("Alice", "works_at", "Atlas", "Alice works at Atlas.", cardinality="many",
                         valid_from="2026-10-05T12:00:00", confidence=1.7),
            distill_fact("Alice", "favourite_colour", "teal", "Alice's favourite colour is teal.",
                         relation="'s favourite colour is", cardinality="one",
                         valid_from="2026-10-06T12:00:00+02:00", confidence=-0.2),
            distill_fact("Alice", "plans", "a trip", "Alice plans a trip.", valid_from="sometime soon",
                         confidence=0.3),
            distill_fact("Alice", "", "calm", "Alice is calm.", cardinality="sometimes"),
            distill_fact("Alice", "?!", "tired", "Alice is tired."),
        ]
    }
    with FakeOpenAI(scripted(answer)) as fake:
        distiller = harness.distiller(fake.url)
        out = distiller.distill(event())

    assert [c.predicate for c in out] == ["lives_in", "works_at", "favourite_colour", "plans", "states", "states"]
    assert all(isinstance(c, FactCandidate) and c.span is None for c in out)
    assert out[0].valid_from == datetime(2026, 10, 1, tzinfo=UTC)
    assert out[1].valid_from == datetime(2026, 10, 5, 12, tzinfo=UTC)
    assert out[2].valid_from == datetime(2026, 10, 6, 12, tzinfo=timezone(timedelta(hours=2)))
    assert out[3].valid_from == T0
    assert [c.confidence for c in out[:4]] == [0.9, 1.0, 0.0, 0.3]
    # works_at is curated and entity-valued: its text value is an entity, whatever the model said.
    assert [c.value_type for c in out] == ["entity", "entity", "text", "text", "text", "text"]
    assert out[0].object_entity == "Lisbon" and out[1].object_entity == "Atlas" and out[2].object_entity is None
    assert out[0].statement == "Alice lives in Lisbon." and out[0].value == "Lisbon" and out[0].subject == "Alice"
    # the hint is kept for a learned predicate only (a curated one's comes from the seed); invalid → None
    assert [c.cardinality for c in out] == [None, None, "one", None, None, None]
    assert out[0].relation == "lives in" and out[2].relation == "'s favourite colour is" and out[3].relation is None
    assert distiller.last_dropped == [] and distiller.dropped_total == 0
    usage = distiller.last_usage
    assert usage is not None and usage.attempts == 1 and usage.input_tokens > 0 and usage.output_tokens > 0
    assert usage.latency_ms >= 0


def test_open_vocabulary_answer(harness: Harness) -> None:
    """S1 (open predicates): a learned predicate, an inverse alias (subject and value swap into the curated
    direction), a number with its unit, a date value and a curated alias all come out as the heuristic
    shapes them."""
    content = ("The author of Tidewater is Mara Quillon. Bob manages Alice. The trail is 12.5 km long. "
               "Atlas launched on 3 May 2021. Carol is based in Porto.")
    answer = {
        "facts": [
            distill_fact("Tidewater", "author", "Mara Quillon", "The author of Tidewater is Mara Quillon.",
                         relation="The author of", cardinality="one", value_type="entity"),
            distill_fact("Bob", "manages", "Alice", "Bob manages Alice.", relation="manages", cardinality="many",
                         value_type="entity"),
            distill_fact("the trail", "length", 12.5, "The trail is 12.5 km long.", relation="is long",
                         cardinality="one", value_type="number", unit="km"),
            distill_fact("Atlas", "launched_on", "2021-05-03", "Atlas launched on 3 May 2021.",
                         relation="launched on", cardinality="one", value_type="date"),
            distill_fact("Carol", "is based in", "Porto", "Carol is based in Porto.", relation="is based in",
                         value_type="entity"),
            distill_fact("Atlas", "employs", 300, "Atlas employs 300 people.", relation="employs",
                         value_type="number", unit="people"),
            distill_fact("Atlas", "release_date", "2021-02-30", "Atlas was released on 30 February 2021.",
                         value_type="date"),
        ]
    }
    with FakeOpenAI(scripted(answer)) as fake:
        out = harness.distiller(fake.url).distill(event(content, actor="user:nate"))

    got = [(c.subject, c.predicate, c.value, c.value_type, c.object_entity, c.cardinality) for c in out]
    assert got == [
        ("Tidewater", "author", "Mara Quillon", "entity", "Mara Quillon", "one"),
        ("Alice", "reports_to", "Bob", "entity", "Bob", None),  # inverse alias: X manages Y → Y reports_to X
        ("the trail", "length", {"number": 12.5, "unit": "km"}, "number", None, "one"),
        ("Atlas", "launched_on", "2021-05-03", "date", None, "one"),
        ("Carol", "lives_in", "Porto", "entity", "Porto", None),  # curated alias based_in → lives_in
        # an inverse alias with a quantity is not swapped: the phrase stays a learned key
        ("Atlas", "employs", {"number": 300, "unit": "people"}, "number", None, None),
        ("Atlas", "release_date", "2021-02-30", "text", None, None),  # not a calendar date → text
    ]
    assert out[1].statement == "Bob manages Alice." and out[1].relation == "manages"
    assert out[0].relation == "The author of"


def test_partial_answer_keeps_the_good_facts(harness: Harness, caplog: pytest.LogCaptureFixture) -> None:
    """S1 / R4: a fact missing its essential fields is dropped, counted and logged; the good facts of the
    same answer are kept, without a repair request."""
    answer = {
        "facts": [
            {"subject": "Alice", "predicate": "lives_in", "value_type": "entity"},  # no value, no statement
            distill_fact("Alice", "lives_in", "Lisbon", "Alice lives in Lisbon.", value_type="entity"),
            distill_fact("", "states", "x", "Something was said."),  # empty subject
            "Alice works at Atlas.",  # not an object
        ]
    }
    with FakeOpenAI(scripted(answer)) as fake:
        distiller = harness.distiller(fake.url)
        with caplog.at_level("WARNING", logger="medallion.distill.providers.openai_provider"):
            out = distiller.distill(event())
        assert len(fake.requests) == 1
    assert [(c.subject, c.predicate, c.value) for c in out] == [("Alice", "lives_in", "Lisbon")]
    assert distiller.last_dropped == [
        "fact 0: missing or empty value, statement", "fact 2: missing or empty subject",
        "fact 3: a str, not a JSON object",
    ]
    assert distiller.dropped_total == 3
    assert "dropped 3 of 4 facts" in caplog.text
    with FakeOpenAI(scripted({"facts": [distill_fact("Alice", "states", "ok", "Alice is ok.")]})) as fake:
        distiller.client = harness.client(fake.url, "distill")
        distiller.distill(event())
    assert distiller.last_dropped == [] and distiller.dropped_total == 3


def test_speaker_label_is_not_part_of_the_statement(harness: Harness) -> None:
    """S1: a chat-log label in front of a statement ("Nate: ...") is removed; the claim stays."""
    answer = {"facts": [distill_fact("Nate", "adopted", "a dog", "Nate: I adopted a dog.")]}
    with FakeOpenAI(scripted(answer)) as fake:
        out = harness.distiller(fake.url).distill(event("I adopted a dog.", actor="user:nate"))
    assert out[0].statement == "I adopted a dog." and out[0].predicate == "adopted"


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


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ({"fact": []}, "'facts' is a required property"),
        ({"facts": "none"}, "is not of type 'array'"),
        # facts, but not one usable: the whole answer is malformed, not an event with nothing to say
        ({"facts": [{"subject": "Alice", "predicate": "states"}, {"value": "x", "statement": "x."}]},
         "at facts: no fact has a non-empty subject, value and statement"),
    ],
)
def test_wholly_malformed_answer_is_repaired(harness: Harness, bad: dict, said: str) -> None:
    """S1: JSON without a usable facts list counts as malformed and is repaired; the repaired answer is used."""
    good = {"facts": [distill_fact("Alice", "works_at", "Atlas", "Alice works at Atlas.", value_type="entity")]}
    with FakeOpenAI(scripted(bad, good)) as fake:
        distiller = harness.distiller(fake.url)
        out = distiller.distill(event())
        assert len(fake.requests) == 2
        repair = fake.requests[1]["messages"][3]["content"]
    assert said in repair
    assert [(c.subject, c.predicate, c.value) for c in out] == [("Alice", "works_at", "Atlas")]
    assert distiller.last_dropped == []


def test_wholly_malformed_twice_raises_one_sentence(harness: Harness) -> None:
    """R4: an answer with no usable fact, twice → DistillError with a one-line reason (the event is parked)."""
    bad = {"facts": [{"subject": "Alice"}]}
    with FakeOpenAI(scripted(bad)) as fake:
        with pytest.raises(DistillError) as info:
            harness.distiller(fake.url).distill(event())
        assert len(fake.requests) == 2
    reason = info.value.reason
    assert reason.startswith("the LLM returned malformed JSON twice: at facts:") and "\n" not in reason
    assert "no fact has a non-empty subject, value and statement" in reason
    assert len(reason) < 500


def test_malformed_twice_raises(server: FakeOpenAI, harness: Harness) -> None:
    """R4: malformed twice → DistillError whose reason says so (the caller parks the event)."""
    server.script("malformed", "malformed")
    with pytest.raises(DistillError) as info:
        harness.distiller(server.url).distill(event())
    assert "malformed JSON" in info.value.reason and "\n" not in info.value.reason
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
    return FactCandidate("Alice", "lives_in", "Porto", "Alice lives in Porto.", T0, 0.9, object_entity="Porto",
                         value_type="entity")


def neighbours() -> list[Neighbour]:
    return [
        Neighbour("f-lisbon", "Alice", "lives_in", "Lisbon", "Alice lives in Lisbon.", T0 - timedelta(days=30), 1,
                  0.91, True, True),
        Neighbour("f-atlas", "Alice", "works_at", "Atlas", "Alice works at Atlas.", T0 - timedelta(days=60), 2,
                  0.52, False, True),
    ]


def test_judge_request_and_answer(harness: Harness) -> None:
    """S3 / 4.1: the judge asks with model_configs/judge.yaml's schema and prompt, and sees the slot (predicate,
    same_slot, cardinality from the seed); the answer maps to a Judgement whose reason names the slot."""
    answer = {"decision": "supersede", "target_fact_id": "f-lisbon",
              "reason": "lives_in of Alice holds one value: she moved from Lisbon to Porto."}
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
    sent = judge_sections(user)
    assert sent["Slot"] == {"subject": "Alice", "predicate": "lives_in", "cardinality": "one",
                            "cardinality_from": "curated"}
    assert sent["Candidate"]["predicate"] == "lives_in" and sent["Candidate"]["value_type"] == "entity"
    assert [(n["fact_id"], n["predicate"], n["same_slot"]) for n in sent["Neighbours"]] == [
        ("f-lisbon", "lives_in", True), ("f-atlas", "works_at", False)]
    assert (result.decision, result.target_fact_id) == ("supersede", "f-lisbon")
    assert result.reason == "lives_in of Alice holds one value: she moved from Lisbon to Porto."
    assert judge.last_usage is not None and judge.last_usage.attempts == 1


def judge_sections(user: str) -> dict[str, Any]:
    """The Slot, Candidate and Neighbours JSON of a judge user message."""
    out = {}
    for block in user.split("\n\n"):
        title, _, body = block.partition(":\n")
        out[title] = json.loads(body)
    return out


@pytest.mark.parametrize(
    ("cardinality", "expected"),
    [("one", ("one", "distiller hint")), ("many", ("many", "distiller hint")),
     (None, (learned_predicate("author", "", True).cardinality, "rule"))],
)
def test_judge_sees_a_learned_slot(harness: Harness, cardinality: str | None, expected: tuple[str, str]) -> None:
    """S3 (open predicates): a learned predicate's slot cardinality is the distiller's hint (else the
    rule of learned predicates); a reason that does not name the slot gets the slot in front of it."""
    cand = FactCandidate("Tidewater", "author", "Mara Quillon", "The author of Tidewater is Mara Quillon.", T0, 0.9,
                         object_entity="Mara Quillon", value_type="entity", cardinality=cardinality,
                         relation="The author of")
    neigh = [Neighbour("f-old", "Tidewater", "author", "Ivo Quillon", "The author of Tidewater is Ivo Quillon.",
                       T0 - timedelta(days=9), 1, 0.93, True, True)]
    answer = {"decision": "supersede", "target_fact_id": "f-old", "reason": "the value changed."}
    with FakeOpenAI(scripted(answer)) as fake:
        result = harness.judge(fake.url).judge(cand, neigh)
        sent = judge_sections(fake.requests[0]["messages"][1]["content"])
    assert (sent["Slot"]["cardinality"], sent["Slot"]["cardinality_from"]) == expected
    assert sent["Slot"]["predicate"] == "author" and sent["Candidate"]["relation"] == "The author of"
    assert sent["Neighbours"][0]["same_slot"] is True and sent["Neighbours"][0]["predicate"] == "author"
    assert result.reason == "(Tidewater, author) the value changed."


def test_judge_prompt_explains_slots() -> None:
    """S3: the judge prompt tells single-valued from many-valued slots and asks for the slot in the reason."""
    prompt = load_prompt(load_card("judge"))
    for phrase in ('"one"', '"many"', "same_slot", "supersede", "refines", "names the slot"):
        assert phrase in prompt


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
    assert "lives_in" in result.reason  # every reason names the slot


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
