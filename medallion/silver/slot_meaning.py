"""Slots by meaning, and the words that say a value changed or ended (issue 31.1, 31.2).

**Slots by meaning.** A relation phrase that no alias names becomes a learned key ("accept_position_at");
a phrase an alias names can still carry a value its slot cannot hold ("started at Northwind" is read
as ``scheduled_at``, a time slot, with an organisation for value). Such a candidate is compared by
meaning with the curated predicates: its statement with the subject and the value masked ("Someone
accepted a position at X as a research scientist") is embedded with the model that embeds every
statement, and compared with the example phrases of each curated predicate (``slot_meaning.csv``,
next to this module). When the best cosine reaches :data:`THRESHOLD` and the value's type is one the
predicate holds (an entity for ``works_at``, a date for ``birthday``), the candidate takes the curated
predicate and its cardinality. How the threshold was chosen, and its precision and recall on cases
written before it was chosen, is in STANDARDS.md ("Slots by meaning").

**Change and end.** A closed list of replacement words — not relations: "no longer", "anymore",
"instead", "switched", "swapped", "replaced", "passed away", "quit", "gave up", and a bare "now" — says a value took
another's place, so in a many-valued slot the new value replaces the open ones; "also", "too",
"another" say one more is added and win over a replacement word. "new" and "now" are not enough in a
many-valued slot (measured on LoCoMo: every one of some 40 supersessions they caused was wrong,
"loves discovering new cities" closing "loves that first movie"); a single-valued slot needs no cue,
and at query time the newest answers a question about now (``serve/present.py``). A negated state ("I'm no longer
vegetarian", "Ilse is not on call anymore", "stopped being a member") ends the open fact it
negates: the sentence is restated in the positive ("Dana is vegetarian"), embedded, and the open fact
of the same subject closest to it (cosine ≥ :data:`NEGATION_THRESHOLD`) is superseded by the negated
statement (the ledger's valid_to / superseded_by; nothing is deleted).

Everything here is deterministic: the example phrases and thresholds are part of the derivation
fingerprint (silver/fingerprint.py), and the masked statements and positive restatements are embedded
in the window's one batch through the embedding cache, so a rebuild encodes nothing new.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from medallion.distill.predicates import normalise_key
from medallion.distill.types import FactCandidate
from medallion.distill.vocabulary import predicates

EXAMPLES = Path(__file__).resolve().parent / "slot_meaning.csv"
THRESHOLD = 0.60
NEGATION_THRESHOLD = 0.85
MARGIN = 0.03
SUBJECT_MASK = "Someone"  # a named subject; a common noun ("the incident runbook") is a thing
THING_MASK = "Something"
NONE = "-"  # the examples of no curated slot (an action, a visit, a purchase): a nearer one keeps the key
_PLACEHOLDER = {"entity": "X", "date": "a date", "number": "a number", "text": "something"}
# Curated slots whose values are times, numbers or codes: an entity read into one was misread.
_NOT_ENTITY = frozenset({"scheduled_at", "birthday", "amount", "phone", "version", "timezone", "email"})
# Kinds of slot a meaning never replaces: catch-alls and intentions.
_KEEP = frozenset({"states", "plans", "goal"})

# A relation that names the kind of its value ("affiliated with the religion of X", "located in the continent
# of X") is its own slot; a passive with its agent ("founded by X", "written by X") says what was done to the
# subject, which no person's slot holds. Both scored 0.75-0.79 to member_of or lives_in by meaning alone.
_OWN_KIND = re.compile(r"\b(?:the|a|an)\s+[a-z]+\s+of\s+[A-Z0-9]")
# The same read off the relation phrase, whatever the value's case ("enrolled in the school of dentistry")
_OWN_KIND_RELATION = re.compile(r"\b(?:the|a|an)\s+[a-z]+\s+of$")
_BY_AGENT = re.compile(r"(?:^|\s)(?:[a-z]+ed|made|written|built|run|led|owned|done|drawn|sung|held|won|"
                       r"known|begun|founded)\s+by$")
# Slots whose values are times, dates, amounts or numbers: a value with no digit and no word of the calendar
# or the clock cannot be one (a time zone or an e-mail address can, so those two are not here).
_COUNTED = frozenset({"scheduled_at", "birthday", "amount", "phone", "version"})
# What a time, number or code slot's value has: a digit, or a word of the calendar or the clock.
_TIMELIKE = re.compile(
    r"\d|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
    r"\b(?:noon|midnight|morning|afternoon|evening|night|tonight|today|tomorrow|week|month|year|quarter|spring|"
    r"summer|autumn|fall|winter|[A-Z]{2,5}T)\b", re.IGNORECASE)
# A favourite is its own slot per kind of thing (``favourite_band``); what the thing is (a band, a city)
# says nothing of the person's tie to it.
_FAVOURITE = re.compile(r"^favou?rite_")
_ADDED = re.compile(r"\b(?:also|too|another|additionally|as\s+well)\b", re.I)
_BARE_NOW = re.compile(r"(?<!right )(?<!for )(?<!by )(?<!until )(?<!just )(?<!from )\bnow\b", re.I)
_JOINED = re.compile(r"\b(?:join(?:s|ed|ing)?|part\s+of|members?\s+of|took\s+up|takes?\s+up)\b", re.I)
_REPLACING = re.compile(
    r"\b(?:no\s+longer|any\s*more|instead|switched|switching|swapped|replaced|passed\s+away|quit|gave\s+up)\b", re.I)
_ENDED = re.compile(r"\bno\s+longer\b|(?:\bnot|n't)\b[^.!?]{0,120}?\bany\s*more\b|\bstopped\s+being\b", re.I)
_END_WORDS = re.compile(r"\s*\b(?:no\s+longer|any\s*more|not|stopped\s+being)\b\s*", re.I)
_FIRST_PERSON = ((re.compile(r"\bI\s*'?m\b|\bI\s+am\b"), "{s} is"), (re.compile(r"\bI\s*'ve\b"), "{s} has"),
                 (re.compile(r"\bI\b"), "{s}"), (re.compile(r"\b[Mm]y\b"), "{s}'s"))


@dataclass(frozen=True)
class Example:
    """One example phrase of a curated predicate, with the value types that predicate holds."""

    predicate: str
    value_types: frozenset[str]
    text: str


@lru_cache(maxsize=1)
def examples() -> tuple[Example, ...]:
    """The example phrases (``slot_meaning.csv``), each naming a curated predicate of the seed."""
    with EXAMPLES.open(newline="") as fh:
        rows = [Example(r["predicate"], frozenset(r["value_types"].split("|")), r["example"])
                for r in csv.DictReader(fh)]
    unknown = {r.predicate for r in rows} - set(predicates()) - {NONE}
    if unknown:
        raise ValueError(f"slot_meaning.csv names predicates the seed does not have: {sorted(unknown)}")
    return tuple(rows)


@lru_cache(maxsize=1)
def mappable_types() -> frozenset[str]:
    """The value types some curated predicate's examples hold."""
    return frozenset(t for e in examples() if e.predicate != NONE for t in e.value_types)


