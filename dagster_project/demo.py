"""``make demo``: the main job on the embedded default, end to end, with a readable report.

It starts the embedded server, drops the example team's events into the inbox, materializes every
asset in-process (as the Dagster UI would) and prints what landed and where to look next. The runs are
recorded in the instance ``make ui`` opens (:mod:`dagster_project.instance`).

The README's quick start shows this report: :func:`readme_sample` makes that block from a run's output
(``python -m dagster_project.demo --readme`` runs the demo and rewrites the block between
:data:`SAMPLE_START` and :data:`SAMPLE_END`), and ``tests/e2e/test_readme_sample.py`` fails when the
README's block is not what a demo run prints.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from dagster_project.automation import MATERIALIZE_TAG
from dagster_project.definitions import defs
from dagster_project.instance import instance_for
from dagster_project.runs import every_partition, land
from medallion.bronze import integrity
from medallion.db import embedded
from medallion.db.connection import connect, ensure_ready
from medallion.db.urls import masked
from medallion.serve import served
from medallion.serve.tools import open_tools
from medallion.settings import get_settings

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
README = Path(__file__).resolve().parents[1] / "README.md"
SAMPLE_START, SAMPLE_END = "<!-- demo sample: start -->", "<!-- demo sample: end -->"
SAMPLE_WIDTH = 110  # columns of the console the sample is printed on (the tables' layout depends on it)


def _print_silver(console: Console, conn, result) -> None:  # noqa: ANN001 - psycopg connection, Dagster result
    """What was learned: decisions, current beliefs, one supersede with its history, one contested pair."""
    facts = [e.materialization for e in result.get_asset_materialization_events()]
    meta = next((m.metadata for m in facts if m.asset_key.path == ["silver", "facts"]), {})
    console.print(
        f"[bold]Silver[/bold] {meta['events_processed'].value} events → added {meta['added'].value}, "
        f"updated {meta['updated'].value}, superseded {meta['superseded'].value}, skipped {meta['skipped'].value}, "
        f"contested {meta['contested'].value}; model calls {meta['model_calls'].value}, "
        f"cache hit rate {meta['cache_hit_rate'].value:.0%}", soft_wrap=True,
    )
    table = Table("subject", "predicate", "value", "since", "authority", title="Current beliefs (team-atlas, top 12)")
    for subject, pred, value, since, authority in conn.execute(
        "SELECT e.canonical_name, f.predicate, f.value_text, f.valid_from::date, f.authority FROM silver.facts f "
        "JOIN silver.entities e ON e.entity_id = f.subject_id WHERE f.namespace = 'team-atlas' "
        "AND f.valid_to IS NULL AND f.predicate <> 'states' ORDER BY f.importance DESC, e.canonical_name, f.predicate "
        "LIMIT 12"
    ):
        table.add_row(subject, pred, value[:50], str(since), str(authority))
    console.print(table)
    row = conn.execute(
        "SELECT f.namespace, e.canonical_name, f.predicate FROM silver.resolutions r "
        "JOIN silver.facts f ON f.fact_id = r.candidate_fact_id JOIN silver.entities e ON e.entity_id = f.subject_id "
        "WHERE r.decision = 'supersede' AND r.outcome = 'closed_previous' "
        "ORDER BY (f.predicate = 'lives_in') DESC, r.decided_at, r.bronze_event_id "
        "LIMIT 1"
    ).fetchone()
    if row:
        ns, subject, pred = row
        console.print(f"[bold]A supersede[/bold]: history of {subject} {pred} ({ns})")
        for version in served.history(conn, ns, subject, pred):
            until = version["valid_to"][:10] if version["valid_to"] else "now"
            console.print(f"  {version['valid_from'][:10]} → {until}: {version['value']}  "
                          f"(authority {version['authority']}, {version['provenance']['source']})")
    pair = served.contested(conn, "team-atlas")
    if pair:
        console.print("[bold]A contested pair[/bold] (waiting for a person in the review queue):")
        first = pair[0]
        for version in [p for p in pair if (p["subject"], p["predicate"]) == (first["subject"], first["predicate"])]:
            console.print(f"  {version['subject']} {version['predicate']} = {version['value']} "
                          f"(authority {version['authority']}, from {version['provenance']['source']})")


def _print_gold(console: Console, conn, result, dictionary: Path) -> None:  # noqa: ANN001 - as above
    """What dbt built: checks, the review queue, alerts, one OLAP table and the data dictionary."""
    checks = result.get_asset_check_evaluations()
    failed = [c.check_name for c in checks if not c.passed]
    failures = f" [red](failed: {', '.join(failed)})[/red]" if failed else ""
    console.print(f"[bold]dbt[/bold] Silver views and Gold models built; {len(checks) - len(failed)} of "
                  f"{len(checks)} asset checks passed{failures}")
    queue = Table("kind", "severity", "items", "example", title="Review queue (gold_marts.review_queue)")
    for kind, severity, n, example in conn.execute(
        "SELECT item_kind, severity, count(*), left(min(summary), 90) FROM gold_marts.review_queue "
        "GROUP BY item_kind, severity ORDER BY severity, item_kind"
    ):
        queue.add_row(kind, severity, str(n), example)
    console.print(queue)
    olap = Table("namespace", "facts", "current", "contested", "supersede rate", title="OLAP (gold_marts.olap_*)")
    for ns, n, current, contested, rate in conn.execute(
        "SELECT f.namespace, sum(f.n_facts), sum(f.n_current), sum(f.n_contested), "
        "round((SELECT sum(n_supersede)::numeric / nullif(sum(n_candidates), 0) "
        "FROM gold_marts.olap_belief_changes_daily b "
        "WHERE b.namespace = f.namespace), 3) FROM gold_marts.olap_facts_daily f GROUP BY f.namespace ORDER BY 1"
    ):
        olap.add_row(ns, str(n), str(current), str(contested), str(rate))
    console.print(olap)
    alerts = conn.execute("SELECT alert_type, count(*) FROM gold_marts.alerts GROUP BY 1 ORDER BY 1").fetchall()
    console.print("Alerts on monitored facts: " + (", ".join(f"{n} {kind}" for kind, n in alerts) or "none"))
    with open_tools(None) as tools:
        hits = tools.search("Where does Bob live now?", namespace="team-atlas", k=3)
    console.print("[bold]Gold search[/bold] 'Where does Bob live now?' (team-atlas):")
    for hit in hits:
        prov = hit["provenance"]
        console.print(f"  {hit['score']:.4f}  {hit['statement']}  ({hit['kind']}; {prov['source']}/"
                      f"{prov['source_event_id']})", markup=False)
    columns = conn.execute("SELECT count(*), count(DISTINCT relation) FROM gold.column_meta").fetchone()
    console.print(f"Data dictionary: {columns[0]} columns of {columns[1]} relations in gold.column_meta "
                  f"and {dictionary}", soft_wrap=True)


def readme_sample(output: str, dictionary: Path) -> str:
    """The README's block from the demo's ``output``: from what Bronze landed to the data dictionary,
    without what changes from run to run or machine to machine (the timing, the search scores, the
    dictionary's directory), in a fenced block between the markers."""
    lines = output.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("Bronze"))
    last = next(i for i, line in enumerate(lines) if line.startswith("Data dictionary"))
    kept: list[str] = []
    for line in lines[first:last + 1]:
        line = line.replace(str(dictionary), dictionary.name).rstrip()
        kept.append(re.sub(r"^  \d\.\d{4}  ", "  …       ", line))  # a search hit's score
    return "\n".join([SAMPLE_START, "```", *kept, "```", SAMPLE_END])


