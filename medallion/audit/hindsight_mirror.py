"""Hindsight as an optional peer cache (A2, and the first hop of the G5 cascade).

Hindsight is fast and possibly lossy; the ledger is the truth. This module is the one small
interface between them, and it only ever pushes one way:

* :func:`mirror` retains each authoritative current fact (``silver.facts`` open, not contested,
  ``authority <= max_authority``) into the bank named after its namespace, under a document id
  that is the fact's *slot*, so re-mirroring a slot replaces what Hindsight held for it (Hindsight's
  retain with an existing document id replaces that document). Documents of slots the ledger no
  longer holds an authoritative current fact for are invalidated in Hindsight (kept there for its
  own audit, excluded from its recall). Nothing is ever read back into the ledger: no two-way sync.
* :func:`sample_audit` draws N authoritative slots and classifies Hindsight's copy of each as
  ``agree`` / ``disagree`` / ``missing`` / ``stale`` for the drift report (A1 d).
* :func:`recall` checks Hindsight's answers against the ledger over an engine connection: any answer
  whose fact the ledger no longer holds as current is dropped, so a superseded fact is never served.

The mirror keeps no state of its own (no migration): what was mirrored is read back from
Hindsight's document listing and compared with the ledger each run.

What is mirrored is the fact *as served* (composed with people's overlays, G6): a redacted
span never reaches Hindsight.

The client itself (:class:`~medallion.peers.hindsight.HindsightPeer`) knows no ledger.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

from medallion.peers.hindsight import HindsightPeer, Memory
from medallion.peers.hindsight import recall as peer_recall
from medallion.serve.served import AUTHORITATIVE, MIRRORED_MAX_AUTHORITY, OVERLAYS_JOIN, REDACTED, compose

STATUSES = ("agree", "disagree", "missing", "stale")
_SPACE = re.compile(r"\s+")

_FACTS_SQL = """
SELECT f.fact_id, f.namespace, f.subject_id, f.predicate, f.cardinality, f.value, f.value_text, f.statement,
       f.valid_from, f.valid_to, f.authority, f.contested, ov.overlays
FROM silver.facts f
""" + OVERLAYS_JOIN + """WHERE (%(ns)s::text[] IS NULL OR f.namespace = ANY(%(ns)s)) {extra}
  AND NOT EXISTS (SELECT 1 FROM silver.withheld w WHERE w.item_id = f.fact_id)
