"""Lines, sentences, clauses and their subjects: the event's context (speaker, team, people named so
far), who speaks a line, sentence boundaries, the normalised text (contractions, fillers, greetings
and hedges removed), what is noise, where a sentence splits into clauses, and the subject at a
clause's start (I, we, he / she resolved, a name, a noun phrase)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from medallion.distill.language.lexicon import (
    AGENT_LABELS,
    EMAIL_RE,
    IRREGULAR_PAST,
    LABELS,
    MONTHS,
    NAME,
    NAME_RE,
    NAME_TOKEN,
    ORG_SUFFIX_RE,
    PLACE_PREPS,
    STOP_CAPS,
    SYSTEM_LABELS,
    USER_LABELS,
    WEEKDAYS,
    word_set,
)
from medallion.distill.language.wording import speaker_from_actor, title_name
from medallion.distill.types import EventInput

HEADER_RE = re.compile(r"^\s*\[(?P<body>[^\]]*\b(?:attendees|participants|present)\s*:[^\]]*)\]\s*$", re.I)
_SPEAKER_RE = re.compile(
    r"^\s*(?:\[[^\]]{1,30}\]\s*|\(?\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]m)?\)?\s*-?\s*)?"
    r"(?P<name>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2})\s*:\s+(?P<rest>\S.*)$"
)
_TIMESTAMP_PREFIX_RE = re.compile(r"^\s*(?:\[\d{1,2}:\d{2}(?::\d{2})?[^\]]{0,12}\]|\(\d{1,2}:\d{2}\))\s*")
_BULLET_RE = re.compile(r"^\s*(?:[-*•>]+|\d+[.)]|#+)\s+")
HEADING_RE = re.compile(r"^\s*#+\s")
# A sentence ends at its stop, or in chat at an emoji before more text ("Pickle passed away 😢 we adopted
# a greyhound"); a heart is left alone, since it often stands for a verb ("I ❤️ Lisbon").
_EMOJI = "\U0001F300-\U0001F5FF\U0001F600-\U0001F64F\U0001F680-\U0001F6FF\U0001F900-\U0001FAFF"
_BOUNDARY_RE = re.compile(r"(?:[.!?…]+[\"'’”)\]]*|[" + _EMOJI + r"][" + _EMOJI + r"\ufe0f\u200d]*)(?=\s|$)")
# "F.C.", "D.C.", "p.m.": an initialism ends a sentence only when a capital follows it
_INITIALISM_RE = re.compile(r"^(?:[a-z]\.)+[a-z]$")
_ABBREV = word_set(
    """
    e.g i.e mr mrs ms dr st vs etc inc ltd jr sr prof approx no fig al cf esp dept est mt ft u.s a.k.a
    """
)

SYSTEM_RE = re.compile(
    r"^(?:system\s*:|<\|?system\|?>|you\s+are\s+(?:a|an|the|now|[A-Z])|you're\s+(?:a|an|the)\s|as\s+an?\s+"
    r"(?:ai|language\s+model|llm|assistant|helpful)|your\s+(?:task|job|role|goal|purpose)\s+is|"
    r"(?:never|do\s+not|don't)\s+(?:reveal|disclose|make\s+up|mention|share)|always\s+(?:answer|respond|reply)|"
    r"(?:answer|respond|reply)\s+(?:concisely|briefly|in\s+\w+|only|with)|use\s+the\s+tools?\b|"
    r"if\s+you\s+(?:are|'re)\s+(?:unsure|not\s+sure)|follow\s+these\s+instructions|ignore\s+(?:all\s+)?previous)",
    re.I,
)
SECOND_PERSON_RE = re.compile(r"^(?:you|your|you're|you've|you'll|you'd|u)\b", re.I)

_INTERJ_PUNCT = (
    r"(?:hi|hey|hello|hiya|yo|howdy|greetings|morning|afternoon|evening|good\s+(?:morning|afternoon|evening|day)|"
    r"yes|yeah|yep|yup|no|nope|wow|whoa|great|cool|nice|awesome|perfect|amazing|sweet|lovely|sure|thanks|"
    r"thank\s+you|thx|ty|cheers|lol|haha+|hah|hmm+|um+|uh+|aw+|oh\s+wow|omg|congrats|congratulations|"
    r"sorry|oops|right|alright|all\s+right|indeed|totally|exactly|absolutely|true|agreed|noted|got\s+it|"
    r"fair\s+enough|welcome)"
)
_INTERJ_BARE = r"(?:ok|okay|k|kk|so|well|oh|ah|anyway|anyways|btw|fyi|then|also|and|but|plus|like|tbh|imo|ps)"
_WHO = r"(?:all|everyone|everybody|team|folks|guys|there|y'all|you\s+all|again|both|friends)"
_INTERJ_RE = re.compile(
    rf"^(?:(?:{_INTERJ_PUNCT}(?:\s+{_WHO})?(?:,?\s+{NAME_TOKEN})?\s*[,!.:;~-]+\s*)"
    rf"|(?:{_INTERJ_PUNCT}(?:\s+{_WHO})\s+)|(?:{_INTERJ_BARE}(?:\s*[,!.:;-]+)?\s+))+",
    re.I,
)
# A greeting, thanks or acknowledgement is a run of noise units (a word below, or any capitalised
# word) and noise phrases. Each unit ends at its word's end, so one atomic group reads it; a phrase
# is tried only when one of its words is no unit by itself ("Good luck": "luck"), since otherwise the
# units read it too ("Good Morning") and a failing match would try every way of grouping a long run.
_NOISE_WORDS = (
    r"hi|hey|hello|yo|morning|thanks?|thx|ty|cheers|ok|okay|sure|sgtm|lgtm|great|cool|nice|awesome|perfect|lol|"
    r"haha+|\+1|yes|yeah|yep|no|nope|congrats|congratulations|bye|goodbye|ttyl|noted|np|agreed|same|done|so|very|"
    r"much|again|all|everyone|everybody|guys|team|folks|y'all|mate|buddy"
)
_NOISE_UNIT = rf"(?:{_NOISE_WORDS}|(?-i:[A-Z][a-z]+))\b"
_NOISE_PHRASES = [
    r"good\s+(?:morning|afternoon|evening|night)", r"thanks?\s+you", r"sounds\s+good", r"see\s+you", r"see\s+ya",
    r"got\s+it", r"will\s+do", r"on\s+it", r"no\s+problem", r"no\s+worries", r"me\s+too",
    r"good\s+to\s+see\s+you", r"nice\s+to\s+meet\s+you", r"talk\s+(?:soon|later)",
    r"talk\s+to\s+you\s+(?:soon|later)", r"take\s+care", r"good\s+luck", r"well\s+done", r"nice\s+work",
    r"great\s+work", r"good\s+job", r"great\s+job", r"totally\s+agree", r"makes\s+sense", r"a\s+lot", r"a\s+ton",
]
_GAP = r"\s+"
_NOISE_PHRASE = "|".join(
    [rf"(?!{_NOISE_UNIT}(?:\s+{_NOISE_UNIT}){{{len(p.split(_GAP)) - 1}}}){p}" for p in _NOISE_PHRASES]
    + [r"i\s+(?:totally\s+|completely\s+|fully\s+)?agree"]
)
_NOISE_RE = re.compile(
    rf"^(?:(?:(?:{_NOISE_PHRASE})\b|(?>{_NOISE_UNIT}))[\s\W]*)+$"
    r"|^(?:welcome|congrats|congratulations|happy\s+(?:birthday|holidays|new\s+year|friday|monday)|good\s+luck|"
    r"have\s+a\s+(?:good|great|nice|lovely|wonderful)|see\s+you|talk\s+to\s+you|enjoy|safe\s+travels|get\s+well|"
    r"welcome\s+aboard|well\s+done|nice\s+one|way\s+to\s+go)\b(?!.*\b(?:I|I'm|my|we|our)\b)",
    re.I,
)
_REACTION_RE = re.compile(
    r"^(?:(?:that|this|it)(?:\s+is|'s|\s+was|\s+sounds|\s+looks|\s+seems)|so|how|what\s+an?|sounds|looks|"
    r"such\s+an?)\s+(?:so\s+|really\s+|very\s+|super\s+|totally\s+|pretty\s+|truly\s+|just\s+)*"
    r"(?:cool|great|awesome|amazing|nice|sweet|good|bad|sad|lovely|wonderful|fantastic|exciting|interesting|"
    r"inspiring|fun|funny|beautiful|incredible|impressive|brilliant|terrific|neat|fab|fabulous|awful|"
    r"terrible|rough|tough|hard|crazy|wild|true|right|fair|helpful|kind|thoughtful|special|powerful|"
    r"gorgeous|stunning|cute|adorable|excellent|perfect|lucky|exciting\s+news|great\s+news|good\s+news)\b",
    re.I,
)
REQUEST_RE = re.compile(
    r"^(?:please|pls|plz|kindly|let's|let\s+us|lets|don't\s+forget|remember\s+to|make\s+sure|can\s+you|"
    r"could\s+you|would\s+you|feel\s+free|reach\s+out|ping\s+me|dm\s+me|check\s+out|take\s+a\s+look)\b",
    re.I,
)
_PREAMBLE_RE = re.compile(r"^(?P<label>[^:\n]{1,48}?)\s*:\s+(?=\S)")

# Contractions and normalisation.
QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-", "\u00a0": " "})
_CONTRACTIONS = [
    (re.compile(r"\bI'm\b"), "I am"),
    (re.compile(r"\bIm\b(?=\s+(?:a|an|the|on|in|at|from|based|not|so|now|also|[a-z]+ing)\b)"), "I am"),
    (re.compile(r"\bI've\b"), "I have"),
    (re.compile(r"\bI'll\b"), "I will"),
    (re.compile(r"\bI'd(?=\s+(?:been|had|gone|done|seen|[a-z]+ed)\b)"), "I had"),
    (re.compile(r"\bI'd\b"), "I would"),
    (re.compile(r"\b([Ww])e're\b"), r"\1e are"),
    (re.compile(r"\b([Ww])e've\b"), r"\1e have"),
    (re.compile(r"\b([Ww])e'll\b"), r"\1e will"),
    (re.compile(r"\b([Ww])e'd\b"), r"\1e would"),
    (re.compile(r"\b([Hh]e|[Ss]he|[Ii]t|[Tt]hat|[Tt]here|[Ww]hat)'s\b"), r"\1 is"),
    (re.compile(r"\b([Ll])et's\b"), r"\1et us"),
    (re.compile(r"\b([Cc])an't\b"), r"\1annot"),
    (re.compile(r"\b([Ww])on't\b"), r"\1ill not"),
    (re.compile(r"\b(\w+)n't\b"), r"\1 not"),
    (re.compile(r"\b([Gg])onna\b"), r"\1oing to"),
    (re.compile(r"\b([Ww])anna\b"), r"\1ant to"),
]
_CONTRACTIONS_BARE = [(rx, repl) for rx, repl in _CONTRACTIONS if "'" not in rx.pattern]
_FILLER_HINT_RE = re.compile(r"\b(?:by the way|btw|fyi|tbh|to be honest|as you know|as it happens|of course)\b")
_FILLER_WORDS = r"(?:by\s+the\s+way|btw|fyi|tbh|to\s+be\s+honest|as\s+you\s+know|as\s+it\s+happens|of\s+course)"
_FILLER_RE = re.compile(
    rf",\s*{_FILLER_WORDS}\s*(?=[,.!;]|$)|^{_FILLER_WORDS}\s*,?\s*|\s+{_FILLER_WORDS}\s*(?=[.!]?$)", re.I
)
_REACH_ME_RE = re.compile(
    r"^(?:you\s+can\s+(?:also\s+)?|feel\s+free\s+to\s+|please\s+)?(?:also\s+)?(?:reach|contact|email|mail|ping)\s+me\s+"
    r"(?:also\s+)?(?:at|on|via)\s+"
    r"(?=[A-Za-z0-9._%+-]+@)",
    re.I,
)


@dataclass
class Subject:
    """The subject at a clause's start: its name (None when unknown), its kind, whether it is a
    possessor ("my", "Dana's") and the clause text after it."""

    name: str | None
    kind: str  # fp | we | third | np | none
    possessive: bool = False
    rest: str = ""


# Leading subject parsing.
_LEAD_FP = re.compile(r"^I\s+")
_LEAD_MY = re.compile(r"^[Mm]y\s+")
_LEAD_WE = re.compile(r"^(?:[Ww]e|[Ll]et\s+us|(?:[Tt]he|[Oo]ur)\s+(?:whole\s+)?team)\s+")
_LEAD_OUR = re.compile(r"^[Oo]ur\s+")
LEAD_PRO = re.compile(r"^(?P<p>[Hh]e|[Ss]he)\s+")
LEAD_PRO_POSS = re.compile(r"^(?P<p>[Hh]is|[Hh]er)\s+")
_LEAD_NAME = re.compile(rf"^(?P<n>{NAME})(?P<poss>'s?)?\s+(?=\S)")
_LEAD_NP = re.compile(
    r"^(?:[Tt]he|[Tt]his|[Tt]hat)\s+(?P<np>[\w#./-]+(?:\s+[\w#./-]+){0,4}?)\s+"
    r"(?=(?:is|are|was|were|has|have|had|runs|uses|now|currently|still|will|can|lives|owns|moved|sits)\b)"
)
_LEAD_BARE_NP = re.compile(
    r"^(?P<np>(?>[a-z][\w#./-]*[-_.]\w+)(?:\s+[a-z][\w-]+){0,2}?)\s+"
    r"(?=(?:is|are|was|were|has|have|runs|uses|now|currently|still|will|lives|owns|moved)\b)"
)
_VERBISH_RE = re.compile(
    r"^(?:is|are|was|were|am|has|have|had|will|would|can|could|should|must|may|might|does|did|do|shall|"
    r"owns|uses|works|lives|joined|left|reports|manages|leads|runs|said|says|thinks|wants|likes|loves|"
    r"prefers|needs|got|became|started|moved|went|also|now|just|still|never|always|usually|really|"
    r"\w+ed|\w+s)\b"
)

# Clause splitting.
_SPLIT_INDEP_RE = re.compile(
    r"\s*;\s+|\s+[-–—]\s+|,?\s+(?:and|but|so|because|while|although|though|whereas|as)\s+(?=(?:I|[Ww]e|[Hh]e|[Ss]he|"
    r"[Mm]y|[Oo]ur|[Hh]is|[Hh]er)\s)|,\s+(?=(?:I|[Ww]e|[Mm]y|[Oo]ur)\s)"
)
_SPLIT_TAIL_RE = re.compile(r",\s+(?:so|but|because|and|which\s+means)\s+")
_SPLIT_CARRY_RE = re.compile(
    r"\s+and\s+(?=(?:will|is|are|was|were|has|have|had|would|can|could|should|must|lives|works|owns|uses|likes|"
    r"loves|prefers|reports|leads|manages|joined|moved|left|started|went|attended|plans|wants|is|also\s+\w+s)\b)"
)


@dataclass
class Clause:
    """A piece of a sentence: the main clause, an independent one, one that carries the previous
    subject ("… and will pair with Bob"), or a tail after ", so" / ", but"."""

    text: str
    kind: str  # main | indep | carry | tail


@dataclass
class Context:
    """What one event's sentences share: its day, the actor's name, the team, the ticket or repo a
    title is about, and the people named so far (for he / she)."""

    event: EventInput
    today: date
    occurred: datetime
    actor_speaker: str | None
    team: str | None
    ctx_subject: str | None
    title: str | None
    last_person: str | None = None
    people: set[str] = field(default_factory=set)


def make_context(event: EventInput) -> Context:
    """The context of ``event`` before its first line is read."""
    occurred = event.occurred_at
    if occurred.tzinfo is None:
        occurred = occurred.replace(tzinfo=UTC)
    occurred = occurred.astimezone(UTC)
    speaker = speaker_from_actor(event.actor)
    meta = event.metadata if isinstance(event.metadata, dict) else {}
    team = meta.get("team") if isinstance(meta.get("team"), str) else None
    if not team and re.match(r"^team[-_]", event.namespace or ""):
        team = event.namespace
    ctx_subject = None
    first_line = event.content.lstrip().split("\n", 1)[0]
    if event.kind == "issue":
        m = re.match(r"^\s*(?:\[)?([A-Z][A-Z0-9]+-\d+|#\d+)\b", first_line)
        ctx_subject = m.group(1) if m else (str(meta.get("key")) if meta.get("key") else None)
    elif event.kind == "commit":
        repo = meta.get("repo")
        ctx_subject = str(repo) if repo else None
    title = meta.get("title") if isinstance(meta.get("title"), str) else None
    ctx = Context(event, occurred.date(), occurred, speaker, team, ctx_subject, title)
    if speaker:
        ctx.people.add(speaker)
    attendees = meta.get("attendees")
    if isinstance(attendees, list):
        ctx.people.update(title_name(str(a)) for a in attendees if isinstance(a, str) and a.strip())
    return ctx


def line_speaker(ctx: Context, line: str) -> tuple[str | None, int]:
    """(speaker for this line, offset where its text starts); speaker "" means skip the line."""
    m = _SPEAKER_RE.match(line)
    if m:
        label = m.group("name").strip()
        low = label.lower()
        if low in SYSTEM_LABELS:
            return "", 0
        if low in USER_LABELS:
            return ctx.actor_speaker, m.start("rest")
        if low in AGENT_LABELS:
            prefix = (ctx.event.actor or "").partition(":")[0].lower()
            return (ctx.actor_speaker if prefix == "agent" else "Assistant"), m.start("rest")
        first = low.split()[0]
        if low not in LABELS and first not in LABELS and first not in STOP_CAPS and not label.isupper():
            name = title_name(label)
            ctx.people.add(name)
            ctx.last_person = name
            return name, m.start("rest")
    ts = _TIMESTAMP_PREFIX_RE.match(line)
    return ctx.actor_speaker, (ts.end() if ts else 0)


def sentence_spans(line: str, offset: int) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``line`` from ``offset``; abbreviations and initials do not end one."""
    spans: list[tuple[int, int]] = []
    start = offset
    for m in _BOUNDARY_RE.finditer(line, offset):
        if m.start() < start:
            continue
        punct = line[m.start() : m.end()]
        if punct.startswith(".") and len(punct.rstrip("\"'’”)]")) == 1:
            word = re.search(r"(\S+)$", line[start : m.start()])
            token = word.group(1).lower().lstrip("(\"'") if word else ""
            if token in _ABBREV or (len(token) == 1 and token.isalpha()):
                continue
            following = line[m.end():].lstrip()[:1]
            if _INITIALISM_RE.match(token) and (following.islower() or following.isdigit()):
                continue
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(line)))
    out = []
    for a, b in spans:
        while a < b and line[a].isspace():
            a += 1
        while b > a and line[b - 1].isspace():
            b -= 1
        if b > a and out and not any(c.isalnum() for c in line[a:b]):
            out[-1] = (out[-1][0], b)  # "Great news! 🎉🎉": an emoji alone belongs to the sentence before it
        elif b > a:
            out.append((a, b))
    return out


