"""The ledger of one namespace held in memory while it is derived, and the writes waiting to be flushed.

Resolving a candidate needs its neighbours: the open versions of its slot and the nearest open facts
of the namespace. Asking PostgreSQL for them costs a round trip and a scan per candidate; instead the
namespace's open facts (with their embeddings), entities and document heads are loaded once, kept
current in memory as events are resolved, and the resulting rows are written in batches
(:class:`WriteBuffer`), committed together with the events' ``silver.derivations`` rows so a killed
run still resumes at an event boundary. Search is exact (a dot product over unit vectors, ties
broken by fact id), so the same Bronze always yields the same decisions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import psycopg

from medallion.distill.predicates import learned_predicate
from medallion.distill.types import FactCandidate, Neighbour
from medallion.distill.vocabulary import Predicate, predicates
from medallion.silver import entities
from medallion.silver.embed import vector_arrays
from medallion.silver.judge import canonical_value

DIM = 384


@dataclass
class OpenFact:
    """A current (open) fact as resolution sees it."""

    fact_id: str
    subject_id: str
    predicate: str
    cardinality: str
    value: Any
    canon: str
    statement: str
    valid_from: datetime
    authority: int
    row: int  # row of its embedding in NamespaceState.matrix


@dataclass
class WriteBuffer:
    """Rows and updates produced by resolution, flushed in one go (order matters: see :meth:`flush`)."""

    entities: dict[str, list[Any]] = field(default_factory=dict)  # entity_id -> insert row (aliases mutable)
    aliases: dict[str, list[str]] = field(default_factory=dict)  # existing entity_id -> full alias list
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)  # new fact_id -> column values
    closes: dict[str, tuple[datetime, datetime, str]] = field(default_factory=dict)  # existing fact closes
    contests: set[str] = field(default_factory=set)
    refreshes: dict[str, datetime] = field(default_factory=dict)
    edges: list[tuple[Any, ...]] = field(default_factory=list)
    resolutions: list[tuple[Any, ...]] = field(default_factory=list)
    chunks: list[tuple[Any, ...]] = field(default_factory=list)
    working_memory: list[tuple[Any, ...]] = field(default_factory=list)
    statements: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)  # documents, in order
    derivations: list[tuple[Any, ...]] = field(default_factory=list)
    cleared_failures: list[int] = field(default_factory=list)

    def close(self, fact_id: str, valid_to: datetime, superseded_at: datetime, superseded_by: str) -> None:
        if fact_id in self.facts:
            self.facts[fact_id].update(valid_to=valid_to, superseded_at=superseded_at, superseded_by=superseded_by)
        else:
            self.closes[fact_id] = (valid_to, superseded_at, superseded_by)

    def contest(self, fact_id: str) -> None:
        if fact_id in self.facts:
            self.facts[fact_id]["contested"] = True
        else:
            self.contests.add(fact_id)

    def refresh(self, fact_id: str, at: datetime) -> None:
        if fact_id in self.facts:
            self.facts[fact_id]["verified_at"] = max(self.facts[fact_id]["verified_at"], at)
        else:
            self.refreshes[fact_id] = max(self.refreshes.get(fact_id, at), at)

    def flush(self, conn: psycopg.Connection) -> None:
        """Write everything (inside the caller's transaction): entities first, closes before inserts."""
        with conn.cursor() as cur:
            if self.entities:
                cur.executemany(
                    "INSERT INTO silver.entities (entity_id, namespace, canonical_name, normalized_name, aliases, "
                    "entity_type, first_event_id) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    list(self.entities.values()),
                )
            if self.aliases:
                cur.executemany("UPDATE silver.entities SET aliases = %s WHERE entity_id = %s",
                                [(a, eid) for eid, a in self.aliases.items()])
            if self.closes:
                cur.executemany(
                    "UPDATE silver.facts SET valid_to = %s, superseded_at = %s, superseded_by = %s "
                    "WHERE fact_id = %s AND valid_to IS NULL",
                    [(*v, fid) for fid, v in self.closes.items()],
                )
            if self.contests:
                cur.execute("UPDATE silver.facts SET contested = true WHERE fact_id = ANY(%s)",
                            (sorted(self.contests),))
            if self.refreshes:
                cur.executemany("UPDATE silver.facts SET verified_at = greatest(verified_at, %s) WHERE fact_id = %s",
                                [(t, fid) for fid, t in self.refreshes.items()])
            if self.facts:
                cols = list(next(iter(self.facts.values())))
                cur.executemany(  # binary: vectors travel as float4 arrays, not decimal text
                    f"INSERT INTO silver.facts ({', '.join(cols)}) VALUES ({', '.join(['%b'] * len(cols))})",
                    [[row[c] for c in cols] for row in self.facts.values()],
                )
            if self.edges:
                cur.executemany("INSERT INTO silver.edges (fact_id, namespace, subject_id, object_id, predicate) "
                                "VALUES (%s, %s, %s, %s, %s)", self.edges)
            if self.resolutions:
                cur.executemany(
                    "INSERT INTO silver.resolutions (bronze_event_id, candidate_index, namespace, candidate_fact_id, "
                    "decision, outcome, target_fact_id, neighbours, reason, judge, fingerprint, decided_at, candidate) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    self.resolutions,
                )
            if self.chunks:
                cur.executemany(
                    "INSERT INTO silver.chunks (chunk_id, namespace, bronze_event_id, char_start, char_end, text, "
                    "context, occurred_at, provenance_root, fingerprint, embedding, unit, thread) "
                    "VALUES (%b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b)",  # binary: vectors as float4 arrays
                    self.chunks,
                )
            if self.working_memory:
                cur.executemany(
                    "INSERT INTO silver.working_memory (item_id, namespace, subject, predicate, value, statement, "
                    "bronze_event_id, provenance_root, recorded_at, expires_at, fingerprint) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (item_id) DO NOTHING",
                    self.working_memory,
                )
            for sql_text, params in self.statements:
                cur.execute(sql_text, params)  # type: ignore[arg-type]
            if self.cleared_failures:
                cur.execute("DELETE FROM silver.derivation_failures WHERE bronze_event_id = ANY(%s)",
                            (self.cleared_failures,))
            if self.derivations:
                cur.executemany(
                    "INSERT INTO silver.derivations (bronze_event_id, namespace, fingerprint, facts, outcome) "
                    "VALUES (%s, %s, %s, %s, 'derived')",
                    self.derivations,
                )


class NamespaceState:
    """Open facts, entities and document heads of one namespace, kept current in memory."""

    def __init__(self, conn: psycopg.Connection, namespace: str):
        self.namespace = namespace
        self.by_name: dict[str, str] = {}  # normalized name -> entity id
        self.by_alias: dict[str, list[tuple[int, str]]] = {}  # alias -> [(first_event_id, entity id)]
        self.names: dict[str, str] = {}  # entity id -> canonical name
        self.entity_aliases: dict[str, list[str]] = {}
        self.by_identifier: dict[str, set[str]] = {}  # a record's identifier ("6120") -> entity ids
        self.by_given_name: dict[str, set[str]] = {}  # "dov" -> the people named "Dov …" in full
        for eid, canonical, normalized, aliases, first in conn.execute(
            "SELECT entity_id, canonical_name, normalized_name, aliases, first_event_id FROM silver.entities "
            "WHERE namespace = %s ORDER BY first_event_id, entity_id",
            (namespace,),
        ):
            self._remember_entity(eid, canonical, normalized, list(aliases), first)
        self.facts: dict[str, OpenFact] = {}
        self.slots: dict[tuple[str, str], list[str]] = {}
        self.slot_values: dict[tuple[str, str, str], set[str]] = {}  # (subject, predicate, canon) -> fact ids
        self.matrix = np.zeros((256, DIM), dtype=np.float32)
        self.active = np.zeros(256, dtype=bool)
        self.row_ids: list[str] = []
        with vector_arrays(conn.cursor(binary=True)) as cur:
            beliefs = cur.execute(
                "SELECT fact_id, subject_id, predicate, cardinality, value, statement, valid_from, authority, "
                "embedding FROM silver.facts WHERE namespace = %s AND valid_to IS NULL ORDER BY recorded_at, fact_id",
                (namespace,)).fetchall()
        for fid, sid, pred, card, value, statement, valid_from, authority, emb in beliefs:
            self.add(fid, sid, pred, card, value, statement, valid_from, authority, emb)
        # learned predicates keep the cardinality they were first seen with (rebuilds replay the same order)
        self.cardinalities: dict[str, str] = dict(conn.execute(
            "SELECT DISTINCT ON (predicate) predicate, cardinality FROM silver.facts WHERE namespace = %s "
            "ORDER BY predicate, recorded_at, fact_id", (namespace,)).fetchall())
        self.doc_heads: dict[str, str] = {}
        self.doc_versions: set[tuple[str, str]] = set()
        for path, version, is_head in conn.execute(
            "SELECT path, version_hash, is_head FROM silver.documents WHERE namespace = %s", (namespace,)
        ):
            self.doc_versions.add((path, version))
            if is_head:
                self.doc_heads[path] = version

    # --------------------------------------------------------------------------------- entities
    def _remember_entity(self, eid: str, canonical: str, normalized: str, aliases: list[str], first: int) -> None:
        self.by_name.setdefault(normalized, eid)
        self.names[eid] = canonical
        self.entity_aliases[eid] = aliases
        for alias in aliases:
            self.by_alias.setdefault(alias, []).append((first, eid))
        for name in (normalized, *aliases):
            ident = entities.identifier(name)
            if ident is not None:
                self.by_identifier.setdefault(ident, set()).add(eid)
        if entities.full_name(canonical):
            self.by_given_name.setdefault(normalized.split()[0], set()).add(eid)

    def entity(self, name: str, event_id: int, buffer: WriteBuffer, entity_type: str = "thing",
               alias: str | None = None) -> str:
        """The entity id for ``name`` (by exact normalized name, then alias, then a record's identifier,
        then a given name that one person's full name starts with), created when unknown.

        A record's identifier names it whatever word goes before it: "6120: bumped to P1" is filed
        under "Ticket 6120" when that is the one entity carrying the identifier 6120, and "6120"
        becomes its alias (two records sharing an identifier, "Ticket 6120" and "Order 6120", stay apart)."""
        key = entities.normalize(name) or name.strip().casefold()
        eid = self.by_name.get(key)
        if eid is None and key in self.by_alias:
            eid = min(self.by_alias[key])[1]
        ident = entities.identifier(key) if eid is None else None
        if ident is not None and len(self.by_identifier.get(ident, ())) == 1:
            eid = next(iter(self.by_identifier[ident]))
            alias = alias or name
        if eid is None and entities.given_name(name) and len(self.by_given_name.get(key, ())) == 1:
            eid = next(iter(self.by_given_name[key]))  # "Dov" after "Dov Arkin": the one Dov it can be
            alias = alias or name
        if eid is None:
            eid = entities.entity_id(self.namespace, name)
            aliases = [entities.normalize(alias)] if alias and entities.normalize(alias) != key else []
            buffer.entities[eid] = [eid, self.namespace, name.strip(), key, aliases, entity_type, event_id]
            self._remember_entity(eid, name.strip(), key, aliases, event_id)
            return eid
        if alias:
            alias_key = entities.normalize(alias)
            if alias_key and alias_key not in self.entity_aliases[eid] and alias_key != entities.normalize(
                    self.names[eid]):
                self.entity_aliases[eid].append(alias_key)
                self.by_alias.setdefault(alias_key, []).append((event_id, eid))
                if eid in buffer.entities:
                    buffer.entities[eid][4] = list(self.entity_aliases[eid])
                else:
                    buffer.aliases[eid] = list(self.entity_aliases[eid])
        return eid

    # ------------------------------------------------------------------------------------ facts
    def vocabulary(self, candidate: FactCandidate) -> Predicate:
        """The vocabulary entry of a candidate's predicate: the seed's row for a curated name; for a
        learned key, the cardinality it was first seen with in this namespace (the distiller's hint
        the first time), so a slot never changes kind halfway through the ledger."""
        if candidate.predicate in predicates():
            return predicates()[candidate.predicate]
        card = self.cardinalities.setdefault(candidate.predicate, candidate.cardinality or "many")
        entity_valued = candidate.value_type == "entity" or candidate.object_entity is not None
        return learned_predicate(candidate.predicate, card, entity_valued)

    def add(self, fid: str, sid: str, pred: str, card: str, value: Any, statement: str, valid_from: datetime,
            authority: int, vec: np.ndarray) -> None:
        row = len(self.row_ids)
        if row >= len(self.active):
            self.matrix = np.vstack([self.matrix, np.zeros_like(self.matrix)])
            self.active = np.concatenate([self.active, np.zeros_like(self.active)])
        self.matrix[row] = vec
        self.active[row] = True
        self.row_ids.append(fid)
        canon = canonical_value(value)
        self.facts[fid] = OpenFact(fid, sid, pred, card, value, canon, statement, valid_from, authority, row)
        self.slots.setdefault((sid, pred), []).append(fid)
        self.slot_values.setdefault((sid, pred, canon), set()).add(fid)

    def close(self, fid: str) -> None:
        fact = self.facts.pop(fid, None)
        if fact is not None:
            self.active[fact.row] = False
            self.slots[(fact.subject_id, fact.predicate)].remove(fid)
            self.slot_values[(fact.subject_id, fact.predicate, fact.canon)].discard(fid)

    def neighbours(self, subject_id: str, pred: str, cardinality: str, vec: np.ndarray, value: Any,
                   threshold: float, k: int) -> list[Neighbour]:
        """Same slot (all versions when single-valued; same value + k nearest when many-valued), then the
        k nearest open facts outside the slot whose cosine reaches ``threshold``."""
        n = len(self.row_ids)
        scores = self.matrix[:n] @ vec if n else np.zeros(0, dtype=np.float32)
        slot_ids = self.slots.get((subject_id, pred), [])
        canon = canonical_value(value)

        def key(fid: str) -> tuple[float, str]:
            return (-float(scores[self.facts[fid].row]), fid)

        if cardinality == "one" or len(slot_ids) <= k:
            chosen = sorted(slot_ids, key=key)
        else:
            same = self.slot_values.get((subject_id, pred, canon), set())
            rows = np.fromiter((self.facts[fid].row for fid in slot_ids), dtype=np.int64, count=len(slot_ids))
            slot_scores = scores[rows]
            kth = np.partition(slot_scores, len(slot_scores) - k)[len(slot_scores) - k]
            contenders = [slot_ids[i] for i in np.flatnonzero(slot_scores >= kth)]  # ties at the k-th kept
            nearest = sorted(contenders, key=key)[:k]
            chosen = sorted(set(same) | set(nearest), key=key)
        out = [self._neighbour(fid, float(scores[self.facts[fid].row]), True) for fid in chosen]
        if n:
            mask = self.active[:n].copy()
            for fid in slot_ids:
                mask[self.facts[fid].row] = False
            candidates = np.flatnonzero(mask & (scores >= threshold))
            ranked = sorted(candidates.tolist(), key=lambda r: (-float(scores[r]), self.row_ids[r]))[:k]
            out += [self._neighbour(self.row_ids[r], float(scores[r]), False) for r in ranked]
        return out

    def _neighbour(self, fid: str, score: float, same_slot: bool) -> Neighbour:
        f = self.facts[fid]
        return Neighbour(fid, self.names.get(f.subject_id, f.subject_id), f.predicate, f.value, f.statement,
                         f.valid_from, f.authority, round(score, 6), same_slot, True)

    # -------------------------------------------------------------------------------- documents
    def document_version(self, path: str, version: str) -> str:
        """'unchanged', 'reverted' or 'new_version' for publishing ``version`` at ``path`` now."""
        if self.doc_heads.get(path) == version:
            return "unchanged"
        outcome = "reverted" if (path, version) in self.doc_versions else "new_version"
        self.doc_versions.add((path, version))
        return outcome