ORDER BY f.namespace, f.subject_id, f.predicate, f.valid_from, f.fact_id
"""
_AUTHORITATIVE = "AND " + AUTHORITATIVE


@dataclass(frozen=True)
class LedgerFact:
    """A ledger fact as served (overlays applied), with the Hindsight document id of its slot."""

    fact_id: str
    namespace: str
    document_id: str
    subject_id: str
    predicate: str
    value_text: str
    statement: str
    valid_from: datetime
    current: bool
    authority: int
    contested: bool

    @property
    def statement_sha(self) -> str:
        return _sha(self.statement)

    def metadata(self) -> dict[str, str]:
        """What Hindsight keeps next to the text: enough to tell a stale copy from a conflicting one."""
        return {"fact_id": self.fact_id, "value_text": self.value_text, "valid_from": self.valid_from.isoformat(),
                "subject_id": self.subject_id, "predicate": self.predicate, "authority": str(self.authority),
                "statement_sha": self.statement_sha, "mirrored_by": "medallion-memory"}


def _sha(text: str, n: int = 16) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def slot_id(namespace: str, subject_id: str, predicate: str, cardinality: str, value_text: str) -> str:
    """The Hindsight document id of a slot: ``subject:predicate``, plus a value hash when many-valued.

    A single-valued slot has one document, so a newer version replaces the older one there; each value
    of a many-valued slot is its own document, so mirroring one value never erases its siblings.
    """
    base = f"{subject_id}:{predicate}"
    if cardinality == "many":
        return f"{base}:{_sha(chr(31).join((namespace, subject_id, predicate, value_text)))}"
    return base


def _normal(text: str) -> str:
    """Whitespace-insensitive comparison key (Hindsight may split a long text into chunks)."""
    return _SPACE.sub("", text or "").casefold()


# ---------------------------------------------------------------------- the ledger side
def ledger_facts(conn: psycopg.Connection, namespaces: Sequence[str] | None = None, *,
                 authoritative_only: bool = False, max_authority: int = MIRRORED_MAX_AUTHORITY,
                 fact_ids: Sequence[str] | None = None) -> list[LedgerFact]:
    """Ledger facts as served (people's overlays applied; never one its data subject asked to forget),
    optionally only the authoritative current ones."""
    extra = (_AUTHORITATIVE if authoritative_only else "") + (" AND f.fact_id = ANY(%(ids)s)" if fact_ids else "")
    rows = conn.execute(_FACTS_SQL.format(extra=extra), {"ns": list(namespaces) if namespaces else None,
                                                         "max_authority": max_authority,
                                                         "ids": list(fact_ids or [])})
    facts = []
    for (fact_id, ns, subject_id, predicate, cardinality, value, value_text, statement, valid_from, valid_to,
         authority, contested, overlays) in rows.fetchall():
        served_statement, served_value_text = statement, value_text
        if overlays:
            applied = [{**o, "span": tuple(o["span"])} for o in overlays]
            composed = compose({"statement": statement, "value": value}, applied)
            served_statement = composed["statement"]
            if isinstance(composed["value"], str):
                served_value_text = composed["value"]
            for exact in composed["_redacted"]:
                served_value_text = served_value_text.replace(exact, REDACTED)
        # a many-valued slot is keyed on the raw value, so an overlay never moves a fact to another document
        facts.append(LedgerFact(fact_id=fact_id, namespace=ns,
                                document_id=slot_id(ns, subject_id, predicate, cardinality, value_text),
                                subject_id=subject_id, predicate=predicate, value_text=served_value_text,
                                statement=served_statement, valid_from=valid_from, current=valid_to is None,
                                authority=authority, contested=contested))
    return facts


def _namespaces(conn: psycopg.Connection, namespaces: Sequence[str] | None) -> list[str]:
    if namespaces:
        return list(namespaces)
    return [r[0] for r in conn.execute("SELECT DISTINCT namespace FROM silver.facts ORDER BY 1").fetchall()]


def mirror(conn: psycopg.Connection, peer: HindsightPeer, namespaces: Sequence[str] | None = None,
           max_authority: int = MIRRORED_MAX_AUTHORITY) -> dict[str, Any]:
    """One-way mirror of authoritative current facts into Hindsight (A2). Returns counts and timings.

    Per namespace: Hindsight's documents are listed once; a slot is (re-)retained when Hindsight lacks
    it or holds another fact or wording for it (retain replaces the document), and skipped when it
    already holds this fact verbatim, so a re-mirror costs one listing plus the changes. Documents of
    ledger slots that have no authoritative current fact any more (superseded, contested, demoted)
    are invalidated. Documents Hindsight holds under ids the ledger never produced are left alone:
    the bank may be shared with agents writing their own memories.
    """
    started = time.perf_counter()
    counts = {"facts": 0, "retained": 0, "unchanged": 0, "invalidated_documents": 0, "invalidated_memories": 0}
    timings = {"ledger_s": 0.0, "list_s": 0.0, "retain_s": 0.0, "invalidate_s": 0.0}
    done_namespaces = []
    for ns in _namespaces(conn, namespaces):
        t = time.perf_counter()
        every = ledger_facts(conn, [ns], max_authority=max_authority)
        current = {f.document_id: f for f in every
                   if f.current and not f.contested and f.authority <= max_authority}
        gone = sorted({f.document_id for f in every} - set(current))
        timings["ledger_s"] += time.perf_counter() - t
        counts["facts"] += len(current)
        done_namespaces.append(ns)

        t = time.perf_counter()
        held = peer.documents(ns)
        timings["list_s"] += time.perf_counter() - t

        todo = [f for doc, f in current.items() if not _holds(held.get(doc, []), f)]
        counts["unchanged"] += len(current) - len(todo)
        t = time.perf_counter()
        if todo:
            peer.retain_many(ns, [(f.document_id, f.statement, f.metadata(), f.valid_from.isoformat()) for f in todo])
        timings["retain_s"] += time.perf_counter() - t
        counts["retained"] += len(todo)

        stale = [doc for doc in gone if held.get(doc)]
        t = time.perf_counter()
        if stale:
            counts["invalidated_memories"] += peer.invalidate_many(ns, stale)
        timings["invalidate_s"] += time.perf_counter() - t
        counts["invalidated_documents"] += len(stale)
    return {"namespaces": done_namespaces, **counts, "seconds": round(time.perf_counter() - started, 3),
            **{k: round(v, 3) for k, v in timings.items()}}


def _holds(memories: Sequence[Memory], fact: LedgerFact) -> bool:
    """Whether Hindsight already holds exactly this fact, as served, for its slot."""
    return bool(memories) and all(m.fact_id == fact.fact_id and m.metadata.get("statement_sha") == fact.statement_sha
                                  for m in memories) and _normal(" ".join(m.text for m in memories)) == _normal(
        fact.statement)


def _sample_key(seed: int, fact: LedgerFact) -> str:
    return hashlib.sha256(f"{seed}\x1f{fact.namespace}\x1f{fact.document_id}".encode()).hexdigest()


def sample_audit(conn: psycopg.Connection, peer: HindsightPeer, n: int = 20, seed: int = 0,
                 namespaces: Sequence[str] | None = None,
                 max_authority: int = MIRRORED_MAX_AUTHORITY) -> list[dict[str, Any]]:
    """Draw ``n`` authoritative current slots and classify Hindsight's copy of each (A2).

    The sample is deterministic: slots are ranked by a hash of (seed, namespace, slot), so the same
    seed draws the same slots, and a slot once drawn stays drawn as the ledger grows.

    ``agree``: Hindsight's text is the ledger's current statement. ``stale``: it is a version of the
    slot the ledger has closed (by fact id, statement or value). ``disagree``: anything else.
    ``missing``: Hindsight holds nothing active for the slot.
    """
    every = ledger_facts(conn, namespaces, max_authority=max_authority)
    current = [f for f in every if f.current and not f.contested and f.authority <= max_authority]
    closed: dict[tuple[str, str], list[LedgerFact]] = {}
    for f in every:
        if not f.current:
            closed.setdefault((f.namespace, f.document_id), []).append(f)
    drawn = sorted(current, key=lambda f: _sample_key(seed, f))[:max(0, n)]
    drawn.sort(key=lambda f: (f.namespace, f.document_id))
    by_bank: dict[str, list[LedgerFact]] = {}
    for f in drawn:
        by_bank.setdefault(f.namespace, []).append(f)
    results = []
    for ns, facts in by_bank.items():
        held = peer.values_of(ns, [f.document_id for f in facts])
        for f in facts:
            results.append(classify(f, held[f.document_id], closed.get((ns, f.document_id), [])))
    return results


def classify(fact: LedgerFact, memories: Sequence[Memory], closed: Sequence[LedgerFact]) -> dict[str, Any]:
    """Compare Hindsight's memories for a slot with the ledger's current fact and its closed versions."""
    text = " ".join(m.text for m in memories)
    values = {m.metadata.get("value_text") for m in memories} - {None}
    values_seen = len(values) == 1
    hindsight_value = values.pop() if values_seen else (text or None)
    ids = {m.fact_id for m in memories} - {None}
    if not memories:
        status = "missing"
    elif _normal(text) == _normal(fact.statement):
        status = "agree"
    elif not ids & {fact.fact_id} and (
            ids & {c.fact_id for c in closed}
            or _normal(text) in {_normal(c.statement) for c in closed}
            or (hindsight_value is not None and values_seen and hindsight_value != fact.value_text
                and hindsight_value in {c.value_text for c in closed})):
        status = "stale"
    else:
        status = "disagree"
    return {"slot": fact.document_id, "namespace": fact.namespace, "fact_id": fact.fact_id,
            "ledger_value": fact.value_text, "ledger_statement": fact.statement,
            "hindsight_value": hindsight_value, "hindsight_text": text or None,
            "hindsight_fact_id": ",".join(sorted(ids)) or None, "status": status}


def as_findings(results: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sample's non-agreeing slots as drift-report findings (``check = 'hindsight'``, A1 d)."""
    labels = {"disagree": "disagrees with", "missing": "is missing", "stale": "is stale against"}
    findings = []
    for r in results:
        if r["status"] == "agree":
            continue
        verb = labels[r["status"]]
        detail = (f"Hindsight {verb} the ledger for slot {r['slot']}: ledger {r['ledger_value']!r} "
                  f"(fact {r['fact_id']})" + (f", Hindsight {r['hindsight_value']!r}" if r["hindsight_value"] else ""))
        findings.append({"check": "hindsight", "severity": "warning", "namespace": r["namespace"],
                         "detail": detail, "status": r["status"], "slot": r["slot"], "fact_id": r["fact_id"]})
    return findings


def recall(peer: HindsightPeer, namespace: str, query: str, k: int = 5, *,
           conn: psycopg.Connection | None = None, max_authority: int = MIRRORED_MAX_AUTHORITY) -> list[dict[str, Any]]:
    """Hindsight's answers (:func:`medallion.peers.hindsight.recall`), checked against the ledger.

    With ``conn`` (an engine connection, for the audit) Hindsight only ranks: answers whose fact the
    ledger does not hold as authoritative and current are dropped (a superseded fact is never served
    as current, nor a memory the mirror did not write), and the rest are served as the ledger serves
    them today (statement and value with overlays applied, so a redaction made since the last mirror
    still masks), marked ``verified``; Hindsight's own text stays in ``hindsight_statement``. The tools
    do the same check under the caller's row-level security instead (``serve/tools.py``).
    """
    answers = peer_recall(peer, namespace, query, k)
    if conn is None:
        return answers
    ids = [a["fact_id"] for a in answers if a["fact_id"]]
    live = {f.fact_id: f for f in ledger_facts(conn, [namespace], authoritative_only=True,
                                               max_authority=max_authority, fact_ids=ids)} if ids else {}
    return [{**a, "statement": live[a["fact_id"]].statement, "value": live[a["fact_id"]].value_text,
             "hindsight_statement": a["statement"], "verified": True}
            for a in answers if a["fact_id"] in live]
