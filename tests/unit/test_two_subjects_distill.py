"""S1/S7: a sentence about several subjects is read clause by clause, and a clause-initial "it"
names what the turn named just before (``distill/language/coordination.py``, the heuristic distiller,
``silver/chunks.py``).

Each subject's facts go to that subject, each with its clause's span, and the chunker indexes the
same clauses as ``clause`` units, so a question about one subject can be answered by a text and a
fact about that subject alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from medallion.distill.language.coordination import antecedent, clause_spans, gapped_clauses, resolve_anaphor
from medallion.silver import chunks
from tests.support.distill_events import DISTILLER, make_event

# (turn said by Alice, facts it must yield as (subject, predicate, value), values it must not give them)
TWO_SUBJECTS = [
    ("I drive a Tesla and my wife drives a Camry.",
     [("Alice", "drive", "Tesla"), ("Alice's wife", "drive", "Camry")]),
    ("Whiskers is 3 and Mittens is 7.",
     [("Whiskers", "amount", {"number": 3, "unit": None}), ("Mittens", "amount", {"number": 7, "unit": None})]),
    ("I work at Lumen Health, whereas my husband works at Ostara Bank.",
     [("Alice", "works_at", "Lumen Health"), ("Alice's husband", "works_at", "Ostara Bank")]),
    ("My brother Arjun lives in Pune, while my sister Meera lives in Goa.",
     [("Arjun", "lives_in", "Pune"), ("Meera", "lives_in", "Goa")]),
    ("My son plays the violin; my daughter plays the cello.",
     [("Alice's son", "play", "violin"), ("Alice's daughter", "play", "cello")]),
    # the parser attaches "my wife" / "my mum" to the first clause's object: the tags still cut it
    ("I drive a Pelham Rook and my wife drives a Dunmore Vale.",
     [("Alice", "drive", "Pelham Rook"), ("Alice's wife", "drive", "Dunmore Vale")]),
    ("My dad works at Tolland Mills and my mum runs a bakery.",
     [("Alice's dad", "works_at", "Tolland Mills")]),
    # the second clause leaves out the first one's noun and verb (gapping)
    ("Sunil's office is in Leeds and Mara's in York.",
     [("Sunil's office", "located_in", "Leeds"), ("Mara's office", "located_in", "York")]),
    # ... after a preamble, joined by a semicolon
    ("jotting these down so i don't lose them: Oona's birthday is 3 May; Piet's is 9 October.",
     [("Oona", "birthday", "--05-03"), ("Piet", "birthday", "--10-09")]),
    # the second clause leaves out the verb and keeps its preposition
    ("Ines works at Corvo Labs, her husband at the Brindle clinic.",
     [("Ines", "works_at", "Corvo Labs"), ("Ines's husband", "works_at", "Brindle clinic")]),
    ("My cousin lives in Tarrow and my uncle in Fenwick.",
     [("Alice's cousin", "lives_in", "Tarrow"), ("Alice's uncle", "lives_in", "Fenwick")]),
    # an age reached is the figure "is N" gives
    ("Rolo is 6, Pip just turned 2.",
     [("Rolo", "amount", {"number": 6, "unit": None}), ("Pip", "amount", {"number": 2, "unit": None})]),
]


def _triples(content: str) -> list[tuple[str, str, Any]]:
    return [(f.subject, f.predicate, f.value) for f in DISTILLER.distill(make_event(content))]


@pytest.mark.parametrize(("content", "expected"), TWO_SUBJECTS, ids=lambda v: str(v)[:30])
def test_each_subject_gets_its_own_facts(content: str, expected: list[tuple[str, str, Any]]) -> None:
    """Each clause yields its own subject's fact; no fact's value swallows the other clause."""
    found = _triples(content)
    for triple in expected:
        assert triple in found, (triple, found)
    values = [str(v) for _, _, v in found]
    assert not any(" and " in v and "Alice" in v for v in values), found


@pytest.mark.parametrize(("content", "subject", "predicate", "value"), [
    ("my brother just moved to Tarrowby.", "Alice's brother", "lives_in", "Tarrowby"),
    ("My boss relocated to Quenford last month.", "Alice's boss", "lives_in", "Quenford"),
    ("my cousin is a nurse", "Alice's cousin", "role", "Nurse"),
    ("my son is 7", "Alice's son", "amount", {"number": 7, "unit": None}),
])
def test_a_relative_is_the_subject_of_what_they_do_not_an_attribute_of_the_speaker(
        content: str, subject: str, predicate: str, value: Any) -> None:
    """"my brother moved to Tarrowby" says where the brother lives; it does not say that Tarrowby is
    Alice's brother (which would be a relationship naming a town), nor close where Alice lives."""
    found = _triples(content)
    assert (subject, predicate, value) in found, found
    assert not any(s == "Alice" for s, _, _ in found), found


