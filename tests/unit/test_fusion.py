"""Turn-level fusion (serve/fusion.py): each ranked list votes once per Bronze event."""

from __future__ import annotations

import pytest

from medallion.serve.fusion import (
    NEIGHBOUR_SHARE,
    NO_CURRENT_FACT,
    OWN_SHARE,
    RRF_K,
    ChunkStanding,
    fuse,
    with_neighbours,
)
from medallion.serve.search import asks_who, merged, rank_key


def test_many_items_of_one_event_do_not_outvote_two_lists_that_agree() -> None:
    # event 1 floods the fact list with five facts; event 2 is second in both lists
    lists = {"fact_vector": ["f1a", "f1b", "f1c", "f1d", "f1e", "f2"], "chunk_vector": ["c3", "c2"]}
    event_of = {"f1a": 1, "f1b": 1, "f1c": 1, "f1d": 1, "f1e": 1, "f2": 2, "c2": 2, "c3": 3}
    scores = fuse(lists, event_of)
    assert scores["f2"] > scores["f1a"]
    assert scores["c2"] > scores["c3"]
    # event 1 counts once, at the first rank: the same as a single item would
    assert abs((scores["f1a"] - OWN_SHARE / (RRF_K + 1)) - 1 / (RRF_K + 1)) < 1e-12


def test_items_of_one_event_keep_their_own_order_and_stay_together() -> None:
    lists = {"fact_text": ["f1a", "f2", "f1b"], "fact_vector": ["f1b", "f2"]}
    event_of = {"f1a": 1, "f1b": 1, "f2": 2}
    scores = fuse(lists, event_of)
    ranked = sorted(scores, key=lambda item: -scores[item])
    assert ranked == ["f1b", "f1a", "f2"]  # f1b is in two lists, f1a in one; event 1 leads both lists


def test_an_item_without_an_event_is_its_own_event_and_weights_apply() -> None:
    lists = {"a": ["x", "y"], "b": ["y"]}
    scores = fuse(lists, {}, weights={"a": 1.0, "b": 0.0})
    assert scores["x"] > scores["y"]
    assert fuse(lists, {})["y"] > fuse(lists, {})["x"]


def test_facts_and_chunks_are_one_list_per_view_so_a_turn_without_facts_competes_equally() -> None:
    # event 1 has a fact and a chunk, each below event 2's chunk (event 2 stated no fact)
    vector = merged([("f1", 0.8)], [("c2", 0.9), ("c1", 0.7)], limit=10)
    assert vector == ["c2", "f1", "c1"]
    scores = fuse({"vector": vector}, {"f1": 1, "c1": 1, "c2": 2})
    assert scores["c2"] > scores["f1"] > scores["c1"]  # one vote per event per view; the best item leads
    # two lists per view would hand event 1 two votes against event 2's one
    split = fuse({"fact_vector": ["f1"], "chunk_vector": ["c2", "c1"]}, {"f1": 1, "c1": 1, "c2": 2})
    assert split["f1"] > split["c2"]


def test_merged_breaks_ties_by_argument_order_and_cuts_at_the_limit() -> None:
    assert merged([("f", 0.5)], [("c", 0.5)], limit=5) == ["f", "c"]
    assert merged([("a", 3.0), ("b", 1.0)], [("c", 2.0)], limit=2) == ["a", "c"]
    assert merged([], [], limit=3) == []


def test_a_list_of_whole_passages_votes_for_the_turn_but_not_for_which_of_its_units_leads() -> None:
    """The passage lists hold no clause: counted for the passage, they would put the whole turn (both
    subjects' values) ahead of the clause that every-unit list ranks first."""
    lists = {"vector": ["clause", "passage", "other"], "text": ["clause", "other", "passage"],
             "passage_vector": ["passage", "other"], "passage_text": ["other", "passage"]}
    event_of = {"clause": 1, "passage": 1, "other": 2}
    counted = fuse(lists, event_of)
    assert counted["passage"] > counted["clause"]
    scores = fuse(lists, event_of, votes_only={"passage_vector": {"passage"}, "passage_text": {"passage"}})
    assert scores["clause"] > scores["passage"] > scores["other"]
    # the turn's votes are the same either way: the clause, in no passage list, keeps its score
    assert scores["clause"] == counted["clause"]


def test_of_two_items_of_one_turn_ranked_alike_the_shorter_comes_first() -> None:
    """Two lists that swap a clause and its passage give both one score: the shorter text, which says
    less besides the answer, is served first whatever the ids; a fact that holds the whole sentence
    is no shorter than the sentence."""
    results = [{"kind": "chunk", "chunk_id": "a", "statement": "Ida sits at desk 4, Ole at desk 9.", "score": 0.4},
               {"kind": "chunk", "chunk_id": "z", "statement": "Ole at desk 9.", "score": 0.4},
               {"kind": "fact", "fact_id": "b", "statement": "Ida sits at desk 4, Ole at desk 9.", "score": 0.4},
               {"kind": "fact", "fact_id": "y", "statement": "Ole sits at desk 9.", "score": 0.4},
               {"kind": "chunk", "chunk_id": "best", "statement": "Desk plan: Ida sits at desk 4.", "score": 0.5}]
    assert [r.get("chunk_id") or r["fact_id"] for r in sorted(results, key=rank_key)] == ["best", "z", "y", "a", "b"]


