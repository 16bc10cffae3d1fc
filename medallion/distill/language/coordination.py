"""Where one sentence says things about several subjects, and what a clause-initial "it" names.

"I drive a Tesla and my wife drives a Camry", "Rex is 4, Bella is 2 and Max is 9", "I work at Lumen,
whereas my husband works at Ostara": one sentence, one claim per subject. Read whole, the clause
reader sees one subject and a value that swallows the rest ("a Tesla and my wife"), and a search
for one subject finds a text that also holds the other subject's value. :func:`clause_spans` cuts
such a sentence into its coordinated clauses by the dependency parse: the root's conjoined verbs,
a ", while" / ", whereas" adverbial clause and a comma-spliced clause before the root, each with a
subject of its own. The cut is made only when at least two different subjects stand there, so
"Tigran is based in Yerevan and will pair with Bob" (one subject) stays whole. The distiller reads
each clause as a sentence of its own and the chunker indexes each as a ``clause`` unit; both call
this one function on the same sentence text, so a fact's span and its clause chunk's span agree.

:func:`resolve_anaphor` answers the other half of a turn that names a thing and then says something
of it ("I got a new phone number. It's 555-0199 now."; "I moved to Lisbon. My sister lives there
too."): a sentence-initial it / that / this given a value becomes the noun phrase the previous
sentence named (:func:`antecedent`), a place adverb "there" the place it named.
"""

from __future__ import annotations

import re
from typing import Any

from medallion.distill.language.parse import (
    PRONOUNS,
    PROPER,
    Sentence,
    children,
    is_when,
    noted,
    parse,
    phrase_tokens,
)

# A sentence where no joint (a comma, "and", "whereas" …) is followed by what can open a clause with
# a subject of its own (I, we, a possessive, an article, a name) cannot hold two: it is never parsed.
# A name with a digit ("node birch-02", "room 4b") opens a subject in lower-case notes too.
_CUE_RE = re.compile(r"(?:[,;]|\b(?i:and|but|while|whereas))\s+(?:(?i:and|but|so|then|while|whereas)\s+)?"
                     r"(?:(?i:I|we|my|our|their|your|the|this|that)\b|[A-Z]|(?:[^\W\d_]+\s+)?[^\W\d_][\w-]*\d)")
_CONTRAST_MARKS = frozenset({"while", "whereas"})
# Subjects that continue someone already named (their clause stays with the one before it).
_CONTINUING = frozenset({"he", "she", "it", "they", "this", "that", "these", "those", "there", "who", "which",
                         "what", "one", "both", "all", "each"})
_CONNECTIVES = frozenset({"and", "but", "while", "whereas", "or", "so", "yet"})
MAX_CHARS = 400  # a longer "sentence" is a list or a pasted text: not cut
LABEL = re.compile(r"[^\W\d_][^:\n]{0,38}:\s+")  # a short label before a colon: "Ops note: ", "Update: "


def _offsets(s: Sentence, text: str) -> list[int] | None:
    """Each token's start in the unmasked ``text`` (the parse reads placeholders for numbers and
    identifiers, see ``parsing._mask``); None when a token cannot be placed."""
    keys = sorted(s.masked, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(k) for k in keys)) if keys else None
    out: list[int] = []
    delta = 0
    for tok in s.doc:
        start = tok.idx + delta
        original = pattern.sub(lambda m: s.masked[m.group(0)], tok.text) if pattern is not None else tok.text
        if text[start:start + len(original)] != original:
            return None
        out.append(start)
        delta += len(original) - len(tok.text)
    return out


def _mark(token: Any) -> bool:
    """Punctuation, or a symbol without letters or digits (an emoji closing a chat line, which the parse
    hangs on the first clause's verb wherever it stands): it belongs to no clause."""
    return bool(token.is_punct) or not any(c.isalnum() for c in token.text)


