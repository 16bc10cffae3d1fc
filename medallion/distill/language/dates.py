"""Dates in a clause, resolved against the event's UTC day (the rules are listed in the package
docstring): every date expression found, its resolved day and precision, and the phrase that
replaces a relative date in a statement ("yesterday" → "on 2026-11-24")."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from medallion.distill.language.lexicon import MONTH_NAMES, MONTHS, NUMBER_WORDS, WEEKDAYS

_MONTH_ALT = "|".join(sorted(MONTHS, key=len, reverse=True))
_PREP = r"(?:\b(?P<prep>on|by|until|till|since|from|before|after|as\s+of|starting|in|during|over|at|of)\s+)?"
_NUM_WORD = r"\d+|a\s+couple\s+of|couple\s+of|a\s+few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"  # noqa: E501

_DATE_RES: list[tuple[str, re.Pattern[str]]] = [
    (
        "iso",
        re.compile(
            _PREP + r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?:[T ](?P<hh>\d{2}):(?P<mm>\d{2})(?::(?P<ss>\d{2}))?"
            r"(?:Z|[+-]00:?00)?)?\b",
            re.I,
        ),
    ),
    (
        "dmy",
        re.compile(
            _PREP + rf"\b(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+(?P<mon>{_MONTH_ALT})\b\.?"
            r"(?:,?\s+(?P<y>(?:19|20)\d{2}))?\b",
            re.I,
        ),
    ),
    (
        "mdy",
        re.compile(
            _PREP + rf"\b(?P<mon>{_MONTH_ALT})\.?\s+(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b"
            r"(?:,?\s+(?P<y>(?:19|20)\d{2}))?\b",
            re.I,
        ),
    ),
    (
        "rel_day",
        re.compile(
            _PREP + r"\b(?P<rel>the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|earlier\s+today|"
            r"today|tonight|this\s+(?:morning|afternoon|evening)|yesterday|last\s+night|tomorrow)\b",
            re.I,
        ),
    ),
    ("weekend", re.compile(r"\b(?P<prep>over|at|on|during)\s+the\s+weekend\b|\blast\s+weekend\b", re.I)),
    (
        "period",
        re.compile(_PREP + r"\b(?P<which>last|this|next|past|previous|coming)\s+(?P<unit>week|month|year)\b", re.I),
    ),
    (
        "ago",
        re.compile(
            _PREP + rf"\b(?P<n>{_NUM_WORD})\s+(?P<unit>day|week|month|year)s?\s+ago\b",
            re.I,
        ),
    ),
    ("in_n", re.compile(rf"\bin\s+(?P<n>{_NUM_WORD})\s+(?P<unit>day|week|month|year)s?(?:'\s+time)?\b", re.I)),
    (
        "weekday",
        re.compile(
            r"\b(?P<prep>last|next|this|coming|on|by|until|till|from|since|before|after)\s+(?:this\s+|next\s+|"
            r"last\s+)?(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
            re.I,
        ),
    ),
    (
        "month",
        re.compile(
            rf"\b(?P<prep>in|since|during|until|by|from|of)\s+(?:early\s+|late\s+|mid-?)?(?P<mon>{_MONTH_ALT})\b"
            r"(?:\s+(?P<y>(?:19|20)\d{2}))?",
            re.I,
        ),
    ),
    ("year", re.compile(r"\b(?P<prep>in|since|during|from)\s+(?P<y>(?:19|20)\d{2})\b(?![-/])", re.I)),
]
DATE_CUT_RE = re.compile(re.sub(r"\?P<\w+>", "?:", "|".join(f"(?:{rx.pattern})" for _, rx in _DATE_RES)), re.I)
MODAL_FUTURE_RE = re.compile(
    r"\b(?:will|shall|going\s+to|gonna|plan(?:s|ning)?\s+to|intend(?:s|ing)?\s+to|about\s+to)\b", re.I)
FUTURE_RE = re.compile(
    r"\b(?:will|shall|going\s+to|plan(?:s|ning)?\s+to|intend(?:s|ing)?\s+to|about\s+to|aim(?:s|ing)?\s+to|"
    r"want(?:s)?\s+to|hop(?:e|es|ing)\s+to|would\s+like\s+to|next|tomorrow|upcoming|by|until|till|deadline|"
    r"due|ship|launch|schedule[ds]?|from\s+now)\b",
    re.I,
)


@dataclass(frozen=True)
class DateHit:
    """A date expression at ``start:end`` of the text, resolved to ``day`` (and a clock time ``at``)."""

    start: int
    end: int
    day: date
    precision: str  # day | week | weekend | month | year | monthday
    prep: str | None
    has_year: bool = True
    at: time | None = None


def _clamp_day(y: int, m: int, d: int) -> date:
    """The day, or the month's last day when it has fewer (31 → 28/29 February)."""
    return date(y, m, min(d, calendar.monthrange(y, m)[1]))


