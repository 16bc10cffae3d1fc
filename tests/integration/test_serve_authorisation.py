"""Serve-side authorisation: who is a second person, who files a request, who writes telemetry
(security issue 30, points 1, 2, 3 and 11).

An admin once minted an ``overlay`` token for a made-up principal (``puppet``), filed with it the
retraction of another person's redaction, approved it with her own admin token, and the email came
back unmasked. The engine login could file an approval request under any name, and the tool login
could append telemetry rows for any namespace and principal. Now a principal that the approver
minted, directly or through a chain, is not a second person; requests are filed by a database
function that names the requester itself; and a telemetry row must name the grant its tool backend
entered with.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from medallion.bronze.erasure import ErasureError, approve_erasure, request_erasure
from medallion.db.connection import connect
from medallion.serve import capabilities
from medallion.serve.session import TELEMETRY_TEXT_LIMIT
from medallion.serve.tools import REDACTED, Denied, ToolError, open_tools
from medallion.settings import Settings

NS = "auth-two"
OTHER = "auth-other"
SECRET = "carol@atlas.dev"


@pytest.fixture
def world(settings: Settings, admin_conn: psycopg.Connection) -> Iterator[dict[str, Any]]:
    """Carol's email, redacted by ana; admin tokens for ana and ben, named by the local admin."""
    local = capabilities.local_principal()
    with open_tools(None, settings) as tools:
        tools.remember(namespace=NS, content="My email is carol@atlas.dev.", actor="user:carol", kind="transcript")
        tools.remember(namespace=OTHER, content="I live in Oslo.", actor="user:dora", kind="transcript")
        email = tools.current("Carol", "email", namespace=NS)[0]
    caps: dict[str, tuple[str, str]] = {
        name: capabilities.grant(admin_conn, principal=f"user:{name}", verbs=["admin", "overlay", "read"],
                                 namespaces=[NS], created_by=local)
        for name in ("ana", "ben")}
    tokens = {name: token for name, (_, token) in caps.items()}
    with open_tools(tokens["ana"], settings) as ana:
        redaction = ana.overlay(email["fact_id"], "redact", quote=SECRET)["event_id"]
    yield {"email": email, "redaction": redaction, "tokens": tokens, "ids": {n: c for n, (c, _) in caps.items()}}


def _minted(admin_conn: psycopg.Connection, by_token: str, principal: str, verbs: list[str]) -> tuple[str, str]:
    """A capability of NS minted by the holder of ``by_token`` (as ``medallion capability grant`` does)."""
    by = capabilities.resolve(admin_conn, by_token)
    assert by is not None
    return capabilities.grant(admin_conn, principal=principal, verbs=verbs, namespaces=[NS],
                              created_by=by.capability_id, by=by)


def _unmasked(settings: Settings, fact_id: str) -> bool:
    with open_tools(None, settings) as tools:
        [read] = tools.read(fact_id)
    return SECRET in json.dumps(read) and REDACTED not in read["statement"]


# ------------------------------------------------------------------ point 1: a minted principal is not a second person
def test_an_admin_cannot_approve_the_request_of_a_principal_she_minted(
    settings: Settings, admin_conn: psycopg.Connection, world: dict[str, Any]
) -> None:
    """Point 1: ana mints `puppet` (overlay), files the retraction of her redaction with it, approves it: refused."""
    _, puppet = _minted(admin_conn, world["tokens"]["ana"], "puppet", ["overlay", "read"])
    with open_tools(puppet, settings) as tools:
        asked = tools.retract(world["redaction"], reason="no longer personal")
    assert asked["status"] == "pending_approval"
    with open_tools(world["tokens"]["ana"], settings) as ana, pytest.raises(Denied, match="user:ana minted"):
        ana.approve(asked["approval_id"])
    assert not _unmasked(settings, world["email"]["fact_id"])
    # a second person the local admin named decides, and the retraction takes effect
    with open_tools(world["tokens"]["ben"], settings) as ben:
        assert ben.approve(asked["approval_id"])["status"] == "approved"
    assert _unmasked(settings, world["email"]["fact_id"])


