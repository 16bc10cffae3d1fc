"""Overlay anchoring (G6): where each person's overlay applies in the current ledger.

An overlay is a Bronze event (``kind=overlay``) naming a fact id and a W3C text-quote selector
(exact, prefix, suffix) in that fact's statement; its metadata ``anchor`` records the fact's Bronze
event and slot at the time it was written. Fact ids change when a re-derivation words a fact
differently, so after every derivation the overlays of the touched namespaces are anchored again:

1. the target fact still exists and the quote is in its statement → ``anchored`` (``direct``);
2. otherwise, among the facts distilled from the same Bronze event (same slot first), the first
   whose statement contains the exact quote → ``reanchored`` (``exact``);
3. otherwise the best fuzzy match (rapidfuzz partial alignment, score ≥ ``FUZZY_MIN``) → ``reanchored``
   (``fuzzy``);
4. otherwise ``unanchored``: kept, and listed in the review queue. Never silently dropped.

A later overlay whose metadata says ``replaces`` marks the earlier one ``replaced``; ``retracts``
marks it ``retracted`` — but only when an approved request in ``gold.approvals`` names that very
event as carrying it out. Whatever door an overlay event came in by (the overlay tool, a JSONL file,
the API), one that would retract or overwrite a person's overlay without such an approval, or an
edit or redaction over a span an earlier one of the same fact already covers, is ``refused``: kept,
not applied, and listed in the review queue.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from rapidfuzz import fuzz

from medallion.bronze.contract import overlay_metadata, overlay_payload

FUZZY_MIN = 80.0
ACTIVE = ("anchored", "reanchored")


@dataclass(frozen=True)
class Anchor:
    """Where an overlay landed: the fact, the span in its statement, and how it was found."""

    fact_id: str | None
    status: str
    method: str | None
    score: float | None
    span: tuple[int, int] | None


def locate(statement: str, exact: str, prefix: str = "", suffix: str = "") -> tuple[int, int] | None:
    """The span of ``exact`` in ``statement``; prefix / suffix pick among several occurrences."""
    starts = []
    at = statement.find(exact)
    while at >= 0:
        starts.append(at)
        at = statement.find(exact, at + 1)
    if not starts:
        return None

    def context_score(start: int) -> int:
        before = statement[:start]
        after = statement[start + len(exact):]
        return int(bool(prefix) and before.endswith(prefix)) + int(bool(suffix) and after.startswith(suffix))

    best = max(starts, key=lambda s: (context_score(s), -s))
    return best, best + len(exact)


def fuzzy_locate(statement: str, exact: str) -> tuple[tuple[int, int], float] | None:
    """Best approximate occurrence of ``exact`` in ``statement`` and its score (0–100)."""
    if not statement:
        return None
    alignment = fuzz.partial_ratio_alignment(exact, statement)
    if alignment is None or alignment.score < FUZZY_MIN:
        return None
    return _whole_words(statement, alignment.dest_start, alignment.dest_end), float(alignment.score)


def _whole_words(statement: str, start: int, end: int) -> tuple[int, int]:
    """The span widened to the words it cuts: the alignment is as long as the quote, so a rewording
    that lengthened it ("standup" → "stand-up") would leave a redaction one character short."""
    while 0 < start < len(statement) and statement[start - 1].isalnum() and statement[start].isalnum():
        start -= 1
    while 0 < end < len(statement) and statement[end - 1].isalnum() and statement[end].isalnum():
        end += 1
    return start, end


def anchor(
    target: dict[str, Any] | None, siblings: Sequence[dict[str, Any]], exact: str, prefix: str, suffix: str,
    slot: tuple[str | None, str | None],
) -> Anchor:
    """Anchor one overlay: the target fact first, then the same event's facts (same slot first)."""
    if target is not None:
        span = locate(target["statement"], exact, prefix, suffix)
        if span is not None:
            return Anchor(target["fact_id"], "anchored", "direct", 100.0, span)
    ordered = sorted(siblings, key=lambda f: ((f["subject_id"], f["predicate"]) != slot, f["fact_id"]))
    for fact in ordered:
        span = locate(fact["statement"], exact, prefix, suffix)
        if span is not None:
            return Anchor(fact["fact_id"], "reanchored", "exact", 100.0, span)
    best: tuple[float, bool, dict[str, Any], tuple[int, int]] | None = None
    for fact in ordered:
        found = fuzzy_locate(fact["statement"], exact)
        if found is None:
            continue
        span, score = found
        key = (score, (fact["subject_id"], fact["predicate"]) == slot)
        if best is None or key > best[:2]:
            best = (score, key[1], fact, span)
    if best is not None:
        return Anchor(best[2]["fact_id"], "reanchored", "fuzzy", best[0], best[3])
    return Anchor(None, "unanchored", None, None, None)


