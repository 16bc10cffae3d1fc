"""Land JSONL files from the inbox folder (B8): the engine side of the ``bronze/events`` asset.

Files are processed in name order. A file whose every line landed (inserted or duplicate) moves to
``inbox/done/``; a file with any rejected or conflicting line, or without any event, moves to
``inbox/rejected/`` next to a ``.reason`` file naming each bad line — its valid lines have landed
and its bad lines are in ``bronze.quarantine``, so fixing the file and dropping it again is safe
(idempotent).

One file cannot stop the others: a file that cannot be read or landed at all also moves to
``rejected/`` with the error in its ``.reason``, and the next file lands. Only a lost database
connection ends the run early (every later file would fail the same way, through no fault of its
own): those files stay in the inbox for the next run.

A symbolic link is refused and left where it is: whoever may write to the inbox could otherwise
make the landing read any file this process can read (a key, another user's data) into Bronze,
where every reader of the namespace would see it. The file is opened with ``O_NOFOLLOW``, so a
link swapped in after the listing is refused too.
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from medallion.bronze.ingest import IngestResult, ingest_jsonl, quarantine_single

PATTERNS = ("*.jsonl", "*.ndjson")
log = logging.getLogger(__name__)


@dataclass
class LandingReport:
    """What one landing run did, per file and in total (``failed``: file name → why it did not land;
    ``refused``: the symbolic links left in the inbox, each in ``failed`` too with its sentence)."""

    result: IngestResult = field(default_factory=IngestResult)
    done: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)


class SymlinkRefused(Exception):
    """An inbox entry is a symbolic link: it is not read, and stays where it is."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} is a symbolic link and the inbox lands only regular files, so it was left in "
                         "place: copy the file itself into the inbox")


def _candidates(inbox: Path) -> set[Path]:
    if not inbox.is_dir():
        return set()
    return {p for pattern in PATTERNS for p in inbox.glob(pattern)}


def pending_files(inbox: Path) -> list[Path]:
    """Regular files waiting in the inbox, in name order (symbolic links are not landed)."""
    return sorted(p for p in _candidates(inbox) if not p.is_symlink() and p.is_file())


def symlinked_files(inbox: Path) -> list[Path]:
    """Symbolic links in the inbox with a landing file's name, in name order: refused, never read."""
    return sorted(p for p in _candidates(inbox) if p.is_symlink())


def _read_own_bytes(path: Path) -> bytes:
    """The bytes of ``path`` itself; a symbolic link (even one swapped in just now) is :class:`SymlinkRefused`."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SymlinkRefused(path.name) from None
        raise
    with os.fdopen(fd, "rb") as f:
        return f.read()


def _refuse(path: Path, report: LandingReport, why: str) -> None:
    log.warning("%s", why)
    report.refused.append(path.name)
    report.failed[path.name] = why


def _move(path: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / path.name
    if target.exists():  # the same name dropped twice: keep both
        target = folder / f"{path.stem}.{int(path.stat().st_mtime_ns)}{path.suffix}"
    shutil.move(str(path), target)
    return target


def _reject(path: Path, inbox: Path, lines: list[str]) -> None:
    target = _move(path, inbox / "rejected")
    target.with_name(target.name + ".reason").write_text("\n".join(lines) + "\n")


def land_inbox(conn: psycopg.Connection, inbox: Path, *, max_content_bytes: int) -> LandingReport:
    """Ingest every pending file and file it under done/ or rejected/; one failing file stops no other."""
    report = LandingReport()
    for path in symlinked_files(inbox):
        _refuse(path, report, str(SymlinkRefused(path.name)))
    for path in pending_files(inbox):
        try:
            _land_file(conn, path, inbox, max_content_bytes, report)
        except SymlinkRefused as exc:
            _refuse(path, report, str(exc))
        except Exception as exc:
            if conn.closed or conn.broken:
                raise  # the database is gone: leave this and later files for the next run
            why = f"could not land the file: {type(exc).__name__}: {' '.join(str(exc).split())}"
            log.warning("%s: %s", path.name, why)
            report.failed[path.name] = why
            try:
                _reject(path, inbox, [f"{path.name}: {why}", "Events landed before the error are kept; "
                                      "drop the file again to land the rest (landing is idempotent)."])
                report.rejected.append(path.name)
            except OSError as move_error:  # it stays in the inbox; the run goes on with the next file
                report.failed[path.name] = f"{why}; could not move it to rejected/: {move_error}"
    return report


def _land_file(conn: psycopg.Connection, path: Path, inbox: Path, max_content_bytes: int,
               report: LandingReport) -> None:
    origin = f"inbox:{path.name}"
    try:
        data = _read_own_bytes(path)
    except OSError as exc:
        quarantine_single(conn, origin, b"", "unreadable_file", f"could not read the file: {exc}")
        _reject(path, inbox, [f"could not read the file: {exc}"])
        report.rejected.append(path.name)
        return
    result = ingest_jsonl(conn, data, origin=origin, max_content_bytes=max_content_bytes)
    report.result.merge(result)
    if result.ok:
        _move(path, inbox / "done")
        report.done.append(path.name)
        return
    lines = [f"{path.name}: {result.inserted} inserted, {result.duplicate} duplicate, "
             f"{result.conflict} conflict, {result.rejected} rejected."]
    lines += [f"line {r['line']}: {r['reason']}" for r in result.summary()["rejects"]]
    lines.append("Valid lines have landed; rejected lines are kept in bronze.quarantine. "
                 "Fix them and drop the file again (landing is idempotent).")
    _reject(path, inbox, lines)
    report.rejected.append(path.name)
