"""The regular expressions of the curated pattern rules (``R_*``), each matched against the text after
a clause's subject unless its rule says otherwise. The rules that use them are in the topic
modules of ``rules/``, their order in :data:`.table.PATTERN_RULES`."""

from __future__ import annotations

import re

from medallion.distill.language.lexicon import ADVS, NAME, OWNABLE, REL_NOUNS, TEAM_WORDS


def _icase(pattern: str) -> re.Pattern[str]:
    """A pattern matched without regard to case."""
    return re.compile(pattern, re.I)


R_REL_IS = re.compile(
    rf"^(?:is|am|are|was)\s+{ADVS}(?P<b>{NAME}|my|our|his|her)(?:'s?)?\s+(?P<r>{REL_NOUNS})\b", re.I
)
R_REL_VERB = _icase(
    rf"^{ADVS}(?:(?:will|would|is\s+going\s+to)\s+)?(?P<verb>reports?|reported|reporting|manages?|managed|mentors?|"
    rf"mentored|leads?|led|pairs?|paired|pairing|works?\s+closely|worked\s+closely|is\s+married|am\s+married|"
    rf"are\s+married|got\s+married|is\s+engaged|am\s+engaged|is\s+friends|am\s+friends|is\s+dating|am\s+dating|"
    rf"is\s+pairing|am\s+pairing)\s+(?:to\s+|with\s+)?(?P<b>{NAME})\b"
)
R_MY_REL_IS = re.compile(rf"^(?P<r>{REL_NOUNS})\s+is\s+(?:called\s+|named\s+)?(?P<b>{NAME})\b", re.I)
R_MY_REL_INLINE = re.compile(rf"(?<![\w'-])(?:[Mm]y|[Oo]ur)\s+(?P<r>{REL_NOUNS}),?\s+(?P<b>{NAME})\b")

R_NAME_IS = _icase(rf"^(?:am|is)\s+(?:called|named)\s+(?P<v>{NAME})")
R_ALIAS_GO = _icase(rf"^{ADVS}(?:go|goes)\s+by\s+(?P<v>{NAME})")
R_CALL_ME = re.compile(rf"^(?:please\s+)?(?:just\s+)?[Cc]all\s+me\s+(?P<v>{NAME})")
R_AKA = re.compile(rf"^(?P<a>{NAME}),?\s+(?:\(?(?:also\s+known\s+as|aka|a\.k\.a\.)\s+)(?P<b>{NAME})")
R_I_AM_NAME = re.compile(rf"^am\s+(?P<v>{NAME})(?:\s+from\s+(?P<org>{NAME}))?\s*$")
R_POSS_NAME = _icase(rf"^(?P<kind>full\s+name|name|nickname|nick|handle)\s+is\s+(?P<v>{NAME})")

R_POSS_EMAIL = _icase(
    r"^(?:(?:work|personal|new|current|main|primary)\s+){0,3}e-?mail(?:\s+address)?\s+is\s+(?P<v>\S+@\S+)")
R_POSS_BIRTHDAY = _icase(r"^(?:birthday|bday|b-day|date\s+of\s+birth|dob)\s+is\s+(?P<v>.+)$")
R_BORN = _icase(
    r"^(?:was|were)\s+born\s+(?P<v>(?:on\s+)?(?:the\s+)?\d.+|(?:on\s+)?[A-Z][a-z]+\.?\s+\d.*|in\s+(?:19|20)\d{2}.*)$"
)
R_POSS_TZ = _icase(r"^(?:time\s*zone|tz)\s+is\s+(?P<v>.+)$")
R_TZ_IN = _icase(rf"^(?:am|is|are)\s+{ADVS}(?:in|on|using|working\s+in|working\s+on)\s+(?P<v>.+)$")

