"""Assemble the Dagster definitions from the layer packages (SPEC section 2)."""

from __future__ import annotations

import dagster as dg

from dagster_project.bronze import assets as bronze_assets
from dagster_project.resources import MedallionResource

# The main job: every asset (and its checks). Later layers join the selection automatically.
materialize_all = dg.define_asset_job("materialize_all", selection=dg.AssetSelection.all())

defs = dg.Definitions(
    assets=[*bronze_assets.ASSETS],
    asset_checks=[*bronze_assets.CHECKS],
    jobs=[*bronze_assets.JOBS, materialize_all],
    sensors=[*bronze_assets.SENSORS],
    resources={"medallion": MedallionResource()},
)
