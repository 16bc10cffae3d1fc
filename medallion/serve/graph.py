"""Walks over the entity graph of current beliefs, for search's ``graph`` list and for ``follow``.

A question like "where does the author of the handbook live?" is two slot reads chained through an
entity: (handbook, author, X) then (X, lives_in, Y). Vector and full-text search find facts that
*resemble* the question; the second hop's fact ("X lives in Y") shares no word with it but the
predicate. So search fuses one more ranked list: start at the entities the question names, follow
current edges outward (at most :data:`MAX_HOPS`), score each hop by how well its predicate key
matches the question's words, and rank the facts of the best paths, the fact of a path's *last*
hop first.

Predicates are open (learned keys such as ``born_in_city`` next to the curated ones), so matching is
by the words of the key, with light stemming and acronyms ("CTO"); :data:`PREDICATE_CUES` adds the
synonyms of the curated keys that share no stem with them ("employer" for ``works_at``). A query
word explains one hop of a path, not every hop that shares it, and of two paths the one explaining
more of the question wins (:attr:`Path.score`). Where no word matches a key ("hometown" against
``grew_up_in``), the fact of the node nearest the question by the search's own vectors stands in
(:func:`walk`). No rule here names a relation or an entity of any benchmark: everything is derived
from the keys, the entity names, the stored embeddings and the query.

The ledger does not link every hop a question chains through, so the walk also goes where a value
or a name leads: a literal value that is the exact name of an entity ("drives a cargo van", and
"Cargo van" has facts of its own) leads to it, and an entity "workshop of Acme" is reached from Acme
by a name hop keyed "workshop" (:func:`hops`, :func:`part_hops`).

The walking and scoring are plain functions over :class:`Hop` tuples (unit-tested without a
database); :func:`hops`, :func:`part_hops`, :func:`named_entities` and :func:`mentions` are the only
SQL, run on the caller's connection inside its row-level-security scope (``Tools.scope``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

import psycopg

from medallion.distill import predicates as vocabulary_aliases
from medallion.distill.predicates import slot_for
from medallion.silver import entities

MAX_HOPS = 3
FOLLOW_STEPS = 8  # an explicit path names each hop's predicate, so it may go further than the search's walk
MAX_UNMATCHED = 1  # hops of a path whose predicate matches no query word (bridges such as "the author of")
BRIDGE_COST = 0.65  # a bridge costs more than half a matched hop: it must lead to words its prefix left unexplained
UNMATCHED = 0.25  # ... but never takes a path below this share of what it matched (its only route keeps a rank)
CLOSEST = 0.5  # the score of the fact nearest the question among a node's facts no query word matches
COVERAGE = 0.25  # added per query word a path's hops used: of two paths, the one explaining more of the question wins
RELATIVE_CUT = 0.5  # paths scoring under half the best path are dropped: they are the walk's noise
PATHS_PER_HOP = 200  # partial paths carried to the next hop (the best ones), bounding the walk
HOP_ROWS = 2000  # facts read per hop
MENTION_WORDS = 6  # the longest entity name looked up, in words
GENERIC = frozenset({"states"})  # the catch-all predicate names no relation: it never matches a word

# Words that point a question at a curated predicate but share no stem with its key ("Where does Bob
# live?" also matches ``lives_in`` by its words; "Who is Bob's employer?" only by these cues).
PREDICATE_CUES: dict[str, tuple[str, ...]] = {
    "lives_in": ("live", "lives", "living", "lived", "moved", "move", "home", "reside", "resides", "based"),
    "works_at": ("work", "works", "working", "worked", "employer", "company", "employed"),
    "role": ("role", "title", "position", "job"),
    "email": ("email", "e-mail", "mail"),
    "birthday": ("birthday", "born", "birth"),
    "timezone": ("timezone", "tz"),
    "prefers": ("prefer", "prefers", "like", "likes", "favorite", "favourite"),
    "dislikes": ("dislike", "dislikes", "hate", "hates", "avoid"),
    "uses": ("use", "uses", "using", "tool", "tools", "editor"),
    "owns": ("own", "owns", "owner", "responsible"),
    "member_of": ("team", "member", "group"),
    "relationship": ("manager", "reports", "boss", "sibling", "brother", "sister", "married", "partner"),
    "goal": ("goal", "goals", "achieve"),
    "plans": ("plan", "plans", "planning"),
    "attended": ("attend", "attended", "meeting"),
    "version": ("version", "release"),
    "name": ("name", "called"),
    "alias": ("nickname", "alias", "handle"),
}

# Function words: dropped from queries, and from predicate keys split on '_' ("lives_in" → "lives").
_STOP = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "been", "by", "did", "do", "does", "for", "from", "had", "has",
    "have", "he", "her", "his", "how", "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our",
    "she", "that", "the", "their", "them", "they", "this", "to", "was", "were", "what", "when", "where", "which",
    "who", "whom", "whose", "why", "will", "with", "you", "your",
))
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*", re.UNICODE)
_SUFFIXES = (("ings", ""), ("ing", ""), ("ers", ""), ("er", ""), ("ies", "y"), ("es", ""), ("ed", ""), ("s", ""),
             ("e", ""))
_POSSESSIVE = re.compile(r"['’]s?$")


class Hop(NamedTuple):
    """One fact seen from the node the walk stands on: ``target`` is the entity it leads to, or None
    when it cannot be followed (a literal value, a fact not believed, a value a person overlaid).
    A hop with no ``fact_id`` is a name hop (:func:`part_hops`): it leads on, but answers nothing."""

    source: str
    predicate: str
    target: str | None
    fact_id: str
    similarity: float | None = None  # the fact's cosine to the question, where search knows it


@dataclass(frozen=True)
class Path:
    """A walk from ``start``: its hops and each hop's match score (0 = a bridge that matched no word)."""

    start: str
    hops: tuple[Hop, ...] = ()
    scores: tuple[float, ...] = ()
    left: tuple[str, ...] | None = None  # the query words no hop has matched yet (None: all of them)
    used: tuple[str, ...] = ()  # the query words its hops matched
    stood_in: tuple[bool, ...] = ()  # per hop: taken as its node's fact nearest the question (see walk)

    def _bridge(self, i: int) -> bool:
        """Hop ``i`` explains no word: unmatched, or a stand-in that the path goes on from."""
        return self.scores[i] <= 0 or (i < len(self.hops) - 1 and i < len(self.stood_in) and self.stood_in[i])

    @property
    def unmatched(self) -> int:
        return sum(1 for i in range(len(self.scores)) if self._bridge(i))

    @property
    def score(self) -> float:
        """The matched hops' scores added (two matched hops beat one) plus :data:`COVERAGE` per query
        word used, less :data:`BRIDGE_COST` per bridge.

        Subtracted, not multiplied: "the seat of the country of the maintainer of X" reached through
        an unmatched ``resident_of`` hop explains two relations where the maintainer fact alone
        explains one, and must outrank it; a bridge to a hop that explains no more of the question
        than its prefix must not. A path whose only matched hop is weak keeps :data:`UNMATCHED` per
        bridge. A stand-in hop (see :func:`walk`) counts as matched where it ends the path, and as
        a bridge where the path goes on from it.
        """
        total = sum(s for i, s in enumerate(self.scores) if not self._bridge(i)) + COVERAGE * len(self.used)
        return max(total - BRIDGE_COST * self.unmatched, total * UNMATCHED ** self.unmatched)

    @property
    def nodes(self) -> set[str]:
        return {self.start, *(h.target for h in self.hops if h.target is not None)}

    def extend(self, hop: Hop, score: float, used: tuple[str, ...] = (), *, stand_in: bool = False) -> Path:
        """The path one hop longer; ``used`` are the query words the hop matched (spent from ``left``)."""
        left = None if self.left is None else unused(self.left, used)
        return Path(self.start, (*self.hops, hop), (*self.scores, score), left, (*self.used, *used),
                    (*self.stood_in, *[False] * (len(self.hops) - len(self.stood_in)), stand_in))


