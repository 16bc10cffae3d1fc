"""Measure the similarity threshold of ``serve/present.py`` (``SIMILAR``) on its own cases.

Why: the stage clusters search candidates whose stored embeddings are close; the threshold must
put a later turn that changes a value together with the earlier one, and keep apart a later turn
about something else (an errand, someone else's news). This loads ``tests/present_cases.py`` the way
``tests/integration/test_present_wins.py`` does and prints, for each pair of turns with known roles,
the highest cosine between their items (chunks and facts); then the lowest "same meaning" and the
highest "different" cosine. With ``--dev`` the development plain-language pairs (old, new) are added
as "same meaning" pairs too.

    python bench/present_threshold.py [--dev] [--json]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import bench_settings, write_result  # noqa: E402
from medallion.db.connection import connect  # noqa: E402
from medallion.serve.present import cosine  # noqa: E402
from medallion.serve.search import query_vector  # noqa: E402
from medallion.silver.embed import vector_of  # noqa: E402
from tests.integration import test_plain_language as dev  # noqa: E402
from tests.integration.test_present_wins import namespace_of, remember_cases  # noqa: E402
from tests.plain_language_cases import CASES as DEV_CASES  # noqa: E402
from tests.present_cases import CASES  # noqa: E402

_ITEMS = """
SELECT e.source_event_id, c.embedding FROM silver.chunks c JOIN bronze.events e ON e.event_id = c.bronze_event_id
WHERE c.namespace = %(ns)s AND c.embedding IS NOT NULL
UNION ALL
SELECT e.source_event_id, f.embedding FROM silver.facts f JOIN bronze.events e ON e.event_id = f.bronze_event_id
WHERE f.namespace = %(ns)s AND f.embedding IS NOT NULL
"""


def items_by_event(conn: Any, namespace: str) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for seid, vector in conn.execute(_ITEMS, {"ns": namespace}).fetchall():
        found.setdefault(seid, []).append(vector_of(vector))
    return found


def best(a: list[Any], b: list[Any]) -> float:
    return max((cosine(x, y) for x in a for y in b), default=0.0)


def between(items: dict[str, list[Any]], first: str, second: str) -> float:
    """The highest cosine between the items of two events (by source event id)."""
    return round(best(items.get(first, []), items.get(second, [])), 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dev", action="store_true", help="add the development set's (old, new) pairs")
    parser.add_argument("--json", action="store_true", help="also write bench/results/present_threshold.json")
    args = parser.parse_args()
    pairs: list[dict[str, Any]] = []
    with bench_settings("present_threshold") as settings:
        remember_cases(settings, CASES)
        if args.dev:
            dev.remember_cases(settings, DEV_CASES)
        conn = connect(settings, "engine", autocommit=True)
        try:
            for case in CASES:
                items = items_by_event(conn, namespace_of(case))
                for (i, a), (j, b) in itertools.combinations(enumerate(case.turns), 2):
                    if {a.role, b.role} == {"old", "new"}:
                        same = True
                    elif "other" in (a.role, b.role) and a.role != b.role:
                        same = False
                    else:
                        continue
                    q = query_vector(settings.embedding_model, case.question)
                    pairs.append({"case": case.id, "same": same, "thread": case.thread,
                                  "cosine": between(items, f"{case.id}:{i}", f"{case.id}:{j}"),
                                  "to_question": [round(best([q], items.get(f"{case.id}:{n}", [])), 3)
                                                  for n in (i, j)]})
            if args.dev:
                for case in (c for c in DEV_CASES if c.kind == "supersede"):
                    items = items_by_event(conn, dev.namespace_of(case))
                    q = query_vector(settings.embedding_model, case.question)
                    pairs.append({"case": case.id, "same": True, "thread": False, "dev": True,
                                  "cosine": between(items, f"{case.id}:old", f"{case.id}:new"),
                                  "to_question": [round(best([q], items.get(f"{case.id}:{n}", [])), 3)
                                                  for n in ("old", "new")]})
        finally:
            conn.close()
    for pair in sorted(pairs, key=lambda p: p["cosine"]):
        print(f"{pair['cosine']:.3f}  {'same ' if pair['same'] else 'other'}  {pair['case']}"
              f"{'  (thread)' if pair['thread'] else ''}{'  (dev)' if pair.get('dev') else ''}"
              f"  to the question: {pair.get('to_question', '')}")
    same = [p["cosine"] for p in pairs if p["same"]]
    other = [p["cosine"] for p in pairs if not p["same"]]
    summary = {"same_min": min(same, default=None), "other_max": max(other, default=None),
               "same_below_0.4": sum(c < 0.4 for c in same), "same": len(same), "other": len(other)}
    print(summary)
    if args.json:
        print(write_result("present_threshold", {"summary": summary, "pairs": pairs}))


if __name__ == "__main__":
    main()
