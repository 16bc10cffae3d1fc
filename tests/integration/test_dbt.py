"""dbt (dbt, D1, D2): the whole graph materialized through Dagster, dbt tests as asset
checks, invariants that fail their check when broken, the data dictionary, schedules and lineage."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from dagster_project.assets.bronze import bronze_events
from dagster_project.assets.gold import dbt_build
from dagster_project.definitions import ASSETS, CHECKS, defs
from dagster_project.keys import STAGED_FACTS
from dagster_project.resources import MedallionResource
from medallion.publish.dbt_runner import dbt_env, parse_state
from medallion.settings import Settings
from tests.conftest import REPO, fresh_database
from tests.support.dagster_runs import materialize_all_partitions

pytestmark = pytest.mark.slow  # started first: see tests/conftest.py

# the settings, the run over every partition, and the Bronze landing before it
Built = tuple[Settings, dg.ExecuteInProcessResult, dg.ExecuteInProcessResult]
INVARIANTS = {
    "assert_one_open_version_per_single_valued_slot",
    "assert_no_fact_without_provenance",
    "assert_fact_intervals_well_formed",
}


def _resource(settings: Settings) -> MedallionResource:
    return MedallionResource(database_url=settings.database_url, home=str(settings.home), inbox=str(settings.inbox))




@pytest.fixture(scope="module")
def built(
    pg_server: str, tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Built]:
    """The example events landed and the whole graph materialized once (a full rebuild) for the module."""
    tmp = tmp_path_factory.mktemp("dbt")
    with fresh_database(pg_server) as url:
        inbox = tmp / "inbox"
        inbox.mkdir()
        examples = REPO / "examples"
        shutil.copy(examples / "team_events.jsonl", inbox / "a_team.jsonl")
        shutil.copy(examples / "mixed_batch.jsonl", inbox / "b_mixed.jsonl")
        # a person's redaction of a fact that no derivation states any more: it cannot anchor
        stray = {"fact_id": "f" * 24, "action": "redact", "selector": {"exact": "the old launch codename"}}
        (inbox / "c_overlay.jsonl").write_text(json.dumps({
            "namespace": "team-atlas", "source": "overlay", "source_event_id": "stray-1", "kind": "overlay",
            "actor": "user:alice", "content": json.dumps(stray), "provenance_root": "overlay://stray-1"}) + "\n")
        settings = Settings(home=tmp / "home", database_url=url, inbox=inbox,
                            data_dictionary_path=tmp / "DATA_DICTIONARY.md")
        mp = pytest.MonkeyPatch()
        mp.setenv("MEDALLION_DATA_DICTIONARY_PATH", str(settings.data_dictionary_path))
        try:
            # as `medallion materialize` does: Bronze lands (adding the namespaces' partitions), then
            # the rest runs over every partition
            instance = dg.DagsterInstance.ephemeral()
            landed = dg.materialize([bronze_events, *CHECKS], resources={"medallion": _resource(settings)},
                                    instance=instance)
            assert landed.success
            result = materialize_all_partitions(
                [a for a in ASSETS if a is not bronze_events], _resource(settings), instance=instance,
                run_config={"ops": {"silver_derive": {"config": {"full_rebuild": True}}}},
            )
            yield settings, result, landed
        finally:
            mp.undo()


def test_whole_graph_builds_and_every_dbt_check_passes(built: Built) -> None:
    """`dbt build` on the example data passes inside dagster.materialize; its tests are asset checks."""
    settings, result, landed = built
    assert result.success
    evaluations = result.get_asset_check_evaluations()
    failed = [(e.asset_key.to_user_string(), e.check_name) for e in evaluations if not e.passed]
    assert failed == []
    by_asset: dict[str, set[str]] = {}
    for e in evaluations:
        by_asset.setdefault(e.asset_key.to_user_string(), set()).add(e.check_name)
    assert by_asset["staging/stg_silver__facts"] >= INVARIANTS, "the ledger invariants are checks on its staging view"
    assert "assert_silver_points_at_live_bronze" in by_asset["staging/stg_silver__facts"]
    assert [(e.check_name, e.passed) for e in landed.get_asset_check_evaluations()] == [("bronze_chain_verifies", True)]
    assert any(name.startswith("unique_grain_olap_facts_daily") for name in by_asset["gold_marts/olap_facts_daily"])
    # the build kept dbt's parse state for this database: the next build against it parses partially
    assert parse_state(dbt_env(settings)).exists()
    # one `dbt build` per run: no test on a Python asset pulls the dbt step apart around it
    assert {e.step_key for e in result.all_events if (e.step_key or "").startswith("dbt_build")} == {"dbt_build"}
    materialized = {m.asset_key.to_user_string() for m in
                    (e.event_specific_data.materialization for e in result.get_asset_materialization_events())}
    assert {"silver_views/current_facts", "silver_views/fact_history", "silver_views/entity_graph",
            "gold_marts/review_queue", "gold_marts/alerts", "gold_marts/olap_model_costs_daily",
            "gold/column_meta"} <= materialized


def test_gold_models_agree_with_the_ledger(built: Built) -> None:
    """D1 aggregates add up to the ledger; the review queue and alerts carry what the examples contain."""
    settings, _, _ = built
    with psycopg.connect(settings.database_url) as conn:
        facts = conn.execute("SELECT count(*) FROM silver.facts").fetchone()[0]
        assert conn.execute("SELECT sum(n_facts) FROM gold_marts.olap_facts_daily").fetchone()[0] == facts
        candidates = conn.execute("SELECT count(*) FROM silver.resolutions").fetchone()[0]
        changes = "gold_marts.olap_belief_changes_daily"
        assert conn.execute(f"SELECT sum(n_candidates) FROM {changes}").fetchone()[0] == candidates
        supersedes = conn.execute("SELECT count(*) FROM silver.resolutions WHERE decision = 'supersede'").fetchone()[0]
        assert conn.execute(f"SELECT sum(n_supersede) FROM {changes}").fetchone()[0] == supersedes
        events = conn.execute("SELECT count(*) FROM bronze.events").fetchone()[0]
        quarantined = conn.execute("SELECT count(*) FROM bronze.quarantine").fetchone()[0]
        ingest = conn.execute("SELECT sum(n_events), sum(n_quarantined) FROM gold_marts.olap_ingest_daily").fetchone()
        assert ingest == (events, quarantined)
        calls = conn.execute("SELECT count(*) FROM telemetry.model_calls").fetchone()[0]
        assert conn.execute("SELECT sum(n_calls), sum(cost_usd) FROM gold_marts.olap_model_costs_daily").fetchone() == (
            calls, 0.0), "heuristic and local embedding calls are counted and cost nothing"
        # every fact appears in the usage model, never retrieved yet (the tools write telemetry)
        usage = conn.execute("SELECT count(*), sum(n_retrievals) FROM gold_marts.olap_fact_usage").fetchone()
        assert usage == (facts, 0)

        contested = conn.execute(
            "SELECT count(DISTINCT (namespace, subject_id, predicate)) FROM silver.facts "
            "WHERE contested AND valid_to IS NULL").fetchone()[0]
        assert contested > 0, "the examples contain a contested pair"
        queue = dict(conn.execute("SELECT item_kind, count(*) FROM gold_marts.review_queue GROUP BY 1").fetchall())
        assert queue.get("contested") == contested
        assert queue.get("quarantined") == quarantined
        # an overlay that cannot anchor is listed for a person, without the redacted words
        assert queue.get("overlay") == 1
        summary = conn.execute("SELECT summary FROM gold_marts.review_queue WHERE item_kind = 'overlay'").fetchone()[0]
        assert "launch codename" not in summary and "redact" in summary
        pair = conn.execute(
            "SELECT fact_ids FROM gold_marts.review_queue WHERE item_kind = 'contested' LIMIT 1").fetchone()[0]
        assert len(pair) >= 2

        changed = conn.execute(
            "SELECT a.predicate, a.previous_statement, a.statement FROM gold_marts.alerts a "
            "WHERE a.alert_type = 'changed'"
        ).fetchall()
        monitored_supersedes = conn.execute(
            "SELECT count(*) FROM silver.facts f WHERE f.superseded_by IS NOT NULL AND f.predicate IN "
            "(SELECT name FROM reference.predicates WHERE stakes = 'high' AND volatility <> 'stable')").fetchone()[0]
        assert len(changed) == monitored_supersedes > 0
        assert all(prev and new and prev != new for _, prev, new in changed)

        # the Silver views: current_facts is exactly the open versions, fact_history every version
        assert conn.execute("SELECT count(*) FROM silver_views.current_facts").fetchone()[0] == conn.execute(
            "SELECT count(*) FROM silver.facts WHERE valid_to IS NULL").fetchone()[0]
        assert conn.execute("SELECT count(*) FROM silver_views.fact_history").fetchone()[0] == facts


def test_data_dictionary_documents_every_column_and_is_current(
    built: Built,
) -> None:
    """D2: gold.column_meta has a description for every column; the committed dictionary is fresh."""
    settings, _, _ = built
    with psycopg.connect(settings.database_url) as conn:
        missing = conn.execute(
            "SELECT relation || '.' || column_name FROM gold.column_meta WHERE btrim(description) = '' ORDER BY 1"
        ).fetchall()
        assert missing == []
        relations = {r[0] for r in conn.execute("SELECT DISTINCT relation FROM gold.column_meta")}
        assert {"bronze.events", "bronze.quarantine", "silver.facts", "silver.resolutions", "telemetry.retrievals",
                "silver_views.current_facts", "gold_marts.review_queue", "gold_marts.olap_model_costs_daily",
                "reference.predicates", "gold.column_meta"} <= relations
        # every column the database has for those relations is in the dictionary (catalog-driven)
        for relation in ("silver.facts", "bronze.events", "gold_marts.review_queue"):
            schema, name = relation.split(".")
            actual = {r[0] for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = %s AND table_name = %s",
                (schema, name))}
            listed = {r[0] for r in conn.execute("SELECT column_name FROM gold.column_meta WHERE relation = %s",
                                                 (relation,))}
            assert actual == listed, relation
        unit, semantics, retention, source_system = conn.execute(
            "SELECT unit, semantics, retention_class, source_system FROM gold.column_meta "
            "WHERE relation = 'silver.facts' AND column_name = 'authority'").fetchone()
        assert unit and "tier" in unit and semantics == "dimension" and retention == "durable" and source_system
    generated = settings.data_dictionary_path.read_text()
    committed = (REPO / "DATA_DICTIONARY.md").read_text()
    assert committed == generated, "DATA_DICTIONARY.md is stale: run `make demo` (or materialize) and commit it"


def test_drift_audit_job_runs_chain_and_ledger_checks(
    built: Built, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The daily schedule's job: the audit asset, Bronze chain + ledger invariants as checks, review queue, alerts."""
    settings, _, _ = built
    monkeypatch.setenv("MEDALLION_DATABASE_URL", settings.database_url or "")
    result = defs.resolve_job_def("drift_audit").execute_in_process(instance=dg.DagsterInstance.ephemeral())
    assert result.success
    checks = {(e.asset_key.to_user_string(), e.check_name): e.passed for e in result.get_asset_check_evaluations()}
    assert checks[("bronze/events", "bronze_chain_verifies")]
    assert all(checks[("staging/stg_silver__facts", name)] for name in INVARIANTS)
    assert all(checks.values())
    rebuilt = {e.event_specific_data.materialization.asset_key.to_user_string()
               for e in result.get_asset_materialization_events()}
    assert rebuilt == {"gold/drift_report", "gold_marts/review_queue", "gold_marts/alerts"}


