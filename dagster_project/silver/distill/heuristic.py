"""S1 distill — the offline ``heuristic`` provider (deterministic, no network, no model).

One Bronze event in, zero or more :class:`FactCandidate` out. The pipeline, per event:

1. ``kind`` ``fact`` / ``document`` / ``overlay`` → ``[]`` (handled elsewhere: S1, S8, G-overlays).
   System-prompt events (``metadata.role == "system"`` or content opening with "You are …" /
   "As an AI …" from an agent or system actor) → ``[]``.
2. Lines. A meeting header line ``[Title - Room 101 - attendees: Alice, Bob]`` yields one
   ``attended`` fact per attendee plus ``<Title> located_in <Room>``. A line starting with a
   speaker prefix (``Caroline: …`` / ``Caroline : …``, LoCoMo and chat-export style) sets the
   speaker for that line, overriding the actor. Field labels (``Reporter:``, ``Note:``,
   ``Co-authored-by:`` …) are not speakers.
3. Sentence segmentation (``.``/``!``/``?`` followed by space or end of line, abbreviations and
   decimals protected), then per sentence: questions (ending in ``?``), greetings, thanks,
   acknowledgements, reactions ("that's so cool"), "please …"/"let's …" requests, second-person
   and system-prompt sentences, and fragments under three words yield nothing.
4. Clauses. A sentence is split where a new subject starts (", so my timezone is …", " and I use
   …", "; …", " - …") and where a verb continues the previous subject ("Tigran is based in Yerevan
   and will pair with Bob" → "Tigran will pair with Bob").
5. Pattern rules for the S9 vocabulary run on each clause (first match wins); a sentence in which
   no clause matched becomes one ``states`` fact; unmatched clauses of a sentence that did match
   become ``states`` only when they have a subject of their own.

Speaker and pronouns. The speaker is the line prefix, else the actor: ``user:alice`` → "Alice",
``agent:atlas-assistant`` → "Atlas Assistant"; ``system:*`` / ``service:*`` / ``bot:*`` actors have no
personal speaker (first-person clauses are then dropped, third-person ones still count). I / me /
my / mine / myself become the speaker in ``subject`` and ``statement`` with verb agreement ("I live
in Berlin" → "Bob lives in Berlin."). We / us / our / "the team" / "let's" become the team only
when it is obvious: the event's ``metadata.team``, else the namespace when it names a team
(``team-*``). Otherwise "we" is left unresolved: no pattern fact is drawn from it and the sentence is
kept as a ``states`` fact of the speaker ("Melanie: We went to the beach."). A clause-initial he /
she becomes the last person named earlier in the same event; with no antecedent the clause is dropped.

Dates (``valid_from``), relative to ``occurred_at`` (UTC), resolved to 00:00 UTC of the day:

* today / this morning → that day; yesterday / last night → −1 day; tomorrow → +1 day.
* last week → −7 days; next week → the Monday of the next calendar week; "over the weekend" →
  the most recent Saturday before the event day.
* last month → the same day one calendar month earlier, clamped to the month's length (31 March →
  28/29 February); last year → the same day one year earlier (29 February → 28 February).
* N days / weeks / months / years ago; in N days / weeks (future).
* next <weekday> → that weekday in the next calendar week (weeks start on Monday), so "next Friday"
  said on Thursday 12 November is Friday 20 November; last <weekday> → the most recent one strictly
  before; on / by <weekday> → the next one strictly after when the clause looks at the future (will,
  going to, plan, by, until …), else the most recent one strictly before.
* Absolute dates: ISO ``2026-11-04`` (a time, if given, is kept), ``3 May``, ``May 3``, ``3rd of
  May``, with or without a year, ``in March 2025``, ``in 2024``. A date without a year takes the most
  recent such date not after ``occurred_at``; in a future-looking clause (plans, goals, deadlines:
  "by 11 December") the next such date on or after it.
* No date → ``occurred_at`` itself.

Future dates never become ``valid_from``: ``plans`` and ``goal`` keep ``valid_from = occurred_at``
and carry the absolute date in their value ("present the billing roadmap at the all-hands on
2026-12-04"); any other state-changing rule (lives_in, works_at, member_of, role, owns, uses …)
whose clause is dated in the future, or that is phrased with will / going to, is emitted as
``plans`` instead ("Tigran Petrosyan joins team-atlas as a backend contractor on 2026-11-20").
``birthday`` takes the date as its value (``YYYY-MM-DD`` with a year, ISO 8601 ``--MM-DD`` without
one) and ``valid_from = occurred_at``. Statements replace relative dates by absolute ones ("Bob
moved to Lisbon on 2026-11-24.", "Bob switched to Neovim in October 2026.").

Decisions the issue left open:

* "left X" / "quit X" / "no longer work at X" → ``works_at`` with value ``"none (left X)"`` and no
  ``object_entity``: same slot, different value, so a judge sees a change (a contradiction of the
  old employer) rather than a second employer.
* Allergies and diets ("I'm allergic to peanuts", "I'm vegetarian") → ``states`` with value
  "allergic to peanuts" (a medical / dietary fact, not a taste; it must not decay or be contested like
  a preference). Explicit, so confidence 0.9 / 0.7 like the other patterns.
* Tool and version: "X runs / is on / was upgraded to <Tool> <N>", "upgrade X to Y", "<Tool> <N> for
  the X" → ``version`` with subject X ("atlas-api database", value "PostgreSQL 15"); a versioned tool
  with no explicit target ("we upgraded to Postgres 18", "the team uses Postgres 16") → ``uses`` of
  the team / speaker with value "PostgreSQL 18". Common tool spellings are canonicalised in
  uses/version values (Postgres → PostgreSQL, k8s → Kubernetes, nvim → Neovim).
* relationship values read from the subject: "Alice is Bob's manager" → (Alice, "manager of Bob"),
  "Carol reports to Dan" → (Carol, "reports to Dan"), "my sister Jane" → (Jane, "sister of Alice");
  ``object_entity`` is the other person.
* name: "I'm X" where X is the speaker yields nothing new; "my name is X" / "I'm X" (X different
  from the speaker's handle) → name; "call me X", "I go by X", "X, also known as Y" → alias.
* Role values in lower case are title-cased ("design lead" → "Design Lead") so they compare with HR
  records; other values keep their casing, lose articles and trailing punctuation.

Confidence: 0.9 explicit first-person patterns (I / my / we / our), 0.7 third-person patterns and
meeting headers, 0.5 ``states``. ``span`` is the sentence's (start, end) in ``event.content``.
Regexes are compiled once at import; a sentence costs about 50–150 µs (LoCoMo: ~90 µs on average).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from dagster_project.silver import predicates
from dagster_project.silver.distill import clauses
from dagster_project.silver.types import EventInput, FactCandidate

__all__ = ["HeuristicDistiller"]

SKIPPED_KINDS = frozenset({"fact", "document", "overlay"})
CONF_FIRST = 0.9
CONF_THIRD = 0.7
CONF_STATES = 0.5

# Predicates whose value names an entity (an edge can be drawn).
ENTITY_PREDICATES = frozenset({"works_at", "member_of", "lives_in", "located_in", "owns", "attended"})
# Predicates that describe a current state: a future-dated clause turns them into plans.
STATE_PREDICATES = frozenset({"lives_in", "works_at", "member_of", "role", "owns", "uses", "located_in", "attended"})

# --------------------------------------------------------------------------------------------------
# Word lists
# --------------------------------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    """A word list written as whitespace-separated text."""
    return frozenset(text.split())


_ADV = (
    r"(?:usually|also|really|just|still|now|currently|actually|finally|recently|officially|already|mostly|"
    r"basically|definitely|totally|absolutely|truly|generally|normally|always|never|often|sometimes|"
    r"personally|honestly|even|only|mainly|primarily|kind\s+of|sort\s+of|pretty\s+much|originally|"
    r"eventually|happily|proudly|gladly|then)"
)
_ADVS = rf"(?:{_ADV}\s+)*"

_MODALS = frozenset(
    {"can", "could", "will", "would", "shall", "should", "may", "might", "must", "cannot", "ought", "need"}
)
_IRREGULAR_PAST = _words(
    """
    was were had did went left got made took came met saw found began bought became felt knew ran sat spent
    thought told wrote won lost said sent kept held brought built caught chose drew drove ate fell fed
    fought flew forgot forgave froze gave grew hung heard hid hit hurt kept knelt laid led lent let lay lit
    meant paid put quit read rode rang rose sang sank shook shot shut slept slid spoke stood stole stuck
    struck swam swore taught tore threw understood woke wore wove wept upset withdrew been gone done seen
    taken given known become begun broken chosen driven eaten fallen forgotten gotten grown hidden ridden
    risen shaken spoken stolen sworn thrown woken worn written used
    """
)
_THIRD_IRREGULAR = {"am": "is", "are": "is", "have": "has", "do": "does", "go": "goes", "be": "is", "'m": "is"}

_ROLE_NOUNS = (
    "engineer|developer|designer|manager|lead|director|head|architect|analyst|scientist|intern|contractor|"
    "consultant|pm|cto|ceo|cfo|coo|cio|cpo|vp|president|founder|co-founder|cofounder|officer|administrator|"
    "admin|specialist|coordinator|researcher|teacher|professor|lecturer|student|nurse|doctor|physician|"
    "lawyer|attorney|accountant|writer|editor|recruiter|tester|qa|sre|devops|advocate|marketer|executive|"
    "chef|cook|artist|counselor|counsellor|therapist|programmer|technician|associate|principal|fellow|"
    "owner|maintainer|strategist|product|programmer|secretary|clerk|driver|pilot|photographer|"
    "journalist|librarian|pharmacist|dentist|veterinarian|vet|electrician|plumber|mechanic|"
    "salesperson|representative|rep|agent|partner|chair|chairman|chairwoman|treasurer|volunteer|"
    "apprentice|trainee|graduate|postdoc|phd|researcher|economist|statistician|mathematician|"
    "physicist|chemist|biologist|assistant"
)
_ROLE_RE = re.compile(rf"\b(?:{_ROLE_NOUNS})s?\b", re.I)

_REL_NOUNS = (
    r"manager|boss|tech\s+lead|team\s+lead|lead|mentor|mentee|direct\s+report|report|assistant|sister|"
    r"brother|sibling|wife|husband|partner|spouse|girlfriend|boyfriend|fianc[eé]e?|best\s+friend|friend|"
    r"colleague|co-?worker|cousin|mother|father|mom|mum|dad|son|daughter|aunt|uncle|niece|nephew|"
    r"grandmother|grandfather|grandma|grandpa|roommate|flatmate|neighbou?r|buddy|teammate|classmate|"
    r"landlord|supervisor|skip-level|manager's\s+manager"
)

_OWNABLE = (
    r"dog|cat|puppy|kitten|pet|horse|rabbit|hamster|parrot|bird|fish|car|bike|bicycle|motorbike|motorcycle|"
    r"scooter|house|home|flat|apartment|condo|boat|cabin|farm|garden|laptop|piano|guitar|violin|camera|"
    r"drone|van|truck|tesla|macbook|iphone|phone|tablet|kindle"
)

_TZ_ABBR = (
    r"UTC(?:[+-]\d{1,2}(?::?\d{2})?)?|GMT(?:[+-]\d{1,2}(?::?\d{2})?)?|BST|CET|CEST|EET|EEST|WET|WEST|PST|PDT|"
    r"PT|MST|MDT|MT|CST|CDT|CT|EST|EDT|ET|AKST|AKDT|HST|IST|JST|KST|AEST|AEDT|ACST|AWST|NZST|NZDT|SGT|HKT|"
    r"MSK|BRT|ART|AST|ICT|WIB|PHT"
)
_IANA = r"(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)/[A-Za-z_]+(?:/[A-Za-z_]+)?"
_TZ_RE = re.compile(rf"(?<![\w/])(?:(?P<iana>{_IANA})|(?P<abbr>{_TZ_ABBR}))(?![\w/])")

_TOOL_CANON = {
    "postgres": "PostgreSQL",
    "postgresql": "PostgreSQL",
    "psql": "PostgreSQL",
    "pg": "PostgreSQL",
    "k8s": "Kubernetes",
    "kubernetes": "Kubernetes",
    "nvim": "Neovim",
    "neovim": "Neovim",
    "vscode": "VS Code",
    "js": "JavaScript",
    "javascript": "JavaScript",
    "ts": "TypeScript",
    "typescript": "TypeScript",
    "mysql": "MySQL",
    "mongo": "MongoDB",
    "mongodb": "MongoDB",
    "redis": "Redis",
    "python": "Python",
    "node": "Node.js",
    "nodejs": "Node.js",
}

# Capitalised words that open sentences without naming anything.
_STOP_CAPS = _words(
    """
    the this that these those there here it its a an and but or so if when while after before since because
    as at in on for from to with without by of about also just finally then now today yesterday tomorrow
    please let lets let's maybe perhaps probably actually really still yes no not ok okay great good nice
    thanks thank hi hello hey what who why how where which whose some any all every each most many few
    several one two three our my your his her their we you they he she i me us them last next only even once
    sometimes usually always never often anyway btw fyi note update weekly daily monthly add remove fix
    upgrade bump run drop use make set check see go get try keep take give put do does did is are was were
    be been has have had will would can could should must may might shall new old welcome congrats
    congratulations morning afternoon evening night sorry oh ah wow well sure yeah yep totally definitely
    absolutely honestly basically apparently luckily unfortunately hopefully sadly again another other such
    same both either neither nothing everything something anything nobody everybody somebody anybody
    everyone someone anyone none most more less hmm um uh lol haha gonna wanna going planning hoping trying
    reminder remember heads important urgent fwiw imo imho think guess monday tuesday wednesday thursday
    friday saturday sunday january february march april june july august september october november december
    tonight weekend
    """
)

# Words that are field labels, not speakers, in "Label: text" lines.
_LABELS = _words(
    """
    note notes nb ps fyi re subject from to cc bcc date time title summary context update updates status
    reporter assignee priority type labels label component components sprint epic owner description action
    actions agenda decision decisions question answer q a todo tldr tl;dr warning important example step tip
    result results outcome background problem solution attendees participants location where when link links
    url source reference see edit edited pr issue ticket commit branch fixes closes resolves co-authored-by
    signed-off-by reviewed-by acked-by reported-by tested-by weekly daily monthly minutes meeting topic
    topics goal goals next steps follow-up followup followups risk risks blocker blockers highlights
    lowlights feedback announcement reminder heads up p.s. edit2 update2 remarks comment comments reply
    response input output error warning info debug notice caveat
    """
)
_USER_LABELS = frozenset({"user", "human", "me", "customer", "client"})
_AGENT_LABELS = frozenset({"assistant", "ai", "bot", "agent", "gpt", "chatgpt", "model"})
_SYSTEM_LABELS = frozenset({"system", "developer", "instructions", "system prompt", "prompt"})

_NON_PERSONAL_ACTORS = frozenset({"system", "service", "bot", "app", "integration", "webhook", "sync", "job"})
_ORG_SUFFIX_RE = re.compile(
    r"\b(?:inc|ltd|llc|gmbh|corp|corporation|company|co|labs|group|team|office|university|school|bank|"
    r"hospital|club|foundation|institute|agency|studio|studios|systems|technologies|ag|sa|plc|hq|headquarters|"
    r"service|server|cluster|database|db|api|app|repo|project|store|shop|restaurant|cafe|hotel|airport|"
    r"station|building|room|campus|lab)\.?$",
    re.I,
)
_PLACE_PREPS = frozenset({"in", "to", "at", "from", "near", "of", "into", "on", "via", "using", "over"})

_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2,
    "a few": 3, "few": 3, "several": 3,
}  # fmt: skip
_WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
_MONTH_NAMES = [
    "", "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
]  # fmt: skip

# --------------------------------------------------------------------------------------------------
# Core regexes
# --------------------------------------------------------------------------------------------------

_NAME_TOKEN = r"(?-i:(?!I\b)[A-Z][\w-]*(?:'[A-Z][\w-]*)?)"
_NAME = rf"{_NAME_TOKEN}(?:\s+(?:{_NAME_TOKEN}|\d+[A-Za-z]?)){{0,3}}"
_NAME_RE = re.compile(_NAME)
_EMAIL_RE = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")

_HEADER_RE = re.compile(r"^\s*\[(?P<body>[^\]]*\b(?:attendees|participants|present)\s*:[^\]]*)\]\s*$", re.I)
_SPEAKER_RE = re.compile(
    r"^\s*(?:\[[^\]]{1,30}\]\s*|\(?\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]m)?\)?\s*-?\s*)?"
    r"(?P<name>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2})\s*:\s+(?P<rest>\S.*)$"
)
_TIMESTAMP_PREFIX_RE = re.compile(r"^\s*(?:\[\d{1,2}:\d{2}(?::\d{2})?[^\]]{0,12}\]|\(\d{1,2}:\d{2}\))\s*")
_BULLET_RE = re.compile(r"^\s*(?:[-*•>]+|\d+[.)]|#+)\s+")
_HEADING_RE = re.compile(r"^\s*#+\s")
_BOUNDARY_RE = re.compile(r"[.!?…]+[\"'’”)\]]*(?=\s|$)")
_ABBREV = _words(
    """
    e.g i.e mr mrs ms dr st vs etc inc ltd jr sr prof approx no fig al cf esp dept est mt ft u.s a.k.a
    """
)

_SYSTEM_RE = re.compile(
    r"^(?:system\s*:|<\|?system\|?>|you\s+are\s+(?:a|an|the|now|[A-Z])|you're\s+(?:a|an|the)\s|as\s+an?\s+"
    r"(?:ai|language\s+model|llm|assistant|helpful)|your\s+(?:task|job|role|goal|purpose)\s+is|"
    r"(?:never|do\s+not|don't)\s+(?:reveal|disclose|make\s+up|mention|share)|always\s+(?:answer|respond|reply)|"
    r"(?:answer|respond|reply)\s+(?:concisely|briefly|in\s+\w+|only|with)|use\s+the\s+tools?\b|"
    r"if\s+you\s+(?:are|'re)\s+(?:unsure|not\s+sure)|follow\s+these\s+instructions|ignore\s+(?:all\s+)?previous)",
    re.I,
)
_SECOND_PERSON_RE = re.compile(r"^(?:you|your|you're|you've|you'll|you'd|u)\b", re.I)

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
    rf"^(?:(?:{_INTERJ_PUNCT}(?:\s+{_WHO})?(?:,?\s+{_NAME_TOKEN})?\s*[,!.:;~-]+\s*)"
    rf"|(?:{_INTERJ_PUNCT}(?:\s+{_WHO})\s+)|(?:{_INTERJ_BARE}\s*[,!.:;-]*\s+))+",
    re.I,
)
_NOISE_RE = re.compile(
    r"^(?:(?:hi|hey|hello|yo|morning|good\s+(?:morning|afternoon|evening|night)|thanks?(?:\s+you)?|thx|ty|"
    r"cheers|ok|okay|sure|sounds\s+good|sgtm|lgtm|great|cool|nice|awesome|perfect|lol|haha+|\+1|yes|yeah|yep|"
    r"no|nope|congrats|congratulations|bye|goodbye|see\s+you|see\s+ya|ttyl|got\s+it|noted|will\s+do|on\s+it|"
    r"np|no\s+problem|no\s+worries|agreed|same|me\s+too|done|good\s+to\s+see\s+you|nice\s+to\s+meet\s+you|"
    r"talk\s+(?:to\s+you\s+)?(?:soon|later)|take\s+care|good\s+luck|well\s+done|nice\s+work|great\s+work|"
    r"good\s+job|great\s+job|totally\s+agree|i\s+(?:totally\s+|completely\s+|fully\s+)?agree|makes\s+sense|so|very|much|a\s+lot|a\s+ton|again|all|"
    r"everyone|everybody|guys|team|folks|y'all|mate|buddy|(?-i:[A-Z][a-z]+))\b[\s\W]*)+$"
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
_REQUEST_RE = re.compile(
    r"^(?:please|pls|plz|kindly|let's|let\s+us|lets|don't\s+forget|remember\s+to|make\s+sure|can\s+you|"
    r"could\s+you|would\s+you|feel\s+free|reach\s+out|ping\s+me|dm\s+me|check\s+out|take\s+a\s+look)\b",
    re.I,
)
_PREAMBLE_RE = re.compile(r"^(?P<label>[^:\n]{1,48}?)\s*:\s+(?=\S)")

# Contractions and normalisation.
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-", "\u00a0": " "})
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
_EMOTICON_RE = re.compile(r"(?:\s*(?:[:;=8][-']?[()DPp/\\|*]+|<3|\^_\^|\(y\)|[\U0001F300-\U0001FAFF\u2600-\u27BF]))+")

# --------------------------------------------------------------------------------------------------
# Dates
# --------------------------------------------------------------------------------------------------

_MONTH_ALT = "|".join(sorted(_MONTHS, key=len, reverse=True))
_PREP = r"(?:\b(?P<prep>on|by|until|till|since|from|before|after|as\s+of|starting|in|during|over|at|of)\s+)?"
_NUM_WORD = r"\d+|a\s+couple\s+of|couple\s+of|a\s+few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"  # noqa: E501

_DATE_RES: list[tuple[str, re.Pattern[str]]] = [
    (
        "iso",
        re.compile(
            _PREP + r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?:[T ](?P<hh>\d{2}):(?P<mm>\d{2})(?::(?P<ss>\d{2}))?"
            r"(?:Z|[+-]00:?00)?)?\b",
            re.I,
        ),
    ),
    (
        "dmy",
        re.compile(
            _PREP + rf"\b(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+(?P<mon>{_MONTH_ALT})\b\.?"
            r"(?:,?\s+(?P<y>(?:19|20)\d{2}))?\b",
            re.I,
        ),
    ),
    (
        "mdy",
        re.compile(
            _PREP + rf"\b(?P<mon>{_MONTH_ALT})\.?\s+(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b"
            r"(?:,?\s+(?P<y>(?:19|20)\d{2}))?\b",
            re.I,
        ),
    ),
    (
        "rel_day",
        re.compile(
            _PREP + r"\b(?P<rel>the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|earlier\s+today|"
            r"today|tonight|this\s+(?:morning|afternoon|evening)|yesterday|last\s+night|tomorrow)\b",
            re.I,
        ),
    ),
    ("weekend", re.compile(r"\b(?P<prep>over|at|on|during)\s+the\s+weekend\b|\blast\s+weekend\b", re.I)),
    (
        "period",
        re.compile(_PREP + r"\b(?P<which>last|this|next|past|previous|coming)\s+(?P<unit>week|month|year)\b", re.I),
    ),
    (
        "ago",
        re.compile(
            _PREP + rf"\b(?P<n>{_NUM_WORD})\s+(?P<unit>day|week|month|year)s?\s+ago\b",
            re.I,
        ),
    ),
    ("in_n", re.compile(rf"\bin\s+(?P<n>{_NUM_WORD})\s+(?P<unit>day|week|month|year)s?(?:'\s+time)?\b", re.I)),
    (
        "weekday",
        re.compile(
            r"\b(?P<prep>last|next|this|coming|on|by|until|till|from|since|before|after)\s+(?:this\s+|next\s+|"
            r"last\s+)?(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
            re.I,
        ),
    ),
    (
        "month",
        re.compile(
            rf"\b(?P<prep>in|since|during|until|by|from|of)\s+(?:early\s+|late\s+|mid-?)?(?P<mon>{_MONTH_ALT})\b"
            r"(?:\s+(?P<y>(?:19|20)\d{2}))?",
            re.I,
        ),
    ),
    ("year", re.compile(r"\b(?P<prep>in|since|during|from)\s+(?P<y>(?:19|20)\d{2})\b(?![-/])", re.I)),
]
_DATE_CUT_RE = re.compile(re.sub(r"\?P<\w+>", "?:", "|".join(f"(?:{rx.pattern})" for _, rx in _DATE_RES)), re.I)
_MODAL_FUTURE_RE = re.compile(
    r"\b(?:will|shall|going\s+to|gonna|plan(?:s|ning)?\s+to|intend(?:s|ing)?\s+to|about\s+to)\b", re.I)
_FUTURE_RE = re.compile(
    r"\b(?:will|shall|going\s+to|plan(?:s|ning)?\s+to|intend(?:s|ing)?\s+to|about\s+to|aim(?:s|ing)?\s+to|"
    r"want(?:s)?\s+to|hop(?:e|es|ing)\s+to|would\s+like\s+to|next|tomorrow|upcoming|by|until|till|deadline|"
    r"due|ship|launch|schedule[ds]?|from\s+now)\b",
    re.I,
)


@dataclass(frozen=True)
class _DateHit:
    start: int
    end: int
    day: date
    precision: str  # day | week | weekend | month | year | monthday
    prep: str | None
    has_year: bool = True
    at: time | None = None


def _clamp_day(y: int, m: int, d: int) -> date:
    return date(y, m, min(d, calendar.monthrange(y, m)[1]))


def _add_months(day: date, months: int) -> date:
    total = day.year * 12 + (day.month - 1) + months
    return _clamp_day(total // 12, total % 12 + 1, day.day)


def _num(text: str) -> int:
    t = re.sub(r"\s+", " ", text.lower().strip())
    if t.isdigit():
        return int(t)
    return _NUMBER_WORDS.get(t, 1)


def _shift(day: date, n: int, unit: str) -> date:
    unit = unit.lower()
    if unit == "day":
        return day + timedelta(days=n)
    if unit == "week":
        return day + timedelta(days=7 * n)
    if unit == "month":
        return _add_months(day, n)
    return _add_months(day, 12 * n)


def _year_for(mon: int, d: int, today: date, future: bool) -> date | None:
    try:
        cand = _clamp_day(today.year, mon, d)
    except ValueError:
        return None
    if future and cand < today:
        cand = _clamp_day(today.year + 1, mon, d)
    elif not future and cand > today:
        cand = _clamp_day(today.year - 1, mon, d)
    return cand


def _find_dates(text: str, today: date, future: bool) -> list[_DateHit]:
    """Every date expression in ``text``, resolved against ``today`` (the event's UTC day), in order."""
    hits: list[_DateHit] = []
    low = text.lower()
    if not _DIGIT_RE.search(text) and not _QUICK_DATE_RE.search(low):
        return hits
    for kind, rx in _DATE_RES:
        for m in rx.finditer(text):
            hit = _resolve_hit(kind, m, today, future)
            if hit is not None:
                hits.append(hit)
    hits.sort(key=lambda h: (h.start, -(h.end - h.start)))
    kept: list[_DateHit] = []
    for h in hits:
        if kept and h.start < kept[-1].end:
            continue
        kept.append(h)
    return kept


_DIGIT_RE = re.compile(r"\d")
_QUICK_DATE_RE = re.compile(
    rf"\b(?:today|tonight|yesterday|tomorrow|last|next|this|ago|weekend|monday|tuesday|wednesday|thursday|"
    rf"friday|saturday|sunday|{_MONTH_ALT}|in\s+\w+\s+(?:day|week|month|year)s?)\b"
)


def _resolve_hit(kind: str, m: re.Match[str], today: date, future: bool) -> _DateHit | None:
    g = m.groupdict()
    prep = (g.get("prep") or "").lower() or None
    prep_future = prep in {"by", "until", "till", "before", "next", "coming"}
    fut = future or prep_future
    start, end = m.start(), m.end()
    if kind == "iso":
        try:
            day = date(int(g["y"]), int(g["m"]), int(g["d"]))
        except ValueError:
            return None
        at = time(int(g["hh"]), int(g["mm"]), int(g["ss"] or 0)) if g.get("hh") else None
        return _DateHit(start, end, day, "day", prep, True, at)
    if kind in ("dmy", "mdy"):
        mon_text = g["mon"]
        if not mon_text[0].isupper():
            return None
        mon = _MONTHS[mon_text.lower()]
        d = int(g["d"])
        if not 1 <= d <= 31:
            return None
        if g.get("y"):
            try:
                return _DateHit(start, end, _clamp_day(int(g["y"]), mon, d), "day", prep, True)
            except ValueError:
                return None
        day = _year_for(mon, d, today, fut)
        return None if day is None else _DateHit(start, end, day, "day", prep, False)
    if kind == "rel_day":
        rel = re.sub(r"\s+", " ", g["rel"].lower())
        offset = {
            "the day before yesterday": -2, "yesterday": -1, "last night": -1, "tomorrow": 1,
            "the day after tomorrow": 2,
        }.get(rel, 0)  # fmt: skip
        return _DateHit(start, end, today + timedelta(days=offset), "day", prep)
    if kind == "weekend":
        back = (today.weekday() - 5) % 7 or 7
        return _DateHit(start, end, today - timedelta(days=back), "weekend", None)
    if kind == "period":
        which, unit = g["which"].lower(), g["unit"].lower()
        if which in ("last", "past", "previous"):
            return _DateHit(start, end, _shift(today, -1, unit), "day" if unit == "week" else unit, prep)
        if which == "this":
            return _DateHit(start, end, today, unit, prep)
        # next / coming
        if unit == "week":
            return _DateHit(start, end, today - timedelta(days=today.weekday()) + timedelta(days=7), "week", prep)
        if unit == "month":
            first = _add_months(today.replace(day=1), 1)
            return _DateHit(start, end, first, "month", prep)
        return _DateHit(start, end, date(today.year + 1, 1, 1), "year", prep)
    if kind == "ago":
        unit = g["unit"].lower()
        prec = {"day": "day", "week": "day", "month": "month", "year": "year"}[unit]
        return _DateHit(start, end, _shift(today, -_num(g["n"]), unit), prec, prep)
    if kind == "in_n":
        unit = g["unit"].lower()
        return _DateHit(start, end, _shift(today, _num(g["n"]), unit), "day", None)
    if kind == "weekday":
        wd = _WEEKDAYS[g["wd"].lower()]
        p = (g.get("prep") or "").lower()
        monday = today - timedelta(days=today.weekday())
        if p == "next":
            day = monday + timedelta(days=7 + wd)
        elif p == "this":
            day = monday + timedelta(days=wd)
        elif p == "last":
            day = today - timedelta(days=(today.weekday() - wd) % 7 or 7)
        elif p == "coming" or fut or p in ("by", "until", "till", "before"):
            day = today + timedelta(days=(wd - today.weekday()) % 7 or 7)
        else:
            day = today - timedelta(days=(today.weekday() - wd) % 7 or 7)
        keep_prep = p if p in ("on", "by", "until", "till", "from", "since", "before", "after") else None
        return _DateHit(start, end, day, "day", keep_prep)
    if kind == "month":
        mon_text = g["mon"]
        if not mon_text[0].isupper() or (mon_text.lower() == "may" and not g.get("y")):
            return None
        mon = _MONTHS[mon_text.lower()]
        if g.get("y"):
            return _DateHit(start, end, date(int(g["y"]), mon, 1), "month", prep)
        day = _year_for(mon, 1, today.replace(day=1), fut)
        return None if day is None else _DateHit(start, end, day, "month", prep, False)
    if kind == "year":
        return _DateHit(start, end, date(int(g["y"]), 1, 1), "year", prep)
    return None


def _date_phrase(hit: _DateHit) -> str:
    iso = hit.day.isoformat()
    prep = hit.prep
    if hit.precision == "day":
        return f"{prep or 'on'} {iso}"
    if hit.precision == "weekend":
        return f"over the weekend of {iso}"
    if hit.precision == "week":
        return f"{prep or 'in'} the week of {iso}"
    if hit.precision == "month":
        return f"{prep or 'in'} {_MONTH_NAMES[hit.day.month]} {hit.day.year}"
    return f"{prep or 'in'} {hit.day.year}"


def _replace_dates(text: str, hits: list[_DateHit], keep_absolute: bool = False) -> str:
    out = text
    for h in reversed(hits):
        if keep_absolute and h.precision == "day" and not _is_relative(text[h.start : h.end]):
            continue
        out = out[: h.start] + _date_phrase(h) + out[h.end :]
    return out


_RELATIVE_WORDS_RE = re.compile(
    r"\b(?:today|tonight|yesterday|tomorrow|last|next|this|ago|weekend|morning|night|coming|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|in\s+\w+\s+\w+)\b",
    re.I,
)


def _is_relative(phrase: str) -> bool:
    return bool(_RELATIVE_WORDS_RE.search(phrase))


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time(0, 0), tzinfo=UTC)


