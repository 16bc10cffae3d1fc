"""LoCoMo (snap-research/LoCoMo, CC BY-NC 4.0) as Bronze events: read from ../shared/data, never copied.

One namespace per conversation (``locomo-<sample_id>``), each turn an event: ``source_event_id`` =
``<sample_id>:<dia_id>``, ``occurred_at`` = the session's date time, ``actor`` = the speaker. A
shared photo's caption is appended to the turn as ``[photo: …]`` (what a reader of the chat saw).
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# ../shared/data/locomo10.json next to the checkout (as CI lays it out); LOCOMO_PATH overrides.
DEFAULT_PATH = Path(os.environ.get("LOCOMO_PATH") or Path(__file__).resolve().parents[2] / "shared" / "data"
                    / "locomo10.json")
_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.IGNORECASE)
_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"], start=1)}


def load(path: Path | str = DEFAULT_PATH) -> list[dict[str, Any]]:
    """The LoCoMo samples (raises FileNotFoundError with a hint when the data is absent)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"LoCoMo data not found at {path}; get locomo10.json from snap-research/LoCoMo")
    return json.loads(path.read_text())


def session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → an aware UTC datetime."""
    m = _DATE.search(text)
    if not m:
        raise ValueError(f"unrecognised LoCoMo session date {text!r}")
    hour, minute, ampm, day, month, year = m.groups()
    h = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
    return datetime(int(year), _MONTHS[month.lower()], int(day), h, int(minute), tzinfo=UTC)


def namespace(sample: dict[str, Any]) -> str:
    return "locomo-" + re.sub(r"[^a-z0-9_-]", "-", str(sample["sample_id"]).lower())


def turns(sample: dict[str, Any]) -> list[tuple[str, dict[str, Any], datetime]]:
    """(session key, turn, session time) in conversation order."""
    conv = sample["conversation"]
    keys = sorted((k for k in conv if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1]))
    out = []
    for key in keys:
        when = session_time(conv[f"{key}_date_time"])
        for turn in conv[key]:
            out.append((key, turn, when))
    return out


def to_events(sample: dict[str, Any], limit: int | None = None) -> list[dict[str, Any]]:
    """Bronze events (B2 contract) of one conversation, optionally only its first ``limit`` turns."""
    ns = namespace(sample)
    events = []
    for key, turn, when in turns(sample)[:limit]:
        text = turn["text"]
        if turn.get("blip_caption"):
            text = f"{text} [photo: {turn['blip_caption']}]"
        events.append({
            "namespace": ns, "source": "locomo", "source_event_id": f"{sample['sample_id']}:{turn['dia_id']}",
            "kind": "transcript", "actor": f"user:{turn['speaker'].lower()}", "content": text,
            "occurred_at": when.isoformat(), "provenance_root": f"locomo://{sample['sample_id']}/{key}",
            "metadata": {"dia_id": turn["dia_id"], "session": key, "speaker": turn["speaker"]},
        })
    return events
