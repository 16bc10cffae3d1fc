"""Overlay approvals hold whatever door an overlay event comes in by (security issue point 4).

A token with only ``remember`` once ingested ``kind=overlay`` events that retracted another
person's redaction (the redacted text was visible again) and rewrote a span that already carried an
overlay while the legitimate request was still pending. The derivation now honours ``retracts`` and
``replaces`` only for the event an approved request names, refuses an unapproved edit over a
person's edit, and the decision itself is taken inside the database from a verified token.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from medallion.bronze.contract import OverlayPayload, TextQuoteSelector
from medallion.bronze.ingest import ingest_events
from medallion.serve import capabilities
from medallion.serve.tools import REDACTED, Denied, open_tools
from medallion.settings import Settings
from medallion.silver.derive import derive

NS = "overlay-door"


@pytest.fixture
def world(settings: Settings, admin_conn: psycopg.Connection) -> Iterator[dict[str, Any]]:
    """Two remembered facts, and tokens for two admins (ana, ben) and a writer (mallory)."""
    with open_tools(None, settings) as tools:
        tools.remember(namespace=NS, content="My email is carol@atlas.dev.", actor="user:carol", kind="transcript")
        tools.remember(namespace=NS, content="I work at Atlas.", actor="user:alice", kind="transcript")
        email = tools.current("Carol", "email", namespace=NS)[0]
        work = tools.current("Alice", "works_at", namespace=NS)[0]
    tokens = {name: capabilities.grant(admin_conn, principal=f"user:{name}", verbs=verbs, namespaces=[NS],
                                       created_by="test")[1]
              for name, verbs in (("ana", ["admin", "overlay", "read"]), ("ben", ["admin", "overlay", "read"]),
                                  ("mallory", ["remember", "read"]))}
    yield {"email": email, "work": work, "tokens": tokens}


def _forged(fact: dict[str, Any], action: str, quote: str, metadata: dict[str, Any], text: str | None = None,
            seid: str = "forged-1") -> dict[str, Any]:
    """An overlay event as anyone could write it into a JSONL file."""
    payload = OverlayPayload(fact_id=fact["fact_id"], action=action,  # type: ignore[arg-type]
                             selector=TextQuoteSelector(exact=quote), text=text,
                             note="forged" if action == "annotate" else None)
    return {"namespace": NS, "source": "import", "source_event_id": seid, "kind": "overlay",
            "actor": "user:mallory", "content": payload.model_dump_json(), "provenance_root": "file://forged",
            "metadata": metadata}


def _status(conn: psycopg.Connection, source_event_id: str) -> str:
    return conn.execute("SELECT o.status FROM silver.overlays o JOIN bronze.events e ON e.event_id = o.bronze_event_id "
                        "WHERE e.source_event_id = %s", (source_event_id,)).fetchone()[0]


def test_an_ingested_retraction_does_not_unmask_a_redaction(
    settings: Settings, engine_conn: psycopg.Connection, world: dict[str, Any]
) -> None:
    """G7: `metadata.retracts` in an ingested overlay event is refused without an approved request."""
    secret = "carol@atlas.dev"
    with open_tools(world["tokens"]["ana"], settings) as ana:
        redaction = ana.overlay(world["email"]["fact_id"], "redact", quote=secret)["event_id"]
    forged = _forged(world["email"], "annotate", secret, {"retracts": redaction})
    assert ingest_events(engine_conn, [forged]).inserted == 1
    derive(engine_conn, settings, namespaces=[NS])
    assert _status(engine_conn, "forged-1") == "refused"
    with open_tools(None, settings) as tools:
        [read] = tools.read(world["email"]["fact_id"])
    assert secret not in json.dumps(read) and REDACTED in read["statement"]


def test_an_ingested_overwrite_waits_for_the_pending_approval(
    settings: Settings, engine_conn: psycopg.Connection, world: dict[str, Any]
) -> None:
    """G7: `replaces` (or a bare edit over the same span) is refused while the real request is pending."""
    fact = world["work"]
    with open_tools(world["tokens"]["ana"], settings) as ana:
        edit = ana.overlay(fact["fact_id"], "edit", quote="Atlas", text="Atlas Labs")["event_id"]
        pending = ana.overlay(fact["fact_id"], "edit", quote="Atlas", text="Atlas Inc")
    assert pending["status"] == "pending_approval"
    forged = [_forged(fact, "edit", "Atlas", {"replaces": edit}, text="Mallory Corp", seid="forged-1"),
              _forged(fact, "edit", "Atlas", {}, text="Mallory Ltd", seid="forged-2"),
              _forged(fact, "edit", "Atlas", {"replaces": edit, "approval_id": pending["approval_id"]},
                      text="Mallory Inc", seid="forged-3")]
    assert ingest_events(engine_conn, forged).inserted == 3
    derive(engine_conn, settings, namespaces=[NS])
    assert [_status(engine_conn, f"forged-{i}") for i in (1, 2, 3)] == ["refused"] * 3
    with open_tools(None, settings) as tools:
        statement = tools.read(fact["fact_id"])[0]["statement"]
    assert "Atlas Labs" in statement and "Mallory" not in statement
    # the real request, approved by a second person, carries the day
    with open_tools(world["tokens"]["ben"], settings) as ben:
        assert ben.approve(pending["approval_id"])["status"] == "approved"
        statement = ben.read(fact["fact_id"])[0]["statement"]
    assert "Atlas Inc" in statement and "Mallory" not in statement
    assert engine_conn.execute("SELECT status FROM silver.overlays WHERE bronze_event_id = %s",
                               (edit,)).fetchone()[0] == "replaced"


def test_the_decision_is_taken_in_the_database(
    settings: Settings, engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, world: dict[str, Any]
) -> None:
    """G7: the engine login cannot mark a request approved, nor bind it to an event that does not carry it out."""
    fact = world["work"]
    with open_tools(world["tokens"]["ana"], settings) as ana:
        edit = ana.overlay(fact["fact_id"], "edit", quote="Atlas", text="Atlas Labs")["event_id"]
        pending = ana.overlay(fact["fact_id"], "edit", quote="Atlas", text="Atlas Inc")
        with pytest.raises(Denied, match="cannot approve their own"):
            ana.approve(pending["approval_id"])
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        engine_conn.execute("UPDATE gold.approvals SET status = 'approved', decided_by = 'user:ben'")
    unrelated = engine_conn.execute("SELECT max(event_id) FROM bronze.events WHERE kind <> 'overlay'").fetchone()[0]
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="does not carry out"):
        engine_conn.execute("SELECT gold.approve_overlay(%s, %s, %s)",
                            (pending["approval_id"], unrelated, world["tokens"]["ben"]))
    with pytest.raises(psycopg.errors.InvalidAuthorizationSpecification):
        engine_conn.execute("SELECT gold.approve_overlay(%s, %s, %s)", (pending["approval_id"], unrelated, "user:ben"))
    # an event the requester planted with the approval's links is not the approver's, so it cannot carry it out
    planted = _forged(fact, "edit", "Atlas", {"replaces": edit,
                                              "approval_id": pending["approval_id"]}, text="Atlas Inc", seid="planted")
    planted["actor"] = "user:ana"
    [status] = ingest_events(engine_conn, [planted]).statuses
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="does not carry out"):
        engine_conn.execute("SELECT gold.approve_overlay(%s, %s, %s)",
                            (pending["approval_id"], status.event_id, world["tokens"]["ben"]))
    assert admin_conn.execute("SELECT status FROM gold.approvals WHERE approval_id = %s",
                              (pending["approval_id"],)).fetchone()[0] == "pending"
