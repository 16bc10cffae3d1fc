"""The shells people and agents use: the ``medallion`` command line and the MCP server."""
