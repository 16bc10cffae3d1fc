"""One request per verb (serve/verbs.py): the MCP schema, the CLI and the Python API all say what it says.

A field missing from a surface that should take it, or documented, bounded or defaulted differently
there, fails here; so does an argument a surface takes that no request declares.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from typing import Any

import pytest
import typer

from medallion.interfaces import (
    cli,  # noqa: F401  (registers every command)
    mcp_server,
)
from medallion.interfaces.cli.shared import app
from medallion.serve import verbs
from medallion.serve.session import ToolError
from medallion.serve.tools import Tools

# the CLI command of each verb, and the CLI parameter standing for a field when it is not the field's name
CLI_COMMANDS: dict[type[verbs.Request], tuple[str, ...]] = {
    verbs.Namespaces: ("namespaces",), verbs.Predicates: ("predicates",), verbs.Search: ("search",),
    verbs.Read: ("read",), verbs.ListFacts: ("list",), verbs.Current: ("current",), verbs.History: ("history",),
    verbs.Relate: ("relate",), verbs.Follow: ("follow",), verbs.Recall: ("recall",), verbs.Remember: ("remember",),
    verbs.Retract: ("overlay", "retract"), verbs.Approve: ("overlay", "approve"),
    verbs.RequestErasure: ("erase", "request"),
}
CLI_RENAMED = {"fact_id": "fact"}  # erase request --fact
OVERLAY_ACTIONS = {"edit": {"fact_id", "quote", "text", "note"}, "annotate": {"fact_id", "quote", "note"},
                   "redact": {"fact_id", "quote", "note"}}


def _command(path: tuple[str, ...]) -> Any:
    command: Any = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    return command


def _mcp_schemas() -> dict[str, dict[str, Any]]:
    server = mcp_server.build_server()
    return {t.name: t.input_schema for t in asyncio.run(server.list_tools())}


def _bounds(schema: dict[str, Any]) -> tuple[Any, Any]:
    branches = [schema, *schema.get("anyOf", [])]
    return (next((b["minimum"] for b in branches if "minimum" in b), None),
            next((b["maximum"] for b in branches if "maximum" in b), None))


def test_every_mcp_tool_is_a_request_and_its_schema_is_the_requests() -> None:
    schemas = _mcp_schemas()
    requests = {r.verb: r for r in verbs.REQUESTS if verbs.fields_on(r, verbs.MCP) or r is verbs.Namespaces}
    assert set(schemas) == set(requests)
    for name, schema in schemas.items():
        fields = {f.name: f for f in verbs.fields_on(requests[name], verbs.MCP)}
        properties = schema["properties"]
        assert set(properties) == set(fields) | {"token"}, name
        for field_name, f in fields.items():
            spec: verbs.Doc = f.metadata["doc"]
            given = properties[field_name]
            assert given["description"] == spec.help, (name, field_name)
            assert _bounds(given) == (spec.ge, spec.mcp_le or spec.le), (name, field_name)
            default = spec.mcp_default if spec.mcp_default_differs else f.default
            if default is dataclasses.MISSING:
                assert field_name in schema["required"], (name, field_name)
            else:
                assert given.get("default") == default, (name, field_name)


def test_every_tools_method_takes_exactly_its_requests_api_fields() -> None:
    for request in verbs.REQUESTS:
        method = getattr(Tools, request.verb)
        assert method.request is request  # declared with verbs.serves, which refuses a drifting signature
        params = list(inspect.signature(method).parameters.values())[1:]
        wanted = [(f.name, f.default) for f in verbs.fields_on(request, verbs.API)]
        given = [(p.name, dataclasses.MISSING if p.default is inspect.Parameter.empty else p.default)
                 for p in params]
        assert sorted(given, key=str) == sorted(wanted, key=str), request.verb


def test_a_method_that_drifts_from_its_request_is_refused_at_import() -> None:
    with pytest.raises(TypeError, match="ListFacts says"):
        @verbs.serves(verbs.ListFacts)
        def list(self: Any, *, namespace: str, limit: int = 100) -> None:  # noqa: A001 (subject missing)
            """A list without its subject filter."""


def _cli_name(request: type[verbs.Request], field: dataclasses.Field[Any]) -> str:
    """The CLI parameter standing for ``field``: its negated flag, its renamed option, or its own name."""
    spec: verbs.Doc = field.metadata["doc"]
    return spec.cli_flag or (CLI_RENAMED.get(field.name) if request is verbs.RequestErasure else None) or field.name


def _check_cli_param(command: Any, request: type[verbs.Request], field: dataclasses.Field[Any],
                     where: str) -> None:
    spec: verbs.Doc = field.metadata["doc"]
    name = _cli_name(request, field)
    params = {p.name: p for p in command.params}
    assert name in params, f"{where}: {field.name} has no CLI parameter {name}"
    param = params[name]
    if spec.cli_flag is None:  # a negated flag (--every-item for per_event) says it the other way round
        assert (getattr(param, "help", None) or "").startswith(spec.help), (where, field.name)
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    assert (low, high) == (spec.ge, spec.le), (where, field.name)
    if field.default not in (dataclasses.MISSING, None):  # the CLI's default is the request's; a negated flag's
        # is its opposite, and a None the request fills in itself may be given by the CLI ("cli" as the source)
        wanted = (not field.default) if spec.cli_flag else field.default
        assert param.default == wanted, (where, field.name, param.default, wanted)


def test_every_request_with_cli_fields_has_its_cli_command_listed_here() -> None:
    with_cli = {r for r in verbs.REQUESTS if verbs.fields_on(r, verbs.CLI)}
    assert with_cli - set(CLI_COMMANDS) - {verbs.Overlay} == set()  # the overlay's actions: OVERLAY_ACTIONS


def test_the_engines_search_request_takes_the_search_verbs_fields_and_defaults() -> None:
    """serve/search.py's SearchRequest is what the engine searches with; the verb's request is what callers
    give. Every field but the answer's shape (``detail``) passes from one to the other unchanged."""
    from medallion.serve.search import SearchRequest

    engine = {f.name: f.default for f in dataclasses.fields(SearchRequest)}
    verb = {f.name: f.default for f in verbs.fields_on(verbs.Search, verbs.API) if f.name != "detail"}
    assert engine == verb


