"""S1 distill: the offline ``heuristic`` provider beyond the table (``test_heuristic_distill_table.py``):
first person, determinism, confidence and spans, kinds it skips, and the example team's events.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from medallion.distill.language.sentences import sentence_spans
from medallion.distill.types import EventInput
from tests.support.distill_events import DAY_IN_2023, DISTILLER, OCC, TODAY, d, make_event, summary

REPO = Path(__file__).resolve().parents[2]
TEAM_EVENTS = REPO / "examples" / "team_events.jsonl"
# examples/README.md, "Noise (yields no facts)": greetings, filler and the system prompt.
NOISE_LINES = {1, 6, 11, 16, 25, 26, 27, 42, 47}


FIRST_PERSON_INPUTS = [
    "I moved to Lisbon last month.",
    "I'm based in London, so my timezone is Europe/London.",
    "I switched to Neovim last month, happy to share my config.",
    "My sister Jane lives in Paris and I visit her every summer.",
    "I've been using Emacs for years and I'd love to try Helix.",
    "I'm allergic to peanuts, by the way, so no satay for me.",
    "We upgraded to Postgres 18 over the weekend and our on-call handbook says so.",
    "I'm swamped with the kids and my work.",
    "Call me Ally.",
    "I think I will move to Paris next year.",
    "My email is alice@example.com and I check it daily.",
    "Carol and I went to the design meetup yesterday.",
    "I'm keen on counseling or working in mental health - I'd love to support those with similar issues.",
]
_FIRST_PERSON_RE = re.compile(r"(?<![\w'-])(?:I|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself|[Ww]e|us|[Oo]ur|[Oo]urs)(?![\w'-])")


@pytest.mark.parametrize("content", FIRST_PERSON_INPUTS, ids=lambda c: c[:40])
def test_s1_statements_resolve_first_person(content: str) -> None:
    """S1: statements are self-contained: no I / me / my / we / our left for a known speaker and team."""
    facts = DISTILLER.distill(make_event(content))
    assert facts, content
    for fact in facts:
        assert not _FIRST_PERSON_RE.search(fact.statement), fact.statement
        assert "Alice" in fact.statement or "team-atlas" in fact.statement or fact.subject in fact.statement
        assert fact.statement.endswith(".")


def test_s1_first_person_subject_and_statement() -> None:
    """S1: "I moved to Lisbon" by Alice → subject Alice, statement "Alice moved to Lisbon …"."""
    (fact,) = DISTILLER.distill(make_event("I moved to Lisbon last month."))
    assert fact.subject == "Alice"
    assert fact.statement == "Alice moved to Lisbon in October 2026."
    assert fact.valid_from == datetime(2026, 10, 25, tzinfo=UTC)
    assert fact.object_entity == "Lisbon"
    assert fact.confidence == 0.9


def test_s1_confidence_tiers_and_spans() -> None:
    """S1: 0.9 first person, 0.7 third person, 0.5 states; spans point at the sentence in the content."""
    content = ("Hi all! I live in Oslo. Dan owns the billing roadmap. The release is blocked on legal review. "
               "The fog rolled in.")
    facts = DISTILLER.distill(make_event(content))
    by_predicate = {f.predicate: f for f in facts}
    assert by_predicate["lives_in"].confidence == 0.9
    assert by_predicate["owned_by"].confidence == 0.7
    assert by_predicate["blocked_on"].confidence == 0.5  # learned
    assert by_predicate["states"].confidence == 0.5  # an assertion with no relation
    spans = {f.predicate: content[f.span[0] : f.span[1]] for f in facts if f.span}
    assert spans == {
        "lives_in": "I live in Oslo.",
        "owned_by": "Dan owns the billing roadmap.",
        "blocked_on": "The release is blocked on legal review.",
        "states": "The fog rolled in.",
    }


def test_s1_speaker_prefix_spans_skip_the_name() -> None:
    """S1: a speaker-prefixed line's span covers the sentence, not the "Name:" prefix."""
    content = "Rosalind: I went to a choir rehearsal yesterday.\nHenrike: I love painting."
    facts = DISTILLER.distill(make_event(content, actor=None, occurred=DAY_IN_2023, namespace="chat-export"))
    assert [(f.subject, content[f.span[0] : f.span[1]]) for f in facts] == [
        ("Rosalind", "I went to a choir rehearsal yesterday."),
        ("Henrike", "I love painting."),
    ]


