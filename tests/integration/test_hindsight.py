"""A2 / G5: the Hindsight mirror, its sampled drift audit and the recall hop, against a real server.

The server is ``hindsight-api-slim`` started once per session on loopback (``tests/support/
hindsight_server.py``), fully offline (mock LLM, chunk extraction, bundled MiniLM embeddings).
Each test uses its own namespace, hence its own Hindsight bank.
"""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from collections.abc import Iterator

import psycopg
import pytest

pytest.importorskip("hindsight_client", reason="the [hindsight] extra is not installed")

from medallion.audit import hindsight_mirror  # noqa: E402
from medallion.peers.hindsight import HindsightError, HindsightPeer, Memory  # noqa: E402
from medallion.serve.tools import Tools, open_tools  # noqa: E402
from medallion.settings import Settings  # noqa: E402
from tests.support.hindsight_server import STARTUP_SECONDS, hindsight_url  # noqa: E402, F401

pytestmark = pytest.mark.slow  # started first: see tests/conftest.py

ALICE = "user:alice"
BOB = "user:bob"


@pytest.fixture
def peer(hindsight_url: str) -> Iterator[HindsightPeer]:  # noqa: F811
    p = HindsightPeer(hindsight_url)
    yield p
    p.close()


@pytest.fixture
def tools(settings: Settings) -> Iterator[Tools]:
    t = open_tools(None, settings)
    yield t
    t.close()


@pytest.fixture
def ns() -> str:
    return f"hs-{uuid.uuid4().hex[:10]}"


def _ledger(tools: Tools, ns: str) -> None:
    """A small ledger of authority-1 facts (a person's own statements derive immediately)."""
    tools.remember(namespace=ns, content="I live in Lisbon.", actor=ALICE, kind="transcript")
    tools.remember(namespace=ns, content="I work at Acme.", actor=ALICE, kind="transcript")
    tools.remember(namespace=ns, content="I live in Berlin.", actor=BOB, kind="transcript")


def _slot(engine_conn: psycopg.Connection, ns: str, statement_like: str) -> str:
    """The Hindsight document id of the current fact whose statement matches."""
    facts = [f for f in hindsight_mirror.ledger_facts(engine_conn, [ns], authoritative_only=True)
             if statement_like in f.statement]
    assert len(facts) == 1, [f.statement for f in hindsight_mirror.ledger_facts(engine_conn, [ns])]
    return facts[0].document_id


def _statuses(results: list[dict]) -> dict[str, str]:
    return {r["slot"]: r["status"] for r in results}


def test_mirror_then_sampled_audit_finds_each_drift(tools: Tools, engine_conn: psycopg.Connection,
                                                    peer: HindsightPeer, ns: str) -> None:
    """A2: mirror → all agree; supersede without re-mirror → stale; delete → missing;
    a conflicting write → disagree; re-mirror → all agree again."""
    _ledger(tools, ns)
    facts = hindsight_mirror.ledger_facts(engine_conn, [ns], authoritative_only=True)
    assert len(facts) == 3 and all(f.authority == 1 for f in facts)

    first = hindsight_mirror.mirror(engine_conn, peer, [ns])
    assert first["facts"] == 3 and first["retained"] == 3 and first["invalidated_documents"] == 0
    results = hindsight_mirror.sample_audit(engine_conn, peer, n=20, namespaces=[ns])
    assert len(results) == 3 and {r["status"] for r in results} == {"agree"}, results
    again = hindsight_mirror.mirror(engine_conn, peer, [ns])
    assert again["retained"] == 0 and again["unchanged"] == 3, "a re-mirror of an unchanged ledger retains nothing"

    lives = _slot(engine_conn, ns, "Lisbon")
    works = _slot(engine_conn, ns, "Acme")
    bob = _slot(engine_conn, ns, "Berlin")

    # the ledger moves on; Hindsight is not told
    tools.remember(namespace=ns, content="I moved to Porto.", actor=ALICE, kind="transcript")
    assert _slot(engine_conn, ns, "Porto") == lives, "the move supersedes within the same slot"
    # Hindsight loses one document and receives a conflicting value for another
    assert peer.delete(ns, bob) is True
    assert peer.delete(ns, bob) is False
    peer.retain(ns, works, "Alice works at Globex.", {"source": "an agent writing to Hindsight directly"})

    results = hindsight_mirror.sample_audit(engine_conn, peer, n=20, namespaces=[ns])
    by_slot = {r["slot"]: r for r in results}
    assert _statuses(results) == {lives: "stale", works: "disagree", bob: "missing"}
    assert "Porto" in by_slot[lives]["ledger_value"] and by_slot[lives]["hindsight_value"] == "Lisbon"
    assert by_slot[works]["hindsight_value"] == "Alice works at Globex."
    assert by_slot[bob]["hindsight_value"] is None
    findings = hindsight_mirror.as_findings(results)
    assert {f["status"] for f in findings} == {"stale", "disagree", "missing"}
    assert all(f["check"] == "hindsight" and f["namespace"] == ns for f in findings)

    healed = hindsight_mirror.mirror(engine_conn, peer, [ns])
    assert healed["retained"] == 3 and healed["unchanged"] == 0, healed
    print(f"\nmirror: first {first}\nmirror: unchanged {again}\nmirror: healing {healed}")
    results = hindsight_mirror.sample_audit(engine_conn, peer, n=20, namespaces=[ns])
    assert {r["status"] for r in results} == {"agree"}, results
    [porto] = peer.value_of(ns, lives)
    assert "Porto" in porto.text and porto.fact_id == by_slot[lives]["fact_id"]