# CLI parameters that belong to the surface, not to a request: the output format, and the admin's wider
# erasure scopes (an event by its key, an actor's or a namespace's events), which only the CLI offers
# (bronze/erasure.py; the verb erases one event)
CLI_ONLY = frozenset({"as_json"})
CLI_ONLY_OF = {verbs.RequestErasure: frozenset({"namespace", "source", "source_event_id", "actor", "all_events"})}


def test_every_cli_parameter_is_a_requests_field_or_the_surfaces_own() -> None:
    for request, path in CLI_COMMANDS.items():
        command = _command(path)
        declared = {_cli_name(request, f) for f in verbs.fields_on(request, verbs.CLI)}
        extra = {p.name for p in command.params} - declared - CLI_ONLY - CLI_ONLY_OF.get(request, frozenset())
        assert not extra, f"{' '.join(path)}: {sorted(extra)} are declared by no request"


def test_every_cli_command_takes_its_requests_fields_with_their_help_and_bounds() -> None:
    for request, path in CLI_COMMANDS.items():
        command = _command(path)
        for field in verbs.fields_on(request, verbs.CLI):
            _check_cli_param(command, request, field, " ".join(path))
        if request in (verbs.Search, verbs.Current, verbs.History, verbs.ListFacts, verbs.Predicates):
            namespace = next(p for p in command.params if p.name == "namespace")
            assert namespace.help == verbs.NAMESPACE
        assert any(p.name == "as_json" for p in command.params), path  # --json on every command
    for action, names in OVERLAY_ACTIONS.items():  # the overlay's action is the subcommand
        command = _command(("overlay", action))
        for field in verbs.fields_on(verbs.Overlay, verbs.CLI):
            if field.name in names:
                _check_cli_param(command, verbs.Overlay, field, f"overlay {action}")


@pytest.mark.parametrize(("request_", "message"), [
    (verbs.Search(query=" ", namespace="ns"), "search needs a non-empty query"),
    (verbs.Search(query="q", namespace="ns", k=0), "the argument 'k' must be a whole number from 1 to 200"),
    (verbs.Search(query="q", namespace="ns", detail="short"), "detail must be 'full' or 'compact'"),  # type: ignore[arg-type]
    (verbs.Search(query="q", namespace="ns", as_of="2026-01-01T00:00"), "as_of needs a UTC offset"),
    (verbs.Recall(query="q", namespace="ns", stakes="medium"), "stakes must be 'low' or 'high'"),  # type: ignore[arg-type]
    (verbs.ListFacts(namespace="ns", limit=True), "the argument 'limit' must be a whole number from 1"),
    (verbs.Relate(a="A", b="B", namespace="ns", max_depth=7), "the argument 'max_depth' must be a whole number"),
    (verbs.Remember(namespace="ns", content="x", kind="overlay"), "overlays are written with the overlay tool"),
    (verbs.RequestErasure(reason="why"), "name what to erase"),
    (verbs.RequestErasure(reason=" ", event_id=3), "give a reason for the erasure"),
])
def test_a_request_refuses_bad_input_in_one_sentence(request_: verbs.Request, message: str) -> None:
    with pytest.raises(ToolError, match=message) as refused:
        request_.check()
    assert "\n" not in str(refused.value)


def test_a_good_request_passes() -> None:
    for request in (verbs.Search(query="where", namespace="ns", k=200, as_of="2026-01-01T00:00:00Z"),
                    verbs.Recall(query="who", namespace="ns", stakes="high", k=50),
                    verbs.RequestErasure(reason="asked", fact_id="abcdef")):
        request.check()