R_PROMOTED = _icase(
    r"^(?:was|got|has\s+been|have\s+been|just\s+got|is\s+being|am\s+being|is|am)?\s*promoted\s+to\s+(?P<v>.+)$"
)
R_WORK_AS = _icase(
    rf"^{ADVS}(?:work|works|worked|am\s+working|is\s+working|was\s+working|started|start|starts)\s+as\s+(?P<v>.+)$"
)
R_BECAME = _icase(rf"^{ADVS}(?:became|become|becomes|has\s+become|have\s+become)\s+(?P<v>(?:a|an|the|our)\s+.+)$")
R_IS_ROLE = _icase(rf"^(?:am|is|are)\s+{ADVS}(?:now\s+)?(?P<v>(?:a|an|the|our|their|his|her|my)\s+.+)$")
R_POSS_ROLE = _icase(r"^(?:job\s+title|title|role|position|job|new\s+role|current\s+role)\s+is\s+(?P<v>.+)$")

R_MEMBER = _icase(
    rf"^(?:am|is|are)\s+{ADVS}(?:now\s+)?(?:a\s+(?:new\s+)?member\s+of|part\s+of|a\s+part\s+of)\s+(?P<v>.+)$"
)
R_ON_TEAM = _icase(rf"^(?:am|is|are)\s+{ADVS}(?:now\s+)?(?:on|in)\s+(?P<v>(?:the\s+)?.+?\b(?:{TEAM_WORDS}))\b")
R_BELONG = _icase(rf"^{ADVS}(?:belong|belongs)\s+to\s+(?P<v>.+)$")

R_WORK_AT = _icase(
    rf"^{ADVS}(?:work|works|worked|am\s+working|is\s+working|are\s+working|was\s+working|have\s+worked|"
    rf"has\s+worked|have\s+been\s+working|has\s+been\s+working)\s+(?:at|for)\s+(?P<v>.+)$"
)
R_JOIN = _icase(
    rf"^{ADVS}(?:joined|join|joins|have\s+joined|has\s+joined|am\s+joining|is\s+joining|are\s+joining|"
    rf"will\s+join|just\s+joined)\s+(?P<v>.+)$"
)
R_START_AT = _icase(
    rf"^{ADVS}(?:started|start|starts|have\s+started|has\s+started)\s+(?:a\s+new\s+job\s+)?(?:at|with)\s+(?P<v>[A-Z].+)$"
)  # noqa: E501
R_LEFT = _icase(
    rf"^{ADVS}(?:left|quit|resigned\s+from|have\s+left|has\s+left|am\s+leaving|is\s+leaving|"
    rf"(?:do|does)\s+not\s+work\s+(?:at|for)\s+|no\s+longer\s+works?\s+(?:at|for)\s+|am\s+no\s+longer\s+(?:at|with)|"
    rf"is\s+no\s+longer\s+(?:at|with))\s*(?P<v>.+)$"
)

R_LIVE = _icase(
    rf"^{ADVS}(?:live|lives|lived|have\s+lived|has\s+lived|am\s+living|is\s+living|are\s+living|"
    rf"have\s+been\s+living|has\s+been\s+living|reside|resides|resided)\s+in\s+(?P<v>.+)$"
)
R_MOVED = _icase(
    rf"^{ADVS}(?:moved|relocated|have\s+moved|has\s+moved|have\s+relocated|has\s+relocated)\s+(?:back\s+|over\s+)?"
    rf"(?:from\s+{NAME}\s+)?to\s+(?P<v>.+)$"
)
R_BASED = _icase(rf"^(?:am|is|are)\s+{ADVS}(?:now\s+)?(?:based|located|living|settled)\s+(?:in|out\s+of)\s+(?P<v>.+)$")

R_LOCATED = _icase(
    r"^(?:is|are)\s+(?:now\s+)?(?:(?:located|situated|based|kept|stored|hosted|housed)\s+)?(?P<prep>in|on|at|inside)"
    r"\s+(?P<v>.+)$"
)