def test_a_list_of_three_subjects_gives_three_facts_each_with_its_clause_span() -> None:
    """'Rex is 4, Bella is 2 and Max is 9': three facts, each span holding its subject and value alone."""
    content = "Rex is 4, Bella is 2 and Max is 9."
    facts = DISTILLER.distill(make_event(content))
    by_subject = {f.subject: f for f in facts}
    assert set(by_subject) == {"Rex", "Bella", "Max"}
    for name, number, others in (("Rex", "4", "29"), ("Bella", "2", "49"), ("Max", "9", "42")):
        fact = by_subject[name]
        said = content[fact.span[0]:fact.span[1]]
        assert name in said and number in said and not any(d in said for d in others), said
        assert fact.statement.startswith(name) and not any(d in fact.statement for d in others)


def test_one_subject_with_two_verbs_is_not_cut() -> None:
    """'Tigran is based in Yerevan and will pair with Bob' speaks of one subject: one sentence."""
    assert clause_spans("Tigran is based in Yerevan and will pair with Bob.") == []
    assert clause_spans("Marta asked for a CSV option too, so that is next on the list.") == []
    assert clause_spans("I think Bella is 2 and she likes cats.") == []
    assert clause_spans("I work at Lumen and I love it.") == []
    assert clause_spans("My sister lives in Porto and she teaches maths.") == []
    assert clause_spans("I bought milk, eggs and bread.") == []


def test_clause_spans_tile_the_sentence_and_keep_numbers_whole() -> None:
    """Placeholders the parser reads for numbers do not shift the spans; the connective opens the next clause."""
    text = "My son's number is 555-0101 and my daughter's is 555-0102."
    spans = clause_spans(text)
    assert [text[a:b] for a, b in spans] == ["My son's number is 555-0101 ", "and my daughter's is 555-0102."]
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))



@pytest.mark.parametrize(("text", "parts"), [
    # an emoji closing a chat line belongs to no clause (the parse hangs it on the first verb)
    ("Tofu only eats salmon pate, Bramble eats literally anything incl my socks 🙃",
     ["Tofu only eats salmon pate, ", "Bramble eats literally anything incl my socks 🙃"]),
    # a lower-case name with a digit opens a clause of its own
    ("host web-3 runs nginx, host db-7 runs postgres.", ["host web-3 runs nginx, ", "host db-7 runs postgres."]),
    # the label of a note stays with the first clause; what it labels is cut
    ("Ops note: host web-3 runs nginx, host db-7 runs postgres.",
     ["Ops note: host web-3 runs nginx, ", "host db-7 runs postgres."]),
])
def test_clause_spans_in_chat_and_notes(text: str, parts: list[str]) -> None:
    assert [text[a:b] for a, b in clause_spans(text)] == parts

PRONOUNS = [
    ("I got a new phone number. It's 555-0199 now.", ("Alice", "phone", "555-0199")),
    ("I moved into a new flat last month. It's on Harbour Street.",
     ("Alice's new flat", "located_in", "Harbour Street")),
    ("Priya set up a new work email. It's priya.n@kelpworks.io now.", ("Priya", "email", "priya.n@kelpworks.io")),
    ("My sister Noor bought a used car. It's a Fiat Panda.", ("Noor", "used_car", "Fiat Panda")),
    ("I moved to Lisbon in May. My sister Meera lives there too.", ("Meera", "lives_in", "Lisbon")),
    # the pronoun's clause is followed by another ("the old one is dead"); a number with a leading zero
    # is an identifier, not a quantity
    ("I got a new number from the carrier. It's 0733190456, the old one is switched off.",
     ("Alice", "phone", "0733190456")),
]


