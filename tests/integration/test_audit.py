"""The drift audit (A1) and the compiled wiki (G10): a clean run is clean, and each
tampering case is named by its finding; the wiki is deterministic and shows what consumers see."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import psycopg
import pytest
from typer.testing import CliRunner

from dagster_project.definitions import defs
from medallion.audit import drift
from medallion.db.connection import connect
from medallion.distill import llm
from medallion.interfaces.cli import app
from medallion.publish.wiki import compile_wiki, render
from medallion.serve.tools import REDACTED, open_tools
from medallion.settings import Settings
from medallion.silver import fingerprint
from tests.conftest import REPO


@pytest.fixture
def database_url(team_database_url: str) -> str:
    """Every test here starts from the example team landed and derived (a copy of the session's
    template database, tests/conftest.py): ``settings`` and ``admin_conn`` point at that copy."""
    return team_database_url


@pytest.fixture
def audited(settings: Settings, tmp_path: Path) -> Iterator[tuple[Settings, psycopg.Connection]]:
    """The example team derived and its wiki compiled, in the test's own database."""
    settings = settings.model_copy(update={"wiki_dir": tmp_path / "wiki"})
    conn = connect(settings, "engine", autocommit=True)
    with open_tools(None, settings) as tools:
        compile_wiki(settings, conn, tools)
    yield settings, conn
    conn.close()


def _checks(report: drift.AuditReport) -> dict[str, list[drift.Finding]]:
    found: dict[str, list[drift.Finding]] = {}
    for finding in report.findings:
        found.setdefault(finding.check, []).append(finding)
    return found


def _errors(report: drift.AuditReport) -> set[str]:
    return {f.check for f in report.findings if f.severity == "error"}


def test_clean_audit_is_ok_and_stored(audited: tuple[Settings, psycopg.Connection]) -> None:
    settings, conn = audited
    report = drift.run_audit(conn, settings)
    assert report.ok and _errors(report) == set()
    assert {f.check for f in report.findings} <= {"stale"}  # warnings only: facts past their half-life
    drift.store(conn, report)
    stored = conn.execute("SELECT count(*) FROM gold.drift_report WHERE run_id = %s", (report.run_id,)).fetchone()[0]
    assert stored == max(1, len(report.findings))


def test_bronze_row_deleted_or_edited_as_superuser(audited: tuple[Settings, psycopg.Connection],
                                                   admin_conn: psycopg.Connection) -> None:
    settings, conn = audited
    admin_conn.execute("ALTER TABLE bronze.events DISABLE TRIGGER USER")
    admin_conn.execute("DELETE FROM bronze.events WHERE event_id = 3")
    admin_conn.execute("UPDATE bronze.events SET content = content || ' (edited)', "
                       "content_hash = encode(sha256(convert_to(content || ' (edited)', 'UTF8')), 'hex') "
                       "WHERE event_id = 5")
    admin_conn.execute("ALTER TABLE bronze.events ENABLE TRIGGER USER")
    report = drift.run_audit(conn, settings)
    assert not report.ok
    chain = _checks(report)["bronze_chain"]
    assert len(chain) >= 2 and {"event 4", "event 5"} <= {f.detail.split(":")[0] for f in chain}
    assert "orphan_silver" in _errors(report), "the deleted event's Silver rows have lost their event"


def test_checkpoint_rewritten(audited: tuple[Settings, psycopg.Connection], admin_conn: psycopg.Connection) -> None:
    settings, conn = audited
    admin_conn.execute("ALTER TABLE bronze.checkpoints DISABLE TRIGGER USER")
    admin_conn.execute("UPDATE bronze.checkpoints SET head_hash = repeat('0', 64) "
                       "WHERE checkpoint_id = (SELECT max(checkpoint_id) FROM bronze.checkpoints)")
    admin_conn.execute("ALTER TABLE bronze.checkpoints ENABLE TRIGGER USER")
    report = drift.run_audit(conn, settings)
    assert _errors(report) == {"bronze_checkpoint"}


def test_wiki_page_edited_by_hand(audited: tuple[Settings, psycopg.Connection]) -> None:
    settings, conn = audited
    page = sorted((settings.wiki_root).glob("team-atlas/entities/*.md"))[0]
    page.write_text(page.read_text() + "\nA line nobody derived.\n")
    report = drift.run_audit(conn, settings)
    [finding] = _checks(report)["projection_hash"]
    assert finding.severity == "error" and page.name in finding.detail and "by hand" in finding.detail


def test_fact_embedding_deleted(audited: tuple[Settings, psycopg.Connection], admin_conn: psycopg.Connection) -> None:
    settings, conn = audited
    admin_conn.execute("UPDATE silver.facts SET embedding = NULL "
                       "WHERE fact_id = (SELECT min(fact_id) FROM silver.facts)")
    report = drift.run_audit(conn, settings)
    [finding] = _checks(report)["projection_hash"]
    assert "embedding(s) missing" in finding.detail
    admin_conn.execute("UPDATE silver.chunks SET embedding = (SELECT embedding FROM silver.chunks ORDER BY chunk_id "
                       "DESC LIMIT 1) WHERE chunk_id = (SELECT min(chunk_id) FROM silver.chunks)")
    assert any("differ" in f.detail for f in _checks(drift.run_audit(conn, settings))["projection_hash"])