def normalise(text: str) -> str:
    """Quotes, bullets, contractions, fillers and chat's lower-case "i" made regular for the patterns."""
    text = re.sub(r"(?<=\w)—(?=\w)", " - ", text).translate(QUOTES)  # "overnight—scanner": a dash between clauses
    text = _BULLET_RE.sub("", text, count=1)
    text = re.sub(r"\s+", " ", text).strip()
    low = text.lower()
    if "'" in text:
        for rx, repl in _CONTRACTIONS:
            text = rx.sub(repl, text)
    elif "im " in low or "nna " in low:
        for rx, repl in _CONTRACTIONS_BARE:
            text = rx.sub(repl, text)
    if _FILLER_HINT_RE.search(low):
        text = _FILLER_RE.sub("", text)
    if "@" in text:
        text = _REACH_ME_RE.sub("My email is ", text)
    text = re.sub(r"(?<![\w'-])i(?=\s|'|$)", "I", text)  # chat's lower-case "i"
    text = re.sub(r"(?<![\w'-])[Ii]m(?=\s)", "I'm", text)
    return text.strip()


# irregular past forms that are also present tense or imperatives ("Let's", "Put it there")
_NOT_PAST = word_set("been gone done seen was were had used let put hit hurt read quit shut lay lit set cut cost")
_ELLIPSIS_RE = re.compile(r"^(?:(?:just|finally|also|recently|officially|already|actually|now|literally|"
                          r"basically|really|totally|honestly|only|even)\s+){0,2}"
                          r"(?P<verb>[A-Za-z]+)\b", re.I)


