"""The offline conflict judge (S3), called directly on candidates and neighbours, no database.

Every decision path of :mod:`medallion.silver.judge` is exercised with invented notes about a
small team: what is already known is skipped, a refinement updates, a changed single value
supersedes, a many-valued slot grows. Cosine scores are given by hand, so no embedding model runs.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from medallion.distill.types import FactCandidate, Judgement, Neighbour
from medallion.silver.judge import DEFAULT_THRESHOLD, HeuristicJudge, canonical_value, less_specific, refines
from medallion.silver.resolve import slot_rule

NOW = datetime(2026, 4, 15, 10, 0, tzinfo=UTC)
EARLIER = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
LATER = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def cand(subject: str, pred: str, value: Any, statement: str = "", *, cardinality: str | None = None,
         change: bool = False) -> FactCandidate:
    """A candidate as a distiller would propose it (statement defaults to a plain rendering)."""
    return FactCandidate(subject=subject, predicate=pred, value=value,
                         statement=statement or f"{subject} {pred} {value}.", valid_from=NOW, confidence=0.9,
                         cardinality=cardinality, change=change)


def nb(fact_id: str, subject: str, pred: str, value: Any, *, same_slot: bool = True, open_: bool = True,
       score: float = 0.5, valid_from: datetime = EARLIER, statement: str = "") -> Neighbour:
    """An existing ledger fact near the candidate."""
    return Neighbour(fact_id=fact_id, subject=subject, predicate=pred, value=value,
                     statement=statement or f"{subject} {pred} {value}.", valid_from=valid_from, authority=1,
                     score=score, same_slot=same_slot, open=open_)


def judge(candidate: FactCandidate, neighbours: list[Neighbour]) -> Judgement:
    return HeuristicJudge().judge(candidate, neighbours)


# --- pure helpers -------------------------------------------------------------------------------


def test_canonical_value_ignores_case_spacing_and_trailing_punctuation() -> None:
    """"Lisbon." and " lisbon " are one value, or the ledger would fill with duplicates."""
    assert canonical_value("  Lisbon. ") == canonical_value("lisbon") == "lisbon"
    assert canonical_value("Data   Platform  Team!") == "data platform team"
    assert canonical_value("Lisbon") != canonical_value("Lisbon office")


def test_canonical_value_of_structured_values_ignores_key_order() -> None:
    """A number with a unit compares by content, whatever order the distiller wrote the keys in."""
    assert canonical_value({"number": 3.5, "unit": "km"}) == canonical_value({"unit": "km", "number": 3.5})
    assert canonical_value({"number": 3.5, "unit": "km"}) != canonical_value({"number": 4, "unit": "km"})


def test_refines_needs_every_old_word_and_something_more() -> None:
    """Only a strict superset of the words refines; a rewording or an equal value does not."""
    assert refines("Atlas, Lisbon office", "Atlas")
    assert refines("senior backend engineer", "backend engineer")
    assert not refines("Atlas", "Atlas")  # equal, not more
    assert not refines("Lisbon office", "Atlas")  # different words
    assert not refines("Atlas", "")  # nothing to refine


def test_less_specific_covers_fewer_words_and_a_birthday_without_year() -> None:
    """"Atlas" after "Atlas, Lisbon office", and "--05-03" after "1991-05-03", add nothing new."""
    assert less_specific("Atlas", "Atlas, Lisbon office")
    assert less_specific("--05-03", "1991-05-03")
    assert not less_specific("--05-04", "1991-05-03")  # another day, not a vaguer form
    assert not less_specific("Atlas, Lisbon office", "Atlas")
    assert not less_specific("", "Atlas")


# --- skip: already known -------------------------------------------------------------------------


def test_same_value_is_skipped_whatever_the_case() -> None:
    """Restating a known value ("lisbon" for "Lisbon") must not create a second fact."""
    j = judge(cand("Alice", "lives_in", "lisbon"), [nb("f-home", "Alice", "lives_in", "Lisbon")])
    assert (j.decision, j.target_fact_id) == ("skip", "f-home")
    assert "slot (Alice, lives_in, one-valued)" in j.reason
    assert "[rule: same value is already known]" in j.reason


def test_less_specific_value_is_skipped() -> None:
    """A vaguer mention of a known place keeps the precise fact instead of replacing it."""
    j = judge(cand("Bruno", "works_at", "Atlas"), [nb("f-job", "Bruno", "works_at", "Atlas, Lisbon office")])
    assert (j.decision, j.target_fact_id) == ("skip", "f-job")
    assert "[rule: less specific is already known]" in j.reason


def test_birthday_without_year_after_full_birthday_is_skipped() -> None:
    """"Her birthday is May 3" must not supersede the known 1991-05-03 (single-valued slot)."""
    j = judge(cand("Chen", "birthday", "--05-03"), [nb("f-bday", "Chen", "birthday", "1991-05-03")])
    assert (j.decision, j.target_fact_id) == ("skip", "f-bday")
    assert "slot (Chen, birthday, one-valued)" in j.reason
    assert "[rule: less specific is already known]" in j.reason


# --- update: a refinement ------------------------------------------------------------------------


def test_refinement_updates_the_fact_it_refines() -> None:
    """A more precise value of the same claim updates it rather than superseding or duplicating it."""
    j = judge(cand("Bruno", "works_at", "Atlas, Lisbon office"), [nb("f-job", "Bruno", "works_at", "Atlas")])
    assert (j.decision, j.target_fact_id) == ("update", "f-job")
    assert "slot (Bruno, works_at, one-valued)" in j.reason
    assert "[rule: refinement updates]" in j.reason


def test_refinement_also_updates_in_a_many_valued_slot() -> None:
    """Refinement is checked before the many-valued 'add', so a sharper preference does not duplicate."""
    j = judge(cand("Dara", "prefers", "oat milk flat white"), [nb("f-pref", "Dara", "prefers", "flat white")])
    assert (j.decision, j.target_fact_id) == ("update", "f-pref")


# --- supersede: a single-valued slot changed ------------------------------------------------------


def test_different_value_in_single_valued_slot_supersedes() -> None:
    """Someone who moved lives in one place: the new city closes the old one."""
    j = judge(cand("Alice", "lives_in", "Porto"), [nb("f-home", "Alice", "lives_in", "Lisbon")])
    assert (j.decision, j.target_fact_id) == ("supersede", "f-home")
    assert "slot (Alice, lives_in, one-valued)" in j.reason
    assert "[rule: a single-valued slot holds one value, a different value supersedes]" in j.reason


def test_supersede_targets_the_latest_open_neighbour() -> None:
    """With several open values (e.g. after a merge) the most recent one is the one replaced."""
    neighbours = [
        nb("f-old", "Alice", "timezone", "Europe/Lisbon", valid_from=EARLIER),
        nb("f-new", "Alice", "timezone", "Europe/Madrid", valid_from=LATER),
    ]
    j = judge(cand("Alice", "timezone", "Asia/Tokyo"), neighbours)
    assert (j.decision, j.target_fact_id) == ("supersede", "f-new")


def test_learned_predicate_uses_the_candidates_cardinality_hint() -> None:
    """A learned single-valued slot supersedes; without the hint it falls back to many-valued and adds."""
    old = [nb("f-ed", "Eitan", "favourite_editor", "Vim")]
    one = judge(cand("Eitan", "favourite_editor", "Helix", cardinality="one"), old)
    assert (one.decision, one.target_fact_id) == ("supersede", "f-ed")
    assert "one-valued" in one.reason
    many = judge(cand("Eitan", "favourite_editor", "Helix"), old)
    assert (many.decision, many.target_fact_id) == ("add", None)
    assert "many-valued" in many.reason


def test_single_valued_supersede_wins_over_a_paraphrase_score() -> None:
    """A changed single value is a change even when the two statements embed close together."""
    j = judge(cand("Alice", "role", "Staff Engineer"), [nb("f-role", "Alice", "role", "Senior Engineer", score=0.97)])
    assert (j.decision, j.target_fact_id) == ("supersede", "f-role")


# --- paraphrase ----------------------------------------------------------------------------------


def test_paraphrase_in_many_valued_slot_is_skipped() -> None:
    """Two wordings of one preference (cosine ≥ threshold) are one fact, not two."""
    j = judge(cand("Dara", "prefers", "strong black coffee"),
              [nb("f-coffee", "Dara", "prefers", "espresso without sugar", score=0.93)])
    assert (j.decision, j.target_fact_id) == ("skip", "f-coffee")
    assert "slot (Dara, prefers, many-valued)" in j.reason
    assert "cosine 0.93" in j.reason
    assert "[rule: a paraphrase is already known]" in j.reason


def test_below_threshold_in_many_valued_slot_adds() -> None:
    """A distinct claim about the same subject (cosine under the threshold) is a new value."""
    j = judge(cand("Dara", "prefers", "green tea"), [nb("f-coffee", "Dara", "prefers", "black coffee", score=0.70)])
    assert (j.decision, j.target_fact_id) == ("add", None)
    assert "[rule: a many-valued slot adds]" in j.reason


def test_threshold_is_configurable_and_inclusive() -> None:
    """The threshold set on the judge decides; a score exactly at it counts as a paraphrase."""
    c = cand("Dara", "prefers", "green tea")
    n = [nb("f-tea", "Dara", "prefers", "sencha", score=0.80)]
    assert HeuristicJudge(threshold=0.80).judge(c, n).decision == "skip"
    assert HeuristicJudge(threshold=0.81).judge(c, n).decision == "add"
    assert HeuristicJudge().threshold == DEFAULT_THRESHOLD


def test_states_candidate_paraphrasing_another_predicate_is_skipped() -> None:
    """A generic 'states' sentence that restates a specific fact about the subject adds nothing."""
    j = judge(cand("Alice", "states", "Alice is based in Lisbon these days"),
              [nb("f-home", "Alice", "lives_in", "Lisbon", same_slot=False, score=0.92)])
    assert (j.decision, j.target_fact_id) == ("skip", "f-home")


def test_specific_predicate_is_never_skipped_for_a_states_fact() -> None:
    """A precise fact must be recorded even if a vague 'states' sentence already says much the same."""
    j = judge(cand("Alice", "lives_in", "Lisbon"),
              [nb("f-vague", "Alice", "states", "Alice is based in Lisbon these days", same_slot=False, score=0.95)])
    assert (j.decision, j.target_fact_id) == ("add", None)
    assert "[rule: a new slot adds]" in j.reason


def test_paraphrase_of_another_subject_or_a_closed_fact_is_not_skipped() -> None:
    """Similar wording about someone else, or about a closed (past) fact, is not 'already known'."""
    other = nb("f-bob", "Bob", "states", "Bob is lactose intolerant", same_slot=False, score=0.96)
    closed = nb("f-old", "Alice", "states", "Alice is lactose intolerant", same_slot=False, open_=False, score=0.96)
    j = judge(cand("Alice", "states", "lactose intolerant"), [other, closed])
    assert (j.decision, j.target_fact_id) == ("add", None)


def test_paraphrase_subject_match_ignores_case() -> None:
    """'alice' and 'Alice' are the same subject for the paraphrase check."""
    j = judge(cand("alice", "states", "lactose intolerant"),
              [nb("f-lac", "Alice", "states", "Alice cannot have lactose", same_slot=False, score=0.91)])
    assert (j.decision, j.target_fact_id) == ("skip", "f-lac")


# --- stated change in a many-valued slot ----------------------------------------------------------


def test_stated_change_in_many_valued_slot_supersedes_latest() -> None:
    """"I switched to Helix" replaces the editor in use instead of listing both tools as current."""
    neighbours = [
        nb("f-vim", "Eitan", "uses", "Vim", valid_from=LATER),
        nb("f-nano", "Eitan", "uses", "nano", valid_from=EARLIER),
    ]
    j = judge(cand("Eitan", "uses", "Helix", change=True), neighbours)
    assert (j.decision, j.target_fact_id) == ("supersede", "f-vim")
    assert "slot (Eitan, uses, many-valued)" in j.reason
    assert "[rule: a stated change (moved, switched, now) in a many-valued slot replaces its values]" in j.reason


def test_without_a_stated_change_many_valued_slot_adds() -> None:
    """"I use Helix" next to a known Vim is one more tool, not a replacement."""
    j = judge(cand("Eitan", "uses", "Helix"), [nb("f-vim", "Eitan", "uses", "Vim")])
    assert (j.decision, j.target_fact_id) == ("add", None)
    assert "slot (Eitan, uses, many-valued): another value [rule: a many-valued slot adds]" in j.reason


def test_stated_change_into_an_empty_slot_adds() -> None:
    """A change with nothing to replace is simply the first value."""
    j = judge(cand("Eitan", "uses", "Helix", change=True), [])
    assert (j.decision, j.target_fact_id) == ("add", None)
    assert "[rule: a new slot adds]" in j.reason


# --- empty slot, closed neighbours ----------------------------------------------------------------


def test_empty_slot_adds() -> None:
    """The first value of a slot is added, with a reason naming the slot."""
    j = judge(cand("Farah", "timezone", "Europe/Berlin"), [])
    assert j == Judgement("add", None, "slot (Farah, timezone, one-valued): no value yet [rule: a new slot adds]")


def test_neighbours_of_other_slots_do_not_fill_the_slot() -> None:
    """A low-scoring fact about another predicate does not turn a first value into a supersede."""
    j = judge(cand("Farah", "timezone", "Europe/Berlin"),
              [nb("f-home", "Farah", "lives_in", "Berlin", same_slot=False, score=0.60)])
    assert (j.decision, j.target_fact_id) == ("add", None)
    assert "[rule: a new slot adds]" in j.reason


@pytest.mark.parametrize(
    ("value", "closed_value"),
    [("Lisbon", "Lisbon"), ("Porto", "Lisbon"), ("Lisbon, Alfama", "Lisbon"), ("Lisbon", "Lisbon, Alfama")],
    ids=["same", "different", "refines", "less-specific"],
)
def test_closed_neighbours_are_ignored_for_same_slot_decisions(value: str, closed_value: str) -> None:
    """A superseded (closed) value is history: it neither blocks, updates nor gets superseded again."""
    j = judge(cand("Alice", "lives_in", value), [nb("f-past", "Alice", "lives_in", closed_value, open_=False)])
    assert (j.decision, j.target_fact_id) == ("add", None)
    assert "[rule: a new slot adds]" in j.reason


def test_supersede_skips_closed_neighbours_when_choosing_the_target() -> None:
    """Only an open version can be superseded, even if a closed one is more recent."""
    neighbours = [
        nb("f-open", "Alice", "lives_in", "Lisbon", valid_from=EARLIER),
        nb("f-closed", "Alice", "lives_in", "Madrid", valid_from=LATER, open_=False),
    ]
    j = judge(cand("Alice", "lives_in", "Porto"), neighbours)
    assert (j.decision, j.target_fact_id) == ("supersede", "f-open")


def test_a_model_judges_add_in_a_single_valued_slot_becomes_a_supersede() -> None:
    """An LLM judge may answer add beside the slot's open value; the slot keeps one current value, so the
    rule turns it into a supersede of that value (the ledger would refuse a second open version)."""
    old = nb("f-lyon", "Priya", "lives_in", "Lyon")
    said = Judgement("add", None, "the model thinks this is new")
    ruled = slot_rule(said, cand("Priya", "lives_in", "Nantes"), "one", [old])
    assert (ruled.decision, ruled.target_fact_id) == ("supersede", "f-lyon")
    assert ruled.reason.startswith("the model thinks this is new; ") and "supersedes" in ruled.reason


def test_a_model_judges_add_of_the_same_single_value_becomes_a_skip() -> None:
    old = nb("f-lyon", "Priya", "lives_in", "Lyon")
    ruled = slot_rule(Judgement("add", None, "new"), cand("Priya", "lives_in", "lyon."), "one", [old])
    assert (ruled.decision, ruled.target_fact_id) == ("skip", "f-lyon")


@pytest.mark.parametrize(("cardinality", "neighbours", "decision", "target"), [
    ("many", [nb("f-py", "Priya", "uses_tool", "Python")], "add", None),  # a many-valued slot grows
    ("one", [nb("f-lyon", "Priya", "lives_in", "Lyon", open_=False)], "add", None),  # closed: slot is empty
    ("one", [nb("f-x", "Bo", "lives_in", "Lyon", same_slot=False)], "add", None),  # another slot
    ("one", [nb("f-lyon", "Priya", "lives_in", "Lyon")], "update", "f-lyon"),  # a decision on a neighbour
])
def test_the_slot_rule_leaves_other_verdicts_alone(cardinality: str, neighbours: list[Neighbour], decision: str,
                                                  target: str | None) -> None:
    said = Judgement(decision, target, "as judged")
    assert slot_rule(said, cand("Priya", "p", "Nantes"), cardinality, neighbours) == said
