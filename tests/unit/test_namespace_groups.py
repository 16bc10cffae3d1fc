"""Sharing namespaces out between parallel derivation steps (scale-out, issue "namespaces as partitions")."""

from __future__ import annotations

import pytest

from medallion.bronze.namespaces import balanced_groups


def test_groups_are_balanced_by_event_count() -> None:
    """One heavy tenant gets a step to itself; the light ones share the other."""
    counts = {"big": 900, "a": 300, "b": 300, "c": 200, "d": 100}
    groups = balanced_groups(counts, 2)
    loads = sorted(sum(counts[ns] for ns in g) for g in groups)
    assert loads == [900, 900]
    assert ["big"] in groups


def test_every_namespace_lands_in_exactly_one_group() -> None:
    counts = {f"ns{i}": (i * 37) % 11 + 1 for i in range(50)}
    groups = balanced_groups(counts, 4)
    members = [ns for g in groups for ns in g]
    assert sorted(members) == sorted(counts) and len(groups) == 4


def test_fewer_namespaces_than_groups_gives_one_group_each() -> None:
    assert balanced_groups({"x": 5, "y": 1}, 8) == [["x"], ["y"]]
    assert balanced_groups({}, 3) == []


def test_same_counts_same_groups() -> None:
    counts = {"a": 3, "b": 3, "c": 3, "d": 3}
    assert balanced_groups(counts, 2) == balanced_groups(dict(reversed(list(counts.items()))), 2)


def test_zero_groups_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        balanced_groups({"a": 1}, 0)
