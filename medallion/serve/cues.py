"""Words that say what a question asks and what a text says of change, read by the search stages that
order candidates (``serve/present.py``) before they compare any meaning.

A question's cues: whether it asks about now (:func:`about_the_present`), for one value or several
(:func:`asks_for_many`). A text's cues: whether it says something took another's place
(:func:`says_change`), whether it states a value at all (:func:`asserts_value`: not a plan still
weighed, not a request to forget), and whether it takes back what its speaker just said
(:func:`retracts`: "scratch that, …"). Closed classes of English words, no relation named: each cue
only loosens or tightens how the stages compare candidates, never what a candidate means.
"""

from __future__ import annotations

import re
from typing import Any

from medallion.distill.language.coordination import names_value
from medallion.silver import forget_requests

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
# Cues that a question asks about another time than now: a past auxiliary, a word that points back,
# a year, "used to" (not "used for": "Which card should be used for billing?"). "ever" asks about any
# time, which is not the present either.
PAST_WORDS = frozenset((
    "did", "was", "were", "had", "before", "previously", "formerly", "originally", "earlier",
    "first", "former", "ago", "prior", "past", "once", "ever", "then", "until", "initially",
))
_YEAR = re.compile(r"\b(1[5-9]|20)\d\d\b")
_USED_TO = re.compile(r"\b(?<!be\s)(?<!been\s)used?\s+to\b")  # "used to live"; "be used to" is a habit now
# Cues that it asks about now: a present auxiliary or a word for now, or a modal that asks what to do
# now ("Where should the order be shipped?", "Which number can we use?").
PRESENT_WORDS = frozenset((
    "is", "are", "am", "does", "do", "s", "now", "currently", "nowadays", "today", "still",
    "latest", "current", "presently", "anymore", "should", "shall", "must", "can", "has", "have",
))
NOW_WORDS = frozenset(("now", "currently", "nowadays", "today", "still", "latest", "current", "presently", "anymore"))
# Questions that ask for a reason, a manner, a count or a span ("why", "how", "how many"), or what
# someone has done ("has … participated"), ask about no single present state; "how old" and "how much"
# ask for a value that holds ("How much does the Pro plan cost?", "How much RAM does the node have?").
_NOT_A_STATE = re.compile(r"^\s*(?:why|how(?!\s+(?:old|much)\b))\b"
                          r"|\b(?:has|have)\s+(?:\w+\s+){0,3}?\w+(?:ed|en|wn|ne|ught)\b")
PRESENT_PHRASES = ("these days", "at the moment", "right now", "any more")


# Words inside a name that tell no name from another: "billing-api in prod" is mentioned by a note that says
# "deployed billing-api to prod", and "the Gallowmere team" by "the gallowmere standup".
NAME_LINKS = frozenset(("a", "an", "and", "at", "by", "for", "from", "in", "of", "on", "the", "to", "with"))


def tokens(text: Any) -> set[str]:
    return set(_TOKEN.findall(str(text or "").casefold()))


# "Who owns Project Larkspur?", "Which team handles billing?": a wh-word (and its noun) followed by a verb
# in the present third person asks about now as an auxiliary would.
_PRESENT_VERB = re.compile(r"^\s*(?:who|what|which\s+[a-z-]+)\s+(?!(?:was|has|does|is|goes)\b)[a-z]+[^s'\W]s\b")


def about_the_present(question: str) -> bool:
    """Whether the question asks about now: a present cue and no past one.

    A question with neither ("Who owned the van?": its tense is in the verb) is not reordered.
    """
    lowered = question.casefold().replace("’", "'")
    words = set(_TOKEN.findall(lowered))
    if words & PAST_WORDS or _YEAR.search(lowered) or _USED_TO.search(lowered):
        return False
    now = bool(words & NOW_WORDS) or any(p in lowered for p in PRESENT_PHRASES)
    if not now and _NOT_A_STATE.search(lowered):
        return False
    return now or bool(words & PRESENT_WORDS) or bool(_PRESENT_VERB.match(lowered))


_WH_NOUN = re.compile(r"^\s*(?:what|which)\s+(?:[a-z-]+\s+){0,2}?(?P<noun>[a-z-]+)\s+"
                      r"(?:is|are|was|were|does|do|did|has|have)\b")
_OWNED_NOUN = re.compile(r"\b[\w-]+(?:'s|’s|')\s+(?:[a-z-]+\s+){0,2}?(?P<noun>[a-z-]+)\s*[?.!]*\s*$")
_NOT_PLURAL = re.compile(r"(?:ss|us|is|ics|news|series)$")


def asks_for_many(question: str) -> bool | None:
    """Whether the question asks for several values by its head noun ("What are Hamid's hobbies?",
    "Which languages does she speak?": True), for one ("Which plan is Bram on?", "What is Priya's job
    title?": False), or does not say ("Where does Selma work?": None)."""
    lowered = question.casefold().replace("’", "'")
    found = _WH_NOUN.match(lowered) or _OWNED_NOUN.search(lowered)
    if found is None:
        return None
    noun = found.group("noun")
    return noun.endswith("s") and not _NOT_PLURAL.search(noun)