# --------------------------------------------------------------------------------------------------
# Text helpers
# --------------------------------------------------------------------------------------------------


def _third_person(verb: str) -> str:
    low = verb.lower()
    if low in _THIRD_IRREGULAR:
        return _THIRD_IRREGULAR[low]
    if low in _MODALS or low in _IRREGULAR_PAST or low.endswith("ed") or low in ("is", "has", "does", "was"):
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


_FP_VERB_RE = re.compile(rf"(?<![\w'-])I\s+({_ADVS})([A-Za-z']+)")
_FP_BARE_RE = re.compile(r"(?<![\w'-])I(?![\w'-])")
_WE_VERB_RE = re.compile(rf"(?<![\w'-])[Ww]e\s+({_ADVS})([A-Za-z']+)")
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
_SECOND_PERSON_ANY_RE = re.compile(r"\b(?:you|your|yours|yourself|ya|u)\b", re.I)
_FP_WORDS = frozenset({"i", "me", "my", "mine", "myself"})
_WE_WORDS = frozenset({"we", "us", "our", "ours", "ourselves"})
_FIRST_PERSON_RE = re.compile(r"(?<![\w'-])(?:I|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself|[Ww]e|us|[Oo]ur|[Oo]urs)(?![\w'-])")


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") and not name.endswith("ss") else f"{name}'s"


