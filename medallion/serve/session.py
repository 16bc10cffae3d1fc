"""A caller's session with the memory: its verified grant, its connections, its telemetry.

Every tool call runs through a :class:`Session`: the capability is checked (a token is verified
inside the database by ``auth.enter``; no token is the local administrator), reads run as
``medallion_tool`` with the call's namespaces set for the transaction, under row-level security, so
a query that forgot its namespace filter would still see nothing of another namespace; and every
call, refused ones included, appends one row to ``telemetry.retrievals``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Self

import psycopg

from medallion.db.connection import connect
from medallion.serve import capabilities, door
from medallion.settings import Settings

log = logging.getLogger(__name__)
TELEMETRY_QUEUE_LIMIT = 1000
TELEMETRY_TEXT_LIMIT = 2000  # characters of a call's query and error that telemetry keeps (migration 0024 too)

class ToolError(Exception):
    """A tool call that cannot be served: one sentence saying why and what to do."""

    exit_code = 1


class Denied(ToolError):
    """The capability does not allow the call. Reveals nothing about other namespaces."""

    exit_code = 2


class UnknownNamespace(ToolError):
    """A namespace the caller may use but that holds nothing: a misspelt or made-up name.

    The message names the namespaces the caller can see, so that an agent can correct itself; a
    namespace outside a token's grant is a :class:`Denied` instead, whether it exists or not.
    """

    exit_code = 2


class UnknownPredicate(ToolError):
    """A predicate no fact of the namespace uses; the message names the close ones that are in use."""


class Session:
    """One caller's verified grant and connections (the tools are a :class:`Session`)."""

    def __init__(self, settings: Settings, token: str | None, *, origin: str = "api") -> None:
        self.settings = settings
        self.token = token
        self.origin = origin
        self._telemetry: list[tuple[Any, ...]] = []  # rows whose write failed, retried with the next one
        self._last_cap: capabilities.Capability | None = None
        self._entered: str | None = None  # the capability id auth.enter verified for the tool backend
        self._admin: psycopg.Connection | None = None  # the local admin's verified login, opened on demand
        if token is not None:
            problem = door.text_problem(token)
            if problem or not token:
                raise Denied("the token is not a valid capability (unknown, expired or revoked)")
        self.engine = connect(settings, "engine", autocommit=True)
        try:
            self.reader = connect(settings, "tool", autocommit=True)
        except BaseException:
            self.engine.close()
            raise
        try:
            self._enter()
            self.check_token()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ plumbing
    def _enter(self) -> None:
        """Bind the tool login's backend to this caller's grant, verified inside the database.

        A token is checked by ``auth.enter``; the local admin's backend is admitted by the engine
        login. Row-level security then shows the backend only the granted namespaces, whatever the
        session sets. Telemetry commits asynchronously on this connection (see :meth:`log_call`).
        """
        self.reader.execute("SET synchronous_commit = off")
        if self.token is not None:
            try:
                [self._entered] = self.reader.execute("SELECT capability_id FROM auth.enter(%s)",
                                                      (self.token,)).fetchone()
            except psycopg.errors.InvalidAuthorizationSpecification:
                raise Denied("the token is not a valid capability (unknown, expired or revoked)") from None
            return
        pid = self.reader.execute("SELECT pg_backend_pid()").fetchone()[0]
        nonce = self.engine.execute("SELECT auth.admit_local(%s, %s)",
                                    (pid, capabilities.local_principal())).fetchone()[0]
        self.reader.execute("SELECT set_config('medallion.session', %s, false)", (nonce,))

    def admin_login(self) -> psycopg.Connection:
        """The administrative login, for decisions the database attributes to the local admin."""
        if self._admin is None:
            self._admin = connect(self.settings, "admin", autocommit=True)
        return self._admin

    def close(self) -> None:
        try:
            self.flush_telemetry()
        finally:
            self.engine.close()
            self.reader.close()
            if self._admin is not None:
                self._admin.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def check_token(self) -> capabilities.Capability | None:
        if self.token is None:
            return None
        cap = capabilities.resolve(self.engine, self.token)
        self._last_cap = cap
        if cap is None:
            raise Denied("the token is not a valid capability (unknown, expired or revoked)")
        return cap

    @property
    def principal(self) -> str:
        cap = self.check_token()
        return cap.capability_id if cap else capabilities.local_principal()

    def author(self, cap: capabilities.Capability | None) -> str:
        return cap.principal if cap else capabilities.local_principal()

    def authorize(self, verb: str, namespace: str) -> capabilities.Capability | None:
        """The caller's capability when it allows ``verb`` in ``namespace`` (None: the local admin).

        A refusal names what the capability does allow (its own namespaces, or its verbs there),
        never anything of the namespace refused.
        """
        return self.authorize_any((verb,), namespace)

    def authorize_any(self, verbs: Sequence[str], namespace: str) -> capabilities.Capability | None:
        """Like :meth:`authorize`, for a call that any one of ``verbs`` allows."""
        cap = self.check_token()
        if cap is None or any(cap.allows(verb, namespace) for verb in verbs):
            return cap
        wanted = " or ".join(f"'{v}'" for v in verbs)
        if "*" not in cap.namespaces and namespace not in cap.namespaces:
            raise Denied(f"this capability does not allow {wanted} in namespace '{namespace}'; "
                         f"the namespaces it can see are {', '.join(sorted(cap.namespaces))}")
        raise Denied(f"this capability does not allow {wanted} in namespace '{namespace}' "
                     f"(it allows {', '.join(cap.verbs)} there)")

    def granted(self) -> list[str]:
        """Every namespace the caller's grant names ('*' for every one), whatever the verb."""
        cap = self.check_token()
        return ["*"] if cap is None else list(cap.namespaces)

    def authorize_verb(self, verb: str) -> capabilities.Capability | None:
        """The caller's capability when it allows ``verb`` in some namespace (None: the local admin).

        For a call that names no namespace of its own (``ingest``: each line names its own, checked
        line by line against the same capability).
        """
        cap = self.check_token()
        if cap is not None and verb not in cap.verbs:
            raise Denied(f"this capability does not allow '{verb}' (it allows {', '.join(cap.verbs)})")
        return cap

    def readable(self, verb: str) -> list[str]:
        """The namespaces the caller may use ``verb`` in ('*' for the local admin)."""
        cap = self.authorize_verb(verb)
        return ["*"] if cap is None else list(cap.namespaces)

    @contextmanager
    def scope(self, namespaces: Sequence[str]) -> Iterator[psycopg.Connection]:
        """A read transaction as medallion_tool, narrowed to ``namespaces`` within the verified grant."""
        with self.reader.transaction():
            self.reader.execute("SELECT set_config('medallion.namespaces', %s, true), "
                                "set_config('hnsw.iterative_scan', 'relaxed_order', true)", (",".join(namespaces),))
            yield self.reader

    def log_call(self, tool: str, namespace: str | None, query: str | None, results: Sequence[dict[str, Any]],
             started: float, error: str | None = None) -> None:
        """One telemetry row per call, allowed or not, written at once.

        The row commits with ``synchronous_commit = off``: the call does not wait for the WAL flush
        (about a round trip, not a disk write), a crash of this process loses no row, and a crash of
        the database server loses at most its last few hundred milliseconds of commits. A row that
        cannot be written stays queued and is retried with the next one; a telemetry failure never
        fails the caller's call and never takes other rows with it.

        The row names the grant the tool backend entered with (the database refuses any other, and a
        namespace outside that grant except on a refused call), and keeps at most
        ``TELEMETRY_TEXT_LIMIT`` characters of the query and of the error: a 20 MB query is a call
        worth counting, not worth storing.
        """
        served = [item for r in results for item in (r, *(r.get("same_event") or ()))]  # grouped items are served too
        fact_ids = list(dict.fromkeys(r["fact_id"] for r in served if r.get("fact_id")))
        chunk_ids = list(dict.fromkeys(r["chunk_id"] for r in served if r.get("chunk_id")))
        principal = capabilities.local_principal() if self.token is None else self._entered
        self._telemetry.append(tuple(door.printable(v) for v in (
            tool, namespace, principal, _capped(query), fact_ids, chunk_ids, bool(results),
            (time.perf_counter() - started) * 1000, error is None, _capped(error))))
        self.flush_telemetry()

    def flush_telemetry(self) -> None:
        """Write the queued telemetry rows: all in one statement, one round trip (the reader is in
        autocommit, so the INSERT is its own transaction); if that fails, each row on its own, and one
        that fails stays queued (bounded)."""
        if not self._telemetry or self.reader.closed:
            return
        try:
            self._write_telemetry(self._telemetry)
            self._telemetry = []
            return
        except psycopg.Error as exc:
            if len(self._telemetry) == 1:
                log.warning("telemetry row kept for a retry: %s", _first_line(exc))
                return
        kept: list[tuple[Any, ...]] = []
        for row in self._telemetry:
            try:
                self._write_telemetry([row])
            except psycopg.Error as exc:
                log.warning("telemetry row kept for a retry: %s", _first_line(exc))
                kept.append(row)
        self._telemetry = kept[-TELEMETRY_QUEUE_LIMIT:]

    def _write_telemetry(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """One INSERT of ``rows``; inside a transaction of the caller's it is a savepoint of its own."""
        values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"] * len(rows))
        sql = ("INSERT INTO telemetry.retrievals (tool, namespace, principal, query, fact_ids, chunk_ids, hit, "
               f"latency_ms, ok, error) VALUES {values}")
        params = [value for row in rows for value in row]
        if self.reader.autocommit and self.reader.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            self.reader.execute(sql, params)
            return
        with self.reader.transaction():
            self.reader.execute(sql, params)

    def call(self, tool: str, namespace: str | None, query: str | None, fn: Any,
              logged: Callable[[Any], list[dict[str, Any]]] | None = None) -> Any:
        """Run one call and log it; ``logged`` picks the rows whose ids telemetry records (default: the result)."""
        started = time.perf_counter()
        try:
            result = fn()
        except ToolError as exc:
            self.log_call(tool, namespace, query, [], started, str(exc))
            raise
        if logged is not None:
            rows = logged(result)
        else:
            rows = result if isinstance(result, list) else [result] if isinstance(result, dict) else []
        self.log_call(tool, namespace, query, [r for r in rows if isinstance(r, dict)], started)
        return result


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else repr(exc)


def _capped(text: str | None) -> str | None:
    """``text`` cut to ``TELEMETRY_TEXT_LIMIT`` characters, its last one an ellipsis when it was longer."""
    if text is None or len(text) <= TELEMETRY_TEXT_LIMIT:
        return text
    return text[:TELEMETRY_TEXT_LIMIT - 1] + "\u2026"