def _add_months(day: date, months: int) -> date:
    """The same day ``months`` later (earlier when negative), clamped to the month's length."""
    total = day.year * 12 + (day.month - 1) + months
    return _clamp_day(total // 12, total % 12 + 1, day.day)


def _num(text: str) -> int:
    """A count written in digits or words ("3", "a couple of", "several")."""
    t = re.sub(r"\s+", " ", text.lower().strip())
    if t.isdigit():
        return int(t)
    return NUMBER_WORDS.get(t, 1)


def _shift(day: date, n: int, unit: str) -> date:
    """``day`` moved by ``n`` days, weeks, months or years."""
    unit = unit.lower()
    if unit == "day":
        return day + timedelta(days=n)
    if unit == "week":
        return day + timedelta(days=7 * n)
    if unit == "month":
        return _add_months(day, n)
    return _add_months(day, 12 * n)


def _year_for(mon: int, d: int, today: date, future: bool) -> date | None:
    """A day without its year: the latest not after today, or the next on or after it when future.
    29 February is that of the nearest leap year; a day no year has (30 February) is none."""
    step = 1 if future else -1
    for year in range(today.year, today.year + 9 * step, step):
        try:
            cand = date(year, mon, d)
        except ValueError:
            continue
        if (cand >= today) if future else (cand <= today):
            return cand
    return None


def find_dates(text: str, today: date, future: bool) -> list[DateHit]:
    """Every date expression in ``text``, resolved against ``today`` (the event's UTC day), in order."""
    hits: list[DateHit] = []
    low = text.lower()
    if not _DIGIT_RE.search(text) and not _QUICK_DATE_RE.search(low):
        return hits
    for kind, rx in _DATE_RES:
        for m in rx.finditer(text):
            hit = _resolve_hit(kind, m, today, future)
            if hit is not None:
                hits.append(hit)
    hits.sort(key=lambda h: (h.start, -(h.end - h.start)))
    kept: list[DateHit] = []
    for h in hits:
        if kept and h.start < kept[-1].end:
            continue
        kept.append(h)
    return kept


_DIGIT_RE = re.compile(r"\d")
_QUICK_DATE_RE = re.compile(
    rf"\b(?:today|tonight|yesterday|tomorrow|last|next|this|ago|weekend|monday|tuesday|wednesday|thursday|"
    rf"friday|saturday|sunday|{_MONTH_ALT}|in\s+(?:\w+\s+){{1,3}}(?:day|week|month|year)s?)\b"
)


def _resolve_hit(kind: str, m: re.Match[str], today: date, future: bool) -> DateHit | None:
    """The date a match of the pattern ``kind`` names, or None when it names none."""
    g = m.groupdict()
    prep = (g.get("prep") or "").lower() or None
    prep_future = prep in {"by", "until", "till", "before", "next", "coming"}
    fut = future or prep_future
    start, end = m.start(), m.end()
    if kind == "iso":
        try:
            day = date(int(g["y"]), int(g["m"]), int(g["d"]))
        except ValueError:
            return None
        at = time(int(g["hh"]), int(g["mm"]), int(g["ss"] or 0)) if g.get("hh") else None
        return DateHit(start, end, day, "day", prep, True, at)
    if kind in ("dmy", "mdy"):
        mon_text = g["mon"]
        if not mon_text[0].isupper():
            return None
        mon = MONTHS[mon_text.lower()]
        d = int(g["d"])
        if not 1 <= d <= 31:
            return None
        if g.get("y"):
            try:
                return DateHit(start, end, date(int(g["y"]), mon, d), "day", prep, True)
            except ValueError:  # a day the month does not have ("30 February 2026")
                return None
        day = _year_for(mon, d, today, fut)
        return None if day is None else DateHit(start, end, day, "day", prep, False)
    if kind == "rel_day":
        rel = re.sub(r"\s+", " ", g["rel"].lower())
        offset = {
            "the day before yesterday": -2, "yesterday": -1, "last night": -1, "tomorrow": 1,
            "the day after tomorrow": 2,
        }.get(rel, 0)  # fmt: skip
        return DateHit(start, end, today + timedelta(days=offset), "day", prep)
    if kind == "weekend":
        back = (today.weekday() - 5) % 7 or 7
        return DateHit(start, end, today - timedelta(days=back), "weekend", None)
    if kind == "period":
        which, unit = g["which"].lower(), g["unit"].lower()
        if which in ("last", "past", "previous"):
            return DateHit(start, end, _shift(today, -1, unit), "day" if unit == "week" else unit, prep)
        if which == "this":
            return DateHit(start, end, today, unit, prep)
        # next / coming
        if unit == "week":
            return DateHit(start, end, today - timedelta(days=today.weekday()) + timedelta(days=7), "week", prep)
        if unit == "month":
            first = _add_months(today.replace(day=1), 1)
            return DateHit(start, end, first, "month", prep)
        return DateHit(start, end, date(today.year + 1, 1, 1), "year", prep)
    if kind == "ago":
        unit = g["unit"].lower()
        prec = {"day": "day", "week": "day", "month": "month", "year": "year"}[unit]
        return DateHit(start, end, _shift(today, -_num(g["n"]), unit), prec, prep)
    if kind == "in_n":
        unit = g["unit"].lower()
        return DateHit(start, end, _shift(today, _num(g["n"]), unit), "day", None)
    if kind == "weekday":
        wd = WEEKDAYS[g["wd"].lower()]
        p = (g.get("prep") or "").lower()
        monday = today - timedelta(days=today.weekday())
        if p == "next":
            day = monday + timedelta(days=7 + wd)
        elif p == "this":
            day = monday + timedelta(days=wd)
        elif p == "last":
            day = today - timedelta(days=(today.weekday() - wd) % 7 or 7)
        elif p == "coming" or fut or p in ("by", "until", "till", "before"):
            day = today + timedelta(days=(wd - today.weekday()) % 7 or 7)
        else:
            day = today - timedelta(days=(today.weekday() - wd) % 7 or 7)
        keep_prep = p if p in ("on", "by", "until", "till", "from", "since", "before", "after") else None
        return DateHit(start, end, day, "day", keep_prep)
    if kind == "month":
        mon_text = g["mon"]
        if not mon_text[0].isupper() or (mon_text.lower() == "may" and not g.get("y")):
            return None
        mon = MONTHS[mon_text.lower()]
        if g.get("y"):
            return DateHit(start, end, date(int(g["y"]), mon, 1), "month", prep)
        day = _year_for(mon, 1, today.replace(day=1), fut)
        return None if day is None else DateHit(start, end, day, "month", prep, False)
    if kind == "year":
        return DateHit(start, end, date(int(g["y"]), 1, 1), "year", prep)
    return None


def _date_phrase(hit: DateHit) -> str:
    """The absolute phrase a statement says instead ("on 2026-11-24", "in October 2026")."""
    iso = hit.day.isoformat()
    prep = hit.prep
    if hit.precision == "day":
        return f"{prep or 'on'} {iso}"
    if hit.precision == "weekend":
        return f"over the weekend of {iso}"
    if hit.precision == "week":
        return f"{prep or 'in'} the week of {iso}"
    if hit.precision == "month":
        return f"{prep or 'in'} {MONTH_NAMES[hit.day.month]} {hit.day.year}"
    return f"{prep or 'in'} {hit.day.year}"


def replace_dates(text: str, hits: list[DateHit], keep_absolute: bool = False) -> str:
    """The text with its dates as absolute phrases; ``keep_absolute`` leaves absolute days as written."""
    out = text
    for h in reversed(hits):
        if keep_absolute and h.precision == "day" and not is_relative(text[h.start : h.end]):
            continue
        out = out[: h.start] + _date_phrase(h) + out[h.end :]
    return out


_RELATIVE_WORDS_RE = re.compile(
    r"\b(?:today|tonight|yesterday|tomorrow|last|next|this|ago|weekend|morning|night|coming|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|in\s+\w+\s+\w+)\b",
    re.I,
)


def is_relative(phrase: str) -> bool:
    """Whether a date phrase depends on the day it was said ("yesterday", "next Friday")."""
    return bool(_RELATIVE_WORDS_RE.search(phrase))


def midnight(day: date) -> datetime:
    """00:00 UTC of ``day``: a resolved date is valid from the start of its day."""
    return datetime.combine(day, time(0, 0), tzinfo=UTC)
