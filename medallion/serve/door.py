"""Arguments checked at the door of every tool call, before any of them reaches SQL.

PostgreSQL text cannot hold NUL, and a lone UTF-16 surrogate cannot be encoded as UTF-8: either one
in an argument would surface as a raw ``DataError`` or ``UnicodeEncodeError`` from deep inside a
query, or, written into a telemetry row, break the write of rows that had nothing to do with it. A
namespace is one name of the contract's shape, never a list. Each problem is one sentence that names
the argument and never echoes the bad text.
"""

from __future__ import annotations

import re
from typing import Any

from medallion.bronze.contract import NAMESPACE_PATTERN

_NAMESPACE = re.compile(NAMESPACE_PATTERN)
_SURROGATE = re.compile("[\ud800-\udfff]")
_INT64 = 2**63


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be stored as text, or None."""
    if "\x00" in value:
        return "contains a NUL character"
    if _SURROGATE.search(value):
        return "contains a lone surrogate (not valid Unicode text)"
    return None


def path_problem(value: Any) -> str | None:
    """Why ``value`` is not a path of predicates (a non-empty list of words), or None.

    A single string would otherwise be walked letter by letter, one hop per character.
    """
    if not isinstance(value, list | tuple) or not value:
        return "the argument 'predicates' must be a non-empty list of predicates, e.g. ['works_at', 'located_in']"
    if not all(isinstance(item, str) and item.strip() for item in value):
        return "the argument 'predicates' must list predicates as non-empty strings"
    return None


def argument_problem(name: str, value: Any) -> str | None:
    """Why the argument ``name`` cannot be used, as one sentence, or None when it is fine."""
    if name == "predicates":
        return path_problem(value) or _value_problem(name, value)
    return _value_problem(name, value)


def count_problem(name: str, value: Any, low: int, high: int | None) -> str | None:
    """Why ``value`` is not a whole number from ``low`` to ``high`` (None: no most), or None.

    The bounds are the verb's (``serve/verbs.py``): below 1 is meaningless (a negative LIMIT is an
    SQL error), and a deep walk grows with every hop.
    """
    top = _INT64 - 1 if high is None else high
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= top:
        most = "" if high is None else f" to {high}"
        return f"the argument '{name}' must be a whole number from {low}{most}"
    return None


def _value_problem(name: str, value: Any) -> str | None:
    """Why ``value`` (of the argument ``name``; nested values included) cannot be used, or None."""
    if isinstance(value, str):
        problem = text_problem(value)
        if problem:
            return f"the argument '{name}' {problem}; remove it and call again"
        if name == "namespace" and not _NAMESPACE.fullmatch(value):
            return ("the namespace given is not valid: give one namespace of lowercase letters, digits, '-' and "
                    "'_', starting with a letter or digit (for example team-atlas)")
        return None
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return None if -_INT64 <= value < _INT64 else f"the argument '{name}' is an integer beyond 64 bits"
    if isinstance(value, dict):
        for key, item in value.items():
            problem = _value_problem(name, key) if isinstance(key, str) else None
            problem = problem or _value_problem(name, item)
            if problem:
                return problem
        return None
    if isinstance(value, list | tuple):
        for item in value:
            problem = _value_problem(name, item)
            if problem:
                return problem
    return None


def printable(value: Any) -> Any:
    """``value`` with NUL and lone surrogates replaced, so that a log row can always be stored."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value.replace("\x00", "\ufffd"))
    if isinstance(value, list):
        return [printable(v) for v in value]
    return value
