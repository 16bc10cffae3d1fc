"""Security issue 30, point 5: an approved erasure leaves no copy of what it erased.

The whole graph is materialized through Dagster (Bronze, Silver, dbt's marts, the wiki, the audit),
the tools search for the words to be erased (telemetry), a conflicting and a broken line of the actor
sit in quarantine; then every event of one actor is erased by two admins. The same call must leave
none of the actor's distinctive words anywhere: in any column of any table of the database, in the
memoised model outputs and embeddings (only what the remaining events need is left), in the wiki's
files, and in what Dagster keeps: the run logs and the UI's GraphQL never carried event content at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import psycopg
import pytest
from dagster._core.workspace.context import WorkspaceProcessContext
from dagster._core.workspace.load_target import EmptyWorkspaceTarget
from dagster_graphql.test.utils import execute_dagster_graphql
from psycopg import sql

from dagster_project.assets.bronze import bronze_events
from dagster_project.definitions import ASSETS, CHECKS
from dagster_project.resources import MedallionResource
from medallion.bronze import erasure
from medallion.bronze.ingest import ingest_events
from medallion.db.connection import connect
from medallion.publish.forget import approve_and_forget
from medallion.serve.capabilities import grant
from medallion.serve.tools import open_tools
from medallion.settings import Settings
from medallion.silver import slot_meaning
from medallion.silver.derive import derive
from medallion.silver.embed import text_hash
from tests.conftest import fresh_database
from tests.support.dagster_runs import materialize_all_partitions

pytestmark = pytest.mark.slow  # started first: see tests/conftest.py

NS, OTHER = "team-erase", "team-stays"
ERASED = ("Quillonbray", "Vestrogard", "Marzipelt")  # words only user:zed's events hold
KEPT = ("Hollowmere", "Brantwick")  # words of events that stay
THREAD = "slack://C9/thread"


def _event(i: int, actor: str, content: str, ns: str = NS) -> dict:
    return {"namespace": ns, "source": "slack", "source_event_id": f"C9/{i}", "kind": "transcript",
            "actor": actor, "content": content, "provenance_root": THREAD,
            "occurred_at": f"2025-03-0{1 + i % 9}T10:00:00Z"}


EVENTS = [
    _event(1, "user:zed", "I live in Quillonbray."),
    _event(2, "user:amy", "I live in Hollowmere."),  # the next turn: its context quotes zed
    _event(3, "user:zed", "My manager is Vestrogard. I work at Marzipelt Labs."),
    _event(4, "user:amy", "I work at Brantwick."),
    _event(5, "user:amy", "I live in Hollowmere too.", OTHER),
]


@dataclass
class Erased:
    settings: Settings
    instance: dg.DagsterInstance
    removed: dict[str, int]
    cache_before: set[str]
    dagster_home: Path


def _resource(settings: Settings) -> MedallionResource:
    return MedallionResource(database_url=settings.database_url, home=str(settings.home), inbox=str(settings.inbox))


@pytest.fixture(scope="module")
def erased(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Erased]:
    """The graph materialized, the words searched for, then user:zed's events erased and approved."""
    tmp = tmp_path_factory.mktemp("erase")
    with fresh_database(pg_server) as url:
        inbox = tmp / "inbox"
        inbox.mkdir()
        settings = Settings(home=tmp / "home", database_url=url, inbox=inbox,
                            data_dictionary_path=tmp / "DATA_DICTIONARY.md")
        conflict = {**EVENTS[0], "content": "I live in Quillonbray, near the Vestrogard mill."}
        broken = {**EVENTS[2], "source_event_id": "C9/99", "kind": "no-such-kind"}
        (inbox / "a.jsonl").write_text("".join(json.dumps(e) + "\n" for e in [*EVENTS, conflict, broken]))
        mp = pytest.MonkeyPatch()
        mp.setenv("MEDALLION_DATA_DICTIONARY_PATH", str(settings.data_dictionary_path))
        (tmp / "dagster_home").mkdir()
        instance = dg.DagsterInstance.local_temp(str(tmp / "dagster_home"))
        try:
            # an instance on disk, as the UI reads one: run storage, event log and compute logs in files
            assert dg.materialize([bronze_events, *CHECKS], resources={"medallion": _resource(settings)},
                                  instance=instance).success
            assert materialize_all_partitions([a for a in ASSETS if a is not bronze_events], _resource(settings),
                                              instance=instance).success
            with open_tools(None, settings) as tools:
                for word in (*ERASED, *KEPT):
                    tools.search(f"where is {word}", namespace=NS)
                tools.search("Quillonbray", namespace=NS, include_chunks=False)
            with psycopg.connect(url, autocommit=True) as admin, connect(settings, "engine", autocommit=True) as engine:
                assert _hits(admin, ERASED), "the words are there before the erasure"
                cache_before = _cache_keys(admin)
                token = grant(admin, principal="user:dpo", verbs=["admin"], namespaces=[NS], created_by="test")[1]
                request_id = erasure.request_scope(admin, NS, "data-subject request", actor="user:zed", token=None,
                                                   local_name="local:tester")
                forgotten = approve_and_forget(engine, engine, settings, request_id, token=token)
                assert forgotten.approved.erased == 2
            yield Erased(settings, instance, forgotten.removed, cache_before, tmp / "dagster_home")
        finally:
            instance.dispose()
            mp.undo()


