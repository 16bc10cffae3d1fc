"""Retrieval chunks (S7): Bronze content split into spans that keep their character offsets.

Each chunk also carries a *context* (the previous turn of its thread when another speaker said it, and
its own speaker) that is
embedded and indexed with it but never served; see ``context_text``.

A conversation turn or a note is indexed at two granularities (``unit``): its whole *passage* and,
when it has several, each *sentence* (a very short one joined to the next); a sentence that speaks
of several subjects ("Whiskers is 3 and Mittens is 7") also as each *clause* about one of them, and one that tells a
replacement as two events ("sold the vespa, got a Brisko e-bike instead") as each event. A question asks either
about one claim ("When did Ana go to the museum?") or about what a turn says as a whole; search
fuses both views. Documents and other long contents split at paragraph, then sentence boundaries
into windows of at most ``MAX_CHARS`` (passages); a window never cuts a sentence unless the sentence
alone is longer than the window.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

import psycopg

from medallion.bronze.thread import THREAD_KEY
from medallion.distill.language.coordination import clause_spans, gapped_clauses, replacement_spans, value_spans

MAX_CHARS = 800
MIN_SENTENCE = 25  # a shorter sentence ("Wow!", "Thanks, Jon.") is joined to the next
TURN_KINDS = frozenset({"transcript", "note", "issue"})  # split by sentence; documents and commits by window
CONTEXT_CHARS = 400  # of the previous turn: enough for a question, not a whole document
# A sentence ends at . ! or ? and a space, but not after a title or a common abbreviation ("Dr. Sandoval").
_ABBREVIATIONS = ("Dr", "Mr", "Mrs", "Ms", "Mx", "St", "Prof", "Jr", "Sr", "Mt", "vs", "approx", "e.g", "i.e")
# A blank line ends one too, and so does a line break before a list item ("- Project Mizzen: …").
_BOUNDARY = re.compile("(?<=[.!?])" + "".join(rf"(?<!\b{re.escape(a)}\.)" for a in _ABBREVIATIONS)
                       + r"\s+|\n\s*\n|\n(?=[ \t]*(?:[-*•·]|\d{1,2}[.)])[ \t]+\S)")


def chunk_id(event_id: int, start: int, end: int) -> str:
    return hashlib.sha256(f"{event_id}:{start}:{end}".encode()).hexdigest()[:24]


def sentences(content: str, min_chars: int = MIN_SENTENCE) -> list[tuple[int, int]]:
    """(start, end) spans of a turn's sentences, a sentence shorter than ``min_chars`` joined to the
    next ("Wow!", "Yes."): a turn's claims and its narration are found one sentence at a time, the
    way a question asks about them, while the facts hold only what the sentences assert."""
    matches = list(_BOUNDARY.finditer(content))
    starts = [0] + [m.end() for m in matches]
    ends = [m.start() for m in matches] + [len(content)]
    spans: list[tuple[int, int]] = []
    for start, end in zip(starts, ends, strict=True):
        text = content[start:end]
        if not text.strip():
            continue
        start, end = start + len(text) - len(text.lstrip()), end - (len(text) - len(text.rstrip()))
        if spans and spans[-1][1] - spans[-1][0] < min_chars:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    if len(spans) > 1 and spans[-1][1] - spans[-1][0] < min_chars:
        last = spans.pop()
        spans[-1] = (spans[-1][0], last[1])
    return spans


def split(content: str, max_chars: int = MAX_CHARS, by_sentence: bool = False) -> list[tuple[int, int]]:
    """(start, end) spans covering the non-blank content, each ≤ max_chars where possible; with
    ``by_sentence`` (a conversation turn, a note) the whole passage first, then its sentences
    (:func:`sentences`) when it has more than one (see :func:`units`)."""
    if not content.strip():
        return []
    if by_sentence and len(content) <= max_chars:
        parts = sentences(content)
        whole = [(parts[0][0], parts[-1][1]), *parts] if len(parts) > 1 else parts
        return whole + clauses(content, parts)
    if len(content) <= max_chars:
        start = len(content) - len(content.lstrip())
        end = len(content.rstrip())
        return [(start, end)]
    pieces: list[tuple[int, int]] = []
    pos = 0
    for match in _BOUNDARY.finditer(content):
        pieces.append((pos, match.start()))
        pos = match.end()
    pieces.append((pos, len(content)))
    spans: list[tuple[int, int]] = []
    cur_start, cur_end = None, None
    for start, end in pieces:
        if end <= start or not content[start:end].strip():
            continue
        while end - start > max_chars:  # one very long sentence: hard-split
            if cur_start is not None:
                spans.append((cur_start, cur_end))  # type: ignore[arg-type]
                cur_start = None
            spans.append((start, start + max_chars))
            start += max_chars
        if cur_start is None:
            cur_start, cur_end = start, end
        elif end - cur_start <= max_chars:
            cur_end = end
        else:
            spans.append((cur_start, cur_end))  # type: ignore[arg-type]
            cur_start, cur_end = start, end
    if cur_start is not None:
        spans.append((cur_start, cur_end))  # type: ignore[arg-type]
    return spans


def containing(spans: list[tuple[int, int]], span: tuple[int, int] | None) -> int | None:
    """Index of the chunk that holds most of ``span``, the smallest of equals (a sentence rather than
    its passage); None when unknown."""
    if span is None or not spans:
        return None
    best, best_key = None, (0, 0)
    for i, (start, end) in enumerate(spans):
        overlap = min(end, span[1]) - max(start, span[0])
        key = (overlap, start - end)
        if overlap > 0 and key > best_key:
            best, best_key = i, key
    return best


def speaker(actor: str | None) -> str | None:
    """The name a turn is spoken by: the actor without its kind prefix ("user:rosalind" → "rosalind")."""
    if not actor:
        return None
    return actor.split(":", 1)[-1].strip() or None


def context_text(actor: str | None, previous: tuple[str | None, str] | None) -> str | None:
    """A chunk's context: the previous turn of its thread ("speaker: text") and its own speaker.

    Embedded and indexed with the chunk, never served: an answer turn ("Yes, last May!") is found
    by the words of the question it replies to. The previous turn of the same actor is left out: a
    speaker's next note answers nothing in their last one, and carrying it lets a question about the
    last find the next (one source's log of statements, one per event).
    """
    parts: list[str] = []
    if previous is not None and previous[0] != actor:  # a reply; a speaker going on is no answer to themself
        prev_actor, prev_text = previous
        prev_text, prev_speaker = prev_text.strip()[:CONTEXT_CHARS], speaker(prev_actor)
        if prev_text:
            parts.append(f"{prev_speaker}: {prev_text}" if prev_speaker else prev_text)
    own = speaker(actor)
    if own:
        parts.append(f"{own}:")
    return "\n".join(parts) or None


def clauses(content: str, parts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The coordinated clauses of each sentence that speaks of several subjects ("I drive a Tesla
    and my wife drives a Camry"), cut where the distiller cuts them (``clauses.coordination``), so
    that a question about one subject finds a text about that subject alone, with its fact. A
    sentence joined to a short one before it is cut sentence by sentence."""
    out: list[tuple[int, int]] = []
    for start, end in parts:
        pos = start
        for match in [*_BOUNDARY.finditer(content, start, end), None]:
            stop = match.start() if match is not None else end
            if stop > pos:
                out += [(pos + a, pos + b) for a, b in sentence_parts(content[pos:stop])]
            if match is not None:
                pos = match.end()
    return out


def sentence_parts(sentence: str) -> list[tuple[int, int]]:
    """The clauses of one sentence (``clause_spans``), each cut again where it lists a value per
    holder (``value_spans``: "Henrik handles billing and Malin does onboarding" left whole by the
    parse); a sentence with no clauses is cut by ``value_spans`` alone, or where it tells a replacement
    as two events (``replacement_spans``); ``[]`` when nothing is cut."""
    clauses = clause_spans(sentence)
    if not clauses:
        return value_spans(sentence) or replacement_spans(sentence) or [
            (a, b) for a, b, _ in gapped_clauses(sentence)]  # "Mira works at Quelle, her husband at Brightmoor"
    return [(start + a, start + b) for start, end in clauses
            for a, b in (value_spans(sentence[start:end]) or [(0, end - start)])]


def units(spans: list[tuple[int, int]]) -> list[str]:
    """The unit of each span of :func:`split`: a ``clause`` lies inside another span and touches
    another clause (the clauses of a sentence tile it, see :func:`clauses`; sentences never touch,
    whitespace separates them); a ``sentence`` lies inside its ``passage``; every other span (a
    one-sentence turn, a document window) is a passage."""
    inside = [any(o != span and o[0] <= span[0] and span[1] <= o[1] for o in spans) for span in spans]
    ends = {end for (_, end), nested in zip(spans, inside, strict=True) if nested}
    starts = {start for (start, _), nested in zip(spans, inside, strict=True) if nested}
    return ["passage" if not nested else "clause" if start in ends or end in starts else "sentence"
            for (start, end), nested in zip(spans, inside, strict=True)]


def span_contexts(context: str | None, actor: str | None, count: int) -> list[str | None]:
    """The context of each of a turn's chunks: the first (the passage, or the only sentence) carries
    the previous turn (the question it may answer); its sentences only their speaker, so a long turn
    does not embed the previous turn once per sentence."""
    return [context] + [context_text(actor, None) if context is not None else None] * (count - 1) if count else []


def embed_text(context: str | None, text: str) -> str:
    """What a chunk's vector is computed from (the audit recomputes the same string)."""
    return f"{context} {text}" if context else text


# The thread of a Bronze event row aliased {t}; the same expression as the index events_thread_key.
THREAD_KEY_SQL = "coalesce({t}.metadata ->> 'thread', {t}.provenance_root)"


def thread_of(metadata: Mapping[str, Any], provenance_root: str) -> str:
    """An event's thread exactly as :data:`THREAD_KEY_SQL` reads it (``->>``: a string as it is, another
    JSON value as its text, absent or null the provenance root), so the thread stored with its chunks
    (silver.chunks.thread, whose neighbours search reads) is the one their context was read by."""
    named = metadata.get(THREAD_KEY)
    if named is None:
        return provenance_root
    return named if isinstance(named, str) else json.dumps(named)


def previous_turns(conn: psycopg.Connection, event_ids: list[int]) -> dict[int, tuple[str | None, str]]:
    """For each event, the previous event of its thread: same namespace and thread key, which is
    ``metadata.thread`` when the source named one, else the provenance root (:data:`THREAD_KEY_SQL`).

    Bronze order (event_id) decides, so an incremental run and a full rebuild see the same previous
    turn (R7). Overlays and documents are not turns; an erased event is gone from Bronze, so the
    turn before it takes its place.
    """
    if not event_ids:
        return {}
    rows = conn.execute(
        "SELECT e.event_id, p.actor, p.content FROM bronze.events e "
        "CROSS JOIN LATERAL (SELECT p.actor, p.content FROM bronze.events p "
        f"  WHERE p.namespace = e.namespace AND {THREAD_KEY_SQL.format(t='p')} = {THREAD_KEY_SQL.format(t='e')} "
        "    AND p.event_id < e.event_id "
        "    AND p.kind NOT IN ('overlay', 'document') ORDER BY p.event_id DESC LIMIT 1) p "
        "WHERE e.event_id = ANY(%s)", (event_ids,)).fetchall()
    return {event_id: (actor, content or "") for event_id, actor, content in rows}
