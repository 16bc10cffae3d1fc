"""What every ``medallion`` command shares: the Typer app, JSON output, one-sentence failures,
settings, the database connection, the acting capability and the tools session.

Failures are one sentence on stderr with a non-zero exit; with ``--json`` anywhere on the command
line they are one JSON object on stderr instead, ``{"error": "...", "exit_code": N}``, with the same
exit code, usage errors (a missing option, a malformed number) included. The exit codes follow one
convention, printed by ``medallion --help`` (:data:`EXIT_CODES_HELP`).

Stored content is printed through :func:`plain`: rich markup in it is text, and control characters
are shown, not obeyed (:func:`visible`); ``--json`` prints the data exactly.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Annotated, Any, NoReturn

import psycopg
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from typer.core import TyperGroup

from medallion.bronze.contract import NAMESPACE_PATTERN
from medallion.db import embedded
from medallion.db.connection import DatabaseNotReady, LoginFailed, connect
from medallion.db.locks import LockBusy
from medallion.serve import capabilities, verbs
from medallion.settings import Settings, get_settings

# Set for each invocation from its arguments: errors are reported as JSON when `--json` was given.
_json_errors: contextvars.ContextVar[bool] = contextvars.ContextVar("medallion_json_errors", default=False)


def write_error(message: str, code: int) -> None:
    """One failure on stderr: a JSON object under ``--json``, else ``error: <sentence>``."""
    if _json_errors.get():
        sys.stderr.write(json.dumps({"error": message, "exit_code": code}, ensure_ascii=False) + "\n")
        sys.stderr.flush()
    else:
        err.print(plain("error: " + message), style="red", highlight=False, soft_wrap=True)


class _JsonErrorsGroup(TyperGroup):
    """The root command: notes whether ``--json`` was given, and then reports usage errors as JSON too."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,  # type: ignore[override]
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        as_json = "--json" in argv
        token = _json_errors.set(as_json)
        try:
            if not as_json or not standalone_mode:
                return super().main(argv, prog_name, complete_var, standalone_mode, **extra)
            try:
                result = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
            except typer.TyperException as exc:  # a usage error: a missing option, a malformed value
                code = int(getattr(exc, "exit_code", EXIT_ERROR))
                write_error(exc.format_message() if hasattr(exc, "format_message") else str(exc), code)
                sys.exit(code)
            except typer.Abort:
                write_error("aborted", 1)
                sys.exit(1)
            sys.exit(result if isinstance(result, int) else 0)
        finally:
            _json_errors.reset(token)


def _quiet_model_loading() -> None:
    """No progress bar when a command loads the embedding model: transformers draws "Loading weights"
    with tqdm unless Hugging Face's progress bars are off, which the environment variable does for this
    process and the ones it starts (Dagster's steps, ``dagster dev``); a library already imported is
    told directly. ``HF_HUB_DISABLE_PROGRESS_BARS=0`` in the environment keeps the bars."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    if os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] != "1":
        return
    if "huggingface_hub" in sys.modules:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    if "transformers" in sys.modules:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()


# Exit codes, one convention for every command. 2 is what Click gives a usage error (a missing option,
# a malformed number); a value the CLI parses itself (a timestamp, a namespace) is the same kind of
# error. The tools' errors carry theirs (ToolError.exit_code: Denied and UnknownNamespace 2).
EXIT_ERROR = 1
EXIT_REFUSED = 2
EXIT_USAGE = 2
EXIT_CODES_HELP = (
    "Exit codes: 0 done; 1 the command was understood but could not be done (nothing matches, a line was "
    "rejected, a file exists, a run failed, the database is unreachable); 2 the command was refused: a usage "
    "error (a missing option, a malformed value such as a number, a timestamp or a namespace), a namespace "
    "the caller cannot use, or a verb the acting capability does not allow."
)

app = typer.Typer(no_args_is_help=True, cls=_JsonErrorsGroup, epilog=EXIT_CODES_HELP,
                  help="medallion-memory: an agent's memory built as a lakehouse.")


@app.callback()
def _every_command() -> None:
    """medallion-memory: an agent's memory built as a lakehouse."""
    _quiet_model_loading()


db_app = typer.Typer(no_args_is_help=True, help="Embedded PostgreSQL server lifecycle.")
erase_app = typer.Typer(no_args_is_help=True, help="Erasure of Bronze events (one, an actor's, or a namespace's): "
                        "request, then another admin approves.")
