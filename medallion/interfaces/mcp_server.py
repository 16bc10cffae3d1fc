"""The MCP server over the tools (G1): a thin shell over :class:`~medallion.serve.tools.Tools`.

Every tool is the same call as the Python API and the CLI, with the same capability check. Who is
calling: over HTTP, the request's ``Authorization: Bearer <token>`` header (a token argument sent
as well must be the same token; a call without either is refused, since any local process can
connect); over stdio, the tool's optional ``token`` argument, else ``MEDALLION_TOKEN``
(``Settings.token``), else the local admin (the process that started the server). One
:class:`Tools` is opened per distinct token, lazily, in a bounded pool that closes idle ones
(:mod:`medallion.interfaces.mcp_sessions`); a caller is refused in one sentence only while every
session is in a call.

Descriptions say when to call each tool, in the words of someone who has never read this code. A
refused or impossible call (:class:`~medallion.serve.tools.ToolError`, ``Denied`` included) comes
back as a tool error (``isError``) whose text is the tool's one-sentence message, and so do
arguments the schema refuses (:func:`argument_message`); anything unexpected comes back as the SDK's
generic ``Error executing tool <name>`` (the traceback stays in the server's log on stderr).
Successful results are the tool's JSON: one text block, plus the same value as structured content
(wrapped as ``{"result": [...]}`` for the list-returning tools). ``search``, ``recall`` and
``history`` answer in a compact form unless asked for ``detail='full'``
(:mod:`medallion.interfaces.mcp_compact`).

Run with ``python -m medallion.interfaces.mcp_server`` (stdio) or ``medallion mcp [--http PORT]``.
"""

import argparse
import inspect
import json
import typing
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import MISSING, dataclass
from typing import Annotated, Any

import psycopg
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError as SdkToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from medallion.db import embedded
from medallion.db.connection import DatabaseNotReady, LoginFailed
from medallion.db.locks import LockBusy
from medallion.interfaces import mcp_compact
from medallion.interfaces.mcp_sessions import SessionPool
from medallion.serve import verbs
from medallion.serve.tools import Denied, ToolError, Tools
from medallion.settings import Settings, get_settings

SERVER_NAME = "medallion-memory"
INSTRUCTIONS = (
    "An agent's memory: what people and systems said, turned into facts that are kept with their sources and "
    "their history. Everything lives in namespaces. Start with `namespaces` to see the ones you can use, then "
    "`predicates` to see which relations a namespace records. Ask in plain words with `search` or `recall`; "
    "when you know the entity and the relation use `current` (now), `history` (over time) or `follow` (a chain "
    "of relations); `relate` says how two entities connect; `read` opens one fact by id (a prefix of 6 or more "
    "characters is enough). Write with `remember`; correct a fact with `overlay`; ask a person to forget "
    "something with `request_erasure`."
)

# result shapes: published as output schemas, and validated by the SDK before a result leaves the server
Rows = Annotated[CallToolResult, list[dict[str, Any]]]
Record = Annotated[CallToolResult, dict[str, Any]]

Token = Annotated[
    str | None,
    Field(description="A capability token for this call. Over HTTP send it as an 'Authorization: Bearer' header "
                      "instead; over stdio it replaces the server's MEDALLION_TOKEN for this call."),
]
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
BEARER = "bearer"


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _result(value: Any, *, wrap: bool) -> CallToolResult:
    value = _jsonable(value)
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(value, ensure_ascii=False))],
        structured_content={"result": value} if wrap else value,
    )


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


class _OneSentenceServer(MCPServer):
    """The SDK's server, with a refused argument reported as one sentence, not pydantic's multi-line report."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except SdkToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ValidationError) or not cause.errors():
                raise
            raise SdkToolError(argument_message(name, cause)) from cause


def argument_message(tool: str, error: ValidationError) -> str:
    """One sentence for arguments the tool's schema refused: the first one, and which others to fix."""
    problems = error.errors()
    fields = [".".join(str(part) for part in p["loc"]) or "arguments" for p in problems]
    first = problems[0]
    if first["type"] == "missing":
        message = f"{tool} needs the argument '{fields[0]}'"
    else:
        detail = " ".join(str(first["msg"]).split())
        message = f"the argument '{fields[0]}' of {tool} is not valid: {detail[:1].lower()}{detail[1:]}"
    others = list(dict.fromkeys(f for f in fields[1:] if f != fields[0]))
    if others:
        message += f" (fix {', '.join(repr(f) for f in others)} too)"
    return message


def caller_token(ctx: Context | None, argument: str | None) -> str | None:
    """The token a call acts with: the HTTP request's ``Authorization: Bearer`` header, else the argument.

    Over HTTP the header is where a client puts credentials, out of the model's sight; a token
    argument sent as well must be the same token (two different ones would leave it unclear who
    is acting). Over stdio there are no headers and the argument (or MEDALLION_TOKEN) is the token.
    """
    try:
        headers = ctx.headers if ctx is not None else None
    except ValueError:  # no request (a call made in-process, outside any transport)
        headers = None
    header = headers.get("authorization") if headers is not None else None
    if header is None:
        return argument
    scheme, _, value = header.strip().partition(" ")
    value = value.strip()
    if scheme.lower() != BEARER or not value:
        raise Denied("the Authorization header must be 'Bearer <capability token>'")
    if argument and argument != value:
        raise Denied("the token argument differs from the Authorization header's token; send the token once, "
                     "in the header")
    return value


