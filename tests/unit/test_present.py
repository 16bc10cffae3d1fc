"""The pure part of "at query time, the present wins" (``serve/present.py``): which questions are about
now, which candidates cluster, and how a cluster is reordered.

Why: a user asking about now depends on the newest of several similar statements about one subject
coming first; one asking about before, or about a many-valued meaning, or about another subject,
depends on the order staying as the words ranked it.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from medallion.serve.asked_subject import by_part_of_name
from medallion.serve.cues import about_the_present, asks_for_many, asserts_value, news, retracts, says_change, tokens
from medallion.serve.present import (
    Candidate,
    asks_about_before,
    clusters,
    linked,
    newest_first,
    part_of,
    proper_words,
    question_subjects,
    reorder,
    replaced_first,
    said_when,
    same_subject,
)
from medallion.serve.present import candidates as present_candidates


def _item(key: str, day: int, vector: list[float], *, names: tuple[str, ...] = ("selma",), text: str = "",
          many: bool = False, to_question: float = 0.6, event: object = None,
          follows: frozenset[object] = frozenset()) -> Candidate:
    name_sets = tuple(frozenset(tokens(n)) for n in names)
    return Candidate(key=key, when=datetime(2026, 1, day, tzinfo=UTC), vector=vector, to_question=to_question,
                     event=event if event is not None else key, follows=follows, names=name_sets,
                     words=frozenset(tokens(text).union(*name_sets)), many=many)


WORK = [1.0, 0.2, 0.0]
WORK_AGAIN = [0.9, 0.35, 0.05]  # cosine ≈ 0.99 with WORK
ELSEWHERE = [0.0, 0.1, 1.0]  # cosine ≈ 0.02 with WORK


@pytest.mark.parametrize(("question", "present"), [
    ("Where does Selma work?", True),
    ("Where does Selma work now?", True),
    ("What is Selma's job these days?", True),
    ("Which team is Mei on currently", True),
    ("Where did Selma work before?", False),
    ("Where did Selma live in 2019?", False),
    ("Where was Selma working previously?", False),
    ("What was Selma's first car?", False),
    ("Where does Selma used to live?", False),
    ("Has Selma ever lived abroad?", False),
    ("Who owned the van?", False),  # no cue either way: the fused order stands
    ("Why is Selma happy at work?", False),  # a reason, a manner, a count, what was done: no one state
    ("How does Selma unwind?", False),
    ("How many races has Selma run?", False),
    ("Where has Selma camped?", False),
    ("How old is Selma's cat?", True),
    ("How much does Selma's gym membership cost?", True),  # an amount that holds
    ("How much did Selma pay for the bike?", False),
    ("How is Selma getting to work now?", True),
    ("Who owns the Harbor project?", True),  # a verb in the present third person, no auxiliary
    ("Which team handles the refunds?", True),
    ("Who was handling the refunds?", False),
    ("Where should the invoices for Brackley Mills go?", True),  # a modal asking what to do now
    ("Which number can we reach Selma on?", True),
    ("Where should Selma have gone before?", False),
    ("Which card should be used for Selma's rent?", True),  # "used for" is no "used to"
    ("Where did Selma use to work?", False),
    ("Who has the key to the Dunmore unit?", True),  # "has" owning now; "has … camped" above is what was done
])
def test_a_question_about_now_is_told_from_one_about_another_time(question: str, present: bool) -> None:
    assert about_the_present(question) is present


def test_the_newest_of_a_cluster_takes_its_best_place() -> None:
    items = [_item("old", 1, WORK), _item("new", 3, WORK_AGAIN)]
    assert newest_first(items) == [1, 0]


def test_others_keep_their_places_between_cluster_members() -> None:
    items = [_item("old", 1, WORK), _item("errand", 5, ELSEWHERE), _item("new", 3, WORK_AGAIN)]
    assert newest_first(items) == [2, 1, 0]


def test_items_of_one_time_keep_their_rank_order() -> None:
    items = [_item("fact", 1, WORK, event="e1"), _item("chunk", 1, WORK_AGAIN, event="e1")]
    assert newest_first(items) == [0, 1]


def test_a_later_statement_with_another_meaning_does_not_move() -> None:
    items = [_item("old", 1, WORK), _item("other", 3, ELSEWHERE)]
    assert newest_first(items) == [0, 1]


def test_a_later_statement_about_another_subject_does_not_move() -> None:
    items = [_item("old", 1, WORK, names=("selma",)), _item("brother", 3, WORK_AGAIN, names=("rui",))]
    assert newest_first(items) == [0, 1]


def test_a_subject_named_in_the_words_counts() -> None:
    """A note about someone names them in its words: it is about them even with no fact."""
    items = [_item("old", 1, WORK, names=("selma",)), _item("note", 3, WORK_AGAIN, names=(), text="Selma joined B")]
    assert newest_first(items) == [1, 0]


def test_many_valued_items_are_never_reordered() -> None:
    items = [_item("first", 1, WORK, many=True), _item("second", 3, WORK_AGAIN, many=True)]
    assert newest_first(items) == [0, 1]


def test_a_later_turn_that_says_it_replaced_a_many_valued_value_leads() -> None:
    """A slot holding several values adds one with each turn, unless the later turn says the new value
    took the old one's place: "Ticket 52 reassigned to Oona" after "Ticket 52 assigned to Piet"; "change of
    plans, we're flying to Porto" after "heading to Faro after the trip". Either side may be many-valued."""
    old = replace(_item("piet", 1, WORK, many=True, names=("ticket 52",)), text="Ticket 52 assigned to Piet")
    new = replace(_item("oona", 3, WORK_AGAIN, many=True, names=("ticket 52",)), text="52 reassigned to Oona",
                  changes=True)
    assert newest_first([old, new]) == [1, 0]
    assert newest_first([replace(old, many=False), new]) == [1, 0]
    assert newest_first([old, replace(new, many=False)]) == [1, 0]
    assert newest_first([old, replace(new, changes=False)]) == [0, 1]  # one more value, not a replacement
    # the older turn's words do not count, nor does a change word of an item linked to nothing
    assert newest_first([replace(old, changes=True), replace(new, changes=False)]) == [0, 1]
    far = replace(new, vector=ELSEWHERE)
    assert newest_first([old, far]) == [0, 1]