def test_s1_room_entities_stay_distinct() -> None:
    """S11 via S1: "Room 101" and "Room 102" come out as two different subjects and objects."""
    facts = DISTILLER.distill(
        make_event(
            "[Sprint 48 planning - Room 102 - attendees: Alice]\n"
            "Alice: Room 101 is on the 3rd floor. Room 102 is on the 2nd floor.",
            actor="system:meet",
        )
    )
    subjects = {f.subject for f in facts if f.predicate == "located_in"}
    objects = {f.object_entity for f in facts if f.predicate == "located_in"}
    assert {"Room 101", "Room 102"} <= subjects
    assert "Room 102" in objects
    assert all(f.subject != "Room 10" for f in facts)


def test_s1_left_is_a_change_of_works_at() -> None:
    """S1: "left X" keeps the works_at slot with a different value and draws no edge to X."""
    (fact,) = DISTILLER.distill(make_event("I left Atlas last week."))
    assert (fact.predicate, fact.value, fact.object_entity) == ("works_at", "none (left Atlas)", None)


@pytest.mark.parametrize("content", ["The ferry was late this morning.", "The standup was on Monday.",
                                     "Our release train was on 2026-11-02."])
def test_s1_a_date_is_neither_a_version_nor_a_phone_number(content: str) -> None:
    """S1: "was late this morning" shares "be on" with "we are on Node 22", and an ISO date has the
    digits and dashes of a phone number; a date value takes neither slot."""
    facts = DISTILLER.distill(make_event(content))
    assert not [f for f in facts if f.predicate in ("version", "phone")], facts


@pytest.mark.parametrize("content", ["Maya's mom was interested in pottery.", "Sam's dog is really old now.",
                                     "Our family is wonderful, all five of us.",
                                     "My family is my motivation and they keep me going.", "My dog is my best friend."])
def test_s1_an_adjective_about_a_relative_is_not_who_the_relative_is(content: str) -> None:
    """S1: "X's mom was interested in pottery" or "my dog is my best friend" describes the relative;
    (X, mom, 'interested in pottery') would make a later "X's mom is Rosa" supersede a description."""
    facts = DISTILLER.distill(make_event(content))
    assert not [f for f in facts if f.predicate in ("mom", "mother", "dog", "family")], facts


def test_s1_an_initialism_before_a_lower_case_word_does_not_end_the_sentence() -> None:
    """S1: "The head coach of Harwick F.C. is Oren Talby." is one sentence (split after "F.C." it was a
    'states' fact "Is Oren Talby"); before a capital an initialism ends one ("at 5 p.m. Then ...")."""
    line = "The head coach of Harwick F.C. is Oren Talby. We met at 5 p.m. Then we left."
    assert [line[a:b] for a, b in sentence_spans(line, 0)] == [
        "The head coach of Harwick F.C. is Oren Talby.", "We met at 5 p.m.", "Then we left."]
    facts = DISTILLER.distill(make_event("The head coach of Harwick F.C. is Oren Talby."))
    assert [(f.subject, f.predicate, f.value) for f in facts] == [("Harwick F.C.", "head_coach", "Oren Talby")]


