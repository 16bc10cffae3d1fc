"""What the Dagster UI says about the dbt nodes: a seed's description says what it holds and where it
is loaded from, with no empty "Raw SQL" block (dagster-dbt's default for a node without SQL); a model
keeps its SQL."""

from __future__ import annotations

import json
import logging

from dagster_project.dbt import MedallionDbtTranslator
from medallion.publish.dbt_runner import prepare_manifest


def test_seeds_have_no_empty_raw_sql_and_models_keep_theirs() -> None:
    nodes = json.loads(prepare_manifest().read_text())["nodes"].values()
    translator = MedallionDbtTranslator()
    seeds = [n for n in nodes if n["resource_type"] == "seed"]
    models = [n for n in nodes if n["resource_type"] == "model"]
    assert seeds and models
    for seed in seeds:
        text = translator.get_description(seed)
        assert "Raw SQL" not in text, seed["name"]
        assert text.startswith(seed["description"].strip()) and f"dbt_project/seeds/{seed['name']}.csv" in text
    for model in models:
        text = translator.get_description(model)
        assert "#### Raw SQL:" in text and model["raw_code"].strip().splitlines()[-1].strip() in text


def test_the_expected_indirect_selection_notice_is_quiet_and_other_warnings_are_not(caplog) -> None:  # noqa: ANN001
    """dagster-dbt's per-test notice about dbt's indirect selection (expected in a subset build) is
    dropped; any other warning of the same logger still shows."""
    from dagster_dbt.core import dbt_cli_event

    with caplog.at_level(logging.WARNING, logger="dagster.builtin"):
        dbt_cli_event.logger.warning("Logging an `AssetObservation` instead of an `AssetCheckResult` for dbt "
                                     "test `x`.\n\nThis test was not included in Dagster's asset check selection")
        dbt_cli_event.logger.warning("something else went wrong")
    assert "AssetObservation" not in caplog.text and "something else went wrong" in caplog.text
