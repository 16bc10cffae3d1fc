"""Dagster shell over the Silver derivation: the Python-written Silver tables, partitioned by namespace.

One graph-backed multi-asset, ``silver_derive``: ``plan`` shares the run's namespaces (its partition,
or its range of partitions) out into balanced groups, one ``derive`` step per group runs the engine's
derivation for those namespaces, and ``summarise`` reports the run on every Silver table. Under the
multiprocess executor the ``derive`` steps run side by side, each in its own process (on Kubernetes,
each in its own pod); the engine's per-namespace lock keeps two runs off the same namespace. Each
``derive`` step logs its progress (events derived / total, rate, ETA) every few seconds.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import os

import dagster as dg

from dagster_project.automation import DERIVE
from dagster_project.conventions import OWNERS, code_version, table_metadata
from dagster_project.keys import BRONZE_EVENTS, SILVER
from dagster_project.metadata import markdown_table
from dagster_project.partitions import NAMESPACES
from dagster_project.progress import ProgressLog
from dagster_project.resources import MedallionResource
from medallion.bronze.namespaces import balanced_groups, event_counts
from medallion.silver import summary
from medallion.silver.derive import DeriveReport, derive
from medallion.silver.embed import limit_threads

DESCRIPTIONS = {
    "facts": "The bitemporal ledger of atomic facts (S5): every version, with provenance and fingerprint.",
    "entities": "Entities the facts are about, with aliases (S11).",
    "edges": "Entity-to-entity edges drawn from entity-valued facts (S11).",
    "resolutions": "Every conflict-resolution decision with its neighbours, scores and reason (S3).",
    "chunks": "Retrieval chunks of Bronze content with embeddings and full-text vectors (S7).",
    "documents": "Versioned documents, git-style, one HEAD per path (S8).",
    "working_memory": "Low-stakes, ephemeral items with an expiry, never in the ledger (S10).",
    "derivations": "Which Bronze event was derived under which fingerprint (4.1, S13).",
    "derivation_failures": "Events whose derivation failed, parked with a reason and retried next run (R4).",
    "overlays": "People's overlays (edit, annotate, redact) anchored to the current ledger (G6).",
    "predicates": "The predicate vocabulary in use per namespace, curated and learned, with aliases and examples.",
    "withheld": "Facts and chunks withheld from serving because their data subject asked the memory to forget them.",
}


class DeriveConfig(dg.Config):
    """How one run derives its namespaces."""

    full_rebuild: bool = False
    """Drop the run's namespaces from Silver (but the derivation cache) and re-derive them from Bronze."""
    steps: int = 0
    """Parallel derive steps to share the namespaces between (0: one per CPU core of the machine that
    plans the run). Match the executor's ``max_concurrent``."""
    lock_wait_seconds: float = 300.0
    """How long a step waits for a namespace another run is deriving before it fails, saying so."""
    threads_per_step: int = 0
    """CPU threads of the embedding model in each derive step (0: the library's default, every core;
    with several steps side by side, cores / steps)."""
    progress_seconds: float = 5.0
    """How often each derive step logs its progress (events derived / total, rate, ETA)."""


def _op_config(config: dict) -> dict:
    """The graph's one config block, handed to each of its ops."""
    return {op: {"config": config} for op in ("plan", "derive_group", "summarise")}


@dg.op(ins={"bronze": dg.In(dg.Nothing)}, out=dg.DynamicOut(list))
def plan(context: dg.OpExecutionContext, config: DeriveConfig, medallion: MedallionResource):
    """One group of namespaces per parallel step, balanced by Bronze event count."""
    wanted = list(context.partition_keys)
    with medallion.connect() as conn:
        counts = event_counts(conn, wanted)
    counts.update({ns: 0 for ns in wanted if ns not in counts})  # a partition with no events left
    steps = config.steps or os.cpu_count() or 1
    groups = balanced_groups(counts, steps)
    context.log.info(f"{len(wanted)} namespace(s), {sum(counts.values())} Bronze events, in {len(groups)} step(s)")
    for i, group in enumerate(groups):
        yield dg.DynamicOutput(group, mapping_key=f"group_{i}")


@dg.op
def derive_group(context: dg.OpExecutionContext, config: DeriveConfig, medallion: MedallionResource,
                 group: list) -> DeriveReport:
    """The engine's derivation of one group of namespaces."""
    if config.threads_per_step:
        limit_threads(config.threads_per_step)
    with medallion.connect() as conn:
        report = derive(conn, medallion.settings(), full_rebuild=config.full_rebuild, namespaces=group,
                        lock_wait_seconds=config.lock_wait_seconds,
                        progress=ProgressLog(context.log, ", ".join(group), config.progress_seconds))
    context.log.info(f"{', '.join(group)}: {report.events} events derived in {report.seconds:.1f} s")
    return report