def test_prompt_changed_means_stale_derivations(audited: tuple[Settings, psycopg.Connection], tmp_path: Path) -> None:
    settings, conn = audited
    models = tmp_path / "model_configs"
    shutil.copytree(REPO / "model_configs", models)
    (models / "prompts" / "distill.md").write_text((models / "prompts" / "distill.md").read_text() + "\nBe brief.\n")
    original = fingerprint.MODELS, llm.MODELS
    try:
        fingerprint.MODELS = llm.MODELS = models  # type: ignore[misc]
        for cached in (fingerprint.distill_fingerprint, fingerprint.judge_fingerprint, fingerprint.embed_fingerprint):
            cached.cache_clear()
        report = drift.run_audit(conn, settings)
    finally:
        fingerprint.MODELS, llm.MODELS = original  # type: ignore[misc]
        for cached in (fingerprint.distill_fingerprint, fingerprint.judge_fingerprint, fingerprint.embed_fingerprint):
            cached.cache_clear()
    coverage = _checks(report)["silver_coverage"]
    assert {f.namespace for f in coverage} == {"team-atlas", "team-borealis"}
    assert all("stale derivations" in f.detail for f in coverage)


def test_silver_row_whose_bronze_event_is_gone(audited: tuple[Settings, psycopg.Connection],
                                               admin_conn: psycopg.Connection) -> None:
    settings, conn = audited
    admin_conn.execute("UPDATE silver.chunks SET bronze_event_id = 999999 "
                       "WHERE chunk_id = (SELECT min(chunk_id) FROM silver.chunks)")
    report = drift.run_audit(conn, settings)
    assert _errors(report) == {"orphan_silver"}
    assert "silver.chunks" in _checks(report)["orphan_silver"][0].detail


def test_cli_audit_json_and_exit_codes(audited: tuple[Settings, psycopg.Connection], admin_conn: psycopg.Connection,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    settings, _ = audited
    monkeypatch.setenv("MEDALLION_DATABASE_URL", settings.database_url or "")
    monkeypatch.setenv("MEDALLION_HOME", str(settings.home))
    monkeypatch.setenv("MEDALLION_WIKI_DIR", str(settings.wiki_root))
    monkeypatch.delenv("MEDALLION_TOKEN", raising=False)
    clean = CliRunner().invoke(app, ["audit", "--json"])
    assert clean.exit_code == 0, clean.output
    body = json.loads(clean.stdout)
    assert body["ok"] is True and all(f["severity"] != "error" for f in body["findings"])
    assert set(body["findings"][0]) == {"check", "severity", "namespace", "detail"} if body["findings"] else True
    admin_conn.execute("UPDATE silver.facts SET embedding = NULL "
                       "WHERE fact_id = (SELECT min(fact_id) FROM silver.facts)")
    tampered = CliRunner().invoke(app, ["audit", "--json"])
    assert tampered.exit_code == 1
    findings = json.loads(tampered.stdout)["findings"]
    assert any(f["check"] == "projection_hash" and f["severity"] == "error" for f in findings)


def test_wiki_is_deterministic_cites_facts_and_masks_redactions(audited: tuple[Settings, psycopg.Connection]) -> None:
    settings, conn = audited
    with open_tools(None, settings) as tools:
        first = {p.path: p.content for p in render(tools).pages}
        second = {p.path: p.content for p in render(tools).pages}
        assert first == second and first, "the same ledger gives byte-identical pages"
        bob = first["team-atlas/entities/bob.md"]
        assert "[fact:" in bob and "## History" in bob and "Lisbon" in bob and "Berlin" in bob
        assert "## Sources" in bob and "slack" in bob
        concepts = [path for path in first if "/concepts/" in path]
        assert concepts, "a belief shared by two subjects from two sources gets a concept page"
        [lives] = tools.current("Bob", "lives_in", namespace="team-atlas")
        tools.overlay(lives["fact_id"], "redact", quote="Lisbon")
        compile_wiki(settings, conn, tools)
    page = (settings.wiki_root / "team-atlas" / "entities" / "bob.md").read_text()
    current_line = next(line for line in page.splitlines() if line.startswith("- **lives_in**"))
    assert REDACTED in current_line and "Lisbon" not in current_line
    assert drift.run_audit(conn, settings).ok, "recompiling records the new hashes"


def test_audit_asset_schedule_and_job_are_defined() -> None:
    graph = defs.resolve_asset_graph()
    for key in (["gold", "drift_report"], ["gold", "wiki"]):
        assert graph.has(dg.AssetKey(key))
    schedule = defs.resolve_schedule_def("drift_audit_daily")
    job = defs.resolve_job_def("drift_audit")
    assert schedule.job_name == "drift_audit"
    assert dg.AssetKey(["gold", "drift_report"]) in job.asset_layer.executable_asset_keys