def _run(pool: SessionPool, ctx: Context, token: str | None, fn: Callable[[Tools], Any], *,
         wrap: bool) -> CallToolResult:
    """Call ``fn`` with the caller's tools; a refusal or an unreachable database is one sentence."""
    try:
        return _result(pool.call(caller_token(ctx, token), fn), wrap=wrap)
    except ToolError as exc:
        return _error(str(exc))
    except (LoginFailed, DatabaseNotReady, embedded.ServerStopped) as exc:  # one sentence, password masked
        return _error(str(exc))
    except LockBusy as exc:  # a lock timeout: its sentence names the lock and its holder
        return _error(str(exc))
    except psycopg.OperationalError as exc:
        first = (str(exc).strip().splitlines() or ["no detail"])[0]
        return _error(f"the memory's database is not reachable ({first}); "
                      "check MEDALLION_DATABASE_URL or MEDALLION_HOME")


@dataclass(frozen=True)
class McpTool:
    """One MCP tool: the verb's request, what it does with the caller's tools, how it answers."""

    request: type[verbs.Request]
    fn: Callable[[Tools, Any], Any]
    annotations: ToolAnnotations
    wrap: bool  # True: a list of rows, sent as {"result": [...]}; False: one record

    def parameters(self) -> list[inspect.Parameter]:
        """The tool's arguments, built from the request's MCP fields (descriptions, bounds, defaults), then token."""
        hints = typing.get_type_hints(self.request)
        params = [inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)]
        for f in verbs.fields_on(self.request, verbs.MCP):
            spec: verbs.Doc = f.metadata["doc"]
            annotation = Annotated[spec.mcp_type or hints[f.name],
                                   Field(description=spec.help, ge=spec.ge, le=spec.mcp_le or spec.le)]
            default = spec.mcp_default if spec.mcp_default_differs else f.default
            params.append(inspect.Parameter(
                f.name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                default=inspect.Parameter.empty if default is MISSING else default))
        params.append(inspect.Parameter("token", inspect.Parameter.KEYWORD_ONLY, annotation=Token, default=None))
        return params

    def entry(self, pool: SessionPool) -> Callable[..., CallToolResult]:
        """The function the SDK registers: its signature is the request's, its body one call through the pool."""
        def call(ctx: Context, **arguments: Any) -> CallToolResult:
            token = arguments.pop("token", None)
            return _run(pool, ctx, token, lambda t: self.fn(t, self.request(**arguments)), wrap=self.wrap)

        params = self.parameters()
        returns = Rows if self.wrap else Record
        call.__signature__ = inspect.Signature(params, return_annotation=returns)  # type: ignore[attr-defined]
        call.__annotations__ = {**{p.name: p.annotation for p in params}, "return": returns}
        call.__name__ = call.__qualname__ = self.request.verb
        call.__doc__ = self.fn.__doc__
        return call


TOOLS: list[McpTool] = []


def tool(request: type[verbs.Request], *, annotations: ToolAnnotations = READ_ONLY,
         wrap: bool = True) -> Callable[[Callable[[Tools, Any], Any]], Callable[[Tools, Any], Any]]:
    """Declare a module-level function ``(tools, request) -> result`` as the MCP tool of ``request``'s verb.

    The function's docstring is the tool's description; its arguments are the request's fields.
    """
    def declare(fn: Callable[[Tools, Any], Any]) -> Callable[[Tools, Any], Any]:
        TOOLS.append(McpTool(request, fn, annotations, wrap))
        return fn
    return declare


@tool(verbs.Namespaces)
def namespaces(tools: Tools, request: verbs.Namespaces) -> Any:
    """Call this first, when you do not yet know which namespace to use.

    Lists the namespaces you can see, what you may do in each (verbs), and how many events,
    facts and facts believed now each holds.
    """
    return tools.namespaces(**request.api())


@tool(verbs.Predicates)
def predicates(tools: Tools, request: verbs.Predicates) -> Any:
    """Call this when you need the exact name of a relation before `current`, `history`, `list` or
    `follow`, or to learn what kinds of facts a namespace records.

    Lists the predicates in use, the most used first: one or many values per entity, whether it
    comes from the curated vocabulary or was learned from text, how many facts use it, an example
    statement, and the phrases it was read from.
    """
    return tools.predicates(**request.api())


@tool(verbs.Search)
def search(tools: Tools, request: verbs.Search) -> Any:
    """Call this when you have a question in plain words and do not know which entity or predicate
    holds the answer.

    Returns the best matching facts and passages of the source text, each with its id, a score,
    whether it is still believed (current) and where it came from. Open one with `read` for
    everything about it, or ask again with detail='full'.
    """
    return tools.search(**request.api())