@dataclass(frozen=True)
class Mention:
    """An entity the query names: its id, canonical name and the query's token span ``[start, end)``."""

    entity_id: str
    name: str
    span: tuple[int, int]


@dataclass(frozen=True)
class Step:
    """One hop of an explicit path: the predicate as given, the key it resolves to, and whether the
    phrasing is an inverse one (the walk then goes from value to subject)."""

    given: str
    key: str
    inverse: bool = False
    keys: tuple[str, ...] = ()


# ------------------------------------------------------------------ words and scores (pure)
def stem(word: str) -> str:
    """A light stem: lower case, possessive dropped, one common suffix removed if 3+ letters remain.

    Enough to make "lives", "living" and "live" one word, or "cities" and "city"; not a real stemmer.
    """
    word = _POSSESSIVE.sub("", word.lower())
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)] + replacement
    return word


def words_match(a: str, b: str) -> bool:
    """Two words match when their stems are equal, or share a prefix of 4+ letters covering 60 % of
    the longer stem ("employer" ~ "employed", "location" ~ "located"; not "work" ~ "workshop")."""
    sa, sb = stem(a), stem(b)
    if sa == sb:
        return True
    common = 0
    for x, y in zip(sa, sb, strict=False):
        if x != y:
            break
        common += 1
    return common >= 4 and common >= 0.6 * max(len(sa), len(sb))


