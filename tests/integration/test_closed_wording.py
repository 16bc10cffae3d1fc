"""A true belief whose words still name a closed one, through the tools on a real database.

"I work as a nurse at Quillfield Memorial" gives two beliefs, her role and her employer; "I started at
Harrowgate Clinic today" closes the employer. The role is still believed, but its statement, and the
turn's text, still say Quillfield: served first for "Where does Maren work?", a reader takes them for
the answer. Search keeps such a fact and such a chunk at half their score (serve/search.py,
serve/fusion.py ``NO_CURRENT_FACT``), and still serves them as current.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from medallion.serve.tools import Tools
from tests.support.remembered import remembered_tools

NS = "closed-wording"
TURNS = ["I work as a nurse at Quillfield Memorial, mostly nights on the cardiac ward.",
         "Started at Harrowgate Clinic today, new badge and everything!"]
START = datetime(2026, 4, 6, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def tools(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tools]:
    turns = [{"namespace": NS, "content": text, "kind": "transcript", "actor": "user:maren", "source": "chat",
              "source_event_id": str(n), "occurred_at": (START + timedelta(days=n)).isoformat()}
             for n, text in enumerate(TURNS)]
    with remembered_tools(pg_server, tmp_path_factory.mktemp("wording"), turns, [NS]) as opened:
        yield opened


def test_the_ledger_closed_the_employer_and_kept_the_role(tools: Tools) -> None:
    employer = tools.history("Maren", "works_at", namespace=NS)
    assert [(f["value"], f["valid_to"] is None) for f in employer] == [
        ("Quillfield Memorial", False), ("Harrowgate Clinic", True)]
    assert [f["value"] for f in tools.current("Maren", "role", namespace=NS)] == ["Nurse"]


def test_the_new_employer_comes_first_and_the_old_wording_is_still_served_as_current(tools: Tools) -> None:
    hits = tools.search("Where does Maren work?", namespace=NS, k=10, per_event=False)
    assert "Harrowgate" in hits[0]["statement"], hits[0]
    old_words = [h for h in hits if "Quillfield" in h["statement"]]
    assert old_words and all(h["current"] for h in old_words)  # the role is true: served, just not first
    role = next(h for h in old_words if h["kind"] == "fact")
    assert role["predicate"] == "role"
    newest = max(h["score"] for h in hits if "Harrowgate" in h["statement"])
    assert all(h["score"] < newest for h in old_words)
