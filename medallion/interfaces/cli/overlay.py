"""The ``medallion overlay`` commands: a person's edit, annotation or redaction, and their approvals."""

from __future__ import annotations

from typing import Annotated

from medallion.interfaces.cli.shared import (
    JsonOpt,
    argument,
    emit_json,
    option,
    out,
    overlay_app,
    plain,
    tool_session,
)
from medallion.serve import verbs


def _overlay(action: str, fact_id: str, quote: str, text: str | None, note: str | None, as_json: bool) -> None:
    with tool_session() as tools:
        result = tools.overlay(fact_id, action, quote=quote, text=text, note=note)
    if as_json:
        emit_json(result)
    elif result["status"] == "pending_approval":
        out.print(plain(f"approval {result['approval_id']} requested: {result['reason']}"))
    else:
        out.print(plain(f"{action} {result['status']} (event {result['event_id']}); anchored to "
                        f"{result.get('anchored_fact_id')} ({result.get('anchor_status')})"))


FactArg = Annotated[str, argument(verbs.Overlay, "fact_id")]
QuoteOpt = Annotated[str, option(verbs.Overlay, "quote")]
NoteOpt = Annotated[str | None, option(verbs.Overlay, "note")]


@overlay_app.command("edit")
def overlay_edit(fact_id: FactArg, quote: QuoteOpt, text: Annotated[str, option(verbs.Overlay, "text")],
                 note: NoteOpt = None, as_json: JsonOpt = False) -> None:
    """Replace a span of a fact's statement; the person's version wins on read."""
    _overlay("edit", fact_id, quote, text, note, as_json)


@overlay_app.command("annotate")
def overlay_annotate(fact_id: FactArg, quote: QuoteOpt, note: Annotated[str, option(verbs.Overlay, "note")],
                     as_json: JsonOpt = False) -> None:
    """Attach a note to a span of a fact."""
    _overlay("annotate", fact_id, quote, None, note, as_json)


@overlay_app.command("redact")
def overlay_redact(fact_id: FactArg, quote: QuoteOpt, note: NoteOpt = None, as_json: JsonOpt = False) -> None:
    """Mask a span wherever the fact is served; a search for its words no longer returns it."""
    _overlay("redact", fact_id, quote, None, note, as_json)


@overlay_app.command("retract")
def overlay_retract(overlay_id: Annotated[int, argument(verbs.Retract, "overlay_id")],
                    reason: Annotated[str, option(verbs.Retract, "reason")], as_json: JsonOpt = False) -> None:
    """Ask to delete a person's overlay; another admin approves with `medallion overlay approve`."""
    with tool_session() as tools:
        result = tools.retract(overlay_id, reason=reason)
    if as_json:
        emit_json(result)
    else:
        out.print(plain(f"approval {result['approval_id']} requested: {result['reason']}"))


@overlay_app.command("approve")
def overlay_approve(approval_id: Annotated[int, argument(verbs.Approve, "approval_id")],
                    as_json: JsonOpt = False) -> None:
    """Approve a pending overwrite of a person's overlay (another admin than the requester)."""
    with tool_session() as tools:
        result = tools.approve(approval_id)
    if as_json:
        emit_json(result)
    else:
        out.print(plain(f"approval {approval_id}: {result['status']}; overlay event {result.get('event_id')}"))
