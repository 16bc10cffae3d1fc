"""The drift audit (A1): does everything above Bronze still match Bronze and the ledger?

Checks, each a list of findings in the report's shape:

(a) ``bronze_chain`` / ``bronze_checkpoint`` — the hash chain, the row hashes over every stored
    column and the checkpoints verify (B6, :mod:`medallion.bronze.integrity`);
(b) ``silver_coverage`` — every live Bronze event is derived under the current fingerprints;
    ``orphan_silver`` — every Silver row points at a live Bronze event;
(c) ``projection_hash`` — compiled projections match the ledger by hash: wiki pages (file vs
    ``gold.wiki_pages``), and fact and chunk embeddings (vs the derivation cache's vector for the
    same text under the current embedding fingerprint);
(d) ``hindsight`` — a sample of authoritative slots read back from the Hindsight peer, when configured;
(e) ``stale`` — load-bearing facts (importance ≥ 0.5) past their half-life.

Errors mean the derived layers cannot be trusted until a rebuild (or an investigation, for Bronze);
warnings ask a person to look (stale facts, Hindsight drift). Findings are stored in
``gold.drift_report``; the dbt review queue lists the latest run's.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

import psycopg

from medallion.bronze import integrity
from medallion.settings import Settings
from medallion.silver.fingerprint import derivation_fingerprint, embed_fingerprint

CHECKS = ("bronze_chain", "bronze_checkpoint", "silver_coverage", "orphan_silver", "projection_hash", "hindsight",
          "stale")
_SILVER_WITH_EVENTS = ("facts", "chunks", "resolutions", "derivations", "documents", "working_memory", "overlays")


@dataclass(frozen=True)
class Finding:
    """One drift finding (the ``--json`` shape)."""

    check: str
    severity: str
    namespace: str | None
    detail: str


@dataclass
class AuditReport:
    """The findings of one run and what it took."""

    run_id: str
    at: datetime
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    def counts(self) -> dict[str, int]:
        counts = {check: 0 for check in CHECKS}
        for finding in self.findings:
            counts[finding.check] += 1
        return counts

    def as_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "run_id": self.run_id, "findings": [asdict(f) for f in self.findings],
                "counts": self.counts(), "seconds": round(self.seconds, 3)}


def check_bronze(conn: psycopg.Connection) -> list[Finding]:
    """(a) Recompute every namespace's chain and row hashes; compare with the stored hashes and checkpoints.

    Row-hash findings are reported as ``bronze_chain`` (the check names gold.drift_report accepts);
    their detail names the event and what no longer matches.
    """
    return [Finding(f.check, f.severity, f.namespace, f.detail) for f in integrity.verify(conn)]


def check_coverage(conn: psycopg.Connection, settings: Settings) -> list[Finding]:
    """(b) Live events not derived under the current fingerprint, and Silver rows without their event."""
    fingerprint = derivation_fingerprint(settings)
    findings = []
    for namespace, missing, stale in conn.execute(
        "SELECT e.namespace, count(*) FILTER (WHERE d.bronze_event_id IS NULL), "
        "count(*) FILTER (WHERE d.fingerprint <> %s) FROM bronze.events e "
        "LEFT JOIN silver.derivations d ON d.bronze_event_id = e.event_id "
        "WHERE NOT EXISTS (SELECT 1 FROM silver.derivation_failures x WHERE x.bronze_event_id = e.event_id) "
        "GROUP BY e.namespace HAVING count(*) FILTER (WHERE d.bronze_event_id IS NULL OR d.fingerprint <> %s) > 0 "
        "ORDER BY 1", (fingerprint, fingerprint)).fetchall():
        if missing:
            findings.append(Finding("silver_coverage", "error", namespace,
                                    f"{missing} live Bronze event(s) not derived yet; run `medallion materialize`"))
        if stale:
            findings.append(Finding("silver_coverage", "error", namespace,
                                    f"{stale} event(s) derived under an older fingerprint (a model card, prompt, "
                                    "vocabulary or threshold changed): stale derivations; the next run re-derives"))
    for table in _SILVER_WITH_EVENTS:
        for namespace, orphans, example in conn.execute(
            f"SELECT s.namespace, count(*), min(s.bronze_event_id) FROM silver.{table} s "  # noqa: S608 - fixed names
            "WHERE NOT EXISTS (SELECT 1 FROM bronze.events e WHERE e.event_id = s.bronze_event_id) "
            "GROUP BY s.namespace ORDER BY 1").fetchall():
            findings.append(Finding("orphan_silver", "error", namespace,
                                    f"{orphans} row(s) of silver.{table} point at Bronze event(s) that no longer "
                                    f"exist (e.g. event {example}); a rebuild of the namespace removes them"))
    return findings


def check_projections(conn: psycopg.Connection, settings: Settings) -> list[Finding]:
    """(c) Wiki pages and embeddings against the ledger, by hash."""
    findings = []
    root = settings.wiki_root
    for namespace, path, expected in conn.execute(
            "SELECT namespace, path, content_hash FROM gold.wiki_pages ORDER BY namespace, path").fetchall():
        page = root / path
        if not page.exists():
            findings.append(Finding("projection_hash", "error", namespace,
                                    f"wiki page {path} is missing; recompile the wiki (materialize gold/wiki)"))
            continue
        actual = hashlib.sha256(page.read_bytes()).hexdigest()
        if actual != expected:
            findings.append(Finding("projection_hash", "error", namespace,
                                    f"wiki page {path} differs from what the ledger compiled (edited by hand?); "
                                    "the wiki is a build artifact: recompile it, and put corrections in overlays"))
    embed_fp = embed_fingerprint(settings.embedding_model)
    # a chunk is embedded with its context (silver/chunks.embed_text)
    for table, text_column, key in (("facts", "t.statement", "fact_id"),
                                    ("chunks", "coalesce(t.context || ' ', '') || t.text", "chunk_id")):
        for namespace, missing, mismatched, example in conn.execute(
            f"SELECT t.namespace, count(*) FILTER (WHERE t.embedding IS NULL), "  # noqa: S608 - fixed names
            f"count(*) FILTER (WHERE t.embedding IS NOT NULL AND c.embedding IS NOT NULL "
            f"AND t.embedding <> c.embedding), min(t.{key}) FILTER (WHERE t.embedding IS NULL OR "
            f"(c.embedding IS NOT NULL AND t.embedding <> c.embedding)) "
            f"FROM silver.{table} t LEFT JOIN silver.derivation_cache c ON c.fingerprint = %s "
            f"AND c.input_hash = encode(sha256(convert_to({text_column}, 'UTF8')), 'hex') "
            f"GROUP BY t.namespace HAVING count(*) FILTER (WHERE t.embedding IS NULL OR (c.embedding IS NOT NULL "
            f"AND t.embedding <> c.embedding)) > 0 ORDER BY 1", (embed_fp,)).fetchall():
            if missing:
                findings.append(Finding("projection_hash", "error", namespace,
                                        f"{missing} {table[:-1]} embedding(s) missing (e.g. {example}); "
                                        "search cannot find them: rebuild the namespace"))
            if mismatched:
                findings.append(Finding("projection_hash", "error", namespace,
                                        f"{mismatched} {table[:-1]} embedding(s) differ from the model's vector for "
                                        f"their text (e.g. {example}): rebuild the namespace"))
    return findings


def check_stale(conn: psycopg.Connection, now: datetime) -> list[Finding]:
    """(e) Load-bearing facts past their half-life: a person should re-verify them."""
    return [
        Finding("stale", "warning", namespace,
                f"{n} load-bearing fact(s) not re-verified within their half-life (oldest: {example}); "
                "see gold_marts.review_queue")
        for namespace, n, example in conn.execute(
            "SELECT namespace, count(*), min(statement) FROM silver.facts WHERE valid_to IS NULL "
            "AND importance >= 0.5 AND %s - verified_at > half_life GROUP BY namespace ORDER BY 1",
            (now,)).fetchall()
    ]


def check_hindsight(conn: psycopg.Connection, settings: Settings, sample: Callable[..., list[dict[str, Any]]]
                    ) -> list[Finding]:
    """(d) The sampled comparison with the Hindsight peer; anything but ``agree`` is a warning."""
    findings = []
    for item in sample(conn, n=settings.audit_sample):
        if item["status"] == "agree":
            continue
        findings.append(Finding("hindsight", "warning", item.get("namespace"),
                                f"slot {item['slot']}: {item['status']} in Hindsight (ledger: "
                                f"{item.get('ledger_value')!r}, Hindsight: {item.get('hindsight_value')!r}); "
                                "re-mirror to repair"))
    return findings


def configured_sampler(settings: Settings) -> Callable[..., list[dict[str, Any]]] | None:
    """The Hindsight sample (A2) when a peer is configured (``HINDSIGHT_URL``), else None: check skipped."""
    if not settings.hindsight_url:
        return None
    from medallion.audit.hindsight_mirror import sample_audit
    from medallion.peers.hindsight import HindsightPeer

    url = settings.hindsight_url

    def sample(conn: psycopg.Connection, n: int) -> list[dict[str, Any]]:
        with HindsightPeer(url) as peer:
            return sample_audit(conn, peer, n=n)

    return sample


def run_audit(conn: psycopg.Connection, settings: Settings, *,
              hindsight_sample: Callable[..., list[dict[str, Any]]] | None = None,
              now: datetime | None = None) -> AuditReport:
    """Run every check; the Hindsight sample only when a sampler is given (a configured peer)."""
    started = time.perf_counter()
    report = AuditReport(run_id=uuid.uuid4().hex, at=now or datetime.now(UTC))
    steps: list[tuple[str, Callable[[], list[Finding]]]] = [
        ("bronze", lambda: check_bronze(conn)),
        ("coverage", lambda: check_coverage(conn, settings)),
        ("projections", lambda: check_projections(conn, settings)),
        ("stale", lambda: check_stale(conn, report.at)),
    ]
    if hindsight_sample is not None:
        steps.append(("hindsight", lambda: check_hindsight(conn, settings, hindsight_sample)))
    for name, step in steps:
        t0 = time.perf_counter()
        report.findings.extend(step())
        report.timings[name] = round(time.perf_counter() - t0, 3)
    report.seconds = time.perf_counter() - started
    return report


def store(conn: psycopg.Connection, report: AuditReport) -> None:
    """Append the run to gold.drift_report (a clean run leaves one info row)."""
    rows = report.findings or [Finding("bronze_chain", "info", None, "clean: every check passed")]
    with conn.transaction(), conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO gold.drift_report (run_id, at, check_name, severity, namespace, detail, finding_no) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s)",
            [(report.run_id, report.at, f.check, f.severity, f.namespace, f.detail, i)
             for i, f in enumerate(rows, start=1)])


def history(conn: psycopg.Connection, runs: int = 30) -> list[dict[str, Any]]:
    """Findings per check over the last ``runs`` runs (for the asset's plot)."""
    rows = conn.execute(
        "WITH recent AS (SELECT run_id, max(at) AS at FROM gold.drift_report GROUP BY run_id ORDER BY 2 DESC "
        "LIMIT %s) SELECT r.run_id, r.at, d.check_name, count(*) FILTER (WHERE d.severity <> 'info') "
        "FROM recent r JOIN gold.drift_report d ON d.run_id = r.run_id GROUP BY 1, 2, 3 ORDER BY 2", (runs,)
    ).fetchall()
    return [{"run_id": r[0], "at": r[1], "check": r[2], "findings": r[3]} for r in rows]
