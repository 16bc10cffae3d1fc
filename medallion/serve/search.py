"""Hybrid search as stages over one :class:`SearchRequest`: candidates → verification → fusion (with
the turns beside each, then the question's time: ``serve/in_time.py``) → serving (redaction) → the
present → grouping.

Candidates come from five ranked lists: one pgvector HNSW list and one BM25 full-text list over
facts and chunks together (each merged by its own score, see :func:`merged`), the same two over whole
passages only, and the graph's list (``serve/graph.py``: the slots the query names and multi-hop paths
over current beliefs). Fusion (``serve/fusion.py``) gives every list one vote per Bronze event.
Verification checks each chunk hit against the ledger: the facts it supports that are believed now
(or at ``as_of``). Serving applies the people's overlays (``serve/served.py``) and drops
what was found by redacted words. Of one turn's texts, the one that opens with whom the question
asks about represents the turn (``serve/asked_subject.py``: "i'm 29", not "and my sister Bea is 34",
for "How old is Ana?"). For a question about now, ``serve/present.py`` then puts the newest of similar
candidates about one subject first. Grouping keeps one result per event, its other hits under
``same_event``.

The stages read nothing themselves: one statement (``serve/retrieve.py``) returns every list, the
graph's neighbourhood and the rows of every candidate a stage may need, and the stages pick from it
(a walk past that neighbourhood reads on, ``serve/search_graph.py``). It runs on the caller's
connection, inside the row-level-security scope the caller opened; nothing here checks capabilities
(``serve/tools.py`` does, before it opens the scope).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import numpy as np
import psycopg

from medallion.serve import changed_to, cues, fusion, graph, in_time, present, retrieve, search_graph, served
from medallion.silver import entities
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
    chunk_rows: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # chunk_id -> its row (Fetched.chunks)
    source: str = "silver.facts"  # the facts relation: the ledger, or as believed at as_of
    params: dict[str, Any] = field(default_factory=dict)
    fact_ids: list[str] = field(default_factory=list)  # every fact candidate, once
    event_of: dict[str, Any] = field(default_factory=dict)  # fact or chunk id -> its Bronze event
    fetched: retrieve.Fetched = field(default_factory=retrieve.Fetched)  # the statement's rows
    plan: retrieve.Plan | None = None  # what the statement read


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
    # a possessive goes before the punctuation: "herodias's" would be "herodiass", which no text has
    found = [re.sub(r"[^\w]", "", re.sub(r"['’]s$", "", w)) for w in (m.lower() for m in _WORD.findall(query))]
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
    """The request's k results, best first (facts and chunks, as served), read in one statement
    (``serve/retrieve.py``)."""
    # a question about before ("where did she live before?") is answered by the beliefs the ledger closed
    before = request.as_of is None and not request.include_superseded and present.asks_about_before(request.query)
    if before:
        request = replace(request, include_superseded=True)
    found = candidates(conn, request, vector)
    standing = verify(request, found)
    scores = fuse(found, request.query)
    # a turn whose neighbours in its thread match too is likelier the passage that answers; a turn the
    # query finds by words a person redacted is not served, and lends nothing either
    kept_back = found_by_redacted_words(found, request.query)
    scores = fusion.with_neighbours(scores, found.event_of, found.fetched.neighbours, silent=kept_back,
                                    asking=asking(found))
    today = (request.as_of or datetime.now(UTC)).date()  # the moment the question is asked about
    scores = in_time.weigh(scores, found.event_of, timed_items(found), request.query, today)
    results = serve(conn, request, found, scores, standing, kept_back)
    results.sort(key=rank_key)
    results = narrowest_first(results, request.query)
    items = _items(found)
    memo = present.Memo()  # both stages read the same window's items
    # the question's vector as the array present.cosine makes of it (the same float64 values), made once
    # rather than once per candidate compared with it
    query = np.asarray(vector, dtype=float)
    results = present.subject_first(request.query, query, results, items, memo=memo)
    if before:
        results = present.replaced_first(results)
    elif request.as_of is None:  # at a past moment the ledger of then answers; about now, the newest first
        results = present.reorder(request.query, query, results, items, memo=memo)
        if cues.about_the_present(request.query):  # "bumped to P1" above "P3 - …": a change told by its new value
            results = changed_to.changes_first(results, today)
    results = present.requests_last(results)
    return (group_by_event(results) if request.per_event else results)[:request.k]


def rank_key(result: dict[str, Any]) -> tuple[float, int, str]:
    """Best first: the score; of two items ranked alike (often a clause and its passage, or a fact and
    its sentence, that two lists rank in swapped order) the shorter text, which says less besides the
    answer; then the id (a stable order)."""
    return (-result["score"], len(result.get("statement") or ""), result.get("fact_id") or result.get("chunk_id") or "")


_LABEL = re.compile(r"^[^:\n]{1,40}:\s")  # a short label before a colon that opens a text


def narrowest_first(results: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    """Of a turn's two texts, one inside the other, the inner one first when it holds every word of
    the question that the outer one holds: "Household cars: mine is a red Fiat Panda; Erik's is a
    grey Volvo estate." and its clause "Erik's is a grey Volvo estate." match "What car does Erik
    have?" by the same words, and the clause says nothing about the other car. The words of a label
    that opens the outer text ("Lunch orders: Bilal, falafel; Chiara, risotto") head all its parts
    and are not asked of the inner one. A text that holds none
    of the question's words keeps its place (its meaning ranked it, not a part). The moved text takes
    the outer one's place and score; the outer one and everything between keep their order."""
    asked = cues.tokens(query) - STOP_WORDS
    out = list(results)
    for place in range(len(out)):
        outer = out[place]
        text = str(outer.get("statement") or "").strip()
        if outer.get("kind") != "chunk" or not text:
            continue
        event = (outer.get("provenance") or {}).get("bronze_event_id")
        header = _LABEL.match(text)  # "Lunch orders: …", "TCK-8120: …" heads every part alike
        wanted = (asked & cues.tokens(text)) - cues.tokens(header[0] if header else "")
        if not wanted:
            continue  # the words did not rank it: nothing says which of its parts answers
        for later in range(place + 1, len(out)):
            inner = out[later]
            inner_text = str(inner.get("statement") or "").strip()
            if (inner.get("kind") == "chunk" and (inner.get("provenance") or {}).get("bronze_event_id") == event
                    and inner_text and inner_text != text and inner_text in text
                    and wanted <= cues.tokens(inner_text)):
                out.insert(place, {**out.pop(later), "score": outer["score"]})
                break
    return out


