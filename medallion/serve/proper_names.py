"""The names a text may be about when no belief of it says so: its runs of capitalised words.

A note that states no fact ("Heads up: Marisol moved the Ticket 4413 sync") is still about someone, and
the present stage (``serve/present.py``) compares two texts by the names they are about; this reads
them off the text, leaving out what a capital letter marks without naming anything (an opening word,
a pronoun, a field's label).
"""

from __future__ import annotations

import re

# Capitalised words that name nothing: a note's opening word or a pronoun.
_NOT_NAMES = frozenset((
    "i", "a", "an", "the", "it", "its", "we", "my", "our", "he", "she", "his", "her", "they", "their", "this",
    "that", "these", "those", "there", "so", "and", "but", "or", "ok", "okay", "yes", "no", "hi", "hey", "also",
    "just", "please", "pls", "fyi", "re", "note", "update", "per", "as", "if", "when", "then",
    # a question's opening word ("Nice! Does she like it?"); "Will" and "May" may be names
    "do", "does", "did", "is", "are", "was", "were", "can", "could", "would", "should", "has", "have", "had",
    "what", "where", "who", "why", "how", "which",
))
# A capitalised word and the capitalised words or numbers right after it: "Thea Lindgren", "Ticket 4413".
_CAPITALISED = re.compile(r"\b[A-Z][^\W_]*(?:[ -](?:[A-Z][^\W_]*|\d[\w-]*))*")
_LABEL_VALUE = re.compile(r":\s*(?:[a-z]|\S*\d)")  # after a field's label: its value, lower case or a number


def proper_words(text: str) -> list[str]:
    """The names a text may be about: its runs of capitalised words, with the numbers that follow one
    ("Heads up: Marisol moved the Ticket 4413 sync" → Heads, Marisol, Ticket 4413), without an opening
    word that names nothing ("The"), nor a field's label ("Status: resolved", "Priority: P2": one word
    before a colon and a value in lower case or with a digit; "Dana: I'll take it" keeps Dana): what a
    turn is about when no belief of it says so."""
    out = []
    for match in _CAPITALISED.finditer(text):
        run = match.group(0)
        words = run.split()
        if len(words) == 1 and _LABEL_VALUE.match(text, match.end()):
            continue
        while words and words[0].casefold() in _NOT_NAMES:
            words.pop(0)
        if words and any(c.isalpha() for c in words[0]):
            out.append(" ".join(words))
    return list(dict.fromkeys(out))
