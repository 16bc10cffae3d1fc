"""The predicate vocabulary (S9), read from the dbt seed so dbt and the engine share one list."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from pathlib import Path

SEEDS = Path(__file__).resolve().parents[2] / "dbt_project" / "seeds"


@dataclass(frozen=True)
class Predicate:
    """One row of predicates.csv."""

    name: str
    cardinality: str  # one | many
    volatility: str  # stable | volatile | ephemeral
    half_life: timedelta
    retention_class: str
    stakes: str  # low | high
    entity_valued: bool
    description: str


@lru_cache(maxsize=1)
def predicates() -> dict[str, Predicate]:
    """Name → predicate, from dbt_project/seeds/predicates.csv."""
    out = {}
    with (SEEDS / "predicates.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            out[row["name"]] = Predicate(
                name=row["name"],
                cardinality=row["cardinality"],
                volatility=row["volatility"],
                half_life=timedelta(days=int(row["default_half_life_days"])),
                retention_class=row["retention_class"],
                stakes=row["stakes"],
                entity_valued=row["entity_valued"] == "true",
                description=row["description"],
            )
    return out


def predicate(name: str) -> Predicate:
    """The vocabulary entry for ``name``; unknown names fall back to ``states``."""
    vocab = predicates()
    return vocab.get(name, vocab["states"])


def seeds_digest() -> bytes:
    """Bytes of the seed files, for the derivation fingerprint."""
    return b"".join((SEEDS / n).read_bytes() for n in ("predicates.csv", "retention_classes.csv"))
