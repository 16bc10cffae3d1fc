"""Capabilities: a token, stored only as its sha256, granting verbs on namespaces.

A capability also caps the authority its holder may claim when writing (``max_authority``: the
most authoritative tier allowed, 1 = user … 5 = inference) and may expire. Tokens are shown once,
at grant time.

Who may mint: the local administrative login (``by=None``) anything; a capability only what it
holds itself — its own ``admin`` verb is required, the new one's verbs and namespaces must be within
its own, its authority no higher and its expiry no later. ``*`` (every namespace) is minted by the
local admin alone, and so is ``admin`` for another principal: otherwise one admin could mint a second
"person" and pass the two-person rule of erasures and overlay approvals alone. No capability names a
``local:`` principal, the local admin's (in any case, and a principal is one word: a leading space
would make `` local:root`` look like the local admin in every record). A capability records the
capability that minted it (``created_by``): an approval's second person must not have minted the
requester's capability, directly or through a chain (migration 0024, ``auth.lineage``). A grant
that has already expired is refused. Revoking and listing follow the same rule: a capability
reaches only capabilities within its own namespaces, verbs and authority.
"""

from __future__ import annotations

import hashlib
import os
import pwd
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import psycopg

from medallion.bronze.contract import NAMESPACE_PATTERN

VERBS = ("search", "read", "list", "remember", "overlay", "admin")
NAMESPACE = re.compile(NAMESPACE_PATTERN)
PRINCIPAL = re.compile(r"[^\s\x00-\x1f\x7f-\x9f]{1,200}")  # the shape auth.capabilities checks too (0024)


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

    def covers(self, namespaces: list[str] | tuple[str, ...]) -> bool:
        """True when every one of ``namespaces`` is among this capability's (``*`` only within ``*``)."""
        return "*" in self.namespaces or ("*" not in namespaces and set(namespaces) <= set(self.namespaces))

    def reaches(self, namespaces: tuple[str, ...], verbs: tuple[str, ...], max_authority: int) -> bool:
        """True when a capability of these namespaces, verbs and authority lies within this one."""
        return self.covers(namespaces) and set(verbs) <= set(self.verbs) and max_authority >= self.max_authority


class GrantRefused(PermissionError):
    """A capability tried to mint or revoke beyond what it holds itself (one sentence why)."""


def check_mint(by: Capability | None, principal: str, verbs: list[str], namespaces: list[str], max_authority: int,
               expires_at: datetime | None) -> None:
    """Refuse a grant the minting capability could not make; ``by=None`` is the local admin."""
    if principal.strip().lower().startswith("local:"):
        raise GrantRefused("'local:' principals are the local admin's; give the holder another name")
    if by is None:
        return
    if "admin" not in by.verbs:
        raise GrantRefused("granting capabilities needs the admin verb")
    if "*" in namespaces:
        raise GrantRefused("only the local administrative login grants '*' (every namespace)")
    outside = sorted(set(namespaces) - set(by.namespaces)) if "*" not in by.namespaces else []
    if outside:
        raise GrantRefused(f"this capability cannot grant namespace(s) {', '.join(outside)}: "
                           "a capability grants only within its own namespaces")
    extra = sorted(set(verbs) - set(by.verbs))
    if extra:
        raise GrantRefused(f"this capability cannot grant verb(s) {', '.join(extra)}: it does not hold them")
    if max_authority < by.max_authority:
        raise GrantRefused(f"this capability cannot grant authority {max_authority}: its own limit is "
                           f"{by.max_authority} (1 is the most authoritative)")
    if by.expires_at is not None and (expires_at is None or expires_at > by.expires_at):
        raise GrantRefused(f"this capability expires at {by.expires_at.isoformat()}: a capability it grants "
                           "must expire no later (give --expires)")
    if "admin" in verbs and principal != by.principal:
        raise GrantRefused("a capability grants admin only to its own principal: a second admin is named by "
                           "the local admin, so that two approvals are two people")


