"""Whom a question asks about, and whether a result speaks of that one or of someone related to them
(issue 31.3, at query time).

Why: one turn often tells of two people ("i'm 29 and my sister Bea is 34", "my husband is a
pharmacist and i teach chemistry"), and one person's notes tell of their family ("Fatima Okafor's
husband bought a red Ember"). The words of "How old is Ana?" or "What car does Fatima drive?" match
the relative's clause as well as the person's own, and for "What does Mina's husband do?" they match
Mina's own clause best. A reader tells them apart by the subject each clause opens with: a relational
noun owned by someone ("my sister", "Fatima's husband") shifts the subject to the relative.

So each text is read for its *first mention* of someone (:func:`first_mention`): a relational noun
with its owner and the name set beside it ("my brother Theo"), a first-person pronoun (its speaker),
or a name. Against what the question asks (:func:`asked`: the relational nouns it asks through, "Mina's
husband", and the names it gives), a text is *about* the asked subject (rank 0), says nothing of
anyone (rank 1) or opens with someone else (rank 2) (:func:`rank`). Two stages use the ranks:

* :func:`first_within_event`: of one turn's texts (its passage, clauses and beliefs, which share the
  turn's score), one that opens with the asked subject represents the turn in place of one that
  opens with someone else; events keep their order;
* the present stage (``serve/present.py``): a turn about someone else joins a cluster but never
  leads one that holds a turn about the asked subject.

The relational nouns are a closed class of English (family, partners, friends, colleagues, and
pets), read from ``distill/language/lexicon.py``; no relation or phrasing of a data set is named.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from medallion.distill.language.coordination import LABEL
from medallion.distill.language.lexicon import REL_NOUNS

# People one is related to (the distiller's relational nouns), and the animals one keeps.
_PETS = r"pet|dog|cat|puppy|kitten|horse|rabbit|hamster|parrot|tortoise|guinea\s+pig"
_KIN_WORDS = rf"(?:{REL_NOUNS}|kid|child|children|baby|parent|in-law|{_PETS})"
# Nouns of which another is a kind ("partner" of "husband"), or that name the same relative ("mum",
# "mother"): a question through one is about a text through another only loosely (rank 1), never as
# surely as through the same noun; "son" and "daughter" are two people.
_WIDER = {
    "partner": frozenset(("wife", "husband", "spouse", "girlfriend", "boyfriend", "fiance", "fiancee", "fiancé",
                          "fiancée")),
    "spouse": frozenset(("wife", "husband", "partner")),
    "kid": frozenset(("son", "daughter", "child", "children", "baby")),
    "child": frozenset(("son", "daughter", "kid", "children", "baby")),
    "children": frozenset(("son", "daughter", "kid", "child", "baby")),
    "parent": frozenset(("mother", "father", "mom", "mum", "dad")),
    "mother": frozenset(("mom", "mum")), "mom": frozenset(("mother", "mum")), "mum": frozenset(("mother", "mom")),
    "father": frozenset(("dad",)), "dad": frozenset(("father",)),
    "sibling": frozenset(("brother", "sister")),
    "pet": frozenset(("dog", "cat", "puppy", "kitten", "horse", "rabbit", "hamster", "parrot", "tortoise")),
}
_OWNER = (r"(?P<owner>\b(?i:my|our|his|her|their)\b|(?:[A-Z][\w-]*\s+){0,2}[^\W_][\w-]*(?:'s|’s|'|’)(?=\s))")
# "my sister", "Fatima Okafor's husband", "my little brother Theo", "Ana's sister's": the owner, at most
# one word between (an adjective), the noun, and a capitalised name right after it.
_KIN = re.compile(rf"{_OWNER}\s+(?i:[a-z-]+\s+)?(?P<kin>(?i:{_KIN_WORDS})(?:s|es)?)\b(?:'s|’s)?"
                  r"(?:,?\s+(?P<name>[A-Z][\w-]*))?")
_SELF = re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|i'll|me|my|mine|myself)\b|\bi(?=['’])", re.IGNORECASE)
_CAPITALISED = re.compile(r"\b[A-Z][^\W\d_]+(?:[ -][A-Z][^\W\d_]+)*\b(?![ -]?\d)")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
# "Who is Wren's manager?", "What's the name of Imogen's dog?": the relative is the answer, not the subject.
_ASKS_FOR_RELATIVE = re.compile(
    r"^\s*(?i:who|what|whom)(?:'s|’s|\s+(?i:is|are|was|were))\s+(?i:the\s+name\s+of\s+)?"
    rf"{_OWNER.replace('?P<owner>', '?:')}\s+(?i:[a-z-]+\s+)?(?i:{_KIN_WORDS})(?:s|es)?\s*[?.!]*\s*$")
# What stands before a relative who is not a clause's subject but a value or an object: a label's
# colon ("Emergency contact: my sister Liv"), a preposition ("moved in with my sister"), a copula ("the
# contact is my sister") or a verb ("helping my cousin move": a word in -ing or -ed, or a common short verb).
_NOT_SUBJECT = re.compile(r"(?::|\b(?i:to|at|in|into|with|from|for|of|by|about|near|like|than|as|on|is|was|are|"
                          r"were|be|been|'s|’s|visit|visited|visiting|call|called|met|meet|see|saw|tell|told|ask|"
                          r"asked|help|helped)|\b[a-z]+(?:ing|ed))\s*$")
# Relatives one names without an owner, as a name ("dad moved to Galway", "mum's in Cork"): the speaker's.
_BARE_KIN = re.compile(r"(?:^|(?<=[,;:.!?]\s)|(?<=\band\s)|(?<=\bbut\s))(?P<kin>(?i:mum|mom|dad|grandma|grandpa|"
                       r"nan|nana|granny))\b(?!\s*(?:and|&)\s+(?:I|i|me)\b)")
# A relative who only passes news on: "rang", "called to say", "emailed:", "says", "let us know"
_TELLS = re.compile(r"\s+(?:(?i:just|also|has|had)\s+)?(?i:rang|phoned|called|rung|emailed|e-mailed|texted|wrote|"
                    r"messaged|says|said|asked|asks|told\s+us|tells\s+us|let\s+us\s+know|confirmed|mentioned|"
                    r"informed\s+us|reported|reports|got\s+in\s+touch)\b")
# A third person as the object of what the speaker did ("we moved him to Ashgrove", "took them to the vet").
_THIRD = re.compile(r"\b(?:him|them)\b", re.IGNORECASE)
_WITH_ME = re.compile(r"\s*,?\s*(?:and|&)\s+(?:I|i|me|myself)\b")
_PREPOSITIONS = frozenset((
    "to", "at", "in", "into", "with", "from", "for", "of", "by", "about", "near", "like", "than", "as", "on",
    "onto", "over", "under", "after", "before", "behind", "beside", "besides", "between", "without", "via",
))
# Capitalised words that name nobody.
_NOT_NAMES = frozenset((
    "i", "a", "an", "the", "it", "its", "we", "my", "our", "he", "she", "his", "her", "they", "their", "this",
    "that", "these", "those", "there", "so", "and", "but", "or", "ok", "okay", "yes", "no", "hi", "hey", "also",
    "just", "please", "pls", "fyi", "re", "note", "update", "per", "as", "if", "when", "then", "dr", "mr", "mrs",
    "ms", "prof", "on", "in", "at", "for", "to", "with", "after", "before", "since", "today", "yesterday",
))


@dataclass(frozen=True)
class Mention:
    """The first person a text speaks of: through a relational noun (``kin``, owned by ``owner`` and
    named ``name`` when a name stands beside it), in the first person (``self``), or by a name."""

    kin: str | None = None
    owner: str | None = None
    name: frozenset[str] = frozenset()  # the tokens of the name (beside the noun, or on its own)
    self: bool = False
    tells: bool = False  # the relative only passes something on ("Tamsin's mum rang - ...", "his dad emailed:")


@dataclass(frozen=True)
class Asked:
    """What a question asks about: the relational nouns it asks through ("Mina's husband" → husband),
    the names set beside them ("my partner Sam" → sam), and the names it gives (tokens)."""

    kin: frozenset[str] = frozenset()
    kin_names: frozenset[str] = frozenset()
    names: tuple[frozenset[str], ...] = ()
    kin_answers: bool = False  # "Who is Wren's manager?": the relative is what is asked for, Wren the subject

    @property
    def known(self) -> bool:
        """Whether the question says whom it asks about."""
        return bool(self.kin or self.names)


def _tokens(text: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in _WORD.findall(text))


def _bare(word: str) -> str:
    """A word in lower case without a possessive or contraction: "Awolowo's" → awolowo."""
    return word.casefold().split("'")[0].split("’")[0]


def _owner_words(owner: str | None) -> frozenset[str]:
    """The tokens of a relative's owner without the possessive: "Tamsin Awolowo's" → tamsin, awolowo."""
    return frozenset(_bare(w) for w in _WORD.findall(owner or ""))


