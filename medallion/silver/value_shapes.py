"""Personal data whose shape says what it is: an email address, a phone number, a street address.

A forget request names a kind of datum ("forget my home address", "remove my phone number"), and the
turn that gave it often says nothing of the kind in words: "and i'm at 22 Halloran Row, flat 3", "my
direct line is +33 6 12 48 6621". Meaning alone cannot find such a turn (the embedding of "home address"
is nearer "my email address is …" than the street), but the value's shape can: a request that names one
of these kinds takes the speaker's turns holding a value of that shape, and leaves the turns whose only
such value is of another kind ("home address" is not the email address).
"""

from __future__ import annotations

import re

from medallion.distill.providers.heuristic.contact_values import EMAIL

# 7 to 15 digits in groups: "+33 6 12 48 6621", "020 7946 0321", "555-0199", "(555) 010-2233"
_PHONE = re.compile(r"(?<![\w.+@/-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,5}\)[ .-]?)?\d{2,5}(?:[ .-]\d{1,8}){0,5}"
                    r"(?![\w@/-]|\.\d)")
# a house number and a named street: "22 Halloran Row", "9 Tamsel Close", "1204 N. Alder Avenue"
STREET = re.compile(
    r"\b\d{1,5}[A-Za-z]?,?\s+(?:[A-Z][\w'.-]*\s+){1,3}(?:Street|St|Road|Rd|Row|Close|Lane|Ln|Avenue|Ave|Drive|Dr|"
    r"Way|Court|Ct|Place|Pl|Terrace|Crescent|Boulevard|Blvd|Square|Sq|Gardens|Hill|Mews|Parade|Walk|Grove|"
    r"Rise|Vale|View|Park|Yard|Wharf|Quay|Green|Circle|Highway|Hwy|Strasse|Straße|Weg|Gasse|Rue|Via|Calle)\b")

# What a request calls each kind; the first kind whose word the request holds is the one it names
# ("email address" is an email, not a street address).
_NAMED = (
    ("email", re.compile(r"\be-?mails?\b", re.IGNORECASE)),
    ("phone", re.compile(r"\b(?:phone|mobile|cell|cellphone|telephone|landline)\b|^(?:(?:my|the|new|old|private|"
                         r"personal|direct|contact|home|work)\s+)*(?:number|line)$", re.IGNORECASE)),
    ("street", re.compile(r"\b(?:address|addy|street)\b", re.IGNORECASE)),
)


def _phone(text: str) -> bool:
    return any(7 <= sum(ch.isdigit() for ch in m.group(0)) <= 15 for m in _PHONE.finditer(EMAIL.sub(" ", text)))


_SHAPES = {"email": lambda t: bool(EMAIL.search(t)), "phone": _phone, "street": lambda t: bool(STREET.search(t))}


def kind_named(target: str) -> str | None:
    """The kind of datum a request's target names ("my home address" → "street"), or None."""
    for kind, words in _NAMED:
        if words.search(target):
            return kind
    return None


def kinds_in(text: str) -> set[str]:
    """The kinds of datum ``text`` holds a value of."""
    return {kind for kind, holds in _SHAPES.items() if holds(text)}