def restore_subject(text: str, speaker: str | None) -> str:
    """Chat drops the first person: "moved to inverness over the weekend", "got promoted today".
    A sentence that opens with a past-tense verb has the speaker as its subject."""
    m = _ELLIPSIS_RE.match(text)
    if speaker is None or not m:
        return text
    verb = m["verb"].lower()
    if verb in IRREGULAR_PAST - _NOT_PAST or (
            verb.endswith("ed") and len(verb) > 4 and verb not in ("need", "indeed", "speed", "seed", "feed")):
        return f"I {text[0].lower()}{text[1:]}"
    return text


# "new address is …", "current plan: …": chat drops the owner of an attribute it renews
_ELIDED_OWNER_RE = re.compile(r"^(?:(?:and|so|oh)\s+)?(?P<rest>(?:new|current|latest|updated)\s+[a-z]+(?:\s+[a-z]+)?"
                              r"\s*(?:is\b|:))", re.I)


def restore_owner(text: str, person: str | None) -> str:
    """A person's turn that opens with a renewed attribute and no owner ("new address is 48 Avenida da
    Liberdade", "current job: barista") speaks of the speaker's own: "My new address is …". ``person`` is
    the speaker when the turn is a person's (a note's "New number: …" is about whom the note names)."""
    m = _ELIDED_OWNER_RE.match(text)
    if person is None or not m:
        return text
    rest = m["rest"]
    return f"My {rest[0].lower()}{rest[1:]}{text[m.end():]}"