def _resolve_person(text: str, speaker: str | None, team: str | None) -> str:
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
            text = _POSS_WORD_RE["mine"].sub(_possessive(speaker), text)
        if "my" in words:
            text = _POSS_WORD_RE["my"].sub(_possessive(speaker), text)
        if "me" in words:
            text = _POSS_WORD_RE["me"].sub(speaker, text)
    if team and words & _WE_WORDS:
        text = _WE_VERB_RE.sub(lambda m: f"{team} {m.group(1)}{_third_person(m.group(2))}", text)
        text = _POSS_WORD_RE["we"].sub(team, text)
        text = _POSS_WORD_RE["ourselves"].sub(team, text)
        text = _POSS_WORD_RE["ours"].sub(_possessive(team), text)
        text = _POSS_WORD_RE["our"].sub(_possessive(team), text)
        text = _POSS_WORD_RE["us"].sub(team, text)
    return text


def _sentence_case(text: str) -> str:
    text = text.strip()
    if text and text[0].islower() and not re.match(r"[a-z0-9]+[-_.][a-z0-9]", text):
        text = text[0].upper() + text[1:]
    return text


def _as_statement(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip().rstrip(" ,;:-")
    text = re.sub(r"[.!]+$", "", text).strip()
    return _sentence_case(text) + "."


_VALUE_CUT_RE = re.compile(
    r"\s*(?:[,;:!?()\[\]<>\"]|\s-\s|\.(?=\s|$))|\s+(?:because|since|so|but|which|who|whom|where|when|while|"
    r"although|though|until|unless|whereas|as\s+well|and\s+(?:I|we|he|she|they|it|then|also|now)|"
    r"and\s+(?:is|are|was|were|has|have|had|will|would|can|could)|by\s+the\s+way|if|after|before)\b"
)
_ARTICLE_RE = re.compile(r"^(?:(?:[Aa]n?|[Ss]ome|[Tt]his|[Tt]hat|the)\s+|The\s+(?![A-Z]))")
_TRAILING_ADV_RE = re.compile(
    r"(?:\s+(?:recently|lately|together|again|too|also|now|right\s+now|these\s+days|nowadays|a\s+lot|so\s+much|"
    r"very\s+much|sometimes|often|anymore|already|yet|though|especially|every\s+(?:day|week|month|year)|"
    r"for\s+years|for\s+ages|for\s+a\s+while|for\s+now|by\s+now|so\s+far))+$",
    re.I,
)
_FUNCTION_WORDS = frozenset({"to", "too", "so", "it", "do", "be", "go", "get", "a", "an", "the", "of", "and", "or"})
_PRONOUN_VALUES = frozenset({"it", "this", "that", "them", "there", "here", "one", "those", "these", "him", "her"})


def _clean_value(raw: str, cuts: tuple[str, ...] = (), keep_article: bool = False) -> str | None:
    v = raw.strip()
    m = _DATE_CUT_RE.search(v)
    if m and m.start() > 0:
        v = v[: m.start()]
    m = _VALUE_CUT_RE.search(v)
    if m and m.start() > 0:
        v = v[: m.start()]
    for cut in cuts:
        m = re.search(rf"\s+{cut}\b", v)
        if m and m.start() > 0:
            v = v[: m.start()]
    v = _EMOTICON_RE.sub("", v)
    v = v.strip().rstrip(".,;:!?-'\" ").strip()
    if not keep_article:
        v = _ARTICLE_RE.sub("", v)
    v = _TRAILING_ADV_RE.sub("", v).strip()
    v = re.sub(r"\s+", " ", v)
    low = v.lower()
    if not v or low in _PRONOUN_VALUES or low.split()[0] in _PRONOUN_VALUES or low in _FUNCTION_WORDS:
        return None
    return v


def _leading_proper(value: str) -> str | None:
    """The proper noun a value starts with, when it is used as a noun ("Figma over Sketch" → "Figma")."""
    m = _NAME_RE.match(value)
    if not m:
        return None
    name = m.group(0)
    if name.split()[0].lower() in _STOP_CAPS:
        return None
    after = value[m.end() :].strip()
    if after and not re.match(
        r"^(?:over|and|or|for|instead|rather|than|when|because|in|on|at|to|with|as|from|but|,)\b", after
    ):
        return None
    return name


def _canon_tool(value: str) -> str:
    parts = value.split(" ", 1)
    canon = _TOOL_CANON.get(parts[0].lower())
    if canon is None:
        m = re.match(r"^(postgres|postgresql|pg)(\d+(?:\.\d+)*)$", parts[0], re.I)
        if m:
            return f"PostgreSQL {m.group(2)}" + (f" {parts[1]}" if len(parts) > 1 else "")
        return value
    return canon + (f" {parts[1]}" if len(parts) > 1 else "")


_SMALL_WORDS = frozenset({"of", "and", "the", "for", "in", "at", "to", "on", "a", "an", "&"})


def _title_role(value: str) -> str:
    if value != value.lower():
        return value
    words = value.split()
    return " ".join(
        w
        if (i > 0 and w in _SMALL_WORDS)
        else (w.upper() if w in {"pm", "qa", "sre", "cto", "ceo", "vp"} else w[:1].upper() + w[1:])
        for i, w in enumerate(words)
    )


def _title_name(handle: str) -> str:
    parts = [p for p in re.split(r"[._\-\s]+", handle) if p]
    return " ".join(p[:1].upper() + p[1:] if p.islower() else p for p in parts)


def _speaker_from_actor(actor: str | None) -> str | None:
    if not actor:
        return None
    prefix, sep, ident = actor.partition(":")
    if not sep:
        prefix, ident = "user", actor
    if prefix.strip().lower() in _NON_PERSONAL_ACTORS:
        return None
    ident = ident.strip().split("@")[0]
    if not ident:
        return None
    return _title_name(ident) or None


# --------------------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------------------


@dataclass
class _Subject:
    name: str | None
    kind: str  # fp | we | third | np | none
    possessive: bool = False
    rest: str = ""


@dataclass
class _Proto:
    predicate: str
    value: Any
    obj: str | None = None
    subject: str | None = None  # overrides the clause subject
    confidence: float | None = None
    statement: str | None = None  # overrides the clause statement


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


_R_REL_IS = re.compile(
    rf"^(?:is|am|are|was)\s+{_ADVS}(?P<b>{_NAME}|my|our|his|her)(?:'s?)?\s+(?P<r>{_REL_NOUNS})\b", re.I
)
_R_REL_VERB = _c(
    rf"^{_ADVS}(?:(?:will|would|is\s+going\s+to)\s+)?(?P<verb>reports?|reported|reporting|manages?|managed|mentors?|"
    rf"mentored|leads?|led|pairs?|paired|pairing|works?\s+closely|worked\s+closely|is\s+married|am\s+married|"
    rf"are\s+married|got\s+married|is\s+engaged|am\s+engaged|is\s+friends|am\s+friends|is\s+dating|am\s+dating|"
    rf"is\s+pairing|am\s+pairing)\s+(?:to\s+|with\s+)?(?P<b>{_NAME})\b"
)
_R_MY_REL_IS = re.compile(rf"^(?P<r>{_REL_NOUNS})\s+is\s+(?:called\s+|named\s+)?(?P<b>{_NAME})\b", re.I)
_R_MY_REL_INLINE = re.compile(rf"(?<![\w'-])(?:[Mm]y|[Oo]ur)\s+(?P<r>{_REL_NOUNS}),?\s+(?P<b>{_NAME})\b")

_R_NAME_IS = _c(rf"^(?:am|is)\s+(?:called|named)\s+(?P<v>{_NAME})")
_R_ALIAS_GO = _c(rf"^{_ADVS}(?:go|goes)\s+by\s+(?P<v>{_NAME})")
_R_CALL_ME = re.compile(rf"^(?:please\s+)?(?:just\s+)?[Cc]all\s+me\s+(?P<v>{_NAME})")
_R_AKA = re.compile(rf"^(?P<a>{_NAME}),?\s+(?:\(?(?:also\s+known\s+as|aka|a\.k\.a\.)\s+)(?P<b>{_NAME})")
_R_I_AM_NAME = re.compile(rf"^am\s+(?P<v>{_NAME})(?:\s+from\s+(?P<org>{_NAME}))?\s*$")
_R_POSS_NAME = _c(rf"^(?P<kind>full\s+name|name|nickname|nick|handle)\s+is\s+(?P<v>{_NAME})")

_R_POSS_EMAIL = _c(r"^(?:work\s+|personal\s+|new\s+|current\s+)?e-?mail(?:\s+address)?\s+is\s+(?P<v>\S+@\S+)")
_R_POSS_BIRTHDAY = _c(r"^(?:birthday|bday|b-day|date\s+of\s+birth|dob)\s+is\s+(?P<v>.+)$")
_R_BORN = _c(
    r"^(?:was|were)\s+born\s+(?P<v>(?:on\s+)?(?:the\s+)?\d.+|(?:on\s+)?[A-Z][a-z]+\.?\s+\d.*|in\s+(?:19|20)\d{2}.*)$"
)
_R_POSS_TZ = _c(r"^(?:time\s*zone|tz)\s+is\s+(?P<v>.+)$")
_R_TZ_IN = _c(rf"^(?:am|is|are)\s+{_ADVS}(?:in|on|using|working\s+in|working\s+on)\s+(?P<v>.+)$")

_R_PROMOTED = _c(
    r"^(?:was|got|has\s+been|have\s+been|just\s+got|is\s+being|am\s+being|is|am)?\s*promoted\s+to\s+(?P<v>.+)$"
)
_R_WORK_AS = _c(
    rf"^{_ADVS}(?:work|works|worked|am\s+working|is\s+working|was\s+working|started|start|starts)\s+as\s+(?P<v>.+)$"
)
_R_BECAME = _c(rf"^{_ADVS}(?:became|become|becomes|has\s+become|have\s+become)\s+(?P<v>(?:a|an|the|our)\s+.+)$")
_R_IS_ROLE = _c(rf"^(?:am|is|are)\s+{_ADVS}(?:now\s+)?(?P<v>(?:a|an|the|our|their|his|her|my)\s+.+)$")
_R_POSS_ROLE = _c(r"^(?:job\s+title|title|role|position|job|new\s+role|current\s+role)\s+is\s+(?P<v>.+)$")

_TEAM_WORDS = r"team|squad|group|guild|chapter|committee|club|band|crew|department|dept|org|board|council|tribe|pod|unit|circle|choir|league"  # noqa: E501
_R_MEMBER = _c(
    rf"^(?:am|is|are)\s+{_ADVS}(?:now\s+)?(?:a\s+(?:new\s+)?member\s+of|part\s+of|a\s+part\s+of)\s+(?P<v>.+)$"
)
_R_ON_TEAM = _c(rf"^(?:am|is|are)\s+{_ADVS}(?:now\s+)?(?:on|in)\s+(?P<v>(?:the\s+)?.+?\b(?:{_TEAM_WORDS}))\b")
_R_BELONG = _c(rf"^{_ADVS}(?:belong|belongs)\s+to\s+(?P<v>.+)$")

_R_WORK_AT = _c(
    rf"^{_ADVS}(?:work|works|worked|am\s+working|is\s+working|are\s+working|was\s+working|have\s+worked|"
    rf"has\s+worked|have\s+been\s+working|has\s+been\s+working)\s+(?:at|for)\s+(?P<v>.+)$"
)
_R_JOIN = _c(
    rf"^{_ADVS}(?:joined|join|joins|have\s+joined|has\s+joined|am\s+joining|is\s+joining|are\s+joining|"
    rf"will\s+join|just\s+joined)\s+(?P<v>.+)$"
)
_R_START_AT = _c(
    rf"^{_ADVS}(?:started|start|starts|have\s+started|has\s+started)\s+(?:a\s+new\s+job\s+)?(?:at|with)\s+(?P<v>[A-Z].+)$"
)  # noqa: E501
_R_LEFT = _c(
    rf"^{_ADVS}(?:left|quit|resigned\s+from|have\s+left|has\s+left|am\s+leaving|is\s+leaving|"
    rf"(?:do|does)\s+not\s+work\s+(?:at|for)\s+|no\s+longer\s+works?\s+(?:at|for)\s+|am\s+no\s+longer\s+(?:at|with)|"
    rf"is\s+no\s+longer\s+(?:at|with))\s*(?P<v>.+)$"
)

_R_LIVE = _c(
    rf"^{_ADVS}(?:live|lives|lived|have\s+lived|has\s+lived|am\s+living|is\s+living|are\s+living|"
    rf"have\s+been\s+living|has\s+been\s+living|reside|resides|resided)\s+in\s+(?P<v>.+)$"
)
_R_MOVED = _c(
    rf"^{_ADVS}(?:moved|relocated|have\s+moved|has\s+moved|have\s+relocated|has\s+relocated)\s+(?:back\s+|over\s+)?"
    rf"(?:from\s+{_NAME}\s+)?to\s+(?P<v>.+)$"
)
_R_BASED = _c(rf"^(?:am|is|are)\s+{_ADVS}(?:now\s+)?(?:based|located|living|settled)\s+(?:in|out\s+of)\s+(?P<v>.+)$")

_R_LOCATED = _c(
    r"^(?:is|are)\s+(?:now\s+)?(?:(?:located|situated|based|kept|stored|hosted|housed)\s+)?(?P<prep>in|on|at|inside)"
    r"\s+(?P<v>.+)$"
)

_R_VERSION_NP = _c(
    r"^(?:now\s+|currently\s+|still\s+)?(?:runs|is\s+running|run|runs\s+on|is\s+on|are\s+on|uses|is\s+using|is\s+at|"
    r"was\s+upgraded\s+to|has\s+been\s+upgraded\s+to|is\s+now\s+on|moved\s+to|was\s+moved\s+to)\s+(?:on\s+)?"
    r"(?:version\s+)?(?P<v>.+)$"
)
_R_UPGRADE_X = _c(
    rf"^{_ADVS}(?:upgraded|upgrade|upgrades|upgrading|updated|update|bumped|bump|bumps|migrated|migrate|moved|"
    rf"have\s+upgraded|has\s+upgraded|will\s+upgrade)\s+(?P<s>(?!to\b)[^,;]+?)\s+(?:from\s+\S+(?:\s+\d\S*)?\s+)?to\s+"
    rf"(?:version\s+)?(?P<v>[^,;()]+)"
)
_R_UPGRADE_TO = _c(
    rf"^{_ADVS}(?:upgraded|updated|migrated|moved|switched|have\s+upgraded|has\s+upgraded|have\s+migrated|"
    rf"has\s+migrated)\s+(?:over\s+)?to\s+(?P<v>.+)$"
)
_R_SWITCHED = _c(
    rf"^{_ADVS}(?:switched|switch|switches|have\s+switched|has\s+switched|changed|moved\s+over|am\s+switching|"
    rf"is\s+switching)\s+(?:over\s+)?(?:from\s+\S+(?:\s+\S+)?\s+)?to\s+(?P<v>.+)$"
)
_R_USE = _c(
    rf"^{_ADVS}(?:use|uses|am\s+using|is\s+using|are\s+using|have\s+been\s+using|has\s+been\s+using|"
    rf"have\s+used|has\s+used|rely\s+on|relies\s+on|work\s+with|works\s+with)\s+(?!to\b)(?P<v>.+)$"
)
_TOOL_FOR_RE = re.compile(
    r"^(?P<tv>[A-Za-z][\w.+#-]*\s*v?\d+(?:\.\d+)*)\s+(?:for|on|in)\s+(?:the\s+|our\s+|my\s+)?(?:main\s+|primary\s+|"
    r"prod\s+|production\s+)?(?P<t>[\w-]+(?:\s+[\w-]+){0,3})$",
    re.I,
)
_VERSIONED_RE = re.compile(r"^(?:[A-Za-z][\w.+#-]*\s*)?v?\d+(?:\.\d+)*[a-z]?$")

_R_DISLIKE = _c(
    rf"^{_ADVS}(?:hate|hates|hated|dislike|dislikes|disliked|cannot\s+stand|can\s+not\s+stand|detest|detests|"
    rf"loathe|loathes|(?:do|does)\s+not\s+(?:really\s+)?(?:like|enjoy|love)|(?:am|is|are)\s+not\s+(?:a\s+(?:big\s+)?"
    rf"fan\s+of|into|keen\s+on)|cannot\s+bear|avoid|avoids)\s+(?P<v>.+)$"
)
_R_PREFER = _c(
    rf"^{_ADVS}(?:prefer|prefers|preferred|like|likes|liked|love|loves|loved|enjoy|enjoys|enjoyed|adore|adores|"
    rf"(?:am|is|are)\s+{_ADVS}(?:a\s+(?:huge\s+|big\s+)?fan\s+of|into|keen\s+on|passionate\s+about|obsessed\s+with|"
    rf"crazy\s+about)|favou?r|favou?rs)\s+(?P<v>.+)$"
)
_R_POSS_FAV = _c(r"^(?:favou?rite|fave|favorite)\s+(?P<what>[\w\s-]{1,30}?)\s+(?:is|are)\s+(?P<v>.+)$")
_R_ALLERGY = _c(
    rf"^(?:am|is|are)\s+{_ADVS}(?:(?:severely|very|mildly)\s+)?(?P<v>allergic\s+to\s+.+|(?:lactose|gluten)\s+"
    rf"intolerant|vegan|vegetarian|pescatarian|celiac|coeliac|diabetic|kosher|halal|teetotal|sober)$"
)

_R_POSS_GOAL = _c(
    r"^(?:(?P<q>[\w-]+(?:\s+[\w-]+)?)\s+)??(?:goal|aim|objective|ambition|dream|target|okr|mission)\s+is\s+(?:to\s+)?(?P<v>.+)$"
)  # noqa: E501
_R_GOAL_TO = _c(
    rf"^{_ADVS}(?:want|wants|would\s+like|would\s+love|hope|hopes|(?:am|is|are)\s+hoping|aim|aims|"
    rf"(?:am|is|are)\s+aiming|(?:am|is|are)\s+trying|try|tries|strive|strives|(?:am|is|are)\s+determined|"
    rf"(?:am|is|are)\s+(?:keen|eager|desperate)|dream|dreams|(?:am|is|are)\s+working\s+hard)\s+to\s+(?P<v>.+)$"
)
_R_GOAL_OTHER = _c(
    rf"^{_ADVS}(?:dream\s+of|dreams\s+of|(?:am|is|are)\s+working\s+towards?|(?:am|is|are)\s+saving\s+(?:up\s+)?for|"
    rf"(?:am|is|are)\s+studying\s+for|(?:am|is|are)\s+training\s+for)\s+(?P<v>.+)$"
)
_R_PLAN = _c(
    rf"^{_ADVS}(?:am|is|are)?\s*(?:going\s+to|planning\s+(?:on|to)|about\s+to|hoping\s+to)\s+(?P<v>.+)$"
    rf"|^{_ADVS}(?:plan|plans|intend|intends|will|shall|am\s+set\s+to|is\s+set\s+to|are\s+set\s+to|"
    rf"am\s+scheduled\s+to|is\s+scheduled\s+to)\s+(?:to\s+|on\s+)?(?P<v2>.+)$"
)
_R_MOVING = _c(rf"^(?:am|is|are)\s+{_ADVS}(?:moving|relocating)\s+to\s+(?P<v>.+)$")

_R_ATTEND = _c(
    rf"^{_ADVS}(?:went|have\s+been|has\s+been|go|goes)\s+to\s+(?P<v>.+)$"
    rf"|^{_ADVS}(?:attended|attend|attends|am\s+attending|visited|participated\s+in|took\s+part\s+in|spoke\s+at|"
    rf"presented\s+at|was\s+at|were\s+at)\s+(?P<v2>.+)$"
)
_R_JOINED_EVENT = re.compile(
    r"\b(?:meeting|call|webinar|workshop|conference|session|class|course|meetup|hackathon|summit|retreat|"
    r"offsite|off-site|standup|stand-up|sync|retro|retrospective|demo|party|event|festival|concert|support\s+group)s?\b",
    re.I,
)

_R_OWN = _c(
    rf"^{_ADVS}(?:own|owns|owned|(?:am|is|are)\s+(?:now\s+)?(?:the\s+)?(?:owner\s+of|in\s+charge\s+of|responsible\s+for|"
    rf"accountable\s+for)|look\s+after|looks\s+after|take\s+over|takes\s+over|took\s+over|(?:am|is|are)\s+taking\s+over|"
    rf"have\s+taken\s+over|has\s+taken\s+over|will\s+take\s+over|maintain|maintains)\s+(?P<v>.+)$"
)
_R_HAVE_PET = _c(
    rf"^{_ADVS}(?:have|has|have\s+got|has\s+got|got|bought|adopted|just\s+got)\s+(?:a|an|two|three|\d+|new)\s+"
    rf"(?:new\s+|little\s+|young\s+|old\s+)?(?P<v>(?:[\w-]+\s+){{0,2}}?(?:{_OWNABLE})s?\b(?:\s+(?:named|called)\s+{_NAME})?)"
)
_R_IMPERATIVE_UPGRADE = re.compile(
    r"^(?:[Uu]pgrade|[Bb]ump|[Uu]pdate|[Mm]igrate)\s+(?P<s>(?!to\b)[^,;]+?)\s+(?:from\s+\S+\s+)?to\s+(?:version\s+)?"
    r"(?P<v>[^,;()]+)"
)
_R_NAME_EMAIL = re.compile(rf"(?P<n>{_NAME})\s*[<(]\s*(?P<e>[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{{2,}})\s*[>)]")

# Leading subject parsing.
_LEAD_FP = re.compile(r"^I\s+")
_LEAD_MY = re.compile(r"^[Mm]y\s+")
_LEAD_WE = re.compile(r"^(?:[Ww]e|[Ll]et\s+us|(?:[Tt]he|[Oo]ur)\s+(?:whole\s+)?team)\s+")
_LEAD_OUR = re.compile(r"^[Oo]ur\s+")
_LEAD_PRO = re.compile(r"^(?P<p>[Hh]e|[Ss]he)\s+")
_LEAD_PRO_POSS = re.compile(r"^(?P<p>[Hh]is|[Hh]er)\s+")
_LEAD_NAME = re.compile(rf"^(?P<n>{_NAME})(?P<poss>'s?)?\s+(?=\S)")
_LEAD_NP = re.compile(
    r"^(?:[Tt]he|[Tt]his|[Tt]hat)\s+(?P<np>[\w#./-]+(?:\s+[\w#./-]+){0,4}?)\s+"
    r"(?=(?:is|are|was|were|has|have|had|runs|uses|now|currently|still|will|can|lives|owns|moved|sits)\b)"
)
_LEAD_BARE_NP = re.compile(
    r"^(?P<np>[a-z][\w#./-]*(?:[-_.][\w]+)+(?:\s+[a-z][\w-]+){0,2}?)\s+"
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
    r"\s*;\s+|\s+-\s+|,?\s+(?:and|but|so|because|while|although|though|whereas|as)\s+(?=(?:I|[Ww]e|[Hh]e|[Ss]he|"
    r"[Mm]y|[Oo]ur|[Hh]is|[Hh]er)\s)|,\s+(?=(?:I|[Ww]e|[Mm]y|[Oo]ur)\s)"
)
_SPLIT_TAIL_RE = re.compile(r",\s+(?:so|but|because|and|which\s+means)\s+")
_SPLIT_CARRY_RE = re.compile(
    r"\s+and\s+(?=(?:will|is|are|was|were|has|have|had|would|can|could|should|must|lives|works|owns|uses|likes|"
    r"loves|prefers|reports|leads|manages|joined|moved|left|started|went|attended|plans|wants|is|also\s+\w+s)\b)"
)


@dataclass
class _Clause:
    text: str
    kind: str  # main | indep | carry | tail


@dataclass
class _Ctx:
    event: EventInput
    today: date
    occurred: datetime
    actor_speaker: str | None
    team: str | None
    ctx_subject: str | None
    title: str | None
    last_person: str | None = None
    people: set[str] = field(default_factory=set)


# --------------------------------------------------------------------------------------------------
# The distiller
# --------------------------------------------------------------------------------------------------


class HeuristicDistiller:
    """S1 ``heuristic`` provider: deterministic pattern-based distillation (see the module docstring)."""

    name = "heuristic"

    def prepare(self, events: list[EventInput]) -> None:
        """Parse ahead, in one batch, every sentence the clause reader will be asked about for these
        events (a dry run lists them); :meth:`distill` then finds them parsed."""
        with clauses.collecting() as pending:
            for event in events:
                try:
                    self.distill(event)
                except Exception:  # noqa: BLE001 - the real pass reports (and parks) the event
                    continue
        clauses.warm(pending)

    def distill(self, event: EventInput) -> list[FactCandidate]:
        if event.kind in SKIPPED_KINDS or not event.content or not event.content.strip():
            return []
        if _is_system_prompt_event(event):
            return []
        ctx = _make_ctx(event)
        out: list[FactCandidate] = []
        seen: set[tuple[str, str, str]] = set()
        header_seen = False
        pos = 0
        content = event.content
        for line in content.split("\n"):
            line_start = pos
            pos += len(line) + 1
            if not line.strip():
                continue
            header = _HEADER_RE.match(line)
            if header:
                header_seen = True
                for fact in _header_facts(ctx, header.group("body"), (line_start, line_start + len(line.rstrip()))):
                    _add(out, seen, fact)
                continue
            if _HEADING_RE.match(line) and event.kind in ("note", "issue", "message"):
                continue
            speaker, body_offset = _line_speaker(ctx, line)
            if speaker == "":  # a system/instructions line
                continue
            for s_start, s_end in _sentence_spans(line, body_offset):
                raw = line[s_start:s_end]
                span = (line_start + s_start, line_start + s_end)
                for fact in _sentence_facts(ctx, speaker, raw, span):
                    _add(out, seen, fact)
        if not header_seen:
            for fact in _metadata_attendance(ctx):
                _add(out, seen, fact)
        return out


def _add(out: list[FactCandidate], seen: set[tuple[str, str, str]], fact: FactCandidate) -> None:
    key = (fact.subject.lower(), fact.predicate, str(fact.value).lower())
    if key in seen:
        return
    seen.add(key)
    out.append(fact)


def _is_system_prompt_event(event: EventInput) -> bool:
    meta_role = str(event.metadata.get("role", "")).lower() if isinstance(event.metadata, dict) else ""
    if meta_role in ("system", "developer"):
        return True
    actor_prefix = (event.actor or "").partition(":")[0].lower()
    head = event.content.lstrip()[:200].translate(_QUOTES)
    if actor_prefix in ("agent", "system", "assistant", "bot") or event.source in ("agent", "prompt"):
        return bool(_SYSTEM_RE.match(head))
    return bool(
        re.match(r"^(?:system\s*:|<\|?system\|?>|you\s+are\s+an?\s+(?:helpful\s+)?(?:ai|assistant))", head, re.I)
    )


def _make_ctx(event: EventInput) -> _Ctx:
    occurred = event.occurred_at
    if occurred.tzinfo is None:
        occurred = occurred.replace(tzinfo=UTC)
    occurred = occurred.astimezone(UTC)
    speaker = _speaker_from_actor(event.actor)
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
    ctx = _Ctx(event, occurred.date(), occurred, speaker, team, ctx_subject, title)
    if speaker:
        ctx.people.add(speaker)
    attendees = meta.get("attendees")
    if isinstance(attendees, list):
        ctx.people.update(_title_name(str(a)) for a in attendees if isinstance(a, str) and a.strip())
    return ctx


def _line_speaker(ctx: _Ctx, line: str) -> tuple[str | None, int]:
    """(speaker for this line, offset where its text starts); speaker "" means skip the line."""
    m = _SPEAKER_RE.match(line)
    if m:
        label = m.group("name").strip()
        low = label.lower()
        if low in _SYSTEM_LABELS:
            return "", 0
        if low in _USER_LABELS:
            return ctx.actor_speaker, m.start("rest")
        if low in _AGENT_LABELS:
            prefix = (ctx.event.actor or "").partition(":")[0].lower()
            return (ctx.actor_speaker if prefix == "agent" else "Assistant"), m.start("rest")
        first = low.split()[0]
        if low not in _LABELS and first not in _LABELS and first not in _STOP_CAPS and not label.isupper():
            name = _title_name(label)
            ctx.people.add(name)
            ctx.last_person = name
            return name, m.start("rest")
    ts = _TIMESTAMP_PREFIX_RE.match(line)
    return ctx.actor_speaker, (ts.end() if ts else 0)


def _sentence_spans(line: str, offset: int) -> list[tuple[int, int]]:
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
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(line)))
    out = []
    for a, b in spans:
        while a < b and line[a].isspace():
            a += 1
        while b > a and line[b - 1].isspace():
            b -= 1
        if b > a:
            out.append((a, b))
    return out


