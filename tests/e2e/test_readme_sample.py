"""The README's sample output is what a real run prints: its counts are checked against one.

The quick start's sample of ``make demo`` (Bronze, the namespaces Bronze holds, Silver) comes from
ingesting ``examples/team_events.jsonl`` and deriving it; the ingest example from
``examples/mixed_batch.jsonl``. A change of the contract, the examples or the Silver policy that moves a
count fails here until the README says the new one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

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
    assert _numbers(r"Bronze inserted (\d+), duplicate (\d+), conflict (\d+), rejected (\d+)", text) == (
        landed["inserted"], landed["duplicate"], landed["conflict"], landed["rejected"])
    held = dict(engine_conn.execute("SELECT namespace, count(*) FROM bronze.events GROUP BY 1").fetchall())
    shown = {ns: int(n) for ns, n in re.findall(r"^ (team-[a-z]+)\s+(\d+)\s", text, re.MULTILINE)}
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
