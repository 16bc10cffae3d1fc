"""Search's importance boost is per event: it lifts a turn holding an important belief above other turns,
and leaves the order of one turn's facts to how well each matched the question (``serve/search.py``)."""

from __future__ import annotations

from medallion.serve import fusion
from medallion.serve.search import event_boosts


def test_facts_of_one_event_share_its_largest_boost() -> None:
    facts = [{"fact_id": "spouse", "importance": 3}, {"fact_id": "car", "importance": 0},
             {"fact_id": "other", "importance": 1}]
    boosts = event_boosts(facts, {"spouse": 1, "car": 1, "other": 2})
    assert boosts == {1: 1.3, 2: 1.1}


def test_the_turn_keeps_the_order_its_words_gave() -> None:
    """'What car does Maren drive?': the car fact matched better than the spouse fact of the same turn;
    the spouse fact's higher importance does not put it first."""
    lists = {"vector": ["car", "spouse", "elsewhere"], "text": ["car", "elsewhere", "spouse"]}
    event_of = {"car": 1, "spouse": 1, "elsewhere": 2}
    scores = fusion.fuse(lists, event_of)
    facts = [{"fact_id": "car", "importance": 0}, {"fact_id": "spouse", "importance": 3},
             {"fact_id": "elsewhere", "importance": 0}]
    boosts = event_boosts(facts, event_of)
    ranked = sorted(scores, key=lambda f: -scores[f] * boosts[event_of[f]])
    assert ranked == ["car", "spouse", "elsewhere"]
