"""A turn of several sentences is indexed as its passage and as each sentence (silver/chunks.py)."""

from __future__ import annotations

import pytest

from medallion.distill.language.coordination import clause_spans, value_spans
from medallion.silver import chunks

TURN = ("We shipped the billing export on Friday after two weeks of testing. "
        "Marta asked for a CSV option too, so that is next on the list.")


def test_a_turn_of_several_sentences_is_its_passage_then_its_sentences() -> None:
    spans = chunks.split(TURN, by_sentence=True)
    texts = [TURN[s:e] for s, e in spans]
    assert texts[0] == TURN
    assert texts[1:] == ["We shipped the billing export on Friday after two weeks of testing.",
                         "Marta asked for a CSV option too, so that is next on the list."]
    assert chunks.units(spans) == ["passage", "sentence", "sentence"]


def test_a_one_sentence_turn_is_one_passage() -> None:
    text = "  The standup moved to 9:30 on Mondays.  "
    spans = chunks.split(text, by_sentence=True)
    assert [text[s:e] for s, e in spans] == ["The standup moved to 9:30 on Mondays."]
    assert chunks.units(spans) == ["passage"]


def test_a_short_exclamation_joins_the_next_sentence_not_a_chunk_of_its_own() -> None:
    text = "Wow! The new build is twice as fast on the staging cluster."
    spans = chunks.split(text, by_sentence=True)
    assert [text[s:e] for s, e in spans] == [text]
    assert chunks.units(spans) == ["passage"]


def test_document_windows_are_passages() -> None:
    doc = "\n\n".join(f"Section {i}. " + "The runbook explains the failover steps in order. " * 6 for i in range(4))
    spans = chunks.split(doc)
    assert len(spans) > 1
    assert chunks.units(spans) == ["passage"] * len(spans)


def test_a_fact_belongs_to_its_sentence_not_the_whole_passage() -> None:
    spans = chunks.split(TURN, by_sentence=True)
    second = TURN.index("Marta")
    assert chunks.containing(spans, (second, second + 20)) == 2
    assert chunks.containing(spans, (0, 10)) == 1
    assert chunks.containing(spans, None) is None


def test_only_the_passage_carries_the_previous_turn() -> None:
    context = chunks.context_text("user:ines", ("user:marta", "Did the export ship?"))
    spans = chunks.split(TURN, by_sentence=True)
    contexts = chunks.span_contexts(context, "user:ines", len(spans))
    assert contexts[0] == context and "Did the export ship?" in contexts[0]
    assert all("Did the export ship?" not in c for c in contexts[1:])


def test_a_turn_carries_the_previous_turn_only_when_it_replies_to_someone_else() -> None:
    """A reply ("Yes, last May!") is found by the question it answers, so it carries the previous turn;
    a speaker's next note ("The Harbour Room seats 12.") after their own ("Finance moved to floor 3.")
    answers nothing there, and carrying it would let a question about the first find the second."""
    reply = chunks.context_text("user:ines", ("user:marta", "Did the export ship?"))
    assert reply is not None and "Did the export ship?" in reply
    going_on = chunks.context_text("agent:desk", ("agent:desk", "Finance moved to floor 3."))
    assert going_on == "desk:"


def test_values_listed_without_a_verb_of_their_own_are_cut_into_clauses() -> None:
    """A sentence that lists a value per holder without a subject and verb per clause ("a ferret called
    Noodle and a gecko called Basil") is indexed clause by clause too, each clause with one value."""
    text = "We keep a ferret called Noodle and a gecko called Basil."
    spans = chunks.split(text, by_sentence=True)
    assert [text[s:e].strip() for s, e in spans] == [text, "We keep a ferret called Noodle",
                                                     "and a gecko called Basil."]
    assert chunks.units(spans) == ["passage", "clause", "clause"]
    laptops = "Ticket 4471: Odo's laptop needs a new fan; his colleague Rhea's screen flickers and needs a cable."
    assert [laptops[s:e] for s, e in value_spans(laptops)] == [
        "Ticket 4471: Odo's laptop needs a new fan; ", "his colleague Rhea's screen flickers and needs a cable."]
    duties = "on my team Ravi handles payroll and Ines does hiring, I just nag them both"  # the parse cuts "I …" off
    assert clause_spans(duties) == [(0, 54), (54, 74)]
    assert [duties[s:e] for s, e in chunks.sentence_parts(duties)] == [
        "on my team Ravi handles payroll ", "and Ines does hiring, ", "I just nag them both"]
    build = "Build 771 is red on runner oak-3, green on runner elm-9."
    assert [build[s:e] for s, e in value_spans(build)] == [
        "Build 771 is red on runner oak-3, ", "green on runner elm-9."]


