"""The ``medallion`` command line: a thin shell over the engine functions.

Every command takes ``--json`` for machine output, shows progress on long work, exits non-zero on
failure and reports errors as one sentence on stderr. Without ``MEDALLION_TOKEN`` the CLI acts as
the local admin; with it, as that capability only (a denial exits 2).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any, NoReturn

import psycopg
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from dagster_project.bronze import erasure
from dagster_project.bronze.ingest import IngestResult, ingest_jsonl
from dagster_project.db import embedded
from dagster_project.db.connection import connect
from dagster_project.gold import capabilities
from dagster_project.settings import Settings, get_settings
from dagster_project.silver.derive import derive

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


def _default(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes | memoryview):
        return bytes(value).decode("utf-8", "backslashreplace")
    if isinstance(value, Path):
        return str(value)
    return str(value)


def emit_json(payload: Any) -> None:
    """Write JSON to stdout (never through rich, so it stays parseable)."""
    sys.stdout.write(json.dumps(payload, default=_default, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def fail(message: str, code: int = 1) -> NoReturn:
    """One clear sentence on stderr, then exit."""
    err.print("error: " + message, style="red", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _settings() -> Settings:
    try:
        return get_settings()
    except Exception as exc:  # pydantic ValidationError: name the bad variable
        fail(f"invalid settings: {exc}".splitlines()[0])


def _first_line(exc: BaseException) -> str:
    """The first line of an exception's message (database errors carry several)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _connect(settings: Settings, role: str = "engine") -> psycopg.Connection:
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


# ----------------------------------------------------------------------------------------- db
def _admin_url_shown(settings: Settings, url: str | None) -> str | None:
    """The administrative URL, for the local admin only: under a token it is left out."""
    return None if settings.token else url


@db_app.command("start")
def db_start(as_json: JsonOpt = False) -> None:
    """Start the embedded server (no-op with an external MEDALLION_DATABASE_URL)."""
    settings = _settings()
    if not settings.uses_embedded:
        payload = {"mode": "external", "started": False, "url": _admin_url_shown(settings, settings.database_url)}
    else:
        try:
            url = embedded.start(settings)
        except embedded.UnsafeRuntimeDir as exc:
            fail(str(exc))
        payload = {"mode": "embedded", "started": True, "url": _admin_url_shown(settings, url),
                   "pgdata": str(settings.pgdata)}
    if as_json:
        emit_json(payload)
    elif payload["mode"] == "external":
        out.print("An external database is configured (MEDALLION_DATABASE_URL); nothing to start.")
    else:
        out.print("Embedded PostgreSQL is running" + (f": {payload['url']}" if payload["url"] else "."))


@db_app.command("stop")
def db_stop(as_json: JsonOpt = False) -> None:
    """Stop the embedded server."""
    settings = _settings()
    stopped = embedded.stop(settings)
    if as_json:
        emit_json({"mode": "embedded" if settings.uses_embedded else "external", "stopped": stopped})
    elif not settings.uses_embedded:
        out.print("An external database is configured; nothing to stop.")
    else:
        out.print("Embedded PostgreSQL stopped." if stopped else "Embedded PostgreSQL was not running.")


@db_app.command("status")
def db_status(as_json: JsonOpt = False) -> None:
    """Report whether the server runs and where."""
    settings = _settings()
    st = embedded.status(settings)
    payload = {"mode": st.mode, "running": st.running, "url": _admin_url_shown(settings, st.url),
               "pgdata": st.pgdata, "pid": st.pid}
    if as_json:
        emit_json(payload)
    else:
        state = "running" if st.running else "stopped"
        out.print(f"{st.mode} server: {state}" + (f" at {payload['url']}" if payload["url"] else ""))


@db_app.command("url")
def db_url(as_json: JsonOpt = False) -> None:
    """Print the connection URL of the application database (starts the embedded server)."""
    from dagster_project.db.connection import ensure_ready

    settings = _settings()
    if settings.token:
        fail("`db url` prints the administrative login and is for the local admin only: unset MEDALLION_TOKEN", 2)
    url = ensure_ready(settings)
    if as_json:
        emit_json({"url": url})
    else:
        sys.stdout.write(url + "\n")