def _subject(head: Any) -> Any | None:
    found = children(head, "nsubj", "nsubjpass")
    return found[0] if found else None


def _clause_heads(s: Sentence) -> list[Any]:
    """The root and every verb coordinated with it that has a subject of its own."""
    root = s.root
    heads = [root]
    todo = [root]
    while todo:
        head = todo.pop()
        for child in head.children:
            if child.pos_ not in ("VERB", "AUX") or _subject(child) is None:
                continue
            joined = child.dep_ in ("conj", "parataxis")
            # ", while" / ", whereas" after the main clause contrasts; "while I was cooking" tells when
            marks = [m for m in children(child, "mark") if m.lower_ in _CONTRAST_MARKS]
            contrast = (child.dep_ == "advcl" and bool(marks) and child.i > head.i
                        and (marks[0].lower_ == "whereas" or s.doc[marks[0].i - 1].text in (",", ";")))
            spliced = (child.dep_ == "ccomp" and child.i < head.i
                       and any(t.text in (",", ";") for t in s.doc[child.right_edge.i + 1: head.i]))
            if joined or contrast or spliced:
                heads.append(child)
                todo.append(child)
    return sorted(heads, key=lambda t: t.i)


def _subject_key(head: Any) -> str | None:
    subj = _subject(head)
    if subj is None or subj.lower_ in _CONTINUING:
        return None
    return " ".join(t.lower_ for t in subj.subtree)


