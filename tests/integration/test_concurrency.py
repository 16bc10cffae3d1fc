"""Concurrent writers (R2, B3, B6): four OS processes ingest overlapping event sets at once.

Each process draws 1,500 events from a pool of 3,000 keys in 3 namespaces, shuffles them and lands
them in several batches, all processes released together by a barrier. Afterwards every key is
stored exactly once, the inserts across processes add up to the distinct keys, nothing conflicts or
is rejected, and every namespace's hash chain and checkpoints verify.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import random
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import psycopg

from medallion.bronze.integrity import verify

WORKERS = 4
PER_WORKER = 1_500
NAMESPACES = ("ns-alpha", "ns-beta", "ns-gamma")
KEYS_PER_NAMESPACE = 1_000  # 3 x 1,000 = a pool of 3,000 keys
BATCHES_PER_WORKER = 6
Key = tuple[str, str, str]

POOL: list[Key] = [(ns, "chat", f"m-{i:05d}") for ns in NAMESPACES for i in range(KEYS_PER_NAMESPACE)]


def _event(key: Key) -> dict[str, Any]:
    ns, source, seid = key
    # Content is a function of the key, so overlapping submissions are duplicates, never conflicts.
    return {
        "namespace": ns, "source": source, "source_event_id": seid, "kind": "transcript",
        "actor": "user:alice", "content": f"{ns} says {seid}: the quick brown fox",
        "provenance_root": f"chat://{ns}/{seid}",
    }


def _draw(worker: int) -> list[Key]:
    rng = random.Random(1000 + worker)
    keys = rng.sample(POOL, PER_WORKER)
    rng.shuffle(keys)
    return keys


def _worker(worker: int, database_url: str, home: str, start: Any, results: Any) -> None:
    """Child process (spawned): its own Settings and connection; reports per-key statuses."""
    try:
        from medallion.bronze.ingest import ingest_events
        from medallion.db.connection import connect
        from medallion.settings import Settings

        settings = Settings(database_url=database_url, home=Path(home))
        conn = connect(settings, "engine", autocommit=True)
        keys = _draw(worker)
        size = -(-len(keys) // BATCHES_PER_WORKER)
        batches = [keys[i : i + size] for i in range(0, len(keys), size)]
        start.wait(timeout=120)
        statuses: list[tuple[str, str, str, str, int | None]] = []
        for batch in batches:
            result = ingest_events(conn, [_event(k) for k in batch], origin=f"worker-{worker}")
            statuses.extend(
                (s.namespace or "", s.source or "", s.source_event_id or "", s.status, s.event_id)
                for s in result.statuses
            )
        conn.close()
        results.put((worker, statuses, None))
    except BaseException:  # report anything to the parent instead of dying silently
        results.put((worker, [], traceback.format_exc()))


def test_four_concurrent_writers_store_each_event_exactly_once(
    database_url: str, tmp_path: Path, engine_conn: psycopg.Connection, admin_conn: psycopg.Connection
) -> None:
    """R2: 4 processes x 1,500 overlapping events → each key stored exactly once, none lost, chains verify."""
    ctx = mp.get_context("spawn")
    start = ctx.Barrier(WORKERS)
    results = ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(w, database_url, str(tmp_path / f"home-{w}"), start, results))
        for w in range(WORKERS)
    ]
    for p in procs:
        p.start()
    reports: dict[int, list[tuple[str, str, str, str, int | None]]] = {}
    try:
        for _ in range(WORKERS):
            worker, statuses, error = results.get(timeout=300)
            assert error is None, f"worker {worker} failed:\n{error}"
            reports[worker] = statuses
    except queue.Empty as exc:
        raise AssertionError(f"only {len(reports)} of {WORKERS} workers reported") from exc
    finally:
        for p in procs:
            p.join(timeout=60)
            if p.is_alive():
                p.kill()
    assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]

    submitted: set[Key] = set()
    for w in range(WORKERS):
        assert len(reports[w]) == PER_WORKER
        assert {(ns, src, seid) for ns, src, seid, _, _ in reports[w]} == set(_draw(w))
        submitted |= set(_draw(w))
    everything = [row for w in range(WORKERS) for row in reports[w]]
    counts = Counter(status for *_, status, _ in everything)
    assert counts["conflict"] == 0 and counts["rejected"] == 0, counts
    assert counts["inserted"] + counts["duplicate"] == WORKERS * PER_WORKER
    # The overlap is real: many keys were submitted by more than one writer.
    assert counts["duplicate"] > 1_000

    # Every distinct key was inserted by exactly one process; every status names the stored event id.
    inserted_by_key = Counter((ns, src, seid) for ns, src, seid, status, _ in everything if status == "inserted")
    assert counts["inserted"] == len(submitted)
    assert set(inserted_by_key) == submitted
    assert set(inserted_by_key.values()) == {1}

    stored = admin_conn.execute(
        "SELECT namespace, source, source_event_id, event_id, content FROM bronze.events"
    ).fetchall()
    stored_ids = {(ns, src, seid): event_id for ns, src, seid, event_id, _ in stored}
    assert len(stored) == len(stored_ids) == len(submitted)  # no key twice, none lost
    assert set(stored_ids) == submitted
    assert all(content == _event((ns, src, seid))["content"] for ns, src, seid, _, content in stored)
    for ns, src, seid, _, event_id in everything:
        assert event_id == stored_ids[(ns, src, seid)]
    assert admin_conn.execute("SELECT count(*) FROM bronze.quarantine").fetchone() == (0,)
    # The writers really ran at the same time: their inserted event ids interleave.
    spans = sorted(
        (min(ids), max(ids))
        for ids in ([e for *_, st, e in reports[w] if st == "inserted" and e is not None] for w in reports)
        if ids
    )
    assert any(a_end > b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:], strict=False)), spans

    # The chain heads agree with the rows, and every chain and checkpoint verifies.
    per_ns = Counter(ns for ns, _, _ in submitted)
    heads = dict(admin_conn.execute("SELECT namespace, event_count FROM bronze.chain_heads").fetchall())
    assert heads == dict(per_ns)
    last_checkpoint = dict(
        admin_conn.execute(
            "SELECT DISTINCT ON (namespace) namespace, event_count FROM bronze.checkpoints "
            "ORDER BY namespace, checkpoint_id DESC"
        ).fetchall()
    )
    assert last_checkpoint == dict(per_ns)
    checkpoints = admin_conn.execute("SELECT count(*) FROM bronze.checkpoints").fetchone()[0]  # type: ignore[index]
    assert checkpoints >= len(NAMESPACES) * BATCHES_PER_WORKER
    assert verify(engine_conn) == []
    for ns in NAMESPACES:
        assert verify(engine_conn, ns) == []
