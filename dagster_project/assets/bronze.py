"""Dagster shell over Bronze landing: the ``bronze/events`` asset (which adds a partition for each new
namespace), its chain check, the inbox sensor.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""


import dagster as dg

from dagster_project.conventions import OWNERS, code_version, table_metadata
from dagster_project.keys import BRONZE_EVENTS
from dagster_project.metadata import markdown_table
from dagster_project.partitions import register
from dagster_project.resources import MedallionResource
from medallion.bronze import integrity
from medallion.bronze.landing import land_inbox, pending_files
from medallion.bronze.namespaces import namespaces as bronze_namespaces
from medallion.bronze.overview import archive_size, latest_events


@dg.asset(
    key=BRONZE_EVENTS,
    group_name="bronze",
    description="Every event, verbatim and append-only (B1-B8). Lands JSONL files from the inbox; "
    "direct API/CLI/MCP ingest writes the same table.",
    kinds={"postgres", "python"},
    owners=OWNERS,
    code_version=code_version("medallion/bronze"),  # the contract, the landing and the hash chain
    metadata=table_metadata("bronze.events"),
)
def bronze_events(context: dg.AssetExecutionContext, medallion: MedallionResource) -> dg.MaterializeResult:
    settings = medallion.settings()
    with medallion.connect() as conn:
        report = land_inbox(conn, settings.inbox, max_content_bytes=settings.max_content_bytes)
        total, namespaces = archive_size(conn)
        # keys and times only: run metadata outlives an erasure, so it never carries content or actors
        newest = [{k: e[k] for k in ("event_id", "namespace", "source", "kind", "received_at")}
                  for e in latest_events(conn, 10)]
        added = register(context.instance, bronze_namespaces(conn))
    if added:
        context.log.info(f"new namespace partition(s): {', '.join(added)}")
    res = report.result
    context.log.info(
        f"landed {len(report.done) + len(report.rejected)} file(s): {res.inserted} inserted, "
        f"{res.duplicate} duplicate, {res.conflict} conflict, {res.rejected} rejected"
    )
    for name, why in report.failed.items():  # the step goes on; the file is in rejected/ unless it could not move
        context.log.warning(f"{name}: {why}")
    return dg.MaterializeResult(
        metadata={
            "inserted": res.inserted,
            "duplicate": res.duplicate,
            "conflict": res.conflict,
            "rejected": res.rejected,
            "files_done": dg.MetadataValue.json(report.done),
            "files_rejected": dg.MetadataValue.json(report.rejected),
            "files_failed": dg.MetadataValue.json(report.failed),
            "namespaces_touched": dg.MetadataValue.json(res.namespaces),
            "new_partitions": dg.MetadataValue.json(added),
            "dagster/row_count": total,
            "namespaces_total": namespaces,
            "newest_events": dg.MetadataValue.md(markdown_table(newest, empty="_no events yet_")),
        }
    )


@dg.asset_check(asset=BRONZE_EVENTS, description="The per-namespace hash chains and checkpoints verify (B6).")
def bronze_chain_verifies(medallion: MedallionResource) -> dg.AssetCheckResult:
    with medallion.connect() as conn:
        findings = integrity.verify(conn)
    return dg.AssetCheckResult(
        passed=not findings,
        metadata={
            "findings": len(findings),
            "details": dg.MetadataValue.md(
                "\n".join(f"- **{f.check}** `{f.namespace}`: {f.detail}" for f in findings[:50]) or "all chains verify"
            ),
        },
    )


land_bronze_job = dg.define_asset_job("land_bronze", selection=[BRONZE_EVENTS])


@dg.sensor(job=land_bronze_job, minimum_interval_seconds=15, default_status=dg.DefaultSensorStatus.RUNNING)
def inbox_sensor(context: dg.SensorEvaluationContext, medallion: MedallionResource) -> dg.SensorResult:
    """Request a landing run when JSONL files appear in the inbox (one run per distinct set of files)."""
    files = pending_files(medallion.settings().inbox)
    if not files:
        return dg.SensorResult(skip_reason="inbox is empty")
    signature = ";".join(f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in files)
    return dg.SensorResult(
        run_requests=[dg.RunRequest(run_key=signature, tags={"medallion/files": str(len(files))})],
        cursor=signature,
    )


ASSETS = [bronze_events]
CHECKS = [bronze_chain_verifies]
JOBS = [land_bronze_job]
SENSORS = [inbox_sensor]