def predicate_words(key: str) -> list[str]:
    """The content words of a predicate key: split on '_', function words dropped."""
    return [w for w in key.lower().split("_") if w and w not in _STOP and not w.isdigit()]


def query_words(text: str, *, once: bool = True) -> list[str]:
    """The query's content words, lower case, in order, once each (or as often as they occur: a
    word asked twice, "the country of the country ...", can explain two hops of a path)."""
    words = [w for w in (_POSSESSIVE.sub("", w.lower()) for w in _WORD.findall(text or ""))
             if len(w) > 1 and w not in _STOP]
    return list(dict.fromkeys(words)) if once else words


def initials(words: Sequence[str]) -> str:
    return "".join(w[0] for w in words if w)


@lru_cache(maxsize=256)
def alias_words(predicate: str) -> frozenset[str]:
    """The words of the phrases the alias seed maps to a curated predicate ("married", "wife",
    "husband" for ``spouse``): a question asked in any of them cues the predicate."""
    phrases = [alias for alias, (key, _) in vocabulary_aliases.aliases().items() if key == predicate]
    return frozenset(w for alias in phrases if alias != predicate for w in alias.split("_")
                     if w not in _STOP and len(w) > 2)


def hop_score(predicate: str, words: Sequence[str]) -> float:
    """How well ``predicate`` matches the query's content ``words``, from 0 (no word) to 1.

    The share of the key's words that some query word matches ("born_in_city" against "which city
    was she born in" → 1.0, against "where was she born" → 0.5); a curated predicate cued by one of
    its synonyms scores 1. See :func:`hop_match`.
    """
    return hop_match(predicate, tuple(words))[0]


@lru_cache(maxsize=65536)
def hop_match(predicate: str, words: tuple[str, ...]) -> tuple[float, tuple[str, ...]]:
    """:func:`hop_score`, and the query words the match used (a path's later hops cannot use them again).

    A query word spelling the initials of consecutive key words matches them all: "CTO" is what a
    question says for ``chief_technology_officer``. Initials need 2+ letters and as many key words,
    so no single word is read as an acronym.
    """
    if predicate in GENERIC or not words:
        return 0.0, ()
    cued = [w for w in words if w in PREDICATE_CUES.get(predicate, ()) or w in alias_words(predicate)]
    if cued:
        return 1.0, (cued[0],)
    keyed = predicate_words(predicate)
    if not keyed:
        return 0.0, ()
    matched: set[int] = set()
    used: list[str] = []
    for w in words:
        hit = {i for i, k in enumerate(keyed) if i not in matched and words_match(k, w)}
        if not hit and len(w) >= 2:
            for i in range(len(keyed) - len(w) + 1):
                if initials(keyed[i:i + len(w)]) == w.lower() and not matched & set(range(i, i + len(w))):
                    hit = set(range(i, i + len(w)))
                    break
        if hit:
            matched |= hit
            used.append(w)
    return len(matched) / len(keyed), tuple(used)


def unused(words: tuple[str, ...], used: Iterable[str]) -> tuple[str, ...]:
    """``words`` without one occurrence of each word in ``used``."""
    rest = list(words)
    for w in used:
        rest.remove(w)
    return tuple(rest)


# ------------------------------------------------------------------ walking (pure)
Fetch = Callable[[list[str]], Sequence[Hop]]


