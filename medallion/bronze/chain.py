"""The per-namespace hash chain (B6): ``sha256(prev || content_hash || source || source_event_id)``."""

from __future__ import annotations

import hashlib

GENESIS = "0" * 64


def link(prev_hash: str, content_hash: str, source: str, source_event_id: str) -> str:
    """Chain hash of one event given the chain hash of its predecessor in the namespace."""
    return hashlib.sha256(f"{prev_hash}{content_hash}{source}{source_event_id}".encode()).hexdigest()
