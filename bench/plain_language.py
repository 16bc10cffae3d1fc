"""Plain-language belief revision: pass/fail per case, with the facts the distiller produced.

Why: ``tests/integration/test_plain_language.py`` says *whether* each case holds; whoever works on the
distiller also needs to see *what* it made of each pair of sentences (subject | predicate | value |
current) to iterate. This runs the test module's own loading and checks (one source of truth) on a
throwaway embedded server and prints every case, then the totals; ``--json`` also writes
``bench/results/plain_language.json``.

    python bench/plain_language.py [--only move-,job-] [--failures] [--json]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import bench_settings, write_result  # noqa: E402
from medallion.serve.tools import open_tools  # noqa: E402
from tests.integration.test_plain_language import (  # noqa: E402
    fact_hits,
    fact_table,
    observe,
    problems,
    remember_cases,
)
from tests.plain_language_cases import CASES, Case  # noqa: E402


def report(cases: list[Case], *, failures_only: bool = False) -> dict[str, object]:
    """Remember and derive ``cases`` on a fresh server, check each, print it; return the totals and
    each case's verdict (for the result file)."""
    rows: list[dict[str, object]] = []
    with bench_settings("plain_language") as settings:
        seconds = remember_cases(settings, cases)
        with open_tools(None, settings) as tools:
            for case in cases:
                seen = observe(tools, case)
                found = problems(case, seen)
                rows.append({"id": case.id, "kind": case.kind, "topic": case.topic, "passed": not found,
                             "problems": found,
                             "facts": [{k: f.get(k) for k in ("subject", "predicate", "value", "current")}
                                       for f in seen.all_facts]})
                if failures_only and not found:
                    continue
                print(f"{'PASS' if not found else 'FAIL'}  {case.id}  [{case.kind}]  subject={case.subject!r}  "
                      f"old={case.old_value!r} new={case.new_value!r}")
                print(f"    old: {case.old}\n    new: {case.new}")
                for problem in found:
                    print(f"    - {problem}")
                print(fact_table(seen.all_facts))
                top = fact_hits(seen.hits)[:1]
                print(f"    top fact for {case.question!r}: "
                      f"{(top[0].get('statement'), top[0].get('current')) if top else None}\n")
    passed = sum(bool(r["passed"]) for r in rows)
    by_kind = Counter((r["kind"], r["passed"]) for r in rows)
    by_topic = Counter((r["topic"], r["passed"]) for r in rows)
    print(f"passed {passed}/{len(rows)} (derivation {seconds:.1f} s)")
    for kind in ("supersede", "both_current"):
        print(f"  {kind}: {by_kind[(kind, True)]}/{by_kind[(kind, True)] + by_kind[(kind, False)]}")
    for topic in dict.fromkeys(r["topic"] for r in rows):
        print(f"  {topic}: {by_topic[(topic, True)]}/{by_topic[(topic, True)] + by_topic[(topic, False)]}")
    return {"passed": passed, "total": len(rows), "derive_seconds": seconds, "cases": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated id prefixes (e.g. move-,owner-)")
    parser.add_argument("--failures", action="store_true", help="print failing cases only (totals count all)")
    parser.add_argument("--json", action="store_true", help="also write bench/results/plain_language.json")
    args = parser.parse_args()
    prefixes = [p for p in args.only.split(",") if p]
    cases = [c for c in CASES if not prefixes or c.id.startswith(tuple(prefixes))]
    result = report(cases, failures_only=args.failures)
    if args.json:
        print(write_result("plain_language", result))


if __name__ == "__main__":
    main()