def test_a_candidate_much_further_from_the_question_does_not_join() -> None:
    """Close to the answer but far less close to the question: another topic of the same person."""
    items = [_item("answer", 1, WORK, to_question=0.76), _item("other", 3, WORK_AGAIN, to_question=0.45)]
    assert newest_first(items) == [0, 1]


def test_a_chunk_embedded_with_the_other_turn_as_context_is_not_compared_with_it() -> None:
    items = [_item("old", 1, WORK, event="e1"), _item("next", 2, WORK_AGAIN, event="e2", follows=frozenset({"e1"}))]
    assert newest_first(items) == [0, 1]


def test_when_the_question_names_a_subject_only_its_candidates_cluster() -> None:
    items = [_item("old", 1, WORK, names=("selma", "rui")), _item("new", 3, WORK_AGAIN, names=("rui",))]
    assert newest_first(items, subjects=[frozenset({"selma"})]) == [0, 1]
    assert newest_first(items, subjects=[frozenset({"rui"})]) == [1, 0]


def test_clusters_do_not_chain_through_an_ineligible_item() -> None:
    items = [_item("a", 1, WORK), _item("b", 2, WORK_AGAIN, many=True), _item("c", 3, ELSEWHERE)]
    assert clusters(items) == [[0], [1], [2]]


def test_two_beliefs_in_curated_slots_are_never_clustered_with_each_other() -> None:
    """The ledger compared them already: two current beliefs of one subject in curated slots are two slots."""
    old, new = _item("lives", 1, WORK), _item("role", 3, WORK_AGAIN)
    items = [Candidate(**{**old.__dict__, "fact": True, "trusted": True}),
             Candidate(**{**new.__dict__, "fact": True, "trusted": True})]
    assert newest_first(items) == [0, 1]


def test_a_belief_in_a_learned_slot_clusters_with_an_older_belief() -> None:
    """ "picked up a used Leaf" lands in a learned slot the ledger cannot compare with "my car is a
    Corolla": the newer belief wins for a question about now."""
    old, new = _item("car", 1, WORK), _item("pick_up", 3, WORK_AGAIN)
    items = [Candidate(**{**old.__dict__, "fact": True}), Candidate(**{**new.__dict__, "fact": True})]
    assert newest_first(items) == [1, 0]


def test_a_belief_of_the_same_turn_is_not_newer() -> None:
    a, b = _item("a", 1, WORK, event="e1"), _item("b", 3, WORK_AGAIN, event="e1")
    items = [Candidate(**{**a.__dict__, "fact": True}), Candidate(**{**b.__dict__, "fact": True})]
    assert newest_first(items) == [0, 1]


def test_a_turn_counts_as_said_when_its_event_happened_unless_it_tells_of_long_before() -> None:
    said = datetime(2026, 3, 10, tzinfo=UTC)
    assert said_when(datetime(2026, 3, 9, tzinfo=UTC), said) == said  # "yesterday": news told now
    assert said_when(datetime(2025, 6, 1, tzinfo=UTC), said) == datetime(2025, 6, 1, tzinfo=UTC)  # a story
    assert said_when(None, said) == said


def test_of_two_valid_from_one_time_the_later_said_wins() -> None:
    items = [_item("old", 1, WORK, event=7), _item("new", 1, WORK_AGAIN, event=9)]
    assert newest_first(items) == [1, 0]


