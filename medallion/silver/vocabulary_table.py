"""The predicate vocabulary in use (``silver.predicates``), rebuilt from the ledger of a namespace.

One row per predicate a namespace's facts use: its cardinality, whether the seed defines it
(``curated``) or a relation phrase taught it (``learned``), the phrases it was read from, when it
was first seen, how many facts and current facts use it, and three example statements. It is a
summary of Silver, so it is recomputed (not appended) after every derivation of the namespace.
"""

from __future__ import annotations

import psycopg

from medallion.distill.vocabulary import predicates

_REFRESH = """
WITH phrases AS (
    SELECT r.candidate->>'predicate' AS predicate,
           array_agg(DISTINCT r.candidate->>'relation' ORDER BY r.candidate->>'relation') AS aliases
    FROM silver.resolutions r
    WHERE r.namespace = %(ns)s AND r.candidate->>'relation' IS NOT NULL
    GROUP BY 1
)
INSERT INTO silver.predicates (namespace, predicate, cardinality, origin, aliases, first_seen, fact_count,
                               current_count, examples)
SELECT f.namespace, f.predicate, min(f.cardinality),
       CASE WHEN f.predicate = ANY(%(curated)s) THEN 'curated' ELSE 'learned' END,
       coalesce(p.aliases, '{}'), min(f.recorded_at), count(*), count(*) FILTER (WHERE f.valid_to IS NULL),
       (array_agg(f.statement ORDER BY f.recorded_at, f.fact_id))[1:3]
FROM silver.facts f
LEFT JOIN phrases p ON p.predicate = f.predicate
WHERE f.namespace = %(ns)s
GROUP BY f.namespace, f.predicate, p.aliases
"""


def refresh(conn: psycopg.Connection, namespace: str) -> int:
    """Recompute the namespace's rows (inside the caller's transaction); returns how many."""
    conn.execute("DELETE FROM silver.predicates WHERE namespace = %s", (namespace,))
    cur = conn.execute(_REFRESH, {"ns": namespace, "curated": sorted(predicates())})
    return cur.rowcount
