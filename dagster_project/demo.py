"""``make demo``: the main job on the embedded default, end to end, with a readable report.

It starts the embedded server, drops the example team's events into the inbox, materializes every
asset in-process (as the Dagster UI would) and prints what landed and where to look next.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import dagster as dg
from rich.console import Console
from rich.table import Table

from dagster_project.bronze import integrity
from dagster_project.db.connection import connect, ensure_ready
from dagster_project.definitions import defs
from dagster_project.settings import get_settings

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def main() -> int:
    console = Console()
    settings = get_settings()
    started = time.perf_counter()
    with console.status("starting PostgreSQL and applying migrations…"):
        url = ensure_ready(settings)
    console.print(f"[bold]Database[/bold] {url}")

    settings.inbox.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / "team_events.jsonl", settings.inbox / "team_events.jsonl")
    with console.status("materializing all assets…"):
        result = defs.resolve_job_def("materialize_all").execute_in_process(
            instance=dg.DagsterInstance.ephemeral(),
            raise_on_error=False,
            run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
        )
    if not result.success:
        console.print("[red]materialization failed; see the log above[/red]")
        return 1
    meta = result.asset_materializations_for_node("bronze__events")[0].metadata
    console.print(
        f"[bold]Bronze[/bold] inserted {meta['inserted'].value}, duplicate {meta['duplicate'].value}, "
        f"conflict {meta['conflict'].value}, rejected {meta['rejected'].value}"
    )
    with connect(settings, "engine", autocommit=True) as conn:
        table = Table("namespace", "events", "kinds", "first", "last", title="What Bronze holds")
        for ns, n, kinds, first, last in conn.execute(
            "SELECT namespace, count(*), string_agg(DISTINCT kind, ', '), min(occurred_at)::date, "
            "max(occurred_at)::date FROM bronze.events GROUP BY namespace ORDER BY namespace"
        ):
            table.add_row(ns, str(n), kinds, str(first), str(last))
        console.print(table)
        findings = integrity.verify(conn)
        quarantined = conn.execute("SELECT count(*) FROM bronze.quarantine").fetchone()[0]  # type: ignore[index]
    chain = "verifies" if not findings else f"[red]{len(findings)} finding(s)[/red]"
    console.print(f"Hash chain: {chain}; quarantined rows: {quarantined}; took {time.perf_counter() - started:.1f}s")
    console.print(
        "\n[bold]Next[/bold]\n"
        "  make ui    the Dagster UI on http://127.0.0.1:3000 (assets, checks, the inbox sensor)\n"
        "  .venv/bin/medallion ingest examples/mixed_batch.jsonl   rejects, a duplicate, a conflict\n"
        "  .venv/bin/medallion db status | stop                    the embedded server\n"
        "  drop *.jsonl files into ./inbox                         the inbox sensor lands them",
        soft_wrap=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
