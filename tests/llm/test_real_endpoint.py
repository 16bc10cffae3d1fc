"""The ``openai`` providers against a real OpenAI-compatible server: llama-cpp-python serving Gemma 3 270M.

``make test-llm`` (scripts/test_llm.sh) builds the server, starts it and sets MEDALLION_TEST_LLM_URL
(plus the server's Python and the model file, so a test can start a server of its own and stop it
mid-run). The model is tiny and not instruction-tuned: nothing here asserts what it extracts. What is
asserted is the protocol (the structured-output mode the server takes is negotiated and kept), the
telemetry (tokens from the server's ``usage``, latency), the cache (a rebuild asks for no distillation)
and the failure handling (a server that stops mid-run parks events with a one-sentence reason, and a
later run derives them: nothing is lost). Each call's tokens, latency and mode go to
MEDALLION_TEST_LLM_REPORT (one JSON line each) for the script's summary.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from medallion.bronze.ingest import ingest_events
from medallion.distill.llm import LLMClient, Usage, forget_negotiations, negotiated_mode
from medallion.distill.providers import DistillError
from medallion.distill.providers.openai_provider import DECISIONS, OpenAIDistiller, OpenAIJudge
from medallion.distill.types import EventInput, FactCandidate, Judgement, Neighbour
from medallion.settings import Settings
from medallion.silver.derive import derive

pytestmark = pytest.mark.llm

MODEL = "gemma-3-270m-q4_k_m"
# A tiny model on two shared cores: generous per-request time, bounded answers.
REQUEST_TIMEOUT = 180.0
MAX_TOKENS = 112
NAMESPACE = "llm-real"
T0 = datetime(2026, 4, 20, 9, 0, tzinfo=UTC)


def _answer(*facts: tuple[str, str, str, str]) -> str:
    """A distill answer in the card's shape: a model that is not instruction-tuned copies it from the
    message, so some events derive (nothing asserts that it does)."""
    return json.dumps({"facts": [
        {"subject": subject, "predicate": predicate, "relation": None, "cardinality": None, "value_type": "entity",
         "value": value, "unit": None, "statement": statement, "valid_from": "", "confidence": 0.9}
        for subject, predicate, value, statement in facts]}, ensure_ascii=False)


LINES = [
    ("user:ines", "I moved to Tromsø. Answer: " + _answer(("Ines", "lives_in", "Tromsø", "Ines lives in Tromsø."))),
    # the same slot later: a neighbour, so the judge is asked
    ("user:ines", "I live in Bergen now. Answer: " + _answer(("Ines", "lives_in", "Bergen", "Ines lives in Bergen."))),
    ("user:tomas", 'Nothing new from me today. Answer: {"facts": []}'),
    ("user:tomas", "We switched the build to Meson on Monday."),  # no answer to copy: whatever the model makes of it
]


@dataclass(frozen=True)
class Endpoint:
    url: str
    python: str | None
    model_path: str | None


@pytest.fixture(scope="module")
def endpoint() -> Endpoint:
    url = os.environ.get("MEDALLION_TEST_LLM_URL")
    if not url:
        pytest.fail("MEDALLION_TEST_LLM_URL is not set: these tests need a real OpenAI-compatible server, so run "
                    "them with `make test-llm`, which starts one.", pytrace=False)
    return Endpoint(url, os.environ.get("MEDALLION_TEST_LLM_PYTHON"), os.environ.get("MEDALLION_TEST_LLM_MODEL"))


@pytest.fixture(autouse=True)
def fresh_negotiation() -> Iterator[None]:
    forget_negotiations()
    yield
    forget_negotiations()


def report(step: str, usage: Usage | None, error: str | None = None) -> None:
    """Append one call's measurements to MEDALLION_TEST_LLM_REPORT (when the script set it)."""
    path = os.environ.get("MEDALLION_TEST_LLM_REPORT")
    if not path or usage is None:
        return
    row = {"step": step, "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
           "latency_ms": round(usage.latency_ms, 1), "attempts": usage.attempts, "mode": usage.mode, "error": error}
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\n")