def test_many_valued_slot_mirrors_each_value_as_its_own_document(
        tools: Tools, engine_conn: psycopg.Connection, peer: HindsightPeer, ns: str) -> None:
    """A2: each value of a many-valued predicate is its own document, so one value never erases another."""
    tools.remember(namespace=ns, content="I use Neovim.", actor=ALICE, kind="transcript")
    tools.remember(namespace=ns, content="I use Docker.", actor=ALICE, kind="transcript")
    uses = [f for f in hindsight_mirror.ledger_facts(engine_conn, [ns], authoritative_only=True)
            if f.predicate == "uses"]
    assert len(uses) == 2 and len({f.document_id for f in uses}) == 2, uses
    assert all(f.document_id.startswith(f"{f.subject_id}:uses:") for f in uses)
    assert hindsight_mirror.mirror(engine_conn, peer, [ns])["retained"] == 2
    results = hindsight_mirror.sample_audit(engine_conn, peer, n=20, namespaces=[ns])
    assert sorted(r["slot"] for r in results) == sorted(f.document_id for f in uses)
    assert {r["status"] for r in results} == {"agree"}


def test_mirror_serves_the_fact_with_overlays_so_a_redaction_never_reaches_hindsight(
        tools: Tools, engine_conn: psycopg.Connection, peer: HindsightPeer, ns: str) -> None:
    """A2 + G6: the mirror retains the fact as served; a redacted span is masked in Hindsight too."""
    _ledger(tools, ns)
    hindsight_mirror.mirror(engine_conn, peer, [ns])
    works = next(f for f in hindsight_mirror.ledger_facts(engine_conn, [ns]) if "Acme" in f.statement)
    out = tools.overlay(works.fact_id, "redact", quote="Acme")
    assert out.get("anchor_status") in ("anchored", "reanchored"), out
    assert hindsight_mirror.mirror(engine_conn, peer, [ns])["retained"] == 1
    [memory] = peer.value_of(ns, works.document_id)
    assert "Acme" not in memory.text and "[redacted]" in memory.text
    assert "Acme" not in memory.metadata["value_text"]
    assert {r["status"] for r in hindsight_mirror.sample_audit(engine_conn, peer, namespaces=[ns])} == {"agree"}
    # a redaction made after the last mirror: the verified recall hop serves the ledger's masked text
    tools.overlay(works.fact_id, "redact", quote="works at")
    [answer] = [a for a in hindsight_mirror.recall(peer, ns, "Where does Alice work?", k=5, conn=engine_conn)
                if a["fact_id"] == works.fact_id]
    assert "works at" not in answer["statement"] and "works at" in answer["hindsight_statement"]


def test_sample_is_deterministic_and_bounded(tools: Tools, engine_conn: psycopg.Connection, peer: HindsightPeer,
                                             ns: str) -> None:
    """A2: the same seed draws the same slots; N bounds the sample."""
    _ledger(tools, ns)
    hindsight_mirror.mirror(engine_conn, peer, [ns])
    two = [r["slot"] for r in hindsight_mirror.sample_audit(engine_conn, peer, n=2, seed=7, namespaces=[ns])]
    assert len(two) == 2
    assert two == [r["slot"] for r in hindsight_mirror.sample_audit(engine_conn, peer, n=2, seed=7, namespaces=[ns])]
    assert hindsight_mirror.sample_audit(engine_conn, peer, n=0, namespaces=[ns]) == []


