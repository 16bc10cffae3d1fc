"""Which runs `medallion materialize` starts for the namespaces asked for (scale-out): one run over a
range of adjacent partitions, else one Silver run per namespace and one downstream run."""

from __future__ import annotations

import pytest

from dagster_project.runs import RANGE_END, RANGE_START, UnknownNamespace, plan_runs

ORDER = ["team-a", "team-b", "team-c", "team-d"]  # partitions in the order they were added


def test_every_namespace_is_one_run_over_the_whole_range() -> None:
    assert plan_runs("incremental", ORDER, None) == [
        ("incremental", {RANGE_START: "team-a", RANGE_END: "team-d"}, None)]


def test_adjacent_namespaces_are_one_run_whatever_order_they_were_named_in() -> None:
    assert plan_runs("materialize_all", ORDER, ["team-c", "team-b", "team-c"]) == [
        ("materialize_all", {RANGE_START: "team-b", RANGE_END: "team-c"}, None)]


def test_namespaces_apart_are_one_silver_run_each_then_one_downstream_run() -> None:
    assert plan_runs("incremental", ORDER, ["team-d", "team-a"]) == [
        ("derive_silver", None, "team-a"), ("derive_silver", None, "team-d"), ("downstream_of_silver", None, None)]


def test_no_partition_yet_runs_only_what_is_downstream() -> None:
    assert plan_runs("incremental", [], None) == [("downstream_of_silver", None, None)]


def test_unknown_namespace_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(UnknownNamespace, match=r"^no events in namespace\(s\) nowhere: the known namespaces are "
                                               r"team-a, team-b, team-c, team-d$"):
        plan_runs("incremental", ORDER, ["team-a", "nowhere"])
