"""Search's one statement: every ranked list, the graph's neighbourhood and what the later stages read
of the candidates, in one round trip.

A search used to run one statement per list, then one per graph hop, then one each to load the
candidates' events, the chunks, their standing in the ledger, the redactions, the served facts and
the present's window: about a dozen round trips, each planned on its own. Here the lists are CTEs
of one statement (each ranked list a ``LIMIT`` subquery, its order kept by ``row_number()``), and
everything the stages may need is read for every candidate that might need it (a superset: the
fusion, the walk and the cut to the best ``3k`` stay in Python, where ``serve/fusion.py``,
``serve/graph.py`` and ``serve/present.py`` define them). The rows of all parts come back in one
result, each tagged with its part; the wide row of :data:`COLUMNS` carries any part's fields.

What the statement cannot know in advance it leaves to the caller: a walk past the neighbourhood
read here (:data:`HOP_NODES` nodes at the third level), or a literal value whose entity key SQL
cannot compute as Python does (:func:`medallion.silver.entities.normalize`, approximated by
:data:`APPROX_KEY`). Then the walk reads the rest itself (``serve/search_graph.py``), as it would
without the statement, and the facts it found are loaded on their own; results are the same.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg.pq import Format

from medallion.serve import fusion, graph, served
from medallion.silver.embed import vector_arrays

# Facts served in full beyond the most search serves (``%(served)s`` counts them): the statement ranks
# events by reciprocal rank as fusion does, but without the walk's list, whose weight only Python
# knows; a fact the prediction misses is read after fusion (:func:`hydrate`).
HOT_MARGIN = 5
HOP_NODES = 1000  # nodes of the walk's third level read ahead (the first two are read whole)
# Python's entity key (NFKC, case-folded, single spaces, no edge punctuation) as far as SQL computes it
# in any encoding: exact for plain ASCII; where it differs, the caller looks the value up itself.
APPROX_KEY = ("regexp_replace(regexp_replace(lower({0}), '\\s+', ' ', 'g'), "
              "'^[^[:alnum:]]+|[^[:alnum:]]+$', '', 'g')")

COLUMNS: tuple[tuple[str, str], ...] = (
    ("tag", "text"), ("id", "text"), ("pos", "int8"), ("num", "float8"), ("ev", "int8"),
    ("a", "text"), ("b", "text"), ("c", "text"), ("d", "text"), ("e", "text"),
    ("arr", "text[]"), ("arr2", "text[]"), ("i1", "int4"), ("i2", "int4"), ("flag", "bool"), ("retold", "bool"),
    ("ts", "timestamptz"), ("emb", "vector"), ("actor", "text"), ("context", "text"), ("said_at", "timestamptz"),
    # a served fact: the columns of served.FACT_SELECT after fact_id (floats as text, as a text-mode read gives them)
    ("canonical_name", "text"), ("predicate", "text"), ("value", "jsonb"), ("statement", "text"),
    ("valid_from", "timestamptz"), ("valid_to", "timestamptz"), ("recorded_at", "timestamptz"),
    ("superseded_at", "timestamptz"), ("verified_at", "timestamptz"), ("authority", "int2"),
    ("confidence", "text"), ("contested", "bool"), ("superseded_by", "text"), ("importance", "text"),
    ("bronze_event_id", "int8"), ("namespace", "text"), ("source", "text"), ("source_event_id", "text"),
    ("provenance_root", "text"), ("overlays", "json"),
)
_INDEX = {name: i for i, (name, _) in enumerate(COLUMNS)}
_FACT = [name for name, _ in COLUMNS[_INDEX["canonical_name"]:]]
_FACT_COLUMNS = {name: f"x.{name}" for name in _FACT} | {"confidence": "x.confidence::text",
                                                          "importance": "x.importance::text"}


@dataclass(frozen=True)
class Plan:
    """What one search reads: its facts relation and filters, and which parts it needs."""

    source: str  # the facts relation, alias f: silver.facts, or ``src`` (facts_as_of, read once)
    where: str  # the filters of a fact candidate (alias f)
    believed: str  # a fact believed now, or at as_of (alias f)
    as_of: bool
    text: bool  # the query has content words: the full-text lists
    filtered: bool  # full-text fact candidates are filtered like the vector ones (fts_n over-fetches)
    chunks: bool
    graph: bool  # the query may name an entity: read the walk's neighbourhood
    present: bool  # the present stage will run: read the candidates' embeddings and names
    superseding: bool  # include_superseded: read the facts that closed a chunk's facts


@dataclass(frozen=True)
class HopRow:
    node: str
    fact_id: str
    predicate: str
    target: str | None
    text: str | None
    near: float | None
    approx: str | None  # the SQL key of ``text``
    named: str | None  # the entity named by that key
    pos: int  # global order: believed first, then authority, recency, fact id


@dataclass
class Fetched:
    """The statement's rows, by part."""

    lists: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)  # list name -> (id, score) in order
    mentions: list[tuple[str, str, str, list[str]]] = field(default_factory=list)
    nodes: set[str] = field(default_factory=set)  # nodes whose hops were all read
    hops: list[HopRow] = field(default_factory=list)
    parts: list[tuple[int, str, str, str]] = field(default_factory=list)  # (pos, node, part entity, part text)
    asked: set[str] = field(default_factory=set)  # fact ids looked up in full (visible or not)
    event_of: dict[str, Any] = field(default_factory=dict)
    facts: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # FACT_SELECT rows, by id
    chunks: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # search's chunk rows, by id
    standing: list[tuple[Any, ...]] = field(default_factory=list)  # the facts of the chunks' events
    retold: set[str] = field(default_factory=set)  # believed candidate facts whose sentence stated a closed one
    redactions: dict[int, list[str]] = field(default_factory=dict)
    superseding: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # FACT_SELECT rows, by id
    items: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # ITEMS_SQL's rows, by id
    predicate_of: dict[str, str] = field(default_factory=dict)  # every fact candidate's predicate (about now)
    cold: set[str] = field(default_factory=set)  # fact candidates not served in full by the statement
    neighbours: dict[int, tuple[int | None, int | None]] = field(default_factory=dict)  # event -> before, after