def test_slot_without_authoritative_fact_is_invalidated(tools: Tools, engine_conn: psycopg.Connection,
                                                        admin_conn: psycopg.Connection, peer: HindsightPeer,
                                                        ns: str) -> None:
    """A2: a mirrored slot the ledger no longer holds an authoritative current fact for is invalidated
    in Hindsight (out of its recall), not deleted; documents the mirror never wrote are left alone."""
    _ledger(tools, ns)
    hindsight_mirror.mirror(engine_conn, peer, [ns])
    bob = _slot(engine_conn, ns, "Berlin")
    peer.retain(ns, "agent-note-1", "Bob prefers tea.", {})
    # the slot's fact is closed with no successor (as a retraction would leave it)
    admin_conn.execute("UPDATE silver.facts SET valid_to = clock_timestamp(), superseded_at = clock_timestamp() "
                       "WHERE namespace = %s AND statement LIKE %s", (ns, "%Berlin%"))
    out = hindsight_mirror.mirror(engine_conn, peer, [ns])
    assert out["invalidated_documents"] == 1 and out["invalidated_memories"] == 1 and out["retained"] == 0, out
    assert peer.value_of(ns, bob) == []
    assert all(a["document_id"] != bob for a in peer.recall(ns, "Where does Bob live?", 10))
    assert [m.text for m in peer.value_of(ns, "agent-note-1")] == ["Bob prefers tea."]
    # nothing left to invalidate on the next run
    assert hindsight_mirror.mirror(engine_conn, peer, [ns])["invalidated_documents"] == 0


def test_recall_hop_returns_mirrored_statement_and_never_a_superseded_one(
        tools: Tools, engine_conn: psycopg.Connection, peer: HindsightPeer, ns: str) -> None:
    """G5: the Hindsight hop answers with the mirrored statement and its ledger fact id; verified against
    the ledger, a fact superseded since the last mirror is dropped rather than served as current."""
    _ledger(tools, ns)
    hindsight_mirror.mirror(engine_conn, peer, [ns])
    lisbon = next(f for f in hindsight_mirror.ledger_facts(engine_conn, [ns]) if "Lisbon" in f.statement)

    answers = hindsight_mirror.recall(peer, ns, "Where does Alice live?", k=3)
    assert answers and answers[0]["statement"] == lisbon.statement, answers
    assert answers[0]["fact_id"] == lisbon.fact_id and answers[0]["document_id"] == lisbon.document_id
    assert answers[0]["hop"] == "hindsight" and answers[0]["value"] == lisbon.value_text
    verified = hindsight_mirror.recall(peer, ns, "Where does Alice live?", k=3, conn=engine_conn)
    assert verified[0]["fact_id"] == lisbon.fact_id and verified[0]["verified"] is True

    tools.remember(namespace=ns, content="I moved to Porto.", actor=ALICE, kind="transcript")
    unverified = hindsight_mirror.recall(peer, ns, "Where does Alice live?", k=3)
    assert lisbon.fact_id in {a["fact_id"] for a in unverified}, "Hindsight still holds the old value"
    verified = hindsight_mirror.recall(peer, ns, "Where does Alice live?", k=3, conn=engine_conn)
    assert lisbon.fact_id not in {a["fact_id"] for a in verified}
    assert hindsight_mirror.recall(peer, "hs-no-such-bank", "anything", k=3) == []


def test_peer_is_usable_inside_a_running_event_loop_and_closes_cleanly(hindsight_url: str,  # noqa: F811
                                                                       ns: str) -> None:
    """The peer owns its loop thread: callable from async code (Dagster, MCP) and closable twice."""
    p = HindsightPeer(hindsight_url)

    async def inside() -> list[Memory]:
        p.retain(ns, "doc-1", "Carol likes green tea.", {"fact_id": "f-1"})
        return p.value_of(ns, "doc-1")

    assert p.health() is True
    [memory] = asyncio.run(inside())
    assert memory.text == "Carol likes green tea." and memory.fact_id == "f-1"
    assert p.value_of("hs-no-such-bank", "doc-1") == []
    p.close()
    p.close()
    with pytest.raises(HindsightError):
        p.value_of(ns, "doc-1")
    with HindsightPeer("http://127.0.0.1:9", timeout=5) as dead:
        assert dead.health() is False
        with pytest.raises(HindsightError, match="unreachable"):
            dead.value_of(ns, "doc-1")


