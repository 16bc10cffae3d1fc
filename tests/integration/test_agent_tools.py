"""What an agent needs to drive the memory on its own, through the Python API and the CLI: discovering
the namespaces and predicates it can use, an error (not an empty list) for a made-up namespace or
predicate, the beliefs a write produced, asking for an erasure without erasing, compact search
results, and fact ids shortened to a unique prefix (never matched against another namespace).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from medallion.bronze import erasure
from medallion.interfaces.cli import app
from medallion.serve import capabilities, ids
from medallion.serve.tools import Denied, ToolError, UnknownNamespace, UnknownPredicate, open_tools
from medallion.settings import Settings
from tests.conftest import fresh_database

OWN, OTHER, GHOST = "agent-own", "agent-other", "agent-ghost"
EVENTS = {
    OWN: [("user:maren", "I live in Ghent and I work at Lumen."), ("user:tobias", "I live in Bruges."),
          ("user:maren", "Tobias is my manager.")],
    OTHER: [("user:ilse", "I live in Namur and my locker code is heron.")],
}


@pytest.fixture(scope="module")
def world(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("agent")
    with fresh_database(pg_server) as url:
        settings = Settings(home=tmp / "home", database_url=url, inbox=tmp / "inbox")
        with open_tools(None, settings) as admin:
            for ns, events in EVENTS.items():
                for actor, content in events:
                    admin.remember(namespace=ns, content=content, actor=actor, kind="transcript")
        with psycopg.connect(url, autocommit=True) as conn:
            def grant(principal: str, verbs: list[str], namespaces: list[str]) -> str:
                return capabilities.grant(conn, principal=principal, verbs=verbs, namespaces=namespaces,
                                          created_by="test")[1]
            tokens = {
                "reader": grant("agent:reader", ["search", "read", "list"], [OWN, GHOST]),
                "writer": grant("agent:writer", ["remember"], [OWN]),
                "agent": grant("agent:helper", ["search", "read", "list", "remember"], [OWN]),
                "ana": grant("person:ana", ["admin", "read", "overlay"], [OWN]),
                "ben": grant("person:ben", ["admin", "read"], [OWN]),
            }
        yield {"settings": settings, "url": url, "tokens": tokens}


def _fact(settings: Settings, ns: str, subject: str, predicate: str) -> dict[str, Any]:
    with open_tools(None, settings) as tools:
        [fact] = tools.current(subject, predicate, namespace=ns)
    return fact


def _one_sentence(exc: BaseException) -> str:
    message = str(exc)
    assert message and "\n" not in message and "Traceback" not in message
    return message


# ------------------------------------------------------------------ discovery
def test_namespaces_lists_what_the_caller_can_see_with_counts(world: dict[str, Any]) -> None:
    settings, tokens = world["settings"], world["tokens"]
    with open_tools(None, settings) as admin:
        rows = {r["namespace"]: r for r in admin.namespaces()}
    assert set(rows) == {OWN, OTHER}  # the local admin: every namespace holding events
    assert rows[OWN]["events"] == len(EVENTS[OWN]) and rows[OTHER]["events"] == 1
    assert rows[OWN]["current_facts"] >= 3 and rows[OWN]["facts"] >= rows[OWN]["current_facts"]
    assert "admin" in rows[OWN]["verbs"]
    with open_tools(tokens["reader"], settings) as reader:
        seen = reader.namespaces()
    # a token: the namespaces its grant names, an empty one too, and nothing of the others
    assert [r["namespace"] for r in seen] == [GHOST, OWN]
    assert seen[0] == {"namespace": GHOST, "verbs": ["search", "read", "list"], "events": 0, "facts": 0,
                       "current_facts": 0}
    assert OTHER not in json.dumps(seen)


def test_predicates_in_use_with_example_and_counts(world: dict[str, Any]) -> None:
    settings = world["settings"]
    with open_tools(world["tokens"]["reader"], settings) as reader:
        found = {p["predicate"]: p for p in reader.predicates(namespace=OWN)}
    lives = found["lives_in"]
    assert lives["cardinality"] == "one" and lives["origin"] == "curated"
    assert lives["facts"] == lives["current_facts"] == 2
    assert lives["example"] == "Maren lives in Ghent."  # the first current fact, as served
    assert "works_at" in found and lives["description"]
    with open_tools(world["tokens"]["writer"], settings) as writer, pytest.raises(Denied):
        writer.predicates(namespace=OWN)  # a write-only token reads nothing of the namespace


def test_a_made_up_namespace_is_an_error_naming_the_visible_ones(world: dict[str, Any]) -> None:
    settings, tokens = world["settings"], world["tokens"]
    calls = {
        "current": lambda t, ns: t.current("Maren", "lives_in", namespace=ns),
        "history": lambda t, ns: t.history("Maren", "lives_in", namespace=ns),
        "list": lambda t, ns: t.list(namespace=ns),
        "search": lambda t, ns: t.search("where does Maren live", namespace=ns),
        "relate": lambda t, ns: t.relate("Maren", "Tobias", namespace=ns),
        "follow": lambda t, ns: t.follow("Maren", ["lives_in"], namespace=ns),
        "recall": lambda t, ns: t.recall("where does Maren live", namespace=ns),
        "predicates": lambda t, ns: t.predicates(namespace=ns),
        "read": lambda t, ns: t.read(path="notes/plan.md", namespace=ns),
    }
    with open_tools(None, settings) as admin:
        for name, call in calls.items():
            with pytest.raises(UnknownNamespace) as made_up:
                call(admin, "agent-owm")
            message = _one_sentence(made_up.value)
            assert "'agent-owm'" in message and OWN in message and OTHER in message, (name, message)
            assert made_up.value.exit_code == 2
    with open_tools(tokens["reader"], settings) as reader:
        with pytest.raises(UnknownNamespace) as empty:  # granted, but it holds nothing
            reader.current("Maren", "lives_in", namespace=GHOST)
        assert f"are {GHOST}, {OWN}" in str(empty.value)
        with pytest.raises(Denied) as outside:  # outside the grant: the same answer, existing or not
            reader.current("Ilse", "lives_in", namespace=OTHER)
        with pytest.raises(Denied) as nowhere:
            reader.current("Ilse", "lives_in", namespace="agent-nowhere")
        assert str(outside.value).replace(OTHER, "X") == str(nowhere.value).replace("agent-nowhere", "X")
        assert f"can see are {GHOST}, {OWN}" in str(outside.value)
        # an unknown subject of a known predicate is still "nothing known"
        assert reader.current("Nobody", "lives_in", namespace=OWN) == []


def test_a_made_up_predicate_names_close_ones_in_use(world: dict[str, Any]) -> None:
    with open_tools(world["tokens"]["reader"], world["settings"]) as reader:
        for call, wanted in (
            (lambda: reader.current("Maren", "livesin", namespace=OWN), "lives_in"),
            (lambda: reader.history("Maren", "resides_in", namespace=OWN), "lives_in"),
            (lambda: reader.list(namespace=OWN, predicate="employer"), "works_at"),
            (lambda: reader.search("Maren", namespace=OWN, predicate="work_at"), "works_at"),
        ):
            with pytest.raises(UnknownPredicate) as hint:
                call()
            message = _one_sentence(hint.value)
            assert "close ones in use: " + wanted in message, message
        with pytest.raises(UnknownPredicate, match="the predicates tool lists the ones in use"):
            reader.current("Maren", "zzqx", namespace=OWN)


# ------------------------------------------------------------------ ids
def test_a_unique_prefix_reads_a_fact_everywhere_an_id_is_taken(world: dict[str, Any],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    settings = world["settings"]
    fact = _fact(settings, OWN, "Tobias", "lives_in")
    short = fact["fact_id"][:12]  # what the tables show
    with open_tools(world["tokens"]["ana"], settings) as ana:
        [read] = ana.read(short)
        assert read["fact_id"] == fact["fact_id"]
        assert ana.read(short.upper())[0]["fact_id"] == fact["fact_id"]
        with pytest.raises(ToolError, match=f"at least {ids.MIN_PREFIX}"):
            ana.read(fact["fact_id"][:ids.MIN_PREFIX - 1])
        noted = ana.overlay(fact["fact_id"][:ids.MIN_PREFIX], "annotate", quote="Bruges", note="since spring")
        assert noted["fact_id"] == fact["fact_id"] and noted["anchored_fact_id"] == fact["fact_id"]
    monkeypatch.setenv("MEDALLION_DATABASE_URL", world["url"])
    monkeypatch.setenv("MEDALLION_HOME", str(settings.home))
    monkeypatch.delenv("MEDALLION_TOKEN", raising=False)
    result = CliRunner().invoke(app, ["read", short, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["fact_id"] == fact["fact_id"]


def test_an_ambiguous_prefix_lists_the_candidates_but_only_visible_ones(world: dict[str, Any]) -> None:
    """Two facts share a prefix, one in each namespace: the local admin (who sees both) is told which,
    a token for one namespace is given its own fact, and never learns of the other."""
    settings = world["settings"]
    mine = _fact(settings, OWN, "Maren", "works_at")
    theirs = _fact(settings, OTHER, "Ilse", "lives_in")
    twin = mine["fact_id"][:10] + "f" * 14
    assert twin != mine["fact_id"]
    with psycopg.connect(world["url"], autocommit=True) as conn:  # a second fact of OTHER with that prefix
        cols = [r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'silver' "
            "AND table_name = 'facts' AND is_generated = 'NEVER' ORDER BY ordinal_position").fetchall()]
        picked = {"fact_id": "%(twin)s", "valid_to": "valid_from", "superseded_at": "recorded_at"}
        conn.execute(f"INSERT INTO silver.facts ({', '.join(cols)}) SELECT "
                     f"{', '.join(picked.get(c, c) for c in cols)} FROM silver.facts WHERE fact_id = %(src)s",
                     {"twin": twin, "src": theirs["fact_id"]})
    try:
        with open_tools(None, settings) as admin:
            with pytest.raises(ids.AmbiguousId) as both:
                admin.read(mine["fact_id"][:8])
            message = _one_sentence(both.value)
            assert mine["fact_id"] in message and twin in message and "give more characters" in message
            assert admin.read(mine["fact_id"][:11])[0]["fact_id"] == mine["fact_id"]
        with open_tools(world["tokens"]["reader"], settings) as reader:
            assert reader.read(mine["fact_id"][:8])[0]["fact_id"] == mine["fact_id"]
            with pytest.raises(ToolError) as hidden:
                reader.read(twin[:12])
            with pytest.raises(ToolError) as unknown:
                reader.read("0" * 12)
            assert str(hidden.value).replace(twin[:12], "X") == str(unknown.value).replace("0" * 12, "X")
    finally:
        with psycopg.connect(world["url"], autocommit=True) as conn:
            conn.execute("DELETE FROM silver.facts WHERE fact_id = %s", (twin,))


# ------------------------------------------------------------------ writes
def test_remember_answers_with_the_beliefs_it_produced(world: dict[str, Any]) -> None:
    settings, tokens = world["settings"], world["tokens"]
    before = _fact(settings, OWN, "Tobias", "lives_in")
    with open_tools(None, settings) as admin:  # the person themselves (authority 1): a move closes the old home
        moved = admin.remember(namespace=OWN, content="I moved to Leuven.", actor="user:tobias", kind="transcript")
        beliefs = moved["beliefs"]
        [added] = beliefs["added"]
        assert added["predicate"] == "lives_in" and added["value"] == "Leuven" and added["current"]
        assert added["outcome"] == "closed_previous"
        [closed] = beliefs["superseded"]
        assert closed["fact_id"] == before["fact_id"] and closed["statement"] == before["statement"]
        assert closed["current"] is False
        assert beliefs["skipped"] == [] and beliefs["contested"] == [] and beliefs["working_memory"] == []
        again = admin.remember(namespace=OWN, content="I moved to Leuven.", actor="user:tobias", kind="transcript")
        assert again["status"] == "duplicate" and again["beliefs"]["added"] == beliefs["added"]
        repeat = admin.remember(namespace=OWN, content="I live in Leuven.", actor="user:tobias", kind="transcript")
        assert repeat["beliefs"]["added"] == []
        [skipped] = repeat["beliefs"]["skipped"]
        assert skipped["statement"] and skipped["already_known_as"]["fact_id"] == added["fact_id"]
    with open_tools(tokens["agent"], settings) as agent:  # an agent's word (authority 5) only disputes it
        doubt = agent.remember(namespace=OWN, content="I moved to Mechelen.", actor="user:tobias",
                               kind="transcript")["beliefs"]
        assert [a["outcome"] for a in doubt["added"]] == ["contested"]
        assert doubt["contested"] == [{**{k: v for k, v in added.items() if k != "outcome"}, "contested": True}]
    with open_tools(tokens["writer"], settings) as writer:  # may write, not read: no id of another event's fact
        back = writer.remember(namespace=OWN, content="I moved to Ghent.", actor="user:tobias",
                               kind="transcript")["beliefs"]
        assert back["added"][0]["value"] == "Ghent"
        others = back["superseded"] + back["contested"]
        assert others and all(o == {"readable": False} for o in others)
        known = writer.remember(namespace=OWN, content="I live in Ghent.", actor="user:tobias", kind="transcript")
        [skipped] = known["beliefs"]["skipped"]
        assert skipped["already_known_as"] == {"readable": False}
        assert back["added"][0]["fact_id"] not in json.dumps(known)  # security issue 30, point 11
        assert added["fact_id"] not in json.dumps(back) + json.dumps(known)


def test_an_erasure_request_erases_nothing_until_another_person_approves(world: dict[str, Any]) -> None:
    settings, tokens = world["settings"], world["tokens"]
    with open_tools(None, settings) as admin:
        admin.remember(namespace=OWN, content="My badge number is 4471.", actor="user:maren", kind="transcript")
        [badge] = [f for f in admin.list(namespace=OWN, subject="Maren") if "4471" in f["statement"]]
    with open_tools(tokens["agent"], settings) as agent, pytest.raises(Denied, match="'admin'"):
        agent.request_erasure(fact_id=badge["fact_id"][:12], reason="the person asked")
    with open_tools(tokens["ana"], settings) as ana:
        with pytest.raises(ToolError, match="no fact"):  # another namespace's fact: as if unknown
            ana.request_erasure(fact_id=_fact(settings, OTHER, "Ilse", "lives_in")["fact_id"], reason="x")
        with pytest.raises(ToolError, match="reason"):
            ana.request_erasure(fact_id=badge["fact_id"], reason="  ")
        filed = ana.request_erasure(fact_id=badge["fact_id"][:12], reason="Maren asked to forget it")
        assert filed["status"] == "pending_approval" and filed["namespace"] == OWN
        assert filed["event_id"] == badge["provenance"]["bronze_event_id"]
        assert [f["fact_id"] for f in filed["facts"]] == [badge["fact_id"]]
        assert filed["requested_by"] == "person:ana"
        assert ana.read(badge["fact_id"])  # nothing erased yet
        with pytest.raises(ToolError, match="already pending"):
            ana.request_erasure(event_id=filed["event_id"], reason="again")
    with psycopg.connect(world["url"], autocommit=True) as conn:
        [pending] = [r for r in erasure.list_requests(conn, "pending") if r["request_id"] == filed["request_id"]]
        assert pending["requested_by"] == "person:ana" and pending["event_id"] == filed["event_id"]
        with pytest.raises(erasure.ErasureError, match="cannot approve their own"):
            erasure.approve_erasure(conn, filed["request_id"], token=tokens["ana"])
        assert erasure.approve_erasure(conn, filed["request_id"], token=tokens["ben"]) == filed["event_id"]
        assert conn.execute("SELECT count(*) FROM bronze.events WHERE event_id = %s",
                            (filed["event_id"],)).fetchone()[0] == 0


# ------------------------------------------------------------------ search
def test_compact_search_keeps_what_an_agent_reads_first(world: dict[str, Any]) -> None:
    with open_tools(world["tokens"]["reader"], world["settings"]) as reader:
        full = reader.search("Where does Maren live?", namespace=OWN)
        compact = reader.search("Where does Maren live?", namespace=OWN, detail="compact")
        with pytest.raises(ToolError, match="'full' or 'compact'"):
            reader.search("Maren", namespace=OWN, detail="short")
    assert [r.get("fact_id") or r.get("chunk_id") for r in compact] == \
        [r.get("fact_id") or r.get("chunk_id") for r in full]
    for row, whole in zip(compact, full, strict=True):
        assert {"kind", "statement", "score", "current", "provenance"} <= set(row)
        assert row["provenance"] == {"namespace": OWN, "source": whole["provenance"]["source"],
                                     "event_id": whole["provenance"]["bronze_event_id"]}
        assert row["statement"] == whole["statement"] and row["score"] == round(whole["score"], 4)
    assert len(json.dumps(compact)) * 2 < len(json.dumps(full))


def test_cli_a_made_up_namespace_exits_2_naming_the_visible_ones(world: dict[str, Any],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDALLION_DATABASE_URL", world["url"])
    monkeypatch.setenv("MEDALLION_HOME", str(world["settings"].home))
    monkeypatch.delenv("MEDALLION_TOKEN", raising=False)
    result = CliRunner().invoke(app, ["current", "Maren", "lives_in", "-n", "agent-owm"])
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and OWN in result.stderr and OTHER in result.stderr
