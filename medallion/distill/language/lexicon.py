"""The words and name shapes every stage of the heuristic shares: confidence tiers, predicate
classes, word lists (adverbs, role and relationship nouns, time zones, tool spellings, labels that are
not speakers, capitalised words that name nothing), dates' month and weekday names, and the regular
expressions for a name and an email address."""

from __future__ import annotations

import re

# Confidence: explicit first-person patterns, third-person patterns and meeting headers, ``states``.
CONF_FIRST = 0.9
CONF_THIRD = 0.7
CONF_STATES = 0.5

# Predicates whose value names an entity (an edge can be drawn).
ENTITY_PREDICATES = frozenset({"works_at", "member_of", "lives_in", "located_in", "owns", "attended"})
# Predicates that describe a current state: a future-dated clause turns them into plans.
STATE_PREDICATES = frozenset({"lives_in", "works_at", "member_of", "role", "owns", "uses", "located_in", "attended"})


def word_set(text: str) -> frozenset[str]:
    """A word list written as whitespace-separated text."""
    return frozenset(text.split())


_ADV = (
    r"(?:usually|also|really|just|still|now|currently|actually|finally|recently|officially|already|mostly|"
    r"basically|definitely|totally|absolutely|truly|generally|normally|always|never|often|sometimes|"
    r"personally|honestly|even|only|mainly|primarily|kind\s+of|sort\s+of|pretty\s+much|originally|"
    r"eventually|happily|proudly|gladly|then)"
)
ADVS = rf"(?:{_ADV}\s+)*"

MODALS = frozenset(
    {"can", "could", "will", "would", "shall", "should", "may", "might", "must", "cannot", "ought", "need"}
)
IRREGULAR_PAST = word_set(
    """
    was were had did went left got made took came met saw found began bought became felt knew ran sat spent
    thought told wrote won lost said sent kept held brought built caught chose drew drove ate fell fed
    fought flew forgot forgave froze gave grew hung heard hid hit hurt kept knelt laid led lent let lay lit
    meant paid put quit read rode rang rose sang sank shook shot shut slept slid spoke stood stole stuck
    struck swam swore taught tore threw understood woke wore wove wept upset withdrew been gone done seen
    taken given known become begun broken chosen driven eaten fallen forgotten gotten grown hidden ridden
    risen shaken spoken stolen sworn thrown woken worn written used sold sought fled dug swung spun sped
    bent bled bred dealt dreamt leapt learnt mistook overtook undertook shone shrank sprang stung swept
    wound clung strode withheld rebuilt rewrote retook oversaw misled awoke bore bit blew crept drank
    flung slung underwent
    """
)
THIRD_IRREGULAR = {"am": "is", "are": "is", "have": "has", "do": "does", "go": "goes", "be": "is", "'m": "is"}

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
ROLE_RE = re.compile(rf"\b(?:{_ROLE_NOUNS})s?\b", re.I)

REL_NOUNS = (
    r"manager|boss|tech\s+lead|team\s+lead|lead|mentor|mentee|direct\s+report|report|assistant|sister|"
    r"brother|sibling|wife|husband|partner|spouse|girlfriend|boyfriend|fianc[eé]e?|best\s+friend|friend|"
    r"colleague|co-?worker|cousin|mother|father|mom|mum|dad|son|daughter|aunt|uncle|niece|nephew|"
    r"grandmother|grandfather|grandma|grandpa|roommate|flatmate|neighbou?r|buddy|teammate|classmate|"
    r"landlord|supervisor|skip-level|manager's\s+manager"
)

OWNABLE = (
    r"dog|cat|puppy|kitten|pet|horse|rabbit|hamster|parrot|bird|fish|car|bike|bicycle|motorbike|motorcycle|"
    r"scooter|house|home|flat|apartment|condo|boat|cabin|farm|garden|laptop|piano|guitar|violin|camera|"
    r"drone|van|truck|tesla|macbook|iphone|phone|tablet|kindle"
)

_TZ_ABBR = (
    r"UTC(?:[+-]\d{1,2}(?::?\d{2})?)?|GMT(?:[+-]\d{1,2}(?::?\d{2})?)?|BST|CET|CEST|EET|EEST|WET|WEST|PST|PDT|"
    r"PT|MST|MDT|MT|CST|CDT|CT|EST|EDT|ET|AKST|AKDT|HST|IST|JST|KST|AEST|AEDT|ACST|AWST|NZST|NZDT|SGT|HKT|"
    r"MSK|BRT|ART|AST|ICT|WIB|PHT"
)
IANA = r"(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)/[A-Za-z_]+(?:/[A-Za-z_]+)?"
TZ_RE = re.compile(rf"(?<![\w/])(?:(?P<iana>{IANA})|(?P<abbr>{_TZ_ABBR}))(?![\w/])")

TOOL_CANON = {
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
STOP_CAPS = word_set(
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
LABELS = word_set(
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
USER_LABELS = frozenset({"user", "human", "me", "customer", "client"})
AGENT_LABELS = frozenset({"assistant", "ai", "bot", "agent", "gpt", "chatgpt", "model"})
SYSTEM_LABELS = frozenset({"system", "developer", "instructions", "system prompt", "prompt"})

NON_PERSONAL_ACTORS = frozenset({"system", "service", "bot", "app", "integration", "webhook", "sync", "job"})
ORG_SUFFIX_RE = re.compile(
    r"\b(?:inc|ltd|llc|gmbh|corp|corporation|company|co|labs|group|team|office|university|school|bank|"
    r"hospital|club|foundation|institute|agency|studio|studios|systems|technologies|ag|sa|plc|hq|headquarters|"
    r"service|server|cluster|database|db|api|app|repo|project|store|shop|restaurant|cafe|hotel|airport|"
    r"station|building|room|campus|lab)\.?$",
    re.I,
)
PLACE_PREPS = frozenset({"in", "to", "at", "from", "near", "of", "into", "on", "via", "using", "over"})

NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2,
    "a few": 3, "few": 3, "several": 3,
}  # fmt: skip
WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
MONTH_NAMES = [
    "", "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
]  # fmt: skip

NAME_TOKEN = r"(?-i:(?!I\b)[A-Z][\w-]*(?:'[A-Z][\w-]*)?)"
NAME = rf"{NAME_TOKEN}(?:\s+(?:{NAME_TOKEN}|\d+[A-Za-z]?)){{0,3}}"
NAME_RE = re.compile(NAME)
EMAIL_RE = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")

# An emoticon stands apart from a word: "298)" and "Q3:D" hold none ("build 298)" lost its "8)").
EMOTICON_RE = re.compile(r"(?:\s*(?:(?<![\w])[:;=8][-']?[()DPp/\\|*]+|<3|\^_\^|\(y\)"
                         r"|[\U0001F300-\U0001FAFF\u2600-\u27BF]))+")

TEAM_WORDS = r"team|squad|group|guild|chapter|committee|club|band|crew|department|dept|org|board|council|tribe|pod|unit|circle|choir|league"  # noqa: E501
