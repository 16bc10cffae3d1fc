"""The ``medallion erase`` commands: an erasure is requested, then another admin approves it.

A request names one event (by id or by its key), every event of one actor in a namespace
(``--actor``), or every event of a namespace (``--all-events``); either way it is one request and
one approval, which leaves a tombstone per event, removes every copy of what it erased and re-derives the
namespace from what remains. A pending request can be cancelled; one whose events an earlier erasure
took is closed as superseded."""

from __future__ import annotations

from typing import Annotated, Any

import psycopg
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from medallion.bronze import erasure
from medallion.interfaces.cli.shared import (
    JsonOpt,
    acting_capability,
    argument,
    checked_namespace,
    connect_or_fail,
    emit_json,
    erase_app,
    err,
    fail,
    load_settings,
    option,
    out,
    principal_of,
    refuse,
    require_admin,
    tool_session,
)
from medallion.publish import forget
from medallion.serve import capabilities, verbs
from medallion.settings import Settings


def _erasure_door(settings: Settings) -> tuple[psycopg.Connection, dict[str, Any]]:
    """The connection and identity an erasure step runs with; the database verifies either one.

    With MEDALLION_TOKEN the token itself goes to the database function; without it the step runs
    on the administrative login as ``local:<os user>``.
    """
    if settings.token:
        return connect_or_fail(settings), {"token": settings.token}
    return connect_or_fail(settings, "admin"), {"token": None, "local_name": capabilities.local_principal()}


