"""Slots by meaning and change / end cues (issue 31 points 1 and 2), with the bundled embedding model.

Why: a relation phrase no alias names ("signed on with", "landed a gig at") still says where someone
works, and the user depends on it landing in ``works_at`` so that it replaces the old employer; an
action on an entity ("visited", "bought from") must stay its own slot. The cases in
``tests/unit/slot_meaning_cases.py`` were written before the threshold was chosen; the tuning half
chose it, the held-out half measures it (STANDARDS.md, "Slots by meaning").
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

from medallion.distill.types import FactCandidate
from medallion.silver import slot_meaning
from medallion.silver.embed import load_model
from medallion.silver.slot_meaning import SlotMeaning, masked, negated_state, negations, states_change
from tests.unit.slot_meaning_cases import HELD_OUT, TUNING, MappingCase

AT = datetime(2026, 1, 5, tzinfo=UTC)


@pytest.fixture(scope="module")
def encode() -> Any:
    model = load_model("all-MiniLM-L6-v2")
    return lambda texts: model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)


@pytest.fixture(scope="module")
def meaning(encode: Any) -> SlotMeaning:
    return SlotMeaning(encode)


def candidate(case: MappingCase, predicate: str = "learned_phrase") -> FactCandidate:
    entity = case.value if case.value_type == "entity" else None
    return FactCandidate(subject=case.subject, predicate=predicate, value=case.value, statement=case.statement,
                         valid_from=AT, confidence=0.5, object_entity=entity, value_type=case.value_type)  # type: ignore[arg-type]


def mapped(meaning: SlotMeaning, encode: Any, case: MappingCase) -> str | None:
    c = candidate(case)
    text = masked(c) or case.statement.replace(case.subject, slot_meaning.SUBJECT_MASK)
    found = meaning.map(c, encode([text])[0])
    return found[0] if found else None


def precision_recall(meaning: SlotMeaning, encode: Any, cases: list[MappingCase]) -> tuple[float, float]:
    results = [(mapped(meaning, encode, c), c.expected) for c in cases]
    made = [(got, want) for got, want in results if got is not None]
    correct = sum(got == want for got, want in made)
    return correct / max(len(made), 1), correct / sum(want is not None for _, want in results)


def test_a_job_said_in_new_words_lands_in_works_at(meaning: SlotMeaning, encode: Any) -> None:
    case = MappingCase("Orla accepted a position at Quillfeather as a data analyst.", "Orla", "Quillfeather",
                       "entity", "works_at")
    assert masked(candidate(case)) == "Someone accepted a position at X as a data analyst."
    assert mapped(meaning, encode, case) == "works_at"


def test_an_action_on_an_entity_keeps_its_learned_slot(meaning: SlotMeaning, encode: Any) -> None:
    case = MappingCase("Wendeline visited Brocade Harbour.", "Wendeline", "Brocade Harbour", "entity", None)
    assert mapped(meaning, encode, case) is None


def test_the_value_type_must_fit_the_predicate(meaning: SlotMeaning, encode: Any) -> None:
    """'born on' means birthday, but an organisation is no birthday: with an entity value the
    birthday examples are not even compared."""
    found = meaning.best(encode(["Someone was born on a date"])[0], "entity")
    assert found is not None and found[0] != "birthday"
    assert meaning.best(encode(["Someone was born on a date"])[0], "date")[0] == "birthday"  # type: ignore[index]


def test_a_curated_slot_with_a_misfit_value_is_open_to_meaning() -> None:
    """'started at Tidewell Systems' is read by an alias as a time slot; an entity there was misread."""
    c = FactCandidate(subject="Jonas", predicate="scheduled_at", value="Tidewell Systems",
                      statement="Jonas has officially started at Tidewell Systems now.", valid_from=AT,
                      confidence=0.5, object_entity="Tidewell Systems", value_type="entity")
    assert slot_meaning.eligible(c)
    assert not slot_meaning.eligible(FactCandidate(subject="Jonas", predicate="scheduled_at", value="09:30",
                                                   statement="The standup is at 09:30.", valid_from=AT,
                                                   confidence=0.5))
    assert not slot_meaning.eligible(FactCandidate(subject="Jonas", predicate="states", value="x",
                                                   statement="x", valid_from=AT, confidence=0.5))
    # a text value: no curated example holds one, so it is not even encoded
    assert not slot_meaning.eligible(FactCandidate(subject="Jonas", predicate="play", value="the violin",
                                                   statement="Jonas plays the violin.", valid_from=AT,
                                                   confidence=0.5))


def test_a_favourite_keeps_its_own_slot() -> None:
    """"Larkhollow is now my favorite band" is a preference: a band for value would otherwise read as
    a membership by meaning, and the old favourite would stay open beside it."""
    c = FactCandidate(subject="Jonas", predicate="favourite_band", value="Larkhollow",
                      statement="Larkhollow is now Jonas's favorite band.", valid_from=AT, confidence=0.5,
                      object_entity="Larkhollow", value_type="entity")
    assert not slot_meaning.eligible(c)
    assert slot_meaning.eligible(FactCandidate(subject="Jonas", predicate="sings_in", value="Larkhollow",
                                               statement="Jonas sings in Larkhollow.", valid_from=AT, confidence=0.5,
                                               object_entity="Larkhollow", value_type="entity"))


def test_a_misfit_value_no_slot_means_leaves_the_curated_slot(meaning: SlotMeaning, encode: Any) -> None:
    """An organisation in a time slot that no curated slot takes by meaning goes to a learned key, so no
    reader trusts the time slot for it; a time zone, a version or a day stays where it was read."""
    c = FactCandidate(subject="Selma", predicate="scheduled_at", value="Orrinwood Labs",
                      statement="Selma has officially started at Orrinwood Labs now, badge and all.", valid_from=AT,
                      confidence=0.5, object_entity="Orrinwood Labs", value_type="entity")
    text = masked(c)
    assert text is not None
    moved, note = slot_meaning.remap(c, meaning, {text: encode([text])[0]})
    assert moved.predicate not in slot_meaning.predicates() and note is not None, moved
    for predicate, value in (("timezone", "Europe/London"), ("version", "Kubernetes 1.28"),
                             ("scheduled_at", "Monday")):
        kept = FactCandidate(subject="Dan", predicate=predicate, value=value, valid_from=AT, confidence=0.5,
                             statement=f"Dan's {predicate} is {value}.", object_entity=value, value_type="entity")
        masked_text = masked(kept) or ""
        assert slot_meaning.remap(kept, meaning, {masked_text: encode([masked_text])[0]})[0].predicate == predicate


def test_the_mapping_is_deterministic(meaning: SlotMeaning, encode: Any) -> None:
    case = TUNING[1]
    assert {mapped(meaning, encode, case) for _ in range(3)} == {mapped(meaning, encode, case)}


def test_threshold_precision_and_recall_on_both_halves(meaning: SlotMeaning, encode: Any) -> None:
    """The figures STANDARDS.md quotes: THRESHOLD 0.60, MARGIN 0.03 give precision 0.89 / recall 0.80
    on the tuning half and 1.00 / 0.70 on the held-out half (20 cases each)."""
    assert (slot_meaning.THRESHOLD, slot_meaning.MARGIN) == (0.60, 0.03)
    tuning, held_out = precision_recall(meaning, encode, TUNING), precision_recall(meaning, encode, HELD_OUT)
    assert tuning[0] >= 0.85 and tuning[1] >= 0.75, tuning
    assert held_out[0] >= 0.85 and held_out[1] >= 0.6, held_out


def test_the_example_file_names_only_seeded_predicates() -> None:
    names = {e.predicate for e in slot_meaning.examples()}
    assert "works_at" in names and slot_meaning.NONE in names


@pytest.mark.parametrize(("statement", "changed"), [
    ("Ilka switched to oat milk.", True),
    ("Ilka's cat passed away and she adopted Tuppence.", True),
    ("Ilka drinks tea instead.", True),
    ("Ilka quit the choir.", True),
    ("Ilka isn't in the choir anymore.", True),
    # "new" and a bare "now" add one more in a many-valued slot; the present wins at query time
    ("Now Ilka is reading Middlemarch.", True),
    ("Ilka loves discovering new cities.", False),
    ("Ilka bought a lot of new books.", False),
    ("Ilka finished the presentation for the board.", False),
    ("Ilka also speaks Welsh.", False),
    ("Ilka is now reading a second book too.", False),
    ("Ilka is now part of the chess club.", False),
    ("Ilka speaks Welsh.", False),
    ("Ilka knows the news.", False),
])
def test_change_cues(statement: str, changed: bool) -> None:
    assert states_change(statement) is changed


@pytest.mark.parametrize(("sentence", "said", "positive"), [
    ("I'm no longer vegetarian.", "Ilka is no longer vegetarian.", "Ilka is vegetarian."),
    ("I'm not on the night shift anymore", "Ilka is not on the night shift anymore.", "Ilka is on the night shift."),
    ("Bram isn't a member of the choir anymore.", "Bram isn't a member of the choir anymore.",
     "Bram is a member of the choir."),
    ("I don't eat meat any more.", "Ilka don't eat meat any more.", "Ilka eat meat."),
])
def test_a_negated_state_and_its_positive_form(sentence: str, said: str, positive: str) -> None:
    assert negated_state(sentence, "Ilka") == (said, positive)


@pytest.mark.parametrize("sentence", ["I'm vegetarian.", "Are you no longer vegetarian?", "I never liked it.",
                                      "Not now."])
def test_not_a_negated_state(sentence: str) -> None:
    assert negated_state(sentence, "Ilka") is None


def test_negations_find_their_sentences_and_skip_assistants() -> None:
    text = "Big news. I'm no longer vegetarian! Still love tofu."
    found = negations(text, "user:ilka")
    assert [(text[n.start:n.end].strip(), n.positive) for n in found] == [
        ("I'm no longer vegetarian!", "Ilka is vegetarian.")]
    assert negations(text, "assistant:helper")[0].positive == "I'm vegetarian."  # no speaker to restate


def test_the_prototypes_are_encoded_once_per_model() -> None:
    calls: list[int] = []

    def encode(texts: list[str]) -> list[np.ndarray]:
        calls.append(len(texts))
        return [np.ones(4, dtype=np.float32) / 2 for _ in texts]

    first = slot_meaning.meaning_for("test-fingerprint", encode)
    assert slot_meaning.meaning_for("test-fingerprint", encode) is first and len(calls) == 1


def test_a_relation_that_names_its_value_kind_keeps_its_slot_whatever_the_case() -> None:
    """'enrolled in the school of dentistry' names the kind of its value in the relation itself: it is its
    own slot, with a lowercase value as with a capitalised one, and is not compared with curated slots."""
    for value in ("dentistry", "Dentistry"):
        c = FactCandidate(subject="Tamsin", predicate="enrolled_in_school", value=value,
                          statement=f"Tamsin is enrolled in the school of {value}.", valid_from=AT,
                          confidence=0.5, object_entity=value, value_type="entity",
                          relation="enrolled in the school of")
        assert not slot_meaning.eligible(c), value
    joined = FactCandidate(subject="Dana", predicate="accept_position_at", value="Northwind", valid_from=AT,
                           statement="Dana accepted a position at Northwind.", confidence=0.5,
                           object_entity="Northwind", value_type="entity", relation="accepted a position at")
    assert slot_meaning.eligible(joined)