def clause_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each coordinated clause of ``text`` with a subject of its own, tiling the
    text (a clause runs up to where the next one starts, its connective "and" / "whereas" opening
    the next one); ``[]`` when the sentence does not speak of two different subjects."""
    if len(text) > MAX_CHARS or not _CUE_RE.search(text) or len(text.split()) < 5:
        return []
    if noted(text, None):
        return []
    label = LABEL.match(text)
    if label and len(text) - label.end() >= 20:  # "Ops note: node a1 has 64 GB, node b2 has 256 GB": cut what it labels
        inner = clause_spans(text[label.end():])
        return [(0 if n == 0 else a + label.end(), b + label.end()) for n, (a, b) in enumerate(inner)]
    s = parse(text)
    if s.root.pos_ not in ("VERB", "AUX"):
        return []
    heads = [h for h in _clause_heads(s) if _subject_key(h) is not None]
    if len(heads) < 2 or len({_subject_key(h) for h in heads}) < 2:
        return _tagged_spans(s, text)
    offsets = _offsets(s, text)
    if offsets is None:
        return []
    head_ids = {h.i for h in heads}
    owner: dict[int, int] = {}
    for h in heads:  # each token belongs to the nearest clause head above it
        for t in h.subtree:
            anc = t
            while anc.i not in head_ids:
                anc = anc.head
            owner[t.i] = anc.i
    firsts: list[int] = []
    for h in heads:
        own = [i for i, o in owner.items() if o == h.i and not _mark(s.doc[i])
               and not (s.doc[i].dep_ in ("cc", "mark") and s.doc[i].lower_ in _CONNECTIVES)]
        if not own:
            return []
        firsts.append(min(own))
    # each clause must be one contiguous run of tokens, in the order of its head
    order = sorted(range(len(heads)), key=lambda k: firsts[k])
    bounds = [firsts[k] for k in order]
    for n, k in enumerate(order):
        stop = bounds[n + 1] if n + 1 < len(bounds) else len(s.doc)
        for i, o in owner.items():
            if o == heads[k].i and not _mark(s.doc[i]) and not (bounds[n] <= i < stop) and not (
                    s.doc[i].lower_ in _CONNECTIVES and i < bounds[n]):
                return []
    starts = [0]
    for first in bounds[1:]:
        prev = s.doc[first - 1] if first > 0 else None
        starts.append(offsets[prev.i] if prev is not None and prev.lower_ in _CONNECTIVES else offsets[first])
    spans = [(a, b) for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
    if any(not text[a:b].strip() for a, b in spans):
        return []
    return spans


_NP_TAGS = frozenset({"DT", "PRP$", "NNP", "NNPS", "NN", "NNS", "JJ", "POS", "CD"})
_FINITE = frozenset({"VBZ", "VBD", "VBP", "MD"})
_SUBJECT_PRONOUNS = frozenset({"i", "we", "you"})


def _subject_then_verb(doc: Any, j: int) -> int | None:
    """Where the finite verb stands when a noun phrase (or I / we) opens at ``j`` and a finite verb
    follows it; None otherwise."""
    k = j
    while k < len(doc) and k - j < 5 and doc[k].tag_ in _NP_TAGS:
        k += 1
    if k == j and j < len(doc) and doc[j].lower_ in _SUBJECT_PRONOUNS:
        k = j + 1
    nouns = [t for t in doc[j:k] if t.tag_ in ("NN", "NNS", "NNP", "NNPS") or t.lower_ in _SUBJECT_PRONOUNS]
    return k if nouns and k < len(doc) and doc[k].tag_ in _FINITE else None


def _tagged_spans(s: Sentence, text: str) -> list[tuple[int, int]]:
    """The cut by part-of-speech tags where the parse attached a second subject to the first clause's
    object ("I drive a Tesla and my wife drives a Camry" parsed with "wife" conjoined to "Tesla"): a
    joint ("and", "but", "whereas", "while", a comma) followed by a noun phrase and a finite verb opens
    a clause, when the part before has a finite verb of its own and the two subjects differ."""
    doc = s.doc
    offsets = _offsets(s, text)
    if offsets is None:
        return []
    opening = _subject_then_verb(doc, 0)
    if opening is None:
        return []
    subjects = [" ".join(t.lower_ for t in doc[0:opening])]
    starts = [0]
    for i, tok in enumerate(doc):
        if i <= opening or not (tok.lower_ in _CONNECTIVES or tok.text in (",", ";")):
            continue
        j = i + 1 + (i + 1 < len(doc) and doc[i + 1].lower_ in _CONNECTIVES)
        verb = _subject_then_verb(doc, j)
        if verb is None or any(t.lower_ in _CONTINUING for t in doc[j:verb]):
            continue
        subjects.append(" ".join(t.lower_ for t in doc[j:verb]))
        starts.append(offsets[i] if tok.lower_ in _CONNECTIVES else offsets[j])
    if len(starts) < 2 or len(set(subjects)) < len(subjects):
        return []
    spans = [(a, b) for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
    return spans if all(text[a:b].strip() for a, b in spans) else []


# Where a sentence's parts join: a comma or semicolon, or an "and" / "but" / "while" / "whereas" (the
# part after it starts at the connective, as a clause of clause_spans does).
_JOINT_RE = re.compile(r"[,;]\s+|\s+(?=(?i:and|but|while|whereas)\s)")
_WORD_RE = re.compile(r"[^\W_]+")
_NAMED_RE = re.compile(r"\b(?:[A-Z][^\W_]*|[^\W\d_]*\d[^\W_]*)")  # a capitalised word, or a word with a digit
MIN_PART_WORDS = 3  # a shorter part ("Rome", "and Berlin", "Honestly") stays with the part before it


def value_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each part of a sentence that joins several parts each naming its own value,
    tiling the text; ``[]`` for any other sentence.

    :func:`clause_spans` cuts only clauses with a subject and a verb of their own. Many sentences list
    values without one: "We have a parrot called Mango and a tortoise called Sheldon", "failing in
    staging on node grayling-02, passing in production on node marten-07", "QA sign-off by Marisol
    done Tuesday, security sign-off by Devraj pending until Friday". A search for one of those values'
    holders should find a text without the others, whatever the grammar. So the sentence is cut at its
    joints into parts of at least :data:`MIN_PART_WORDS` words (a shorter one stays with the part
    before it: a list of names is one part) that each name something, a capitalised word after the
    sentence's first or a word with a digit (a part that names nothing, "and needs a new cable",
    stays with the part before it, and so does one that goes on about what the part before it named:
    "he's on Sundays now", "our contact there is …", "and reissued to Odile"; in a sentence with no
    capital letter a bare word and its verb name a holder, "and ben can't have gluten"); the cut is
    kept when two or more parts remain. Only the chunker uses this cut; facts are still read by clause."""
    if len(text) > MAX_CHARS:
        return []
    by_semicolon = _semicolon_parts(text)
    if by_semicolon:
        return by_semicolon
    bounds = [0] + [m.end() for m in _JOINT_RE.finditer(text) if not _bracketed(text, m.start())] + [len(text)]
    parts: list[list[int]] = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        if parts and _words(text, [start, end]) < MIN_PART_WORDS:
            parts[-1][1] = end
        elif parts and _words(text, parts[-1]) < MIN_PART_WORDS:
            parts[-1][1] = end  # a short opening part ("Honestly,") joins the one after it
        else:
            parts.append([start, end])
    named: list[list[int]] = []
    for part in parts:  # a part that names nothing ("and needs a new cable") stays with the part before it
        if named and (not _names_something(text, *part) or _refers_back(text[part[0]:part[1]])):
            named[-1][1] = part[1]
        elif named and not _names_something(text, *named[-1]):
            named[-1][1] = part[1]  # an opening part that names nothing joins the one after it
        else:
            named.append(part)
    # every part kept names something: an opening part that names nothing has taken in the next ones
    return [(start, end) for start, end in named] if len(named) >= 2 else []