def _noun(kin: str) -> str:
    """A relational noun in its singular, lowercase form ("Sisters" → sister, "kids" → kid)."""
    word = re.sub(r"\s+", " ", kin.casefold())
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and word[:-1] in _ALL_KIN else word


_ALL_KIN = frozenset(_WIDER) | frozenset().union(*_WIDER.values()) | frozenset(
    w for w in REL_NOUNS.split("|") if w.isalpha())


def _related(a: str | None, b: str) -> bool:
    """Whether one relational noun is a kind of the other, or names the same relative."""
    return a is not None and (a in _WIDER.get(b, ()) or b in _WIDER.get(a, ()))


def asked(question: str, names: Sequence[frozenset[str]] = ()) -> Asked:
    """What ``question`` asks about: the relational nouns it asks through, with the names beside them,
    and the people it names: ``names`` (the results' names the question gives, as token sets) and its
    capitalised words after the first, not an acronym; a name with a number ("Ticket 3390") is a label,
    not a person."""
    kin, kin_names = set(), set()
    for m in _KIN.finditer(question):
        kin.add(_noun(m.group("kin")))
        if m.group("name"):
            kin_names |= _tokens(m.group("name"))
    answers = bool(kin) and bool(_ASKS_FOR_RELATIVE.match(question))
    given = [_tokens(m.group(0)) for m in _CAPITALISED.finditer(question)
             if m.start() > 0 and not (m.group(0).isupper() and len(m.group(0)) > 2)]  # "How much RAM": no one
    people = [n for n in dict.fromkeys([*names, *given]) if n and not any(w.isdigit() for w in n)]
    return Asked(frozenset(kin), frozenset(kin_names), tuple(people), answers)