def plan(request: SearchRequest, params: dict[str, Any]) -> retrieve.Plan:
    """What the request reads, and its parameters added to ``params``."""
    filters = ["f.namespace = %(ns)s", "f.embedding IS NOT NULL"]
    if request.subject:  # the entities the subject names (entities.find), inside the statement
        filters.append(served.SUBJECT_NAMED)
        params["subject"] = entities.normalize(request.subject)
    if request.predicate:
        filters.append("f.predicate = %(p)s")
        params["p"] = request.predicate
    if request.min_authority is not None:
        filters.append("f.authority <= %(auth)s")
        params["auth"] = int(request.min_authority)
    when = request.as_of
    if when is None and not request.include_superseded:
        filters.append("f.valid_to IS NULL")
    filtered = request.narrowed or when is not None
    keys = graph.mention_keys(request.query)
    params.update(when=when, before=when, fts_n=CANDIDATES * 4 if filtered else CANDIDATES,
                  served=served_count(request.k) + retrieve.HOT_MARGIN,
                  current_only=when is None and not request.include_superseded, keys=list(keys),
                  aliases=[k for k in keys if len(k) > 2], hop_rows=graph.HOP_ROWS, hop_nodes=retrieve.HOP_NODES)
    chunks = request.include_chunks and not request.narrowed
    return retrieve.Plan(
        source="silver.facts" if when is None else "src", where=" AND ".join(filters),
        believed="f.valid_to IS NULL" if when is None else "TRUE", as_of=when is not None,
        text=bool(params["tsq"]), filtered=filtered, chunks=chunks,
        graph=bool(keys) and bool(graph.query_words(request.query)),
        present=when is None and cues.about_the_present(request.query),
        superseding=chunks and request.include_superseded)


