"""Search's ``graph`` list over the neighbourhood its one statement read (``serve/retrieve.py``).

The walk itself is ``serve/graph.py``'s: the same mentions, words, scoring and cut. Only its
``fetch`` differs: the hops of a level come from the rows read ahead, merged in the order and limit
``graph.hops`` gives them, followed by the name hops of ``graph.part_hops``. A level the statement
did not read whole, or a literal value whose entity key SQL could not compute as Python does, is read
the way the walk reads it without the statement, so the list is the same either way.
"""

from __future__ import annotations

from typing import Any

import psycopg

from medallion.serve import graph
from medallion.serve.retrieve import Fetched
from medallion.silver import entities


def search_list(conn: psycopg.Connection, fetched: Fetched, namespace: str, query: str, *, source: str,
                where: str, params: dict[str, Any], believed: str, limit: int) -> tuple[list[str], float]:
    """``graph.search_list`` over the rows read ahead (the caller's connection only for what they lack)."""
    named = graph.names_first(query, graph.mentions_in(fetched.mentions, graph.mention_keys(query)))
    words = graph.words_outside(query, (m.span for m in named), once=False)
    if not named or not words:
        return [], 1.0

    def fetch(nodes: list[str]) -> list[graph.Hop]:
        if not set(nodes) <= fetched.nodes:  # past what was read ahead: read as the walk does
            return [*graph.hops(conn, source=source, where=where, params=params, nodes=nodes, believed=believed),
                    *graph.part_hops(conn, namespace, nodes)]
        wanted = set(nodes)
        rows = sorted((h for h in fetched.hops if h.node in wanted), key=lambda h: h.pos)[:graph.HOP_ROWS]
        literal = {h.text: h.approx for h in rows if h.target is None and h.text is not None}
        keys = {text: entities.normalize(text) for text in literal}
        unsure = [text for text, key in keys.items() if key != literal[text] and len(key) > 1]
        named = graph.named_entities(conn, namespace, unsure) if unsure else {}
        hops = []
        for h in rows:
            target = h.target
            if target is None and h.text is not None:
                key = keys[h.text]
                target = h.named if key == h.approx else named.get(key)
            hops.append(graph.Hop(h.node, h.predicate, target, h.fact_id, h.near))
        parts = [graph.Hop(node, "_".join(graph.query_words(text, once=False)), part, "")
                 for _, node, part, text in sorted(p for p in fetched.parts if p[1] in wanted)
                 if graph.query_words(text)]
        return [*hops, *parts]

    paths = graph.walk([m.entity_id for m in named], words, fetch)
    return graph.ranked_facts(paths)[:limit], graph.list_weight(paths)
