"""Retrieval chunks (SPEC S7): Bronze content split into spans that keep their character offsets.

Short contents (most chat turns) are one chunk. Longer ones split at paragraph, then sentence
boundaries into windows of at most ``MAX_CHARS``; a chunk never cuts a sentence unless the sentence
alone is longer than the window.
"""

from __future__ import annotations

import hashlib
import re

MAX_CHARS = 800
_BOUNDARY = re.compile(r"(?<=[.!?])\s+|\n\s*\n")


def chunk_id(event_id: int, start: int, end: int) -> str:
    return hashlib.sha256(f"{event_id}:{start}:{end}".encode()).hexdigest()[:24]


def split(content: str, max_chars: int = MAX_CHARS) -> list[tuple[int, int]]:
    """(start, end) spans covering the non-blank content, each ≤ max_chars where possible."""
    if not content.strip():
        return []
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
    """Index of the chunk that holds most of ``span`` (None when unknown)."""
    if span is None or not spans:
        return None
    best, best_overlap = None, 0
    for i, (start, end) in enumerate(spans):
        overlap = min(end, span[1]) - max(start, span[0])
        if overlap > best_overlap:
            best, best_overlap = i, overlap
    return best