def test_a_belief_does_not_join_a_turn_that_stated_another_curated_belief_of_its_subject() -> None:
    old_fact = Candidate(**{**_item("lives", 1, WORK, event="e1").__dict__, "fact": True, "trusted": True})
    old_turn = _item("lives-turn", 1, WORK, event="e1")
    new_fact = Candidate(**{**_item("role", 3, WORK_AGAIN, event="e2").__dict__, "fact": True, "trusted": True})
    new_turn = _item("role-turn", 3, WORK_AGAIN, event="e2")
    assert newest_first([old_fact, old_turn, new_fact]) == [0, 1, 2]
    assert newest_first([old_fact, old_turn, new_turn]) == [2, 0, 1]


def test_the_items_of_one_turn_keep_their_rank_order() -> None:
    """A turn's belief dated by a relative phrase ("over the weekend") stays ahead of its own chunk."""
    items = [_item("old", 1, WORK, event="e1"), _item("fact", 2, WORK, event="e2"),
             _item("chunk", 4, WORK_AGAIN, event="e2")]
    assert newest_first(items) == [1, 2, 0]


@pytest.mark.parametrize(("question", "many"), [
    ("What are Oona's hobbies?", True),
    ("Which languages does Teodor speak?", True),
    ("Which plan is Kemal on?", False),
    ("What is Ilse's job title?", False),
    ("Which bus does Ilse take?", False),
    ("Who is Ravi's manager?", False),
    ("Where does Ilse work?", None),
    ("What is the status of ticket 12?", None),
])
def test_the_question_says_whether_it_asks_for_one_value_or_several(question: str, many: bool | None) -> None:
    """A plural head noun asks for every value (the fused order stands); a singular one asks for one, so
    the newest of a slot held as many-valued answers."""
    assert asks_for_many(question) is many


def test_only_the_newest_turn_moves_up_and_the_older_keep_their_order() -> None:
    """Three similar turns ranked oldest first: the newest takes the first place, the two older ones
    keep the order the words gave them (not newest first): older evidence stays where it was ranked."""
    items = [_item("first", 1, WORK), _item("second", 2, WORK_AGAIN), _item("third", 3, WORK)]
    assert newest_first(items) == [2, 0, 1]


@pytest.mark.parametrize(("question", "before"), [
    ("Where did Noor live before she moved?", True),
    ("What was the ticket's priority previously?", True),
    ("Who was her former manager?", True),
    ("What car did he use to drive?", True),
    ("Where does Noor live?", False),
    ("What did Noor eat yesterday?", False),
])
def test_a_question_about_before(question: str, before: bool) -> None:
    assert asks_about_before(question) is before


def test_a_replaced_belief_takes_its_successors_place() -> None:
    results = [
        {"kind": "fact", "fact_id": "new", "current": True, "superseded_by": None, "score": 0.9},
        {"kind": "fact", "fact_id": "other", "current": True, "superseded_by": None, "score": 0.8},
        {"kind": "chunk", "chunk_id": "c", "fact_id": None, "current": False, "score": 0.7,
         "superseded_by": [{"fact_id": "other", "statement": "…", "current": True}]},
        {"kind": "fact", "fact_id": "old", "current": False, "superseded_by": "new", "score": 0.5},
    ]
    order = replaced_first(results)
    assert [r.get("fact_id") or r.get("chunk_id") for r in order] == ["old", "new", "c", "other"]
    assert order[0]["score"] == 0.9 and order[2]["score"] == 0.8



def test_a_replaced_belief_goes_ahead_of_the_turn_that_replaced_it() -> None:
    """The replacing turn may lead with its text rather than its fact: the replaced belief still goes
    first, ahead of that text."""
    turn = {"bronze_event_id": 9}
    results = [
        {"kind": "chunk", "chunk_id": "c", "fact_id": None, "current": True, "score": 0.9, "provenance": turn},
        {"kind": "fact", "fact_id": "new", "current": True, "superseded_by": None, "score": 0.9, "provenance": turn},
        {"kind": "fact", "fact_id": "old", "current": False, "superseded_by": "new", "score": 0.5,
         "provenance": {"bronze_event_id": 4}},
    ]
    order = replaced_first(results)
    assert [r.get("fact_id") or r.get("chunk_id") for r in order] == ["old", "c", "new"]

LOOSELY_ALIKE = [0.15, 0.85, 0.5]  # cosine ≈ 0.31 with WORK: below SIMILAR, above SIMILAR_CHANGED


@pytest.mark.parametrize(("text", "changes"), [
    ("3301 reassigned: Dmitri owns it from now on", True),
    ("I switched to the night shift", True),
    ("Officially started at Lumora Press today", True),
    ("Scratch that, the retro moved to Thursday", True),
    ("Actually I'm on the Pro plan these days", True),
    ("Change of plan: the offsite is in Ghent", True),
    ("Ticket 88 escalated to the platform team", True),
    ("Please send invoices to Hallam Street going forward", True),
    ("Effective Monday, Ayo leads the night desk", True),
    ("As of this week the standup is at 9:15", True),
    ("Team Corvid took over the search service", True),
    ("dropped it in the sea, got a Lumo 3 as a replacement", True),
    ("Turns out it's the oat milk she reacts to", True),
    ("these days i train with the Harbour Wolves", True),  # a present restatement
    ("Nowadays she takes the 7:40 ferry", True),
    ("Billing contact updated: send statements to Oyelaran", True),
    ("Case 4410 handed over to Brannagh for the weekend", True),
    ("joined the Copperfield choir last month", True),
    ("signed the lease on the Harbour Street flat today", True),
    ("traded the Corsa in for a Zoe", True),
    ("4471 resolved, customer confirmed the fix", True),
    ("LT-9 reissued to Marcus", True),
    ("first week at Harrowgate Labs done, loving it", True),
    ("cancelled the Pilates pass, I swim at Westgate these days", True),
    ("I also speak Basque now", False),  # one more, not a replacement
    ("Spent the weekend hiking the ridge trail", False),
])
def test_words_that_say_a_change(text: str, changes: bool) -> None:
    assert says_change(text) is changes


