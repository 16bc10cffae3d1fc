"""Rules for what a clause says about a person (I, we, or someone named): relationships, name and
alias, birthday, allergies and diets, time zone, role, teams, employer, home, and the mentions of a
time zone or an email address anywhere in a first-person clause."""

from __future__ import annotations

import re

from medallion.distill.language.lexicon import CONF_STATES, EMAIL_RE, ROLE_RE, STOP_CAPS, TZ_RE
from medallion.distill.language.sentences import is_person
from medallion.distill.language.wording import clean_value, leading_proper, title_role
from medallion.distill.providers.heuristic.rules.base import UNREAD, ProtoFact, RuleInput, Verdict
from medallion.distill.providers.heuristic.rules.patterns import (
    R_ALIAS_GO,
    R_ALLERGY,
    R_BASED,
    R_BELONG,
    R_BORN,
    R_I_AM_NAME,
    R_JOIN,
    R_LEFT,
    R_LIVE,
    R_MEMBER,
    R_MOVED,
    R_MOVING,
    R_NAME_IS,
    R_ON_TEAM,
    R_REL_IS,
    R_REL_VERB,
    R_START_AT,
    R_TZ_IN,
    R_WORK_AT,
)
from medallion.distill.providers.heuristic.rules.values import (
    birthday_value,
    join_reading,
    plan_value,
    role_reading,
    timezone_value,
)

# The relationship a verb states, by the verb's first letters or a word in it (first match wins).
_RELATION_BY_VERB: tuple[tuple[str, str], ...] = (
    ("report", "reports to {}"), ("manag", "manager of {}"), ("mentor", "mentor of {}"), ("lead", "lead of {}"),
    ("led", "lead of {}"),
)  # fmt: skip
_RELATION_BY_WORD: tuple[tuple[str, str], ...] = (
    ("pair", "pairs with {}"), ("married", "married to {}"), ("engaged", "engaged to {}"),
    ("friends", "friend of {}"), ("dating", "dating {}"),
)  # fmt: skip
_AS_ROLE_RE = re.compile(r"\bas\s+(?:an?\s+|the\s+)?(?P<r>[^,;]+)")
_LOCATED_RE = re.compile(r"\b(?:located|situated)\b")
_TZ_CONTEXT_RE = re.compile(r"\b(?:online|available|around|working|work|hours|time|based|in|on)\b", re.I)
_NOT_CURRENT_EMAIL_RE = re.compile(r"\b(?:not|old|former|previous|ex)\b[^@]{0,20}$", re.I)


def relationship_is(clause: RuleInput) -> Verdict:
    """ "Dana is Nate's manager", "Jane is my sister" → relationship "manager of Nate"."""
    ctx, speaker, subj = clause.ctx, clause.speaker, clause.subject
    m = R_REL_IS.match(clause.rest)
    if m:
        b = m.group("b")
        owner = {"my": speaker, "our": ctx.team, "his": ctx.last_person, "her": ctx.last_person}.get(b.lower(), b)
        if owner and owner != subj.name:
            rel = re.sub(r"\s+", " ", m.group("r").lower())
            ctx.people.add(owner)
            return [ProtoFact("relationship", f"{rel} of {owner}", owner, confidence=clause.confidence)]
    return None


def relationship_verb(clause: RuleInput) -> Verdict:
    """ "Carol reports to Dan", "I mentor Priya", "Sam is married to Alex" → relationship."""
    m = R_REL_VERB.match(clause.rest)
    if m and m.group("b").split()[0].lower() not in STOP_CAPS:
        verb = m.group("verb").lower()
        b = m.group("b")
        clause.ctx.people.add(b)
        rel = next((form.format(b) for start, form in _RELATION_BY_VERB if verb.startswith(start)), None)
        if rel is None:
            rel = next((form.format(b) for word, form in _RELATION_BY_WORD if word in verb), f"works closely with {b}")
        return [ProtoFact("relationship", rel, b, confidence=clause.confidence)]
    return None


def called(clause: RuleInput) -> Verdict:
    """ "I am called Alexandra" → name."""
    m = R_NAME_IS.match(clause.rest)
    if m:
        return [ProtoFact("name", m.group("v"), confidence=clause.confidence)]
    return None


