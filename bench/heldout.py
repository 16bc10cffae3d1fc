"""Held-out plain-language cases beside the development set: passed/total per set and per kind.

Why: the development set (``tests/plain_language_cases.py``, run by ``bench/plain_language.py``) is what
the distiller and search were built against, so its pass rate overstates how the memory does on chat
written by someone else. ``tests/heldout_cases.py`` holds cases written elsewhere and never tuned on;
this module is the one place that loads them and decides whether each holds, and prints both sets
side by side so a change that helps the one set and not the other shows. The development cases
written in the held-out format (``tests/development_cases.py``, tuned on) are printed beside them too,
and so are a second to a ninth writer's (``tests/second_writer_cases.py``,
``tests/third_writer_cases.py``, ``tests/fourth_writer_cases.py``, ``tests/fifth_writer_cases.py``,
``tests/sixth_writer_cases.py``, ``tests/seventh_writer_cases.py``, ``tests/eighth_writer_cases.py``,
``tests/ninth_writer_cases.py``:
written without reading the code, measured once before any rule was tuned on them, tuned on since),
and all nine together: the development result the held-out one is compared with.

Loading: every case in its own namespace; its events remembered in order through
``tools.remember(..., derive_now=False)``, one day apart (chat → ``transcript``, note → ``note``,
ticket → ``issue``); one derivation for every case; then ``tools.search(question, k=5)``.

Checking (:func:`problems`): a case holds when every ``expect`` word is a whole token of the top hit's
text (its statement, and for a fact its value too; case-insensitive) and no ``reject`` word is; for a
``forget`` case no reject word may be in any of the top five hits.

    python bench/heldout.py [--only update-,forget-] [--failures] [--show-heldout] [--no-dev] [--json]

The held-out cases are printed as totals only unless ``--show-heldout`` is given (the development sets'
failures are always printed): a failure read is a failure tuned on. ``--json`` still records each case.

``--json`` writes ``bench/results/heldout.json``.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from medallion.bronze.contract import NAMESPACE_PATTERN  # noqa: E402
from medallion.db.connection import connect  # noqa: E402
from medallion.serve.tools import Tools, open_tools  # noqa: E402
from medallion.settings import Settings  # noqa: E402
from medallion.silver.derive import derive  # noqa: E402
from tests.heldout_cases import CASES, HeldOut  # noqa: E402

SOURCE = "heldout"
SEARCH_K = 5  # what a user reads: the first five answers
EVENT_KIND = {"chat": "transcript", "note": "note", "ticket": "issue"}
FIRST_AT = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)  # the first event of every case; the next ones a day apart
KINDS = ("update", "two_subjects", "forget")
# The development sets in the held-out format: (label, module, key in the JSON result).
WRITER_SETS = (
    ("held-out format", "tests.development_cases", "development_heldout_format"),
    ("second writer", "tests.second_writer_cases", "development_second_writer"),
    ("third writer", "tests.third_writer_cases", "development_third_writer"),
    ("fourth writer", "tests.fourth_writer_cases", "development_fourth_writer"),
    ("fifth writer", "tests.fifth_writer_cases", "development_fifth_writer"),
    ("sixth writer", "tests.sixth_writer_cases", "development_sixth_writer"),
    ("seventh writer", "tests.seventh_writer_cases", "development_seventh_writer"),
    ("eighth writer", "tests.eighth_writer_cases", "development_eighth_writer"),
    ("ninth writer", "tests.ninth_writer_cases", "development_ninth_writer"),
)
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def namespace_of(case: HeldOut) -> str:
    """One namespace per case, so that no case's events can answer another case's question."""
    name = re.sub(r"[^a-z0-9_-]", "-", f"ho-{case.id}".casefold())[:63]
    if not re.fullmatch(NAMESPACE_PATTERN, name):
        raise ValueError(f"case {case.id!r} gives no valid namespace")
    return name


def occurred_at(index: int) -> str:
    """When the index-th event of a case happened: one day after the one before."""
    return (FIRST_AT + timedelta(days=index)).isoformat()


# ------------------------------------------------------------------ checking
def tokens(text: Any) -> set[str]:
    """Case-folded whole word tokens of a text or a structured value (a dict's values, a list's items)."""
    if text is None:
        return set()
    if isinstance(text, dict):
        return set().union(*(tokens(v) for v in text.values())) if text else set()
    if isinstance(text, list | tuple):
        return set().union(*(tokens(v) for v in text)) if text else set()
    return set(_TOKEN.findall(str(text).casefold()))


def hit_tokens(hit: dict[str, Any]) -> set[str]:
    """The words a reader sees in one search result: its statement, and a fact's value."""
    found = tokens(hit.get("statement"))
    if hit.get("kind") == "fact":
        found |= tokens(hit.get("value"))
    return found


