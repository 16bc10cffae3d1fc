"""The MCP server's sessions: one :class:`~medallion.serve.tools.Tools` per distinct caller, bounded.

A Tools holds two database connections (three once the local admin decides something), bound to
its caller's verified grant for their whole life, so sessions cannot share connections; what the
server can bound is how many sessions it keeps. Over HTTP every distinct token is a caller, and a
server that kept a session per token forever ran the database out of connection slots (and every
other client of it with it). :class:`SessionPool` therefore keeps at most
``Settings.mcp_max_sessions`` sessions: a session unused for ``Settings.mcp_session_idle_seconds``
is closed (by a sweeper thread, and on every call), a new caller takes the place of the session
idle longest, and a caller is refused, in one sentence, only while every session is in a call.
At most ``3 * mcp_max_sessions`` connections, plus two while a new token is being verified, are
ever open.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from medallion.serve.tools import Denied, ToolError, Tools, open_tools
from medallion.settings import Settings

log = logging.getLogger(__name__)
SWEEP_EVERY_MAX = 30.0  # seconds between two sweeps of idle sessions, at most


class ServerBusy(ToolError):
    """Every session the server may keep is in a call: the caller should try again shortly."""


@dataclass
class _Entry:
    tools: Tools
    lock: threading.Lock = field(default_factory=threading.Lock)  # one call at a time on a Tools
    users: int = 0  # calls holding or waiting for this session: it is not closed while any do
    last_used: float = 0.0


class SessionPool:
    """At most ``settings.mcp_max_sessions`` sessions, one per token, opened on first use.

    The SDK runs synchronous tools on worker threads, and a Tools's connections must not
    interleave two transactions, so each session serves one call at a time. ``clock`` is the
    monotonic clock idleness is measured with.
    """

    def __init__(self, settings: Settings, *, require_token: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.require_token = require_token
        self.max_sessions = settings.mcp_max_sessions
        self.idle_seconds = settings.mcp_session_idle_seconds
        self.clock = clock
        self._lock = threading.Lock()
        self._open: dict[str | None, _Entry] = {}
        self._stop = threading.Event()
        self._sweeper: threading.Thread | None = None

    @property
    def size(self) -> int:
        """How many sessions are open now."""
        with self._lock:
            return len(self._open)

    # ------------------------------------------------------------------ checkout
    def _idle_locked(self, now: float) -> list[_Entry]:
        """Take out every session no call uses that has been idle for the timeout (the lock held)."""
        expired = [token for token, entry in self._open.items()
                   if entry.users == 0 and now - entry.last_used >= self.idle_seconds]
        return [self._open.pop(token) for token in expired]

    def _checkout(self, token: str | None) -> _Entry:
        with self._lock:
            closing = self._idle_locked(self.clock())
            try:
                entry = self._open.get(token)
                if entry is None:
                    if len(self._open) >= self.max_sessions:
                        closing.append(self._make_room_locked())
                    # closed before the new one opens, so the bound holds; an invalid token raises
                    # Denied in open_tools and is not kept
                    _close_all(closing)
                    closing = []
                    entry = _Entry(open_tools(token, self.settings, origin="mcp"))
                    self._open[token] = entry
                entry.users += 1
                return entry
            finally:
                _close_all(closing)

    def _make_room_locked(self) -> _Entry:
        """Take out the session idle longest that no call uses; refuse when every one is in a call."""
        free = [(entry.last_used, token) for token, entry in self._open.items() if entry.users == 0]
        if not free:
            raise ServerBusy(f"the memory server is busy: all {self.max_sessions} of its sessions are in a call "
                             "(MEDALLION_MCP_MAX_SESSIONS); try again in a moment")
        _, token = min(free, key=lambda pair: pair[0])
        return self._open.pop(token)

    def _checkin(self, entry: _Entry) -> None:
        with self._lock:
            entry.users -= 1
            entry.last_used = self.clock()

    def _drop(self, token: str | None, entry: _Entry) -> None:
        """Forget a session whose token or connections went bad (its lock held by the caller)."""
        with self._lock:
            if self._open.get(token) is entry:
                del self._open[token]
        with contextlib.suppress(Exception):  # closing a broken connection must not mask the call's error
            entry.tools.close()

    # ------------------------------------------------------------------ calls
    def call(self, token: str | None, fn: Callable[[Tools], Any]) -> Any:
        """Run ``fn`` on the session of ``token`` (None or '' = the server's token, else the local admin)."""
        effective = token or self.settings.token or None
        if effective is None and self.require_token:
            # over HTTP any local process could connect: no one is the local admin there
            raise Denied("this server needs a capability token: send 'Authorization: Bearer <token>' with each "
                         "request (or set MEDALLION_TOKEN where the server runs)")
        entry = self._checkout(effective)
        try:
            with entry.lock:
                try:
                    return fn(entry.tools)
                except Denied:
                    try:  # revoked or expired since it was opened? then forget it
                        entry.tools.principal  # noqa: B018 - the property re-checks the token
                    except Exception:
                        self._drop(effective, entry)
                    raise
                except ToolError:
                    raise
                except Exception:
                    # a broken connection would break every later call with this token: start afresh next time
                    self._drop(effective, entry)
                    raise
        finally:
            self._checkin(entry)

    # ------------------------------------------------------------------ idle sessions
    def sweep(self) -> int:
        """Close every session idle for the timeout; returns how many were closed."""
        with self._lock:
            closing = self._idle_locked(self.clock())
        _close_all(closing)
        return len(closing)

    def start_sweeper(self) -> None:
        """Sweep idle sessions in the background until :meth:`close`, so an idle server holds no connection."""
        if self._sweeper is not None:
            return
        every = max(0.05, min(SWEEP_EVERY_MAX, self.idle_seconds / 2))
        stop = self._stop

        def loop() -> None:
            while not stop.wait(every):
                try:
                    self.sweep()
                except Exception:  # a failing close must not end the sweeping
                    log.exception("closing idle MCP sessions failed")

        self._sweeper = threading.Thread(target=loop, name="mcp-session-sweeper", daemon=True)
        self._sweeper.start()

    def close(self) -> None:
        """Stop sweeping and close every session (waiting for a call in progress to finish)."""
        self._stop.set()
        if self._sweeper is not None:
            self._sweeper.join(timeout=10)
        self._sweeper, self._stop = None, threading.Event()  # a server started again sweeps again
        with self._lock:
            opened = list(self._open.values())
            self._open.clear()
        for entry in opened:
            with entry.lock, contextlib.suppress(Exception):
                entry.tools.close()


def _close_all(entries: list[_Entry]) -> None:
    """Close sessions no call uses any more (taken out of the pool already)."""
    for entry in entries:
        with contextlib.suppress(Exception):  # a broken connection is as good as closed
            entry.tools.close()
