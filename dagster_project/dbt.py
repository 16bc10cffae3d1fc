"""The dbt project as Dagster sees it: the project, a CLI resource, and the translator that puts every
dbt node into one asset lineage with the Python assets.

The engine's side of dbt (connection variables, ``dbt parse``) is :mod:`medallion.publish.dbt_runner`.
"""

from collections.abc import Mapping
from typing import Any

import dagster as dg
from dagster_dbt import DagsterDbtTranslator, DagsterDbtTranslatorSettings, DbtCliResource, DbtProject

from medallion.publish.dbt_runner import DBT_PROJECT_DIR, dbt_executable

project = DbtProject(project_dir=DBT_PROJECT_DIR, profiles_dir=DBT_PROJECT_DIR)


def dbt_cli() -> DbtCliResource:
    """A dbt CLI resource for the project, using the venv's dbt (the venv need not be on PATH)."""
    return DbtCliResource(project_dir=project, dbt_executable=dbt_executable())


class MedallionDbtTranslator(DagsterDbtTranslator):
    """One lineage from the inbox to Gold.

    A dbt source takes the key of the Python asset that writes it, declared in ``sources.yml`` as
    ``meta: {dagster: {asset_key: [...]}}`` where it differs from ``<schema>/<table>`` (every
    ``bronze.*`` table is landed by ``bronze/events``; ``telemetry.model_calls`` is written by the
    derivation with ``silver/derivations``; ``gold.wiki_pages`` by ``gold/wiki``). Models are keyed
    ``<schema>/<name>`` and grouped by layer.

    Tests sit on the staging views, never on a source that a Python asset writes: such a test would
    be a blocking check of that asset run by the dbt step, so the dbt step would have to run both
    before and after the assets in between, and Dagster would split one ``dbt build`` into several.
    """

    def get_asset_key(self, dbt_resource_props: Mapping[str, Any]) -> dg.AssetKey:
        declared = ((dbt_resource_props.get("meta") or {}).get("dagster") or {}).get("asset_key")
        if declared:
            return dg.AssetKey(declared)
        if dbt_resource_props["resource_type"] == "source":
            return dg.AssetKey([dbt_resource_props["source_name"], dbt_resource_props["name"]])
        schema = dbt_resource_props.get("config", {}).get("schema") or dbt_resource_props.get("schema")
        return dg.AssetKey([schema, dbt_resource_props["name"]])

    def get_group_name(self, dbt_resource_props: Mapping[str, Any]) -> str | None:
        if dbt_resource_props["resource_type"] == "source":
            return None
        return dbt_resource_props.get("config", {}).get("schema") or "gold"


TRANSLATOR = MedallionDbtTranslator(
    settings=DagsterDbtTranslatorSettings(enable_asset_checks=True, enable_duplicate_source_asset_keys=True,
                                          enable_source_tests_as_checks=True),
)
