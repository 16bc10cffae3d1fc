"""P1: Bronze ingest rows/s ÷ raw COPY rows/s into a plain table, same rows, one run, medians.

The ingest side is the whole path a user runs: JSONL bytes → contract validation → per-namespace
locks → COPY into a temp table → ``INSERT … ON CONFLICT DO NOTHING`` with the content-hash CHECK
and unique key → hash chain, chain head and checkpoint. The baseline is ``COPY`` of the very same
rows (already parsed) into an unconstrained table. Target: ratio ≥ 0.5 and ≥ 20,000 events/s.

    python bench/ingest_rate.py [--rows 100000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import bench_settings, median, write_result  # noqa: E402
from medallion.bronze.ingest import ingest_jsonl  # noqa: E402
from medallion.db.connection import connect  # noqa: E402

SPEAKERS = ["user:alice", "user:bob", "agent:atlas", "user:carol"]


def make_lines(rows: int, namespace: str) -> list[dict]:
    return [
        {
            "namespace": namespace,
            "source": "bench",
            "source_event_id": f"{namespace}:{i}",
            "kind": "transcript",
            "actor": SPEAKERS[i % len(SPEAKERS)],
            "content": f"Turn {i}: I think we should move the standup to {9 + i % 3}:30 and ship build {i}.",
            "occurred_at": f"2026-11-{1 + i % 28:02d}T09:{i % 60:02d}:00Z",
            "provenance_root": f"bench://{namespace}/{i // 100}",
            "metadata": {"turn": i},
        }
        for i in range(rows)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    with bench_settings() as settings:
        conn = connect(settings, "engine", autocommit=True)
        admin = connect(settings, "admin", autocommit=True)
        admin.execute(
            "CREATE TABLE public.raw_copy (namespace text, source text, source_event_id text, kind text, "
            "actor text, content text, occurred_at timestamptz, provenance_root text, metadata jsonb)"
        )
        ingest_rates, copy_rates = [], []
        for rep in range(args.repeats):
            ns = f"bench-{rep}"
            events = make_lines(args.rows, ns)
            data = "\n".join(json.dumps(e) for e in events).encode()
            rows = [
                (e["namespace"], e["source"], e["source_event_id"], e["kind"], e["actor"], e["content"],
                 e["occurred_at"], e["provenance_root"], json.dumps(e["metadata"]))
                for e in events
            ]
            admin.execute("TRUNCATE public.raw_copy")
            t0 = time.perf_counter()
            with admin.transaction(), admin.cursor() as cur, cur.copy(
                "COPY public.raw_copy FROM STDIN"
            ) as copy:
                for row in rows:
                    copy.write_row(row)
            copy_rates.append(args.rows / (time.perf_counter() - t0))

            t0 = time.perf_counter()
            result = ingest_jsonl(conn, data, origin="bench")
            ingest_rates.append(args.rows / (time.perf_counter() - t0))
            assert result.inserted == args.rows, result.summary()
            print(f"repeat {rep + 1}: raw COPY {copy_rates[-1]:,.0f} rows/s, ingest {ingest_rates[-1]:,.0f} rows/s")

        ingest_med, copy_med = median(ingest_rates), median(copy_rates)
        ratio = ingest_med / copy_med
        print(f"P1 ingest {ingest_med:,.0f} rows/s ÷ raw COPY {copy_med:,.0f} rows/s = {ratio:.2f} "
              f"(target ≥ 0.5 and ≥ 20,000 events/s)")
        path = write_result("ingest", {
            "P1": {
                "rows": args.rows, "repeats": args.repeats,
                "ingest_rows_per_s": round(ingest_med), "raw_copy_rows_per_s": round(copy_med),
                "ratio": round(ratio, 3), "target_ratio": 0.5, "target_rows_per_s": 20000,
                "meets_target": ratio >= 0.5 and ingest_med >= 20000,
                "ingest_runs": [round(r) for r in ingest_rates], "copy_runs": [round(r) for r in copy_rates],
            }
        })
        print(f"wrote {path}")
        conn.close()
        admin.close()


if __name__ == "__main__":
    main()