@dg.op(out={name: dg.Out(dg.Nothing) for name in SILVER})
def summarise(context: dg.OpExecutionContext, config: DeriveConfig, medallion: MedallionResource,
              reports: list):
    """The run's decisions on every Silver asset, and each namespace partition's own row counts and
    newest decisions on that partition.

    A run of one partition says both on its one materialization. A run over several partitions
    materializes each of them with the run's tallies (labelled by the run's ``namespaces``), then once
    more with what that partition alone holds, so a partition's latest metadata describes it only.
    Ids, counts, namespaces, decision kinds and predicate names only: never event content, which an
    erasure could not reach in the run storage."""
    report = DeriveReport.merged(reports, side_by_side=True)
    partitions = sorted(context.partition_keys)
    with medallion.connect() as conn:
        own = {ns: (summary.table_counts(conn, ns), summary.recent_decisions(conn, 10, ns)) for ns in partitions}
    tally = report.as_dict()
    context.log.info(f"derived {report.events} events: {tally['decisions']} ({tally['outcomes']})")
    if report.failures or report.overlay_failures:  # parked, not fatal: listed in gold_marts.review_queue
        context.log.warning(f"{len(report.failures)} event(s) parked in silver.derivation_failures; overlay "
                            f"anchoring failed for {sorted(report.overlay_failures) or 'no namespace'}")
    alone = partitions[0] if len(partitions) == 1 else None
    for name in SILVER:
        metadata: dict = _partition_metadata(name, *own[alone]) if alone is not None else {}
        if name == "facts":
            metadata.update({
                "events_processed": report.events,
                "added": report.outcomes.get("added", 0),
                "updated": report.decisions.get("update", 0),
                "superseded": report.decisions.get("supersede", 0),
                "skipped": report.decisions.get("skip", 0),
                "contested": report.outcomes.get("contested", 0),
                "stored_as_history": report.outcomes.get("stored_as_history", 0),
                "model_calls": report.model_calls,
                "cache_hit_rate": report.cache_hit_rate,
                "failures": len(report.failures),
                "overlay_failures": dg.MetadataValue.json(report.overlay_failures),
                "overlays": dg.MetadataValue.json(report.overlays),
                "full_rebuild": config.full_rebuild,
                "namespaces": dg.MetadataValue.json(partitions),
                "parallel_steps": len(reports),
                "namespaces_rebuilt": dg.MetadataValue.json(report.namespaces_rebuilt),
            })
        yield dg.Output(None, name, metadata=metadata)
    if alone is None:
        for ns in partitions:
            for name, key in SILVER.items():
                yield dg.AssetMaterialization(asset_key=key, partition=ns, metadata=_partition_metadata(name, *own[ns]))


def _partition_metadata(name: str, counts: dict, recent: list) -> dict:
    """What one namespace partition of Silver table ``name`` holds: its rows, and for the facts its
    newest decisions (ids, decision kinds, predicates)."""
    metadata: dict = {"dagster/row_count": counts[name]}
    if name == "facts":
        metadata["recent_decisions"] = dg.MetadataValue.md(markdown_table(recent))
    return metadata


# what decides the rows: the engine's derivation and its reading of English (with the vocabulary seeds),
# its model cards and prompts
CODE_VERSION = code_version("medallion/silver", "medallion/distill", "dbt_project/seeds")


@dg.graph_multi_asset(
    name="silver_derive",
    group_name="silver",
    outs={
        name: dg.AssetOut(key=key, description=DESCRIPTIONS[name], kinds={"postgres", "python"}, owners=OWNERS,
                          code_version=CODE_VERSION, metadata=table_metadata(f"silver.{name}"),
                          # a new partition or new Bronze events derive it (dagster_project/automation.py)
                          automation_condition=DERIVE)
        for name, key in SILVER.items()
    },
    ins={"bronze": dg.AssetIn(key=BRONZE_EVENTS, dagster_type=dg.Nothing)},
    partitions_def=NAMESPACES,
    # a backfill of many namespaces is one run: its steps share them out (see ``plan``)
    backfill_policy=dg.BackfillPolicy.single_run(),
    config=dg.ConfigMapping(config_fn=_op_config, config_schema=DeriveConfig.to_config_schema()),
    can_subset=False,
)
def silver_derive(bronze):
    reports = plan(bronze).map(derive_group).collect()
    return summarise(reports)


ASSETS = [silver_derive]
