"""R4: the derivation against an OpenAI-compatible server that fails 30 % of the time (S1, R4).

The real ``openai`` client talks to a loopback server (tests/support/fake_openai.py) injecting
timeouts, 5xx, 429 and malformed JSON. Every event ends derived or parked with a reason; the next
run (with the server healthy) derives the parked ones; none is lost. A partial answer (one unusable
fact beside good ones) derives the good facts; an answer with no usable fact parks its event alone.
A server that refuses ``json_schema`` (as llama-cpp-python does) derives every event in the mode it
takes, and the answers cached then serve a rebuild against any server without a distill request.
"""

from __future__ import annotations

from typing import Any

import psycopg

from medallion.bronze.ingest import ingest_events
from medallion.distill.llm import LLMClient, Usage, forget_negotiations
from medallion.distill.providers import record_model_call
from medallion.distill.providers.openai_provider import OpenAIDistiller, OpenAIJudge
from medallion.settings import Settings
from medallion.silver.derive import derive
from tests.support.conversations import generate
from tests.support.fake_openai import (
    LLAMA_CPP_REFUSAL,
    FakeOpenAI,
    distill_fact,
    heuristic_responder,
    judge_responder,
    last_user_message,
    parse_distill_message,
    schema_name,
)

EVENTS = 40


def _providers(settings: Settings) -> tuple[OpenAIDistiller, OpenAIJudge]:
    def client(card: str) -> LLMClient:
        return LLMClient(settings, card, sleep=lambda _s: None, timeout=0.4, max_retries=2)

    return (OpenAIDistiller(settings, client=client("distill")), OpenAIJudge(settings, client=client("judge")))


def test_faulty_llm_loses_no_event(engine_conn: psycopg.Connection, settings: Settings) -> None:
    """R4: 30 % injected faults → each event derived or parked with a reason; a healthy rerun derives all."""
    events = generate(seed=31, turns=EVENTS, speakers=3, namespace="chat-ferry").events
    ingest_events(engine_conn, events)
    with FakeOpenAI(heuristic_responder, fault_rate=0.3, seed=11, timeout_sleep=1.0) as server:
        llm = settings.model_copy(update={"llm_provider": "openai", "openai_base_url": server.url,
                                          "llm_model": "fake-model"})
        distiller, judge = _providers(llm)
        report = derive(engine_conn, llm, distiller=distiller, judge=judge)
        outcomes = set(server.outcomes)
    assert {"429", "timeout", "malformed"} & outcomes and len(outcomes) > 2  # faults were really served
    derived = {r[0] for r in engine_conn.execute("SELECT bronze_event_id FROM silver.derivations").fetchall()}
    parked = dict(engine_conn.execute("SELECT bronze_event_id, reason FROM silver.derivation_failures").fetchall())
    all_ids = {r[0] for r in engine_conn.execute("SELECT event_id FROM bronze.events").fetchall()}
    assert derived | set(parked) == all_ids and not derived & set(parked)
    assert parked, "with 30 % faults and 2 retries some event should have been parked"
    assert all(reason.strip() for reason in parked.values())
    assert len(report.failures) == len(parked)

    with FakeOpenAI(heuristic_responder, fault_rate=0.0) as healthy:
        llm = llm.model_copy(update={"openai_base_url": healthy.url})
        distiller, judge = _providers(llm)
        derive(engine_conn, llm, distiller=distiller, judge=judge)
    derived = {r[0] for r in engine_conn.execute("SELECT bronze_event_id FROM silver.derivations").fetchall()}
    assert derived == all_ids
    assert engine_conn.execute("SELECT count(*) FROM silver.derivation_failures").fetchone()[0] == 0
    calls = engine_conn.execute(
        "SELECT count(*) FROM telemetry.model_calls WHERE step = 'distill' AND provider = 'openai'").fetchone()[0]
    assert calls >= len(all_ids)


PARTIAL = "I moved to Lisbon. Bob manages me."
BROKEN = "Something nobody can read."


def _shaped_responder(request: dict[str, Any]) -> dict[str, Any]:
    """Distill answers by content: a partial answer for PARTIAL, only unusable facts for BROKEN."""
    if schema_name(request) == "judge":
        return judge_responder(request)
    content = parse_distill_message(last_user_message(request))["content"]
    if content == PARTIAL:
        return {"facts": [
            distill_fact("Nate", "moved to", "Lisbon", "Nate moved to Lisbon.", value_type="entity",
                         relation="moved to"),
            {"subject": "Nate", "predicate": "states"},  # unusable: dropped, the rest is kept
            distill_fact("Bob", "manages", "Nate", "Bob manages Nate.", value_type="entity", relation="manages"),
        ]}
    if content == BROKEN:
        return {"facts": [{"subject": "Nate", "value": ""}]}
    return heuristic_responder(request)


