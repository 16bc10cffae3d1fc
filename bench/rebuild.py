"""R7 on LoCoMo: incremental derivation in batches gives the same ledger as one full rebuild.

The conversations are landed in random-sized batches, each followed by an incremental derivation;
the ledger hash (fact ids, intervals, decisions) is taken; then a full rebuild from Bronze, and the
hash again. Target: identical. Without the data the script exits 2 with one sentence saying where to put
it; the test suite checks the same property on a generated chat (tests/integration/test_silver_rebuild.py).

    python bench/rebuild.py [--conversations 10] [--batches 5] [--seed 3]
    python bench/rebuild.py --factconsolidation sh_262k   # the same on a FactConsolidation set
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import bench_settings, write_result  # noqa: E402
from bench.locomo_data import load, to_events  # noqa: E402
from medallion.bronze.ingest import ingest_events  # noqa: E402
from medallion.db.connection import connect  # noqa: E402
from medallion.silver.derive import derive, ledger_hash  # noqa: E402

# every chunk's id, context (the previous turn of its thread) and vector: Bronze order alone decides them
CHUNKS_HASH = ("SELECT md5(string_agg(chunk_id || coalesce(context, '~') || embedding::text, ',' ORDER BY chunk_id)) "
               "FROM silver.chunks")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--factconsolidation", metavar="SET", help="a FactConsolidation set (e.g. sh_262k) instead")
    args = parser.parse_args()
    if args.factconsolidation:
        from bench import factconsolidation as fc

        events = fc.to_events(args.factconsolidation, fc.fact_texts(fc.load()[args.factconsolidation]["facts"])[0])
        label = f"FactConsolidation {args.factconsolidation} facts"
    else:
        events = list(itertools.chain.from_iterable(to_events(s) for s in load()[: args.conversations]))
        label = "LoCoMo turns"
    rng = random.Random(args.seed)
    cuts = sorted(rng.sample(range(1, len(events)), args.batches - 1))
    batches = [events[a:b] for a, b in zip([0, *cuts], [*cuts, len(events)], strict=True)]
    with bench_settings("rebuild") as settings:
        conn = connect(settings, "engine", autocommit=True)
        t0 = time.perf_counter()
        for batch in batches:
            ingest_events(conn, batch, origin="bench")
            derive(conn, settings)
        incremental_s = time.perf_counter() - t0
        incremental = ledger_hash(conn)
        incremental_chunks = conn.execute(CHUNKS_HASH).fetchone()[0]
        t0 = time.perf_counter()
        derive(conn, settings, full_rebuild=True)
        full_s = time.perf_counter() - t0
        full = ledger_hash(conn)
        full_chunks = conn.execute(CHUNKS_HASH).fetchone()[0]
        facts = conn.execute("SELECT count(*) FROM silver.facts").fetchone()[0]
        conn.close()
    result = {"data": args.factconsolidation or f"locomo, {args.conversations} conversations",
              "events": len(events),
              "batches": [len(b) for b in batches],
              "facts": facts, "incremental_hash": incremental, "full_rebuild_hash": full,
              "identical": incremental == full, "incremental_s": round(incremental_s, 2),
              "full_rebuild_s": round(full_s, 2), "chunks_identical": incremental_chunks == full_chunks}
    key = f"R7_factconsolidation_{args.factconsolidation}" if args.factconsolidation else "R7"
    path = write_result(f"rebuild_{args.factconsolidation}" if args.factconsolidation else "rebuild", {key: result})
    print(f"R7: {len(events)} {label} in {len(batches)} incremental batches vs one full rebuild: "
          f"{'identical' if result['identical'] else 'DIFFERENT'} ledger hash ({facts} facts), chunk contexts and "
          f"vectors {'identical' if result['chunks_identical'] else 'DIFFERENT'} (incremental "
          f"{result['incremental_s']} s, full rebuild (warm cache) {result['full_rebuild_s']} s)")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
