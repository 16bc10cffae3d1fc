"""What one event changed in what the memory believes: the answer a writer gets back.

An agent that writes "Alice moved to Porto" needs to know what the memory made of it: the facts it
added, the ones it closed, the ones it only confirmed (a repetition changes no belief), and the ones
it put in dispute. The derivation records a decision for every candidate fact of an event
(``silver.resolutions``); this module turns those decisions into served facts.

Decisions are read on the engine login (the table is the engine's audit trail, not a consumer
table), for the one event the caller has just written; the facts themselves are served on the
caller's connection, inside its row-level-security scope, through the one read model. Facts the
event did not state (the one it closed, the one it repeated) are other events' words: they are shown
only to a caller that may read the namespace. A caller that may only write learns how many there are
(each one ``{"readable": False}``), never their ids: an id would let it probe what it cannot read.
"""

from __future__ import annotations

from typing import Any

import psycopg

from medallion.serve import served

ADDED = ("added", "closed_previous", "stored_as_history", "contested")
SKIPPED = ("refreshed", "duplicate")
SHOWN = ("fact_id", "statement", "subject", "predicate", "value", "current", "contested", "valid_from", "valid_to")


def brief(fact: dict[str, Any]) -> dict[str, Any]:
    """A served fact reduced to what a writer needs to see."""
    return {key: fact.get(key) for key in SHOWN}


def of_event(engine: psycopg.Connection, conn: psycopg.Connection, namespace: str, event_id: int, *,
             may_read: bool) -> dict[str, list[dict[str, Any]]]:
    """The beliefs event ``event_id`` produced: added, superseded, contested, skipped, working memory."""
    decisions = engine.execute(
        "SELECT candidate_fact_id, outcome, target_fact_id, candidate->>'statement', candidate->>'predicate', "
        "reason FROM silver.resolutions WHERE bronze_event_id = %s ORDER BY candidate_index",
        (event_id,)).fetchall()
    added_ids = [fid for fid, outcome, *_ in decisions if outcome in ADDED]
    contested_ids = [target for _, outcome, target, *_ in decisions if outcome == "contested" and target]
    skipped_ids = [target for _, outcome, target, *_ in decisions if outcome in SKIPPED and target]
    facts = {f["fact_id"]: f for f in served.served_facts(
        conn, "f.namespace = %(ns)s AND (f.fact_id = ANY(%(ids)s) OR (f.superseded_by = ANY(%(added)s) "
        "AND f.bronze_event_id <> %(event)s))",
        {"ns": namespace, "ids": added_ids + contested_ids + skipped_ids, "added": added_ids, "event": event_id})}

    def other(fid: str) -> dict[str, Any]:
        """A fact of another event: in full for a reader; for a writer that may not read, a marker alone."""
        if not may_read:
            return {"readable": False}
        return brief(facts[fid]) if fid in facts else {"fact_id": fid}

    superseded = sorted((f for f in facts.values() if f.get("superseded_by") in added_ids
                         and f["provenance"]["bronze_event_id"] != event_id and not f["current"]),
                        key=lambda f: (f["valid_from"] or "", f["fact_id"]))
    return {
        "added": [{**brief(facts[fid]), "outcome": outcome} for fid, outcome, *_ in decisions
                  if outcome in ADDED and fid in facts],
        "superseded": [other(f["fact_id"]) for f in superseded],
        "contested": [other(fid) for fid in dict.fromkeys(contested_ids)],
        "skipped": [{"statement": statement, "already_known_as": other(target) if target else None,
                     **({"reason": reason} if may_read else {})}
                    for _, outcome, target, statement, _, reason in decisions if outcome in SKIPPED],
        "working_memory": [{"statement": statement, "predicate": pred}
                           for _, outcome, _, statement, pred, _ in decisions if outcome == "working_memory"],
    }
