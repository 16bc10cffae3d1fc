"""Gold: what consumers touch (tools, capabilities, overlays, MCP, aggregates)."""
