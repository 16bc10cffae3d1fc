"""A file dropped in the inbox becomes searchable on its own (no hand-run materialize): the inbox
sensor lands it, the automation sensor derives Silver for the new namespace partition, and the
rebuild sensor rebuilds what reads Silver; all three run by default.

The daemon's part is played in-process with Dagster's public testing APIs: the sensors are evaluated
with ``build_sensor_context``, the automation sensor's conditions with ``evaluate_automation_conditions``
(what the daemon's automation ticks evaluate), and every run a tick requests is executed before the
next tick, as the daemon would launch it. In a module of its own: the runs are long."""

from __future__ import annotations

import json
import uuid

import dagster as dg
import pytest

from dagster_project.assets.bronze import inbox_sensor
from dagster_project.automation import MATERIALIZE_TAG, rebuild_after_silver, rebuilds_itself
from dagster_project.definitions import defs
from dagster_project.keys import SILVER
from medallion.serve.tools import open_tools
from medallion.settings import Settings
from tests.support.dagster_runs import launch_requested

SENSOR = "default_automation_condition_sensor"


def test_the_sensors_that_derive_and_rebuild_run_by_default() -> None:
    """Silver's eager condition is evaluated by an automation sensor that is on from the start, and the
    rebuild of what reads Silver is a sensor that is on from the start too."""
    sensor = defs.get_sensor_def(SENSOR)
    assert isinstance(sensor, dg.AutomationConditionSensorDefinition)
    assert sensor.default_status == dg.DefaultSensorStatus.RUNNING
    graph = defs.resolve_asset_graph()
    assert sensor.asset_selection.resolve(graph) == set(SILVER.values())
    assert all(graph.get(key).automation_condition is not None for key in SILVER.values())
    # no second, stopped default sensor next to ours
    assert [s.name for s in defs.sensors if isinstance(s, dg.AutomationConditionSensorDefinition)] == [SENSOR]
    rebuild = defs.get_sensor_def("rebuild_after_silver")
    assert rebuild.default_status == dg.DefaultSensorStatus.RUNNING
    assert rebuild.job_name == "downstream_of_silver"


def test_one_rebuild_at_a_time_and_none_after_runs_that_rebuilt_themselves() -> None:
    """A Silver materialization asks for one rebuild; while a rebuild is queued or running the next one
    waits (the cursor stays); runs of `medallion materialize` and of the full or incremental job rebuild
    what reads Silver themselves."""
    instance = dg.DagsterInstance.ephemeral()
    instance.report_runless_asset_event(dg.AssetMaterialization(SILVER["facts"], partition="atlas"))
    with dg.build_sensor_context(instance=instance) as ctx:
        first = rebuild_after_silver(ctx)
    assert len(first.run_requests) == 1 and first.cursor
    instance.add_run(dg.DagsterRun(job_name="downstream_of_silver", run_id=str(uuid.uuid4()),
                                   status=dg.DagsterRunStatus.STARTED))
    instance.report_runless_asset_event(dg.AssetMaterialization(SILVER["facts"], partition="atlas"))
    with dg.build_sensor_context(instance=instance, cursor=first.cursor) as ctx:
        waiting = rebuild_after_silver(ctx)
    assert not waiting.run_requests and waiting.cursor is None and "queued or running" in str(waiting.skip_reason)
    assert rebuilds_itself(dg.DagsterRun(job_name="incremental"))
    assert rebuilds_itself(dg.DagsterRun(job_name="derive_silver", tags={MATERIALIZE_TAG: "x"}))
    assert not rebuilds_itself(dg.DagsterRun(job_name="derive_silver"))
    assert not rebuilds_itself(None)