def rebuild(conn: psycopg.Connection, fingerprint: str, namespaces: Sequence[str] | None = None) -> dict[str, int]:
    """Anchor every overlay event of ``namespaces`` (all when None) again; returns counts per status.

    Runs inside the caller's transaction (the derivation commits it with the ledger it anchors to).
    """
    ns_filter = None if namespaces is None else list(namespaces)
    conn.execute("DELETE FROM silver.overlays WHERE (%(ns)s::text[] IS NULL OR namespace = ANY(%(ns)s))",
                 {"ns": ns_filter})
    events = conn.execute(
        "SELECT event_id, namespace, actor, content, metadata, received_at, provenance_root FROM bronze.events "
        "WHERE kind = 'overlay' AND (%(ns)s::text[] IS NULL OR namespace = ANY(%(ns)s)) "
        "ORDER BY namespace, received_at, event_id",
        {"ns": ns_filter},
    ).fetchall()
    approved = _approvals(conn, ns_filter)
    rows: list[list[Any]] = []
    by_event: dict[int, list[Any]] = {}
    for event_id, namespace, actor, content, metadata, received_at, root in events:
        try:
            payload = overlay_payload(content)
        except ValueError:
            continue  # ingest validates overlay content; nothing invalid reaches here
        try:
            hint, link, replaced = _parse_metadata(metadata)
        except ValueError:
            continue  # refused at ingest; an older such event is parked by the derivation and listed for review
        target = _fact(conn, namespace, payload.fact_id)
        siblings = _event_facts(conn, namespace, hint.get("bronze_event_id") or (target or {}).get("bronze_event_id"))
        found = anchor(target, siblings, payload.selector.exact, payload.selector.prefix, payload.selector.suffix,
                       (hint.get("subject_id"), hint.get("predicate")))
        status = found.status
        if link is not None and approved.get(event_id) != (link, replaced):
            status = "refused"  # retracting or overwriting a person's overlay needs an approved request
        elif link is None and payload.action != "annotate" and found.span is not None \
                and _overwrites(rows, found):
            status = "refused"
        elif link == "retracts" and status == "unanchored":
            status = "retracted"  # the record of a retraction needs no anchor of its own
        row = [event_id, namespace, payload.fact_id, found.fact_id, payload.action, payload.selector.exact,
               payload.selector.prefix, payload.selector.suffix, payload.text, payload.note, status,
               found.method, found.score, found.span[0] if found.span else None,
               found.span[1] if found.span else None, actor, replaced, received_at, root, fingerprint]
        if status == "refused":
            row[3] = row[13] = row[14] = None
        rows.append(row)
        by_event[event_id] = row
        earlier = by_event.get(replaced) if status != "refused" and replaced is not None else None
        if earlier is not None:
            earlier[10] = "retracted" if link == "retracts" else "replaced"
            earlier[3] = earlier[13] = earlier[14] = None
    counts: dict[str, int] = {}
    for row in rows:
        counts[row[10]] = counts.get(row[10], 0) + 1
    if rows:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO silver.overlays (bronze_event_id, namespace, target_fact_id, fact_id, action, exact, "
                "prefix, suffix, text, note, status, anchor_method, anchor_score, span_start, span_end, author, "
                "replaces, recorded_at, provenance_root, fingerprint) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [tuple(r) for r in rows],
            )
    return counts


def _parse_metadata(metadata: dict[str, Any] | None) -> tuple[dict[str, Any], str | None, int | None]:
    """An overlay's anchor hint and which earlier overlay it replaces or retracts (at most one).

    The contract's typed view (:func:`overlay_metadata`); a shape it refuses raises ValueError.
    """
    typed = overlay_metadata(metadata if isinstance(metadata, dict) else {})
    hint = typed.anchor.model_dump() if typed.anchor is not None else {}
    if typed.replaces is not None:
        return hint, "replaces", typed.replaces
    if typed.retracts is not None:
        return hint, "retracts", typed.retracts
    return hint, None, None


def _approvals(conn: psycopg.Connection, namespaces: list[str] | None) -> dict[int, tuple[str, int]]:
    """Overlay events that carry out an approved request: event id → (link, the overlay it replaces or retracts)."""
    rows = conn.execute(
        "SELECT result_event_id, kind, overlay_event_id FROM gold.approvals WHERE status = 'approved' "
        "AND result_event_id IS NOT NULL AND (%(ns)s::text[] IS NULL OR namespace = ANY(%(ns)s))",
        {"ns": namespaces}).fetchall()
    return {event: ("retracts" if kind == "overlay_retract" else "replaces", replaced)
            for event, kind, replaced in rows}


def _overwrites(rows: Sequence[list[Any]], found: Anchor) -> bool:
    """True when an active edit or redaction already covers part of this span of the same fact."""
    assert found.span is not None
    start, end = found.span
    return any(r[3] == found.fact_id and r[10] in ACTIVE and r[4] != "annotate"
               and r[13] is not None and r[13] < end and start < r[14] for r in rows)


def _fact(conn: psycopg.Connection, namespace: str, fact_id: str) -> dict[str, Any] | None:
    row = conn.execute(
        "SELECT fact_id, statement, bronze_event_id, subject_id, predicate FROM silver.facts "
        "WHERE namespace = %s AND fact_id = %s", (namespace, fact_id),
    ).fetchone()
    return None if row is None else dict(zip(("fact_id", "statement", "bronze_event_id", "subject_id", "predicate"),
                                             row, strict=True))


def _event_facts(conn: psycopg.Connection, namespace: str, event_id: int | None) -> list[dict[str, Any]]:
    if event_id is None:
        return []
    rows = conn.execute(
        "SELECT fact_id, statement, bronze_event_id, subject_id, predicate FROM silver.facts "
        "WHERE namespace = %s AND bronze_event_id = %s ORDER BY fact_id", (namespace, event_id),
    ).fetchall()
    return [dict(zip(("fact_id", "statement", "bronze_event_id", "subject_id", "predicate"), r, strict=True))
            for r in rows]


def anchor_hint(fact: dict[str, Any]) -> dict[str, Any]:
    """The metadata an overlay event carries so it can re-anchor after a re-derivation."""
    return {"anchor": {"bronze_event_id": fact["bronze_event_id"], "subject_id": fact["subject_id"],
                       "predicate": fact["predicate"]}}
