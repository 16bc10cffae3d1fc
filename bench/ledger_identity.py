"""Is the ledger the same as another commit's? Derive full LoCoMo in a fresh database and print a hash of
the ledger and of the chunks that leaves out transaction times.

``bench/rebuild.py`` compares two derivations in one database; two separate runs never share
transaction times (``recorded_at`` and ``superseded_at`` come from Bronze's ``received_at``, the
ingest's clock), so this hash covers everything else: fact ids, subjects, predicates, values,
statements, valid time, flags, authority, confidence, provenance, every decision with its reason,
and every chunk's id, context and vector. Run it on two checkouts and compare the lines.

    python bench/ledger_identity.py [--conversations 10]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import bench_settings  # noqa: E402
from bench.locomo_data import load, to_events  # noqa: E402
from bench.rebuild import CHUNKS_HASH  # noqa: E402
from medallion.bronze.ingest import ingest_events  # noqa: E402
from medallion.db.connection import connect  # noqa: E402
from medallion.silver.derive import derive  # noqa: E402

FACTS = ("SELECT fact_id, namespace, subject_id, predicate, value_text, statement, valid_from, valid_to, contested, "
         "superseded_by, authority, confidence, bronze_event_id FROM silver.facts ORDER BY fact_id")
DECISIONS = ("SELECT bronze_event_id, candidate_index, candidate_fact_id, decision, outcome, target_fact_id, reason "
             "FROM silver.resolutions ORDER BY bronze_event_id, candidate_index")


def add_rows(digest: Any, rows: Iterable[tuple]) -> int:
    """Feed each row to ``digest`` (times as ISO 8601 text, so the bytes do not depend on the driver's
    reprs); return how many rows there were."""
    n = 0
    for row in rows:
        digest.update(repr(tuple(v.isoformat() if hasattr(v, "isoformat") else v for v in row)).encode())
        n += 1
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=10)
    args = parser.parse_args()
    events = list(itertools.chain.from_iterable(to_events(s) for s in load()[: args.conversations]))
    with bench_settings("identity") as settings:
        conn = connect(settings, "engine", autocommit=True)
        started = time.perf_counter()
        ingest_events(conn, events, origin="bench")
        derive(conn, settings)
        digest = hashlib.sha256()
        facts = add_rows(digest, conn.execute(FACTS))
        add_rows(digest, conn.execute(DECISIONS))  # no times in these rows: the same bytes as repr(row)
        chunks = conn.execute(CHUNKS_HASH).fetchone()[0]
        conn.close()
    print(f"{len(events)} events, {facts} facts: ledger {digest.hexdigest()}, chunks {chunks} "
          f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