# What the present stage (serve/present.py) reads of a candidate: (id, embedding, names, cardinalities,
# speaker, context, trusted, said at). A cardinality counts only where the slot is curated (a learned
# slot's "many" is a default, not a meaning), and the catch-all ``states`` is no slot: it tells nothing
# apart, so it is neither curated nor many-valued here. A slot is trusted when it is curated, or learned
# and already used by the ledger to close a belief (its silver.predicates row, alias {p}, counts fewer
# current facts than facts); never the catch-all states.
TRUSTED_SLOT = ("coalesce(({p}.origin = 'curated' OR {p}.current_count < {p}.fact_count)"
                " AND f.predicate <> 'states', false)")


def fact_item(slot: str) -> dict[str, str]:
    """The present stage's columns of a fact ``f`` whose subject is ``e`` and whose silver.predicates
    row is ``slot``: its names, its cardinality and whether its slot is trusted."""
    return {"names": "ARRAY[e.canonical_name] || e.aliases",
            "cards": f"ARRAY[CASE WHEN {slot}.origin = 'curated' AND f.predicate <> 'states' THEN f.cardinality "
                     "ELSE 'one' END]",
            "trusted": TRUSTED_SLOT.format(p=slot)}


# A chunk ``c``'s names, cardinalities and trust: those of the facts its event stated where they overlap it.
CHUNK_FACTS = """LEFT JOIN LATERAL (SELECT array_agg(DISTINCT e.canonical_name) AS names,
                          array_agg(DISTINCT CASE WHEN v.origin = 'curated' AND f.predicate <> 'states'
                                    THEN f.cardinality ELSE 'one' END) AS cards,
                          bool_and(""" + TRUSTED_SLOT.format(p="v") + """) AS trusted
                   FROM silver.facts f JOIN silver.entities e ON e.entity_id = f.subject_id
                   LEFT JOIN silver.predicates v ON v.namespace = f.namespace AND v.predicate = f.predicate
                   WHERE f.bronze_event_id = c.bronze_event_id
                     AND (f.span_start IS NULL OR f.span_end IS NULL
                          OR (f.span_start < c.char_end AND c.char_start < f.span_end))) x ON true
"""
_ITEM = fact_item("p")
# The present stage's rows of the candidates whose ids the subqueries ``{facts}`` and ``{chunks}`` give,
# each fact looked up by its key (a lateral probe), however many candidates the planner expects. Search's
# statement reads the same columns in its own lookups (:func:`_hydration`, the chunks' ``crow``); this is
# for the facts a walk found past what the statement read.
ITEMS_SQL = f"""
SELECT f.fact_id, f.embedding, {_ITEM['names']}, {_ITEM['cards']}, NULL::text, NULL::text, {_ITEM['trusted']},
       (SELECT ev.occurred_at FROM gold.event_provenance ev WHERE ev.event_id = f.bronze_event_id OFFSET 0)
FROM (SELECT DISTINCT id FROM ({{facts}}) ids (id)) ids
CROSS JOIN LATERAL (SELECT f.fact_id, f.embedding, f.subject_id, f.cardinality, f.namespace, f.predicate,
                           f.bronze_event_id FROM silver.facts f WHERE f.fact_id = ids.id) f
JOIN silver.entities e ON e.entity_id = f.subject_id
LEFT JOIN silver.predicates p ON p.namespace = f.namespace AND p.predicate = f.predicate
UNION ALL
SELECT c.chunk_id, c.embedding, coalesce(x.names, '{{}}'), coalesce(x.cards, '{{}}'), p.actor, c.context,
       coalesce(x.trusted, false), p.occurred_at
FROM silver.chunks c
LEFT JOIN LATERAL (SELECT p.actor, p.occurred_at FROM gold.event_provenance p WHERE p.event_id = c.bronze_event_id
                   OFFSET 0) p ON true
{CHUNK_FACTS}WHERE c.chunk_id IN ({{chunks}})
"""


