"""The MCP server over the Gold tools (G1): a thin shell over :class:`~medallion.serve.tools.Tools`.

Every tool is the same call as the Python API and the CLI, with the same capability check: the
token comes from ``MEDALLION_TOKEN`` (``Settings.token``) or, per call, from the tool's optional
``token`` argument, which overrides the environment for that call. One :class:`Tools` is opened per
distinct token, lazily, and closed when the server shuts down.

A refused or impossible call (:class:`~medallion.serve.tools.ToolError`, ``Denied`` included)
comes back as a tool error (``isError``) whose text is the tool's one-sentence message; anything
unexpected comes back as the SDK's generic ``Error executing tool <name>`` (the traceback stays in the
server's log on stderr). Successful results are the tool's JSON: one text block, plus the same value
as structured content (wrapped as ``{"result": [...]}`` for the list-returning tools).

Run with ``python -m medallion.interfaces.mcp_server`` (stdio) or ``medallion mcp [--http PORT]``.
"""

import argparse
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

import psycopg
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as SdkToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from medallion.db.connection import DatabaseNotReady, LoginFailed
from medallion.serve.tools import Denied, ToolError, Tools, open_tools
from medallion.settings import Settings, get_settings

SERVER_NAME = "medallion-memory"
INSTRUCTIONS = (
    "An agent's memory as a bitemporal ledger. Facts live in namespaces; every call needs a namespace the "
    "capability allows. Use `recall` or `search` to find facts, `current`/`history` for one subject's "
    "predicate, `follow` for a chain of predicates from one entity, `read` for a fact's provenance and "
    "overlays, `remember` to write an event, `overlay` to edit, annotate or redact a span of a fact."
)

# result shapes: published as output schemas, and validated by the SDK before a result leaves the server
Facts = Annotated[CallToolResult, list[dict[str, Any]]]
Record = Annotated[CallToolResult, dict[str, Any]]

Token = Annotated[
    str | None,
    Field(description="A capability token for this call only; overrides the server's MEDALLION_TOKEN."),
]
Namespace = Annotated[str, Field(description="The namespace to use (the capability must allow it).")]
Subject = Annotated[str, Field(description="An entity's name or alias, e.g. 'Alice'.")]
Predicate = Annotated[str, Field(description="A predicate, e.g. 'lives_in'.")]

# 'overlay' events go through the overlay tool (its capability verb and its approval rule), not remember
WritableKind = Literal["transcript", "note", "commit", "issue", "document", "fact"]

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


class _Pool:
    """One :class:`Tools` per distinct token, opened on first use; one call at a time per Tools.

    The SDK runs synchronous tools on worker threads, and a Tools holds two connections whose
    transactions must not interleave, so each Tools has its own lock.
    """

    def __init__(self, settings: Settings, *, require_token: bool = False) -> None:
        self.settings = settings
        self.require_token = require_token
        self._lock = threading.Lock()
        self._open: dict[str | None, tuple[Tools, threading.Lock]] = {}

    def _get(self, token: str | None) -> tuple[Tools, threading.Lock]:
        with self._lock:
            found = self._open.get(token)
            if found is None:
                # an invalid token raises Denied here and is not cached
                found = (open_tools(token, self.settings, origin="mcp"), threading.Lock())
                self._open[token] = found
            return found

    def _drop(self, token: str | None, tools: Tools) -> None:
        with self._lock:
            if self._open.get(token, (None,))[0] is tools:
                del self._open[token]
        with contextlib.suppress(Exception):  # closing a broken connection must not mask the call's error
            tools.close()

    def call(self, token: str | None, fn: Callable[[Tools], Any]) -> Any:
        """Run ``fn`` on the Tools of ``token`` (None or '' = the server's token, else the local admin)."""
        effective = token or self.settings.token or None
        if effective is None and self.require_token:
            # over HTTP any local process could connect: no one is the local admin there
            raise Denied("this server needs a capability token (MEDALLION_TOKEN or the call's token argument)")
        tools, lock = self._get(effective)
        with lock:
            try:
                return fn(tools)
            except Denied:
                try:  # revoked or expired since it was opened? then forget it
                    tools.principal  # noqa: B018 - the property re-checks the token
                except Exception:
                    self._drop(effective, tools)
                raise
            except ToolError:
                raise
            except Exception:
                # a broken connection would break every later call with this token: start afresh next time
                self._drop(effective, tools)
                raise

    def close(self) -> None:
        with self._lock:
            opened = list(self._open.values())
            self._open.clear()
        for tools, lock in opened:
            with lock, contextlib.suppress(Exception):
                tools.close()


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _result(value: Any, *, wrap: bool) -> CallToolResult:
    value = _jsonable(value)
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(value, ensure_ascii=False, indent=2))],
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
            first = cause.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "arguments"
            more = f" (and {len(cause.errors()) - 1} more)" if len(cause.errors()) > 1 else ""
            message = " ".join(str(first["msg"]).split())
            raise SdkToolError(f"invalid argument '{field}' for {name}: {message}{more}") from cause


