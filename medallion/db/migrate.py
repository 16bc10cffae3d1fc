"""Apply ``db/migrations/NNNN_*.sql`` in order, each inside its own transaction.

Each applied file is recorded with its sha256; if an already-applied file has changed on disk the
runner refuses to start (:class:`MigrationChecksumError`) instead of letting code and schema drift
apart. A session advisory lock makes concurrent starts (four ingest processes, say) safe; a start
waits for it at most a bound and then stops with one sentence naming the session that holds it
(:mod:`medallion.db.locks`). Only the engine, the owner and the administrator may take it: migration
0025 keeps the tool login from holding it to stall every new process.

Migrations create roles and extensions, so only an administrator applies them (a superuser, or the
``--admin-url`` of ``medallion db migrate``). A login that may not, the app's own on an external
server, asks :func:`pending` instead: the history is readable by the project's roles (migration
0019), so the app can tell it is behind and say what to run rather than half-apply anything.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import psycopg

from medallion.db.locks import LockBusy, holder, take

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
_LOCK_KEY = 0x6D656461  # "meda"


class MigrationChecksumError(RuntimeError):
    """An applied migration file differs from what was applied."""


@dataclass(frozen=True)
class Migration:
    """One migration file."""

    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def discover(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """Migration files in version order; a malformed or duplicated number is an error."""
    found: dict[int, Migration] = {}
    for path in sorted(directory.glob("*.sql")):
        match = _NAME.match(path.name)
        if not match:
            raise ValueError(f"migration file {path.name} must be named NNNN_lowercase_words.sql")
        version = int(match.group(1))
        if version in found:
            raise ValueError(f"two migrations share number {version:04d}: {found[version].name}, {path.name}")
        found[version] = Migration(version, path.name, path.read_text())
    return [found[v] for v in sorted(found)]


def migrate(conn: psycopg.Connection, directory: Path = MIGRATIONS_DIR, *,
            wait_seconds: float | None = None) -> list[str]:
    """Apply pending migrations; return the names applied. ``conn`` must be an admin login.

    Waits for the migration lock at most ``wait_seconds`` (default: the session's ``lock_timeout``,
    else 300 s), then raises :class:`~medallion.db.locks.LockBusy` naming its holder."""
    migrations = discover(directory)
    conn.autocommit = True
    busy, waited = take(conn, "SELECT pg_advisory_lock(%s)", [(_LOCK_KEY,)], wait_seconds)
    if busy is not None:
        who = holder(conn, "l.classid = 0 AND l.objid::bigint = %s AND l.objsubid = 1", (_LOCK_KEY,))
        raise LockBusy(
            f"the migration lock is held by {who}; "
            f"waited {waited:g} s: start again when that session has finished migrating")
    try:
        conn.execute("CREATE SCHEMA IF NOT EXISTS meta")
        conn.execute(
            """CREATE TABLE IF NOT EXISTS meta.schema_migrations (
                   version    integer PRIMARY KEY,
                   name       text NOT NULL,
                   checksum   text NOT NULL,
                   applied_at timestamptz NOT NULL DEFAULT now())"""
        )
        applied = _applied(conn)
        _check_unchanged(migrations, applied)
        done = []
        for migration in migrations:
            if migration.version in applied:
                continue
            with conn.transaction():
                conn.execute(migration.sql)  # type: ignore[arg-type]
                conn.execute("RESET ROLE")  # files may SET LOCAL ROLE medallion_owner
                conn.execute(
                    "INSERT INTO meta.schema_migrations (version, name, checksum) VALUES (%s, %s, %s)",
                    (migration.version, migration.name, migration.checksum),
                )
            done.append(migration.name)
        return done
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_KEY,))


def _applied(conn: psycopg.Connection) -> dict[int, tuple[str, str]]:
    return {row[0]: (row[1], row[2])
            for row in conn.execute("SELECT version, name, checksum FROM meta.schema_migrations")}


def _check_unchanged(migrations: list[Migration], applied: dict[int, tuple[str, str]]) -> None:
    for migration in migrations:
        if migration.version in applied:
            name, checksum = applied[migration.version]
            if checksum != migration.checksum:
                raise MigrationChecksumError(
                    f"migration {migration.name} changed after it was applied (as {name}); "
                    "add a new migration instead of editing an applied one"
                )


def pending(conn: psycopg.Connection, directory: Path = MIGRATIONS_DIR) -> list[Migration] | None:
    """The migrations ``conn``'s database still lacks, read without changing anything.

    ``None`` when this login cannot read the history (a database migrated before 0019, or a login
    outside the project's roles): the caller cannot tell, so it must not assume the schema is current.
    Raises :class:`MigrationChecksumError` like :func:`migrate` when an applied file changed.
    """
    migrations = discover(directory)
    row = conn.execute(
        "SELECT has_schema_privilege(n.oid, 'USAGE') AND has_table_privilege(c.oid, 'SELECT') "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'meta' AND c.relname = 'schema_migrations'").fetchone()
    if row is None:
        return migrations
    if not row[0]:
        return None
    applied = _applied(conn)
    _check_unchanged(migrations, applied)
    return [m for m in migrations if m.version not in applied]
