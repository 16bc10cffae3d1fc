"""The namespaces Bronze holds, and how to share them out between parallel derivations.

Namespaces are independent by design (each has its own ledger and its own order of events), so they
are the unit of parallel work: the code location turns each into a Dagster partition and hands
groups of them to parallel steps. A group is balanced by Bronze event count, the best estimate
before the work of what a namespace will cost.
"""

from __future__ import annotations

import heapq

import psycopg


def namespaces(conn: psycopg.Connection) -> list[str]:
    """Every namespace with events in Bronze, sorted: one index probe per namespace (a loose index
    scan over ``events_namespace_order``), so a sensor can ask every few seconds of a large archive."""
    rows = conn.execute(
        "WITH RECURSIVE ns AS ("
        " (SELECT namespace FROM bronze.events ORDER BY namespace LIMIT 1)"
        " UNION ALL"
        " SELECT (SELECT e.namespace FROM bronze.events e WHERE e.namespace > ns.namespace"
        "         ORDER BY e.namespace LIMIT 1) FROM ns WHERE ns.namespace IS NOT NULL"
        ") SELECT namespace FROM ns WHERE namespace IS NOT NULL"
    ).fetchall()
    return [r[0] for r in rows]


def event_counts(conn: psycopg.Connection, namespaces: list[str] | None = None) -> dict[str, int]:
    """Every namespace with events in Bronze (or those of ``namespaces`` that have any), with its count."""
    rows = conn.execute(
        "SELECT namespace, count(*) FROM bronze.events "
        "WHERE %(ns)s::text[] IS NULL OR namespace = ANY(%(ns)s) GROUP BY namespace ORDER BY namespace",
        {"ns": namespaces},
    ).fetchall()
    return {ns: n for ns, n in rows}


def balanced_groups(counts: dict[str, int], groups: int) -> list[list[str]]:
    """Share the namespaces out into at most ``groups`` groups of about equal event count.

    Largest first, each to the lightest group so far (the greedy rule for scheduling on identical
    machines, within 4/3 of the best split); groups and their members come back sorted, so the same
    counts always give the same groups. Empty groups are dropped.
    """
    if groups < 1:
        raise ValueError(f"groups must be at least 1, got {groups}")
    heap: list[tuple[int, int, list[str]]] = [(0, i, []) for i in range(min(groups, len(counts)))]
    for ns, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        load, i, members = heapq.heappop(heap)
        members.append(ns)
        heapq.heappush(heap, (load + n, i, members))
    return sorted(sorted(members) for _, _, members in heap if members)
