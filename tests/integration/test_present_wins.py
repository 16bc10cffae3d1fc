"""At query time the present wins (issue 31 point 4, ``serve/present.py``), through ``tools.search`` on a
real database.

Why: when the distiller misses that a later turn changes a value ("I've officially started at B
now" after "I work at A"), both turns stay current and the older, more literal one used to rank
first. A user asking "Where does Selma work?" depends on the later turn coming first; one asking
"Where did Selma work before?" on the older one staying reachable; and a later turn about
something else, or a second value of a many-valued meaning, must not push the answer out.
The cases live in ``tests/present_cases.py``; ``bench/present_threshold.py`` measures the
similarity threshold on the same loading.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from medallion.db.connection import connect
from medallion.serve import present, retrieve
from medallion.serve.tools import Tools, open_tools
from medallion.settings import Settings
from medallion.silver.derive import derive
from tests.conftest import fresh_database
from tests.present_cases import CASES, PresentCase

FIRST_AT = datetime(2026, 2, 2, 8, 0, tzinfo=UTC)
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def namespace_of(case: PresentCase) -> str:
    return f"pw-{case.id}"


def remember_cases(settings: Settings, cases: Sequence[PresentCase]) -> None:
    """Every case's turns in its own namespace, a day apart (in one thread when the case says so),
    then one derivation."""
    with open_tools(None, settings) as tools:
        for case in cases:
            for n, said in enumerate(case.turns):
                outcome = tools.remember(
                    namespace=namespace_of(case), content=said.text, kind="transcript", actor=said.actor,
                    occurred_at=(FIRST_AT + timedelta(days=n)).isoformat(), source="present-wins",
                    source_event_id=f"{case.id}:{n}", metadata={"thread": case.id} if case.thread else None,
                    derive_now=False)
                assert outcome["status"] == "inserted", outcome
    conn = connect(settings, "engine", autocommit=True)
    try:
        derive(conn, settings, namespaces=[namespace_of(c) for c in cases])
    finally:
        conn.close()


def words_of(hit: dict[str, Any]) -> set[str]:
    text = f"{hit.get('statement') or ''} {hit.get('value') or '' if hit.get('kind') == 'fact' else ''}"
    return set(_TOKEN.findall(text.casefold()))


def problems(case: PresentCase, hits: Sequence[dict[str, Any]]) -> list[str]:
    """How the results fail the case; empty when it holds."""
    if not hits:
        return ["no results"]
    if case.kind in ("past", "many"):
        seen = set().union(*(words_of(h) for h in hits[:5]))
        return [f"{w!r} is in none of the top five" for w in case.expect if w not in seen]
    top = words_of(hits[0])
    return ([f"top hit lacks {w!r}" for w in case.expect if w not in top]
            + [f"top hit carries {w!r}" for w in case.reject if w in top])


@pytest.fixture(scope="module")
def tools(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tools]:
    tmp: Path = tmp_path_factory.mktemp("present")
    with fresh_database(pg_server) as url:
        settings = Settings(home=tmp / "home", database_url=url, inbox=tmp / "inbox")
        remember_cases(settings, CASES)
        with open_tools(None, settings) as opened:
            yield opened


# What the stage does not reach yet, each with why. strict: a case that starts passing fails here.
KNOWN_LIMITS: dict[str, str] = {}


def _params() -> list[Any]:
    return [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=KNOWN_LIMITS[c.id])]
                         if c.id in KNOWN_LIMITS else []) for c in CASES]


@pytest.mark.parametrize("case", _params())
def test_the_present_wins_and_the_past_stays_reachable(tools: Tools, case: PresentCase) -> None:
    """present: the later of two similar turns about one subject is the top hit for a question about
    now, even when no slot links them; past: the older turn stays in the top five for a question
    about before; unrelated: a later turn about something else does not take the top; many: both
    values of a many-valued meaning stay in the top five."""
    hits = tools.search(case.question, namespace=namespace_of(case), k=5)
    found = problems(case, hits)
    assert not found, (case.id, found, [(h["kind"], h["statement"], h["score"]) for h in hits])


def test_a_superseded_chunk_is_still_not_served_as_current(tools: Tools) -> None:
    """The stage only reorders what search serves: with the default (current only) search, every hit
    of a question that does not ask about before is current."""
    asked = [c for c in CASES if not present.asks_about_before(c.question)]
    assert asked
    for case in asked:
        assert all(h["current"] for h in tools.search(case.question, namespace=namespace_of(case), k=5))


def test_the_catch_all_states_is_no_slot_to_the_stage(tools: Tools) -> None:
    """A belief kept in ``states`` (no relation read) tells no slot apart: the stage reads it as neither
    curated nor many-valued, so a later turn in a curated slot ("upgraded to the Gold tier") can still
    replace it at query time."""
    namespace = namespace_of(next(c for c in CASES if c.id == "tier-in-a-note"))
    with tools.scope([namespace]) as conn:
        states = [r[0] for r in conn.execute(
            "SELECT fact_id FROM silver.facts WHERE namespace = %s AND predicate = 'states'", (namespace,))]
        assert states, "the case's first turn is kept in states"
        rows = conn.execute(retrieve.items_sql("SELECT unnest(%(facts)s::text[])", "SELECT NULL::text WHERE false"),
                            {"facts": states}).fetchall()
    assert [(row[3], row[6]) for row in rows] == [(["one"], False)] * len(states)


def test_a_learned_slot_the_ledger_closed_a_belief_in_is_trusted(tools: Tools) -> None:
    """A learned slot in which the ledger has replaced a value (Mira's canton of registration) is one it tracks, so
    the stage trusts it as it trusts a curated slot; a learned slot with nothing closed is not trusted."""
    namespace = namespace_of(next(c for c in CASES if c.id == "two-tracked-learned-slots"))
    with tools.scope([namespace]) as conn:
        facts = conn.execute(
            "SELECT f.fact_id, p.origin, p.fact_count > p.current_count FROM silver.facts f "
            "JOIN silver.predicates p USING (namespace, predicate) WHERE f.namespace = %s", (namespace,)).fetchall()
        assert {origin for _, origin, _ in facts} == {"learned"}
        rows = conn.execute(retrieve.items_sql("SELECT unnest(%(facts)s::text[])", "SELECT NULL::text WHERE false"),
                            {"facts": [f[0] for f in facts]}).fetchall()
    closed_in = {fact_id: closed for fact_id, _, closed in facts}
    assert any(closed_in.values())
    assert {row[0]: row[6] for row in rows} == closed_in
