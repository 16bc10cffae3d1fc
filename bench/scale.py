"""Scale-out: derivation throughput over full LoCoMo (10 namespaces, one partition each) with one and
with two parallel workers, through the Dagster job a deployment runs (``derive_silver`` over the range
of every partition; two workers = the multiprocess executor, two ``derive_group`` steps).

Each configuration runs in a process of its own (a fresh embedded server, a fresh Dagster instance,
cold caches: no derivation memo, no embedding cache), so the forkserver of one never serves another.
Reported per configuration: the derivation window (first derive step started → last one finished),
events per second in it, the run's wall time, the peak resident memory of each worker process, and
the ledger hash (``bench/ledger_identity.py``'s, without transaction times) to show both runs derive
the same ledger. Then a paper figure for 1M events over 10,000 namespaces from the measured cost.

    python bench/scale.py [--conversations 10] [--threads default,1]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import LOCOMO, bench_settings, write_result  # noqa: E402
from bench.ledger_identity import DECISIONS, FACTS, add_rows  # noqa: E402
from bench.locomo_data import load, to_events  # noqa: E402
from bench.rebuild import CHUNKS_HASH  # noqa: E402

DECISIONS_ONLY = ("SELECT bronze_event_id, candidate_index, candidate_fact_id, decision, outcome, target_fact_id "
                  "FROM silver.resolutions ORDER BY bronze_event_id, candidate_index")
CHUNK_TEXTS = ("SELECT md5(string_agg(chunk_id || coalesce(context, '~'), ',' ORDER BY chunk_id)) FROM silver.chunks")


def _digest(conn: Any, query: str) -> str:
    digest = hashlib.sha256()
    add_rows(digest, conn.execute(query))
    return digest.hexdigest()[:16]


def _hashes(conn: Any) -> dict[str, str]:
    """What two runs can be compared on, from the most to the least semantic: the facts, the decisions,
    the decisions with their reasons (which quote similarity scores), the chunks' texts, their vectors."""
    return {
        "facts": _digest(conn, FACTS),
        "decisions": _digest(conn, DECISIONS_ONLY),
        "decisions_with_reasons": _digest(conn, DECISIONS),
        "chunk_texts": str(conn.execute(CHUNK_TEXTS).fetchone()[0])[:16],
        "chunk_vectors": str(conn.execute(CHUNKS_HASH).fetchone()[0])[:16],
    }


class _PeakMemory:
    """Peak resident memory of every descendant process (the step workers), sampled every 0.2 s."""

    def __init__(self) -> None:
        import psutil

        self.me = psutil.Process()
        self.peak: dict[int, tuple[str, int]] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        import psutil

        while not self.stop.wait(0.2):
            for child in self.me.children(recursive=True):
                try:
                    rss = child.memory_info().rss
                    name = " ".join(child.cmdline()[:3])[-60:]
                except psutil.Error:
                    continue
                if rss > self.peak.get(child.pid, ("", 0))[1]:
                    self.peak[child.pid] = (name, rss)

    def __enter__(self) -> _PeakMemory:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