# --------------------------------------------------------------------------------------------------
# Meeting headers
# --------------------------------------------------------------------------------------------------


def _split_people(text: str) -> list[str]:
    parts = re.split(r"\s*(?:,|;|\band\b|&)\s*", text)
    return [_title_name(p.strip()) for p in parts if p.strip() and re.match(r"^[\w][\w .'-]*$", p.strip())]


def _header_facts(ctx: _Ctx, body: str, span: tuple[int, int]) -> list[FactCandidate]:
    parts = [p.strip() for p in re.split(r"\s+[-|–]\s+|\s*\|\s*", body) if p.strip()]
    title: str | None = None
    room: str | None = None
    people: list[str] = []
    for part in parts:
        m = re.match(r"^(?:attendees|participants|present)\s*:\s*(?P<p>.+)$", part, re.I)
        if m:
            people = _split_people(m.group("p"))
            continue
        m = re.match(r"^(?:room|location|where)\s*:\s*(?P<r>.+)$", part, re.I)
        if m:
            room = m.group("r").strip()
            continue
        if title is None:
            title = part
        elif room is None:
            room = part
    title = title or ctx.title or "meeting"
    ctx.title = title
    return _attendance(ctx, title, room, people, span)


def _attendance(
    ctx: _Ctx, title: str, room: str | None, people: list[str], span: tuple[int, int] | None
) -> list[FactCandidate]:  # noqa: E501
    facts: list[FactCandidate] = []
    where = f" in {room}" if room else ""
    when = f" on {ctx.today.isoformat()}"
    for person in people:
        ctx.people.add(person)
        facts.append(
            FactCandidate(
                subject=person,
                predicate="attended",
                value=title,
                statement=f"{person} attended {title}{where}{when}.",
                valid_from=ctx.occurred,
                confidence=CONF_THIRD,
                span=span,
                object_entity=title,
            )
        )
    if room:
        facts.append(
            FactCandidate(
                subject=title,
                predicate="located_in",
                value=room,
                statement=f"{title} took place in {room}{when}.",
                valid_from=ctx.occurred,
                confidence=CONF_THIRD,
                span=span,
                object_entity=room,
            )
        )
    return facts


