"""The ``medallion capability`` commands: grant, revoke and list capability tokens."""

from __future__ import annotations

import os
from typing import Annotated

import typer
from rich.table import Table

from medallion.interfaces.cli.shared import (
    JsonOpt,
    acting_capability,
    cap_app,
    connect_or_fail,
    emit_json,
    fail,
    iso_option,
    load_settings,
    namespace_problem,
    out,
    plain,
    principal_of,
    refuse,
    require_admin,
)
from medallion.serve import capabilities


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
    settings = load_settings()
    for name in namespace:
        problem = None if name == "*" else namespace_problem(name)
        if problem:
            refuse(problem + ", or '*' for every namespace")
    conn = connect_or_fail(settings, "admin")  # capabilities are minted by the administrative login only
    cap = acting_capability(settings, conn)
    require_admin(cap)
    expires_at = iso_option(expires, "--expires")
    holder = principal or f"agent:{os.urandom(4).hex()}"
    try:
        capability_id, token = capabilities.grant(
            conn, principal=holder, verbs=[v.strip() for v in verbs.split(",") if v.strip()],
            namespaces=namespace, max_authority=max_authority, expires_at=expires_at,
            created_by=cap.capability_id if cap else principal_of(cap), by=cap,
        )
    except capabilities.GrantRefused as exc:
        refuse(str(exc))
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        emit_json({"capability_id": capability_id, "token": token, "principal": holder})
    else:
        out.print(plain(f"Capability {capability_id} for {holder}. Token (shown once): {token}"))


@cap_app.command("revoke")
def capability_revoke(capability_id: str, as_json: JsonOpt = False) -> None:
    """Revoke a capability."""
    settings = load_settings()
    conn = connect_or_fail(settings, "admin")  # capabilities are minted by the administrative login only
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
    settings = load_settings()
    conn = connect_or_fail(settings)
    cap = acting_capability(settings, conn)
    require_admin(cap)
    rows = capabilities.list_capabilities(conn, by=cap)
    if as_json:
        emit_json(rows)
        return
    table = Table("id", "principal", "verbs", "namespaces", "max authority", "expires", "revoked")
    for r in rows:
        table.add_row(*(plain(cell) for cell in (
            r["capability_id"], r["principal"], ",".join(r["verbs"]), ",".join(r["namespaces"]),
            str(r["max_authority"]), str(r["expires_at"] or ""), str(r["revoked_at"] or ""))))
    out.print(table)
