"""Land JSONL files from the inbox folder (SPEC B8): the engine side of the ``bronze/events`` asset.

Files are processed in name order. A file whose every line landed (inserted or duplicate) moves to
``inbox/done/``; a file with any rejected or conflicting line moves to ``inbox/rejected/`` next to
a ``.reason`` file naming each bad line — its valid lines have landed and its bad lines are in
``bronze.quarantine``, so fixing the file and dropping it again is safe (idempotent).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from dagster_project.bronze.ingest import IngestResult, ingest_jsonl, quarantine_single

PATTERNS = ("*.jsonl", "*.ndjson")


@dataclass
class LandingReport:
    """What one landing run did, per file and in total."""

    result: IngestResult = field(default_factory=IngestResult)
    done: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


def pending_files(inbox: Path) -> list[Path]:
    """Files waiting in the inbox, in name order."""
    if not inbox.is_dir():
        return []
    files = {p for pattern in PATTERNS for p in inbox.glob(pattern) if p.is_file()}
    return sorted(files)


def _move(path: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / path.name
    if target.exists():  # the same name dropped twice: keep both
        target = folder / f"{path.stem}.{int(path.stat().st_mtime_ns)}{path.suffix}"
    shutil.move(str(path), target)
    return target


def land_inbox(conn: psycopg.Connection, inbox: Path, *, max_content_bytes: int) -> LandingReport:
    """Ingest every pending file and file it under done/ or rejected/."""
    report = LandingReport()
    for path in pending_files(inbox):
        origin = f"inbox:{path.name}"
        try:
            data = path.read_bytes()
        except OSError as exc:
            quarantine_single(conn, origin, b"", "unreadable_file", f"could not read the file: {exc}")
            target = _move(path, inbox / "rejected")
            target.with_name(target.name + ".reason").write_text(f"could not read the file: {exc}\n")
            report.rejected.append(path.name)
            continue
        result = ingest_jsonl(conn, data, origin=origin, max_content_bytes=max_content_bytes)
        if not data.strip():
            quarantine_single(conn, origin, data, "empty_input", "the file holds no events")
        report.result.merge(result)
        if result.ok and data.strip():
            _move(path, inbox / "done")
            report.done.append(path.name)
            continue
        target = _move(path, inbox / "rejected")
        lines = [f"{path.name}: {result.inserted} inserted, {result.duplicate} duplicate, "
                 f"{result.conflict} conflict, {result.rejected} rejected."]
        if not data.strip():
            lines.append("the file holds no events")
        lines += [f"line {r['line']}: {r['reason']}" for r in result.summary()["rejects"]]
        lines.append("Valid lines have landed; rejected lines are kept in bronze.quarantine. "
                     "Fix them and drop the file again (landing is idempotent).")
        target.with_name(target.name + ".reason").write_text("\n".join(lines) + "\n")
        report.rejected.append(path.name)
    return report
