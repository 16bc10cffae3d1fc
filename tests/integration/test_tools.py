"""The tools (G1–G8, R6): the verbs through the Python API and the CLI, the capability matrix,
the row-level-security firewall, redaction, approvals and telemetry."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from typer.testing import CliRunner

from medallion.db.connection import connect
from medallion.interfaces.cli import app
from medallion.serve import capabilities
from medallion.serve import search as searching
from medallion.serve.tools import REDACTED, Denied, ToolError, open_tools
from medallion.settings import Settings
from tests.conftest import fresh_database

OWN, OTHER = "tools-a", "tools-b"
EVENTS = {
    OWN: [("user:alice", "I live in Lisbon and I work at Atlas."), ("user:bob", "I moved to Porto last month."),
          ("user:alice", "Bob is my manager."), ("user:carol", "My email is carol@atlas.dev.")],
    OTHER: [("user:dora", "I live in Oslo and my salary secret is moonbeam."),
            ("user:erik", "I work at Borealis.")],
}


@pytest.fixture(scope="module")
def world(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Two namespaces of remembered events, derived; tokens in every state for the matrix."""
    tmp = tmp_path_factory.mktemp("tools")
    with fresh_database(pg_server) as url:
        settings = Settings(home=tmp / "home", database_url=url, inbox=tmp / "inbox")
        with open_tools(None, settings) as admin:
            for ns, events in EVENTS.items():
                for actor, content in events:
                    admin.remember(namespace=ns, content=content, actor=actor, kind="transcript")
        with psycopg.connect(url, autocommit=True) as conn:
            def grant(ns: list[str], verbs: list[str], **kw: Any) -> tuple[str, str]:
                return capabilities.grant(conn, principal=kw.pop("principal", f"agent:{len(ns)}{verbs[0]}"),
                                          verbs=verbs, namespaces=ns, created_by="test", **kw)
            all_verbs = ["search", "read", "list", "remember", "overlay"]
            valid = grant([OWN], all_verbs, max_authority=3)[1]
            expired_id, expired = grant([OWN], all_verbs, expires_at=datetime.now(UTC) + timedelta(minutes=1))
            conn.execute("UPDATE auth.capabilities SET expires_at = clock_timestamp() - interval '1 minute' "
                         "WHERE capability_id = %s", (expired_id,))  # a grant cannot be made already expired
            revoked_id, revoked = grant([OWN], all_verbs)
            capabilities.revoke(conn, revoked_id)
            admin_a = grant([OWN], ["admin", "overlay", "read"], principal="person:ana")[1]
            admin_b = grant([OWN], ["admin", "overlay", "read"], principal="person:ben")[1]
        yield {"settings": settings, "url": url, "tokens": {"valid": valid, "expired": expired, "revoked": revoked},
               "admins": (admin_a, admin_b)}


def _fact(settings: Settings, ns: str, subject: str, predicate: str) -> dict[str, Any]:
    with open_tools(None, settings) as tools:
        [fact] = tools.current(subject, predicate, namespace=ns)
    return fact


# ------------------------------------------------------------------ one table of cases: API and CLI agree
# verb, the Python API call, the CLI argv, the MCP tool and its arguments
CASES = [
    ("current", lambda t: t.current("Alice", "lives_in", namespace=OWN), ["current", "Alice", "lives_in", "-n", OWN],
     "current", {"subject": "Alice", "predicate": "lives_in", "namespace": OWN}),
    ("history", lambda t: t.history("Bob", "lives_in", namespace=OWN), ["history", "Bob", "lives_in", "-n", OWN],
     "history", {"subject": "Bob", "predicate": "lives_in", "namespace": OWN, "detail": "full"}),
    ("list", lambda t: t.list(namespace=OWN, subject="Alice"), ["list", "-n", OWN, "--subject", "Alice"],
     "list", {"namespace": OWN, "subject": "Alice"}),
    ("search", lambda t: t.search("Where does Alice live?", namespace=OWN, k=5),
     ["search", "Where does Alice live?", "-n", OWN, "-k", "5"],
     "search", {"query": "Where does Alice live?", "namespace": OWN, "k": 5, "detail": "full"}),
    ("relate", lambda t: t.relate("Alice", "Bob", namespace=OWN), ["relate", "Alice", "Bob", "-n", OWN],
     "relate", {"a": "Alice", "b": "Bob", "namespace": OWN}),
]