def _metadata_attendance(ctx: _Ctx) -> list[FactCandidate]:
    meta = ctx.event.metadata if isinstance(ctx.event.metadata, dict) else {}
    attendees = meta.get("attendees")
    title = meta.get("title")
    if ctx.event.kind != "transcript" or not isinstance(attendees, list) or not isinstance(title, str):
        return []
    people = [_title_name(str(a)) for a in attendees if isinstance(a, str) and a.strip()]
    room = meta.get("room") if isinstance(meta.get("room"), str) else None
    return _attendance(ctx, title, room, people, None)


# --------------------------------------------------------------------------------------------------
# Sentences and clauses
# --------------------------------------------------------------------------------------------------


def _normalise(text: str) -> str:
    text = text.translate(_QUOTES)
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
_NOT_PAST = _words("been gone done seen was were had used let put hit hurt read quit shut lay lit set cut cost")
_ELLIPSIS_RE = re.compile(r"^(?:(?:just|finally|also|recently)\s+)?(?P<verb>[A-Za-z]+)\b")


def _restore_subject(text: str, speaker: str | None) -> str:
    """Chat drops the first person: "moved to inverness over the weekend", "got promoted today".
    A sentence that opens with a past-tense verb has the speaker as its subject."""
    m = _ELLIPSIS_RE.match(text)
    if speaker is None or not m:
        return text
    verb = m["verb"].lower()
    if verb in _IRREGULAR_PAST - _NOT_PAST or (
            verb.endswith("ed") and len(verb) > 4 and verb not in ("need", "indeed", "speed", "seed", "feed")):
        return f"I {text[0].lower()}{text[1:]}"
    return text


_HEDGE_RE = re.compile(
    r"^(?:I\s+)?(?:think|guess|reckon|suppose|believe|feel\s+like|figure)\s+(?:that\s+)?(?=(?:I|[Ww]e)\s)", re.I
)


def _strip_lead(text: str, ctx: _Ctx) -> str:
    for _ in range(4):
        before = text
        text = _INTERJ_RE.sub("", text).strip()
        text = _HEDGE_RE.sub("", text)
        m = _PREAMBLE_RE.match(text)
        if m:
            label = m.group("label").strip()
            words = label.split()
            if len(words) <= 6 and not re.search(r"\d{1,2}$", label) and not _EMAIL_RE.search(label):
                low = label.lower()
                if not (
                    len(words) <= 3
                    and _NAME_RE.fullmatch(label)
                    and low not in _LABELS
                    and words[0].lower() not in _LABELS
                ):  # noqa: E501
                    text = text[m.end() :].strip()
        if text == before:
            break
    return text


def _is_noise(text: str, ctx: _Ctx) -> bool:
    bare = re.sub(r"[^\w\s'@+-]", " ", text).strip()
    words = bare.split()
    if len(words) < 3:
        return True
    if _NOISE_RE.match(text) or _REACTION_RE.match(text):
        return True
    return bool(ctx.title and bare.lower() == re.sub(r"[^\w\s'@+-]", " ", ctx.title).strip().lower())


def _sentence_facts(ctx: _Ctx, speaker: str | None, raw: str, span: tuple[int, int]) -> list[FactCandidate]:
    if "; " in raw:  # two sentences joined by a semicolon are read one by one
        return [f for part in raw.split("; ") for f in _sentence_facts(ctx, speaker, part, span)]
    text = _restore_subject(_normalise(raw), speaker)
    if not text or text.endswith("?") or _SYSTEM_RE.match(text):
        return []
    text = _strip_lead(text, ctx)
    text = _EMOTICON_RE.sub("", text).strip()
    if not text or text.endswith("?") or _SYSTEM_RE.match(text) or _SECOND_PERSON_RE.match(text):
        return []
    if _is_noise(text, ctx):
        return []
    text = re.sub(r"^(?:[Ll]et\s+us|[Ll]ets)\s+(?=(?:aim|try|target|plan|strive)\b)", "we ", text)
    if _REQUEST_RE.match(text):
        # A request can still carry facts after a dash: "Please congratulate Carol - she was promoted ..."
        _note_people(ctx, text)
        parts = re.split(r"\s+-\s+|;\s+", text, maxsplit=1)
        if len(parts) < 2:
            return []
        text = parts[1]
    clauses = _split_clauses(text)
    facts: list[FactCandidate] = []
    unmatched: list[tuple[_Clause, _Subject]] = []
    matched_any = False
    prev_subject_text: str | None = None
    for clause in clauses:
        ctext = clause.text
        if clause.kind == "carry" and prev_subject_text:
            ctext = f"{prev_subject_text} {ctext}"
        ctext = _strip_lead(ctext, ctx) if clause.kind != "main" else ctext
        ctext = _front_date_to_end(ctext)
        if not ctext or _REQUEST_RE.match(ctext) or _SECOND_PERSON_RE.match(ctext):
            continue
        subj = _parse_subject(ctx, speaker, ctext)
        if subj.kind in ("fp", "we") and subj.name is None:
            continue  # first person with no known speaker
        if subj.kind == "none" and _LEAD_PRO.match(ctext):
            continue  # he/she with no antecedent in this event
        protos = _apply_rules(ctx, speaker, subj, ctext)
        if protos is not None:
            matched_any = True
            facts.extend(_build(ctx, speaker, subj, ctext, protos, span))
        else:
            unmatched.append((clause, subj))
            if clause.kind == "carry":
                unmatched[-1] = (_Clause(ctext, "carry"), subj)
        lead = _lead_text(ctext)
        if lead:
            prev_subject_text = lead
        _note_people(ctx, ctext, subj)
    if not matched_any:
        return _states(ctx, speaker, text, span)
    for clause, subj in unmatched:
        if clause.kind == "tail" or subj.kind == "none":
            continue
        if len(clause.text.split()) < 3:
            continue
        facts.extend(_states(ctx, speaker, clause.text, span))
    return facts


