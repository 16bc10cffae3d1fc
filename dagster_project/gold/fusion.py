"""Turn-level reciprocal rank fusion for hybrid search (SPEC G4).

Search ranks four kinds of candidates (fact vectors, fact full text, chunk vectors, chunk full text,
plus the slot list), and several facts and a chunk often come from one Bronze event. Fused item by
item, an event with five near-identical facts outvotes an event that two different lists agree on.
So each list votes once per *event*, at the rank of that event among the list's distinct events;
an item's score is its event's score plus a small share of its own fused score, which only orders
the items of one event among themselves.

Measured on LoCoMo (bench/results/locomo_proposals.md): K = 10 rather than the textbook 60, because
a handful of lists of 50 candidates each make the first ranks decisive.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

RRF_K = 10
OWN_SHARE = 1e-3  # an item's own fused score, scaled to stay below any gap between two events


def fuse(lists: Mapping[str, Sequence[str]], event_of: Mapping[str, Hashable],
         weights: Mapping[str, float] | None = None, k: int = RRF_K) -> dict[str, float]:
    """Score every item of ``lists`` (ranked ids, best first) by its event's fused rank.

    ``event_of`` maps an item to the Bronze event it came from; an item without one counts as its
    own event. Returns item → score, higher is better.
    """
    event_score: dict[Hashable, float] = {}
    own: dict[str, float] = {}
    for name, ids in lists.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        seen: set[Hashable] = set()
        for rank, item in enumerate(ids, start=1):
            own[item] = own.get(item, 0.0) + 1.0 / (k + rank)
            event = event_of.get(item, ("item", item))
            if event in seen:
                continue
            seen.add(event)
            event_score[event] = event_score.get(event, 0.0) + weight / (k + len(seen))
    return {item: event_score[event_of.get(item, ("item", item))] + OWN_SHARE * score for item, score in own.items()}
