"""Withholding on request: what a speaker's forget request withholds, and the erasure it files.

After each derivation the forget requests of a namespace (:mod:`medallion.silver.forget_requests`)
are matched against the namespace's earlier facts and chunks, and ``silver.withheld`` is written
again from scratch for that namespace, so a full rebuild and any sequence of incremental runs give
the same rows. The tool login never reads a withheld row (migration 0028's row-level security), so
search, recall, list, the graph and the wiki never return it at once, long before an erasure is
approved.

Matching is by meaning, and by shape for the three kinds of datum a value's shape names
(:mod:`medallion.silver.value_shapes`: an email address, a phone number, a street address): a request
for one of them that no turn names in words ("forget my home address" after "I'm at 22 Halloran Row")
takes the speaker's turns holding a value of that shape, and never a turn whose only such value is of
another kind ("my email address is …" holds "address"). The speaker's own facts (said by them, or
about them) are scored by the cosine of the request's target phrase against each fact's statement
and against its *frame*, the statement with its value taken out and the speaker's name made first
person ("Dana's social security number is 078-05-1120." → "my social security number is"): the
frame says what kind of thing the value is, which is what a request names. The best fact, and every
fact within :data:`MARGIN` of it above :data:`FLOOR`, is withheld, and so is a fact that holds every
content word of the target. What the request's turn asks to keep ("where i live is fine", "email
only": :func:`forget_requests.kept`) guards what it names: an item nearer a kept phrase than the target
is not matched by meaning. The chunks that carry a withheld fact (its sentence, the passage around
it, and any earlier turn of the speaker or of the assistant that repeats its value) go with it.

Each request also files one erasure request per Bronze event it matched
(``bronze.file_forget_erasure``, idempotent on the request), pending the existing two-person
approval. A request about someone else's data files the erasure requests and withholds nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg

from medallion.silver import entities, value_shapes
from medallion.silver.embed import vector_of
from medallion.silver.forget_requests import ForgetRequest, detect, kept
from medallion.silver.slot_meaning import speaker_of

FLOOR = 0.35  # the least cosine a fact's statement or frame must reach to match a target phrase
LOW_FLOOR = 0.20  # ... or, for the one clearly nearest event, this much
LEAD = 0.08  # how far the nearest event must lead every other one to be matched below FLOOR
MARGIN = 0.08  # facts this close to the best match are matched too (several versions of one slot)
MIN_VALUE = 4  # a value shorter than this is too common to find in other turns' text
_WORD = re.compile(r"[\w'’-]+", re.UNICODE)
_STOP = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "i", "in", "is", "it", "its",
    "me", "my", "of", "on", "or", "our", "that", "the", "their", "this", "to", "was", "were", "with", "you",
    "your", "what", "which", "who", "about", "all", "any", "gave", "told", "said", "mentioned", "shared",
))
_GENERIC = frozenset(("details", "detail", "info", "information", "stuff", "thing", "things", "data", "earlier",
                      "mentioned", "before"))
# Events whose text could hold a request: the verbs of forgetting, as a cheap filter in the database.
_MAY_ASK = (r"\m(forget|unlearn|remember|delet|eras|remov|wipe|purg|scrub|scratch|scrap|drop|clear|discard|keep|"
            r"store|storing|retain|sav|record|track|rid\M|throw|take|withdr|revok)")

Embed = Callable[[list[str]], Sequence[np.ndarray]]


@dataclass
class _Fact:
    fact_id: str
    statement: str
    value: str
    chunk_id: str | None
    event_id: int
    subject: str
    actor: str | None


@dataclass
class _Chunk:
    chunk_id: str
    event_id: int
    text: str
    actor: str | None
    vector: np.ndarray | None = None


def rebuild(conn: psycopg.Connection, embed: Embed, fingerprint: str, namespace: str) -> int:
    """Withhold again what the namespace's forget requests ask for, and file their erasure requests
    (once each); returns how many items are withheld. Runs in the caller's transaction."""
    conn.execute("DELETE FROM silver.withheld WHERE namespace = %s", (namespace,))
    asked = [(row, found) for row in conn.execute(
        "SELECT event_id, actor, content, received_at FROM bronze.events WHERE namespace = %s "
        "AND kind IN ('transcript', 'note', 'issue') AND actor IS NOT NULL AND content ~* %s "
        "ORDER BY received_at, event_id", (namespace, _MAY_ASK)).fetchall()
        if (found := detect(row[2])) is not None]
    keeps = {row[0]: kept(row[2]) for row, _ in asked}
    withheld = 0
    for (event_id, actor, _, received_at), request in asked:
        facts, chunks = _earlier(conn, namespace, event_id)
        picked_facts, picked_chunks = _match(conn, request, actor, facts, chunks, embed,
                                             {e for (e, *_), _ in asked}, keeps[event_id])
        filed = conn.execute("SELECT event_id, status FROM bronze.erasure_requests WHERE forget_event_id = %s",
                             (event_id,)).fetchall()
        carried_out = any(status == "executed" for _, status in filed)
        if carried_out:
            # Carried out: what it named is gone, and the closest of what is left is not what was
            # asked for. Only events its other requests still cover stay withheld; nothing new is filed.
            open_events = {e for e, status in filed if status != "executed"}
            picked_facts = [f for f in picked_facts if f.event_id in open_events]
            picked_chunks = [c for c in picked_chunks if c.event_id in open_events]
        if request.own:
            rows = [(f.fact_id, "fact") for f in picked_facts] + [(c.chunk_id, "chunk") for c in picked_chunks]
            reason = (f"withheld at the request of {actor}, who asked the memory to forget it "
                      f"(forget request in event {event_id})")
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO silver.withheld (item_id, item_kind, namespace, bronze_event_id, requested_by, "
                    "reason, recorded_at, fingerprint) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                    "ON CONFLICT DO NOTHING",
                    [(item, kind, namespace, event_id, actor, reason, received_at, fingerprint)
                     for item, kind in sorted(rows)])
            withheld += len(rows)
        for target in [] if carried_out else sorted({f.event_id for f in picked_facts} |
                                                    {c.event_id for c in picked_chunks}):
            conn.execute("SELECT bronze.file_forget_erasure(%s, %s, %s)", (event_id, target, request.own))
    return withheld


