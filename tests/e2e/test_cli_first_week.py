"""The CLI as a new user meets it in the first week: an unreachable server, errors under --json, the
model's progress bar, dates in --as-of, provenance, bad namespaces, a stopped server, exporting and
erasing one's data."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from medallion.bronze.integrity import verify
from medallion.db import embedded
from medallion.interfaces.cli import app
from medallion.interfaces.cli.shared import iso_option
from medallion.settings import Settings
from medallion.silver.derive import derive
from tests.conftest import fresh_database
from tests.support.cli_events import hr_fact
from tests.support.models import cls_pooling_copy

SECRET = "hunter2-never-shown"


def _write(path: Path, events: list[dict]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def _note(i: int, ns: str, actor: str, content: str) -> dict:
    return {"namespace": ns, "source": "chat", "source_event_id": f"m{i}", "kind": "note", "actor": actor,
            "content": content, "provenance_root": f"chat://{ns}/{i}", "occurred_at": f"2026-03-0{1 + i % 9}T10:00:00Z"}


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _one_line(text: str) -> bool:
    return len(text.strip().splitlines()) == 1


# ------------------------------------------------------------------------------- an unreachable server
@pytest.mark.parametrize("shape", [
    "postgresql://app:{secret}@127.0.0.1:{port}/medallion",
    "host=127.0.0.1 port={port} user=app password={secret} dbname=medallion",
    "postgresql://app@127.0.0.1:{port}/medallion?password={secret}",
    "postgresql://app:{secret}/x@127.0.0.1:{port}/medallion",  # a '/' a URL parser ends the login at
])
def test_an_unreachable_server_is_reported_as_such_and_its_password_never_shown(
        run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, shape: str) -> None:
    """`db status` against a closed port said "running" and printed the password. It says unreachable in
    one sentence with what to check, exits 1, and no command prints the password, in any URL form."""
    monkeypatch.setenv("MEDALLION_DATABASE_URL", shape.format(secret=SECRET, port=_closed_port()))
    code, out, err = run("db", "status")
    assert code == 1 and "external server: unreachable" in out and "check MEDALLION_DATABASE_URL" in out
    assert _one_line(out) and "running" not in out
    code, out, _ = run("db", "status", "--json")
    status = json.loads(out)
    assert code == 1 and status["running"] is False and status["mode"] == "external" and status["problem"]
    events = _write(tmp_path / "e.jsonl", [_note(1, "team-a", "user:a", "hello")])
    for args in (["db", "status"], ["db", "status", "--json"], ["db", "start"], ["db", "url"], ["db", "migrate"],
                 ["search", "x", "-n", "team-a"], ["search", "x", "-n", "team-a", "--json"], ["erase", "list"],
                 ["ingest", str(events)], ["export", "-n", "team-a"], ["capability", "list"]):
        code, out, err = run(*args)
        assert SECRET not in out + err and "hunter2" not in out + err, args
        assert "Traceback" not in err, (args, err)
        assert code == (0 if args == ["db", "start"] else 1), (args, code, err)


def test_a_reachable_external_server_is_running(run, settings: Settings) -> None:
    """The same probe finds the test's own server: running, exit 0, the URL shown."""
    code, out, _ = run("db", "status", "--json")
    assert code == 0 and json.loads(out)["running"] is True and json.loads(out)["problem"] is None
    code, out, _ = run("db", "status")
    assert code == 0 and out.startswith("external server: running at ")


