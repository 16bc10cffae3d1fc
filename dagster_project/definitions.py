"""Assemble the Dagster definitions from the layer packages (the project layout)."""

from __future__ import annotations

import dagster as dg

from dagster_project import automation, partitions
from dagster_project.assets import audit as audit_assets
from dagster_project.assets import bronze as bronze_assets
from dagster_project.assets import gold as gold_assets
from dagster_project.assets import silver as silver_assets
from dagster_project.resources import MedallionResource

_FULL = {"ops": {"silver_derive": {"config": {"full_rebuild": True}}}}
_INCREMENTAL = {"ops": {"silver_derive": {"config": {"full_rebuild": False}}}}

# The main job (S13): land the inbox, drop Silver (but the derivation cache), re-derive it all,
# then dbt builds the Silver views and Gold (tests as checks) and the data dictionary is regenerated.
# Silver is partitioned by namespace: a run of these jobs covers a partition or a range of them (all
# of them for a full rebuild; `medallion materialize` and the UI's backfill pick the range).
materialize_all = dg.define_asset_job(
    "materialize_all", selection=dg.AssetSelection.all(), config=_FULL,
    description="Full rebuild: everything above Bronze is re-derived from Bronze.",
)
# Incremental: derive only Bronze events without a current-fingerprint derivation.
incremental = dg.define_asset_job(
    "incremental", selection=dg.AssetSelection.all(), config=_INCREMENTAL,
    description="Land the inbox and derive only what is new (stale namespaces are re-derived).",
)

# The pieces `medallion materialize --namespace` runs when the namespaces asked for are not adjacent
# partitions: Silver one namespace per run, then everything downstream of Silver once.
derive_silver = dg.define_asset_job(
    "derive_silver", selection=dg.AssetSelection.assets(silver_assets.silver_derive), config=_INCREMENTAL,
    description="Derive Silver for one namespace partition (a one-tenant backfill).",
)
downstream_of_silver = dg.define_asset_job(
    "downstream_of_silver",
    selection=dg.AssetSelection.all()
    - dg.AssetSelection.assets(bronze_assets.bronze_events, silver_assets.silver_derive),
    description="dbt (Silver views, Gold marts), the wiki, the drift audit and the data dictionary, "
    "over every namespace.",
)

ASSETS = [*bronze_assets.ASSETS, *silver_assets.ASSETS, *gold_assets.ASSETS, *audit_assets.ASSETS]
CHECKS = [*bronze_assets.CHECKS]

defs = dg.Definitions(
    assets=ASSETS,
    asset_checks=CHECKS,
    jobs=[*bronze_assets.JOBS, *gold_assets.JOBS, materialize_all, incremental, derive_silver,
          downstream_of_silver],
    schedules=[*gold_assets.SCHEDULES],
    sensors=[*bronze_assets.SENSORS, *partitions.SENSORS, *automation.SENSORS],
    resources={"medallion": MedallionResource()},
)
