"""Set up a PostgreSQL the app did not start: migrations and the app's password logins, once, as its administrator.

``medallion db migrate --admin-url URL`` (or ``MEDALLION_ADMIN_DATABASE_URL``) runs :func:`provision`
with the administrator's login (a superuser, or a managed service's equivalent that may create roles
and extensions), in the same environment as the app, so the logins are set up exactly as the app's
settings name them:

- the migrations and the database-level grants are applied with the administrator's login;
- ``MEDALLION_ENGINE_DATABASE_URL`` / ``MEDALLION_TOOL_DATABASE_URL`` must log in as
  ``medallion_engine`` / ``medallion_tool`` (the Bronze grants and the row-level security are bound
  to those roles), and their passwords are set on them;
- the user of ``MEDALLION_DATABASE_URL``, the app's configured login (the local admin's identity, and
  dbt's), is created if missing as a non-superuser that cannot create roles or databases, given the
  URL's password and membership in ``medallion_owner`` and ``medallion_engine``: what the embedded
  server's superuser needs of those roles, without being able to migrate. When it names
  ``medallion_engine`` itself, the app runs on the two restricted roles alone (no minting, no dbt).

Passwords are sent as SCRAM verifiers computed on the client (``PQencryptPasswordConn``), so the
plain text reaches neither the server's statement log nor any report; reports mask every URL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql

from medallion.db.connection import ROLE_NAMES, DatabaseNotReady, admin_url, open_login, prepare
from medallion.db.urls import login_parts, masked
from medallion.settings import Settings

APP_LOGIN_ROLES = ("medallion_owner", "medallion_engine")  # what the configured login is a member of
_SETTINGS = (("admin", "MEDALLION_DATABASE_URL", "database_url"),
             ("engine", "MEDALLION_ENGINE_DATABASE_URL", "engine_database_url"),
             ("tool", "MEDALLION_TOOL_DATABASE_URL", "tool_database_url"))


class ProvisionRefused(ValueError):
    """The app's settings cannot be provisioned as given: one sentence naming the setting to change."""


@dataclass(frozen=True)
class Login:
    """One login of the app as the administrator left it (never its password)."""

    role: str
    setting: str
    created: bool
    password_set: bool
    member_of: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Report:
    """What ``medallion db migrate`` did, safe to print: the URL is masked."""

    database: str
    applied: list[str]
    logins: list[Login]

    def summary(self) -> dict[str, Any]:
        return {"database": self.database, "applied": self.applied,
                "logins": [vars(login) for login in self.logins]}


@dataclass(frozen=True)
class _Wanted:
    kind: str
    setting: str
    user: str
    password: str


def migrate_configured(settings: Settings) -> Report:
    """Migrate with the configured login itself (the embedded server's superuser, or an external URL).

    A login that is not a superuser only checks an up-to-date database; when something is pending it
    tries anyway (a managed service's administrator may create roles and extensions without being a
    superuser), and a refusal surfaces as the server's permission error.
    """
    url = admin_url(settings)
    setting = "MEDALLION_DATABASE_URL" if not settings.uses_embedded else "the embedded server"
    with open_login(url, setting, autocommit=True) as conn:
        try:
            applied = prepare(conn)
        except DatabaseNotReady:
            applied = prepare(conn, apply=True)
    return Report(masked(url), applied, [])


def provision(settings: Settings, admin: str) -> Report:
    """Migrate the database of ``admin`` (the administrator's URL) and set up the app's logins from ``settings``."""
    try:
        admin_parts = login_parts(admin)
    except ValueError:
        raise ProvisionRefused("the administrator's URL (--admin-url or MEDALLION_ADMIN_DATABASE_URL) "
                               "is not a valid PostgreSQL connection URL") from None
    wanted = _wanted_logins(settings, admin_parts)
    with open_login(admin, "--admin-url or MEDALLION_ADMIN_DATABASE_URL", autocommit=True) as conn:
        applied = prepare(conn, apply=True)
        logins = [_provision(conn, want) for want in wanted]
    if not settings.uses_embedded:  # a role whose URL is unset is left without a password: say so
        done = {login.role for login in logins}
        logins += [Login(role, setting, created=False, password_set=False)
                   for kind, setting, attribute in _SETTINGS
                   if (role := ROLE_NAMES[kind]) and role not in done and not getattr(settings, attribute)]
    return Report(masked(admin), applied, logins)


def _wanted_logins(settings: Settings, admin_parts: dict[str, str]) -> list[_Wanted]:
    """The logins the app's settings name, checked against the roles they must be, deduplicated by user."""
    if settings.uses_embedded:
        return []
    admin_db = admin_parts.get("dbname") or admin_parts.get("user", "")
    by_user: dict[str, _Wanted] = {}
    for kind, setting, attribute in _SETTINGS:
        url = getattr(settings, attribute)
        if not url:
            continue
        try:
            parts = login_parts(url)
        except ValueError:
            raise ProvisionRefused(f"{setting} is not a valid PostgreSQL connection URL") from None
        user = parts.get("user", "")
        database = parts.get("dbname") or user
        if database != admin_db:
            raise ProvisionRefused(f"{setting} names the database {database!r} but the administrator's URL names "
                                   f"{admin_db!r}: point both at the database being migrated")
        required = ROLE_NAMES[kind]
        if required is not None and user != required:
            raise ProvisionRefused(f"{setting} must log in as {required}, not {user!r}: the grants and row-level "
                                   "security are bound to that role")
        if kind == "admin" and user in ("medallion_owner", "medallion_tool"):
            raise ProvisionRefused(f"MEDALLION_DATABASE_URL may not log in as {user}: use a login of its own "
                                   "(created here) or medallion_engine")
        if kind == "admin" and user == admin_parts.get("user"):
            continue  # the administrator runs the app itself: nothing to set up
        want = _Wanted(kind, setting, user, parts.get("password", ""))
        seen = by_user.get(user)
        if seen is not None and seen.password != want.password:
            raise ProvisionRefused(f"{seen.setting} and {setting} log in as {user} with different passwords: "
                                   "give them the same one")
        if seen is None or kind == "admin":
            by_user[user] = want
    return list(by_user.values())


def _provision(conn: psycopg.Connection, want: _Wanted) -> Login:
    """Create (the configured login only) and give a password to one login; grant the configured login its roles."""
    role = sql.Identifier(want.user)
    own_login = want.kind == "admin" and want.user != "medallion_engine"
    created = False
    with conn.transaction():
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (want.user,)).fetchone()
        if exists is None:
            if not own_login:
                raise ProvisionRefused(f"the role {want.user} does not exist after the migrations: check that "
                                       "the administrator's URL names the app's database")
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION "
                                 "NOBYPASSRLS INHERIT").format(role))
            created = True
        if want.password:
            verifier = conn.pgconn.encrypt_password(want.password.encode(), want.user.encode()).decode()
            conn.execute(sql.SQL("ALTER ROLE {} LOGIN PASSWORD {}").format(role, sql.Literal(verifier)))
        member_of: list[str] = []
        if own_login:
            conn.execute(sql.SQL("GRANT {} TO {}").format(
                sql.SQL(", ").join(sql.Identifier(r) for r in APP_LOGIN_ROLES), role))
            member_of = list(APP_LOGIN_ROLES)
    return Login(want.user, want.setting, created, bool(want.password), member_of)
