"""A test module's own database: its turns remembered through the tools, derived once, then read.

Several integration modules need the same thing: a fresh database, a handful of turns remembered as a
user would remember them (``Tools.remember`` without deriving), one derivation of their namespaces, and
tools opened on the result. This is that fixture body, once.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from medallion.db.connection import connect
from medallion.serve.tools import Tools, open_tools
from medallion.settings import Settings
from medallion.silver.derive import derive
from tests.conftest import fresh_database


@contextmanager
def remembered_tools(pg_server: str, tmp: Path, turns: Sequence[Mapping[str, Any]],
                     namespaces: Sequence[str]) -> Iterator[Tools]:
    """Tools on a fresh database holding ``turns`` (each the keyword arguments of one
    ``Tools.remember`` call), derived once over ``namespaces``."""
    with fresh_database(pg_server) as url:
        settings = Settings(home=tmp / "home", database_url=url, inbox=tmp / "inbox")
        with open_tools(None, settings) as opened:
            for turn in turns:
                opened.remember(**turn, derive_now=False)
        conn = connect(settings, "engine", autocommit=True)
        try:
            derive(conn, settings, namespaces=list(namespaces))
        finally:
            conn.close()
        with open_tools(None, settings) as opened:
            yield opened