@pytest.mark.parametrize(("verb", "call", "argv", "mcp_tool", "mcp_args"), CASES, ids=[c[0] for c in CASES])
def test_each_read_verb_through_api_and_cli(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch, verb: str,
                                             call: Any, argv: list[str], mcp_tool: str,
                                             mcp_args: dict[str, Any]) -> None:
    """G1: one implementation: the Python API and the CLI's --json return the same rows."""
    settings = world["settings"]
    with open_tools(None, settings) as tools:
        api = call(tools)
    assert api, f"{verb} found something in the example data"
    _cli_env(monkeypatch, settings)
    result = CliRunner().invoke(app, [*argv, "--json"])
    assert result.exit_code == 0, result.output
    cli = json.loads(result.stdout)
    assert _comparable(cli) == _comparable(api)
    if verb in ("current", "history", "list", "search"):
        for row in api:
            assert set(row["provenance"]) == {"bronze_event_id", "namespace", "source", "source_event_id",
                                              "provenance_root"}
            assert row["provenance"]["namespace"] == OWN
            assert "overlays" in row or row.get("kind") == "chunk"


def test_the_same_cases_through_mcp(world: dict[str, Any], tmp_path: Path) -> None:
    """G1: the MCP server (the SDK's client over stdio) answers the table's cases like the Python API."""
    settings = world["settings"]
    with open_tools(None, settings) as tools:
        expected = {verb: call(tools) for verb, call, _, _, _ in CASES}
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDALLION_")}
    env.update({"MEDALLION_DATABASE_URL": settings.database_url or "", "MEDALLION_HOME": str(settings.home),
                "MEDALLION_DATA_DICTIONARY_PATH": str(tmp_path / "DD.md"), "HF_HUB_OFFLINE": "1",
                "TRANSFORMERS_OFFLINE": "1"})
    params = StdioServerParameters(command=sys.executable, args=["-m", "medallion.interfaces.mcp_server"], env=env)
    answers: dict[str, Any] = {}

    async def scenario() -> None:
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                for verb, _, _, tool, args in CASES:
                    result = await session.call_tool(tool, args)
                    assert not result.is_error, result.content
                    answers[verb] = json.loads(result.content[0].text)
                # without detail='full', search answers in its compact form
                compact = await session.call_tool("search", {"query": "Where does Alice live?", "namespace": OWN,
                                                             "k": 5})
                answers["compact"] = json.loads(compact.content[0].text)

    anyio.run(scenario)
    for verb, rows in expected.items():
        assert _comparable(answers[verb]) == _comparable(rows), verb
    assert _comparable(answers["compact"]) == _comparable(searching.compact(expected["search"]))