# ------------------------------------------------------------------------------------ errors as JSON
def test_with_json_every_error_is_json_on_stderr_with_its_exit_code(run, tmp_path: Path, settings: Settings) -> None:
    """A failure, a refusal, a usage error and a tool's error: with --json each is one JSON object on
    stderr, {"error", "exit_code"}, nothing on stdout, and the process exits with that code; without
    --json the same failure is one `error:` sentence."""
    run("ingest", str(_write(tmp_path / "e.jsonl", [_note(1, "team-a", "user:a", "hello")])))
    code, out, _ = run("capability", "grant", "-n", "team-a", "--verbs", "search", "--principal", "agent:s", "--json")
    token = json.loads(out)["token"]
    cases = [
        (["ingest", str(tmp_path / "missing.jsonl")], None, 1, "does not exist"),
        (["search", "x"], None, 2, "Missing option '--namespace'"),
        (["search", "x", "-n", "team-a", "-k", "many"], None, 2, "Invalid value for '-k'"),
        (["current", "Bob", "lives_in", "-n", "Team A"], None, 2, "is not a valid namespace"),
        (["search", "x", "-n", "team-b"], token, 2, "does not allow 'search' in namespace 'team-b'"),
        (["erase", "approve", "987654"], None, 1, "erasure request 987654 does not exist"),
        (["search", "x", "-n", "team-a", "--as-of", "someday"], None, 2, "is not an ISO 8601 timestamp"),
    ]
    for args, as_token, want, says in cases:
        code, out, err = run(*args, "--json", token=as_token)
        assert code == want and out == "", (args, code, out, err)
        assert json.loads(err) == {"error": json.loads(err)["error"], "exit_code": want}, (args, err)
        assert says in json.loads(err)["error"], (args, err)
        code, _, err = run(*args, token=as_token)
        assert code == want and says in " ".join(err.split()), (args, err)
        if not says[0].isupper():  # ours; a usage error keeps Typer's box
            assert err.startswith("error: ") and _one_line(err), (args, err)


