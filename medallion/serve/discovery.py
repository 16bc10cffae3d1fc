"""What an agent can discover before it asks: the namespaces it can see and the predicates in use.

An agent that guesses a namespace or a predicate and gets an empty answer cannot tell "nothing is
known" from "you asked for something that does not exist". These reads make the difference: a
namespace exists when it holds at least one event, a predicate is in use when a fact of the
namespace carries it (``silver.predicates``, the vocabulary table the derivation refreshes), and a
predicate that is not in use is answered with the close ones that are.

Every statement runs on the caller's connection, inside the row-level-security scope the caller
opened: events are counted through ``gold.event_provenance`` (which shows only the caller's
namespaces), facts through ``silver.predicates`` (one row per predicate, so counting is cheap).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

import psycopg

from medallion.distill.predicates import normalise_key, slot_for
from medallion.distill.vocabulary import predicates as curated_predicates
from medallion.serve import served

NAMES_SHOWN = 20  # an error names at most this many namespaces or predicates
CLOSE_SHOWN = 3


def event_counts(conn: psycopg.Connection) -> dict[str, int]:
    """Events per namespace the scope shows."""
    rows = conn.execute("SELECT namespace, count(*) FROM gold.event_provenance GROUP BY namespace").fetchall()
    return {ns: n for ns, n in rows}


def fact_counts(conn: psycopg.Connection) -> dict[str, tuple[int, int]]:
    """(facts, current facts) per namespace the scope shows, from the vocabulary table's counts."""
    rows = conn.execute("SELECT namespace, sum(fact_count), sum(current_count) FROM silver.predicates "
                        "GROUP BY namespace").fetchall()
    return {ns: (int(total), int(current)) for ns, total, current in rows}


def has_events(conn: psycopg.Connection, namespace: str) -> bool:
    """Whether the namespace holds at least one event the scope shows (one index probe)."""
    row = conn.execute("SELECT EXISTS (SELECT 1 FROM gold.event_provenance WHERE namespace = %s)",
                       (namespace,)).fetchone()
    return bool(row and row[0])


def visible_names(conn: psycopg.Connection, granted: Sequence[str]) -> list[str]:
    """The namespaces a caller can see: those it was granted by name, and with ``*`` every one that
    holds events."""
    names = {n for n in granted if n != "*"}
    if "*" in granted:
        names |= set(event_counts(conn))
    return sorted(names)


def listing(names: Sequence[str], limit: int = NAMES_SHOWN) -> str:
    """``a, b, c`` (and how many more), for one sentence; ``none`` when empty."""
    if not names:
        return "none"
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def unknown_namespace_message(namespace: str, visible: Sequence[str]) -> str:
    return (f"namespace '{namespace}' holds nothing (no such namespace in this memory); "
            f"the namespaces this caller can see are {listing(visible)}")


def in_use(conn: psycopg.Connection, namespace: str) -> list[dict[str, Any]]:
    """The predicates a namespace's facts use, the most used first: key, cardinality, origin, counts,
    an example statement, the phrases it was read from, and what it means.

    The example is a fact as served (a current one when there is one), so a person's edit or
    redaction shows in it as everywhere else.
    """
    vocabulary = curated_predicates()
    rows = conn.execute(
        "SELECT predicate, cardinality, origin, fact_count, current_count, aliases "
        "FROM silver.predicates WHERE namespace = %s ORDER BY current_count DESC, fact_count DESC, predicate",
        (namespace,)).fetchall()
    if not rows:
        return []
    firsts = dict(conn.execute(
        "SELECT DISTINCT ON (f.predicate) f.predicate, f.fact_id FROM silver.facts f WHERE f.namespace = %s "
        "ORDER BY f.predicate, (f.valid_to IS NULL) DESC, f.recorded_at, f.fact_id", (namespace,)).fetchall())
    examples = {f["predicate"]: f["statement"] for f in served.served_facts(
        conn, "f.fact_id = ANY(%(ids)s)", {"ids": list(firsts.values())})}
    out = []
    for key, cardinality, origin, total, current, aliases in rows:
        curated = vocabulary.get(key)
        out.append({
            "predicate": key, "cardinality": cardinality, "origin": origin, "facts": int(total),
            "current_facts": int(current), "example": examples.get(key), "phrases": list(aliases or []),
            "description": curated.description if curated else f"learned from the phrase '{key.replace('_', ' ')}'",
        })
    return out


def keys_and_phrases(conn: psycopg.Connection, namespace: str) -> list[dict[str, Any]]:
    """Each predicate in use with the phrases it was read from (what :func:`close_predicates` needs)."""
    rows = conn.execute("SELECT predicate, aliases FROM silver.predicates WHERE namespace = %s "
                        "ORDER BY current_count DESC, predicate", (namespace,)).fetchall()
    return [{"predicate": key, "phrases": list(aliases or [])} for key, aliases in rows]


def is_in_use(conn: psycopg.Connection, namespace: str, predicate: str) -> bool:
    row = conn.execute("SELECT EXISTS (SELECT 1 FROM silver.predicates WHERE namespace = %s AND predicate = %s)",
                       (namespace, predicate)).fetchone()
    return bool(row and row[0])


def close_predicates(given: str, used: Sequence[dict[str, Any]], limit: int = CLOSE_SHOWN) -> list[str]:
    """The predicates in use that ``given`` most likely meant, best first.

    First the predicate the phrase names the way the distiller reads a relation ("lives in",
    "home town" through the alias seed), then keys and phrases close in spelling.
    """
    keys = [row["predicate"] for row in used]
    found: list[str] = []
    slot = slot_for(given)
    if slot is not None and slot.key in keys:
        found.append(slot.key)
    by_phrase: dict[str, str] = {key: key for key in keys}
    for row in used:
        for phrase in row.get("phrases") or []:
            norm = normalise_key(phrase)
            if norm:
                by_phrase.setdefault(norm, row["predicate"])
    wanted = normalise_key(given) or given.strip().lower()
    for match in difflib.get_close_matches(wanted, list(by_phrase), n=limit * 3, cutoff=0.6):
        found.append(by_phrase[match])
    found += [k for k in keys if wanted and len(wanted) >= 3 and (wanted in k or k in wanted)]
    return list(dict.fromkeys(found))[:limit]


def unknown_predicate_message(namespace: str, predicate: str, close: Sequence[str]) -> str:
    if close:
        return (f"no fact in namespace '{namespace}' uses the predicate '{predicate}'; close ones in use: "
                f"{', '.join(close)} (the predicates tool lists every one)")
    return (f"no fact in namespace '{namespace}' uses the predicate '{predicate}'; "
            "the predicates tool lists the ones in use")