@pytest.mark.parametrize("sentence", [
    "I visited Lyon, Nice and Arles.",  # a list of names is one part
    "Honestly, I loved the trip to Lyon.",  # a short opening part stays with the next
    "We walked for hours, and it was lovely in the end.",  # the second part names nothing
    "Ticket 3120 (Odile, sync broken on her tablet) assigned to Marek.",  # an aside in brackets is no joint
    # a part that goes on about what the one before it named: its value belongs to that holder
    "Brannoch Dairy: Fenella retired, our buyer there is now Cathal Rooney.",
    "Saoirse Quill traded shifts with Benno, she covers Mondays now.",
    "Tablet TB-88 returned by Ilona and reissued to Marcus.",
])
def test_a_sentence_whose_parts_do_not_each_name_a_value_is_not_cut(sentence: str) -> None:
    assert value_spans(sentence) == []
    assert chunks.units(chunks.split(sentence, by_sentence=True)) == ["passage"]


def test_a_possessive_after_the_joint_still_names_a_holder_of_its_own() -> None:
    text = "Maud Fenwick's desk is 4B, her sister Ailsa's is 6D."
    assert [text[a:b] for a, b in value_spans(text)] == ["Maud Fenwick's desk is 4B, ", "her sister Ailsa's is 6D."]


def test_an_issue_comment_is_a_turn_split_by_sentence() -> None:
    assert "issue" in chunks.TURN_KINDS and "document" not in chunks.TURN_KINDS


def test_a_title_or_an_abbreviation_does_not_end_a_sentence() -> None:
    """'New GP: Dr. Sandoval' is one sentence: cut at 'Dr.' the name would sit in a chunk of its own,
    apart from what it is the name of."""
    text = "Changed surgeries last week. New GP: Dr. Sandoval at Eastgate, e.g. for repeat prescriptions."
    spans = chunks.sentences(text, min_chars=0)
    assert [text[s:e] for s, e in spans] == [
        "Changed surgeries last week.", "New GP: Dr. Sandoval at Eastgate, e.g. for repeat prescriptions."]


def test_a_list_whose_items_hold_commas_is_cut_at_its_semicolons() -> None:
    """'Bilal, falafel wrap' is one item: cut at every comma the short pieces merge back into one part."""
    text = "Dinner orders: Saoirse, lamb tagine; Piotr, leek tart."
    assert [text[a:b] for a, b in value_spans(text)] == ["Dinner orders: Saoirse, lamb tagine; ", "Piotr, leek tart."]
    assert value_spans("I love the new office; honestly.") == []  # a part that names nothing is no item


@pytest.mark.parametrize(("text", "parts"), [
    ("sold the canoe in spring, bought a paddleboard instead",
     ["sold the canoe in spring, ", "bought a paddleboard instead"]),
    ("our hamster Biscuit died over the holidays 😢 the kids picked out a budgie called Kiwi",
     ["our hamster Biscuit died over the holidays 😢 ", "the kids picked out a budgie called Kiwi"]),
    ("got myself a Lumora standing desk, gave up the old armchair setup",
     ["got myself a Lumora standing desk, ", "gave up the old armchair setup"]),
    ("quit the choir and joined the Eastfield climbing club",
     ["quit the choir ", "and joined the Eastfield climbing club"]),
])
def test_a_replacement_told_as_two_events_is_cut_between_them(text: str, parts: list[str]) -> None:
    """'sold X, bought Y instead': the part that says something ended and the part that tells what
    replaced it are two clauses, so a question about now finds the second without the ended value."""
    from medallion.distill.language.coordination import replacement_spans

    assert [text[a:b] for a, b in replacement_spans(text)] == parts


