"""Dagster shell over the drift audit (A1) and the Hindsight mirror (A2): ``gold/drift_report`` (group
``audit``) and ``gold/hindsight_mirror`` (group ``projections``), both rebuilt after every Silver run
(``dagster_project/automation.py``) and the audit on the daily schedule too.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import base64
import io

import dagster as dg

from dagster_project.conventions import OWNERS, code_version, table_metadata
from dagster_project.keys import BRONZE_EVENTS, DRIFT_REPORT, HINDSIGHT_MIRROR, SILVER, WIKI
from dagster_project.metadata import markdown_table
from dagster_project.resources import MedallionResource
from medallion.audit import drift

# What the mirror writes: one Hindsight document per ledger slot, the fact's statement as its text
# and LedgerFact.metadata() next to it.
MIRRORED_DOCUMENT = dg.TableSchema(columns=[
    dg.TableColumn("document_id", "text", description="The fact's slot (namespace, subject, predicate, value): "
                   "a newer fact of the slot replaces the document."),
    dg.TableColumn("content", "text", description="The fact's statement, overlays applied."),
    dg.TableColumn("timestamp", "timestamptz", description="When the fact became valid (valid_from)."),
    *(dg.TableColumn(f"metadata.{key}", "text", description=description) for key, description in (
        ("fact_id", "The ledger fact mirrored."),
        ("value_text", "The fact's value as text."),
        ("valid_from", "When the fact became valid, ISO 8601."),
        ("subject_id", "The entity the fact is about."),
        ("predicate", "The fact's predicate."),
        ("authority", "The fact's authority tier (1 is the highest)."),
        ("statement_sha", "SHA-256 of the statement: tells a stale copy from a current one."),
        ("mirrored_by", "Always medallion-memory: the documents this mirror owns."),
    )),
])


def trend_series(history: list[dict]) -> tuple[list, dict[str, list[int]]]:
    """The audit runs (oldest first) and the findings per run: always the total over every check (a
    line of zeros after clean runs), and each check that found something."""
    runs = sorted({h["at"] for h in history})
    total = [sum(h["findings"] for h in history if h["at"] == at) for at in runs]
    series = {"all checks": total}
    for check in drift.CHECKS:
        counts = [sum(h["findings"] for h in history if h["at"] == at and h["check"] == check) for at in runs]
        if any(counts):
            series[check] = counts
    return runs, series


def trend_figure(history: list[dict]):  # noqa: ANN201 - a matplotlib Figure, imported lazily
    """Findings per run over recent audit runs: the total, each check with findings, and a plain "no
    drift" note when every run in view was clean (rather than empty axes)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs, series = trend_series(history)
    fig, ax = plt.subplots(figsize=(7, 3), dpi=80)
    for label, counts in series.items():
        ax.plot(range(len(runs)), counts, marker="o", label=label,
                linewidth=2 if label == "all checks" else 1)
    clean = not any(series["all checks"])
    if clean:
        ax.set_ylim(-0.5, 5)
        note = f"no drift: all {len(runs)} audit run(s) clean" if runs else "no audit run yet"
        ax.text(0.5, 0.6, note, transform=ax.transAxes, ha="center", va="center", fontsize=11, color="green")
    ax.set_xticks(range(len(runs)))
    ax.set_xlabel("audit run (oldest → newest)")
    ax.set_ylabel("findings")
    ax.set_title("Drift findings and stale facts over recent runs")
    if runs:
        ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig


def plot_png(history: list[dict]) -> str:
    """:func:`trend_figure` as a base64 PNG for Markdown metadata."""
    import matplotlib.pyplot as plt

    fig = trend_figure(history)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


@dg.asset(
    key=DRIFT_REPORT,
    deps=[BRONZE_EVENTS, SILVER["facts"], SILVER["chunks"], WIKI],
    group_name="audit",
    kinds={"python", "postgres"},
    owners=OWNERS,
    code_version=code_version("medallion/audit/drift.py"),
    metadata=table_metadata("gold.drift_report"),
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
    # check, severity and namespace, not the detail: a detail may quote a statement, and run metadata
    # outlives an erasure (gold.drift_report keeps the details, where an erasure reaches them)
    summary = markdown_table([{"check": f.check, "severity": f.severity, "namespace": f.namespace or ""}
                              for f in report.findings[:20]]) if report.findings else "_clean: every check passed_"
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
    group_name="projections",
    kinds={"python"},
    owners=OWNERS,
    code_version=code_version("medallion/audit/hindsight_mirror.py", "medallion/peers"),
    metadata={"dagster/column_schema": MIRRORED_DOCUMENT},
    description="One-way mirror of authoritative current facts into the Hindsight peer (A2), when HINDSIGHT_URL "
    "is set: document id = the fact's slot, superseded slots invalidated. Never a two-way sync.",
)
def hindsight_mirror(context: dg.AssetExecutionContext, medallion: MedallionResource) -> dg.MaterializeResult:
    settings = medallion.settings()
    if not settings.hindsight_url:
        context.log.info("HINDSIGHT_URL is not set: nothing to mirror")
        return dg.MaterializeResult(metadata={"configured": False})
    from medallion.audit.hindsight_mirror import mirror
    from medallion.peers.hindsight import HindsightPeer

    with medallion.connect() as conn, HindsightPeer(settings.hindsight_url) as peer:
        counts = mirror(conn, peer)
    return dg.MaterializeResult(metadata={"configured": True, **{
        k: v for k, v in counts.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}})


ASSETS = [drift_report, hindsight_mirror]
