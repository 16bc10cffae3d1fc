"""Materializing assets in tests the way `medallion materialize` does: Bronze lands first (adding a
partition per namespace), then the rest runs over the range of every namespace partition."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dagster as dg

from dagster_project.assets.bronze import bronze_events
from dagster_project.partitions import register
from dagster_project.resources import MedallionResource
from dagster_project.runs import every_partition
from medallion.bronze.namespaces import namespaces as bronze_namespaces


def materialize_all_partitions(
    assets: Sequence[Any], resource: MedallionResource, instance: dg.DagsterInstance | None = None,
    **kwargs: Any,
) -> dg.ExecuteInProcessResult:
    """``dg.materialize`` of ``assets`` over every namespace partition, Bronze landed first if included."""
    instance = instance or dg.DagsterInstance.ephemeral()
    resources = {"medallion": resource}
    rest = [a for a in assets if a is not bronze_events]
    if len(rest) < len(assets):
        landed = dg.materialize([bronze_events], resources=resources, instance=instance)
        if not rest:
            return landed
    with resource.connect() as conn:
        register(instance, bronze_namespaces(conn))
    return dg.materialize(rest, resources=resources, instance=instance, tags=every_partition(instance), **kwargs)


def launch_requested(defs: dg.Definitions, instance: dg.DagsterInstance,
                     tick: Any) -> list[dg.ExecuteInProcessResult]:
    """Execute, in-process and in order, the runs an automation tick (``evaluate_automation_conditions``)
    requests, as the daemon would launch them: the partitioned assets one run per partition, then the
    unpartitioned ones in one run, each with the asset checks the tick requested."""
    graph = defs.resolve_asset_graph()
    requested = {key: tick.get_requested_partitions(key) for key in graph.get_all_asset_keys()}
    requested = {key: parts for key, parts in requested.items() if parts}
    checks = {r.key for r in tick.results if isinstance(r.key, dg.AssetCheckKey) and r.true_subset.size}
    assets = list(defs.assets or [])
    results = []
    partitions = sorted({p for parts in requested.values() for p in parts if p is not None})
    for partition in partitions:
        keys = [k for k, parts in requested.items() if partition in parts]
        results.append(dg.materialize(
            assets, instance=instance, partition_key=partition, resources=dict(defs.resources or {}),
            selection=dg.AssetSelection.assets(*keys).without_checks()))
    unpartitioned = [k for k, parts in requested.items() if None in parts]
    if unpartitioned or checks:
        selection = dg.AssetSelection.assets(*unpartitioned).without_checks() | dg.AssetSelection.checks(*checks)
        results.append(dg.materialize([*assets, *(defs.asset_checks or [])], instance=instance,
                                      resources=dict(defs.resources or {}), selection=selection))
    return results
