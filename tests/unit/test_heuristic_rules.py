"""The heuristic distiller's pattern rules, each called alone from the table by name.

A rule reads one clause as the distiller hands it over: normalised text ("I am", not "I'm"), the
subject parsed off its start. Sentences are invented for these tests (chat lines, notes, tickets).
The speaker is ``user:alice`` in namespace ``team-atlas`` on Wednesday 2026-04-15 unless a test says
otherwise, so "next Tuesday" is 2026-04-21.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from medallion.distill.language.sentences import make_context, parse_subject
from medallion.distill.providers.heuristic import PATTERN_RULES, HeuristicDistiller, apply_pattern_rules, rule
from medallion.distill.providers.heuristic.rules import table as rules_module
from medallion.distill.providers.heuristic.rules.base import UNREAD, ProtoFact, RuleInput
from medallion.distill.types import EventInput

OCC = datetime(2026, 4, 15, 10, 0, tzinfo=UTC)  # a Wednesday


def event(text: str, actor: str = "user:alice", namespace: str = "team-atlas") -> EventInput:
    return EventInput(event_id=1, namespace=namespace, source="slack", source_event_id="rules/1", kind="transcript",
                      actor=actor, content=text, occurred_at=OCC, received_at=OCC, authority=1,
                      provenance_root="slack://rules/1")


def clause(text: str, actor: str = "user:alice", namespace: str = "team-atlas") -> RuleInput:
    """The clause as the distiller offers it to the rules (a fresh event context each time)."""
    ctx = make_context(event(text, actor, namespace))
    speaker = ctx.actor_speaker
    return RuleInput.of(ctx, speaker, parse_subject(ctx, speaker, text), text)


def slots(protos: object) -> list[tuple[str | None, str, object, str | None]]:
    """(subject override, predicate, value, object entity) of each proto-fact a rule answered."""
    assert isinstance(protos, list), protos
    return [(p.subject, p.predicate, p.value, p.obj) for p in protos if isinstance(p, ProtoFact)]


RULE_CASES = [
    ("possessive_timezone", "My timezone is Asia/Tokyo", [(None, "timezone", "Asia/Tokyo", None)]),
    ("possessive_thing_location", "Our office is in Lisbon",
     [("team-atlas office", "located_in", "Lisbon", "Lisbon")]),
    ("relationship_verb", "Alma reports to Ivo", [(None, "relationship", "reports to Ivo", "Ivo")]),
    ("goes_by", "Marek goes by Mo", [(None, "alias", "Mo", None)]),
    ("allergy_or_diet", "I am lactose intolerant", [(None, "states", "lactose intolerant", None)]),
    ("role", "I was promoted to principal designer", [(None, "role", "Principal Designer", None)]),
    ("works_at", "I work for Globex as a data analyst",
     [(None, "works_at", "Globex", "Globex"), (None, "role", "Data Analyst", None)]),
    ("started_at", "I started with Acme in 2019", [(None, "works_at", "Acme", "Acme")]),
    ("belongs_to", "I belong to the chess club", [(None, "member_of", "chess club", "chess club")]),
    ("joined", "I joined the quarterly retro", [(None, "attended", "quarterly retro", "quarterly retro")]),
    ("moving_to", "I am moving to Ghent", [(None, "plans", "move to Ghent", None)]),
    ("thing_located", "The kiln is in the basement", [(None, "located_in", "basement", "basement")]),
    ("switched_to", "I switched to Helix", [(None, "uses", "Helix", "Helix")]),
    ("uses", "I use Obsidian for notes", [(None, "uses", "Obsidian", "Obsidian")]),
    ("prefers", "I never liked olives", [(None, "dislikes", "olives", None)]),
    ("plans", "I will present the migration plan next Tuesday",
     [(None, "plans", "present the migration plan on 2026-04-21", None)]),
    ("call_me", "Call me Tess", [("Alice", "alias", "Tess", None)]),
    ("email_mentioned", "I check rosa.k@example.org every morning", [(None, "email", "rosa.k@example.org", None)]),
]


@pytest.mark.parametrize(("name", "text", "expected"), RULE_CASES, ids=[c[0] for c in RULE_CASES])
def test_rule_alone_reads_its_slot(name: str, text: str, expected: list[tuple]) -> None:
    """Each named rule, called alone on a clause it is for, yields exactly the expected slots."""
    assert slots(rule(name)(clause(text))) == expected


def test_rules_answer_none_outside_their_phrasing_or_scope() -> None:
    """A rule does not read what it is not for: another phrasing, or a subject outside its scope."""
    assert rule("belongs_to")(clause("I use Obsidian for notes")) is None
    assert rule("possessive_timezone")(clause("I am in Asia/Tokyo")) is None  # not a possessor
    assert rule("i_am_name")(clause("Marek is Mo")) is None  # first person only
    assert rule("thing_located")(clause("Alma is in Lisbon")) is None  # a person lives, a thing is located
    assert rule("email_mentioned")(clause("Marek checks rosa.k@example.org daily")) is None
    assert rule("started_at")(clause("I started with small sketches and tutorials")) is None  # how, not where


def test_joined_without_a_readable_value_stops_the_table() -> None:
    """ "joined" with no employer, team or event to read is unread: no later rule reads the clause,
    and the distiller keeps it for the clause reader."""
    text = "I joined acme"
    assert rule("joined")(clause(text)) is UNREAD
    assert apply_pattern_rules(*_parts(clause(text))) is None


def test_i_am_own_name_is_read_and_says_nothing_new() -> None:
    """ "I am Alice" said by Alice is read (an empty answer), unlike a clause no rule reads."""
    assert rule("i_am_name")(clause("I am Alice")) == []
    assert slots(rule("i_am_name")(clause("I am Theodora"))) == [(None, "name", "Theodora", None)]


def test_rule_names_are_unique_and_findable() -> None:
    names = [r.name for r in PATTERN_RULES]
    assert len(names) == len(set(names))
    assert all(rule(n) is r for n, r in zip(names, PATTERN_RULES, strict=True))
    with pytest.raises(KeyError):
        rule("no_such_rule")


def _parts(c: RuleInput) -> tuple:
    return c.ctx, c.speaker, c.subject, c.text


@pytest.mark.parametrize("text", ["I am the owner of the billing roadmap", "I switched to Helix", "Alma reports to Ivo",
                                  "My timezone is Asia/Tokyo", "I joined acme"])
def test_distiller_applies_the_first_rule_of_the_table_that_answers(text: str) -> None:
    """The table order is the order applied: the answer is that of the first rule that answers alone."""
    first = next(r for r in PATTERN_RULES if r(clause(text)) is not None)
    expected = first(clause(text))
    assert apply_pattern_rules(*_parts(clause(text))) == (None if expected is UNREAD else expected)


def test_reordering_the_table_changes_what_the_distiller_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """ "the owner of X" is a role before it is ownership: with the table reversed, ``owns`` answers
    first, and the distiller's candidate changes with it."""
    text = "I am the owner of the billing roadmap"
    assert [p.predicate for p in apply_pattern_rules(*_parts(clause(text))) or []] == ["role"]
    before = HeuristicDistiller().distill(event(text + "."))
    monkeypatch.setattr(rules_module, "PATTERN_RULES", tuple(reversed(PATTERN_RULES)))
    assert [p.predicate for p in apply_pattern_rules(*_parts(clause(text))) or []] == ["owns"]
    after = HeuristicDistiller().distill(event(text + "."))
    assert [(f.subject, f.predicate) for f in before] == [("the Billing Roadmap", "owned_by")]
    assert [(f.subject, f.predicate) for f in after] == [("billing roadmap", "owned_by")]


def test_removing_a_rule_from_the_table_removes_its_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``belongs_to`` no pattern rule reads the sentence: the first-person ``member_of`` (0.9)
    is gone, and what is left is the clause reader's reading (``relation`` set)."""
    text = "I belong to the chess club."
    before = HeuristicDistiller().distill(event(text))
    assert [(f.predicate, f.value, f.confidence, f.relation) for f in before] == [
        ("member_of", "chess club", 0.9, None)]
    monkeypatch.setattr(rules_module, "PATTERN_RULES", tuple(r for r in PATTERN_RULES if r.name != "belongs_to"))
    after = HeuristicDistiller().distill(event(text))
    assert after != before
    assert all(f.relation is not None and f.confidence < 0.9 for f in after)
