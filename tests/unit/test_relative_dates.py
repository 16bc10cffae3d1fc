"""Date expressions in a clause, resolved against the event's day (the heuristic distiller's dates).

``find_dates`` gives the fact its ``valid_from`` and ``replace_dates`` rewrites the statement so it
still reads right next year ("yesterday" → "on 2026-04-14"). Unless a test says otherwise the
message was written on Wednesday 2026-04-15. Sentences are invented (chat lines, tickets, notes).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import pytest

from medallion.distill.language.dates import DateHit, find_dates, is_relative, midnight, replace_dates

TODAY = date(2026, 4, 15)  # a Wednesday


def resolved(text: str, today: date = TODAY, future: bool = False) -> list[tuple[str, str]]:
    """(the phrase as written, the ISO day it resolves to) for each date found in ``text``."""
    return [(text[h.start:h.end], h.day.isoformat()) for h in find_dates(text, today, future)]


def only_day(text: str, today: date = TODAY, future: bool = False) -> date:
    """The single date in ``text``."""
    hits = find_dates(text, today, future)
    assert len(hits) == 1, hits
    return hits[0].day


# --- relative days --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "phrase", "day"),
    [
        ("I restarted the build agent yesterday", "yesterday", "2026-04-14"),
        ("The vendor call is today", "today", "2026-04-15"),
        ("We cut the release tomorrow", "tomorrow", "2026-04-16"),
        ("The day before yesterday the VPN was down", "The day before yesterday", "2026-04-13"),
        ("Payroll closes the day after tomorrow", "the day after tomorrow", "2026-04-17"),
        ("The pager went off last night", "last night", "2026-04-14"),
    ],
)
def test_relative_days_resolve_against_the_event_day(text: str, phrase: str, day: str) -> None:
    """A fact said "yesterday" happened the day before the message, not the day it was read."""
    assert resolved(text) == [(phrase, day)]


def test_relative_day_crosses_month_and_year_boundaries() -> None:
    """Calendar arithmetic, not string arithmetic: the day after 31 December is 1 January."""
    assert only_day("The office reopens tomorrow", today=date(2026, 12, 31)) == date(2027, 1, 1)
    assert only_day("I filed the expense report yesterday", today=date(2026, 3, 1)) == date(2026, 2, 28)


# --- weekdays -------------------------------------------------------------------------------------


def test_last_weekday_is_strictly_before_the_event_day() -> None:
    """"last Monday" on a Wednesday is two days back; "last Wednesday" is a week back, never today."""
    assert only_day("We paired on the parser last Monday") == date(2026, 4, 13)
    assert only_day("I met the auditors last Wednesday") == date(2026, 4, 8)
    assert only_day("The backup failed last Friday") == date(2026, 4, 10)


def test_next_weekday_is_in_the_next_calendar_week() -> None:
    """"next Friday" said on a Wednesday is Friday of the following week (weeks start on Monday)."""
    assert only_day("Let's review the budget next Friday", future=True) == date(2026, 4, 24)
    assert only_day("Let's review the budget next Monday", future=True) == date(2026, 4, 20)
    # the package docstring's own example: said on Thursday 12 November 2026
    assert only_day("Demo next Friday", today=date(2026, 11, 12)) == date(2026, 11, 20)


def test_this_weekday_is_in_the_current_week() -> None:
    """"this Friday" on a Wednesday is two days ahead, "this Monday" two days back."""
    assert only_day("The retro is this Friday") == date(2026, 4, 17)
    assert only_day("The retro was this Monday") == date(2026, 4, 13)


def test_on_weekday_reads_past_or_future_from_the_clause() -> None:
    """"on Friday" is the coming Friday in a plan and the last one in a report of what happened."""
    assert only_day("I shipped the fix on Friday", future=False) == date(2026, 4, 10)
    assert only_day("I will ship the fix on Friday", future=True) == date(2026, 4, 17)


def test_by_weekday_looks_forward_even_without_the_future_flag() -> None:
    """A deadline ("by Friday") is always ahead, and keeps its preposition in the statement."""
    hits = find_dates("Send the slides by Friday", TODAY, future=False)
    assert [(h.day, h.prep) for h in hits] == [(date(2026, 4, 17), "by")]
    assert replace_dates("Send the slides by Friday", hits) == "Send the slides by 2026-04-17"


# --- in N units / N units ago ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("The invoice is due in 3 days", "2026-04-18"),
        ("The trial ends in two weeks", "2026-04-29"),
        ("The lease renews in a month", "2026-05-15"),
        ("The certificate expires in six months", "2026-10-15"),
        ("The warranty runs out in several years", "2029-04-15"),
    ],
)
def test_in_n_units_counts_forward(text: str, day: str) -> None:
    """Digits and number words both count; a month is a calendar month, not 30 days."""
    assert [d for _, d in resolved(text, future=True)] == [day]


def test_n_units_ago_counts_back() -> None:
    """"three weeks ago" is 21 days before the message."""
    assert resolved("I joined the platform team three weeks ago") == [("three weeks ago", "2026-03-25")]
    assert only_day("We migrated the wiki 10 days ago") == date(2026, 4, 5)


def test_one_month_after_the_31st_is_clamped_to_the_month_end() -> None:
    """One month after 31 January is the last day of February (28 or 29), never an error or March."""
    assert only_day("The contract renews in a month", today=date(2026, 1, 31), future=True) == date(2026, 2, 28)
    assert only_day("The contract renews in a month", today=date(2028, 1, 31), future=True) == date(2028, 2, 29)
    assert only_day("The quarterly report is due in 3 months", today=date(2026, 11, 30), future=True) \
        == date(2027, 2, 28)


def test_month_ago_and_last_month_are_clamped_too() -> None:
    """Said on 31 March, "a month ago" and "last month" are in February, on its last day."""
    assert only_day("I renewed the domain a month ago", today=date(2026, 3, 31)) == date(2026, 2, 28)
    hits = find_dates("Traffic doubled last month", date(2026, 3, 31), False)
    assert [(h.day, h.precision) for h in hits] == [(date(2026, 2, 28), "month")]
    assert replace_dates("Traffic doubled last month", hits) == "Traffic doubled in February 2026"


# --- periods --------------------------------------------------------------------------------------


def test_next_week_and_next_month_start_the_period() -> None:
    """"next week" is the Monday of the next week, "next month" its first day, with that precision."""
    week = find_dates("The auditors arrive next week", TODAY, True)
    assert [(h.day, h.precision) for h in week] == [(date(2026, 4, 20), "week")]
    assert replace_dates("The auditors arrive next week", week) == "The auditors arrive in the week of 2026-04-20"
    month = find_dates("Pricing changes next month", date(2026, 12, 20), True)
    assert [(h.day, h.precision) for h in month] == [(date(2027, 1, 1), "month")]


def test_over_the_weekend_is_the_last_saturday() -> None:
    """A weekend report refers to the Saturday just before the message."""
    hits = find_dates("The disk filled up over the weekend", TODAY, False)
    assert [(h.day, h.precision) for h in hits] == [(date(2026, 4, 11), "weekend")]
    assert replace_dates("The disk filled up over the weekend", hits) == \
        "The disk filled up over the weekend of 2026-04-11"


# --- absolute dates -------------------------------------------------------------------------------


def test_month_day_without_year_reads_past_or_future() -> None:
    """Without a year: the latest such day not after today, or the next on/after it in a plan."""
    assert only_day("Nadia started on March 3", future=False) == date(2026, 3, 3)
    assert only_day("Nadia starts on March 3", future=True) == date(2027, 3, 3)
    assert only_day("The offsite was on June 3", future=False) == date(2025, 6, 3)
    assert only_day("The offsite is on June 3", future=True) == date(2026, 6, 3)
    assert only_day("Standup moved on April 15", future=False) == TODAY
    assert only_day("Standup moves on April 15", future=True) == TODAY


def test_month_day_without_year_is_marked_as_such() -> None:
    """The distiller needs to know the year was inferred (a birthday keeps "--MM-DD")."""
    hits = find_dates("Her birthday is 3 May", TODAY, False)
    assert [(h.day, h.has_year) for h in hits] == [(date(2025, 5, 3), False)]


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("The launch was on 3 June 2025", "2025-06-03"),
        ("The launch is on June 3rd, 2027", "2027-06-03"),
        ("The launch is on the 3rd of June 2027", "2027-06-03"),
        ("Kickoff on 2026-05-02", "2026-05-02"),
    ],
)
def test_dates_with_a_year_are_taken_as_written(text: str, day: str) -> None:
    """A stated year wins over the past/future reading."""
    for future in (False, True):
        hits = find_dates(text, TODAY, future)
        assert [(h.day.isoformat(), h.has_year) for h in hits] == [(day, True)]


def test_iso_datetime_keeps_its_clock_time() -> None:
    """A timestamp in a ticket keeps the time of day, not only the day."""
    hits = find_dates("Incident opened 2026-04-14T22:15:00Z", TODAY, False)
    assert [(h.day, h.at) for h in hits] == [(date(2026, 4, 14), time(22, 15))]


def test_month_and_year_alone() -> None:
    """"in March" is a month without a year; "in 2019" a year; both keep that precision."""
    march = find_dates("I moved to Ghent in March", TODAY, False)
    assert [(h.day, h.precision, h.has_year) for h in march] == [(date(2026, 3, 1), "month", False)]
    assert replace_dates("I moved to Ghent in March", march) == "I moved to Ghent in March 2026"
    sept = find_dates("I moved to Ghent in September", TODAY, False)
    assert [h.day for h in sept] == [date(2025, 9, 1)]
    year = find_dates("I learned Go in 2019", TODAY, False)
    assert [(h.day, h.precision) for h in year] == [(date(2019, 1, 1), "year")]


def test_may_without_a_year_is_not_a_date() -> None:
    """"in May" is too often the modal verb ("in may cases"), so only "in May 2024" counts."""
    assert find_dates("We visited the plant in May", TODAY, False) == []
    assert resolved("We visited the plant in May 2024") == [("in May 2024", "2024-05-01")]


def test_lower_case_month_names_are_not_dates() -> None:
    """"march" and "may" are also verbs; only a capitalised month name is read as one."""
    assert find_dates("we march on and may 3 people join", TODAY, False) == []


@pytest.mark.parametrize(
    "text",
    [
        "The printer on the third floor jammed again",
        "Meet me in room 12 at the usual spot",
        "Version 4 of the schema drops the legacy column",
        "",
    ],
)
def test_text_without_dates_yields_nothing(text: str) -> None:
    """No date phrase, no date: numbers and rooms must not become a valid_from."""
    assert find_dates(text, TODAY, False) == []
    assert find_dates(text, TODAY, True) == []
    assert replace_dates(text, []) == text


def test_several_dates_in_order_without_overlaps() -> None:
    """Every date is found once, in text order; a long phrase wins over the shorter one inside it."""
    text = "I booked the flight yesterday and fly out on 3 June 2026"
    assert resolved(text) == [("yesterday", "2026-04-14"), ("on 3 June 2026", "2026-06-03")]
    hits = find_dates(text, TODAY, False)
    assert all(a.end <= b.start for a, b in zip(hits, hits[1:], strict=False))
    assert isinstance(hits[0], DateHit)


# --- statement rewriting ---------------------------------------------------------------------------


def test_replace_dates_writes_absolute_phrases() -> None:
    """A stored statement must not say "yesterday": it would be wrong the next day."""
    text = "I rotated the API keys yesterday and will audit them next Friday"
    assert replace_dates(text, find_dates(text, TODAY, False)) == \
        "I rotated the API keys on 2026-04-14 and will audit them on 2026-04-24"


def test_replace_dates_keep_absolute_leaves_written_days_alone() -> None:
    """With keep_absolute a day the author wrote out stays as written; only relative ones change."""
    text = "The kickoff was on March 3 and the review yesterday"
    hits = find_dates(text, TODAY, False)
    assert replace_dates(text, hits, keep_absolute=True) == "The kickoff was on March 3 and the review on 2026-04-14"
    assert replace_dates(text, hits) == "The kickoff was on 2026-03-03 and the review on 2026-04-14"


@pytest.mark.parametrize(
    ("phrase", "relative"),
    [
        ("yesterday", True),
        ("next Friday", True),
        ("three weeks ago", True),
        ("in two weeks", True),
        ("last month", True),
        ("over the weekend", True),
        ("2026-05-02", False),
        ("on 3 June 2025", False),
        ("March 3", False),
    ],
)
def test_is_relative(phrase: str, relative: bool) -> None:
    """Only phrases that depend on the day they were said are rewritten under keep_absolute."""
    assert is_relative(phrase) is relative


def test_midnight_is_the_start_of_the_day_in_utc() -> None:
    """A resolved date is valid from 00:00 UTC of its day."""
    assert midnight(date(2026, 4, 14)) == datetime(2026, 4, 14, 0, 0, tzinfo=UTC)


# --- found by these tests and fixed: a leap day, an impossible day, a count of several words ---


def test_february_29_without_year_finds_a_leap_year() -> None:
    """A leap-day date must resolve to a leap day, not silently to the day before."""
    assert only_day("The server was last rebooted on Feb 29", future=False) == date(2024, 2, 29)


def test_impossible_day_of_month_is_not_a_date() -> None:
    """A typo must not invent a date the author never wrote."""
    assert find_dates("Invoice dated 2026-02-30", TODAY, False) == []
    assert find_dates("Invoice dated 30 February 2026", TODAY, False) == []


def test_in_a_few_weeks_is_found_on_its_own() -> None:
    """Whether a date is found must not depend on another date word elsewhere in the sentence."""
    assert resolved("The trial ends in a few weeks", future=True) == [("in a few weeks", "2026-05-06")]
    assert resolved("The warranty runs out in a couple of years", future=True) == \
        [("in a couple of years", "2028-04-15")]
