"""What a pattern rule is: the clause it reads, the scope of clauses it may read, and what it answers.

A rule is a named function over one clause (:class:`RuleInput`). It answers ``None`` when it does not
read the clause (the next rule in the table is asked), a list of :class:`ProtoFact` when it does (no
later rule is asked; the list may be empty: the clause is read and asserts nothing new, as "I'm
Alice" said by Alice), or :data:`UNREAD` when it recognises the phrasing but can read no fact from
it and no later rule may read the clause either (it stays unmatched, so it can become ``states``).
The scope is kept apart from the function so the table shows which subjects each rule is for.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from medallion.distill.language.lexicon import CONF_FIRST, CONF_THIRD, STOP_CAPS
from medallion.distill.language.sentences import Context, Subject
from medallion.distill.providers.heuristic.rules.patterns import R_MY_REL_INLINE


@dataclass
class ProtoFact:
    """A fact a rule read, before dates, first person and the open vocabulary are applied to it."""

    predicate: str
    value: Any
    obj: str | None = None
    subject: str | None = None  # overrides the clause subject
    confidence: float | None = None
    statement: str | None = None  # overrides the clause statement


@dataclass
class RuleInput:
    """One clause as the rules see it: its event context, the line's speaker, the subject parsed off
    its start (``subject.rest`` is the text after it), the whole clause text, and the inline
    relationships ("my sister Jane") found anywhere in it, which a clause no rule reads still yields."""

    ctx: Context
    speaker: str | None
    subject: Subject
    text: str
    inline_relations: list[ProtoFact]

    @classmethod
    def of(cls, ctx: Context, speaker: str | None, subject: Subject, text: str) -> RuleInput:
        """The clause with its inline relationships collected (each related person becomes known to
        ``ctx``, so a later "she" can refer to them)."""
        return cls(ctx, speaker, subject, text, inline_relations(ctx, speaker, text))

    @property
    def rest(self) -> str:
        return self.subject.rest

    @property
    def confidence(self) -> float:
        """First person (I / we) is explicit; a third person is reported."""
        return CONF_FIRST if self.subject.kind in ("fp", "we") else CONF_THIRD


class Unread(Enum):
    """The answer of a rule that recognises a phrasing but can read no fact from it."""

    CLAUSE = "unread"


UNREAD = Unread.CLAUSE
Verdict = list[ProtoFact] | Unread | None
Scope = Callable[[RuleInput], bool]


@dataclass(frozen=True)
class Rule:
    """A named rule of the table: ``read`` is asked only about clauses in its ``scope``."""

    name: str
    scope: Scope
    read: Callable[[RuleInput], Verdict]

    def __call__(self, clause: RuleInput) -> Verdict:
        return self.read(clause) if self.scope(clause) else None


def inline_relations(ctx: Context, speaker: str | None, text: str) -> list[ProtoFact]:
    """Every "my sister Jane" / "our manager Dana" in the clause: Jane is the speaker's sister."""
    found: list[ProtoFact] = []
    if speaker or ctx.team:
        for m in R_MY_REL_INLINE.finditer(text):
            owner = speaker if m.group(0)[0] in "Mm" else ctx.team
            b = m.group("b")
            if owner and b.split()[0].lower() not in STOP_CAPS:
                rel = re.sub(r"\s+", " ", m.group("r").lower())
                found.append(ProtoFact("relationship", f"{rel} of {owner}", owner, subject=b, confidence=CONF_FIRST))
                ctx.people.add(b)
    return found


# ------------------------------------------------------------------------------------------ scopes
def any_clause(clause: RuleInput) -> bool:
    """Rules that find their own subject in the text ("call me X", "X, also known as Y")."""
    return True


def no_person_subject(clause: RuleInput) -> bool:
    """No subject, or a noun phrase ("Upgrade atlas-api to Node 22", "the api-gateway ...")."""
    return clause.subject.kind in ("none", "np")


def no_subject(clause: RuleInput) -> bool:
    """A clause that opens with its verb ("Going to try the new climbing gym")."""
    return clause.subject.kind == "none"


def possessive(clause: RuleInput) -> bool:
    """A named possessor opens the clause ("my email is ...", "Dana's birthday is ...")."""
    return clause.subject.name is not None and clause.subject.possessive


def subject_kinds(*kinds: str) -> Scope:
    """A named, non-possessive subject of one of ``kinds``: ``fp`` (I), ``we``, ``third`` (a name,
    or he / she resolved to one) or ``np`` (a noun phrase: "the billing service")."""

    def scope(clause: RuleInput) -> bool:
        subject = clause.subject
        return subject.name is not None and not subject.possessive and subject.kind in kinds

    scope.__doc__ = f"named subject, not possessive, of kind {' / '.join(kinds)}"
    return scope


PERSONAL = subject_kinds("fp", "third", "we")
PERSON = subject_kinds("fp", "third")
FIRST_PERSON = subject_kinds("fp")
