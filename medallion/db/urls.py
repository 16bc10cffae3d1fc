"""Connection strings as the project shows and reads them: passwords masked, logins named, errors cut short.

A connection URL of an external server carries a password. Every message, status line and report
that names a database goes through :func:`masked`, so a log, a terminal scroll-back or a CI
transcript never holds one. Both forms libpq accepts are handled: ``postgresql://user:pw@host/db``
(with ``?password=`` too) and ``key=value`` strings.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from psycopg.conninfo import conninfo_to_dict

MASK = "***"
_KEYWORD_PASSWORD = re.compile(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)")
# A user and password that a URL parser does not see as such, because the password holds a character
# that ends the authority ('/', '?', '#'): everything from the first ':' after the user to the last '@'
# is taken as the password. It may hide more than the password, never less.
_LOOSE_USERINFO = re.compile(r"^(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:@/?#\[\]]*):(?P<secret>.+)@(?P<tail>[^@]*)$",
                             re.DOTALL)


def masked(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``; everything else as given."""
    if "://" not in url:
        return _KEYWORD_PASSWORD.sub(lambda m: m.group(1) + MASK, url)
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # a malformed URL is not echoed at all
        return "<an unparseable connection URL>"
    if not password:
        loose = _LOOSE_USERINFO.match(url)
        if loose:
            return masked(f"{loose['head']}:{MASK}@{loose['tail']}")
    netloc = parts.netloc
    if password:
        userinfo, _, hostinfo = netloc.rpartition("@")
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:{MASK}@{hostinfo}"
    query = parts.query
    if query and "password" in query:
        query = urlencode([(k, MASK if k == "password" else v) for k, v in parse_qsl(query, keep_blank_values=True)],
                          safe="/:*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def login_parts(url: str) -> dict[str, str]:
    """The libpq parameters of ``url`` (user, password, host, port, dbname, ...) as strings.

    Raises :class:`ValueError` with a message that does not repeat the URL (which may hold a password).
    """
    try:
        return {key: str(value) for key, value in conninfo_to_dict(url).items() if value is not None}
    except Exception:  # psycopg.ProgrammingError, whose message quotes the string it could not parse
        raise ValueError("not a valid PostgreSQL connection URL") from None


def secrets_of(url: str) -> list[str]:
    """The password ``url`` carries, in every spelling it may take in a message (as written, and as
    libpq decodes it), longest first; empty when there is none."""
    found: set[str] = set()
    try:
        password = conninfo_to_dict(url).get("password")
        if password:
            found.add(str(password))
    except Exception:  # noqa: S110 - not parseable by libpq: the shapes below still apply
        pass
    if "://" in url:
        try:
            parts = urlsplit(url)
            found.add(parts.password or "")
            found.update(v for k, v in parse_qsl(parts.query) if k == "password")
        except ValueError:
            pass
        loose = _LOOSE_USERINFO.match(url)
        if loose:  # libpq reads the part before a '/', '?' or '#' as a port, and may quote it
            found.update((loose["secret"], re.split(r"[/?#]", loose["secret"], maxsplit=1)[0]))
    else:
        found.update(m.group(2).strip("'") for m in _KEYWORD_PASSWORD.finditer(url))
    return sorted((s for s in found if s), key=len, reverse=True)


def scrubbed(text: str, *urls: str | None) -> str:
    """``text`` with every password of ``urls`` replaced by ``***`` (and each URL itself masked)."""
    for url in urls:
        if not url:
            continue
        text = text.replace(url, masked(url))
        for secret in secrets_of(url):
            text = text.replace(secret, MASK)
    return text


def failure_reason(exc: BaseException) -> str:
    """The part of a libpq connection error that says why, e.g. ``password authentication failed for user "x"``.

    libpq prefixes the reason with the server address and ``FATAL:``; the address is in the masked URL
    the caller shows next to it.
    """
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    for marker in ("FATAL:", "failed:"):
        if marker in text:
            text = text.rsplit(marker, 1)[1]
            break
    return text.strip() or type(exc).__name__