R_VERSION_NP = _icase(
    r"^(?:now\s+|currently\s+|still\s+)?(?:runs|is\s+running|run|runs\s+on|is\s+on|are\s+on|uses|is\s+using|is\s+at|"
    r"was\s+upgraded\s+to|has\s+been\s+upgraded\s+to|is\s+now\s+on|moved\s+to|was\s+moved\s+to)\s+(?:on\s+)?"
    r"(?:version\s+)?(?P<v>.+)$"
)
R_UPGRADE_X = _icase(
    rf"^{ADVS}(?:upgraded|upgrade|upgrades|upgrading|updated|update|bumped|bump|bumps|migrated|migrate|moved|"
    rf"have\s+upgraded|has\s+upgraded|will\s+upgrade)\s+(?P<s>(?!to\b)[^,;]+?)\s+(?:from\s+\S+(?:\s+\d\S*)?\s+)?to\s+"
    rf"(?:version\s+)?(?P<v>[^,;()]+)"
)
R_UPGRADE_TO = _icase(
    rf"^{ADVS}(?:upgraded|updated|migrated|moved|switched|have\s+upgraded|has\s+upgraded|have\s+migrated|"
    rf"has\s+migrated)\s+(?:over\s+)?to\s+(?P<v>.+)$"
)
R_SWITCHED = _icase(
    rf"^{ADVS}(?:switched|switch|switches|have\s+switched|has\s+switched|changed|moved\s+over|am\s+switching|"
    rf"is\s+switching)\s+(?:over\s+)?(?:from\s+\S+(?:\s+\S+)?\s+)?to\s+(?P<v>.+)$"
)
R_USE = _icase(
    rf"^{ADVS}(?:use|uses|am\s+using|is\s+using|are\s+using|have\s+been\s+using|has\s+been\s+using|"
    rf"have\s+used|has\s+used|rely\s+on|relies\s+on|work\s+with|works\s+with)\s+(?!to\b)(?P<v>.+)$"
)
TOOL_FOR_RE = re.compile(
    r"^(?P<tv>[A-Za-z][\w.+#-]*\s*v?\d+(?:\.\d+)*)\s+(?:for|on|in)\s+(?:the\s+|our\s+|my\s+)?(?:main\s+|primary\s+|"
    r"prod\s+|production\s+)?(?P<t>[\w-]+(?:\s+[\w-]+){0,3})$",
    re.I,
)
VERSIONED_RE = re.compile(r"^(?:[A-Za-z][\w.+#-]*\s*)?v?\d+(?:\.\d+)*[a-z]?$")

R_DISLIKE = _icase(
    rf"^{ADVS}(?:hate|hates|hated|dislike|dislikes|disliked|cannot\s+stand|can\s+not\s+stand|detest|detests|"
    rf"loathe|loathes|(?:do|does)\s+not\s+(?:really\s+)?(?:like|enjoy|love)|(?:am|is|are)\s+not\s+(?:a\s+(?:big\s+)?"
    rf"fan\s+of|into|keen\s+on)|cannot\s+bear|avoid|avoids)\s+(?P<v>.+)$"
)
R_PREFER = _icase(
    rf"^{ADVS}(?:prefer|prefers|preferred|like|likes|liked|love|loves|loved|enjoy|enjoys|enjoyed|adore|adores|"
    rf"(?:am|is|are)\s+{ADVS}(?:a\s+(?:huge\s+|big\s+)?fan\s+of|into|keen\s+on|passionate\s+about|obsessed\s+with|"
    rf"crazy\s+about)|favou?r|favou?rs)\s+(?P<v>.+)$"
)
R_POSS_FAV = _icase(r"^(?:favou?rite|fave|favorite)\s+(?P<what>[\w\s-]{1,30}?)\s+(?:is|are)\s+(?P<v>.+)$")
R_ALLERGY = _icase(
    rf"^(?:am|is|are)\s+{ADVS}(?:(?:severely|very|mildly)\s+)?(?P<v>allergic\s+to\s+.+|(?:lactose|gluten)\s+"
    rf"intolerant|vegan|vegetarian|pescatarian|celiac|coeliac|diabetic|kosher|halal|teetotal|sober)$"
)

