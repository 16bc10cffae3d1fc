"""The offline conflict judge (S3): add / update / supersede / skip, deterministic.

Against neighbours in the same slot (subject, predicate):
- the same canonical value, or a less specific form of it → **skip** (already known);
- the candidate's value contains every word of an existing value and says more → **update**
  (a refinement of the same claim);
- a different value of a single-valued slot, curated or learned (the candidate carries the slot's
  cardinality) → **supersede** (the value changed);
- a different value of a many-valued predicate whose statement paraphrases an existing one
  (cosine ≥ the conflict threshold) → **skip**; otherwise → **add** (one more value).
A generic ``states`` candidate that paraphrases any current fact about the same subject
(cosine ≥ threshold) → **skip**; a specific predicate is never skipped in favour of a ``states`` fact.

The threshold is ``MEDALLION_CONFLICT_THRESHOLD`` (default 0.90, see STANDARDS.md for how it was
chosen): with all-MiniLM-L6-v2, paraphrases of one claim score 0.86–0.97 and distinct claims about
the same subject 0.55–0.76.
"""

from __future__ import annotations

import json
import re
from typing import Any

from medallion.distill.types import FactCandidate, Judgement, Neighbour
from medallion.distill.vocabulary import predicate

DEFAULT_THRESHOLD = 0.90
_WORD = re.compile(r"[\w@.+-]+", re.UNICODE)


def canonical_value(value: Any) -> str:
    """The comparison form of a value: case-folded text, or sorted JSON for structured values."""
    if isinstance(value, str):
        return " ".join(value.casefold().split()).strip(" .!")
    return json.dumps(value, sort_keys=True, ensure_ascii=False).casefold()


def _words(value: Any) -> set[str]:
    return set(_WORD.findall(canonical_value(value)))


def refines(new: Any, old: Any) -> bool:
    """True when ``new`` keeps every word of ``old`` and adds some (a more specific version)."""
    new_words, old_words = _words(new), _words(old)
    return bool(old_words) and old_words < new_words


def less_specific(new: Any, old: Any) -> bool:
    """True when ``new`` says less than ``old`` ("Atlas" after "Atlas, Lisbon office"; a birthday
    "--05-03" without a year after "1991-05-03"): already known, more precisely."""
    n, o = canonical_value(new), canonical_value(old)
    if n.startswith("--") and re.fullmatch(r"\d{4}" + re.escape(n[1:]), o):
        return True
    new_words, old_words = _words(new), _words(old)
    return bool(new_words) and new_words < old_words


class HeuristicJudge:
    """Rule-based judge; see the module docstring."""

    name = "heuristic"

    def __init__(self, threshold: float = DEFAULT_THRESHOLD):
        self.threshold = threshold

    def judge(self, candidate: FactCandidate, neighbours: list[Neighbour]) -> Judgement:
        value = canonical_value(candidate.value)
        cardinality = candidate.cardinality or predicate(candidate.predicate).cardinality
        slot_name = f"slot ({candidate.subject}, {candidate.predicate}, {cardinality}-valued)"
        slot = [n for n in neighbours if n.same_slot and n.open]
        for n in slot:
            if canonical_value(n.value) == value:
                return Judgement("skip", n.fact_id, f"{slot_name}: same value as {n.fact_id} ({n.value!r}) "
                                                    "[rule: same value is already known]")
        for n in slot:
            if less_specific(candidate.value, n.value):
                return Judgement("skip", n.fact_id, f"{slot_name}: {candidate.value!r} is a less specific form of "
                                                    f"{n.value!r} [rule: less specific is already known]")
        for n in slot:
            if refines(candidate.value, n.value):
                return Judgement("update", n.fact_id, f"{slot_name}: {candidate.value!r} contains and refines "
                                                      f"{n.value!r} [rule: refinement updates]")
        if slot and cardinality == "one":
            target = max(slot, key=lambda n: (n.valid_from, n.fact_id))
            return Judgement(
                "supersede", target.fact_id,
                f"{slot_name}: {candidate.value!r} differs from {target.value!r} "
                "[rule: a single-valued slot holds one value, a different value supersedes]",
            )
        for n in sorted(neighbours, key=lambda n: (-n.score, n.fact_id)):
            same_subject = n.subject.casefold() == candidate.subject.casefold()
            paraphrase = n.open and same_subject and n.score >= self.threshold
            if paraphrase and (n.same_slot or candidate.predicate == "states"):
                return Judgement("skip", n.fact_id, f"{slot_name}: paraphrases {n.fact_id} (cosine {n.score:.2f}) "
                                                    "[rule: a paraphrase is already known]")
        if slot and candidate.change:
            target = max(slot, key=lambda n: (n.valid_from, n.fact_id))
            return Judgement(
                "supersede", target.fact_id,
                f"{slot_name}: {candidate.value!r} replaces {target.value!r} "
                "[rule: a stated change (moved, switched, now) in a many-valued slot replaces its values]",
            )
        if slot:
            return Judgement("add", None, f"{slot_name}: another value [rule: a many-valued slot adds]")
        return Judgement("add", None, f"{slot_name}: no value yet [rule: a new slot adds]")
