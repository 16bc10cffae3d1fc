"""The drift audit's run time on LoCoMo (issue 6's closing figure), and the wiki compile time.

LoCoMo's conversations are landed one namespace each and derived with the heuristic distiller, the
wiki is compiled, then the audit runs (Bronze chain and checkpoints, coverage, orphans, projection
hashes over every fact and chunk embedding and wiki page, stale facts) a few times; the median is
reported. The Hindsight sample is not part of this figure (see bench/results/hindsight in the tests'
timings); it adds one list call per sampled slot.

    python bench/audit_time.py [--conversations 10] [--repeats 3]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import bench_settings, median, write_result  # noqa: E402
from bench.locomo_data import load, to_events  # noqa: E402
from medallion.audit import drift  # noqa: E402
from medallion.bronze.ingest import ingest_events  # noqa: E402
from medallion.db.connection import connect  # noqa: E402
from medallion.publish.wiki import compile_wiki  # noqa: E402
from medallion.serve.tools import open_tools  # noqa: E402
from medallion.silver.derive import derive  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    samples = load()[: args.conversations]
    events = list(itertools.chain.from_iterable(to_events(s) for s in samples))
    with bench_settings("audit") as settings:
        conn = connect(settings, "engine", autocommit=True)
        ingest_events(conn, events, origin="bench")
        t0 = time.perf_counter()
        derive(conn, settings)
        derive_s = time.perf_counter() - t0
        with open_tools(None, settings) as tools:
            t0 = time.perf_counter()
            wiki = compile_wiki(settings, conn, tools)
            wiki_s = time.perf_counter() - t0
        runs, timings = [], []
        for _ in range(args.repeats):
            report = drift.run_audit(conn, settings)
            runs.append(report.seconds)
            timings.append(report.timings)
        sizes = conn.execute("SELECT (SELECT count(*) FROM bronze.events), (SELECT count(*) FROM silver.facts), "
                             "(SELECT count(*) FROM silver.chunks)").fetchone()
        result = {
            "conversations": len(samples), "events": sizes[0], "facts": sizes[1], "chunks": sizes[2],
            "wiki_pages": len(wiki.pages), "derive_s": round(derive_s, 2), "wiki_compile_s": round(wiki_s, 3),
            "audit_s_median": round(median(runs), 3), "audit_s_runs": [round(r, 3) for r in runs],
            "audit_step_s": {k: round(median([t[k] for t in timings]), 3) for k in timings[0]},
            "ok": report.ok, "findings": {k: v for k, v in report.counts().items() if v},
        }
        conn.close()
    path = write_result("audit", result)
    print(f"LoCoMo {result['conversations']} conversations: {result['events']} events, {result['facts']} facts, "
          f"{result['chunks']} chunks, {result['wiki_pages']} wiki pages")
    print(f"  derive {result['derive_s']} s, wiki {result['wiki_compile_s']} s, audit median "
          f"{result['audit_s_median']} s {result['audit_step_s']} (ok={result['ok']}, findings {result['findings']})")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
