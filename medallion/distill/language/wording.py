"""How values and statements are worded: first person resolved to the speaker (or the team) with
verb agreement, a value cut to its noun phrase, tool spellings and role titles made canonical, a
clause made a self-contained sentence, and an actor handle made a person's name."""

from __future__ import annotations

import re

from medallion.distill.language.dates import DATE_CUT_RE
from medallion.distill.language.lexicon import (
    ADVS,
    EMOTICON_RE,
    IRREGULAR_PAST,
    MODALS,
    NAME_RE,
    NON_PERSONAL_ACTORS,
    STOP_CAPS,
    THIRD_IRREGULAR,
    TOOL_CANON,
)


def _third_person(verb: str) -> str:
    """The verb agreeing with a third-person subject ("I live" → "Alice lives")."""
    low = verb.lower()
    if low in THIRD_IRREGULAR:
        return THIRD_IRREGULAR[low]
    if low in MODALS or low in IRREGULAR_PAST or low.endswith("ed") or low in ("is", "has", "does", "was"):
        return verb
    if not low.isalpha():
        return verb
    if low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return verb  # already third person ("the team uses" → "team-atlas uses")
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(low) > 2 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_FP_VERB_RE = re.compile(rf"(?<![\w'-])I\s+({ADVS})([A-Za-z']+)")
_FP_BARE_RE = re.compile(r"(?<![\w'-])I(?![\w'-])")
_WE_VERB_RE = re.compile(rf"(?<![\w'-])[Ww]e\s+({ADVS})([A-Za-z']+)")
_POSS_WORD_RE = {
    "my": re.compile(r"(?<![\w'-])[Mm]y(?![\w'-])"),
    "mine": re.compile(r"(?<![\w'-])[Mm]ine(?![\w'-])"),
    "myself": re.compile(r"(?<![\w'-])[Mm]yself(?![\w'-])"),
    "me": re.compile(r"(?<![\w'-])[Mm]e(?![\w'-])"),
    "our": re.compile(r"(?<![\w'-])[Oo]ur(?![\w'-])"),
    "ours": re.compile(r"(?<![\w'-])[Oo]urs(?![\w'-])"),
    "ourselves": re.compile(r"(?<![\w'-])[Oo]urselves(?![\w'-])"),
    "us": re.compile(r"(?<![\w'-])us(?![\w'-])"),
    "we": re.compile(r"(?<![\w'-])[Ww]e(?![\w'-])"),
}
_WORD_RE = re.compile(r"[a-z]+")
SECOND_PERSON_ANY_RE = re.compile(r"\b(?:you|your|yours|yourself|ya|u)\b", re.I)
_FP_WORDS = frozenset({"i", "me", "my", "mine", "myself"})
_WE_WORDS = frozenset({"we", "us", "our", "ours", "ourselves"})
FIRST_PERSON_RE = re.compile(r"(?<![\w'-])(?:I|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself|[Ww]e|us|[Oo]ur|[Oo]urs)(?![\w'-])")


def possessive_form(name: str) -> str:
    """"Alice's", "James'" (a trailing s takes the apostrophe alone)."""
    return f"{name}'" if name.endswith("s") and not name.endswith("ss") else f"{name}'s"


def resolve_person(text: str, speaker: str | None, team: str | None) -> str:
    """First person → the speaker (singular) or the team (plural), with verb agreement."""
    words = set(_WORD_RE.findall(text.lower()))
    if speaker and words & _FP_WORDS:

        def _verb(m: re.Match[str]) -> str:
            before = text[max(0, m.start() - 24) : m.start()]
            plural = re.search(r"\b[A-Za-z]\w*\s+(?:and|or)\s+$", before) and not re.search(
                r",\s*(?:and|or)\s+$", before
            )
            verb = m.group(2)
            return f"{speaker} {m.group(1)}{verb if plural else _third_person(verb)}"

        if "i" in words:
            text = _FP_VERB_RE.sub(_verb, text)
            text = _FP_BARE_RE.sub(speaker, text)
        if "myself" in words:
            text = _POSS_WORD_RE["myself"].sub(speaker, text)
        if "mine" in words:
            text = _POSS_WORD_RE["mine"].sub(possessive_form(speaker), text)
        if "my" in words:
            text = _POSS_WORD_RE["my"].sub(possessive_form(speaker), text)
        if "me" in words:
            text = _POSS_WORD_RE["me"].sub(speaker, text)
    if team and words & _WE_WORDS:
        text = _WE_VERB_RE.sub(lambda m: f"{team} {m.group(1)}{_third_person(m.group(2))}", text)
        text = _POSS_WORD_RE["we"].sub(team, text)
        text = _POSS_WORD_RE["ourselves"].sub(team, text)
        text = _POSS_WORD_RE["ours"].sub(possessive_form(team), text)
        text = _POSS_WORD_RE["our"].sub(possessive_form(team), text)
        text = _POSS_WORD_RE["us"].sub(team, text)
    return text


def _sentence_case(text: str) -> str:
    """A capital first letter, unless the text opens with an identifier ("atlas-api")."""
    text = text.strip()
    if text and text[0].islower() and not re.match(r"[a-z0-9]+[-_.][a-z0-9]", text):
        text = text[0].upper() + text[1:]
    return text


