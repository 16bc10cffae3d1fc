"""One name, one meaning: no two files share a base name, and every path the documents name exists.

A reader who meets ``hindsight.py`` or ``ingest.py`` in a traceback, a grep or a review should know
which file it is; and docs/ARCHITECTURE.md is the map from features to code, so a path it names that
has moved sends the next reader nowhere. Both drift silently, so both are checked here.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Base names several files may share, each for a reason of its own:
SHARED_NAMES = {
    "__init__.py",  # a package's marker, one per package
    "conftest.py",  # pytest finds it by this name, one per test folder
    "README.md",  # the page a folder shows on GitHub
    "dagster.yaml",  # Dagster reads its instance from this name: the repository root's for a local
    # `dagster dev`, deploy/'s for the image
    ".gitkeep",  # keeps an empty folder in git
}
SKIPPED_DIRS = {".git", ".venv", "__pycache__", "target", "logs", "dbt_packages", "wiki", "node_modules"}


def _repository_files() -> list[str]:
    """The repository's files (tracked, or new and not ignored), relative to its root, with ``/``."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=REPO, capture_output=True, check=True).stdout.decode()
        return [name for name in listed.split("\0") if name and (REPO / name).exists()]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: walk the tree instead
        found = []
        for folder, dirs, files in os.walk(REPO):
            dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".")]
            found += [str((Path(folder) / f).relative_to(REPO)).replace(os.sep, "/") for f in files]
        return found


def _exempt(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    if name in SHARED_NAMES:
        return True
    if path.startswith("tests/") and name.startswith("test_"):  # a unit and an integration test of one thing
        return True
    return (REPO / path).is_symlink()  # another name for a file that is counted once, under its own path


def duplicate_names(paths: list[str]) -> dict[str, list[str]]:
    """Base names held by more than one file, apart from the exemptions, with their paths."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        if not _exempt(path):
            by_name[path.rsplit("/", 1)[-1]].append(path)
    return {name: sorted(paths) for name, paths in by_name.items() if len(paths) > 1}


def test_no_two_files_share_a_base_name() -> None:
    """Every file outside the exemptions has a base name no other file has (``bench/search_latency.py``,
    not a second ``search.py``)."""
    files = _repository_files()
    assert any(f.endswith("medallion/serve/search.py") for f in files), "the repository's files were not found"
    assert duplicate_names(files) == {}


def test_duplicate_names_are_found() -> None:
    """The check itself: two modules of one name in different folders are reported, exempt names are not."""
    paths = ["medallion/serve/search.py", "bench/search.py", "medallion/__init__.py", "bench/__init__.py",
             "tests/unit/test_x.py", "tests/integration/test_x.py"]
    assert duplicate_names(paths) == {"search.py": ["bench/search.py", "medallion/serve/search.py"]}


# How docs/ARCHITECTURE.md writes paths: relative to the repository root when they start with a
# top-level folder, else relative to the engine package (``silver/derive.py``), the code location
# (``assets/``, ``runs.py``) or tests/ (``unit/test_contract.py``); a bare file name
# (``definitions.py``, ``dates.py``) is one the repository holds somewhere.
ROOTS = (REPO, REPO / "medallion", REPO / "dagster_project", REPO / "tests")
EXTENSIONS = ("py", "sql", "yml", "yaml", "md", "json", "jsonl", "toml", "csv", "txt", "cfg", "sh")
PATH_LIKE = re.compile(r"^[\w.<>*/-]+(/|\.(" + "|".join(EXTENSIONS) + r"))$")
# Folders the running system creates: the inbox's own subfolders for landed and rejected files.
RUNTIME = ("inbox/",)


def named_paths(markdown: str) -> list[str]:
    """Every code span of ``markdown`` that looks like a path: it ends in ``/`` or a known extension.
    Asset keys (``gold/column_meta``) end in neither; placeholders (``<name>``, ``NNNN``) and ``*``
    are globs."""
    return sorted({span for span in re.findall(r"`([^`\n]+)`", markdown) if PATH_LIKE.match(span)})


def _pattern(path: str) -> str:
    return re.sub(r"<[^>]*>", "*", path).replace("NNNN", "[0-9][0-9][0-9][0-9]").rstrip("/")


def _exists(path: str, every_file: set[str]) -> bool:
    pattern = _pattern(path)
    if "/" not in pattern:
        names = {f.rsplit("/", 1)[-1] for f in every_file}
        return any(Path(name).match(pattern) for name in names) or any(root.joinpath(pattern).is_dir()
                                                                       for root in ROOTS)
    return any(any(root.glob(pattern)) for root in ROOTS)


def missing_paths(markdown: str, every_file: set[str]) -> list[str]:
    return [p for p in named_paths(markdown) if not p.startswith(RUNTIME) and not _exists(p, every_file)]


def test_every_path_in_architecture_exists() -> None:
    """docs/ARCHITECTURE.md names only modules, folders, tests and files that exist."""
    text = (REPO / "docs" / "ARCHITECTURE.md").read_text()
    assert len(named_paths(text)) > 150  # the feature map is there and was read
    assert missing_paths(text, set(_repository_files())) == []


def test_a_moved_path_is_reported() -> None:
    """The check itself: a module that does not exist is reported, under each way of writing it, and
    neither asset keys nor placeholders are mistaken for one."""
    text = ("`serve/search.py`, `gold/`, `silver/no_such.py`, `dagster_project/assets/bronze.py`, "
            "`gold/column_meta`, `db/migrations/NNNN_*.sql`, `unit/test_contract.py`, `no_such.py`, "
            "`definitions.py`, `inbox/done/`")
    assert missing_paths(text, set(_repository_files())) == ["gold/", "no_such.py", "silver/no_such.py"]


MAX_MODULE_LINES = 600  # STANDARDS.md, "Layers and imports": a module a reader can hold in mind


def test_every_module_of_the_engine_and_the_code_location_is_small() -> None:
    """No module of ``medallion/`` or ``dagster_project/`` is longer than 600 lines."""
    long = {name: n for name in _repository_files()
            if name.endswith(".py") and name.startswith(("medallion/", "dagster_project/"))
            and (n := len((REPO / name).read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not long, long
