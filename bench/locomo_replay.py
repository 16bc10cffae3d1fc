"""A replay distiller: LoCoMo's own ``observation`` facts served as the distiller's output.

The stand-in for an LLM distiller in ``bench/locomo.py`` config (d). LoCoMo ships, per session and
speaker, observations written from the dialogue ("Caroline attended an LGBTQ support group
recently …"), each citing the turn(s) it came from. This provider implements the
:class:`~medallion.distill.providers.Distiller` protocol and, for the Bronze event of turn
``<sample_id>:<dia_id>``, returns one :class:`FactCandidate` per observation citing that turn:
subject = the person the observation is about, predicate ``states``, value / statement = the
observation, ``valid_from`` = the session's date time (the event's ``occurred_at``), confidence 0.9,
span = the whole turn. An observation citing several turns is served at each of them; the
engine's resolution then treats the repeats as paraphrases (skip). Turns no observation cites
yield no facts (their chunks are still indexed).

Note: derivation memoises a non-heuristic distiller's output by (kind, actor, occurred_at, content),
not by ``source_event_id``; two identical turns by the same speaker in one session would share the
first one's facts (LoCoMo has no such pair among the turns that observations cite).
"""

from __future__ import annotations

from typing import Any

from bench.locomo_data import observations
from medallion.distill.types import EventInput, FactCandidate

CONFIDENCE = 0.9


class ObservationReplayDistiller:
    """Serve recorded observations keyed by the source turn (``<sample_id>:<dia_id>``)."""

    name = "locomo-observation-replay"
    model = "locomo-observations"

    def __init__(self, samples: list[dict[str, Any]]):
        self.by_turn: dict[str, list[tuple[str, str]]] = {}
        for sample in samples:
            for turn_id, items in observations(sample).items():
                self.by_turn[f"{sample['sample_id']}:{turn_id}"] = items
        self.served = 0

    def distill(self, event: EventInput) -> list[FactCandidate]:
        out = []
        for person, text in self.by_turn.get(event.source_event_id, []):
            statement = text.strip()
            if not statement.endswith((".", "!", "?")):
                statement += "."
            out.append(FactCandidate(subject=person, predicate="states", value=statement.rstrip("."),
                                     statement=statement, valid_from=event.occurred_at, confidence=CONFIDENCE,
                                     span=(0, len(event.content)), object_entity=None))
        self.served += len(out)
        return out