_HEDGE_RE = re.compile(
    r"^(?:I\s+)?(?:think|guess|reckon|suppose|believe|feel\s+like|figure)\s+(?:that\s+)?(?=(?:I|[Ww]e)\s)", re.I
)


def strip_lead(text: str, ctx: Context) -> str:
    """The sentence without its greetings, hedges ("I think") and "Label:" preambles."""
    for _ in range(4):
        before = text
        text = _INTERJ_RE.sub("", text).strip()
        text = _HEDGE_RE.sub("", text)
        m = _PREAMBLE_RE.match(text)
        if m:
            label = m.group("label").strip()
            words = label.split()
            if len(words) <= 6 and not re.search(r"\d{1,2}$", label) and not EMAIL_RE.search(label):
                low = label.lower()
                if not (
                    len(words) <= 3
                    and NAME_RE.fullmatch(label)
                    and low not in LABELS
                    and words[0].lower() not in LABELS
                ):  # noqa: E501
                    text = text[m.end() :].strip()
        if text == before:
            break
    return text


def is_noise(text: str, ctx: Context) -> bool:
    """Fragments, greetings, thanks, reactions, and a repeat of the meeting title assert nothing."""
    bare = re.sub(r"[^\w\s'@+-]", " ", text).strip()
    words = bare.split()
    if len(words) < 3:
        return True
    if _NOISE_RE.match(text) or _REACTION_RE.match(text):
        return True
    return bool(ctx.title and bare.lower() == re.sub(r"[^\w\s'@+-]", " ", ctx.title).strip().lower())