@pytest.mark.parametrize(("content", "expected"), PRONOUNS, ids=lambda v: str(v)[:30])
def test_it_names_what_the_turn_named_just_before(content: str, expected: tuple[str, str, str]) -> None:
    """'It's 555-0199 now' after 'I got a new phone number' is the speaker's phone number."""
    assert expected in _triples(content)


def test_an_evaluation_through_it_stays_a_reaction() -> None:
    """'It's special to me' / 'It was amazing' evaluate; they give the thing no value."""
    assert resolve_anaphor("It's special to me.", "I painted that lake sunrise last year!", "Alice") == \
        "It's special to me."
    assert _triples("I visited the new museum. It was amazing.") == _triples("I visited the new museum.")


def test_there_is_a_named_place_or_nothing() -> None:
    """'lives there' takes the place the turn named (not a month it named); an existential 'there is'
    and a sentence before that named no place leave the sentence as it was."""
    assert resolve_anaphor("My parents still live there.", "I grew up in Leeds in June.", "Alice") == \
        "My parents still live in Leeds."
    assert resolve_anaphor("Is there a bus?", "I grew up in Leeds.", "Alice") == "Is there a bus?"
    assert resolve_anaphor("I went there yesterday.", "I was busy all week.", "Alice") == "I went there yesterday."


def test_it_without_a_thing_before_is_left_alone() -> None:
    """No antecedent (first sentence, or a sentence that named a number or a person): unchanged."""
    assert resolve_anaphor("It's 555-0199 now.", None, "Alice") == "It's 555-0199 now."
    assert antecedent("I called Tom.", "Alice") == "Tom"  # a proper name stays itself
    assert antecedent("Nothing happened.", "Alice") is None


def test_a_new_speaker_does_not_inherit_the_previous_turns_thing() -> None:
    """Within one speaker's turn only: a line by another speaker starts afresh."""
    content = "Alice: I got a new phone number.\nBob: It's 555-0199 now."
    assert ("Alice", "phone", "555-0199") not in _triples(content)


def test_chunks_index_each_clause_as_a_clause_unit() -> None:
    """S7: the sentence stays a passage (or a sentence of one), each clause is a 'clause' chunk."""
    text = "We adopted two kittens in the spring. Whiskers is 3 and Mittens is 7."
    spans = chunks.split(text, by_sentence=True)
    units = chunks.units(spans)
    got = [(text[a:b].strip(), u) for (a, b), u in zip(spans, units, strict=True)]
    assert got == [(text, "passage"), ("We adopted two kittens in the spring.", "sentence"),
                   ("Whiskers is 3 and Mittens is 7.", "sentence"),
                   ("Whiskers is 3", "clause"), ("and Mittens is 7.", "clause")]
    # a fact of the clause belongs to the clause's chunk (the smallest holding its span)
    start = text.index("Mittens")
    assert units[chunks.containing(spans, (start - 4, len(text)))] == "clause"


def test_a_one_sentence_turn_about_two_subjects_is_a_passage_and_its_clauses() -> None:
    text = "I drive a Tesla and my wife drives a Camry."
    spans = chunks.split(text, by_sentence=True)
    assert chunks.units(spans) == ["passage", "clause", "clause"]
    assert [text[a:b] for a, b in spans[1:]] == ["I drive a Tesla ", "and my wife drives a Camry."]
    assert chunks.split(text, by_sentence=True) == spans  # deterministic (chunk ids, R7)


def test_distillation_and_chunks_cut_at_the_same_place() -> None:
    """The fact's span is its clause chunk's span (verification links them by overlap)."""
    text = "I work at Lumen Health, whereas my husband works at Ostara Bank."
    facts = DISTILLER.distill(make_event(text))
    spans = chunks.split(text, by_sentence=True)
    clause_chunks = {s for s, u in zip(spans, chunks.units(spans), strict=True) if u == "clause"}
    assert {f.span for f in facts} <= clause_chunks


