"""Curated readings put in the open vocabulary's shape (``distill/predicates.py``): a relationship the
alias seed names becomes its own slot, owning a named thing becomes the thing's ``owned_by``, a
favourite becomes a ``favourite_<what>`` slot, and so on (see :func:`open_slot`)."""

from __future__ import annotations

import re
from typing import Any

from medallion.distill import predicates
from medallion.distill.language.lexicon import ENTITY_PREDICATES, REL_NOUNS, TEAM_WORDS
from medallion.distill.language.wording import SMALL_WORDS

_REL_OF_RE = re.compile(r"^(?P<rel>[a-z][a-z -]*?)\s+of\s+(?P<x>.+)$")
_REL_TO_RE = re.compile(r"^(?P<rel>[a-z]+(?:\s+[a-z]+)?\s+(?:to|by|with))\s+(?P<x>.+)$")
_CLASSIFIED_RE = re.compile(r"^(?:the\s+)?(?P<cls>[a-z]+)\s+of\s+(?P<x>[A-Z].*)$")
_CLOCK_RE = re.compile(r"^\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?\b", re.I)
_TIME_IN_RE = re.compile(r"\b\d{1,2}(?::\d{2}|\s*[ap]\.?m\.?)(?:\s*(?:[ap]\.?m\.?|UTC|GMT|[A-Z]{2,4}T))?", re.I)
_RELATIVE_RE = re.compile(rf"'s?\s+(?:{REL_NOUNS})$", re.I)  # "Saoirse's sister": a person, who lives somewhere
_FAVOURITE_RE = re.compile(r"^(?P<v>.+?)\s+\((?P<what>favou?rite\s+[\w -]+)\)$")

_TEAM_VALUE_RE = re.compile(rf"^(?P<v>.+?\b(?:{TEAM_WORDS}))\b", re.I)
_CLASS_PREFIX_RE = re.compile(
    r"^(?:[Tt]he\s+)?(?:service|app|repo|repository|project|cluster|server|database|db|channel|host|bucket|queue)"
    r"\s+(?P<id>\S*[-_/.]\S*)$", re.I)
_NAMED_THING_RE = re.compile(r"^(?:[A-Z0-9#]|\S*\w[-_/]\w)")


def _bare_subject(subject: str) -> str:
    """'The mobile app' and 'mobile app' are one subject: a leading article goes unless the name is
    a title whose every word is capitalised ('The Marriage of Figaro')."""
    m = _CLASS_PREFIX_RE.match(subject)
    if m:  # "Cluster kestrel-prod" is kestrel-prod (a suffix stays: a service and its database differ)
        return m["id"]
    m = re.match(r"^(?:[Tt]he|[Aa]n?)\s+(?P<rest>.+)$", subject)
    if not m:
        return subject
    words = [w for w in m["rest"].split() if w.lower() not in SMALL_WORDS]
    return subject if words and all(w[:1].isupper() for w in words) else m["rest"]


def _attribute_of(value: str, subject: str, besides: set[str]) -> tuple[str, str, Any, str | None, None] | None:
    """'<attribute> of X' said of ``subject`` is X's curated attribute whose value is ``subject``
    ("manager of Nate" said of Dana → Nate ``reports_to`` Dana), unless the alias names ``besides``."""
    m = _REL_OF_RE.match(value.lower())
    slot = predicates.slot_for(m["rel"]) if m else None
    if m is None or slot is None or slot.origin != "curated" or slot.key in besides:
        return None
    return _bare_subject(value[m.start("x"):]), slot.key, subject, subject, None


def open_slot(subject: str, predicate: str, value: Any, obj: str | None, statement: str = "",
               ) -> tuple[str, str, Any, str | None, str | None]:
    """Curated readings in the open vocabulary's shape:

    - a relationship the alias seed names is its own slot in one direction ("manager of Nate" said
      of Dana → Nate ``reports_to`` Dana);
    - owning a named thing (a service, a project, 'the status page') is the thing's ``owned_by``;
    - "flat white (favourite coffee)" is the slot ``favourite_coffee``;
    - a classifier ("continent of Asia") is part of a learned slot;
    - a move to a clock time, or a "version" that is a clock time, is a new schedule.
    """
    subject = _bare_subject(subject)
    if not isinstance(value, str):
        return subject, predicate, value, obj, None
    if predicate == "relationship":
        owned = _attribute_of(value, subject, {"relationship"})  # "Dana is the manager of Nate"
        if owned is not None:
            return owned
        m = _REL_TO_RE.match(value)
        slot = predicates.slot_for(m["rel"]) if m else None
        if m and slot is not None and slot.origin == "curated":
            return subject, slot.key, m["x"], m["x"], None
        return subject, predicate, value, obj, None
    if predicate == "role":
        owned = _attribute_of(value, subject, {"role", "relationship"})  # "the manager of Leo"
        if owned is not None:
            return owned
    if predicate == "owns" and (_NAMED_THING_RE.search(value) or re.search(rf"\bthe\s+{re.escape(value)}\b",
                                                                          statement, re.I)):
        return _bare_subject(value), "owned_by", subject, subject, None
    if predicate == "prefers":
        m = _FAVOURITE_RE.match(value)
        if m:
            key = predicates.normalise_key(m["what"])
            if key:
                return subject, key, m["v"], None, "one"
    if predicate == "states":
        m = re.match(r"^allergic\s+to\s+(?P<x>.+)$", value)
        if m:  # "I'm allergic to penicillin": one allergy of several
            return subject, "allergic_to", m["x"], None, "many"
    if predicate == "lives_in" and re.search(r"(?:^|\s)[a-z]", subject) and not _RELATIVE_RE.search(subject):
        predicate = "located_in"  # a thing ("Bristol office") is located, a person lives
    team = _TEAM_VALUE_RE.match(value)
    if predicate == "uses" and team:
        return subject, "member_of", team["v"], team["v"], None  # "switched to the billing team"
    when = _TIME_IN_RE.search(statement)
    if predicate in ("lives_in", "located_in", "version") and when and _CLOCK_RE.match(value):
        return subject, "scheduled_at", statement[when.start():when.end()], None, None
    m = _CLASSIFIED_RE.match(value)
    if m and predicate in ENTITY_PREDICATES:
        return subject, f"{predicate}_{m['cls']}", m["x"], m["x"], "one"
    return subject, predicate, value, obj, None
