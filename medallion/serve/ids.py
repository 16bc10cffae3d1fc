"""Fact ids as people and agents pass them around: whole, or shortened to any unique prefix.

A fact id is 24 lowercase hexadecimal characters; tables show the first 12. Any prefix of at least
:data:`MIN_PREFIX` characters names a fact when exactly one fact the caller can see starts with it
(git's rule for commit ids). The lookup runs on the caller's connection, inside the
row-level-security scope the caller opened, so a prefix is matched only against facts of namespaces
the caller may read: a fact of another namespace neither answers it nor makes it ambiguous, and an
unknown id, a hidden one and a malformed one get the same kind of sentence.
"""

from __future__ import annotations

import re

import psycopg

from medallion.serve.session import ToolError

FULL_LENGTH = 24
MIN_PREFIX = 6
CANDIDATES_SHOWN = 5
_HEX = re.compile(r"[0-9a-f]+")


class AmbiguousId(ToolError):
    """A prefix that more than one visible fact starts with; the message lists them."""


def resolve_fact(conn: psycopg.Connection, given: str, *, where: str) -> str:
    """The full id of the one fact ``given`` names (the id itself, or a unique prefix of it).

    ``where`` finishes the sentence of a miss ("in the namespaces this caller can read"). Raises
    :class:`ToolError` for a miss or a prefix that is too short, :class:`AmbiguousId` for a prefix
    that several facts share.
    """
    key = given.strip().lower()
    if len(key) < MIN_PREFIX and _HEX.fullmatch(key):
        raise ToolError(f"the fact id '{given}' is too short: give at least {MIN_PREFIX} of its characters")
    if not _HEX.fullmatch(key) or len(key) > FULL_LENGTH:
        raise ToolError(f"no fact {given} {where}")
    if len(key) == FULL_LENGTH:
        row = conn.execute("SELECT fact_id FROM silver.facts WHERE fact_id = %s", (key,)).fetchone()
        if row is None:
            raise ToolError(f"no fact {given} {where}")
        return str(row[0])
    # A range of the primary key: every hexadecimal id that starts with the prefix lies between the
    # prefix and the prefix followed by 'g', since hexadecimal digits sort 0-9 then a-f, and 'g' after
    # them (in the C collation and in the linguistic ones alike). An index range scan (about 0.1 ms);
    # LIKE would need a C-collated index, and left() a scan of every fact (90 ms at 200,000).
    found = [r[0] for r in conn.execute(
        "SELECT fact_id FROM silver.facts WHERE fact_id >= %(p)s AND fact_id < %(p)s || 'g' "
        "AND left(fact_id, %(n)s) = %(p)s ORDER BY fact_id LIMIT %(k)s",
        {"p": key, "n": len(key), "k": CANDIDATES_SHOWN + 1}).fetchall()]
    if not found:
        raise ToolError(f"no fact {given} {where}")
    if len(found) > 1:
        shown = ", ".join(found[:CANDIDATES_SHOWN]) + (" and more" if len(found) > CANDIDATES_SHOWN else "")
        raise AmbiguousId(f"the fact id prefix '{given}' matches several facts ({shown}); give more characters")
    return str(found[0])