@erase_app.command("request")
def erase_request(
    event_id: Annotated[int | None, argument(verbs.RequestErasure, "event_id")] = None,
    reason: Annotated[str, option(verbs.RequestErasure, "reason")] = "",
    namespace: Annotated[str | None, typer.Option("--namespace", "-n", callback=checked_namespace)] = None,
    source: Annotated[str | None, typer.Option("--source")] = None,
    source_event_id: Annotated[str | None, typer.Option("--source-event-id")] = None,
    actor: Annotated[str | None, typer.Option(
        "--actor", help="Every event of this actor in the namespace (-n), e.g. user:alice.")] = None,
    all_events: Annotated[bool, typer.Option(
        "--all-events", help="Every event of the namespace (-n).")] = False,
    fact: Annotated[str | None, option(verbs.RequestErasure, "fact_id", "--fact")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Request an erasure: one event (by id, by a fact it stated with --fact, or -n/--source/--source-event-id),
    every event of an actor (-n NS --actor A) or of a namespace (-n NS --all-events); needs admin in the
    namespace."""
    settings = load_settings()
    if not reason.strip():
        fail("give a --reason for the erasure")
    if fact is not None:
        if event_id is not None or source or source_event_id or actor is not None or all_events:
            fail("--fact names the event to erase by a fact it stated: give no other event or scope with it")
        with tool_session() as tools:
            result = tools.request_erasure(fact_id=fact, reason=reason)
        if as_json:
            emit_json(result)
            return
        out.print(f"erasure request {result['request_id']} filed for event {result['event_id']} "
                  f"({result['namespace']}), which stated {len(result['facts'])} fact(s); {result['next']}",
                  markup=False)
        return
    scoped = actor is not None or all_events
    if scoped and (event_id is not None or source or source_event_id):
        fail("name one event (an id, or --source and --source-event-id) or a scope (--actor or --all-events), "
             "not both")
    if actor is not None and all_events:
        fail("--actor erases one actor's events and --all-events the whole namespace's: give one of them")
    if scoped and not namespace:
        fail("an erasure of " + ("an actor's events" if actor is not None else "every event") +
             " needs the namespace: add -n NAMESPACE")
    conn, who = _erasure_door(settings)
    cap = acting_capability(settings, conn)
    if scoped:
        assert namespace is not None
        try:
            request_id = erasure.request_scope(conn, namespace, reason, actor=actor, **who)
        except erasure.ErasureError as exc:
            fail(str(exc), 2 if exc.denied else 1)
        _report_request(request_id, principal_of(cap), as_json, namespace=namespace, actor=actor,
                        events=_requested_events(conn, request_id))
        return
    if event_id is None:
        if not (namespace and source and source_event_id):
            fail("name the event by id or by --namespace, --source and --source-event-id, or a scope with "
                 "-n and --actor or --all-events")
        if cap is not None and not cap.allows("admin", namespace):
            refuse("no such event this capability may erase (erasure needs admin in the event's namespace)")
        event_id = erasure.find_event(conn, namespace, source, source_event_id)
        if event_id is None:
            fail(f"no event {source}/{source_event_id} in namespace {namespace} (it may have been erased); "
                 "`medallion export -n NAMESPACE` lists what is there")
    try:
        request_id = erasure.request_erasure(conn, event_id, reason, **who)
    except erasure.ErasureError as exc:
        fail(str(exc), 2 if exc.denied else 1)
    _report_request(request_id, principal_of(cap), as_json, event_id=event_id)


def _requested_events(conn: psycopg.Connection, request_id: int) -> int:
    row = conn.execute("SELECT events_requested FROM bronze.erasure_scopes WHERE request_id = %s",
                       (request_id,)).fetchone()
    return int(row[0]) if row else 1


def _report_request(request_id: int, requester: str, as_json: bool, *, event_id: int | None = None,
                    namespace: str | None = None, actor: str | None = None, events: int = 1) -> None:
    scope = "event" if event_id is not None else ("actor" if actor is not None else "namespace")
    if as_json:
        emit_json({"request_id": request_id, "scope": scope, "event_id": event_id, "namespace": namespace,
                   "actor": actor, "events": events, "requested_by": requester, "status": "pending"})
        return
    what = (f"event {event_id}" if event_id is not None else
            f"the {events} event(s) of {actor} in {namespace}" if actor is not None else
            f"all {events} event(s) of namespace {namespace}")
    out.print(f"Erasure request {request_id} for {what} filed by {requester}; another admin must approve it with "
              f"their own token: `MEDALLION_TOKEN=... medallion erase approve {request_id}`.",
              markup=False, highlight=False)


@erase_app.command("approve")
def erase_approve(
    request_id: Annotated[int, typer.Argument(help="The erasure request id.")],
    as_json: JsonOpt = False,
) -> None:
    """Approve (and execute) an erasure request; the approver is another admin, identified by their token.

    Each erased event leaves a tombstone; in the same call every copy goes (quarantined lines, tool-call
    rows, mart rows, memoised model outputs), the namespace is re-derived from the events that remain and
    its wiki pages are compiled again."""
    settings = load_settings()
    conn, who = _erasure_door(settings)
    approver = principal_of(acting_capability(settings, conn))
    engine = connect_or_fail(settings)
    try:
        with Progress(TextColumn(f"erasing what request {request_id} covers, then re-deriving"), BarColumn(),
                      MofNCompleteColumn(), TimeElapsedColumn(), console=err, transient=True,
                      disable=as_json or not err.is_terminal) as bar:
            task = bar.add_task("derive", total=None)
            forgotten = forget.approve_and_forget(
                conn, engine, settings, request_id, **who,
                progress=lambda n, total, _committed: bar.update(task, completed=n, total=total))
    except erasure.ErasureError as exc:
        fail(str(exc), 2 if exc.denied else 1)
    done, report = forgotten.approved, forgotten.rederived
    if as_json:
        emit_json({**forgotten.as_dict(), "approved_by": approver, "status": "executed"})
        return
    what = (f"Event {done.event_id} erased (tombstone kept)" if done.event_id is not None else
            f"{done.erased} event(s) of {done.actor} erased (a tombstone for each)" if done.actor is not None else
            f"{done.erased} event(s) of namespace {done.namespace} erased (a tombstone for each)")
    copies = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in forgotten.removed.items()
                       if kind in _COPIES and n) or "none"
    closed = f"; {forgotten.superseded} other request(s) closed as superseded" if forgotten.superseded else ""
    out.print(f"{what}; approved by {approver}; copies removed: {copies}; namespace {done.namespace} re-derived "
              f"({report.events} events, {report.facts} facts){closed}.", markup=False, highlight=False)


# the copies an approval removes, as forget reports them
_COPIES = ("quarantine", "retrievals", "mart_rows", "drift_findings", "derivation_cache")


@erase_app.command("cancel")
def erase_cancel(
    request_id: Annotated[int, typer.Argument(help="The pending erasure request id.")],
    as_json: JsonOpt = False,
) -> None:
    """Cancel a pending erasure request (nothing is erased); needs admin in its namespace, the requester's
    or another admin's."""
    settings = load_settings()
    conn, who = _erasure_door(settings)
    try:
        by = erasure.cancel(conn, request_id, **who)
    except erasure.ErasureError as exc:
        fail(str(exc), 2 if exc.denied else 1)
    if as_json:
        emit_json({"request_id": request_id, "status": "cancelled", "cancelled_by": by})
        return
    out.print(f"Erasure request {request_id} cancelled by {by}; nothing was erased.", markup=False, highlight=False)


@erase_app.command("list")
def erase_list(
    status: Annotated[str | None, typer.Option(
        "--status", help="pending, executed, cancelled or superseded")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List erasure requests (with a token: those of the namespaces where it holds admin)."""
    settings = load_settings()
    conn = connect_or_fail(settings)
    cap = acting_capability(settings, conn)
    require_admin(cap)
    if status is not None and status not in _STATUSES:
        fail(f"--status is one of {', '.join(_STATUSES)}, not {status!r}")
    erasure.close_superseded(conn)  # a request whose events are all gone no longer waits
    rows = erasure.list_requests(conn, status, namespaces=list(cap.namespaces) if cap else None)
    if as_json:
        emit_json(rows)
        return
    if not rows:
        out.print("erasure requests: none" + (f" with status {status}." if status else "."))
        return
    table = Table("id", "erases", "events", "namespace", "status", "requested by", "approved / closed by", "reason")
    for r in rows:
        erases = {"event": f"event {r['event_id']}", "actor": f"actor {r['actor']}"}.get(r["scope"], "every event")
        table.add_row(str(r["request_id"]), erases, str(r["events"]), r["namespace"], r["status"], r["requested_by"],
                      r["approved_by"] or r["closed_by"] or "", r["reason"])
    out.print(table)


_STATUSES = ("pending", "executed", "cancelled", "superseded")