def test_round_trip_timings(hindsight_url: str, peer: HindsightPeer, ns: str) -> None:  # noqa: F811
    """Measures retain (replace), list by document and recall round trips; printed for the closing note."""
    peer.retain(ns, "warm", "Warm-up memory.", {})
    samples: dict[str, list[float]] = {"retain": [], "list_by_document": [], "recall": [], "invalidate": []}
    for i in range(10):
        doc = f"doc-{i}"
        t = time.perf_counter()
        peer.retain(ns, doc, f"Person {i} lives in city number {i}.", {"fact_id": f"f{i}"})
        samples["retain"].append(time.perf_counter() - t)
        t = time.perf_counter()
        assert len(peer.value_of(ns, doc)) == 1
        samples["list_by_document"].append(time.perf_counter() - t)
        t = time.perf_counter()
        peer.recall(ns, f"Where does person {i} live?", 5)
        samples["recall"].append(time.perf_counter() - t)
    for i in range(5):
        t = time.perf_counter()
        assert peer.invalidate(ns, f"doc-{i}") == 1
        samples["invalidate"].append(time.perf_counter() - t)
    startup = STARTUP_SECONDS.get(hindsight_url)
    print(f"\nHindsight start-up to /health: {startup:.1f} s" if startup else "\nHindsight: external server")
    for name, values in samples.items():
        print(f"Hindsight {name}: median {statistics.median(values) * 1000:.1f} ms, "
              f"max {max(values) * 1000:.1f} ms over {len(values)}")


def test_cascade_hindsight_for_low_stakes_ledger_for_high_never_superseded(
        settings: Settings, engine_conn: psycopg.Connection, peer: HindsightPeer, hindsight_url: str,  # noqa: F811
        ns: str) -> None:
    """G5: low stakes → the Hindsight hop (verified); high stakes → the ledger; never a superseded fact."""
    configured = settings.model_copy(update={"hindsight_url": hindsight_url})
    with open_tools(None, configured) as tools:
        _ledger(tools, ns)
        hindsight_mirror.mirror(engine_conn, peer, [ns])
        low = tools.recall("Where does Alice live?", namespace=ns, stakes="low")
        assert low["hop"] == "hindsight" and "Hindsight" in low["reason"]
        assert any(a["statement"] == "Alice lives in Lisbon." and a["current"] for a in low["answers"])
        assert {"fact_id", "provenance", "valid_from", "authority"} <= set(low["answers"][0])
        high = tools.recall("Where does Alice live?", namespace=ns, stakes="high")
        assert high["hop"] == "ledger" and "high stakes" in high["reason"]
        # the ledger moves on; Hindsight still holds Lisbon until the next mirror
        tools.remember(namespace=ns, content="I moved to Porto.", actor=ALICE, kind="transcript")
        again = tools.recall("Where does Alice live?", namespace=ns, stakes="low")
        served = [a for a in again["answers"] if a.get("predicate") == "lives_in"]
        assert all("Lisbon" not in a["statement"] or not a["current"] for a in again["answers"])
        assert again["hop"] == "ledger" or not served or all(a["valid_to"] is None for a in served)


def test_drift_audit_includes_the_hindsight_sample(settings: Settings, engine_conn: psycopg.Connection,
                                                   peer: HindsightPeer, hindsight_url: str, ns: str) -> None:  # noqa: F811
    """A1 (d): with HINDSIGHT_URL configured, the audit samples the peer and reports drift as warnings."""
    from medallion.audit import drift

    configured = settings.model_copy(update={"hindsight_url": hindsight_url, "audit_sample": 50})
    with open_tools(None, configured) as tools:
        _ledger(tools, ns)
        hindsight_mirror.mirror(engine_conn, peer, [ns])
        clean = drift.run_audit(engine_conn, configured, hindsight_sample=drift.configured_sampler(configured))
        assert not [f for f in clean.findings if f.check == "hindsight" and f.namespace == ns]
        peer.delete(ns, _slot(engine_conn, ns, "works at Acme"))
        report = drift.run_audit(engine_conn, configured, hindsight_sample=drift.configured_sampler(configured))
    mine = [f for f in report.findings if f.check == "hindsight" and f.namespace == ns]
    assert len(mine) == 1 and "missing" in mine[0].detail and mine[0].severity == "warning"
