"""Hybrid search as stages over one :class:`SearchRequest`: candidates → verification → fusion →
serving (redaction) → the present → grouping.

Candidates come from five ranked lists: one pgvector HNSW list and one BM25 full-text list over
facts and chunks together (each merged by its own score, see :func:`merged`), the same two over whole
passages only, and the graph's list (``serve/graph.py``: the slots the query names and multi-hop paths
over current beliefs). Fusion (``serve/fusion.py``) gives every list one vote per Bronze event.
Verification checks each chunk hit against the ledger: the facts it supports that are believed now
(or at ``as_of``). Serving applies the people's overlays (``serve/served.py``) and drops
what was found by redacted words. For a question about now, ``serve/present.py`` then puts the newest
of similar candidates about one subject first. Grouping keeps one result per event, its other hits
under ``same_event``.

Every statement runs on the caller's connection, inside the row-level-security scope the caller
opened; nothing here checks capabilities (``serve/tools.py`` does, before it opens the scope).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

import psycopg

from medallion.serve import fusion, graph, present, served
from medallion.silver import queries as silver_queries
from medallion.silver.embed import load_model

CANDIDATES = 50  # each list's length
_WORD = re.compile(r"[\w'-]+", re.UNICODE)
STOP_WORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from", "has", "have",
    "how", "i", "in", "is", "it", "its", "of", "on", "or", "our", "she", "he", "that", "the", "their",
    "them", "they", "this", "to", "was", "were", "what", "when", "where", "which", "who", "whom", "why",
    "will", "with", "you", "your",
))


@dataclass(frozen=True)
class SearchRequest:
    """One search: what to look for, where, and which beliefs may answer.

    ``min_authority`` keeps facts at least that authoritative (tier ≤ N); ``as_of`` answers with what
    was believed then about then; ``include_superseded`` also serves closed beliefs (marked
    ``current: false``); ``per_event`` makes the k results k different Bronze events.
    """

    namespace: str
    query: str
    k: int = 10
    subject: str | None = None
    predicate: str | None = None
    min_authority: int | None = None
    include_superseded: bool = False
    as_of: datetime | None = None
    include_chunks: bool = True
    per_event: bool = True

    @property
    def narrowed(self) -> bool:
        """Restricted to some facts: chunks (which have no slot or authority) cannot answer."""
        return bool(self.subject or self.predicate or self.min_authority is not None)


@dataclass
class Candidates:
    """The ranked lists of one request, and what the later stages need to read them."""

    lists: dict[str, list[str]] = field(default_factory=dict)
    graph_weight: float = 1.0
    chunk_rows: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # chunk_id -> its row (see _chunk_rows)
    source: str = "silver.facts"  # the facts relation: the ledger, or as believed at as_of
    params: dict[str, Any] = field(default_factory=dict)
    fact_ids: list[str] = field(default_factory=list)  # every fact candidate, once
    event_of: dict[str, Any] = field(default_factory=dict)  # fact or chunk id -> its Bronze event


def words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text or "")}


@lru_cache(maxsize=2048)
def query_vector(model_name: str, query: str) -> list[float]:
    """Query embeddings (not cached in Silver: queries are not derivations).

    One short sentence is encoded on one thread: thread start-up and contention cost more than the
    work (measured: 10–25 ms on one thread against 150–450 ms with torch's default two on a busy box).
    """
    import torch

    model = load_model(model_name)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return model.encode([query], normalize_embeddings=True)[0].tolist()
    finally:
        torch.set_num_threads(threads)


def content_words(query: str) -> list[str]:
    """The query's content words, in order, once each (stop words and punctuation dropped)."""
    found = [re.sub(r"[^\w]", "", w) for w in (m.lower() for m in _WORD.findall(query))]
    return list(dict.fromkeys(w for w in found if w and w not in STOP_WORDS and len(w) > 1))


def tsquery(query: str) -> str | None:
    """An OR of the query's content words for ``to_tsquery``."""
    return " | ".join(content_words(query)) or None


def tsqueries(query: str) -> dict[str, str | None]:
    """The three full-text passes: all words, any two of the first eight, any one (see silver.fts_facts)."""
    found = content_words(query)
    if not found:
        return {"tsq_all": None, "tsq_pairs": None, "tsq": None}
    head = found[:8]
    pairs = " | ".join(f"({a} & {b})" for a, b in itertools.combinations(head, 2)) or head[0]
    return {"tsq_all": " & ".join(found), "tsq_pairs": pairs, "tsq": " | ".join(found)}


def search(conn: psycopg.Connection, request: SearchRequest, vector: list[float]) -> list[dict[str, Any]]:
    """The request's k results, best first (facts and chunks, as served)."""
    found = candidates(conn, request, vector)
    if found is None:
        return []
    standing = verify(conn, request, found)
    scores = fuse(found)
    results = serve(conn, request, found, scores, standing)
    results.sort(key=lambda r: (-r["score"], r["kind"], r.get("fact_id") or r.get("chunk_id")))
    if request.as_of is None:  # at a past moment the ledger of then answers; about now, the newest first
        results = present.reorder(conn, request.query, vector, results)
    return (group_by_event(results) if request.per_event else results)[:request.k]


def candidates(conn: psycopg.Connection, request: SearchRequest, vector: list[float]) -> Candidates | None:
    """Every ranked list of the request; ``None`` when its subject names no entity."""
    filters = ["f.namespace = %(ns)s", "f.embedding IS NOT NULL"]
    params: dict[str, Any] = {"ns": request.namespace, "q": str(vector), "n": CANDIDATES,
                              **tsqueries(request.query)}
    if not served.slot_filters(conn, request.namespace, request.subject, request.predicate, filters, params):
        return None
    if request.min_authority is not None:
        filters.append("f.authority <= %(auth)s")
        params["auth"] = int(request.min_authority)
    source = "silver.facts"
    when = request.as_of
    if when is not None:
        source = "silver.facts_as_of(%(ns)s, %(when)s, %(when)s)"
        params["when"] = when
    elif not request.include_superseded:
        filters.append("f.valid_to IS NULL")
    where = " AND ".join(filters)
    found = Candidates(source=source, params=params)
    lists = found.lists
    fact_vector = [(r[0], 1.0 - float(r[1])) for r in conn.execute(
        f"SELECT f.fact_id, f.embedding <=> %(q)s::vector FROM {source} f WHERE {where} "
        "ORDER BY f.embedding <=> %(q)s::vector LIMIT %(n)s", params).fetchall()]
    fact_text = _fact_text_list(conn, request, source, where, params) if params["tsq"] else []
    # the graph's answer: the slots the question names, and multi-hop paths over current beliefs
    lists["graph"], found.graph_weight = graph.search_list(
        conn, request.namespace, request.query, source=source, where=where, params=params,
        believed="f.valid_to IS NULL" if when is None else "TRUE", limit=CANDIDATES)
    chunk_vector: list[tuple[str, float]] = []
    chunk_text: list[tuple[str, float]] = []
    if request.include_chunks and not request.narrowed:
        chunk_vector, chunk_text = _chunk_lists(conn, request, params, lists)
    lists["vector"] = merged(fact_vector, chunk_vector, limit=CANDIDATES)
    if params["tsq"]:
        lists["text"] = merged(fact_text, chunk_text, limit=CANDIDATES)
    is_fact = {fid for fid, _ in fact_vector + fact_text}
    found.fact_ids = list(dict.fromkeys(
        [i for i in lists["vector"] + lists.get("text", []) if i in is_fact] + lists["graph"]))
    chunk_ids = list(dict.fromkeys(i for name in ("vector", "text", "passage_vector", "passage_text")
                                   for i in lists.get(name, []) if i not in is_fact))
    found.chunk_rows = _chunk_rows(conn, chunk_ids)
    found.event_of = dict(conn.execute(
        "SELECT fact_id, bronze_event_id FROM silver.facts WHERE fact_id = ANY(%s)", (found.fact_ids,)).fetchall()
        if found.fact_ids else [])
    found.event_of.update({cid: row[1] for cid, row in found.chunk_rows.items()})
    return found


def merged(*ranked: list[tuple[str, float]], limit: int) -> list[str]:
    """One ranked list from several lists of (id, score) whose scores compare (higher first; a tie
    keeps the order of the arguments, then each list's own order).

    Facts and chunks are one collection per view: a question is answered by whichever states it
    best, a fact or the sentence a turn said, and each view votes once for it. Two lists per view
    (facts, then chunks) would give a turn with a matching fact two votes and a turn that stated no
    fact only one, though that turn (a fragment answer, an anecdote) is often the evidence.
    """
    pool = [(score, n, i, item) for n, rows in enumerate(ranked) for i, (item, score) in enumerate(rows)]
    pool.sort(key=lambda r: (-r[0], r[1], r[2]))
    return list(dict.fromkeys(item for *_, item in pool))[:limit]


def _fact_text_list(conn: psycopg.Connection, request: SearchRequest, source: str, where: str,
                    params: dict[str, Any]) -> list[tuple[str, float]]:
    """Full-text (BM25) fact candidates and their scores through the owner function (the GIN index
    cannot serve ``@@`` under row-level security), then the same filters as the vector list, in rank
    order."""
    filtered = request.narrowed or request.as_of is not None
    rows = conn.execute(
        "SELECT fact_id, rank FROM silver.fts_facts(%(ns)s, %(tsq_all)s, %(tsq_pairs)s, %(tsq)s, %(fts_n)s, "
        "%(current_only)s)",
        {**params, "fts_n": CANDIDATES * 4 if filtered else CANDIDATES,
         "current_only": request.as_of is None and not request.include_superseded},
    ).fetchall()
    if filtered:  # the function filters by namespace and currency only: apply the rest, keep its order
        keep = {r[0] for r in conn.execute(
            f"SELECT f.fact_id FROM {source} f WHERE {where} AND f.fact_id = ANY(%(ids)s)",
            {**params, "ids": [r[0] for r in rows]}).fetchall()}
        rows = [r for r in rows if r[0] in keep][:CANDIDATES]
    return [(r[0], float(r[1])) for r in rows]


def _chunk_lists(conn: psycopg.Connection, request: SearchRequest, params: dict[str, Any],
                 lists: dict[str, list[str]]) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """Add the passage lists (vector and full text over whole passages) to ``lists``; return the
    chunk candidates of the vector and the full-text view with their scores (every chunk: passages
    and sentences), to be merged with the facts'."""
    cfilter = "c.namespace = %(ns)s AND c.embedding IS NOT NULL"
    if request.as_of is not None:
        cfilter += " AND c.occurred_at <= %(when)s"
    # every chunk, then whole passages only: a turn is also found by what it says as a whole
    scored: dict[str, list[tuple[str, float]]] = {}
    for name, unit_filter in (("chunk_vector", ""), ("passage_vector", " AND c.unit = 'passage'")):
        scored[name] = [(r[0], 1.0 - float(r[1])) for r in conn.execute(
            f"SELECT c.chunk_id, c.embedding <=> %(q)s::vector FROM silver.chunks c WHERE {cfilter}{unit_filter} "
            "ORDER BY c.embedding <=> %(q)s::vector LIMIT %(n)s", params).fetchall()]
    if params["tsq"]:
        for name, function in (("chunk_text", "fts_chunks"), ("passage_text", "fts_passages")):
            scored[name] = [(r[0], float(r[1])) for r in conn.execute(
                f"SELECT chunk_id, rank FROM silver.{function}(%(ns)s, %(tsq_all)s, %(tsq_pairs)s, %(tsq)s, "
                "%(n)s, %(before)s)", {**params, "before": request.as_of}).fetchall()]
    lists["passage_vector"] = [cid for cid, _ in scored["passage_vector"]]
    if "passage_text" in scored:
        lists["passage_text"] = [cid for cid, _ in scored["passage_text"]]
    return scored["chunk_vector"], scored.get("chunk_text", [])


def _chunk_rows(conn: psycopg.Connection, chunk_ids: list[str]) -> dict[str, tuple[Any, ...]]:
    """The rows of the candidate chunks: (chunk_id, bronze_event_id, char_start, char_end, text,
    occurred_at, provenance_root, source, source_event_id, unit)."""
    if not chunk_ids:
        return {}
    return {row[0]: row for row in conn.execute(
        "SELECT c.chunk_id, c.bronze_event_id, c.char_start, c.char_end, c.text, c.occurred_at, "
        "c.provenance_root, p.source, p.source_event_id, c.unit FROM silver.chunks c "
        "LEFT JOIN LATERAL (SELECT p.source, p.source_event_id FROM gold.event_provenance p "
        "WHERE p.event_id = c.bronze_event_id OFFSET 0) p ON true "
        "WHERE c.chunk_id = ANY(%s)", (chunk_ids,)).fetchall()}


def verify(conn: psycopg.Connection, request: SearchRequest, found: Candidates) -> dict[str, fusion.ChunkStanding]:
    """Each chunk's standing in the ledger: the facts of its event overlapping it, believed now (or
    at ``as_of``: those of ``facts_as_of``, among the facts recorded and valid by then) or not."""
    if not found.chunk_rows:
        return {}
    believed, existed = "f.valid_to IS NULL", ""
    if request.as_of is not None:
        believed = ("f.fact_id IN (SELECT a.fact_id FROM silver.facts_as_of(%(ns)s, %(when)s, %(when)s) a "
                    "WHERE a.bronze_event_id = ANY(%(events)s))")
        existed = " AND f.recorded_at <= %(when)s AND f.valid_from <= %(when)s"
    rows = conn.execute(
        f"SELECT f.fact_id, f.bronze_event_id, f.span_start, f.span_end, {believed}, f.superseded_by "
        f"FROM silver.facts f WHERE f.namespace = %(ns)s AND f.bronze_event_id = ANY(%(events)s){existed}",
        {**found.params, "events": sorted({r[1] for r in found.chunk_rows.values()})}).fetchall()
    return fusion.chunk_standing({cid: (r[1], r[2], r[3]) for cid, r in found.chunk_rows.items()}, rows)


def fuse(found: Candidates) -> dict[str, float]:
    """Turn-level fusion: every list votes once per Bronze event (``serve/fusion.py``)."""
    return fusion.fuse(found.lists, found.event_of, weights={"graph": found.graph_weight})


def serve(conn: psycopg.Connection, request: SearchRequest, found: Candidates, scores: dict[str, float],
          standing: dict[str, fusion.ChunkStanding]) -> list[dict[str, Any]]:
    """The best candidates as served: facts composed with their overlays, chunk hits with their
    standing; anything found by words a person redacted is dropped, and redacted phrases are masked
    in chunk snippets."""
    k = request.k
    fact_ids = found.fact_ids
    # only the best candidates are loaded in full (room for those a redaction removes)
    best = sorted(fact_ids, key=lambda fid: (-scores[fid], fid))[:max(3 * k, 30)]
    facts = served.served_facts(conn, "f.fact_id = ANY(%(ids)s)", {**found.params, "ids": best},
                                source=found.source, keep_redactions=True) if best else []
    query_words = words(request.query) - STOP_WORDS
    results: list[dict[str, Any]] = []
    redacted_by_event = served.redactions_by_event(conn, sorted({r[1] for r in found.chunk_rows.values()}))
    for fact in facts:
        if _found_by(fact.get("_redacted") or [], query_words):
            continue  # a search for redacted words does not return the fact
        boost = 1.0 + 0.1 * float(fact.get("importance") or 0) + 0.05 * served.freshness(fact)
        results.append({**served.finish(fact), "score": round(scores[fact["fact_id"]] * boost, 6), "kind": "fact"})
    superseding = _superseding(conn, standing, request.include_superseded)
    for cid, row in found.chunk_rows.items():
        _, event_id, start, end, text, occurred_at, root, src, seid, unit = row
        stands = standing.get(cid, fusion.ChunkStanding())
        if not stands.current and not request.include_superseded:
            continue  # its facts are no longer believed: not served as current
        redacted = redacted_by_event.get(event_id, [])
        if _found_by(redacted, query_words):
            continue
        snippet = text
        for phrase in redacted:
            snippet = snippet.replace(phrase, served.REDACTED)
        results.append({
            "kind": "chunk", "chunk_id": cid, "fact_id": None, "subject": None, "predicate": None, "value": None,
            "statement": snippet, "valid_from": silver_queries.iso(occurred_at), "valid_to": None, "recorded_at": None,
            "superseded_at": None, "authority": None, "confidence": None, "contested": False,
            "current": stands.current, "score": round(scores[cid] * stands.factor, 6),
            "supports": list(stands.supports),
            "superseded_by": [superseding[f] for f in stands.superseded_by if f in superseding],
            "span": [start, end], "unit": unit,
            "provenance": {"bronze_event_id": event_id, "namespace": request.namespace, "source": src,
                           "source_event_id": seid, "provenance_root": root},
        })
    return results


def _found_by(redacted: list[str], query_words: set[str]) -> bool:
    """Whether the query asks for words a person redacted (then the item is not returned at all)."""
    return any(query_words & words(phrase) for phrase in redacted)


def _superseding(conn: psycopg.Connection, standing: dict[str, fusion.ChunkStanding],
                 include_superseded: bool) -> dict[str, dict[str, Any]]:
    """The facts that closed the facts of superseded chunks, as served (overlays applied), by id."""
    ids = sorted({f for s in standing.values() if not s.current for f in s.superseded_by})
    if not include_superseded or not ids:
        return {}
    return {f["fact_id"]: {"fact_id": f["fact_id"], "statement": f["statement"], "current": f["current"]}
            for f in served.served_facts(conn, "f.fact_id = ANY(%(ids)s)", {"ids": ids})}


def group_by_event(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One result per Bronze event, in rank order: the event's best item, its other hits under ``same_event``."""
    grouped: list[dict[str, Any]] = []
    first: dict[Any, dict[str, Any]] = {}
    for item in results:
        event = (item.get("provenance") or {}).get("bronze_event_id")
        if event is None or event not in first:
            item = {**item, "same_event": []}
            grouped.append(item)
            if event is not None:
                first[event] = item
            continue
        first[event]["same_event"].append({
            key: item.get(key) for key in ("kind", "fact_id", "chunk_id", "statement", "current", "score")})
    return grouped


def compact(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Results cut to what an agent reads first: what was said, its id, how well it matched, whether it
    is still believed, and where it came from (namespace, source, event).

    About a third of the full size; the full result (every time, authority, confidence, overlay and
    provenance field) is one ``read`` of the id away, or the same search with the full detail. The
    event's other facts keep their ids and statements (one that repeats the result's is dropped).
    """
    out = []
    for item in results:
        provenance = item.get("provenance") or {}
        row: dict[str, Any] = {"kind": item["kind"]}
        if item["kind"] == "fact":
            row.update(fact_id=item["fact_id"], statement=item["statement"], predicate=item["predicate"],
                       valid_from=(item.get("valid_from") or "")[:10] or None)
            if item.get("contested"):
                row["contested"] = True
        else:
            row.update(chunk_id=item["chunk_id"], statement=item["statement"])
            if item.get("supports"):
                row["supports"] = list(item["supports"])
        row.update(score=round(float(item["score"]), 4), current=item["current"],
                   provenance={"namespace": provenance.get("namespace"), "source": provenance.get("source"),
                               "event_id": provenance.get("bronze_event_id")})
        same = [{"fact_id": s["fact_id"], "statement": s["statement"]}
                for s in item.get("same_event") or [] if s.get("kind") == "fact"
                and s.get("statement") != item["statement"]]
        if same:
            row["same_event"] = same
        out.append(row)
    return out