_FRONT_DATE_RE = re.compile(
    rf"^(?P<d>(?:(?:on|last|next|this|by)\s+)?(?:{'|'.join(WEEKDAYS)}|week|month|year|weekend)|yesterday|today|"
    rf"tomorrow|tonight|last\s+night|this\s+(?:morning|afternoon|evening)|(?:on\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+"
    rf"(?:of\s+)?(?-i:[A-Z][a-z]+)(?:\s+\d{{4}})?|(?:in\s+)?\d{{4}}|\d+\s+\w+\s+ago|(?:on\s+)?\d{{4}}-\d{{2}}-\d{{2}})"
    rf"\s*,?\s+(?=(?:I|[Ww]e|[Mm]y|[Oo]ur|[Hh]e|[Ss]he|(?-i:[A-Z][a-z]+\s+(?:is|was|will|has|moved|joined|left|"
    rf"started|went)))\b)",
    re.I,
)


def front_date_to_end(text: str) -> str:
    """ "Next Friday I will present X" → "I will present X next Friday" (the subject comes first)."""
    m = _FRONT_DATE_RE.match(text)
    if not m:
        return text
    phrase = m.group("d")
    if phrase.split()[0].lower() in (
        "next",
        "last",
        "this",
        "on",
        "in",
        "by",
        "yesterday",
        "today",
        "tomorrow",
        "tonight",
    ):
        phrase = phrase[0].lower() + phrase[1:]
    return f"{text[m.end() :]} {phrase}"


