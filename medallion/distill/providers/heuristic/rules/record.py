"""Lines filed under a record's identifier: "Ticket 5105: priority set to low", "4800: customer agreed
to push the migration deadline to April 2", "Ticket 2207 status: waiting on customer for logs".

A ticket, an order or a case is named by its identifier, and a line that opens with one says things
about that record, in fields rather than sentences: "priority P3", "assignee Harriet", "deadline is
March 14", "Beatrix is the reviewer". Read as sentences, such a line has no subject the clause reader
can find ("priority set to low" opens with a noun and a participle), so its fields were lost or kept
whole as ``states``. :func:`read_record` takes the identifier as the subject and reads each
comma-separated part of the body by the shape of a field, never by naming one:

* an attribute and its value joined by a copula or a colon: "deadline is March 14", "status: open";
* a change verb with "to": "priority raised to urgent", "push the migration deadline to April 2";
* a name and the role it fills: "Beatrix is the reviewer", "backend part by Oyelowo";
* an attribute word followed by a name or a code: "assignee Harriet", "priority P3".

The field's key is its attribute (at most its last two words: "data migration deadline" and "the
migration deadline" are one field), a learned single-valued slot: a record's field holds one value,
so the next value filed under it closes the old one in the ledger. A part said with a change verb or
"now" is marked as a change. The statement keeps the record's label and the part's own words.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from medallion.distill.language.dates import find_dates, midnight
from medallion.distill.language.lexicon import CONF_THIRD
from medallion.distill.language.sentences import Context
from medallion.distill.types import FactCandidate

# "Ticket 5105", "PR 881", "#4412", "4800", "ATL-88", optionally followed by the attribute the line is
# about ("Ticket 2207 status:"), then a colon or a dash.
RECORD_RE = re.compile(
    r"^\s*(?P<label>(?:[A-Z][A-Za-z]{1,15}\s+)?#?(?:\d{3,}|[A-Z]{2,}-\d+))"
    r"(?:\s+(?P<attr>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}))?\s*(?::|\s[-—–]\s)\s*(?P<body>\S.*)$")
# A list item or a line named by a capitalised name: "- Project Mizzen: due 15 Aug, budget 65k". Read as a
# record only when every part of its body is a field (not "Lunch orders: Bilal, falafel").
NAMED_RE = re.compile(r"^\s*(?:[-*•·]\s+)?(?P<label>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,3})\s*:\s*(?P<body>\S.*)$")
_BULLET_RE = re.compile(r"^\s*[-*•·]\s+(?=\S)")
_YEAR_RE = re.compile(r"^(?:19|20)\d\d$")
_ATTR = r"(?P<attr>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})"
_NAME = r"(?P<value>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,3})"
CHANGE_VERBS = (r"set|changed|moved|raised|lowered|bumped|pushed|updated|reset|switched|upgraded|downgraded|"
                r"reassigned|escalated|dropped|slipped|shifted|extended|reduced|increased|decreased|changes?|moves?|"
                r"push|raise|lower|bump|update|switch|extend|shift|reassign")
_DETERMINER = r"(?:(?:the|its|their|his|her|our|my)\s+)?"
# "deadline is March 14", "status: waiting on customer", "target is now the Larch release"
_COPULA_RE = re.compile(rf"^{_DETERMINER}{_ATTR}\s*(?:\s(?:is|are|was)\b(?:\s+now\b)?|:|=)\s*(?P<value>\S.*)$")
# "priority raised to urgent", "push the migration deadline to April 2", "moved the launch to May"
_CHANGED_TO_RE = re.compile(
    rf"^(?:(?:\w+\s+){{0,3}}?(?:agreed|decided|asked|wants?|had)\s+to\s+)?(?:(?P<verb1>{CHANGE_VERBS})\s+{_DETERMINER}{_ATTR}"
    rf"|{_DETERMINER}(?P<attr2>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){{0,2}})\s+(?:(?:was|is|has\s+been|got)\s+)?"
    rf"(?P<verb2>{CHANGE_VERBS}))\s+(?:to|until|till)\s+(?P<value>\S.*)$")
# "Beatrix is the reviewer", "Kaito is now the implementer"
_NAME_IS_RE = re.compile(rf"^{_NAME}\s+(?:is|was)\s+(?:now\s+)?(?:the\s+)?{_ATTR}$")
# "backend part by Oyelowo", "frontend part owned by Lucinda"
_BY_RE = re.compile(rf"^{_DETERMINER}(?P<attr>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){{0,2}}?)\s+(?:[a-z]+ed\s+)?by\s+{_NAME}$")
# "assignee Harriet", "priority P3": one attribute word and a name or a code with a digit
_BARE_RE = re.compile(r"^(?P<attr>[a-z][a-z-]+)\s+(?P<value>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}|[A-Za-z]*\d[\w.-]*"
                      r"(?:\s+[A-Z][a-z]{2,8}\.?(?:\s+\d{4})?)?)$")  # "priority P3", "due 15 Aug"
# where a value ends: a reason or a time clause after it
_VALUE_END_RE = re.compile(r"\s+(?:after|because|since|as|when|so|but|which|while|until|due\s+to)\s+.*$|\s*\(.*$")
_NOW_RE = re.compile(rf"\b(?:now|{CHANGE_VERBS})\b", re.I)
# one part of a record line's body: up to a comma, a semicolon or a spaced dash
_PART_RE = re.compile(r"[^,;—–]+?(?=,\s+|;\s+|\s+[-—–]\s+|$)")
# attributes that are not fields of the record: a pronoun, a verb the copula frame caught
_NOT_ATTR = frozenset({"it", "this", "that", "he", "she", "they", "we", "i", "there", "what", "which", "who",
                       "everything", "everyone", "nothing", "all"})


def read_record(ctx: Context, line: str, line_start: int) -> list[FactCandidate]:
    """The record fields ``line`` files under its identifier (or, for a line whose every part is a field,
    under the name that opens it); ``[]`` when it is not such a line."""
    bullet = _BULLET_RE.match(line)  # a list item's marker read as blank: offsets stay the line's own
    m = RECORD_RE.match(" " * bullet.end() + line[bullet.end():] if bullet else line)
    if m is None:
        named = NAMED_RE.match(line)
        parts = [p.group().strip().rstrip(".!") for p in _PART_RE.finditer(named["body"].strip())] if named else []
        if not parts or any(_field(p) is None for p in parts):
            return []
        m = named
    if _YEAR_RE.match(m["label"]) and " " not in m["label"]:
        return []
    label = m["label"].lstrip("#")
    body = m["body"].strip()
    out: list[FactCandidate] = []
    pos = m.start("body")
    parts = [(p.start(), p.group()) for p in _PART_RE.finditer(body)]
    attr_named = m.groupdict().get("attr")
    heading = attr_named if attr_named and not _NOW_RE.fullmatch(attr_named) and not attr_named.endswith("ed") else None
    for offset, part in parts:
        text = part.strip().rstrip(".!")
        field = _field(text)
        titled = f"{label} {heading}" if heading else label
        if field is None and heading and offset == 0:
            field = (heading, text, False)  # "Ticket 2207 status: waiting on customer"
        if field is None:
            continue
        attr, value, changed = field
        start = line_start + pos + offset + (len(part) - len(part.lstrip()))
        out.append(_candidate(ctx, label, attr, re.sub(r"^the\s+", "", value), changed or bool(_NOW_RE.search(text)),
                              f"{titled}: {text}.", (start, start + len(text))))
    return out


def _field(text: str) -> tuple[str, str, bool] | None:
    """(attribute, value, said as a change) of one part of a record line, or None."""
    for rx, changed in ((_CHANGED_TO_RE, True), (_NAME_IS_RE, False), (_BY_RE, False), (_COPULA_RE, False),
                        (_BARE_RE, False)):
        found = rx.match(text)
        if found is None:
            continue
        attr = found.groupdict().get("attr") or found.groupdict().get("attr2")
        value = _VALUE_END_RE.sub("", found["value"]).strip().rstrip(".,;:")
        if not attr or not value or attr.split()[0] in _NOT_ATTR or len(value.split()) > 8:
            continue
        return attr, value, changed
    return None


def field_key(attr: str) -> str:
    """The slot key of an attribute: its last two words ("data migration deadline" → migration_deadline)."""
    words = [w for w in re.split(r"[\s-]+", attr.casefold()) if w]
    return "_".join(words[-2:])


def _candidate(ctx: Context, label: str, attr: str, value: str, changed: bool, statement: str,
               span: tuple[int, int]) -> FactCandidate:
    """One field as a candidate: a date value becomes an ISO date, and a past one its valid_from."""
    valid_from = ctx.occurred
    typed: str = value
    value_type = "text"
    hits = find_dates(value, ctx.today, True)
    if hits and hits[0].start == 0 and hits[0].end >= len(value) - 1:
        typed, value_type = hits[0].day.isoformat(), "date"
    elif hits and hits[0].day <= ctx.today and hits[0].start > 0:
        valid_from = midnight(hits[0].day) if hits[0].at is None else datetime.combine(
            hits[0].day, hits[0].at, tzinfo=UTC)
    return FactCandidate(subject=label, predicate=field_key(attr), value=typed, statement=statement,
                         valid_from=valid_from, confidence=CONF_THIRD, span=span, value_type=value_type,
                         cardinality="one", relation=attr, change=changed)
