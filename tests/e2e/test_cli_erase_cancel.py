"""`medallion erase cancel` and requests closed as superseded, through the command line (issue 30, point 6)."""

from __future__ import annotations

import json
from pathlib import Path


def _events(tmp_path: Path) -> Path:
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps({
        "namespace": "team-a", "source": "cli-test", "source_event_id": str(i), "kind": "note",
        "actor": actor, "content": f"note {i}", "provenance_root": f"cli://{i}"}) + "\n"
        for i, actor in ((1, "user:zed"), (2, "user:zed"), (3, "user:amy"))))
    return path


def test_cancel_and_superseded_through_the_cli(run, tmp_path: Path) -> None:
    assert run("ingest", str(_events(tmp_path)))[0] == 0
    code, out, _ = run("capability", "grant", "-n", "team-a", "--verbs", "admin", "--principal", "bob", "--json")
    bob = json.loads(out)["token"]

    def request(*args: str) -> int:
        code, out, err = run("erase", "request", "-n", "team-a", *args, "--reason", "r", "--json")
        assert code == 0, err
        return json.loads(out)["request_id"]

    single = request("--source", "cli-test", "--source-event-id", "1")
    scoped = request("--actor", "user:zed")
    amy = request("--source", "cli-test", "--source-event-id", "3")
    code, out, err = run("erase", "approve", str(scoped), "--json", token=bob)
    assert code == 0, err
    approved = json.loads(out)
    assert approved["erased"] == 2 and approved["superseded"] == 1 and approved["status"] == "executed"
    code, out, _ = run("erase", "list", "--status", "superseded", "--json")
    assert [r["request_id"] for r in json.loads(out)] == [single]
    code, _, err = run("erase", "approve", str(single), token=bob)
    assert code == 1 and f"erasure request {single} was superseded" in err and len(err.strip().splitlines()) == 1

    code, _, err = run("erase", "cancel", "999999")
    assert code == 1 and "erasure request 999999 does not exist" in err and len(err.strip().splitlines()) == 1
    code, out, err = run("erase", "cancel", str(amy), "--json")
    assert code == 0, err
    cancelled = json.loads(out)
    assert cancelled["status"] == "cancelled" and cancelled["cancelled_by"].startswith("local:")
    code, _, err = run("erase", "cancel", str(amy), token=bob)
    assert code == 1 and "already cancelled" in err
    code, out, _ = run("erase", "list", "--json")
    assert {r["request_id"]: r["status"] for r in json.loads(out)} == {
        single: "superseded", scoped: "executed", amy: "cancelled"}
    code, _, err = run("erase", "list", "--status", "gone")
    assert code == 1 and "--status is one of pending, executed, cancelled, superseded, not 'gone'" in err
