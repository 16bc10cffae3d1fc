"""Namespaces as Dagster partitions (scale-out): landing adds them, a sensor adds those that came by
another door, and a one-partition backfill re-derives that namespace alone."""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg
import psycopg
import pytest

from dagster_project.assets.bronze import bronze_events
from dagster_project.assets.silver import silver_derive
from dagster_project.partitions import NAMESPACES, namespace_partitions
from dagster_project.resources import MedallionResource
from medallion.bronze.ingest import ingest_events
from medallion.settings import Settings
from tests.support.dagster_runs import materialize_all_partitions

# when each event of a namespace was derived (changes when it is derived again), and its facts' content
DERIVED = ("SELECT md5(string_agg(bronze_event_id || '@' || derived_at::text, ',' ORDER BY bronze_event_id)), "
           "count(*) FROM silver.derivations WHERE namespace = %s")
FACTS = ("SELECT md5(string_agg(fact_id || statement || recorded_at::text, ',' ORDER BY fact_id)), count(*) "
         "FROM silver.facts WHERE namespace = %s")


def _resource(settings: Settings) -> MedallionResource:
    return MedallionResource(database_url=settings.database_url, home=str(settings.home), inbox=str(settings.inbox))


def test_inbox_landing_adds_a_partition_per_new_namespace(settings: Settings, examples_dir: Path) -> None:
    instance = dg.DagsterInstance.ephemeral()
    assert instance.get_dynamic_partitions(NAMESPACES.name) == []
    shutil.copy(examples_dir / "team_events.jsonl", settings.inbox / "team.jsonl")
    result = dg.materialize([bronze_events], resources={"medallion": _resource(settings)}, instance=instance)
    assert result.success
    assert sorted(instance.get_dynamic_partitions(NAMESPACES.name)) == ["team-atlas", "team-borealis"]
    meta = result.asset_materializations_for_node("bronze__events")[0].metadata
    assert meta["new_partitions"].value == ["team-atlas", "team-borealis"]


def test_sensor_adds_namespaces_that_arrived_by_another_door(settings: Settings,
                                                             engine_conn: psycopg.Connection) -> None:
    """remember / ingest write Bronze without Dagster: the sensor turns their namespaces into partitions."""
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(NAMESPACES.name, ["known"])
    sensor = namespace_partitions
    resources = {"medallion": _resource(settings)}
    context = dg.build_sensor_context(instance=instance, resources=resources)
    assert sensor(context).skip_reason  # nothing in Bronze yet
    ingest_events(engine_conn, [
        {"namespace": ns, "source": "api", "source_event_id": f"{ns}-1", "kind": "note", "actor": "user:ann",
         "content": "I live in Porto.", "provenance_root": f"api://{ns}/1"} for ns in ("known", "new-tenant")])
    result = sensor(dg.build_sensor_context(instance=instance, resources=resources))
    assert [r.partition_keys for r in result.dynamic_partitions_requests] == [["new-tenant"]]


@pytest.mark.slow
def test_one_partition_backfill_rederives_only_that_namespace(settings: Settings, examples_dir: Path,
                                                              engine_conn: psycopg.Connection) -> None:
    """A full rebuild of team-borealis's partition rewrites its facts (to the same beliefs) and leaves
    every row of team-atlas as it was."""
    shutil.copy(examples_dir / "team_events.jsonl", settings.inbox / "team.jsonl")
    instance = dg.DagsterInstance.ephemeral()
    assert materialize_all_partitions([bronze_events, silver_derive], _resource(settings), instance=instance).success
    both = ("team-atlas", "team-borealis")
    derived = {ns: engine_conn.execute(DERIVED, (ns,)).fetchone() for ns in both}
    facts = {ns: engine_conn.execute(FACTS, (ns,)).fetchone() for ns in both}
    assert facts["team-atlas"][1] > 10 and facts["team-borealis"][1] > 0

    result = dg.materialize([silver_derive], resources={"medallion": _resource(settings)}, instance=instance,
                            partition_key="team-borealis",
                            run_config={"ops": {"silver_derive": {"config": {"full_rebuild": True}}}})
    assert result.success
    meta = next(e.materialization for e in result.get_asset_materialization_events()
                if e.materialization.asset_key == dg.AssetKey(["silver", "facts"])).metadata
    assert meta["namespaces"].value == ["team-borealis"] and meta["events_processed"].value == 5
    assert engine_conn.execute(DERIVED, ("team-atlas",)).fetchone() == derived["team-atlas"], "atlas untouched"
    assert engine_conn.execute(DERIVED, ("team-borealis",)).fetchone() != derived["team-borealis"], "derived again"
    assert {ns: engine_conn.execute(FACTS, (ns,)).fetchone() for ns in both} == facts, "to the same beliefs"
    partitions = {e.materialization.partition for e in result.get_asset_materialization_events()}
    assert partitions == {"team-borealis"}


def test_each_partitions_metadata_describes_that_namespace_only(settings: Settings, examples_dir: Path,
                                                                engine_conn: psycopg.Connection) -> None:
    """Security issue 32, point 4: one run over both namespaces used to give team-borealis the row count
    of every namespace together (72 for its 9 facts) and another namespace's decisions. Now each
    partition's latest materialization counts its own rows and lists its own decisions; the run's
    tallies stay on the run's first materialization (what `medallion materialize` reports)."""
    from dagster_project.keys import SILVER
    from dagster_project.runs import run_summary

    shutil.copy(examples_dir / "team_events.jsonl", settings.inbox / "team.jsonl")
    instance = dg.DagsterInstance.ephemeral()
    result = materialize_all_partitions([bronze_events, silver_derive], _resource(settings), instance=instance)
    assert result.success
    both = ("team-atlas", "team-borealis")
    latest = {}  # what the UI shows for a partition: its newest materialization, the run's last event for it
    for event in result.get_asset_materialization_events():
        latest[(event.materialization.asset_key, event.materialization.partition)] = event.materialization.metadata
    for name, key in SILVER.items():
        for ns in both:
            meta = latest[(key, ns)]
            rows = engine_conn.execute(f"SELECT count(*) FROM silver.{name} WHERE namespace = %s", (ns,)).fetchone()
            assert meta["dagster/row_count"].value == rows[0], (name, ns)
    facts = {ns: {r[0] for r in engine_conn.execute("SELECT fact_id FROM silver.facts WHERE namespace = %s", (ns,))}
             for ns in both}
    assert 0 < len(facts["team-borealis"]) < len(facts["team-atlas"])
    for ns, other in (both, both[::-1]):
        table = latest[(SILVER["facts"], ns)]["recent_decisions"].value
        listed = {line.split("|")[5].strip() for line in table.splitlines()[2:]}
        assert listed and listed <= facts[ns] and not listed & facts[other], ns
    summary = run_summary(result, "test")["silver"]
    assert summary["namespaces"] == list(both) and summary["events_processed"] == 53