def _earlier(conn: psycopg.Connection, namespace: str, event_id: int) -> tuple[list[_Fact], list[_Chunk]]:
    """The namespace's facts and chunks from events received before the request, in received order."""
    before = ("JOIN bronze.events ev ON ev.event_id = {t}.bronze_event_id "
              "JOIN bronze.events rq ON rq.event_id = %(req)s "
              "WHERE {t}.namespace = %(ns)s AND (ev.received_at, ev.event_id) < (rq.received_at, rq.event_id)")
    facts = [_Fact(*r) for r in conn.execute(
        "SELECT f.fact_id, f.statement, f.value_text, f.chunk_id, f.bronze_event_id, e.canonical_name, ev.actor "
        "FROM silver.facts f JOIN silver.entities e ON e.entity_id = f.subject_id "
        + before.format(t="f") + " ORDER BY ev.received_at, ev.event_id, f.fact_id",
        {"ns": namespace, "req": event_id}).fetchall()]
    chunks = [_Chunk(*r[:4], vector_of(r[4])) for r in conn.execute(
        "SELECT c.chunk_id, c.bronze_event_id, c.text, ev.actor, c.embedding FROM silver.chunks c "
        + before.format(t="c") + " ORDER BY ev.received_at, ev.event_id, c.char_start, c.chunk_id",
        {"ns": namespace, "req": event_id}).fetchall()]
    return facts, chunks


