"""What a question says about time, weighed into search (serve/in_time.py), on our own sentences."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from medallion.serve import in_time

TODAY = date(2026, 11, 25)  # a Wednesday


@pytest.mark.parametrize("question", [
    "When did you move to Porto?",
    "when is Priya's recital",
    "In which year did Lea start at the bakery?",
    "What month did the roof get fixed?",
    "How long ago did Tomasz adopt the greyhound?",
    "Since when has Oskar been vegetarian?",
])
def test_questions_that_ask_for_a_time(question: str) -> None:
    assert in_time.asks_when(question)


@pytest.mark.parametrize("question", [
    "What did she say when I called?",
    "Where does Ana live now?",
    "Which day trip did Noor enjoy most, the lake or the castle?",
    "What is Ruth's favourite time of year?",
])
def test_questions_that_do_not(question: str) -> None:
    assert not in_time.asks_when(question)


def test_a_named_day_is_asked_give_or_take_one() -> None:
    assert in_time.asked_periods("What did Ines cook on 12 March 2024?", TODAY) == [
        (date(2024, 3, 11), date(2024, 3, 13))]
    assert in_time.asked_periods("What happened at the depot on August 3, 2023?", TODAY) == [
        (date(2023, 8, 2), date(2023, 8, 4))]


def test_a_named_month_or_year_is_asked_whole() -> None:
    assert in_time.asked_periods("Which trips did Bram take in June 2021?", TODAY) == [
        (date(2021, 6, 1), date(2021, 6, 30))]
    assert in_time.asked_periods("What did the team ship in 2019?", TODAY) == [
        (date(2019, 1, 1), date(2019, 12, 31))]


def test_a_weekend_is_asked_from_friday_to_sunday() -> None:
    assert in_time.asked_periods("What did Ines do last weekend?", TODAY) == [(date(2026, 11, 20), date(2026, 11, 23))]


def test_a_relative_day_is_read_from_the_moment_asked_about() -> None:
    assert in_time.asked_periods("What did I eat yesterday?", TODAY) == [(date(2026, 11, 23), date(2026, 11, 25))]
    assert in_time.asked_periods("What did I eat yesterday?", date(2025, 1, 10)) == [
        (date(2025, 1, 8), date(2025, 1, 10))]
    assert in_time.asked_periods("Where does Ana live now?", TODAY) == []


def test_a_text_that_says_when() -> None:
    assert in_time.states_a_time("I went to the flea market yesterday and found a lamp", TODAY)
    assert in_time.states_a_time("We got the keys on 2023-05-07.", TODAY)
    assert in_time.states_a_time("Three weeks ago I signed up for a pottery class", TODAY)
    assert not in_time.states_a_time("The flea market was packed and I found a lamp", TODAY)
    assert not in_time.states_a_time("", TODAY)


EVENT_OF = {"c1": 1, "f1": 1, "c2": 2, "c3": 3}
SCORES = {"c1": 0.30, "f1": 0.31, "c2": 0.40, "c3": 0.20}
ITEMS = [
    ("c1", "Dropped the paperwork at the council office, finally", datetime(2023, 7, 7, 18, 0)),
    ("f1", "Maria dropped the paperwork at the council office", datetime(2023, 7, 7)),
    ("c2", "The council office is always so slow with paperwork", datetime(2023, 9, 2, 9, 0)),
    ("c3", "Filed the council paperwork last Tuesday", datetime(2023, 5, 1, 9, 0)),
]


def test_the_turn_said_on_the_day_asked_about_is_lifted() -> None:
    weighed = in_time.weigh(SCORES, EVENT_OF, ITEMS, "What did Maria take to the council office on 7 July 2023?", TODAY)
    assert max(weighed, key=weighed.get) in ("c1", "f1")
    assert weighed["c1"] > weighed["c2"] and weighed["f1"] > weighed["c2"]
    assert weighed["c2"] == SCORES["c2"] and weighed["c3"] == SCORES["c3"]
    assert weighed["f1"] > weighed["c1"]  # the order inside the event is kept


def test_a_question_that_asks_when_lifts_the_turn_that_says_when() -> None:
    weighed = in_time.weigh(SCORES, EVENT_OF, ITEMS, "When did Maria file the council paperwork?", TODAY)
    assert weighed["c3"] == pytest.approx(SCORES["c3"] * (1 + in_time.TIMED))
    assert weighed["c2"] == SCORES["c2"]


def test_other_questions_leave_the_scores_alone() -> None:
    assert in_time.weigh(SCORES, EVENT_OF, ITEMS, "What did Maria take to the council office?", TODAY) == SCORES
    # a day no candidate was said on changes nothing either
    assert in_time.weigh(SCORES, EVENT_OF, ITEMS, "What did Maria do on 1 January 2020?", TODAY) == SCORES