def test_broken_invariant_fails_its_check(team_database_url: str, tmp_path: Path) -> None:
    """Two open versions of one single-valued slot, inserted as superuser, turn their check red."""
    settings = Settings(home=tmp_path / "home", database_url=team_database_url, inbox=tmp_path / "inbox")
    resources = {"medallion": _resource(settings)}
    with psycopg.connect(team_database_url, autocommit=True) as admin_conn:
        # the write path refuses this (a partial unique index); dbt's test is the check that still catches it
        admin_conn.execute("DROP INDEX silver.facts_one_open_version_per_slot")
        columns = [r[0] for r in admin_conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'silver' AND table_name = 'facts' "
            "AND is_generated = 'NEVER' ORDER BY ordinal_position").fetchall()]
        again = {"fact_id": "fact_id || '-second-open'", "statement": "statement || ' (again)'"}
        values = [again.get(c, c) for c in columns]
        inserted = admin_conn.execute(
            f"INSERT INTO silver.facts ({', '.join(columns)}) SELECT {', '.join(values)} FROM silver.facts "
            "WHERE cardinality = 'one' AND valid_to IS NULL AND NOT contested ORDER BY fact_id LIMIT 1").rowcount
        assert inserted == 1
    # the staging view and its checks (dbt builds only what is selected)
    result = dg.materialize([dbt_build], selection=[STAGED_FACTS], resources=resources, raise_on_error=False)
    evaluations = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert not evaluations["assert_one_open_version_per_single_valued_slot"].passed
    assert evaluations["assert_no_fact_without_provenance"].passed
    assert evaluations["assert_fact_intervals_well_formed"].passed


