"""Shared helpers for benchmarks: their data files, a private embedded server, machine info, result files."""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import psycopg
from psycopg import sql

from medallion.db import embedded
from medallion.settings import Settings

RESULTS = Path(__file__).resolve().parent / "results"
# Benchmark data is never copied into the repository: it lies in ../shared/data next to the checkout
# (as CI lays it out) unless an environment variable names the file. The tests carry their own data.
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@dataclass(frozen=True)
class Dataset:
    """A benchmark's data file: where it is looked for, and what to tell a user who does not have it."""

    label: str
    filename: str
    env: str
    origin: str

    @property
    def path(self) -> Path:
        """The file named by the environment variable, else the one in ../shared/data."""
        return Path(os.environ.get(self.env) or SHARED_DATA / self.filename)

    def require(self, path: Path | str | None = None) -> Path:
        """``path`` (default :attr:`path`) when it is a file; else the script ends with exit status 2 and
        one sentence saying where to put the file, because a benchmark without its data has nothing to run."""
        path = Path(path) if path is not None else self.path
        if not path.is_file():
            print(f"{self.label} data not found at {path}: put {self.filename} ({self.origin}) there, "
                  f"or set {self.env} to the file's path.", file=sys.stderr)
            raise SystemExit(2)
        return path


LOCOMO = Dataset("LoCoMo", "locomo10.json", "LOCOMO_PATH", "from github.com/snap-research/LoCoMo")
FACTCONSOLIDATION = Dataset("FactConsolidation", "memoryagentbench_factconsolidation.json",
                            "FACTCONSOLIDATION_PATH", "the MemoryAgentBench sets, ai-hyz/MemoryAgentBench")


@contextmanager
def bench_settings(dbname: str = "bench") -> Iterator[Settings]:
    """Settings for a throwaway embedded server, started and configured as the product starts its own
    (``medallion.db.embedded.start``: shared buffers by the machine's memory), and a fresh database;
    stopped and deleted afterwards."""
    with tempfile.TemporaryDirectory(prefix="medallion-bench-") as tmp:
        server = Settings(home=Path(tmp) / "home", database_url=None, inbox=Path(tmp) / "inbox")
        url = embedded.start(server)
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
            yield Settings(home=server.home, database_url=embedded.with_database(url, dbname), inbox=server.inbox)
        finally:
            embedded.stop(server)


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
