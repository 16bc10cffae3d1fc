"""The vocabulary seeds and the predicate vocabulary (S9): the one loader of the seed files.

The seeds (``medallion/distill/seeds/*.csv``: predicates, their aliases, retention classes) ship
inside the package, so an installed wheel reads the same vocabulary as a checkout. dbt loads the
same files: ``dbt_project/seeds/`` holds symbolic links to them, so there is one copy. Every reader
of a seed file goes through :func:`seed_rows` or :func:`seed_bytes` here.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

SEEDS = Path(str(files("medallion.distill") / "seeds"))


def seed_rows(name: str) -> list[dict[str, str]]:
    """The rows of the seed file ``name`` (``predicates.csv`` …), each a header → value mapping."""
    with (SEEDS / name).open(newline="") as fh:
        return list(csv.DictReader(fh))


def seed_bytes(*names: str) -> bytes:
    """The seed files' bytes, concatenated in the given order (what a fingerprint hashes)."""
    return b"".join((SEEDS / name).read_bytes() for name in names)


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
    """Name → predicate, from the seed predicates.csv."""
    out = {}
    for row in seed_rows("predicates.csv"):
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
    return seed_bytes("predicates.csv", "retention_classes.csv")
