"""Rules for clauses whose subject is not at their start: a commit title's command ("Upgrade
atlas-api to Node 22"), "call me X", "X, also known as Y", "Name <email>", and chat's "Going to …"
with the speaker left out. They are asked first, before the clause's own subject decides anything."""

from __future__ import annotations

import re

from medallion.distill.language.lexicon import CONF_FIRST, CONF_THIRD, STOP_CAPS
from medallion.distill.language.sentences import Subject
from medallion.distill.language.wording import as_statement, canon_tool, clean_value, possessive_form
from medallion.distill.providers.heuristic.rules.base import ProtoFact, RuleInput, Verdict
from medallion.distill.providers.heuristic.rules.patterns import R_AKA, R_CALL_ME, R_IMPERATIVE_UPGRADE, R_NAME_EMAIL
from medallion.distill.providers.heuristic.rules.values import plan_value

_GOING_TO_RE = re.compile(r"^(?:[Gg]oing\s+to|[Pp]lanning\s+(?:to|on)|[Hh]oping\s+to)\s+(?P<v>.+)$")
# what follows "going to" when it is a destination or a report, not the speaker's plan
_NOT_A_PLAN_RE = re.compile(r"^(?:the|a|an|my|our|his|her|their|this|that|\w+s)\b", re.I)
_COPULA_RE = re.compile(r"\b(?:has|have|is|are|was|were)\b")


def upgrade_command(clause: RuleInput) -> Verdict:
    """ "Upgrade atlas-api to Node 22" (a commit title) → version of atlas-api."""
    m = R_IMPERATIVE_UPGRADE.match(clause.text)
    if m:
        target = clean_value(m.group("s"))
        value = clean_value(m.group("v"), ("in", "on", "for", "with"))
        if target and value:
            value = canon_tool(value)
            st = as_statement(f"{target} was upgraded to {value}")
            return [ProtoFact("version", value, subject=target, confidence=CONF_THIRD, statement=st)]
    return None


def call_me(clause: RuleInput) -> Verdict:
    """ "Call me Ally" → the speaker's alias."""
    speaker = clause.speaker
    m = R_CALL_ME.match(clause.text)
    if m and speaker:
        v = m.group("v")
        return [ProtoFact("alias", v, subject=speaker, confidence=CONF_FIRST, statement=f"{speaker} goes by {v}.")]
    return None


def also_known_as(clause: RuleInput) -> Verdict:
    """ "Robert, also known as Bob" → Robert's alias Bob."""
    m = R_AKA.match(clause.text)
    if m:
        return [ProtoFact("alias", m.group("b"), subject=m.group("a"), confidence=CONF_THIRD)]
    return None


def name_with_email(clause: RuleInput) -> Verdict:
    """ "Dana Reyes <dana@example.com>" anywhere in the clause → Dana Reyes's email."""
    m = R_NAME_EMAIL.search(clause.text)
    if m and m.group("n").split()[0].lower() not in STOP_CAPS:
        n, e = m.group("n"), m.group("e").lower()
        st = f"{possessive_form(n)} email is {e}."
        return [ProtoFact("email", e, subject=n, confidence=CONF_THIRD, statement=st)]
    return None


def speaker_going_to(clause: RuleInput) -> Verdict:
    """ "Going to repaint the kitchen this weekend" (chat drops the "I") → the speaker's plan."""
    speaker = clause.speaker
    if not speaker:
        return None
    m = _GOING_TO_RE.match(clause.text)
    if m and not _NOT_A_PLAN_RE.match(m.group("v")) and not _COPULA_RE.search(m.group("v")):
        v = plan_value(clause.ctx, speaker, Subject(speaker, "fp", False, clause.text), m.group("v"))
        if v:
            st = as_statement(f"{speaker} is going to {v}")
            return [ProtoFact("plans", v, subject=speaker, confidence=CONF_FIRST, statement=st)]
    return None
