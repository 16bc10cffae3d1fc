"""What exists, before asking about it: ``medallion namespaces`` and ``medallion predicates``.

The same answers an agent gets from the MCP tools of the same names (``serve/discovery.py``): the
namespaces the acting capability can see, and the predicates a namespace's facts use.
"""

from __future__ import annotations

from typing import Any

from medallion.interfaces.cli.shared import JsonOpt, NamespaceOpt, app, show_rows, tool_session


def _text(key: str) -> Any:
    return lambda row: "" if row.get(key) is None else str(row[key])


NAMESPACE_COLUMNS = (("namespace", _text("namespace")), ("verbs", lambda r: ", ".join(r["verbs"])),
                     ("events", _text("events")), ("facts", _text("facts")), ("current", _text("current_facts")))
PREDICATE_COLUMNS = (("predicate", _text("predicate")), ("cardinality", _text("cardinality")),
                     ("origin", _text("origin")), ("facts", _text("facts")), ("current", _text("current_facts")),
                     ("example", lambda r: (r.get("example") or "")[:70]))


@app.command("namespaces")
def namespaces_cmd(as_json: JsonOpt = False) -> None:
    """The namespaces you can see, with what you may do there and how much each holds."""
    with tool_session() as tools:
        rows = tools.namespaces()
    show_rows(rows, as_json, "namespaces", NAMESPACE_COLUMNS, "none visible to this capability")


@app.command("predicates")
def predicates_cmd(namespace: NamespaceOpt, as_json: JsonOpt = False) -> None:
    """The predicates the facts of a namespace use (most used first), with an example of each."""
    with tool_session() as tools:
        rows = tools.predicates(namespace=namespace)
    show_rows(rows, as_json, f"predicates in {namespace}", PREDICATE_COLUMNS)
