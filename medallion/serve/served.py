"""The read model: a fact as every consumer is served it, with the people's overlays composed in.

One definition for the tools, the wiki, the Hindsight mirror and the benches, so that a fact reads
the same wherever it is shown: an edit replaces its span, a redaction masks it in the statement and
the value (and :func:`redactions_by_event` masks it in chunk snippets), and ``current`` says whether
the belief is still open. The SQL runs on the caller's connection, inside the row-level-security
scope the caller opened (``Tools.scope``): it reads only what that scope shows, and never a fact or
chunk its data subject asked the memory to forget (``silver.withheld``, left out by the tool login's
row-level security; see ``silver/withhold.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import psycopg

from medallion.silver import entities
from medallion.silver import queries as silver_queries

REDACTED = "[redacted]"
# What the Hindsight mirror retains (audit/hindsight_mirror.py) and what its answers must still be in the ledger
# to be served: current, uncontested, of the authority tiers 1-2.
MIRRORED_MAX_AUTHORITY = 2
AUTHORITATIVE = "f.valid_to IS NULL AND NOT f.contested AND f.authority <= %(max_authority)s"

# The active overlays of each fact ``f`` as one JSON column ``overlays`` (composed on read).
OVERLAYS_JOIN = """
LEFT JOIN LATERAL (
    SELECT json_agg(json_build_object(
               'overlay_id', o.bronze_event_id, 'action', o.action, 'exact', o.exact, 'text', o.text,
               'note', o.note, 'author', o.author, 'status', o.status, 'anchor_method', o.anchor_method,
               'span', json_build_array(o.span_start, o.span_end), 'recorded_at', o.recorded_at)
           ORDER BY o.recorded_at, o.bronze_event_id) AS overlays
    FROM silver.overlays o
    WHERE o.fact_id = f.fact_id AND o.status IN ('anchored', 'reanchored')
) ov ON true
"""


# gold.event_provenance is a security-barrier view: joined directly, its key cannot drive an index scan
# (the join clause may not move below the barrier's own filter), so each fact looks up its event in a
# lateral subquery that OFFSET 0 keeps whole, where the key is a leakproof restriction the index serves.
_FACT_SELECT = """
SELECT f.fact_id, e.canonical_name, f.predicate, f.value, f.statement, f.valid_from, f.valid_to, f.recorded_at,
       f.superseded_at, f.verified_at, f.authority, f.confidence, f.contested, f.superseded_by, f.importance,
       f.bronze_event_id, f.namespace, f.source, p.source_event_id, f.provenance_root
       , ov.overlays{columns}
FROM {source} f
JOIN silver.entities e ON e.entity_id = f.subject_id
LEFT JOIN LATERAL (SELECT p.source_event_id{provenance} FROM gold.event_provenance p \
WHERE p.event_id = f.bronze_event_id
                   OFFSET 0) p ON true