def first_mention(text: str, known: Iterable[frozenset[str]] = ()) -> Mention | None:
    """The first person ``text`` speaks of: a relational noun with its owner, a first-person word, or a
    name of ``known`` (people: the question's names and the speakers; a capitalised word may be a place
    or a pet) that no preposition governs ("moved in with Dana" is about the mover); None when it
    speaks of nobody."""
    known = [n for n in known if n]
    found: list[tuple[int, int, Mention]] = []  # (where, which wins a tie, the mention): "my sister" is a relative
    kin = next((m for m in _KIN.finditer(text) if not _NOT_SUBJECT.search(text[:m.start()])), None)
    if kin is not None and _WITH_ME.match(text, kin.end()):
        found.append((kin.start(), 0, Mention(self=True)))  # "my wife and I moved": the speaker is a subject
    elif kin is not None:
        found.append((kin.start(), 0, Mention(kin=_noun(kin.group("kin")), owner=kin.group("owner"),
                                              name=_tokens(kin.group("name") or ""),
                                              tells=bool(_TELLS.match(text, kin.end())))))
    bare = _BARE_KIN.search(text)
    if bare is not None:
        found.append((bare.start(), 0, Mention(kin=_noun(bare.group("kin")), owner="my")))
    me = _SELF.search(text)
    if me is not None:
        found.append((me.start(), 1, Mention(self=True)))
    words = [(m.start(), _bare(m.group(0))) for m in _WORD.finditer(text)]
    present = {w for _, w in words}
    before = ""
    for start, word in words:
        # a name counts when all its words are in the text: "FC" alone is not "Harwick Town FC"
        whole = [n for n in known if word in n and n <= present]
        if whole and word not in _NOT_NAMES and before not in _PREPOSITIONS:
            found.append((start, 2, Mention(name=max(whole, key=len))))
            break
        before = word
    return min(found, key=lambda f: (f[0], f[1]))[2] if found else None