def test_a_later_turn_that_says_it_changes_something_needs_less_likeness() -> None:
    old = _item("old", 5, WORK, names=("ticket 3301",), text="Ticket 3301 is assigned to Mireille")
    later = _item("new", 6, LOOSELY_ALIKE, names=("ticket 3301",), text="3301 reassigned: Dmitri owns it now")
    plain = replace(later, changes=False)
    assert not linked(old, plain)
    assert linked(old, replace(later, changes=True))
    assert not linked(replace(old, changes=True), plain)  # the older turn's words do not count


def test_a_records_name_is_its_identifier_too() -> None:
    """A chunk that says only '3301 reassigned: …' is about the fact whose subject is 'Ticket 3301'."""
    results = [{"kind": "fact", "fact_id": "f", "statement": "Ticket 3301 is assigned to Mireille.",
                "valid_from": "2026-01-05T09:30:00+00:00", "provenance": {"bronze_event_id": 1}},
               {"kind": "chunk", "chunk_id": "c", "statement": "3301 reassigned: Dmitri owns it from now on.",
                "valid_from": "2026-01-06T09:30:00+00:00", "provenance": {"bronze_event_id": 2}}]
    rows = {"f": ("f", None, ["Ticket 3301"], ["one"], None, None, False, None),
            "c": ("c", None, [], [], "agent:desk", None, False, None)}
    fact, chunk = present_candidates(rows, results, [1.0, 0.0, 0.0])
    assert frozenset({"3301"}) in fact.names
    assert same_subject(fact, chunk)


def test_a_name_is_mentioned_without_its_linking_words() -> None:
    """'billing-api in prod' is what a later note names when it says 'deployed billing-api release 2307
    to prod': the words that only link a name's parts (in, of, the, to …) need not be said again. A name
    that is nothing but such words names nothing."""
    results = [{"kind": "fact", "fact_id": "f", "statement": "billing-api in prod is on release 2281.",
                "valid_from": "2026-01-05T09:30:00+00:00", "provenance": {"bronze_event_id": 1}},
               {"kind": "chunk", "chunk_id": "c", "statement": "Ops note: deployed billing-api release 2307 to prod.",
                "valid_from": "2026-01-07T09:30:00+00:00", "provenance": {"bronze_event_id": 2}},
               {"kind": "chunk", "chunk_id": "d", "statement": "Ops: deployed billing-api release 2307 to staging.",
                "valid_from": "2026-01-07T09:30:00+00:00", "provenance": {"bronze_event_id": 3}}]
    rows = {"f": ("f", None, ["billing-api in prod"], ["one"], None, None, False, None),
            "c": ("c", None, [], [], "agent:ops", None, False, None),
            "d": ("d", None, [], [], "agent:ops", None, False, None)}
    fact, prod, staging = present_candidates(rows, results, [1.0, 0.0, 0.0])
    assert same_subject(fact, prod)
    assert not same_subject(fact, staging)  # a part of the name that tells it apart is still asked for
    assert not same_subject(replace(fact, names=(frozenset({"in", "the"}),)), prod)


def test_a_note_that_states_no_belief_is_about_the_names_it_capitalises() -> None:
    """'Heads up: Priyanka moved her team's sync to Fridays' stated no fact and is not in the first
    person: it is about the names it writes with a capital, so it can take the place of the older note
    about Priyanka's team."""
    assert proper_words("Heads up: Priyanka moved the Ticket 4413 sync, see The Lantern Room.") == [
        "Heads", "Priyanka", "Ticket 4413", "Lantern Room"]
    assert proper_words("I think it is fine. The end.") == []
    assert proper_words("Nice! Does she like it? Will said so.") == ["Nice", "Will"]  # a question's opener is no one
    results = [{"kind": "chunk", "chunk_id": "old", "statement": "Standup with Priyanka's group is on Mondays.",
                "valid_from": "2026-01-05T09:30:00+00:00", "provenance": {"bronze_event_id": 1}},
               {"kind": "chunk", "chunk_id": "new", "statement": "Heads up: Priyanka moved the sync to Fridays.",
                "valid_from": "2026-01-06T09:30:00+00:00", "provenance": {"bronze_event_id": 2}}]
    rows = {"old": ("old", None, [], [], "user:lead", None, False, None),
            "new": ("new", None, [], [], "user:lead", None, False, None)}
    old, new = present_candidates(rows, results, [1.0, 0.0, 0.0])
    assert frozenset({"priyanka"}) in new.names and same_subject(old, new)