def candidates(conn: psycopg.Connection, request: SearchRequest, vector: list[float]) -> Candidates:
    """Every ranked list of the request, and the rows the later stages read, from one statement."""
    # the query vector goes as pgvector's binary form (the connection's numpy adapter): as text, Python
    # wrote 384 floats and the server parsed them on every search; the float32 values are the same
    params: dict[str, Any] = {"ns": request.namespace, "q": np.asarray(vector, dtype=np.float32), "n": CANDIDATES,
                              **tsqueries(request.query)}
    reading = plan(request, params)
    fetched = retrieve.fetch(conn, reading, params)
    # the walk's own statements (when it goes past what was read ahead) see the facts relation by name
    source = "silver.facts" if request.as_of is None else "silver.facts_as_of(%(ns)s, %(when)s, %(when)s)"
    found = Candidates(source=source, params=params, fetched=fetched, plan=reading)
    lists = found.lists
    fact_vector = fetched.lists.get("fv", [])
    fact_text = fetched.lists.get("ft", [])
    # the graph's answer: the slots the question names, and multi-hop paths over current beliefs
    lists["graph"], found.graph_weight = search_graph.search_list(
        conn, fetched, request.namespace, request.query, source=source, where=reading.where, params=params,
        believed=reading.believed, limit=CANDIDATES) if reading.graph else ([], 1.0)
    chunk_vector = fetched.lists.get("cv", [])
    chunk_text = fetched.lists.get("ct", [])
    if reading.chunks:
        lists["passage_vector"] = [cid for cid, _ in fetched.lists.get("pv", [])]
        if reading.text:
            lists["passage_text"] = [cid for cid, _ in fetched.lists.get("pt", [])]
    lists["vector"] = merged(fact_vector, chunk_vector, limit=CANDIDATES)
    if reading.text:
        lists["text"] = merged(fact_text, chunk_text, limit=CANDIDATES)
    is_fact = {fid for fid, _ in fact_vector + fact_text}
    found.fact_ids = list(dict.fromkeys(
        [i for i in lists["vector"] + lists.get("text", []) if i in is_fact] + lists["graph"]))
    chunk_ids = list(dict.fromkeys(i for name in ("vector", "text", "passage_vector", "passage_text")
                                   for i in lists.get(name, []) if i not in is_fact))
    found.chunk_rows = {cid: fetched.chunks[cid] for cid in chunk_ids if cid in fetched.chunks}
    # found by a walk past the read-ahead (a cold candidate's event came with it)
    unread = [fid for fid in found.fact_ids if fid not in fetched.asked and fid not in fetched.event_of]
    found.event_of = {fid: fetched.event_of[fid] for fid in found.fact_ids if fid in fetched.event_of}
    if unread:
        found.event_of.update(conn.execute(
            "SELECT fact_id, bronze_event_id FROM silver.facts WHERE fact_id = ANY(%s)", (unread,)).fetchall())
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


def verify(request: SearchRequest, found: Candidates) -> dict[str, fusion.ChunkStanding]:
    """Each chunk's standing in the ledger: the facts of its event overlapping it, believed now (or
    at ``as_of``: those of ``facts_as_of``, among the facts recorded and valid by then) or not."""
    if not found.chunk_rows:
        return {}
    return fusion.chunk_standing({cid: (r[1], r[2], r[3]) for cid, r in found.chunk_rows.items()},
                                 found.fetched.standing)


PASSAGE_LISTS = ("passage_vector", "passage_text")  # whole passages only


