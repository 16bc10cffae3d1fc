"""What follows on its own when new events land, without a hand-run materialize.

1. The inbox sensor lands a dropped file (``land_bronze``); the landing adds a partition for each new
   namespace (``remember``/``ingest`` events get theirs from the ``namespace_partitions`` sensor).
2. Silver's automation condition, ``DERIVE``, requests a derivation of every partition that is new
   or whose Bronze was updated; ``automation_sensor`` evaluates it (a backfill of one run when there
   are several partitions: Silver's backfill policy).
3. ``rebuild_after_silver`` sees the Silver run's materializations and starts one
   ``downstream_of_silver`` run: one ``dbt build`` (views, marts, their tests), the wiki, the drift
   audit, the Hindsight mirror and the data dictionary, over every namespace.

Both sensors run by default, so under ``make ui`` (``dagster dev``) and in docker-compose the daemon
starts them as soon as the code location loads. The downstream is one job rather than a condition per
dbt model: a dbt model that read Bronze directly would otherwise be rebuilt while Silver is still
deriving, a model over a seed or a view no run had built yet would never start, and dbt would run
once per model group instead of once.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import dagster as dg

from dagster_project.keys import SILVER

MATERIALIZE_TAG = "medallion/materialize"  # on the runs of `medallion materialize` and `make demo`
DOWNSTREAM_JOB = "downstream_of_silver"
# jobs whose runs rebuild what reads Silver themselves, after deriving it
_REBUILDING_JOBS = {"materialize_all", "incremental"}
_ACTIVE = [dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.NOT_STARTED, dg.DagsterRunStatus.STARTING,
           dg.DagsterRunStatus.STARTED]

# Silver: Dagster's eager condition. A new namespace partition (newly missing) or new Bronze events
# (Bronze updated) derive it; nothing while Bronze or Silver itself is being written. One change: a
# Bronze landing by `medallion materialize` (its runs carry MATERIALIZE_TAG) does not count, since the
# CLI derives right after landing; otherwise the automation would queue a second derivation that waits
# on the namespace lock while the CLI derives.
_UPDATED_NOT_BY_THE_CLI = (
    dg.AutomationCondition.newly_updated() & ~dg.AutomationCondition.executed_with_root_target()
    & ~dg.AutomationCondition.executed_with_tags(tag_keys={MATERIALIZE_TAG})
).with_label("newly updated, not by medallion materialize")
DERIVE = dg.AutomationCondition.eager().replace(
    "any_deps_updated",
    dg.AutomationCondition.any_deps_match(_UPDATED_NOT_BY_THE_CLI | dg.AutomationCondition.will_be_requested())
    .with_label("any_deps_updated"),
)

automation_sensor = dg.AutomationConditionSensorDefinition(
    "default_automation_condition_sensor",
    target=dg.AssetSelection.assets(*SILVER.values()),
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=15,
    description="Derives Silver for every new namespace partition and after every Bronze landing (Silver's "
    "eager condition). Running by default; stop it in Automation to derive by hand only.",
)


def rebuilds_itself(run: dg.DagsterRun | None) -> bool:
    """Whether ``run`` rebuilt what reads Silver after deriving it (or will: `medallion materialize`
    follows per-namespace Silver runs with a run of its own), so that no second rebuild is needed."""
    return run is not None and (run.job_name in _REBUILDING_JOBS or MATERIALIZE_TAG in run.tags)


@dg.sensor(
    job_name=DOWNSTREAM_JOB, minimum_interval_seconds=15, default_status=dg.DefaultSensorStatus.RUNNING,
    description="After a Silver run, rebuilds everything that reads Silver in one run: dbt (views, marts, "
    "tests), the wiki, the drift audit, the Hindsight mirror and the data dictionary. Running by default.",
)
def rebuild_after_silver(context: dg.SensorEvaluationContext) -> dg.SensorResult:
    after = int(context.cursor) if context.cursor else None
    records = context.instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=SILVER["facts"], after_storage_id=after), limit=1000, ascending=True,
    ).records
    if not records:
        return dg.SensorResult(skip_reason="no Silver materialization since the last rebuild")
    if context.instance.get_runs(filters=dg.RunsFilter(job_name=DOWNSTREAM_JOB, statuses=_ACTIVE), limit=1):
        # the cursor stays: these materializations start a rebuild once the current one is done
        return dg.SensorResult(skip_reason="a rebuild is queued or running: the next one starts after it")
    last = records[-1].storage_id
    runs = {record.run_id for record in records}
    if all(rebuilds_itself(context.instance.get_run_by_id(run_id)) for run_id in runs):
        return dg.SensorResult(skip_reason="the Silver runs rebuilt what reads Silver themselves", cursor=str(last))
    return dg.SensorResult(run_requests=[dg.RunRequest(run_key=f"after-silver-{last}")], cursor=str(last))


SENSORS = [automation_sensor, rebuild_after_silver]