def walk(starts: Iterable[str], words: Sequence[str], fetch: Fetch, *, max_hops: int = MAX_HOPS,
         max_unmatched: int = MAX_UNMATCHED) -> list[Path]:
    """The paths from ``starts`` whose last hop matches the query, best first.

    ``fetch(nodes)`` returns the hops leaving those nodes. A path is extended through followable
    hops only, never back to a node it visited; it may take ``max_unmatched`` bridges (hops whose
    predicate matches no word), which is what lets "where does the writer of X live" reach the
    writer's home when only "live" matches. A path that ends on a bridge is no answer: its prefix
    says the same with a better score.

    Each hop is scored by the words the path's earlier hops left unmatched: in "which town did Ines
    move to", a ``moved_to_town`` hop that used "town" leaves nothing for a ``twin_town`` hop after
    it, so a path cannot pile up score by restating one word of the question (``words`` may repeat
    a word the query repeats).

    A question often names a relation in words its key does not share ("hometown" for
    ``grew_up_in``, "residence" for ``lives_in``). So at each node, while some query word is still
    unexplained, of the hops no remaining word matches the one whose fact lies nearest the question
    (:attr:`Hop.similarity`, the search's own vectors) stands in, scored :data:`CLOSEST`: the vector
    lists rank that fact among the whole namespace, where a thousand facts of the same kind outrank
    it; here it competes only with the facts of the entity the chain reached. A stand-in the path
    goes on from is a bridge (it explained nothing to go on from), and a path needs one hop a word
    matched, so stand-ins neither pile up score nor make paths of their own. Without similarities
    (``follow``) nothing stands in.
    """
    words = tuple(words)
    level = [Path(s, left=words) for s in dict.fromkeys(starts)]
    found: list[Path] = []
    for depth in range(max_hops):
        if not level:
            break
        by_source: dict[str, list[Hop]] = {}
        for hop in fetch(list(dict.fromkeys(p.hops[-1].target if p.hops else p.start for p in level))):
            by_source.setdefault(hop.source, []).append(hop)
        following: list[Path] = []
        for path in level:
            here = path.hops[-1].target if path.hops else path.start
            visited = path.nodes
            left = words if path.left is None else path.left
            leaving = by_source.get(here or "", [])
            matches = [hop_match(hop.predicate, left) for hop in leaving]
            closest = max((i for i, (s, _) in enumerate(matches) if s <= 0 and leaving[i].fact_id
                           and leaving[i].similarity is not None), key=lambda i: leaving[i].similarity or 0.0,
                          default=None) if left else None
            for i, (hop, (score, used)) in enumerate(zip(leaving, matches, strict=True)):
                if i == closest:
                    score = CLOSEST
                longer = path.extend(hop, score, used, stand_in=i == closest)
                if longer.unmatched > max_unmatched:
                    continue
                if score > 0 and hop.fact_id and longer.used:
                    found.append(longer)
                if hop.target is not None and hop.target not in visited and depth + 1 < max_hops:
                    following.append(longer)
        following.sort(key=lambda p: -p.score)  # stable: the fetch order breaks ties
        level = following[:PATHS_PER_HOP]
    found.sort(key=lambda p: (-p.score, len(p.hops)))
    return found


def ranked_facts(paths: Sequence[Path], *, cut: float = RELATIVE_CUT) -> list[str]:
    """The fact ids of ``paths`` (best first) as one ranked list: each path's last hop first, then
    its earlier hops, so "the spouse of the author of X" brings up the spouse fact, then the
    author fact that explains it. Paths under ``cut`` times the best score are left out."""
    if not paths:
        return []
    best = max(p.score for p in paths)
    ranked: dict[str, None] = {}
    for path in paths:
        if path.score >= best * cut:
            ranked.update(dict.fromkeys(h.fact_id for h in reversed(path.hops) if h.fact_id))
    return list(ranked)


def follow(starts: Iterable[str], steps: Sequence[Step], fetch: Callable[[list[str], Step], Sequence[Hop]],
           ) -> list[list[Hop]]:
    """The hops of an explicit path, step by step: the facts of each step leaving the nodes the
    previous step reached. A step that reaches nothing leaves the later steps empty."""
    nodes = list(dict.fromkeys(starts))
    seen: list[list[Hop]] = []
    for step in steps:
        found = list(fetch(nodes, step)) if nodes else []
        seen.append(found)
        nodes = list(dict.fromkeys(h.target for h in found if h.target is not None))
    return seen


