"""What every ``medallion`` command shares: the Typer app, JSON output, one-sentence failures,
settings, the database connection, the acting capability and the tools session."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any, NoReturn

import psycopg
import typer
from rich.console import Console
from rich.table import Table

from medallion.db import embedded
from medallion.db.connection import connect
from medallion.serve import capabilities
from medallion.settings import Settings, get_settings

app = typer.Typer(no_args_is_help=True, help="medallion-memory: an agent's memory built as a lakehouse.")
db_app = typer.Typer(no_args_is_help=True, help="Embedded PostgreSQL server lifecycle.")
erase_app = typer.Typer(no_args_is_help=True, help="Erasure of a Bronze event: request, then another admin approves.")
cap_app = typer.Typer(no_args_is_help=True, help="Capability tokens: grant, revoke, list.")
app.add_typer(db_app, name="db")
app.add_typer(erase_app, name="erase")
app.add_typer(cap_app, name="capability")

out = Console()
err = Console(stderr=True)
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


class Denied(Exception):
    """A capability check failed (exit code 2)."""


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes | memoryview):
        return bytes(value).decode("utf-8", "backslashreplace")
    if isinstance(value, Path):
        return str(value)
    return str(value)


def emit_json(payload: Any) -> None:
    """Write JSON to stdout (never through rich, so it stays parseable)."""
    sys.stdout.write(json.dumps(payload, default=_json_default, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def fail(message: str, code: int = 1) -> NoReturn:
    """One clear sentence on stderr, then exit."""
    err.print("error: " + message, style="red", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def load_settings() -> Settings:
    try:
        return get_settings()
    except Exception as exc:  # pydantic ValidationError: name the bad variable
        fail(f"invalid settings: {exc}".splitlines()[0])


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (database errors carry several)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def connect_or_fail(settings: Settings, role: str = "engine") -> psycopg.Connection:
    try:
        return connect(settings, role, autocommit=True)  # type: ignore[arg-type]
    except embedded.UnsafeRuntimeDir as exc:
        fail(str(exc))
    except psycopg.OperationalError as exc:
        fail(f"cannot reach the database ({str(exc).strip().splitlines()[0]}); check MEDALLION_DATABASE_URL "
             "or run `medallion db start`")


def acting_capability(settings: Settings, conn: psycopg.Connection) -> capabilities.Capability | None:
    """The caller's capability when MEDALLION_TOKEN is set; None for the local admin."""
    if not settings.token:
        return None
    cap = capabilities.resolve(conn, settings.token)
    if cap is None:
        fail("MEDALLION_TOKEN is not a valid capability (unknown, expired or revoked)", 2)
    return cap


def principal_of(cap: capabilities.Capability | None) -> str:
    """Who is acting: the capability's principal, or ``local:<os user>`` for the local admin."""
    if cap is not None:
        return cap.principal
    return capabilities.local_principal()


def require_admin(cap: capabilities.Capability | None) -> None:
    if cap is not None and "admin" not in cap.verbs:
        fail("this command needs the admin capability", 2)

def fact_rows(rows: list[dict[str, Any]], as_json: bool, title: str) -> None:
    if as_json:
        emit_json(rows)
        return
    if not rows:
        out.print(f"{title}: nothing known.")
        return
    table = Table("valid from", "valid to", "value", "authority", "contested", "fact", title=title)
    for r in rows:
        table.add_row((r["valid_from"] or "")[:10], (r["valid_to"] or "")[:10], str(r["value"]), str(r["authority"]),
                      "yes" if r["contested"] else "", r["fact_id"][:12])
    out.print(table)


NamespaceOpt = Annotated[str, typer.Option("--namespace", "-n", help="The namespace.")]
overlay_app = typer.Typer(no_args_is_help=True, help="A person's edit, annotation or redaction of a fact span.")
app.add_typer(overlay_app, name="overlay")


@contextlib.contextmanager
def tool_session(origin: str = "cli") -> Iterator[Any]:
    """The Gold tools acting with MEDALLION_TOKEN (or as the local admin); refusals exit 2, errors 1."""
    from medallion.serve.tools import ToolError, open_tools

    settings = load_settings()
    try:
        tools = open_tools(settings.token, settings, origin=origin)
    except ToolError as exc:
        fail(str(exc), exc.exit_code)
    except psycopg.OperationalError as exc:
        fail(f"cannot reach the database ({first_line(exc)}); check MEDALLION_DATABASE_URL "
             "or run `medallion db start`")
    try:
        yield tools
    except ToolError as exc:
        fail(str(exc), exc.exit_code)
    except psycopg.OperationalError as exc:
        fail(f"the database went away ({first_line(exc)}); "
             "check it runs (`medallion db status`) and try again")
    finally:
        with contextlib.suppress(psycopg.Error):
            tools.close()


def statement_rows(rows: list[dict[str, Any]], as_json: bool, title: str) -> None:
    if as_json:
        emit_json(rows)
        return
    if not rows:
        out.print(f"{title}: nothing found.")
        return
    table = Table("score", "statement", "predicate", "authority", "current", "id", title=title)
    for r in rows:
        table.add_row(f"{r['score']:.4f}" if r.get("score") is not None else "", r["statement"],
                      r.get("predicate") or r.get("kind", ""), str(r.get("authority") or ""),
                      "yes" if r.get("current", True) else "no", (r.get("fact_id") or r.get("chunk_id") or "")[:12])
    out.print(table)
