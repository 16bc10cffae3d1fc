"""The ``medallion`` CLI end to end (the CLI's JSON shape; B3, B5, B7, G2 for writes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medallion.interfaces.cli import app
from medallion.settings import Settings


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
    """B7: the local admin asks; approving its own request is refused (exit 2) whatever it claims; another
    admin's token approves; the names come from the database, and `--by` no longer exists."""
    run("ingest", str(_write(tmp_path, [_ev(1), _ev(2)])))
    code, out, err = run("erase", "request", "-n", "team-a", "--source", "cli-test", "--source-event-id", "1",
                         "--reason", "personal data", "--json")
    assert code == 0, err
    request = json.loads(out)
    assert request["requested_by"].startswith("local:")

    code, _, err = run("erase", "approve", str(request["request_id"]))
    assert code == 2 and "cannot approve their own" in err
    code, _, err = run("erase", "approve", str(request["request_id"]), "--by", "user:other-admin")
    assert code == 2 and "--by" in err  # a usage error: no caller names the approver

    code, out, _ = run("capability", "grant", "-n", "team-a", "--verbs", "admin", "--principal", "bob", "--json")
    token = json.loads(out)["token"]
    code, out, err = run("erase", "approve", str(request["request_id"]), "--json", token=token)
    assert code == 0, err
    assert json.loads(out)["approved_by"] == "bob"

    code, out, _ = run("erase", "list", "--json")
    [req] = json.loads(out)
    assert req["status"] == "executed" and req["approved_by"] == "bob"
    assert req["requested_by"] == request["requested_by"]


def _grant(run, *args: str, token: str | None = None) -> tuple[int, dict, str]:
    code, out, err = run("capability", "grant", *args, "--json", token=token)
    return code, (json.loads(out) if code == 0 else {}), err


def test_a_namespace_admin_cannot_mint_beyond_itself(run) -> None:
    """Security issue point 1: an admin token of team-atlas minted '*' and team-borealis tokens, and the
    '*' token revoked its minter. A capability mints only within its own namespaces and verbs; '*' is the
    local admin's alone; revoke and list follow the same rule."""
    _, atlas_admin, _ = _grant(run, "-n", "team-atlas", "--verbs", "admin,search,read", "--principal", "user:ana",
                               "--max-authority", "3")
    _, other, _ = _grant(run, "-n", "team-borealis", "--verbs", "admin", "--principal", "user:bo")
    _, everything, _ = _grant(run, "-n", "*", "--verbs", "admin,search,read", "--principal", "user:root-ops",
                              "--max-authority", "1")
    token = atlas_admin["token"]
    for args, why in ((["-n", "*", "--verbs", "admin"], "only the local administrative login"),
                      (["-n", "team-borealis", "--verbs", "search"], "cannot grant namespace"),
                      (["-n", "team-atlas", "-n", "team-borealis", "--verbs", "search"], "cannot grant namespace"),
                      (["-n", "team-atlas", "--verbs", "remember"], "cannot grant verb"),
                      (["-n", "team-atlas", "--verbs", "search", "--max-authority", "1"], "cannot grant authority"),
                      (["-n", "team-atlas", "--verbs", "admin", "--principal", "user:bob"], "admin only to its own"),
                      (["-n", "team-atlas", "--verbs", "search", "--principal", "local:root"], "'local:' principals")):
        code, _, err = _grant(run, *args, token=token)
        assert code == 2 and why in err and len(err.strip().splitlines()) == 1, (args, err)
    code, minted, err = _grant(run, "-n", "team-atlas", "--verbs", "search", "--principal", "agent:a", token=token)
    assert code == 0, err
    code, _, err = _grant(run, "-n", "team-atlas", "--verbs", "admin", "--principal", "user:ana", token=token)
    assert code == 0, err  # admin for its own principal: still one person
    code, _, err = run("search", "anything", "-n", "team-borealis", token=minted["token"])
    assert code == 2

    code, _, err = run("capability", "revoke", atlas_admin["capability_id"], token=minted["token"])
    assert code == 2 and "admin" in err  # a search-only token revokes nothing
    for target in (other["capability_id"], everything["capability_id"]):
        code, _, err = run("capability", "revoke", target, token=token)
        assert code == 2 and "no active capability" in err
    code, out, _ = run("capability", "list", "--json", token=token)
    assert {tuple(r["namespaces"]) for r in json.loads(out)} == {("team-atlas",)}
    code, _, err = run("capability", "revoke", minted["capability_id"], token=token)
    assert code == 0, err
    code, _, err = run("capability", "revoke", atlas_admin["capability_id"], token=everything["token"])
    assert code == 0, err  # a '*' admin minted by the local admin, holding those verbs, reaches it


