"""`medallion materialize` on a terminal shows Silver's progress while it derives: events derived /
total, a rate and an ETA, redrawn while it derives, not only at the end. Run through a real
pseudo-terminal (the CLI in a child process whose stderr is a tty), as a person sees it."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from medallion.settings import Settings

EVENTS = 400  # two windows of the engine (256 events each): commits at 256 and 400
WINDOW = 256
PROGRESS = re.compile(r"(\d+)/(\d+) events derived(?:, (\d+) committed)? \((\d+(?:\.\d+)?)/s, ETA ([0-9:?]+)\) "
                      r"· ([0-9:]+) elapsed")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def _events(count: int) -> str:
    """``count`` distinct notes of one person, in one namespace: a derivation long enough to watch."""
    lines = []
    for i in range(count):
        lines.append(json.dumps({
            "namespace": "progress", "source": "notes", "source_event_id": f"n-{i}", "kind": "note",
            "actor": "user:dana", "occurred_at": f"2026-10-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
            "provenance_root": f"notes://{i}",
            "content": f"Dana met client number {i} about invoice {i * 7} and will follow up on ticket {i * 3}."}))
    return "\n".join(lines) + "\n"


def _seconds(clock: str) -> int:
    """``1:05`` or ``0:01:05`` as seconds."""
    seconds = 0
    for part in clock.split(":"):
        seconds = seconds * 60 + int(part)
    return seconds


def _run_on_a_terminal(args: list[str], env: dict[str, str], seconds: float) -> list[tuple[float, str]]:
    """Run ``args`` with a pseudo-terminal as stdin, stdout and stderr; every chunk it writes, with
    the time it arrived."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(args, stdin=follower, stdout=follower, stderr=follower, env=env, close_fds=True)
    os.close(follower)
    chunks: list[tuple[float, str]] = []
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                try:
                    data = os.read(leader, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not data:
                    break
                chunks.append((time.monotonic(), data.decode("utf-8", "replace")))
            elif proc.poll() is not None:
                break
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
    assert proc.returncode == 0, "".join(text for _, text in chunks)[-3000:]
    return chunks


@pytest.mark.slow
def test_materialize_on_a_terminal_shows_counts_rate_and_eta_while_deriving(
        settings: Settings, tmp_path: Path) -> None:
    (settings.inbox / "notes.jsonl").write_text(_events(EVENTS))
    env = {**os.environ, "MEDALLION_DATABASE_URL": settings.database_url or "", "MEDALLION_HOME": str(settings.home),
           "MEDALLION_INBOX": str(settings.inbox), "DAGSTER_HOME": str(tmp_path / "dagster_home"),
           "COLUMNS": "160", "TERM": "xterm-256color"}
    chunks = _run_on_a_terminal([sys.executable, "-m", "medallion.interfaces.cli", "materialize"], env, 600)
    updates = [(at, (int(m.group(1)), int(m.group(2))), m.group(0))
               for at, text in chunks for m in PROGRESS.finditer(ANSI.sub("", text))]
    committed = [(at, int(m.group(3) or m.group(1)), int(m.group(1)))
                 for at, text in chunks for m in PROGRESS.finditer(ANSI.sub("", text))]
    deriving = [(at, counts, line) for at, counts, line in updates if counts[0] < counts[1]]
    screen = ANSI.sub("", "".join(text for _, text in chunks))[-3000:]
    # the count moves while Silver derives, not only at the end, and within a window too: at least
    # twice before the first window's 256 events commit, with the commits beside it
    counts = sorted({counts for _, counts, _ in updates})
    assert len(counts) >= 3 and counts[-1] == (EVENTS, EVENTS), screen
    assert len({done for _, (done, _), _ in deriving}) >= 4, screen
    assert len({done for _, kept, done in committed if kept == 0 and 0 < done < WINDOW}) >= 2, screen
    assert {kept for _, kept, _ in committed} <= {0, WINDOW, EVENTS}, screen
    assert all(float(rate) >= 0 and eta for _, _, line in deriving
               for rate, eta in [PROGRESS.match(line).groups()[3:5]]), screen
    # redrawn while it derives: the elapsed time and the ETA move between the engine's reports. How often
    # is the display's business and the machine's load (a shared box starves a redraw for seconds), so
    # the test counts redraws and moves, never the wall time between them.
    shown = list(dict.fromkeys(line for _, _, line in deriving))
    assert len(shown) >= 3, shown
    elapsed = [_seconds(PROGRESS.match(line).group(6)) for line in shown]
    assert elapsed == sorted(elapsed) and elapsed[-1] > elapsed[0], shown
    # and the count itself moves many times, from the first count to the last, within a window too
    moves = [done for i, (_, _, done) in enumerate(committed) if i and done != committed[i - 1][2]]
    assert len(moves) >= 4, moves
    assert any("ETA ?" not in line and "(0.0/s" not in line for line in shown), shown
    # the summary follows, on the same terminal
    assert f"silver: {EVENTS} events" in screen
