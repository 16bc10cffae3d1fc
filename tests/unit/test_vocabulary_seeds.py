"""The vocabulary seeds ship with the package and have one copy and one loader.

An installed wheel has no ``dbt_project/``: the engine must read its predicates from package data, and
dbt must load the very same files (a second copy would drift from the first).
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

from medallion.distill import vocabulary

REPO = Path(__file__).resolve().parents[2]
ENGINE_SEEDS = ("predicates.csv", "predicate_aliases.csv", "retention_classes.csv")


def test_the_package_declares_its_seeds_as_package_data() -> None:
    """Every seed the engine reads is matched by a package-data pattern, so the wheel ships it."""
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["medallion"]
    for name in ENGINE_SEEDS:
        path = (vocabulary.SEEDS / name).relative_to(REPO / "medallion").as_posix()
        assert any(fnmatch.fnmatch(path, p) for p in patterns), f"{path} is not package data"


def test_the_package_ships_its_model_cards_and_prompts() -> None:
    """The model cards (``distill/model_configs/*.yaml``) and the prompts they name are read at run
    time by the LLM client and the fingerprint; an installed wheel has no repository around it."""
    from medallion.distill import llm

    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["medallion"]
    assert llm.MODELS.resolve().is_relative_to(REPO / "medallion")
    files = [p for p in llm.MODELS.rglob("*") if p.is_file()]
    assert any(p.suffix == ".yaml" for p in files) and any(p.parent.name == "prompts" for p in files)
    for file in files:
        path = file.relative_to(REPO / "medallion").as_posix()
        assert any(fnmatch.fnmatch(path, p) for p in patterns), f"{path} is not package data"


def test_dbt_loads_the_same_seed_files_the_engine_reads() -> None:
    """``dbt_project/seeds/`` holds links to the package's seeds: one copy of each file."""
    for name in ENGINE_SEEDS:
        dbt_copy = REPO / "dbt_project" / "seeds" / name
        assert dbt_copy.is_symlink(), f"{dbt_copy} should link to the package's seed"
        assert dbt_copy.resolve() == (vocabulary.SEEDS / name).resolve()


def test_only_the_loader_reads_seed_files() -> None:
    """No engine module but ``distill/vocabulary.py`` builds a path to the seeds folder: the others
    ask the loader (``seed_rows``, ``seed_bytes``, ``predicates``)."""
    readers = sorted(
        path.relative_to(REPO).as_posix() for path in (REPO / "medallion").rglob("*.py")
        if path.name != "vocabulary.py" and ("SEEDS" in (text := path.read_text()) or '/ "seeds"' in text))
    assert readers == []
    assert len(vocabulary.predicates()) > 10 and vocabulary.predicate("works_at").cardinality == "one"
