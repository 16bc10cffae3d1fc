"""Whom a question asks about, and whether a text opens with that one or with a relative
(``serve/asked_subject.py``), and how search and the present stage use it.

Why: a user who asks "How old is Liesel?" after "i'm 41 and my brother Konrad is 38" depends on
Liesel's own clause answering, and one who asks "What does Liesel's brother do?" on Konrad's; a note
about someone's husband buying a car must not pass for that person's car.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from medallion.serve.asked_subject import (
    Asked,
    Mention,
    asked,
    first_mention,
    first_within_event,
    named_in,
    rank,
    ranks,
)
from medallion.serve.cues import tokens
from medallion.serve.present import Candidate, newest_first

LIESEL = frozenset({"liesel"})


@pytest.mark.parametrize(("question", "kin", "beside", "answers"), [
    ("What does Liesel's brother do for a living?", {"brother"}, set(), False),
    ("Where does my daughter go to school?", {"daughter"}, set(), False),
    ("When is Corvin's fiancée's birthday?", {"fiancée"}, set(), False),
    ("What does Liesel's brother Konrad drive?", {"brother"}, {"konrad"}, False),
    ("Who is Liesel's landlord?", {"landlord"}, set(), True),
    ("Who are Corvin's kids?", {"kid"}, set(), True),
    ("What's the name of my cat?", {"cat"}, set(), True),
    ("How old is Liesel?", set(), set(), False),
    ("What is Liesel's favourite tea?", set(), set(), False),  # tea is no relative
])
def test_the_relative_a_question_asks_through(question: str, kin: set[str], beside: set[str],
                                              answers: bool) -> None:
    found = asked(question)
    assert found.kin == kin and found.kin_names == beside and found.kin_answers is answers


def test_the_people_a_question_names_are_not_its_labels() -> None:
    """Capitalised words after the first are people; a name with a number is a ticket's label."""
    assert asked("What laptop is Odalys using for TCK-4410?").names == (frozenset({"odalys"}),)
    assert asked("Which host does Ticket 5120 run on?").names == ()
    assert asked("Where does Anna Maria live?").names == (frozenset({"anna", "maria"}),)
    assert asked("How old is he?", [LIESEL]).names == (LIESEL,)  # the results' names the question gives
    assert asked("How much RAM does Odalys have?").names == (frozenset({"odalys"}),)  # an acronym names no one


@pytest.mark.parametrize(("text", "mention"), [
    ("and my brother Konrad is 38", Mention(kin="brother", owner="my", name=frozenset({"konrad"}))),
    ("Corvin Hale's wife bought a blue scooter on Friday", Mention(kin="wife", owner="Corvin Hale's")),
    ("honestly my landlord finally sorted the heating", Mention(kin="landlord", owner="my")),
    ("My son's teacher is Mr. Brandt", Mention(kin="son", owner="My")),
    ("i'm 41 and my brother Konrad is 38", Mention(self=True)),
    ("Next of kin: my cousin Ilse", Mention(self=True)),  # a label's value is no subject: the writer's own
    ("spent the weekend helping my cousin move", Mention(self=True)),  # nor is a verb's object
    ("moved in with Liesel last spring", None),  # a preposition's object
    ("Liesel runs the bakery now", Mention(name=frozenset({"liesel"}))),
    ("sold the old van, picked up a used Ferrant", None),  # a capitalised word that names no one known
    ("xmas is chaos, mum's in Tralee and dad moved to Sligo", Mention(kin="mum", owner="my")),  # a relative as a name
    ("my dad and I went fishing", Mention(self=True)),
])
def test_first_mention(text: str, mention: Mention | None) -> None:
    assert first_mention(text, [LIESEL]) == mention