def steps(predicates: Sequence[str]) -> list[Step]:
    """The steps of an explicit path, each predicate resolved the way the distiller resolves a relation
    phrase ("works for" → ``works_at``; "employs" → ``works_at`` walked backwards).

    Raises ValueError (one sentence) for an empty path, a path over :data:`FOLLOW_STEPS` hops, or a
    predicate with no word in it.
    """
    if not predicates:
        raise ValueError("follow needs at least one predicate, e.g. works_at")
    if len(predicates) > FOLLOW_STEPS:
        raise ValueError(f"follow takes at most {FOLLOW_STEPS} predicates")
    out = []
    for given in predicates:
        slot = slot_for(given) if isinstance(given, str) else None
        if slot is None:
            raise ValueError(f"the predicate {given!r} has no word in it; give a key such as works_at")
        literal = given.strip().lower().replace(" ", "_")
        keys = (slot.key,) if slot.inverse or literal == slot.key else (slot.key, literal)
        out.append(Step(given, slot.key, slot.inverse, keys))
    return out


# ------------------------------------------------------------------ mentions (pure, then SQL)
def mention_keys(query: str) -> dict[str, tuple[int, int]]:
    """Every word n-gram of the query (up to :data:`MENTION_WORDS` words) as an entity lookup key
    (normalised like entity names; "Carol's" also as "carol"), with its token span, first one kept."""
    return dict(_mention_keys(query))


@lru_cache(maxsize=8)
def _mention_keys(query: str) -> tuple[tuple[str, tuple[int, int]], ...]:
    """:func:`mention_keys`, kept for the last few queries: a search asks twice (its plan, then its
    graph list), and normalising every n-gram of a question takes about a quarter of a millisecond."""
    tokens = query.split()
    keys: dict[str, tuple[int, int]] = {}
    for i in range(len(tokens)):
        for j in range(i + 1, min(len(tokens), i + MENTION_WORDS) + 1):
            text = " ".join(tokens[i:j])
            for variant in (text, _POSSESSIVE.sub("", entities.normalize(text))):
                key = entities.normalize(variant)
                if len(key) > 1:
                    keys.setdefault(key, (i, j))
    return tuple(keys.items())


def pick_mentions(found: Iterable[Mention]) -> list[Mention]:
    """The mentions to walk from: longest first; a mention overlapping a longer one is part of that
    name ("Acme" inside "Acme Corp"), unless both name the very same words (two entities, one name)."""
    chosen: list[Mention] = []
    for m in sorted(found, key=lambda m: (-(m.span[1] - m.span[0]), -len(m.name), m.span, m.entity_id)):
        if all(m.span == c.span or m.span[1] <= c.span[0] or c.span[1] <= m.span[0] for c in chosen):
            chosen.append(m)
    return chosen


def names_first(query: str, found: Sequence[Mention]) -> list[Mention]:
    """The mentions written as names (a capital letter or a digit in the query's words), when there
    are any; else all of them.

    Entities come from text, so common nouns are entities too ("music", "the company"). In "what
    genre of music does Ann Lee play", walking from "music" adds paths that answer nothing, and
    taking "music" out of the predicate words hides a word of the question; a question typed in
    lower case, with no name written as one, keeps every mention.
    """
    tokens = query.split()
    named = [m for m in found if any(c.isupper() or c.isdigit() for t in tokens[m.span[0]:m.span[1]] for c in t)]
    return named or list(found)


def words_outside(query: str, spans: Iterable[tuple[int, int]], *, once: bool = True) -> list[str]:
    """The query's content words, except those inside an entity mention (a name is no predicate cue)."""
    taken = {i for start, end in spans for i in range(start, end)}
    return query_words(" ".join(t for i, t in enumerate(query.split()) if i not in taken), once=once)


