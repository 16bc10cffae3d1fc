"""The agent tools on the command line: what exists (``namespaces``, ``predicates``), the beliefs
``remember`` produced, and an erasure requested by a fact id's prefix (issue 16, points 6, 8, 10)."""

from __future__ import annotations

import json

from medallion.settings import Settings


def test_namespaces_and_predicates_say_what_exists(cli) -> None:
    code, out, err = cli("remember", "-n", "team-disc", "--content", "Priya lives in Porto.", "--json")
    assert code == 0, err
    code, out, err = cli("namespaces", "--json")
    assert code == 0, err
    seen = {row["namespace"]: row for row in json.loads(out)}
    assert seen["team-disc"]["events"] == 1 and seen["team-disc"]["current_facts"] >= 1
    code, out, _ = cli("namespaces")
    assert "team-disc" in out and "namespaces" in out
    code, out, err = cli("predicates", "-n", "team-disc", "--json")
    assert code == 0, err
    used = {row["predicate"]: row for row in json.loads(out)}
    assert used["lives_in"]["cardinality"] == "one" and "Porto" in used["lives_in"]["example"]
    code, out, _ = cli("predicates", "-n", "team-disc")
    assert "lives_in" in out
    code, _, err = cli("predicates", "-n", "no-such-team")
    assert code == 2 and "team-disc" in err  # names the namespaces that exist


def test_remember_prints_its_beliefs_and_a_fact_prefix_files_an_erasure(cli, settings: Settings) -> None:
    code, out, err = cli("remember", "-n", "team-disc2", "--content", "Tomas works at Lumen.")
    assert code == 0, err
    assert "added: " in out and "Lumen" in out
    code, out, err = cli("remember", "-n", "team-disc2", "--content", "Tomas works at Harbor now.", "--json")
    assert code == 0, err
    beliefs = json.loads(out)["beliefs"]
    assert [f["statement"] for f in beliefs["added"]] and beliefs["superseded"]
    fact_id = beliefs["added"][0]["fact_id"]
    code, out, err = cli("erase", "request", "--fact", fact_id[:12], "--reason", "asked by Tomas", "--json")
    assert code == 0, err
    request = json.loads(out)
    assert request["status"] == "pending_approval" and request["facts"]
    code, out, _ = cli("erase", "list", "--json")
    assert any(r["request_id"] == request["request_id"] and r["status"] == "pending" for r in json.loads(out))
    code, _, err = cli("erase", "request", "--fact", fact_id[:12], "--actor", "user:x", "--reason", "r")
    assert code == 1 and "--fact" in err
