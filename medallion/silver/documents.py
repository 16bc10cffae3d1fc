"""Versioned documents (S8): git-style, content-addressed versions per path.

A ``kind=document`` event with ``metadata.path`` becomes a version whose hash is the content hash
and whose parent is the path's HEAD at the time. Identical content dedups: re-publishing the HEAD's
content adds nothing; re-publishing an older version's content makes that version HEAD again (a
revert), without a new row. Drift = HEAD hash differs from an expected hash (:func:`drift`).
"""

from __future__ import annotations

import hashlib

import psycopg

from medallion.distill.types import EventInput
from medallion.silver.ledger_state import NamespaceState, WriteBuffer


def record(state: NamespaceState, buffer: WriteBuffer, event: EventInput, fingerprint: str) -> str:
    """Record the event as a document version; returns 'new_version', 'unchanged' or 'reverted'."""
    path = str(event.metadata.get("path", "")).strip()
    version = hashlib.sha256(event.content.encode("utf-8")).hexdigest()
    parent = state.doc_heads.get(path)
    outcome = state.document_version(path, version)
    if outcome == "unchanged":
        return outcome
    buffer.statements.append((
        "UPDATE silver.documents SET is_head = false WHERE namespace = %s AND path = %s AND is_head",
        (event.namespace, path),
    ))
    if outcome == "reverted":
        buffer.statements.append((
            "UPDATE silver.documents SET is_head = true WHERE namespace = %s AND path = %s AND version_hash = %s",
            (event.namespace, path, version),
        ))
    else:
        buffer.statements.append((
            "INSERT INTO silver.documents (namespace, path, version_hash, parent_hash, is_head, bronze_event_id, "
            "recorded_at, fingerprint) VALUES (%s, %s, %s, %s, true, %s, %s, %s)",
            (event.namespace, path, version, parent, event.event_id, event.received_at, fingerprint),
        ))
    state.doc_heads[path] = version
    return outcome


def history(conn: psycopg.Connection, namespace: str, path: str) -> list[dict]:
    """Versions of a path, oldest first."""
    cur = conn.execute(
        "SELECT version_hash, parent_hash, is_head, bronze_event_id, recorded_at FROM silver.documents "
        "WHERE namespace = %s AND path = %s ORDER BY recorded_at, bronze_event_id",
        (namespace, path),
    )
    cols = [d.name for d in cur.description or []]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def drift(conn: psycopg.Connection, namespace: str, path: str, expected_hash: str) -> bool:
    """True when the path's HEAD is not the expected version."""
    row = conn.execute(
        "SELECT version_hash FROM silver.documents WHERE namespace = %s AND path = %s AND is_head",
        (namespace, path),
    ).fetchone()
    return row is None or row[0] != expected_hash