""" + OVERLAYS_JOIN
FACT_SELECT = _FACT_SELECT.replace("{columns}", "").replace("{provenance}", "")


def fact_select(source: str, *, columns: str = "", provenance: str = "", joins: str = "") -> str:
    """:data:`FACT_SELECT` over ``source`` with more: ``columns`` after ``overlays`` (each with its
    leading comma), ``provenance`` columns of the fact's event (alias ``p`` inside its lookup, the same
    way: ``", p.occurred_at"``; outside it ``p.<column>``) and ``joins`` after the overlays'.

    Why: search reads what its later stages need of a candidate (its embedding, its subject's names,
    its slot, when its event happened) in the same lookups that serve it, rather than looking the
    fact, its subject and its event up again in another part of its statement.
    """
    return (_FACT_SELECT.replace("{columns}", columns).replace("{provenance}", provenance)
            .replace("{source}", source) + joins)


def compose(fact: dict[str, Any], applied: list[dict[str, Any]]) -> dict[str, Any]:
    """The fact as served: edits and redactions applied to statement and value; the person wins.

    ``_redacted`` keeps the redacted phrases for the caller that must also mask them elsewhere (a
    search drops a fact found by its redacted words); :func:`finish` removes it before serving.
    """
    statement = fact["statement"]
    value = fact["value"]
    taken: list[tuple[int, int]] = []
    # later overlays win: apply newest first, skip spans an applied overlay already covers
    for item in sorted(applied, key=lambda o: (o["recorded_at"] or "", o["overlay_id"]), reverse=True):
        if item["action"] == "annotate":
            continue
        start, end = item["span"]
        if start is None or any(s < end and start < e for s, e in taken):
            continue
        taken.append((start, end))
    replacements = {(o["span"][0], o["span"][1]): o for o in applied if o["action"] != "annotate"
                    and (o["span"][0], o["span"][1]) in taken}
    for (start, end), item in sorted(replacements.items(), reverse=True):
        new = REDACTED if item["action"] == "redact" else (item["text"] or "")
        statement = statement[:start] + new + statement[end:]
        if isinstance(value, str) and item["exact"] in value:
            value = value.replace(item["exact"], new)
    composed = dict(fact)
    composed["statement"] = statement
    composed["value"] = value
    composed["overlays"] = [
        {"overlay_id": o["overlay_id"], "action": o["action"], "author": o["author"], "status": o["status"],
         "anchor_method": o["anchor_method"], "recorded_at": o["recorded_at"],
         **({"text": o["text"]} if o["action"] == "edit" else {}),
         **({"note": o["note"]} if o["note"] else {})}
        for o in applied
    ]
    composed["_redacted"] = [o["exact"] for o in applied if o["action"] == "redact"]
    return composed


def finish(fact: dict[str, Any]) -> dict[str, Any]:
    """A composed fact ready to serve: ``current`` set, the redacted phrases dropped."""
    fact = dict(fact)
    fact.pop("_redacted", None)
    fact["current"] = fact["valid_to"] is None
    return fact


def served_facts(conn: psycopg.Connection, where: str, params: dict[str, Any], *, source: str = "silver.facts",
                 order: str = "f.valid_from, f.recorded_at, f.fact_id", limit: int | None = None,
                 keep_redactions: bool = False) -> list[dict[str, Any]]:
    """The facts of ``source`` (alias ``f``) matching ``where``, as served; with ``keep_redactions``
    each keeps its ``_redacted`` phrases (see :func:`compose`) and is not yet finished."""
    sql = FACT_SELECT.format(source=source) + f"WHERE {where} ORDER BY {order}"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    composed = [composed_row(row) for row in conn.execute(sql, params).fetchall()]
    return composed if keep_redactions else [finish(r) for r in composed]


def composed_row(row: Sequence[Any]) -> dict[str, Any]:
    """One row of :data:`FACT_SELECT` composed with its overlays (not yet finished, see :func:`compose`)."""
    applied = [{**o, "span": tuple(o["span"])} for o in (row[-1] or [])]
    return compose(silver_queries.as_json(tuple(row[:-1])), applied)


def redactions_by_event(conn: psycopg.Connection, event_ids: Sequence[int]) -> dict[int, list[str]]:
    """Redacted phrases of the facts of these Bronze events: masked in their chunks' snippets too."""
    if not event_ids:
        return {}
    found: dict[int, list[str]] = {}
    for event_id, exact in conn.execute(
            "SELECT f.bronze_event_id, o.exact FROM silver.overlays o JOIN silver.facts f ON f.fact_id = o.fact_id "
            "WHERE f.bronze_event_id = ANY(%s) AND o.action = 'redact' AND o.status IN ('anchored', 'reanchored')",
            (list(event_ids),)).fetchall():
        found.setdefault(event_id, []).append(exact)
    return found


def freshness(fact: dict[str, Any]) -> float:
    """How recently a person verified the fact, from 1 (today) decaying over a year; 0 if never."""
    verified = fact.get("verified_at")
    if not verified:
        return 0.0
    age_days = (datetime.now(UTC) - datetime.fromisoformat(verified)).total_seconds() / 86400
    return math.exp(-max(age_days, 0.0) / 365.0)


def slot_filters(conn: psycopg.Connection, namespace: str, subject: str | None, predicate: str | None,
                 where: list[str], params: dict[str, Any]) -> bool:
    """Add the subject / predicate conditions of a fact query; False when the subject names no entity."""
    if subject:
        ids = entities.find(conn, namespace, subject)
        if not ids:
            return False
        where.append("f.subject_id = ANY(%(ids)s)")
        params["ids"] = ids
    if predicate:
        where.append("f.predicate = %(p)s")
        params["p"] = predicate
    return True