def fuse(found: Candidates, query: str) -> dict[str, float]:
    """Turn-level fusion: every list votes once per Bronze event (``serve/fusion.py``). A passage whose
    turn was also cut into clauses (a sentence holding several subjects' values) takes no place among
    its turn's items from the passage lists, where its clauses cannot compete; a fact the graph found
    (it fills the slot the question names, of the subject it names) leads its turn, and a belief that
    only links two people (:data:`LINK_PREDICATES`) follows every other item of its turn unless the
    question asks who."""
    cut = {row[1] for row in found.chunk_rows.values() if row[9] == "clause"}
    whole = {cid for cid, row in found.chunk_rows.items() if row[9] == "passage" and row[1] in cut}
    predicate_of = {**{fid: row[2] for fid, row in found.fetched.facts.items()}, **found.fetched.predicate_of}
    links = set() if asks_who(query) else {fid for fid, p in predicate_of.items() if p in LINK_PREDICATES}
    return fusion.fuse(found.lists, found.event_of, weights={"graph": found.graph_weight},
                       votes_only=dict.fromkeys(PASSAGE_LISTS, whole), leading="graph", trailing=links)


# Beliefs that only link two people ("Elif's husband is Cem"): they answer "who", and for any other
# question about the relative ("Where does Elif's husband work?") another belief of their turn answers.
LINK_PREDICATES = frozenset(("relationship", "spouse", "reports_to"))
_WHO = re.compile(r"\b(?:who|whom|whose)\b", re.IGNORECASE)


def asks_who(query: str) -> bool:
    """Whether a question asks for a person ("Who is Elif married to?", "whose team …")."""
    return bool(_WHO.search(query))


def serve(conn: psycopg.Connection, request: SearchRequest, found: Candidates, scores: dict[str, float],
          standing: dict[str, fusion.ChunkStanding], kept_back: set[Any]) -> list[dict[str, Any]]:
    """The best candidates as served: facts composed with their overlays, chunk hits with their
    standing; anything found by words a person redacted is dropped (a chunk of the ``kept_back``
    events, :func:`found_by_redacted_words`; a fact by its own redactions), and redacted phrases are
    masked in chunk snippets."""
    k = request.k
    fetched = found.fetched
    # only the best candidates are served (room for those a redaction removes)
    best = sorted(found.fact_ids, key=lambda fid: (-scores[fid], fid))[:served_count(k)]
    unread = [fid for fid in best if fid not in fetched.asked]
    if unread and found.plan is not None and not found.plan.as_of:  # cold, or past the walk's read-ahead
        retrieve.hydrate(conn, found.plan, fetched, unread)
        unread = []
    facts = [served.composed_row(fetched.facts[fid]) for fid in best if fid in fetched.facts]
    if unread:
        facts += served.served_facts(conn, "f.fact_id = ANY(%(ids)s)", {**found.params, "ids": unread},
                                     source=found.source, keep_redactions=True)
    query_words = words(request.query) - STOP_WORDS
    results: list[dict[str, Any]] = []
    events = {r[1] for r in found.chunk_rows.values()}
    redacted_by_event = {e: phrases for e, phrases in fetched.redactions.items() if e in events}
    facts = [f for f in facts if not _found_by(f.get("_redacted") or [], query_words)]  # not found by redacted words
    boost = event_boosts(facts, found.event_of)
    for fact in facts:
        factor = boost.get(found.event_of.get(fact["fact_id"]), 1.0)
        if fact["fact_id"] in fetched.retold:
            factor *= fusion.NO_CURRENT_FACT  # its statement still names a belief no longer held
        results.append({**served.finish(fact), "score": round(scores[fact["fact_id"]] * factor, 6), "kind": "fact"})
    superseding = _superseding(fetched, standing, request.include_superseded)
    for cid, row in found.chunk_rows.items():
        _, event_id, start, end, text, occurred_at, root, src, seid, unit = row
        stands = standing.get(cid, fusion.ChunkStanding())
        if not stands.current and not request.include_superseded:
            continue  # its facts are no longer believed: not served as current
        if event_id in kept_back:
            continue
        redacted = redacted_by_event.get(event_id, [])
        snippet = text
        for phrase in redacted:
            snippet = snippet.replace(phrase, served.REDACTED)
        results.append({
            "kind": "chunk", "chunk_id": cid, "fact_id": None, "subject": None, "predicate": None, "value": None,
            "statement": snippet, "valid_from": silver_queries.iso(occurred_at), "valid_to": None, "recorded_at": None,
            "superseded_at": None, "authority": None, "confidence": None, "contested": False,
            "current": stands.current, "score": round(scores[cid] * stands.factor * boost.get(event_id, 1.0), 6),
            "supports": list(stands.supports),
            "superseded_by": [superseding[f] for f in stands.superseded_by if f in superseding],
            "span": [start, end], "unit": unit,
            "provenance": {"bronze_event_id": event_id, "namespace": request.namespace, "source": src,
                           "source_event_id": seid, "provenance_root": root},
        })
    return results


