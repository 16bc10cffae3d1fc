"""Of a turn's two texts, one inside the other, the inner one answers when it holds every question word
the outer one holds (``serve/search.py``: ``narrowest_first``).

Why: a turn that speaks of two subjects ("mine is a red hatchback; Ilsa's is a blue van") is indexed as
its passage and as each clause; a question about one subject matches both by the same words, and a
reader shown the passage first reads the other subject's value too.
"""

from __future__ import annotations

from typing import Any

from medallion.serve.search import narrowest_first

PASSAGE = "Our cars: Tomas drives a red hatchback; Ilsa's is a blue van."


def _chunk(cid: str, text: str, score: float, event: int = 1) -> dict[str, Any]:
    return {"kind": "chunk", "chunk_id": cid, "statement": text, "score": score,
            "provenance": {"bronze_event_id": event}}


def _ids(results: list[dict[str, Any]]) -> list[str]:
    return [r["chunk_id"] for r in results]


def test_the_clause_that_holds_the_questions_words_takes_its_passages_place() -> None:
    results = [_chunk("passage", PASSAGE, 0.4), _chunk("mine", "Our cars: Tomas drives a red hatchback; ", 0.39),
               _chunk("other", "elsewhere", 0.3, event=2), _chunk("ilsa", "Ilsa's is a blue van.", 0.2)]
    order = narrowest_first(results, "What does Ilsa drive?")
    assert _ids(order) == ["ilsa", "passage", "mine", "other"]
    assert order[0]["score"] == 0.4  # the place's score: the ranking stays in order


def test_a_passage_whose_question_words_no_clause_holds_alone_keeps_its_place() -> None:
    """'Which cars do Ilsa and Tomas have?' needs both clauses: the passage stays first."""
    results = [_chunk("passage", PASSAGE, 0.4), _chunk("ilsa", "Ilsa's is a blue van.", 0.3)]
    assert _ids(narrowest_first(results, "Which cars do Ilsa and Tomas have?")) == ["passage", "ilsa"]


def test_a_passage_found_by_meaning_alone_keeps_its_place() -> None:
    """No word of the question is in the passage: nothing says which part answers."""
    results = [_chunk("passage", PASSAGE, 0.4), _chunk("ilsa", "Ilsa's is a blue van.", 0.3)]
    assert _ids(narrowest_first(results, "What vehicle is parked outside?")) == ["passage", "ilsa"]


def test_a_text_of_another_turn_never_moves() -> None:
    results = [_chunk("passage", PASSAGE, 0.4), _chunk("ilsa", "Ilsa's is a blue van.", 0.3, event=2)]
    assert _ids(narrowest_first(results, "What does Ilsa drive?")) == ["passage", "ilsa"]


def test_the_label_that_opens_a_list_is_not_asked_of_its_items() -> None:
    """'Lunch orders: Bilal, falafel wrap; Chiara, risotto': 'lunch' heads both items."""
    text = "Lunch orders: Bilal, falafel wrap; Chiara, mushroom risotto."
    results = [_chunk("list", text, 0.4), _chunk("bilal", "Lunch orders: Bilal, falafel wrap; ", 0.4),
               _chunk("chiara", "Chiara, mushroom risotto.", 0.4)]
    assert _ids(narrowest_first(results, "What did Chiara order for lunch?")) == ["chiara", "list", "bilal"]
