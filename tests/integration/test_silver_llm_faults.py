"""R4: the derivation against an OpenAI-compatible server that fails 30 % of the time (SPEC S1, R4).

The real ``openai`` client talks to a loopback server (tests/support/fake_openai.py) injecting
timeouts, 5xx, 429 and malformed JSON. Every event ends derived or parked with a reason; the next
run (with the server healthy) derives the parked ones; none is lost.
"""

from __future__ import annotations

import psycopg

from bench.locomo_data import load, to_events
from dagster_project.bronze.ingest import ingest_events
from dagster_project.settings import Settings
from dagster_project.silver.derive import derive
from dagster_project.silver.distill.openai_provider import OpenAIDistiller, OpenAIJudge
from dagster_project.silver.llm import LLMClient
from tests.support.fake_openai import FakeOpenAI, heuristic_responder

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