def local_principal() -> str:
    """The local admin's principal: ``local:<os user>`` (the holder of the administrative login).

    The name comes from the process's user id, not from ``USER`` / ``LOGNAME``, which any caller sets.
    """
    return f"local:{pwd.getpwuid(os.geteuid()).pw_name}"


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
    by: Capability | None = None,
) -> tuple[str, str]:
    """Create a capability minted by ``by`` (None = the local admin); returns ``(capability_id, token)``.

    The token is not stored, only its hash. ``created_by`` is recorded for the local admin; a
    capability minted by ``by`` records ``by``'s id whatever is given. Raises :class:`GrantRefused`
    when ``by`` may not mint it, ValueError for a malformed principal or an expiry already passed.
    """
    unknown = sorted(set(verbs) - set(VERBS))
    if unknown:
        raise ValueError(f"unknown verb(s) {', '.join(unknown)}; use {', '.join(VERBS)}")
    if not verbs:
        raise ValueError("grant at least one verb")
    if not namespaces:
        raise ValueError("grant at least one namespace (or '*')")
    bad = [n for n in namespaces if n != "*" and not NAMESPACE.fullmatch(n)]
    if bad:
        raise ValueError(f"namespace {bad[0]!r} is not valid: use lowercase letters, digits, '-' and '_' "
                         "(or '*' for every namespace)")
    if not PRINCIPAL.fullmatch(principal):
        raise ValueError("a principal is one name of at most 200 characters without spaces or control "
                         "characters, e.g. user:ana")
    if expires_at is not None and expires_at.tzinfo is None:
        raise ValueError("the expiry needs a UTC offset, e.g. 2027-01-01T00:00:00Z")
    if expires_at is not None and expires_at <= datetime.now(UTC):
        raise ValueError(f"the expiry {expires_at.isoformat()} has already passed: give a time in the future")
    check_mint(by, principal, verbs, namespaces, max_authority, expires_at)
    if by is not None:
        created_by = by.capability_id  # the chain the two-person rule walks (auth.lineage)
    capability_id = "cap_" + secrets.token_hex(8)
    token = "mm_" + secrets.token_urlsafe(32)
    try:
        with conn.transaction():
            conn.execute(
                "INSERT INTO auth.capabilities (capability_id, principal, token_hash, verbs, namespaces, "
                "max_authority, expires_at, created_by) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (capability_id, principal, hash_token(token), list(verbs), list(namespaces), max_authority,
                 expires_at, created_by),
            )
    except psycopg.errors.CheckViolation as exc:
        if exc.diag.constraint_name != "capabilities_principal_shape":
            raise ValueError(f"the database refused the grant: {exc.diag.message_primary}") from None
        raise ValueError(f"the principal {principal!r} is not one the database accepts: use one name without "
                         "spaces or control characters, e.g. user:ana") from None
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


def revoke(conn: psycopg.Connection, capability_id: str, by: Capability | None = None) -> bool:
    """Revoke a capability; False when no such active capability exists within ``by``'s reach.

    A capability (``by``) needs ``admin`` and revokes only capabilities within its own namespaces,
    verbs and authority; the answer for one outside its reach is the same as for one that does not
    exist.
    """
    if by is not None and "admin" not in by.verbs:
        raise GrantRefused("revoking capabilities needs the admin verb")
    with conn.transaction():
        row = conn.execute("SELECT namespaces, verbs, max_authority FROM auth.capabilities WHERE capability_id = %s "
                           "AND revoked_at IS NULL FOR UPDATE", (capability_id,)).fetchone()
        if row is None or (by is not None and not by.reaches(tuple(row[0]), tuple(row[1]), row[2])):
            return False
        conn.execute("UPDATE auth.capabilities SET revoked_at = clock_timestamp() WHERE capability_id = %s",
                     (capability_id,))
    return True


def list_capabilities(conn: psycopg.Connection, by: Capability | None = None) -> list[dict[str, Any]]:
    """Capabilities without their token hashes: all for the local admin, else those within ``by``'s namespaces."""
    if by is not None and "admin" not in by.verbs:
        raise GrantRefused("listing capabilities needs the admin verb")
    cur = conn.execute(
        "SELECT capability_id, principal, verbs, namespaces, max_authority, expires_at, created_at, created_by, "
        "revoked_at FROM auth.capabilities ORDER BY created_at"
    )
    cols = [d.name for d in cur.description or []]
    rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    return [r for r in rows if by is None or by.reaches(tuple(r["namespaces"]), tuple(r["verbs"]), r["max_authority"])]