def goes_by(clause: RuleInput) -> Verdict:
    """ "Robert goes by Bob" → alias."""
    m = R_ALIAS_GO.match(clause.rest)
    if m:
        return [ProtoFact("alias", m.group("v"), confidence=clause.confidence)]
    return None


def i_am_name(clause: RuleInput) -> Verdict:
    """ "I am Alexandra (from Acme)": a name other than the speaker's handle is the speaker's name;
    the speaker's own name says nothing new (read, no facts)."""
    speaker = clause.speaker
    m = R_I_AM_NAME.match(clause.rest)
    if m and m.group("v").split()[0].lower() not in STOP_CAPS and not ROLE_RE.search(m.group("v")):
        v = m.group("v")
        protos: list[ProtoFact] = []
        if speaker and v.lower() != speaker.lower():
            protos.append(ProtoFact("name", v, confidence=clause.confidence))
        if m.group("org"):
            protos.append(
                ProtoFact("states", f"{speaker} is from {m.group('org')}", confidence=CONF_STATES,
                          statement=f"{speaker} is from {m.group('org')}.")
            )  # fmt: skip
        return protos
    return None


def born(clause: RuleInput) -> Verdict:
    """ "I was born on 3 May 1990" → birthday "1990-05-03"."""
    m = R_BORN.match(clause.rest)
    if m:
        v = birthday_value(clause.ctx, m.group("v"))
        if v:
            return [ProtoFact("birthday", v, confidence=clause.confidence)]
    return None


def allergy_or_diet(clause: RuleInput) -> Verdict:
    """ "I am allergic to peanuts", "I am vegetarian" → states (a medical or dietary fact, not a taste)."""
    m = R_ALLERGY.match(clause.rest)
    if m:
        v = clean_value(m.group("v"), keep_article=True)
        if v:
            return [ProtoFact("states", v, confidence=clause.confidence)]
    return None


def timezone_in(clause: RuleInput) -> Verdict:
    """ "I am on CET", "Dana is in Europe/Lisbon" → timezone (a time zone value, not a place)."""
    m = R_TZ_IN.match(clause.rest)
    if m:
        tz = timezone_value(m.group("v"))
        if tz:
            return [ProtoFact("timezone", tz, confidence=clause.confidence)]
    return None


def role(clause: RuleInput) -> Verdict:
    """ "I was promoted to staff engineer", "Dana is the design lead at Acme" → role (+ works_at)."""
    found = role_reading(clause.rest)
    if found is not None:
        protos = [ProtoFact("role", found[0], confidence=clause.confidence)]
        if found[1]:
            protos.append(ProtoFact("works_at", found[1], found[1], confidence=clause.confidence))
        return protos
    return None


def _team(clause: RuleInput, rx: re.Pattern[str]) -> Verdict:
    m = rx.match(clause.rest)
    if m:
        v = clean_value(m.group("v"), ("at", "since", "from", "for"))
        if v:
            return [ProtoFact("member_of", v, v, confidence=clause.confidence)]
    return None


def member_of(clause: RuleInput) -> Verdict:
    """ "I am a member of the climbing club" → member_of."""
    return _team(clause, R_MEMBER)


def on_team(clause: RuleInput) -> Verdict:
    """ "Priya is on the payments team" → member_of."""
    return _team(clause, R_ON_TEAM)


def belongs_to(clause: RuleInput) -> Verdict:
    """ "I belong to the book club" → member_of."""
    return _team(clause, R_BELONG)


def works_at(clause: RuleInput) -> Verdict:
    """ "I work at Acme as a data engineer" → works_at (+ role)."""
    conf = clause.confidence
    m = R_WORK_AT.match(clause.rest)
    if m:
        org = clean_value(m.group("v"), ("as", "in", "since", "for", "from", "on", "with"))
        if org:
            protos = [ProtoFact("works_at", org, org, confidence=conf)]
            rm = _AS_ROLE_RE.search(m.group("v"))
            if rm:
                r = clean_value(rm.group("r"), ("in", "at", "since", "for", "from", "on"))
                if r and ROLE_RE.search(r):
                    protos.append(ProtoFact("role", title_role(r), confidence=conf))
            return protos
    return None


