"""The README's sample output is what a real run prints.

The quick start's sample of ``make demo`` is the report of a demo run, whole: the test runs the demo
and compares the README's block between the markers with what it printed (``python -m
dagster_project.demo --readme`` rewrites the block). Its counts (Bronze, the namespaces Bronze holds,
Silver) are also checked against ingesting ``examples/team_events.jsonl`` and deriving it; the ingest
example against ``examples/mixed_batch.jsonl``. A change of the contract, the examples, the Silver
policy or the dbt project that moves a number fails here until the README says the new one.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import psycopg
import pytest
from rich.console import Console
from typer.testing import CliRunner

from dagster_project import demo
from medallion.interfaces.cli import app
from medallion.settings import Settings
from medallion.silver.derive import derive

README = Path(__file__).resolve().parents[2] / "README.md"


def _numbers(pattern: str, text: str) -> tuple[int, ...]:
    found = re.search(pattern, text)
    assert found, f"the README no longer has a line matching {pattern!r}"
    return tuple(int(n) for n in found.groups())


@pytest.fixture
def cli(settings: Settings, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEDALLION_DATABASE_URL", settings.database_url or "")
    monkeypatch.setenv("MEDALLION_HOME", str(settings.home))
    monkeypatch.delenv("MEDALLION_TOKEN", raising=False)

    def invoke(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(app, list(args))
        return result.exit_code, result.stdout

    return invoke


@pytest.mark.slow
def test_the_demo_sample_counts_are_a_real_runs(
        cli, settings: Settings, engine_conn: psycopg.Connection, examples_dir: Path) -> None:
    """Bronze inserted/duplicate/conflict/rejected, the events per namespace, and Silver's events, added,
    updated, superseded, skipped and contested, as the README's `make demo` sample prints them."""
    text = README.read_text()
    code, out = cli("ingest", str(examples_dir / "team_events.jsonl"), "--json")
    assert code == 0
    landed = json.loads(out)
    assert _numbers(r"Bronze (?:\(this run\) )?inserted (\d+), duplicate (\d+), conflict (\d+), rejected (\d+)",
                    text) == (
        landed["inserted"], landed["duplicate"], landed["conflict"], landed["rejected"])
    held = dict(engine_conn.execute("SELECT namespace, count(*) FROM bronze.events GROUP BY 1").fetchall())
    shown = {ns: int(n) for ns, n in re.findall(  # the rows of "What Bronze holds": namespace, events, kinds, first day
        r"^\W* (team-[a-z]+)\s+\W?\s*(\d+)\s+\W?\s*[a-z]+,[^\n]*\d{4}-\d\d-\d\d", text, re.MULTILINE)}
    assert shown == held

    report = derive(engine_conn, settings)
    assert _numbers(r"Silver (\d+) events → added (\d+), updated (\d+), superseded (\d+), skipped (\d+), "
                    r"contested (\d+)", text) == (
        report.events, report.outcomes.get("added", 0), report.decisions.get("update", 0),
        report.decisions.get("supersede", 0), report.decisions.get("skip", 0), report.outcomes.get("contested", 0))


def test_the_ingest_sample_counts_are_a_real_runs(cli, examples_dir: Path) -> None:
    """The README's `medallion ingest` example: the counts and the first rejected line of the file it names."""
    text = README.read_text()
    named = re.search(r"medallion ingest (examples/\S+\.jsonl) --json", text)
    assert named, "the README's ingest example names no file under examples/"
    code, out = cli("ingest", str(examples_dir.parent / named.group(1)), "--json")
    summary = json.loads(out)
    assert code == 1  # a rejected line exits 1, as the README says
    assert _numbers(r'# \{"inserted": (\d+), "duplicate": (\d+), "conflict": (\d+), "rejected": (\d+), '
                    r'"rejects": \[\{"line": (\d+)', text) == (
        summary["inserted"], summary["duplicate"], summary["conflict"], summary["rejected"],
        summary["rejects"][0]["line"])


@pytest.mark.slow
def test_the_demo_sample_is_what_the_demo_prints(
        settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`make demo` on a fresh database prints the README's block, line for line (but the timing, the
    search scores and the dictionary's directory); the dbt checks and the data dictionary's counts
    come from the same run."""
    monkeypatch.setenv("MEDALLION_DATABASE_URL", settings.database_url or "")
    monkeypatch.setenv("MEDALLION_HOME", str(settings.home))
    monkeypatch.setenv("MEDALLION_INBOX", str(settings.inbox))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    monkeypatch.delenv("MEDALLION_TOKEN", raising=False)
    console = Console(record=True, width=demo.SAMPLE_WIDTH, file=io.StringIO())
    assert demo.main(console) == 0
    printed = demo.readme_sample(console.export_text(), settings.data_dictionary_path)
    text = README.read_text()
    assert demo.SAMPLE_START in text and demo.SAMPLE_END in text, "the README lost its sample markers"
    shown = text[text.index(demo.SAMPLE_START):text.index(demo.SAMPLE_END) + len(demo.SAMPLE_END)]
    assert shown == printed, ("the README's demo sample is not what `make demo` prints: run "
                              "`python -m dagster_project.demo --readme`. A demo run printed:\n" + printed)
