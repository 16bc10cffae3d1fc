"""The held-out harness itself (``bench/heldout.py``): loading and checking, on cases of this module.

Why: the held-out figure is only worth reading if the harness counts a right answer as holding and
a wrong one as not. These cases are this module's own (invented people, never the held-out ones):
the checker is tested, not the held-out results.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.heldout import holds, namespace_of, problems, remember_cases, tokens
from medallion.bronze.contract import NAMESPACE_PATTERN
from medallion.serve.tools import Tools, open_tools
from medallion.settings import Settings
from tests.conftest import fresh_database
from tests.development_cases import CASES as DEVELOPMENT
from tests.eighth_writer_cases import CASES as EIGHTH_WRITER
from tests.fifth_writer_cases import CASES as FIFTH_WRITER
from tests.fourth_writer_cases import CASES as FOURTH_WRITER
from tests.heldout_cases import CASES as HELD_OUT
from tests.heldout_cases import HeldOut, Turn
from tests.ninth_writer_cases import CASES as NINTH_WRITER
from tests.second_writer_cases import CASES as SECOND_WRITER
from tests.seventh_writer_cases import CASES as SEVENTH_WRITER
from tests.sixth_writer_cases import CASES as SIXTH_WRITER
from tests.third_writer_cases import CASES as THIRD_WRITER

LIVES = HeldOut(id="harness-lives", kind="update", form="note",
                events=(Turn("user:ops", "Odalys Brenne lives in Kirkwall and cycles to the ferry."),),
                question="Where does Odalys Brenne live?", expect=("kirkwall",), reject=("lerwick",))
LIVES_WRONG = HeldOut(id="harness-lives-wrong", kind="update", form="note", events=LIVES.events,
                      question=LIVES.question, expect=(), reject=("kirkwall",))
SECRET = HeldOut(id="harness-secret", kind="forget", form="chat",
                 events=(Turn("user:tamsin", "my locker code is 5590, dont tell anyone"),
                         Turn("user:tamsin", "what time does the pool open on sundays?")),
                 question="What is Tamsin's locker code?", expect=(), reject=("5590",))
OWN = [LIVES, LIVES_WRONG, SECRET]
EVERY_SET = [HELD_OUT, DEVELOPMENT, SECOND_WRITER, THIRD_WRITER, FOURTH_WRITER, FIFTH_WRITER, SIXTH_WRITER,
             SEVENTH_WRITER, EIGHTH_WRITER, NINTH_WRITER]
SET_IDS = ["held-out", "development", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"]


@pytest.fixture(scope="module")
def tools(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tools]:
    tmp: Path = tmp_path_factory.mktemp("harness")
    with fresh_database(pg_server) as url:
        settings = Settings(home=tmp / "home", database_url=url, inbox=tmp / "inbox")
        remember_cases(settings, OWN)
        with open_tools(None, settings) as opened:
            yield opened


@pytest.mark.parametrize("cases", EVERY_SET, ids=SET_IDS)
def test_every_case_gets_a_valid_namespace_of_its_own(cases: list[HeldOut]) -> None:
    names = [namespace_of(c) for c in cases]
    assert len(set(names)) == len(cases)
    assert all(re.fullmatch(NAMESPACE_PATTERN, n) for n in names)


@pytest.mark.parametrize("cases", EVERY_SET, ids=SET_IDS)
def test_every_expected_or_rejected_word_is_a_word_of_the_case(cases: list[HeldOut]) -> None:
    """A word the events never say could never be found (expect) or never be wrongly served (reject)."""
    for case in cases:
        said = set().union(*(tokens(t.text) for t in case.events))
        assert {w.casefold() for w in case.expect + case.reject} <= said, case.id


def test_a_right_answer_holds(tools: Tools) -> None:
    hits = tools.search(LIVES.question, namespace=namespace_of(LIVES), k=5)
    assert holds(LIVES, hits), problems(LIVES, hits)


def test_a_top_hit_carrying_a_rejected_word_does_not_hold(tools: Tools) -> None:
    hits = tools.search(LIVES_WRONG.question, namespace=namespace_of(LIVES_WRONG), k=5)
    assert not holds(LIVES_WRONG, hits)
    assert any("rejected" in p for p in problems(LIVES_WRONG, hits))


def test_a_forget_case_judges_all_five_hits(tools: Tools) -> None:
    """Nothing asked the memory to forget the code, so it is still found: the forget case fails."""
    hits = tools.search(SECRET.question, namespace=namespace_of(SECRET), k=5)
    assert not holds(SECRET, hits)
    harmless = [{"kind": "chunk", "statement": "the pool opens at nine"}]
    assert holds(SECRET, harmless)
    assert not holds(SECRET, harmless + [{"kind": "chunk", "statement": "locker code 5590"}])


def test_words_are_whole_tokens_and_a_facts_value_counts() -> None:
    case = HeldOut(id="t", kind="update", form="note", events=(), question="q", expect=("kirk",), reject=())
    assert not holds(case, [{"kind": "chunk", "statement": "She lives in Kirkwall"}])
    assert holds(case, [{"kind": "chunk", "statement": "She lives in KIRK, by the sea"}])
    assert holds(case, [{"kind": "fact", "statement": "She moved.", "value": {"place": "Kirk"}}])
    assert not holds(case, [{"kind": "chunk", "statement": "She moved.", "value": "Kirk"}])  # a chunk has no value
    assert not holds(case, [])
