"""Verify the Bronze hash chains and checkpoints (SPEC B6).

The chain is recomputed from the rows themselves (live events plus tombstones of erased ones, in
``event_id`` order per namespace): a content edit breaks ``content_hash``, an edit of key or hash
breaks the chain at that row, a deleted row breaks the link of its successor, and a deleted tail is
caught by the checkpoints (count and head hash recorded after every batch).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import psycopg

from dagster_project.bronze.chain import GENESIS, link


@dataclass(frozen=True)
class Finding:
    """One integrity problem, in the drift report's shape."""

    check: str  # bronze_chain | bronze_checkpoint
    namespace: str
    detail: str
    severity: str = "error"
    event_id: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


_ROWS = """
SELECT event_id, source, source_event_id, content_hash, chain_hash,
       encode(sha256(convert_to(content, 'UTF8')), 'hex') AS actual_hash, false AS erased
FROM bronze.events WHERE namespace = %(ns)s
UNION ALL
SELECT event_id, source, source_event_id, content_hash, chain_hash, content_hash, true
FROM bronze.tombstones WHERE namespace = %(ns)s
ORDER BY event_id
"""


def namespaces(conn: psycopg.Connection) -> list[str]:
    """Every namespace that has (or had) Bronze events or checkpoints."""
    rows = conn.execute(
        "SELECT namespace FROM bronze.events UNION SELECT namespace FROM bronze.tombstones "
        "UNION SELECT namespace FROM bronze.checkpoints ORDER BY 1"
    ).fetchall()
    return [r[0] for r in rows]


def verify_namespace(conn: psycopg.Connection, namespace: str) -> list[Finding]:
    """Recompute one namespace's chain and compare with stored hashes and checkpoints."""
    findings: list[Finding] = []
    prefix_heads = [GENESIS]  # prefix_heads[n] = recomputed head after n events
    prev = GENESIS
    with conn.transaction(), conn.cursor(name="bronze_verify") as cur:
        cur.itersize = 5000
        cur.execute(_ROWS, {"ns": namespace})
        for event_id, source, seid, content_hash, chain_hash, actual_hash, erased in cur:
            if not erased and actual_hash != content_hash:
                findings.append(
                    Finding("bronze_chain", namespace, f"event {event_id}: content no longer matches its "
                            "content_hash (edited in place)", event_id=event_id)
                )
            expected = link(prev, content_hash, source, seid)
            if expected != chain_hash:
                findings.append(
                    Finding("bronze_chain", namespace, f"event {event_id}: chain hash does not follow from its "
                            "predecessor (a row before it was deleted, or this row was edited)", event_id=event_id)
                )
            prev = chain_hash  # continue from the stored link so that each tampered row is named once
            prefix_heads.append(chain_hash)
    recomputed_count = len(prefix_heads) - 1
    for count, head in conn.execute(
        "SELECT event_count, head_hash FROM bronze.checkpoints WHERE namespace = %s ORDER BY checkpoint_id",
        (namespace,),
    ):
        if count > recomputed_count:
            findings.append(
                Finding("bronze_checkpoint", namespace, f"checkpoint records {count} events but only "
                        f"{recomputed_count} remain (events were pruned)")
            )
        elif prefix_heads[count] != head:
            findings.append(
                Finding("bronze_checkpoint", namespace, f"checkpoint at {count} events records head "
                        f"{head[:12]}… but the chain there is {prefix_heads[count][:12]}…")
            )
    return findings


def verify(conn: psycopg.Connection, namespace: str | None = None) -> list[Finding]:
    """Verify one namespace or all of them; an empty list means Bronze is intact."""
    targets = [namespace] if namespace else namespaces(conn)
    findings: list[Finding] = []
    for ns in targets:
        findings.extend(verify_namespace(conn, ns))
    return findings
