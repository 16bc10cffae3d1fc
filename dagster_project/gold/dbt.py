"""The dbt project as the engine sees it: where it is, how dbt connects, and a prepared manifest.

dbt reads its connection from ``dbt_project/profiles.yml``, which takes every value from
``MEDALLION_DBT_*`` variables; :func:`dbt_env` derives them from the same settings as the engine
(the embedded server's socket directory becomes the host), so dbt and the engine always talk to the
same database. The manifest is prepared explicitly (``dbt parse``) whenever the project's files
changed, so tests, CI and ``make demo`` load current definitions, not only ``dagster dev``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dagster as dg
from dagster_dbt import DagsterDbtTranslator, DagsterDbtTranslatorSettings, DbtCliResource, DbtProject
from psycopg.conninfo import conninfo_to_dict

from dagster_project.db.connection import ensure_ready
from dagster_project.settings import Settings

DBT_PROJECT_DIR = Path(__file__).resolve().parents[2] / "dbt_project"
_SOURCE_STAMP = ".medallion_source_hash"
_PARSED_DIRS = ("models", "macros", "seeds", "tests")
_PARSED_FILES = ("dbt_project.yml", "profiles.yml")
_ENV_KEYS = ("MEDALLION_DBT_HOST", "MEDALLION_DBT_PORT", "MEDALLION_DBT_USER", "MEDALLION_DBT_PASSWORD",
             "MEDALLION_DBT_DBNAME")

project = DbtProject(project_dir=DBT_PROJECT_DIR, profiles_dir=DBT_PROJECT_DIR)


def dbt_env(settings: Settings) -> dict[str, str]:
    """The ``MEDALLION_DBT_*`` variables profiles.yml reads, from the engine's settings.

    dbt logs in as the administrative login (it acts as ``medallion_owner`` via the profile's role),
    the same login that runs migrations; it starts the embedded server and migrates if needed.
    """
    params = conninfo_to_dict(ensure_ready(settings))
    return {
        "MEDALLION_DBT_HOST": str(params.get("host") or "localhost"),
        "MEDALLION_DBT_PORT": str(params.get("port") or "5432"),
        "MEDALLION_DBT_USER": str(params.get("user") or "postgres"),
        "MEDALLION_DBT_PASSWORD": str(params.get("password") or ""),
        "MEDALLION_DBT_DBNAME": str(params.get("dbname") or "medallion"),
    }


@contextmanager
def dbt_environment(settings: Settings) -> Iterator[dict[str, str]]:
    """Point dbt subprocesses started inside the block at the settings' database.

    dagster-dbt starts dbt with a copy of ``os.environ``, so the variables are set for the block and
    restored after it (runs in one process are sequential; the multiprocess executor forks per run).
    """
    env = dbt_env(settings)
    saved = {key: os.environ.get(key) for key in _ENV_KEYS}
    os.environ.update(env)
    try:
        yield env
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def source_hash(project_dir: Path = DBT_PROJECT_DIR) -> str:
    """Hash of every file dbt parses: a change to any of them makes the manifest stale."""
    digest = hashlib.sha256()
    paths = [project_dir / name for name in _PARSED_FILES]
    for folder in _PARSED_DIRS:
        paths.extend(sorted(p for p in (project_dir / folder).rglob("*") if p.is_file()))
    for path in paths:
        digest.update(str(path.relative_to(project_dir)).encode())
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()


def dbt_executable() -> str:
    """The ``dbt`` installed next to this Python (the project's venv), else whatever is on PATH."""
    beside = Path(sys.executable).with_name("dbt")
    return str(beside) if beside.exists() else "dbt"


def dbt_cli() -> DbtCliResource:
    """A dbt CLI resource for the project, using the venv's dbt (the venv need not be on PATH)."""
    return DbtCliResource(project_dir=project, dbt_executable=dbt_executable())


def prepare_manifest(force: bool = False) -> Path:
    """Run ``dbt parse`` when the manifest is missing or older than the project's files.

    ``dbt parse`` needs no database connection; profiles.yml falls back to its defaults.
    """
    manifest = project.manifest_path
    stamp = manifest.parent / _SOURCE_STAMP
    current = source_hash()
    if not force and manifest.exists() and stamp.exists() and stamp.read_text() == current:
        return manifest
    command = [dbt_executable(), "parse", "--quiet", "--project-dir", str(DBT_PROJECT_DIR),
               "--profiles-dir", str(DBT_PROJECT_DIR)]
    # parse with profiles.yml's defaults, never a caller's database: the manifest names `medallion`
    env = {key: value for key, value in os.environ.items() if key not in _ENV_KEYS}
    result = subprocess.run(command, capture_output=True, text=True, check=False, cwd=DBT_PROJECT_DIR,  # noqa: S603
                            env=env)
    if result.returncode != 0:
        raise RuntimeError(f"dbt parse failed; fix the dbt project and retry:\n{result.stdout}\n{result.stderr}")
    stamp.write_text(current)
    return manifest


class MedallionDbtTranslator(DagsterDbtTranslator):
    """One lineage from the inbox to Gold.

    A dbt source takes the key of the Python asset that writes it, declared in ``sources.yml`` as
    ``meta: {dagster: {asset_key: [...]}}`` where it differs from ``<schema>/<table>`` (every
    ``bronze.*`` table is landed by ``bronze/events``; ``telemetry.model_calls`` is written by the
    derivation with ``silver/derivations``; ``gold.wiki_pages`` by ``gold/wiki``). Models are keyed
    ``<schema>/<name>`` and grouped by layer.
    """

    def get_asset_key(self, dbt_resource_props: Mapping[str, Any]) -> dg.AssetKey:
        declared = ((dbt_resource_props.get("meta") or {}).get("dagster") or {}).get("asset_key")
        if declared:
            return dg.AssetKey(declared)
        if dbt_resource_props["resource_type"] == "source":
            return dg.AssetKey([dbt_resource_props["source_name"], dbt_resource_props["name"]])
        schema = dbt_resource_props.get("config", {}).get("schema") or dbt_resource_props.get("schema")
        return dg.AssetKey([schema, dbt_resource_props["name"]])

    def get_group_name(self, dbt_resource_props: Mapping[str, Any]) -> str | None:
        if dbt_resource_props["resource_type"] == "source":
            return None
        return dbt_resource_props.get("config", {}).get("schema") or "gold"


TRANSLATOR = MedallionDbtTranslator(
    settings=DagsterDbtTranslatorSettings(enable_asset_checks=True, enable_duplicate_source_asset_keys=True,
                                          enable_source_tests_as_checks=True),
)