def test_a_chain_of_mints_is_still_the_same_person(
    settings: Settings, admin_conn: psycopg.Connection, world: dict[str, Any]
) -> None:
    """Point 1: ana → a second admin token of her own → `puppet2`; neither of ana's tokens may approve puppet2."""
    _, ana_again = _minted(admin_conn, world["tokens"]["ana"], "user:ana", ["admin", "overlay", "read"])
    puppet_id, puppet2 = _minted(admin_conn, ana_again, "puppet2", ["overlay"])
    # the chain is recorded from the minting capability, whatever name the caller passes as created_by
    laundered_id, _ = capabilities.grant(admin_conn, principal="puppet3", verbs=["overlay"], namespaces=[NS],
                                         created_by="local:root", by=capabilities.resolve(admin_conn, ana_again))
    assert admin_conn.execute("SELECT auth.lineage(%s)", (laundered_id,)).fetchone()[0] == ["puppet3", "user:ana"]
    assert admin_conn.execute("SELECT auth.lineage(%s)", (puppet_id,)).fetchone()[0] == ["puppet2", "user:ana"]
    with open_tools(puppet2, settings) as tools:
        asked = tools.retract(world["redaction"], reason="through a chain")
    for token in (world["tokens"]["ana"], ana_again):
        with open_tools(token, settings) as ana, pytest.raises(Denied, match="minted"):
            ana.approve(asked["approval_id"])
    assert not _unmasked(settings, world["email"]["fact_id"])
    assert admin_conn.execute("SELECT status, requested_by FROM gold.approvals WHERE approval_id = %s",
                              (asked["approval_id"],)).fetchone() == ("pending", "puppet2")


def test_an_admin_cannot_make_a_puppet_the_second_person_of_an_erasure(
    settings: Settings, engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, world: dict[str, Any]
) -> None:
    """Point 1 for erasures: both sides need admin, and an admin token grants admin only to its own principal,
    so a puppet can neither ask nor approve; the erasure rule needs no lineage of its own."""
    event = world["email"]["provenance"]["bronze_event_id"]
    with pytest.raises(capabilities.GrantRefused, match="admin only to its own principal"):
        _minted(admin_conn, world["tokens"]["ana"], "puppet", ["admin"])
    _, puppet = _minted(admin_conn, world["tokens"]["ana"], "puppet", ["overlay", "read"])
    with pytest.raises(ErasureError, match="needs admin"):
        request_erasure(engine_conn, event, "puppet asks", token=puppet)
    request_id = request_erasure(engine_conn, event, "ana asks", token=world["tokens"]["ana"])
    with pytest.raises(ErasureError, match="needs admin"):
        approve_erasure(engine_conn, request_id, token=puppet)
    _, ana_again = _minted(admin_conn, world["tokens"]["ana"], "user:ana", ["admin"])
    with pytest.raises(ErasureError, match="cannot approve their own"):
        approve_erasure(engine_conn, request_id, token=ana_again)
    assert admin_conn.execute("SELECT count(*) FROM bronze.events WHERE event_id = %s", (event,)).fetchone()[0] == 1


# ------------------------------------------------------------------ point 2: only a verifying function files a request
def test_the_engine_login_cannot_file_a_request_under_any_name(
    settings: Settings, engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, world: dict[str, Any]
) -> None:
    """Point 2: a pending `gold.approvals` row with a made-up `requested_by` cannot be inserted by the engine."""
    proposal = json.dumps({"payload": {}, "metadata": {}})
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        engine_conn.execute(
            "INSERT INTO gold.approvals (kind, namespace, fact_id, overlay_event_id, proposal, reason, requested_by) "
            "VALUES ('overlay_retract', %s, %s, %s, %s, 'x', 'user:nobody')",
            (NS, world["email"]["fact_id"], world["redaction"], proposal))
    call = "SELECT gold.request_overlay_change('overlay_retract', %s, %s, %s, 'x', %s, %s)"
    with pytest.raises(psycopg.errors.InvalidAuthorizationSpecification):  # a name where a token goes
        engine_conn.execute(call, (world["redaction"], world["email"]["fact_id"], proposal, "user:ben", None))
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="administrative login"):
        engine_conn.execute(call, (world["redaction"], world["email"]["fact_id"], proposal, None, "local:someone"))
    _, elsewhere = capabilities.grant(admin_conn, principal="user:eve", verbs=["overlay"], namespaces=[OTHER],
                                      created_by="test")
    _, reader = capabilities.grant(admin_conn, principal="user:rae", verbs=["read"], namespaces=[NS],
                                   created_by="test")
    for token in (elsewhere, reader):  # no overlay in the overlay's namespace: as if it did not exist
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="no overlay"):
            engine_conn.execute(call, (world["redaction"], world["email"]["fact_id"], proposal, token, None))
    assert admin_conn.execute("SELECT count(*) FROM gold.approvals").fetchone()[0] == 0
    # the tools file through the function: the database names the requester and its capability
    with open_tools(world["tokens"]["ben"], settings) as ben:
        asked = ben.retract(world["redaction"], reason="ben asks")
    assert admin_conn.execute("SELECT a.requested_by, r.capability_id FROM gold.approvals a "
                              "JOIN auth.approval_requesters r USING (approval_id) WHERE approval_id = %s",
                              (asked["approval_id"],)).fetchone() == ("user:ben", world["ids"]["ben"])


