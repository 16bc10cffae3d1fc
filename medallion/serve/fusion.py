"""Turn-level reciprocal rank fusion for hybrid search (G4).

Search ranks several lists of candidates (vectors and full text over facts and chunks together, the
same over whole passages only, and the graph list of serve/graph.py), and several facts and chunks
often come from one Bronze event. Fused item by
item, an event with five near-identical facts outvotes an event that two different lists agree on.
So each list votes once per *event*, at the rank of that event among the list's distinct events;
an item's score is its event's score plus a small share of its own fused score, which only orders
the items of one event among themselves.

Measured on LoCoMo (bench/results/locomo_proposals.md): K = 10 rather than the textbook 60, because
a handful of lists of 50 candidates each make the first ranks decisive.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

RRF_K = 10
OWN_SHARE = 1e-3  # an item's own fused score, scaled to stay below any gap between two events
LEAD = 0.1  # how far a leading list's item goes past the best own score of its event (visible after rounding)


def fuse(lists: Mapping[str, Sequence[str]], event_of: Mapping[str, Hashable],
         weights: Mapping[str, float] | None = None, k: int = RRF_K,
         votes_only: Mapping[str, Collection[str]] | None = None, leading: str | None = None,
         trailing: Collection[str] = ()) -> dict[str, float]:
    """Score every item of ``lists`` (ranked ids, best first) by its event's fused rank.

    ``event_of`` maps an item to the Bronze event it came from; an item without one counts as its
    own event. ``votes_only`` names, per list, items whose rank there votes for their event but not
    for their place among the event's items (search's passages that hold clauses: a list of whole
    passages has no clause in it, so counting it for the passage would put the whole sentence, with
    both subjects' values, ahead of the clause that answers). The items of the list named ``leading``
    come first among their event's items, in that list's order; the items in ``trailing`` come after
    every other item of their event. Returns item → score, higher is better.
    """
    event_score: dict[Hashable, float] = {}
    own: dict[str, float] = {}
    for name, ids in lists.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        excluded = (votes_only or {}).get(name, ())
        seen: set[Hashable] = set()
        for rank, item in enumerate(ids, start=1):
            own[item] = own.get(item, 0.0) + (0.0 if item in excluded else 1.0 / (k + rank))
            event = event_of.get(item, ("item", item))
            if event in seen:
                continue
            seen.add(event)
            event_score[event] = event_score.get(event, 0.0) + weight / (k + len(seen))
    if leading is not None:
        best: dict[Hashable, float] = {}
        for item, score in own.items():
            event = event_of.get(item, ("item", item))
            best[event] = max(best.get(event, 0.0), score)
        ahead = lists.get(leading, ())
        for rank, item in enumerate(ahead, start=1):
            own[item] = best[event_of.get(item, ("item", item))] + LEAD / (k + rank)
    if trailing:
        least: dict[Hashable, float] = {}
        for item, score in own.items():
            if item not in trailing:
                event = event_of.get(item, ("item", item))
                least[event] = min(least.get(event, score), score)
        for item in trailing:
            event = event_of.get(item, ("item", item))
            if item in own and event in least:
                own[item] = min(own[item], least[event] - LEAD / k)
    return {item: event_score[event_of.get(item, ("item", item))] + OWN_SHARE * score for item, score in own.items()}


# How much of the score of the better of the turns just before and after its own a turn is lent (the turns
# beside it in its thread, read by serve/retrieve.py). The better neighbour's, not both: a turn between two
# that match is not lifted above them. A turn two away lends less, through a neighbour that is itself a
# candidate. The turn right after a question is its answer ("Yes, last May!" after "Did you ever go to
# Lisbon?"): it is lent the question's whole score, so it ranks just above the question that found it.
# Measured on LoCoMo (c), one ledger, R@5 / R@10 over all five categories: 67.0 / 77.0 without; both
# neighbours summed at 0.3, 69.0 / 79.1; the better at 0.45, 69.7 / 79.1; that and the better of the two
# away at 0.2, 70.8 / 80.4; and the answer after a question at 1.0, 71.6 / 80.6 (at 0.7, 71.0 / 80.4)
# (bench/results/locomo_proposals.md).
NEIGHBOUR_SHARE = 0.45
TWO_AWAY_SHARE = 0.2
ANSWER_SHARE = 1.0


def with_neighbours(scores: Mapping[str, float], event_of: Mapping[str, Hashable],
                    neighbours: Mapping[Hashable, tuple[Hashable | None, Hashable | None]],
                    share: float = NEIGHBOUR_SHARE, two_away: float = TWO_AWAY_SHARE,
                    silent: Collection[Hashable] = (), asking: Collection[Hashable] = (),
                    answer: float = ANSWER_SHARE) -> dict[str, float]:
    """``scores`` (item → fused score) with each item's event lent ``share`` of the score of the better
    of the events just before and after it in its thread (``neighbours``: event → (before, after)), and
    ``two_away`` of the better of the events two away (through a neighbour ``neighbours`` knows: a
    candidate), each event's score being its best item's; an event right after one of the ``asking``
    events (a turn that asks a question) that does not ask itself is lent ``answer`` of the
    question's score instead, when that is more. Only candidates lend: a neighbour no list found adds
    nothing. The ``silent`` events lend nothing (search's: those it will not serve)."""
    best: dict[Hashable, float] = {}
    for item, score in scores.items():
        event = event_of.get(item)
        if event is not None:
            best[event] = max(best.get(event, 0.0), score)

    def lends(events: Iterable[Hashable | None]) -> float:
        return max((best.get(e, 0.0) for e in events if e is not None and e not in silent), default=0.0)

    def beyond(event: Hashable, side: int) -> Hashable | None:
        near = neighbours.get(event, (None, None))[side]
        return None if near is None else neighbours.get(near, (None, None))[side]

    lent: dict[Hashable, float] = {}
    for event in best:
        before = neighbours.get(event, (None, None))[0]
        lent[event] = share * lends(neighbours.get(event, ())) + two_away * lends((beyond(event, 0), beyond(event, 1)))
        if before in asking and event not in asking:
            lent[event] = max(lent[event], answer * lends((before,)))
    return {item: score + lent.get(event_of.get(item), 0.0) for item, score in scores.items()}


# A chunk that stated a fact no longer believed keeps half its fused score, whether or not it also
# supports a current one (a chunk that supports none is served only with include_superseded): the
# source text of a current belief outranks text that still says what the ledger no longer stands
# behind ("I work as a nurse at Quillfield" after "started at Harrowgate today"). A chunk that stated
# no fact at all (a greeting, or a fragment answer such as "Biscuit, after my grandmother's recipe.")
# keeps its score, since the answer to a question is often a turn the distiller could not turn into a claim.
NO_CURRENT_FACT = 0.5


@dataclass(frozen=True)
class ChunkStanding:
    """What the ledger says of a chunk: the believed facts it supports, the closed ones it stated,
    and the facts that closed them."""

    supports: tuple[str, ...] = ()
    closed: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()

    @property
    def current(self) -> bool:
        """False only when the chunk stated facts and none of them is believed any more."""
        return bool(self.supports) or not self.closed

    @property
    def factor(self) -> float:
        return NO_CURRENT_FACT if self.closed else 1.0


def chunk_standing(chunks: Mapping[str, tuple[Hashable, int, int]],
                   facts: Iterable[tuple[str, Hashable, int | None, int | None, bool, str | None]],
                   ) -> dict[str, ChunkStanding]:
    """The standing of each chunk (id → (event, char_start, char_end)) from the facts of its event.

    ``facts`` are (fact_id, event, span_start, span_end, believed, superseded_by). A fact counts for
    a chunk of its event when its span overlaps the chunk's, or when it has no span (the whole event).
    """
    by_event: dict[Hashable, list[tuple[str, Hashable, int | None, int | None, bool, str | None]]] = {}
    for fact in facts:
        by_event.setdefault(fact[1], []).append(fact)
    standing: dict[str, ChunkStanding] = {}
    for cid, (event, start, end) in chunks.items():
        supports, closed, by = [], [], []
        for fid, _, span_start, span_end, believed, superseded_by in by_event.get(event, []):
            if span_start is not None and span_end is not None and not (span_start < end and start < span_end):
                continue
            if believed:
                supports.append(fid)
            else:
                closed.append(fid)
                if superseded_by:
                    by.append(superseded_by)
        standing[cid] = ChunkStanding(tuple(sorted(supports)), tuple(sorted(closed)), tuple(dict.fromkeys(by)))
    return standing

