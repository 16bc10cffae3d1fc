"""``medallion ingest``: land a JSONL file in Bronze through the event contract, by the tools' write path."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import psycopg
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from medallion.bronze.ingest import IngestResult
from medallion.db.locks import LockBusy
from medallion.interfaces.cli.shared import (
    JsonOpt,
    app,
    emit_json,
    err,
    fail,
    first_line,
    out,
    plain,
    tool_session,
    visible,
)


@app.command("ingest")
def ingest(
    file: Annotated[str, typer.Argument(help="A JSONL file of events, or - for standard input.")],
    as_json: JsonOpt = False,
) -> None:
    """Land events (B2 contract) in Bronze; prints inserted/duplicate/conflict/rejected counts."""
    if file == "-":
        data, origin = sys.stdin.buffer.read(), "cli:stdin"
    else:
        path = Path(file)
        if not path.is_file():
            fail(f"{visible(file)} does not exist or is not a file")
        data, origin = path.read_bytes(), f"file:{path.resolve()}"
    landed = 0
    with tool_session() as tools, Progress(
        TextColumn("ingest"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err, transient=True, disable=as_json,
    ) as bar:
        task = bar.add_task("ingest", total=None)

        def advance(done: int, total: int) -> None:
            nonlocal landed
            landed = done
            bar.update(task, completed=done, total=total)

        try:  # the same write path as remember: the capability's verb, namespaces, authority and overlay rule
            result = tools.ingest(data=data, origin=origin, batch_size=5000, progress=advance)
        except LockBusy as exc:  # one sentence naming the session that holds the namespace's ingest lock
            fail(f"{exc} (the first {landed} lines were handled)")
        except psycopg.OperationalError as exc:
            fail(f"the database went away during ingest ({first_line(exc)}); the first {landed} lines were "
                 "handled, and ingest is idempotent: run the same command again")
    _report_ingest(result, as_json)
    if not result.ok:
        raise typer.Exit(1)


def _report_ingest(result: IngestResult, as_json: bool) -> None:
    if as_json:
        emit_json(result.summary())
        return
    out.print(
        f"inserted {result.inserted}, duplicate {result.duplicate}, "
        f"conflict {result.conflict}, rejected {result.rejected}"
    )
    for item in result.summary()["rejects"]:
        label = "" if item["status"] == "conflict" else "rejected: "
        err.print(plain(f"  line {item['line']}: {label}{item['reason']}"), highlight=False, soft_wrap=True)
    if result.rejected or result.conflict:
        err.print("Rejected and conflicting lines are kept in bronze.quarantine with their raw bytes.")