def _match(conn: psycopg.Connection, request: ForgetRequest, actor: str, facts: list[_Fact], chunks: list[_Chunk],
           embed: Embed, requests: set[int], keep: Sequence[str] = ()) -> tuple[list[_Fact], list[_Chunk]]:
    """The facts and chunks one request names; what its turn asks to keep (``keep``: "where i live is
    fine") is not matched by meaning when it is nearer what is kept than what is forgotten."""
    speaker = speaker_of(actor)
    me = entities.normalize(speaker) if speaker else None
    if request.mode == "previous":
        turns = [c.event_id for c in chunks if c.actor == actor and c.event_id not in requests]  # received order
        last = turns[-1] if turns else None
        return [f for f in facts if f.event_id == last], [c for c in chunks if c.event_id == last]
    if request.relayed:  # told on someone's behalf: theirs are the facts about them in this writer's records
        who = entities.normalize(request.about_whom) if request.about_whom else None
        named = set(who.split()) if who else set()
        pool = [f for f in facts if (entities.normalize(f.subject) == who or named <= _words(f.statement))
                and (f.actor == actor or who)] if who else [f for f in facts if f.actor == actor]
        voiced = [c for c in chunks if c.actor == actor and (not named or named <= _words(c.text))]
    elif request.own:
        pool = [f for f in facts if f.actor == actor or entities.normalize(f.subject) == me]
        voiced = [c for c in chunks if c.actor == actor]
    else:
        who = entities.normalize(request.about_whom) if request.about_whom else None
        if who:  # the person the request names: facts about them, or that name them
            named = set(who.split())
            pool = [f for f in facts if entities.normalize(f.subject) == who or named <= _words(f.statement)]
            voiced = [c for c in chunks if named <= _words(c.text)]
        else:  # "her phone number": someone's other than the speaker
            pool = [f for f in facts if entities.normalize(f.subject) != me]
            voiced = []
    if request.mode == "everything" and request.target is None:
        return pool, voiced
    target = spelled_target(request.target or "")
    keys = _keys(target)
    exact = {f.fact_id for f in pool if keys and _holds(keys, f.statement)}
    exact_chunks = {c.chunk_id for c in voiced if keys and _holds(keys, c.text)}
    kind = value_shapes.kind_named(target)
    if kind is not None:  # "my home address": the turns holding a street, whatever words they use
        held = {f.fact_id: value_shapes.kinds_in(f.statement) for f in pool}
        held.update((c.chunk_id, value_shapes.kinds_in(c.text)) for c in voiced)
        shaped = {f.fact_id for f in pool if kind in held[f.fact_id]}
        shaped_chunks = {c.chunk_id for c in voiced if kind in held[c.chunk_id]}
        other = {key for key, kinds in held.items() if kinds and kind not in kinds}
        exact -= other  # "email address" holds "address" but is not the home address
        exact_chunks -= other
        pool = [f for f in pool if f.fact_id not in other]
        voiced = [c for c in voiced if c.chunk_id not in other]
        if not (exact or exact_chunks):  # no turn names it in words ("my home address is …"): its shape does
            exact, exact_chunks = shaped, shaped_chunks
    if len(keys) >= 2 and (exact or exact_chunks) and request.mode == "phrase":
        # named in full ("my home address"): what holds every word is it, a near one ("work address") is not
        picked, by_meaning = set(), set()
    else:
        picked, by_meaning = _by_meaning(target, pool, voiced, request.about_whom if request.relayed else speaker,
                                         embed, keep)
    picked |= exact
    said = [c for c in voiced if c.chunk_id in by_meaning or c.chunk_id in exact_chunks]
    if request.mode == "everything":
        names = {w.casefold() for w in _WORD.findall(target) if w[:1].isupper()} or keys
        picked |= {f.fact_id for f in pool if names & _words(f.statement)}
        said += [c for c in voiced if names & _words(c.text)]
    chosen = [f for f in pool if f.fact_id in picked]
    if not request.own:
        return chosen, said
    return chosen, _carrying(conn, chosen, said, chunks, actor)