def test_s1_a_number_before_a_bracket_is_no_emoticon() -> None:
    """S1: "(build 298)." read "8)" as an emoticon and stored "… (build 29." as the statement."""
    facts = DISTILLER.distill(make_event("Checkout fails on production (build 298)."))
    assert facts and all("298)" in f.statement for f in facts), [f.statement for f in facts]
    smiling = DISTILLER.distill(make_event("I moved to Tarvik last week 8)"))
    assert smiling and all("8)" not in f.statement for f in smiling), [f.statement for f in smiling]


@pytest.mark.parametrize(("line", "sentences"), [
    ("Biscuit passed away in june 😢 we adopted a lurcher called Juniper",
     ["Biscuit passed away in june 😢", "we adopted a lurcher called Juniper"]),
    ("booked the flat in Ghent today 🎉🎉 moving in may", ["booked the flat in Ghent today 🎉🎉", "moving in may"]),
    ("Great news! 🥳 I got the job", ["Great news! 🥳", "I got the job"]),  # a lone emoji joins the one before
    ("I ❤️ Lisbon in spring", ["I ❤️ Lisbon in spring"]),  # a heart often stands for a verb
])
def test_s1_in_chat_an_emoji_before_more_text_ends_a_sentence(line: str, sentences: list[str]) -> None:
    """S1: chat ends a thought with an emoji instead of a stop; read as one sentence, "Biscuit passed away …
    we adopted a lurcher called Juniper" gives one clause whose subject swallows the second."""
    assert [line[a:b] for a, b in sentence_spans(line, 0)] == sentences


@pytest.mark.parametrize(("content", "subject", "predicate", "value"), [
    ("The default language of the app is French.", "app", "default_language", "French"),
    ("The official religion of the kingdom is Catholic.", "kingdom", "official_religion", "Catholic"),
    ("The dress code for the gala is Formal.", "gala", "dress_code", "Formal"),
])
def test_s1_a_proper_adjective_after_the_attribute_of_x_is_its_value(content: str, subject: str, predicate: str,
                                                                      value: str) -> None:
    """S1: "The default language of the app is French" names the language, so a later "... is German"
    supersedes it; a proper adjective is a value where a common one ("interested in pottery") describes."""
    facts = DISTILLER.distill(make_event(content))
    assert [(f.subject, f.predicate, f.value, f.cardinality) for f in facts] == [(subject, predicate, value, "one")]


@pytest.mark.parametrize(("content", "subject", "predicate", "value"), [
    ("The kind of car that Bob Marsh drives is an estate.", "Bob Marsh", "drive_kind_of_car", "estate"),
    ("The genre of books that Dana writes is crime fiction.", "Dana", "write_genre_of_books", "crime fiction"),
    ("The car that Bob drives is a Tesla.", "Bob", "drive_car", "Tesla"),
    ("The sort of tea that Ines Alvarez likes is rooibos.", "Ines Alvarez", "like_sort_of_tea", "rooibos"),
])
def test_s1_the_attribute_a_relative_clause_gives_belongs_to_the_clauses_subject(
        content: str, subject: str, predicate: str, value: str) -> None:
    """S1: "The kind of car that Bob drives is an estate" is Bob's, not the car's: read as the car's, every
    person's car would be one subject and each new sentence would close another person's belief. The
    clause may hang on "kind" or on "car", and the parser may take the names for the verb's compound;
    the slot is the same either way."""
    facts = DISTILLER.distill(make_event(content))
    assert [(f.subject, f.predicate, f.value) for f in facts] == [(subject, predicate, value)]


@pytest.mark.parametrize("dash", [" - ", " — ", " – ", "—"])
def test_s1_a_dash_between_two_clauses_keeps_their_subjects_apart(dash: str) -> None:
    """S1: "patched the till overnight - scanner is on v7 now" is two clauses; read as one, the parser
    takes "overnight - scanner" for the second clause's subject, and the belief about the scanner never
    meets an earlier one about it."""
    facts = DISTILLER.distill(make_event(f"Remote fix done, patched the till overnight{dash}scanner is on v7 now."))
    assert "scanner" in {f.subject for f in facts}, [(f.subject, f.predicate, f.value) for f in facts]
    assert not [f for f in facts if "overnight" in f.subject]