_FRONT_DATE_RE = re.compile(
    rf"^(?P<d>(?:(?:on|last|next|this|by)\s+)?(?:{'|'.join(_WEEKDAYS)}|week|month|year|weekend)|yesterday|today|"
    rf"tomorrow|tonight|last\s+night|this\s+(?:morning|afternoon|evening)|(?:on\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+"
    rf"(?:of\s+)?(?-i:[A-Z][a-z]+)(?:\s+\d{{4}})?|(?:in\s+)?\d{{4}}|\d+\s+\w+\s+ago|(?:on\s+)?\d{{4}}-\d{{2}}-\d{{2}})"
    rf"\s*,?\s+(?=(?:I|[Ww]e|[Mm]y|[Oo]ur|[Hh]e|[Ss]he|(?-i:[A-Z][a-z]+\s+(?:is|was|will|has|moved|joined|left|"
    rf"started|went)))\b)",
    re.I,
)


def _front_date_to_end(text: str) -> str:
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


def _split_clauses(text: str) -> list[_Clause]:
    body = text.rstrip(".!")
    pieces: list[_Clause] = []
    pos = 0
    for m in _SPLIT_INDEP_RE.finditer(body):
        pieces.append(_Clause(body[pos : m.start()], "main" if not pieces else "indep"))
        pos = m.end()
    pieces.append(_Clause(body[pos:], "main" if not pieces else "indep"))
    out: list[_Clause] = []
    for piece in pieces:
        parts = _SPLIT_TAIL_RE.split(piece.text)
        for i, part in enumerate(parts):
            kind = piece.kind if i == 0 else "tail"
            carry = _SPLIT_CARRY_RE.split(part)
            for j, sub in enumerate(carry):
                sub = sub.strip(" ,")
                if sub:
                    out.append(_Clause(sub, kind if j == 0 else "carry"))
    return out


def _lead_text(text: str) -> str | None:
    if _LEAD_FP.match(text):
        return "I"
    m = _LEAD_WE.match(text)
    if m:
        return m.group(0).strip()
    m = _LEAD_PRO.match(text)
    if m:
        return m.group("p")
    m = _LEAD_NP.match(text)
    if m:
        return text[: m.end()].strip()
    m = _LEAD_NAME.match(text)
    if m and not m.group("poss") and m.group("n").split()[0].lower() not in _STOP_CAPS:
        return m.group("n")
    return None


def _note_people(ctx: _Ctx, text: str, subj: _Subject | None = None) -> None:
    if subj is not None and subj.kind == "third" and subj.name and subj.name in ctx.people:
        ctx.last_person = subj.name
    for m in _NAME_RE.finditer(text):
        name = m.group(0)
        if m.start() == 0 or name.split()[0].lower() in _STOP_CAPS or any(ch.isdigit() for ch in name):
            if m.start() == 0 and subj is not None and subj.kind == "third" and subj.name == name:
                ctx.last_person = name
            continue
        prev = text[: m.start()].split()
        if prev and prev[-1].lower() in _PLACE_PREPS:
            continue
        if _MONTHS.get(name.lower()) or name.lower() in _WEEKDAYS:
            continue
        ctx.last_person = name


def _parse_subject(ctx: _Ctx, speaker: str | None, text: str) -> _Subject:
    m = _LEAD_FP.match(text)
    if m:
        return _Subject(speaker, "fp", False, text[m.end() :])
    m = _LEAD_MY.match(text)
    if m:
        return _Subject(speaker, "fp", True, text[m.end() :])
    m = _LEAD_WE.match(text)
    if m:
        return _Subject(ctx.team, "we", False, text[m.end() :])
    m = _LEAD_PRO.match(text)
    if m:
        return _Subject(ctx.last_person, "third" if ctx.last_person else "none", False, text[m.end() :])
    m = _LEAD_PRO_POSS.match(text)
    if m and ctx.last_person:
        return _Subject(ctx.last_person, "third", True, text[m.end() :])
    m = _LEAD_OUR.match(text)
    if m:
        return _Subject(ctx.team, "we", True, text[m.end() :])
    m = _LEAD_NP.match(text)
    if m:
        return _Subject(m.group("np"), "np", False, text[m.end() :])
    m = _LEAD_NAME.match(text)
    if m:
        name = m.group("n")
        first = name.split()[0].lower()
        rest = text[m.end() :]
        if first not in _STOP_CAPS and (m.group("poss") or _VERBISH_RE.match(rest) or name in ctx.people):
            return _Subject(name, "third", bool(m.group("poss")), rest)
    m = _LEAD_BARE_NP.match(text)
    if m:
        return _Subject(m.group("np"), "np", False, text[m.end() :])
    return _Subject(None, "none", False, text)


def _is_person(ctx: _Ctx, subj: _Subject) -> bool:
    if subj.kind == "fp":
        return True
    if subj.kind != "third" or not subj.name:
        return False
    if subj.name in ctx.people:
        return True
    return not (any(ch.isdigit() for ch in subj.name) or _ORG_SUFFIX_RE.search(subj.name))


def _apply_rules(ctx: _Ctx, speaker: str | None, subj: _Subject, text: str) -> list[_Proto] | None:
    """The pattern rules, first match wins; ``None`` when no rule matched (→ ``states``)."""
    rest = subj.rest
    personal = subj.kind in ("fp", "third", "we")
    # Inline "my sister Jane" anywhere in the clause.
    rel_inline: list[_Proto] = []
    if speaker or ctx.team:
        for m in _R_MY_REL_INLINE.finditer(text):
            owner = speaker if m.group(0)[0] in "Mm" else ctx.team
            b = m.group("b")
            if owner and b.split()[0].lower() not in _STOP_CAPS:
                rel = re.sub(r"\s+", " ", m.group("r").lower())
                rel_inline.append(_Proto("relationship", f"{rel} of {owner}", owner, subject=b, confidence=CONF_FIRST))
                ctx.people.add(b)
    # Subject-less clauses: imperative commit titles, "call me X", "NAME <email>", "Gonna …".
    if subj.kind in ("none", "np"):
        m = _R_IMPERATIVE_UPGRADE.match(text)
        if m:
            target = _clean_value(m.group("s"))
            value = _clean_value(m.group("v"), ("in", "on", "for", "with"))
            if target and value:
                value = _canon_tool(value)
                st = _as_statement(f"{target} was upgraded to {value}")
                return [_Proto("version", value, subject=target, confidence=CONF_THIRD, statement=st)]
    m = _R_CALL_ME.match(text)
    if m and speaker:
        v = m.group("v")
        return [_Proto("alias", v, subject=speaker, confidence=CONF_FIRST, statement=f"{speaker} goes by {v}.")]
    m = _R_AKA.match(text)
    if m:
        return [_Proto("alias", m.group("b"), subject=m.group("a"), confidence=CONF_THIRD)]
    m = _R_NAME_EMAIL.search(text)
    if m and m.group("n").split()[0].lower() not in _STOP_CAPS:
        n, e = m.group("n"), m.group("e").lower()
        st = f"{_possessive(n)} email is {e}."
        return [_Proto("email", e, subject=n, confidence=CONF_THIRD, statement=st)]
    if subj.kind == "none" and speaker:
        m = re.match(r"^(?:[Gg]oing\s+to|[Pp]lanning\s+(?:to|on)|[Hh]oping\s+to)\s+(?P<v>.+)$", text)
        if (
            m
            and not re.match(r"^(?:the|a|an|my|our|his|her|their|this|that|\w+s)\b", m.group("v"), re.I)
            and not re.search(r"\b(?:has|have|is|are|was|were)\b", m.group("v"))
        ):
            v = _plan_value(ctx, speaker, _Subject(speaker, "fp", False, text), m.group("v"))
            if v:
                st = _as_statement(f"{speaker} is going to {v}")
                return [_Proto("plans", v, subject=speaker, confidence=CONF_FIRST, statement=st)]
    if subj.name is None:
        return rel_inline or None

    conf = CONF_FIRST if subj.kind in ("fp", "we") else CONF_THIRD

    if subj.possessive:
        found = _possessive_rules(ctx, speaker, subj, rest, conf)
        if found is None and rel_inline:
            # "My sister Jane lives in Paris": the relationship, then the clause about Jane.
            m = _R_MY_REL_INLINE.match(text)
            if m:
                sub_text = text[m.start("b") :]
                sub = _parse_subject(ctx, speaker, sub_text)
                more = _apply_rules(ctx, speaker, sub, sub_text) if sub.kind == "third" else None
                for p in more or []:
                    if p.subject is None:
                        p.subject = sub.name
                    rel_inline.append(p)
        return found or rel_inline or None

    if personal:
        # relationship
        m = _R_REL_IS.match(rest)
        if m:
            b = m.group("b")
            owner = {"my": speaker, "our": ctx.team, "his": ctx.last_person, "her": ctx.last_person}.get(b.lower(), b)
            if owner and owner != subj.name:
                rel = re.sub(r"\s+", " ", m.group("r").lower())
                ctx.people.add(owner)
                return [_Proto("relationship", f"{rel} of {owner}", owner, confidence=conf)]
        m = _R_REL_VERB.match(rest)
        if m and m.group("b").split()[0].lower() not in _STOP_CAPS:
            verb = m.group("verb").lower()
            b = m.group("b")
            ctx.people.add(b)
            if verb.startswith("report"):
                rel = f"reports to {b}"
            elif verb.startswith("manag"):
                rel = f"manager of {b}"
            elif verb.startswith("mentor"):
                rel = f"mentor of {b}"
            elif verb.startswith(("lead", "led")):
                rel = f"lead of {b}"
            elif "pair" in verb:
                rel = f"pairs with {b}"
            elif "married" in verb:
                rel = f"married to {b}"
            elif "engaged" in verb:
                rel = f"engaged to {b}"
            elif "friends" in verb:
                rel = f"friend of {b}"
            elif "dating" in verb:
                rel = f"dating {b}"
            else:
                rel = f"works closely with {b}"
            return [_Proto("relationship", rel, b, confidence=conf)]
        # name / alias
        m = _R_NAME_IS.match(rest)
        if m:
            return [_Proto("name", m.group("v"), confidence=conf)]
        m = _R_ALIAS_GO.match(rest)
        if m:
            return [_Proto("alias", m.group("v"), confidence=conf)]
        if subj.kind == "fp":
            m = _R_I_AM_NAME.match(rest)
            if m and m.group("v").split()[0].lower() not in _STOP_CAPS and not _ROLE_RE.search(m.group("v")):
                v = m.group("v")
                protos: list[_Proto] = []
                if speaker and v.lower() != speaker.lower():
                    protos.append(_Proto("name", v, confidence=conf))
                if m.group("org"):
                    protos.append(
                        _Proto("states", f"{speaker} is from {m.group('org')}", confidence=CONF_STATES,
                               statement=f"{speaker} is from {m.group('org')}.")
                    )  # fmt: skip
                return protos
        # birthday
        m = _R_BORN.match(rest)
        if m:
            v = _birthday_value(ctx, m.group("v"))
            if v:
                return [_Proto("birthday", v, confidence=conf)]
        # allergies and diets → states
        m = _R_ALLERGY.match(rest)
        if m:
            v = _clean_value(m.group("v"), keep_article=True)
            if v:
                return [_Proto("states", v, confidence=conf)]
        # timezone
        if subj.kind in ("fp", "third"):
            m = _R_TZ_IN.match(rest)
            if m:
                tz = _timezone_value(m.group("v"))
                if tz:
                    return [_Proto("timezone", tz, confidence=conf)]
        # role
        role = _role_rules(rest)
        if role is not None and subj.kind != "we":
            protos = [_Proto("role", role[0], confidence=conf)]
            if role[1]:
                protos.append(_Proto("works_at", role[1], role[1], confidence=conf))
            return protos
        # member_of
        for rx in (_R_MEMBER, _R_ON_TEAM, _R_BELONG):
            m = rx.match(rest)
            if m:
                v = _clean_value(m.group("v"), ("at", "since", "from", "for"))
                if v:
                    return [_Proto("member_of", v, v, confidence=conf)]
        # works_at (+ joined dispatch, left)
        m = _R_WORK_AT.match(rest)
        if m:
            org = _clean_value(m.group("v"), ("as", "in", "since", "for", "from", "on", "with"))
            if org:
                protos = [_Proto("works_at", org, org, confidence=conf)]
                rm = re.search(r"\bas\s+(?:an?\s+|the\s+)?(?P<r>[^,;]+)", m.group("v"))
                if rm:
                    r = _clean_value(rm.group("r"), ("in", "at", "since", "for", "from", "on"))
                    if r and _ROLE_RE.search(r):
                        protos.append(_Proto("role", _title_role(r), confidence=conf))
                return protos
        m = _R_JOIN.match(rest)
        if m:
            return _join_rules(ctx, m.group("v"), conf)
        m = _R_START_AT.match(rest)
        if m:
            org = _clean_value(m.group("v"), ("as", "in", "since", "for", "from", "on"))
            if org:
                return [_Proto("works_at", org, org, confidence=conf)]
        m = _R_LEFT.match(rest)
        if m and subj.kind != "we":
            org = _clean_value(m.group("v"), ("as", "in", "since", "for", "to", "after", "on"))
            if org and org[0].isupper() and _leading_proper(org):
                return [_Proto("works_at", f"none (left {org})", confidence=conf)]
        # lives_in
        for rx in (_R_LIVE, _R_MOVED):
            m = rx.match(rest)
            if m:
                v = _clean_value(m.group("v"), ("with", "for", "from", "since", "near", "at"))
                if v:
                    return [_Proto("lives_in", v, v, confidence=conf)]
        m = _R_BASED.match(rest)
        if m:
            v = _clean_value(m.group("v"), ("with", "for", "from", "since"))
            if v:
                located = re.search(r"\b(?:located|situated)\b", rest) and subj.kind != "fp"
                pred = "lives_in" if _is_person(ctx, subj) and not located else "located_in"
                return [_Proto(pred, v, v, confidence=conf)]
        m = _R_MOVING.match(rest)
        if m:
            v = _clean_value(m.group("v"), ("with", "for", "from"))
            if v:
                return [_Proto("plans", _plan_value(ctx, speaker, subj, f"move to {m.group('v')}"), confidence=conf)]
    # Things (noun phrases and named non-people): located_in, version.
    if subj.kind in ("np", "third", "we"):
        m = _R_VERSION_NP.match(rest)
        if m:
            raw_v = m.group("v").strip().rstrip(".")
            tf = _TOOL_FOR_RE.match(raw_v)
            if tf and subj.kind == "we":
                target = _clean_value(tf.group("t")) or tf.group("t")
                return [_Proto("version", _canon_tool(tf.group("tv")), subject=target, confidence=CONF_THIRD)]
            v = _clean_value(raw_v, ("in", "on", "for", "with", "since", "from"))
            thing = subj.kind == "np" or (subj.kind == "third" and not _is_person(ctx, subj))
            if v and thing and _VERSIONED_RE.match(v):
                return [_Proto("version", _canon_tool(v), confidence=CONF_THIRD)]
        if subj.kind in ("np", "third") and not _is_person(ctx, subj):
            m = _R_LOCATED.match(rest)
            if m:
                v = _clean_value(m.group("v"), ("and", "with", "for", "since", "where", "next"), keep_article=False)
                if v and (
                    v[0].isupper()
                    or v[0].isdigit()
                    or re.search(
                        r"\b(?:floor|building|room|office|street|"
                        r"city|campus|wing|basement)\b",
                        v,
                        re.I,
                    )
                ):
                    return [_Proto("located_in", v, v, confidence=CONF_THIRD)]
    if personal or subj.kind == "np":
        # version / uses
        m = _R_UPGRADE_X.match(rest)
        if m:
            target = _clean_value(m.group("s"))
            v = _clean_value(m.group("v"), ("in", "on", "for", "over", "with", "last", "this"))
            if target and v and re.search(r"\d", v):
                return [_Proto("version", _canon_tool(v), subject=target, confidence=CONF_THIRD)]
        for rx in (_R_UPGRADE_TO, _R_SWITCHED, _R_USE):
            m = rx.match(rest)
            if m and subj.kind != "np":
                raw_v = m.group("v")
                tf = _TOOL_FOR_RE.match(_clean_value(raw_v, keep_article=True) or raw_v)
                if tf:
                    tv = _canon_tool(tf.group("tv"))
                    target = _clean_value(tf.group("t")) or tf.group("t")
                    return [_Proto("version", tv, subject=target, confidence=CONF_THIRD)]
                v = _clean_value(raw_v, ("for", "over", "on", "in", "at", "with", "instead", "as", "to", "from"))
                if v:
                    v = _canon_tool(v)
                    obj = _leading_proper(v)
                    obj = re.sub(r"(?:\s+v?\d[\w.]*)+$", "", obj) if obj else None
                    return [_Proto("uses", v, obj or None, confidence=conf)]
    if personal:
        # dislikes / prefers
        m = _R_DISLIKE.match(rest)
        if m:
            v = _clean_value(m.group("v"))
            if v:
                return [_Proto("dislikes", v, _leading_proper(v), confidence=conf)]
        m = _R_GOAL_TO.match(rest)
        if m:
            v = _plan_value(ctx, speaker, subj, m.group("v"))
            if v:
                return [_Proto("goal", v, confidence=conf)]
        m = _R_PREFER.match(rest)
        if m:
            v = _clean_value(m.group("v"), ("because", "since"))
            if v:
                v = re.sub(r"^to\s+", "", v)
                negated = re.match(r"^(?:never|no\s+longer)\b", rest, re.I)
                return [_Proto("dislikes" if negated else "prefers", v, _leading_proper(v), confidence=conf)]
        m = _R_GOAL_OTHER.match(rest)
        if m:
            v = _plan_value(ctx, speaker, subj, m.group("v"))
            if v:
                return [_Proto("goal", v, confidence=conf)]
        # plans
        m = _R_PLAN.match(rest)
        if m:
            raw_v = m.group("v") or m.group("v2")
            if not re.match(r"^not\b", raw_v):
                v = _plan_value(ctx, speaker, subj, raw_v)
                if v:
                    return [_Proto("plans", v, confidence=conf)]
        # attended
        m = _R_ATTEND.match(rest)
        if m:
            v = _clean_value(m.group("v") or m.group("v2"), ("with", "for", "to", "and", "in", "on", "at"))
            relative = v and re.match(rf"^(?:my|our|his|her|their)\s+(?:{_REL_NOUNS}|parents|family|folks|kids|"
                                      rf"children|friends|mom|dad|in-laws)s?$", v, re.I)  # fmt: skip
            if v and not relative and v.lower() not in ("bed", "sleep", "work", "school", "home"):
                return [_Proto("attended", v, v, confidence=conf)]
        # owns
        m = _R_OWN.match(rest)
        if m:
            v = _clean_value(m.group("v"), ("for", "since", "from", "with", "until"))
            if v:
                return [_Proto("owns", v, v, confidence=conf)]
        m = _R_HAVE_PET.match(rest)
        if m:
            v = _clean_value(m.group("v"), keep_article=False)
            if v:
                return [_Proto("owns", v, v, confidence=conf)]
    elif subj.kind == "np":
        m = _R_OWN.match(rest)
        if m:
            v = _clean_value(m.group("v"), ("for", "since", "from", "with", "until"))
            if v:
                return [_Proto("owns", v, v, confidence=CONF_THIRD)]
    # generic timezone / email in a first-person clause
    if subj.kind == "fp":
        tz = _TZ_RE.search(text)
        if tz and re.search(r"\b(?:online|available|around|working|work|hours|time|based|in|on)\b", text, re.I):
            return [_Proto("timezone", tz.group(0), confidence=conf)]
        em = [e for e in _EMAIL_RE.finditer(text)
              if not re.search(r"\b(?:not|old|former|previous|ex)\b[^@]{0,20}$", text[: e.start()], re.I)]  # fmt: skip
        if em:
            return [_Proto("email", em[0].group(0).lower(), confidence=conf)]
    return rel_inline or None