@pytest.mark.parametrize("text", [
    "traded in the old hatchback last month, drive a little electric van now",  # no word says it ended
    "two weeks sugar-free now, I quit sweets for good in May",  # one thing said twice, no new value
    "I play left back for the Harbour Seals, training is on mondays",  # "left" is no ending
    "I left early because the train was late",  # one part, nothing replaced
    "my brother sold his flat",  # an ending with no joint
    "we still live in Porto and love it",  # no ending word
    "quit it",  # too short to cut
])
def test_a_sentence_without_a_replacement_is_not_cut(text: str) -> None:
    from medallion.distill.language.coordination import replacement_spans

    assert replacement_spans(text) == []


def test_a_replacement_is_indexed_as_its_two_clauses() -> None:
    text = "sold the canoe in spring, bought a paddleboard instead"
    spans = chunks.split(text, by_sentence=True)
    assert [text[s:e] for s, e in spans] == [text, "sold the canoe in spring, ", "bought a paddleboard instead"]
    assert chunks.units(spans) == ["passage", "clause", "clause"]


@pytest.mark.parametrize(("text", "parts"), [
    ("carpool plan: maisie's with the hendersons on mondays, and rohan goes with us on fridays",
     ["carpool plan: maisie's with the hendersons on mondays, ", "and rohan goes with us on fridays"]),
    ("lunch orders: tobi's vegan and wren can't have nuts",
     ["lunch orders: tobi's vegan ", "and wren can't have nuts"]),
])
def test_a_sentence_in_lower_case_is_cut_where_a_new_holder_and_its_verb_start(text: str, parts: list[str]) -> None:
    """Chat in lower case names its people in lower case too: a part that opens with a bare word and its
    verb ("rohan goes", "wren can't") has a holder of its own, so a question about one child finds a
    text without the other's value."""
    assert [text[a:b] for a, b in value_spans(text)] == parts


@pytest.mark.parametrize("text", ["we walked for hours, and it was lovely in the end",
                                  "i drive a civic and my brother has a jeep, ok"])
def test_a_pronoun_or_a_possessive_is_no_lower_case_holder(text: str) -> None:
    assert value_spans(text) == []


@pytest.mark.parametrize(("metadata", "thread"), [
    ({}, "chat://msg/1"),
    ({"thread": None}, "chat://msg/1"),
    ({"thread": "summer-plans"}, "summer-plans"),
    ({"thread": ""}, ""),  # as `metadata ->> 'thread'` reads it (an event stored before threads were checked)
    ({"thread": 42}, "42"),
    ({"thread": True}, "true"),
])
def test_a_chunks_thread_is_read_as_its_context_is(metadata: dict[str, object], thread: str) -> None:
    """silver.chunks.thread (the turns beside a candidate are its thread's) is the key THREAD_KEY_SQL reads."""
    assert chunks.thread_of(metadata, "chat://msg/1") == thread


def test_each_list_item_of_a_note_is_a_sentence() -> None:
    """A line break before a list item ends a sentence: one item's value is not read with the next item."""
    note = "Projects:\n- Project Wrenfold: due 12 March, budget 30k\n- Project Tolley: due 2 May, budget 55k"
    units = [note[a:b] for a, b in chunks.split(note, by_sentence=True)]
    assert units[1:] == ["Projects:\n- Project Wrenfold: due 12 March, budget 30k",
                         "- Project Tolley: due 2 May, budget 55k"]
    # a line break inside a sentence is not a boundary
    wrapped = "We drove to the coast on Sunday and then\nwalked the cliff path until dark."
    assert len(chunks.split(wrapped, by_sentence=True)) == 1

