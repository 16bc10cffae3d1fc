"""dbt builds keep their parse state per database and leave no build directory behind
(medallion/publish/dbt_runner.py ``build_target``): without it every materialization parsed the whole
project again and left about 6 MB under dbt_project/target/."""

from __future__ import annotations

from pathlib import Path

import pytest

from medallion.publish.dbt_runner import PARSE_STATES_KEPT, build_target, parse_state

HERE = {"MEDALLION_DBT_HOST": "/run/pg", "MEDALLION_DBT_PORT": "5432", "MEDALLION_DBT_USER": "postgres",
        "MEDALLION_DBT_DBNAME": "medallion"}


def _build(root: Path, env: dict[str, str], state: bytes) -> bytes | None:
    """One build as dbt does it: reads the seeded state (if any), writes its own and its artefacts."""
    with build_target(env, root) as target:
        seeded = target / "partial_parse.msgpack"
        before = seeded.read_bytes() if seeded.exists() else None
        seeded.write_bytes(state)
        (target / "run_results.json").write_text("{}")
    return before


def test_a_build_starts_from_the_state_of_the_last_build_against_the_same_database(tmp_path: Path) -> None:
    assert _build(tmp_path, HERE, b"first") is None
    assert _build(tmp_path, HERE, b"second") == b"first"
    elsewhere = {**HERE, "MEDALLION_DBT_DBNAME": "other"}
    assert _build(tmp_path, elsewhere, b"other's") is None, "another database's state would make dbt re-parse"
    assert _build(tmp_path, {**HERE, "MEDALLION_DBT_PASSWORD": "changed"}, b"third") == b"second"
    assert parse_state(HERE, tmp_path).read_bytes() == b"third"
    assert [p.name for p in tmp_path.iterdir()] == ["parse_state"], "a finished build leaves no directory"


def test_a_failed_build_keeps_its_directory_for_inspection(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), build_target(HERE, tmp_path) as target:
        (target / "dbt.log").write_text("error")
        raise RuntimeError("dbt build failed")
    assert (target / "dbt.log").read_text() == "error"


def test_only_the_latest_databases_keep_a_state(tmp_path: Path) -> None:
    for n in range(PARSE_STATES_KEPT + 3):
        _build(tmp_path, {**HERE, "MEDALLION_DBT_DBNAME": f"db{n}"}, b"state")
    kept = sorted((tmp_path / "parse_state").iterdir())
    assert len(kept) == PARSE_STATES_KEPT
    assert parse_state({**HERE, "MEDALLION_DBT_DBNAME": f"db{PARSE_STATES_KEPT + 2}"}, tmp_path) in kept