@tool(verbs.Read)
def read(tools: Tools, request: verbs.Read) -> Any:
    """Call this when you have a fact id (from search, list, a table or a person) and need its full
    record: when it held, who said it, how sure, its source, and people's edits and notes.

    Or give a document path and its namespace to read the document's current version.
    """
    return tools.read(**request.api())


@tool(verbs.ListFacts)
def list_facts(tools: Tools, request: verbs.ListFacts) -> Any:
    """Call this when you want to browse what is known rather than ask a question: the facts
    believed now in a namespace, optionally only about one entity and/or one predicate."""
    return tools.list(**request.api())


@tool(verbs.Current)
def current(tools: Tools, request: verbs.Current) -> Any:
    """Call this when you know the entity and the predicate and want what is believed now, e.g.
    current('Alice', 'lives_in').

    Several answers mean the predicate holds several values, or sources disagree (contested).
    A predicate no fact uses is an error that names close ones in use.
    """
    return tools.current(**request.api())


@tool(verbs.History)
def history(tools: Tools, request: verbs.History) -> Any:
    """Call this when the question is about change over time ("where did Alice live before?"):
    every value one entity's predicate has had, oldest first, with when each held. Ask with
    detail='full' for when each was recorded, by whom and how sure."""
    return mcp_compact.history(tools.history(**request.api()), request.detail)


@tool(verbs.Relate)
def relate(tools: Tools, request: verbs.Relate) -> Any:
    """Call this when the question is how two entities are connected ("how does Alice know Bob?"):
    the shortest chains of facts believed now between them, each step with its fact."""
    return tools.relate(**request.api())


@tool(verbs.Follow, wrap=False)
def follow(tools: Tools, request: verbs.Follow) -> Any:
    """Call this when the question is a chain of relations you know from one entity: "where is
    Alice's employer located?" is follow('Alice', ['works_at', 'located_in']).

    Returns the facts of each step, with their sources, and the values the last step reached.
    Use `search` when you do not know the predicates (`predicates` lists them), `relate` to find
    how two entities connect.
    """
    return tools.follow(**request.api())


@tool(verbs.Remember, annotations=WRITE, wrap=False)
def remember(tools: Tools, request: verbs.Remember) -> Any:
    """Call this when you learn something worth keeping: a statement, a note, a conversation turn,
    a document.

    It is stored as said and turned into facts at once. The answer lists under `beliefs` the
    facts it added, the older ones it replaced (superseded), those it now disputes (contested),
    what was already known (skipped) and what was kept only for a short while (working_memory).
    Sending the same content again changes nothing and gives the same answer.
    """
    return tools.remember(**request.api())


@tool(verbs.Overlay, annotations=WRITE, wrap=False)
def overlay(tools: Tools, request: verbs.Overlay) -> Any:
    """Call this when a person asks to correct, annotate or hide words of a fact: 'edit' replaces
    the quoted words, 'annotate' adds a note, 'redact' hides them wherever the fact is shown.

    Changing words a person already edited needs another person's approval.
    """
    return tools.overlay(**request.api())


@tool(verbs.RequestErasure, annotations=WRITE, wrap=False)
def request_erasure(tools: Tools, request: verbs.RequestErasure) -> Any:
    """Call this when a person asks that something be forgotten for good.

    It files a request and deletes nothing: a different person with the admin right approves it,
    and only then is the source event erased, with every fact it stated (listed in the answer).
    Needs the admin right in the namespace.
    """
    return tools.request_erasure(**request.api())


@tool(verbs.Recall, wrap=False)
def recall(tools: Tools, request: verbs.Recall) -> Any:
    """Call this when you want an answer to a question and the method chosen for you: questions
    about how entities are connected are answered from their connections, the rest from recorded
    facts.

    The answer says which method answered and why; each answer is compact unless asked with
    detail='full'.
    """
    return mcp_compact.recall(tools.recall(**request.api()), request.detail)


def build_server(settings: Settings | None = None, *, require_token: bool = False) -> MCPServer:
    """The MCP server exposing the tools (:data:`TOOLS`), for ``settings`` (default: from the environment).

    ``require_token`` (the HTTP transport) refuses calls without a token: over stdio the client is
    the process that started the server, over HTTP it could be any local process.
    """
    settings = settings or get_settings()
    pool = SessionPool(settings, require_token=require_token)

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[None]:
        pool.start_sweeper()
        try:
            yield None
        finally:
            pool.close()

    server = _OneSentenceServer(SERVER_NAME, instructions=INSTRUCTIONS, lifespan=lifespan, log_level="WARNING")
    for spec in TOOLS:
        server.add_tool(spec.entry(pool), name=spec.request.verb, annotations=spec.annotations)
    return server


def main(http_port: int | None = None) -> None:
    """Serve over stdio, or over streamable HTTP on 127.0.0.1:``http_port``."""
    server = build_server(require_token=http_port is not None)
    if http_port is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=http_port)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="The medallion-memory MCP server (stdio by default).")
    parser.add_argument("--http", type=int, default=None, metavar="PORT", help="serve streamable HTTP on 127.0.0.1")
    main(http_port=parser.parse_args().http)
