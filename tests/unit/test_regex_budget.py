"""R10: no regular expression of the distillation can hold an event for long.

One 84-character sentence ("a_a_a_…") once held ``materialize`` for minutes: a pattern that
backtracked exponentially stalled every namespace behind it. Every pattern the Silver derivation
compiles is found here without listing it (module globals, the tables and records they hold, and
the patterns written inline in a call such as ``re.sub(r"…", …)``), then timed against strings built
to make a backtracking matcher blow up; each search and full match must end within a generous bound.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import re
import time
from datetime import UTC, datetime
from types import ModuleType
from typing import Any

import pytest

import medallion.distill
import medallion.silver
from medallion.distill.language import parse
from medallion.distill.providers.heuristic import HeuristicDistiller
from medallion.distill.types import EventInput
from medallion.silver.distill_budget import OverBudget, cpu_budget

BOUND = 0.5  # CPU seconds per pattern per string: a linear or mildly quadratic pattern needs milliseconds
MODULES = sorted(m.name for package in (medallion.silver, medallion.distill)
                 for m in pkgutil.walk_packages(package.__path__, f"{package.__name__}."))

# Repeated units that trip the usual traps: a run a nested quantifier can split many ways (a_a_a_,
# A-A-A-, a.b.c), words a repeated alternation can regroup (the the, and and), long runs of one
# character or of spaces, punctuation that alternates; each followed by an ending that fails the match.
_UNITS = ["a_", "a ", "a.", "a-", "A ", "Aa ", "A-", "A.", "a, ", "a1", "1.", "1 ", "1:", "a'", "A'", "'", ". ",
          " ", "a", "A", "1", "-", ".", "_", "#", ",", ":", "@", "a@", "a/", "a.b ", "the ", "and ", "I ", "my ",
          "is ", "now ", "so ", "Mr. ", "in 2020 ", "on May 3 ", "Ab Cd ", ",-", "!?", "\n", "é ", "x" * 2000]
_ENDINGS = ["", "!", " is?"]
ADVERSARIAL = sorted({unit * (n // len(unit) or 1) + ending for unit in _UNITS for n in (84, 2000)
                      for ending in _ENDINGS} | {"The " + "a_" * 40 + " runs", "I " + "a " * 40 + "!"})


def _patterns_in(value: Any, found: dict[str, re.Pattern[str]], seen: set[int], depth: int = 0) -> None:
    """Every compiled pattern reachable from ``value`` through containers and dataclass records."""
    if id(value) in seen or depth > 6:
        return
    seen.add(id(value))
    if isinstance(value, re.Pattern):
        found.setdefault(f"{value.pattern!r}/{value.flags}", value)
    elif isinstance(value, dict):
        for item in (*value.keys(), *value.values()):
            _patterns_in(item, found, seen, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _patterns_in(item, found, seen, depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _patterns_in(getattr(value, f.name), found, seen, depth + 1)
    elif isinstance(value, type) and value.__module__.startswith("medallion."):
        for item in vars(value).values():
            _patterns_in(item, found, seen, depth + 1)


_FLAG_POSITION = {"compile": 1, "match": 2, "search": 2, "fullmatch": 2, "findall": 2, "finditer": 2,
                  "split": 3, "sub": 4, "subn": 4}


def _inline_patterns(module: ModuleType, found: dict[str, re.Pattern[str]]) -> None:
    """Patterns written in a call (``re.sub(r"\\s+", " ", v)``): every ``re.<function>(pattern, …)`` whose
    pattern can be computed from the module's names alone (one built from a local value, such as
    ``re.escape(value)``, is a literal match and cannot backtrack)."""
    tree = ast.parse(inspect.getsource(module))
    names = vars(module)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                and node.func.attr in _FLAG_POSITION and node.args):
            continue
        flags_node = next((k.value for k in node.keywords if k.arg == "flags"), None)
        if flags_node is None and len(node.args) > _FLAG_POSITION[node.func.attr]:
            flags_node = node.args[_FLAG_POSITION[node.func.attr]]
        try:
            pattern = eval(compile(ast.Expression(node.args[0]), module.__name__, "eval"), dict(names))  # noqa: S307
            flags = eval(compile(ast.Expression(flags_node), module.__name__, "eval"), dict(names)) if flags_node else 0  # noqa: S307,E501
        except NameError:
            continue
        if isinstance(pattern, str):
            compiled = re.compile(pattern, flags)
            found.setdefault(f"{compiled.pattern!r}/{compiled.flags}", compiled)


def distillation_patterns() -> dict[str, dict[str, re.Pattern[str]]]:
    """Module name -> its patterns (each pattern counted in the first module that holds it)."""
    seen: set[int] = set()
    counted: set[str] = set()
    out: dict[str, dict[str, re.Pattern[str]]] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        found: dict[str, re.Pattern[str]] = {}
        for value in vars(module).values():
            _patterns_in(value, found, seen)
        _inline_patterns(module, found)
        out[name] = {k: v for k, v in found.items() if k not in counted}
        counted |= set(found)
    return out


PATTERNS = distillation_patterns()


def _own_words(pattern: re.Pattern[str]) -> list[str]:
    """Strings made of the pattern's own words (its alternatives), repeated and capitalised: a word two
    branches can both read ("Hi" as a greeting and as a name) doubles the ways to match at each repeat."""
    words = list(dict.fromkeys(re.findall(r"(?<![\\?])\b[a-z]{2,}\b", pattern.pattern)))
    picked = words[:4] + words[4::max(1, len(words) // 8)]
    out = []
    for run in ([w] for w in picked):
        out += [" ".join(run * 30) + " x", " ".join(w.capitalize() for w in run * 30) + " x",
                "   ".join(run * 30) + "!"]
    for i in range(0, max(0, len(words) - 1), max(1, len(words) // 6)):
        pair = words[i : i + 2]
        out += [" ".join(pair * 15) + " x", " ".join(w.capitalize() for w in pair * 15) + " x"]
    return out


def _cost(pattern: re.Pattern[str], text: str) -> float:
    """CPU seconds a search and a full match of ``text`` take (a pattern stuck past 5 s is stopped)."""
    started = time.process_time()
    try:
        with cpu_budget(5.0):
            pattern.search(text)
            pattern.fullmatch(text)
    except OverBudget:
        pass
    return time.process_time() - started


def test_the_audit_finds_the_patterns_of_the_distiller() -> None:
    """The walk reaches the rule tables, the inline patterns and the pattern that once stalled."""
    every = {k for found in PATTERNS.values() for k in found}
    assert len(every) > 200
    sources = {p.pattern for found in PATTERNS.values() for p in found.values()}
    assert any(s.startswith("^(?P<np>") for s in sources), "sentences._LEAD_BARE_NP"
    assert r"\s*(?:,|;|\band\b|&)\s*" in sources, "an inline re.split of candidates.py"
    assert PATTERNS["medallion.distill.providers.heuristic.rules.patterns"], "the curated rules' patterns"


@pytest.mark.parametrize("module", [m for m in MODULES if PATTERNS[m]])
def test_every_pattern_ends_quickly_on_adversarial_text(module: str) -> None:
    """Each pattern of the module searches and fully matches every adversarial string in under
    :data:`BOUND` CPU seconds."""
    slow = []
    for pattern in PATTERNS[module].values():
        for text in [*ADVERSARIAL, *_own_words(pattern)]:
            cost = _cost(pattern, text)
            if cost > BOUND:
                slow.append(f"{pattern.pattern[:80]!r} took {cost:.2f} s on {text[:24]!r}… ({len(text)} chars)")
                break
    assert not slow, "\n".join(slow)


def test_the_sentence_that_stalled_materialize_distills_quickly() -> None:
    """The 84-character sentence ('a_' × 34, with 'is' after it) and its kin distill in well under a second."""
    distiller = HeuristicDistiller()
    at = datetime(2026, 1, 5, 10, tzinfo=UTC)
    parse.warm(set())  # the parser loads once per process: not the sentence's cost
    for content in ("a_" * 34 + " is here", "a_" * 42, "The " + "a_" * 34 + " runs on Postgres.",
                    "I think " + "a-b." * 30 + " is mine", ("a_" * 34 + " ") * 20):
        event = EventInput(1, "ns", "chat", "1", "transcript", "user:alice", content, at, at, 3, "chat://1")
        started = time.process_time()
        distiller.distill(event)
        assert time.process_time() - started < 1.0, content