# ------------------------------------------------------------------------- the model's progress bar
@pytest.mark.slow
def test_a_command_that_loads_the_model_draws_no_progress_bar(run, settings: Settings, tmp_path: Path) -> None:
    """transformers drew "Loading weights" with tqdm on stderr on every command that loads the embedding
    model. The real `medallion` command, in a fresh process: nothing on stderr with the bundled model;
    with a model directory sentence-transformers loads (CLS pooling), no bar either, and with the bars
    asked for, the bar."""
    run("ingest", str(_write(tmp_path / "e.jsonl", [_note(1, "team-a", "user:a", "we drink coffee at ten")])))
    medallion = Path(sys.executable).with_name("medallion")
    env = {k: v for k, v in os.environ.items() if k != "HF_HUB_DISABLE_PROGRESS_BARS"}
    env.update(MEDALLION_DATABASE_URL=settings.database_url or "", MEDALLION_HOME=str(settings.home),
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.pop("MEDALLION_TOKEN", None)
    library_model = cls_pooling_copy(tmp_path / "cls-model")
    # the processes side by side: each spends most of its time importing and loading the model
    cases = (({}, False), ({"MEDALLION_EMBEDDING_MODEL": library_model}, False),
             ({"MEDALLION_EMBEDDING_MODEL": library_model, "HF_HUB_DISABLE_PROGRESS_BARS": "0"}, True))
    started = [(subprocess.Popen([str(medallion), "search", "coffee", "-n", "team-a"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True, env={**env, **extra}), shown)
               for extra, shown in cases]
    errors = []
    for proc, shown in started:
        _, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, stderr
        assert ("Loading weights" in stderr) is shown, stderr
        errors.append(stderr)
    assert errors[0] == ""  # the bundled model: not a line



# ------------------------------------------------------------------------------------------ --as-of
def test_as_of_takes_a_date_alone_as_utc_midnight(run, tmp_path: Path) -> None:
    """`--as-of 2026-11-10` was refused for lacking an offset; it is midnight UTC, and the help says so.
    An expiry still needs a time (a date there would read as the start of the day)."""
    assert iso_option("2026-11-10", "--as-of", date_is_utc_midnight=True) == datetime(2026, 11, 10, tzinfo=UTC)
    run("ingest", str(_write(tmp_path / "e.jsonl", [_note(1, "team-a", "user:a", "Bob works at Atlas.")])))
    for args in (["search", "coffee", "-n", "team-a"], ["follow", "Bob", "works_at", "-n", "team-a"]):
        code, _, err = run(*args, "--as-of", "2026-11-10")
        assert "--as-of" not in err and (code == 0 or "no entity named 'Bob'" in err), err
        code, _, err = run(*args, "--as-of", "2026-11-31")
        assert code == 2 and "--as-of '2026-11-31' is not a date" in err and _one_line(err)
        code, out, _ = run(*args, "--help")
        assert "a date alone, e.g. 2026-11-10, means midnight UTC" in " ".join(re.sub(r"[│╭╮╰╯─]", " ", out).split())
    code, _, err = run("capability", "grant", "-n", "team-a", "--verbs", "read", "--expires", "2027-01-01")
    assert code == 2 and "--expires needs a UTC offset" in err


# ----------------------------------------------------------------- provenance, beliefs, bad namespaces
def test_read_shows_provenance_as_a_table_and_export_writes_the_current_beliefs(
        run, settings: Settings, engine_conn: psycopg.Connection, tmp_path: Path) -> None:
    """`read` printed provenance as a Python dict; it is a table of labelled rows. `export --beliefs`
    writes one current belief per line in the `list --json` shape, next to the events."""
    facts = [hr_fact(1, "Bob", "lives_in", "Berlin", "2026-01-01T00:00:00Z", 1),
             hr_fact(2, "Bob", "lives_in", "Lisbon", "2026-06-01T00:00:00Z", 1),
             hr_fact(3, "Carol", "role", "Designer", "2026-02-01T00:00:00Z", 2)]
    run("ingest", str(_write(tmp_path / "hr.jsonl", facts)))
    derive(engine_conn, settings)
    code, out, _ = run("current", "Bob", "lives_in", "-n", "cli-silver", "--json")
    [lisbon] = json.loads(out)
    code, out, err = run("read", lisbon["fact_id"])
    assert code == 0, err
    assert "{'" not in out and "bronze_event_id" not in out
    rows = {" ".join(line.split()[:-1]): line.split()[-1] for line in out.splitlines()[1:] if line.strip()}
    assert rows["Bronze event"] == str(lisbon["provenance"]["bronze_event_id"])
    assert rows["source event id"] == "hr-2" and rows["source"] == "hr" and rows["provenance root"] == "hr://2"

    code, out, err = run("export", "-n", "cli-silver", "-o", str(tmp_path / "hr-out.jsonl"), "--beliefs", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["events"] == 3 and summary["beliefs"] == 2
    assert summary["beliefs_file"] == str(tmp_path / "hr-out.beliefs.jsonl")
    beliefs = [json.loads(line) for line in Path(summary["beliefs_file"]).read_text().splitlines()]
    code, out, _ = run("list", "-n", "cli-silver", "--json")
    assert sorted(b["fact_id"] for b in beliefs) == sorted(f["fact_id"] for f in json.loads(out))
    assert {b["value"] for b in beliefs} == {"Lisbon", "Designer"} and all(b["provenance"] for b in beliefs)
    code, _, err = run("export", "-n", "cli-silver", "--beliefs")
    assert code == 2 and "give the events file with -o FILE" in err  # a usage error


def test_a_malformed_or_unknown_namespace_is_refused_with_exit_2(run, tmp_path: Path) -> None:
    """A namespace the contract could never hold is exit 2 on every command that takes one, the paths that
    do not go through the tools included; a well-formed one with nothing in it cannot be exported."""
    run("ingest", str(_write(tmp_path / "e.jsonl", [_note(1, "team-a", "user:a", "hello")])))
    for args in (["current", "Bob", "lives_in", "-n", "Team A"], ["search", "x", "-n", "team/a"],
                 ["list", "-n", "-x"], ["read", "abc", "-n", "TEAM"],
                 ["erase", "request", "-n", "Team A", "--all-events", "--reason", "r"],
                 ["erase", "request", "-n", "team a", "--source", "s", "--source-event-id", "1", "--reason", "r"],
                 ["export", "-n", "Team A"], ["capability", "grant", "-n", "Team A", "--verbs", "read"]):
        code, out, err = run(*args)
        assert code == 2 and "is not a valid namespace" in err and _one_line(err), (args, err)
    code, out, err = run("export", "-n", "team-nobody")
    assert code == 2 and out == "" and "namespace team-nobody holds no events" in err and "team-a" in err
    code, out, _ = run("capability", "list", "--json")
    assert json.loads(out) == []


# ------------------------------------------------------------------------------------ db stop is kept
def test_a_stopped_embedded_server_is_not_started_again_by_a_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After `db stop`, a command started the server again silently. It says how to start it, exits 1 and
    leaves the server stopped, until `db start`, after which commands work again."""
    monkeypatch.delenv("MEDALLION_DATABASE_URL", raising=False)
    monkeypatch.delenv("MEDALLION_TOKEN", raising=False)
    monkeypatch.setenv("MEDALLION_HOME", str(tmp_path / "home"))
    runner = CliRunner()

    def cli(*args: str, input: str | None = None):  # noqa: ANN202
        result = runner.invoke(app, list(args), input=input)
        return result.exit_code, result.stdout, result.stderr

    event = json.dumps(_note(1, "team-a", "user:a", "hello")) + "\n"
    try:
        code, _, err = cli("ingest", "-", input=event)  # a fresh home: the first command starts the server
        assert code == 0, err
        code, out, _ = cli("db", "stop")
        assert code == 0 and "no command starts it again until `medallion db start`" in out
        for args in (["ingest", "-"], ["search", "x", "-n", "team-a"], ["erase", "list"], ["db", "url"],
                     ["capability", "list"], ["export", "-n", "team-a"], ["db", "migrate"], ["materialize"]):
            code, out, err = cli(*args, input=event)
            assert code == 1 and "start it again with `medallion db start`" in err and _one_line(err), (args, err)
        code, out, _ = cli("db", "status", "--json")
        assert json.loads(out)["running"] is False and json.loads(out)["stopped_by_user"] is True
        code, out, _ = cli("db", "status")
        assert "stays stopped until `medallion db start`" in out
        with pytest.raises(embedded.ServerStopped):  # what the Dagster sensors and the MCP server meet
            embedded.start(Settings(home=tmp_path / "home", database_url=None))
        code, _, err = cli("db", "start")
        assert code == 0, err
        code, out, err = cli("ingest", "-", "--json", input=event)
        assert code == 0 and json.loads(out)["duplicate"] == 1, err
        assert not (tmp_path / "home" / embedded.STOP_MARKER).exists()
    finally:
        cli("db", "stop")


# ---------------------------------------------------------------------------------------- export
def test_export_is_what_ingest_takes_back_unchanged(
        run, settings: Settings, pg_server: str, examples_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every namespace exported, then: into the same database, nothing is inserted (all duplicates); into a
    fresh one, every contract field, the content hashes and the chains come out identical."""
    code, out, _ = run("ingest", str(examples_dir / "team_events.jsonl"), "--json")
    assert code == 0 and json.loads(out)["inserted"] == 53
    files = {}
    for ns in ("team-atlas", "team-borealis"):
        files[ns] = tmp_path / f"{ns}.jsonl"
        code, out, err = run("export", "-n", ns, "-o", str(files[ns]), "--json")
        assert code == 0, err
        assert json.loads(out)["events"] == len(files[ns].read_text().splitlines())
    code, out, err = run("export", "-n", "team-borealis")
    assert code == 0 and out == files["team-borealis"].read_text() and "exported 5 events" in err
    first = json.loads(out.splitlines()[0])
    assert set(first) == {"namespace", "source", "source_event_id", "kind", "actor", "content", "occurred_at",
                          "provenance_root", "authority", "metadata"}
    for path in files.values():
        code, out, _ = run("ingest", str(path), "--json")
        assert code == 0 and json.loads(out)["inserted"] == 0
        assert json.loads(out)["duplicate"] == len(path.read_text().splitlines())

    columns = ("namespace, source, source_event_id, kind, actor, content, content_hash, occurred_at, "
               "provenance_root, authority, metadata, chain_hash")
    query = f"SELECT {columns} FROM bronze.events ORDER BY namespace, event_id"  # noqa: S608 - fixed text
    with psycopg.connect(settings.database_url) as conn:
        original = conn.execute(query).fetchall()
    with fresh_database(pg_server) as other:
        monkeypatch.setenv("MEDALLION_DATABASE_URL", other)
        for path in files.values():
            code, out, _ = run("ingest", str(path), "--json")
            assert code == 0 and json.loads(out)["inserted"] == len(path.read_text().splitlines())
        with psycopg.connect(other) as conn:
            assert conn.execute(query).fetchall() == original
            assert verify(conn) == []


# ------------------------------------------------------------------------------ erasure of a scope
def test_erase_an_actor_then_a_whole_namespace_and_rederive_what_remains(
        run, settings: Settings, engine_conn: psycopg.Connection, tmp_path: Path) -> None:
    """One request and one approval for every event of an actor, then for a whole namespace: each event
    tombstoned, the namespace re-derived from what remains, and a scope that matches nothing is one
    sentence."""
    ns = "erase-cli"
    events = [_note(1, ns, "user:alice", "Alice lives in Berlin."), _note(2, ns, "user:alice", "Alice works at Atlas."),
              _note(3, ns, "user:bob", "Bob lives in Lisbon."),
              _note(4, "erase-other", "user:alice", "Alice likes tea.")]
    run("ingest", str(_write(tmp_path / "e.jsonl", events)))
    derive(engine_conn, settings)

    def facts_of(actor: str) -> int:
        return engine_conn.execute(
            "SELECT count(*) FROM silver.facts f JOIN bronze.events e ON e.event_id = f.bronze_event_id "
            "WHERE f.namespace = %s AND e.actor = %s", (ns, actor)).fetchone()[0]

    assert facts_of("user:alice") > 0 and facts_of("user:bob") > 0
    code, _, err = run("erase", "request", "-n", ns, "--actor", "user:nobody", "--reason", "r")
    assert code == 1 and "actor user:nobody has no events in namespace erase-cli" in err and _one_line(err)
    code, _, err = run("erase", "request", "-n", ns, "--actor", "user:alice", "--all-events", "--reason", "r")
    assert code == 1 and _one_line(err)
    code, out, err = run("erase", "request", "-n", ns, "--actor", "user:alice", "--reason", "asked to be forgotten",
                         "--json")
    assert code == 0, err
    request = json.loads(out)
    assert (request["scope"], request["events"], request["actor"]) == ("actor", 2, "user:alice")
    code, _, err = run("erase", "approve", str(request["request_id"]))
    assert code == 2 and "cannot approve their own" in err
    code, out, _ = run("capability", "grant", "-n", ns, "--verbs", "admin", "--principal", "user:dpo", "--json")
    dpo = json.loads(out)["token"]
    code, out, err = run("erase", "approve", str(request["request_id"]), "--json", token=dpo)
    assert code == 0, err
    done = json.loads(out)
    assert (done["erased"], done["namespace"], done["approved_by"]) == (2, ns, "user:dpo")
    assert facts_of("user:alice") == 0 and facts_of("user:bob") > 0
    assert engine_conn.execute("SELECT count(*) FROM bronze.events WHERE actor = 'user:alice'").fetchone()[0] == 1

    code, out, err = run("erase", "request", "-n", ns, "--all-events", "--reason", "tenant left")
    assert code == 0 and "all 1 event(s) of namespace erase-cli" in out, err
    request_id = re.search(r"Erasure request (\d+)", out).group(1)
    code, out, err = run("erase", "approve", request_id, token=dpo)
    assert code == 0 and "1 event(s) of namespace erase-cli erased (a tombstone for each)" in out, err
    assert engine_conn.execute("SELECT count(*) FROM silver.facts WHERE namespace = %s", (ns,)).fetchone()[0] == 0
    assert engine_conn.execute("SELECT count(*) FROM bronze.tombstones WHERE namespace = %s", (ns,)).fetchone()[0] == 3
    code, out, _ = run("erase", "list", "--json")
    assert [(r["scope"], r["events"], r["status"]) for r in json.loads(out)] == [
        ("namespace", 1, "executed"), ("actor", 2, "executed")]
    code, _, err = run("erase", "request", "-n", ns, "--all-events", "--reason", "again")
    assert code == 1 and "namespace erase-cli has no events to erase" in err
    assert verify(engine_conn) == []