# Words that say something ended: "passed away", "sold", "quit", "broke up", "no longer" …
# ("left" is not among them: "I play left back", "turn left")
ENDED_RE = re.compile(r"\b(?:passed\s+away|died|sold|quit|broke\s+up|gave\s+up|no\s+longer|any\s*more)\b", re.I)
_INSTEAD_RE = re.compile(r"\binstead\b", re.I)
# A joint between two parts of a chat sentence: a comma, a semicolon, "and", "so", or an emoji
_REPLACEMENT_JOINT_RE = re.compile(r"[,;]\s+|\s+(?=(?i:and|so|but)\s)|(?<=[\U0001F300-\U0001FAFF\u2600-\u27BF])\s+")


def replacement_spans(text: str) -> list[tuple[int, int]]:
    """A sentence that tells a replacement as two events, cut between them: "sold the vespa last
    weekend, got a Brisko e-bike instead", "Pickle passed away in march 😢 we adopted a greyhound called
    Bramble". The cut is at the first joint where the part before says something ended
    (:data:`ENDED_RE`) and the part after does not, or the reverse ("got a new bike, sold the old one"),
    and that other part names its value (a name or a number, :func:`names_value`) or says "instead":
    "Three months smoke-free now, I quit for good" says one thing twice. Both parts need
    :data:`MIN_PART_WORDS` words. A question about what holds now then finds the part that says it,
    without the ended value beside it. ``[]`` when there is no such joint."""
    if len(text) > MAX_CHARS or not ENDED_RE.search(text):
        return []
    for m in _REPLACEMENT_JOINT_RE.finditer(text):
        if _bracketed(text, m.start()):
            continue
        long_enough = min(_words(text, [0, m.end()]), _words(text, [m.end(), len(text)])) >= MIN_PART_WORDS
        ended_before = bool(ENDED_RE.search(text, 0, m.end()))
        if not long_enough or ended_before == bool(ENDED_RE.search(text, m.end())):
            continue
        other = (m.end(), len(text)) if ended_before else (0, m.end())
        if _names_something(text, *other) or _INSTEAD_RE.search(text[other[0]:other[1]]):
            return [(0, m.end()), (m.end(), len(text))]
    return []


