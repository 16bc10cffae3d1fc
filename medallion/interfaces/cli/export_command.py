"""``medallion export``: a namespace's Bronze events (and, optionally, its current beliefs) as JSONL.

The events file is what ``medallion ingest`` takes back unchanged (:mod:`medallion.bronze.export`).
The beliefs file is one current belief per line in the shape ``medallion list --json`` prints (fact
id, subject, predicate, value, statement, validity, authority, confidence, contested, provenance),
as served: a person's edits and redactions applied. Beliefs are derived, so they are for reading;
ingesting the events re-derives them.

Both read Bronze verbatim, redacted spans included, so under a token the export needs ``admin`` in
the namespace; the local admin exports any namespace. A file is written whole or not at all, and an
existing one is replaced only with ``--force`` (:func:`medallion.bronze.export.write_file`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from medallion.bronze import export as bronze_export
from medallion.bronze.namespaces import namespaces as bronze_namespaces
from medallion.interfaces.cli.shared import (
    EXIT_USAGE,
    JsonOpt,
    NamespaceOpt,
    acting_capability,
    app,
    connect_or_fail,
    emit_json,
    err,
    fail,
    json_line,
    load_settings,
    out,
    plain,
    refuse,
    tool_session,
    visible,
)

BELIEFS_SUFFIX = ".beliefs.jsonl"
_ALL = 1_000_000_000  # the beliefs export asks for every current belief


def beliefs_path(events_file: Path) -> Path:
    """Where ``--beliefs`` writes, next to the events file: ``events.jsonl`` → ``events.beliefs.jsonl``."""
    return events_file.with_name(events_file.name.removesuffix(".jsonl") + BELIEFS_SUFFIX)


@app.command("export")
def export_cmd(
    namespace: NamespaceOpt,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Write the events here (default: standard output).")] = None,
    beliefs: Annotated[bool, typer.Option(
        "--beliefs", help=f"Also write the current beliefs, one per line, next to -o FILE (as FILE{BELIEFS_SUFFIX} "
        "with FILE's .jsonl dropped).")] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace the files if they exist.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Write a namespace's Bronze events as JSONL that `medallion ingest` takes back unchanged (every contract
    field; erased events are gone); with --beliefs, its current beliefs too. Needs admin in the namespace."""
    settings = load_settings()
    if beliefs and output is None:
        fail("--beliefs writes a second file next to the events: give the events file with -o FILE", EXIT_USAGE)
    for target in ([output] if output else []) + ([beliefs_path(output)] if beliefs and output else []):
        _check_target(target, force)
    conn = connect_or_fail(settings)
    cap = acting_capability(settings, conn)
    if cap is not None and not cap.allows("admin", namespace):
        refuse(f"exporting namespace {namespace} needs the admin capability there (an export is Bronze verbatim, "
               "redacted spans included)")
    total = bronze_export.count_events(conn, namespace)
    if total == 0:
        exportable = [ns for ns in bronze_namespaces(conn) if cap is None or cap.allows("admin", ns)]
        refuse(f"namespace {namespace} holds no events" + (
            f"; namespaces you can export: {', '.join(exportable)}" if exportable else "; there is nothing to export"))
    with Progress(TextColumn(f"export {namespace}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True, disable=as_json or not err.is_terminal) as bar:
        task = bar.add_task("export", total=total)
        if output is None:
            written = bronze_export.write_events(conn, namespace, sys.stdout,
                                                 progress=lambda n: bar.update(task, completed=n))
            sys.stdout.flush()
        else:
            written = _to_file(output, lambda f: bronze_export.write_events(
                conn, namespace, f, progress=lambda n: bar.update(task, completed=n)), force)
    conn.close()
    summary: dict[str, Any] = {"namespace": namespace, "events": written, "file": str(output) if output else None}
    if beliefs:
        assert output is not None
        summary["beliefs"], summary["beliefs_file"] = _export_beliefs(namespace, beliefs_path(output), force)
    if output is None:
        if not as_json:
            err.print(f"exported {written} events of {namespace}", markup=False, highlight=False)
        return
    if as_json:
        emit_json(summary)
        return
    out.print(plain(f"exported {written} events of {namespace} to {output}"))
    if beliefs:
        out.print(plain(f"exported {summary['beliefs']} current beliefs to {summary['beliefs_file']}"))


def _export_beliefs(namespace: str, path: Path, force: bool) -> tuple[int, str]:
    """Every current belief of ``namespace`` as served, one JSON object per line, written to ``path``."""
    with tool_session() as tools:
        rows = tools.list(namespace=namespace, include_superseded=False, limit=_ALL)
    _to_file(path, lambda f: [f.write(json_line(row) + "\n") for row in rows], force)
    return len(rows), str(path)


def _check_target(path: Path, force: bool) -> None:
    """Refuse, before anything is read, a target that is a folder, or a file that exists without --force."""
    if path.is_dir():
        fail(f"{visible(path)} is a directory: give a file name for -o")
    if not force and os.path.lexists(path):
        fail(f"{visible(path)} already exists; add --force to replace it")


def _to_file(path: Path, write: Any, force: bool) -> Any:
    """``write(file)`` into ``path`` whole or not at all (:func:`medallion.bronze.export.write_file`)."""
    try:
        return bronze_export.write_file(path, write, replace=force)
    except FileExistsError:
        fail(f"{visible(path)} already exists; add --force to replace it")
    except IsADirectoryError:
        fail(f"{visible(path)} is a directory: give a file name for -o")
    except OSError as exc:
        fail(f"cannot write {visible(path)} ({exc.strerror or exc}); check the folder exists and is writable")
