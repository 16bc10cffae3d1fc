"""The dbt project as Dagster sees it: the project, a CLI resource, and the translator that puts every
dbt node into one asset lineage with the Python assets.

The engine's side of dbt (connection variables, ``dbt parse``) is :mod:`medallion.publish.dbt_runner`.
"""

import logging
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

import dagster as dg
from dagster_dbt import DagsterDbtTranslator, DagsterDbtTranslatorSettings, DbtCliResource, DbtProject

from dagster_project.conventions import OWNERS
from medallion.publish.dbt_runner import DBT_PROJECT_DIR, dbt_executable

project = DbtProject(project_dir=DBT_PROJECT_DIR, profiles_dir=DBT_PROJECT_DIR)


class _ExpectedIndirectTests(logging.Filter):
    """Drops dagster-dbt's warning for each dbt test that dbt's (eager) indirect selection ran beside a
    subset of the models: a run of what lies downstream of one namespace's Silver selects some models,
    and a relationship test between a selected and an unselected model runs with them. That is how
    the project is meant to build; dagster-dbt still records the result (an asset observation), so the
    warning, one per such test in every such run, says nothing to act on."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Logging an `AssetObservation` instead of an `AssetCheckResult`")


logging.getLogger("dagster.builtin").addFilter(_ExpectedIndirectTests())


@cache
def dbt_cli() -> DbtCliResource:
    """A dbt CLI resource for the project, using the venv's dbt (the venv need not be on PATH). One per
    process: the resource asks ``dbt --version`` once per instance (3 s), not once per build."""
    return DbtCliResource(project_dir=project, dbt_executable=dbt_executable())


class MedallionDbtTranslator(DagsterDbtTranslator):
    """One lineage from the inbox to Gold.

    A dbt source takes the key of the Python asset that writes it, declared in
    ``models/staging/_<schema>__sources.yml`` as ``meta: {dagster: {asset_key: [...]}}`` where it
    differs from ``<schema>/<table>`` (every ``bronze.*`` table is landed by ``bronze/events``;
    ``telemetry.model_calls`` is written by the derivation with ``silver/derivations``;
    ``gold.wiki_pages`` by ``gold/wiki``). Models are keyed
    ``<schema>/<name>`` and grouped by their schema (``staging``, ``silver_views``, ``gold_marts``,
    ``reference``), so that the groups follow the data: no group holds both a Python asset and a dbt
    model, and no two groups feed each other.

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

    def get_description(self, dbt_resource_props: Mapping[str, Any]) -> str:
        """dagster-dbt's description (the dbt description, then the model's SQL), but a node without
        SQL (a seed, a source) says where its rows come from instead of ending in an empty "Raw SQL"."""
        if (dbt_resource_props.get("raw_code") or dbt_resource_props.get("raw_sql") or "").strip():
            return super().get_description(dbt_resource_props)
        name, kind = dbt_resource_props["name"], dbt_resource_props["resource_type"]
        described = (dbt_resource_props.get("description") or "").strip() or f"dbt {kind} {name}"
        path = dbt_resource_props.get("original_file_path")
        return f"{described}\n\nLoaded by `dbt seed` from `dbt_project/{path}`." if kind == "seed" and path \
            else described

    def get_group_name(self, dbt_resource_props: Mapping[str, Any]) -> str | None:
        if dbt_resource_props["resource_type"] == "source":
            return None
        return dbt_resource_props.get("config", {}).get("schema") or "gold_marts"

    def get_owners(self, dbt_resource_props: Mapping[str, Any]) -> list[str]:
        return OWNERS

    def get_asset_check_spec(self, asset_spec: dg.AssetSpec, manifest: Mapping[str, Any], unique_id: str,
                             project: DbtProject | None) -> dg.AssetCheckSpec | None:
        """dagster-dbt's check, with a description: the test's ``meta.description`` or dbt description,
        else one written from the generic test and its arguments."""
        spec = super().get_asset_check_spec(asset_spec, manifest, unique_id, project)
        if spec is None:
            return None
        test = manifest["nodes"][unique_id]
        return dg.AssetCheckSpec(
            name=spec.name, asset=spec.asset_key, additional_deps=spec.additional_deps, blocking=spec.blocking,
            metadata=spec.metadata, description=spec.description or check_description(test))


def _relation(ref: str) -> str:
    """``ref('x')`` → ``x``; ``source('a', 'b')`` → ``a.b``."""
    names = re.findall(r"['\"]([^'\"]+)['\"]", ref)
    return ".".join(names) or ref


def check_description(test: Mapping[str, Any]) -> str:
    """What a dbt test asserts, in one sentence: its own description when it has one, else written
    from the generic test's name and arguments."""
    own = ((test.get("meta") or {}).get("description") or test.get("description") or "").strip()
    if own:
        return own
    generic = test.get("test_metadata") or {}
    kwargs = generic.get("kwargs") or {}
    column = kwargs.get("column_name") or test.get("column_name")
    text = {
        "not_null": f"`{column}` is never null.",
        "unique": f"`{column}` is unique: no two rows share a value.",
        "accepted_values": f"`{column}` is one of: {', '.join(str(v) for v in kwargs.get('values') or [])}.",
        "relationships": f"Every `{column}` is an existing `{kwargs.get('field')}` of "
                         f"`{_relation(str(kwargs.get('to')))}`.",
        "unique_grain": f"One row per {', '.join(f'`{c}`' for c in kwargs.get('columns') or [])}: no two rows "
                        "share them.",
    }.get(generic.get("name", ""), f"dbt test `{test.get('name')}`.")
    where = (test.get("config") or {}).get("where")
    if where:
        text = f"{text[:-1]} (rows where {where})."
    if str((test.get("config") or {}).get("severity") or "error").lower() == "warn":
        text += " A failure warns; it does not block."
    return text


TRANSLATOR = MedallionDbtTranslator(
    settings=DagsterDbtTranslatorSettings(enable_asset_checks=True, enable_duplicate_source_asset_keys=True,
                                          enable_source_tests_as_checks=True),
)