def test_dbt_connects_like_the_engine(settings: Settings) -> None:
    """profiles.yml is fed from the engine's settings: the embedded server's socket directory is the host."""
    env = dbt_env(settings)
    assert Path(env["MEDALLION_DBT_HOST"]).is_dir(), "a unix-socket directory"
    assert env["MEDALLION_DBT_DBNAME"] == conninfo_to_dict(settings.database_url)["dbname"]


def test_schedules_and_lineage_are_defined() -> None:
    """The hourly OLAP refresh and the daily drift audit exist; the graph is one lineage to Gold."""
    hourly = defs.resolve_schedule_def("refresh_olap_hourly")
    daily = defs.resolve_schedule_def("drift_audit_daily")
    assert hourly.cron_schedule == "0 * * * *" and hourly.job_name == "refresh_olap"
    assert daily.cron_schedule == "0 3 * * *" and daily.job_name == "drift_audit"
    graph = defs.resolve_asset_graph()

    def parents(key: list[str]) -> set[str]:
        return {k.to_user_string() for k in graph.get(dg.AssetKey(key)).parent_keys}

    assert parents(["staging", "stg_bronze__events"]) == {"bronze/events"}
    assert parents(["staging", "stg_silver__facts"]) == {"silver/facts"}
    assert "staging/stg_silver__facts" in parents(["silver_views", "current_facts"])
    assert "silver_views/current_facts" in parents(["gold_marts", "review_queue"])
    assert "bronze/events" in parents(["silver", "facts"])
    assert "gold_marts/alerts" in parents(["gold", "column_meta"])


