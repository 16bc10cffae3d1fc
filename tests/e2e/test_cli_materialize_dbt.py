"""`medallion materialize` builds dbt and its checks with clean JSON on stdout, shows Silver's progress
on stderr and records its runs in the instance `medallion ui` opens (DAGSTER_HOME, when set);
`medallion docs` generates and serves the dbt docs site (D1, D2). In a module of its own: the
materialization is long, and a module is the unit pytest-xdist gives one worker."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import dagster as dg
import pytest

from dagster_project import ui
from medallion.settings import Settings, get_settings
from tests.support.cli_events import hr_fact


@pytest.mark.slow
def test_materialize_builds_dbt_and_docs_are_served(cli, settings: Settings, tmp_path: Path) -> None:
    """`materialize --json` reports the dbt build and its checks on clean stdout; `docs` generates and serves."""
    events = [hr_fact(1, "Bob", "lives_in", "Berlin", "2026-01-01T00:00:00Z", 1),
              hr_fact(2, "Bob", "lives_in", "Lisbon", "2026-06-01T00:00:00Z", 1)]
    (settings.inbox / "hr.jsonl").write_text("\n".join(json.dumps(e) for e in events))
    _, ui_env = ui.command(get_settings(), 3000)  # the instance `medallion ui` would open
    assert ui_env["DAGSTER_HOME"] == str(tmp_path / "dagster_home")  # DAGSTER_HOME is set: that one
    code, out, err = cli("materialize", "--json")
    assert code == 0, err
    summary = json.loads(out)  # dbt's own log lines must not leak into --json output
    # Silver's progress on stderr, every run in the UI's instance
    assert "silver: 2/2 events derived (" in err and "/s, ETA " in err
    ui_instance = dg.DagsterInstance.from_config(ui_env["DAGSTER_HOME"])
    assert all(ui_instance.get_run_by_id(run_id) for run_id in summary["run_ids"])
    assert summary["dbt"]["models"] >= 20 and summary["dbt"]["checks_failed"] == 0
    assert summary["dbt"]["checks_passed"] > 50
    assert {"gold_marts/review_queue", "gold_marts/alerts", "gold_marts/olap_facts_daily"} <= set(summary["gold"])
    assert summary["dictionary"]["undocumented_columns"] == 0

    code, out, err = cli("docs", "--generate-only", "--json")
    assert code == 0, err
    generated = json.loads(out)
    assert generated["generated"] and Path(generated["catalog"]).exists()

    port = _free_port()
    env = {**os.environ}
    server = subprocess.Popen([sys.executable, "-m", "medallion.interfaces.cli", "docs", "--port", str(port)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        body = _wait_for(f"http://127.0.0.1:{port}/", seconds=90)
        assert "dbt" in body.lower()
        catalog = _wait_for(f"http://127.0.0.1:{port}/catalog.json", seconds=10)
        assert "current_facts" in catalog
    finally:
        server.terminate()
        server.wait(timeout=10)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(url: str, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 - a local test URL
                return response.read().decode("utf-8", "replace")
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
