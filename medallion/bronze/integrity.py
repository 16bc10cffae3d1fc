"""Verify Bronze: the hash chain, the row hashes and the checkpoints of every namespace (B6).

Everything is recomputed from the stored rows of a namespace in ``event_id`` order, live events
plus the tombstones of erased ones:

* **content** — ``sha256(content)`` must equal ``content_hash`` (a tombstone has no content; its
  ``content_hash`` is taken as stored);
* **event chain** — ``chain_hash = sha256(prev || content_hash || source || source_event_id)``
  (:mod:`medallion.bronze.chain`). It covers content and key only, and its parts are joined
  without separators: moving characters across the ``source`` / ``source_event_id`` boundary
  (``overlay``/``o1`` → ``overla``/``yo1``) leaves it intact. Ingest still links new events with
  this formula and stored links cannot be rewritten (Bronze rows cannot be updated); the row
  hashes below cover what it misses;
* **row-hash chain** — ``bronze.row_hashes`` (migration 0015, written by an AFTER INSERT trigger,
  backfilled for earlier rows) holds one link per event over *every* stored column: ``event_id``,
  ``namespace``, ``source``, ``source_event_id``, ``kind``, ``content_hash`` (and through it
  ``content``), ``occurred_at``, ``received_at``, ``chain_hash``, and the erasable columns
  ``actor``, ``provenance_root``, ``authority``, ``metadata`` folded into a stored
  ``erasable_hash``. The encoding is a jsonb array's text (canonical and unambiguous: the boundary
  move above changes it) with timestamps as epoch seconds, hashed in SQL by this module's own query
  rather than by the database's functions, and chained here:
  ``row_hash = sha256(prev row_hash || digest)``. An erased event's link is recomputed from its
  tombstone and the stored ``erasable_hash``, so approved erasures keep verifying;
* **checkpoints** — the event count and chain head recorded after each batch must match the
  recomputed chain at that count, which catches a pruned tail.

So an in-place edit of any column breaks a link at that row, a deleted row breaks its successor's
links or leaves a row hash without its event, and an event inserted around the trigger has no row
hash. Each finding names its event; verification continues from the stored link, so one tampered
row is reported once per chain. Out of reach of any check inside the database: a superuser who
edits a row *and* recomputes the row-hash links from that row to the namespace's end (and, for a
column the event chain covers, every later ``chain_hash``, the checkpoints and the chain head);
anchoring the heads outside the database would catch that.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Any

import psycopg

from medallion.bronze.chain import GENESIS, link


@dataclass(frozen=True)
class Finding:
    """One integrity problem, in the drift report's shape."""

    check: str  # bronze_chain (content, event chain, row hashes) | bronze_checkpoint
    namespace: str
    detail: str
    severity: str = "error"
    event_id: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# The same expressions as bronze.erasable_digest / bronze.row_digest (migration 0015), written out
# here so that the database's stored functions are not what vouches for the database's rows.
_ERASABLE = (
    "encode(sha256(convert_to(jsonb_build_array(e.actor, e.provenance_root, e.authority, e.metadata)::text, "
    "'UTF8')), 'hex')"
)
_DIGEST = (
    "encode(sha256(convert_to(jsonb_build_array(r.event_id, r.namespace, r.source, r.source_event_id, r.kind, "
    "r.content_hash, extract(epoch FROM r.occurred_at)::text, extract(epoch FROM r.received_at)::text, "
    "r.chain_hash, CASE WHEN r.erased THEN h.erasable_hash ELSE r.erasable END)::text, 'UTF8')), 'hex')"
)
_ROWS = f"""
WITH r AS (
    SELECT e.event_id, e.namespace, e.source, e.source_event_id, e.kind, e.content_hash, e.occurred_at,
           e.received_at, e.chain_hash, encode(sha256(convert_to(e.content, 'UTF8')), 'hex') AS actual_hash,
           false AS erased, {_ERASABLE} AS erasable
    FROM bronze.events e WHERE e.namespace = %(ns)s
    UNION ALL
    SELECT t.event_id, t.namespace, t.source, t.source_event_id, t.kind, t.content_hash, t.occurred_at,
           t.received_at, t.chain_hash, t.content_hash, true, NULL
    FROM bronze.tombstones t WHERE t.namespace = %(ns)s
)
SELECT coalesce(r.event_id, h.event_id), r.event_id IS NOT NULL, r.source, r.source_event_id, r.content_hash,
       r.chain_hash, r.actual_hash, r.erased, r.erasable, h.event_id IS NOT NULL, h.erasable_hash, h.row_hash,
       CASE WHEN r.event_id IS NOT NULL THEN {_DIGEST} END
FROM r FULL JOIN (SELECT * FROM bronze.row_hashes WHERE namespace = %(ns)s) h ON h.event_id = r.event_id
ORDER BY 1
"""


def namespaces(conn: psycopg.Connection) -> list[str]:
    """Every namespace that has (or had) Bronze events, row hashes or checkpoints."""
    rows = conn.execute(
        "SELECT namespace FROM bronze.events UNION SELECT namespace FROM bronze.tombstones "
        "UNION SELECT namespace FROM bronze.row_hashes UNION SELECT namespace FROM bronze.checkpoints ORDER BY 1"
    ).fetchall()
    return [r[0] for r in rows]


def _row_link(prev: str, digest: str) -> str:
    """One link of the row-hash chain, as the trigger computes it (hex text, UTF-8)."""
    return hashlib.sha256(f"{prev}{digest}".encode()).hexdigest()


def verify_namespace(conn: psycopg.Connection, namespace: str) -> list[Finding]:
    """Recompute one namespace's chains and compare with stored hashes, row hashes and checkpoints."""
    findings: list[Finding] = []
    prefix_heads = [GENESIS]  # prefix_heads[n] = recomputed head after n events
    prev = prev_row = GENESIS

    def error(event_id: int, detail: str) -> None:
        findings.append(Finding("bronze_chain", namespace, f"event {event_id}: {detail}", event_id=event_id))

    with conn.transaction(), conn.cursor(name="bronze_verify") as cur:
        cur.itersize = 5000
        cur.execute(_ROWS, {"ns": namespace})
        for (event_id, has_row, source, seid, content_hash, chain_hash, actual_hash, erased, erasable,
             has_link, stored_erasable, row_hash, digest) in cur:
            if has_row:
                if not erased and actual_hash != content_hash:
                    error(event_id, "content no longer matches its content_hash (edited in place)")
                if link(prev, content_hash, source, seid) != chain_hash:
                    error(event_id, "chain hash does not follow from its predecessor (a row before it was "
                                    "deleted, or this row was edited)")
                prev = chain_hash  # continue from the stored link so that each tampered row is named once
                prefix_heads.append(chain_hash)
            if not has_link:
                error(event_id, "no row hash recorded (inserted around the row-hash trigger, or its row-hash "
                                "entry was deleted)")
                continue
            if not has_row:
                error(event_id, "has a row hash but neither an event nor a tombstone (deleted without an "
                                "approved erasure, or its event_id or namespace was changed)")
            elif not erased and erasable != stored_erasable:
                error(event_id, "actor, provenance_root, authority or metadata differ from what was recorded at "
                                "insert (edited in place)")
            elif _row_link(prev_row, digest) != row_hash:
                error(event_id, "row hash does not match the stored columns (a column was edited in place, or "
                                "the row-hash entry before it was altered)")
            prev_row = row_hash
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
