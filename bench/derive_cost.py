"""P2, P3, P7: the cost of deriving Silver.

P2  derivation time ÷ bare ``model.encode`` time on the same texts (heuristic distill + embed +
    resolve + write; cold embedding cache). Target ≤ 1.3. The baseline is the library's own call as a
    user would write it: every distinct text in one ``model.encode`` with its default batch size, which
    sorts the whole set by length (the best case for the library); the engine encodes window by window.
P3  warm full rebuild (derivation cache hits) ÷ cold full rebuild. Target ≤ 0.1.
P7  per-event cost of a full rebuild at growing Bronze sizes (LoCoMo turns, replicated into more
    namespaces past 5,882), timed with the embedding cache warm so that it measures the engine
    (distill, resolve against a growing ledger, writes), not the model. Target: flat within 20 %.

    python bench/derive_cost.py [--events 1500] [--p7-sizes 1000,10000,50000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import bench_settings, median, write_result  # noqa: E402
from bench.locomo_data import load, to_events  # noqa: E402
from medallion.bronze.ingest import ingest_events  # noqa: E402
from medallion.db.connection import connect  # noqa: E402
from medallion.silver.derive import derive  # noqa: E402
from medallion.silver.embed import load_model  # noqa: E402


def locomo_events(n: int) -> list[dict]:
    """The first ``n`` events of LoCoMo's turns (all conversations, in order), replicated into further
    namespaces (``…-c1``, ``…-c2``) when ``n`` exceeds the 5,882 turns."""
    base = list(itertools.chain.from_iterable(to_events(s) for s in load()))
    copies = -(-n // len(base))
    out = [{**e, "namespace": f"{e['namespace']}-c{c}"} for c in range(copies) for e in base]
    return out[:n]


def p2_p3(events: int, repeats: int) -> dict:
    with bench_settings() as settings:
        conn = connect(settings, "engine", autocommit=True)
        ingest_events(conn, locomo_events(events))
        model = load_model(settings.embedding_model)
        model.encode(["warm up"])  # exclude the one-off model load
        cold = derive(conn, settings, full_rebuild=True)
        texts = [r[0] for r in conn.execute(
            "SELECT statement FROM silver.facts UNION ALL "  # a chunk is embedded with its context
            "SELECT coalesce(context || ' ', '') || text FROM silver.chunks").fetchall()]
        texts += [r[0] for r in conn.execute("SELECT statement FROM silver.working_memory").fetchall()]
        unique = sorted(set(texts))
        encode = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            model.encode(unique, normalize_embeddings=True, convert_to_numpy=True)
            encode.append(time.perf_counter() - t0)
        warm = [derive(conn, settings, full_rebuild=True).seconds for _ in range(repeats)]
        colds = [cold.seconds]
        for _ in range(repeats - 1):  # more cold runs: clear the embedding cache first
            conn.execute("DELETE FROM silver.derivation_cache")
            colds.append(derive(conn, settings, full_rebuild=True).seconds)
        cold_med, enc_med, warm_med = median(colds), median(encode), median(warm)
        result = {
            "events": events, "facts": cold.facts, "texts_encoded": len(unique), "repeats": repeats,
            "cold_seconds": round(cold_med, 3), "bare_encode_seconds": round(enc_med, 3),
            "warm_seconds": round(warm_med, 3),
            "P2_ratio": round(cold_med / enc_med, 3), "P2_target": 1.3,
            "P3_ratio": round(warm_med / cold_med, 4), "P3_target": 0.1,
            "decisions": dict(cold.decisions), "outcomes": dict(cold.outcomes),
        }
        print(f"P2 cold derivation {cold_med:.1f}s ÷ bare encode {enc_med:.1f}s of {len(unique)} texts = "
              f"{result['P2_ratio']} (target ≤ 1.3)")
        print(f"P3 warm rebuild {warm_med:.2f}s ÷ cold {cold_med:.1f}s = {result['P3_ratio']} (target ≤ 0.1)")
        conn.close()
        return result


def p7(sizes: list[int]) -> dict:
    per_event = {}
    events = locomo_events(max(sizes))
    with bench_settings() as settings:
        conn = connect(settings, "engine", autocommit=True)
        done = 0
        for size in sorted(sizes):
            ingest_events(conn, events[done:size])
            done = size
            derive(conn, settings)  # fills the embedding cache for the new events
            report = derive(conn, settings, full_rebuild=True)  # timed: every text is a cache hit
            per_event[size] = report.seconds / report.events * 1000
            print(f"P7 {size:>6} events: {report.seconds:.1f}s, {per_event[size]:.2f} ms/event")
        conn.close()
    values = list(per_event.values())
    spread = (max(values) - min(values)) / statistics.mean(values)
    print(f"P7 spread {spread:.1%} (target ≤ 20 %)")
    return {"ms_per_event": {str(k): round(v, 3) for k, v in per_event.items()}, "spread": round(spread, 3),
            "target_spread": 0.2, "note": "full rebuilds; the embedding cache is warm for repeated texts, so "
            "this measures the engine's per-event cost"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1500)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--p7-sizes", default="1000,10000,50000")
    args = parser.parse_args()
    results = {"P2_P3": p2_p3(args.events, args.repeats),
               "P7": p7([int(s) for s in args.p7_sizes.split(",")])}
    print(f"wrote {write_result('derive', results)}")


if __name__ == "__main__":
    main()