def build_server(settings: Settings | None = None, *, require_token: bool = False) -> MCPServer:
    """The MCP server exposing the Gold tools, for ``settings`` (default: from the environment).

    ``require_token`` (the HTTP transport) refuses calls without a token: over stdio the client is
    the process that started the server, over HTTP it could be any local process.
    """
    settings = settings or get_settings()
    pool = _Pool(settings, require_token=require_token)

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[None]:
        try:
            yield None
        finally:
            pool.close()

    server = _OneSentenceServer(SERVER_NAME, instructions=INSTRUCTIONS, lifespan=lifespan, log_level="WARNING")

    def run(token: str | None, fn: Callable[[Tools], Any], *, wrap: bool) -> CallToolResult:
        try:
            return _result(pool.call(token, fn), wrap=wrap)
        except ToolError as exc:
            return _error(str(exc))
        except (LoginFailed, DatabaseNotReady) as exc:  # already one sentence, the password masked
            return _error(str(exc))
        except psycopg.OperationalError as exc:
            first = (str(exc).strip().splitlines() or ["no detail"])[0]
            return _error(f"the memory's database is not reachable ({first}); "
                          "check MEDALLION_DATABASE_URL or MEDALLION_HOME")

    @server.tool(annotations=READ_ONLY)
    def search(
        query: Annotated[str, Field(description="What to look for, in plain words.")],
        namespace: Namespace,
        k: Annotated[int, Field(ge=1, le=200, description="How many results at most.")] = 10,
        subject: Annotated[str | None, Field(description="Only facts about this entity.")] = None,
        predicate: Annotated[str | None, Field(description="Only facts with this predicate.")] = None,
        min_authority: Annotated[
            int | None, Field(ge=1, le=5, description="Only facts at least this authoritative (tier <= N; 1 = user).")
        ] = None,
        include_superseded: Annotated[bool, Field(description="Also return facts no longer believed.")] = False,
        as_of: Annotated[
            str | None, Field(description="ISO 8601 time with a UTC offset: answer with what was believed then.")
        ] = None,
        per_event: Annotated[bool, Field(
            description="One result per source event, its other hits under same_event (false: every item).")] = True,
        token: Token = None,
    ) -> Facts:
        """Hybrid search (vector + full text) over the facts and source chunks of a namespace.

        Results are ranked facts and verified chunks, each with its provenance; chunks list the
        current facts they support.
        """
        return run(token, lambda t: t.search(
            query, namespace=namespace, k=k, subject=subject, predicate=predicate, min_authority=min_authority,
            include_superseded=include_superseded, as_of=as_of, per_event=per_event), wrap=True)

    @server.tool(annotations=READ_ONLY)
    def read(
        fact_id: Annotated[str | None, Field(description="The fact to read.")] = None,
        path: Annotated[str | None, Field(description="A document path (instead of fact_id); needs namespace.")] = None,
        namespace: Annotated[str | None, Field(description="The namespace (required with path).")] = None,
        token: Token = None,
    ) -> Facts:
        """Read one fact by id, with its provenance and overlays, or a document's current version by path."""
        return run(token, lambda t: t.read(fact_id, path=path, namespace=namespace), wrap=True)

    @server.tool(name="list", annotations=READ_ONLY)
    def list_facts(
        namespace: Namespace,
        subject: Annotated[str | None, Field(description="Only facts about this entity.")] = None,
        predicate: Annotated[str | None, Field(description="Only facts with this predicate.")] = None,
        include_superseded: Annotated[bool, Field(description="Also list facts no longer believed.")] = False,
        limit: Annotated[int, Field(ge=1, le=10000, description="How many facts at most.")] = 100,
        token: Token = None,
    ) -> Facts:
        """List the facts of a namespace (current ones by default), optionally of one subject and/or predicate."""
        return run(token, lambda t: t.list(namespace=namespace, subject=subject, predicate=predicate,
                                           include_superseded=include_superseded, limit=limit), wrap=True)

    @server.tool(annotations=READ_ONLY)
    def current(subject: Subject, predicate: Predicate, namespace: Namespace, token: Token = None) -> Facts:
        """What is believed now about one subject's predicate.

        Every open version: several when the predicate is many-valued or the versions are contested.
        """
        return run(token, lambda t: t.current(subject, predicate, namespace=namespace), wrap=True)

    @server.tool(annotations=READ_ONLY)
    def history(subject: Subject, predicate: Predicate, namespace: Namespace, token: Token = None) -> Facts:
        """Every version of one subject's predicate over time, oldest first, with when each was valid and recorded."""
        return run(token, lambda t: t.history(subject, predicate, namespace=namespace), wrap=True)

    @server.tool(annotations=READ_ONLY)
    def relate(
        a: Annotated[str, Field(description="One entity's name.")],
        b: Annotated[str, Field(description="The other entity's name.")],
        namespace: Namespace,
        max_depth: Annotated[int, Field(ge=1, le=6, description="The longest path to look for, in hops.")] = 3,
        token: Token = None,
    ) -> Facts:
        """How two entities are related: the shortest paths between them over current facts, each hop with its fact."""
        return run(token, lambda t: t.relate(a, b, namespace=namespace, max_depth=max_depth), wrap=True)

    @server.tool(annotations=READ_ONLY)
    def follow(
        entity: Annotated[str, Field(description="The entity to start from (a name or alias), e.g. 'Alice'.")],
        predicates: Annotated[list[str], Field(
            description="The predicates to follow in order (1 to 6), e.g. ['works_at', 'located_in'].")],
        namespace: Namespace,
        as_of: Annotated[
            str | None, Field(description="ISO 8601 time with a UTC offset: follow what was believed then.")
        ] = None,
        token: Token = None,
    ) -> Record:
        """Follow a chain of predicates from one entity, over current facts (or those believed at as_of).

        Call it when the question is a chain whose predicates you know (from `current`, `list` or
        search results): "where is Alice's employer located?" is follow('Alice', ['works_at',
        'located_in']). Returns each hop's facts with provenance, and the values the last hop reached.
        Use `search` when you do not know the predicates, `relate` to find how two entities connect.
        """
        return run(token, lambda t: t.follow(entity, predicates, namespace=namespace, as_of=as_of), wrap=False)

    @server.tool(annotations=WRITE)
    def remember(
        namespace: Namespace,
        content: Annotated[str, Field(description="The text to remember (an utterance, a note, a document).")],
        kind: Annotated[WritableKind, Field(description="The event's kind ('fact' takes a JSON assertion).")] = "note",
        source_event_id: Annotated[
            str | None, Field(description="An idempotency key; default: a hash of kind and content.")
        ] = None,
        actor: Annotated[str | None, Field(description="Who said it, e.g. 'user:alice'.")] = None,
        authority: Annotated[
            int | None, Field(ge=1, le=5, description="Authority tier claimed (1 = user … 5 = inference).")
        ] = None,
        occurred_at: Annotated[
            str | None, Field(description="When it happened (ISO 8601 with offset); default: now.")
        ] = None,
        token: Token = None,
    ) -> Record:
        """Write one event to memory (Bronze) and derive its facts now. Writing the same event again is a no-op."""
        return run(token, lambda t: t.remember(
            namespace=namespace, content=content, kind=kind, source_event_id=source_event_id, actor=actor,
            authority=authority, occurred_at=occurred_at), wrap=False)

    @server.tool(annotations=WRITE)
    def overlay(
        fact_id: Annotated[str, Field(description="The fact to change.")],
        action: Annotated[Literal["edit", "annotate", "redact"], Field(description="What to do with the span.")],
        quote: Annotated[str, Field(description="The exact words of the fact's statement the overlay applies to.")],
        text: Annotated[str | None, Field(description="The replacement text (for 'edit').")] = None,
        note: Annotated[str | None, Field(description="A note (for 'annotate', or why).")] = None,
        token: Token = None,
    ) -> Record:
        """Edit, annotate or redact a span of a fact's statement. Overwriting a person's overlay needs approval."""
        return run(token, lambda t: t.overlay(fact_id, action, quote=quote, text=text, note=note), wrap=False)

    @server.tool(annotations=READ_ONLY)
    def recall(
        query: Annotated[str, Field(description="The question, in plain words.")],
        namespace: Namespace,
        stakes: Annotated[
            Literal["low", "high"], Field(description="'high' answers only from the auditable ledger.")
        ] = "low",
        k: Annotated[int, Field(ge=1, le=50, description="How many answers at most.")] = 5,
        token: Token = None,
    ) -> Record:
        """Answer a question from memory: relational questions go to the graph, the rest to the ledger.

        The answer says which hop answered and why.
        """
        return run(token, lambda t: t.recall(query, namespace=namespace, stakes=stakes, k=k), wrap=False)

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
