"""The data dictionary (D2): dbt's manifest and the database's catalog as ``gold.column_meta`` and Markdown.

dbt's manifest says what we declared (descriptions and ``meta``); the catalog says what the database
has: every declared relation's real columns and types, read from ``pg_catalog`` with the query
dbt-postgres's own ``dbt docs generate`` runs, so the types read the same. Reading it here, over the
connection the asset already holds, costs a query instead of a dbt process (a parse and a compile of
the whole project: 7 to 11 s a materialization). The dictionary walks the *catalog*, so a column
that exists in the database but was never declared shows up with an empty description and fails the
test instead of silently missing. Meta keys (domain, unit, source_system,
semantics, retention_class) are read from the column, then its relation, then its source.
The Markdown is deterministic (no timestamps, sorted) so the committed file can be compared with a
fresh generation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg

META_KEYS = ("domain", "unit", "source_system", "semantics", "retention_class")
SCHEMA_ORDER = ("bronze", "silver", "telemetry", "reference", "staging", "silver_views", "gold_marts", "gold")
_SCHEMA_TITLES = {
    "bronze": "Bronze — raw, immutable events (written by ingest)",
    "silver": "Silver — the engine's ledger tables",
    "telemetry": "Telemetry — model calls and tool calls",
    "reference": "Reference — vocabulary seeds (dbt seeds)",
    "staging": "Staging — dbt views that rename and cast the engine's tables",
    "silver_views": "Silver views — dbt views over the ledger (current beliefs, history, as-of, graph, vocabulary)",
    "gold_marts": "Gold marts — dbt tables consumers read (enforced contracts)",
    "gold": "Gold — what the engine publishes (the data dictionary, wiki pages, drift reports, approvals)",
}
# gold.column_meta is loaded by this module after dbt has run, so dbt cannot declare it; it
# describes itself here (the migration 0008 creates it with these columns).
_SELF = "gold.column_meta"
_SELF_DESCRIPTION = "The data dictionary: one row per column of every documented relation, loaded from dbt docs."
_SELF_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("layer", "text", "The schema the relation lives in (bronze, silver, telemetry, reference, staging, "
                      "silver_views, gold_marts, gold)."),
    ("relation", "text", "The relation as schema.name."),
    ("column_name", "text", "The column's name."),
    ("ordinal", "integer", "The column's position in its relation, from 1."),
    ("data_type", "text", "The column's PostgreSQL type as the catalog reports it."),
    ("description", "text", "What the column means, from its dbt description."),
    ("domain", "text", "The business domain the column belongs to (meta key domain)."),
    ("unit", "text", "The unit of a measure, when it has one (meta key unit)."),
    ("source_system", "text", "What writes the data (meta key source_system)."),
    ("semantics", "text", "The column's role: identifier, dimension, measure, valid_time ... (meta key semantics)."),
    ("retention_class", "text", "How long the data is kept: ephemeral, durable, archived or versioned."),
    ("relation_description", "text", "What the relation holds, from its dbt description."),
    ("generated_at", "timestamp with time zone", "When this dictionary was generated."),
)


@dataclass(frozen=True)
class ColumnMeta:
    """One row of the dictionary."""

    layer: str
    relation: str
    column_name: str
    ordinal: int
    data_type: str
    description: str
    domain: str | None
    unit: str | None
    source_system: str | None
    semantics: str | None
    retention_class: str | None
    relation_description: str
    kind: str


@dataclass(frozen=True)
class Dictionary:
    """The generated dictionary: its rows in layer / relation / ordinal order."""

    rows: list[ColumnMeta]

    @property
    def relation_count(self) -> int:
        return len({r.relation for r in self.rows})


def _meta(*layers: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge meta dictionaries, earlier ones winning."""
    merged: dict[str, Any] = {}
    for layer in reversed(layers):
        merged.update(layer or {})
    return merged


def _text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def build_rows(manifest: Mapping[str, Any], catalog: Mapping[str, Any]) -> list[ColumnMeta]:
    """Join the catalog's real columns with the manifest's descriptions and meta."""
    declared: dict[str, Mapping[str, Any]] = {**manifest.get("nodes", {}), **manifest.get("sources", {})}
    rows: list[ColumnMeta] = []
    for section in ("nodes", "sources"):
        for unique_id, entry in catalog.get(section, {}).items():
            node = declared.get(unique_id)
            if node is None:
                continue
            schema, name = entry["metadata"]["schema"], entry["metadata"]["name"]
            relation = f"{schema}.{name}"
            node_meta = _meta(node.get("config", {}).get("meta"), node.get("meta"), node.get("source_meta"))
            kind = "source table (engine)" if section == "sources" else (
                "seed" if node["resource_type"] == "seed" else node.get("config", {}).get("materialized", "model"))
            relation_description = (node.get("description") or "").strip()
            columns = node.get("columns", {})
            for column in entry["columns"].values():
                declared_column = columns.get(column["name"]) or columns.get(column["name"].lower()) or {}
                meta = _meta(declared_column.get("config", {}).get("meta"), declared_column.get("meta"), node_meta)
                rows.append(ColumnMeta(
                    layer=schema, relation=relation, column_name=column["name"], ordinal=int(column["index"]),
                    data_type=column["type"], description=(declared_column.get("description") or "").strip(),
                    domain=_text(meta.get("domain")), unit=_text(meta.get("unit")),
                    source_system=_text(meta.get("source_system")), semantics=_text(meta.get("semantics")),
                    retention_class=_text(meta.get("retention_class")), relation_description=relation_description,
                    kind=kind,
                ))
    rows.extend(
        ColumnMeta(layer="gold", relation=_SELF, column_name=name, ordinal=index, data_type=data_type,
                   description=description, domain="governance", unit=None, source_system="data dictionary asset",
                   semantics="dimension", retention_class="durable", relation_description=_SELF_DESCRIPTION,
                   kind="table (data dictionary asset)")
        for index, (name, data_type, description) in enumerate(_SELF_COLUMNS, start=1)
    )
    order = {schema: i for i, schema in enumerate(SCHEMA_ORDER)}
    rows.sort(key=lambda r: (order.get(r.layer, len(order)), r.relation, r.ordinal))
    return rows


