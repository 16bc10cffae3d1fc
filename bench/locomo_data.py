"""LoCoMo (snap-research/LoCoMo, CC BY-NC 4.0) as Bronze events: read from ../shared/data next to the
checkout or from ``$LOCOMO_PATH``, never copied. Without the file a script ends with status 2 and one
sentence saying where to put it (:meth:`bench.harness.Dataset.require`).

One namespace per conversation (``locomo-<sample_id>``), each turn an event: ``source_event_id`` =
``<sample_id>:<dia_id>``, ``occurred_at`` = the session's date time, ``actor`` = the speaker. A
shared photo's caption is appended to the turn as ``[photo: …]`` (what a reader of the chat saw).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.harness import LOCOMO

DEFAULT_PATH = LOCOMO.path
_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.IGNORECASE)
_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"], start=1)}


def load(path: Path | str = DEFAULT_PATH) -> list[dict[str, Any]]:
    """The LoCoMo samples; without the file the script ends (exit status 2, one sentence)."""
    return json.loads(LOCOMO.require(path).read_text())


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


ROOTS = ("session", "turn", "turn-thread")


def to_events(sample: dict[str, Any], limit: int | None = None, roots: str = "session") -> list[dict[str, Any]]:
    """Bronze events (B2 contract) of one conversation, optionally only its first ``limit`` turns.

    ``roots``: the provenance root is the session (``session``), or each turn's own permalink
    (``turn``, as many chat sources give), optionally with the session named as the ``thread``
    (``turn-thread``, how such a source keeps its conversations together)."""
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
        if roots != "session":
            events[-1]["provenance_root"] = f"locomo://{sample['sample_id']}/{turn['dia_id']}"
        if roots == "turn-thread":
            events[-1]["thread"] = f"{sample['sample_id']}/{key}"
    return events


# --------------------------------------------------------------------------------------------------
# Questions, evidence and observations (bench/locomo.py)
# --------------------------------------------------------------------------------------------------

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_EVIDENCE_TOKEN = re.compile(r"^D:?(\d+):(\d+)$")
_EVIDENCE_NO_COLON = re.compile(r"^D(\d{2,})$")


def dia_ids(sample: dict[str, Any]) -> set[str]:
    """Every turn id (``D<session>:<turn>``) of a conversation."""
    return {turn["dia_id"] for _, turn, _ in turns(sample)}


def dia_id(source_event_id: str) -> str:
    """``conv-26:D1:3`` → ``D1:3``."""
    return source_event_id.split(":", 1)[1]


def clean_evidence(raw: Any, valid: set[str], fixes: dict[str, int] | None = None) -> list[str]:
    """LoCoMo's evidence ids, cleaned, deduplicated, in their order; only ids of turns that exist.

    The annotations hold a few malformed ids. Each entry is stripped and split on ``;``, ``,`` and
    whitespace ('D8:6; D9:17', 'D9:1 D4:4 D4:6' → several ids); ``D:11:26`` (stray colon) → ``D11:26``;
    leading zeros go (``D30:05`` → ``D30:5``); an id without its colon (``D113``) is kept only when
    exactly one split names an existing turn; bare ``D`` and other non-ids are dropped; a well-formed
    id naming no turn of the conversation (``D10:19`` in a session of 18 turns) is dropped as
    dangling. ``fixes`` (optional) counts each kind of repair.
    """
    def count(kind: str) -> None:
        if fixes is not None:
            fixes[kind] = fixes.get(kind, 0) + 1

    entries = raw if isinstance(raw, list) else [raw]
    out: list[str] = []
    for entry in entries:
        if not isinstance(entry, str):
            count("not_a_string")
            continue
        if entry != entry.strip():
            count("whitespace_stripped")
        tokens = [t for t in re.split(r"[;,\s]+", entry.strip()) if t]
        if len(tokens) > 1:
            count("list_split")
        for token in tokens:
            m = _EVIDENCE_TOKEN.match(token)
            if m:
                fixed = f"D{int(m.group(1))}:{int(m.group(2))}"
                if fixed != token:
                    count("reformatted")
            elif _EVIDENCE_NO_COLON.match(token):
                digits = token[1:]
                options = [f"D{int(digits[:i])}:{int(digits[i:])}" for i in range(1, len(digits))]
                found = [o for o in options if o in valid]
                if len(found) != 1:
                    count("malformed_dropped")
                    continue
                fixed = found[0]
                count("colon_restored")
            else:
                count("malformed_dropped")
                continue
            if fixed not in valid:
                count("dangling_dropped")
                continue
            if fixed in out:
                count("duplicate_dropped")
                continue
            out.append(fixed)
    return out


def questions(sample: dict[str, Any], fixes: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """The QA items of a conversation with cleaned ``evidence`` (may be empty) and ``raw_evidence``."""
    valid = dia_ids(sample)
    out = []
    for index, qa in enumerate(sample["qa"]):
        out.append({
            "sample_id": sample["sample_id"], "namespace": namespace(sample), "index": index,
            "question": qa["question"], "answer": qa.get("answer", qa.get("adversarial_answer")),
            "category": int(qa["category"]), "raw_evidence": qa.get("evidence", []),
            "evidence": clean_evidence(qa.get("evidence", []), valid, fixes),
        })
    return out


def observations(sample: dict[str, Any], fixes: dict[str, int] | None = None) -> dict[str, list[tuple[str, str]]]:
    """LoCoMo's recorded ``observation`` facts by the turn they cite: ``{dia_id: [(person, text), …]}``.

    An observation citing several turns (a list, or 'D22:21, D22:23') is listed under each of them.
    """
    valid = dia_ids(sample)
    out: dict[str, list[tuple[str, str]]] = {}
    for key in sorted(sample.get("observation", {}), key=lambda k: int(re.findall(r"\d+", k)[0])):
        for person, items in sample["observation"][key].items():
            for item in items:
                text, cited = item[0], item[1] if len(item) > 1 else []
                for turn_id in clean_evidence(cited, valid, fixes):
                    out.setdefault(turn_id, []).append((person, text))
    return out
