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

from bench.common import bench_settings, write_result  # noqa: E402
from bench.ledger_identity import DECISIONS, FACTS  # noqa: E402
from bench.locomo_data import load, to_events  # noqa: E402
from bench.rebuild import CHUNKS_HASH  # noqa: E402


def _ledger(conn: Any) -> str:
    digest = hashlib.sha256()
    for row in conn.execute(FACTS):
        digest.update(repr(tuple(v.isoformat() if hasattr(v, "isoformat") else v for v in row)).encode())
    for row in conn.execute(DECISIONS):
        digest.update(repr(row).encode())
    digest.update(str(conn.execute(CHUNKS_HASH).fetchone()[0]).encode())
    return digest.hexdigest()


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
        with _PeakMemory() as memory, execute_run(instance, "incremental_silver", run_config_for(
                "incremental_silver", False, workers), workers, every_partition(instance)) as result:
            assert result.success, "the derive run failed"
            run_id = result.run_id
        wall = time.perf_counter() - started
        steps = [e for e in instance.all_logs(run_id) if e.dagster_event and
                 (e.step_key or "").startswith("silver_derive.derive_group")]
        starts = [e.timestamp for e in steps if e.dagster_event.event_type_value == "STEP_START"]
        ends = [e.timestamp for e in steps if e.dagster_event.event_type_value == "STEP_SUCCESS"]
        window = max(ends) - min(starts)
        derived = conn.execute("SELECT count(*) FROM silver.derivations").fetchone()[0]
        ledger = _ledger(conn)
        conn.close()
    peaks = sorted((rss for name, rss in memory.peak.values() if "python" in name), reverse=True)
    return {
        "workers": workers, "torch_threads": os.environ.get("OMP_NUM_THREADS", "default"),
        "events": len(events), "derived": derived, "namespaces": conversations, "steps": len(starts),
        "derive_window_s": round(window, 1), "events_per_s": round(derived / window, 1), "run_wall_s": round(wall, 1),
        "peak_rss_mb_per_worker": [round(p / 2**20) for p in peaks[:workers]] if workers > 1 else
        [round(__import__("resource").getrusage(__import__("resource").RUSAGE_SELF).ru_maxrss / 1024)],
        "ledger": ledger,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--threads", default="default,1", help="torch threads per worker to try (default,1)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child: run one configuration
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one(args.conversations, args.one)))
        return
    runs: list[dict[str, Any]] = []
    for threads in args.threads.split(","):
        for workers in (1, 2):
            env = {**os.environ, "HF_HUB_OFFLINE": "1"}
            if threads != "default":
                env.update({"OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads})
            out = subprocess.run([sys.executable, __file__, "--conversations", str(args.conversations),  # noqa: S603
                                  "--one", str(workers)], env=env, capture_output=True, text=True, check=True)
            run = json.loads(out.stdout.strip().splitlines()[-1])
            runs.append(run)
            print(f"threads={threads} workers={workers}: {run['derived']} events in {run['derive_window_s']} s "
                  f"= {run['events_per_s']} ev/s (run {run['run_wall_s']} s, {run['steps']} step(s), peak RSS "
                  f"{run['peak_rss_mb_per_worker']} MB), ledger {run['ledger'][:16]}…", flush=True)
    ratios = {}
    for threads in args.threads.split(","):
        label = "default" if threads == "default" else threads
        one_w = next(r for r in runs if r["workers"] == 1 and r["torch_threads"] == label)
        two_w = next(r for r in runs if r["workers"] == 2 and r["torch_threads"] == label)
        ratios[label] = round(two_w["events_per_s"] / one_w["events_per_s"], 2)
    identical = len({r["ledger"] for r in runs}) == 1
    best = max(runs, key=lambda r: r["events_per_s"])
    per_event_core_s = 2 / best["events_per_s"]  # two cores busy at the best throughput
    paper = {
        "events": 1_000_000, "namespaces": 10_000,
        "core_seconds_per_event": round(per_event_core_s, 4),
        "hours_on_n_workers": {n: round(1_000_000 * per_event_core_s / n / 3600, 2) for n in (2, 8, 32, 128)},
    }
    print(f"2-worker / 1-worker throughput: {ratios}; ledger identical across runs: {identical}")
    print(f"paper: 1M events over 10,000 namespaces ≈ {paper['hours_on_n_workers']} hours on N single-core "
          f"workers ({paper['core_seconds_per_event']} core-s per event)")
    write_result("scale", {"runs": runs, "ratio_2_over_1": ratios, "ledger_identical": identical, "paper": paper,
                           "target_ratio": 1.6})


if __name__ == "__main__":
    main()