cap_app = typer.Typer(no_args_is_help=True, help="Capability tokens: grant, revoke, list.")
app.add_typer(db_app, name="db")
app.add_typer(erase_app, name="erase")
app.add_typer(cap_app, name="capability")

# No emoji codes: ':thumbs_up:' in a stored statement is printed as written.
out = Console(emoji=False)
err = Console(stderr=True, emoji=False)
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]



# Characters that a terminal acts on or that reorder what it shows, rather than print: C0 controls
# (ESC starts an ANSI sequence), DEL, C1 controls (U+009B is a one-character CSI), and the invisible
# bidirectional marks and overrides.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
_CONTROL_BUT_LINES = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")  # keeps tab (09) and line feed (0a)
_JSON_UNSAFE = re.compile(f"[\x7f-\x9f{_BIDI}]")  # JSON escapes C0 itself


def _symbol(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ESC is shown as U+241B
    if code == 0x7F:
        return "\u2421"
    return f"<U+{code:04X}>"


def visible(value: object, *, keep_lines: bool = False) -> str:
    """``value`` as text a terminal prints as is: every control character (and bidirectional override)
    replaced by a visible stand-in, so stored content cannot move the cursor, recolour the terminal or
    disguise itself. ``keep_lines`` keeps line feeds and tabs (a document's text)."""
    return (_CONTROL_BUT_LINES if keep_lines else _CONTROL).sub(_symbol, str(value))


def plain(value: object, *, keep_lines: bool = False) -> Text:
    """``value`` for rich to print verbatim: no markup (``[/etc/app]`` is text), no emoji codes, controls
    visible (:func:`visible`)."""
    return Text(visible(value, keep_lines=keep_lines))


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes | memoryview):
        return bytes(value).decode("utf-8", "backslashreplace")
    if isinstance(value, Path):
        return str(value)
    return str(value)


def json_line(payload: Any) -> str:
    """``payload`` as one line of JSON (timestamps as ISO 8601), the CLI's JSON shape.

    The data is exact; C1 controls, DEL and bidirectional overrides, which JSON allows raw in a
    string, are written as ``\\uXXXX`` escapes (the same string to a parser, inert on a terminal).
    """
    text = json.dumps(payload, default=_json_default, ensure_ascii=False)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def emit_json(payload: Any) -> None:
    """Write JSON to stdout (never through rich, so it stays parseable)."""
    sys.stdout.write(json_line(payload) + "\n")
    sys.stdout.flush()


def fail(message: str, code: int = EXIT_ERROR) -> NoReturn:
    """One clear sentence on stderr (JSON under ``--json``), then exit with ``code``."""
    write_error(message, code)
    raise typer.Exit(code)


def refuse(message: str) -> NoReturn:
    """The acting capability may not do this: one sentence, exit code 2."""
    fail(message, EXIT_REFUSED)


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
AS_OF_HELP = ("ISO 8601 with a UTC offset, e.g. 2026-11-10T09:00:00Z; a date alone, e.g. 2026-11-10, means "
              "midnight UTC at its start")


def iso_option(value: str | None, option: str, *, date_is_utc_midnight: bool = False) -> datetime | None:
    """An ISO 8601 timestamp option with a UTC offset (None when not given); anything else fails.

    With ``date_is_utc_midnight`` a date alone (``2026-11-10``) is midnight UTC at its start, the
    reading of "as of that day" (``--as-of``). An expiry keeps needing a time: a date alone there
    would read as the start of the day when a person likely means its end.
    """
    if not value:
        return None
    if date_is_utc_midnight and _DATE.match(value):
        try:
            return datetime.combine(date.fromisoformat(value), datetime.min.time(), tzinfo=UTC)
        except ValueError:
            fail(f"{option} {value!r} is not a date, e.g. 2026-11-10", EXIT_USAGE)
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        fail(f"{option} {value!r} is not an ISO 8601 timestamp, e.g. 2027-01-01T00:00:00Z", EXIT_USAGE)
    if when.tzinfo is None:
        fail(f"{option} needs a UTC offset, e.g. 2027-01-01T00:00:00Z"
             + (", or a date alone for midnight UTC" if date_is_utc_midnight else ""), EXIT_USAGE)
    return when


_NAMESPACE = re.compile(NAMESPACE_PATTERN)


