"""The layering rules of docs/ARCHITECTURE.md that a linter does not check.

``lint-imports`` (run by ``make test``, contracts in ``pyproject.toml``) keeps Dagster out of the
engine and the layers importing downward. What it cannot see is a module reaching into another's
private names (``from x import _helper``, ``module._helper(...)``): that couples a caller to what its
author meant to change freely, so every such name is public or stays inside its module.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("medallion", "dagster_project")
CHECKED = ("medallion", "dagster_project", "bench")


def _is_module(dotted: str) -> bool:
    path = REPO.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _reaches(path: Path) -> list[str]:
    """The private names of other project modules that ``path`` imports or uses."""
    tree = ast.parse(path.read_text(), filename=str(path))
    modules: dict[str, str] = {}  # local name -> project module it stands for
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PACKAGES:
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"from {node.module} import {alias.name}")
                elif _is_module(f"{node.module}.{alias.name}"):
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES and alias.asname:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name)
                and node.value.id in modules):
            found.append(f"{modules[node.value.id]}.{node.attr}")
    return found


def test_no_module_uses_another_modules_private_names() -> None:
    """A private name is used only inside the module that defines it."""
    offenders = [f"{path.relative_to(REPO)}: {hit}" for folder in CHECKED
                 for path in sorted((REPO / folder).rglob("*.py")) for hit in _reaches(path)]
    assert offenders == []


def test_the_check_sees_both_forms(tmp_path: Path) -> None:
    """The check itself: an import of a private name and an attribute use of one are both reported."""
    sample = tmp_path / "sample.py"
    sample.write_text("from medallion.serve.served import _x\nfrom medallion.serve import search\n"
                      "search._y()\n")
    assert _reaches(sample) == ["from medallion.serve.served import _x", "medallion.serve.search._y"]


def test_the_engine_runs_without_loading_dagster() -> None:
    """`import medallion` gives the Python API, and neither it nor the CLI and MCP shells load Dagster:
    the engine is usable where Dagster is not installed or not wanted."""
    import subprocess
    import sys

    roots = "('dagster', 'dagster_dbt', 'dagster_project')"
    probe = ("import sys, medallion, medallion.serve.tools, medallion.interfaces.cli, "
             "medallion.interfaces.mcp_server; assert medallion.open_tools.__doc__; "
             f"print(sorted(m for m in sys.modules if m.split('.')[0] in {roots}))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
