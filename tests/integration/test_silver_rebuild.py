"""Rebuilds (S13, R7, R3), the derivation cache (S2), fingerprints (4.1) and erasure re-derivation (B7).

R7 and R3 run on a generated chat (tests/support/conversations.py): four speakers over several
sessions, with moves, job changes and switched habits that revise what was said earlier."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from medallion.bronze.erasure import approve_erasure, request_erasure
from medallion.bronze.ingest import ingest_events, ingest_jsonl
from medallion.serve.capabilities import grant
from medallion.settings import Settings
from medallion.silver import fingerprint
from medallion.silver.derive import derive, ledger_hash
from tests.support.conversations import generate

REPO = Path(__file__).resolve().parents[2]
CHAT_TURNS = 120
CHAT_NS = "chat-harbour"


def _chat_events() -> list[dict]:
    return generate(seed=2016, turns=CHAT_TURNS, speakers=4, namespace=CHAT_NS).events


def _all_events(examples_dir: Path) -> list[bytes]:
    lines = (examples_dir / "team_events.jsonl").read_bytes().splitlines()
    return [line for line in lines if line.strip()] + [json.dumps(e).encode() for e in _chat_events()]


@pytest.mark.slow
def test_incremental_batches_equal_full_rebuild(engine_conn: psycopg.Connection, settings: Settings,
                                                examples_dir: Path) -> None:
    """R7/S13: the same Bronze split into random incremental runs yields the ledger of one full rebuild."""
    lines = _all_events(examples_dir)
    rng = random.Random(7)
    cuts = sorted(rng.sample(range(1, len(lines)), 5))
    for start, end in zip([0, *cuts], [*cuts, len(lines)], strict=True):
        ingest_jsonl(engine_conn, b"\n".join(lines[start:end]), origin="test")
        derive(engine_conn, settings)
    incremental = ledger_hash(engine_conn)
    chunks_sql = ("SELECT md5(string_agg(chunk_id || coalesce(context, '~') || embedding::text, ',' "
                  "ORDER BY chunk_id)), count(context) FROM silver.chunks")
    incremental_chunks = engine_conn.execute(chunks_sql).fetchone()
    facts = engine_conn.execute("SELECT count(*) FROM silver.facts").fetchone()[0]
    assert facts > 50
    report = derive(engine_conn, settings, full_rebuild=True)
    assert report.events == len(lines)
    assert ledger_hash(engine_conn) == incremental
    # chunk contexts (the previous turn of a thread) and their vectors too: Bronze order decides them
    assert incremental_chunks[1] > 100
    assert engine_conn.execute(chunks_sql).fetchone() == incremental_chunks
    revised = engine_conn.execute("SELECT count(*) FROM silver.resolutions WHERE namespace = %s AND decision "
                                  "IN ('update', 'supersede')", (CHAT_NS,)).fetchone()[0]
    assert revised > 0, "the chat's moves and job changes revise earlier facts"
    for ns in ("team-atlas", CHAT_NS):
        assert ledger_hash(engine_conn, ns) != ledger_hash(engine_conn, "team-borealis")


def test_warm_rebuild_makes_no_model_call(engine_conn: psycopg.Connection, settings: Settings,
                                          examples_dir: Path) -> None:
    """S2: a rebuild with unchanged models is served from the derivation cache: zero model calls."""
    ingest_jsonl(engine_conn, (examples_dir / "team_events.jsonl").read_bytes(), origin="test")
    cold = derive(engine_conn, settings, full_rebuild=True)
    assert cold.model_calls >= 1 and cold.embeddings_encoded > 0
    calls_before = engine_conn.execute("SELECT count(*) FROM telemetry.model_calls WHERE NOT cache_hit").fetchone()[0]
    warm = derive(engine_conn, settings, full_rebuild=True)
    assert warm.model_calls == 0 and warm.embeddings_encoded == 0 and warm.cache_hit_rate == 1.0
    calls_after = engine_conn.execute("SELECT count(*) FROM telemetry.model_calls WHERE NOT cache_hit").fetchone()[0]
    assert calls_after == calls_before
    assert warm.facts == cold.facts


def test_changed_prompt_makes_rows_stale_and_rederives(engine_conn: psycopg.Connection, settings: Settings,
                                                       examples_dir: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """4.1: every row records its fingerprint; a changed prompt makes it stale; the next run re-derives."""
    ingest_jsonl(engine_conn, (examples_dir / "team_events.jsonl").read_bytes(), origin="test")
    derive(engine_conn, settings)
    old = fingerprint.derivation_fingerprint(settings)
    assert engine_conn.execute("SELECT DISTINCT fingerprint FROM silver.derivations").fetchall() == [(old,)]
    models = tmp_path / "model_configs"
    shutil.copytree(REPO / "model_configs", models)
    (models / "prompts" / "distill.md").write_text((models / "prompts" / "distill.md").read_text() + "\nBe brief.\n")
    monkeypatch.setattr(fingerprint, "MODELS", models)
    for cached in (fingerprint.distill_fingerprint, fingerprint.judge_fingerprint, fingerprint.embed_fingerprint):
        cached.cache_clear()
    new = fingerprint.derivation_fingerprint(settings)
    assert new != old
    report = derive(engine_conn, settings)
    assert set(report.namespaces_rebuilt) == {"team-atlas", "team-borealis"}
    assert engine_conn.execute("SELECT DISTINCT fingerprint FROM silver.derivations").fetchall() == [(new,)]
    for cached in (fingerprint.distill_fingerprint, fingerprint.judge_fingerprint, fingerprint.embed_fingerprint):
        cached.cache_clear()


def test_erasure_rederives_the_namespace(engine_conn: psycopg.Connection, admin_conn: psycopg.Connection,
                                         settings: Settings) -> None:
    """B7: after an approved erasure, the next derivation rebuilds the namespace without the event, and
    only that namespace (its partition): another tenant's rows are not derived again."""
    events = [{"namespace": "erase-me", "source": "facts", "source_event_id": f"e{i}", "kind": "fact",
               "provenance_root": "test://", "content": json.dumps({"subject": "Eve", "predicate": p, "value": v})}
              for i, (p, v) in enumerate([("lives_in", "Paris"), ("email", "eve@example.org"), ("prefers", "tea")])]
    result = ingest_events(engine_conn, events)
    ingest_events(engine_conn, [{"namespace": "keep-me", "source": "facts", "source_event_id": "k1", "kind": "fact",
                                 "provenance_root": "test://", "content": json.dumps(
                                     {"subject": "Kim", "predicate": "lives_in", "value": "Oslo"})}])
    derive(engine_conn, settings)
    untouched = ("SELECT string_agg(bronze_event_id || '@' || derived_at::text, ',') FROM silver.derivations "
                 "WHERE namespace = 'keep-me'")
    kept = engine_conn.execute(untouched).fetchone()[0]
    assert engine_conn.execute("SELECT count(*) FROM silver.facts WHERE namespace = 'erase-me'").fetchone()[0] == 3
    _, bob = grant(admin_conn, principal="bob", verbs=["admin"], namespaces=["erase-me"], created_by="test")
    request_id = request_erasure(admin_conn, result.statuses[1].event_id, "personal data", token=None,
                                 local_name="local:alice")
    approve_erasure(engine_conn, request_id, token=bob)
    report = derive(engine_conn, settings)
    assert report.namespaces_rebuilt == ["erase-me"]
    values = {r[0] for r in engine_conn.execute(
        "SELECT value_text FROM silver.facts WHERE namespace = 'erase-me'").fetchall()}
    assert values == {"Paris", "tea"}
    assert engine_conn.execute(untouched).fetchone()[0] == kept, "keep-me was not derived again"
    assert engine_conn.execute(
        "SELECT count(*) FROM silver.chunks WHERE text LIKE '%eve@example.org%'").fetchone()[0] == 0