def _hits(admin: psycopg.Connection, words: tuple[str, ...]) -> dict[str, int]:
    """Rows of every table, in every schema, whose columns cast to text (bytea read as text) hold a word."""
    patterns = [f"%{w}%" for w in words]
    tables = admin.execute(
        "SELECT n.nspname, c.relname, array_agg(a.attname::text ORDER BY a.attnum) "
        "FILTER (WHERE a.atttypid = 'bytea'::regtype) "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
        "WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') "
        "GROUP BY 1, 2 ORDER BY 1, 2").fetchall()
    assert len(tables) > 25, "every schema's tables are searched"
    hits = {}
    for schema, table, binary in tables:
        text = sql.SQL("t::text")
        for column in binary or []:
            text = sql.SQL("{} || coalesce(encode(t.{}, 'escape'), '')").format(text, sql.Identifier(column))
        count = admin.execute(sql.SQL("SELECT count(*) FROM {}.{} t WHERE {} ILIKE ANY(%s)").format(
            sql.Identifier(schema), sql.Identifier(table), text), (patterns,)).fetchone()[0]
        if count:
            hits[f"{schema}.{table}"] = count
    return hits


def _cache_keys(admin: psycopg.Connection) -> set[str]:
    return {r[0] for r in admin.execute("SELECT input_hash FROM silver.derivation_cache")}


def test_no_table_holds_an_erased_word(erased: Erased) -> None:
    """Every column of every table of every schema: Bronze (quarantine too), Silver, the cache's
    outputs, telemetry, the wiki registry, the drift report, dbt's marts and views."""
    with psycopg.connect(erased.settings.database_url, autocommit=True) as admin:
        assert _hits(admin, ERASED) == {}
        assert _hits(admin, KEPT), "the other actor's words are still there"
    assert erased.removed["quarantine"] == 2 and erased.removed["retrievals"] >= 1
    assert erased.removed["derivation_cache"] > 0


def test_the_cache_keeps_only_what_the_remaining_events_need(erased: Erased, pg_server: str, tmp_path: Path) -> None:
    """Embeddings cannot be searched for words: the memoised outputs left must be ones a derivation of
    the remaining events alone, from scratch, produces (and some were dropped). The example phrases of
    slots by meaning are the project's own words, embedded once per process into whichever database
    first needs them: whether this one holds them depends on the tests that ran before, not on an event."""
    vocabulary = {text_hash(e.text) for e in slot_meaning.examples()}
    with psycopg.connect(erased.settings.database_url, autocommit=True) as admin:
        left = _cache_keys(admin)
    with fresh_database(pg_server) as url:
        settings = Settings(home=tmp_path / "home", database_url=url, inbox=tmp_path)
        with connect(settings, "engine", autocommit=True) as engine:
            ingest_events(engine, [e for e in EVENTS if e["actor"] != "user:zed"])
            derive(engine, settings)
            needed = _cache_keys(engine)
    assert left - needed - vocabulary == set()
    assert erased.cache_before - needed, "the erased events had memoised outputs of their own"


def test_the_wiki_files_hold_no_erased_word(erased: Erased) -> None:
    pages = list(erased.settings.wiki_root.rglob("*.md"))
    assert pages, "the wiki was compiled"
    text = "\n".join(p.read_text() for p in pages)
    assert not [w for w in ERASED if w.lower() in text.lower()]


def _dagster_text(instance: dg.DagsterInstance) -> str:
    """Everything the instance's run storage and event log hold for every run, serialized."""
    runs = instance.get_runs()
    assert runs
    parts = []
    for run in runs:
        parts.append(dg.serialize_value(run))
        parts += [dg.serialize_value(e) for e in instance.all_logs(run.run_id)]
    return "\n".join(parts)


def test_run_logs_and_metadata_never_carry_event_content(erased: Erased) -> None:
    """Run storage outlives an erasure: it holds ids and counts, so neither the erased words nor the
    kept ones are in it, nor in any file of the instance's home (its databases and captured compute logs)."""
    text = _dagster_text(erased.instance).lower()
    assert "recent_decisions" in text and "dagster/row_count" in text
    assert not [w for w in (*ERASED, *KEPT) if w.lower() in text]
    files = [p for p in erased.dagster_home.rglob("*") if p.is_file()]
    assert files
    stored = b"\n".join(p.read_bytes() for p in files).lower()
    assert not [w for w in (*ERASED, *KEPT) if w.lower().encode() in stored]


GRAPHQL = """
query Everything {
  runsOrError { ... on Runs { results { runId runConfigYaml tags { key value } } } }
  assetsOrError { ... on AssetConnection { nodes { key { path }
    assetMaterializations(limit: 200) { partition description metadataEntries { label description
      ... on MarkdownMetadataEntry { mdStr } ... on TextMetadataEntry { text }
      ... on JsonMetadataEntry { jsonString } } } } } }
}
"""

LOGS = """
query Logs($runId: ID!) {
  logsForRun(runId: $runId) { ... on EventConnection { events { __typename
    ... on MessageEvent { message }
    ... on MaterializationEvent { partition metadataEntries { label
      ... on MarkdownMetadataEntry { mdStr } ... on TextMetadataEntry { text }
      ... on JsonMetadataEntry { jsonString } } } } } }
}
"""


def test_the_ui_graphql_serves_no_event_content(erased: Erased) -> None:
    """What the Dagster UI reads, through its own GraphQL schema on the same instance."""
    with WorkspaceProcessContext(erased.instance, EmptyWorkspaceTarget()) as process:
        context = process.create_request_context()
        everything = execute_dagster_graphql(context, GRAPHQL)
        assert not everything.errors, everything.errors
        runs = everything.data["runsOrError"]["results"]
        logs = []
        for run in runs:
            result = execute_dagster_graphql(context, LOGS, {"runId": run["runId"]})
            assert not result.errors, result.errors
            logs.append(result.data)
    text = json.dumps([everything.data, logs]).lower()
    assert len(runs) >= 2 and "materializationevent" in text and "row_count" in text
    assert not [w for w in (*ERASED, *KEPT) if w.lower() in text]