def _semicolon_parts(text: str) -> list[tuple[int, int]]:
    """The parts of a sentence cut at its semicolons, when each has :data:`MIN_PART_WORDS` words and
    names something: a semicolon separates the items of a list whose items hold commas of their own
    ("Lunch orders: Bilal, falafel wrap; Chiara, mushroom risotto"), which the cut at every comma would
    merge back into one part; ``[]`` otherwise."""
    bounds = [0] + [m.end() for m in re.finditer(r";\s+", text) if not _bracketed(text, m.start())] + [len(text)]
    parts = [(start, end) for start, end in zip(bounds, bounds[1:], strict=False) if text[start:end].strip()]
    if len(parts) < 2 or any(_words(text, [a, b]) < MIN_PART_WORDS or not _names_something(text, a, b)
                             for a, b in parts):
        return []
    return parts


def _bracketed(text: str, at: int) -> bool:
    """Whether position ``at`` lies inside an open parenthesis or bracket ("Ticket 3109 (Odile, sync
    broken)": an aside is not a joint)."""
    before = text[:at]
    return before.count("(") > before.count(")") or before.count("[") > before.count("]")


def _words(text: str, part: list[int]) -> int:
    return sum(w.casefold() not in _CONNECTIVES for w in _WORD_RE.findall(text[part[0]:part[1]]))


def names_value(text: str) -> bool:
    """Whether a text names a value of its own: a capitalised word after its first, or a word with a digit
    ("it's 0798 644 2107", "got a Brisko e-bike"), not only what it says of something else."""
    return _names_something(text, 0, len(text))


# A part that goes on about what the part before it named: it opens with a pronoun for it ("swapped with
# Dov, he's on Sundays now") or points back with "there" ("Gretchen left, our contact there is Ulric").
# So does a verb with no subject after "and" ("returned by Kemal and reissued to Odile"). A possessive
# ("her brother Otto's is 219") names a holder of its own.
_REFERS_BACK_RE = re.compile(r"^\W*(?:(?:and|but|so)\s+)?(?:he|she|it|they)\b|(?<=\w)\s+there\b|"
                             r"^\W*and\s+(?:then\s+)?[a-z]+ed\s+(?:to|by|for|from|on|at|in)\b", re.I)


def _refers_back(part: str) -> bool:
    return _REFERS_BACK_RE.search(part) is not None


# In a sentence written all in lower case (chat: "zara's at fernbrook now, idris started at tumblewood"),
# a part names its holder by a bare word before its verb: not a pronoun, an article or a possessive.
_NOT_HOLDERS = (r"i|me|my|we|our|you|your|he|she|it|they|his|her|its|their|this|that|these|those|there|the|a|an|"
                r"some|both|all|which|who")
_LOWER_HOLDER_RE = re.compile(rf"^\W*(?:[a-z ]{{1,30}}:\s+)?(?:(?:and|but|so|while|whereas)\s+)?"
                              rf"(?!(?:{_NOT_HOLDERS})\b)[a-z][a-z-]+(?:'s|\s+(?:is|are|was|has|had|does|can't|cannot|won't|doesn't|started|"
                              r"plays|goes|works|lives|drives|takes|needs|gets|loves|likes))\b")


