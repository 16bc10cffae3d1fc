"""R10: the CPU budget that stops one event's distillation (medallion/silver/distill_budget.py)."""

from __future__ import annotations

import contextlib
import re
import signal
import threading
import time
from datetime import UTC, datetime

import pytest

from medallion.distill.providers import DistillError
from medallion.distill.types import EventInput, FactCandidate
from medallion.silver.distill_budget import BudgetedDistiller, OverBudget, cpu_budget

RUNAWAY = re.compile(r"^(?:[a-z]\w*(?:[-_.]\w+)+)\s+(?=is\b)")  # backtracks exponentially on 'a_' × n
AT = datetime(2026, 1, 5, 10, tzinfo=UTC)


def _event(content: str) -> EventInput:
    return EventInput(1, "ns", "chat", "1", "transcript", "user:alice", content, AT, AT, 3, "chat://1")


def _burn(seconds: float) -> None:
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


def test_a_runaway_match_is_stopped_inside_the_regex_engine() -> None:
    """In the main thread the timer signal stops a match that would run for hours; the previous
    SIGPROF handler is back afterwards."""
    before = signal.getsignal(signal.SIGPROF)
    started = time.process_time()
    with pytest.raises(OverBudget), cpu_budget(0.2):
        RUNAWAY.match("a_" * 40)
    assert time.process_time() - started < 5
    assert signal.getsignal(signal.SIGPROF) == before and signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


def test_a_block_cannot_swallow_its_overrun() -> None:
    """``except Exception`` does not catch it, and a block that catches everything is refused when it ends."""
    with pytest.raises(OverBudget), cpu_budget(0.1), contextlib.suppress(Exception):  # a careless distiller
        _burn(5)
    with pytest.raises(OverBudget), cpu_budget(0.1), contextlib.suppress(BaseException):
        _burn(5)


def test_off_the_main_thread_the_overrun_is_refused_when_the_block_ends() -> None:
    outcome: list[str] = []

    def work() -> None:
        try:
            with cpu_budget(0.1):
                _burn(0.3)
            outcome.append("finished")
        except OverBudget:
            outcome.append("over budget")
        with cpu_budget(1.0):
            _burn(0.05)
        outcome.append("within")

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(30)
    assert outcome == ["over budget", "within"]


class _Slow:
    """A distiller that burns CPU on 'slow' events and remembers what its batch preparation reached."""

    name = "slow"
    model = "m1"

    def __init__(self) -> None:
        self.prepared: list[str] = []

    def distill(self, event: EventInput) -> list[FactCandidate]:
        if "slow" in event.content:
            _burn(5)
        return []

    def prepare(self, events: list[EventInput], guard=None) -> None:  # noqa: ANN001
        for event in events:
            try:
                with guard():
                    self.distill(event)
                    self.prepared.append(event.content)
            except Exception:  # noqa: BLE001, S112
                continue


def test_the_budgeted_distiller_parks_a_slow_event_and_prepares_the_rest() -> None:
    """An event over budget raises DistillError with a reason that names the budget; its batch
    preparation stops that event alone; the inner distiller's attributes show through."""
    inner = _Slow()
    budgeted = BudgetedDistiller(inner, 0.2)
    assert budgeted.name == "slow" and budgeted.model == "m1"
    budgeted.prepare([_event("fine one"), _event("slow one"), _event("fine two")])
    assert inner.prepared == ["fine one", "fine two"]
    assert budgeted.distill(_event("fine")) == []
    with pytest.raises(DistillError, match=r"distillation exceeded the 0\.2 s budget"):
        budgeted.distill(_event("slow"))