def joined(clause: RuleInput) -> Verdict:
    """ "I joined Acme", "Dana joined the data team", "I joined the retro": employer, team or event.
    A "joined" no value reads from is left unread, for no later rule to misread."""
    m = R_JOIN.match(clause.rest)
    if m:
        found = join_reading(clause.ctx, m.group("v"), clause.confidence)
        return UNREAD if found is None else found
    return None


def started_at(clause: RuleInput) -> Verdict:
    """ "I started a new job at Acme", "started at northwind studios" → works_at. After *with* only a
    name ("started with Acme"): "started with small sketches" says how, not where."""
    m = R_START_AT.match(clause.rest)
    if m:
        org = clean_value(m.group("v"), ("as", "in", "since", "for", "from", "on"))
        after_with = clause.rest[:m.start("v")].rstrip().lower().endswith("with")
        if org and (org[0].isupper() or not after_with):
            return [ProtoFact("works_at", org, org, confidence=clause.confidence)]
    return None


def left_employer(clause: RuleInput) -> Verdict:
    """ "I left Acme" → works_at "none (left Acme)": the same slot with a new value, no edge to Acme."""
    m = R_LEFT.match(clause.rest)
    if m:
        org = clean_value(m.group("v"), ("as", "in", "since", "for", "to", "after", "on"))
        if org and org[0].isupper() and leading_proper(org):
            return [ProtoFact("works_at", f"none (left {org})", confidence=clause.confidence)]
    return None


def _home(clause: RuleInput, rx: re.Pattern[str]) -> Verdict:
    m = rx.match(clause.rest)
    if m:
        v = clean_value(m.group("v"), ("with", "for", "from", "since", "near", "at"))
        if v:
            return [ProtoFact("lives_in", v, v, confidence=clause.confidence)]
    return None


def lives_in(clause: RuleInput) -> Verdict:
    """ "I live in Porto" → lives_in."""
    return _home(clause, R_LIVE)


def moved_to(clause: RuleInput) -> Verdict:
    """ "Kwame moved to Utrecht" → lives_in."""
    return _home(clause, R_MOVED)


def based_in(clause: RuleInput) -> Verdict:
    """ "I am based in Oslo" → lives_in; a named thing ("Acme is based in Oslo") is located_in."""
    ctx, subj, rest = clause.ctx, clause.subject, clause.rest
    m = R_BASED.match(rest)
    if m:
        v = clean_value(m.group("v"), ("with", "for", "from", "since"))
        if v:
            located = _LOCATED_RE.search(rest) and subj.kind != "fp"
            pred = "lives_in" if is_person(ctx, subj) and not located else "located_in"
            return [ProtoFact(pred, v, v, confidence=clause.confidence)]
    return None


def moving_to(clause: RuleInput) -> Verdict:
    """ "I am moving to Ghent" → a plan ("move to Ghent"), not yet a home."""
    m = R_MOVING.match(clause.rest)
    if m:
        v = clean_value(m.group("v"), ("with", "for", "from"))
        if v:
            plan = plan_value(clause.ctx, clause.speaker, clause.subject, f"move to {m.group('v')}")
            return [ProtoFact("plans", plan, confidence=clause.confidence)]
    return None


def timezone_mentioned(clause: RuleInput) -> Verdict:
    """ "I am usually online 9-5 CET" → timezone: a zone anywhere in a first-person clause about time."""
    text = clause.text
    tz = TZ_RE.search(text)
    if tz and _TZ_CONTEXT_RE.search(text):
        return [ProtoFact("timezone", tz.group(0), confidence=clause.confidence)]
    return None


def email_mentioned(clause: RuleInput) -> Verdict:
    """ "I check dana@example.com daily" → email (not one said to be old or former)."""
    text = clause.text
    em = [e for e in EMAIL_RE.finditer(text) if not _NOT_CURRENT_EMAIL_RE.search(text[: e.start()])]
    if em:
        return [ProtoFact("email", em[0].group(0).lower(), confidence=clause.confidence)]
    return None