def test_partial_and_unusable_answers(engine_conn: psycopg.Connection, settings: Settings) -> None:
    """S1 / R4: a partial answer derives its good facts, in the curated slots (alias, inverse swapped); an
    answer with no usable fact (twice: answer and repair) parks only its event, with a one-line reason."""
    base = {"namespace": "team-x", "source": "slack", "kind": "transcript", "actor": "user:nate",
            "occurred_at": "2026-03-01T10:00:00+00:00"}
    ingest_events(engine_conn, [
        {**base, "source_event_id": "m1", "content": PARTIAL, "provenance_root": "slack://x/m1"},
        {**base, "source_event_id": "m2", "content": BROKEN, "provenance_root": "slack://x/m2"},
    ])
    ids = dict(engine_conn.execute("SELECT source_event_id, event_id FROM bronze.events").fetchall())
    with FakeOpenAI(_shaped_responder) as server:
        llm = settings.model_copy(update={"llm_provider": "openai", "openai_base_url": server.url,
                                          "llm_model": "fake-model"})
        distiller, judge = _providers(llm)
        derive(engine_conn, llm, distiller=distiller, judge=judge)
    assert distiller.dropped_total == 1
    facts = engine_conn.execute(
        "SELECT s.canonical_name, f.predicate, f.value_text FROM silver.facts f "
        "JOIN silver.entities s ON s.entity_id = f.subject_id WHERE f.bronze_event_id = %s ORDER BY 2",
        (ids["m1"],)).fetchall()
    assert [(p, v) for _, p, v in facts] == [("lives_in", "Lisbon"), ("reports_to", "Bob")]
    assert {s.casefold() for s, _, _ in facts} == {"nate"}
    parked = engine_conn.execute("SELECT bronze_event_id, reason FROM silver.derivation_failures").fetchall()
    assert [p[0] for p in parked] == [ids["m2"]]
    reason = parked[0][1]
    assert reason.startswith("the LLM returned malformed JSON twice") and "\n" not in reason
    assert "no fact has a non-empty subject, value and statement" in reason


def test_llama_cpp_style_server_derives_and_the_cache_serves_a_rebuild(engine_conn: psycopg.Connection,
                                                                       settings: Settings) -> None:
    """A server that refuses json_schema with llama-cpp-python's 500 parks nothing: the provider falls back
    to json_object once and derives every event. A full rebuild against another server (which would take
    json_schema) asks it nothing, neither a distillation nor a verdict: the mode is not part of a fingerprint."""
    forget_negotiations()
    lines = ["I moved to Lyon in May.", "Our standup moved to 10:00.", "I started at Quarry Labs.",
             "The staging cluster is down again.", "I now live in Nantes.", "We ship the beta on Friday."]
    events = [{"namespace": "team-q", "source": "chat", "source_event_id": f"q{i}", "kind": "transcript",
               "actor": "user:priya", "content": line, "occurred_at": f"2026-03-0{i + 1}T10:00:00+00:00",
               "provenance_root": f"chat://q/{i}"} for i, line in enumerate(lines)]
    ingest_events(engine_conn, events)
    with FakeOpenAI(heuristic_responder, refuse={"json_schema": LLAMA_CPP_REFUSAL}) as server:
        llm = settings.model_copy(update={"llm_provider": "openai", "openai_base_url": server.url,
                                          "llm_model": "fake-model"})
        distiller, judge = _providers(llm)
        cold = derive(engine_conn, llm, distiller=distiller, judge=judge)
        modes = server.modes()
    assert engine_conn.execute("SELECT count(*) FROM silver.derivation_failures").fetchone()[0] == 0
    assert cold.failures == [] and cold.facts > 0
    assert modes[:2] == ["json_schema", "json_object"] and set(modes[2:]) == {"json_object"}
    assert distiller.last_usage is not None and distiller.last_usage.mode == "json_object"
    distilled = engine_conn.execute(
        "SELECT count(*), min(input_tokens), min(output_tokens), min(latency_ms), min(model) "
        "FROM telemetry.model_calls WHERE step = 'distill' AND NOT cache_hit").fetchone()
    assert distilled[0] == len(events) and distilled[1] > 0 and distilled[2] > 0 and distilled[3] > 0
    assert distilled[4] == "fake-model"
    facts = engine_conn.execute("SELECT count(*) FROM silver.facts").fetchone()[0]

    with FakeOpenAI(heuristic_responder) as other:
        llm = llm.model_copy(update={"openai_base_url": other.url})
        distiller, judge = _providers(llm)
        warm = derive(engine_conn, llm, distiller=distiller, judge=judge, full_rebuild=True)
        asked = [schema_name(r) for r in other.requests]
    assert warm.model_calls == 0 and asked == []  # neither a distillation nor a verdict is asked again
    assert engine_conn.execute("SELECT count(*) FROM silver.facts").fetchone()[0] == facts
    forget_negotiations()


def test_record_model_call_keeps_tokens_latency_and_mode(engine_conn: psycopg.Connection) -> None:
    """telemetry.model_calls keeps a call's tokens, latency and structured-output mode, and a failed call
    with its reason (ok false)."""
    record_model_call(engine_conn, "judge", "openai", "local-model", "team-q", Usage(412, 37, 850.5, 2, "json_object"))
    record_model_call(engine_conn, "distill", "openai", "local-model", "team-q", Usage(0, 0, 30000.0, 5, "prompt"),
                      latency_ms=30012.0, error="the LLM endpoint kept failing after 5 attempts: the request timed out")
    rows = engine_conn.execute(
        "SELECT step, input_tokens, output_tokens, latency_ms, response_mode, ok, error, cache_hit "
        "FROM telemetry.model_calls ORDER BY call_id").fetchall()
    assert rows == [
        ("judge", 412, 37, 850.5, "json_object", True, None, False),
        ("distill", 0, 0, 30012.0, "prompt", False,
         "the LLM endpoint kept failing after 5 attempts: the request timed out", False),
    ]