def _names_something(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] holds a capitalised word (not the sentence's first word, nor "I") or a
    word with a digit; in a sentence with no capital letter, whether it opens with a holder and its verb."""
    if not re.search(r"[A-Z]", text.replace(" I ", " i ")) and _LOWER_HOLDER_RE.match(text[start:end]):
        return True
    for m in _NAMED_RE.finditer(text, start, end):
        word = m.group(0)
        if any(c.isdigit() for c in word) or (word != "I" and text[:m.start()].strip()):
            return True
    return False


# "Jan's birthday is in May and Kim's in June": the second clause leaves out what it shares with the first
# (gapping). Its possessor and what follows, with the first clause's noun and verb put back, is a clause.
_GAPPED_RE = re.compile(
    r"^(?P<p1>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)['’]s\s+(?P<noun>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s+"
    r"(?P<verb>is|are|was|were|falls|starts|ends)\s++(?P<r1>[^,;]*?[^,;\s])(?:,?\s+(?:and|while|but|whereas)|\s*;)\s+"
    r"(?P<p2>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)['’]s\s+(?:(?P=verb)\s+)?(?!(?:is|are|was|were|not|also)\b)"
    r"(?P<r2>[^,;.!?]+)")


# A second clause that leaves out the first one's verb and keeps its preposition: "Mira works at Quelle,
# her husband at Brightmoor", "my sister lives in Oslo and my brother in Bergen". The second subject is a
# short noun phrase that opens with a determiner, a possessive or a capital ("the API", "her husband", "Dev").
_NP2 = (r"(?:(?:the|my|his|her|our|their|your)\s+[^\W\d_][\w-]*(?:\s+[a-z][\w-]*)?|[A-Z][\w-]*(?:['’]s\s+[a-z][\w-]*)?"
        r"|[A-Z]{2,}[\w-]*)")
_VERB_GAPPED_RE = re.compile(
    r"^(?P<s1>[^,;]{1,40}?)\s+(?P<verb>[a-z]+(?:s|ed))\s++(?P<prep>in|at|on|for|from|with|by|to)\s++"
    r"(?P<r1>[^,;]*?[^,;\s])(?:,?\s+(?:and|while|but|whereas)|,|\s*;)\s+"
    rf"(?P<s2>{_NP2})\s+(?P=prep)\s+(?P<r2>[^,;.!?]+)")


# what a chat line may say before the list it gives ("writing these down before i forget again: …")
_PREAMBLE = re.compile(r"[^\W\d_][^:\n]{0,58}:\s+")


def gapped_clauses(text: str) -> list[tuple[int, int, str]]:
    """The clauses of a sentence whose second clause leaves out the first one's noun, and maybe its verb
    ("Jan's birthday is in May and Kim's in June" → "Jan's birthday is in May", "Kim's birthday is in
    June"; "Ana's car is red and Bo's is blue"), or leaves out the verb and keeps its preposition with
    another subject ("Mira works at Quelle, her husband at Brightmoor": :func:`_verb_gapped`),
    each as (start, end, text) with its span in ``text``; ``[]`` for any other sentence. A short label
    before them ("writing these down: Lotte's birthday is 14 April; Gerrit's is 2 November") is left
    out of both, and a semicolon joins them as "and" does."""
    stripped = text.strip()
    label = _PREAMBLE.match(stripped)
    lead = len(text) - len(text.lstrip()) + (label.end() if label else 0)
    m = _GAPPED_RE.match(text[lead:])
    if m is None:
        return _verb_gapped(text, lead, bool(label))
    if m["p1"] == m["p2"]:
        return []
    first = f"{m['p1']}'s {m['noun']} {m['verb']} {m['r1'].strip()}."
    second = f"{m['p2']}'s {m['noun']} {m['verb']} {m['r2'].strip()}."
    cut = lead + m.start("p2")
    joint = re.search(r"(?:,?\s+(?:and|while|but|whereas)|\s*;)\s+$", text[:cut])
    start = lead if label else 0
    return [(start, joint.start() if joint else cut, first), (joint.start() if joint else cut, lead + m.end(), second)]


def _verb_gapped(text: str, lead: int, labelled: bool) -> list[tuple[int, int, str]]:
    """The two clauses of a sentence whose second leaves out the verb (:data:`_VERB_GAPPED_RE`), or []."""
    m = _VERB_GAPPED_RE.match(text[lead:])
    if m is None or m["s1"].casefold() == m["s2"].casefold():
        return []
    first = f"{m['s1']} {m['verb']} {m['prep']} {m['r1'].strip()}."
    owner = re.match(r"(?:his|her|their)\s+(?P<noun>.+)$", m["s2"])
    s2 = f"{m['s1']}'s {owner['noun']}" if owner and re.fullmatch(r"[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?", m["s1"]) else \
        f"{m['s2'][:1].upper()}{m['s2'][1:]}"  # "her husband" is the first subject's ("Ines's husband")
    second = f"{s2} {m['verb']} {m['prep']} {m['r2'].strip()}."
    cut = lead + m.start("s2")
    joint = re.search(r"(?:,?\s+(?:and|while|but|whereas)|,|\s*;)\s+$", text[:cut])
    start = lead if labelled else 0
    return [(start, joint.start() if joint else cut, first), (cut, lead + m.end(), second)]


def clause_text(text: str) -> str:
    """A clause as a sentence of its own: without the connective that joined it and the comma
    before the next one ("and Mittens is 7." → "Mittens is 7.")."""
    body = re.sub(r"^\s*(?:and|but|while|whereas|or|yet)\s+(?:so\s+)?|^\s*so\s+", "", text, flags=re.I)
    body = body.strip().rstrip(",;").strip()
    return body[:1].upper() + body[1:] if body[:1].islower() and not re.match(r"i\b", body) else body


# "It is 555-0199 now", "That was on Harbour Street", "This costs 40k": a clause-initial pronoun
# subject followed by its verb.
ANAPHOR_RE = re.compile(r"^(?P<p>[Ii]t|[Tt]hat|[Tt]his)(?:(?P<s>['’]s)\s+|\s+(?=(?:is|was|has|had|will|costs?|"
                        r"runs?|sits?|ends?|starts?|goes|closes|opens|lives|belongs|comes|moved|changed|became|now)\b))")


# "... a new flat last month.": a closing time phrase, which the parser may take for the object
_TRAILING_WHEN_RE = re.compile(r"\s+(?:(?:last|next|this)\s+(?:week|month|year|weekend|[a-z]+day)|yesterday|today|"
                               r"tonight|recently|\d+\s+(?:days?|weeks?|months?|years?)\s+ago)\s*[.!]*$", re.I)


def antecedent(previous: str, speaker: str | None) -> str | None:
    """The noun phrase ``previous`` (the sentence before, same turn) named last as a thing: the
    root's object, else the object of its preposition, else its attribute, else its subject, as a
    phrase that stands alone: "a new phone number" said by the speaker → "my new phone number"
    (the speaker's, as "my" is read), "the venue" → "the venue", "Lisbon" → "Lisbon". None when
    the sentence named no thing (a person, a pronoun, a number)."""
    previous = _TRAILING_WHEN_RE.sub(".", previous.strip())
    if not previous or len(previous) > MAX_CHARS or noted(previous, speaker):
        return None
    s = parse(previous, speaker)
    root = s.root
    if root.pos_ not in ("VERB", "AUX"):
        return None
    found = children(root, "dobj")
    if not found:
        found = [o for p in children(root, "prep") for o in children(p, "pobj")]
    if not found:
        found = children(root, "attr")
    subj = children(root, "nsubj", "nsubjpass")
    if not found and subj and subj[0].pos_ == "NOUN":
        found = subj
    # an object in a noun's place is a noun, whatever the tagger guessed ("a new flat": ADJ)
    if not found or found[0].pos_ not in ("NOUN", "PROPN", "ADJ") or found[0].like_num:
        return None
    noun = found[0]
    if noun.tag_ in PROPER and not children(noun, "det"):
        return s.text(phrase_tokens(noun)) or None
    own = children(noun, "poss")
    toks = [t for t in phrase_tokens(noun) if t.dep_ not in ("det", "predet") and t.i <= noun.i]
    words = s.text(toks)
    if not words:
        return None
    if own:
        owner = own[0].lower_
        if owner in ("my", "our"):
            return f"{owner} {words}"
        return s.text([t for t in noun.subtree if t.i <= noun.i and t.dep_ not in ("det",)]) or None
    definite = any(c.lower_ in ("the", "this", "that") for c in children(noun, "det"))
    if definite or noun.pos_ not in ("NOUN", "ADJ") or not subj or subj[0].i == noun.i:
        return f"the {words}"
    if subj[0].lower_ in ("i", "we"):
        return f"{'my' if subj[0].lower_ == 'i' else 'our'} {words}"  # "I got a new number" → "my new number"
    if subj[0].lower_ in PRONOUNS:
        return f"the {words}"
    named = [a for a in children(subj[0], "appos") if a.tag_ in PROPER]  # "my sister Noor" → "Noor"
    holder = s.text(phrase_tokens(named[0])) if named else s.text(
        [t for t in subj[0].subtree if t.dep_ not in ("det", "relcl", "acl", "appos") and t.i <= subj[0].i])
    return f"{holder}'s {words}" if holder else f"the {words}"


def _says_what(sentence: str, speaker: str | None) -> bool:
    """Whether the pronoun's clause gives the thing a value (a number, a name, a place: "It's
    555-0199 now", "It's on Harbour Street") rather than an evaluation ("It's special to me", "That
    was amazing"), which stays a reaction of the speaker's."""
    if len(sentence) > MAX_CHARS or noted(sentence, speaker):
        return False
    head = re.split(r"[,;]\s+", sentence, maxsplit=1)[0]  # "It's 555-0199, the old one is dead": its first clause
    if len(head.split()) >= 2:
        sentence = head
        if noted(sentence, speaker):
            return False
    root = parse(sentence, speaker).root
    return root.pos_ in ("VERB", "AUX") and not children(root, "acomp")


_THERE_RE = re.compile(r"(?<=\w)\s+there\b", re.I)


def _place(previous: str, speaker: str | None) -> str | None:
    """The named place ``previous`` put something in, at or to ("We moved to Lisbon" → "Lisbon")."""
    previous = previous.strip()
    if not previous or len(previous) > MAX_CHARS or noted(previous, speaker):
        return None
    s = parse(previous, speaker)
    places = [o for p in s.doc if p.dep_ == "prep" and p.lower_ in ("in", "to", "at", "into")
              for o in children(p, "pobj") if o.tag_ in PROPER and o.text not in s.masked and not is_when(s, o)]
    return s.text(phrase_tokens(places[-1])) if places else None


def resolve_there(sentence: str, previous: str | None, speaker: str | None) -> str:
    """``sentence`` with a place adverb "there" ("My sister lives there too") replaced by the place
    ``previous`` named ("in Lisbon"); an existential "there is" and an unnamed place stay."""
    m = _THERE_RE.search(sentence)
    if not m or not previous or len(sentence) > MAX_CHARS or noted(sentence, speaker):
        return sentence
    there = next((t for t in parse(sentence, speaker).doc if t.lower_ == "there"), None)
    if there is None or there.dep_ != "advmod" or there.head.pos_ not in ("VERB", "AUX"):
        return sentence
    place = _place(previous, speaker)
    return f"{sentence[:m.start()]} in {place}{sentence[m.end():]}" if place else sentence


def resolve_anaphor(sentence: str, previous: str | None, speaker: str | None) -> str:
    """``sentence`` with a clause-initial "it" / "that" / "this" replaced by what ``previous`` (the
    sentence before it in the same turn) named, and a place adverb "there" by the place it named;
    unchanged when it names nothing."""
    sentence = resolve_there(sentence, previous, speaker)
    m = ANAPHOR_RE.match(sentence)
    if not m or not previous or not _says_what(sentence, speaker):
        return sentence
    phrase = antecedent(previous, speaker)
    if not phrase:
        return sentence
    phrase = phrase[:1].upper() + phrase[1:]
    return f"{phrase} is {sentence[m.end():]}" if m.group("s") else f"{phrase} {sentence[m.end():]}"
