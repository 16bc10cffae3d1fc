"""medallion-memory: an agent's memory built as a lakehouse (Bronze → Silver → Gold).

This package is the engine: plain functions over a PostgreSQL connection, and it never imports
Dagster. The Python API is :func:`open_tools` (capability-gated search, read, current, history,
follow, remember, overlay, recall)::

    import medallion
    with medallion.open_tools() as tools:
        tools.search("where does Bob live")

The wings import downward only: ``interfaces`` → ``audit`` / ``publish`` → ``serve`` → ``peers`` →
``silver`` → ``bronze`` → ``db`` (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from medallion.serve.tools import Tools
    from medallion.settings import Settings

__version__ = "0.1.0"
__all__ = ["__version__", "open_tools"]


def open_tools(token: str | None = None, settings: Settings | None = None, *, origin: str = "api") -> Tools:
    """Open the tools: :func:`medallion.serve.tools.open_tools` (imported on first use, so that
    ``import medallion.db`` does not load the embedding model's stack)."""
    from medallion.serve.tools import open_tools as _open

    return _open(token, settings, origin=origin)