def items_sql(facts: str, chunks: str) -> str:
    """:data:`ITEMS_SQL` over the ids the subqueries ``facts`` and ``chunks`` give."""
    return ITEMS_SQL.replace("{facts}", facts).replace("{chunks}", chunks)


def _branch(tag: str, body: str, **cols: str) -> str:
    """One part's rows in the wide row: its columns where given, NULL elsewhere."""
    values = [f"'{tag}'::text"] + [f"CAST({cols[name]} AS {type_})" if name in cols else f"NULL::{type_}"
                                   for name, type_ in COLUMNS[1:]]
    return f"SELECT {', '.join(values)} {body}"


def _hops(level: int, plan: Plan) -> str:
    """The hops leaving the level's nodes (graph.hops for one node each, in its order and limit),
    with the entity a followable literal value names."""
    followable = graph.FOLLOWABLE.format(believed=plan.believed,
                                         touches=" AND position(o.exact in f.value_text) > 0")
    first = "" if plan.believed == "TRUE" else f"({plan.believed}) DESC, "
    key = APPROX_KEY.format("x.text")
    return (
        f"h{level} AS (SELECT n.node, x.*, {key} AS approx, CASE WHEN x.text IS NOT NULL AND length({key}) > 1 "
        "THEN (SELECT e.entity_id FROM silver.entities e WHERE e.namespace = %(ns)s "
        f"AND e.normalized_name = {key}) END AS named FROM n{level} n "
        "CROSS JOIN LATERAL ("
        f"SELECT f.fact_id, f.predicate, CASE WHEN g.object_id IS NOT NULL AND {followable} THEN g.object_id END "
        f"AS target, CASE WHEN g.object_id IS NULL AND {followable} THEN f.value_text END AS text, "
        f"1 - (f.embedding <=> %(q)s::vector) AS near, ({plan.believed}) AS believed, f.authority, f.valid_from, "
        "f.bronze_event_id AS ev "
        f"FROM {plan.source} f LEFT JOIN silver.edges g ON g.fact_id = f.fact_id "
        f"WHERE {plan.where} AND f.subject_id = n.node "
        f"ORDER BY {first}f.authority, f.valid_from DESC, f.fact_id LIMIT %(hop_rows)s) x), "
        f"p{level} AS (SELECT n.entity_id AS node, a.entity_id AS part, left(a.normalized_name, "
        "length(a.normalized_name) - length(n.normalized_name) - 4) AS text FROM silver.entities n "
        "JOIN named_parts a ON right(a.normalized_name, length(n.normalized_name) + 4) = ' of ' || n.normalized_name "
        f"WHERE n.namespace = %(ns)s AND n.entity_id IN (SELECT node FROM n{level}))")


def _next_nodes(level: int) -> str:
    earlier = " UNION ALL ".join(f"SELECT node FROM n{i}" for i in range(level))
    cap = " ORDER BY node LIMIT %(hop_nodes)s" if level == 2 else ""
    return (f"n{level} AS (SELECT node FROM (SELECT target AS node FROM h{level - 1} UNION SELECT named "
            f"FROM h{level - 1} UNION SELECT part FROM p{level - 1}) s WHERE node IS NOT NULL "
            f"AND node NOT IN ({earlier}){cap})")


