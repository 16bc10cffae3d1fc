"""Values the pattern rules read out of a matched phrase: a role (and the employer named with it),
what a "joined" joined (an employer, a team or an event), a time zone, a birthday, and a plan's
wording with its dates made absolute and its first person resolved."""

from __future__ import annotations

import re

from medallion.distill.language.dates import find_dates, is_relative, replace_dates
from medallion.distill.language.lexicon import EMOTICON_RE, ROLE_RE, TEAM_WORDS, TZ_RE
from medallion.distill.language.sentences import Context, Subject
from medallion.distill.language.wording import (
    FIRST_PERSON_RE,
    PRONOUN_VALUES,
    SECOND_PERSON_ANY_RE,
    clean_value,
    resolve_person,
    title_role,
)
from medallion.distill.providers.heuristic.rules.base import ProtoFact
from medallion.distill.providers.heuristic.rules.patterns import (
    R_BECAME,
    R_IS_ROLE,
    R_JOINED_EVENT,
    R_PROMOTED,
    R_WORK_AS,
)


def role_reading(rest: str) -> tuple[str, str | None] | None:
    """(role title, employer or None) for "promoted to …", "works as …", "became a …", "is the …"."""
    for rx in (R_PROMOTED, R_WORK_AS, R_BECAME, R_IS_ROLE):
        m = rx.match(rest)
        if not m:
            continue
        raw = m.group("v")
        org = None
        om = re.search(r"\s(?:at|for|with)\s+(?P<o>[A-Z][^,;]*)", raw)
        if om:
            org = clean_value(om.group("o"), ("as", "in", "since", "on", "for", "from"))
        v = clean_value(raw, ("at", "for", "in", "on", "since", "from", "with", "and", "who", "that"))
        if not v:
            continue
        v = re.sub(r"^(?:new|current|acting|interim)\s+", "", v, flags=re.I)
        if rx is not R_PROMOTED and not ROLE_RE.search(v):
            continue
        if rx in (R_IS_ROLE, R_BECAME) and (len(v.split()) > 5 or FIRST_PERSON_RE.search(v)):
            continue
        return title_role(v), org
    return None


def join_reading(ctx: Context, raw: str, conf: float) -> list[ProtoFact] | None:
    """What "joined <raw>" joined: the team ("joined us"), an event, a named team, or an employer."""
    text = raw.strip()
    if re.match(r"^(?:us|the\s+team|our\s+team|the\s+company)\b", text, re.I):
        team = ctx.team
        if not team:
            return None
        rm = re.search(r"\bas\s+(?:an?\s+|the\s+)?(?P<r>[^,;]+)", text)
        protos = [ProtoFact("member_of", team, team, confidence=conf)]
        if rm:
            r = clean_value(rm.group("r"), ("in", "at", "since", "for", "from", "on"))
            if r and ROLE_RE.search(r):
                protos.append(ProtoFact("role", title_role(r), confidence=conf))
        return protos
    v = clean_value(text, ("as", "in", "since", "for", "from", "on", "at", "with"))
    if not v:
        return None
    if R_JOINED_EVENT.search(v):
        return [ProtoFact("attended", v, v, confidence=conf)]
    if re.search(rf"\b(?:{TEAM_WORDS})\b", v, re.I) or re.match(r"^team\s", v, re.I):
        return [ProtoFact("member_of", v, v, confidence=conf)]
    if not v[0].isupper():
        return None
    protos = [ProtoFact("works_at", v, v, confidence=conf)]
    rm = re.search(r"\bas\s+(?:an?\s+|the\s+)?(?P<r>[^,;]+)", text)
    if rm:
        r = clean_value(rm.group("r"), ("in", "at", "since", "for", "from", "on"))
        if r and ROLE_RE.search(r):
            protos.append(ProtoFact("role", title_role(r), confidence=conf))
    return protos


def timezone_value(raw: str, strict: bool = True) -> str | None:
    """The time zone ``raw`` names (an IANA name preferred); ``strict`` refuses free text."""
    m = TZ_RE.search(raw)
    if m:
        # Prefer an IANA name anywhere in the text ("Lisbon time (Europe/Lisbon)").
        for mm in TZ_RE.finditer(raw):
            if mm.group("iana"):
                return mm.group("iana")
        return m.group(0)
    if strict:
        tm = re.match(r"^(?P<v>[A-Z][\w ]{1,30}?)\s+time\b", raw)
        return f"{tm.group('v')} time" if tm else None
    return clean_value(raw)


def birthday_value(ctx: Context, raw: str) -> str | None:
    """``YYYY-MM-DD`` with a year, ``--MM-DD`` without one, or a bare year."""
    hits = find_dates(raw, ctx.today, future=True)
    if hits:
        h = hits[0]
        text = raw[h.start : h.end]
        if h.precision == "day":
            if h.has_year and not is_relative(text) and re.search(r"(?:19|20)\d{2}", text):
                return h.day.isoformat()
            return f"--{h.day.month:02d}-{h.day.day:02d}"
    m = re.search(r"\b(?:in\s+)?((?:19|20)\d{2})\b", raw)
    if m:
        return m.group(1)
    return None


def plan_value(ctx: Context, speaker: str | None, subj: Subject, raw: str) -> str | None:
    """A plan or goal as a self-contained phrase; None for talk to the listener ("send you a vid")."""
    v = re.split(r",\s*(?:which|so|because|but|though|although|as)\b|\s+-\s+|;|\s+(?:if|unless)\s", raw, maxsplit=1)[0]
    v = EMOTICON_RE.sub("", v).strip().rstrip(".!;,")
    fut = True
    hits = find_dates(v, ctx.today, fut)
    v = replace_dates(v, hits)
    v = resolve_person(v, speaker, ctx.team)
    v = re.sub(r"^(?:be\s+going\s+to|going\s+to)\s+", "", v)
    v = re.sub(r"\s+", " ", v).strip()
    if not v or v.lower() in PRONOUN_VALUES or SECOND_PERSON_ANY_RE.search(v):
        return None  # "send you a vid", "keep you posted": conversation, not a plan
    return v