def namespace_problem(value: str) -> str | None:
    """Why ``value`` is not a namespace of the Bronze contract, as one sentence, or None."""
    if _NAMESPACE.fullmatch(value):
        return None
    return (f"{value!r} is not a valid namespace: a namespace is 1-63 lowercase letters, digits, '-' or '_', "
            "starting with a letter or digit (e.g. team-atlas)")


def checked_namespace(value: str | None) -> str | None:
    """A ``--namespace`` option's value, refused (exit 2, a usage error) when it is not a namespace at all."""
    if value is not None:
        problem = namespace_problem(value)
        if problem:
            fail(problem, EXIT_USAGE)
    return value


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
    except (embedded.UnsafeRuntimeDir, embedded.ServerStopped, LoginFailed, DatabaseNotReady) as exc:
        fail(str(exc))  # already one sentence, the password masked
    except psycopg.OperationalError as exc:
        fail(f"cannot reach the database ({first_line(exc)}); check MEDALLION_DATABASE_URL "
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
LISTED_COLUMNS = STATEMENT_COLUMNS[1:]  # a listing ranks nothing: the columns of search but the score


def show_rows(rows: list[dict[str, Any]], as_json: bool, title: str, columns: tuple[Column, ...],
              empty: str = "nothing found") -> None:
    """Rows as JSON (``--json``) or as one table with ``columns``; a line saying so when there are none."""
    if as_json:
        emit_json(rows)
        return
    if not rows:
        out.print(plain(f"{title}: {empty}."))
        return
    table = Table(*(header for header, _ in columns), title=plain(title))
    for row in rows:
        table.add_row(*(plain(cell(row)) for _, cell in columns))
    out.print(table)


def fact_rows(rows: list[dict[str, Any]], as_json: bool, title: str) -> None:
    """Facts of a slot (current, history, list): when each held, its value, authority and id."""
    show_rows(rows, as_json, title, FACT_COLUMNS, "nothing known")


NamespaceOpt = Annotated[str, typer.Option("--namespace", "-n", help=verbs.NAMESPACE, callback=checked_namespace)]


def option(request: type[verbs.Request], name: str, *flags: str, also: str = "", **more: Any) -> Any:
    """The CLI option of field ``name`` of ``request``: its help and bounds are the request's (serve/verbs.py).

    ``also`` adds what only the command line accepts (a date alone for an as_of).
    """
    spec = verbs.doc(request, name)
    return typer.Option(*(flags or ("--" + name.replace("_", "-"),)), help=f"{spec.help} {also}".strip(),
                        min=spec.ge, max=spec.le, **more)


def argument(request: type[verbs.Request], name: str) -> Any:
    """The CLI argument of field ``name`` of ``request``, with the request's help."""
    return typer.Argument(help=verbs.doc(request, name).help)
overlay_app = typer.Typer(no_args_is_help=True, help="A person's edit, annotation or redaction of a fact span.")
app.add_typer(overlay_app, name="overlay")


@contextlib.contextmanager
def tool_session(origin: str = "cli") -> Iterator[Any]:
    """The tools acting with MEDALLION_TOKEN (or as the local admin); refusals exit 2, errors 1."""
    from medallion.serve.tools import ToolError, open_tools

    settings = load_settings()
    try:
        tools = open_tools(settings.token, settings, origin=origin)
    except ToolError as exc:
        fail(str(exc), exc.exit_code)
    except (embedded.ServerStopped, embedded.UnsafeRuntimeDir, LoginFailed, DatabaseNotReady) as exc:
        fail(str(exc))  # already one sentence, the password masked
    except psycopg.OperationalError as exc:
        fail(f"cannot reach the database ({first_line(exc)}); check MEDALLION_DATABASE_URL "
             "or run `medallion db start`")
    try:
        yield tools
    except ToolError as exc:
        fail(str(exc), exc.exit_code)
    except LockBusy as exc:  # a lock timeout is an OperationalError too: its sentence names the holder
        fail(str(exc))
    except psycopg.OperationalError as exc:
        fail(f"the database went away ({first_line(exc)}); "
             "check it runs (`medallion db status`) and try again")
    finally:
        with contextlib.suppress(psycopg.Error):
            tools.close()


def statement_rows(rows: list[dict[str, Any]], as_json: bool, title: str) -> None:
    """Search results: score, statement, predicate (or chunk kind), authority, current, id."""
    show_rows(rows, as_json, title, STATEMENT_COLUMNS)