@pytest.mark.parametrize(("question", "text", "speaker", "expected"), [
    # a question about Liesel herself
    ("How old is Liesel?", "i'm 41 ", "liesel", 0),
    ("How old is Liesel?", "and my brother Konrad is 38", "liesel", 2),
    ("How old is Liesel?", "i turned 38 last week", "konrad", 2),  # someone else's first person
    ("How old is Liesel?", "sold the old van, picked up a used Ferrant", "liesel", 1),  # names nobody
    ("How old is Liesel?", "my husband and i turned 40 this year", "liesel", 0),  # she is a subject too
    ("What does Liesel's brother do?", "exhausted, marking exams all weekend", "liesel", 2),  # hers, not his
    ("What does Konrad drive?", "and my brother Konrad has a pickup", "liesel", 0),
    # a question about her relative
    ("What does Liesel's brother do?", "my brother is a glassblower", "liesel", 0),
    ("What does Liesel's brother do?", "and i run the bakery", "liesel", 2),
    ("What does Liesel's brother Konrad do?", "Konrad is a glassblower.", None, 0),
    ("What does Liesel's partner do?", "my husband Emil is a nurse", "liesel", 1),  # a kind of partner
    ("What does Liesel's son do?", "my daughter Pia is a nurse", "liesel", 2),  # another person
    # the speaker acting on a third person: it may be the relative asked about
    ("Which club is Liesel's son in?", "we signed him up for the Tannery rowing club", "liesel", 1),
    ("Which club is Liesel's son in?", "signed him up for rowing at last", "liesel", 1),
    # a question for the relative: the person is its subject, the relative its answer
    ("Who is Liesel's landlord?", "my landlord is Mr. Voss", "liesel", 0),
    ("Who is Liesel's landlord?", "i rent from Voss Properties now", "liesel", 0),
    ("Who is Liesel's landlord?", "my sister Ilse is visiting", "liesel", 2),
    # a relative who passes news of the asked person on: the news may be about her
    ("Who is Liesel's dentist?", "Liesel's mum rang - her dentist is Dr. Haas from now on", None, 1),
    ("Who is Liesel's dentist?", "Liesel's mum emailed: new dentist is Dr. Haas", None, 1),
    ("How old is Liesel?", "Liesel's brother is 38", None, 2),  # about the brother himself
    ("How old is Liesel?", "Konrad's mum rang to say she is 70", None, 2),  # someone else's relative
])
def test_rank(question: str, text: str, speaker: str | None, expected: int) -> None:
    found = asked(question, [LIESEL] if "Liesel" in question else [])
    others = bool(re.search(r"\b(?:him|them)\b", text))
    assert rank(found, first_mention(text, [LIESEL, frozenset({"konrad"})]), speaker, others) == expected


def _result(key: str, event: int, text: str, score: float) -> dict[str, object]:
    return {"chunk_id": key, "kind": "chunk", "statement": text, "score": score,
            "provenance": {"bronze_event_id": event}}


def test_one_turn_is_represented_by_the_clause_about_whom_was_asked() -> None:
    """The relative's clause gives way to the asked person's own inside one turn; turns keep their order."""
    results = [_result("c1", 1, "and my brother Konrad is 38", 0.5), _result("c2", 2, "the bakery opens at 7", 0.45),
               _result("c3", 1, "i'm 41 ", 0.4), _result("c4", 1, "i'm 41 and my brother Konrad is 38", 0.35)]
    question = asked("How old is Liesel?", [LIESEL])
    out = first_within_event(results, question, ranks(results, question, {1: "liesel", 2: "liesel"}, [LIESEL]))
    assert [r["chunk_id"] for r in out] == ["c3", "c1", "c2", "c4"]
    assert out[0]["score"] == 0.5  # the moved text takes the place's score


def test_a_turn_that_names_nobody_gives_way_only_to_the_relative_asked_about() -> None:
    results = [_result("f1", 1, "Bakery opens at 7.", 0.5), _result("c1", 1, "my brother is a glassblower", 0.4)]
    brother = asked("What does Liesel's brother do?")
    moved = first_within_event(results, brother, ranks(results, brother, {}, []))
    assert [r["chunk_id"] for r in moved] == ["c1", "f1"]
    herself = asked("What does Liesel do?", [LIESEL])
    kept = first_within_event(results, herself, ranks(results, herself, {}, [LIESEL]))
    assert [r["chunk_id"] for r in kept] == ["f1", "c1"]


def test_of_a_text_naming_two_people_its_part_about_the_asked_one_represents_the_turn() -> None:
    """A note that gives two people's values in one sentence ("Maelle Dorn's permit ends in May; Ilkka
    Vaara's in July.") speaks of both; its part that opens with the asked person, even by one word of a
    name the note gives whole ("Ilkka 31 kg."), or through a relative ("her cousin Ilkka's is 7"), answers."""
    ilkka = frozenset({"ilkka", "vaara"})
    question = asked("When does Ilkka Vaara's permit end?", [ilkka])
    for outer, inner in [
        ("Maelle Dorn's permit ends in May; Ilkka Vaara's in July.", "Ilkka Vaara's in July."),
        ("Siblings Maelle and Ilkka Vaara weighed today: Maelle 28 kg, Ilkka 31 kg.", "Ilkka 31 kg."),
        ("Maelle Vaara's locker is 4, her cousin Ilkka's is 7.", "her cousin Ilkka's is 7."),
    ]:
        results = [_result("all", 1, outer, 0.5), _result("other", 1, outer.split(",")[0].split(";")[0], 0.45),
                   _result("part", 1, inner, 0.4)]
        out = first_within_event(results, question, ranks(results, question, {}, [ilkka]))
        assert out[0]["chunk_id"] == "part", outer
        assert out[0]["score"] == 0.5
    # a note's label names nobody: the names after it are what the text opens with
    wynne = frozenset({"wynne"})
    allergy = asked("What is Wynne allergic to?", [wynne])
    labelled = [_result("all", 1, "fyi for lunch: Garrick is allergic to nuts and Wynne can't have eggs", 0.5),
                _result("part", 1, "and Wynne can't have eggs", 0.4)]
    out = first_within_event(labelled, allergy, ranks(labelled, allergy, {}, [wynne]))
    assert out[0]["chunk_id"] == "part"
    # a part that leaves out no one else's name says no more than its text: the text stays first
    alone = [_result("all", 1, "Ilkka Vaara's permit ends in July, renewal in hand.", 0.5),
             _result("part", 1, "Ilkka Vaara's permit ends in July,", 0.4)]
    kept = first_within_event(alone, question, ranks(alone, question, {}, [ilkka]))
    assert [r["chunk_id"] for r in kept] == ["all", "part"]
    # a text that opens with the asked person keeps its value whole, names and all
    titled = [_result("all", 1, "Ilkka Vaara's guardian is Maelle Dorn, Countess of Vire.", 0.5),
              _result("part", 1, "Ilkka Vaara's guardian is Maelle Dorn,", 0.4)]
    kept = first_within_event(titled, question, ranks(titled, question, {}, [ilkka]))
    assert [r["chunk_id"] for r in kept] == ["all", "part"]