def test_a_turns_text_and_its_belief_in_a_trusted_slot_stay_one_group() -> None:
    """The trusted-slot rule keeps apart two turns the ledger compared; a turn's own chunk and fact are
    one turn, so a later turn linked to the chunk takes the place of both."""
    fact = replace(_item("fact", 5, WORK, event=1), fact=True, trusted=True)
    text = replace(_item("text", 5, WORK_AGAIN, event=1), trusted=True)
    assert linked(fact, text)
    other_turn = replace(_item("other", 6, WORK_AGAIN, event=2), fact=True, trusted=True)
    assert not linked(fact, other_turn)


@pytest.mark.parametrize(("text", "asserts"), [
    ("I might switch to the Tuesday pottery class", False),
    ("Either Lyon or Porto next spring, not sure yet", False),
    ("Thinking about trading the hatchback for an e-bike", False),
    ("Please forget my home address", False),  # a request, not a value
    ("I switched to the Tuesday pottery class", True),
    ("My new address is 14 Quarry Lane", True),
])
def test_a_plan_under_consideration_or_a_request_states_no_value(text: str, asserts: bool) -> None:
    assert asserts_value(text) is asserts


def test_a_later_turn_that_only_considers_a_change_does_not_take_the_first_place() -> None:
    """'I might move to the Thursday class' after 'I take the Monday class': Monday is still the answer."""
    old = _item("old", 1, WORK)
    maybe = replace(_item("maybe", 3, WORK_AGAIN), asserts=False)
    assert newest_first([old, maybe]) == [0, 1]
    assert newest_first([old, replace(maybe, asserts=True)]) == [1, 0]


def test_a_turn_that_settles_a_plan_takes_the_place_of_the_plan() -> None:
    """'I might call the boat Seaborne, not sure yet' ranked first, then 'scratch that, it's Little Marlow':
    the settled turn leads, the plan keeps a place after it; a plan alone after the answer moves nothing."""
    maybe = replace(_item("maybe", 1, WORK), asserts=False)
    settled = _item("settled", 2, WORK_AGAIN)
    assert newest_first([maybe, settled]) == [1, 0]
    later_plan = replace(_item("plan", 3, WORK_AGAIN), asserts=False)
    assert newest_first([_item("answer", 1, WORK), later_plan]) == [0, 1]


def test_a_later_turn_that_says_a_change_may_sit_further_from_the_question() -> None:
    """'Officially started at Brightwell today' shares few words with 'Where does Selma work?': a turn
    that says it changes something joins a cluster from further away than a plain one."""
    old = _item("old", 1, WORK, to_question=0.7)
    later = _item("new", 3, WORK_AGAIN, to_question=0.42)
    assert not linked(old, later)
    assert linked(old, replace(later, changes=True))


def test_a_turn_in_the_first_person_is_about_its_speaker_whatever_else_it_names() -> None:
    """'I drive a Civic now and my brother kept the Jeep' names the brother in a belief; the turn is
    still the speaker's, so it can replace the speaker's older turn about a car."""
    results = [{"kind": "chunk", "chunk_id": "c", "statement": "I drive a Civic now and my brother kept the Jeep.",
                "valid_from": "2026-01-06T09:30:00+00:00", "provenance": {"bronze_event_id": 2}}]
    rows = {"c": ("c", None, ["brother"], [], "user:nadia", None, False, None)}
    (chunk,) = present_candidates(rows, results, [1.0, 0.0, 0.0])
    assert frozenset({"nadia"}) in chunk.names and frozenset({"brother"}) in chunk.names



@pytest.mark.parametrize(("text", "actor", "about_speaker"), [
    ("traded it in, picked up a used Corvane yesterday", "user:priya", True),  # the subject dropped, as chat does
    ("hitting the pool at Tidewell every morning", "user:priya", True),
    ("so proud of her, she trained so hard for it", "user:priya", False),  # about someone else
    ("had them on repeat all week, best album of the year", "user:priya", True),  # "them" is an object
    ("Customer upgraded to the annual plan", "agent:desk-2", False),  # an agent writes about others
])
def test_a_persons_turn_without_a_subject_is_about_its_speaker(text: str, actor: str, about_speaker: bool) -> None:
    results = [{"kind": "chunk", "chunk_id": "c", "statement": text,
                "valid_from": "2026-01-06T09:30:00+00:00", "provenance": {"bronze_event_id": 2}}]
    rows = {"c": ("c", None, [], [], actor, None, False, None)}
    (chunk,) = present_candidates(rows, results, [1.0, 0.0, 0.0])
    assert (frozenset(tokens(actor.split(":")[1])) in chunk.names) is about_speaker


