"""A benchmark whose data file is absent ends with exit status 2 and one sentence saying where to put
the file (no traceback, no server started for nothing). The data itself is never read here: each script
is pointed at a file that does not exist."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.harness import FACTCONSOLIDATION, LOCOMO, Dataset

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = [
    (["bench/locomo.py"], LOCOMO),
    (["bench/rebuild.py"], LOCOMO),
    (["bench/scale.py"], LOCOMO),
    (["bench/factconsolidation.py", "--quick"], FACTCONSOLIDATION),
]


@pytest.mark.parametrize(("argv", "dataset"), SCRIPTS, ids=[" ".join(argv) for argv, _ in SCRIPTS])
def test_missing_data_exits_2_with_one_sentence(argv: list[str], dataset: Dataset, tmp_path: Path) -> None:
    absent = tmp_path / "nowhere" / dataset.filename
    env = {**os.environ, LOCOMO.env: str(absent), FACTCONSOLIDATION.env: str(absent)}
    done = subprocess.run([sys.executable, *argv], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    sentence = lines[0]
    assert str(absent) in sentence and dataset.env in sentence and dataset.filename in sentence
    assert sentence.endswith(".") and sentence.count(". ") == 0
