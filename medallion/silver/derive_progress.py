"""The derivation's progress as its caller sees it: ``progress(done, total, committed)``.

A window of :data:`~medallion.silver.derive.WINDOW` events commits as a whole, and on a model that
encodes a few hundred texts a window takes seconds (about 10 s on this project's 2-core machine), so
a count of committed events alone would sit still between commits. ``done`` therefore also counts
the current window's progress: its work is one unit per event distilled, one per text embedded (as
the embedder reports each batch) and one per event resolved, and ``done`` is the events committed
before the window plus the window's events in proportion to the units done. ``committed`` is never
an estimate: the events whose derivation (or parking record) is committed, which a killed run keeps.
After each window, and at the end, ``done`` equals ``committed``.

Called after each event and embedding batch whenever a count changes, so the callback must be cheap
(no database statement, no I/O of its own on every call): :class:`dagster_project.progress.ProgressLog`
keeps to a line every few seconds.
"""

from __future__ import annotations

from collections.abc import Callable

from medallion.silver.report import DeriveReport

Progress = Callable[[int, int, int], None]  # (done, total, committed)
TEXTS_PER_EVENT = 2.0  # the first window's guess at the texts it will embed, before distilling tells


def shifted(progress: Progress | None, earlier: int) -> Progress | None:
    """``progress`` for a later lock group: its counts follow the ``earlier`` events already settled."""
    if progress is None or not earlier:
        return progress
    return lambda done, total, committed: progress(earlier + done, earlier + total, earlier + committed)


class WindowTally:
    """Counts one derive run's events for ``progress``: committed from ``report`` (events derived and
    events parked), done as the module docstring says."""

    def __init__(self, progress: Progress | None, total: int, report: DeriveReport) -> None:
        self.progress, self.total, self.report = progress, total, report
        self.shown = (-1, -1)
        self.done = 0
        self.base = self.size = 0  # the current window: events committed before it, its events
        self.units = 0.0  # the current window's units done (events distilled and resolved, texts embedded)
        self.texts: float = 0.0  # texts the window embeds (a guess until its embedding starts)
        self.embedded = 0.0  # texts of the window embedded so far
        self.sized = False  # whether the window's embedding has told how many texts it has
        self.per_event = TEXTS_PER_EVENT

    def committed(self) -> int:
        return self.report.events + len(self.report.failures)

    def start(self, size: int) -> None:
        """A window of ``size`` events begins."""
        self.base, self.size, self.units, self.embedded = self.committed(), size, 0.0, 0.0
        self.texts, self.sized = size * self.per_event, False

    def step(self) -> None:
        """An event of the window distilled, resolved or parked."""
        self.units += 1
        self.update()

    def embedding(self, texts: int) -> Callable[[int, int], None] | None:
        """The window's embedding of ``texts`` texts begins: the embedder's ``progress(encoded, to_encode)``
        (texts found in the cache are not encoded and count as embedded when it returns). A window
        derived again event by event after a failure embeds again: that work is not counted twice."""
        if self.sized:
            return None
        self.texts, self.sized = float(texts), True
        if self.size and texts:
            self.per_event = texts / self.size
        return self._batch

    def _batch(self, encoded: int, to_encode: int) -> None:
        self.units += self.texts * encoded / to_encode - self.embedded
        self.embedded = self.texts * encoded / to_encode
        self.update()

    def embedding_done(self) -> None:
        self.units += self.texts - self.embedded
        self.embedded = self.texts
        self.update()

    def update(self) -> None:
        """Report the counts if they changed (also after a commit or a parked event)."""
        if self.progress is None:
            return
        committed = self.committed()
        work = 2 * self.size + self.texts
        share = min(self.size, int(self.size * self.units / work)) if work else 0
        self.done = max(self.done, committed, min(self.base + share, self.total))
        if (self.done, committed) != self.shown:
            self.shown = (self.done, committed)
            self.progress(self.done, self.total, committed)