def rank(question: Asked, mention: Mention | None, speaker: str | None, others: bool = False) -> int:
    """0 when a text opens with the asked subject, 2 when it opens with someone else, 1 when it names
    nobody or only a relative of the same kind as the one asked for ("partner" for "husband"). For a
    question about a relative, a person's turn that names nobody ("exhausted, marking exams all
    weekend") is about its ``speaker``, not the relative, unless it speaks of a third person too
    (``others``: "we moved him to Ashgrove" may be about the son asked for); for one about a person it
    says nothing (a desk's note "switched GP to Dr. Lind" is about its patient, not the desk)."""
    if mention is None and speaker and question.kin and not question.kin_answers:
        mention = Mention(self=True)
    if mention is None or not question.known:
        return 1
    speaker_words = _tokens(speaker or "")
    if question.kin_answers and mention.kin in question.kin:
        return 0  # "my manager is Costa" answers "Who is Wren's manager?"
    if question.kin and not question.kin_answers:
        if mention.kin in question.kin or (mention.name and mention.name <= question.kin_names):
            return 0
        if mention.self and others:
            return 1  # "we moved him to Ashgrove": the speaker acts, the relative may be whom it is about
        return 1 if any(_related(mention.kin, k) for k in question.kin) else 2
    def is_asked(words: frozenset[str]) -> bool:
        return bool(words) and any(n and n <= words for n in question.names)
    if mention.kin is not None:  # "my brother Theo" is Theo, "her brother Otto" Otto Tolliver; "my sister" no one asked
        if mention.name and any(n and (n <= mention.name or mention.name <= n) for n in question.names):
            return 0
        # "Tamsin's mum rang: ..." passes on news of its owner, the asked subject, whom it may be about
        return 1 if mention.tells and not mention.name and is_asked(_owner_words(mention.owner)) else 2
    if question.kin_answers and not question.names and (mention.self or (
            mention.name and speaker_words and mention.name <= speaker_words)):
        return 1  # "i report to Teodor Maas now" for "who's my manager?": the asker's own tie, told by them
    if mention.self:
        return (0 if is_asked(speaker_words) else 2) if speaker_words else 1
    return 0 if any(mention.name <= n or n <= mention.name for n in question.names if n) else 2


def ranks(results: Sequence[Mapping[str, Any]], question: Asked, speakers: Mapping[Any, str | None],
          known: Sequence[frozenset[str]] = ()) -> list[int]:
    """Each result's :func:`rank`: its statement's :func:`first_mention` of ``known`` people, its turn's
    speaker from ``speakers`` (by Bronze event; a first-person text is about them)."""
    texts = [str(r.get("statement") or "") for r in results]
    question = named_in(question, texts)
    known = [*known, *(frozenset((w,)) for w in sorted(question.kin_names))]  # "ada switched schools": the daughter
    return [rank(question, first_mention(text, known), speakers.get(_event(r)), bool(_THIRD.search(text)))
            for r, text in zip(results, texts, strict=True)]


def named_in(question: Asked, texts: Iterable[str]) -> Asked:
    """``question`` with the names the ``texts`` give the relative it asks through: after "my daughter
    Ada goes to Wexmoor Primary", "ada switched schools" is about the daughter asked for, not someone
    else."""
    if not question.kin or question.kin_answers:
        return question
    found = {w for text in texts for m in _KIN.finditer(text)
             if m.group("name") and _noun(m.group("kin")) in question.kin for w in _tokens(m.group("name"))}
    return replace(question, kin_names=question.kin_names | found) if found - question.kin_names else question


