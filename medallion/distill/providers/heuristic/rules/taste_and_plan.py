"""Rules for what a person likes, wants and does: dislikes and preferences, goals, plans, and the
events and places they went to."""

from __future__ import annotations

import re

from medallion.distill.language.lexicon import REL_NOUNS
from medallion.distill.language.wording import clean_value, leading_proper
from medallion.distill.providers.heuristic.rules.base import ProtoFact, RuleInput, Verdict
from medallion.distill.providers.heuristic.rules.patterns import (
    R_ATTEND,
    R_DISLIKE,
    R_GOAL_OTHER,
    R_GOAL_TO,
    R_PLAN,
    R_PREFER,
)
from medallion.distill.providers.heuristic.rules.values import plan_value

_NEGATED_RE = re.compile(r"^(?:never|no\s+longer)\b", re.I)
_NOT_RE = re.compile(r"^not\b")
# Going to see one's relatives is a visit, not an event attended.
_RELATIVES_RE = re.compile(rf"^(?:my|our|his|her|their)\s+(?:{REL_NOUNS}|parents|family|folks|kids|"
                           rf"children|friends|mom|dad|in-laws)s?$", re.I)  # fmt: skip
_NOT_AN_EVENT = ("bed", "sleep", "work", "school", "home")


def dislikes(clause: RuleInput) -> Verdict:
    """ "I can not stand cilantro" → dislikes."""
    m = R_DISLIKE.match(clause.rest)
    if m:
        v = clean_value(m.group("v"))
        if v:
            return [ProtoFact("dislikes", v, leading_proper(v), confidence=clause.confidence)]
    return None


def wants_to(clause: RuleInput) -> Verdict:
    """ "I want to learn Portuguese" → goal (asked before preferences: "would love to" is a goal)."""
    m = R_GOAL_TO.match(clause.rest)
    if m:
        v = plan_value(clause.ctx, clause.speaker, clause.subject, m.group("v"))
        if v:
            return [ProtoFact("goal", v, confidence=clause.confidence)]
    return None


def prefers(clause: RuleInput) -> Verdict:
    """ "I prefer Figma over Sketch" → prefers; "never liked X" → dislikes."""
    rest = clause.rest
    m = R_PREFER.match(rest)
    if m:
        v = clean_value(m.group("v"), ("because", "since"))
        if v:
            v = re.sub(r"^to\s+", "", v)
            negated = _NEGATED_RE.match(rest)
            return [ProtoFact("dislikes" if negated else "prefers", v, leading_proper(v), confidence=clause.confidence)]
    return None


def working_towards(clause: RuleInput) -> Verdict:
    """ "I am saving up for a sailing trip", "I am training for a half marathon" → goal."""
    m = R_GOAL_OTHER.match(clause.rest)
    if m:
        v = plan_value(clause.ctx, clause.speaker, clause.subject, m.group("v"))
        if v:
            return [ProtoFact("goal", v, confidence=clause.confidence)]
    return None


def plans(clause: RuleInput) -> Verdict:
    """ "I will present the roadmap next Friday" → plans, the date made absolute in the value."""
    m = R_PLAN.match(clause.rest)
    if m:
        raw_v = m.group("v") or m.group("v2")
        if not _NOT_RE.match(raw_v):
            v = plan_value(clause.ctx, clause.speaker, clause.subject, raw_v)
            if v:
                return [ProtoFact("plans", v, confidence=clause.confidence)]
    return None


def attended(clause: RuleInput) -> Verdict:
    """ "I went to the pottery workshop" → attended (not bed, work, home or one's family)."""
    m = R_ATTEND.match(clause.rest)
    if m:
        v = clean_value(m.group("v") or m.group("v2"), ("with", "for", "to", "and", "in", "on", "at"))
        relative = v and _RELATIVES_RE.match(v)
        if v and not relative and v.lower() not in _NOT_AN_EVENT:
            return [ProtoFact("attended", v, v, confidence=clause.confidence)]
    return None
