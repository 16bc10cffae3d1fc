"""Dagster shell over the drift audit (A1): the ``gold/drift_report`` asset on the daily schedule.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import base64
import io

import dagster as dg

from dagster_project.assets.bronze import markdown_table
from dagster_project.keys import BRONZE_EVENTS, DRIFT_REPORT, HINDSIGHT_MIRROR, SILVER, WIKI
from dagster_project.resources import MedallionResource
from medallion.audit import drift


def plot_png(history: list[dict]) -> str:
    """Findings per check over recent runs, as a base64 PNG for Markdown metadata."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = sorted({h["at"] for h in history})
    fig, ax = plt.subplots(figsize=(7, 3), dpi=80)
    for check in drift.CHECKS:
        series = [sum(h["findings"] for h in history if h["at"] == at and h["check"] == check) for at in runs]
        if any(series):
            ax.plot(range(len(runs)), series, marker="o", label=check)
    ax.set_xlabel("audit run (oldest → newest)")
    ax.set_ylabel("findings")
    ax.set_title("Drift findings and stale facts over recent runs")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


@dg.asset(
    key=DRIFT_REPORT,
    deps=[BRONZE_EVENTS, SILVER["facts"], SILVER["chunks"], WIKI],
    group_name="gold",
    kinds={"python", "postgres"},
    description="The drift audit (A1): Bronze chain, Silver coverage and orphans, projection hashes, the "
    "Hindsight sample and stale facts; findings in gold.drift_report and the review queue.",
)
def drift_report(context: dg.AssetExecutionContext, medallion: MedallionResource) -> dg.MaterializeResult:
    settings = medallion.settings()
    with medallion.connect() as conn:
        report = drift.run_audit(conn, settings, hindsight_sample=drift.configured_sampler(settings))
        drift.store(conn, report)
        history = drift.history(conn)
    context.log.info(f"drift audit: {'clean' if report.ok else 'errors found'}; {len(report.findings)} finding(s)")
    summary = markdown_table([{"check": f.check, "severity": f.severity, "namespace": f.namespace or "",
                                "detail": f.detail[:100]} for f in report.findings[:20]]) \
        if report.findings else "_clean: every check passed_"
    return dg.MaterializeResult(metadata={
        "ok": report.ok,
        "findings": len(report.findings),
        **{f"findings_{check}": n for check, n in report.counts().items()},
        "seconds": round(report.seconds, 3),
        "summary": dg.MetadataValue.md(summary),
        "trend": dg.MetadataValue.md(f"![drift findings](data:image/png;base64,{plot_png(history)})"),
    })


@dg.asset(
    key=HINDSIGHT_MIRROR,
    deps=[SILVER["facts"], SILVER["overlays"]],
    group_name="gold",
    kinds={"python"},
    description="One-way mirror of authoritative current facts into the Hindsight peer (A2), when HINDSIGHT_URL "
    "is set: document id = the fact's slot, superseded slots invalidated. Never a two-way sync.",
)
def hindsight_mirror(context: dg.AssetExecutionContext, medallion: MedallionResource) -> dg.MaterializeResult:
    settings = medallion.settings()
    if not settings.hindsight_url:
        context.log.info("HINDSIGHT_URL is not set: nothing to mirror")
        return dg.MaterializeResult(metadata={"configured": False})
    from medallion.audit import hindsight
    from medallion.peers.hindsight import HindsightPeer

    with medallion.connect() as conn, HindsightPeer(settings.hindsight_url) as peer:
        counts = hindsight.mirror(conn, peer)
    return dg.MaterializeResult(metadata={"configured": True, **{
        k: v for k, v in counts.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}})


ASSETS = [drift_report, hindsight_mirror]
