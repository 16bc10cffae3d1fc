"""The curated pattern rules as one ordered table (:data:`PATTERN_RULES`), and the loop that applies it.

The rules are asked in table order about one clause; the first that answers decides (see
:mod:`.base` for what an answer is). Order matters where phrasings overlap: a possessive opener
("my email is") is read before anything else the clause says, a role ("I was promoted to …")
before a team or an employer, "want to" (a goal) before "love" (a preference). Each rule's scope
says which subjects it reads; a clause none of them reads yields its inline relationships ("my
sister Jane …"), or nothing, and then becomes ``states`` or a clause reading.
"""

from __future__ import annotations

import re

from medallion.distill.language.sentences import Context, Subject, parse_subject
from medallion.distill.providers.heuristic.rules import person as person_rules
from medallion.distill.providers.heuristic.rules import possessive as possessive_rules
from medallion.distill.providers.heuristic.rules import subjectless as subjectless_rules
from medallion.distill.providers.heuristic.rules import taste_and_plan as tastes
from medallion.distill.providers.heuristic.rules import thing as thing_rules
from medallion.distill.providers.heuristic.rules.base import (
    FIRST_PERSON,
    PERSON,
    PERSONAL,
    UNREAD,
    ProtoFact,
    Rule,
    RuleInput,
    Verdict,
    any_clause,
    no_person_subject,
    no_subject,
    possessive,
    subject_kinds,
)
from medallion.distill.providers.heuristic.rules.patterns import R_MY_REL_INLINE


def relative_then_clause(clause: RuleInput) -> Verdict:
    """ "My sister Jane lives in Paris": the relationship, then what the rest says about Jane.

    When the clause goes on after the name, the relationship gets a statement of its own ("Maren's
    sister is Jane."): the rest is Jane's claim, not the speaker's, and a search about the speaker
    must not find Jane's car or city in the speaker's relationship fact. What no rule reads of the
    rest goes to the clause reader (:func:`relative_rest`)."""
    if not clause.inline_relations:
        return None
    m = R_MY_REL_INLINE.match(clause.text)
    if m:
        sub_text = clause.text[m.start("b") :]
        sub = parse_subject(clause.ctx, clause.speaker, sub_text)
        more = apply_pattern_rules(clause.ctx, clause.speaker, sub, sub_text) if sub.kind == "third" else None
        if _goes_on(clause.text[m.end():]):
            for p in clause.inline_relations:
                if p.subject == m.group("b") and p.predicate == "relationship" and p.obj:
                    rel = str(p.value).removesuffix(f" of {p.obj}")
                    p.statement = f"{p.obj}'s {rel} is {p.subject}."
        for p in more or []:
            if p.subject is None:
                p.subject = sub.name
            clause.inline_relations.append(p)
    return clause.inline_relations


def _goes_on(rest: str) -> bool:
    """Whether what follows "my sister Jane" says something of its own (two words or more)."""
    return len(re.findall(r"[^\W_]+", rest)) >= 2


def relative_rest(ctx: Context, speaker: str | None, text: str) -> str | None:
    """The rest of a clause opened by "my husband Arjun" ("Arjun drives a Pelham Voyager."), when it
    says something no pattern rule reads; None otherwise. The caller hands it to the clause reader,
    so the named person's claim is kept with that person as its subject."""
    m = R_MY_REL_INLINE.match(text)
    if not m or not _goes_on(text[m.end():]):
        return None
    sub_text = text[m.start("b"):]
    sub = parse_subject(ctx, speaker, sub_text)
    if sub.kind != "third" or apply_pattern_rules(ctx, speaker, sub, sub_text) is not None:
        return None
    return sub_text