class Measured:
    """A provider whose every call is reported; ``after_calls(n, action)`` runs ``action`` once the
    ``n``-th call has returned (how a test stops a server mid-run)."""

    def __init__(self, inner: OpenAIDistiller | OpenAIJudge, step: str):
        self.inner, self.step = inner, step
        self.name, self.model = inner.name, inner.model
        self.calls = 0  # calls that reached the provider, answered or failed
        self.usages: list[Usage] = []  # of the answered ones
        self.failed: list[Usage | None] = []  # of the failed ones (None: it never reached the model)
        self._trigger: tuple[int, Any] | None = None

    @property
    def last_usage(self) -> Usage | None:
        return self.inner.last_usage

    def after_calls(self, n: int, action: Any) -> None:
        self._trigger = (n, action)

    def _call(self, method: Any, *args: Any) -> Any:
        self.calls += 1
        try:
            result = method(*args)
        except DistillError as exc:
            self.failed.append(exc.usage)
            report(self.step, exc.usage, exc.reason)
            raise
        finally:
            if self._trigger is not None and self.calls >= self._trigger[0]:
                self._trigger[1]()
                self._trigger = None
        usage = self.inner.last_usage
        if usage is not None:  # None: the judge had no neighbour and asked nothing
            self.usages.append(usage)
            report(self.step, usage)
        return result

    def distill(self, event: EventInput) -> list[FactCandidate]:
        return self._call(self.inner.distill, event)

    def judge(self, candidate: FactCandidate, neighbours: list[Neighbour]) -> Judgement:
        return self._call(self.inner.judge, candidate, neighbours)


def llm_settings(settings: Settings, url: str) -> Settings:
    return settings.model_copy(update={"llm_provider": "openai", "openai_base_url": url, "llm_model": MODEL})


def providers(settings: Settings, phase: str = "", max_retries: int = 1) -> tuple[Measured, Measured]:
    """A measured distiller and judge (their calls reported as ``<phase>distill`` and ``<phase>judge``)."""
    def client(card: str) -> LLMClient:
        return LLMClient(settings, card, timeout=REQUEST_TIMEOUT, max_retries=max_retries, max_tokens=MAX_TOKENS,
                         sleep=lambda _s: None)

    return (Measured(OpenAIDistiller(settings, client=client("distill")), f"{phase}distill"),
            Measured(OpenAIJudge(settings, client=client("judge")), f"{phase}judge"))


def ingest_lines(conn: psycopg.Connection, lines: list[tuple[str, str]] = LINES, prefix: str = "m") -> set[int]:
    ingest_events(conn, [
        {"namespace": NAMESPACE, "source": "chat", "source_event_id": f"{prefix}{i}", "kind": "transcript",
         "actor": actor, "content": text, "occurred_at": (T0 + timedelta(hours=i)).isoformat(),
         "provenance_root": f"chat://{NAMESPACE}/{prefix}{i}"}
        for i, (actor, text) in enumerate(lines)])
    return {r[0] for r in conn.execute("SELECT event_id FROM bronze.events").fetchall()}


def outcome(conn: psycopg.Connection) -> tuple[set[int], dict[int, tuple[str, str]]]:
    """The events derived, and the parked ones with their step and reason."""
    derived = {r[0] for r in conn.execute("SELECT bronze_event_id FROM silver.derivations").fetchall()}
    parked = {r[0]: (r[1], r[2]) for r in conn.execute(
        "SELECT bronze_event_id, step, reason FROM silver.derivation_failures").fetchall()}
    return derived, parked


def assert_one_sentence(reason: str) -> None:
    assert reason.strip() and "\n" not in reason and len(reason) < 600, reason


def distill_model_calls(conn: psycopg.Connection) -> int:
    return conn.execute("SELECT count(*) FROM telemetry.model_calls WHERE step = 'distill' AND NOT cache_hit"
                        ).fetchone()[0]


def test_distill_judge_and_rebuild_from_cache(engine_conn: psycopg.Connection, settings: Settings,
                                              endpoint: Endpoint) -> None:
    """llama-cpp-python refuses json_schema: the providers fall back to json_object once, remember it, and
    every event ends derived or parked with one sentence. Each distillation is in telemetry with the
    server's token counts, its latency and the model; a failed one with its reason too. A full rebuild
    asks the server for no distillation but those of the events whose distillation failed (the answers
    come from the cache, whatever mode produced them)."""
    all_ids = ingest_lines(engine_conn)
    llm = llm_settings(settings, endpoint.url)
    distiller, judge = providers(llm)
    derive(engine_conn, llm, distiller=distiller, judge=judge)

    assert negotiated_mode(endpoint.url, MODEL) == "json_object"
    assert distiller.usages and {u.mode for u in distiller.usages} == {"json_object"}
    derived, parked = outcome(engine_conn)
    assert derived | set(parked) == all_ids and not derived & set(parked)
    for _, reason in parked.values():
        assert_one_sentence(reason)
    assert derived, parked  # the protocol works: some event derives, whatever the model made of it
    rows = engine_conn.execute(
        "SELECT input_tokens, output_tokens, latency_ms, model, ok, error FROM telemetry.model_calls "
        "WHERE step = 'distill' AND NOT cache_hit").fetchall()
    answered = [r for r in rows if r[4]]
    assert len(answered) == len(distiller.usages)
    for input_tokens, output_tokens, latency_ms, model, _, _ in answered:
        assert input_tokens > 0 and output_tokens > 0 and latency_ms > 0 and model == MODEL
    # a distillation the model answered unusably twice (answer + repair) is parked, and its row says why
    failed = [r for r in rows if not r[4]]
    assert sorted(r[0] for r in failed) == sorted(u.input_tokens if u else 0 for u in distiller.failed)
    for _, _, latency_ms, model, _, error in failed:
        assert error and latency_ms > 0 and model == MODEL

    before = distill_model_calls(engine_conn)
    failed_distillations = sum(1 for step, _ in parked.values() if step == "distill")
    rebuild_distiller, rebuild_judge = providers(llm, "rebuild ")
    warm = derive(engine_conn, llm, distiller=rebuild_distiller, judge=rebuild_judge, full_rebuild=True)
    assert rebuild_distiller.calls == failed_distillations
    assert distill_model_calls(engine_conn) - before == len(rebuild_distiller.usages) + len(rebuild_distiller.failed)
    if failed_distillations == 0:
        assert warm.model_calls == 0


