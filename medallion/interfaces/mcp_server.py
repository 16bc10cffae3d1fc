"""The MCP server over the Gold tools (G1): a thin shell over :class:`~medallion.serve.tools.Tools`.

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
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

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
Namespace = Annotated[str, Field(description="The namespace to use; `namespaces` lists the ones you can use.")]
Subject = Annotated[str, Field(description="An entity's name or alias, e.g. 'Alice'.")]
Predicate = Annotated[str, Field(description="A relation, e.g. 'lives_in'; `predicates` lists those in use.")]
FactId = Annotated[str, Field(description="A fact id, or any unique prefix of it of 6 or more characters.")]
FactDetail = Annotated[Literal["compact", "full"], Field(
    description="'compact': each fact's statement, id, when it held, whether it is believed now and its source; "
                "'full': every field (authority, confidence, people's edits, full provenance).")]

# 'overlay' events go through the overlay tool (its capability verb and its approval rule), not remember
WritableKind = Literal["transcript", "note", "commit", "issue", "document", "fact"]

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


def build_server(settings: Settings | None = None, *, require_token: bool = False) -> MCPServer:
    """The MCP server exposing the Gold tools, for ``settings`` (default: from the environment).

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

    def run(ctx: Context, token: str | None, fn: Callable[[Tools], Any], *, wrap: bool) -> CallToolResult:
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

    @server.tool(annotations=READ_ONLY)
    def namespaces(ctx: Context, token: Token = None) -> Rows:
        """Call this first, when you do not yet know which namespace to use.

        Lists the namespaces you can see, what you may do in each (verbs), and how many events,
        facts and facts believed now each holds.
        """
        return run(ctx, token, lambda t: t.namespaces(), wrap=True)

    @server.tool(annotations=READ_ONLY)
    def predicates(ctx: Context, namespace: Namespace, token: Token = None) -> Rows:
        """Call this when you need the exact name of a relation before `current`, `history`, `list` or
        `follow`, or to learn what kinds of facts a namespace records.

        Lists the predicates in use, the most used first: one or many values per entity, whether it
        comes from the curated vocabulary or was learned from text, how many facts use it, an example
        statement, and the phrases it was read from.
        """
        return run(ctx, token, lambda t: t.predicates(namespace=namespace), wrap=True)

    @server.tool(annotations=READ_ONLY)
    def search(
        ctx: Context,
        query: Annotated[str, Field(description="What to look for, in plain words.")],
        namespace: Namespace,
        k: Annotated[int, Field(ge=1, le=200, description="How many results at most.")] = 10,
        subject: Annotated[str | None, Field(description="Only facts about this entity.")] = None,
        predicate: Annotated[str | None, Field(description="Only facts with this predicate.")] = None,
        min_authority: Annotated[
            int | None, Field(ge=1, le=5, description="Only facts at least this authoritative (1 = the person "
                                                      "themselves … 5 = an agent's guess).")
        ] = None,
        include_superseded: Annotated[bool, Field(description="Also return facts no longer believed.")] = False,
        as_of: Annotated[
            str | None, Field(description="ISO 8601 time with a UTC offset: answer with what was believed then.")
        ] = None,
        per_event: Annotated[bool, Field(
            description="One result per source message, its other matches under same_event (false: every "
                        "match on its own).")] = True,
        detail: Annotated[Literal["compact", "full"], Field(
            description="'compact': statement, id, score, current, source; 'full': every field of each result "
                        "(times, authority, confidence, people's edits, full provenance).")] = "compact",
        token: Token = None,
    ) -> Rows:
        """Call this when you have a question in plain words and do not know which entity or predicate
        holds the answer.

        Returns the best matching facts and passages of the source text, each with its id, a score,
        whether it is still believed (current) and where it came from. Open one with `read` for
        everything about it, or ask again with detail='full'.
        """
        return run(ctx, token, lambda t: t.search(
            query, namespace=namespace, k=k, subject=subject, predicate=predicate, min_authority=min_authority,
            include_superseded=include_superseded, as_of=as_of, per_event=per_event, detail=detail), wrap=True)

    @server.tool(annotations=READ_ONLY)
    def read(
        ctx: Context,
        fact_id: Annotated[str | None, Field(
            description="The fact to read: its id, or any unique prefix of 6 or more characters.")] = None,
        path: Annotated[str | None, Field(description="A document path (instead of fact_id); needs namespace.")] = None,
        namespace: Annotated[str | None, Field(description="The namespace (required with path).")] = None,
        token: Token = None,
    ) -> Rows:
        """Call this when you have a fact id (from search, list, a table or a person) and need its full
        record: when it held, who said it, how sure, its source, and people's edits and notes.

        Or give a document path and its namespace to read the document's current version.
        """
        return run(ctx, token, lambda t: t.read(fact_id, path=path, namespace=namespace), wrap=True)

    @server.tool(name="list", annotations=READ_ONLY)
    def list_facts(
        ctx: Context,
        namespace: Namespace,
        subject: Annotated[str | None, Field(description="Only facts about this entity.")] = None,
        predicate: Annotated[str | None, Field(description="Only facts with this predicate.")] = None,
        include_superseded: Annotated[bool, Field(description="Also list facts no longer believed.")] = False,
        limit: Annotated[int, Field(ge=1, le=10000, description="How many facts at most.")] = 100,
        token: Token = None,
    ) -> Rows:
        """Call this when you want to browse what is known rather than ask a question: the facts
        believed now in a namespace, optionally only about one entity and/or one predicate."""
        return run(ctx, token, lambda t: t.list(namespace=namespace, subject=subject, predicate=predicate,
                                                include_superseded=include_superseded, limit=limit), wrap=True)

    @server.tool(annotations=READ_ONLY)
    def current(ctx: Context, subject: Subject, predicate: Predicate, namespace: Namespace,
                token: Token = None) -> Rows:
        """Call this when you know the entity and the predicate and want what is believed now, e.g.
        current('Alice', 'lives_in').

        Several answers mean the predicate holds several values, or sources disagree (contested).
        A predicate no fact uses is an error that names close ones in use.
        """
        return run(ctx, token, lambda t: t.current(subject, predicate, namespace=namespace), wrap=True)

    @server.tool(annotations=READ_ONLY)
    def history(ctx: Context, subject: Subject, predicate: Predicate, namespace: Namespace,
                detail: FactDetail = "compact", token: Token = None) -> Rows:
        """Call this when the question is about change over time ("where did Alice live before?"):
        every value one entity's predicate has had, oldest first, with when each held. Ask with
        detail='full' for when each was recorded, by whom and how sure."""
        return run(ctx, token, lambda t: mcp_compact.history(
            t.history(subject, predicate, namespace=namespace), detail), wrap=True)

    @server.tool(annotations=READ_ONLY)
    def relate(
        ctx: Context,
        a: Annotated[str, Field(description="One entity's name.")],
        b: Annotated[str, Field(description="The other entity's name.")],
        namespace: Namespace,
        max_depth: Annotated[int, Field(ge=1, le=6, description="The longest chain to look for, in facts.")] = 3,
        token: Token = None,
    ) -> Rows:
        """Call this when the question is how two entities are connected ("how does Alice know Bob?"):
        the shortest chains of facts believed now between them, each step with its fact."""
        return run(ctx, token, lambda t: t.relate(a, b, namespace=namespace, max_depth=max_depth), wrap=True)

    @server.tool(annotations=READ_ONLY)
    def follow(
        ctx: Context,
        entity: Annotated[str, Field(description="The entity to start from (a name or alias), e.g. 'Alice'.")],
        predicates: Annotated[list[str], Field(
            description="The predicates to follow in order (1 to 6), e.g. ['works_at', 'located_in'].")],
        namespace: Namespace,
        as_of: Annotated[
            str | None, Field(description="ISO 8601 time with a UTC offset: follow what was believed then.")
        ] = None,
        token: Token = None,
    ) -> Record:
        """Call this when the question is a chain of relations you know from one entity: "where is
        Alice's employer located?" is follow('Alice', ['works_at', 'located_in']).

        Returns the facts of each step, with their sources, and the values the last step reached.
        Use `search` when you do not know the predicates (`predicates` lists them), `relate` to find
        how two entities connect.
        """
        return run(ctx, token, lambda t: t.follow(entity, predicates, namespace=namespace, as_of=as_of), wrap=False)

    @server.tool(annotations=WRITE)
    def remember(
        ctx: Context,
        namespace: Namespace,
        content: Annotated[str, Field(description="The text to remember (an utterance, a note, a document).")],
        kind: Annotated[WritableKind, Field(description="What the text is ('fact' takes a JSON assertion).")] = "note",
        source_event_id: Annotated[
            str | None, Field(description="An idempotency key; default: a hash of kind and content.")
        ] = None,
        actor: Annotated[str | None, Field(description="Who said it, e.g. 'user:alice'.")] = None,
        authority: Annotated[
            int | None, Field(ge=1, le=5, description="How authoritative the source is (1 = the person "
                                                      "themselves … 5 = an agent's guess).")
        ] = None,
        occurred_at: Annotated[
            str | None, Field(description="When it happened (ISO 8601 with offset); default: now.")
        ] = None,
        token: Token = None,
    ) -> Record:
        """Call this when you learn something worth keeping: a statement, a note, a conversation turn,
        a document.

        It is stored as said and turned into facts at once. The answer lists under `beliefs` the
        facts it added, the older ones it replaced (superseded), those it now disputes (contested),
        what was already known (skipped) and what was kept only for a short while (working_memory).
        Sending the same content again changes nothing and gives the same answer.
        """
        return run(ctx, token, lambda t: t.remember(
            namespace=namespace, content=content, kind=kind, source_event_id=source_event_id, actor=actor,
            authority=authority, occurred_at=occurred_at), wrap=False)

    @server.tool(annotations=WRITE)
    def overlay(
        ctx: Context,
        fact_id: FactId,
        action: Annotated[Literal["edit", "annotate", "redact"], Field(description="What to do with the words.")],
        quote: Annotated[str, Field(description="The exact words of the fact's statement the change applies to.")],
        text: Annotated[str | None, Field(description="The replacement text (for 'edit').")] = None,
        note: Annotated[str | None, Field(description="A note (for 'annotate', or why).")] = None,
        token: Token = None,
    ) -> Record:
        """Call this when a person asks to correct, annotate or hide words of a fact: 'edit' replaces
        the quoted words, 'annotate' adds a note, 'redact' hides them wherever the fact is shown.

        Changing words a person already edited needs another person's approval.
        """
        return run(ctx, token, lambda t: t.overlay(fact_id, action, quote=quote, text=text, note=note), wrap=False)

    @server.tool(annotations=WRITE)
    def request_erasure(
        ctx: Context,
        reason: Annotated[str, Field(description="Why it must be forgotten; the person who approves reads it.")],
        event_id: Annotated[int | None, Field(
            description="The source event to erase (provenance.event_id in search results).")] = None,
        fact_id: Annotated[str | None, Field(
            description="Or a fact (id or unique prefix): the event that stated it is erased.")] = None,
        token: Token = None,
    ) -> Record:
        """Call this when a person asks that something be forgotten for good.

        It files a request and deletes nothing: a different person with the admin right approves it,
        and only then is the source event erased, with every fact it stated (listed in the answer).
        Needs the admin right in the namespace.
        """
        return run(ctx, token, lambda t: t.request_erasure(reason=reason, event_id=event_id, fact_id=fact_id),
                   wrap=False)

    @server.tool(annotations=READ_ONLY)
    def recall(
        ctx: Context,
        query: Annotated[str, Field(description="The question, in plain words.")],
        namespace: Namespace,
        stakes: Annotated[
            Literal["low", "high"], Field(description="'high' answers only from recorded facts with their sources, "
                                                      "never from a faster approximate memory.")
        ] = "low",
        k: Annotated[int, Field(ge=1, le=50, description="How many answers at most.")] = 5,
        detail: FactDetail = "compact",
        token: Token = None,
    ) -> Record:
        """Call this when you want an answer to a question and the method chosen for you: questions
        about how entities are connected are answered from their connections, the rest from recorded
        facts.

        The answer says which method answered and why; each answer is compact unless asked with
        detail='full'.
        """
        return run(ctx, token, lambda t: mcp_compact.recall(
            t.recall(query, namespace=namespace, stakes=stakes, k=k), detail), wrap=False)

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
