"""Dagster shell over the Silver derivation: one multi-asset for the Python-written Silver tables.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import dagster as dg

from dagster_project.assets.bronze import markdown_table
from dagster_project.keys import BRONZE_EVENTS, SILVER
from dagster_project.resources import MedallionResource
from medallion.silver import summary
from medallion.silver.derive import derive

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
}


class DeriveConfig(dg.Config):
    """``full_rebuild`` drops Silver (but the derivation cache) and re-derives everything from Bronze."""

    full_rebuild: bool = False


@dg.multi_asset(
    specs=[
        dg.AssetSpec(key, deps=[BRONZE_EVENTS], description=DESCRIPTIONS[name], group_name="silver",
                     kinds={"postgres", "python"},
                     # derive incrementally whenever Bronze lands (the daemon's automation sensor)
                     automation_condition=dg.AutomationCondition.eager())
        for name, key in SILVER.items()
    ],
    name="silver_derive",
    can_subset=False,
)
def silver_derive(context: dg.AssetExecutionContext, config: DeriveConfig, medallion: MedallionResource):
    settings = medallion.settings()
    with medallion.connect() as conn:
        report = derive(conn, settings, full_rebuild=config.full_rebuild)
        counts = summary.table_counts(conn)
        recent = summary.recent_decisions(conn, 10)
    tally = report.as_dict()
    context.log.info(f"derived {report.events} events: {tally['decisions']} ({tally['outcomes']})")
    if report.failures or report.overlay_failures:  # parked, not fatal: listed in gold_marts.review_queue
        context.log.warning(f"{len(report.failures)} event(s) parked in silver.derivation_failures; overlay "
                            f"anchoring failed for {sorted(report.overlay_failures) or 'no namespace'}")
    preview = markdown_table(recent)
    for name, key in SILVER.items():
        metadata: dict = {"dagster/row_count": counts[name]}
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
                "namespaces_rebuilt": dg.MetadataValue.json(report.namespaces_rebuilt),
                "recent_decisions": dg.MetadataValue.md(preview),
            })
        yield dg.MaterializeResult(asset_key=key, metadata=metadata)


ASSETS = [silver_derive]