def problems(case: HeldOut, hits: Sequence[dict[str, Any]]) -> list[str]:
    """Every way the search results fail what the case expects; empty when the case holds."""
    out: list[str] = []
    top = hit_tokens(hits[0]) if hits else set()
    missing = [w for w in case.expect if w.casefold() not in top]
    if missing:
        out.append(f"the top hit lacks {missing}" if hits else f"no hit (expected {missing})")
    judged = hits[:SEARCH_K] if case.kind == "forget" else hits[:1]
    for rank, hit in enumerate(judged, start=1):
        found = [w for w in case.reject if w.casefold() in hit_tokens(hit)]
        if found:
            out.append(f"hit {rank} carries rejected {found}")
    return out


def holds(case: HeldOut, hits: Sequence[dict[str, Any]]) -> bool:
    return not problems(case, hits)


# ------------------------------------------------------------------ loading and asking
def remember_cases(settings: Settings, cases: Iterable[HeldOut]) -> float:
    """Remember every case's events in order (a day apart) in its own namespace, then derive once.
    Returns the derivation's seconds."""
    cases = list(cases)
    with open_tools(None, settings) as tools:
        for case in cases:
            for index, turn in enumerate(case.events):
                outcome = tools.remember(namespace=namespace_of(case), content=turn.text,
                                         kind=EVENT_KIND[case.form], actor=turn.actor,
                                         occurred_at=occurred_at(index), source=SOURCE,
                                         source_event_id=f"{case.id}:{index}", derive_now=False)
                if outcome["status"] != "inserted":
                    raise RuntimeError(f"{case.id}: event {index} was not inserted: {outcome}")
    conn = connect(settings, "engine", autocommit=True)
    try:
        return derive(conn, settings, namespaces=[namespace_of(c) for c in cases]).seconds
    finally:
        conn.close()


def ask(tools: Tools, case: HeldOut) -> list[dict[str, Any]]:
    """The case's question, as a user asks it: the top five results of its namespace."""
    return tools.search(case.question, namespace=namespace_of(case), k=SEARCH_K)


def judge(tools: Tools, cases: Iterable[HeldOut]) -> list[dict[str, Any]]:
    """Each case's verdict, its problems and its top three hits (for reading a failure)."""
    rows = []
    for case in cases:
        hits = ask(tools, case)
        found = problems(case, hits)
        rows.append({"id": case.id, "kind": case.kind, "form": case.form, "passed": not found,
                     "problems": found, "question": case.question,
                     "top": [{"kind": h.get("kind"), "statement": h.get("statement"), "value": h.get("value")}
                             for h in hits[:3]]})
    return rows


# ------------------------------------------------------------------ totals
def totals(rows: Sequence[dict[str, Any]], kinds: Sequence[str]) -> dict[str, Any]:
    """passed/total and % for a set, and per kind."""
    def one(selected: list[dict[str, Any]]) -> dict[str, Any]:
        passed = sum(bool(r["passed"]) for r in selected)
        return {"passed": passed, "total": len(selected),
                "percent": round(100.0 * passed / len(selected), 1) if selected else None}
    return {"all": one(list(rows)), **{kind: one([r for r in rows if r["kind"] == kind]) for kind in kinds}}