def first_within_event(results: list[dict[str, Any]], question: Asked, ranked: Sequence[int]) -> list[dict[str, Any]]:
    """``results`` (best first) with each event represented by a text about the asked subject: when a
    later text of an event ranks better than the event's first (``ranked``, each result's
    :func:`rank`), the best-ranked of those takes the first one's place and score. Nothing moves
    between events."""
    if not question.known:
        return results
    out = list(results)
    ranking = list(ranked)
    seen: set[Any] = set()
    for place in range(len(out)):
        item = out[place]
        event = _event(item)
        if event is None or event in seen:
            continue
        seen.add(event)
        # a text about someone else gives way; one that names nobody gives way only to the relative asked about
        bar = ranking[place] if ranking[place] == 2 or (question.kin and not question.kin_answers) else 0
        later = [i for i in range(place + 1, len(out)) if _event(out[i]) == event and ranking[i] < bar]
        if not later and ranking[place] == 0:  # a part about the asked subject, of a text that names another too
            outer = str(item.get("statement") or "")
            later = [i for i in range(place + 1, len(out)) if _event(out[i]) == event and ranking[i] <= 1
                     and _narrows(outer, str(out[i].get("statement") or ""), question)]
        if not later:
            continue
        best = min(later, key=lambda i: (ranking[i], i))
        moved, moved_rank = out.pop(best), ranking.pop(best)
        out.insert(place, {**moved, "score": item["score"]})
        ranking.insert(place, moved_rank)
    return out


_OPENING_NAME = re.compile(r"\W*([A-Z][^\W\d_]+)")
_OPENING_RUN = re.compile(r"\W*([A-Z][^\W\d_]*(?:\s+[A-Z][^\W\d_]*)*)")


def _narrows(outer: str, inner: str, question: Asked) -> bool:
    """Whether ``inner`` is a part of ``outer`` that leaves out a name ``outer`` also gives, besides the
    asked ones: "Ama Quartey's in October." of "Benedikt Sorel's licence expires in March; Ama Quartey's in
    October." speaks of Ama alone."""
    inner = inner.strip()
    if not inner or inner == outer.strip() or inner not in outer:
        return False
    asked_words = frozenset().union(*question.names) if question.names else frozenset()
    # the outer text opens with someone else, whom the part leaves out ("Benedikt Sorel's licence …; Ama
    # Quartey's in October."); a text that opens with the asked subject is about them, its value whole
    # ("Ilkka Vaara's guardian is Maelle Dorn, Countess of Vire.")
    lead = _OPENING_RUN.match(outer)
    lead_words = _tokens(lead.group(1)) - _NOT_NAMES if lead else frozenset()
    if not lead_words:  # the names after a label that names nobody: "fyi for the lunch order: Garrick is …"
        label = LABEL.match(outer)
        lead = _OPENING_RUN.match(outer, label.end()) if label else None
        lead_words = _tokens(lead.group(1)) - _NOT_NAMES if lead else frozenset()
    if not lead_words or lead_words <= _tokens(inner) or any(
            n and (n <= lead_words or lead_words <= n) for n in question.names):
        return False
    opening = _OPENING_NAME.match(inner)
    # the part opens with the asked subject, or with one word of an asked name the outer text gives whole
    # ("Cosmo 16 kg." of "Twins Ada and Cosmo Renwick seen today: Ada weighs 14 kg, Cosmo 16 kg.")
    if first_mention(inner, question.names) is None and not (
            opening is not None and any(n and n <= _tokens(outer) and opening.group(1).casefold() in n
                                        for n in question.names)):
        return False
    others = {w for m in _CAPITALISED.finditer(outer) for w in _tokens(m.group(0))} - asked_words - _NOT_NAMES
    return bool(others - _tokens(inner))


def _event(item: Mapping[str, Any]) -> Any:
    return (item.get("provenance") or {}).get("bronze_event_id")


def by_part_of_name(text: str, words: frozenset[str], subject: frozenset[str]) -> bool:
    """Whether ``text`` (its tokens ``words``) names a person the question names in full by one part of
    the name, written as a name ("Ashlake reporting line updated: …" for "Corwin Ashlake"): a note refers
    to a person by surname or first name alone. A name with a number is a record's, not a person's."""
    if len(subject) < 2 or any(any(c.isdigit() for c in t) for t in subject):
        return False
    for t in (t for t in subject & words if len(t) > 2):
        name = re.escape(t[:1].upper() + t[1:])
        for m in re.finditer(rf"(?:\b[A-Z][\w'’-]*\s+)*\b{name}\b(?:\s+[A-Z][\w'’-]*)*", text):
            if _tokens(m.group(0)) <= subject:  # "Tobi Oyelaran" is no part of "Femi Oyelaran"
                return True
    return False
