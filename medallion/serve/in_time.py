"""What a question says about time, weighed into search: the day it names, and whether it asks when.

Two readings, both of the question alone, each lifting the candidate turns that fit it:

* **A question that names a day asks about that day.** "What did Maria plan for the evening of
  7 July 2023?" is answered by what was said on 7 July, whatever words it used. A turn whose event
  happened in the period the question names (its day, give or take one, its month or its year), or
  a belief that holds from then, is lifted. Relative days ("yesterday", "last Monday") are read from
  the moment the question is asked about: now, or the ``as_of`` of a search in the past.
* **A question that asks when is answered by a turn that says when.** For "When did Caroline go to
  the support group?", a turn that says "I went to a support group yesterday" answers and one that
  says "the support group was so powerful" does not. A turn whose text (or a belief whose
  statement) holds a date expression is lifted. The distiller writes a resolved date into the
  statement of a belief ("on 2023-05-07"), so beliefs carry it too.

The date expressions are the distiller's own (``distill/language/dates.py``), so the question and
the memories are read with the same rules. Both weights multiply the event's fused score: they
reorder candidates the lists already found, never add one.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Mapping
from datetime import date, datetime, timedelta

from medallion.distill.language.dates import find_dates

# How much an event's score grows when it fits the question's time (measured on LoCoMo (c), one
# ledger, bench/results/locomo_proposals.md).
DATED = 2.0
TIMED = 1.0

_ASKS_WHEN = re.compile(
    r"^\s*(?:(?:and|so|but)\s+)?(?:when\b|since\s+when\b|how\s+long\s+ago\b|"
    r"(?:in\s+|on\s+)?(?:what|which)\s+(?:date|day|month|year|week|weekend)"
    r"(?=\s+(?:did|does|do|is|was|are|were|will|would|has|have|had|should|can|could|of)\b|\s*\?))", re.IGNORECASE)


def asks_when(query: str) -> bool:
    """Whether the question asks for a time ("When did …", "In which year …", "How long ago …")."""
    return bool(_ASKS_WHEN.search(query))


def asked_periods(query: str, today: date) -> list[tuple[date, date]]:
    """The periods (first day, last day) that the question names: a day give or take one (a day
    said in one time zone and stored in another), a whole week, weekend, month or year."""
    periods = []
    for hit in find_dates(query, today, future=False):
        day = hit.day
        if hit.precision == "weekend":  # its Saturday, and Friday evening to Sunday
            periods.append((day - timedelta(days=1), day + timedelta(days=2)))
        elif hit.precision == "week":
            periods.append((day - timedelta(days=1), day + timedelta(days=7)))
        elif hit.precision == "month":
            first = day.replace(day=1)
            periods.append((first, (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)))
        elif hit.precision == "year":
            periods.append((date(day.year, 1, 1), date(day.year, 12, 31)))
        else:
            periods.append((day - timedelta(days=1), day + timedelta(days=1)))
    return periods


def states_a_time(text: str, today: date) -> bool:
    """Whether a text holds a date expression ("yesterday", "last May", "on 2023-05-07")."""
    return bool(text) and bool(find_dates(text, today, future=False))


def weigh(scores: Mapping[str, float], event_of: Mapping[str, Hashable],
          items: Iterable[tuple[str, str, datetime | None]], query: str,
          today: date) -> dict[str, float]:
    """``scores`` (item → fused score) with each event lifted when it fits the question's time.

    ``items`` are the candidates' (id, text, time): a chunk's text and when its event happened, a
    belief's statement and when it holds from. An event fits a period the question names when one of
    its items' times falls in it, and fits a question that asks when when one of its texts holds a
    date. Nothing changes for a question that does neither, and then ``items`` is not read.
    """
    periods = asked_periods(query, today)
    when = asks_when(query)
    if not periods and not when:
        return dict(scores)
    dated: set[Hashable] = set()
    timed: set[Hashable] = set()
    for item, text, at in items:
        event = event_of.get(item)
        if event is None:
            continue
        day = at.date() if at is not None else None
        if periods and day is not None and any(first <= day <= last for first, last in periods):
            dated.add(event)
        if when and event not in timed and states_a_time(text, today):
            timed.add(event)
    if not dated and not timed:
        return dict(scores)
    return {item: score * (1.0 + DATED * (event_of.get(item) in dated) + TIMED * (event_of.get(item) in timed))
            for item, score in scores.items()}