def served_count(k: int) -> int:
    """How many of the best fact candidates are served: room for those a redaction removes."""
    return max(3 * k, 30)


def event_boosts(facts: list[dict[str, Any]], event_of: dict[str, Any]) -> dict[Any, float]:
    """Each event's boost: the largest of its facts' (importance, freshness).

    Why per event: the facts of one turn share the turn's fused score and are ordered by how well
    each matched the question (``fusion.fuse``). A boost per fact would put the turn's most
    important fact first whatever was asked ("Maren's husband is Arjun" above "Maren drives a
    Rook" for "What car does Maren drive?"); per event it still lifts a turn that holds an
    important belief above other turns, and leaves the order inside the turn to the words. The
    turn's chunks take the same boost: the clause that answers stays ahead of a fact of its turn
    that the words ranked lower."""
    boosts: dict[Any, float] = {}
    for fact in facts:
        event = event_of.get(fact["fact_id"])
        boost = 1.0 + 0.1 * float(fact.get("importance") or 0) + 0.05 * served.freshness(fact)
        boosts[event] = max(boosts.get(event, 1.0), boost)
    return boosts


def _items(found: Candidates) -> dict[str, Any]:
    """The present stage's rows of the results, when the stage runs: the statement read them with the
    candidates, and ``serve`` read those of any served fact it left cold (``retrieve.hydrate``)."""
    if found.plan is None or not found.plan.present:
        return {}
    return found.fetched.items


def timed_items(found: Candidates) -> Iterator[tuple[str, str, datetime | None]]:
    """Each candidate's text and time for ``in_time.weigh``: a chunk's text and when its event
    happened, a belief's statement and when it holds from. Lazy: a question that says nothing of time
    reads none of them."""
    for cid, row in found.chunk_rows.items():
        yield cid, str(row[4] or ""), row[5]
    for fid, row in found.fetched.facts.items():
        if fid in found.event_of:
            yield fid, str(row[4] or ""), row[5]


def asking(found: Candidates) -> set[Any]:
    """The candidate turns that ask a question (a text of theirs ends with "?"): the turn after one
    answers it."""
    return {row[1] for row in found.chunk_rows.values() if str(row[4] or "").rstrip().endswith("?")}


def found_by_redacted_words(found: Candidates, query: str) -> set[Any]:
    """The candidate chunks' events that the query finds by words a person redacted in them: neither
    served nor lending their score to the turns beside them."""
    query_words = words(query) - STOP_WORDS
    return {event for event, phrases in found.fetched.redactions.items() if _found_by(phrases, query_words)}


def _found_by(redacted: list[str], query_words: set[str]) -> bool:
    """Whether the query asks for words a person redacted (then the item is not returned at all)."""
    return any(query_words & words(phrase) for phrase in redacted)


def _superseding(fetched: retrieve.Fetched, standing: dict[str, fusion.ChunkStanding],
                 include_superseded: bool) -> dict[str, dict[str, Any]]:
    """The facts that closed the facts of superseded chunks, as served (overlays applied), by id."""
    ids = sorted({f for s in standing.values() if not s.current for f in s.superseded_by})
    if not include_superseded or not ids:
        return {}
    composed = [served.finish(served.composed_row(fetched.superseding[f])) for f in ids if f in fetched.superseding]
    return {f["fact_id"]: {"fact_id": f["fact_id"], "statement": f["statement"], "current": f["current"]}
            for f in composed}


def group_by_event(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One result per Bronze event, in rank order: the event's best item, its other hits under ``same_event``
    (each with its statement and, for a fact, its value: a true fact of a sentence whose other belief was
    closed is read by its value)."""
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
            key: item.get(key) for key in ("kind", "fact_id", "chunk_id", "statement", "value", "current", "score")})
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
