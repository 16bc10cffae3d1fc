"""R10: poison events never halt the derivation; each is parked with its reason, the rest goes on.

Each Bronze class below once got past ingest and then stopped ``silver_derive`` for every namespace,
or crashed the read side of one. The Bronze contract now refuses them at the door, so they are
written here straight into ``bronze.events`` as the superuser (what an older contract, a restore or
a bug could have let in): the derivation is the second line of defence. A test distiller adds what
a model could make of ordinary input: an exception, a lone surrogate, a value that is not JSON, a
NUL that only PostgreSQL refuses (at the window's commit) and a date no reader can convert. A
distiller that never finishes an event (a regular expression that backtracks without end) is
stopped at its CPU budget and the event parked the same way.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import dagster as dg
import psycopg
import pytest
from psycopg.types.json import Jsonb

from dagster_project.assets.silver import silver_derive
from dagster_project.resources import MedallionResource
from medallion.bronze.ingest import ingest_events
from medallion.distill.providers import DistillError
from medallion.distill.providers.heuristic import HeuristicDistiller
from medallion.distill.types import EventInput, FactCandidate
from medallion.publish import wiki
from medallion.publish.dbt_runner import DBT_PROJECT_DIR, dbt_env, dbt_executable
from medallion.serve.tools import open_tools
from medallion.settings import Settings
from medallion.silver import derive as derive_module
from medallion.silver.derive import _poison, derive, ledger_hash
from tests.support.dagster_runs import materialize_all_partitions

A, B = "poison-a", "poison-b"
WHEN = "2026-01-05T10:00:00+00:00"
YEAR_ONE = "0001-01-01T00:00:00+01:00"  # stored as 0001-12-31 23:00 UTC BC: Python cannot hold it
OVERLAY = json.dumps({"fact_id": "f" * 24, "action": "annotate", "selector": {"exact": "Lisbon"}, "note": "check"})

# Bronze poison: (source_event_id, kind, content, occurred_at, metadata). The first group must be
# parked; the second is parked by a contract-aware derivation or derived with a safe value.
PARKED_RAW = [
    ("year-one-bc", "note", "We met at the old harbour.", YEAR_ONE, {}),
    ("year-ten-thousand", "note", "We met at the new harbour.", "9999-12-31T23:30:00-01:00", {}),
    ("nul-in-fact", "fact", json.dumps({"subject": "Mal\u0000lory", "predicate": "lives_in", "value": "Paris"}),
     WHEN, {}),
    ("anchor-not-object", "overlay", OVERLAY, WHEN, {"anchor": "x"}),
    ("retracts-not-id", "overlay", OVERLAY, WHEN, {"retracts": "abc"}),
    ("replaces-a-list", "overlay", OVERLAY, WHEN, {"replaces": [1]}),
    ("replaces-beyond-64-bits", "overlay", OVERLAY, WHEN, {"replaces": 2**70}),
]
PARKED_OR_SAFE_RAW = [
    ("valid-from-year-one", "fact",
     json.dumps({"subject": "Carol", "predicate": "lives_in", "value": "Oslo", "valid_from": YEAR_ONE}), WHEN, {}),
    ("value-beyond-64-bits", "fact", json.dumps({"subject": "Dave", "predicate": "age", "value": 2**70}), WHEN, {}),
]
# Distiller poison: marker in an ordinary turn -> the step it must be parked at (None: derived).
MARKERS = {"POISON-CRASH": "distill", "POISON-SURROGATE": "embed", "POISON-SET": "resolve", "POISON-NUL": "write",
           "POISON-DATE": None}
CASES = len(PARKED_RAW) + len(PARKED_OR_SAFE_RAW) + len(MARKERS)  # 14 poison classes (README R10 row)


class PoisonDistiller:
    """The heuristic distiller, except for turns carrying a marker, which get a crafted candidate.

    Named ``heuristic`` so no model call is metered. A crafted candidate cannot be memoised (a set,
    a lone surrogate, a NUL are not storable JSON text), so a rebuild calls it again and sees the same.
    """

    name = "heuristic"

    def __init__(self) -> None:
        self.inner = HeuristicDistiller()

    def distill(self, event: EventInput) -> list[FactCandidate]:
        base = FactCandidate("Zed", "lives_in", "Rome", "Zed lives in Rome.", event.occurred_at, 0.9, None, "Rome")
        if "POISON-CRASH" in event.content:
            raise RuntimeError("the model answered with something that is not a list of facts")
        if "POISON-SURROGATE" in event.content:
            return [replace(base, statement="Zed lives in \ud800Rome.")]
        if "POISON-SET" in event.content:
            return [replace(base, value={"Rome", "Milan"}, object_entity=None)]
        if "POISON-NUL" in event.content:
            return [replace(base, subject="Z\x00ed")]
        if "POISON-DATE" in event.content:
            return [replace(base, subject="Yara", statement="Yara lives in Rome.",
                            valid_from=datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))))]
        return self.inner.distill(event)


def _event(ns: str, seid: str, content: str, kind: str = "transcript", **extra: Any) -> dict[str, Any]:
    return {"namespace": ns, "source": "chat", "source_event_id": seid, "kind": kind, "actor": "user:alice",
            "content": content, "occurred_at": WHEN, "provenance_root": f"chat://{ns}/{seid}", **extra}


def _valid(ns: str, tag: str) -> list[dict[str, Any]]:
    return [
        _event(ns, f"{tag}-1", "I'm Alice and I work at Atlas."),
        _event(ns, f"{tag}-2", json.dumps({"subject": f"Alice {tag}", "predicate": "lives_in", "value": "Lisbon"}),
               kind="fact"),
        _event(ns, f"{tag}-3", "# Readme\n\nThe release train leaves on Fridays.", kind="document",
               metadata={"path": f"docs/{tag}.md"}),
        _event(ns, f"{tag}-4", OVERLAY, kind="overlay"),
        _event(ns, f"{tag}-5", "Bob said the standup moves to 10am."),
    ]


def _raw(admin: psycopg.Connection, ns: str, seid: str, kind: str, content: str, occurred_at: str,
         metadata: dict[str, Any]) -> int:
    """Insert past the contract (superuser, plain SQL); the chain hash is a placeholder."""
    return admin.execute(
        "INSERT INTO bronze.events (namespace, source, source_event_id, kind, actor, content, content_hash, "
        "occurred_at, provenance_root, authority, metadata, chain_hash) VALUES (%s, 'poison', %s, %s, "
        "'user:mallory', %s, encode(sha256(convert_to(%s, 'UTF8')), 'hex'), %s::timestamptz, %s, 3, %s, %s) "
        "RETURNING event_id",
        (ns, seid, kind, content, content, occurred_at, f"poison://{seid}", Jsonb(metadata), "0" * 64),
    ).fetchone()[0]


def _land(engine: psycopg.Connection, admin: psycopg.Connection) -> dict[str, int]:
    """Valid events of A around the poison, valid events of B; returns poison source_event_id -> event id."""
    ingest_events(engine, _valid(A, "before"))
    ids = {seid: _raw(admin, A, seid, kind, content, at, meta)
           for seid, kind, content, at, meta in PARKED_RAW + PARKED_OR_SAFE_RAW}
    result = ingest_events(engine, [*_valid(A, "after"), *[_event(A, m, f"{m}: Zed lives in Rome.") for m in MARKERS],
                                    *_valid(B, "b")])
    assert result.ok
    for status in result.statuses:
        if status.source_event_id in MARKERS:
            ids[status.source_event_id] = status.event_id
    return ids


def _parked(conn: psycopg.Connection) -> dict[int, tuple[str, str]]:
    return {r[0]: (r[1], r[2]) for r in conn.execute(
        "SELECT bronze_event_id, step, reason FROM silver.derivation_failures").fetchall()}


def _derived(conn: psycopg.Connection) -> set[int]:
    return {r[0] for r in conn.execute("SELECT bronze_event_id FROM silver.derivations").fetchall()}


def test_poison_events_are_parked_and_everything_else_derives(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, settings: Settings,
) -> None:
    """R10: each poison class in A is parked with a reason (or stored safely); every other event of A
    and B derives; A stays readable; a second run and a full rebuild park and derive the same."""
    assert CASES == 14
    ids = _land(engine_conn, admin_conn)
    report = derive(engine_conn, settings, distiller=PoisonDistiller())

    parked, derived = _parked(engine_conn), _derived(engine_conn)
    every = {r[0] for r in engine_conn.execute("SELECT event_id FROM bronze.events").fetchall()}
    assert derived | set(parked) == every and not derived & set(parked), "each event is derived xor parked"
    must_park = {ids[seid] for seid, *_ in PARKED_RAW} | {ids[m] for m, step in MARKERS.items() if step}
    assert must_park <= set(parked)
    assert set(parked) - must_park <= {ids[seid] for seid, *_ in PARKED_OR_SAFE_RAW}
    assert len(report.failures) == len(parked)
    for event_id, (step, reason) in parked.items():
        assert step and len(reason) > 10 and "\x00" not in reason, (event_id, step, reason)
    assert parked[ids["year-one-bc"]][0] == parked[ids["year-ten-thousand"]][0] == "load"
    assert "0001" in parked[ids["year-one-bc"]][1] and "outside the range" in parked[ids["year-one-bc"]][1]
    for marker, step in MARKERS.items():
        if step:
            assert parked[ids[marker]][0] == step, marker
    assert "RuntimeError" in parked[ids["POISON-CRASH"]][1]
    assert parked[ids["POISON-NUL"]][1].startswith(("DataError", "UntranslatableCharacter"))
    # every valid event of A and B derived: its facts, chunks and documents are there
    valid = {r[0] for r in engine_conn.execute(
        "SELECT event_id FROM bronze.events WHERE source = 'chat' AND source_event_id NOT LIKE 'POISON-%'")}
    assert valid <= derived and len(valid) == 15
    facts = dict(engine_conn.execute("SELECT namespace, count(*) FROM silver.facts GROUP BY 1").fetchall())
    assert facts[A] >= 3 and facts[B] >= 1
    assert engine_conn.execute("SELECT count(*) FROM silver.documents").fetchone()[0] == 3
    # nothing stored that the read side cannot convert; the distiller's year 1 became occurred_at
    assert engine_conn.execute("SELECT count(*) FROM silver.facts WHERE valid_from < '1000-01-01 UTC' "
                               "OR valid_from >= '9000-01-01 UTC'").fetchone()[0] == 0
    yara = engine_conn.execute("SELECT f.valid_from, e.occurred_at FROM silver.facts f JOIN bronze.events e "
                               "ON e.event_id = f.bronze_event_id WHERE f.statement = 'Yara lives in Rome.'").fetchone()
    assert yara is not None and yara[0] == yara[1]
    # B's overlays anchored (unanchored: its fact does not exist) whatever happened to A's
    assert set(report.overlay_failures) <= {A}
    assert engine_conn.execute("SELECT count(*) FROM silver.overlays WHERE namespace = %s", (B,)).fetchone()[0] == 1

    # the read side of A: list, search, history, current and the wiki do not crash
    with open_tools(None, settings) as tools:
        listed = tools.list(namespace=A)
        assert any("Lisbon" in str(f.get("value")) for f in listed)
        assert tools.search("where does Alice live", namespace=A)
        for fact in listed:
            tools.history(fact["subject"], fact["predicate"], namespace=A)
            tools.current(fact["subject"], fact["predicate"], namespace=A)
        assert wiki.render(tools, [A]).pages

    # a second run retries the parked events and parks them again, deriving nothing twice
    again = derive(engine_conn, settings, distiller=PoisonDistiller())
    assert again.events == len(set(parked) & derived) == 0
    assert {k: v[0] for k, v in _parked(engine_conn).items()} == {k: v[0] for k, v in parked.items()}
    assert engine_conn.execute("SELECT min(attempts) FROM silver.derivation_failures").fetchone()[0] == 2
    # R7: a full rebuild parks the same events at the same steps and reaches the same ledger
    incremental = ledger_hash(engine_conn)
    derive(engine_conn, settings, full_rebuild=True, distiller=PoisonDistiller())
    assert {k: v[0] for k, v in _parked(engine_conn).items()} == {k: v[0] for k, v in parked.items()}
    assert _derived(engine_conn) == derived
    assert ledger_hash(engine_conn) == incremental


@pytest.mark.parametrize("marker", [m for m, step in MARKERS.items() if step])
def test_one_failing_event_in_a_window_parks_only_itself(
    engine_conn: psycopg.Connection, settings: Settings, marker: str,
) -> None:
    """A distill failure is parked in place; one at embed, resolve or the window's commit fails the
    fast path, and the window is derived again one event at a time: only the culprit is parked, at its
    step; the counts are not doubled; a full rebuild parks the same and reaches the same ledger."""
    valid = _valid(A, "a")
    ingest_events(engine_conn, [*valid[:3], _event(A, marker, f"{marker}: Zed lives in Rome."), *valid[3:]])
    report = derive(engine_conn, settings, distiller=PoisonDistiller())
    assert report.events == len(valid) and len(report.failures) == 1
    assert [(f["step"], f["namespace"]) for f in report.failures] == [(MARKERS[marker], A)]
    assert report.decisions.total() == engine_conn.execute("SELECT count(*) FROM silver.resolutions").fetchone()[0]
    assert report.chunks == engine_conn.execute("SELECT count(*) FROM silver.chunks").fetchone()[0]
    incremental = ledger_hash(engine_conn)
    rebuilt = derive(engine_conn, settings, full_rebuild=True, distiller=PoisonDistiller())
    assert [f["step"] for f in rebuilt.failures] == [MARKERS[marker]]
    assert ledger_hash(engine_conn) == incremental


def test_review_queue_lists_parked_events(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, settings: Settings, tmp_path: Path,
) -> None:
    """Each parked event is one review-queue item saying what failed and what to decide (dbt build)."""
    ids = _land(engine_conn, admin_conn)
    derive(engine_conn, settings, distiller=PoisonDistiller())
    parked = _parked(engine_conn)
    # the model, its parents and the tests on them only; target and logs kept out of the shared project
    command = [dbt_executable(), "build", "--select", "+review_queue", "--indirect-selection", "cautious", "--quiet",
               "--project-dir", str(DBT_PROJECT_DIR), "--profiles-dir", str(DBT_PROJECT_DIR),
               "--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs")]
    result = subprocess.run(command, capture_output=True, text=True, check=False, cwd=DBT_PROJECT_DIR,  # noqa: S603
                            env={**os.environ, **dbt_env(settings)}, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = engine_conn.execute(
        "SELECT item_id, namespace, severity, subject, summary, action FROM gold_marts.review_queue "
        "WHERE item_kind = 'derivation_failure'").fetchall()
    assert len(rows) == len(parked)
    by_event = {int(r[0].split(":")[1]): r for r in rows}
    assert set(by_event) == set(parked)
    for event_id, (step, reason) in parked.items():
        _, namespace, severity, subject, summary, action = by_event[event_id]
        assert namespace == A and severity == "medium" and subject
        assert f"event {event_id}" in summary and f"{step} step" in summary and reason in summary
        assert "erasure" in action and "Decide" in action
    assert by_event[ids["year-one-bc"]][3] == "poison:year-one-bc"


def test_materialize_succeeds_despite_poison(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, settings: Settings,
) -> None:
    """The Dagster asset (what `medallion materialize` runs) succeeds; its metadata counts the parked."""
    ingest_events(engine_conn, [*_valid(A, "a"), *_valid(B, "b")])
    _raw(admin_conn, A, "year-one-bc", "note", "We met at the old harbour.", YEAR_ONE, {})
    _raw(admin_conn, A, "anchor-not-object", "overlay", OVERLAY, WHEN, {"anchor": "x"})
    resource = MedallionResource(database_url=settings.database_url, home=str(settings.home),
                                 inbox=str(settings.inbox))
    result = materialize_all_partitions([silver_derive], resource)
    assert result.success
    meta = next(m for m in (e.materialization for e in result.get_asset_materialization_events())
                if m.asset_key == dg.AssetKey(["silver", "facts"])).metadata
    assert meta["failures"].value == 2 and meta["events_processed"].value == 10
    assert meta["overlay_failures"].value == {}
    assert len(_parked(engine_conn)) == 2


def test_overlay_anchoring_failure_spares_other_namespaces(
    engine_conn: psycopg.Connection, settings: Settings, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """If anchoring one namespace's overlays raises, derive() reports it and anchors the others."""
    ingest_events(engine_conn, [*_valid(A, "a"), *_valid(B, "b")])
    real = derive_module.overlays.rebuild

    def failing(conn: psycopg.Connection, fingerprint: str, namespaces: Any = None) -> dict[str, int]:
        if namespaces is not None and A in namespaces:
            conn.execute("DELETE FROM silver.overlays")  # undone with the namespace's savepoint
            raise ValueError("invalid literal for int() with base 10: 'abc'")
        return real(conn, fingerprint, namespaces)

    monkeypatch.setattr(derive_module.overlays, "rebuild", failing)
    report = derive(engine_conn, settings)
    assert report.events == 10 and not report.failures
    assert list(report.overlay_failures) == [A] and "ValueError" in report.overlay_failures[A]
    assert report.overlays == {"unanchored": 1}
    assert engine_conn.execute("SELECT namespace FROM silver.overlays").fetchall() == [(B,)]