# Change words that also say what holds now (in both lists below): a present restatement, a new
# membership or contract, a record's new state, the start of something new.
_NEW_STATE = (r"these\s+days|nowadays|currently|updated|joined|signed|traded|hand(?:ed|s|ing)?\s+over|resolved|"
              r"reopened|completed|reissued|rebooked|rescheduled|rerouted|first\s+(?:day|week|shift|month)\s+"
              r"(?:at|with|in|on)")
# Words that say a value took another's place or ended, or restate what holds at present ("these days",
# "currently": said of a value only when an earlier one is in question). Query time reads more of them than the ledger
# (silver/slot_meaning.states_change), since here they only loosen how alike two turns must be.
_CHANGE_WORDS = re.compile(r"\b(?:now|new|no\s+longer|any\s*more|instead|switched|quit|passed\s+away|died|sold|"
                           r"broke\s+up|gave\s+up|left|started|"
                           r"moved|changed|finally|officially|reassigned|relocated|renamed|replaced|retired|"
                           r"upgraded|downgraded|escalated|bumped|promoted|demoted|transferred|swapped|"
                           r"scratch\s+that|actually|change\s+of\s+plans?|turns?\s+out|replacements?|"
                           r"(?:going|moving)\s+forward|from\s+(?:today|here)\s+on|effective|"
                           rf"as\s+of|took\s+over|taken\s+over|taking\s+over|takes\s+over|{_NEW_STATE}|"
                           r"cancell?ed|closed|returned)\b", re.I)
_ADDING_WORDS = re.compile(r"\b(?:also|too|another|as\s+well)\b", re.I)


def says_change(text: str) -> bool:
    """Whether a text says that something took another's place or ended: a change word ("now", "new",
    "switched", "quit", "reassigned"), and no word that adds one more ("also")."""
    return bool(_CHANGE_WORDS.search(text)) and not _ADDING_WORDS.search(text)


# Of the change words, those that say only that something ended, and those that say what holds now
# (not "actually", "finally": they stress a sentence as often as they mark a change).
_ENDING_WORDS = re.compile(r"\b(?:no\s+longer|any\s*more|quit|passed\s+away|died|left|dropped|stopped|gave\s+up|"
                           r"sold|broke\s+up|ended|cancell?ed|lost)\b", re.I)
_NOW_WORDS = re.compile(r"\b(?:now|new|switched|started|moved|changed|reassigned|relocated|renamed|"
                        r"replaced|replacements?|upgraded|downgraded|escalated|bumped|promoted|demoted|transferred|"
                        rf"swapped|(?:going|moving)\s+forward|effective|as\s+of|t(?:ook|aken|aking|akes)\s+over|"
                        rf"{_NEW_STATE})\b",
                        re.I)


def news(text: str) -> int:
    """What a text of a turn that changed something says: 0 what holds now ("I'm doing Italian on an app
    now", "switched to Korean"), 2 only what ended ("Pickle passed away in march"), 1 neither ("honestly
    Korean was too much for me"). Of the newest turn's texts, the one saying what holds now answers. A text
    with an ending word that also names a value (a name after its first word, a number) is not only an
    ending."""
    if not says_change(text):
        return 1
    if _NOW_WORDS.search(text):
        return 0
    # only what ended: a text that also names a value ("it's 0798 644 2107, the old sim just died") tells more
    return 2 if _ENDING_WORDS.search(text) and not names_value(text) else 1


# Words that say a plan is not yet decided: "might switch", "maybe", "not sure yet", "thinking about".
_TENTATIVE = re.compile(r"\b(?:might|maybe|perhaps|possibly|probably|not\s+sure|undecided|thinking\s+(?:about|of)|"
                        r"considering|torn\s+between|either\b.{1,40}\bor)\b", re.I)


def asserts_value(text: str) -> bool:
    """Whether a text states a value, so that it may take a cluster's first place as the newest: not
    when it only considers a change ("might switch to X", "either A or B, not sure yet") or asks the
    memory to forget or to keep something ("delete what I told you about her job", "keep the dentist
    info tho")."""
    return not _TENTATIVE.search(text) and not forget_requests.instructs(text)


# What a speaker opens with to take back what they just said: "scratch that, …", "actually …",
# "correction: …", "make that …", "on second thought …", "wait, no, …". Interjections may come first.
_RETRACTS = re.compile(r"^\W*(?:(?:ok(?:ay)?|oh|hmm+|um+|sorry|oops|ah|wait(?!\W+no\b))\b[\s,.!:;-]*)*"
                       r"(?:scratch\s+that|actually|correction|make\s+(?:that|it)|on\s+second\s+thoughts?|"
                       r"change\s+of\s+plans?|never\s*mind|i\s+meant|(?:no|nope)\W+wait|wait\W+no|my\s+bad)\b",
                       re.I)


def retracts(text: str) -> bool:
    """Whether a text opens by taking back what its speaker said before it ("scratch that, saturday works
    better"): it answers what that turn was about, however few of the question's words it repeats."""
    return bool(_RETRACTS.match(text.replace("’", "'")))
