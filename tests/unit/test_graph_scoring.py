"""The graph walk of search and follow (serve/graph.py), on tuples: no database.

Entities and predicates here are invented; the rules under test are general (key words, stems,
bridges, last hop first), so nothing is tuned to a benchmark's relations.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from medallion.serve import fusion, graph
from medallion.serve.graph import Hop, Mention, Step

# (subject, predicate, object or None for a literal value, fact id)
EDGES = [
    ("book", "author", "writer", "f-author"),
    ("writer", "spouse", "partner", "f-spouse"),
    ("writer", "lives_in", "town", "f-writer-home"),
    ("writer", "born_in_city", "village", "f-born"),
    ("writer", "email", None, "f-email"),
    ("partner", "lives_in", "city", "f-partner-home"),
    ("town", "located_in", "region", "f-town"),
    ("book", "genre", None, "f-genre"),
    ("book", "states", None, "f-states"),
]


def _fetch(edges: Sequence[tuple[str, str, str | None, str]]) -> graph.Fetch:
    def fetch(nodes: list[str]) -> list[Hop]:
        return [Hop(*e) for e in edges if e[0] in nodes]
    return fetch


def _ranked(query: str, starts: Sequence[str] = ("book",)) -> list[str]:
    return graph.ranked_facts(graph.walk(starts, graph.query_words(query), _fetch(EDGES)))


def test_words_match_by_stem_or_a_long_shared_prefix() -> None:
    assert graph.words_match("lives", "live") and graph.words_match("living", "lived")
    assert graph.words_match("cities", "city") and graph.words_match("employer", "employed")
    assert graph.words_match("location", "located")
    assert not graph.words_match("work", "workshop")  # 4 letters shared, but not 60 % of the longer stem
    assert not graph.words_match("born", "birthplace")
    assert graph.predicate_words("born_in_city") == ["born", "city"]
    assert graph.query_words("Where does Carol's sister live?") == ["carol", "sister", "live"]


def test_hop_score_is_the_share_of_the_key_words_the_query_matches() -> None:
    assert graph.hop_score("born_in_city", ["which", "city", "born"]) == 1.0
    assert graph.hop_score("born_in_city", ["born"]) == 0.5
    assert graph.hop_score("lives_in", ["live"]) == 1.0  # by its words
    assert graph.hop_score("works_at", ["employer"]) == 1.0  # by a curated cue only
    assert graph.hop_score("famous_for", ["live"]) == 0.0
    assert graph.hop_score("states", ["states"]) == 0.0  # the catch-all predicate names no relation


def test_single_hop_an_entity_named_and_a_predicate_matching_the_question() -> None:
    assert _ranked("Who is the author of the book?")[0] == "f-author"
    assert _ranked("What genre is the book?") == ["f-genre"]
    assert _ranked("What is the book about?") == []  # no predicate matches: the list stays empty


def test_the_last_hop_of_a_two_hop_path_comes_first() -> None:
    ranked = _ranked("Who is the spouse of the author of the book?")
    assert ranked[:2] == ["f-spouse", "f-author"]
    assert "f-partner-home" not in ranked  # a trailing hop that matches nothing is no answer


def test_a_bridge_that_matches_no_word_is_followed() -> None:
    # "writer" is not the key "author": the first hop is a bridge, "live" matches the second
    ranked = _ranked("Where does the writer of the book live?")
    assert ranked[:2] == ["f-writer-home", "f-author"]
    # both hops match: the two-hop path outscores the one-hop author fact
    assert _ranked("Where does the author of the book live?")[:2] == ["f-writer-home", "f-author"]
    # a literal value ends a path; "email" is found behind the bridge too
    assert _ranked("What is the email of the book's writer?")[0] == "f-email"


def test_two_bridges_are_not_taken_and_three_hops_at_most() -> None:
    # book → writer (bridge) → town (bridge) → region: the located_in hop needs two bridges
    assert "f-town" not in _ranked("Where is it located?")
    chain = [("a", "next_hop", "b", "1"), ("b", "next_hop", "c", "2"), ("c", "next_hop", "d", "3"),
             ("d", "next_hop", "e", "4"), ("e", "next_hop", "f", "5")]
    paths = graph.walk(["a"], ["next"] * 5, _fetch(chain))  # a word asked five times may explain five hops
    assert max(len(p.hops) for p in paths) == graph.MAX_HOPS == 3


def test_cycles_are_not_walked_and_unfollowable_hops_end_a_path() -> None:
    loop = [("a", "knows", "b", "1"), ("b", "knows", "a", "2"), ("b", "knows", None, "3")]
    paths = graph.walk(["a"], ["knows", "knows"], _fetch(loop))
    walked = {tuple(h.fact_id for h in p.hops) for p in paths}
    # the hop back to a is an answer ("b knows a"), but the walk does not go on from a node it visited
    assert walked == {("1",), ("1", "2"), ("1", "3")}


def test_paths_under_half_the_best_score_are_dropped() -> None:
    # the writer's own home (1 matched hop) beats the partner's home behind an unmatched spouse bridge
    ranked = graph.ranked_facts(graph.walk(["writer"], graph.query_words("Where does the writer live?"),
                                           _fetch(EDGES)))
    assert ranked == ["f-writer-home"]


def test_follow_walks_the_given_steps_and_stops_where_nothing_is_reached() -> None:
    def fetch(nodes: list[str], step: Step) -> list[Hop]:
        return [Hop(*e) for e in EDGES if e[0] in nodes and e[1] in step.keys]

    walked = graph.follow(["book"], graph.steps(["author", "lives in", "located_in"]), fetch)
    assert [[h.fact_id for h in hop] for hop in walked] == [["f-author"], ["f-writer-home"], ["f-town"]]
    walked = graph.follow(["book"], graph.steps(["author", "email", "located_in"]), fetch)
    assert [[h.fact_id for h in hop] for hop in walked] == [["f-author"], ["f-email"], []]


def test_steps_resolve_phrases_like_the_distiller() -> None:
    [works] = graph.steps(["works for"])
    assert works.key == "works_at" and not works.inverse and "works_at" in works.keys
    [employs] = graph.steps(["employs"])
    assert employs.key == "works_at" and employs.inverse  # walked from the employer to the employee
    [learned] = graph.steps(["born_in_city"])
    assert learned.key == "born_in_city"
    with pytest.raises(ValueError, match="at least one"):
        graph.steps([])
    with pytest.raises(ValueError, match="no word"):
        graph.steps(["--"])
    # an explicit path names every hop, so it may go further than the search's walk (MAX_HOPS)
    assert len(graph.steps(["spouse"] * graph.FOLLOW_STEPS)) == graph.FOLLOW_STEPS > graph.MAX_HOPS
    with pytest.raises(ValueError, match=f"at most {graph.FOLLOW_STEPS} predicates"):
        graph.steps(["spouse"] * (graph.FOLLOW_STEPS + 1))


def test_mentions_are_whole_names_longest_first() -> None:
    keys = graph.mention_keys("Where is Acme Corp's office, near Acme?")
    assert keys["acme corp"] == (2, 4) and keys["acme"] == (2, 3) and "corp's office" in keys
    found = [Mention("e1", "Acme", (2, 3)), Mention("e2", "Acme Corp", (2, 4)), Mention("e3", "Acme", (6, 7)),
             Mention("e4", "acme corp", (2, 4))]
    chosen = graph.pick_mentions(found)
    assert [m.entity_id for m in chosen] == ["e2", "e4", "e3"]  # "Acme" inside "Acme Corp" is that name
    assert graph.words_outside("Where is Acme Corp's office?", [(2, 4)]) == ["office"]


def test_the_graph_list_weighs_as_many_as_the_relations_its_best_path_matched() -> None:
    words = graph.query_words("Who is the spouse of the author of the book?")
    assert graph.list_weight(graph.walk(["book"], words, _fetch(EDGES))) == 2.0
    assert graph.list_weight(graph.walk(["book"], graph.query_words("the book's genre"), _fetch(EDGES))) == 1.0
    assert graph.list_weight([]) == 1.0


def test_chunk_standing_from_the_facts_overlapping_each_chunk() -> None:
    chunks = {"c-old": (1, 0, 20), "c-both": (2, 0, 40), "c-none": (3, 0, 10), "c-apart": (2, 50, 60)}
    facts = [("f1", 1, 0, 15, False, "f9"), ("f2", 2, 0, 15, False, "f8"), ("f3", 2, 20, 35, True, None),
             ("f4", 1, None, None, False, None)]  # no span: the whole event
    standing = fusion.chunk_standing(chunks, facts)
    old, both, none, apart = (standing[c] for c in ("c-old", "c-both", "c-none", "c-apart"))
    assert not old.current and old.closed == ("f1", "f4") and old.superseded_by == ("f9",)
    assert old.factor == fusion.NO_CURRENT_FACT < 1
    assert both.current and both.supports == ("f3",)
    assert both.factor == fusion.NO_CURRENT_FACT  # it also stated f2, closed: its words still name that value
    assert none.current and none.factor == 1.0  # stated nothing: current, and nothing contradicts it
    assert apart.current and not apart.supports and not apart.closed  # its event's facts lie elsewhere
