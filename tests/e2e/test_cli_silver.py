"""`medallion materialize`, `current` and `history` end to end (S13, S6, section 8 JSON shape)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medallion.interfaces.cli import app
from medallion.settings import Settings

SPEC8_FIELDS = {"fact_id", "subject", "predicate", "value", "statement", "valid_from", "valid_to", "recorded_at",
                "superseded_at", "authority", "confidence", "contested", "provenance"}
PROVENANCE_FIELDS = {"bronze_event_id", "namespace", "source", "source_event_id", "provenance_root"}


def _fact(i: int, subject: str, predicate: str, value: str, valid_from: str, authority: int) -> dict:
    return {"namespace": "cli-silver", "source": "hr", "source_event_id": f"hr-{i}", "kind": "fact",
            "provenance_root": f"hr://{i}", "authority": authority,
            "content": json.dumps({"subject": subject, "predicate": predicate, "value": value,
                                   "valid_from": valid_from})}


@pytest.fixture
def cli(settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("MEDALLION_DATABASE_URL", settings.database_url or "")
    monkeypatch.setenv("MEDALLION_HOME", str(settings.home))
    monkeypatch.setenv("MEDALLION_INBOX", str(settings.inbox))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    (tmp_path / "dagster_home").mkdir()
    monkeypatch.delenv("MEDALLION_TOKEN", raising=False)

    def invoke(*args: str):
        result = CliRunner().invoke(app, list(args))
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result.exit_code, result.stdout, result.stderr

    return invoke


@pytest.mark.slow
def test_materialize_then_current_and_history(cli, settings: Settings) -> None:
    """S13 + S6: materialize lands the inbox and derives; current/history answer in the CLI's JSON shape."""
    events = [
        _fact(1, "Bob", "lives_in", "Berlin", "2026-01-01T00:00:00Z", 1),
        _fact(2, "Bob", "lives_in", "Lisbon", "2026-06-01T00:00:00Z", 1),
        _fact(3, "Bob", "timezone", "Europe/Berlin", "2026-01-01T00:00:00Z", 1),
        _fact(4, "bob", "timezone", "PST", "2026-07-01T00:00:00Z", 5),
    ]
    (settings.inbox / "hr.jsonl").write_text("\n".join(json.dumps(e) for e in events))
    code, out, err = cli("materialize", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["job"] == "incremental" and summary["bronze"]["inserted"] == 4
    assert summary["silver"]["events_processed"] == 4 and summary["silver"]["contested"] == 1

    code, out, _ = cli("current", "BOB", "lives_in", "-n", "cli-silver", "--json")
    [current] = json.loads(out)
    assert set(current) >= SPEC8_FIELDS and set(current["provenance"]) == PROVENANCE_FIELDS
    assert current["value"] == "Lisbon" and current["valid_to"] is None
    assert current["provenance"]["source_event_id"] == "hr-2" and current["valid_from"].endswith("+00:00")

    code, out, _ = cli("history", "Bob", "lives_in", "-n", "cli-silver", "--json")
    history = json.loads(out)
    assert [h["value"] for h in history] == ["Berlin", "Lisbon"]
    assert history[0]["valid_to"] == history[1]["valid_from"] and history[0]["superseded_at"]

    code, out, _ = cli("current", "Bob", "timezone", "-n", "cli-silver", "--json")
    contested = json.loads(out)
    assert {c["value"] for c in contested} == {"Europe/Berlin", "PST"} and all(c["contested"] for c in contested)

    code, out, _ = cli("current", "Nobody", "lives_in", "-n", "cli-silver", "--json")
    assert code == 0 and json.loads(out) == []

    code, out, err = cli("materialize", "--full-rebuild", "--json")
    assert code == 0, err
    assert json.loads(out)["job"] == "materialize_all" and json.loads(out)["silver"]["model_calls"] == 0
    code, out, _ = cli("history", "Bob", "lives_in", "-n", "cli-silver", "--json")
    assert [h["fact_id"] for h in json.loads(out)] == [h["fact_id"] for h in history]


def test_current_refuses_a_namespace_the_token_cannot_read(cli, settings: Settings, admin_conn) -> None:
    """G2 on reads: with MEDALLION_TOKEN, current/history answer only in granted namespaces (exit 2)."""
    from medallion.serve.capabilities import grant

    _, token = grant(admin_conn, principal="agent:x", verbs=["read"], namespaces=["other"], created_by="test")
    import os

    os.environ["MEDALLION_TOKEN"] = token
    try:
        code, _, err = cli("current", "Bob", "lives_in", "-n", "cli-silver")
    finally:
        del os.environ["MEDALLION_TOKEN"]
    assert code == 2 and "does not allow 'read' in namespace 'cli-silver'" in err


@pytest.mark.slow
def test_materialize_builds_dbt_and_docs_are_served(cli, settings: Settings, tmp_path: Path) -> None:
    """`materialize --json` reports the dbt build and its checks on clean stdout; `docs` generates and serves."""
    events = [_fact(1, "Bob", "lives_in", "Berlin", "2026-01-01T00:00:00Z", 1),
              _fact(2, "Bob", "lives_in", "Lisbon", "2026-06-01T00:00:00Z", 1)]
    (settings.inbox / "hr.jsonl").write_text("\n".join(json.dumps(e) for e in events))
    code, out, err = cli("materialize", "--json")
    assert code == 0, err
    summary = json.loads(out)  # dbt's own log lines must not leak into --json output
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
