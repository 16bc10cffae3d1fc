"""Dagster's conventions, in one place: who owns the assets, the code version of each Python asset,
and the column schema of the table it writes.

- **Owners.** Every asset names its owners (the UI's owner filter and catalog). They come from
  ``MEDALLION_ASSET_OWNERS`` (comma-separated emails or ``team:<name>``), ``team:medallion`` by default,
  so a deployment names its own team without editing code.
- **Code versions.** A Python asset's code version is a digest of the files that decide what it
  writes (the engine package or module it calls, its asset module, the model cards for Silver), so
  the UI marks an asset whose code changed since it was last materialized, without anyone bumping a
  number by hand.
- **Column schemas.** The engine's tables are documented once, as dbt sources in
  ``dbt_project/models/staging/_<schema>__sources.yml`` (the data dictionary reads them too); the
  Python asset that writes a table takes its ``dagster/column_schema`` from there.
"""

import hashlib
import json
import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import dagster as dg

from medallion.publish.dbt_runner import prepare_manifest

REPO = Path(__file__).resolve().parents[1]
OWNERS_VARIABLE = "MEDALLION_ASSET_OWNERS"
DEFAULT_OWNERS = "team:medallion"
_EMAIL = re.compile(r"[^@\s,]+@[^@\s,]+\.[^@\s,]+")
_TEAM = re.compile(r"team:[A-Za-z0-9_.-]+")


def asset_owners(raw: str | None = None) -> list[str]:
    """The owners every asset names: ``raw`` (default: ``MEDALLION_ASSET_OWNERS``, else ``team:medallion``).

    Raises ``ValueError`` in one sentence when an owner is neither an email address nor ``team:<name>``
    (Dagster would refuse the code location with a longer message).
    """
    raw = os.environ.get(OWNERS_VARIABLE) if raw is None else raw
    owners = [o.strip() for o in (raw or DEFAULT_OWNERS).split(",") if o.strip()]
    bad = [o for o in owners if not (_EMAIL.fullmatch(o) or _TEAM.fullmatch(o))]
    if bad or not owners:
        raise ValueError(f"{OWNERS_VARIABLE}={raw!r} names {', '.join(bad) or 'no owner'}: set it to comma-separated "
                         "email addresses or team:<name> entries, e.g. team:data-platform,ana@example.com")
    return owners


OWNERS = asset_owners()


def code_version(*paths: str) -> str:
    """A digest of the files under ``paths`` (repository-relative files or directories; Python, SQL,
    YAML, CSV and prompt files), 16 hex digits: it changes exactly when one of them does."""
    digest = hashlib.sha256()
    for path in paths:
        root = REPO / path
        files = [root] if root.is_file() else sorted(
            p for p in root.rglob("*") if p.is_file() and p.suffix in {".py", ".sql", ".yml", ".yaml", ".csv", ".txt",
                                                                       ".md"}
            and "__pycache__" not in p.parts)
        if not files:
            raise FileNotFoundError(f"no source files under {path}: fix the code version's paths")
        for file in files:
            digest.update(file.relative_to(REPO).as_posix().encode())
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()[:16]


@lru_cache(maxsize=1)
def _manifest() -> Mapping[str, Any]:
    return json.loads(prepare_manifest().read_text())


def source_schema(table: str) -> dg.TableSchema:
    """The column schema of an engine table (``schema.name``) as its dbt source declares it."""
    for source in _manifest().get("sources", {}).values():
        if f"{source['source_name']}.{source['name']}" == table:
            return dg.TableSchema(columns=[
                dg.TableColumn(name, type=column.get("data_type") or "unknown",
                               description=(column.get("description") or "").strip() or None)
                for name, column in source.get("columns", {}).items()])
    raise LookupError(f"{table} is not a dbt source: declare it in "
                      f"dbt_project/models/staging/_{table.split('.')[0]}__sources.yml")


def table_metadata(table: str, schema: dg.TableSchema | None = None) -> dict[str, Any]:
    """Definition metadata of an asset that writes ``table``: its name and its column schema."""
    return {"dagster/table_name": table, "dagster/column_schema": schema or source_schema(table)}
