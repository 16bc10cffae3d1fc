"""Connection strings in messages (db/urls.py): the password is masked in every form libpq accepts."""

from __future__ import annotations

import psycopg
import pytest

from medallion.db.urls import failure_reason, login_parts, masked


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
