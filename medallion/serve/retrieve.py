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

from medallion.serve import graph, present, served
from medallion.silver.embed import vector_arrays

HOP_NODES = 1000  # nodes of the walk's third level read ahead (the first two are read whole)
# Python's entity key (NFKC, case-folded, single spaces, no edge punctuation) as far as SQL computes it
# in any encoding: exact for plain ASCII; where it differs, the caller looks the value up itself.
APPROX_KEY = ("regexp_replace(regexp_replace(lower({0}), '\\s+', ' ', 'g'), "
              "'^[^[:alnum:]]+|[^[:alnum:]]+$', '', 'g')")

COLUMNS: tuple[tuple[str, str], ...] = (
    ("tag", "text"), ("id", "text"), ("pos", "int8"), ("num", "float8"), ("ev", "int8"),
    ("a", "text"), ("b", "text"), ("c", "text"), ("d", "text"), ("e", "text"),
    ("arr", "text[]"), ("arr2", "text[]"), ("i1", "int4"), ("i2", "int4"), ("flag", "bool"),
    ("ts", "timestamptz"), ("emb", "vector"),
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
    asked: set[str] = field(default_factory=set)  # fact ids the statement loaded (visible or not)
    event_of: dict[str, Any] = field(default_factory=dict)
    facts: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # FACT_SELECT rows, by id
    chunks: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # search's chunk rows, by id
    standing: list[tuple[Any, ...]] = field(default_factory=list)  # the facts of the chunks' events
    retold: set[str] = field(default_factory=set)  # believed candidate facts whose sentence stated a closed one
    redactions: dict[int, list[str]] = field(default_factory=dict)
    superseding: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # FACT_SELECT rows, by id
    items: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # present.ITEMS_SQL rows, by id


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
        f"1 - (f.embedding <=> %(q)s::vector) AS near, ({plan.believed}) AS believed, f.authority, f.valid_from "
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
    ctes.append("fv AS (SELECT x.id, x.dist, row_number() OVER () AS pos FROM (SELECT f.fact_id AS id, "
                f"f.embedding <=> %(q)s::vector AS dist FROM {source} f WHERE {where} "
                "ORDER BY f.embedding <=> %(q)s::vector LIMIT %(n)s) x)")
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
    # each candidate by its key (a lateral lookup: an index probe per id whatever the planner expects of cf)
    if plan.as_of:  # the events of the ledger's rows (about now, the served rows below are those rows)
        parts.append(_branch("ev", "FROM cf CROSS JOIN LATERAL (SELECT f.fact_id, f.bronze_event_id FROM silver.facts "
                             "f WHERE f.fact_id = cf.id) f", id="f.fact_id", ev="f.bronze_event_id"))
    # OFFSET 0 keeps the lookup per candidate: flattened, the planner (expecting thousands of candidates)
    # hashes every entity of the namespace to join a hundred facts to their subjects
    parts.append(_branch("f", f"FROM cf CROSS JOIN LATERAL ({served.FACT_SELECT.format(source=source)} "
                         "WHERE f.fact_id = cf.id OFFSET 0) x", id="x.fact_id", **_FACT_COLUMNS))
    if not plan.as_of:
        # the believed candidates whose sentence also stated a belief the ledger has closed (same event,
        # overlapping span): their words still name the closed value (serve/fusion.py); few rows, by index
        parts.append(_branch("o", "FROM cf CROSS JOIN LATERAL (SELECT f.fact_id FROM silver.facts f "
                             "WHERE f.fact_id = cf.id AND f.valid_to IS NULL AND EXISTS (SELECT 1 FROM silver.facts s "
                             "WHERE s.bronze_event_id = f.bronze_event_id AND s.valid_to IS NOT NULL "
                             "AND (s.span_start IS NULL OR s.span_end IS NULL OR f.span_start IS NULL "
                             "OR f.span_end IS NULL OR (s.span_start < f.span_end AND f.span_start < s.span_end)))"
                             ") x", id="x.fact_id"))
    chunk_ids = "SELECT NULL::text WHERE false"
    if plan.chunks:
        _chunk_parts(plan, ctes, parts)
        chunk_ids = "SELECT chunk_id FROM crow"
    if plan.present:
        ctes.append("pi AS (" + present.items_sql("SELECT id FROM cf", chunk_ids) + ")")
        parts.append(_branch("i", "FROM pi x (id, emb, names, cards, actor, context, trusted, said_at)", id="x.id",
                             emb="x.emb", arr="x.names", arr2="x.cards", a="x.actor", b="x.context",
                             flag="x.trusted", ts="x.said_at"))
    return "WITH " + ",\n".join(ctes) + "\n" + "\nUNION ALL ".join(parts)


def _chunk_parts(plan: Plan, ctes: list[str], parts: list[str]) -> None:
    """The chunk lists, the candidate chunks' rows, their standing, redactions and superseding facts."""
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
    ctes.append("crow AS (SELECT c.chunk_id, c.bronze_event_id, c.char_start, c.char_end, c.text, c.occurred_at, "
                "c.provenance_root, p.source, p.source_event_id, c.unit FROM silver.chunks c "
                "LEFT JOIN LATERAL (SELECT p.source, p.source_event_id FROM gold.event_provenance p "
                "WHERE p.event_id = c.bronze_event_id OFFSET 0) p ON true WHERE c.chunk_id IN ("
                + " UNION ".join(f"SELECT id FROM {n}" for n in names) + "))")
    parts.append(_branch("c", "FROM crow c", id="c.chunk_id", ev="c.bronze_event_id", i1="c.char_start",
                         i2="c.char_end", a="c.text", ts="c.occurred_at", b="c.provenance_root", c="c.source",
                         d="c.source_event_id", e="c.unit"))
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


_PLACEHOLDER = re.compile(r"%\((\w+)\)s|%%|%")


@functools.lru_cache(maxsize=64)
def positional(plan: Plan) -> tuple[str, tuple[str, ...]]:
    """The statement of ``plan`` with numbered parameters (``$1``, ``$2``, …), and the name each number
    stands for, built once per plan.

    Why: the statement is about 23 KB, and psycopg keeps its conversion of ``%(name)s`` parameters
    only for statements up to 4 KB, so every search built the text again and psycopg split it again
    (about 0.4 ms together); a raw cursor takes the numbered form as it is.
    """
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match[0] == "%%":
            return "%"
        if match[1] is None:
            raise ValueError("a lone % in the search statement")
        if match[1] not in names:
            names.append(match[1])
        return f"${names.index(match[1]) + 1}"

    return _PLACEHOLDER.sub(number, statement(plan)), tuple(names)


def fetch(conn: psycopg.Connection, plan: Plan, params: dict[str, Any]) -> Fetched:
    """Run the statement and sort its rows by part.

    Binary, so that the embeddings come as arrays rather than text to parse; prepared at once, so
    that after the server's first few custom plans the connection reuses one generic plan (the
    statement is long: planning it costs more than several of its lists); numbered parameters
    (:func:`positional`), so that the text is neither rebuilt nor parsed again on each call.
    """
    sql, names = positional(plan)
    cur = psycopg.RawCursor(conn)
    cur.format = Format.BINARY
    with vector_arrays(cur) as cur:
        rows = cur.execute(sql, [params[name] for name in names], prepare=True).fetchall()
    fetched = parse(rows)
    if not plan.as_of:
        _events_of_served(fetched)
    return fetched


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
        elif tag in ("f", "s"):
            (out.facts if tag == "f" else out.superseding)[key] = (key, *row[fact_at:])
        elif tag == "c":
            out.chunks[key] = (key, row[i["ev"]], row[i["i1"]], row[i["i2"]], row[i["a"]], row[i["ts"]],
                               row[i["b"]], row[i["c"]], row[i["d"]], row[i["e"]])
        elif tag == "v":
            out.standing.append((key, row[i["ev"]], row[i["i1"]], row[i["i2"]], row[i["flag"]], row[i["a"]]))
        elif tag == "o":
            out.retold.add(key)
        elif tag == "r":
            out.redactions.setdefault(row[i["ev"]], []).append(row[i["a"]])
        elif tag == "i":
            out.items[key] = (key, row[i["emb"]], row[i["arr"]], row[i["arr2"]], row[i["a"]], row[i["b"]],
                              row[i["flag"]], row[i["ts"]])
    for name, scored in out.lists.items():
        out.lists[name] = [(key, score) for _, key, score in sorted(scored, key=lambda r: r[0])]
    out.asked = {k for name in ("fv", "ft") for k, _ in out.lists.get(name, [])} | {h.fact_id for h in out.hops}
    return out


def _events_of_served(fetched: Fetched) -> None:
    """About now the served rows are the ledger's own: their events are the candidates' events."""
    event = _FACT.index("bronze_event_id") + 1
    fetched.event_of.update({key: row[event] for key, row in fetched.facts.items()})
