"""What every ``medallion`` command shares: the Typer app, JSON output, one-sentence failures,
settings, the database connection, the acting capability and the tools session."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any, NoReturn

import psycopg
import typer
from rich.console import Console
from rich.table import Table

from medallion.db import embedded
from medallion.db.connection import DatabaseNotReady, LoginFailed, connect
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


# Exit codes: 0 success, 1 an error (bad input, a failed run, an unreachable database), 2 a refusal
# (the acting capability may not do this). The Gold tools' errors carry theirs (ToolError.exit_code).
EXIT_ERROR = 1
EXIT_REFUSED = 2


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


def fail(message: str, code: int = EXIT_ERROR) -> NoReturn:
    """One clear sentence on stderr, then exit."""
    err.print("error: " + message, style="red", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def refuse(message: str) -> NoReturn:
    """The acting capability may not do this: one sentence, exit code 2."""
    fail(message, EXIT_REFUSED)


def iso_option(value: str | None, option: str) -> datetime | None:
    """An ISO 8601 timestamp option with a UTC offset (None when not given); anything else fails."""
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        fail(f"{option} {value!r} is not an ISO 8601 timestamp, e.g. 2027-01-01T00:00:00Z")
    if when.tzinfo is None:
        fail(f"{option} needs a UTC offset, e.g. 2027-01-01T00:00:00Z")
    return when


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
    except (embedded.UnsafeRuntimeDir, LoginFailed, DatabaseNotReady) as exc:  # already one sentence
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
        refuse("MEDALLION_TOKEN is not a valid capability (unknown, expired or revoked)")
    return cap


def principal_of(cap: capabilities.Capability | None) -> str:
    """Who is acting: the capability's principal, or ``local:<os user>`` for the local admin."""
    if cap is not None:
        return cap.principal
    return capabilities.local_principal()


def require_admin(cap: capabilities.Capability | None) -> None:
    if cap is not None and "admin" not in cap.verbs:
        refuse("this command needs the admin capability")

Column = tuple[str, Callable[[dict[str, Any]], str]]
FACT_COLUMNS: tuple[Column, ...] = (
    ("valid from", lambda r: (r["valid_from"] or "")[:10]), ("valid to", lambda r: (r["valid_to"] or "")[:10]),
    ("value", lambda r: str(r["value"])), ("authority", lambda r: str(r["authority"])),
    ("contested", lambda r: "yes" if r["contested"] else ""), ("fact", lambda r: r["fact_id"][:12]),
)
STATEMENT_COLUMNS: tuple[Column, ...] = (
    ("score", lambda r: f"{r['score']:.4f}" if r.get("score") is not None else ""),
    ("statement", lambda r: r["statement"]), ("predicate", lambda r: r.get("predicate") or r.get("kind", "")),
    ("authority", lambda r: str(r.get("authority") or "")),
    ("current", lambda r: "yes" if r.get("current", True) else "no"),
    ("id", lambda r: (r.get("fact_id") or r.get("chunk_id") or "")[:12]),
)


def show_rows(rows: list[dict[str, Any]], as_json: bool, title: str, columns: tuple[Column, ...],
              empty: str = "nothing found") -> None:
    """Rows as JSON (``--json``) or as one table with ``columns``; a line saying so when there are none."""
    if as_json:
        emit_json(rows)
        return
    if not rows:
        out.print(f"{title}: {empty}.")
        return
    table = Table(*(header for header, _ in columns), title=title)
    for row in rows:
        table.add_row(*(cell(row) for _, cell in columns))
    out.print(table)


def fact_rows(rows: list[dict[str, Any]], as_json: bool, title: str) -> None:
    """Facts of a slot (current, history, list): when each held, its value, authority and id."""
    show_rows(rows, as_json, title, FACT_COLUMNS, "nothing known")


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
    except (LoginFailed, DatabaseNotReady) as exc:  # already one sentence, the password masked
        fail(str(exc))
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
    """Search results: score, statement, predicate (or chunk kind), authority, current, id."""
    show_rows(rows, as_json, title, STATEMENT_COLUMNS)