def test_judge_against_the_real_server(settings: Settings, endpoint: Endpoint) -> None:
    """The judge asks in the negotiated mode and answers with a known decision, or fails with one sentence."""
    _, judge = providers(llm_settings(settings, endpoint.url))
    candidate = FactCandidate("Ines", "lives_in", "Bergen", "Ines lives in Bergen.", T0, 0.9,
                              object_entity="Bergen", value_type="entity")
    neighbour = Neighbour("f-tromso", "Ines", "lives_in", "Tromsø", "Ines lives in Tromsø.", T0 - timedelta(days=300),
                          1, 0.88, True, True)
    try:
        verdict = judge.judge(candidate, [neighbour])
    except DistillError as exc:
        assert_one_sentence(exc.reason)
        assert exc.usage is not None and exc.usage.mode == "json_object"
        return
    assert verdict.decision in DECISIONS and verdict.reason.strip()
    assert judge.last_usage is not None and judge.last_usage.mode == "json_object"
    assert judge.last_usage.input_tokens > 0 and judge.last_usage.output_tokens > 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def own_server(endpoint: Endpoint, log: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A llama-cpp-python server of this test's own (the same command as the script's), stopped on exit."""
    if not endpoint.python or not endpoint.model_path:
        pytest.fail("MEDALLION_TEST_LLM_PYTHON and MEDALLION_TEST_LLM_MODEL are not set: run this test with "
                    "`make test-llm`, which sets them.", pytrace=False)
    port = free_port()
    url = f"http://127.0.0.1:{port}/v1"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [endpoint.python, "-m", "llama_cpp.server", "--model", endpoint.model_path, "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", "8192"], stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while True:
            assert process.poll() is None, f"the test's own server exited: {log.read_text()[-2000:]}"
            try:
                urllib.request.urlopen(url + "/models", timeout=2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the test's own server did not answer within 180 s"
                time.sleep(0.5)
        yield url, process
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def test_server_stopped_mid_run_loses_nothing(engine_conn: psycopg.Connection, settings: Settings,
                                              endpoint: Endpoint, tmp_path: Path) -> None:
    """The server stops after the first distillation: the run goes on, every later event is parked with a
    one-sentence reason naming the connection failure, and the endpoint's mode is not downgraded by it. A
    later run against a live server takes the parked events up again: every event is accounted for, none
    is parked for the outage any more, and one that the outage parked derives."""
    all_ids = ingest_lines(engine_conn, LINES[:3])  # the lines a copying model answers quickly
    with own_server(endpoint, tmp_path / "server.log") as (url, process):
        llm = llm_settings(settings, url)
        distiller, judge = providers(llm, "outage ")
        distiller.after_calls(1, lambda: stop(process))
        derive(engine_conn, llm, distiller=distiller, judge=judge)
        assert process.poll() is not None
    derived, parked = outcome(engine_conn)
    assert derived | set(parked) == all_ids and not derived & set(parked)
    outage = {e for e, (_, reason) in parked.items() if "connection error" in reason}
    first = min(all_ids)
    assert outage >= all_ids - {first}, parked  # every event after the stop: distilled or judged, it failed
    for _, reason in parked.values():
        assert_one_sentence(reason)
    assert negotiated_mode(url, MODEL) == "json_object"  # the outage did not move the endpoint down

    llm = llm_settings(settings, endpoint.url)
    distiller, judge = providers(llm, "after outage ")
    derive(engine_conn, llm, distiller=distiller, judge=judge)
    derived, parked = outcome(engine_conn)
    assert derived | set(parked) == all_ids and not derived & set(parked)
    assert not [r for _, r in parked.values() if "connection error" in r], parked
    assert outage & derived, "an event parked by the outage derives once a server answers"