def statement(plan: Plan) -> str:
    """The SQL of one search (parameters: see search.candidates); :func:`positional` numbers them."""
    ctes: list[str] = []
    if plan.as_of:
        ctes.append("src AS MATERIALIZED (SELECT * FROM silver.facts_as_of(%(ns)s, %(when)s, %(when)s))")
    source, where = plan.source, plan.where
    ctes.append("fv AS (SELECT x.id, x.dist, x.ev, x.pred, row_number() OVER () AS pos FROM (SELECT f.fact_id AS id, "
                f"f.embedding <=> %(q)s::vector AS dist, f.bronze_event_id AS ev, f.predicate AS pred FROM {source} f "
                f"WHERE {where} ORDER BY f.embedding <=> %(q)s::vector LIMIT %(n)s) x)")
    parts = [_branch("fv", "FROM fv", id="id", num="dist", pos="pos")]
    facts = ["SELECT id FROM fv"]
    if plan.text:
        keep = (f"WHERE EXISTS (SELECT 1 FROM {source} f WHERE {where} AND f.fact_id = r.id) "
                if plan.filtered else "")
        ctes.append("ftr AS (SELECT t.fact_id AS id, t.rank::text AS score, row_number() OVER () AS pos FROM "
                    "silver.fts_facts(%(ns)s, %(tsq_all)s, %(tsq_pairs)s, %(tsq)s, %(fts_n)s, %(current_only)s) t)")
        ctes.append(f"ft AS (SELECT r.* FROM ftr r {keep}ORDER BY r.pos LIMIT %(n)s)")
        parts.append(_branch("ft", "FROM ft", id="id", a="score", pos="pos"))
        facts.append("SELECT id FROM ft")
    if plan.graph:
        # by alias through silver.entities_aliased: under the tool login's row-level security `&&` reaches
        # no index (it is not leakproof), and the GIN index on aliases is what keeps this a lookup
        ctes.append("m AS (SELECT entity_id, canonical_name, normalized_name, aliases FROM silver.entities "
                    "WHERE namespace = %(ns)s AND normalized_name = ANY(%(keys)s) UNION "
                    "SELECT entity_id, canonical_name, normalized_name, aliases "
                    "FROM silver.entities_aliased(%(ns)s, %(aliases)s))")
        ctes.append("n0 AS (SELECT DISTINCT entity_id AS node FROM m)")
        # the entities named "<part> of <name>" (graph.part_hops), read once for every level, by the
        # partial index of silver.entities_named_parts (LIKE is not leakproof either)
        ctes.append("named_parts AS MATERIALIZED (SELECT entity_id, normalized_name "
                    "FROM silver.entities_named_parts(%(ns)s))")
        for level in range(graph.MAX_HOPS):
            if level:
                ctes.append(_next_nodes(level))
            ctes.append(_hops(level, plan))
        levels = range(graph.MAX_HOPS)
        ctes.append("hall AS (" + " UNION ALL ".join(f"SELECT * FROM h{i}" for i in levels) + ")")
        parts.append(_branch("m", "FROM m", id="entity_id", a="canonical_name", b="normalized_name", arr="aliases"))
        parts.append(_branch("n", "FROM (" + " UNION ALL ".join(f"SELECT node FROM n{i}" for i in levels) + ") n",
                             id="node"))
        parts.append(_branch(
            "h", "FROM hall h", id="h.fact_id", a="h.node", b="h.predicate", c="h.target", d="h.text",
            e="h.approx", arr="ARRAY[h.named]", num="h.near",
            pos="row_number() OVER (ORDER BY h.believed DESC, h.authority, h.valid_from DESC, h.fact_id, h.target)"))
        parts.append(_branch("p", "FROM (" + " UNION ALL ".join(f"SELECT * FROM p{i}" for i in levels) + ") p",
                             id="p.part", a="p.node", b="p.text", pos="row_number() OVER (ORDER BY p.part)"))
        facts.append("SELECT fact_id FROM hall")
    ctes.append("cf AS (" + " UNION ".join(facts) + ")")
    chunk_lists = _chunk_parts(plan, ctes, parts) if plan.chunks else []
    # each candidate by its key (a lateral lookup: an index probe per id whatever the planner expects of cf);
    # OFFSET 0 keeps the lookup per candidate: flattened, the planner (expecting thousands of candidates)
    # hashes every entity of the namespace to join a hundred facts to their subjects
    hydrate = f"CROSS JOIN LATERAL ({_hydration(plan)} WHERE f.fact_id = c.id OFFSET 0) x"
    if plan.as_of:  # the events of the ledger's rows; at a past moment every candidate is served
        parts.append(_branch("ev", "FROM cf CROSS JOIN LATERAL (SELECT f.fact_id, f.bronze_event_id FROM silver.facts "
                             "f WHERE f.fact_id = cf.id) f", id="f.fact_id", ev="f.bronze_event_id"))
        parts.append(_branch("f", f"FROM cf c {hydrate}", id="x.fact_id", **_FACT_COLUMNS, **_hydrated(plan)))
    else:
        ctes.extend(_known(plan, chunk_lists))
        parts.append(_branch("e", "FROM ce", id="id", ev="ev", b="pred", flag="ev IN (SELECT ev FROM hot)"))
        parts.append(_branch("f", f"FROM ce c {hydrate} WHERE c.ev IN (SELECT ev FROM hot)", id="x.fact_id",
                             **_FACT_COLUMNS, **_hydrated(plan)))
    if plan.chunks:  # the turns beside each candidate's turn in its thread (serve/fusion.py: with_neighbours)
        events = "SELECT bronze_event_id FROM crow" + ("" if plan.as_of else " UNION SELECT ev FROM ce")
        ctes.append(f"nb AS ({NEIGHBOURS.format(events=events)})")
        parts.append(_branch("nb", "FROM nb", ev="nb.ev", pos="nb.before", bronze_event_id="nb.after"))
    return "WITH " + ",\n".join(ctes) + "\n" + "\nUNION ALL ".join(parts)


