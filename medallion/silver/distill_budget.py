"""Each event's distillation runs on a budget of CPU time (R10).

One pathological sentence can hold a distiller for minutes (a regular expression that backtracks
exponentially, a parser that loops): the derivation then stalls for every namespace behind it. The
derivation therefore wraps its distiller in :class:`BudgetedDistiller`: an event whose distillation
uses more than ``Settings.distill_budget_seconds`` of CPU time is stopped and raises
:class:`~medallion.distill.providers.DistillError`, so it is parked like any poison event and retried
by the next run, and the run goes on.

How the block is stopped: in the main thread a ``SIGPROF`` interval timer (``ITIMER_PROF``, the
process's CPU time) fires once the budget is spent and its handler raises :class:`OverBudget` in
the running code. CPython checks for signals inside the regular-expression matcher too, so this
interrupts a match that would otherwise never return. Signals only reach the main thread: anywhere
else (a server that derives in a worker thread), or where an interval timer is unavailable or
already in use (a profiler), the block runs to its end and is refused afterwards if it went over,
so the event is parked all the same and the ledger does not depend on the thread that derived it.

CPU time rather than wall time: a model provider waiting on the network spends almost none, and a
busy machine does not make an ordinary event look slow.
"""

from __future__ import annotations

import inspect
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from medallion.distill.language import parse
from medallion.distill.providers import Distiller, DistillError
from medallion.distill.types import EventInput, FactCandidate

log = logging.getLogger(__name__)


class OverBudget(BaseException):  # noqa: N818 - a signal, not an error of the block's own
    """The block used up its CPU budget. A ``BaseException`` so that a distiller's own
    ``except Exception`` cannot swallow it and run on."""


_active = threading.local()  # a budget already running in this thread governs any nested one


def _preemptive() -> bool:
    """Whether a timer signal can stop the block: main thread, ``setitimer`` available and idle."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return False
    return signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


@contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """Run the block on ``seconds`` of CPU time; raise :class:`OverBudget` once it has used them up
    (stopped as it runs in the main thread, refused when it ends elsewhere). A budget nested in a
    running one adds nothing: the outer one governs."""
    if getattr(_active, "on", False):
        yield
        return
    _active.on = True
    try:
        if not _preemptive():
            log.debug("distillation budget checked after the fact: no interval timer in this thread")
            started = time.thread_time()
            yield
            if time.thread_time() - started > seconds:
                raise OverBudget
            return
        fired = False

        def on_timer(signum: int, frame: Any) -> None:
            nonlocal fired
            if _importing(frame):  # a module stopped half-imported would break every later import
                signal.setitimer(signal.ITIMER_PROF, seconds)
                return
            fired = True
            raise OverBudget

        previous = signal.signal(signal.SIGPROF, on_timer)
        try:
            signal.setitimer(signal.ITIMER_PROF, seconds)
            try:
                yield
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
        finally:
            signal.signal(signal.SIGPROF, previous)
        if fired:  # the block caught OverBudget itself and went on: it is refused all the same
            raise OverBudget
    finally:
        _active.on = False


def _importing(frame: Any) -> bool:
    """Whether the interrupted code is running an import (a distiller's first use of a library):
    the budget then starts afresh once it is done instead of stopping it."""
    depth = 0
    while frame is not None and depth < 500:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame, depth = frame.f_back, depth + 1
    return False


def over_budget_reason(seconds: float) -> str:
    """What a parked event's reason says."""
    return (f"distillation exceeded the {seconds:g} s budget of CPU time per event "
            "(MEDALLION_DISTILL_BUDGET_SECONDS); the next run retries it")


class BudgetedDistiller:
    """``inner`` with each event's :meth:`distill` held to ``seconds`` of CPU time; every other
    attribute (``name``, ``model``, ``last_usage``, ``prepare``) is the inner distiller's."""

    def __init__(self, inner: Distiller, seconds: float):
        self.inner = inner
        self.seconds = seconds
        self.name = inner.name
        if inner.name == "heuristic":
            # Its parser (spaCy, its English pipeline) takes seconds of CPU to load, once per process:
            # loaded here, outside any budget, rather than charged to whichever event needs it first.
            parse.warm(set())

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self.inner, attr)
        return self._prepare if attr == "prepare" else value

    def distill(self, event: EventInput) -> list[FactCandidate]:
        try:
            with cpu_budget(self.seconds):
                return self.inner.distill(event)
        except OverBudget:
            raise DistillError(over_budget_reason(self.seconds)) from None

    def _prepare(self, events: list[EventInput]) -> None:
        """The inner distiller's batch preparation. A ``prepare`` that takes a ``guard`` runs each
        event's part under it, so one slow event costs the budget and the others are prepared; any
        other ``prepare`` gets the window's budget as a whole. Preparing is an optimisation: an
        event stopped here is distilled (and held to its budget) as usual afterwards."""
        prepare: Callable[..., None] = self.inner.prepare  # type: ignore[attr-defined]
        try:
            if "guard" in inspect.signature(prepare).parameters:
                prepare(events, guard=self._dry_run)
                return
            with cpu_budget(self.seconds * max(1, len(events))):
                prepare(events)
        except OverBudget:
            log.warning("preparing a window of %d events went over its budget; its events are distilled one "
                        "by one", len(events))

    def _dry_run(self) -> AbstractContextManager[None]:
        return _swallowed(self.seconds)


@contextmanager
def _swallowed(seconds: float) -> Iterator[None]:
    """A budget whose overrun ends the block quietly (one event of a batch preparation)."""
    try:
        with cpu_budget(seconds):
            yield
    except OverBudget:
        return