def test_two_values_of_a_many_valued_slot_answer_one_value_asked_for_with_the_newest() -> None:
    """The ledger keeps "Kit attends Alderbrook Primary" and a later "Kit transferred to Fenwick
    Academy" as two values of the many-valued ``attended`` slot; "Which school does Kit go to?" asks for
    one, so the later turn answers, though both beliefs sit in a curated slot. "Which schools …" keeps
    the order."""
    results = [{"kind": "fact", "fact_id": f"f{n}", "statement": text, "score": 0.5 - n / 100,
                "valid_from": f"2026-01-0{n + 5}T09:30:00+00:00", "provenance": {"bronze_event_id": n}}
               for n, text in ((1, "Kit attends Alderbrook Primary."), (2, "Kit transferred to Fenwick Academy."))]
    rows = {f"f{n}": (f"f{n}", vector, ["Kit"], ["many"], None, None, True, None)
            for n, vector in ((1, WORK), (2, WORK_AGAIN))}
    one = reorder("Which school does Kit go to?", [1.0, 0.25, 0.0], results, rows)
    assert [r["fact_id"] for r in one] == ["f2", "f1"]
    several = reorder("Which schools does Kit go to?", [1.0, 0.25, 0.0], results, rows)
    assert [r["fact_id"] for r in several] == ["f1", "f2"]


@pytest.mark.parametrize(("text", "takes_back"), [
    ("scratch that, friday works better", True),
    ("Actually, make it the blue one", True),
    ("oh wait, actually it's on Tuesday", True),
    ("Correction: the fee is 40 euros", True),
    ("Make that two tickets", True),
    ("no wait, the 14th", True),
    ("sorry I meant Porto, not Braga", True),
    ("on second thought, let's keep the old sofa", True),
    ("I actually love the new flat", False),  # "actually" inside a sentence stresses it
    ("The review actually moved to Monday", False),
    ("I mean, the food was fine", False),
])
def test_a_text_that_opens_by_taking_back_what_was_said(text: str, takes_back: bool) -> None:
    assert retracts(text) is takes_back


def test_a_turn_that_takes_back_the_last_one_joins_it_however_far_from_the_question() -> None:
    """'scratch that, friday works better' shares no word with 'When is the picnic?': the plan it takes
    back is far closer to the question than the change is, yet the change answers."""
    plan = _item("plan", 1, WORK, to_question=0.66, text="picnic on wednesday at the lake")
    change = _item("change", 2, LOOSELY_ALIKE, to_question=0.24, text="friday works better")
    assert not linked(plan, replace(change, changes=True))  # a change word alone does not reach that far
    assert linked(plan, replace(change, changes=True, retracts=True))
    assert newest_first([plan, replace(change, changes=True, retracts=True)]) == [1, 0]


def test_two_turns_about_the_record_the_question_names_by_number_join_from_further_apart() -> None:
    """'Ticket 5120: severity S4.' matches 'What is the severity of ticket 5120?' far better than '5120
    raised to S1, outage spreading', which says the change; both name the record the question asks about."""
    old = _item("old", 1, WORK, names=("ticket 5120", "5120"), to_question=0.81)
    later = _item("new", 2, LOOSELY_ALIKE, names=("5120",), to_question=0.40)
    later = replace(later, changes=True)
    asked = [frozenset({"5120"})]
    assert not linked(old, later)  # without the question's record, too far from the question
    assert linked(old, later, asked=asked)
    assert newest_first([old, later], subjects=asked) == [1, 0]
    person = [frozenset({"selma"})]  # a person has many topics: their name does not widen the margin
    assert not linked(replace(old, names=(frozenset({"selma"}),)), replace(later, names=(frozenset({"selma"}),)),
                      asked=person)


@pytest.mark.parametrize(("text", "told"), [
    ("I'm doing Italian on an app now", 0),
    ("switched to the night shift", 0),
    ("route all updates to Halvard going forward", 0),
    ("Team Corvid took over the search service", 0),
    ("honestly the old one was too much for me,", 1),
    ("we adopted a greyhound called Juniper", 1),
    ("Biscuit passed away in june", 2),
    ("I'm no longer on the board", 2),
    ("sold the canoe in spring,", 2),  # an ending is a change even with no "now" or "new"
    ("we broke up in may", 2),
    ("took the 7:40 bus since the car died on me", 1),  # it names a value too: not only an ending
    ("finally finished the move", 1),  # "finally" stresses; it tells nothing new by itself
    ("I also have a bike now", 1),  # one more, not a change
])
def test_what_a_text_tells_of_a_change(text: str, told: int) -> None:
    assert news(text) == told