def _slot_responder(request: dict[str, Any]) -> dict[str, Any]:
    """Distil 'I live in X.' as (speaker, lives_in, X); the judge answers add, as a careless model might."""
    if schema_name(request) == "judge":
        return judge_responder(request)
    parsed = parse_distill_message(last_user_message(request))
    city = parsed["content"].rsplit(" ", 1)[-1].strip(".")
    speaker = parsed["speaker"] or "someone"
    return {"facts": [distill_fact(speaker, "lives_in", city, f"{speaker} lives in {city}.",
                                   valid_from=parsed["time"], confidence=0.9)]}


def test_every_model_call_of_a_run_lands_in_telemetry(engine_conn: psycopg.Connection, settings: Settings) -> None:
    """A run's distil and judge calls each leave a telemetry row with tokens, latency and the mode that
    answered; a distil call that fails for good leaves a row with ok false and its reason beside the parked
    event. A judge answering add in a single-valued slot supersedes instead of breaking the write."""
    forget_negotiations()
    lines = ["I live in Lyon.", "I live in Nantes.", "I live in Brest."]
    events = [{"namespace": "team-t", "source": "chat", "source_event_id": f"t{i}", "kind": "transcript",
               "actor": "user:priya", "content": line, "occurred_at": f"2026-03-0{i + 1}T10:00:00+00:00",
               "provenance_root": f"chat://t/{i}"} for i, line in enumerate(lines)]
    ingest_events(engine_conn, events)
    with FakeOpenAI(_slot_responder) as server:
        llm = settings.model_copy(update={"llm_provider": "openai", "openai_base_url": server.url,
                                          "llm_model": "fake-model"})
        distiller, judge = _providers(llm)
        server.script("ok", "500", "500", "500")  # the first event distils; the second fails its 3 attempts
        first = derive(engine_conn, llm, distiller=distiller, judge=judge)
        second = derive(engine_conn, llm, distiller=distiller, judge=judge)
    rows = engine_conn.execute(
        "SELECT step, ok, input_tokens > 0, latency_ms > 0, response_mode, error FROM telemetry.model_calls "
        "WHERE NOT cache_hit ORDER BY call_id").fetchall()
    distills = [r for r in rows if r[0] == "distill"]
    judges = [r for r in rows if r[0] == "judge"]
    assert [r[1] for r in distills] == [True, False, True, True]  # the parked event distils on the next run
    failed = distills[1]
    assert failed[5] and "500" in failed[5] and failed[5].startswith("the LLM endpoint")
    assert all(r[2] and r[3] and r[4] == "json_schema" for r in distills if r[1])
    assert len(judges) == 2 and all(r[1] and r[2] and r[3] and r[4] == "json_schema" for r in judges)
    assert len(first.failures) == 1 and second.failures == []
    assert first.model_calls + second.model_calls == len(rows)
    current = engine_conn.execute("SELECT value #>> '{}' FROM silver.facts WHERE predicate = 'lives_in' "
                                  "AND valid_to IS NULL AND superseded_by IS NULL").fetchall()
    assert current == [("Brest",)]
    decisions = engine_conn.execute("SELECT decision, reason FROM silver.resolutions WHERE decision <> 'add' "
                                    "ORDER BY bronze_event_id").fetchall()
    assert [d for d, _ in decisions] == ["supersede", "supersede"]
    assert all("supersedes it" in reason for _, reason in decisions)

    # A full rebuild derives in event order, so the late event meets other neighbours: those verdicts are
    # new questions. A second rebuild asks the same questions and pays for none of them.
    for rebuild in (1, 2):
        with FakeOpenAI(_slot_responder) as again:
            distiller, judge = _providers(llm.model_copy(update={"openai_base_url": again.url}))
            rebuilt = derive(engine_conn, llm.model_copy(update={"openai_base_url": again.url}),
                             distiller=distiller, judge=judge, full_rebuild=True)
            asked = [schema_name(r) for r in again.requests]
        assert rebuilt.failures == [] and "distill" not in asked
        assert asked == (["judge"] * len(asked) if rebuild == 1 else [])
    assert engine_conn.execute("SELECT value #>> '{}' FROM silver.facts WHERE predicate = 'lives_in' AND valid_to "
                               "IS NULL AND superseded_by IS NULL").fetchall() == [("Brest",)]
    hits = engine_conn.execute("SELECT step, count(*) FROM telemetry.model_calls WHERE cache_hit GROUP BY step "
                               "ORDER BY step").fetchall()
    assert hits[0] == ("distill", 6) and hits[1][0] == "judge" and hits[1][1] >= 2
    forget_negotiations()
