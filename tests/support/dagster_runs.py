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
