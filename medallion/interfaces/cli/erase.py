"""The ``medallion erase`` commands: an erasure is requested, then another admin approves it."""

from __future__ import annotations

from typing import Annotated, Any

import psycopg
import typer
from rich.table import Table

from medallion.bronze import erasure
from medallion.interfaces.cli.common import (
    JsonOpt,
    acting_capability,
    connect_or_fail,
    emit_json,
    erase_app,
    err,
    fail,
    load_settings,
    out,
    principal_of,
    refuse,
    require_admin,
)
from medallion.serve import capabilities
from medallion.settings import Settings
from medallion.silver.derive import derive


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
    event_id: Annotated[int | None, typer.Argument(help="The Bronze event id.")] = None,
    reason: Annotated[str, typer.Option("--reason", help="Why the event must go.")] = "",
    namespace: Annotated[str | None, typer.Option("--namespace", "-n")] = None,
    source: Annotated[str | None, typer.Option("--source")] = None,
    source_event_id: Annotated[str | None, typer.Option("--source-event-id")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Request the erasure of one event (by id, or by namespace/source/source-event-id); needs admin there."""
    settings = load_settings()
    if not reason.strip():
        fail("give a --reason for the erasure")
    conn, who = _erasure_door(settings)
    cap = acting_capability(settings, conn)
    if event_id is None:
        if not (namespace and source and source_event_id):
            fail("name the event by id or by --namespace, --source and --source-event-id")
        if cap is not None and not cap.allows("admin", namespace):
            refuse("no such event this capability may erase (erasure needs admin in the event's namespace)")
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
    settings = load_settings()
    conn, who = _erasure_door(settings)
    approver = principal_of(acting_capability(settings, conn))
    try:
        event_id = erasure.approve_erasure(conn, request_id, **who)
    except erasure.ErasureError as exc:
        fail(str(exc), 2 if exc.denied else 1)
    namespace = erasure.erased_namespace(conn, event_id)
    if namespace is None:
        fail(f"event {event_id} was approved for erasure but has no tombstone; run `medallion audit`")
    engine = connect_or_fail(settings)
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
    settings = load_settings()
    conn = connect_or_fail(settings)
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
