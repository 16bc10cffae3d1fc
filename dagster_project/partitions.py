"""Namespaces as Dagster partitions: one partition per tenant.

A namespace is the unit of isolation and of ordering, so it is also the unit of parallel work and of
rebuilds: Silver is partitioned by it, a backfill of one partition re-derives one tenant, and a run
over a range of partitions derives them in parallel steps. Partitions are dynamic: the Bronze
landing adds those of the namespaces it lands, and a sensor adds those that arrive by any other door
(``remember``, ``ingest``, the API), since the engine itself never talks to Dagster.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import dagster as dg

from dagster_project.resources import MedallionResource
from medallion.bronze.namespaces import namespaces as bronze_namespaces

NAMESPACES = dg.DynamicPartitionsDefinition(name="namespace")


def unregistered(instance: dg.DagsterInstance, namespaces: list[str]) -> list[str]:
    """The namespaces that are not partitions yet, sorted."""
    known = set(instance.get_dynamic_partitions(NAMESPACES.name))
    return sorted(set(namespaces) - known)


def register(instance: dg.DagsterInstance, namespaces: list[str]) -> list[str]:
    """Add a partition for each namespace that has none; return the ones added."""
    new = unregistered(instance, namespaces)
    if new:
        instance.add_dynamic_partitions(NAMESPACES.name, new)
    return new


@dg.sensor(
    minimum_interval_seconds=30, default_status=dg.DefaultSensorStatus.RUNNING,
    description="Adds a `namespace` partition for every namespace Bronze holds that has none yet "
    "(events that arrived through remember, ingest or the API rather than the inbox).",
)
def namespace_partitions(context: dg.SensorEvaluationContext, medallion: MedallionResource) -> dg.SensorResult:
    with medallion.connect() as conn:
        namespaces = bronze_namespaces(conn)
    new = unregistered(context.instance, namespaces)
    if not new:
        return dg.SensorResult(skip_reason=f"every one of the {len(namespaces)} namespaces has its partition")
    return dg.SensorResult(dynamic_partitions_requests=[NAMESPACES.build_add_request(new)])


SENSORS = [namespace_partitions]