def test_database_trouble_is_raised_not_parked() -> None:
    """Only a failure that may be the event's own is parked; a lost connection or a deadlock stops the
    run (it resumes next time) instead of parking an innocent event."""
    assert _poison(psycopg.DataError("PostgreSQL text fields cannot contain NUL (0x00) bytes"))
    assert _poison(psycopg.errors.NumericValueOutOfRange())
    assert _poison(psycopg.errors.ProgramLimitExceeded())
    assert _poison(UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed"))
    assert not _poison(psycopg.OperationalError("server closed the connection unexpectedly"))
    assert not _poison(psycopg.errors.DeadlockDetected())
    assert not _poison(psycopg.errors.SerializationFailure())
    assert not _poison(psycopg.errors.AdminShutdown())
    assert not _poison(psycopg.errors.UniqueViolation())
    assert not _poison(KeyboardInterrupt())


# The pattern that once held `materialize` for minutes (the distiller's own is fixed): on 'a_' × 34
# it backtracks for longer than any test runs, inside the regular-expression engine's C code.
_RUNAWAY_RE = re.compile(r"^(?P<np>[a-z][\w#./-]*(?:[-_.][\w]+)+(?:\s+[a-z][\w-]+){0,2}?)\s+(?=(?:is|are)\b)")
SLOW = "POISON-SLOW " + "a_" * 34


class RunawayDistiller(HeuristicDistiller):
    """The heuristic distiller (its batch preparation included), except that a turn carrying the
    marker runs the runaway pattern first: without a budget it would never return."""

    def distill(self, event: EventInput) -> list[FactCandidate]:
        if "POISON-SLOW" in event.content:
            _RUNAWAY_RE.match(event.content.split(" ", 1)[1])
        return super().distill(event)


def test_an_event_over_its_distillation_budget_is_parked_and_the_run_goes_on(
    engine_conn: psycopg.Connection, settings: Settings,
) -> None:
    """R10: an event whose distillation would never end is stopped at its CPU budget and parked at
    the distill step with a reason saying so; every other event of its namespace and of another
    namespace in the same run derives; the next run retries it and parks it again."""
    budgeted = settings.model_copy(update={"distill_budget_seconds": 0.5})
    valid = [*_valid(A, "a"), *_valid(B, "b")]
    result = ingest_events(engine_conn, [*valid[:2], _event(A, "slow", SLOW), *valid[2:]])
    slow_id = next(s.event_id for s in result.statuses if s.source_event_id == "slow")

    started = time.process_time()
    report = derive(engine_conn, budgeted, distiller=RunawayDistiller())
    assert time.process_time() - started < 60  # the runaway alone would take hours
    assert [(f["event_id"], f["namespace"], f["step"]) for f in report.failures] == [(slow_id, A, "distill")]
    reason = _parked(engine_conn)[slow_id][1]
    assert "distillation exceeded the 0.5 s budget" in reason
    assert report.events == len(valid) and _derived(engine_conn) == {
        r[0] for r in engine_conn.execute("SELECT event_id FROM bronze.events WHERE event_id <> %s", (slow_id,))}
    facts = dict(engine_conn.execute("SELECT namespace, count(*) FROM silver.facts GROUP BY 1").fetchall())
    assert facts[A] >= 2 and facts[B] >= 2

    again = derive(engine_conn, budgeted, distiller=RunawayDistiller())
    assert again.events == 0 and [f["event_id"] for f in again.failures] == [slow_id]
    assert engine_conn.execute("SELECT attempts FROM silver.derivation_failures WHERE bronze_event_id = %s",
                               (slow_id,)).fetchone()[0] == 2


class BurningDistiller(HeuristicDistiller):
    """Burns a second of CPU on a marked turn, then distills it as usual."""

    def distill(self, event: EventInput) -> list[FactCandidate]:
        if "POISON-SLOW" in event.content:
            until = time.thread_time() + 1.0
            while time.thread_time() < until:
                pass
        return super().distill(event)


def test_the_budget_holds_in_a_worker_thread_too(engine_conn: psycopg.Connection, settings: Settings) -> None:
    """Off the main thread no timer signal can stop a distiller: the over-budget event is refused when
    it ends, so the same event is parked whichever thread derives (a server's worker, the CLI)."""
    budgeted = settings.model_copy(update={"distill_budget_seconds": 0.2})
    ingest_events(engine_conn, [_event(A, "slow", SLOW), *_valid(B, "b")])
    reports: list[Any] = []
    worker = threading.Thread(target=lambda: reports.append(derive(engine_conn, budgeted,
                                                                   distiller=BurningDistiller())))
    worker.start()
    worker.join(120)
    assert reports, "the derivation in the worker thread finished"
    assert [(f["namespace"], f["step"]) for f in reports[0].failures] == [(A, "distill")]
    assert "exceeded the 0.2 s budget" in reports[0].failures[0]["reason"]
    assert reports[0].events == 5


def test_without_a_budget_a_slow_event_is_derived(engine_conn: psycopg.Connection, settings: Settings) -> None:
    """``distill_budget_seconds = 0`` turns the budget off: the slow event takes its time and derives."""
    ingest_events(engine_conn, [_event(A, "slow", SLOW + " I work at Atlas.")])
    report = derive(engine_conn, settings.model_copy(update={"distill_budget_seconds": 0.0}),
                    distiller=BurningDistiller())
    assert report.events == 1 and not report.failures
    assert issubclass(DistillError, Exception)