def test_the_newest_turns_clause_saying_what_holds_now_leads_the_turn() -> None:
    """'Kendo was too much for me, I'm doing judo now': of the turn's two clauses the one saying what holds
    now answers 'Which sport is Aiko doing?', not the one about the sport it left; the passage that holds
    both stays where the words ranked it, and a clause that only says what ended goes after both."""
    old = _item("old", 1, WORK, event="e1", to_question=0.6, text="I do kendo twice a week")
    left = replace(_item("left", 2, WORK_AGAIN, event="e2", to_question=0.58), text="kendo was too much for me,",
                   news=1)
    passage = replace(_item("all", 2, WORK_AGAIN, event="e2", to_question=0.57),
                      text="kendo was too much for me, I'm doing judo now", news=0, changes=True)
    now = replace(_item("now", 2, WORK_AGAIN, event="e2", to_question=0.52), text="I'm doing judo now", news=0,
                  changes=True)
    assert newest_first([old, left, passage, now]) == [3, 1, 2, 0]
    ended = replace(left, text="kendo ended for me", news=2)
    assert newest_first([old, ended, passage, replace(now, news=1)]) == [2, 3, 1, 0]
    far = replace(now, to_question=0.40)  # a clause far from the question does not lead for its cue word
    assert newest_first([old, left, passage, far]) == [1, 2, 3, 0]


def test_a_title_and_a_surname_name_the_person_another_note_names_in_full() -> None:
    """'Mr. Olander is now in room 512' is about the Piet Olander of the question and of the older notes."""
    results = [{"kind": "chunk", "chunk_id": "c", "statement": "Mr. Olander asked for somewhere quieter.",
                "valid_from": "2026-01-06T09:30:00+00:00", "provenance": {"bronze_event_id": 2}}]
    rows = {"c": ("c", [1.0, 0.0, 0.0], ["Mr. Olander"], [], "agent:frontdesk", None, False, None)}
    (chunk,) = present_candidates(rows, results, [1.0, 0.0, 0.0])
    assert frozenset({"olander"}) in chunk.names
    assert part_of(chunk, frozenset({"piet", "olander"}))
    old = _item("old", 1, WORK, names=("piet olander",), text="Guest Piet Olander checked into room 214")
    later = replace(_item("new", 2, WORK_AGAIN, names=("olander",)), changes=True)
    asked = [frozenset({"piet", "olander"})]
    assert newest_first([old, later], subjects=asked) == [1, 0]


def test_beside_a_part_that_says_what_ended_the_part_naming_its_replacement_leads() -> None:
    """'sold the canoe in spring, bought a Koru paddleboard instead': the clause that says only what ended
    goes last, and the other clause, which names what replaced it, leads the turn ahead of the passage
    holding both values; a text that only announces the change, naming no value, follows the texts that
    name one ('What does Ines paddle on now?')."""
    old = _item("old", 1, WORK, event="e1", to_question=0.6, text="I take my canoe out every weekend")
    passage = replace(_item("all", 2, WORK_AGAIN, event="e2", to_question=0.58),
                      text="sold the canoe in spring, bought a Koru paddleboard instead", news=1, changes=True)
    announced = replace(_item("announced", 2, WORK_AGAIN, event="e2", to_question=0.57),
                        text="new board this year", news=0, changes=True)
    ended = replace(_item("ended", 2, WORK_AGAIN, event="e2", to_question=0.56), text="sold the canoe in spring,",
                    news=2, changes=True)
    bought = replace(_item("bought", 2, WORK_AGAIN, event="e2", to_question=0.55),
                     text="bought a Koru paddleboard instead", news=1, changes=True)
    assert newest_first([old, passage, announced, ended, bought]) == [4, 1, 2, 3, 0]
    unnamed = replace(bought, text="bought a paddleboard instead")  # names no value: the words' order stands
    assert newest_first([old, passage, announced, ended, unnamed]) == [1, 4, 2, 3, 0]


def test_of_two_texts_saying_what_holds_now_the_one_giving_the_value_leads_its_turn() -> None:
    """'Ines Paredes's number has changed. New number: 0161 496 7316.' The first sentence is closer to
    "What is Ines's number?" but only announces what the second gives."""
    old = _item("old", 1, WORK, event="e1", to_question=0.6, text="Ines Paredes, contact number 0161 496 2093")
    announced = replace(_item("announced", 2, WORK_AGAIN, event="e2", to_question=0.62),
                        text="Ines Paredes's number has changed.", news=0, changes=True)
    given = replace(_item("given", 2, WORK_AGAIN, event="e2", to_question=0.56),
                    text="New number: 0161 496 7316.", news=0, changes=True)
    assert newest_first([old, announced, given]) == [2, 1, 0]
    far = replace(given, to_question=0.45)  # far from the question, the value does not lead for its digits
    assert newest_first([old, announced, far]) == [1, 2, 0]
    said = replace(announced, text="Ines Paredes moved house.")  # neither gives a value: the order stands
    assert newest_first([old, said, replace(given, text="new place is lovely.")]) == [1, 2, 0]
    # far from the question, the text that says the announcement's words and the value still goes first;
    # the names the turn is about are no value ("Dr. Lund changed Ines Paredes's inhaler")
    clause = replace(announced, text="Dr. Lund changed Ines Paredes's inhaler,", names=(
        frozenset({"lund"}), frozenset({"ines", "paredes"})))
    whole = replace(given, text="Dr. Lund changed Ines Paredes's inhaler, she is on Brevora now.", to_question=0.45)
    assert newest_first([old, clause, whole]) == [2, 1, 0]