# "my husband Piotr drives …": the relationship, and the rest as the named person's own claim
NAMED_RELATIVE = [
    ("I drive a Halden Sprite, my husband Piotr drives a Corvel Estate.", "Piotr", "drive", "Corvel Estate"),
    ("I swim on Mondays, my boyfriend Tiago does judo.", "Tiago", "do", "judo"),
    ("My cousin Ines restores old clocks.", "Ines", "restore", "old clocks"),
]


@pytest.mark.parametrize(("content", "person", "predicate", "value"), NAMED_RELATIVE, ids=lambda v: str(v)[:30])
def test_a_named_relative_gets_the_rest_of_the_clause(content: str, person: str, predicate: str, value: str) -> None:
    """The relationship fact says only the relationship ("Alice's husband is Piotr."), and what the
    clause goes on to say is the named person's fact: a search about Alice's car must not find
    Piotr's car in Alice's relationship fact."""
    facts = DISTILLER.distill(make_event(content))
    relation = [f for f in facts if f.subject == person and f.predicate == "relationship"
                or f.subject == "Alice" and f.value == person]
    assert relation, facts
    assert all(value not in f.statement for f in relation), [f.statement for f in relation]
    assert (person, predicate, value) in [(f.subject, f.predicate, f.value) for f in facts], facts



@pytest.mark.parametrize(("content", "expected"), [
    ("My number is 0733190456.", ("Alice", "phone", "0733190456")),
    ("Hollis's account number is 884120077123.", ("Hollis", "account_number", "884120077123")),
    ("Whiskers is 3 and Mittens is 7.", ("Mittens", "amount", {"number": 7, "unit": None})),
], ids=lambda v: str(v)[:30])
def test_a_string_of_digits_is_an_identifier_and_a_count_is_a_number(content: str,
                                                                    expected: tuple[str, str, Any]) -> None:
    assert expected in _triples(content)


@pytest.mark.parametrize(("text", "clauses"), [
    ("Jan's birthday is in May and Kim's in June, so it's a busy spring.",
     ["Jan's birthday is in May.", "Kim's birthday is in June."]),
    ("Ana's car is red and Bo's is blue.", ["Ana's car is red.", "Bo's car is blue."]),
    ("Omar's flight is on Friday, and Lena's on Sunday.",
     ["Omar's flight is on Friday.", "Lena's flight is on Sunday."]),
    ("Max's dog is old and Max's cat is young.", []),  # one possessor, two nouns: not gapping
    ("Ana's car is red and she loves it.", []),
], ids=lambda v: str(v)[:30])
def test_a_gapped_clause_gets_back_the_noun_and_verb_it_left_out(text: str, clauses: list[str]) -> None:
    found = gapped_clauses(text)
    assert [c for _, _, c in found] == clauses
    if found:  # the spans tile the sentence up to the end of the second clause
        assert found[0][0] == 0 and found[0][1] == found[1][0]
        assert text[found[1][0]:found[1][1]].strip(" ,").startswith(("and", "Kim", "Bo", "Lena"))


@pytest.mark.parametrize(("text", "clauses"), [
    ("The web app lives in the harbor-web repo, the API in harbor-core.",
     ["The web app lives in the harbor-web repo.", "The API lives in harbor-core."]),
    ("Ines works at Corvo Labs, her husband at the Brindle clinic.",
     ["Ines works at Corvo Labs.", "Ines's husband works at the Brindle clinic."]),
    ("I met Tom in Paris, the week after in Rome.", []),  # no preposition right after the verb
    ("She works in sales, mostly at night.", []),  # no second subject
], ids=lambda v: str(v)[:30])
def test_a_second_clause_that_leaves_out_the_verb_gets_it_back(text: str, clauses: list[str]) -> None:
    found = gapped_clauses(text)
    assert [c for _, _, c in found] == clauses
    if found:  # the second clause's text is its own, without the first one's value
        second = text[found[1][0]:found[1][1]]
        assert second.startswith(("the API", "her husband")) and "harbor-web" not in second