# ------------------------------------------------------------------ point 3: telemetry names the session's grant
def _log(conn: psycopg.Connection, principal: str, namespace: str | None, *, ok: bool = True,
         query: str = "q") -> None:
    with conn.transaction():
        conn.execute("INSERT INTO telemetry.retrievals (tool, namespace, principal, query, hit, ok) "
                     "VALUES ('forged', %s, %s, %s, false, %s)", (namespace, principal, query, ok))


def test_the_tool_login_writes_telemetry_only_for_its_own_grant(
    settings: Settings, admin_conn: psycopg.Connection, world: dict[str, Any]
) -> None:
    """Point 3: rows for another principal, another namespace, or with no verified session are refused."""
    conn = connect(settings, "tool", autocommit=True)
    try:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # no grant entered yet
            _log(conn, "user:anyone", NS)
        [cap_id] = conn.execute("SELECT capability_id FROM auth.enter(%s)", (world["tokens"]["ana"],)).fetchone()
        for principal, namespace in (("user:ben", NS), (world["ids"]["ben"], NS), ("local:root", None),
                                     (cap_id, OTHER)):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                _log(conn, principal, namespace)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # the cap holds in the database too
            _log(conn, cap_id, NS, query="x" * (TELEMETRY_TEXT_LIMIT + 1))
        _log(conn, cap_id, NS)
        _log(conn, cap_id, OTHER, ok=False)  # a refused call names the namespace it asked for
    finally:
        conn.close()
    rows = admin_conn.execute("SELECT principal, namespace, ok FROM telemetry.retrievals WHERE tool = 'forged' "
                              "ORDER BY retrieval_id").fetchall()
    assert rows == [(cap_id, NS, True), (cap_id, OTHER, False)]


def test_a_revoked_token_is_still_logged_under_its_capability(
    settings: Settings, admin_conn: psycopg.Connection, world: dict[str, Any]
) -> None:
    """Point 3: the row of a call refused after revocation names the capability, not a placeholder."""
    cap_id, token = capabilities.grant(admin_conn, principal="user:rae", verbs=["list"], namespaces=[NS],
                                       created_by="test")
    with open_tools(token, settings) as tools:
        tools.list(namespace=NS)
        capabilities.revoke(admin_conn, cap_id)
        with pytest.raises(Denied):
            tools.list(namespace=NS)
    rows = admin_conn.execute("SELECT principal, ok FROM telemetry.retrievals WHERE tool = 'list' "
                              "ORDER BY retrieval_id").fetchall()
    assert rows == [(cap_id, True), (cap_id, False)]


# ------------------------------------------------------------------ point 11: small doors
def test_a_count_below_one_is_one_sentence(settings: Settings, world: dict[str, Any]) -> None:
    """Point 11: `list(limit=-1)` raised a raw psycopg error; every count is checked at the door."""
    with open_tools(None, settings) as tools:
        for call in (lambda: tools.list(namespace=NS, limit=-1), lambda: tools.list(namespace=NS, limit=0),
                     lambda: tools.list(namespace=NS, limit=True),
                     lambda: tools.search("email", namespace=NS, k=-3),
                     lambda: tools.recall("email", namespace=NS, k=0),
                     lambda: tools.relate("Carol", "Atlas", namespace=NS, max_depth=50)):
            with pytest.raises(ToolError, match="must be a whole number from 1") as refused:
                call()
            assert "\n" not in str(refused.value)
        assert tools.list(namespace=NS, limit=1)


