"""Rules for things and the tools people use: a thing's version and location, upgrades, the tools a
person or team uses or switched to, and what someone owns."""

from __future__ import annotations

import re

from medallion.distill.language.lexicon import CONF_THIRD
from medallion.distill.language.sentences import is_person
from medallion.distill.language.wording import canon_tool, clean_value, leading_proper
from medallion.distill.providers.heuristic.rules.base import ProtoFact, RuleInput, Verdict
from medallion.distill.providers.heuristic.rules.patterns import (
    R_HAVE_PET,
    R_LOCATED,
    R_OWN,
    R_SWITCHED,
    R_UPGRADE_TO,
    R_UPGRADE_X,
    R_USE,
    R_VERSION_NP,
    TOOL_FOR_RE,
    VERSIONED_RE,
)

# A location that is not a name still counts when it names a place in a building or a town.
_PLACE_WORD_RE = re.compile(r"\b(?:floor|building|room|office|street|city|campus|wing|basement)\b", re.I)
_DIGIT_RE = re.compile(r"\d")
_TRAILING_VERSION_RE = re.compile(r"(?:\s+v?\d[\w.]*)+$")


def version_of_thing(clause: RuleInput) -> Verdict:
    """ "The billing database runs PostgreSQL 15" → version of the billing database; "we are on
    Node 22 for the api" → version of the api."""
    subj = clause.subject
    m = R_VERSION_NP.match(clause.rest)
    if m:
        raw_v = m.group("v").strip().rstrip(".")
        tf = TOOL_FOR_RE.match(raw_v)
        if tf and subj.kind == "we":
            target = clean_value(tf.group("t")) or tf.group("t")
            return [ProtoFact("version", canon_tool(tf.group("tv")), subject=target, confidence=CONF_THIRD)]
        v = clean_value(raw_v, ("in", "on", "for", "with", "since", "from"))
        thing = subj.kind == "np" or (subj.kind == "third" and not is_person(clause.ctx, subj))
        if v and thing and VERSIONED_RE.match(v):
            return [ProtoFact("version", canon_tool(v), confidence=CONF_THIRD)]
    return None


def thing_located(clause: RuleInput) -> Verdict:
    """ "The projector is in Room 4" → located_in (a thing, not a person)."""
    if is_person(clause.ctx, clause.subject):
        return None
    m = R_LOCATED.match(clause.rest)
    if m:
        v = clean_value(m.group("v"), ("and", "with", "for", "since", "where", "next"), keep_article=False)
        if v and (v[0].isupper() or v[0].isdigit() or _PLACE_WORD_RE.search(v)):
            return [ProtoFact("located_in", v, v, confidence=CONF_THIRD)]
    return None


def upgraded_thing(clause: RuleInput) -> Verdict:
    """ "We upgraded the build server to Ubuntu 24.04" → version of the build server."""
    m = R_UPGRADE_X.match(clause.rest)
    if m:
        target = clean_value(m.group("s"))
        v = clean_value(m.group("v"), ("in", "on", "for", "over", "with", "last", "this"))
        if target and v and _DIGIT_RE.search(v):
            return [ProtoFact("version", canon_tool(v), subject=target, confidence=CONF_THIRD)]
    return None


def _tool(clause: RuleInput, rx: re.Pattern[str]) -> Verdict:
    """A tool and version for a named target is that target's version; any other tool is used."""
    m = rx.match(clause.rest)
    if m:
        raw_v = m.group("v")
        tf = TOOL_FOR_RE.match(clean_value(raw_v, keep_article=True) or raw_v)
        if tf:
            tv = canon_tool(tf.group("tv"))
            target = clean_value(tf.group("t")) or tf.group("t")
            return [ProtoFact("version", tv, subject=target, confidence=CONF_THIRD)]
        v = clean_value(raw_v, ("for", "over", "on", "in", "at", "with", "instead", "as", "to", "from"))
        if v:
            v = canon_tool(v)
            obj = leading_proper(v)
            obj = _TRAILING_VERSION_RE.sub("", obj) if obj else None
            return [ProtoFact("uses", v, obj or None, confidence=clause.confidence)]
    return None


def upgraded_to(clause: RuleInput) -> Verdict:
    """ "We upgraded to Postgres 18" → uses "PostgreSQL 18"."""
    return _tool(clause, R_UPGRADE_TO)


def switched_to(clause: RuleInput) -> Verdict:
    """ "I switched to Neovim" → uses "Neovim"."""
    return _tool(clause, R_SWITCHED)


def uses(clause: RuleInput) -> Verdict:
    """ "I use Obsidian for notes" → uses "Obsidian"."""
    return _tool(clause, R_USE)


def owns(clause: RuleInput) -> Verdict:
    """ "Dan owns the billing roadmap", "I am responsible for the status page" → owns."""
    m = R_OWN.match(clause.rest)
    if m:
        v = clean_value(m.group("v"), ("for", "since", "from", "with", "until"))
        if v:
            return [ProtoFact("owns", v, v, confidence=clause.confidence)]
    return None


def has_ownable(clause: RuleInput) -> Verdict:
    """ "I have a cat named Miso", "we bought a van" → owns."""
    m = R_HAVE_PET.match(clause.rest)
    if m:
        v = clean_value(m.group("v"), keep_article=False)
        if v:
            return [ProtoFact("owns", v, v, confidence=clause.confidence)]
    return None