def mentions(conn: psycopg.Connection, namespace: str, query: str) -> list[Mention]:
    """The entities ``query`` names, by canonical name or alias, as whole words, longest first.

    Looked up by exact normalised key (index-served), not by substring: "Iran" is not found in
    "Tigran", nor "Al" in "Also".
    """
    keys = mention_keys(query)
    if not keys:
        return []
    # a UNION, not an OR: each half keeps its index (namespace + name; the aliases' GIN, which only
    # silver.entities_aliased reaches under the tool login's row-level security)
    rows = conn.execute(
        "SELECT entity_id, canonical_name, normalized_name, aliases FROM silver.entities "
        "WHERE namespace = %(ns)s AND normalized_name = ANY(%(keys)s) UNION "
        "SELECT entity_id, canonical_name, normalized_name, aliases FROM silver.entities_aliased(%(ns)s, %(aliases)s)",
        {"ns": namespace, "keys": list(keys), "aliases": [k for k in keys if len(k) > 2]}).fetchall()
    return mentions_in(rows, keys)


def mentions_in(rows: Iterable[tuple[str, str, str, Sequence[str]]], keys: dict[str, tuple[int, int]]) -> list[Mention]:
    """The mentions of the entity rows (entity_id, canonical name, normalised name, aliases) found by
    ``keys`` (:func:`mention_keys`), picked by :func:`pick_mentions`."""
    found = []
    for entity_id, name, normalized, aliases in rows:
        spans = [keys[k] for k in (normalized, *[a for a in aliases if len(a) > 2]) if k in keys]
        if spans:
            found.append(Mention(entity_id, name, max(spans, key=lambda s: (s[1] - s[0], -s[0]))))
    return pick_mentions(found)


# ------------------------------------------------------------------ hops (SQL)
# A hop can be followed when it is believed (now, or at the as-of time) and no person's edit or
# redaction touches its value: the ledger's link must not reveal what a person masked. It leads along
# its edge, or (no edge) to the entity its literal value names, see :func:`hops`.
FOLLOWABLE = ("({believed}) AND NOT EXISTS (SELECT 1 FROM silver.overlays o "
              "WHERE o.fact_id = f.fact_id AND o.status IN ('anchored', 'reanchored') AND o.action <> 'annotate'"
              "{touches})")


def hops(conn: psycopg.Connection, *, source: str, where: str, params: dict[str, Any], nodes: list[str],
         believed: str, step: Step | None = None, limit: int = HOP_ROWS) -> list[Hop]:
    """The facts leaving ``nodes`` in ``source`` that satisfy ``where`` (the caller's filters, alias
    ``f``), as hops: believed ones first, then by authority and recency.

    With ``step``, only that predicate, walked backwards (from value to subject) for an inverse step.
    With the query's vector in ``params["q"]`` (search), each hop carries its fact's cosine to it.
    A followable fact without an edge leads to the entity its value names, when the namespace
    (``params["ns"]``) has one by that exact normalised name: the distiller may keep "drives a cargo
    van" as text while "Cargo van" is the subject of facts of its own, and a chain through it would
    otherwise stop one hop short.
    """
    inverse = step is not None and step.inverse
    near = "1 - (f.embedding <=> %(q)s::vector)" if params.get("q") is not None else "NULL::float8"
    if inverse:
        followable = FOLLOWABLE.format(believed=believed, touches="")
        sql = (f"SELECT g.object_id, f.predicate, CASE WHEN {followable} THEN f.subject_id END, f.fact_id, "
               f"NULL, {near} FROM {source} f JOIN silver.edges g ON g.fact_id = f.fact_id "
               f"WHERE {where} AND g.object_id = ANY(%(hop_nodes)s)")
    else:
        followable = FOLLOWABLE.format(believed=believed, touches=" AND position(o.exact in f.value_text) > 0")
        sql = (f"SELECT f.subject_id, f.predicate, CASE WHEN g.object_id IS NOT NULL AND {followable} "
               f"THEN g.object_id END, f.fact_id, CASE WHEN g.object_id IS NULL AND {followable} "
               f"THEN f.value_text END, {near} FROM {source} f LEFT JOIN silver.edges g ON g.fact_id = f.fact_id "
               f"WHERE {where} AND f.subject_id = ANY(%(hop_nodes)s)")
    if step is not None:
        sql += " AND f.predicate = ANY(%(hop_keys)s)"
    first = "" if believed == "TRUE" else f"({believed}) DESC, "  # a constant cannot be an ORDER BY key
    sql += f" ORDER BY {first}f.authority, f.valid_from DESC, f.fact_id LIMIT {int(limit)}"
    rows = conn.execute(sql, {**params, "hop_nodes": nodes, "hop_keys": list(step.keys) if step else None}).fetchall()
    named = named_entities(conn, params.get("ns"), [r[4] for r in rows if r[4]])
    return [Hop(src, pred, target if target is not None else named.get(entities.normalize(text or "")), fid, near)
            for src, pred, target, fid, text, near in rows]


