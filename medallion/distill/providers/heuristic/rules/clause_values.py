"""Values and slots for the clause reader: a value typed from its phrase (entity, ISO date, number
with unit, text), the cardinality rule, slots the value's shape decides (a phone number, an email
address, a version, a team, a clock time), and the :class:`Reading` a rule returns."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from medallion.distill.language.parse import (
    ADDRESSEE,
    ISO_DATE_RE,
    PRONOUNS,
    PROPER,
    Sentence,
    children,
    phrase_tokens,
)
from medallion.distill.predicates import slot_for

_PHONE_RE = re.compile(r"^\+?\d{2,5}(?:[ .-]\d{2,8}){1,4}$|^\+?0\d{6,14}$|^\+\d{7,15}$")
# a run of digits that counts nothing: a leading zero, or too long for a quantity said in words
_DIGIT_STRING_RE = re.compile(r"^\+?0\d+$|^\+?\d{9,}$")
_EMAIL_RE = re.compile(r"^[\w.%+-]+@[\w.-]+\.[a-z]{2,}$", re.I)
_VERSION_RE = re.compile(r"(?:^|\s)v?\d+(?:\.\d+)+[a-z]?$")
_EMPLOYER_RE = re.compile(r"\b(?:company|startup|firm|agency|studio|lab|business|employer)\b", re.I)
_TEAM_RE = re.compile(r"\b(?:team|squad|group|guild|chapter|committee|department|dept|tribe|pod|unit|crew)$", re.I)
# Verbs that say a value changed to a new one ("changed to", "moved to", "was raised to").
CHANGE_VERBS = frozenset({"change", "move", "switch", "raise", "lower", "increase", "decrease", "reduce", "cut",
                          "update", "upgrade", "bump", "set", "shift", "extend", "drop", "go", "transfer",
                          "relocate", "rename", "reschedule", "push", "bring", "migrate", "downgrade"})
_NUMBER_RE = re.compile(r"^(?P<cur>[$€£])?(?P<n>\d+(?:\.\d+)?)(?P<mag>[kKmMbB%])?$")
_TIME_RE = re.compile(r"^\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?$", re.I)
_MAGNITUDE = {"k": 1e3, "m": 1e6, "b": 1e9}
_CURRENCY = {"$": "USD", "€": "EUR", "£": "GBP"}


@dataclass(frozen=True)
class Reading:
    """What one rule read from a sentence."""

    subject: str
    relation: str  # the phrase as written ("is famous for", "the author of")
    predicate: str  # curated name or learned key
    origin: str  # curated | learned
    value: Any
    value_type: str  # entity | date | number | text
    cardinality: str  # one | many (the general rule; the seed overrides curated names)
    rule: str
    change: bool = False  # the sentence says the value changed (see _changed)


NOTHING = Reading("", "", "", "", None, "text", "many", "nothing")


def typed_value(s: Sentence, head: Any) -> tuple[Any, str]:
    """The value of a phrase headed by ``head``, typed: ISO date, number with unit, entity, text."""
    toks = phrase_tokens(head, coordinated=True)
    if head.like_num or head.text in s.masked:  # "12 Rua das Flores, Evora": a number that opens a name
        nxt = toks[-1].i + 1 if toks else head.i + 1
        while nxt < len(s.doc) and (s.doc[nxt].is_title or s.doc[nxt].tag_ in PROPER or s.doc[nxt].lower_ in (
                ",", "de", "da", "das", "do", "dos", "del", "la", "le", "van", "von") and nxt + 1 < len(s.doc)
                and s.doc[nxt + 1].is_title):
            toks.append(s.doc[nxt])
            nxt += 1
    text = s.text(toks)
    raw = s.masked.get(head.text)
    if raw is not None and ISO_DATE_RE.match(raw):
        return raw, "date"
    if raw is not None and _PHONE_RE.match(raw):
        return raw, "text"
    if _DIGIT_STRING_RE.match(raw or head.text):
        return raw or head.text, "text"  # "0461223870": an identifier (a phone, an account), not a quantity
    names_follow = any(t.i > head.i and (t.is_title or t.tag_ in PROPER) for t in toks)
    if (raw is not None or head.like_num) and not names_follow:
        m = _NUMBER_RE.match(raw or head.text)
        if m:
            amount = float(m["n"]) * _MAGNITUDE.get((m["mag"] or "").lower(), 1.0)
            unit = _CURRENCY.get(m["cur"] or "") or ("%" if m["mag"] == "%" else None)
            rest = [t for t in toks if t.i > head.i and t.is_alpha]
            if unit is None and rest:
                unit = " ".join(t.lower_ for t in rest)
            number: int | float = int(amount) if amount.is_integer() else amount
            return {"number": number, "unit": unit}, "number"
        return text, "text"
    if head.tag_ in PROPER or any(t.tag_ in PROPER for t in toks if t.i >= head.i - 3 and t.dep_ == "compound"):
        return text, "entity"
    return text, "text"


def classifier(head: Any) -> tuple[Any, str] | None:
    """'the city of London', 'the position of goalkeeper': a definite singular noun with an *of*
    object names which attribute is meant (the classifier) and the object is the value."""
    if head.tag_ != "NN" or not any(c.dep_ == "det" and c.lower_ == "the" for c in head.children):
        return None
    for prep in children(head, "prep"):
        if prep.lower_ == "of":
            objs = children(prep, "pobj")
            if objs:
                return objs[0], head.lemma_.lower()
    return None


def is_time(s: Sentence, head: Any) -> bool:
    """A clock time heads the value, or follows its day word ("Wednesday 16:00", "fridays at 2pm")."""
    for tok in [head] + [t for t in head.subtree if t.i != head.i][:6]:
        raw = s.masked.get(tok.text, tok.text)
        after = tok.nbor(1).lower_ if tok.i + 1 < len(tok.doc) else ""
        if _TIME_RE.match(raw) and (":" in raw or after in ("am", "pm", "a.m.", "p.m.")):
            return True
    return False


# Verbs that say one value took the place of another: in a many-valued slot the new value replaces.
REPLACE_VERBS = frozenset({"switch", "move", "transfer", "change", "relocate", "migrate", "replace", "swap"})


def _changed(s: Sentence) -> bool:
    """The sentence says a value took another's place ("switched to", "transferred to", "moved
    to", "no longer", "instead") and does not add one more ("also", "too"). A bare "now" is not
    enough: chat uses it for everything ("I'm an expert hiker now")."""
    words = {t.lower_ for t in s.doc}
    if words & {"also", "too", "another", "additionally"}:
        return False
    return s.root.lemma_ in REPLACE_VERBS or bool(words & {"instead", "anymore"}) or (
        "no" in words and "longer" in words)


def _by_value(key: str, origin: str, value: Any, vtype: str, relation: str) -> tuple[str, str] | None:
    """A slot that the value's shape decides: a phone number or an email address under any phrase
    ("can be reached at", "office phone"); a version number under 'run', 'be on', 'upgrade to'; a
    team under a move ("transferred to the Growth squad"); a clock time under a move or 'be at'; a
    group that is no named organisation under 'join' ("joined a gym": one more membership, not an
    employer that a later one would replace)."""
    text = value if isinstance(value, str) and vtype != "date" else ""  # "2026-05-07" is neither phone nor version
    if _PHONE_RE.match(text) and (origin == "learned" or key == "amount"):
        return "phone", "curated"
    if _EMAIL_RE.match(text) and origin == "learned":
        return "email", "curated"
    verb = relation.split()[0] if relation else ""
    if _VERSION_RE.search(text) and verb in ("run", "on", "upgrade", "update", "bump", "use", "migrate", "scheduled"):
        return "version", "curated"
    if _TEAM_RE.search(text) and (verb in CHANGE_VERBS or key in ("lives_in", "uses")):
        return "member_of", "curated"
    if key == "works_at" and verb == "join" and vtype != "entity" and not _EMPLOYER_RE.search(text):
        return "member_of", "curated"  # "joined a gym", "joined a choir": a membership, not an employer
    return None


def make_reading(s: Sentence, subject: str | None, relation: str, value_head: Any, rule: str, *,
             stative: bool, definite: bool = False, inverse_ok: bool = True, value: Any = None,
             value_type: str = "text") -> Reading | None:
    """The reading of ``value_head`` (typed by :func:`typed_value`) or of a ``value`` the rule built,
    typed ``value_type``, in the slot ``relation`` names."""
    if not subject:
        return None
    vtype = value_type
    if value is None:
        value, vtype = typed_value(s, value_head)
    if not value or (isinstance(value, str) and value.lower() in PRONOUNS | ADDRESSEE):
        return None
    slot = slot_for(relation)
    if slot is None:
        return None
    key, origin, inverse = slot.key, slot.origin, slot.inverse
    if is_time(s, value_head) and key in ("lives_in", "located_in", "version", "amount"):
        key, origin, value, vtype = "scheduled_at", "curated", _when_phrase(s, value_head), "text"
    shaped = _by_value(key, origin, value, vtype, relation)
    if shaped is not None:
        key, origin = shaped
        inverse = False
    if key == "version" and vtype == "date":
        return None  # "was late on Monday" is not a version ("be on" is the phrase both share)
    if key == "version" and vtype == "number":
        value, vtype = s.text(phrase_tokens(value_head, coordinated=True)), "text"  # "1.30" is not 1.3
    # one value: an attribute's definite value (relational noun, classifier), or a state whose value
    # is a name, a number or a date; "grateful for the support" can hold several
    cardinality = "one" if definite or stative and vtype in ("entity", "date", "number") else "many"
    if inverse and inverse_ok:
        if vtype != "entity" and not isinstance(value, str):
            return None
        subject, value, vtype = str(value), subject, "entity"
    return Reading(subject, relation, key, origin, value, vtype, cardinality, rule, _changed(s))


def _when_phrase(s: Sentence, head: Any) -> str:
    """A schedule value: the whole phrase of the clause that holds the time, day words and zone
    included ("Tuesday 14:00 UTC", "fridays at 2pm"), without its leading preposition."""
    top, root = head, s.root.i  # spaCy makes a new Token object on every access: compare positions
    while top.head.i != root and top.head.i != top.i:
        top = top.head
    toks = [t for t in top.subtree if not t.is_punct]
    while toks and toks[0].dep_ == "prep":
        toks = toks[1:]
    return s.text(toks)
