"""At query time the present wins: for a question about now, the newest of several candidates that say
the same kind of thing about the same subject ranks first (issue 31, point 4).

Why: the ledger closes an old belief only when the distiller recognised that the new sentence fills
the same slot. When it did not ("I work at A", later "officially started at B this morning"), both
turns stay current and fusion ranks them by words alone, so the older, more literal turn often
wins. A person reading the two turns knows the later one is the answer to "where does she work?";
this stage does what that reader does, without naming any relation:

* a *cluster* gathers candidates about the same subject whose stored embeddings are close (cosine ≥
  :data:`SIMILAR`) and that are about as close to the question (within :data:`MARGIN`; when the later
  of two says it changes something, "now", "switched", "scratch that", or the earlier that something
  ended, "sold the Zinnia", "Pickle passed away", the looser :data:`SIMILAR_CHANGED` and
  :data:`MARGIN_CHANGED`, since a change is often told in words the question does not use, and the
  replacement in words the ending did not use): in rank
  order, each candidate joins the first cluster whose founding event (a turn and the facts it stated)
  holds such an item, else starts its own; nothing chains through a member that joined later;
* a candidate is about a subject when the subject's name is among its names (a fact's subject and
  its aliases; for a chunk, the subjects of the facts its event stated where they overlap it, else its
  speaker when it speaks in the first person, whoever else it names, or when a person wrote it and it
  speaks of no third person: "traded it in, picked up a used hatchback" drops its subject, as chat
  does) or, for a chunk, its words (a note names its subject);
* a turn that states no value never leads a cluster (:func:`asserts_value`): a plan still under
  consideration ("might switch to the Pro plan") or a request to forget does not replace what was said,
  and a later turn that settles it ("scratch that, the boat's name is Little Marlow") leads in its place;
* two beliefs of one subject in trusted slots are never clustered with each other, nor such a
  belief with a turn that stated another of its subject: the ledger compared them by slots it can
  trust, and had they filled one slot the older would be closed. A slot is trusted when it is curated
  (not the catch-all ``states``) or learned and already used by the ledger to close a belief (its
  ``silver.predicates`` row counts fewer current facts than facts): "is registered in the canton of" and
  "is taxed in the canton of", each with a replaced value somewhere in the namespace, are two
  tracked slots, not one meaning said twice. A belief in a learned slot nothing was ever closed in
  ("picked up a used Leaf") is clustered, since its slot says nothing about the other; two beliefs of one
  turn are never clustered (neither is newer); when the question names a subject, only candidates
  about it are clustered;
* a turn that opens with someone other than whom the question asks about (``serve/asked_subject.py``:
  "Fatima's husband bought a red Ember" for "What car does Fatima drive?", "my sister's coming to
  stay" for "What is Nadia reading?") may join a cluster but never leads one that holds a turn about
  the asked subject; a text that opens with the asked relative ("my husband is a pharmacist" for
  "What does Mina's husband do?") is about that subject whatever names it holds;
* when the question is about the present (:func:`about_the_present`), the newest turn of each
  cluster (said last: its event's time, unless it dates itself to well before) takes the cluster's
  first places and the older turns keep their rank order after it (a turn's items keep their order;
  of two said at one time, the later-said first): the cluster keeps its best member's score and
  every other result keeps its place. Moving only the newest to the top, rather than sorting the
  whole cluster newest first, keeps the older evidence where the words ranked it (on LoCoMo, where
  questions ask about things said once, a full re-sort cost 2 points of R@5, the head alone 0.6);
* a candidate of a many-valued meaning (a fact whose curated slot has cardinality ``many``, or a
  chunk whose facts all do) is never reordered: a second hobby does not replace the first; a
  question whose head noun is plural ("What are her hobbies?") reorders nothing, and one whose head
  noun is singular ("Which plan is he on?") reorders even those (:func:`asks_for_many`).

A question for a reason, a manner, a count or what someone has done ("why", "how", "how many",
"has … participated") asks about no single present state and keeps the fused order unless it says
"now", "currently" or the like.

A question about the past ("where did she work before", "in 2019", "used to") keeps the fused
order, so older turns stay reachable; so does a search ``as_of`` a moment (the ledger of then
answers). The stage uses the embeddings already stored with facts and chunks (no model call), read by
search's one statement through :data:`retrieve.ITEMS_SQL`; the pure part is :func:`newest_first`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np

from medallion.distill.language.coordination import ENDED_RE, names_value
from medallion.serve import asked_subject, cues
from medallion.serve.cues import about_the_present, asks_for_many, asserts_value, news, retracts, says_change, tokens
from medallion.serve.proper_names import proper_words
from medallion.silver import entities, forget_requests
from medallion.silver.chunks import speaker
from medallion.silver.embed import vector_of
from medallion.silver.resolve import NEWS_WINDOW

# Measured with bench/present_threshold.py --dev on tests/present_cases.py and the development
# plain-language updates (bench/results/present_threshold.json): of 70 pairs (earlier turn, later turn
# changing the value) 69 have a cosine ≥ 0.40 between their items and 65 are within 0.20 of each other
# in closeness to the question (64 both). Cosine alone does not tell another topic of the same person
# apart (0.42-0.51); its closeness to the question does (0.22-0.31 further than the answer).
SIMILAR = 0.40  # cosine between two candidates' stored embeddings: "the same kind of thing"
MARGIN = 0.20  # how much closer to the question one member of a cluster may be than another
SIMILAR_CHANGED = 0.25  # the same, when the later of the two says it changes something (:func:`says_change`)
MARGIN_CHANGED = 0.35  # MARGIN, when the later of the two says it changes something
# MARGIN, when the later of the two points at the earlier: it opens by taking back what was just said
# ("scratch that, saturday works better"), or both name the record the question asks about by its
# number ("Ticket 6120: priority P3", later "6120 bumped to P1"). A record named by number has few
# attributes, and a retraction repeats none of the question's words, so closeness to the question
# tells little here.
MARGIN_REFERRED = 0.50
NEWS_MARGIN = 0.10  # a clause saying what holds now leads its turn only this close to the turn's best text
WINDOW_EVENTS = 10  # the results of the first N distinct events are looked at; the rest keep their order
PAST_TELLING = NEWS_WINDOW  # a belief dated this much before its telling is a story about before (as in the ledger)
_QUOTED = 40  # the leading characters of a turn that identify it inside another chunk's context

FIRST_PERSON = frozenset(("i", "im", "me", "my", "mine", "myself", "ive", "id", "ill", "we", "our", "us"))
# Titles before a name: "Mr. Olander" is the Piet Olander of another note.
TITLES = frozenset(("mr", "mrs", "ms", "mx", "miss", "dr", "prof", "sir", "madam", "mme", "herr", "frau"))
# Words that make a third person a turn's subject or owner ("she moved", "his car"); an object ("had them
# on repeat", "called him") leaves the speaker the subject.
THIRD_PERSON = frozenset(("he", "she", "her", "his", "hers", "hes", "shes", "they", "their", "theyre"))
# A turn's part that opens with someone else as its subject ("she got a whole house for what I pay in
# rent") is about them, though the speaker's "I" comes later in it; "she and I" is about both.
_OTHER_OPENS = re.compile(r"^\W*(?:he|she|they)(?:'s|'re|s|re)?\b(?!\s+and\s+(?:i|me)\b)", re.IGNORECASE)


@dataclass(frozen=True)
class Candidate:
    """One ranked result as this stage sees it."""

    key: str
    when: datetime | None
    vector: Sequence[float] | None
    to_question: float = 0.0  # cosine between its embedding and the question's
    event: Any = None  # its Bronze event
    follows: frozenset[Any] = frozenset()  # events whose text its embedding carries as context
    names: tuple[frozenset[str], ...] = ()  # each name it is about, as its set of tokens
    words: frozenset[str] = field(default_factory=frozenset)  # its own words and its names' tokens
    many: bool = False  # of a many-valued meaning: never reordered
    changes: bool = False  # its words say something took another's place ("now", "new", "no longer", "quit")
    asserts: bool = True  # its words state a value: not a plan under consideration ("might switch"), not a request
    fact: bool = False  # a belief (else a chunk of raw text)
    trusted: bool = False  # in a trusted slot (:data:`retrieve.TRUSTED_SLOT`): the ledger's verdict on it stands
    speaker: str | None = None  # who said its turn (a chunk's actor), when known
    retracts: bool = False  # it opens by taking back what its speaker said before ("scratch that, …")
    news: int = 1  # 0 it says what holds now, 2 only what ended, 1 neither (:func:`cues.news`)
    text: str = ""  # its statement, trimmed


@dataclass
class Memo:
    """What one search's stages over the same window compute once, by result id: the candidates and
    their :func:`asked_subject.rank` (the question is the search's, so neither changes between stages)."""

    candidates: dict[str, Candidate] = field(default_factory=dict)
    ranks: dict[str, int] = field(default_factory=dict)


def _mentions(name: frozenset[str], item: Candidate) -> bool:
    told = name - cues.NAME_LINKS  # "billing-api in prod" is mentioned by "deployed billing-api to prod"
    return bool(told) and told <= item.words


def part_of(item: Candidate, subject: frozenset[str]) -> bool:
    """Whether one of the item's names is part of the asked ``subject``'s: "Mr. Orrell" or "Caspian" of
    "Caspian Orrell" (a note names a person by title and surname, a chat by first name)."""
    return any(n and n < subject for n in item.names)


def _asked_in_both(a: Candidate, b: Candidate, asked: Sequence[frozenset[str]]) -> bool:
    """Whether both candidates name one asked subject, in full or (not both) by part of a person's name."""
    part = asked_subject.by_part_of_name
    return any((_mentions(n, a) or part(a.text, a.words, n)) and (_mentions(n, b) or part(b.text, b.words, n))
               and (_mentions(n, a) or _mentions(n, b)) for n in asked)


def same_subject(a: Candidate, b: Candidate) -> bool:
    """Whether two candidates are about one subject: a name of one is among the other's names or words."""
    return any(_mentions(n, b) for n in a.names) or any(_mentions(n, a) for n in b.names)


def linked(a: Candidate, b: Candidate, threshold: float = SIMILAR, margin: float = MARGIN,
           asked: Sequence[frozenset[str]] = ()) -> bool:
    """Whether two candidates say the same kind of thing about one subject: a shared subject, close
    embeddings, and about as close to the question as each other. A chunk embedded with the other's
    turn as its context is not compared with it (the shared context, not the meaning, makes them close).
    ``asked`` are the names the question gives: a record both name by its number
    (:data:`MARGIN_REFERRED`) is one subject with few attributes."""
    if a.vector is None or b.vector is None or a.event in b.follows or b.event in a.follows:
        return False
    if (a.fact and b.fact and a.event == b.event) or (a.trusted and b.trusted and a.event != b.event):
        return False  # two beliefs of one turn (neither is newer), or two turns the ledger told apart by trusted slots
    if a.fact and b.fact and not set(a.names) & set(b.names):
        return False  # two beliefs have exact subjects: "Quillmoor Reader" is not "Quillmoor"
    newer, older = (a, b) if (a.when, _order(a.event)) > (b.when, _order(b.event)) else (b, a)
    if newer.changes or newer.retracts or ENDED_RE.search(older.text):  # a replacement, or an ending before it
        threshold = min(threshold, SIMILAR_CHANGED)
        margin = max(margin, MARGIN_CHANGED)
        if newer.retracts or _numbered_record(a, b, asked):
            margin = max(margin, MARGIN_REFERRED)
    return ((same_subject(a, b) or _asked_in_both(a, b, asked)) and abs(a.to_question - b.to_question) <= margin
            and cosine(a.vector, b.vector) >= threshold)


def _numbered_record(a: Candidate, b: Candidate, asked: Sequence[frozenset[str]]) -> bool:
    """Whether both candidates are about a name the question gives that carries a number ("6120",
    "Order 4471"): a record, not a person."""
    return any(any(t.isdigit() for t in n) and _mentions(n, a) and _mentions(n, b) for n in asked)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    va, vb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    norm = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return float(va @ vb) / norm if norm else 0.0


def clusters(items: Sequence[Candidate], threshold: float = SIMILAR,
             subjects: Sequence[frozenset[str]] = (), focus: Sequence[int] = ()) -> list[list[int]]:
    """Clusters over ``items`` (best first), as lists of indices: each item joins the first cluster
    whose founding event (that of its best member) holds an item it is linked to (:func:`linked`),
    else starts its own; a cluster never grows through a member that joined it. Many-valued items,
    items without a time or a vector, and (when the question names ``subjects``) items about none of
    them stay alone; one that opens with the asked subject (``focus`` 0, :func:`asked_subject.rank`:
    "my husband is a pharmacist" for "What does Mina's husband do?") is about it whatever names it holds.
    A many-valued item that says it changes something, or that a later one saying so is linked to, is
    clustered all the same (:func:`_replaced_many`)."""
    focus = list(focus) or [1] * len(items)
    replaced = _replaced_many(items, threshold, subjects)
    eligible = [(not item.many or i in replaced) and item.when is not None and item.vector is not None
                and (f == 0 or not subjects
                     or any(_mentions(s, item) or part_of(item, s)
                            or asked_subject.by_part_of_name(item.text, item.words, s) for s in subjects))
                for i, (item, f) in enumerate(zip(items, focus, strict=True))]
    groups: list[list[int]] = []
    open_groups: list[list[int]] = []
    for i, item in enumerate(items):
        if not eligible[i]:
            groups.append([i])
            continue
        home = next((g for g in open_groups if _joins(items, g, item, threshold, subjects)), None)
        if home is None:
            home = [i]
            open_groups.append(home)
            groups.append(home)
        else:
            home.append(i)
    return sorted(groups)


def _replaced_many(items: Sequence[Candidate], threshold: float, asked: Sequence[frozenset[str]]) -> set[int]:
    """The many-valued items whose value a later turn says it replaced: a slot that holds several values
    at once (the places someone travels to, who works a ticket) adds a value with each turn, but "3109
    reassigned to Farah" or "change of plans, going to Riga" says the newer value took the older one's
    place. Returned: the many-valued ones among each item saying a change and the older items linked to it."""
    out: set[int] = set()
    for j, b in enumerate(items):
        if not b.changes or b.when is None:
            continue
        for i, a in enumerate(items):
            if (a.many or b.many) and a.when is not None and a.when < b.when and linked(a, b, threshold, asked=asked):
                out.update(k for k in (i, j) if items[k].many)
    return out


def _joins(items: Sequence[Candidate], group: list[int], item: Candidate, threshold: float,
           asked: Sequence[frozenset[str]] = ()) -> bool:
    """Whether ``item`` joins ``group``: linked to an item of the group's founding event, and, for a
    belief in a trusted slot, that event stated no such belief of its subject (the ledger kept the two
    apart: two slots)."""
    founding = [items[m] for m in group if items[m].event == items[group[0]].event]
    if item.trusted and item.fact and any(m.fact and m.trusted and set(m.names) & set(item.names) for m in founding):
        return False
    return any(linked(m, item, threshold, asked=asked) for m in founding)


def newest_first(items: Sequence[Candidate], threshold: float = SIMILAR,
                 subjects: Sequence[frozenset[str]] = (), focus: Sequence[int] = ()) -> list[int]:
    """The new order of ``items`` (ranked best first) as indices: within each cluster the newest turn
    takes the cluster's first places (a turn's items, and a tie, keep the rank order); everything else
    stays. A turn about someone other than the asked subject (a text of it opens with them, ``focus``
    2, and none with the subject: "my sister's coming to stay" for "What is Nadia reading?"; its clause
    "we see him every month now" is of the same turn) does not lead a cluster that holds a turn about
    the subject."""
    order = list(range(len(items)))
    focus = list(focus) or [1] * len(items)
    for group in clusters(items, threshold, subjects, focus):
        if len(group) < 2:
            continue
        # a turn's time is its latest member's: the items of one turn keep their rank order
        said_at: dict[Any, float] = {}
        for i in group:
            turn = items[i].event if items[i].event is not None else ("item", i)
            said_at[turn] = max(said_at.get(turn, float("-inf")), items[i].when.timestamp())  # type: ignore[union-attr]
        # a turn is about someone else when one of its texts opens with them and none with the asked subject
        elsewhere = {items[i].event for i in group if focus[i] == 2} - {items[i].event for i in group if focus[i] == 0}
        about = ({items[i].event for i in group} - elsewhere) or {items[i].event for i in group}
        # a turn that only weighs a change ("might switch …, not sure yet") or asks to forget states no value;
        # one of whose parts does ("maybe later. … i report to Teodor Maas now") states it
        leaders = about & {items[i].event for i in group if items[i].asserts}
        if not leaders:
            continue
        newest = sorted(group, key=lambda i: (
            items[i].event not in leaders,
            -said_at[items[i].event if items[i].event is not None else ("item", i)], -_order(items[i].event), i))
        # the newest turn takes the cluster's first places; the older ones keep their rank order after it
        head = [i for i in newest if items[i].event == items[newest[0]].event] if items[newest[0]].event is not None \
            else newest[:1]
        rest = [i for i in group if i not in head]
        turn = tuple(head)
        head = sorted(turn, key=lambda i: (focus[i] == 2, _telling(items, turn, i), i))
        for place, member in zip(group, head + rest, strict=True):
            order[place] = member
    return order


def _telling(items: Sequence[Candidate], turn: Sequence[int], i: int) -> int:
    """Where a text of the newest turn of a cluster stands among the turn's texts by what it tells
    (:func:`cues.news`): a clause saying what holds now, about as close to the question as the turn's
    best text (:data:`NEWS_MARGIN`), before one that says neither ("I'm doing Italian on an app now"
    before "honestly Korean was too much for me"), and a clause saying only what ended after both ("Pickle
    passed away in march", then "we adopted a greyhound called Bramble"). Beside a text saying only what
    ended, another part of the turn that says neither and names a value tells the replacement, and leads
    the turn ("sold the vespa last weekend," / "got a Brisko e-bike instead"; "it's 0798 644 2107," / "the
    old sim just died on me" ahead of "got a new number"). A passage holding another of the turn's texts
    tells what its clauses tell, so it is not moved by the cue words of one of them."""
    text = items[i].text
    if any(j != i and items[j].text and items[j].text in text and items[j].text != text for j in turn):
        return 1  # a passage (a fact restating it word for word is not one)
    best = max(items[j].to_question for j in turn)
    if items[i].news == 1 and names_value(text) and any(
            items[j].news == 2 and items[j].text not in text and text not in items[j].text for j in turn if j != i):
        # beside a part of the turn that says only what ended, the other part names what replaced it: it
        # leads even a text that announces the change without the value ("got a new number")
        return -1 if items[i].to_question >= best - NEWS_MARGIN else 1
    named = frozenset().union(*(n for j in turn for n in items[j].names))
    if items[i].news == 0 and not _gives_value(text, named) and any(
            j != i and items[j].news != 2 and _gives_value(items[j].text, named)
            and (items[j].to_question >= best - NEWS_MARGIN or tokens(text) <= tokens(items[j].text)) for j in turn):
        # "Zofia's number has changed." announces what another text of the turn gives ("Zofia's phone
        # number is 0171 662 5810"), near the question or saying the same words and the value ("Brindlecote
        # upgraded after the demo, they're on Canopy now"): it goes after the texts that tell something
        return 2
    if items[i].news == 0 and items[i].to_question < best - NEWS_MARGIN:
        return 1
    return items[i].news


_LEADING_NAME = re.compile(r"^\W*(?:[A-Z][\w-]*(?:['’]s)?\s+)*")
_VALUE_WORD = re.compile(r"\b\w*\d\w*\b|(?<!^)(?<![.!?]\s)\b[A-Z][\w-]+")


def _gives_value(text: str, names: frozenset[str] = frozenset()) -> bool:
    """Whether a text gives a value beyond the names it speaks of: a word with a digit or a capitalised
    word after the leading name, not one of ``names`` ("Leonor's new address is 48 Avenida …", not
    "Leonor has moved flats"; not "Dr. Okafor changed Noor Estevane's meds" of a turn naming both)."""
    rest = text[_LEADING_NAME.match(text).end():]  # type: ignore[union-attr]
    return any(m.group(0) != "I" and not (tokens(m.group(0)) <= names and m.group(0)[:1].isupper())
               for m in _VALUE_WORD.finditer(rest))


# ------------------------------------------------------------------ over served results
def _when(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def said_when(valid_from: datetime | None, said_at: datetime | None) -> datetime | None:
    """When a candidate counts as said: when its event happened, unless it dates itself to well before
    that (:data:`PAST_TELLING`: a story about before is not news); "yesterday" is still news told now."""
    if said_at is None or valid_from is None:
        return said_at or valid_from
    return valid_from if valid_from < said_at - PAST_TELLING else said_at


def _window(results: Sequence[dict[str, Any]], events: int) -> int:
    """How many leading results belong to the first ``events`` distinct Bronze events."""
    seen: set[Any] = set()
    for n, item in enumerate(results):
        event = (item.get("provenance") or {}).get("bronze_event_id", ("item", n))
        if event not in seen:
            if len(seen) == events:
                return n
            seen.add(event)
    return len(results)


def candidates(rows: Mapping[str, Sequence[Any]], results: Sequence[dict[str, Any]],
               query: Sequence[float], memo: Memo | None = None) -> list[Candidate]:
    """The results as candidates: their stored embeddings and closeness to the ``query`` vector, the
    names they are about, their time, and the turns their embedding carries as context. ``rows`` are
    the :data:`retrieve.ITEMS_SQL` rows by id (a result without one has no vector and no names). ``memo``
    keeps them by id for a second stage over the same results in another order (one search's)."""
    chunk_texts = [(_event(r), str(r.get("statement") or "").strip()[:_QUOTED])
                   for r in results if r.get("kind") == "chunk"]
    out = []
    for item in results:
        key = item.get("fact_id") or item.get("chunk_id")
        if memo is not None and str(key) in memo.candidates:
            out.append(memo.candidates[str(key)])
            continue
        _, vector, names, cards, actor, context, trusted, said_at = rows.get(
            key, (key, None, [], [], None, None, False, None))
        statement = str(item.get("statement") or "")
        said = tokens(statement)
        named = [n for n in (names or []) if n]
        if item.get("kind") == "chunk" and not named:
            named += proper_words(statement)  # a note names whom it is about
        if item.get("kind") == "chunk" and speaker(actor) and not _OTHER_OPENS.match(statement) and (
                said & FIRST_PERSON or (str(actor).startswith("user:") and not said & THIRD_PERSON)):
            named.append(speaker(actor))  # a person's turn is about its speaker, whatever else it names
        named += [i for n in named if (i := entities.identifier(n)) is not None]  # "Ticket 3301" is "3301" too
        name_sets = tuple(n for n in (frozenset(tokens(n) - TITLES) for n in dict.fromkeys(named)) if n)
        cards = [c for c in (cards or []) if c]
        array = vector_of(vector)
        event = _event(item)
        follows = frozenset(e for e, text in chunk_texts if context and text and e != event and text in context)
        out.append(Candidate(
            key=str(key), when=said_when(_when(item.get("valid_from")), _when(said_at)), vector=array,
            to_question=cosine(array, query) if array is not None else 0.0, event=event, follows=follows,
            names=name_sets, fact=item.get("kind") == "fact", trusted=bool(trusted),
            words=frozenset(set().union(*name_sets) if item.get("kind") == "fact" else said.union(*name_sets)),
            many=bool(cards) and all(c == "many" for c in cards),
            changes=says_change(statement),
            retracts=retracts(statement),
            news=news(statement),
            text=statement.strip(),
            asserts=asserts_value(statement),
            speaker=speaker(actor) if str(actor).startswith("user:") else None))
        if memo is not None:
            memo.candidates[str(key)] = out[-1]
    return out


def _order(event: Any) -> int:
    """Bronze event ids grow with arrival: of two items valid from the same time the later-said wins."""
    return event if isinstance(event, int) else 0


def _event(item: dict[str, Any]) -> Any:
    return (item.get("provenance") or {}).get("bronze_event_id")


def question_subjects(question: str, items: Sequence[Candidate]) -> list[frozenset[str]]:
    """The candidates' names the question names (all of a name's tokens among its words)."""
    asked = tokens(question)
    return list(dict.fromkeys(n for item in items for n in item.names
                              if n and n <= asked and not _owned_word(n, question)))


def _owned_word(name: frozenset[str], question: str) -> bool:
    """Whether a one-word name is what the question asks of someone ("what's my favorite band?": the
    band is the value asked for, though a belief has "band" for its subject), not whom it asks about."""
    if len(name) != 1:
        return False
    word = re.escape(next(iter(name)))
    return bool(re.search(rf"(?:\b(?:my|your|his|her|our|their)|{_NOT_A_CONTRACTION}['’]s)\s+"
                          rf"(?:[\w-]+\s+){{0,2}}?{word}\b", question, re.IGNORECASE))


# "what's", "who's", "it's": an "'s" that is "is", not an owner's
_NOT_A_CONTRACTION = "".join(rf"(?<!\b{w})" for w in ("what", "who", "where", "when", "how", "that", "it", "there",
                                                      "here", "he", "she"))


def reorder(question: str, query: Sequence[float], results: list[dict[str, Any]],
            items: Mapping[str, Sequence[Any]], threshold: float = SIMILAR,
            events: int = WINDOW_EVENTS, memo: Memo | None = None) -> list[dict[str, Any]]:
    """``results`` (served, best first) with the present winning inside each cluster of the window,
    each moved item taking the score of the place it takes; unchanged for a question not about now.
    ``items`` are the :data:`retrieve.ITEMS_SQL` rows of the results, by id; ``memo`` as for :func:`candidates`."""
    many = asks_for_many(question)
    if not about_the_present(question) or many:
        return results  # a question about before, or for several values: the fused order stands
    size = _window(results, events)
    if size < 2:
        return results
    head = results[:size]
    found = candidates(items, head, query, memo)
    if many is False:  # one value asked for: a slot the ledger holds as many-valued still answers with its newest
        # (and two of its beliefs are no longer told apart by their slot: the ledger kept both as two values)
        found = [replace(item, many=False, trusted=item.trusted and not item.many) for item in found]
    subjects = question_subjects(question, found)
    ranked = focus(asked_subject.asked(question, subjects), head, found, subjects, memo)
    order = newest_first(found, threshold, subjects, ranked)
    if order == list(range(size)):
        return results
    moved = [{**head[source], "score": head[place]["score"]} for place, source in enumerate(order)]
    return moved + results[size:]


def focus(asked: asked_subject.Asked, results: Sequence[dict[str, Any]], found: Sequence[Candidate],
          subjects: Sequence[frozenset[str]], memo: Memo | None = None) -> list[int]:
    """Each result's :func:`asked_subject.rank` against what the question asks about (``asked``): 0
    when it opens with the asked subject, 2 with someone else, 1 when it does not say (``found`` are
    the results as candidates; a first-person turn is about its speaker). ``memo`` keeps the ranks by
    result id for the next stage over the same window."""
    speakers = turn_speakers(results, found)
    known = people([*subjects, *asked.names], speakers)  # a name the question gives, though no result bears it
    if memo is None:
        return asked_subject.ranks(results, asked, speakers, known)
    keys = [str(r.get("fact_id") or r.get("chunk_id")) for r in results]
    missing = [(k, r) for k, r in zip(keys, results, strict=True) if k not in memo.ranks]
    if missing:
        fresh = asked_subject.ranks([r for _, r in missing], asked, speakers, known)
        memo.ranks.update((k, value) for (k, _), value in zip(missing, fresh, strict=True))
    return [memo.ranks[k] for k in keys]


def turn_speakers(results: Sequence[dict[str, Any]], found: Sequence[Candidate]) -> dict[Any, str | None]:
    """Who said each result's turn, when a person did (a fact has no actor of its own: its turn's
    chunks tell)."""
    said: dict[Any, str | None] = {}
    for result, item in zip(results, found, strict=True):
        if item.speaker:
            said.setdefault(_event(result), item.speaker)
    return said


def subject_first(question: str, query: Sequence[float], results: list[dict[str, Any]],
                  items: Mapping[str, Sequence[Any]], events: int = WINDOW_EVENTS,
                  memo: Memo | None = None) -> list[dict[str, Any]]:
    """``results`` with each event of the window represented by a text about whom the question asks
    (:func:`asked_subject.first_within_event`): "i'm 29" rather than "and my sister Bea is 34" for
    "How old is Ana?". ``items`` are the :data:`retrieve.ITEMS_SQL` rows of the results (names and speakers);
    without them only the relatives the question asks through are read. ``memo`` keeps the candidates
    and their ranks for the present stage, which reads the same window after this one."""
    size = _window(results, events)
    head = results[:size]
    found = candidates(items, head, query, memo)
    subjects = question_subjects(question, found)
    asked = asked_subject.asked(question, subjects)
    if not asked.known:
        return results
    return asked_subject.first_within_event(head, asked, focus(asked, head, found, subjects, memo)) + results[size:]


def requests_last(results: list[dict[str, Any]], events: int = WINDOW_EVENTS) -> list[dict[str, Any]]:
    """``results`` with the texts of a turn that asks the memory to forget something after every other
    text of the window, each keeping its order: "delete what I said about my therapist. keep the dentist
    info tho" tells no fact, yet shares the question's words ("Who is Henrik's dentist?") better than the
    belief that answers it. A turn is such a request when one of its texts in the window asks to forget
    or to keep something (:func:`forget_requests.instructs`); its beliefs stay where they are."""
    size = _window(results, events)
    asking = {_event(r) for r in results[:size] if r.get("kind") == "chunk"
              and forget_requests.instructs(str(r.get("statement") or ""))} - {None}
    if not asking:
        return results
    head = results[:size]
    later = [r for r in head if r.get("kind") == "chunk" and _event(r) in asking]
    if len(later) == len(head):
        return results
    kept = [r for r in head if not (r.get("kind") == "chunk" and _event(r) in asking)]
    return [{**r, "score": head[place]["score"]} for place, r in enumerate(kept + later)] + results[size:]


def people(subjects: Sequence[frozenset[str]], speakers: Mapping[Any, str | None]) -> list[frozenset[str]]:
    """The names a text may open with to be about someone: those the question gives and the turns'
    speakers (a belief's subject may be a thing, "the household", and a capitalised word a place)."""
    return list(dict.fromkeys([*subjects, *(frozenset(tokens(s)) for s in speakers.values() if s)]))


# A question that contrasts with now ("where did she work before", "what was it previously", "her
# former address", "what did he use to drive") asks for a belief the ledger has since replaced.
BEFORE_WORDS = frozenset(("before", "previously", "formerly", "former", "originally", "prior", "previous",
                          "earlier"))
_USED_TO = re.compile(r"\bused\s+to\b|\buse\s+to\b")


def asks_about_before(question: str) -> bool:
    """Whether the question asks for what was believed before the present value."""
    lowered = question.casefold().replace("’", "'")
    return bool(tokens(lowered) & BEFORE_WORDS) or bool(_USED_TO.search(lowered))


def _successors(result: Mapping[str, Any]) -> list[str]:
    """The facts that replaced a result: a closed fact's successor, a closed chunk's superseding facts."""
    if result.get("current", True):
        return []
    closer = result.get("superseded_by")
    if isinstance(closer, str):
        return [closer]
    return [c["fact_id"] for c in closer or () if isinstance(c, Mapping) and c.get("fact_id")]


def replaced_first(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``results`` (served with the beliefs no longer held, best first) with each replaced belief
    ahead of the turn that replaced it (the replacing belief, or a text of its turn ranked above it),
    taking its place and score: the mirror of the present winning, for a question about before
    (:func:`asks_about_before`). Nothing else moves."""
    out = list(results)
    for result in results:
        successors = _successors(result)
        turns = {_event(r) for r in out if r.get("fact_id") in successors} - {None}
        later = [i for i, r in enumerate(out) if r.get("fact_id") in successors or _event(r) in turns]
        if not later:
            continue
        here = out.index(result)
        place = min(later)
        if place < here:
            out.pop(here)
            out.insert(place, {**result, "score": out[place]["score"]})
    return out
