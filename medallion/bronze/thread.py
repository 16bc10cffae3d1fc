"""The thread an event belongs to: the conversation, ticket or document history whose previous turn
gives a chunk its context (see ``medallion.silver.chunks.previous_turns``).

A source that gives every message its own provenance root (a permalink, as chat exports and ticket
systems do) still has threads; it names them with ``thread`` (top level) or ``metadata.thread``. The
top-level field is stored as ``metadata.thread``, so Bronze keeps one place for it and an export
reads back unchanged. Without either, the provenance root is the thread.
"""

from __future__ import annotations

from typing import Any

THREAD_KEY = "thread"
MAX_THREAD_CHARS = 500


def fold_thread(data: Any) -> Any:
    """The event object with a top-level ``thread`` moved into ``metadata.thread``. Raises ValueError
    when both are given and differ, or the thread is not a non-blank string of at most 500 characters;
    anything else (not an object, metadata not an object) is left for the contract to word."""
    if not isinstance(data, dict):
        return data
    metadata = data.get("metadata")
    if THREAD_KEY in data:
        data = dict(data)
        thread = data.pop(THREAD_KEY)
        if thread is None:
            return data
        if metadata is None:
            metadata = {}
        if not isinstance(metadata, dict):
            return data | {"metadata": metadata}
        if THREAD_KEY in metadata and metadata[THREAD_KEY] != thread:
            raise ValueError("thread and metadata.thread differ: give the thread once")
        metadata = metadata | {THREAD_KEY: thread}
        data["metadata"] = metadata
    if isinstance(metadata, dict) and THREAD_KEY in metadata:
        thread = metadata[THREAD_KEY]
        if not isinstance(thread, str) or not thread.strip() or len(thread) > MAX_THREAD_CHARS:
            raise ValueError(f"thread must be a non-blank string of at most {MAX_THREAD_CHARS} characters "
                             "(the conversation or ticket the event belongs to)")
    return data
