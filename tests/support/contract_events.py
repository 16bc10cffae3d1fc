"""Events and settings shared by the event contract's unit tests."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings

LIMIT = 1_048_576
# Other test sessions share the machine: no per-example deadline, no "slow generation" health check.
SLOW = [HealthCheck.too_slow]
RELAXED = settings(deadline=None, suppress_health_check=SLOW)
REQUIRED = {"namespace", "source", "source_event_id", "kind", "content", "provenance_root"}

MINIMAL: dict[str, Any] = {
    "namespace": "team-a",
    "source": "slack",
    "source_event_id": "C01/1699999.0012",
    "kind": "transcript",
    "content": "we ship on friday",
    "provenance_root": "slack://C01/p1699999",
}

FULL: dict[str, Any] = {
    **MINIMAL,
    "actor": "user:alice",
    "occurred_at": "2026-11-30T09:12:00Z",
    "authority": 1,
    "metadata": {"channel": "eng", "tags": ["a", 1, None, {"nested": True}]},
}

