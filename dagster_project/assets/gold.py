"""Dagster shell over dbt (Silver views, Gold models, their tests as checks) and the data dictionary.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import json
import os

import dagster as dg
from dagster_dbt import build_schedule_from_dbt_selection, dbt_assets

from dagster_project.conventions import OWNERS, code_version, table_metadata
from dagster_project.dbt import TRANSLATOR, dbt_cli, project
from dagster_project.keys import (
    ALERTS,
    BRONZE_EVENTS,
    COLUMN_META,
    DRIFT_REPORT,
    RETRIEVALS,
    REVIEW_QUEUE,
    SILVER,
    STAGED_FACTS,
    WIKI,
)
from dagster_project.metadata import markdown_table
from dagster_project.resources import MedallionResource
from medallion.publish import dictionary
from medallion.publish.dbt_runner import build_target, dbt_environment, prepare_manifest
from medallion.publish.wiki import compile_wiki
from medallion.serve.tools import open_tools

MANIFEST = prepare_manifest()
MANIFEST_DATABASE = "medallion"  # profiles.yml's default dbname, which `dbt parse` compiles in
# gold.column_meta is loaded after dbt runs, so dbt cannot declare it: the dictionary describes itself
COLUMN_META_SCHEMA = dg.TableSchema(columns=[
    dg.TableColumn(row.column_name, row.data_type, description=row.description)
    for row in dictionary.build_rows({}, {}) if row.relation == "gold.column_meta"])


@dbt_assets(manifest=MANIFEST, project=project, dagster_dbt_translator=TRANSLATOR, name="dbt_build")
def dbt_build(context: dg.AssetExecutionContext, medallion: MedallionResource):
    """``dbt build`` of the selected models, seeds and tests, streamed; row counts on every table."""
    dbt = dbt_cli()
    cwd = os.getcwd()
    with dbt_environment(medallion.settings()) as env, build_target(env) as target:
        events = dbt.cli(["build"], context=context, target_path=target).stream()
        # Row counts query the relation names compiled into the manifest, which name the database
        # the project was parsed for; count only when the run targets that database.
        if env["MEDALLION_DBT_DBNAME"] == MANIFEST_DATABASE:
            events = events.fetch_row_counts()
        try:
            yield from events
        finally:
            os.chdir(cwd)  # dbt, loaded in-process for the row counts, moves to the project directory


@dg.asset(
    key=COLUMN_META,
    deps=[*dbt_build.keys],
    group_name="dictionary",
    kinds={"dbt", "postgres", "markdown"},
    owners=OWNERS,
    code_version=code_version("medallion/publish/dictionary.py"),
    metadata=table_metadata("gold.column_meta", COLUMN_META_SCHEMA),
    description="The data dictionary (D2): dbt docs loaded into gold.column_meta and DATA_DICTIONARY.md.",
)
def data_dictionary(context: dg.AssetExecutionContext, medallion: MedallionResource) -> dg.MaterializeResult:
    settings = medallion.settings()
    with medallion.connect() as conn:
        result = dictionary.generate(conn, json.loads(MANIFEST.read_text()))
        dictionary.load(conn, result.rows)
    path = dictionary.write_markdown(result, settings.data_dictionary_path)
    context.log.info(f"data dictionary: {len(result.rows)} columns of {result.relation_count} relations → {path}")
    undocumented = [f"{r.relation}.{r.column_name}" for r in result.rows if not r.description]
    preview = markdown_table([
        {"relation": r.relation, "column": r.column_name, "type": r.data_type, "description": r.description[:60]}
        for r in result.rows[:12]
    ])
    return dg.MaterializeResult(metadata={
        "dagster/row_count": len(result.rows),
        "relations": result.relation_count,
        "undocumented_columns": len(undocumented),
        "path": dg.MetadataValue.path(str(path)),
        "preview": dg.MetadataValue.md(preview),
    })


@dg.asset(
    key=WIKI,
    deps=[SILVER[name] for name in ("facts", "entities", "edges", "overlays")],
    group_name="projections",
    kinds={"python", "markdown"},
    owners=OWNERS,
    code_version=code_version("medallion/publish/wiki.py", "medallion/serve/served.py"),
    metadata=table_metadata("gold.wiki_pages"),
    description="The compiled wiki (G10): a page per entity and per shared belief, rendered from the ledger "
    "with overlays applied; page hashes in gold.wiki_pages.",
)
def wiki(context: dg.AssetExecutionContext, medallion: MedallionResource) -> dg.MaterializeResult:
    settings = medallion.settings()
    with open_tools(None, settings) as tools, medallion.connect() as conn:
        result = compile_wiki(settings, conn, tools)
    context.log.info(f"wiki: {len(result.pages)} pages under {settings.wiki_root}")
    kinds = {kind: sum(1 for p in result.pages if p.kind == kind) for kind in ("entity", "concept")}
    # pages per namespace and kind, not titles or paths: those name entities and values, and run metadata
    # outlives an erasure
    per = {(p.namespace, p.kind): 0 for p in result.pages}
    for page in result.pages:
        per[(page.namespace, page.kind)] += 1
    preview = markdown_table([{"namespace": ns, "kind": kind, "pages": n} for (ns, kind), n in sorted(per.items())]) \
        if result.pages else "_no pages: nothing is believed yet_"
    return dg.MaterializeResult(metadata={
        "dagster/row_count": len(result.pages),
        "entity_pages": kinds["entity"],
        "concept_pages": kinds["concept"],
        "removed_pages": len(result.removed),
        "ledger_hash": result.ledger_hash,
        "path": dg.MetadataValue.path(str(settings.wiki_root)),
        "pages": dg.MetadataValue.md(preview),
    })


# Not materialized by Dagster: the tools (Python API, CLI, MCP) append a row per call. Declared so
# that the usage marts read from an asset with an owner and a column schema rather than a bare stub.
tool_calls = dg.AssetSpec(
    key=RETRIEVALS, group_name="telemetry", kinds={"postgres"}, owners=OWNERS,
    description="One row per tool call (search, read, recall ...): what was asked, what came back, "
    "whether it was allowed. Written by the tools themselves, not by a Dagster run.",
    metadata=table_metadata("telemetry.retrievals"),
)

GOLD_OLAP = "tag:olap"
refresh_olap_schedule = build_schedule_from_dbt_selection(
    [dbt_build], job_name="refresh_olap", cron_schedule="0 * * * *", dbt_select=GOLD_OLAP,
    schedule_name="refresh_olap_hourly",
)

# The drift audit (A1), daily: the audit asset, the Bronze chain check and the ledger invariants,
# then the review queue and alerts that list its findings.
drift_audit_job = dg.define_asset_job(
    "drift_audit",
    selection=dg.AssetSelection.keys(DRIFT_REPORT, REVIEW_QUEUE, ALERTS)
    | dg.AssetSelection.checks_for_assets(BRONZE_EVENTS, STAGED_FACTS),
    description="Daily drift audit: Bronze chain and checkpoints, coverage, projections, Hindsight, stale facts; "
    "ledger invariants; review queue and alerts.",
)
drift_audit_schedule = dg.ScheduleDefinition(
    name="drift_audit_daily", job=drift_audit_job, cron_schedule="0 3 * * *",
    description="Every day at 03:00: the drift audit.",
)

ASSETS = [dbt_build, data_dictionary, wiki, tool_calls]
JOBS = [drift_audit_job]
SCHEDULES = [refresh_olap_schedule, drift_audit_schedule]