def test_a_question_that_names_nobody_moves_nothing() -> None:
    results = [_result("c1", 1, "and my brother Konrad is 38", 0.5), _result("c2", 1, "i'm 41 ", 0.4)]
    assert first_within_event(results, Asked(), ranks(results, Asked(), {1: "liesel"}, [])) == results


def _turn(key: str, day: int, text: str) -> Candidate:
    names = (LIESEL,)
    return Candidate(key=key, when=datetime(2026, 3, day, tzinfo=UTC), vector=[1.0, 0.1, 0.0], to_question=0.6,
                     event=key, names=names, words=frozenset(tokens(text)) | LIESEL, speaker="liesel")


def test_a_later_turn_about_a_relative_does_not_lead_the_cluster() -> None:
    """"Liesel's husband bought a scooter" said after "Liesel rides a Vespa" leaves her Vespa first for
    "What does Liesel ride?"; a later turn of her own still leads."""
    own, relative = _turn("own", 1, "Liesel rides a Vespa"), _turn("relative", 2, "Liesel's husband bought a scooter")
    assert newest_first([own, relative], subjects=[LIESEL], focus=[0, 2]) == [0, 1]
    assert newest_first([own, relative], subjects=[LIESEL]) == [1, 0]  # without the ranks the newest leads
    later = _turn("later", 3, "swapped the Vespa for an e-bike")
    assert newest_first([own, relative, later], subjects=[LIESEL], focus=[0, 2, 0]) == [2, 0, 1]


def test_a_clause_that_names_nobody_is_of_its_turn() -> None:
    """"we see him every month now" is a clause of "My daughter's orthodontist is Dr. Lind, we see him
    every month now": the turn is about the daughter, so it does not lead for "Who is Liesel's dentist?"."""
    own = _turn("own", 1, "My dentist is Dr. Brandt")
    passage = _turn("passage", 2, "My daughter's orthodontist is Dr. Lind, we see him every month now")
    clause = Candidate(key="clause", when=passage.when, vector=passage.vector, to_question=0.6, event="passage",
                       names=passage.names, words=frozenset(tokens("we see him every month now")) | LIESEL)
    assert newest_first([own, clause, passage], subjects=[LIESEL], focus=[0, 1, 2]) == [0, 1, 2]
    assert newest_first([own, clause], subjects=[LIESEL], focus=[0, 1]) == [1, 0]  # alone, it names nobody


def test_a_name_counts_only_whole() -> None:
    """'Mira Lindqvist' shares a word with 'Oskar Lindqvist' and is not him; 'Oskar Lindqvist moved' is."""
    oskar = frozenset({"oskar", "lindqvist"})
    assert first_mention("Mira Lindqvist moved to Umeå last spring", [oskar]) is None
    assert first_mention("Oskar Lindqvist moved to Umeå last spring", [oskar]) == Mention(name=oskar)


def test_a_relative_named_in_the_window_is_the_relative_asked_for() -> None:
    """After "my son Teodor plays for the Larkfield under-12s", a later "teodor moved up to the under-14s
    now" is about the son the question asks for, not about someone else; a relative of another kind
    lends no name."""
    question = asked("what team does my son play for?")
    texts = ["my son Teodor plays for the Larkfield under-12s", "teodor moved up to the Harrowby under-14s now",
             "my sister Oona says hi"]
    assert named_in(question, texts).kin_names == frozenset({"teodor"})
    results = [{"statement": t, "provenance": {"bronze_event_id": n}} for n, t in enumerate(texts)]
    assert ranks(results, question, {0: "mara", 1: "mara", 2: "mara"}, [])[:2] == [0, 0]
    # the later text alone names no daughter or son: without the window's name it is about someone else
    assert rank(question, first_mention(texts[1]), "mara") == 2