def _possessive_rules(ctx: _Ctx, speaker: str | None, subj: _Subject, rest: str, conf: float) -> list[_Proto] | None:  # noqa: E501
    m = _R_POSS_EMAIL.match(rest)
    if m:
        e = _EMAIL_RE.search(m.group("v"))
        if e:
            return [_Proto("email", e.group(0).lower(), confidence=conf)]
    m = _R_POSS_BIRTHDAY.match(rest)
    if m:
        v = _birthday_value(ctx, m.group("v"))
        if v:
            return [_Proto("birthday", v, confidence=conf)]
    m = _R_POSS_TZ.match(rest)
    if m:
        tz = _timezone_value(m.group("v"), strict=False)
        if tz:
            return [_Proto("timezone", tz, confidence=conf)]
    m = _R_POSS_NAME.match(rest)
    if m:
        pred = "name" if m.group("kind").lower() in ("name", "full name") else "alias"
        return [_Proto(pred, m.group("v"), confidence=conf)]
    m = _R_POSS_ROLE.match(rest)
    if m:
        v = _clean_value(m.group("v"), ("at", "in", "since", "for", "on"))
        if v:
            return [_Proto("role", _title_role(v), confidence=conf)]
    m = _R_POSS_GOAL.match(rest)
    if m:
        v = _plan_value(ctx, speaker, subj, m.group("v"))
        if v:
            return [_Proto("goal", v, confidence=conf)]
    m = _R_POSS_FAV.match(rest)
    if m:
        v = _clean_value(m.group("v"))
        if v:
            what = m.group("what").strip()
            return [_Proto("prefers", f"{v} (favourite {what})", _leading_proper(v), confidence=conf)]
    m = _R_MY_REL_IS.match(rest)
    if m and subj.name:
        b = m.group("b")
        if b.split()[0].lower() not in _STOP_CAPS:
            rel = re.sub(r"\s+", " ", m.group("r").lower())
            ctx.people.add(b)
            return [_Proto("relationship", f"{rel} of {subj.name}", subj.name, subject=b, confidence=conf)]
    # "our office is in Lisbon" / "my laptop is on the desk": a thing owned by the subject.
    m = re.match(
        r"^(?P<np>[\w#./-]+(?:\s+[\w#./-]+){0,3}?)\s+(?:is|are)\s+(?:located\s+|based\s+)?in\s+(?P<v>[A-Z].*)$", rest
    )  # noqa: E501
    if m and subj.name:
        v = _clean_value(m.group("v"), ("and", "with", "for", "since"))
        if v:
            thing = f"{subj.name} {m.group('np')}" if subj.kind == "we" else f"{_possessive(subj.name)} {m.group('np')}"  # noqa: E501
            return [_Proto("located_in", v, v, subject=thing, confidence=conf)]
    return None


def _role_rules(rest: str) -> tuple[str, str | None] | None:
    for rx in (_R_PROMOTED, _R_WORK_AS, _R_BECAME, _R_IS_ROLE):
        m = rx.match(rest)
        if not m:
            continue
        raw = m.group("v")
        org = None
        om = re.search(r"\s(?:at|for|with)\s+(?P<o>[A-Z][^,;]*)", raw)
        if om:
            org = _clean_value(om.group("o"), ("as", "in", "since", "on", "for", "from"))
        v = _clean_value(raw, ("at", "for", "in", "on", "since", "from", "with", "and", "who", "that"))
        if not v:
            continue
        v = re.sub(r"^(?:new|current|acting|interim)\s+", "", v, flags=re.I)
        if rx is not _R_PROMOTED and not _ROLE_RE.search(v):
            continue
        if rx in (_R_IS_ROLE, _R_BECAME) and (len(v.split()) > 5 or _FIRST_PERSON_RE.search(v)):
            continue
        return _title_role(v), org
    return None


def _join_rules(ctx: _Ctx, raw: str, conf: float) -> list[_Proto] | None:
    text = raw.strip()
    if re.match(r"^(?:us|the\s+team|our\s+team|the\s+company)\b", text, re.I):
        team = ctx.team
        if not team:
            return None
        rm = re.search(r"\bas\s+(?:an?\s+|the\s+)?(?P<r>[^,;]+)", text)
        protos = [_Proto("member_of", team, team, confidence=conf)]
        if rm:
            r = _clean_value(rm.group("r"), ("in", "at", "since", "for", "from", "on"))
            if r and _ROLE_RE.search(r):
                protos.append(_Proto("role", _title_role(r), confidence=conf))
        return protos
    v = _clean_value(text, ("as", "in", "since", "for", "from", "on", "at", "with"))
    if not v:
        return None
    if _R_JOINED_EVENT.search(v):
        return [_Proto("attended", v, v, confidence=conf)]
    if re.search(rf"\b(?:{_TEAM_WORDS})\b", v, re.I) or re.match(r"^team\s", v, re.I):
        return [_Proto("member_of", v, v, confidence=conf)]
    if not v[0].isupper():
        return None
    protos = [_Proto("works_at", v, v, confidence=conf)]
    rm = re.search(r"\bas\s+(?:an?\s+|the\s+)?(?P<r>[^,;]+)", text)
    if rm:
        r = _clean_value(rm.group("r"), ("in", "at", "since", "for", "from", "on"))
        if r and _ROLE_RE.search(r):
            protos.append(_Proto("role", _title_role(r), confidence=conf))
    return protos


def _timezone_value(raw: str, strict: bool = True) -> str | None:
    m = _TZ_RE.search(raw)
    if m:
        # Prefer an IANA name anywhere in the text ("Lisbon time (Europe/Lisbon)").
        for mm in _TZ_RE.finditer(raw):
            if mm.group("iana"):
                return mm.group("iana")
        return m.group(0)
    if strict:
        tm = re.match(r"^(?P<v>[A-Z][\w ]{1,30}?)\s+time\b", raw)
        return f"{tm.group('v')} time" if tm else None
    return _clean_value(raw)


def _birthday_value(ctx: _Ctx, raw: str) -> str | None:
    hits = _find_dates(raw, ctx.today, future=True)
    if hits:
        h = hits[0]
        text = raw[h.start : h.end]
        if h.precision == "day":
            if h.has_year and not _is_relative(text) and re.search(r"(?:19|20)\d{2}", text):
                return h.day.isoformat()
            return f"--{h.day.month:02d}-{h.day.day:02d}"
    m = re.search(r"\b(?:in\s+)?((?:19|20)\d{2})\b", raw)
    if m:
        return m.group(1)
    return None


