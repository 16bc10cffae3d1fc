"""SQL migrations (the project layout, ``db/migrations/NNNN_*.sql``): ordered, recorded, tamper-evident.

Migrations apply in numeric order, each in its own transaction, and are recorded with the sha256 of
the file in ``meta.schema_migrations``; re-running applies nothing; editing an applied file is
refused; a new file is applied; a misnamed or duplicated file is refused.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import psycopg
import pytest

from medallion.db.migrate import MIGRATIONS_DIR, MigrationChecksumError, discover, migrate


@pytest.fixture
def conn(admin_conn: psycopg.Connection) -> psycopg.Connection:
    """An admin connection to a fresh database on which the project's migrations already ran."""
    return admin_conn


@pytest.fixture
def mig_dir(tmp_path: Path) -> Path:
    """A copy of the project's migrations directory that a test may edit."""
    target = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, target)
    return target


def _recorded(conn: psycopg.Connection) -> list[tuple[int, str, str]]:
    return conn.execute(
        "SELECT version, name, checksum FROM meta.schema_migrations ORDER BY applied_at, version"
    ).fetchall()


def _table_exists(conn: psycopg.Connection, name: str) -> bool:
    return conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone() == (True,)


def test_migrations_applied_in_order_with_checksums(conn: psycopg.Connection) -> None:
    """Every project migration is recorded, in numeric order, with the sha256 of its file."""
    files = sorted(MIGRATIONS_DIR.glob("*.sql"))
    assert files, "no migrations found"
    expected = [
        (int(p.name[:4]), p.name, hashlib.sha256(p.read_bytes()).hexdigest())
        for p in sorted(files, key=lambda p: int(p.name[:4]))
    ]
    assert _recorded(conn) == expected
    assert [m.name for m in discover()] == [name for _, name, _ in expected]
    applied_at = [r[0] for r in conn.execute("SELECT applied_at FROM meta.schema_migrations ORDER BY version")]
    assert applied_at == sorted(applied_at)
    # Files that SET LOCAL ROLE medallion_owner leave their objects owned by the owner role.
    owner = conn.execute("SELECT tableowner FROM pg_tables WHERE schemaname = 'bronze' AND tablename = 'events'")
    assert owner.fetchone() == ("medallion_owner",)
    # ... and the migration runner's login is back to itself afterwards.
    assert conn.execute("SELECT current_user = session_user").fetchone() == (True,)


def test_new_files_apply_in_numeric_order(conn: psycopg.Connection, mig_dir: Path) -> None:
    """Pending files run by number (a later file may depend on an earlier one), each recorded."""
    (mig_dir / "0200_fill_probe.sql").write_text("INSERT INTO meta.order_probe (step) VALUES ('second');\n")
    (mig_dir / "0100_create_probe.sql").write_text(
        "CREATE TABLE meta.order_probe (id serial PRIMARY KEY, step text NOT NULL);\n"
        "INSERT INTO meta.order_probe (step) VALUES ('first');\n"
    )
    assert migrate(conn, mig_dir) == ["0100_create_probe.sql", "0200_fill_probe.sql"]
    assert conn.execute("SELECT step FROM meta.order_probe ORDER BY id").fetchall() == [("first",), ("second",)]
    recorded = {r[0]: r for r in _recorded(conn)}
    assert recorded[100][1:] == (
        "0100_create_probe.sql",
        hashlib.sha256((mig_dir / "0100_create_probe.sql").read_bytes()).hexdigest(),
    )
    assert 200 in recorded


def test_rerun_applies_nothing(conn: psycopg.Connection) -> None:
    """Running migrate on an up-to-date database is a no-op."""
    before = _recorded(conn)
    assert migrate(conn) == []
    assert migrate(conn) == []
    assert _recorded(conn) == before


def test_edited_applied_migration_is_refused(conn: psycopg.Connection, mig_dir: Path) -> None:
    """Editing an already-applied file raises MigrationChecksumError, and nothing else is applied."""
    edited = mig_dir / "0002_bronze.sql"
    edited.write_text(edited.read_text() + "\n-- a harmless-looking edit\n")
    (mig_dir / "9999_extra.sql").write_text("CREATE TABLE meta.extra_probe (id int);\n")
    before = _recorded(conn)
    with pytest.raises(MigrationChecksumError, match="0002_bronze.sql"):
        migrate(conn, mig_dir)
    assert _recorded(conn) == before
    assert not _table_exists(conn, "meta.extra_probe")
    # The session advisory lock was released: a second runner is not blocked.
    assert migrate(conn) == []


def test_new_migration_is_applied_once(conn: psycopg.Connection, mig_dir: Path) -> None:
    """A new 9999_extra.sql in the directory is applied, recorded with its checksum, and only once."""
    extra = mig_dir / "9999_extra.sql"
    extra.write_text("CREATE TABLE meta.extra_probe (id int);\nINSERT INTO meta.extra_probe VALUES (1);\n")
    assert migrate(conn, mig_dir) == ["9999_extra.sql"]
    assert _table_exists(conn, "meta.extra_probe")
    assert _recorded(conn)[-1] == (9999, "9999_extra.sql", hashlib.sha256(extra.read_bytes()).hexdigest())
    assert migrate(conn, mig_dir) == []
    assert conn.execute("SELECT count(*) FROM meta.extra_probe").fetchone() == (1,)


def test_failing_migration_rolls_back_and_is_not_recorded(conn: psycopg.Connection, mig_dir: Path) -> None:
    """A migration runs in one transaction: a failure leaves no half-applied schema and no record."""
    (mig_dir / "9998_broken.sql").write_text("CREATE TABLE meta.half_done (id int);\nSELECT 1 / 0;\n")
    before = _recorded(conn)
    with pytest.raises(psycopg.errors.DivisionByZero):
        migrate(conn, mig_dir)
    assert not _table_exists(conn, "meta.half_done")
    assert _recorded(conn) == before
    (mig_dir / "9998_broken.sql").write_text("CREATE TABLE meta.half_done (id int);\n")
    assert migrate(conn, mig_dir) == ["9998_broken.sql"]


@pytest.mark.parametrize(
    "name", ["9999-extra.sql", "999_extra.sql", "9999_Extra.sql", "extra.sql", "9999_.sql", "99999_extra.sql"]
)
def test_misnamed_migration_is_refused(conn: psycopg.Connection, mig_dir: Path, name: str) -> None:
    """A file not named NNNN_lowercase_words.sql is refused (ValueError) before anything runs."""
    (mig_dir / name).write_text("CREATE TABLE meta.misnamed_probe (id int);\n")
    with pytest.raises(ValueError, match="must be named"):
        migrate(conn, mig_dir)
    assert not _table_exists(conn, "meta.misnamed_probe")


def test_duplicate_migration_number_is_refused(conn: psycopg.Connection, mig_dir: Path) -> None:
    """Two files with the same number are refused (ValueError)."""
    (mig_dir / "0002_another_bronze.sql").write_text("CREATE TABLE meta.dup_probe (id int);\n")
    with pytest.raises(ValueError, match="share number 0002"):
        migrate(conn, mig_dir)
    assert not _table_exists(conn, "meta.dup_probe")