@pytest.mark.slow
def test_a_dropped_file_is_searchable_without_a_materialize(settings: Settings,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Drop a file, let the sensors tick and launch what they ask for: search finds the file's content,
    and dbt, the wiki and the data dictionary were rebuilt over it with every test passing."""
    monkeypatch.setenv("MEDALLION_DATABASE_URL", settings.database_url or "")
    monkeypatch.setenv("MEDALLION_HOME", str(settings.home))
    monkeypatch.setenv("MEDALLION_INBOX", str(settings.inbox))
    instance = dg.DagsterInstance.ephemeral()
    sensor = defs.get_sensor_def(SENSOR)
    assert isinstance(sensor, dg.AutomationConditionSensorDefinition)
    # the sensor has been ticking since the code location loaded: nothing to do before the file lands
    tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, asset_selection=sensor.asset_selection)
    assert tick.total_requested == 0
    cursor = tick.cursor

    event = {"namespace": "greenhouse", "source": "notes", "source_event_id": "n-1", "kind": "note",
             "actor": "user:rowan", "provenance_root": "notes://n-1",
             "content": "The orchid cuttings root best under the violet grow lamp in the east greenhouse."}
    (settings.inbox / "drop.jsonl").write_text(json.dumps(event) + "\n")

    # the daemon's sensor tick: the inbox sensor asks for a landing run, which lands the file
    with dg.build_sensor_context(instance=instance, resources={"medallion": defs.resources["medallion"]}) as ctx:
        requested = inbox_sensor(ctx).run_requests
    assert len(requested) == 1
    landing = defs.resolve_job_def("land_bronze").execute_in_process(instance=instance, tags=requested[0].tags)
    assert landing.success and (settings.inbox / "done" / "drop.jsonl").exists()

    # the automation sensor's ticks, each launching what it requests, until it asks for nothing more
    derived = False
    for _ in range(4):
        tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, asset_selection=sensor.asset_selection,
                                                 cursor=cursor)
        cursor = tick.cursor
        if tick.total_requested == 0:
            break
        derived |= "greenhouse" in tick.get_requested_partitions(SILVER["facts"])
        for result in launch_requested(defs, instance, tick):
            assert result.success
    else:
        pytest.fail("the automation kept requesting runs")
    assert derived, "the new namespace's partition was derived by the automation"

    # the rebuild sensor's tick: one run of what reads Silver; the next tick asks for nothing
    with dg.build_sensor_context(instance=instance) as ctx:
        rebuild = rebuild_after_silver(ctx)
    assert len(rebuild.run_requests) == 1
    downstream = defs.resolve_job_def("downstream_of_silver").execute_in_process(
        instance=instance, tags=rebuild.run_requests[0].tags)
    assert downstream.success
    with dg.build_sensor_context(instance=instance, cursor=rebuild.cursor) as ctx:
        assert not rebuild_after_silver(ctx).run_requests

    with open_tools(None, settings) as tools:
        hits = tools.search("Which lamp do the orchid cuttings root under?", namespace="greenhouse", k=3)
    assert hits and "violet grow lamp" in json.dumps(hits)
    # what reads Silver was rebuilt too, with its tests passing
    for key in (["staging", "stg_silver__facts"], ["gold_marts", "review_queue"], ["gold", "wiki"],
                ["gold", "column_meta"]):
        assert instance.get_latest_materialization_event(dg.AssetKey(key)) is not None, key
    checks = downstream.get_asset_check_evaluations()
    assert checks and all(c.passed for c in checks)

    # more events for the namespace: landed by the daemon, they are derived; landed by `medallion
    # materialize` (which derives them itself), the automation leaves them alone
    for n, tags, derives in ((2, {MATERIALIZE_TAG: "cli"}, False), (3, {}, True)):
        (settings.inbox / f"more-{n}.jsonl").write_text(json.dumps({**event, "source_event_id": f"n-{n}"}) + "\n")
        assert defs.resolve_job_def("land_bronze").execute_in_process(instance=instance, tags=tags).success
        tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, asset_selection=sensor.asset_selection,
                                                 cursor=cursor)
        cursor = tick.cursor
        assert ("greenhouse" in tick.get_requested_partitions(SILVER["facts"])) is derives, tags