# Each of the ``{events}`` (candidate turns) with the nearest turn of its thread on either side, in Bronze
# order (the order a chunk's context is read in): two probes of silver.chunks_thread each.
NEIGHBOURS = """SELECT t.ev,
       (SELECT b.bronze_event_id FROM silver.chunks b WHERE b.namespace = %(ns)s AND b.thread = t.thread
          AND b.bronze_event_id < t.ev ORDER BY b.bronze_event_id DESC LIMIT 1) AS before,
       (SELECT a.bronze_event_id FROM silver.chunks a WHERE a.namespace = %(ns)s AND a.thread = t.thread
          AND a.bronze_event_id > t.ev ORDER BY a.bronze_event_id LIMIT 1) AS after
FROM (SELECT DISTINCT c.bronze_event_id AS ev, c.thread
      FROM silver.chunks c WHERE c.namespace = %(ns)s AND c.bronze_event_id IN ({events})) t"""


def _known(plan: Plan, chunk_lists: list[str]) -> list[str]:
    """Three CTEs: ``ce``, every fact candidate with its event and predicate (what fusion reads of a
    fact: the vector list's and the walk's rows carry them, a full-text candidate is looked up);
    ``votes``, each event's reciprocal-rank score over the lists as :func:`serve.fusion.fuse` reads
    them (facts and chunks merged per view, one vote per event and list, the walk's list aside); and
    ``hot``, the events whose facts are served in full: the walk's, and the best-voted others until
    they hold ``%(served)s`` facts (search serves at most that many, :data:`HOT_MARGIN` included)."""
    known = ["SELECT id, ev, pred FROM fv"]
    if plan.graph:
        known.append("SELECT fact_id, ev, predicate FROM hall")
    if plan.text:
        known.append("SELECT f.fact_id, f.bronze_event_id, f.predicate FROM ft CROSS JOIN LATERAL (SELECT f.fact_id, "
                     "f.bronze_event_id, f.predicate FROM silver.facts f WHERE f.fact_id = ft.id OFFSET 0) f "
                     "WHERE ft.id NOT IN (SELECT id FROM fv)")
    chunk = "JOIN crow c ON c.chunk_id = {0}.id"
    views = {"vec": ["SELECT fv.ev, fv.dist, 0, fv.pos FROM fv"]}
    if "cv" in chunk_lists:
        views["vec"].append(f"SELECT c.bronze_event_id, cv.dist, 1, cv.pos FROM cv {chunk.format('cv')}")
        views["pv"] = [f"SELECT c.bronze_event_id, 0::float8, 0, pv.pos FROM pv {chunk.format('pv')}"]
    if plan.text:
        views["txt"] = ["SELECT ce.ev, -ft.score::float8, 0, ft.pos FROM ft JOIN ce ON ce.id = ft.id"]
    if "ct" in chunk_lists:
        views["txt"].append(f"SELECT c.bronze_event_id, -ct.score::float8, 1, ct.pos FROM ct {chunk.format('ct')}")
        views["pt"] = [f"SELECT c.bronze_event_id, -pt.score::float8, 0, pt.pos FROM pt {chunk.format('pt')}"]
    ranked = [f"SELECT ev, row_number() OVER (ORDER BY first) AS er FROM (SELECT ev, min(r) AS first FROM (SELECT ev, "
              f"row_number() OVER (ORDER BY key, n, pos) AS r FROM ({' UNION ALL '.join(rows)}) u (ev, key, n, pos)) x "
              "WHERE r <= %(n)s GROUP BY ev) l" for rows in views.values()]
    walked = "SELECT ev FROM hall" if plan.graph else "SELECT NULL::int8 WHERE false"
    return [
        "ce AS (" + " UNION ".join(known) + ")",
        f"votes AS (SELECT ev, sum(1.0 / ({fusion.RRF_K} + er)) AS score FROM ({' UNION ALL '.join(ranked)}) v "
        "GROUP BY ev)",
        f"hot AS ({walked} UNION SELECT x.ev FROM (SELECT v.ev, sum(k.facts) OVER (ORDER BY v.score DESC, v.ev "
        "ROWS UNBOUNDED PRECEDING) - k.facts AS before FROM votes v JOIN (SELECT ev, count(*) AS facts FROM ce "
        f"GROUP BY ev) k ON k.ev = v.ev WHERE v.ev NOT IN ({walked})) x WHERE x.before < %(served)s)",
    ]