def side_by_side(sets: dict[str, dict[str, Any]]) -> str:
    """A table: one row per set and kind, passed/total and %."""
    width = max([12, *map(len, sets)])
    lines = [f"{'set':<{width}} {'kind':<14} {'passed':>9} {'%':>7}"]
    for name, by_kind in sets.items():
        for kind, t in by_kind.items():
            share = "-" if t["percent"] is None else f"{t['percent']:.1f}"
            lines.append(f"{name:<{width}} {kind:<14} {t['passed']:>4}/{t['total']:<4} {share:>7}")
    return "\n".join(lines)


def run_heldout(cases: Sequence[HeldOut], *, failures_only: bool = False, quiet: bool = False) -> dict[str, Any]:
    """Cases on a throwaway server: each case printed (only the failures, or none when ``quiet``), and
    the totals."""
    from bench.harness import bench_settings

    with bench_settings("heldout") as settings:
        seconds = remember_cases(settings, cases)
        with open_tools(None, settings) as tools:
            rows = judge(tools, cases)
    for row in rows:
        if quiet or (failures_only and row["passed"]):
            continue
        print(f"{'PASS' if row['passed'] else 'FAIL'}  {row['id']}  [{row['kind']}/{row['form']}]  {row['question']}")
        for problem in row["problems"]:
            print(f"    - {problem}")
        for hit in row["top"]:
            print(f"    {hit['kind']}: {hit['statement']!r}")
    return {"derive_seconds": seconds, "totals": totals(rows, KINDS), "cases": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated id prefixes of held-out cases")
    parser.add_argument("--failures", action="store_true", help="print failing cases only (totals count all)")
    parser.add_argument("--show-heldout", action="store_true",
                        help="print the held-out cases one by one too (by default only their totals: what is read "
                             "of them is no longer held out)")
    parser.add_argument("--no-dev", action="store_true", help="skip the development set")
    parser.add_argument("--json", action="store_true", help="also write bench/results/heldout.json")
    parser.add_argument("--name", default="heldout", help="result file name under bench/results (with --json)")
    args = parser.parse_args()
    prefixes = tuple(p for p in args.only.split(",") if p)
    cases = [c for c in CASES if not prefixes or c.id.startswith(prefixes)]
    held = run_heldout(cases, failures_only=args.failures, quiet=not args.show_heldout)
    sets = {"held-out": held["totals"]}
    result: dict[str, Any] = {"heldout": held}
    if not args.no_dev:
        from bench.plain_language import report
        from tests.plain_language_cases import CASES as DEV_CASES

        dev = report(DEV_CASES, failures_only=True)
        dev_rows = [{"kind": r["kind"], "passed": r["passed"]} for r in dev["cases"]]  # type: ignore[union-attr]
        sets["development"] = totals(dev_rows, list(dict.fromkeys(str(r["kind"]) for r in dev_rows)))
        result["development"] = {"totals": sets["development"], "derive_seconds": dev["derive_seconds"],
                                 "failed": [r["id"] for r in dev["cases"] if not r["passed"]]}  # type: ignore[union-attr]
        # the development cases in the held-out format, judged the same way: ours, then each other writer's
        # (first measured before any rule used them, tuned on since)
        every: list[dict[str, Any]] = []
        for label, module, key in WRITER_SETS:
            ran = run_heldout(importlib.import_module(module).CASES, failures_only=True)
            every += ran["cases"]
            sets[f"development ({label})"] = ran["totals"]
            result[key] = {"totals": ran["totals"], "failed": [r["id"] for r in ran["cases"] if not r["passed"]]}
        sets["development (held-out format, every writer)"] = totals(every, KINDS)
        result["development_every_writer"] = {"totals": sets["development (held-out format, every writer)"]}
    print()
    print(side_by_side(sets))
    if args.json:
        from bench.harness import write_result

        print(write_result(args.name, result))


if __name__ == "__main__":
    main()
