"""Assemble the Dagster definitions from the layer packages (the project layout)."""

from __future__ import annotations

import dagster as dg

from dagster_project.assets import audit as audit_assets
from dagster_project.assets import bronze as bronze_assets
from dagster_project.assets import gold as gold_assets
from dagster_project.assets import silver as silver_assets
from dagster_project.resources import MedallionResource

_FULL = {"ops": {"silver_derive": {"config": {"full_rebuild": True}}}}
_INCREMENTAL = {"ops": {"silver_derive": {"config": {"full_rebuild": False}}}}

# The main job (S13): land the inbox, drop Silver (but the derivation cache), re-derive it all,
# then dbt builds the Silver views and Gold (tests as checks) and the data dictionary is regenerated.
materialize_all = dg.define_asset_job(
    "materialize_all", selection=dg.AssetSelection.all(), config=_FULL,
    description="Full rebuild: everything above Bronze is re-derived from Bronze.",
)
# Incremental: derive only Bronze events without a current-fingerprint derivation.
incremental = dg.define_asset_job(
    "incremental", selection=dg.AssetSelection.all(), config=_INCREMENTAL,
    description="Land the inbox and derive only what is new (stale namespaces are re-derived).",
)

ASSETS = [*bronze_assets.ASSETS, *silver_assets.ASSETS, *gold_assets.ASSETS, *audit_assets.ASSETS]
CHECKS = [*bronze_assets.CHECKS]

defs = dg.Definitions(
    assets=ASSETS,
    asset_checks=CHECKS,
    jobs=[*bronze_assets.JOBS, *gold_assets.JOBS, materialize_all, incremental],
    schedules=[*gold_assets.SCHEDULES],
    sensors=[*bronze_assets.SENSORS],
    resources={"medallion": MedallionResource()},
)
