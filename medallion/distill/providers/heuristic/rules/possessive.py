"""Rules for clauses opened by a possessor: "my email is …", "Dana's birthday is …", "our office is in
Lisbon", "my sister is Jane". The possessor is the subject; the noun after it names the slot."""

from __future__ import annotations

import re

from medallion.distill.language.lexicon import EMAIL_RE, STOP_CAPS
from medallion.distill.language.wording import clean_value, leading_proper, possessive_form, title_role
from medallion.distill.providers.heuristic.rules.base import ProtoFact, RuleInput, Verdict
from medallion.distill.providers.heuristic.rules.patterns import (
    R_MY_REL_IS,
    R_POSS_BIRTHDAY,
    R_POSS_EMAIL,
    R_POSS_FAV,
    R_POSS_GOAL,
    R_POSS_NAME,
    R_POSS_ROLE,
    R_POSS_TZ,
)
from medallion.distill.providers.heuristic.rules.values import birthday_value, plan_value, timezone_value

_THING_IN_RE = re.compile(
    r"^(?P<np>[\w#./-]+(?:\s+[\w#./-]+){0,3}?)\s+(?:is|are)\s+(?:located\s+|based\s+)?in\s+(?P<v>[A-Z].*)$"
)


def possessive_email(clause: RuleInput) -> Verdict:
    """ "my work email is dana@example.com" → email."""
    m = R_POSS_EMAIL.match(clause.rest)
    if m:
        e = EMAIL_RE.search(m.group("v"))
        if e:
            return [ProtoFact("email", e.group(0).lower(), confidence=clause.confidence)]
    return None


def possessive_birthday(clause: RuleInput) -> Verdict:
    """ "my birthday is 3 May" → birthday "--05-03"."""
    m = R_POSS_BIRTHDAY.match(clause.rest)
    if m:
        v = birthday_value(clause.ctx, m.group("v"))
        if v:
            return [ProtoFact("birthday", v, confidence=clause.confidence)]
    return None


def possessive_timezone(clause: RuleInput) -> Verdict:
    """ "my timezone is Europe/Lisbon" → timezone."""
    m = R_POSS_TZ.match(clause.rest)
    if m:
        tz = timezone_value(m.group("v"), strict=False)
        if tz:
            return [ProtoFact("timezone", tz, confidence=clause.confidence)]
    return None


def possessive_name(clause: RuleInput) -> Verdict:
    """ "my name is X" → name; "my nickname is X" → alias."""
    m = R_POSS_NAME.match(clause.rest)
    if m:
        pred = "name" if m.group("kind").lower() in ("name", "full name") else "alias"
        return [ProtoFact(pred, m.group("v"), confidence=clause.confidence)]
    return None


def possessive_role(clause: RuleInput) -> Verdict:
    """ "my job title is staff engineer" → role "Staff Engineer"."""
    m = R_POSS_ROLE.match(clause.rest)
    if m:
        v = clean_value(m.group("v"), ("at", "in", "since", "for", "on"))
        if v:
            return [ProtoFact("role", title_role(v), confidence=clause.confidence)]
    return None


def possessive_goal(clause: RuleInput) -> Verdict:
    """ "my goal is to run a marathon" → goal."""
    m = R_POSS_GOAL.match(clause.rest)
    if m:
        v = plan_value(clause.ctx, clause.speaker, clause.subject, m.group("v"))
        if v:
            return [ProtoFact("goal", v, confidence=clause.confidence)]
    return None


def possessive_favourite(clause: RuleInput) -> Verdict:
    """ "my favourite coffee is a flat white" → prefers "flat white (favourite coffee)"."""
    m = R_POSS_FAV.match(clause.rest)
    if m:
        v = clean_value(m.group("v"))
        if v:
            what = m.group("what").strip()
            return [ProtoFact("prefers", f"{v} (favourite {what})", leading_proper(v), confidence=clause.confidence)]
    return None


def possessive_relative(clause: RuleInput) -> Verdict:
    """ "my sister is Jane" → Jane's relationship "sister of <speaker>"."""
    subj = clause.subject
    m = R_MY_REL_IS.match(clause.rest)
    if m and subj.name:
        b = m.group("b")
        if b.split()[0].lower() not in STOP_CAPS:
            rel = re.sub(r"\s+", " ", m.group("r").lower())
            clause.ctx.people.add(b)
            return [ProtoFact("relationship", f"{rel} of {subj.name}", subj.name, subject=b,
                              confidence=clause.confidence)]
    return None


def possessive_thing_location(clause: RuleInput) -> Verdict:
    """ "our office is in Lisbon": a thing owned by the subject is located_in Lisbon."""
    subj = clause.subject
    m = _THING_IN_RE.match(clause.rest)
    if m and subj.name:
        v = clean_value(m.group("v"), ("and", "with", "for", "since"))
        if v:
            owner = subj.name if subj.kind == "we" else possessive_form(subj.name)
            thing = f"{owner} {m.group('np')}"
            return [ProtoFact("located_in", v, v, subject=thing, confidence=clause.confidence)]
    return None
