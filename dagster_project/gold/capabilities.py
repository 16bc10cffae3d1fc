"""Capabilities (SPEC G2): a token, stored only as its sha256, granting verbs on namespaces.

A capability also caps the authority its holder may claim when writing (``max_authority``: the
most authoritative tier allowed, 1 = user … 5 = inference) and may expire. Tokens are shown once,
at grant time.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

VERBS = ("search", "read", "list", "remember", "overlay", "admin")


@dataclass(frozen=True)
class Capability:
    """A resolved, currently valid capability."""

    capability_id: str
    principal: str
    verbs: tuple[str, ...]
    namespaces: tuple[str, ...]
    max_authority: int
    expires_at: datetime | None

    def allows(self, verb: str, namespace: str) -> bool:
        return verb in self.verbs and (namespace in self.namespaces or "*" in self.namespaces)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def grant(
    conn: psycopg.Connection,
    *,
    principal: str,
    verbs: list[str],
    namespaces: list[str],
    max_authority: int = 5,
    expires_at: datetime | None = None,
    created_by: str,
) -> tuple[str, str]:
    """Create a capability; returns ``(capability_id, token)`` — the token is not stored."""
    unknown = sorted(set(verbs) - set(VERBS))
    if unknown:
        raise ValueError(f"unknown verb(s) {', '.join(unknown)}; use {', '.join(VERBS)}")
    if not namespaces:
        raise ValueError("grant at least one namespace (or '*')")
    capability_id = "cap_" + secrets.token_hex(8)
    token = "mm_" + secrets.token_urlsafe(32)
    with conn.transaction():
        conn.execute(
            "INSERT INTO auth.capabilities (capability_id, principal, token_hash, verbs, namespaces, "
            "max_authority, expires_at, created_by) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (capability_id, principal, hash_token(token), list(verbs), list(namespaces), max_authority,
             expires_at, created_by),
        )
    return capability_id, token


def resolve(conn: psycopg.Connection, token: str) -> Capability | None:
    """The valid (unrevoked, unexpired) capability of a token, or None."""
    row = conn.execute(
        "SELECT capability_id, principal, verbs, namespaces, max_authority, expires_at FROM auth.capabilities "
        "WHERE token_hash = %s AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > clock_timestamp())",
        (hash_token(token),),
    ).fetchone()
    if row is None:
        return None
    return Capability(row[0], row[1], tuple(row[2]), tuple(row[3]), row[4], row[5])


def revoke(conn: psycopg.Connection, capability_id: str) -> bool:
    """Revoke a capability; False when no such active capability exists."""
    with conn.transaction():
        cur = conn.execute(
            "UPDATE auth.capabilities SET revoked_at = clock_timestamp() "
            "WHERE capability_id = %s AND revoked_at IS NULL",
            (capability_id,),
        )
    return cur.rowcount == 1


def list_capabilities(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """All capabilities without their token hashes."""
    cur = conn.execute(
        "SELECT capability_id, principal, verbs, namespaces, max_authority, expires_at, created_at, created_by, "
        "revoked_at FROM auth.capabilities ORDER BY created_at"
    )
    cols = [d.name for d in cur.description or []]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