def eligible(c: FactCandidate) -> bool:
    """Whether a candidate's slot is open to a mapping by meaning: a learned key, or a curated one
    whose value has a type the slot cannot hold (an organisation in a time slot)."""
    kind = "entity" if c.object_entity else c.value_type
    if c.predicate in _KEEP or kind not in mappable_types():
        return False  # a value no curated example holds could not be mapped: not worth an encode
    relation = c.relation or c.predicate.replace("_", " ")
    if _OWN_KIND.search(c.statement) or _OWN_KIND_RELATION.search(relation) or _BY_AGENT.search(relation):
        return False  # the phrase names its own kind of value, or its subject is what was done: keep it
    if _FAVOURITE.match(c.predicate):
        return False  # "Saltmarsh Radio is now my favorite band": a preference, not a band one belongs to
    if c.predicate not in predicates():
        return True
    return c.predicate in _NOT_ENTITY and (c.value_type == "entity" or c.object_entity is not None)


def _replace_words(text: str, words: str, by: str) -> str | None:
    """``text`` with the whole-word occurrences of ``words`` replaced (case-insensitive), or None."""
    pattern = re.compile(r"(?<!\w)" + re.escape(words.strip()) + r"(?!\w)", re.I)
    out, n = pattern.subn(by, text)
    return out if n else None