def split_clauses(text: str) -> list[Clause]:
    """The sentence cut where a new subject starts and where a verb continues the previous one."""
    body = text.rstrip(".!")
    pieces: list[Clause] = []
    pos = 0
    for m in _SPLIT_INDEP_RE.finditer(body):
        pieces.append(Clause(body[pos : m.start()], "main" if not pieces else "indep"))
        pos = m.end()
    pieces.append(Clause(body[pos:], "main" if not pieces else "indep"))
    out: list[Clause] = []
    for piece in pieces:
        parts = _SPLIT_TAIL_RE.split(piece.text)
        for i, part in enumerate(parts):
            kind = piece.kind if i == 0 else "tail"
            carry = _SPLIT_CARRY_RE.split(part)
            for j, sub in enumerate(carry):
                sub = sub.strip(" ,")
                if sub:
                    out.append(Clause(sub, kind if j == 0 else "carry"))
    return out


def lead_text(text: str) -> str | None:
    """The words a carried clause borrows as its subject ("Tigran" for "… and will pair with Bob")."""
    if _LEAD_FP.match(text):
        return "I"
    m = _LEAD_WE.match(text)
    if m:
        return m.group(0).strip()
    m = LEAD_PRO.match(text)
    if m:
        return m.group("p")
    m = _LEAD_NP.match(text)
    if m:
        return text[: m.end()].strip()
    m = _LEAD_NAME.match(text)
    if m and not m.group("poss") and m.group("n").split()[0].lower() not in STOP_CAPS:
        return m.group("n")
    return None


