"""Connection strings in messages (db/urls.py): the password is masked in every form libpq accepts."""

from __future__ import annotations

import psycopg
import pytest

from medallion.db.urls import failure_reason, login_parts, masked, scrubbed, secrets_of


@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://app:s3cret@127.0.0.1:5433/medallion", "postgresql://app:***@127.0.0.1:5433/medallion"),
    ("postgresql://app:p%40ss@db.example/medallion?sslmode=require",
     "postgresql://app:***@db.example/medallion?sslmode=require"),
    ("postgres://app@db/m?password=s3cret&sslmode=require", "postgres://app@db/m?password=***&sslmode=require"),
    ("host=db user=app password=s3cret dbname=m", "host=db user=app password=*** dbname=m"),
    ("host=db password='s3 cret' user=app", "host=db password=*** user=app"),
])
def test_a_password_is_masked_and_the_rest_kept(url: str, shown: str) -> None:
    assert masked(url) == shown


def test_a_url_without_password_is_shown_as_given() -> None:
    """The embedded server's socket URLs (an empty password) appear unchanged in `db start` / `db status`."""
    url = "postgresql://postgres:@/medallion?host=/tmp/medallion-runtime-0/abc"
    assert masked(url) == url


def test_an_unparseable_url_is_not_echoed() -> None:
    """psycopg's own parse error quotes the string, password and all; login_parts does not."""
    bad = "postgresql//app:s3cret@db x"
    with pytest.raises(psycopg.ProgrammingError, match="s3cret"):
        psycopg.conninfo.conninfo_to_dict(bad)
    with pytest.raises(ValueError) as caught:
        login_parts(bad)
    assert "s3cret" not in str(caught.value)
    assert login_parts("postgresql://app:p%40ss@db:5433/m") == {
        "user": "app", "password": "p@ss", "host": "db", "port": "5433", "dbname": "m"}


def test_failure_reason_keeps_what_libpq_says_went_wrong() -> None:
    refused = psycopg.OperationalError('connection failed: connection to server at "127.0.0.1", port 5433 failed: '
                                       'FATAL:  password authentication failed for user "app"')
    assert failure_reason(refused) == 'password authentication failed for user "app"'
    down = psycopg.OperationalError('connection failed: connection to server at "127.0.0.1", port 1 failed: '
                                    "Connection refused\n\tIs the server running on that host?")
    assert failure_reason(down) == "Connection refused"


@pytest.mark.parametrize(("url", "shown"), [
    # a password holding '/', '?' or '#': a URL parser ends the authority there and sees no password
    ("postgresql://app:pa/ss@127.0.0.1:5433/medallion", "postgresql://app:***@127.0.0.1:5433/medallion"),
    ("postgresql://app:pa?ss@db/medallion", "postgresql://app:***@db/medallion"),
    ("postgresql://app:pa#ss@db/medallion?password=x", "postgresql://app:***@db/medallion?password=***"),
])
def test_a_password_a_url_parser_misses_is_masked_too(url: str, shown: str) -> None:
    assert masked(url) == shown


def test_hosts_and_query_values_with_colons_or_at_signs_are_kept() -> None:
    for url in ("postgresql://[::1]:5432/medallion", "postgresql://app@db/m?application_name=a@b",
                "postgresql://db:5432/medallion"):
        assert masked(url) == url


@pytest.mark.parametrize(("url", "quoted"), [
    ("postgresql://app:s3cret-pw@db/m", "s3cret-pw"),
    ("postgresql://app:p%40ss-word@db/m", "p@ss-word"),  # libpq decodes it
    ("host=db password=s3cret-pw user=app", "s3cret-pw"),
    ("postgresql://app@db/m?password=s3cret-pw", "s3cret-pw"),
    ("postgresql://app:s3cret/pw@db/m", "s3cret"),  # libpq reads the part before '/' as a port
])
def test_scrubbed_removes_the_password_in_every_spelling(url: str, quoted: str) -> None:
    """What a library says about a connection string (the URL, its decoded password, a part read as a
    port) loses the password."""
    text = f'cannot use {url}: invalid integer value "{quoted}" for connection option "port"'
    clean = scrubbed(text, url)
    assert quoted not in clean and all(secret not in clean for secret in secrets_of(url)), clean
    assert clean.endswith('for connection option "port"')


def test_settings_never_show_a_secret_in_their_repr(monkeypatch) -> None:
    """A Settings object printed by a traceback, a pytest failure or a log line shows no password,
    API key or token."""
    from medallion.settings import get_settings

    monkeypatch.setenv("MEDALLION_DATABASE_URL", "postgresql://app:s3cret-pw@db.example:5432/memory")
    monkeypatch.setenv("MEDALLION_ADMIN_DATABASE_URL", "postgresql://root:adm1n-pw@db.example:5432/memory")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    monkeypatch.setenv("MEDALLION_TOKEN", "mm_tok_secret")
    shown = repr(get_settings()) + str(get_settings())
    for secret in ("s3cret-pw", "adm1n-pw", "sk-very-secret", "mm_tok_secret"):
        assert secret not in shown