def test_manifest_names_the_default_database_whatever_the_callers_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A manifest parsed while MEDALLION_DBT_DBNAME pointed elsewhere (a test run, `medallion dbt`)
    must not leak that database into the next run's row counts: parsing ignores the variables."""
    from medallion.publish.dbt_runner import prepare_manifest

    monkeypatch.setenv("MEDALLION_DBT_DBNAME", "somewhere_else")
    manifest = json.loads(prepare_manifest(force=True).read_text())
    databases = {n["database"] for n in manifest["nodes"].values() if n["resource_type"] in ("model", "seed")}
    assert databases == {"medallion"}


def test_default_home_does_not_follow_a_change_of_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """dbt run in-process (dagster-dbt's row counts) moves to the dbt project; default Settings built
    after that must still name the same home, or a second embedded server starts under dbt_project/."""
    from medallion.settings import LAUNCH_DIR

    monkeypatch.delenv("MEDALLION_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    assert Settings().home == LAUNCH_DIR / ".medallion"
    assert Settings().inbox == LAUNCH_DIR / "inbox"


def test_processes_starting_together_share_one_manifest() -> None:
    """pytest workers, a daemon and a webserver load the definitions at the same moment: each waits for
    the one `dbt parse` in progress and reads a whole manifest, never one still being written."""
    import subprocess
    import sys

    from medallion.publish.dbt_runner import MANIFEST_PATH

    probe = ("import json, sys; from medallion.publish.dbt_runner import prepare_manifest; "
             "json.loads(prepare_manifest(force=sys.argv[1] == '1').read_text())")
    procs = [subprocess.Popen([sys.executable, "-c", probe, force], stderr=subprocess.PIPE, text=True)
             for force in ("1", "1", "0")]
    errors = [proc.communicate(timeout=300)[1] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0, 0], errors
    assert json.loads(MANIFEST_PATH.read_text())["nodes"]
