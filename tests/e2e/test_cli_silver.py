"""`medallion materialize`, `current` and `history` end to end (S13, S6, the facts' JSON shape), and one
Dagster instance for the CLI and the UI: without DAGSTER_HOME, `materialize` records its runs in
$MEDALLION_HOME/dagster, which is the instance `medallion ui` opens (with DAGSTER_HOME set, both use
it: tests/e2e/test_cli_materialize.py)."""

from __future__ import annotations

import json
import os

import dagster as dg
import pytest

from dagster_project import ui
from medallion.settings import Settings, get_settings
from tests.support.cli_events import hr_fact

FACT_JSON_FIELDS = {"fact_id", "subject", "predicate", "value", "statement", "valid_from", "valid_to",
                    "recorded_at", "superseded_at", "authority", "confidence", "contested", "provenance"}
PROVENANCE_FIELDS = {"bronze_event_id", "namespace", "source", "source_event_id", "provenance_root"}


@pytest.mark.slow
def test_materialize_then_current_and_history(cli, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """S13 + S6: materialize lands the inbox and derives; current/history answer in the CLI's JSON shape.
    Without DAGSTER_HOME, the runs are in the instance `medallion ui` opens."""
    monkeypatch.delenv("DAGSTER_HOME")
    argv, ui_env = ui.command(get_settings(), 3000)
    assert argv[1:4] == ["-m", "dagster", "dev"]
    assert ui_env["DAGSTER_HOME"] == str((settings.home / "dagster").resolve())
    events = [
        hr_fact(1, "Bob", "lives_in", "Berlin", "2026-01-01T00:00:00Z", 1),
        hr_fact(2, "Bob", "lives_in", "Lisbon", "2026-06-01T00:00:00Z", 1),
        hr_fact(3, "Bob", "timezone", "Europe/Berlin", "2026-01-01T00:00:00Z", 1),
        hr_fact(4, "bob", "timezone", "PST", "2026-07-01T00:00:00Z", 5),
    ]
    (settings.inbox / "hr.jsonl").write_text("\n".join(json.dumps(e) for e in events))
    code, out, err = cli("materialize", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["job"] == "incremental" and summary["bronze"]["inserted"] == 4
    assert summary["silver"]["events_processed"] == 4 and summary["silver"]["contested"] == 1
    ui_instance = dg.DagsterInstance.from_config(ui_env["DAGSTER_HOME"])
    runs = summary["run_ids"]
    assert len(runs) == 2 and all(ui_instance.get_run_by_id(run_id) for run_id in runs)
    assert ui_instance.get_latest_materialization_event(dg.AssetKey(["silver", "facts"])) is not None

    code, out, _ = cli("current", "BOB", "lives_in", "-n", "cli-silver", "--json")
    [current] = json.loads(out)
    assert set(current) >= FACT_JSON_FIELDS and set(current["provenance"]) == PROVENANCE_FIELDS
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
    rebuilt = json.loads(out)
    assert rebuilt["job"] == "materialize_all" and rebuilt["silver"]["model_calls"] == 0
    assert all(ui_instance.get_run_by_id(run_id) for run_id in rebuilt["run_ids"])
    code, out, _ = cli("history", "Bob", "lives_in", "-n", "cli-silver", "--json")
    assert [h["fact_id"] for h in json.loads(out)] == [h["fact_id"] for h in history]


def test_current_refuses_a_namespace_the_token_cannot_read(cli, settings: Settings, admin_conn) -> None:
    """G2 on reads: with MEDALLION_TOKEN, current/history answer only in granted namespaces (exit 2)."""
    from medallion.serve.capabilities import grant

    _, token = grant(admin_conn, principal="agent:x", verbs=["read"], namespaces=["other"], created_by="test")

    os.environ["MEDALLION_TOKEN"] = token
    try:
        code, _, err = cli("current", "Bob", "lives_in", "-n", "cli-silver")
    finally:
        del os.environ["MEDALLION_TOKEN"]
    assert code == 2 and "does not allow 'read' in namespace 'cli-silver'" in err
