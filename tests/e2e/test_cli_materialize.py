"""`medallion materialize` end to end on the example team (D1, D2, scale-out): one namespace's partition
derived alone, with the dbt build and its checks in clean JSON on stdout, Silver's progress on stderr
and the runs in the instance `medallion ui` opens (DAGSTER_HOME, when set); then the rest in parallel
steps under Dagster's multiprocess executor; an unknown namespace refused in one sentence; and
`medallion docs` generating and serving the dbt docs site over what was built. One flow, because each
materialization is long (a dbt build of the whole project each); in a module of its own, the unit
pytest-xdist gives one worker."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import dagster as dg
import psycopg
import pytest

from dagster_project import ui
from medallion.settings import Settings, get_settings


@pytest.mark.slow
def test_materialize_one_namespace_then_the_rest_in_parallel_then_serve_the_docs(
        cli, settings: Settings, examples_dir: Path, tmp_path: Path, engine_conn: psycopg.Connection) -> None:
    """`materialize --namespace NS --json` lands every namespace, derives NS alone and reports the dbt
    build and its checks on clean stdout, with Silver's progress on stderr and its runs in the UI's
    instance; `--workers 2` derives the rest in parallel steps, each in a process of its own; an
    unknown namespace is refused in one sentence; `docs` generates the dbt docs and serves them."""
    shutil.copy(examples_dir / "team_events.jsonl", settings.inbox / "team.jsonl")
    _, ui_env = ui.command(get_settings(), 3000)  # the instance `medallion ui` would open
    assert ui_env["DAGSTER_HOME"] == str(tmp_path / "dagster_home")  # DAGSTER_HOME is set: that one
    ui_instance = dg.DagsterInstance.from_config(ui_env["DAGSTER_HOME"])

    code, out, err = cli("materialize", "--namespace", "team-borealis", "--json")
    assert code == 0, err
    summary = json.loads(out)  # dbt's own log lines must not leak into --json output
    assert summary["bronze"]["inserted"] == 53  # the landing takes every namespace's events
    assert summary["silver"]["namespaces"] == ["team-borealis"] and summary["silver"]["events_processed"] == 5
    derived = "SELECT namespace, count(*) FROM silver.derivations GROUP BY 1 ORDER BY 1"
    assert engine_conn.execute(derived).fetchall() == [("team-borealis", 5)]
    # Silver's progress on stderr, every run in the UI's instance
    assert "silver: 5/5 events derived (" in err and "/s, ETA " in err
    assert all(ui_instance.get_run_by_id(run_id) for run_id in summary["run_ids"])
    assert summary["dbt"]["models"] >= 20 and summary["dbt"]["checks_failed"] == 0
    assert summary["dbt"]["checks_passed"] > 50
    assert {"gold_marts/review_queue", "gold_marts/alerts", "gold_marts/olap_facts_daily"} <= set(summary["gold"])
    assert summary["dictionary"]["undocumented_columns"] == 0
    # data only: no Markdown table (the UI's rendering of the same metadata) inside a JSON string
    assert not [text for text in _strings(summary) if text.lstrip().startswith("|") or "\n|" in text]

    code, out, err = cli("materialize", "--workers", "2", "--json")
    assert code == 0, err
    # progress from the step processes, read back from the instance: team-atlas's 48 events (the
    # other step has nothing left to derive)
    assert "silver: 48/48 events derived (" in err
    summary = json.loads(out)
    silver = summary["silver"]
    assert silver["parallel_steps"] == 2 and silver["namespaces"] == ["team-atlas", "team-borealis"]
    assert silver["events_processed"] == 48 and silver["failures"] == 0
    assert engine_conn.execute(derived).fetchall() == [("team-atlas", 48), ("team-borealis", 5)]
    # the run is in the instance the UI reads, each derive step in a process of its own
    run = ui_instance.get_run_by_id(summary["run_id"])
    assert run is not None and run.tags["dagster/asset_partition_range_start"] == "team-atlas"
    pids = {e.dagster_event.pid for e in ui_instance.all_logs(run.run_id)
            if e.dagster_event and e.dagster_event.event_type_value == "STEP_START"
            and (e.step_key or "").startswith("silver_derive.derive_group")}
    assert len(pids) == 2, "two derive steps, two processes"

    code, out, err = cli("materialize", "--namespace", "team-nowhere")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "team-nowhere" in err and "team-atlas, team-borealis" in err

    code, out, err = cli("docs", "--generate-only", "--json")
    assert code == 0, err
    generated = json.loads(out)
    assert generated["generated"] and Path(generated["catalog"]).exists()

    port = _free_port()
    env = {**os.environ}
    # serving what was generated (`docs` alone generates again first, a dozen seconds of dbt)
    server = subprocess.Popen([sys.executable, "-m", "medallion.interfaces.cli", "docs", "--serve-only",
                               "--port", str(port)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              # as from a terminal: a run started in the background (`make test &`)
                              # inherits SIGINT ignored, and the server would never see the Ctrl-C
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        body = _wait_for(f"http://127.0.0.1:{port}/", seconds=90)
        assert "dbt" in body.lower()
        catalog = _wait_for(f"http://127.0.0.1:{port}/catalog.json", seconds=10)
        assert "current_facts" in catalog
        # the docs open on the project's overview page, not dbt's generic welcome
        manifest = json.loads(_wait_for(f"http://127.0.0.1:{port}/manifest.json", seconds=10))
        overview = manifest["docs"]["doc.medallion.__overview__"]["block_contents"]
        assert "Bronze" in overview and "Silver" in overview and "Gold" in overview
    finally:
        # Ctrl-C, as a person stops it: one line, no traceback
        server.send_signal(signal.SIGINT)
        stdout, stderr = server.communicate(timeout=10)
    assert server.returncode == 0, stderr
    assert "Traceback" not in stderr and "Traceback" not in stdout
    assert stdout.strip().splitlines()[-1] == "stopped"


def _strings(value: object) -> list[str]:
    """Every string inside a JSON document."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


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
