"""Tests against a real OpenAI-compatible server, run by ``make test-llm`` (scripts/test_llm.sh).

The ``llm`` marker is registered here as well as in the project's pytest configuration, so this
directory is collected under ``--strict-markers`` whichever configuration is in force.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "llm: needs a real OpenAI-compatible server (make test-llm starts one; make test deselects these)")