# dbt-postgres's catalog query (macros/catalog.sql), over the schemas the manifest declares relations in
_CATALOG_SQL = """
SELECT sch.nspname, tbl.relname, col.attname, col.attnum, pg_catalog.format_type(col.atttypid, col.atttypmod)
FROM pg_catalog.pg_namespace sch
JOIN pg_catalog.pg_class tbl ON tbl.relnamespace = sch.oid
JOIN pg_catalog.pg_attribute col ON col.attrelid = tbl.oid
WHERE sch.nspname = ANY(%s)
  AND NOT pg_is_other_temp_schema(sch.oid)
  AND tbl.relpersistence IN ('p', 'u')
  AND tbl.relkind IN ('r', 'v', 'f', 'p', 'm')
  AND col.attnum > 0 AND NOT col.attisdropped
ORDER BY sch.nspname, tbl.relname, col.attnum
"""
_CATALOGUED = ("model", "seed", "snapshot")  # what dbt's catalog lists of the manifest's nodes


def read_catalog(conn: psycopg.Connection, manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The catalog of the manifest's relations as the database has them, in ``catalog.json``'s shape
    (``nodes`` and ``sources``: unique id → schema, name and columns with index and type). A declared
    relation the database lacks is left out, as dbt leaves it out."""
    declared: dict[tuple[str, str], tuple[str, str]] = {}
    for unique_id, node in manifest.get("nodes", {}).items():
        if node.get("resource_type") in _CATALOGUED:
            declared[(node["schema"].lower(), (node.get("alias") or node["name"]).lower())] = ("nodes", unique_id)
    for unique_id, source in manifest.get("sources", {}).items():
        declared[(source["schema"].lower(), (source.get("identifier") or source["name"]).lower())] = (
            "sources", unique_id)
    catalog: dict[str, Any] = {"nodes": {}, "sources": {}}
    schemas = sorted({schema for schema, _ in declared})
    for schema, name, column, index, data_type in conn.execute(_CATALOG_SQL, (schemas,)).fetchall():
        owner = declared.get((schema.lower(), name.lower()))
        if owner is None:
            continue
        entry = catalog[owner[0]].setdefault(owner[1], {"metadata": {"schema": schema, "name": name}, "columns": {}})
        entry["columns"][column] = {"name": column, "index": index, "type": data_type}
    return catalog


def generate(conn: psycopg.Connection, manifest: Mapping[str, Any]) -> Dictionary:
    """The dictionary of the database ``conn`` reaches, described by ``manifest`` (dbt's, parsed)."""
    return Dictionary(build_rows(manifest, read_catalog(conn, manifest)))


def load(conn: psycopg.Connection, rows: Sequence[ColumnMeta]) -> int:
    """Replace ``gold.column_meta`` with ``rows`` in one transaction."""
    now = datetime.now(UTC)
    with conn.transaction(), conn.cursor() as cur:
        cur.execute("DELETE FROM gold.column_meta")
        cur.executemany(
            "INSERT INTO gold.column_meta (layer, relation, column_name, ordinal, data_type, description, domain, "
            "unit, source_system, semantics, retention_class, relation_description, generated_at) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [(r.layer, r.relation, r.column_name, r.ordinal, r.data_type, r.description, r.domain, r.unit,
              r.source_system, r.semantics, r.retention_class, r.relation_description, now) for r in rows],
        )
    return len(rows)


def _cell(value: str | None) -> str:
    return (value or "").replace("|", "\\|").replace("\n", " ")


def render_markdown(dictionary: Dictionary) -> str:
    """DATA_DICTIONARY.md: one section per layer, one table per relation."""
    lines = [
        "# Data dictionary",
        "",
        "Generated from dbt docs by the `gold/column_meta` asset (`make demo` or `medallion docs --generate-only`);",
        "do not edit by hand: a test fails when this file differs from a fresh generation. The same rows are",
        "queryable in `gold.column_meta`. Meta columns: *unit*, *semantics* (the column's role) and *retention*",
        "(the retention class, see STANDARDS.md); each relation names its domain and the system that writes it.",
        "",
    ]
    by_relation: dict[str, list[ColumnMeta]] = {}
    for row in dictionary.rows:
        by_relation.setdefault(row.relation, []).append(row)
    current_layer = None
    for relation, columns in by_relation.items():
        first = columns[0]
        if first.layer != current_layer:
            current_layer = first.layer
            lines += [f"## {_SCHEMA_TITLES.get(current_layer, current_layer)}", ""]
        lines += [
            f"### `{relation}`",
            "",
            f"{first.relation_description or '(no description)'}",
            "",
            f"*{first.kind}* · domain: {first.domain or '—'} · written by: {first.source_system or '—'}",
            "",
            "| column | type | description | unit | semantics | retention |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| `{c.column_name}` | {_cell(c.data_type)} | {_cell(c.description)} | {_cell(c.unit)} "
            f"| {_cell(c.semantics)} | {_cell(c.retention_class)} |"
            for c in columns
        ]
        lines.append("")
    return "\n".join(lines)


def write_markdown(dictionary: Dictionary, path: Path) -> Path:
    """Write the Markdown dictionary to ``path`` (only when it changed, to keep file times stable)."""
    text = render_markdown(dictionary)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path
