"""Dagster landing of Bronze (B8): the asset, its chain check and the inbox sensor."""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg
import psycopg

from dagster_project.assets.bronze import bronze_chain_verifies, bronze_events, inbox_sensor, land_bronze_job
from dagster_project.definitions import defs
from dagster_project.resources import MedallionResource
from medallion.settings import Settings


def _resource(settings: Settings) -> MedallionResource:
    return MedallionResource(
        database_url=settings.database_url, home=str(settings.home), inbox=str(settings.inbox)
    )


def test_asset_lands_inbox_files_with_metadata_and_check(
    settings: Settings, examples_dir: Path, engine_conn: psycopg.Connection
) -> None:
    """B8: materializing bronze/events lands the inbox; good files → done/, bad → rejected/ + .reason."""
    shutil.copy(examples_dir / "team_events.jsonl", settings.inbox / "a_team.jsonl")
    shutil.copy(examples_dir / "mixed_batch.jsonl", settings.inbox / "b_mixed.jsonl")
    result = dg.materialize(
        [bronze_events, bronze_chain_verifies], resources={"medallion": _resource(settings)}
    )
    assert result.success
    meta = result.asset_materializations_for_node("bronze__events")[0].metadata
    team_lines = len((examples_dir / "team_events.jsonl").read_text().splitlines())
    assert meta["inserted"].value == team_lines + 4
    assert (meta["duplicate"].value, meta["conflict"].value, meta["rejected"].value) == (1, 1, 3)
    assert "team-atlas" in meta["namespaces_touched"].value
    assert meta["dagster/row_count"].value == team_lines + 4
    header = meta["newest_events"].value.splitlines()[0]
    assert header.startswith("| event_id |") and "| content |" not in header and "| actor |" not in header

    assert (settings.inbox / "done" / "a_team.jsonl").exists()
    assert (settings.inbox / "rejected" / "b_mixed.jsonl").exists()
    reason = (settings.inbox / "rejected" / "b_mixed.jsonl.reason").read_text()
    assert "line 7" in reason and "missing required field 'content'" in reason
    assert list(settings.inbox.glob("*.jsonl")) == []

    checks = result.get_asset_check_evaluations()
    assert len(checks) == 1 and checks[0].passed
    assert engine_conn.execute("SELECT count(*) FROM bronze.quarantine").fetchone()[0] == 4


def test_chain_check_fails_after_tampering(settings: Settings, examples_dir: Path, admin_conn) -> None:
    """B6: the asset check turns red when a superuser edits Bronze behind the triggers' back."""
    shutil.copy(examples_dir / "team_events.jsonl", settings.inbox / "team.jsonl")
    resources = {"medallion": _resource(settings)}
    assert dg.materialize([bronze_events], resources=resources).success
    admin_conn.execute("ALTER TABLE bronze.events DISABLE TRIGGER USER")
    admin_conn.execute("DELETE FROM bronze.events WHERE event_id = 3")
    result = dg.materialize([bronze_events, bronze_chain_verifies], resources=resources)
    evaluation = result.get_asset_check_evaluations()[0]
    assert not evaluation.passed
    assert evaluation.metadata["findings"].value >= 1


def test_sensor_requests_a_run_for_a_dropped_file(settings: Settings, examples_dir: Path) -> None:
    """B8: the inbox sensor skips an empty inbox and requests one run per new set of files."""
    resources = {"medallion": _resource(settings)}
    with dg.build_sensor_context(resources=resources) as ctx:
        empty = inbox_sensor(ctx)
    assert not empty.run_requests and empty.skip_reason

    shutil.copy(examples_dir / "team_events.jsonl", settings.inbox / "drop.jsonl")
    with dg.build_sensor_context(resources=resources) as ctx:
        found = inbox_sensor(ctx)
    assert len(found.run_requests) == 1
    assert "drop.jsonl" in found.run_requests[0].run_key
    assert found.run_requests[0].job_name in (None, "land_bronze")

    # Run the job the sensor targets (as the daemon would) against the test database.
    test_defs = dg.Definitions(
        assets=[bronze_events], jobs=[land_bronze_job], sensors=[inbox_sensor], resources=resources
    )
    run = test_defs.resolve_job_def(found.run_requests[0].job_name or "land_bronze").execute_in_process()
    assert run.success
    assert (settings.inbox / "done" / "drop.jsonl").exists()
    with dg.build_sensor_context(resources=resources) as ctx:
        after = inbox_sensor(ctx)
    assert not after.run_requests


def test_definitions_load() -> None:
    """The code location loads: bronze/events with its check, the landing job and the sensor."""
    repo = defs.get_repository_def()
    assert dg.AssetKey(["bronze", "events"]) in repo.asset_graph.get_all_asset_keys()
    assert "inbox_sensor" in {s.name for s in repo.sensor_defs}