# The one order of each kind of read; the tools, the demo and the tests all read slots through these.
CURRENT_ORDER = "f.authority, f.valid_from DESC, f.fact_id"  # the most authoritative, then the newest, first
HISTORY_ORDER = "f.valid_from, f.recorded_at, f.fact_id"


def current(conn: psycopg.Connection, namespace: str, subject: str, predicate: str) -> list[dict[str, Any]]:
    """Every open version of a slot (several when many-valued or contested), most authoritative and
    newest first."""
    return _slot(conn, namespace, subject, predicate, "AND f.valid_to IS NULL", CURRENT_ORDER)


def history(conn: psycopg.Connection, namespace: str, subject: str, predicate: str) -> list[dict[str, Any]]:
    """Every version of a slot, by ``valid_from``."""
    return _slot(conn, namespace, subject, predicate, "", HISTORY_ORDER)


# The entities a name names (entities.find), as a condition on ``f``: a slot read is one statement.
# Search's filter of a subject (serve/search.py).
SUBJECT_NAMED = ("f.subject_id IN (SELECT e.entity_id FROM silver.entities e WHERE e.namespace = %(ns)s "
                 "AND (e.normalized_name = %(subject)s OR %(subject)s = ANY(e.aliases)))")
# The same entities for a slot read, each lookup by an index. Under the tool login's row-level
# security `= ANY(aliases)` reaches no index (it is not leakproof), so SUBJECT_NAMED scans every
# entity of the namespace (1.3 ms at 5k entities); here the name is looked up by its unique key and
# the alias by silver.entities_aliased (the GIN index), and the scan runs only where that function
# sees nothing: a connection outside a scope (the engine's, which row-level security does not narrow).
# The ids come as one array (an InitPlan): the planner then expects a few subjects and joins their
# facts to their entities by key, where a set it could not size made the generic plan hash every
# entity of the namespace.
SLOT_SUBJECT = ("f.subject_id = ANY(ARRAY(SELECT e.entity_id FROM silver.entities e WHERE e.namespace = %(ns)s "
                "AND e.normalized_name = %(subject)s UNION ALL SELECT a.entity_id "
                "FROM silver.entities_aliased(%(ns)s, ARRAY[%(subject)s]) a UNION ALL SELECT e.entity_id "
                "FROM silver.entities e WHERE NOT auth.visible(%(ns)s) AND e.namespace = %(ns)s "
                "AND %(subject)s = ANY(e.aliases)))")


def _slot(conn: psycopg.Connection, namespace: str, subject: str, predicate: str, extra: str,
          order: str) -> list[dict[str, Any]]:
    return served_facts(conn, f"f.namespace = %(ns)s AND {SLOT_SUBJECT} AND f.predicate = %(p)s {extra}",
                        {"ns": namespace, "subject": entities.normalize(subject), "p": predicate}, order=order)


def as_of(conn: psycopg.Connection, namespace: str, *, valid_at: datetime, recorded_at: datetime,
          subject: str | None = None, predicate: str | None = None) -> list[dict[str, Any]]:
    """What was believed at transaction time ``recorded_at`` about what was true at ``valid_at``."""
    where: list[str] = ["true"]
    params: dict[str, Any] = {"ns": namespace, "v": valid_at, "r": recorded_at}
    if not slot_filters(conn, namespace, subject, predicate, where, params):
        return []
    return served_facts(conn, " AND ".join(where), params, source="silver.facts_as_of(%(ns)s, %(v)s, %(r)s)",
                        order="e.canonical_name, f.predicate, f.valid_from, f.fact_id")


def contested(conn: psycopg.Connection, namespace: str) -> list[dict[str, Any]]:
    """The open contested facts of a namespace (what the review queue lists as pairs)."""
    return served_facts(conn, "f.namespace = %(ns)s AND f.contested AND f.valid_to IS NULL", {"ns": namespace},
                        order="e.canonical_name, f.predicate, f.fact_id")


def stale(conn: psycopg.Connection, namespace: str, now: datetime, min_importance: float = 0.5) -> list[dict[str, Any]]:
    """Load-bearing current facts past their half-life since a person last verified them (the
    re-verify queue), the most important and longest unverified first."""
    return served_facts(conn, "f.namespace = %(ns)s AND f.valid_to IS NULL AND f.importance >= %(min)s "
                        "AND %(now)s - f.verified_at > f.half_life",
                        {"ns": namespace, "min": min_importance, "now": now},
                        order="f.importance DESC, f.verified_at, f.fact_id")