def part_hops(conn: psycopg.Connection, namespace: str, nodes: list[str]) -> list[Hop]:
    """Name hops from ``nodes`` to the entities named "<part> of <node's name>", keyed by the part.

    The distiller keeps "The workshop of Acme is located in Lisbon." as a fact about an entity
    "workshop of Acme", which no edge links to Acme: "where is the workshop of the company Alice
    works at" would stop at Acme. The hop's predicate is the part's words ("workshop"),
    scored against the question like any key, so a part the question does not name is a bridge.
    """
    rows = conn.execute(
        "SELECT n.entity_id, a.entity_id, left(a.normalized_name, length(a.normalized_name) - length(n.normalized_name)"
        " - 4) FROM silver.entities n JOIN silver.entities_named_parts(%s) a "
        "ON right(a.normalized_name, length(n.normalized_name) + 4) = ' of ' || n.normalized_name "
        "WHERE n.namespace = %s AND n.entity_id = ANY(%s) ORDER BY a.entity_id",
        (namespace, namespace, nodes)).fetchall()
    return [Hop(node, "_".join(query_words(part, once=False)), part_id, "") for node, part_id, part in rows
            if query_words(part)]


def named_entities(conn: psycopg.Connection, namespace: str | None, values: Sequence[str]) -> dict[str, str]:
    """Normalised literal value → the entity of the namespace with exactly that normalised name."""
    keys = list(dict.fromkeys(k for k in map(entities.normalize, values) if len(k) > 1))
    if not keys or namespace is None:
        return {}
    return dict(conn.execute("SELECT normalized_name, entity_id FROM silver.entities "
                             "WHERE namespace = %s AND normalized_name = ANY(%s)", (namespace, keys)).fetchall())


def follow_in(conn: psycopg.Connection, namespace: str, starts: list[str], path: Sequence[Step],
              when: datetime | None) -> list[list[Hop]]:
    """The hops of an explicit path over the namespace's current facts, or those believed at ``when``."""
    source, believed = "silver.facts", "f.valid_to IS NULL"
    if when is not None:
        source, believed = "silver.facts_as_of(%(ns)s, %(when)s, %(when)s)", "TRUE"
    return follow(starts, path, lambda nodes, step: hops(
        conn, source=source, where=f"f.namespace = %(ns)s AND {believed}", params={"ns": namespace, "when": when},
        nodes=nodes, believed=believed, step=step))


def list_weight(paths: Sequence[Path]) -> float:
    """The fusion weight of the graph list: the matched hops of its best path (1 for a slot question).

    A path that chains two of the question's relations explains twice as much of it as one slot;
    it is also the only list that can know the answer, whose words the question does not share.
    """
    return float(max(1, max((len(p.hops) for p in paths[:1]), default=1)))


def search_list(conn: psycopg.Connection, namespace: str, query: str, *, source: str, where: str,
                params: dict[str, Any], believed: str, limit: int) -> tuple[list[str], float]:
    """Search's ``graph`` list and its fusion weight: the facts of the best paths from the entities
    the query names (see :func:`walk`, :func:`ranked_facts`, :func:`list_weight`).

    Also the single-hop case: an entity named and a predicate matching the question (its words, or
    a curated cue) → that slot's facts, current ones first.
    """
    named = names_first(query, mentions(conn, namespace, query))
    words = words_outside(query, (m.span for m in named), once=False)
    if not named or not words:
        return [], 1.0
    paths = walk([m.entity_id for m in named], words, lambda nodes: [*hops(
        conn, source=source, where=where, params=params, nodes=nodes, believed=believed),
        *part_hops(conn, namespace, nodes)])
    return ranked_facts(paths)[:limit], list_weight(paths)
