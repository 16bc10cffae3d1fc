"""What a derivation run has to derive: the Bronze events without a derivation, cut into windows,
the events that cannot even be read, and the namespaces whose derivations are stale.

Kept apart from :mod:`medallion.silver.derive` (which derives the windows this module plans) because
reading Bronze safely is a concern of its own: a time Python cannot hold or metadata that does not
parse must refuse one event, never fail the whole read.
"""

from __future__ import annotations

import json

import psycopg

from medallion.bronze.contract import EARLIEST_TIME, LATEST_TIME
from medallion.distill.types import EventInput

Refused = tuple[int, str, str]  # event_id, namespace, reason


def reason(exc: BaseException, context: str | None = None) -> str:
    """The exception's class and the first line of its message: how ``silver.derivation_failures``
    words a failure, for an event refused here and one parked later in the run alike."""
    lines = str(exc).strip().splitlines()
    message = lines[0] if lines else "no message"
    return f"{type(exc).__name__}: " + (f"{context}: {message}" if context else message)


def stale_namespaces(conn: psycopg.Connection, fingerprint: str) -> list[str]:
    """Namespaces with a derivation made under another fingerprint or of an event gone from Bronze
    (erased): an incremental run re-derives them from scratch."""
    rows = conn.execute(
        "SELECT DISTINCT d.namespace FROM silver.derivations d "
        "WHERE d.fingerprint <> %s OR NOT EXISTS (SELECT 1 FROM bronze.events e WHERE e.event_id = d.bronze_event_id) "
        "ORDER BY 1",
        (fingerprint,),
    ).fetchall()
    return [r[0] for r in rows]


def _supported_sql(column: str) -> str:
    return f"(e.{column} >= %(lo)s AND e.{column} < %(hi)s)"


def pending_windows(conn: psycopg.Connection, namespaces: list[str] | None, window: int,
                    ) -> tuple[list[list[EventInput]], list[Refused]]:
    """Events without a derivation, in namespace / received_at / event_id order, cut into windows of
    ``window`` events; and the events that cannot even be read, as (event_id, namespace, reason).

    Read in full up front: the windows commit as they go, which would end a streaming cursor. A time
    Python cannot hold (year 1 BC, year 10000) would fail the whole read, so an out-of-range time is
    read as NULL with its text beside it; metadata is parsed per row for the same reason.
    """
    rows = conn.execute(
        "SELECT e.event_id, e.namespace, e.source, e.source_event_id, e.kind, e.actor, e.content, "
        f"CASE WHEN {_supported_sql('occurred_at')} THEN e.occurred_at END, "
        f"CASE WHEN {_supported_sql('received_at')} THEN e.received_at END, "
        "e.authority, e.provenance_root, e.metadata::text, "
        f"CASE WHEN NOT {_supported_sql('occurred_at')} THEN e.occurred_at::text END, "
        f"CASE WHEN NOT {_supported_sql('received_at')} THEN e.received_at::text END "
        "FROM bronze.events e "
        "WHERE NOT EXISTS (SELECT 1 FROM silver.derivations d WHERE d.bronze_event_id = e.event_id) "
        "AND (%(ns)s::text[] IS NULL OR e.namespace = ANY(%(ns)s)) "
        "ORDER BY e.namespace, e.received_at, e.event_id",
        {"ns": namespaces, "lo": EARLIEST_TIME, "hi": LATEST_TIME},
    ).fetchall()
    events: list[EventInput] = []
    refused: list[Refused] = []
    for row in rows:
        event_id, namespace, bad_occurred, bad_received = row[0], row[1], row[12], row[13]
        for name, text in (("occurred_at", bad_occurred), ("received_at", bad_received)):
            if text is not None:
                refused.append((event_id, namespace, f"{name} {text} is outside the range the "
                                f"derivation supports ({EARLIEST_TIME:%Y-%m-%d} to {LATEST_TIME:%Y-%m-%d} UTC)"))
                break
        else:
            try:
                metadata = json.loads(row[11]) if row[11] else {}
            except (ValueError, RecursionError) as exc:
                refused.append((event_id, namespace, reason(exc, "metadata could not be read")))
                continue
            events.append(EventInput(*row[:11], metadata=metadata or {}))
    return [events[i : i + window] for i in range(0, len(events), window)], refused
