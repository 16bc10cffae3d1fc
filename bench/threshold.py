"""Tuning MEDALLION_CONFLICT_THRESHOLD on the example team and LoCoMo (the figures behind its default).

For each threshold, derive the same Bronze and count decisions; list the skipped pairs closest to
the threshold so a person can judge whether they really were paraphrases.

    python bench/threshold.py [--turns 400] [--thresholds 0.75,0.8,0.85,0.9,0.95]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import bench_settings, write_result  # noqa: E402
from bench.locomo_data import load, to_events  # noqa: E402
from medallion.bronze.ingest import ingest_events, ingest_jsonl  # noqa: E402
from medallion.db.connection import connect  # noqa: E402
from medallion.silver.derive import derive  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "team_events.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--thresholds", default="0.75,0.8,0.85,0.9,0.95")
    args = parser.parse_args()
    results = {}
    with bench_settings() as base:
        conn = connect(base, "engine", autocommit=True)
        ingest_jsonl(conn, EXAMPLES.read_bytes(), origin="bench")
        ingest_events(conn, to_events(load()[0], limit=args.turns))
        for threshold in (float(t) for t in args.thresholds.split(",")):
            settings = base.model_copy(update={"conflict_threshold": threshold})
            report = derive(conn, settings, full_rebuild=True)
            near = conn.execute(
                "SELECT r.reason, r.candidate->>'statement', t.statement FROM silver.resolutions r "
                "JOIN silver.facts t ON t.fact_id = r.target_fact_id "
                "WHERE r.decision = 'skip' AND r.reason LIKE 'paraphrases%' ORDER BY r.reason LIMIT 8"
            ).fetchall()
            skipped = [{"reason": r[0], "skipped": r[1], "kept": r[2]} for r in near]
            results[str(threshold)] = {"decisions": dict(report.decisions), "facts": report.facts,
                                       "paraphrase_skips": sum(1 for _ in conn.execute(
                                           "SELECT 1 FROM silver.resolutions WHERE reason LIKE 'paraphrases%'")),
                                       "closest_skips": skipped}
            print(f"threshold {threshold:.2f}: facts {report.facts}, decisions {dict(report.decisions)}, "
                  f"paraphrase skips {results[str(threshold)]['paraphrase_skips']}")
        conn.close()
    print(f"wrote {write_result('threshold', {'turns': args.turns, 'by_threshold': results})}")


if __name__ == "__main__":
    main()
