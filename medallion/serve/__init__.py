"""Serve: the one read model (served facts with overlays), search, recall, and the capability-gated tools."""