# ------------------------------------------------------------------------------------- ingest
@app.command("ingest")
def ingest(
    file: Annotated[str, typer.Argument(help="A JSONL file of events, or - for standard input.")],
    as_json: JsonOpt = False,
) -> None:
    """Land events (SPEC B2 contract) in Bronze; prints inserted/duplicate/conflict/rejected counts."""
    settings = _settings()
    if file == "-":
        data, origin = sys.stdin.buffer.read(), "cli:stdin"
    else:
        path = Path(file)
        if not path.is_file():
            fail(f"{file} does not exist or is not a file")
        data, origin = path.read_bytes(), f"file:{path.resolve()}"
    conn = _connect(settings)
    cap = acting_capability(settings, conn)
    if cap is not None and "remember" not in cap.verbs:
        fail("this capability may not write events (it lacks the remember verb)", 2)
    landed = 0
    with Progress(
        TextColumn("ingest"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err, transient=True, disable=as_json,
    ) as bar:
        task = bar.add_task("ingest", total=None)

        def advance(done: int, total: int) -> None:
            nonlocal landed
            landed = done
            bar.update(task, completed=done, total=total)

        try:
            result = ingest_jsonl(
                conn, data, origin=origin, max_content_bytes=settings.max_content_bytes,
                max_authority=cap.max_authority if cap else None,
                allowed_namespaces=cap.namespaces if cap else None,
                writer=cap.principal if cap else None, may_overlay=cap is None or "overlay" in cap.verbs,
                batch_size=5000, progress=advance,
            )
        except psycopg.OperationalError as exc:
            fail(f"the database went away during ingest ({_first_line(exc)}); the first {landed} lines were "
                 "handled, and ingest is idempotent: run the same command again")
    conn.close()
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
        err.print(f"  line {item['line']}: {label}{item['reason']}", markup=False, highlight=False, soft_wrap=True)
    if result.rejected or result.conflict:
        err.print("Rejected and conflicting lines are kept in bronze.quarantine with their raw bytes.")


# ------------------------------------------------------------------------------------- erase
def _erasure_door(settings: Settings) -> tuple[psycopg.Connection, dict[str, Any]]:
    """The connection and identity an erasure step runs with; the database verifies either one.

    With MEDALLION_TOKEN the token itself goes to the database function; without it the step runs
    on the administrative login as ``local:<os user>``.
    """
    if settings.token:
        return _connect(settings), {"token": settings.token}
    return _connect(settings, "admin"), {"token": None, "local_name": capabilities.local_principal()}


@erase_app.command("request")
def erase_request(
    event_id: Annotated[int | None, typer.Argument(help="The Bronze event id.")] = None,
    reason: Annotated[str, typer.Option("--reason", help="Why the event must go.")] = "",
    namespace: Annotated[str | None, typer.Option("--namespace", "-n")] = None,
    source: Annotated[str | None, typer.Option("--source")] = None,
    source_event_id: Annotated[str | None, typer.Option("--source-event-id")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Request the erasure of one event (by id, or by namespace/source/source-event-id); needs admin there."""
    settings = _settings()
    if not reason.strip():
        fail("give a --reason for the erasure")
    conn, who = _erasure_door(settings)
    cap = acting_capability(settings, conn)
    if event_id is None:
        if not (namespace and source and source_event_id):
            fail("name the event by id or by --namespace, --source and --source-event-id")
        if cap is not None and not cap.allows("admin", namespace):
            fail("no such event this capability may erase (erasure needs admin in the event's namespace)", 2)
        event_id = erasure.find_event(conn, namespace, source, source_event_id)
        if event_id is None:
            fail("no such event")
    try:
        request_id = erasure.request_erasure(conn, event_id, reason, **who)
    except erasure.ErasureError as exc:
        fail(str(exc), 2 if exc.denied else 1)
    requester = principal_of(cap)
    if as_json:
        emit_json({"request_id": request_id, "event_id": event_id, "requested_by": requester, "status": "pending"})
    else:
        out.print(f"Erasure request {request_id} for event {event_id} filed by {requester}; "
                  "another admin must approve it with their own token: `MEDALLION_TOKEN=... medallion erase "
                  f"approve {request_id}`.")


@erase_app.command("approve")
def erase_approve(
    request_id: Annotated[int, typer.Argument(help="The erasure request id.")],
    as_json: JsonOpt = False,
) -> None:
    """Approve (and execute) an erasure request; the approver is another admin, identified by their token."""
    settings = _settings()
    conn, who = _erasure_door(settings)
    approver = principal_of(acting_capability(settings, conn))
    try:
        event_id = erasure.approve_erasure(conn, request_id, **who)
    except erasure.ErasureError as exc:
        fail(str(exc), 2 if exc.denied else 1)
    namespace = conn.execute("SELECT namespace FROM bronze.tombstones WHERE event_id = %s", (event_id,)).fetchone()[0]
    engine = _connect(settings)
    with err.status(f"re-deriving namespace {namespace} without the erased event…"):
        report = derive(engine, settings, namespaces=[namespace])
    if as_json:
        emit_json({"request_id": request_id, "event_id": event_id, "approved_by": approver, "status": "executed",
                   "rederived": {"namespace": namespace, "events": report.events, "facts": report.facts}})
    else:
        out.print(f"Event {event_id} erased (tombstone kept); approved by {approver}; namespace {namespace} "
                  f"re-derived ({report.events} events, {report.facts} facts).")


@erase_app.command("list")
def erase_list(
    status: Annotated[str | None, typer.Option("--status", help="pending or executed")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List erasure requests (with a token: those of the namespaces where it holds admin)."""
    settings = _settings()
    conn = _connect(settings)
    cap = acting_capability(settings, conn)
    require_admin(cap)
    rows = erasure.list_requests(conn, status, namespaces=list(cap.namespaces) if cap else None)
    if as_json:
        emit_json(rows)
        return
    table = Table("id", "event", "namespace", "status", "requested by", "approved by", "reason")
    for r in rows:
        table.add_row(str(r["request_id"]), str(r["event_id"]), r["namespace"], r["status"], r["requested_by"],
                      r["approved_by"] or "", r["reason"])
    out.print(table)


# -------------------------------------------------------------------------------- capability
@cap_app.command("grant")
def capability_grant(
    namespace: Annotated[list[str], typer.Option("--namespace", "-n", help="Namespace granted (repeat; '*' = all).")],
    verbs: Annotated[str, typer.Option("--verbs", help="Comma-separated: search,read,list,remember,overlay,admin")],
    principal: Annotated[str | None, typer.Option("--principal", help="Who holds it (default: a new id).")] = None,
    max_authority: Annotated[int, typer.Option("--max-authority", min=1, max=5)] = 5,
    expires: Annotated[str | None, typer.Option("--expires", help="ISO 8601 expiry.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Grant a capability; the token is printed once and stored only hashed."""
    settings = _settings()
    conn = _connect(settings, "admin")  # capabilities are minted by the administrative login only
    cap = acting_capability(settings, conn)
    require_admin(cap)
    expires_at = None
    if expires:
        try:
            expires_at = datetime.fromisoformat(expires)
        except ValueError:
            fail(f"--expires {expires!r} is not an ISO 8601 timestamp")
        if expires_at.tzinfo is None:
            fail("--expires needs a UTC offset, e.g. 2027-01-01T00:00:00Z")
    holder = principal or f"agent:{os.urandom(4).hex()}"
    try:
        capability_id, token = capabilities.grant(
            conn, principal=holder, verbs=[v.strip() for v in verbs.split(",") if v.strip()],
            namespaces=namespace, max_authority=max_authority, expires_at=expires_at,
            created_by=cap.capability_id if cap else principal_of(cap), by=cap,
        )
    except capabilities.GrantRefused as exc:
        fail(str(exc), 2)
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        emit_json({"capability_id": capability_id, "token": token, "principal": holder})
    else:
        out.print(f"Capability {capability_id} for {holder}. Token (shown once): {token}")


@cap_app.command("revoke")
def capability_revoke(capability_id: str, as_json: JsonOpt = False) -> None:
    """Revoke a capability."""
    settings = _settings()
    conn = _connect(settings, "admin")  # capabilities are minted by the administrative login only
    cap = acting_capability(settings, conn)
    require_admin(cap)
    if not capabilities.revoke(conn, capability_id, by=cap):
        fail(f"no active capability {capability_id} within this caller's namespaces", 2 if cap else 1)
    if as_json:
        emit_json({"capability_id": capability_id, "revoked": True})
    else:
        out.print(f"Capability {capability_id} revoked.")


@cap_app.command("list")
def capability_list(as_json: JsonOpt = False) -> None:
    """List capabilities (never their tokens)."""
    settings = _settings()
    conn = _connect(settings)
    cap = acting_capability(settings, conn)
    require_admin(cap)
    rows = capabilities.list_capabilities(conn, by=cap)
    if as_json:
        emit_json(rows)
        return
    table = Table("id", "principal", "verbs", "namespaces", "max authority", "expires", "revoked")
    for r in rows:
        table.add_row(r["capability_id"], r["principal"], ",".join(r["verbs"]), ",".join(r["namespaces"]),
                      str(r["max_authority"]), str(r["expires_at"] or ""), str(r["revoked_at"] or ""))
    out.print(table)


# ------------------------------------------------------------------------------- materialize
@app.command("materialize")
def materialize(
    full_rebuild: Annotated[bool, typer.Option("--full-rebuild", help="Re-derive everything from Bronze.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Run the Dagster job in-process: land the inbox, derive Silver, build dbt and the data dictionary."""
    import dagster as dg

    from dagster_project.definitions import defs

    settings = _settings()
    dagster_home = (settings.home / "dagster").resolve()
    dagster_home.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("DAGSTER_HOME", str(dagster_home))
    job = "materialize_all" if full_rebuild else "incremental"
    captured = io.StringIO()  # dbt's log lines; shown only when the run fails
    with err.status(f"running {job}…"), contextlib.redirect_stdout(captured):
        result = defs.resolve_job_def(job).execute_in_process(
            instance=dg.DagsterInstance.get(), raise_on_error=False,
            run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
        )
    summary = run_summary(result, job)
    if not result.success:
        tail = "\n".join(captured.getvalue().splitlines()[-30:])
        if tail:
            err.print(tail, markup=False, highlight=False)
        failure = next((e for e in result.all_events if e.is_failure), None)
        fail(f"{job} failed: {failure.message if failure else 'see the Dagster run log'}")
    if as_json:
        emit_json(summary)
        return
    bronze, facts, dbt = summary["bronze"], summary["silver"], summary["dbt"]
    out.print(f"{job}: run {result.run_id}")
    out.print(f"  bronze: inserted {bronze.get('inserted', 0)}, rejected {bronze.get('rejected', 0)}")
    out.print(f"  silver: {facts.get('events_processed', 0)} events → added {facts.get('added', 0)}, "
              f"updated {facts.get('updated', 0)}, superseded {facts.get('superseded', 0)}, skipped "
              f"{facts.get('skipped', 0)}, contested {facts.get('contested', 0)}; failures {facts.get('failures', 0)}")
    out.print(f"  dbt: {dbt['models']} models and seeds built; checks {dbt['checks_passed']} passed, "
              f"{dbt['checks_failed']} failed")
    out.print(f"  data dictionary: {summary['dictionary'].get('dagster/row_count', 0)} columns documented")


def run_summary(result: Any, job: str) -> dict[str, Any]:
    """What a materialize run did, per layer, from its materialization metadata and check results."""
    metadata: dict[str, dict[str, Any]] = {}
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        metadata["/".join(mat.asset_key.path)] = {k: _plain(v.value) for k, v in mat.metadata.items()}
    checks = result.get_asset_check_evaluations()
    failed = sorted(f"{'/'.join(c.asset_key.path)}:{c.check_name}" for c in checks if not c.passed)
    from dagster_project.silver.assets import SILVER_TABLES

    python_keys = {"bronze/events", "gold/column_meta", *(f"silver/{name}" for name in SILVER_TABLES)}
    dbt_keys = [k for k in metadata if k not in python_keys]
    return {
        "job": job,
        "run_id": result.run_id,
        "bronze": metadata.get("bronze/events", {}),
        "silver": metadata.get("silver/facts", {}),
        "dbt": {"models": len(dbt_keys), "checks_passed": len(checks) - len(failed),
                "checks_failed": len(failed), "failed_checks": failed},
        "gold": {k: v for k, v in metadata.items() if k.startswith("gold/") and k != "gold/column_meta"},
        "dictionary": metadata.get("gold/column_meta", {}),
    }


def _plain(value: Any) -> Any:
    """Metadata values as JSON-friendly Python (Markdown and JSON wrappers unwrapped)."""
    for attr in ("md_str", "data", "text", "value"):
        if hasattr(value, attr) and not isinstance(value, (str, int, float, bool, list, dict)):
            return getattr(value, attr)
    return value


# ------------------------------------------------------------------------------ current / history
def _fact_rows(rows: list[dict[str, Any]], as_json: bool, title: str) -> None:
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
def _tools(origin: str = "cli") -> Iterator[Any]:
    """The Gold tools acting with MEDALLION_TOKEN (or as the local admin); refusals exit 2, errors 1."""
    from dagster_project.gold.tools import ToolError, open_tools

    settings = _settings()
    try:
        tools = open_tools(settings.token, settings, origin=origin)
    except ToolError as exc:
        fail(str(exc), exc.exit_code)
    except psycopg.OperationalError as exc:
        fail(f"cannot reach the database ({_first_line(exc)}); check MEDALLION_DATABASE_URL "
             "or run `medallion db start`")
    try:
        yield tools
    except ToolError as exc:
        fail(str(exc), exc.exit_code)
    except psycopg.OperationalError as exc:
        fail(f"the database went away ({_first_line(exc)}); "
             "check it runs (`medallion db status`) and try again")
    finally:
        with contextlib.suppress(psycopg.Error):
            tools.close()


@app.command("current")
def current_cmd(subject: str, predicate: str, namespace: NamespaceOpt, as_json: JsonOpt = False) -> None:
    """Every open version of a slot (several for many-valued predicates or a contested pair)."""
    with _tools() as tools:
        _fact_rows(tools.current(subject, predicate, namespace=namespace), as_json, f"{subject} {predicate}")


@app.command("history")
def history_cmd(subject: str, predicate: str, namespace: NamespaceOpt, as_json: JsonOpt = False) -> None:
    """All versions of a slot, ordered by valid_from."""
    with _tools() as tools:
        _fact_rows(tools.history(subject, predicate, namespace=namespace), as_json, f"history of {subject} {predicate}")


@app.command("list")
def list_cmd(
    namespace: NamespaceOpt,
    subject: Annotated[str | None, typer.Option("--subject", help="Only this subject (name or alias).")] = None,
    predicate: Annotated[str | None, typer.Option("--predicate", help="Only this predicate.")] = None,
    include_superseded: Annotated[bool, typer.Option("--include-superseded", help="Closed versions too.")] = False,
    limit: Annotated[int, typer.Option("--limit", min=1)] = 100,
    as_json: JsonOpt = False,
) -> None:
    """Facts of a namespace (current ones unless --include-superseded)."""
    with _tools() as tools:
        rows = tools.list(namespace=namespace, subject=subject, predicate=predicate,
                          include_superseded=include_superseded, limit=limit)
    _statement_rows(rows, as_json, f"facts in {namespace}")


@app.command("read")
def read_cmd(
    fact_id: Annotated[str | None, typer.Argument(help="A fact id (or use --path for a document).")] = None,
    path: Annotated[str | None, typer.Option("--path", help="A document path (needs -n).")] = None,
    namespace: Annotated[str | None, typer.Option("--namespace", "-n")] = None,
    as_json: JsonOpt = False,
) -> None:
    """One fact with its provenance and overlays, or a document's current version."""
    with _tools() as tools:
        rows = tools.read(fact_id, path=path, namespace=namespace)
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        if "content" in row:
            out.print(f"[bold]{row['path']}[/bold] @ {row['version_hash'][:12]}\n{row['content']}", markup=False)
            continue
        out.print(f"{row['statement']}  [{row['predicate']}, authority {row['authority']}, "
                  f"valid {(row['valid_from'] or '')[:10]} → {(row['valid_to'] or 'now')[:10]}]", markup=False)
        out.print(f"  provenance: {row['provenance']}", markup=False)
        for overlay in row.get("overlays", []):
            out.print(f"  overlay {overlay['overlay_id']}: {overlay['action']} by {overlay['author']}", markup=False)


@app.command("search")
def search_cmd(
    query: str,
    namespace: NamespaceOpt,
    k: Annotated[int, typer.Option("-k", min=1, max=200, help="How many results.")] = 10,
    as_of: Annotated[str | None, typer.Option("--as-of", help="ISO 8601: what was believed then about then.")] = None,
    subject: Annotated[str | None, typer.Option("--subject")] = None,
    predicate: Annotated[str | None, typer.Option("--predicate")] = None,
    min_authority: Annotated[int | None, typer.Option("--min-authority", min=1, max=5)] = None,
    include_superseded: Annotated[bool, typer.Option("--include-superseded")] = False,
    every_item: Annotated[bool, typer.Option(
        "--every-item", help="Every matching fact and chunk (default: one result per source event).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Hybrid search (vector + full text, fused) over facts and chunks, verified against the ledger.

    Each result is a different source event; its other facts and its chunk are under same_event."""
    when = None
    if as_of:
        try:
            when = datetime.fromisoformat(as_of)
        except ValueError:
            fail(f"--as-of {as_of!r} is not an ISO 8601 timestamp")
    with _tools() as tools:
        rows = tools.search(query, namespace=namespace, k=k, as_of=when, subject=subject, predicate=predicate,
                            min_authority=min_authority, include_superseded=include_superseded,
                            per_event=not every_item)
    _statement_rows(rows, as_json, f"search: {query}")


@app.command("relate")
def relate_cmd(a: str, b: str, namespace: NamespaceOpt,
               max_depth: Annotated[int, typer.Option("--max-depth", min=1, max=6)] = 3,
               as_json: JsonOpt = False) -> None:
    """How two entities are related (paths over current relations, each hop with its fact)."""
    with _tools() as tools:
        paths = tools.relate(a, b, namespace=namespace, max_depth=max_depth)
    if as_json:
        emit_json(paths)
        return
    if not paths:
        out.print(f"no relation between {a} and {b} within {max_depth} hops")
    for path in paths:
        out.print(" → ".join(path["path"]) + "   (" + "; ".join(f["statement"] or "" for f in path["facts"]) + ")")


@app.command("follow")
def follow_cmd(
    entity: Annotated[str, typer.Argument(help="The entity to start from (name or alias).")],
    predicates: Annotated[list[str], typer.Argument(help="The predicates to follow, in order (e.g. works_at).")],
    namespace: NamespaceOpt,
    as_of: Annotated[str | None, typer.Option("--as-of", help="ISO 8601: follow what was believed then.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Follow a chain of predicates from an entity over current facts: each hop's facts, then the values."""
    with _tools() as tools:
        walked = tools.follow(entity, predicates, namespace=namespace, as_of=as_of)
    if as_json:
        emit_json(walked)
        return
    for i, hop in enumerate(walked["hops"], start=1):
        out.print(f"{i}. {hop['key']}{' (inverse)' if hop['inverse'] else ''}", markup=False)
        for fact in hop["facts"]:
            out.print(f"   {fact['statement']}  [{fact['fact_id'][:12]}]", markup=False)
        if not hop["facts"]:
            out.print("   nothing believed here", markup=False)
    out.print("values: " + (", ".join(str(v) for v in walked["values"]) or "none"), markup=False)


@app.command("recall")
def recall_cmd(query: str, namespace: NamespaceOpt,
               stakes: Annotated[str, typer.Option("--stakes", help="low or high")] = "low",
               as_json: JsonOpt = False) -> None:
    """The retrieval cascade (SPEC G5): says which hop answered."""
    with _tools() as tools:
        answer = tools.recall(query, namespace=namespace, stakes=stakes)
    if as_json:
        emit_json(answer)
        return
    out.print(f"hop: {answer['hop']} ({answer['reason']})")
    for item in answer["answers"]:
        out.print(f"  {item.get('statement') or ' → '.join(item.get('path', []))}", markup=False)


@app.command("remember")
def remember_cmd(
    namespace: NamespaceOpt,
    content: Annotated[str, typer.Option("--content", help="What to remember.")],
    kind: Annotated[str, typer.Option("--kind", help="note, transcript, fact, ... (the B2 kinds)")] = "note",
    source_event_id: Annotated[str | None, typer.Option("--source-event-id", help="Default: a content hash.")] = None,
    source: Annotated[str, typer.Option("--source")] = "cli",
    actor: Annotated[str | None, typer.Option("--actor", help="Who said it, e.g. user:alice.")] = None,
    no_derive: Annotated[bool, typer.Option("--no-derive", help="Land in Bronze only; derive later.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Write one event to Bronze through the contract (and derive it)."""
    with _tools() as tools:
        result = tools.remember(namespace=namespace, content=content, kind=kind, source=source,
                                source_event_id=source_event_id, actor=actor, derive_now=not no_derive)
    if as_json:
        emit_json(result)
    else:
        out.print(f"{result['status']}: event {result['event_id']} ({result['source']}/{result['source_event_id']})")


def _overlay(action: str, fact_id: str, quote: str, text: str | None, note: str | None, as_json: bool) -> None:
    with _tools() as tools:
        result = tools.overlay(fact_id, action, quote=quote, text=text, note=note)
    if as_json:
        emit_json(result)
    elif result["status"] == "pending_approval":
        out.print(f"approval {result['approval_id']} requested: {result['reason']}")
    else:
        out.print(f"{action} {result['status']} (event {result['event_id']}); anchored to "
                  f"{result.get('anchored_fact_id')} ({result.get('anchor_status')})")


QuoteOpt = Annotated[str, typer.Option("--quote", help="The exact text of the span in the fact's statement.")]


@overlay_app.command("edit")
def overlay_edit(fact_id: str, quote: QuoteOpt, text: Annotated[str, typer.Option("--text", help="Replacement.")],
                 note: Annotated[str | None, typer.Option("--note")] = None, as_json: JsonOpt = False) -> None:
    """Replace a span of a fact's statement; the person's version wins on read."""
    _overlay("edit", fact_id, quote, text, note, as_json)


@overlay_app.command("annotate")
def overlay_annotate(fact_id: str, quote: QuoteOpt, note: Annotated[str, typer.Option("--note")],
                     as_json: JsonOpt = False) -> None:
    """Attach a note to a span of a fact."""
    _overlay("annotate", fact_id, quote, None, note, as_json)


@overlay_app.command("redact")
def overlay_redact(fact_id: str, quote: QuoteOpt, note: Annotated[str | None, typer.Option("--note")] = None,
                   as_json: JsonOpt = False) -> None:
    """Mask a span wherever the fact is served; a search for its words no longer returns it."""
    _overlay("redact", fact_id, quote, None, note, as_json)


@overlay_app.command("retract")
def overlay_retract(overlay_id: int, reason: Annotated[str, typer.Option("--reason", help="Why.")],
                    as_json: JsonOpt = False) -> None:
    """Ask to delete a person's overlay; another admin approves with `medallion overlay approve`."""
    with _tools() as tools:
        result = tools.retract(overlay_id, reason=reason)
    if as_json:
        emit_json(result)
    else:
        out.print(f"approval {result['approval_id']} requested: {result['reason']}")


@overlay_app.command("approve")
def overlay_approve(approval_id: int, as_json: JsonOpt = False) -> None:
    """Approve a pending overwrite of a person's overlay (another admin than the requester)."""
    with _tools() as tools:
        result = tools.approve(approval_id)
    if as_json:
        emit_json(result)
    else:
        out.print(f"approval {approval_id}: {result['status']}; overlay event {result.get('event_id')}")


def _statement_rows(rows: list[dict[str, Any]], as_json: bool, title: str) -> None:
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


@app.command("audit")
def audit_cmd(as_json: JsonOpt = False) -> None:
    """Run the drift audit now (SPEC A1); exit 1 when any finding is an error."""
    from dagster_project.audit import drift

    settings = _settings()
    conn = _connect(settings)
    require_admin(acting_capability(settings, conn))
    with err.status("auditing Bronze, Silver, projections and stale facts…"):
        report = drift.run_audit(conn, settings, hindsight_sample=drift.configured_sampler(settings))
        drift.store(conn, report)
    if as_json:
        emit_json(report.as_json())
    elif not report.findings:
        out.print(f"drift audit {report.run_id}: clean ({report.seconds:.1f}s)")
    else:
        table = Table("check", "severity", "namespace", "detail", title=f"drift audit {report.run_id}")
        for f in report.findings:
            table.add_row(f.check, f.severity, f.namespace or "", f.detail)
        out.print(table)
    raise typer.Exit(0 if report.ok else 1)


@app.command("wiki")
def wiki_cmd(as_json: JsonOpt = False) -> None:
    """Compile the wiki from the ledger now (SPEC G10)."""
    from dagster_project.gold.tools import open_tools
    from dagster_project.gold.wiki import compile_wiki

    settings = _settings()
    conn = _connect(settings)
    require_admin(acting_capability(settings, conn))
    with open_tools(None, settings, origin="cli") as tools:
        result = compile_wiki(settings, conn, tools)
    summary = {"pages": len(result.pages), "removed": len(result.removed), "root": str(settings.wiki_root),
               "ledger_hash": result.ledger_hash}
    if as_json:
        emit_json(summary)
    else:
        out.print(f"{summary['pages']} pages in {summary['root']} ({summary['removed']} removed)")


@app.command("mcp")
def mcp_cmd(http: Annotated[int | None, typer.Option("--http", help="Serve streamable HTTP on 127.0.0.1:PORT.")]
            = None) -> None:
    """The MCP server over the Gold tools (stdio by default); the token comes from MEDALLION_TOKEN or the request."""
    from dagster_project.gold import mcp_server

    mcp_server.main(http_port=http)


# ----------------------------------------------------------------------------------------- ui
@app.command("docs")
def docs(
    port: Annotated[int, typer.Option("--port", help="Port of the docs site on 127.0.0.1.")] = 8580,
    generate_only: Annotated[bool, typer.Option("--generate-only", help="Generate, do not serve.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Generate the dbt docs (the data dictionary site) and serve them on 127.0.0.1."""
    from dagster_project.gold.dbt import DBT_PROJECT_DIR, dbt_environment, dbt_executable

    settings = _settings()
    base = [dbt_executable(), "--quiet"]
    where = ["--project-dir", str(DBT_PROJECT_DIR), "--profiles-dir", str(DBT_PROJECT_DIR)]
    with dbt_environment(settings):
        code = subprocess.call([*base, "docs", "generate", *where], cwd=DBT_PROJECT_DIR)
        if code != 0:
            fail("dbt docs generate failed: run `medallion materialize` first so the relations exist", code)
        target = DBT_PROJECT_DIR / "target"
        if generate_only or as_json:
            if as_json:
                emit_json({"generated": True, "catalog": str(target / "catalog.json"),
                           "url": f"http://127.0.0.1:{port}"})
            else:
                out.print(f"dbt docs generated in {target}")
            return
        out.print(f"dbt docs on http://127.0.0.1:{port} (Ctrl-C to stop)")
        sys.stdout.flush()
        # become the docs server, so stopping this process stops the server (no orphaned child)
        os.chdir(DBT_PROJECT_DIR)
        os.execvp(dbt_executable(), [dbt_executable(), "docs", "serve", "--host", "127.0.0.1", "--port", str(port),
                                    "--no-browser", *where])


@app.command("dbt", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def dbt_passthrough(ctx: typer.Context) -> None:
    """Run any dbt command against this project's database, e.g. `medallion dbt -- show -s review_queue`."""
    from dagster_project.gold.dbt import DBT_PROJECT_DIR, dbt_environment, dbt_executable

    with dbt_environment(_settings()):
        where = ["--project-dir", str(DBT_PROJECT_DIR), "--profiles-dir", str(DBT_PROJECT_DIR)]
        raise typer.Exit(subprocess.call([dbt_executable(), *ctx.args, *where], cwd=DBT_PROJECT_DIR))


@app.command("ui")
def ui(port: Annotated[int, typer.Option("--port")] = 3000) -> None:
    """Open the Dagster UI on 127.0.0.1 (dagster dev on this project)."""
    settings = _settings()
    dagster_home = settings.home / "dagster"
    dagster_home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "DAGSTER_HOME": str(dagster_home.resolve())}
    out.print(f"Dagster UI on http://127.0.0.1:{port} (Ctrl-C to stop)")
    cmd = [sys.executable, "-m", "dagster", "dev", "-m", "dagster_project.definitions", "-h", "127.0.0.1",
           "-p", str(port)]
    raise typer.Exit(subprocess.call(cmd, env=env))


def main() -> None:  # pragma: no cover - console entry
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
