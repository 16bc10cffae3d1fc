"""Change and end without a rule per verb, and slots by meaning (issue 31 points 1 and 2), through
``tools.list`` and ``tools.search`` on a real database.

Why: a user who says "I'm no longer vegetarian" depends on the memory no longer serving "is
vegetarian" as true; one who says "Now I'm reading B" after "I'm reading A" on B being what they are
reading; one who says where they took a job, in words no alias lists, on that being their employer
in place of the old one. A second value said without a change word (a second language) must still
be added beside the first. Each case has its own namespace; turns are a day apart; one derivation.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import NamedTuple

import pytest

from medallion.db.connection import connect
from medallion.serve.tools import Tools, open_tools
from medallion.settings import Settings
from medallion.silver.derive import derive
from tests.conftest import fresh_database

FIRST_AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAYS = {"moved-last-month": (-56, -55)}  # each turn's day after FIRST_AT (one a day otherwise)
ACTOR = "user:Jonas"


class Turns(NamedTuple):
    id: str
    turns: tuple[str, ...]


CASES = (
    Turns("negated-state", ("I'm vegetarian.", "I'm no longer vegetarian.")),
    Turns("now-favourite", ("My favorite board game is Carcassonne.", "Azul is now my favorite board game.")),
    Turns("sequence", ("I'm reading Piranesi.", "I'm now reading Circe instead.", "Now I'm reading Kindred.")),
    Turns("job-by-meaning", ("I work at Larchmont Analytics.",
                             "I signed on with Quayside Robotics as a research scientist.")),
    Turns("started-now", ("I work at Larchmont Analytics.", "I've officially started at Tidewell Systems now.")),
    Turns("second-instrument", ("I play the violin.", "I also play the banjo.")),
    Turns("dropped-hobby", ("I'm a member of the Riverside Rowing Club.",
                            "I'm not a member of the Riverside Rowing Club anymore.")),
    # told on January 6, "last month" is dated December 1: five weeks before its telling, and before the
    # day (January 5) the old home was said
    Turns("moved-last-month", ("I live in Tavira", "moved to Gdansk last month for the new job")),
    # a relative's move is theirs; a clause that opens with "she" is hers though the speaker's "I" follows
    Turns("relative-moved", ("I live in Brackwater, in a flat above a chemist.",
                             "my sister just moved to Fennick. she got a whole house for what i pay in rent")),
    # a note names a person in full, then by given name alone
    Turns("given-name", ("Intake note: Perrin Vasque lives in Oldmoor with his partner.",
                         "Follow-up note: Perrin has relocated to Kestle; keep sessions remote.")),
)


@pytest.fixture(scope="module")
def tools(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tools]:
    tmp: Path = tmp_path_factory.mktemp("cues")
    with fresh_database(pg_server) as url:
        settings = Settings(home=tmp / "home", database_url=url, inbox=tmp / "inbox")
        with open_tools(None, settings) as opened:
            for case in CASES:
                for n, text in enumerate(case.turns):
                    outcome = opened.remember(namespace=f"cue-{case.id}", content=text, kind="transcript",
                                              actor=ACTOR,
                                              occurred_at=(FIRST_AT + timedelta(days=DAYS.get(case.id, range(9))[n])
                                                           ).isoformat(),
                                              source="change-cues", source_event_id=f"{case.id}:{n}",
                                              derive_now=False)
                    assert outcome["status"] == "inserted", outcome
        conn = connect(settings, "engine", autocommit=True)
        try:
            derive(conn, settings, namespaces=[f"cue-{c.id}" for c in CASES])
        finally:
            conn.close()
        with open_tools(None, settings) as opened:
            yield opened


def current(tools: Tools, case: str) -> list[dict]:
    return tools.list(namespace=f"cue-{case}", subject="Jonas")


def says(fact: dict, word: str) -> bool:
    return word.casefold() in f"{fact.get('value')} {fact.get('statement')}".casefold()


def top_fact(tools: Tools, case: str, question: str) -> dict:
    hits = tools.search(question, namespace=f"cue-{case}", k=5)
    facts = [item for hit in hits for item in (hit, *hit.get("same_event", [])) if item.get("kind") == "fact"]
    assert facts, f"no fact found for {question!r}"
    return facts[0]


def test_a_negated_state_closes_the_state(tools: Tools) -> None:
    facts = current(tools, "negated-state")
    assert not [f for f in facts if says(f, "vegetarian") and "no longer" not in str(f.get("value"))], facts
    history = tools.list(namespace="cue-negated-state", subject="Jonas", include_superseded=True)
    closed = [f for f in history if f.get("value") == "vegetarian" and not f.get("current")]
    assert closed, history  # closed by supersession, kept as history, never deleted
    assert "no longer" in str(top_fact(tools, "negated-state", "Is Jonas vegetarian?").get("statement"))


def test_not_a_member_anymore_ends_the_membership(tools: Tools) -> None:
    facts = current(tools, "dropped-hobby")
    assert not [f for f in facts if says(f, "Rowing") and "anymore" not in str(f.get("value"))], facts


def test_now_my_favourite_replaces_the_favourite(tools: Tools) -> None:
    facts = current(tools, "now-favourite")
    assert [f for f in facts if says(f, "Azul")], facts
    assert not [f for f in facts if says(f, "Carcassonne")], facts
    assert says(top_fact(tools, "now-favourite", "What is Jonas's favorite board game?"), "Azul")


def test_a_sequence_leaves_the_last_current(tools: Tools) -> None:
    facts = current(tools, "sequence")
    assert [f for f in facts if says(f, "Kindred")], facts
    assert not [f for f in facts if says(f, "Piranesi") or says(f, "Circe")], facts
    assert says(top_fact(tools, "sequence", "What is Jonas reading?"), "Kindred")


def test_a_job_said_without_a_job_noun_replaces_the_employer(tools: Tools) -> None:
    facts = current(tools, "job-by-meaning")
    jobs = [f for f in facts if f.get("predicate") == "works_at"]
    assert [f.get("value") for f in jobs] == ["Quayside Robotics"], facts
    assert says(top_fact(tools, "job-by-meaning", "Where does Jonas work?"), "Quayside")


def test_started_at_a_company_now_replaces_the_employer(tools: Tools) -> None:
    """'started at X' is read by an alias as a time slot; an organisation for value sends it by meaning."""
    jobs = [f for f in current(tools, "started-now") if f.get("predicate") == "works_at"]
    assert [f.get("value") for f in jobs] == ["Tidewell Systems"], jobs


def test_a_second_value_without_a_change_word_is_added(tools: Tools) -> None:
    facts = current(tools, "second-instrument")
    assert [f for f in facts if says(f, "violin")] and [f for f in facts if says(f, "banjo")], facts


def test_a_move_told_a_month_later_still_replaces_the_home(tools: Tools) -> None:
    """A change dated a month before its telling is news, not a story about before: the home said a month
    ago is closed, and the search serves the new one."""
    homes = [f for f in current(tools, "moved-last-month") if f.get("predicate") == "lives_in"]
    assert [f.get("value") for f in homes] == ["Gdansk"], homes
    assert says(top_fact(tools, "moved-last-month", "Where does Jonas live?"), "Gdansk")


def test_a_relatives_move_leaves_the_speakers_home(tools: Tools) -> None:
    """"my sister just moved to Fennick" is where the sister lives: the speaker's home stays current and
    is the answer to where they live, above the sister's next sentence about what "I" pay."""
    homes = [f for f in current(tools, "relative-moved") if f.get("predicate") == "lives_in"]
    assert [f.get("value") for f in homes] == ["Brackwater"], homes
    every = tools.list(namespace="cue-relative-moved")
    sister = [f.get("value") for f in every if f.get("predicate") == "lives_in" and "sister" in f.get("subject", "")]
    assert sister == ["Fennick"], every
    hits = tools.search("Where does Jonas live?", namespace="cue-relative-moved", k=5)
    assert hits and "brackwater" in str(hits[0].get("statement")).casefold(), hits


def test_a_given_name_after_the_full_name_is_the_same_person(tools: Tools) -> None:
    """"Perrin has relocated to Kestle" after "Perrin Vasque lives in Oldmoor": one person, whose home
    is now Kestle."""
    facts = tools.list(namespace="cue-given-name", subject="Perrin Vasque")
    homes = [f.get("value") for f in facts if f.get("predicate") == "lives_in"]
    assert homes == ["Kestle"], facts