def _by_meaning(target: str, pool: list[_Fact], voiced: list[_Chunk], speaker: str | None,
                embed: Embed, keep: Sequence[str] = ()) -> tuple[set[str], set[str]]:
    """The fact ids and chunk ids closest to ``target`` (see the module's docstring).

    Facts are scored by their statement and frame, the speaker's own chunks by their stored
    embedding; each event by its best item. Matched: every item of the events at :data:`FLOOR` or
    above and within :data:`MARGIN` of the best; and, when none reaches the floor, the best event
    alone when it reaches :data:`LOW_FLOOR` and leads every other event by :data:`LEAD` (a short
    target such as "my diagnosis" is far from any sentence in absolute terms, yet the sentence that
    gave the diagnosis is still the nearest by a margin). An item nearer one of the ``keep`` phrases
    than the target is what the speaker asked to keep, and is not scored."""
    if not target or not (pool or voiced):
        return set(), set()
    frames = [_frame(f, speaker) for f in pool]
    vectors = embed([target] + [f.statement for f in pool] + frames + list(keep))
    wanted = np.asarray(vectors[0])
    n = len(pool)
    keeping = [np.asarray(v) for v in vectors[1 + 2 * n:]]

    def nearest(*items: Any) -> tuple[float, float]:  # (to the target, to the nearest kept phrase)
        return (max(float(np.dot(wanted, v)) for v in items),
                max((float(np.dot(k, v)) for k in keeping for v in items), default=-1.0))

    near = [(nearest(vectors[1 + i], vectors[1 + n + i]), f.event_id, "fact", f.fact_id) for i, f in enumerate(pool)]
    near += [(nearest(c.vector), c.event_id, "chunk", c.chunk_id) for c in voiced if c.vector is not None]
    scored = [(score, event, kind, key) for (score, kept_score), event, kind, key in near if score >= kept_score]
    by_event: dict[int, float] = {}
    for score, event, _, _ in scored:
        by_event[event] = max(by_event.get(event, -1.0), score)
    ranked = sorted(by_event.values(), reverse=True)
    if not ranked:
        return set(), set()
    best = ranked[0]
    if best >= FLOOR:
        floor = max(FLOOR, best - MARGIN)
    elif best >= LOW_FLOOR and (len(ranked) == 1 or best - ranked[1] >= LEAD):
        floor = best - MARGIN
    else:
        return set(), set()
    events = {e for e, v in by_event.items() if v >= floor}
    kept = [(kind, key) for score, event, kind, key in scored if event in events and score >= min(floor, LOW_FLOOR)]
    return {k for kind, k in kept if kind == "fact"}, {k for kind, k in kept if kind == "chunk"}


def _holds(keys: set[str], text: str) -> bool:
    """Whether every key word is in ``text``, a word counting when the text has it or a word of the same
    stem ("diagnosis" / "diagnosed": the first five letters and most of the shorter word)."""
    words = _words(text)
    return all(k in words or any(_same_stem(k, w) for w in words) for k in keys)


def _same_stem(a: str, b: str) -> bool:
    shared = len(os.path.commonprefix([a, b]))
    return shared >= 5 and shared >= 0.7 * min(len(a), len(b))


def _frame(fact: _Fact, speaker: str | None) -> str:
    """The statement without its value, the speaker in the first person: what kind of thing it says."""
    text = fact.statement.replace(fact.value, " ") if len(fact.value) >= 2 else fact.statement
    if speaker:
        text = re.sub(rf"\b{re.escape(speaker)}(?:'s|’s)", "my", text)
        text = re.sub(rf"\b{re.escape(speaker)}\b", "I", text)
    return re.sub(r"\s+", " ", text).strip(" .,")


