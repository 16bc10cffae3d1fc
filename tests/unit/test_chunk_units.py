"""A turn of several sentences is indexed as its passage and as each sentence (silver/chunks.py)."""

from __future__ import annotations

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
