"""One turn, several subjects (S1 distill, S7 chunks, G4 search), through the tools API.

Why: people say two things about two subjects in one breath ("I drive a Tesla and my wife drives a
Camry", "Rex is 4, Bella is 2 and Max is 9") and name a thing before saying what it is ("I got a new
phone number. It's 555-0199 now."). Asked later about one subject, what a user reads first must
carry that subject's value and not the other's: a fact about the subject, or the clause that says
it, not the whole sentence (which holds both values) nor a fact about the other subject. And the
value given through "it" must be the named thing's.

Each case is remembered in its own namespace as one turn, derived once, and asked through
``tools.search(question, k=5)``; the first result's text (its statement, and a fact's value) is
judged by whole word tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from medallion.db.connection import connect
from medallion.serve.tools import Tools, open_tools
from medallion.settings import Settings
from medallion.silver.derive import derive
from tests.conftest import fresh_database

AT = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Case:
    id: str
    turn: str
    question: str
    expect: tuple[str, ...]
    reject: tuple[str, ...] = ()
    actor: str = "user:dana"
    kind: str = "transcript"


CASES = (
    Case("and-two-cars-wife", "I drive a Tesla and my wife drives a Camry.",
         "What car does my wife drive?", ("Camry",), ("Tesla",)),
    Case("and-two-cars-me", "I drive a Tesla and my wife drives a Camry.",
         "What car does Dana drive?", ("Tesla",), ("Camry",)),
    Case("pets-ages", "We adopted two kittens in the spring. Whiskers is 3 and Mittens is 7.",
         "How old is Mittens?", ("7",), ("3",)),
    Case("three-dogs", "Rex is 4, Bella is 2 and Max is 9.",
         "How old is Bella?", ("2",), ("4", "9")),
    Case("whereas-jobs", "I work at Lumen Health, whereas my husband works at Ostara Bank.",
         "Where does my husband work?", ("Ostara",), ("Lumen",)),
    Case("while-siblings", "My brother Tomas lives in Porto, while my sister Ines lives in Braga.",
         "Where does Ines live?", ("Braga",), ("Porto",)),
    Case("semicolon-instruments", "My son Leo plays the violin; my daughter Mia plays the cello.",
         "What instrument does Mia play?", ("cello",), ("violin",)),
    Case("two-sentences-cars", "I bought a Subaru last week. My brother Karim drives a Jeep.",
         "What does Karim drive?", ("Jeep",), ("Subaru",)),
    Case("pronoun-phone", "I got a new phone number. It's 555-0199 now.",
         "What is Dana's phone number?", ("555", "0199")),
    Case("there-sister", "We moved to Lisbon in May. My sister Meera lives there too, near the river.",
         "Which city does Meera live in?", ("Lisbon",)),
    Case("pronoun-email", "Priya set up a new work email. It's priya.n@kelpworks.io now.",
         "What is Priya's email address?", ("priya.n@kelpworks.io",)),
    # values listed without a verb of their own: the clause chunk answers, not the whole sentence
    Case("listed-pets", "We keep a ferret called Noodle and a gecko called Basil.",
         "What is the gecko called?", ("Basil",), ("Noodle",)),
    Case("listed-ticket-hosts", "Build 771 is red on runner oak-3, green on runner elm-9 after the retry.",
         "Which runner is the build green on?", ("elm",), ("oak",), actor="agent:ci", kind="issue"),
    Case("listed-shifts", "Shift plan: Oskar opens on Saturday, Wilma closes on Sunday.",
         "When does Wilma close?", ("Sunday",), ("Saturday",), actor="user:ops", kind="note"),
    # whom the question asks about picks the turn's text (serve/asked_subject.py): the person or the relative
    Case("self-before-sibling", "i'm 41 and my brother Konrad is 38, he hates when i bring it up",
         "How old is Liesel?", ("41",), ("38",), actor="user:liesel"),
    Case("relative-job", "my husband is a glassblower and i run the bakery on Hafenstrasse",
         "What does Liesel's husband do for work?", ("glassblower",), ("bakery",), actor="user:liesel"),
    Case("relative-birthday", "my birthday is 3 March and my partner Emil's is 19 October, two parties a year",
         "When is Liesel's partner's birthday?", ("October",), ("March",), actor="user:liesel"),
    Case("named-brother-car", "i drive a rusty Fiat and my brother Konrad has a brand new Skoda lol",
         "What does Konrad drive?", ("Skoda",), ("Fiat",), actor="user:liesel"),
)


def namespace_of(case: Case) -> str:
    return f"two-{case.id}"


def tokens(value: Any) -> set[str]:
    if value is None:
        return set()
    if isinstance(value, dict):
        return set().union(*(tokens(v) for v in value.values())) if value else set()
    return set(_TOKEN.findall(str(value).casefold()))


def hit_tokens(hit: dict[str, Any]) -> set[str]:
    """What a reader sees in one result: its statement, and a fact's value."""
    return tokens(hit.get("statement")) | (tokens(hit.get("value")) if hit.get("kind") == "fact" else set())


@pytest.fixture(scope="module")
def tools(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tools]:
    tmp: Path = tmp_path_factory.mktemp("two")
    with fresh_database(pg_server) as url:
        settings = Settings(home=tmp / "home", database_url=url, inbox=tmp / "inbox")
        with open_tools(None, settings) as opened:
            for case in CASES:
                outcome = opened.remember(namespace=namespace_of(case), content=case.turn, kind=case.kind,
                                          actor=case.actor, occurred_at=AT.isoformat(), source="two-subjects",
                                          source_event_id=case.id, derive_now=False)
                assert outcome["status"] == "inserted", outcome
        conn = connect(settings, "engine", autocommit=True)
        try:
            derive(conn, settings, namespaces=[namespace_of(c) for c in CASES])
        finally:
            conn.close()
        with open_tools(None, settings) as opened:
            yield opened


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_first_answer_is_about_the_asked_subject_alone(tools: Tools, case: Case) -> None:
    """S1/S7/G4: the top hit carries the asked subject's value and none of the other subject's."""
    hits = tools.search(case.question, namespace=namespace_of(case), k=5)
    assert hits, case.id
    top = hit_tokens(hits[0])
    wanted = {t for words in case.expect for t in tokens(words)}
    unwanted = {t for words in case.reject for t in tokens(words)}
    assert wanted <= top and not (unwanted & top), (
        f"{case.id}: top hit {hits[0].get('kind')} {hits[0].get('statement')!r} "
        f"(value {hits[0].get('value')!r}) for {case.question!r}")


def test_a_sentence_about_two_subjects_is_also_indexed_clause_by_clause(tools: Tools) -> None:
    """S7: the sentence keeps its passage, and each clause is a chunk of unit 'clause' whose facts
    are its own subject's (verification by span overlap)."""
    case = next(c for c in CASES if c.id == "three-dogs")
    hits = tools.search("How old is Max?", namespace=namespace_of(case), k=5)
    items = [i for h in hits for i in (h, *h.get("same_event", []))]
    assert any(i.get("kind") == "fact" and "Max" in (i.get("statement") or "") for i in items)
    full = tools.search("Max is 9", namespace=namespace_of(case), k=5, per_event=False)
    clause = [h for h in full if h.get("kind") == "chunk" and h.get("unit") == "clause"]
    assert clause, full
    assert all(len(h["supports"]) >= 1 for h in clause)
    max_clause = next(h for h in clause if "Max" in h["statement"])
    assert "Bella" not in max_clause["statement"] and "Rex" not in max_clause["statement"]