def _carrying(conn: psycopg.Connection, facts: list[_Fact], said: list[_Chunk], chunks: list[_Chunk],
              actor: str) -> list[_Chunk]:
    """The chunks that carry the withheld facts: each fact's own chunk, the chunks that state it in
    other words, every earlier turn of the speaker or of a non-person (an assistant's echo) that
    repeats a withheld value, and every chunk of the same event overlapping one of those."""
    own = {f.chunk_id for f in facts if f.chunk_id}
    values = {f.value.casefold() for f in facts if len(f.value) >= MIN_VALUE}
    speaker = speaker_of(actor)
    if speaker:
        values.discard(speaker.casefold())
    ids = own | {c.chunk_id for c in said}
    ids |= {c.chunk_id for c in chunks if (c.actor == actor or speaker_of(c.actor) is None)
            and any(v in c.text.casefold() for v in values)}
    ids |= {f"event:{f.event_id}" for f in facts if not f.chunk_id}
    if not ids:
        return []
    around = {r[0] for r in conn.execute(
        "SELECT DISTINCT o.chunk_id FROM silver.chunks c JOIN silver.chunks o ON o.bronze_event_id = c.bronze_event_id "
        "AND o.char_start < c.char_end AND c.char_start < o.char_end WHERE c.chunk_id = ANY(%(ids)s) "
        "UNION SELECT o.chunk_id FROM silver.chunks o WHERE 'event:' || o.bronze_event_id = ANY(%(ids)s)",
        {"ids": sorted(ids)}).fetchall()}
    return [c for c in chunks if c.chunk_id in around]


def _keys(text: str) -> set[str]:
    return {w for w in _words(text) if w not in _STOP and w not in _GENERIC and len(w) > 2}



def _words(text: str) -> set[str]:
    """The text's words in lower case, a possessive's "'s" left off ("Ashgrove's" is "ashgrove")."""
    return {_POSSESSIVE_S.sub("", w.casefold()).strip("'’-") for w in _WORD.findall(text or "")}


_POSSESSIVE_S = re.compile(r"['’]s$")
# Abbreviations of personal data a request may use where the record spells it out ("invoked erasure for
# his DOB" of "gave his date of birth as …"): the embedding does not know them.
_ABBREVIATIONS = {"dob": "date of birth", "d.o.b": "date of birth", "ssn": "social security number",
                  "tel": "telephone number", "addr": "address", "bday": "birthday", "b-day": "birthday",
                  "pw": "password", "pwd": "password", "acct": "account"}
_ABBREVIATION = re.compile(r"(?<![\w.])(" + "|".join(re.escape(k) for k in _ABBREVIATIONS) + r")\.?(?![\w])",
                           re.IGNORECASE)


def spelled_target(target: str) -> str:
    """``target`` with the abbreviations of personal data written out."""
    return _ABBREVIATION.sub(lambda m: _ABBREVIATIONS[m.group(1).casefold()], target)


def withheld_fact(conn: psycopg.Connection, given: str) -> dict[str, Any] | None:
    """Whether the fact ``given`` (its id or a prefix of 6+ characters) is withheld in a namespace the
    connection can read: its id, namespace, who asked and when, and why; None when it is not."""
    key = given.strip().lower()
    if len(key) < 6:
        return None
    row = conn.execute(
        "SELECT item_id, namespace, requested_by, bronze_event_id, recorded_at, reason FROM silver.withheld "
        "WHERE item_kind = 'fact' AND item_id >= %(p)s AND item_id < %(p)s || 'g' AND left(item_id, %(n)s) = %(p)s "
        "ORDER BY item_id, bronze_event_id LIMIT 1", {"p": key, "n": len(key)}).fetchone()
    if row is None:
        return None
    return {"fact_id": row[0], "namespace": row[1], "withheld": True, "requested_by": row[2],
            "forget_event_id": row[3], "withheld_since": row[4].isoformat() if row[4] else None,
            "statement": f"This fact is withheld: {row[5]}.", "reason": row[5]}