R_POSS_GOAL = _icase(
    r"^(?:(?P<q>[\w-]+(?:\s+[\w-]+)?)\s+)??(?:goal|aim|objective|ambition|dream|target|okr|mission)\s+is\s+(?:to\s+)?(?P<v>.+)$"
)  # noqa: E501
R_GOAL_TO = _icase(
    rf"^{ADVS}(?:want|wants|would\s+like|would\s+love|hope|hopes|(?:am|is|are)\s+hoping|aim|aims|"
    rf"(?:am|is|are)\s+aiming|(?:am|is|are)\s+trying|try|tries|strive|strives|(?:am|is|are)\s+determined|"
    rf"(?:am|is|are)\s+(?:keen|eager|desperate)|dream|dreams|(?:am|is|are)\s+working\s+hard)\s+to\s+(?P<v>.+)$"
)
R_GOAL_OTHER = _icase(
    rf"^{ADVS}(?:dream\s+of|dreams\s+of|(?:am|is|are)\s+working\s+towards?|(?:am|is|are)\s+saving\s+(?:up\s+)?for|"
    rf"(?:am|is|are)\s+studying\s+for|(?:am|is|are)\s+training\s+for)\s+(?P<v>.+)$"
)
R_PLAN = _icase(
    rf"^{ADVS}(?:am|is|are)?\s*(?:going\s+to|planning\s+(?:on|to)|about\s+to|hoping\s+to)\s+(?P<v>.+)$"
    rf"|^{ADVS}(?:plan|plans|intend|intends|will|shall|am\s+set\s+to|is\s+set\s+to|are\s+set\s+to|"
    rf"am\s+scheduled\s+to|is\s+scheduled\s+to)\s+(?:to\s+|on\s+)?(?P<v2>.+)$"
)
R_MOVING = _icase(rf"^(?:am|is|are)\s+{ADVS}(?:moving|relocating)\s+to\s+(?P<v>.+)$")

R_ATTEND = _icase(
    rf"^{ADVS}(?:went|have\s+been|has\s+been|go|goes)\s+to\s+(?P<v>.+)$"
    rf"|^{ADVS}(?:attended|attend|attends|am\s+attending|visited|participated\s+in|took\s+part\s+in|spoke\s+at|"
    rf"presented\s+at|was\s+at|were\s+at)\s+(?P<v2>.+)$"
)
R_JOINED_EVENT = re.compile(
    r"\b(?:meeting|call|webinar|workshop|conference|session|class|course|meetup|hackathon|summit|retreat|"
    r"offsite|off-site|standup|stand-up|sync|retro|retrospective|demo|party|event|festival|concert|support\s+group)s?\b",
    re.I,
)

R_OWN = _icase(
    rf"^{ADVS}(?:own|owns|owned|(?:am|is|are)\s+(?:now\s+)?(?:the\s+)?(?:owner\s+of|in\s+charge\s+of|responsible\s+for|"
    rf"accountable\s+for)|look\s+after|looks\s+after|take\s+over|takes\s+over|took\s+over|(?:am|is|are)\s+taking\s+over|"
    rf"have\s+taken\s+over|has\s+taken\s+over|will\s+take\s+over|maintain|maintains)\s+(?P<v>.+)$"
)
R_HAVE_PET = _icase(
    rf"^{ADVS}(?:have|has|have\s+got|has\s+got|got|bought|adopted|just\s+got)\s+(?:a|an|two|three|\d+|new)\s+"
    rf"(?:new\s+|little\s+|young\s+|old\s+)?(?P<v>(?:[\w-]+\s+){{0,2}}?(?:{OWNABLE})s?\b(?:\s+(?:named|called)\s+{NAME})?)"
)
R_IMPERATIVE_UPGRADE = re.compile(
    r"^(?:[Uu]pgrade|[Bb]ump|[Uu]pdate|[Mm]igrate)\s+(?P<s>(?!to\b)[^,;]+?)\s+(?:from\s+\S+\s+)?to\s+(?:version\s+)?"
    r"(?P<v>[^,;()]+)"
)
R_NAME_EMAIL = re.compile(rf"(?P<n>{NAME})\s*[<(]\s*(?P<e>[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{{2,}})\s*[>)]")