def masked(c: FactCandidate) -> str | None:
    """The statement with its value replaced by its type's placeholder and its subject by "Someone"
    (a name) or "Something" (a common noun: the people's slots, works_at, spouse, do not fit a
    thing); None when the value is not spelled in the statement (nothing to mask)."""
    if not isinstance(c.value, str) or not c.value.strip():
        return None
    kind = "entity" if c.object_entity else c.value_type
    text = _replace_words(c.statement, c.value, _PLACEHOLDER.get(kind, "something"))
    if text is None:
        return None
    mask = SUBJECT_MASK if re.search(r"(?<!\w)[A-Z]", c.subject) else THING_MASK
    return _replace_words(text, c.subject, mask) or text


class SlotMeaning:
    """The example phrases embedded once (per process and embedding model), and the mapping."""

    def __init__(self, encode: Callable[[list[str]], Sequence[np.ndarray]]):
        rows = examples()
        self.rows = rows
        self.matrix = np.vstack([np.asarray(v, dtype=np.float32) for v in encode([r.text for r in rows])])

    def best(self, vec: np.ndarray, value_type: str) -> tuple[str, float, float] | None:
        """The curated predicate whose closest example is nearest ``vec`` among those holding
        ``value_type`` (or :data:`NONE`), with its cosine and its lead over the next (ties broken by
        name); None when none holds that type."""
        scores = self.matrix @ np.asarray(vec, dtype=np.float32)
        best: dict[str, float] = {}
        for row, score in zip(self.rows, scores.tolist(), strict=True):
            if value_type in row.value_types:
                best[row.predicate] = max(best.get(row.predicate, -1.0), round(score, 6))
        if not best:
            return None
        name = min(best, key=lambda p: (-best[p], p))
        return name, best[name], best[name] - max((v for p, v in best.items() if p != name), default=-1.0)

    def map(self, c: FactCandidate, vec: np.ndarray, threshold: float = THRESHOLD) -> tuple[str, float] | None:
        """The curated predicate ``c`` means (its masked statement's embedding is ``vec``), or None."""
        found = self.best(vec, "entity" if c.object_entity else c.value_type)
        if found is None or found[0] in (NONE, c.predicate) or found[1] < threshold or found[2] < MARGIN:
            return None
        return found[0], found[1]


_meanings: dict[str, SlotMeaning] = {}


def meaning_for(fingerprint: str, encode: Callable[[list[str]], Sequence[np.ndarray]]) -> SlotMeaning:
    """The process's :class:`SlotMeaning` for one embedding fingerprint (examples embedded once)."""
    if fingerprint not in _meanings:
        _meanings[fingerprint] = SlotMeaning(encode)
    return _meanings[fingerprint]


def remap(c: FactCandidate, meaning: SlotMeaning, vectors: dict[str, np.ndarray]) -> tuple[FactCandidate, str | None]:
    """``c`` with the curated predicate it means, and a note saying why (None when unchanged)."""
    text = masked(c) if eligible(c) else None
    if text is None or text not in vectors:
        return c, None
    found = meaning.map(c, vectors[text])
    if found is None:
        return _unslotted(c)
    name, score = found
    note = (f"slot by meaning: '{c.relation or c.predicate}' read as {name} "
            f"(cosine {score:.2f} >= {THRESHOLD:.2f} to its examples)")
    entity = c.object_entity or (c.value if c.value_type == "entity" else None)
    return replace(c, predicate=name, cardinality=None, relation=c.relation or c.predicate.replace("_", " "),
                   object_entity=entity if predicates()[name].entity_valued else None), note