def write_readme_sample(block: str, readme: Path = README) -> None:
    """Put ``block`` in place of the README's block between the markers (and nothing else)."""
    text = readme.read_text()
    start, end = text.index(SAMPLE_START), text.index(SAMPLE_END) + len(SAMPLE_END)
    readme.write_text(text[:start] + block + text[end:])


def main(console: Console | None = None) -> int:
    console = console or Console()
    settings = get_settings()
    started = time.perf_counter()
    with console.status("starting PostgreSQL and applying migrations…"):
        if settings.uses_embedded:  # `make demo` is an explicit start, also after `medallion db stop`
            embedded.start(settings, explicit=True)
        url = ensure_ready(settings)
    console.print(f"[bold]Database[/bold] {masked(url)}")

    settings.inbox.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / "team_events.jsonl", settings.inbox / "team_events.jsonl")
    dbt_log = io.StringIO()  # dbt's own log lines; shown only if the run fails
    with console.status("materializing all assets (Bronze, Silver, dbt, data dictionary)…"), \
            contextlib.redirect_stdout(dbt_log):
        instance = instance_for(settings)
        # Bronze first: it adds the namespaces' partitions. The tag tells the sensors of a running
        # `make ui` that this process derives and rebuilds by itself.
        landing = land(instance, settings, {MATERIALIZE_TAG: "demo"})
        result = defs.resolve_job_def("materialize_all").execute_in_process(
            instance=instance, tags={**every_partition(instance), MATERIALIZE_TAG: "demo"}, raise_on_error=False,
            run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
        ) if landing.success else landing
    if not result.success:
        console.print("\n".join(dbt_log.getvalue().splitlines()[-30:]), markup=False, highlight=False)
        console.print("[red]materialization failed; see the log above[/red]")
        return 1
    meta = landing.asset_materializations_for_node("bronze__events")[0].metadata
    console.print(
        f"[bold]Bronze[/bold] (this run) inserted {meta['inserted'].value}, duplicate {meta['duplicate'].value}, "
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
        console.print(f"Hash chain: {chain}; quarantined rows: {quarantined}")
        _print_silver(console, conn, result)
        _print_gold(console, conn, result, settings.data_dictionary_path)
    console.print(f"took {time.perf_counter() - started:.1f}s")
    console.print(
        "\n[bold]Next[/bold]\n"
        "  make ui    the Dagster UI on http://127.0.0.1:3000 (assets, checks, schedules, the inbox sensor)\n"
        "  make docs  the dbt docs (data dictionary and lineage) on http://127.0.0.1:8580\n"
        "  .venv/bin/medallion history Bob lives_in -n team-atlas    a slot's versions (--json)\n"
        "  .venv/bin/medallion search 'who owns billing?' -n team-atlas   hybrid search with provenance\n"
        "  .venv/bin/medallion mcp                                  the MCP server (stdio) for an agent\n"
        "  .venv/bin/medallion ingest examples/mixed_batch.jsonl   rejects, a duplicate, a conflict\n"
        "  .venv/bin/medallion db status | stop                    the embedded server\n"
        "  drop *.jsonl files into ./inbox                         the inbox sensor lands them",
        soft_wrap=True,
    )
    return 0


def _rewrite_readme() -> int:
    """``--readme``: run the demo on a recording console, then rewrite the README's sample block."""
    console = Console(record=True, width=SAMPLE_WIDTH)
    code = main(console)
    if code == 0:
        write_readme_sample(readme_sample(console.export_text(), get_settings().data_dictionary_path))
        print(f"rewrote the demo sample in {README}")
    return code


if __name__ == "__main__":
    raise SystemExit(_rewrite_readme() if sys.argv[1:] == ["--readme"] else main())