_WORKER = """
import sys
from medallion.db.connection import connect
from medallion.settings import Settings
from medallion.silver.derive import derive
settings = Settings(database_url=sys.argv[1], home=sys.argv[2])  # a killed run must not hold the cache hostage
conn = connect(settings, "engine", autocommit=True)
print("started", flush=True)
derive(conn, settings)
print("done", flush=True)
"""


@pytest.mark.slow
def test_killed_derivation_resumes_to_the_same_ledger(engine_conn: psycopg.Connection, settings: Settings) -> None:
    """R3: SIGKILL at random points during derivation, then a rerun → the ledger of an uninterrupted run.

    The uninterrupted run is a full rebuild of the same Bronze afterwards (transaction times come from
    Bronze, so the same Bronze must give the same ledger).
    """
    ingest_events(engine_conn, _chat_events())
    rng = random.Random(3)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    kills, progress = 0, []
    for _ in range(4):
        proc = subprocess.Popen([sys.executable, "-c", _WORKER, settings.database_url or "", str(settings.home)],
                                stdout=subprocess.PIPE, env=env, text=True)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
        time.sleep(rng.uniform(0.2, 1.5))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
        progress.append(engine_conn.execute("SELECT count(*) FROM silver.derivations").fetchone()[0])
    assert kills >= 1
    derive(engine_conn, settings)
    resumed = ledger_hash(engine_conn)
    assert engine_conn.execute("SELECT count(*) FROM silver.derivations").fetchone()[0] == CHAT_TURNS
    derive(engine_conn, settings, full_rebuild=True)
    assert ledger_hash(engine_conn) == resumed, f"derivations after each kill: {progress}"
