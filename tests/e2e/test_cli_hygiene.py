"""What the CLI prints and writes is safe (issue 30, point 10), and its conventions hold (issue 32, point 5).

Stored content is shown as text: rich markup in it (``[/etc/app]``) crashed the tables, and ANSI
escape sequences reached the terminal raw. ``export -o`` writes through a temporary file that a
planted symlink cannot redirect, and replaces an existing file only with ``--force``. One exit code
convention, printed by ``--help``; every option of ``search`` says what it does; ``list`` shows no
score column.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import typer

from medallion.interfaces.cli import app
from medallion.serve.tools import open_tools
from medallion.settings import Settings

NS = "cli-hygiene"
MARKUP = "[/etc/app]"
ESCAPES = "\x1b[2J\x1b[31mred\x1b[0m\x9b31m"


def _fact(i: int, subject: str, predicate: str, value: str) -> str:
    return json.dumps({"subject": subject, "predicate": predicate, "value": value,
                       "valid_from": f"2026-01-0{i}T00:00:00Z"})


def _hostile(settings: Settings) -> None:
    with open_tools(None, settings) as admin:
        admin.remember(namespace=NS, content=_fact(1, "Config", "located_in", MARKUP), kind="fact", source="hr",
                       source_event_id="1", actor="system:hr")
        admin.remember(namespace=NS, content=_fact(2, "Banner", "located_in", ESCAPES), kind="fact", source="hr",
                       source_event_id="2", actor="system:hr")


def _no_controls(text: str) -> None:
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", text), repr(text)


def test_stored_markup_and_escape_sequences_are_printed_as_text(run, settings: Settings) -> None:
    _hostile(settings)
    for args in (["list", "-n", NS], ["search", "located in", "-n", NS], ["current", "Config", "located_in", "-n", NS],
                 ["current", "Banner", "located_in", "-n", NS], ["history", "Banner", "located_in", "-n", NS]):
        code, out, err = run(*args)
        assert code == 0, (args, out, err)
        _no_controls(out)
    code, out, _ = run("list", "-n", NS)
    assert MARKUP in out and "␛[2J" in out
    assert "score" not in out  # a listing ranks nothing
    code, out, _ = run("current", "Banner", "located_in", "-n", NS, "--json")
    [row] = json.loads(out)
    assert row["value"] == ESCAPES  # JSON is the data, exactly
    assert "\x1b" not in out and "\x9b" not in out  # written as \u escapes
    code, out, _ = run("read", row["fact_id"])
    assert code == 0 and "␛[2J␛[31mred␛[0m<U+009B>31m" in out  # each control shown, none obeyed
    _no_controls(out)


def test_export_refuses_to_overwrite_and_cannot_be_redirected_by_a_planted_symlink(run, settings: Settings,
                                                                                  tmp_path: Path) -> None:
    _hostile(settings)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    target = tmp_path / "out.jsonl"
    for name in (f".{target.name}.partial-{os.getpid()}", f".{target.name}.partial"):
        (tmp_path / name).symlink_to(victim)  # where the old export wrote its temporary file
    code, out, err = run("export", "-n", NS, "-o", str(target), "--json")
    assert code == 0, err
    assert victim.read_text() == "precious\n"
    assert len(target.read_text().splitlines()) == 2 and not target.is_symlink()

    code, out, err = run("export", "-n", NS, "-o", str(target))
    assert code == 1 and "already exists; add --force to replace it" in err and len(err.strip().splitlines()) == 1
    target.write_text("kept\n")
    code, _, err = run("export", "-n", NS, "-o", str(target), "--beliefs")
    assert code == 1 and "already exists" in err and target.read_text() == "kept\n"
    assert not (tmp_path / "out.beliefs.jsonl").exists()  # refused before anything was written

    link = tmp_path / "link.jsonl"
    link.symlink_to(victim)
    code, _, err = run("export", "-n", NS, "-o", str(link))
    assert code == 1 and "already exists" in err and victim.read_text() == "precious\n"
    code, _, err = run("export", "-n", NS, "-o", str(link), "--force")
    assert code == 0, err
    assert victim.read_text() == "precious\n" and not link.is_symlink()  # the link is replaced, not followed
    code, _, err = run("export", "-n", NS, "-o", str(target), "--force")
    assert code == 0 and len(target.read_text().splitlines()) == 2
    leftovers = {p.name for p in tmp_path.iterdir()} - {"victim.txt", "out.jsonl", "link.jsonl", "inbox", "home"}
    assert leftovers == {f".{target.name}.partial-{os.getpid()}", f".{target.name}.partial"}, leftovers


def test_one_exit_code_convention_documented_in_help(run, settings: Settings) -> None:
    _hostile(settings)
    code, out, _ = run("--help")
    flat = " ".join(re.sub(r"[│╭╮╰╯─]", " ", out).split())
    assert code == 0 and "Exit codes: 0 done; 1 the command was understood but could not be done" in flat
    assert "2 the command was refused: a usage error" in flat
    refused = {  # malformed values, like Click's own usage errors, and a namespace the caller cannot use
        "--as-of": ["search", "x", "-n", NS, "--as-of", "someday"],
        "offset": ["search", "x", "-n", NS, "--as-of", "2026-01-01T00:00:00"],
        "namespace": ["search", "x", "-n", "Team A"],
        "unknown namespace": ["current", "Config", "located_in", "-n", "cli-nowhere"],
        "-k": ["search", "x", "-n", NS, "-k", "many"],
    }
    for what, args in refused.items():
        code, _, err = run(*args)
        assert code == 2 and err, (what, code, err)
    code, _, err = run("read", "abcdef123456")  # understood, but there is no such fact
    assert code == 1 and "no fact" in err, err


def test_every_search_and_list_option_says_what_it_does() -> None:
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    for name in ("search", "list"):
        options = {p.opts[0]: p.help for p in commands[name].params if p.opts[0].startswith("-")}
        assert all(options.values()), (name, [o for o, h in options.items() if not h])
    helps = {p.opts[0]: p.help for p in commands["search"].params}
    assert "Only facts at least this authoritative" in helps["--min-authority"]
    assert "no longer believed" in helps["--include-superseded"]