def test_a_fields_label_is_no_name_but_a_speakers_label_is() -> None:
    """'Status: closed' labels a field of the record the note is about; it is no one the note speaks of,
    and a question that says 'status' does not ask about a person called Status. 'Maren: I'll call the
    Ostby family' names who speaks."""
    assert proper_words("Order 5120 update: parts arrived and were fitted. Status: closed.") == ["Order 5120"]
    assert proper_words("Severity: high, assigned to Jonas") == ["Jonas"]
    assert proper_words("Maren: I'll call the Ostby family") == ["Maren", "Ostby"]


def test_a_note_naming_a_person_by_surname_joins_the_belief_about_them() -> None:
    """'Oyelaran reporting line updated: …' is about 'Femi Oyelaran', whom the question names in
    full; the same surname in lower case ('oyelaran street') or a part of a record's name is not."""
    asked = (frozenset({"femi", "oyelaran"}),)

    def item(key: str, day: int, names: tuple[str, ...], text: str) -> Candidate:
        return replace(_item(key, day, WORK if day == 5 else WORK_AGAIN, names=names, text=text), text=text)

    def by_surname(it: Candidate, subject: frozenset[str]) -> bool:
        return by_part_of_name(it.text, it.words, subject)

    old = item("old", 5, ("Femi Oyelaran",), "Femi Oyelaran reports to Dana Whitlock")
    later = item("new", 7, ("line manager",), "Oyelaran reporting line updated: line manager is Kwabena Osei")
    assert by_surname(later, asked[0])
    assert not linked(old, later)
    assert linked(old, later, asked=asked)
    assert clusters([old, later], subjects=asked) == [[0, 1]]
    street = item("st", 7, ("line manager",), "oyelaran street office: line manager is Kwabena Osei")
    assert not by_surname(street, asked[0]) and not linked(old, street, asked=asked)
    assert not by_surname(item("t", 7, (), "Ticket 5832 moved"), frozenset({"ticket", "5832"}))
    # another person of the same surname is no part of the asked name
    kin = item("kin", 7, ("line manager",), "Tobi Oyelaran reporting line updated: line manager is Kwabena Osei")
    assert not by_surname(kin, asked[0]) and not linked(old, kin, asked=asked)


def test_two_notes_that_both_name_the_asked_subject_are_about_it() -> None:
    """'Halvorsen: new billing address 9 Quay Row' names no one its beliefs are about (the label is read
    as a field's), yet it and 'Client Ada Halvorsen bills to 2 Mill Lane' both name whom the question asks
    about: one subject, so the newer note may lead."""
    asked = (frozenset({"halvorsen"}),)
    said = "Client Ada Halvorsen bills to 2 Mill Lane"
    old = replace(_item("old", 5, WORK, names=("Client Ada Halvorsen", "Mill Lane"), text=said), text=said)
    note = "Halvorsen: new billing address 9 Quay Row"
    later = replace(_item("new", 7, WORK_AGAIN, names=("Quay Row",), text=note), text=note)
    assert not linked(old, later)
    assert linked(old, later, asked=asked)
    other = replace(later, words=frozenset(tokens("Bergstrom: new billing address 9 Quay Row")),
                    text="Bergstrom: new billing address 9 Quay Row")
    assert not linked(old, other, asked=asked)


def test_a_turn_after_one_that_ended_something_needs_only_a_loose_likeness() -> None:
    """"sold the Zinnia to my cousin" ends a value; the car bought the next day ("picked up a used Strider")
    shares few words with it, yet replaces it: the later turn joins the ending's cluster at the looser
    likeness a stated change gets. Without an ending before it, the same likeness links nothing."""
    said = "sold the Zinnia to my cousin"
    sold = replace(_item("sold", 6, [1.0, 0.0, 0.0], names=("mirelle",), text=said), text=said)
    bought = _item("bought", 7, [0.3, 0.954, 0.0], names=("mirelle",), text="picked up a used Strider yesterday")
    assert linked(sold, bought)
    kept = replace(sold, text="washed the Zinnia for my cousin")
    assert not linked(kept, bought)
    assert newest_first([sold, bought]) == [1, 0]


def test_a_word_the_question_asks_of_someone_is_not_whom_it_asks_about() -> None:
    """A belief whose subject is the common noun "band" ("Small venues are the best way to see a band")
    does not make "what's my favorite band right now?" a question about bands; "Where does Brann work?"
    is about Brann, and "what's Brann's band called?" about Brann too."""
    band = _item("venues", 1, WORK, names=("band",))
    brann = _item("brann", 2, WORK, names=("Brann",))
    assert question_subjects("what's my favorite band right now?", [band, brann]) == []
    assert question_subjects("What band plays at Lorn's tonight?", [band]) == [frozenset({"band"})]
    assert question_subjects("what's Brann's band called?", [band, brann]) == [frozenset({"brann"})]
