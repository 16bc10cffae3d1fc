"""Progress of the Silver derivation: events derived / total, a rate and an ETA, in Dagster's log and
in ``medallion materialize``.

Each ``derive_group`` step passes a :class:`ProgressLog` to the engine's ``derive(progress=...)``; it
writes one line to the run's log every few seconds (``derive progress: 1100/20000 events derived, 1024
committed ...``: the engine's count moves within a window of events as they are derived, its commits
window by window; see :mod:`medallion.silver.derive_progress`). The run's log lives in the Dagster
instance, which every step process writes to (under the multiprocess executor too), so the CLI follows
a run by reading it back: :class:`ProgressWatch` polls the runs of one materialize and sums the newest
line of each step.
"""

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import dagster as dg

PREFIX = "derive progress:"
_LINE = re.compile(rf"^{re.escape(PREFIX)} (\d+)/(\d+) events derived(?:, (\d+) committed)? \((\d+(?:\.\d+)?)/s")


def clock(seconds: float) -> str:
    """``h:mm:ss`` (or ``m:ss`` under an hour)."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def describe(done: int, total: int, rate: float, left: float | None = None, committed: int | None = None) -> str:
    """``done/total events derived, committed committed (rate/s, ETA h:mm:ss)``: the same words in the
    log and the CLI; the committed count is left out when it is ``done``. The ETA is ``left`` seconds
    when given (the CLI counts it down between reports), else what the rate leaves."""
    if total <= done:
        eta = "0:00"
    elif left is not None:
        eta = clock(max(0.0, left))
    else:
        eta = clock((total - done) / rate) if rate > 0 else "?"
    kept = f", {committed} committed" if committed is not None and committed != done else ""
    return f"{done}/{total} events derived{kept} ({rate:.1f}/s, ETA {eta})"


@dataclass
class Throughput:
    """Events per second derived since ``started`` (when the derivation began)."""

    started: float = field(default_factory=time.monotonic)

    def rate(self, done: int, now: float | None = None) -> float:
        elapsed = (time.monotonic() if now is None else now) - self.started
        return done / elapsed if elapsed > 0 else 0.0


Seen = tuple[int, int, float, int]  # done, total, rate, committed


def parse(message: str) -> Seen | None:
    """``(done, total, rate, committed)`` from a progress line of the run's log, else None."""
    match = _LINE.match(message or "")
    if not match:
        return None
    done = int(match.group(1))
    return done, int(match.group(2)), float(match.group(4)), int(match.group(3) or done)


class ProgressLog:
    """The ``progress(done, total, committed)`` callback of one derive step: a log line at most every
    ``every`` seconds, and always the last one (every event committed). Called after every event, so
    a call that logs nothing costs a clock read."""

    def __init__(self, log: Any, label: str, every: float = 5.0) -> None:
        self.log, self.label, self.every = log, label, every
        self.throughput = Throughput()
        self.last = float("-inf")

    def __call__(self, done: int, total: int, committed: int) -> None:
        now = time.monotonic()
        if committed < total and now - self.last < self.every:
            return
        self.last = now
        rate = self.throughput.rate(done, now)
        self.log.info(f"{PREFIX} {describe(done, total, rate, committed=committed)} in {self.label}")


class ProgressWatch:
    """Follow the derive steps of every run tagged ``tag`` (key, value) in ``instance``: calls
    ``callback(done, total, rate, committed)`` whenever their sum changes, from a background thread, every
    ``interval`` seconds while the ``with`` block runs, and once more at its end. The rate is the sum
    of the rates of the steps still deriving (they run side by side). Each poll reads only the log
    entries written since the last one (a cursor per run), so polling often stays cheap."""

    def __init__(self, instance: dg.DagsterInstance, tag: tuple[str, str],
                 callback: Callable[[int, int, float, int], None], interval: float = 0.5) -> None:
        self.instance, self.tag, self.callback, self.interval = instance, tag, callback, interval
        self.latest: dict[tuple[str, str], Seen] = {}  # (run, step) -> newest line
        self.reported: tuple[int, int, int] | None = None
        self.cursors: dict[str, str] = {}  # run -> where its log was read up to
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="derive-progress", daemon=True)

    def poll(self) -> Seen | None:
        """Read the runs' logs; the summed progress of their derive steps, None before the first line."""
        for record in self.instance.get_run_records(filters=dg.RunsFilter(tags={self.tag[0]: self.tag[1]})):
            run_id = record.dagster_run.run_id
            page = self.instance.get_records_for_run(run_id, cursor=self.cursors.get(run_id))
            for row in page.records:
                entry = row.event_log_entry
                seen = None if entry.is_dagster_event else parse(entry.user_message)
                if seen is not None:
                    self.latest[(run_id, entry.step_key or "")] = seen
            self.cursors[run_id] = page.cursor
        if not self.latest:
            return None
        lines = list(self.latest.values())
        deriving = [line for line in lines if line[3] < line[1]] or lines  # when all are done: their pace
        return (sum(line[0] for line in lines), sum(line[1] for line in lines), sum(line[2] for line in deriving),
                sum(line[3] for line in lines))

    def _report(self) -> None:
        seen = self.poll()
        if seen is not None and (seen[0], seen[1], seen[3]) != self.reported:
            self.reported = (seen[0], seen[1], seen[3])
            self.callback(*seen)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._report()
            except Exception:  # noqa: BLE001, S112 - a log being written may not read back yet; next poll
                continue

    def __enter__(self) -> "ProgressWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._report()