def test_erasure_and_db_url_under_a_token(run, tmp_path: Path) -> None:
    """Security issue point 2: requests need admin in the event's namespace, the list is filtered, and
    `db url` (the administrative login) is refused under a token."""
    run("ingest", str(_write(tmp_path, [_ev(1, ns="team-atlas"), _ev(2, ns="team-borealis")])))
    _, searcher, _ = _grant(run, "-n", "team-atlas", "--verbs", "search", "--principal", "agent:s")
    _, admin, _ = _grant(run, "-n", "team-atlas", "--verbs", "admin", "--principal", "user:ana")
    for token in (searcher["token"], admin["token"]):
        code, _, err = run("erase", "request", "-n", "team-borealis", "--source", "cli-test", "--source-event-id",
                           "2", "--reason", "because", token=token)
        assert code == 2 and "erase" in err and len(err.strip().splitlines()) == 1
    code, _, err = run("erase", "request", "-n", "team-borealis", "--source", "cli-test", "--source-event-id", "2",
                       "--reason", "secret borealis reason")
    assert code == 0, err
    code, out, err = run("erase", "list", "--json", token=admin["token"])
    assert code == 0 and json.loads(out) == [] and "borealis" not in out
    code, _, err = run("erase", "list", token=searcher["token"])
    assert code == 2
    code, out, err = run("db", "url", token=admin["token"])
    assert code == 2 and out == "" and "MEDALLION_TOKEN" in err
    for command in ("start", "status"):
        code, out, err = run("db", command, "--json", token=admin["token"])
        assert code == 0 and json.loads(out)["url"] is None, err


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


def test_overlays_ingested_with_a_token_need_its_verb_and_its_principal(run, tmp_path: Path) -> None:
    """Security issue point 4: a token with only `remember` ingested kind=overlay events as `user:mallory`.
    With a token, an overlay event needs the overlay verb, and its actor is the token's principal."""
    overlay = {"kind": "overlay", "content": json.dumps({"fact_id": "f" * 24, "action": "annotate", "note": "n",
                                                         "selector": {"exact": "x"}})}
    _, writer, _ = _grant(run, "-n", "team-a", "--verbs", "remember", "--principal", "user:mallory")
    _, editor, _ = _grant(run, "-n", "team-a", "--verbs", "remember,overlay", "--principal", "user:ed")
    lines = [_ev(1, actor="user:mallory", **overlay), _ev(2, actor="user:someone-else", **overlay),
             _ev(3, actor="user:ed", **overlay), _ev(4, actor="user:mallory")]
    path = _write(tmp_path, lines)
    code, out, _ = run("ingest", str(path), "--json", token=writer["token"])
    summary = json.loads(out)
    assert code == 1 and summary["inserted"] == 1  # only the plain note
    assert {r["line"]: r["reason"] for r in summary["rejects"]}[1].startswith("this capability may not write overlays")
    code, out, _ = run("ingest", str(path), "--json", token=editor["token"])
    summary = json.loads(out)
    assert summary["inserted"] == 1 and summary["duplicate"] == 1  # line 3, its own principal; line 4 again
    reasons = {r["line"]: r["reason"] for r in summary["rejects"]}
    assert set(reasons) == {1, 2} and all("must name its principal 'user:ed'" in r for r in reasons.values())
    _, reader, _ = _grant(run, "-n", "team-a", "--verbs", "read,search", "--principal", "user:rita")
    code, _, err = run("ingest", str(path), token=reader["token"])  # the same verb check as remember's
    assert code == 2 and "does not allow 'remember' (it allows read, search)" in err


def test_timestamp_options_take_iso_8601_with_an_offset_or_fail_in_one_sentence(run, tmp_path: Path) -> None:
    """--as-of (search, follow) and --expires (capability grant) are parsed the same way: a malformed or
    offset-less timestamp is one sentence naming the option and an example, exit 2 (a usage error, like a
    malformed number), nothing done."""
    run("ingest", str(_write(tmp_path, [_ev(1)])))  # team-a exists, so an accepted timestamp runs the command
    for args in (["search", "coffee", "-n", "team-a"], ["follow", "Bob", "works_at", "-n", "team-a"]):
        code, _, err = run(*args, "--as-of", "last monday")
        assert code == 2 and "--as-of 'last monday' is not an ISO 8601 timestamp" in err
        assert len(err.strip().splitlines()) == 1
        code, _, err = run(*args, "--as-of", "2026-11-01T09:00:00")
        assert code == 2 and "--as-of needs a UTC offset" in err
        code, _, err = run(*args, "--as-of", "2026-11-01T09:00:00+00:00")  # accepted: the command runs
        assert "--as-of" not in err and (code == 0 or "no entity named 'Bob'" in err), err
    code, _, err = run("capability", "grant", "-n", "team-a", "--verbs", "read", "--expires", "2027-01-01")
    assert code == 2 and "--expires needs a UTC offset" in err
    code, out, _ = run("capability", "list", "--json")
    assert json.loads(out) == [], "a refused grant mints nothing"


def test_docs_serve_only_needs_generated_docs_and_says_so(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`docs --serve-only` serves what `--generate-only` wrote; with nothing generated, or with options that
    report or generate, one sentence and exit 1 (the served flow is in test_cli_materialize.py)."""
    from medallion.publish import dbt_runner

    monkeypatch.setattr(dbt_runner, "CLI_TARGET_DIR", tmp_path / "no-docs")
    code, out, err = run("docs", "--serve-only")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "no generated docs" in err and "medallion docs --generate-only" in err
    code, _, err = run("docs", "--serve-only", "--json")
    assert code == 1 and "leave out --generate-only and --json" in err