def _plan_value(ctx: _Ctx, speaker: str | None, subj: _Subject, raw: str) -> str | None:
    v = re.split(r",\s*(?:which|so|because|but|though|although|as)\b|\s+-\s+|;|\s+(?:if|unless)\s", raw, maxsplit=1)[0]
    v = _EMOTICON_RE.sub("", v).strip().rstrip(".!;,")
    fut = True
    hits = _find_dates(v, ctx.today, fut)
    v = _replace_dates(v, hits)
    v = _resolve_person(v, speaker, ctx.team)
    v = re.sub(r"^(?:be\s+going\s+to|going\s+to)\s+", "", v)
    v = re.sub(r"\s+", " ", v).strip()
    if not v or v.lower() in _PRONOUN_VALUES or _SECOND_PERSON_ANY_RE.search(v):
        return None  # "send you a vid", "keep you posted": conversation, not a plan
    return v


# --------------------------------------------------------------------------------------------------
# Building candidates
# --------------------------------------------------------------------------------------------------


def _resolve_statement(
    ctx: _Ctx, speaker: str | None, subj: _Subject, text: str, hits: list[_DateHit], keep_abs: bool
) -> str:  # noqa: E501
    out = _replace_dates(text, hits, keep_absolute=keep_abs)
    if subj.kind == "third" and subj.name and _LEAD_PRO.match(out):
        out = _LEAD_PRO.sub(f"{subj.name} ", out, count=1)
    elif subj.kind == "third" and subj.name and subj.possessive and _LEAD_PRO_POSS.match(out):
        out = _LEAD_PRO_POSS.sub(f"{_possessive(subj.name)} ", out, count=1)
    if ctx.team:
        out = re.sub(r"^(?:[Tt]he|[Oo]ur)\s+(?:whole\s+)?team\b", lambda _m: ctx.team or "", out)
    out = _resolve_person(out, speaker, ctx.team)
    return _as_statement(out)


def _build(
    ctx: _Ctx, speaker: str | None, subj: _Subject, text: str, protos: list[_Proto], span: tuple[int, int]
) -> list[FactCandidate]:  # noqa: E501
    future_ctx = bool(_FUTURE_RE.search(text))
    hits = _find_dates(text, ctx.today, future_ctx)
    first = hits[0] if hits else None
    modal_future = bool(re.search(r"\b(?:will|shall|going\s+to|am\s+moving|is\s+moving)\b", text, re.I))
    out: list[FactCandidate] = []
    plan_done = False
    for p in protos:
        subject = p.subject or subj.name
        if not subject:
            continue
        keep_abs = p.predicate == "birthday"
        statement = p.statement or _resolve_statement(ctx, speaker, subj, text, hits, keep_abs)
        valid_from = ctx.occurred
        predicate, value, obj = p.predicate, p.value, p.obj
        conf = p.confidence if p.confidence is not None else CONF_THIRD
        is_future = first is not None and first.day > ctx.today
        if predicate in STATE_PREDICATES and (is_future or modal_future) and p.subject is None:
            if plan_done:
                continue
            plan_done = True
            predicate, obj = "plans", None
            value = _plan_from_statement(statement, subject)
        elif predicate not in ("plans", "goal", "birthday") and first is not None and not is_future:
            valid_from = datetime.combine(first.day, first.at, tzinfo=UTC) if first.at else _midnight(first.day)
        if obj is None and predicate in ENTITY_PREDICATES and isinstance(value, str) and not value.startswith("none ("):
            obj = value
        if predicate == "role" and isinstance(value, str):
            value = _title_role(value)
        if isinstance(obj, str):
            obj = _resolve_person(obj, speaker, ctx.team)
        if isinstance(value, str):
            value = _resolve_person(value, speaker, ctx.team) if predicate not in ("email",) else value
            value = value.strip().rstrip(".,;:!? ")
            if not value:
                continue
        subject, predicate, value, obj, hint = _open_slot(subject, predicate, value, obj, statement)
        out.append(
            FactCandidate(
                subject=subject,
                predicate=predicate,
                value=value,
                statement=statement,
                valid_from=valid_from,
                confidence=conf,
                span=span,
                object_entity=obj,
                value_type="entity" if obj else "text",
                cardinality=hint,
                change=(predicate not in ("goal", "plans", "attended") and bool(_CHANGE_RE.search(statement))
                        and not _ADDED_RE.search(statement)),
            )
        )
    return out


_REL_OF_RE = re.compile(r"^(?P<rel>[a-z][a-z -]*?)\s+of\s+(?P<x>.+)$")
_REL_TO_RE = re.compile(r"^(?P<rel>[a-z]+(?:\s+[a-z]+)?\s+(?:to|by|with))\s+(?P<x>.+)$")
_CLASSIFIED_RE = re.compile(r"^(?:the\s+)?(?P<cls>[a-z]+)\s+of\s+(?P<x>[A-Z].*)$")
_CLOCK_RE = re.compile(r"^\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?\b", re.I)
_TIME_IN_RE = re.compile(r"\b\d{1,2}(?::\d{2}|\s*[ap]\.?m\.?)(?:\s*(?:[ap]\.?m\.?|UTC|GMT|[A-Z]{2,4}T))?", re.I)
_FAVOURITE_RE = re.compile(r"^(?P<v>.+?)\s+\((?P<what>favou?rite\s+[\w -]+)\)$")
_CHANGE_RE = re.compile(
    r"(?<!right )(?<!for )(?<!by )(?<!until )(?<!just )(?<!from )\bnow\b|"
    r"\b(?:no\s+longer|anymore|instead|switched|moved|transferred|changed|relocated)\b", re.I)
_ADDED_RE = re.compile(r"\b(?:also|too|as\s+well|another|additionally)\b", re.I)
_TEAM_VALUE_RE = re.compile(rf"^(?P<v>.+?\b(?:{_TEAM_WORDS}))\b", re.I)
_CLASS_PREFIX_RE = re.compile(
    r"^(?:[Tt]he\s+)?(?:service|app|repo|repository|project|cluster|server|database|db|channel|host|bucket|queue)"
    r"\s+(?P<id>\S*[-_/.]\S*)$", re.I)
_NAMED_THING_RE = re.compile(r"^(?:[A-Z0-9#]|\S*\w[-_/]\w)")


def _bare_subject(subject: str) -> str:
    """'The mobile app' and 'mobile app' are one subject: a leading article goes unless the name is
    a title whose every word is capitalised ('The Marriage of Figaro')."""
    m = _CLASS_PREFIX_RE.match(subject)
    if m:  # "Cluster kestrel-prod" is kestrel-prod (a suffix stays: a service and its database differ)
        return m["id"]
    m = re.match(r"^(?:[Tt]he|[Aa]n?)\s+(?P<rest>.+)$", subject)
    if not m:
        return subject
    words = [w for w in m["rest"].split() if w.lower() not in _SMALL_WORDS]
    return subject if words and all(w[:1].isupper() for w in words) else m["rest"]


def _attribute_of(value: str, subject: str, besides: set[str]) -> tuple[str, str, Any, str | None, None] | None:
    """'<attribute> of X' said of ``subject`` is X's curated attribute whose value is ``subject``
    ("manager of Nate" said of Dana → Nate ``reports_to`` Dana), unless the alias names ``besides``."""
    m = _REL_OF_RE.match(value.lower())
    slot = predicates.slot_for(m["rel"]) if m else None
    if m is None or slot is None or slot.origin != "curated" or slot.key in besides:
        return None
    return _bare_subject(value[m.start("x"):]), slot.key, subject, subject, None


def _open_slot(subject: str, predicate: str, value: Any, obj: str | None, statement: str = "",
               ) -> tuple[str, str, Any, str | None, str | None]:
    """Curated readings in the open vocabulary's shape:

    - a relationship the alias seed names is its own slot in one direction ("manager of Nate" said
      of Dana → Nate ``reports_to`` Dana);
    - owning a named thing (a service, a project, 'the status page') is the thing's ``owned_by``;
    - "flat white (favourite coffee)" is the slot ``favourite_coffee``;
    - a classifier ("continent of Asia") is part of a learned slot;
    - a move to a clock time, or a "version" that is a clock time, is a new schedule.
    """
    subject = _bare_subject(subject)
    if not isinstance(value, str):
        return subject, predicate, value, obj, None
    if predicate == "relationship":
        owned = _attribute_of(value, subject, {"relationship"})  # "Dana is the manager of Nate"
        if owned is not None:
            return owned
        m = _REL_TO_RE.match(value)
        slot = predicates.slot_for(m["rel"]) if m else None
        if m and slot is not None and slot.origin == "curated":
            return subject, slot.key, m["x"], m["x"], None
        return subject, predicate, value, obj, None
    if predicate == "role":
        owned = _attribute_of(value, subject, {"role", "relationship"})  # "the manager of Leo"
        if owned is not None:
            return owned
    if predicate == "owns" and (_NAMED_THING_RE.search(value) or re.search(rf"\bthe\s+{re.escape(value)}\b",
                                                                          statement, re.I)):
        return _bare_subject(value), "owned_by", subject, subject, None
    if predicate == "prefers":
        m = _FAVOURITE_RE.match(value)
        if m:
            key = predicates.normalise_key(m["what"])
            if key:
                return subject, key, m["v"], None, "one"
    if predicate == "states":
        m = re.match(r"^allergic\s+to\s+(?P<x>.+)$", value)
        if m:  # "I'm allergic to penicillin": one allergy of several
            return subject, "allergic_to", m["x"], None, "many"
    if predicate == "lives_in" and re.search(r"(?:^|\s)[a-z]", subject):
        predicate = "located_in"  # a thing ("Bristol office") is located, a person lives
    team = _TEAM_VALUE_RE.match(value)
    if predicate == "uses" and team:
        return subject, "member_of", team["v"], team["v"], None  # "switched to the billing team"
    when = _TIME_IN_RE.search(statement)
    if predicate in ("lives_in", "located_in", "version") and when and _CLOCK_RE.match(value):
        return subject, "scheduled_at", statement[when.start():when.end()], None, None
    m = _CLASSIFIED_RE.match(value)
    if m and predicate in ENTITY_PREDICATES:
        return subject, f"{predicate}_{m['cls']}", m["x"], m["x"], "one"
    return subject, predicate, value, obj, None


def _plan_from_statement(statement: str, subject: str) -> str:
    body = statement.rstrip(".")
    if body.startswith(subject):
        body = body[len(subject) :].strip()
    body = re.sub(r"^(?:is|are|will|shall|is\s+going\s+to|plans\s+to|intends\s+to)\s+", "", body)
    body = re.sub(r"^be\s+", "be ", body)
    return body


def _states(ctx: _Ctx, speaker: str | None, text: str, span: tuple[int, int]) -> list[FactCandidate]:
    """A sentence no curated rule read: the clause reader (``clauses.py``) gives it a slot, learned
    or curated, or decides it asserts nothing; ``states`` is kept for an assertion with no relation."""
    body = text.strip().rstrip(".!")
    if len(re.findall(r"[A-Za-z]{2,}", body)) < 3:
        return []
    if _REQUEST_RE.match(body) or _SECOND_PERSON_RE.match(body) or body.endswith("?"):
        return []
    subj = _parse_subject(ctx, speaker, body)
    if subj.kind == "fp" and not subj.name:
        return []
    if subj.kind == "none" and _LEAD_PRO.match(body):
        return []  # he/she with no antecedent
    future_ctx = bool(_FUTURE_RE.search(body))
    hits = _find_dates(body, ctx.today, future_ctx)
    statement = _resolve_statement(ctx, speaker, subj, body, hits, keep_abs=False)
    valid_from = ctx.occurred
    if hits and hits[0].day <= ctx.today:
        h = hits[0]
        valid_from = datetime.combine(h.day, h.at, tzinfo=UTC) if h.at else _midnight(h.day)
    titled = bool(ctx.ctx_subject) and statement.startswith(ctx.ctx_subject or "\0")
    # a ticket or document title ("ATL-88 Block invoicing ...") is a statement about its key
    readings = [] if titled else clauses.read_all(statement, speaker)
    if readings == [clauses.NOTHING]:
        return []
    if readings:
        future = any(h.day > ctx.today for h in hits) or bool(_MODAL_FUTURE_RE.search(body))
        return [c for r in readings if (c := _from_reading(ctx, speaker, r, statement, valid_from, future, span))]
    subject = ctx.ctx_subject if titled else clauses.subject_of(statement, speaker)
    if subject is None and subj.kind in ("fp", "we") and subj.name:
        subject = subj.name
    if not subject or subject.lower() not in statement.lower():
        return []  # no subject the statement names: nothing testable to keep
    return [FactCandidate(subject=subject, predicate="states", value=statement.rstrip("."), statement=statement,
                          valid_from=valid_from, confidence=CONF_STATES, span=span, object_entity=None)]


def _from_reading(ctx: _Ctx, speaker: str | None, reading: clauses.Reading, statement: str, valid_from: datetime,
                  future_ctx: bool, span: tuple[int, int]) -> FactCandidate | None:
    """A clause reading as a candidate, in the open vocabulary's shape (see :func:`_open_slot`)."""
    if future_ctx and reading.origin == "learned":
        return FactCandidate(subject=reading.subject, predicate="plans",
                             value=_plan_from_statement(statement, reading.subject), statement=statement,
                             valid_from=ctx.occurred, confidence=CONF_STATES, span=span)
    value, predicate = reading.value, reading.predicate
    if isinstance(value, str):
        value = _resolve_person(value, speaker, ctx.team).strip().rstrip(".,;:!? ")
        if not value:
            return None
        if predicate == "kind" and _ROLE_RE.search(value):
            predicate, value = "role", _title_role(value)  # "Breno is now Principal Engineer"
    entity = reading.value_type == "entity" and isinstance(value, str) and predicate != "role"
    subject, predicate, value, obj, hint = _open_slot(reading.subject, predicate, value,
                                                      value if entity else None, statement)
    return FactCandidate(
        subject=subject, predicate=predicate, value=value, statement=statement,
        valid_from=valid_from, confidence=CONF_THIRD if reading.origin == "curated" else CONF_STATES, span=span,
        object_entity=obj, value_type="entity" if obj else (  # type: ignore[arg-type]
            reading.value_type if reading.value_type != "entity" else "text"),
        cardinality=hint or reading.cardinality, relation=reading.relation, change=reading.change,
    )
