"""R4: the derivation against an OpenAI-compatible server that fails 30 % of the time (S1, R4).

The real ``openai`` client talks to a loopback server (tests/support/fake_openai.py) injecting
timeouts, 5xx, 429 and malformed JSON. Every event ends derived or parked with a reason; the next
run (with the server healthy) derives the parked ones; none is lost. A partial answer (one unusable
fact beside good ones) derives the good facts; an answer with no usable fact parks its event alone.
"""

from __future__ import annotations

from typing import Any

import psycopg

from bench.locomo_data import load, to_events
from medallion.bronze.ingest import ingest_events
from medallion.settings import Settings
from medallion.silver.derive import derive
from medallion.silver.llm import LLMClient
from medallion.silver.providers.openai_provider import OpenAIDistiller, OpenAIJudge
from tests.support.fake_openai import (
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
    events = to_events(load()[1], limit=EVENTS)
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
