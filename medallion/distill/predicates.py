"""Open predicate vocabulary: curated names, their aliases, and learned keys from relation phrases.

Every assertion gets a slot (subject, predicate). A relation phrase ("is based in", "reports to",
"The author of") is first normalised to a key (``based_in``, ``reports_to``, ``author``); the key is
then looked up in the alias seed (``medallion/distill/seeds/predicate_aliases.csv``): a listed alias maps
to its curated predicate, and an *inverse* alias ("X manages Y") swaps subject and value so both
phrasings land in one slot (Y ``reports_to`` X). Any other key is a **learned** predicate.

A learned predicate's cardinality follows one general rule (STANDARDS.md, "Learned predicates"):
it is single-valued (``one``) when the phrase names *the* value of an attribute: a relational noun
("the author of X is Y", "X's capital is Y"), a state copula with an adjective or participle and a
preposition ("is famous for", "was born in", "is married to"), or a verb with a definite classifier
("plays the position of", "speaks the language of"). Actions and events accumulate (``many``):
"went to", "bought", "likes". The curated seed (predicates.csv) always wins over the rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from medallion.distill.vocabulary import Predicate, predicates, seed_bytes, seed_rows

KEY_MAX = 48
_KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")
# Words a relation phrase carries that do not change its meaning (auxiliaries, articles, adverbs).
_DROP = frozenset({
    "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "do", "does", "did",
    "the", "a", "an", "now", "currently", "still", "also", "just", "recently", "really", "actually",
    "officially", "already", "new", "current", "present", "will", "would", "shall", "should", "can",
    "could", "may", "might", "must", "not", "never", "always", "usually", "finally",
})


# One spelling per word, so "favorite" and "favourite" name one slot.
_SPELLING = {"favorite": "favourite", "color": "colour", "center": "centre", "organization": "organisation"}


@dataclass(frozen=True)
class Slot:
    """What a relation phrase resolves to: the predicate key, whether subject and value swap
    (an inverse phrasing), and where the key came from (``curated`` or ``learned``)."""

    key: str
    inverse: bool
    origin: str


def normalise_key(phrase: str) -> str | None:
    """A predicate key from a relation phrase: lower-case words joined by ``_``, auxiliaries and
    articles dropped ("is famous for" → ``famous_for``, "The author of" → ``author``); ``None``
    when nothing meaningful is left."""
    words = [_SPELLING.get(w, w) for w in re.findall(r"[a-z0-9]+", phrase.casefold().replace("'s", " "))]
    kept = [w for w in words if w not in _DROP] or [w for w in words if w not in ("the", "a", "an")][-1:]
    while kept and kept[-1] in ("of",) and len(kept) > 1:
        kept.pop()  # "the author of" → "author"
    key = "_".join(kept)[:KEY_MAX].strip("_")
    return key if key and _KEY_RE.match(key) and not key.isdigit() else None


@lru_cache(maxsize=1)
def aliases() -> dict[str, tuple[str, bool]]:
    """Alias key → (curated predicate, inverse), from predicate_aliases.csv; every curated name is
    its own alias."""
    out = {name: (name, False) for name in predicates()}
    for row in seed_rows("predicate_aliases.csv"):
        out[row["alias"]] = (row["predicate"], row["inverse"] == "true")
    return out


def slot_for(phrase_or_key: str) -> Slot | None:
    """The slot a relation phrase names: curated through the alias table, else learned."""
    key = normalise_key(phrase_or_key)
    if key is None:
        return None
    curated = aliases().get(key)
    if curated is not None:
        return Slot(curated[0], curated[1], "curated")
    return Slot(key, False, "learned")


def is_curated(key: str) -> bool:
    return key in predicates()


def learned_predicate(key: str, cardinality: str, entity_valued: bool) -> Predicate:
    """The vocabulary entry of a learned key: the seed's row when it has one (the seed overrides),
    else the rule's cardinality with the generic defaults of ``states``."""
    seeded = predicates().get(key)
    if seeded is not None:
        return seeded
    base = predicates()["states"]
    return Predicate(
        name=key, cardinality=cardinality if cardinality in ("one", "many") else "many",
        volatility=base.volatility, half_life=base.half_life, retention_class=base.retention_class,
        stakes=base.stakes, entity_valued=entity_valued,
        description=f"Learned from the relation phrase '{key.replace('_', ' ')}'",
    )


def seeds_digest() -> bytes:
    """Bytes of the alias seed, for the derivation fingerprint."""
    return seed_bytes("predicate_aliases.csv")
