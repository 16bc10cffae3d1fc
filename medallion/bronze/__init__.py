"""Bronze: the raw, immutable, append-only archive of every event."""