def test_a_principal_must_be_one_name_and_never_the_local_admins(admin_conn: psycopg.Connection) -> None:
    """Point 11: `' local:root'` (leading space) was accepted as a principal."""
    for principal in (" local:root", "local:root ", "LOCAL:root", "Local:root", "user: ana", "user:\tana", "",
                      "a" * 201):
        with pytest.raises((ValueError, capabilities.GrantRefused)):
            capabilities.grant(admin_conn, principal=principal, verbs=["read"], namespaces=[NS], created_by="test")
    with pytest.raises(psycopg.errors.CheckViolation):  # the database refuses it from any other path too
        admin_conn.execute("INSERT INTO auth.capabilities (capability_id, principal, token_hash, verbs, namespaces, "
                           "created_by) VALUES ('cap_x', ' local:root', repeat('0', 64), '{read}', '{x}', 'test')")
    assert admin_conn.execute("SELECT count(*) FROM auth.capabilities").fetchone()[0] == 0


def test_a_grant_that_has_already_expired_is_refused(admin_conn: psycopg.Connection) -> None:
    """Point 11: a grant whose expiry has passed was accepted (and printed a token that never worked)."""
    for when in (datetime.now(UTC) - timedelta(seconds=1), datetime(2020, 1, 1, tzinfo=UTC)):
        with pytest.raises(ValueError, match="already passed"):
            capabilities.grant(admin_conn, principal="user:late", verbs=["read"], namespaces=[NS],
                               expires_at=when, created_by="test")
    with pytest.raises(ValueError, match="UTC offset"):
        capabilities.grant(admin_conn, principal="user:late", verbs=["read"], namespaces=[NS],
                           expires_at=datetime(2099, 1, 1), created_by="test")
    assert admin_conn.execute("SELECT count(*) FROM auth.capabilities").fetchone()[0] == 0


def test_telemetry_keeps_at_most_two_thousand_characters_of_a_query(
    settings: Settings, admin_conn: psycopg.Connection, world: dict[str, Any]
) -> None:
    """Point 11: a 20 MB query was stored whole in telemetry; the call is logged, its text cut."""
    huge = "where does carol work " * 1_000_000  # 22 MB
    _, token = capabilities.grant(admin_conn, principal="user:wren", verbs=["remember"], namespaces=[NS],
                                  created_by="test")
    with open_tools(token, settings) as tools, pytest.raises(Denied):
        tools.search(huge, namespace=NS)
    [(length, error_length)] = admin_conn.execute(
        "SELECT length(query), length(error) FROM telemetry.retrievals WHERE tool = 'search'").fetchall()
    assert length == TELEMETRY_TEXT_LIMIT == 2000 and error_length < TELEMETRY_TEXT_LIMIT


def test_the_puppet_attack_through_the_cli(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, world: dict[str, Any]
) -> None:
    """Points 1 and 11 as the issue ran them: `capability grant` with ana's token, the puppet retracts, ana
    approves: exit 2 in one sentence, and the redaction holds; a `' local:root'` principal and an expiry
    already passed are refused in one sentence (exit 1)."""
    from typer.testing import CliRunner

    from medallion.interfaces.cli import app

    monkeypatch.setenv("MEDALLION_DATABASE_URL", settings.database_url or "")
    monkeypatch.setenv("MEDALLION_HOME", str(settings.home))

    def run(*argv: str, token: str) -> Any:
        monkeypatch.setenv("MEDALLION_TOKEN", token)
        return CliRunner().invoke(app, list(argv))

    ana = world["tokens"]["ana"]
    minted = run("capability", "grant", "--verbs", "overlay", "--principal", "puppet", "-n", NS, "--json", token=ana)
    assert minted.exit_code == 0, minted.output
    puppet = json.loads(minted.stdout)["token"]
    asked = run("overlay", "retract", str(world["redaction"]), "--reason", "x", "--json", token=puppet)
    assert asked.exit_code == 0, asked.output
    approval = json.loads(asked.stdout)["approval_id"]
    refused = run("overlay", "approve", str(approval), token=ana)
    assert refused.exit_code == 2 and "is not a second person" in refused.output
    assert "Traceback" not in refused.output and not _unmasked(settings, world["email"]["fact_id"])
    for extra, words in ((["--principal", " local:root"], "without spaces"),
                         (["--principal", "Local:root"], "local admin"),
                         (["--principal", "user:late", "--expires", "2020-01-01T00:00:00Z"], "already passed")):
        bad = run("capability", "grant", "--verbs", "read", "-n", NS, *extra, token=ana)
        assert bad.exit_code in (1, 2) and words in bad.output and "Traceback" not in bad.output, bad.output
