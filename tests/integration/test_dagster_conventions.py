"""The code location as a data engineer meets it in the Dagster UI: groups that follow the data, an owner
on every asset, a code version and a column schema on every Python asset, a description on every
asset check, descriptions that cite only what the repository defines, and a drift trend that shows
clean runs."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import UTC, datetime, timedelta

import dagster as dg
import psycopg
import pytest

from dagster_project.assets.audit import MIRRORED_DOCUMENT, trend_figure, trend_series
from dagster_project.conventions import OWNERS, asset_owners
from dagster_project.dbt import check_description
from dagster_project.definitions import defs
from dagster_project.keys import PYTHON_ASSETS
from medallion.audit.hindsight_mirror import LedgerFact
from tests.conftest import REPO

# The groups in the order the data flows; every edge between two groups goes forward in this list.
GROUP_ORDER = ["bronze", "silver", "projections", "audit", "telemetry", "reference", "staging", "silver_views",
               "gold_marts", "dictionary"]
GRAPH = defs.resolve_asset_graph()


def _group_edges() -> set[tuple[str, str]]:
    edges = set()
    for key in GRAPH.get_all_asset_keys():
        for parent in GRAPH.get(key).parent_keys:
            upstream, downstream = GRAPH.get(parent).group_name, GRAPH.get(key).group_name
            if upstream != downstream:
                edges.add((upstream, downstream))
    return edges


def test_groups_follow_the_data_without_a_cycle() -> None:
    """bronze → silver → (projections → audit) → staging → silver_views → gold_marts → dictionary: no group
    holds both an engine asset and a dbt model, and no two groups feed each other."""
    groups = {GRAPH.get(key).group_name for key in GRAPH.get_all_asset_keys()}
    assert groups == set(GROUP_ORDER)
    edges = _group_edges()
    backwards = [(a, b) for a, b in edges if GROUP_ORDER.index(a) > GROUP_ORDER.index(b)]
    assert not backwards, f"group edges against the data: {backwards}"
    # the main line is there, in order
    for edge in [("bronze", "silver"), ("silver", "staging"), ("staging", "silver_views"),
                 ("silver_views", "gold_marts"), ("gold_marts", "dictionary"), ("audit", "staging")]:
        assert edge in edges, edge
    # and acyclic as a graph, whatever the order above says
    remaining, children = set(groups), defaultdict(set)
    for a, b in edges:
        children[a].add(b)
    while remaining:
        roots = [g for g in remaining if not any(g in children[p] for p in remaining)]
        assert roots, f"a cycle between groups among {sorted(remaining)}"
        remaining -= set(roots)


def test_every_asset_has_an_owner_and_owners_are_configurable() -> None:
    keys = GRAPH.get_all_asset_keys()
    assert len(keys) > 40
    unowned = {key.to_user_string(): list(GRAPH.get(key).owners) for key in keys}
    assert {key: owners for key, owners in unowned.items() if owners != OWNERS} == {}
    assert OWNERS == ["team:medallion"]  # the default: MEDALLION_ASSET_OWNERS is not set here
    assert asset_owners("team:data-platform, ana@example.com") == ["team:data-platform", "ana@example.com"]
    with pytest.raises(ValueError, match=r"MEDALLION_ASSET_OWNERS='data platform' names data platform: set it to "):
        asset_owners("data platform")


def test_python_assets_have_a_code_version_and_a_column_schema() -> None:
    for key in PYTHON_ASSETS:
        node = GRAPH.get(key)
        assert re.fullmatch(r"[0-9a-f]{16}", node.code_version or ""), key
        schema = node.metadata.get("dagster/column_schema")
        schema = getattr(schema, "schema", schema)  # a TableSchemaMetadataValue wraps the TableSchema
        assert isinstance(schema, dg.TableSchema) and schema.columns, key
        assert all(column.description for column in schema.columns), key


def test_column_schemas_are_the_tables_columns(engine_conn: psycopg.Connection) -> None:
    """The schema each Python asset declares is the one its table has in a migrated database (the
    Hindsight mirror writes documents, not a table: its schema is the document it sends)."""
    for key in PYTHON_ASSETS:
        metadata = GRAPH.get(key).metadata
        table = metadata.get("dagster/table_name")
        schema = metadata["dagster/column_schema"]
        schema = getattr(schema, "schema", schema)
        if table is None:
            continue
        namespace, name = str(getattr(table, "value", table)).split(".")
        columns = [r[0] for r in engine_conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = %s AND table_name = %s "
            "ORDER BY ordinal_position", (namespace, name))]
        assert sorted(c.name for c in schema.columns) == sorted(columns), key
    fact = LedgerFact("f", "ns", "doc", "s", "p", "v", "statement", datetime.now(UTC), True, 1, False)
    assert {c.name for c in MIRRORED_DOCUMENT.columns} == {"document_id", "content", "timestamp",
                                                             *(f"metadata.{k}" for k in fact.metadata())}


def test_every_asset_check_has_a_description() -> None:
    checks = GRAPH.asset_check_keys
    assert len(checks) > 80
    assert [str(c) for c in checks if not (GRAPH.get(c).description or "").strip()] == []


def test_dbt_check_descriptions_say_what_is_asserted() -> None:
    def test(name: str, **kwargs: object) -> dict:
        return {"name": name, "test_metadata": {"name": name, "kwargs": kwargs}, "config": {}}

    assert check_description(test("not_null", column_name="fact_id")) == "`fact_id` is never null."
    assert check_description(test("accepted_values", column_name="kind", values=["a", "b"])) \
        == "`kind` is one of: a, b."
    assert check_description(test("relationships", column_name="subject_id", to="ref('stg_silver__entities')",
                                  field="entity_id")) == \
        "Every `subject_id` is an existing `entity_id` of `stg_silver__entities`."
    warned = {**test("unique", column_name="slot"), "config": {"severity": "warn", "where": "valid_to is null"}}
    assert check_description(warned) == \
        "`slot` is unique: no two rows share a value (rows where valid_to is null). A failure warns; it does not block."
    assert check_description({"name": "assert_x", "description": "  Own words.  ", "config": {}}) == "Own words."
    singular = GRAPH.get(dg.AssetCheckKey(dg.AssetKey(["staging", "stg_silver__facts"]),
                                          "assert_no_fact_without_provenance"))
    assert singular.description.startswith("Every fact names the Bronze event")


def _descriptions() -> dict[str, str]:
    texts = {key.to_user_string(): GRAPH.get(key).description or "" for key in GRAPH.get_all_asset_keys()}
    texts.update({str(key): GRAPH.get(key).description or "" for key in GRAPH.asset_check_keys})
    texts.update({f"job {job.name}": job.description or "" for job in defs.jobs or []})
    texts.update({f"sensor {s.name}": s.description or "" for s in defs.sensors or []})
    texts.update({f"schedule {s.name}": s.description or "" for s in defs.schedules or []})
    return texts


def test_descriptions_cite_only_what_the_repository_defines() -> None:
    """A feature id in a description ("S5", "G9", "4.1") is one docs/ARCHITECTURE.md's feature map
    defines; no description points at a spec outside the repository or promises a later issue."""
    defined = set(re.findall(r"^\| ([A-Z]\d+|\d+\.\d+) \|", (REPO / "docs" / "ARCHITECTURE.md").read_text(), re.M))
    assert {"S5", "G9", "4.1"} <= defined
    cited = re.compile(r"\(([^()]*)\)")
    feature = re.compile(r"\b(?:[A-Z]\d{1,2}|\d\.\d)\b")
    for name, text in _descriptions().items():
        prose = text.split("#### Raw SQL")[0]  # dagster-dbt appends the model's SQL
        for group in cited.findall(prose):
            for token in feature.findall(group):
                assert token in defined, f"{name} cites {token}, which docs/ARCHITECTURE.md does not define"
        assert not re.search(r"\bSPEC\b|later issue|\bissue \d", prose), f"{name}: {prose[:120]}"


def test_drift_trend_shows_clean_runs() -> None:
    """After clean audit runs the trend is a line of zeros with a "no drift" note, not empty axes."""
    start = datetime(2026, 11, 1, tzinfo=UTC)
    clean = [{"run_id": f"r{i}", "at": start + timedelta(days=i), "check": "bronze_chain", "findings": 0}
             for i in range(5)]
    runs, series = trend_series(clean)
    assert len(runs) == 5 and series == {"all checks": [0, 0, 0, 0, 0]}
    figure = trend_figure(clean)
    axes = figure.axes[0]
    assert [len(line.get_xdata()) for line in axes.get_lines()] == [5]
    assert any("no drift" in text.get_text() for text in axes.texts)
    found = [*clean, {"run_id": "r4", "at": start + timedelta(days=4), "check": "stale", "findings": 3}]
    assert trend_series(found)[1] == {"all checks": [0, 0, 0, 0, 3], "stale": [0, 0, 0, 0, 3]}
    assert not any("no drift" in text.get_text() for text in trend_figure(found).axes[0].texts)