@pytest.mark.parametrize(("content", "not_subject"), [("They really bring so much joy into my life.", "so much joy"),
                                                    ("The kids brought some cookies to school.", "cookies")])
def test_s1_only_a_particular_thing_takes_a_new_value(content: str, not_subject: str) -> None:
    """S1: "raised the budget to 55k" gives the budget a new value; "bring so much joy into my life"
    moves no particular thing, so "so much joy" is no subject with a one-valued slot."""
    facts = DISTILLER.distill(make_event(content))
    assert not [f for f in facts if f.subject == not_subject], facts
    assert DISTILLER.distill(make_event("Finance raised the budget to 55k."))[0].subject == "budget"


def test_s1_a_nested_possessive_keeps_its_owner() -> None:
    """S1: "my sister's husband" is the husband of the speaker's sister, not of "Alicesister"."""
    facts = DISTILLER.distill(make_event("My sister's husband is Tomas."))
    assert [(f.subject, f.predicate, f.value) for f in facts] == [("Alice's sister", "spouse", "Tomas")]


def test_s1_the_memo_key_depends_on_the_namespace() -> None:
    """The distiller reads a team's name from a ``team-…`` namespace, so the same note in two
    namespaces has two memoised outputs."""
    from medallion.silver.distill_memo import cache_key

    note = "Our goal is to launch usage-based billing."
    assert DISTILLER.distill(make_event(note, namespace="team-atlas"))[0].subject == "team-atlas"
    assert cache_key(make_event(note, namespace="team-atlas")) != cache_key(make_event(note, namespace="team-orion"))


def test_s1_plans_keep_the_date_in_the_value_not_in_valid_from() -> None:
    """S1: a future date goes into a plan's value; valid_from stays occurred_at."""
    (fact,) = DISTILLER.distill(make_event("Next Friday I will present the roadmap."))
    assert fact.predicate == "plans"
    assert "2026-12-04" in fact.value
    assert fact.valid_from == OCC


@pytest.mark.parametrize("kind", ["fact", "document", "overlay"])
def test_s1_skipped_kinds(kind: str) -> None:
    """S1: fact, document and overlay events are handled elsewhere and yield nothing here."""
    content = (
        '{"subject": "Carol", "predicate": "role", "value": "Design Lead"}' if kind != "document" else "I live in Oslo."
    )
    assert DISTILLER.distill(make_event(content, kind=kind, metadata={"path": "a.md"})) == []


def test_s1_name_and_no_personal_speaker_for_system_actors() -> None:
    """S1: the provider is called "heuristic"; a system actor has no first person to resolve."""
    assert DISTILLER.name == "heuristic"
    assert DISTILLER.distill(make_event("I live in Oslo.", actor="system:github")) == []
    facts = DISTILLER.distill(make_event("Erin owns the ingestion roadmap.", actor="system:confluence"))
    assert summary(facts) == [("ingestion roadmap", "owned_by", "Erin", TODAY)]  # one owner per thing


def _team_events() -> list[tuple[int, dict[str, Any]]]:
    lines = TEAM_EVENTS.read_text(encoding="utf-8").splitlines()
    return [(i, json.loads(line)) for i, line in enumerate(lines, 1) if line.strip()]


def _event_from_json(line_no: int, raw: dict[str, Any]) -> EventInput:
    occurred = datetime.fromisoformat(raw["occurred_at"].replace("Z", "+00:00"))
    return EventInput(
        event_id=line_no,
        namespace=raw["namespace"],
        source=raw["source"],
        source_event_id=raw["source_event_id"],
        kind=raw["kind"],
        actor=raw.get("actor"),
        content=raw["content"],
        occurred_at=occurred,
        received_at=occurred,
        authority=raw.get("authority", 1),
        provenance_root=raw["provenance_root"],
        metadata=raw.get("metadata", {}),
    )


