"""A namespace's Bronze events as the JSONL that ingest takes back unchanged: a user's copy of their data.

Each line is one event with every field of the contract (:mod:`medallion.bronze.contract`):
``namespace``, ``source``, ``source_event_id``, ``kind``, ``actor``, ``content``, ``occurred_at``,
``provenance_root``, ``authority`` and ``metadata``, as stored. ``authority`` is the tier Bronze kept
(a default applied at ingest is written out explicitly), ``metadata`` is the stored JSON text itself,
so no number is rounded on the way out. What ingest assigns is left out (``event_id``,
``received_at``, the hashes): ingesting the file into a database that lacks these events stores the
same content, hashes and, in the same order into an empty namespace, the same chain; into the
database they came from it stores nothing (every line is a duplicate). Erased events are not
exported: only their tombstones remain.

Lines come in the chain's order (``event_id``), read through one server-side cursor so that a large
namespace is streamed rather than held in memory. :func:`write_file` puts an export in place whole
or not at all.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC
from pathlib import Path
from typing import Any, TextIO, TypeVar

import psycopg

T = TypeVar("T")

# The contract's fields, in the order an exported line gives them.
FIELDS = ("namespace", "source", "source_event_id", "kind", "actor", "content", "occurred_at", "provenance_root",
          "authority", "metadata")
_BATCH = 2000


def count_events(conn: psycopg.Connection, namespace: str) -> int:
    """How many events ``namespace`` holds in Bronze."""
    row = conn.execute("SELECT count(*) FROM bronze.events WHERE namespace = %s", (namespace,)).fetchone()
    return int(row[0]) if row else 0


def event_lines(conn: psycopg.Connection, namespace: str) -> Iterator[str]:
    """One JSON line (no newline) per event of ``namespace``, in ``event_id`` order."""
    with conn.transaction(), conn.cursor(name="medallion_export") as cur:
        cur.itersize = _BATCH
        cur.execute(
            "SELECT namespace, source, source_event_id, kind, actor, content, occurred_at, provenance_root, "
            "authority, metadata::text FROM bronze.events WHERE namespace = %s ORDER BY event_id",
            (namespace,),
        )
        for row in cur:
            yield line_of(row)


def line_of(row: tuple[Any, ...]) -> str:
    """The JSON line of one stored event (the columns of :data:`FIELDS`, ``metadata`` as its JSON text)."""
    fields = dict(zip(FIELDS[:-1], row[:-1], strict=True))
    fields["occurred_at"] = fields["occurred_at"].astimezone(UTC).isoformat().replace("+00:00", "Z")
    head = json.dumps(fields, ensure_ascii=False, separators=(", ", ": "))
    return f'{head[:-1]}, "metadata": {row[-1]}}}'


def write_events(conn: psycopg.Connection, namespace: str, out: TextIO,
                 progress: Callable[[int], None] | None = None) -> int:
    """Write every event of ``namespace`` to ``out``, one line each; returns how many."""
    written = 0
    for line in event_lines(conn, namespace):
        out.write(line + "\n")
        written += 1
        if progress is not None and written % _BATCH == 0:
            progress(written)
    if progress is not None:
        progress(written)
    return written


def write_file(path: Path, write: Callable[[TextIO], T], *, replace: bool = False) -> T:
    """Run ``write(file)`` on a new temporary file in ``path``'s folder, then move it to ``path``.

    A failed export leaves no half-written file. The temporary file is created by ``mkstemp``
    (``O_CREAT | O_EXCL``, a random name, readable by its owner alone: an export is Bronze verbatim),
    so a file or symlink planted where it would go is never opened or followed; the final rename
    replaces a symlink at ``path`` rather than writing through it. An existing ``path`` is kept
    (``FileExistsError``) unless ``replace``; a folder there is ``IsADirectoryError`` either way.
    """
    if path.is_dir():
        raise IsADirectoryError(21, "is a directory", str(path))
    if not replace and os.path.lexists(path):
        raise FileExistsError(17, "already exists", str(path))
    fd, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            result = write(f)
        if not replace and os.path.lexists(path):  # created while this export ran
            raise FileExistsError(17, "already exists", str(path))
        os.replace(partial, path)
    finally:
        Path(partial).unlink(missing_ok=True)
    return result
