"""A chunk restated to stand alone, for its index only.

A turn says "I took the kids to the museum yesterday"; the question asks "When did Henrike go to the
museum?". The words that connect them (the speaker's name, the day) are not in the turn. So each
sentence or passage of a conversation turn or note is also *restated*: first person resolved to
the speaker (or "we" to the team), relative dates to absolute ones, with the same rules the
heuristic distiller uses for its statements. The restatement is added to the chunk's context
(embedded and indexed with the chunk, never served), so a chunk still serves only its own text and
span. It depends on the event alone, so an incremental run and a full rebuild agree.
"""

from __future__ import annotations

from medallion.distill.language.dates import find_dates, replace_dates
from medallion.distill.language.sentences import make_context
from medallion.distill.language.wording import resolve_person
from medallion.distill.types import EventInput


def restate(event: EventInput, text: str) -> str | None:
    """``text`` (a span of ``event``) restated to stand alone, or None when it already does."""
    ctx = make_context(event)
    out = replace_dates(text, find_dates(text, ctx.today, future=False), keep_absolute=True)
    out = resolve_person(out, ctx.actor_speaker, ctx.team)
    return out if out != text else None


def with_restatements(event: EventInput, spans: list[tuple[int, int]], contexts: list[str | None]
                      ) -> list[str | None]:
    """Each span's context with its restatement on a line of its own (turns and notes only)."""
    out = []
    for (start, end), context in zip(spans, contexts, strict=True):
        restated = restate(event, event.content[start:end])
        out.append(f"{context}\n{restated}" if restated and context else restated or context)
    return out