def as_statement(text: str) -> str:
    """One sentence, capitalised, ending in a single full stop."""
    text = re.sub(r"\s+", " ", text).strip().rstrip(" ,;:-")
    text = re.sub(r"[.!]+$", "", text).strip()
    return _sentence_case(text) + "."


_VALUE_CUT_RE = re.compile(
    r"\s*(?:[,;:!?()\[\]<>\"]|\s-\s|\.(?=\s|$))|\s+(?:because|since|so|but|which|who|whom|where|when|while|"
    r"although|though|until|unless|whereas|as\s+well|and\s+(?:I|we|he|she|they|it|then|also|now)|"
    r"and\s+(?:is|are|was|were|has|have|had|will|would|can|could)|by\s+the\s+way|if|after|before)\b"
)
_ARTICLE_RE = re.compile(r"^(?:(?:[Aa]n?|[Ss]ome|[Tt]his|[Tt]hat|the)\s+|The\s+(?![A-Z]))")
_TRAILING_ADV_RE = re.compile(  # (?<!\s): a run of spaces is entered once, at its start
    r"(?<!\s)(?:\s+(?:recently|lately|together|again|too|also|now|right\s+now|these\s+days|nowadays|a\s+lot|so\s+much|"
    r"very\s+much|sometimes|often|anymore|already|yet|though|especially|every\s+(?:day|week|month|year)|"
    r"for\s+years|for\s+ages|for\s+a\s+while|for\s+now|by\s+now|so\s+far))+$",
    re.I,
)
_FUNCTION_WORDS = frozenset({"to", "too", "so", "it", "do", "be", "go", "get", "a", "an", "the", "of", "and", "or"})
PRONOUN_VALUES = frozenset({"it", "this", "that", "them", "there", "here", "one", "those", "these", "him", "her"})


def clean_value(raw: str, cuts: tuple[str, ...] = (), keep_article: bool = False) -> str | None:
    """The value's noun phrase: cut at a date, a clause boundary or one of ``cuts``, without emoticons,
    articles and trailing adverbs; None when what is left is a pronoun or a function word."""
    v = raw.strip()
    m = DATE_CUT_RE.search(v)
    if m and m.start() > 0:
        v = v[: m.start()]
    m = _VALUE_CUT_RE.search(v)
    if m and m.start() > 0:
        v = v[: m.start()]
    for cut in cuts:
        m = re.search(rf"\s+{cut}\b", v)
        if m and m.start() > 0:
            v = v[: m.start()]
    v = EMOTICON_RE.sub("", v)
    v = v.strip().rstrip(".,;:!?-'\" ").strip()
    if not keep_article:
        v = _ARTICLE_RE.sub("", v)
    v = _TRAILING_ADV_RE.sub("", v).strip()
    v = re.sub(r"\s+", " ", v)
    low = v.lower()
    if not v or low in PRONOUN_VALUES or low.split()[0] in PRONOUN_VALUES or low in _FUNCTION_WORDS:
        return None
    return v


def leading_proper(value: str) -> str | None:
    """The proper noun a value starts with, when it is used as a noun ("Figma over Sketch" → "Figma")."""
    m = NAME_RE.match(value)
    if not m:
        return None
    name = m.group(0)
    if name.split()[0].lower() in STOP_CAPS:
        return None
    after = value[m.end() :].strip()
    if after and not re.match(
        r"^(?:over|and|or|for|instead|rather|than|when|because|in|on|at|to|with|as|from|but|,)\b", after
    ):
        return None
    return name


def canon_tool(value: str) -> str:
    """A tool's common spelling made canonical (postgres → PostgreSQL, k8s → Kubernetes)."""
    parts = value.split(" ", 1)
    canon = TOOL_CANON.get(parts[0].lower())
    if canon is None:
        m = re.match(r"^(postgres|postgresql|pg)(\d+(?:\.\d+)*)$", parts[0], re.I)
        if m:
            return f"PostgreSQL {m.group(2)}" + (f" {parts[1]}" if len(parts) > 1 else "")
        return value
    return canon + (f" {parts[1]}" if len(parts) > 1 else "")


SMALL_WORDS = frozenset({"of", "and", "the", "for", "in", "at", "to", "on", "a", "an", "&"})


def title_role(value: str) -> str:
    """A lower-case role title-cased ("design lead" → "Design Lead"), so it compares with HR records."""
    if value != value.lower():
        return value
    words = value.split()
    return " ".join(
        w
        if (i > 0 and w in SMALL_WORDS)
        else (w.upper() if w in {"pm", "qa", "sre", "cto", "ceo", "vp"} else w[:1].upper() + w[1:])
        for i, w in enumerate(words)
    )


def title_name(handle: str) -> str:
    """A handle as a name ("alice.smith" → "Alice Smith")."""
    parts = [p for p in re.split(r"[._\-\s]+", handle) if p]
    return " ".join(p[:1].upper() + p[1:] if p.islower() else p for p in parts)


def speaker_from_actor(actor: str | None) -> str | None:
    """The person an actor names ("user:alice" → "Alice"); None for systems, services and bots."""
    if not actor:
        return None
    prefix, sep, ident = actor.partition(":")
    if not sep:
        prefix, ident = "user", actor
    if prefix.strip().lower() in NON_PERSONAL_ACTORS:
        return None
    ident = ident.strip().split("@")[0]
    if not ident:
        return None
    return title_name(ident) or None
