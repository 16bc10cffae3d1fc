"""The test suite runs on a fresh clone with nothing beside it: no file under tests/ reads the benchmark
data kept in the shared folder beside the checkout, names the variables that point at it, or imports a bench
module that loads it. Benchmarks on that data stay in bench/ (and exit 2 without it); the tests carry
their own corpus (tests/support/conversations.py).

The searched-for strings are assembled from pieces so that this file does not match itself."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = "shared"
FORBIDDEN_TEXT = ["../" + SHARED, "/" + SHARED + "/data", "/work/" + SHARED, "LOCOMO" + "_PATH",
                  "FACTCONSOLIDATION" + "_PATH"]
# the same path assembled from parts: the folder's name, then "data" (joined by / or as arguments)
FORBIDDEN_JOIN = re.compile("[\"']" + SHARED + r"[\"']\s*[/,]\s*[\"']data[\"']")
DATA_MODULES = {"bench.locomo_data", "bench.factconsolidation"}  # the modules that load the data files


def _bench_imports(source: str) -> set[str]:
    """The ``bench.*`` modules a Python source imports (``from bench import x`` counts as bench.x)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("bench.")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "bench":
                found |= {f"bench.{a.name}" for a in node.names}
            elif node.module.startswith("bench."):
                found.add(node.module)
    return found


def data_readers(bench: Path) -> set[str]:
    """The bench modules that load benchmark data: the loaders and every module importing one, directly or
    through another bench module."""
    imports = {f"bench.{p.stem}": _bench_imports(p.read_text()) for p in bench.glob("*.py")}
    readers = set(DATA_MODULES)
    while grown := {m for m, uses in imports.items() if m not in readers and uses & readers}:
        readers |= grown
    return readers


def offenders(root: Path, readers: set[str]) -> list[str]:
    """Every file under ``root`` that reads the data beside the checkout, with what gives it away."""
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue  # not text: nothing a test would read a path from
        hits = [s for s in FORBIDDEN_TEXT if s in text] + [m.group(0) for m in FORBIDDEN_JOIN.finditer(text)]
        if path.suffix == ".py":
            hits += sorted(f"import {m}" for m in _bench_imports(text) & readers)
        if hits:
            found.append(f"{path.relative_to(root)}: {', '.join(hits)}")
    return found


def test_no_test_reads_the_benchmark_data_beside_the_checkout() -> None:
    readers = data_readers(REPO / "bench")
    assert {"bench.locomo", "bench.rebuild"} < readers  # the closure is taken, not only the two loaders
    assert "bench.harness" not in readers
    assert sum(1 for _ in (REPO / "tests").rglob("test_*.py")) > 50  # the search saw the suite
    assert offenders(REPO / "tests", readers) == []


def test_the_guard_catches_each_way_of_reaching_the_data(tmp_path: Path) -> None:
    planted = {
        "a.py": "from bench.locomo_data import load\n",
        "b.py": "import bench.rebuild\n",
        "c.py": "from bench import factconsolidation\n",
        "d.py": "DATA = ROOT.parent / '" + SHARED + "' / 'data' / 'x.json'\n",
        "e.md": "put it in ../" + SHARED + "/data\n",
        "f.py": "import os\nPATH = os.environ['LOCOMO" + "_PATH']\n",
        "g.py": "from bench.harness import LOCOMO\n",  # the data's description, not the data: allowed
    }
    for name, text in planted.items():
        (tmp_path / name).write_text(text)
    found = offenders(tmp_path, data_readers(REPO / "bench"))
    assert [line.split(":")[0] for line in found] == ["a.py", "b.py", "c.py", "d.py", "e.md", "f.py"]