PATTERN_RULES: tuple[Rule, ...] = (
    # clauses whose subject is not at their start
    Rule("upgrade_command", no_person_subject, subjectless_rules.upgrade_command),
    Rule("call_me", any_clause, subjectless_rules.call_me),
    Rule("also_known_as", any_clause, subjectless_rules.also_known_as),
    Rule("name_with_email", any_clause, subjectless_rules.name_with_email),
    Rule("speaker_going_to", no_subject, subjectless_rules.speaker_going_to),
    # a possessor opens the clause: only these read it
    Rule("possessive_email", possessive, possessive_rules.possessive_email),
    Rule("possessive_birthday", possessive, possessive_rules.possessive_birthday),
    Rule("possessive_timezone", possessive, possessive_rules.possessive_timezone),
    Rule("possessive_name", possessive, possessive_rules.possessive_name),
    Rule("possessive_role", possessive, possessive_rules.possessive_role),
    Rule("possessive_goal", possessive, possessive_rules.possessive_goal),
    Rule("possessive_favourite", possessive, possessive_rules.possessive_favourite),
    Rule("possessive_relative", possessive, possessive_rules.possessive_relative),
    Rule("possessive_thing_location", possessive, possessive_rules.possessive_thing_location),
    Rule("relative_then_clause", possessive, relative_then_clause),
    # a person: I, we, or someone named
    Rule("relationship_is", PERSONAL, person_rules.relationship_is),
    Rule("relationship_verb", PERSONAL, person_rules.relationship_verb),
    Rule("called", PERSONAL, person_rules.called),
    Rule("goes_by", PERSONAL, person_rules.goes_by),
    Rule("i_am_name", FIRST_PERSON, person_rules.i_am_name),
    Rule("born", PERSONAL, person_rules.born),
    Rule("allergy_or_diet", PERSONAL, person_rules.allergy_or_diet),
    Rule("timezone_in", PERSON, person_rules.timezone_in),
    Rule("role", PERSON, person_rules.role),
    Rule("member_of", PERSONAL, person_rules.member_of),
    Rule("on_team", PERSONAL, person_rules.on_team),
    Rule("belongs_to", PERSONAL, person_rules.belongs_to),
    Rule("works_at", PERSONAL, person_rules.works_at),
    Rule("joined", PERSONAL, person_rules.joined),
    Rule("started_at", PERSONAL, person_rules.started_at),
    Rule("left_employer", PERSON, person_rules.left_employer),
    Rule("lives_in", PERSONAL, person_rules.lives_in),
    Rule("moved_to", PERSONAL, person_rules.moved_to),
    Rule("based_in", PERSONAL, person_rules.based_in),
    Rule("moving_to", PERSONAL, person_rules.moving_to),
    # things, and the tools people use
    Rule("version_of_thing", subject_kinds("np", "third", "we"), thing_rules.version_of_thing),
    Rule("thing_located", subject_kinds("np", "third"), thing_rules.thing_located),
    Rule("upgraded_thing", subject_kinds("fp", "third", "we", "np"), thing_rules.upgraded_thing),
    Rule("upgraded_to", PERSONAL, thing_rules.upgraded_to),
    Rule("switched_to", PERSONAL, thing_rules.switched_to),
    Rule("uses", PERSONAL, thing_rules.uses),
    # tastes, goals, plans, events
    Rule("dislikes", PERSONAL, tastes.dislikes),
    Rule("wants_to", PERSONAL, tastes.wants_to),
    Rule("prefers", PERSONAL, tastes.prefers),
    Rule("working_towards", PERSONAL, tastes.working_towards),
    Rule("plans", PERSONAL, tastes.plans),
    Rule("attended", PERSONAL, tastes.attended),
    # ownership, by a person or a thing ("the billing service owns the invoices table")
    Rule("owns", subject_kinds("fp", "third", "we", "np"), thing_rules.owns),
    Rule("has_ownable", PERSONAL, thing_rules.has_ownable),
    # a time zone or an email address anywhere in a first-person clause
    Rule("timezone_mentioned", FIRST_PERSON, person_rules.timezone_mentioned),
    Rule("email_mentioned", FIRST_PERSON, person_rules.email_mentioned),
)


def rule(name: str) -> Rule:
    """The rule of the table called ``name`` (KeyError when there is none)."""
    for candidate in PATTERN_RULES:
        if candidate.name == name:
            return candidate
    raise KeyError(name)


def apply_pattern_rules(ctx: Context, speaker: str | None, subj: Subject, text: str) -> list[ProtoFact] | None:
    """The pattern rules in table order, first answer wins; ``None`` when none read the clause (→
    ``states``). Read at call time, so the table a test swaps in is the one applied."""
    clause = RuleInput.of(ctx, speaker, subj, text)
    for pattern_rule in PATTERN_RULES:
        verdict = pattern_rule(clause)
        if verdict is UNREAD:
            return None
        if verdict is not None:
            return verdict
    return clause.inline_relations or None
