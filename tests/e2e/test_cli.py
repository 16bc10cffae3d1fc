"""The ``medallion`` CLI end to end (SPEC section 8; B3, B5, B7, G2 for writes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dagster_project.cli import app
from dagster_project.settings import Settings


@pytest.fixture
def run(settings: Settings, monkeypatch: pytest.MonkeyPatch):
    """Invoke the CLI in-process against the test database; returns (exit code, stdout, stderr)."""
    monkeypatch.setenv("MEDALLION_DATABASE_URL", settings.database_url or "")
    monkeypatch.setenv("MEDALLION_HOME", str(settings.home))
    monkeypatch.delenv("MEDALLION_TOKEN", raising=False)

    def invoke(*args: str, input: str | None = None, token: str | None = None):
        if token is None:
            monkeypatch.delenv("MEDALLION_TOKEN", raising=False)
        else:
            monkeypatch.setenv("MEDALLION_TOKEN", token)
        result = CliRunner().invoke(app, list(args), input=input)
        return result.exit_code, result.stdout, result.stderr

    return invoke


def _write(tmp_path: Path, events: list[dict], name: str = "events.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    return path


def _ev(i: int, ns: str = "team-a", **extra: object) -> dict:
    return {"namespace": ns, "source": "cli-test", "source_event_id": str(i), "kind": "note",
            "content": f"note {i}", "provenance_root": f"test://{i}", **extra}


def test_ingest_json_on_mixed_file(run, examples_dir: Path) -> None:
    """B3/B5: valid, duplicate, conflicting and malformed lines → right counts, rejects listed, exit 1."""
    code, out, _ = run("ingest", str(examples_dir / "mixed_batch.jsonl"), "--json")
    assert code == 1
    summary = json.loads(out)
    assert {k: summary[k] for k in ("inserted", "duplicate", "conflict", "rejected")} == {
        "inserted": 4, "duplicate": 1, "conflict": 1, "rejected": 3,
    }
    assert [r["line"] for r in summary["rejects"]] == [6, 7, 8, 9]
    assert all(r["reason"] for r in summary["rejects"])


def test_ingest_clean_file_exits_zero_and_is_idempotent(run, tmp_path: Path) -> None:
    """B3: a clean file exits 0; submitting it again reports every line as duplicate."""
    path = _write(tmp_path, [_ev(i) for i in range(5)])
    code, out, _ = run("ingest", str(path), "--json")
    assert code == 0 and json.loads(out)["inserted"] == 5
    code, out, _ = run("ingest", str(path), "--json")
    assert code == 0 and json.loads(out) == {"inserted": 0, "duplicate": 5, "conflict": 0, "rejected": 0,
                                             "rejects": []}


def test_ingest_from_stdin_and_human_output(run) -> None:
    """B5: stdin works; the human output prints counts and each reject with its line."""
    data = json.dumps(_ev(1)) + "\n{broken\n"
    code, out, err = run("ingest", "-", input=data)
    assert code == 1
    assert "inserted 1" in out and "rejected 1" in out
    assert "line 2" in err and "not valid JSON" in err


def test_ingest_missing_file_is_one_clear_sentence(run, tmp_path: Path) -> None:
    """Errors are one sentence on stderr with a non-zero exit."""
    code, _, err = run("ingest", str(tmp_path / "nope.jsonl"))
    assert code == 1
    assert "does not exist" in err and "Traceback" not in err


def test_db_commands_with_external_url(run, settings: Settings) -> None:
    """`db status|url|start|stop` are no-ops reporting the external URL when one is configured."""
    code, out, _ = run("db", "status", "--json")
    assert code == 0 and json.loads(out)["mode"] == "external"
    code, out, _ = run("db", "url", "--json")
    assert json.loads(out)["url"] == settings.database_url
    code, out, _ = run("db", "start", "--json")
    assert json.loads(out) == {"mode": "external", "started": False, "url": settings.database_url}
    code, out, _ = run("db", "stop", "--json")
    assert json.loads(out)["stopped"] is False


def test_db_lifecycle_of_embedded_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`medallion db start|status|url|stop` manage a real embedded server under MEDALLION_HOME."""
    monkeypatch.delenv("MEDALLION_DATABASE_URL", raising=False)
    monkeypatch.setenv("MEDALLION_HOME", str(tmp_path / "home"))
    runner = CliRunner()
    try:
        started = runner.invoke(app, ["db", "start", "--json"])
        assert started.exit_code == 0, started.output
        assert json.loads(started.stdout)["mode"] == "embedded"
        status = json.loads(runner.invoke(app, ["db", "status", "--json"]).stdout)
        assert status["running"] is True and status["pid"]
        url = json.loads(runner.invoke(app, ["db", "url", "--json"]).stdout)["url"]
        assert "medallion" in url
    finally:
        stopped = runner.invoke(app, ["db", "stop", "--json"])
    assert json.loads(stopped.stdout)["stopped"] is True
    assert json.loads(runner.invoke(app, ["db", "status", "--json"]).stdout)["running"] is False


def test_erasure_flow_through_cli(run, tmp_path: Path) -> None:
    """B7: request; self-approval refused (exit 2); another admin's token approves; listed as executed."""
    run("ingest", str(_write(tmp_path, [_ev(1), _ev(2)])))
    code, out, _ = run("erase", "request", "-n", "team-a", "--source", "cli-test", "--source-event-id", "1",
                       "--reason", "personal data", "--by", "alice", "--json")
    assert code == 0
    request_id = json.loads(out)["request_id"]

    code, _, err = run("erase", "approve", str(request_id), "--by", "alice")
    assert code == 2 and "cannot approve their own" in err

    code, out, _ = run("capability", "grant", "-n", "team-a", "--verbs", "admin", "--principal", "bob", "--json")
    token = json.loads(out)["token"]
    code, out, err = run("erase", "approve", str(request_id), "--json", token=token)
    assert code == 0, err
    assert json.loads(out)["approved_by"] == "bob"

    code, out, _ = run("erase", "list", "--json")
    [req] = json.loads(out)
    assert req["status"] == "executed" and req["requested_by"] == "alice"


def test_token_limits_ingest_to_its_namespaces_and_authority(run, tmp_path: Path) -> None:
    """G2 on writes: a token writes only its namespaces and never above its authority cap."""
    code, out, _ = run("capability", "grant", "-n", "team-a", "--verbs", "remember", "--max-authority", "3",
                       "--principal", "agent:x", "--json")
    token = json.loads(out)["token"]
    path = _write(tmp_path, [_ev(1), _ev(2, ns="team-b"), _ev(3, authority=1)])
    code, out, _ = run("ingest", str(path), "--json", token=token)
    summary = json.loads(out)
    assert code == 1 and summary["inserted"] == 1 and summary["rejected"] == 2
    reasons = " ".join(r["reason"] for r in summary["rejects"])
    assert "may not write to namespace 'team-b'" in reasons and "authority 1" in reasons

    code, _, err = run("ingest", str(path), token="mm_not-a-real-token")
    assert code == 2 and "not a valid capability" in err

    code, out, _ = run("capability", "list", "--json")
    rows = json.loads(out)
    assert rows and all("token" not in r and "token_hash" not in r for r in rows)
    code, _, _ = run("capability", "revoke", rows[0]["capability_id"])
    assert code == 0
    code, _, err = run("ingest", str(path), token=token)
    assert code == 2
