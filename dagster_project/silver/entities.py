"""Entities (SPEC S11): alias-aware, exact-name resolution within a namespace.

Names are normalised (case-folded, whitespace collapsed, surrounding punctuation dropped) and matched
exactly against canonical names and aliases, never fuzzily: "Room 101" and "Room 102", or "Tigran"
and "Iran", stay distinct entities. A speaker's actor id ("user:alice") is an alias of "Alice".
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

import psycopg

_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = re.compile(r"^[\W_]+|[\W_]+$", re.UNICODE)


def normalize(name: str) -> str:
    """Comparison key of a name: NFKC, case-folded, single spaces, no surrounding punctuation."""
    text = unicodedata.normalize("NFKC", name).casefold()
    return _EDGE_PUNCT.sub("", _SPACE.sub(" ", text).strip())


def entity_id(namespace: str, name: str) -> str:
    return hashlib.sha256(f"{namespace}\x1f{normalize(name)}".encode()).hexdigest()[:24]


class EntityCache:
    """Entity ids and recorded aliases already resolved in this derivation run.

    Only the deriving process writes Silver, so what it resolved stays true — unless a transaction
    that created entities rolls back: the caller then calls :meth:`clear`.
    """

    def __init__(self) -> None:
        self.ids: dict[tuple[str, str], str] = {}
        self.aliases: set[tuple[str, str]] = set()

    def clear(self) -> None:
        self.ids.clear()
        self.aliases.clear()


def resolve(
    conn: psycopg.Connection, namespace: str, name: str, event_id: int, entity_type: str = "thing",
    alias: str | None = None, cache: EntityCache | None = None,
) -> str:
    """The entity id for ``name`` (an existing entity by name or alias, else a new one)."""
    key = normalize(name) or name.strip().casefold()
    if cache is not None and (namespace, key) in cache.ids:
        eid = cache.ids[(namespace, key)]
        if alias and (eid, normalize(alias)) not in cache.aliases:
            add_alias(conn, eid, alias)
            cache.aliases.add((eid, normalize(alias)))
        return eid
    eid = _resolve_uncached(conn, namespace, name, key, event_id, entity_type, alias)
    if cache is not None:
        cache.ids[(namespace, key)] = eid
        if alias:
            cache.aliases.add((eid, normalize(alias)))
    return eid


def _resolve_uncached(
    conn: psycopg.Connection, namespace: str, name: str, key: str, event_id: int, entity_type: str,
    alias: str | None,
) -> str:
    row = conn.execute(
        "SELECT entity_id FROM silver.entities WHERE namespace = %s AND (normalized_name = %s OR %s = ANY(aliases)) "
        "ORDER BY (normalized_name = %s) DESC, first_event_id LIMIT 1",
        (namespace, key, key, key),
    ).fetchone()
    if row is not None:
        if alias:
            add_alias(conn, row[0], alias)
        return row[0]
    eid = entity_id(namespace, name)
    aliases = [normalize(alias)] if alias else []
    conn.execute(
        "INSERT INTO silver.entities (entity_id, namespace, canonical_name, normalized_name, aliases, entity_type, "
        "first_event_id) VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (entity_id) DO NOTHING",
        (eid, namespace, name.strip(), key, aliases, entity_type, event_id),
    )
    return eid


def add_alias(conn: psycopg.Connection, eid: str, alias: str) -> None:
    """Record another name of an entity (idempotent)."""
    key = normalize(alias)
    if key:
        conn.execute(
            "UPDATE silver.entities SET aliases = array_append(aliases, %s) "
            "WHERE entity_id = %s AND NOT (%s = ANY(aliases)) AND normalized_name <> %s",
            (key, eid, key, key),
        )


def find(conn: psycopg.Connection, namespace: str, name: str) -> list[str]:
    """Entity ids whose canonical name or an alias matches ``name`` (case-insensitive)."""
    key = normalize(name)
    rows = conn.execute(
        "SELECT entity_id FROM silver.entities WHERE namespace = %s AND (normalized_name = %s OR %s = ANY(aliases)) "
        "ORDER BY (normalized_name = %s) DESC, first_event_id",
        (namespace, key, key, key),
    ).fetchall()
    return [r[0] for r in rows]
