"""A change told by what it changed *to*, ranked above the value it replaced, for a question about now.

"Bumped to P1 given month-end impact." names neither the ticket nor the field; "ugh they rang, pushed me
to wednesday 8am" names neither the dentist nor the appointment. Both say what the value is now, and the
words and meaning that found the older turn ("P3 - Ledgerly CSV export drops the last row.", "dentist is
tuesday 3pm at Brightsmile") barely find them: they share no subject for the present stage
(``serve/present.py``) to cluster them by. What ties the two is the *kind* of value: the change names a
new value "to" something (a priority code, a day, a time, a person), and the older turn holds a value
of the same kind. So, for a question about now, a candidate turn that says it changed something to a
value moves to the place of the best-ranked older candidate holding a value of that kind, among the
first :data:`WINDOW` turns. Nothing else moves, and a question about the past keeps its order.

The kinds are read by shape, not by naming a field: a date or a weekday or a clock time
(``distill/language/dates.py`` and a clock pattern), a code with a digit ("P1", "v2.3", "SEV-2"), a
person's name (a capitalised word after "to", and in the older turn not at its start).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from medallion.distill.language.dates import find_dates
from medallion.distill.language.lexicon import REL_NOUNS, WEEKDAYS
from medallion.serve import cues

WINDOW = 5  # the first N distinct turns are looked at: a change further down is not what the lists found

# Verbs that move a value somewhere: "pushed to", "slipped to", "reassigned to", "bumped to", "moved … to".
_VERBS = (r"moved|pushed|bumped|slipped|shifted|rescheduled|postponed|delayed|reassigned|assigned|handed(?:\s+over)?|"
          r"changed|switched|raised|lowered|upgraded|downgraded|escalated|transferred|updated|set|brought\s+forward|"
          r"passed|promoted|demoted|rebooked|reset|reassigning|assigning|handing|transferring|escalating")
_CHANGED_TO = re.compile(rf"\b(?:{_VERBS})\b(?:\s+[\w'’-]+){{0,4}}?\s+(?:to|until|till)\s+(?P<value>[^,.;!?()]+)",
                         re.IGNORECASE)
_CLOCK = re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\b\d{1,2}:\d{2}\b|\bnoon\b|\bmidnight\b", re.IGNORECASE)
_WEEKDAY = re.compile(r"\b(?:" + "|".join(WEEKDAYS) + r")s?\b", re.IGNORECASE)
_CODE = re.compile(r"\b[A-Za-z]{1,5}-?\d{1,4}(?:\.\d{1,4}){0,3}\b")  # "P1", "SEV-2", "v2.3"
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}\b")
_LEADING_NAME = re.compile(r"^[A-Z][a-z]{2,}\b")
_NAMED_SUBJECT = re.compile(r"\b\d{3,}\b|\b[A-Z][a-z]{2,}\b")  # "4413", "Viktor", "Release"
_FIRST_PERSON_SUBJECT = re.compile(r"\b(?:i|we)\b", re.IGNORECASE)
_RELATIVE = re.compile(REL_NOUNS)
# Words that open a clause capitalised without naming anyone
_OPENERS = frozenset(("they", "he", "she", "it", "you", "ugh", "oh", "ok", "okay", "so", "then", "well", "also",
                      "just", "and", "but", "sadly", "finally", "anyway", "update", "fyi", "btw"))
_NOT_NAMES = frozenset(("The", "This", "That", "Will", "Release", "Target", "Status", "Priority"))


def kinds(text: str, today: date, leading: bool = False) -> set[str]:
    """The kinds of value ``text`` holds: ``time`` (a date, a weekday, a clock time), ``code`` (letters and
    a digit: "P3", "v2.3"), ``name`` (a capitalised word; one that opens the text only when ``leading``)."""
    found = set()
    if _CLOCK.search(text) or _WEEKDAY.search(text) or find_dates(text, today, future=False):
        found.add("time")
    if _CODE.search(text):
        found.add("code")
    names = {m.group() for m in _NAME.finditer(text)} | (
        {m.group() for m in [_LEADING_NAME.match(text)] if m} if leading else set())
    if names - _NOT_NAMES - {d.capitalize() for d in WEEKDAYS}:
        found.add("name")
    return found


def new_value_kinds(text: str, today: date, older: str | None = None) -> set[str]:
    """The kinds of the value a text says something was changed to ("pushed me to wednesday 8am" → time),
    empty when it says no such change. With ``older`` (an older turn's text), a change whose clause names
    a subject of its own that the older turn does not name ("Ticket 4413 … assigned to Viktor", "my sister
    just moved to Eastfold") is about something else, and counts for nothing."""
    found: set[str] = set()
    for m in _CHANGED_TO.finditer(text):
        if older is not None and not _subject_shared(text[:m.start()], older):
            continue
        found |= kinds(m.group("value").strip(), today, leading=True)
    return found


def _subject_shared(before: str, older: str) -> bool:
    """Whether what a change's clause names before its verb (a record number, a capitalised word, a
    relative) is named in the older turn too; nothing named is shared (the change is elliptical: "Bumped
    to P1", "they rang, pushed me to wednesday"). A clause whose subject is its speaker ("I moved to
    Madrid") is about them, which the present stage reads by subject: not shared."""
    clause = re.split(r"[.!?;]\s+", before)[-1].strip()
    if _FIRST_PERSON_SUBJECT.search(clause):
        return False
    named = {m.group().casefold() for m in _NAMED_SUBJECT.finditer(clause)
             if m.start() > 0 or m.group().casefold() not in _OPENERS}  # "Ugh, they rang": no name
    named |= {w for w in re.findall(r"[a-z]+", clause.casefold()) if _RELATIVE.fullmatch(w)}
    held = set(re.findall(r"[\w-]+", older.casefold()))
    return named <= held


def _event(item: dict[str, Any]) -> Any:
    return (item.get("provenance") or {}).get("bronze_event_id")


def changes_first(results: list[dict[str, Any]], today: date, window: int = WINDOW) -> list[dict[str, Any]]:
    """``results`` (best first, items of one turn together or not) with each turn among the first
    ``window`` that says it changed something to a value moved to the place of the best-ranked older turn
    above it holding a value of that kind. Turns are told apart and ordered in time by their Bronze
    event (ids grow with arrival)."""
    events: list[Any] = []
    for item in results:
        event = _event(item)
        if event is not None and event not in events:
            events.append(event)
    events = events[:window]
    said: dict[Any, list[str]] = {}
    for item in results:
        if _event(item) in events:
            said.setdefault(_event(item), []).append(str(item.get("statement") or "").strip())
    texts = {event: " ".join(parts) for event, parts in said.items()}
    order = list(events)
    for event in events:
        if not new_value_kinds(texts[event], today) or not cues.asserts_value(texts[event]):
            continue  # no change to a value, or one only weighed ("might move to …")
        place = order.index(event)
        older = next((e for e in order[:place] if isinstance(e, int) and isinstance(event, int) and e < event
                      and kinds(texts[e], today) & new_value_kinds(texts[event], today, texts[e])), None)
        if older is not None:
            order.remove(event)
            order.insert(order.index(older), event)
    if order == events:
        return results
    # the window's items take the window's places in the new order; every other item keeps its place
    rank = {e: i for i, e in enumerate(order)}
    places = [i for i, r in enumerate(results) if _event(r) in rank]
    moved = sorted((results[i] for i in places), key=lambda r: rank[_event(r)])  # stable: a turn's items keep theirs
    out = list(results)
    for place, item in zip(places, moved, strict=True):
        out[place] = item
    return out