def test_s1_team_events_noise_and_coverage() -> None:
    """S1 over examples/team_events.jsonl: every non-noise transcript/note yields a fact; noise yields none."""
    checked = 0
    for line_no, raw in _team_events():
        facts = DISTILLER.distill(_event_from_json(line_no, raw))
        if line_no in NOISE_LINES:
            assert facts == [], (line_no, raw["content"], summary(facts))
        elif raw["kind"] in ("transcript", "note"):
            assert facts, (line_no, raw["content"])
            checked += 1
        elif raw["kind"] in ("fact", "document"):
            assert facts == [], line_no
    assert checked >= 25


def test_s1_team_events_key_facts() -> None:
    """S1 over examples/team_events.jsonl: the slots the README's scenarios rely on come out as expected."""
    got: dict[int, set[tuple[str, str, Any, date]]] = {}
    for line_no, raw in _team_events():
        got[line_no] = set(summary(DISTILLER.distill(_event_from_json(line_no, raw))))
    assert ("Bob", "lives_in", "Berlin", d("2026-11-03")) in got[5]
    assert ("Bob", "uses", "Neovim", d("2026-10-03")) in got[5]
    assert ("Bob", "lives_in", "Lisbon", d("2026-11-24")) in got[41]
    assert ("atlas-api database", "version", "PostgreSQL 15", d("2026-11-04")) in got[9]
    assert ("Dan", "timezone", "Europe/London", d("2026-11-05")) in got[12]
    assert ("Carol", "prefers", "Figma over Sketch for all mockups", d("2026-11-09")) in got[15]
    assert ("Bob", "allergic_to", "peanuts", d("2026-11-09")) in got[17]
    assert ("Tigran", "relationship", "pairs with Bob", d("2026-11-12")) in got[20]
    assert ("Carol", "birthday", "--05-03", d("2026-11-12")) in got[21]
    assert ("Carol", "role", "Design Lead", d("2026-11-16")) in got[24]
    assert ("Bob", "email", "bob@atlas.dev", d("2026-11-19")) in got[29]
    assert ("Carol", "birthday", "--03-05", d("2026-11-20")) in got[31]
    assert ("Bob", "birthday", "--11-27", d("2026-11-20")) in got[32]
    assert ("atlas-api database", "version", "PostgreSQL 18", d("2026-11-21")) in got[34]
    assert ("Alice", "works_at", "Atlas", d("2026-11-24")) in got[39]
    assert ("team-atlas", "goal", "launch usage-based billing", d("2026-11-24")) in got[40]
    assert ("Tigran", "member_of", "billing squad", d("2026-11-26")) in got[43]
    assert ("Carol", "dislikes", "last-minute design changes", d("2026-11-26")) in got[43]
    assert ("on-call rotation", "owned_by", "Bob", d("2026-11-06")) in got[44]
    assert ("Carol", "role", "Design Lead", d("2026-11-27")) in got[46]
    assert ("Bob", "lives_in", "Oslo", d("2026-11-03")) in got[49]
    attended_43 = {(s, v) for s, p, v, _ in got[43] if p == "attended"}
    assert attended_43 == {(name, "Sprint 48 planning") for name in ("Alice", "Bob", "Carol", "Dan", "Tigran")}


@pytest.mark.parametrize(("said", "statement"), [
    ("I sold my Corsa last week.", "Alice sold"),
    ("I sought a second opinion.", "Alice sought"),
    ("I swept the yard.", "Alice swept"),
])
def test_s1_a_past_tense_takes_no_third_person_s(said: str, statement: str) -> None:
    """S1: "I sold my Corsa" is "Alice sold …", never "Alice solds …": a statement a reader sees, and the
    words search matches."""
    facts = DISTILLER.distill(make_event(said))
    assert facts and all(f.statement.startswith(statement + " ") for f in facts), [f.statement for f in facts]