def test_a_chunk_that_stated_a_closed_belief_keeps_half_its_score_even_if_it_supports_another() -> None:
    assert ChunkStanding(supports=("role",), closed=("employer",)).factor == NO_CURRENT_FACT
    assert ChunkStanding(supports=("role",)).factor == 1.0 and ChunkStanding().factor == 1.0
    assert ChunkStanding(supports=("role",), closed=("employer",)).current  # still served as current


def test_a_fact_the_graph_found_leads_its_turn_without_moving_the_turn() -> None:
    """'Where does Bob live?': the turn 'I moved to Porto last month.' ranks first in the passage lists,
    but its fact fills the asked slot (the graph list) and is what the reader should see first."""
    lists = {"vector": ["chunk", "fact", "other"], "text": ["chunk", "other", "fact"],
             "passage_vector": ["chunk", "other"], "graph": ["fact"]}
    event_of = {"chunk": 1, "fact": 1, "other": 2}
    plain = fuse(lists, event_of)
    led = fuse(lists, event_of, leading="graph")
    assert plain["chunk"] > plain["fact"] and led["fact"] > led["chunk"] > led["other"]
    assert round(led["fact"], 6) > round(led["chunk"], 6)  # still apart once a result's score is rounded
    assert led["chunk"] == plain["chunk"] and led["other"] == plain["other"]


def test_a_belief_that_only_links_two_people_follows_the_rest_of_its_turn() -> None:
    """'Where does Elif's husband work?': 'Elif's husband is Cem.' matches the names best, but the turn's
    other belief ('Cem is an architect at Vossberg') answers; asked 'Who is Elif's husband?' it leads."""
    lists = {"vector": ["link", "job", "other"], "text": ["link", "other", "job"]}
    event_of = {"link": 1, "job": 1, "other": 2}
    trailed = fuse(lists, event_of, trailing={"link"})
    assert trailed["job"] > trailed["link"] > trailed["other"]
    assert trailed["job"] == fuse(lists, event_of)["job"]
    alone = fuse({"vector": ["link"]}, {"link": 1}, trailing={"link"})
    assert alone == fuse({"vector": ["link"]}, {"link": 1})  # with nothing else in its turn it stays as it was
    assert asks_who("Who is Elif married to?") and asks_who("whose desk is by the window?")
    assert not asks_who("Where does Elif's husband work?")


def test_a_turn_is_lent_a_share_of_its_neighbours_scores() -> None:
    """The answer after a matching question ("Yes, last May!") rises above a turn that matches as well
    alone; of two neighbours the better stays ahead; a neighbour no list found lends nothing."""
    scores = {"question": 0.10, "answer": 0.05, "elsewhere": 0.06, "quiet": 0.01}
    event_of = {"question": 1, "answer": 2, "elsewhere": 7, "quiet": 9}
    threads = {1: (None, 2), 2: (1, 3), 7: (6, 8), 9: (8, 10)}
    out = with_neighbours(scores, event_of, threads, share=0.3)
    assert out["answer"] > out["elsewhere"]  # 0.05 + 0.03 against 0.06 alone
    assert out["question"] > out["answer"]  # each lends the other the same share
    assert out["elsewhere"] == scores["elsewhere"] and out["quiet"] == scores["quiet"]  # 6, 8, 10 were not found
    assert with_neighbours(scores, event_of, {}, share=0.3) == scores



def test_a_turn_search_will_not_serve_lends_nothing() -> None:
    """A turn the query finds by words a person redacted is not served, and its neighbours are lent
    nothing of its score either."""
    scores = {"redacted": 0.10, "beside": 0.05}
    event_of = {"redacted": 1, "beside": 2}
    threads = {1: (None, 2), 2: (1, None)}
    assert with_neighbours(scores, event_of, threads)["beside"] == 0.05 + NEIGHBOUR_SHARE * 0.10
    assert with_neighbours(scores, event_of, threads, silent={1})["beside"] == 0.05


def test_the_better_neighbour_lends_and_a_question_lends_its_answer_all_of_its_score() -> None:
    """A turn between two matching turns gets a share of the better one only, so it stays below it;
    a turn two away gets a smaller share; the turn right after a question is lent the question's
    whole score and ranks just above it (the question does not get the same from its answer)."""
    scores = {"a": 0.10, "middle": 0.02, "b": 0.08, "far": 0.01}
    event_of = {"a": 1, "middle": 2, "b": 3, "far": 5}
    threads = {1: (None, 2), 2: (1, 3), 3: (2, 4), 5: (4, 6), 4: (3, 5)}
    out = with_neighbours(scores, event_of, threads, share=0.45, two_away=0.2)
    assert out["middle"] == pytest.approx(0.02 + 0.45 * 0.10)
    assert out["middle"] < out["a"]
    assert out["far"] == pytest.approx(0.01 + 0.2 * 0.08)  # 3 is two away, through 4 (known to the threads)
    asked = {"question": 0.10, "answer": 0.03}
    pair = {"question": 1, "answer": 2}
    turns = {1: (None, 2), 2: (1, None)}
    lent = with_neighbours(asked, pair, turns, asking={1})
    assert lent["answer"] == pytest.approx(0.03 + 0.10) and lent["answer"] > lent["question"]
    assert with_neighbours(asked, pair, turns, asking={1}, silent={1})["answer"] == 0.03