# A believed fact whose sentence also stated a belief the ledger has closed (same event, overlapping
# span): its words still name the closed value (serve/fusion.py); few facts, each by the event index.
RETOLD = ("f.valid_to IS NULL AND EXISTS (SELECT 1 FROM silver.facts s WHERE s.bronze_event_id = f.bronze_event_id "
          "AND s.valid_to IS NOT NULL AND (s.span_start IS NULL OR s.span_end IS NULL OR f.span_start IS NULL "
          "OR f.span_end IS NULL OR (s.span_start < f.span_end AND f.span_start < s.span_end)))")


def _hydration(plan: Plan) -> str:
    """A candidate fact as served (served.FACT_SELECT over the plan's facts, alias f), and, about now,
    what the later stages read of it in the same lookups: whether it is retold (:data:`RETOLD`) and,
    when the present stage runs, its :data:`ITEMS_SQL` columns (its event's time from the provenance
    row that serving reads anyway, its slot from silver.predicates)."""
    if plan.as_of:  # at a past moment neither stage runs
        return served.fact_select(plan.source)
    if not plan.present:
        return served.fact_select(plan.source, columns=f", {RETOLD} AS retold")
    item = fact_item("v")
    return served.fact_select(
        plan.source, provenance=", p.occurred_at",
        columns=(f", {RETOLD} AS retold, f.embedding AS emb, {item['names']} AS names, {item['cards']} AS cards, "
                 f"{item['trusted']} AS trusted, p.occurred_at AS said_at"),
        joins="LEFT JOIN silver.predicates v ON v.namespace = f.namespace AND v.predicate = f.predicate\n")


def _hydrated(plan: Plan) -> dict[str, str]:
    """The wide row's columns of :func:`_hydration`'s additions."""
    if plan.as_of:
        return {}
    if not plan.present:
        return {"retold": "x.retold"}
    return {"retold": "x.retold", "emb": "x.emb", "arr": "x.names", "arr2": "x.cards", "flag": "x.trusted",
            "said_at": "x.said_at"}