def one(conversations: int, workers: int) -> dict[str, Any]:
    """One configuration, in this process: ingest, register the partitions, run the job, measure."""
    import dagster as dg

    from dagster_project.partitions import register
    from dagster_project.runs import every_partition, execute_run, run_config_for
    from medallion.bronze.ingest import ingest_events
    from medallion.bronze.namespaces import namespaces
    from medallion.db.connection import connect

    events = list(itertools.chain.from_iterable(to_events(s) for s in load()[:conversations]))
    with bench_settings(f"scale{workers}") as settings, tempfile.TemporaryDirectory(prefix="dagster-") as home:
        os.environ.update({"MEDALLION_DATABASE_URL": settings.database_url or "", "DAGSTER_HOME": home,
                           "MEDALLION_HOME": str(settings.home)})
        conn = connect(settings, "engine", autocommit=True)
        ingest_events(conn, events, origin="bench")
        instance = dg.DagsterInstance.get()
        register(instance, namespaces(conn))
        started = time.perf_counter()
        with _PeakMemory() as memory, execute_run(instance, "derive_silver", run_config_for(
                "derive_silver", False, workers), workers, every_partition(instance)) as result:
            assert result.success, "the derive run failed"
            run_id = result.run_id
        wall = time.perf_counter() - started
        steps = [e for e in instance.all_logs(run_id) if e.dagster_event and
                 (e.step_key or "").startswith("silver_derive.derive_group")]
        starts = [e.timestamp for e in steps if e.dagster_event.event_type_value == "STEP_START"]
        ends = [e.timestamp for e in steps if e.dagster_event.event_type_value == "STEP_SUCCESS"]
        window = max(ends) - min(starts)
        derived = conn.execute("SELECT count(*) FROM silver.derivations").fetchone()[0]
        hashes = _hashes(conn)
        conn.close()
    peaks = sorted((rss for name, rss in memory.peak.values() if "python" in name), reverse=True)
    return {
        "workers": workers,
        "torch_threads": os.environ.get("OMP_NUM_THREADS") or ("1 per step" if workers > 1 else "library default"),
        "events": len(events), "derived": derived, "namespaces": conversations, "steps": len(starts),
        "derive_window_s": round(window, 1), "events_per_s": round(derived / window, 1), "run_wall_s": round(wall, 1),
        "peak_rss_mb_per_worker": [round(p / 2**20) for p in peaks[:workers]] if workers > 1 else
        [round(__import__("resource").getrusage(__import__("resource").RUSAGE_SELF).ru_maxrss / 1024)],
        "hashes": hashes,
    }


CONFIGURATIONS = [  # (label, workers, environment)
    ("1 worker (the model's default threads: every core)", 1, {}),
    ("2 workers (one thread each, as medallion materialize --workers 2 sets)", 2, {}),
]
PER_CORE = ("1 worker, one thread", 1, {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--per-core", action="store_true", help="also run one worker with one thread")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child: run one configuration
    args = parser.parse_args()
    LOCOMO.require()  # before the first child starts: without the data, exit 2 with one sentence
    if args.one is not None:
        print(json.dumps(one(args.conversations, args.one)))
        return
    runs: list[dict[str, Any]] = []
    for label, workers, extra in [*CONFIGURATIONS, *([PER_CORE] if args.per_core else [])]:
        env = {**os.environ, "HF_HUB_OFFLINE": "1", **extra}
        out = subprocess.run([sys.executable, __file__, "--conversations", str(args.conversations),  # noqa: S603
                              "--one", str(workers)], env=env, capture_output=True, text=True, check=True)
        run = {"configuration": label, **json.loads(out.stdout.strip().splitlines()[-1])}
        runs.append(run)
        print(f"{label}: {run['derived']} events in {run['derive_window_s']} s = {run['events_per_s']} ev/s "
              f"(run {run['run_wall_s']} s, {run['steps']} step(s), peak RSS {run['peak_rss_mb_per_worker']} MB); "
              f"{run['hashes']}", flush=True)
    one_w, two_w = runs[0], runs[1]
    ratio = round(two_w["events_per_s"] / one_w["events_per_s"], 2)
    same = {k: len({r["hashes"][k] for r in runs}) == 1 for k in runs[0]["hashes"]}
    per_event_core_s = 2 / two_w["events_per_s"]  # two single-threaded workers keep two cores busy
    paper = {
        "events": 1_000_000, "namespaces": 10_000,
        "core_seconds_per_event": round(per_event_core_s, 4),
        "hours_on_n_single_core_workers": {n: round(1_000_000 * per_event_core_s / n / 3600, 2)
                                           for n in (2, 8, 32, 128)},
    }
    print(f"2-worker / 1-worker throughput: {ratio} (target >= 1.6); identical across runs: {same}")
    print(f"paper: 1M events over 10,000 namespaces at {paper['core_seconds_per_event']} core-s per event ≈ "
          f"{paper['hours_on_n_single_core_workers']} hours on N single-core workers")
    write_result("scale", {"runs": runs, "ratio_2_over_1": ratio, "target_ratio": 1.6, "identical": same,
                           "paper": paper})


if __name__ == "__main__":
    main()