def _unslotted(c: FactCandidate) -> tuple[FactCandidate, str | None]:
    """A candidate left in a curated slot that cannot hold its value (an organisation in a time slot)
    moves to a learned key named after its relation and the value's kind, so that no reader trusts
    the curated slot's meaning for it; any other candidate is unchanged."""
    if c.predicate not in _COUNTED or not isinstance(c.value, str) or _TIMELIKE.search(c.value):
        return c, None  # a number, a version, a day or a month may still be what the slot holds
    phrase = c.relation or c.predicate.replace("_", " ")
    key = normalise_key(f"{phrase} {'entity' if c.object_entity else c.value_type}")
    if key is None or key in predicates():
        return c, None
    note = f"slot by meaning: '{phrase}' cannot hold a {c.value_type} value in {c.predicate}; kept as {key}"
    return replace(c, predicate=key, cardinality=None, relation=phrase), note


def states_change(statement: str) -> bool:
    """Whether a statement says its value took another's place, which in a many-valued slot closes
    the others: a replacement word ("instead", "switched", "no longer", "quit", "passed away") or a
    bare "now" ("now I'm reading Kindred"; not "joined … now", which adds a membership), and no
    "also". "new", "finished" and "left" are not enough: "loves discovering new cities" and "bought a
    lot of new books" add one more."""
    if _ADDED.search(statement):
        return False
    return bool(_REPLACING.search(statement)) or bool(_BARE_NOW.search(statement) and not _JOINED.search(statement))


def first_person(sentence: str, speaker: str | None) -> str:
    """``sentence`` with I / I'm / my said as the speaker ("I'm vegetarian" → "Dana is vegetarian")."""
    if not speaker:
        return sentence
    for pattern, template in _FIRST_PERSON:
        sentence = pattern.sub(template.format(s=speaker), sentence)
    return sentence


def negated_state(sentence: str, speaker: str | None) -> tuple[str, str] | None:
    """For a sentence that ends a state ("I'm no longer vegetarian"), the statement as the speaker
    says it ("Dana is no longer vegetarian") and its positive form ("Dana is vegetarian"); else None."""
    text = " ".join(sentence.split()).strip()
    if not text or text.endswith("?") or not _ENDED.search(text):
        return None
    said = first_person(text, speaker).rstrip(" .!")
    positive = re.sub(r"\bisn't\b", "is", said)
    positive = re.sub(r"\b(?:do|does|did)n't\s+", "", positive)
    positive = re.sub(r"\s+", " ", _END_WORDS.sub(" ", positive)).strip(" ,")
    if positive == said or len(positive.split()) < 2:
        return None
    return said + ".", positive + "."


_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_NOT_A_PERSON = frozenset({"assistant", "system", "bot", "agent", "service", "tool"})


@dataclass(frozen=True)
class Negation:
    """A sentence of an event that ends a state: where it is, what it says, and its positive form."""

    start: int
    end: int
    said: str
    positive: str


def speaker_of(actor: str | None) -> str | None:
    """The person a turn is spoken by ("user:dana" → "Dana"); None for assistants and systems."""
    if not actor:
        return None
    kind, sep, name = actor.partition(":")
    if sep and kind.strip().casefold() in _NOT_A_PERSON:
        return None
    name = (name if sep else kind).strip().split("@")[0]
    return name[:1].upper() + name[1:] if name else None


def negations(content: str, actor: str | None) -> list[Negation]:
    """Every sentence of ``content`` that ends a state, with its positive form (see :func:`negated_state`)."""
    speaker = speaker_of(actor)
    out = []
    for m in _SENTENCE.finditer(content):
        found = negated_state(m.group(), speaker)
        if found is not None:
            out.append(Negation(m.start(), m.end(), *found))
    return out


def window_texts(candidates: Sequence[FactCandidate], ends: Sequence[Negation]) -> list[str]:
    """The texts this module needs embedded for an event, to join the window's one batch."""
    texts = [t for c in candidates if eligible(c) and (t := masked(c)) is not None]
    return texts + [t for n in ends for t in (n.said, n.positive)]