def _comparable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows as JSON would carry them (the CLI prints JSON), without search scores (float noise)."""
    return [{k: v for k, v in r.items() if k != "score"} for r in json.loads(json.dumps(rows, default=str))]


def _cli_env(monkeypatch: pytest.MonkeyPatch, settings: Settings, token: str | None = None) -> None:
    monkeypatch.setenv("MEDALLION_DATABASE_URL", settings.database_url or "")
    monkeypatch.setenv("MEDALLION_HOME", str(settings.home))
    if token:
        monkeypatch.setenv("MEDALLION_TOKEN", token)
    else:
        monkeypatch.delenv("MEDALLION_TOKEN", raising=False)


def test_search_answers_and_never_presents_superseded_as_current(world: dict[str, Any]) -> None:
    """G4: the relevant fact ranks high; a superseded version only appears when asked, flagged not current."""
    settings = world["settings"]
    with open_tools(None, settings) as tools:
        hits = tools.search("Where does Alice live?", namespace=OWN, k=5)
        assert any(h["kind"] == "fact" and h["predicate"] == "lives_in" and h["value"] == "Lisbon" for h in hits[:3])
        tools.remember(namespace=OWN, content="I moved to Madrid.", actor="user:alice", kind="transcript")
        now = tools.search("Alice lives in", namespace=OWN, k=10)
        assert all(h["current"] for h in now)
        assert "Lisbon" not in {h["value"] for h in now if h["kind"] == "fact" and h["predicate"] == "lives_in"}
        everything = tools.search("Alice lives in", namespace=OWN, k=20, include_superseded=True)
        old = [h for h in everything if h["kind"] == "fact" and h["value"] == "Lisbon"]
        assert old and all(not h["current"] and h["valid_to"] for h in old)
        grouped = tools.search("Madrid", namespace=OWN, k=10)
        events = [h["provenance"]["bronze_event_id"] for h in grouped]
        assert len(events) == len(set(events)), "one result per source event by default"
        top = grouped[0]
        assert "Madrid" in top["statement"] and {i["kind"] for i in top["same_event"]} | {top["kind"]} == {
            "fact", "chunk"}, "the event's fact and chunk travel together"
        chunk_hits = [h for h in tools.search("Madrid", namespace=OWN, k=10, per_event=False) if h["kind"] == "chunk"]
        assert chunk_hits and all(h["provenance"]["namespace"] == OWN for h in chunk_hits)
        supported = {f for h in chunk_hits for f in h["supports"]}
        current_ids = {f["fact_id"] for f in tools.current("Alice", "lives_in", namespace=OWN)}
        assert supported & current_ids, "the Madrid chunk is returned with the current fact it supports"


def test_a_question_about_a_slot_ranks_that_slot_first(world: dict[str, Any]) -> None:
    """G4: 'Where does Bob live?' names Bob and cues lives_in: the current lives_in fact comes first,
    although its statement ('Bob moved to Porto ...') shares no content word with the question."""
    with open_tools(None, world["settings"]) as tools:
        [top, *_] = tools.search("Where does Bob live?", namespace=OWN, k=5)
    assert top["predicate"] == "lives_in" and top["value"] == "Porto" and top["current"]


# ------------------------------------------------------------------ the capability matrix (G2)
VERB_CALLS = {
    "search": lambda t, ns: t.search("Where does anyone live?", namespace=ns),
    "read": lambda t, ns: t.current("Alice", "lives_in", namespace=ns),
    "list": lambda t, ns: t.list(namespace=ns),
    "remember": lambda t, ns: t.remember(namespace=ns, content="A note for the matrix.", derive_now=False),
    "overlay": lambda t, ns: t.overlay(MATRIX_FACTS[ns], "annotate", quote=MATRIX_QUOTES[ns], note="matrix"),
}
MATRIX_FACTS: dict[str, str] = {}
MATRIX_QUOTES: dict[str, str] = {}


@pytest.mark.parametrize("state", ["valid", "expired", "revoked"])
@pytest.mark.parametrize("where", ["own", "other"])
@pytest.mark.parametrize("verb", sorted(VERB_CALLS))
def test_capability_matrix(world: dict[str, Any], verb: str, where: str, state: str) -> None:
    """G2: only a valid token in its own namespace is served; every refusal is one sentence, no leak."""
    settings = world["settings"]
    ns = OWN if where == "own" else OTHER
    token = world["tokens"][state]
    for space, subject in ((OWN, "Alice"), (OTHER, "Dora")):
        fact = _fact(settings, space, subject, "lives_in")
        MATRIX_FACTS[space], MATRIX_QUOTES[space] = fact["fact_id"], fact["statement"].split()[0]
    allowed = state == "valid" and where == "own"
    if state != "valid":
        with pytest.raises(Denied, match="not a valid capability"):
            open_tools(token, settings)
        return
    with open_tools(token, settings) as tools:
        if allowed:
            VERB_CALLS[verb](tools, ns)
            return
        # another namespace's fact is invisible to overlay (ToolError: not found), the rest are Denied
        with pytest.raises(ToolError) as denied:
            VERB_CALLS[verb](tools, ns)
    message = str(denied.value)
    assert message.count(".") <= 1 and "\n" not in message
    for word in ("Oslo", "moonbeam", "Borealis", "dora", "erik"):
        assert word.lower() not in message.lower()


@pytest.mark.parametrize(("authority", "allowed"), [(1, False), (3, True), (4, True)])
def test_write_authority_is_capped(world: dict[str, Any], authority: int, allowed: bool) -> None:
    """G2: a capability capped at tier 3 cannot write tier 1 or 2; it can write 3 and below."""
    with open_tools(world["tokens"]["valid"], world["settings"]) as tools:
        call = lambda: tools.remember(namespace=OWN, content=f"Authority {authority} note.",  # noqa: E731
                                      authority=authority, derive_now=False)
        if allowed:
            assert call()["status"] == "inserted"
        else:
            with pytest.raises(ToolError, match="authority"):
                call()


def test_cli_denial_exits_2_with_one_sentence(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    _cli_env(monkeypatch, world["settings"], world["tokens"]["valid"])
    result = CliRunner().invoke(app, ["search", "Oslo", "-n", OTHER, "--json"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "Oslo" not in result.stderr


# ------------------------------------------------------------------ R6: cross-namespace reads
def test_r6_no_verb_leaks_another_namespace(world: dict[str, Any]) -> None:
    """R6: with a token for one namespace, every verb and every id lookup gives zero rows of the other."""
    settings = world["settings"]
    other_fact = _fact(settings, OTHER, "Dora", "lives_in")
    with open_tools(world["tokens"]["valid"], settings) as tools:
        with pytest.raises(ToolError) as exc_known:
            tools.read(other_fact["fact_id"])
        with pytest.raises(ToolError) as exc_unknown:
            tools.read("0" * 24)
        assert str(exc_known.value).replace(other_fact["fact_id"], "X") == str(exc_unknown.value).replace("0" * 24, "X")
        with pytest.raises(ToolError):
            tools.overlay(other_fact["fact_id"], "redact", quote="Oslo")
        own_hits = tools.search("Oslo moonbeam salary", namespace=OWN, k=50)
        assert all(h["provenance"]["namespace"] == OWN for h in own_hits)
        assert not any("moonbeam" in json.dumps(h) or "Oslo" in json.dumps(h) for h in own_hits)
        with pytest.raises(Denied):
            tools.relate("Dora", "Erik", namespace=OTHER)


TOOL_TABLES = ("silver.facts", "silver.entities", "silver.chunks", "silver.edges", "silver.overlays",
               "silver.documents", "silver.working_memory", "gold.event_provenance", "telemetry.retrievals")


def _visible_namespaces(conn: psycopg.Connection) -> dict[str, set[str]]:
    """Per table, the namespaces one statement can see (in a transaction that asks for every namespace)."""
    seen = {}
    with conn.transaction():
        conn.execute("SET LOCAL medallion.namespaces = '*'")
        for table in TOOL_TABLES:
            seen[table] = {r[0] for r in conn.execute(f"SELECT DISTINCT namespace FROM {table}").fetchall()}
    return seen


def test_r6_raw_sql_as_the_tool_role_sees_only_what_a_verified_token_grants(world: dict[str, Any]) -> None:
    """R6 and security issue point 5: the tool login cannot switch row-level security off itself.

    Logged in as medallion_tool, `SET medallion.namespaces = '*'` once showed every namespace in the
    Silver tables, the provenance view and telemetry. Now the namespaces come from a token verified
    inside the database (auth.enter): without one nothing is visible, with one only its namespaces,
    a forged session nonce or a revoked token shows nothing, and telemetry shows only the caller's
    own capability's rows.
    """
    settings = world["settings"]
    with open_tools(world["tokens"]["valid"], settings) as tools:  # telemetry rows of this capability
        tools.list(namespace=OWN)
    with open_tools(None, settings) as admin:  # and of the local admin, in both namespaces
        admin.list(namespace=OTHER)
        admin.list(namespace=OWN)
    conn = connect(settings, "tool", autocommit=True)
    try:
        assert all(not seen for seen in _visible_namespaces(conn).values())
        conn.execute("SELECT set_config('medallion.session', 'forged-nonce', false)")
        assert all(not seen for seen in _visible_namespaces(conn).values())

        [(cap_id,)] = conn.execute("SELECT capability_id FROM auth.enter(%s)", (world["tokens"]["valid"],)).fetchall()
        seen = _visible_namespaces(conn)
        assert all(found <= {OWN} for found in seen.values()), seen
        assert seen["silver.facts"] == {OWN} and seen["gold.event_provenance"] == {OWN}
        conn.execute("SET medallion.namespaces = '*'")
        principals = {r[0] for r in conn.execute("SELECT DISTINCT principal FROM telemetry.retrievals").fetchall()}
        assert principals == {cap_id}
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT * FROM auth.sessions")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT auth.admit_local(pg_backend_pid(), 'local:mallory')")
        with pytest.raises(psycopg.errors.InvalidAuthorizationSpecification):
            conn.execute("SELECT * FROM auth.enter(%s)", (world["tokens"]["revoked"],))
        for table in ("bronze.events", "silver.resolutions", "gold.approvals", "auth.capabilities"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(f"SELECT count(*) FROM {table}")
        # a predicate of the caller's never runs on rows outside the scope (it would fail on them) ...
        conn.execute("SET medallion.namespaces = '*'")
        for view in ("gold.event_provenance", "silver.facts"):
            probe = (f"SELECT count(*) FROM {view} WHERE CASE WHEN namespace = %s "
                     "THEN 1 / (length(namespace) - length(namespace)) = 1 ELSE true END")
            assert conn.execute(probe, (OTHER,)).fetchone()[0] > 0
        # ... and the tool login cannot create even a temporary function or table to smuggle one in
        for ddl in ("CREATE TEMP TABLE t (x int)",
                    "CREATE FUNCTION pg_temp.peek(text) RETURNS boolean LANGUAGE sql AS 'SELECT true'"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(ddl)
    finally:
        conn.close()
    # A grant ends with its token: once revoked, the same backend sees nothing.
    with psycopg.connect(world["url"], autocommit=True) as admin_conn:
        cap_id, token = capabilities.grant(admin_conn, principal="agent:short-lived", verbs=["search"],
                                           namespaces=[OWN], created_by="test")
        conn = connect(settings, "tool", autocommit=True)
        try:
            conn.execute("SELECT capability_id FROM auth.enter(%s)", (token,))
            assert _visible_namespaces(conn)["silver.facts"] == {OWN}
            capabilities.revoke(admin_conn, cap_id)
            assert not _visible_namespaces(conn)["silver.facts"]
        finally:
            conn.close()


# ------------------------------------------------------------------ overlays (G6, G7)
def test_redaction_masks_everywhere_and_hides_from_search(world: dict[str, Any]) -> None:
    """G6: the redacted words are absent from read, list, search results and snippets; searching them misses."""
    settings = world["settings"]
    fact = _fact(settings, OWN, "Carol", "email")
    secret = "carol@atlas.dev"
    with open_tools(None, settings) as tools:
        done = tools.overlay(fact["fact_id"], "redact", quote=secret)
        assert done["status"] == "inserted" and done["anchor_status"] == "anchored"
        [read] = tools.read(fact["fact_id"])
        assert secret not in json.dumps(read) and REDACTED in read["statement"]
        assert read["overlays"][0]["action"] == "redact"
        assert secret not in json.dumps(tools.list(namespace=OWN, include_superseded=True))
        for query in (secret, "carol atlas dev", "What is Carol's email?"):
            hits = tools.search(query, namespace=OWN, k=50)
            assert secret not in json.dumps(hits), query
        assert not any(h.get("fact_id") == fact["fact_id"] for h in tools.search(secret, namespace=OWN, k=50))


def test_edit_wins_on_read_and_overwrite_needs_another_person(world: dict[str, Any]) -> None:
    """G6/G7: an edit is served instead of the derived text; overwriting it waits for a second admin."""
    settings = world["settings"]
    fact = _fact(settings, OWN, "Alice", "works_at")
    ana, ben = world["admins"]
    with open_tools(ana, settings) as tools:
        first = tools.overlay(fact["fact_id"], "edit", quote="Atlas", text="Atlas Labs")
        assert first["status"] == "inserted"
        assert "Atlas Labs" in tools.read(fact["fact_id"])[0]["statement"]
        pending = tools.overlay(fact["fact_id"], "edit", quote="Atlas", text="Atlas Inc")
        assert pending["status"] == "pending_approval"
        with pytest.raises(Denied, match="cannot approve their own"):
            tools.approve(pending["approval_id"])
        assert "Atlas Labs" in tools.read(fact["fact_id"])[0]["statement"]
    with open_tools(ben, settings) as tools:
        approved = tools.approve(pending["approval_id"])
        assert approved["status"] == "approved"
        [read] = tools.read(fact["fact_id"])
        assert "Atlas Inc" in read["statement"] and "Atlas Labs" not in read["statement"]
    with psycopg.connect(world["url"]) as conn:
        statuses = dict(conn.execute("SELECT text, status FROM silver.overlays WHERE target_fact_id = %s",
                                     (fact["fact_id"],)).fetchall())
        assert statuses == {"Atlas Labs": "replaced", "Atlas Inc": "anchored"}
        current_edit = conn.execute(
            "SELECT bronze_event_id FROM silver.overlays WHERE text = 'Atlas Inc'").fetchone()[0]
    # deleting a person's overlay is a request too; once another admin approves, the derived text is back
    with open_tools(ben, settings) as tools:
        asked = tools.retract(current_edit, reason="the company kept its name")
        assert asked["status"] == "pending_approval"
        assert "Atlas Inc" in tools.read(fact["fact_id"])[0]["statement"]
    with open_tools(ana, settings) as tools:
        tools.approve(asked["approval_id"])
        [read] = tools.read(fact["fact_id"])
    assert "Atlas Inc" not in read["statement"] and "Atlas Labs" not in read["statement"]
    assert "Atlas" in read["statement"]
    assert any("Retracts overlay" in (o.get("note") or "") for o in read["overlays"])


def test_overlay_input_errors_are_one_sentence(world: dict[str, Any]) -> None:
    with open_tools(None, world["settings"]) as tools:
        any_fact = tools.list(namespace=OWN, limit=1)[0]
        with pytest.raises(ToolError, match="is not in fact"):
            tools.overlay(any_fact["fact_id"], "redact", quote="no such words here")
        with pytest.raises(ToolError, match="invalid overlay"):
            tools.overlay(any_fact["fact_id"], "edit", quote=any_fact["statement"][:3])


# ------------------------------------------------------------------ telemetry (G8) and recall (G5)
def test_every_call_is_logged_and_recall_names_its_hop(world: dict[str, Any]) -> None:
    settings = world["settings"]
    with psycopg.connect(world["url"]) as conn:
        before = conn.execute("SELECT count(*) FROM telemetry.retrievals").fetchone()[0]
    with open_tools(world["tokens"]["valid"], settings) as tools:
        tools.search("Lisbon", namespace=OWN)
        tools.list(namespace=OWN)
        graph = tools.recall("How is Alice related to Bob?", namespace=OWN)
        ledger = tools.recall("Where does Bob live?", namespace=OWN, stakes="high")
        with pytest.raises(Denied):
            tools.list(namespace=OTHER)
    assert graph["hop"] == "graph" and graph["answers"]
    assert ledger["hop"] == "ledger" and "high stakes" in ledger["reason"]
    with psycopg.connect(world["url"]) as conn:
        rows = conn.execute(
            "SELECT tool, namespace, ok, hit, cardinality(fact_ids) FROM telemetry.retrievals ORDER BY retrieval_id "
            "OFFSET %s", (before,)).fetchall()
    assert [r[0] for r in rows[:2]] == ["search", "list"]
    assert ("list", OTHER, False, False, 0) in rows
    assert all(r[2] for r in rows if r[1] == OWN)
    assert any(r[0] == "search" and r[3] and r[4] > 0 for r in rows)


def test_remember_through_cli_then_found(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Path) -> None:
    """The exact CLI form scripts rely on: remember with a content-hash default id, then search finds it."""
    _cli_env(monkeypatch, world["settings"])
    runner = CliRunner()
    result = runner.invoke(app, ["remember", "-n", OWN, "--content", "Frida prefers green tea.", "--json"])
    assert result.exit_code == 0, result.output
    written = json.loads(result.stdout)
    assert written["status"] == "inserted" and written["source"] == "cli" and len(written["source_event_id"]) == 32
    again = json.loads(runner.invoke(app, ["remember", "-n", OWN, "--content", "Frida prefers green tea.",
                                           "--json"]).stdout)
    assert again["status"] == "duplicate"
    hits = json.loads(runner.invoke(app, ["search", "green tea", "-n", OWN, "--json"]).stdout)
    assert any("green tea" in h["statement"] for h in hits)


def test_overlay_and_read_through_the_cli(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI forms scripts rely on: `overlay annotate|redact FACT_ID --quote ... --json`, then `read --json`."""
    fact = _fact(world["settings"], OWN, "Bob", "lives_in")
    _cli_env(monkeypatch, world["settings"])
    runner = CliRunner()
    noted = runner.invoke(app, ["overlay", "annotate", fact["fact_id"], "--quote", "Porto", "--note",
                                "confirmed by HR", "--json"])
    assert noted.exit_code == 0, noted.output
    assert json.loads(noted.stdout)["anchor_status"] == "anchored"
    redacted = runner.invoke(app, ["overlay", "redact", fact["fact_id"], "--quote", "Porto", "--json"])
    assert redacted.exit_code == 0, redacted.output
    [read] = json.loads(runner.invoke(app, ["read", fact["fact_id"], "--json"]).stdout)
    assert "Porto" not in json.dumps(read) and REDACTED in read["statement"]
    assert {o["action"] for o in read["overlays"]} == {"annotate", "redact"}
    missing = runner.invoke(app, ["overlay", "redact", fact["fact_id"], "--quote", "Atlantis", "--json"])
    assert missing.exit_code == 1 and "is not in fact" in missing.stderr