def _chunk_parts(plan: Plan, ctes: list[str], parts: list[str]) -> list[str]:
    """The chunk lists, the candidate chunks' rows, their standing, redactions and superseding facts;
    returns the chunk lists' names."""
    cfilter = "c.namespace = %(ns)s AND c.embedding IS NOT NULL"
    if plan.as_of:
        cfilter += " AND c.occurred_at <= %(when)s"
    names = []
    for name, unit in (("cv", ""), ("pv", " AND c.unit = 'passage'")):
        ctes.append(f"{name} AS (SELECT x.id, x.dist, row_number() OVER () AS pos FROM (SELECT c.chunk_id AS id, "
                    f"c.embedding <=> %(q)s::vector AS dist FROM silver.chunks c WHERE {cfilter}{unit} "
                    "ORDER BY c.embedding <=> %(q)s::vector LIMIT %(n)s) x)")
        parts.append(_branch(name, f"FROM {name}", id="id", num="dist", pos="pos"))
        names.append(name)
    if plan.text:
        for name, function in (("ct", "fts_chunks"), ("pt", "fts_passages")):
            ctes.append(f"{name} AS (SELECT t.chunk_id AS id, t.rank::text AS score, row_number() OVER () AS pos "
                        f"FROM silver.{function}(%(ns)s, %(tsq_all)s, %(tsq_pairs)s, %(tsq)s, %(n)s, %(before)s) t)")
            parts.append(_branch(name, f"FROM {name}", id="id", a="score", pos="pos"))
            names.append(name)
    # with the present stage's columns (ITEMS_SQL's) when it runs, read in the same lookups
    item, facts_of = "", ""
    if plan.present:
        item = (", c.embedding AS emb, coalesce(x.names, '{}') AS names, coalesce(x.cards, '{}') AS cards, "
                "p.actor, c.context, coalesce(x.trusted, false) AS trusted, p.occurred_at AS said_at")
        facts_of = CHUNK_FACTS
    ctes.append("crow AS (SELECT c.chunk_id, c.bronze_event_id, c.char_start, c.char_end, c.text, c.occurred_at, "
                f"c.provenance_root, p.source, p.source_event_id, c.unit{item} FROM silver.chunks c "
                "LEFT JOIN LATERAL (SELECT p.source, p.source_event_id, p.actor, p.occurred_at "
                "FROM gold.event_provenance p WHERE p.event_id = c.bronze_event_id OFFSET 0) p ON true "
                f"{facts_of}WHERE c.chunk_id IN (" + " UNION ".join(f"SELECT id FROM {n}" for n in names) + "))")
    items = dict(emb="c.emb", arr="c.names", arr2="c.cards", actor="c.actor", context="c.context", flag="c.trusted",
                 said_at="c.said_at") if plan.present else {}
    parts.append(_branch("c", "FROM crow c", id="c.chunk_id", ev="c.bronze_event_id", i1="c.char_start",
                         i2="c.char_end", a="c.text", ts="c.occurred_at", b="c.provenance_root", c="c.source",
                         d="c.source_event_id", e="c.unit", **items))
    events = "SELECT bronze_event_id FROM crow"
    believed, existed = "f.valid_to IS NULL", ""
    if plan.as_of:
        believed = f"f.fact_id IN (SELECT a.fact_id FROM src a WHERE a.bronze_event_id IN ({events}))"
        existed = " AND f.recorded_at <= %(when)s AND f.valid_from <= %(when)s"
    ctes.append(f"vf AS (SELECT f.fact_id, f.bronze_event_id, f.span_start, f.span_end, {believed} AS believed, "
                f"f.superseded_by FROM silver.facts f WHERE f.namespace = %(ns)s AND f.bronze_event_id IN ({events})"
                f"{existed})")
    parts.append(_branch("v", "FROM vf", id="fact_id", ev="bronze_event_id", i1="span_start", i2="span_end",
                         flag="believed", a="superseded_by"))
    parts.append(_branch("r", "FROM silver.overlays o JOIN silver.facts f ON f.fact_id = o.fact_id "
                         f"WHERE f.bronze_event_id IN ({events}) AND o.action = 'redact' "
                         "AND o.status IN ('anchored', 'reanchored')", ev="f.bronze_event_id", a="o.exact"))
    if plan.superseding:
        parts.append(_branch("s", "FROM (SELECT DISTINCT superseded_by AS id FROM vf WHERE NOT believed) s "
                             f"CROSS JOIN LATERAL ({served.FACT_SELECT.format(source='silver.facts')} "
                             "WHERE f.fact_id = s.id) x", id="x.fact_id", **_FACT_COLUMNS))
    return names


_PLACEHOLDER = re.compile(r"%\((\w+)\)s|%%|%")


@functools.lru_cache(maxsize=64)
def positional(plan: Plan) -> tuple[str, tuple[str, ...]]:
    """The statement of ``plan`` with numbered parameters (``$1``, ``$2``, …), and the name each number
    stands for, built once per plan.

    Why: the statement is about 23 KB, and psycopg keeps its conversion of ``%(name)s`` parameters
    only for statements up to 4 KB, so every search built the text again and psycopg split it again
    (about 0.4 ms together); a raw cursor takes the numbered form as it is.
    """
    return numbered(statement(plan))


