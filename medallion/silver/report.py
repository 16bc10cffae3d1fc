"""What one derivation did, for asset metadata, the CLI and benchmarks; and how reports of several
derivations (parallel Dagster steps, or namespace groups derived one after another) add up."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class DeriveReport:
    """Counts for asset metadata and the CLI."""

    events: int = 0
    facts: int = 0
    decisions: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)
    chunks: int = 0
    documents: Counter = field(default_factory=Counter)
    failures: list[dict[str, Any]] = field(default_factory=list)
    namespaces_rebuilt: list[str] = field(default_factory=list)
    model_calls: int = 0
    embeddings_encoded: int = 0
    cache_hits: int = 0
    seconds: float = 0.0
    overlays: dict[str, int] = field(default_factory=dict)
    overlay_failures: dict[str, str] = field(default_factory=dict)  # namespace -> why its anchoring failed

    @property
    def cache_hit_rate(self) -> float:
        total = self.embeddings_encoded + self.cache_hits
        return round(self.cache_hits / total, 4) if total else 1.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "events": self.events, "facts": self.facts, "decisions": dict(self.decisions),
            "outcomes": dict(self.outcomes), "contested": self.outcomes.get("contested", 0),
            "chunks": self.chunks, "documents": dict(self.documents), "failures": len(self.failures),
            "namespaces_rebuilt": self.namespaces_rebuilt, "model_calls": self.model_calls,
            "embeddings_encoded": self.embeddings_encoded, "cache_hits": self.cache_hits,
            "cache_hit_rate": self.cache_hit_rate, "seconds": round(self.seconds, 3), "overlays": self.overlays,
            "overlay_failures": self.overlay_failures,
        }

    @classmethod
    def merged(cls, reports: list[DeriveReport], *, side_by_side: bool) -> DeriveReport:
        """One report for several derivations: counts add up; the seconds are the longest one's when
        they ran ``side_by_side`` (parallel steps), their sum when they ran one after another."""
        merged = cls()
        for r in reports:
            merged.events += r.events
            merged.facts += r.facts
            merged.decisions.update(r.decisions)
            merged.outcomes.update(r.outcomes)
            merged.chunks += r.chunks
            merged.documents.update(r.documents)
            merged.failures.extend(r.failures)
            merged.namespaces_rebuilt.extend(r.namespaces_rebuilt)
            merged.model_calls += r.model_calls
            merged.embeddings_encoded += r.embeddings_encoded
            merged.cache_hits += r.cache_hits
            merged.seconds = max(merged.seconds, r.seconds) if side_by_side else merged.seconds + r.seconds
            for status, n in r.overlays.items():
                merged.overlays[status] = merged.overlays.get(status, 0) + n
            merged.overlay_failures.update(r.overlay_failures)
        merged.namespaces_rebuilt.sort()
        return merged
