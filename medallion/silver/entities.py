"""Entities (S11): alias-aware, exact-name resolution within a namespace.

Resolution during derivation happens in memory (``ledger_state.NamespaceState.entity``) with the
rules below; :func:`find` answers the same question for readers.

Names are normalised (case-folded, whitespace collapsed, surrounding punctuation dropped) and matched
exactly against canonical names and aliases, never fuzzily: "Room 101" and "Room 102", or "Tigran"
and "Iran", stay distinct entities. One exception is how people are written: "Dov" after "Dov Arkin"
is Dov Arkin when he is the one person of the namespace with that given name. A speaker's actor id
("user:alice") is an alias of "Alice".
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


# A record named by its identifier: "Ticket 6120", "PR #881", "ATL-88", or the bare "6120" a follow-up
# line files under it. Three digits or more (a bare four-digit year is not an identifier), or LETTERS-digits.
_IDENTIFIER_RE = re.compile(r"^(?:[^\W\d_]{2,15}\s+)?#?(?P<id>\d{3,}|[^\W\d_]{2,}-\d+)$", re.UNICODE)
_BARE_YEAR_RE = re.compile(r"^(?:19|20)\d\d$")


def identifier(name: str) -> str | None:
    """The identifier a record's name carries ("Ticket 6120", "#6120" and "6120" → "6120"), or None
    for a name that is not a record's (a person, a place, a bare year)."""
    key = normalize(name)
    m = _IDENTIFIER_RE.match(key)
    if m is None or (key == m["id"] and _BARE_YEAR_RE.match(key)):
        return None
    return m["id"]


_NAME_WORD = re.compile(r"^[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)*$")


def given_name(name: str) -> bool:
    """One capitalised word ("Dov"): what a note calls a person it named in full before."""
    return bool(_NAME_WORD.match(name.strip()))


def full_name(name: str) -> bool:
    """Two or three capitalised words ("Dov Arkin"; "Mary-Ann de Vries" is not one): a person's
    full name, whose first word later names them alone. A place named so ("New Haven") is taken for
    one too, which costs nothing unless a note also calls something "New" on its own."""
    words = name.strip().split()
    return 2 <= len(words) <= 3 and all(_NAME_WORD.match(w) for w in words)


def entity_id(namespace: str, name: str) -> str:
    return hashlib.sha256(f"{namespace}\x1f{normalize(name)}".encode()).hexdigest()[:24]


def find(conn: psycopg.Connection, namespace: str, name: str) -> list[str]:
    """Entity ids whose canonical name or an alias matches ``name`` (case-insensitive)."""
    key = normalize(name)
    rows = conn.execute(
        "SELECT entity_id FROM silver.entities WHERE namespace = %s AND (normalized_name = %s OR %s = ANY(aliases)) "
        "ORDER BY (normalized_name = %s) DESC, first_event_id",
        (namespace, key, key, key),
    ).fetchall()
    return [r[0] for r in rows]