@functools.lru_cache(maxsize=64)
def numbered(sql: str) -> tuple[str, tuple[str, ...]]:
    """``sql`` with its ``%(name)s`` parameters numbered, and the name each number stands for."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match[0] == "%%":
            return "%"
        if match[1] is None:
            raise ValueError("a lone % in the search statement")
        if match[1] not in names:
            names.append(match[1])
        return f"${names.index(match[1]) + 1}"

    return _PLACEHOLDER.sub(number, sql), tuple(names)


def fetch(conn: psycopg.Connection, plan: Plan, params: dict[str, Any]) -> Fetched:
    """Run the statement and sort its rows by part.

    Binary, so that the embeddings come as arrays rather than text to parse; prepared at once, so
    that after the server's first few custom plans the connection reuses one generic plan (the
    statement is long: planning it costs more than several of its lists); numbered parameters
    (:func:`positional`), so that the text is neither rebuilt nor parsed again on each call.
    """
    fetched = parse(_rows(conn, *positional(plan), params))
    if not plan.as_of:
        _events_of_served(fetched)
    return fetched


def hydrate(conn: psycopg.Connection, plan: Plan, fetched: Fetched, ids: Iterable[str]) -> None:
    """Look ``ids`` up in full as the statement does (served row, retold flag, the present stage's
    columns) and add them to ``fetched``: the candidates it left cold (``hot`` in :func:`_known`) or that a walk
    found past its read-ahead, once fusion has put them among the served. About now only."""
    wanted = [key for key in dict.fromkeys(ids) if key not in fetched.asked]
    if not wanted:
        return
    sql = _branch("f", f"FROM unnest(%(ids)s::text[]) c (id) CROSS JOIN LATERAL ({_hydration(plan)} "
                  "WHERE f.fact_id = c.id OFFSET 0) x", id="x.fact_id", **_FACT_COLUMNS, **_hydrated(plan))
    more = parse(_rows(conn, *numbered(sql), {"ids": wanted}))
    _events_of_served(more)
    fetched.facts.update(more.facts)
    fetched.items.update(more.items)
    fetched.retold |= more.retold
    fetched.event_of.update(more.event_of)
    fetched.asked.update(wanted)
    fetched.cold.difference_update(wanted)


def _rows(conn: psycopg.Connection, sql: str, names: tuple[str, ...], params: dict[str, Any]) -> list[tuple[Any, ...]]:
    cur = psycopg.RawCursor(conn)
    cur.format = Format.BINARY
    with vector_arrays(cur) as cur:
        return cur.execute(sql, [params[name] for name in names], prepare=True).fetchall()


def parse(rows: Iterable[tuple[Any, ...]]) -> Fetched:
    out = Fetched()
    i = _INDEX
    fact_at = i["canonical_name"]
    for row in rows:
        tag, key = row[0], row[1]
        if tag in ("fv", "cv", "pv"):
            out.lists.setdefault(tag, []).append((row[i["pos"]], key, 1.0 - float(row[i["num"]])))
        elif tag in ("ft", "ct", "pt"):
            out.lists.setdefault(tag, []).append((row[i["pos"]], key, float(row[i["a"]])))
        elif tag == "m":
            out.mentions.append((key, row[i["a"]], row[i["b"]], list(row[i["arr"]] or [])))
        elif tag == "n":
            out.nodes.add(key)
        elif tag == "h":
            out.hops.append(HopRow(row[i["a"]], key, row[i["b"]], row[i["c"]], row[i["d"]], row[i["num"]],
                                   row[i["e"]], (row[i["arr"]] or [None])[0], row[i["pos"]]))
        elif tag == "p":
            out.parts.append((row[i["pos"]], row[i["a"]], key, row[i["b"]]))
        elif tag == "ev":
            out.event_of[key] = row[i["ev"]]
        elif tag == "e":
            out.event_of[key] = row[i["ev"]]
            out.predicate_of[key] = row[i["b"]]
            if not row[i["flag"]]:
                out.cold.add(key)
        elif tag in ("f", "s"):
            (out.facts if tag == "f" else out.superseding)[key] = (key, *row[fact_at:])
            if tag == "s":
                continue
            if row[i["retold"]]:
                out.retold.add(key)
            if row[i["arr"]] is not None:  # the present stage's columns, read with the fact
                out.items[key] = (key, row[i["emb"]], row[i["arr"]], row[i["arr2"]], None, None, row[i["flag"]],
                                  row[i["said_at"]])
        elif tag == "c":
            out.chunks[key] = (key, row[i["ev"]], row[i["i1"]], row[i["i2"]], row[i["a"]], row[i["ts"]],
                               row[i["b"]], row[i["c"]], row[i["d"]], row[i["e"]])
            if row[i["arr"]] is not None:
                out.items[key] = (key, row[i["emb"]], row[i["arr"]], row[i["arr2"]], row[i["actor"]],
                                  row[i["context"]], row[i["flag"]], row[i["said_at"]])
        elif tag == "v":
            out.standing.append((key, row[i["ev"]], row[i["i1"]], row[i["i2"]], row[i["flag"]], row[i["a"]]))
        elif tag == "r":
            out.redactions.setdefault(row[i["ev"]], []).append(row[i["a"]])
        elif tag == "nb":
            out.neighbours[row[i["ev"]]] = (row[i["pos"]], row[i["bronze_event_id"]])
    for name, scored in out.lists.items():
        out.lists[name] = [(key, score) for _, key, score in sorted(scored, key=lambda r: r[0])]
    listed = {k for name in ("fv", "ft") for k, _ in out.lists.get(name, [])} | {h.fact_id for h in out.hops}
    out.asked = listed - out.cold
    return out


def _events_of_served(fetched: Fetched) -> None:
    """About now the served rows are the ledger's own: their events are the candidates' events."""
    event = _FACT.index("bronze_event_id") + 1
    fetched.event_of.update({key: row[event] for key, row in fetched.facts.items()})