def note_people(ctx: Context, text: str, subj: Subject | None = None) -> None:
    """Remember the last person the text names, for a later he / she."""
    if subj is not None and subj.kind == "third" and subj.name and subj.name in ctx.people:
        ctx.last_person = subj.name
    for m in NAME_RE.finditer(text):
        name = m.group(0)
        if m.start() == 0 or name.split()[0].lower() in STOP_CAPS or any(ch.isdigit() for ch in name):
            if m.start() == 0 and subj is not None and subj.kind == "third" and subj.name == name:
                ctx.last_person = name
            continue
        prev = text[: m.start()].split()
        if prev and prev[-1].lower() in PLACE_PREPS:
            continue
        if MONTHS.get(name.lower()) or name.lower() in WEEKDAYS:
            continue
        ctx.last_person = name


def parse_subject(ctx: Context, speaker: str | None, text: str) -> Subject:
    """The subject at the start of a clause, resolved where the event makes it obvious."""
    m = _LEAD_FP.match(text)
    if m:
        return Subject(speaker, "fp", False, text[m.end() :])
    m = _LEAD_MY.match(text)
    if m:
        return Subject(speaker, "fp", True, text[m.end() :])
    m = _LEAD_WE.match(text)
    if m:
        return Subject(ctx.team, "we", False, text[m.end() :])
    m = LEAD_PRO.match(text)
    if m:
        return Subject(ctx.last_person, "third" if ctx.last_person else "none", False, text[m.end() :])
    m = LEAD_PRO_POSS.match(text)
    if m and ctx.last_person:
        return Subject(ctx.last_person, "third", True, text[m.end() :])
    m = _LEAD_OUR.match(text)
    if m:
        return Subject(ctx.team, "we", True, text[m.end() :])
    m = _LEAD_NP.match(text)
    if m:
        return Subject(m.group("np"), "np", False, text[m.end() :])
    m = _LEAD_NAME.match(text)
    if m:
        name = m.group("n")
        first = name.split()[0].lower()
        rest = text[m.end() :]
        if first not in STOP_CAPS and (m.group("poss") or _VERBISH_RE.match(rest) or name in ctx.people):
            return Subject(name, "third", bool(m.group("poss")), rest)
    m = _LEAD_BARE_NP.match(text)
    if m:
        return Subject(m.group("np"), "np", False, text[m.end() :])
    return Subject(None, "none", False, text)


def is_person(ctx: Context, subj: Subject) -> bool:
    """Whether the subject is a person (lives somewhere) rather than a thing (is located somewhere)."""
    if subj.kind == "fp":
        return True
    if subj.kind != "third" or not subj.name:
        return False
    if subj.name in ctx.people:
        return True
    return not (any(ch.isdigit() for ch in subj.name) or ORG_SUFFIX_RE.search(subj.name))
