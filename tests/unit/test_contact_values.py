"""Phone numbers and email addresses read by their shape (``heuristic/contact_values.py``), and the owner
chat leaves out ("new address is …", "officially started at …").

Why: a user who says "new number: …" in any words depends on the ledger holding the new number as
their ``phone`` (a single-valued slot, so the old number closes), and on a work line, an office number
or an order's tracking number never being taken for it.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from medallion.distill.language.sentences import make_context, restore_subject
from medallion.distill.providers.heuristic.contact_values import contact_facts
from medallion.distill.providers.heuristic.distiller import HeuristicDistiller
from medallion.distill.types import EventInput

OCC = datetime(2026, 4, 6, 10, 0, tzinfo=UTC)


def _read(text: str, actor: str = "user:tamsin") -> set[tuple[str, str, str]]:
    event = EventInput(event_id=1, namespace="contacts", source="chat", source_event_id="c/1", kind="transcript",
                       actor=actor, content=text, occurred_at=OCC, received_at=OCC, authority=1,
                       provenance_root="chat://c/1")
    return {(f.subject, f.predicate, str(f.value)) for f in HeuristicDistiller().distill(event)
            if f.predicate in ("phone", "email")}


@pytest.mark.parametrize(("text", "actor", "expected"), [
    ("got a new phone, number is 07811 402913 now", "user:tamsin", ("Tamsin", "phone", "07811 402913")),
    ("you can reach me on 0612 884 301 from now on", "user:tamsin", ("Tamsin", "phone", "0612 884 301")),
    ("changed numbers, it's 0612 550 919 these days", "user:tamsin", ("Tamsin", "phone", "0612 550 919")),
    ("my number is 07700 918273", "user:tamsin", ("Tamsin", "phone", "07700 918273")),  # both groups kept
    ("Bruno asked us to use 0161 496 0452 as his callback number.", "agent:desk",
     ("Bruno", "phone", "0161 496 0452")),
    ("Resident Ottilie Marsh, new mobile 0161 496 7315.", "agent:desk", ("Ottilie Marsh", "phone", "0161 496 7315")),
    ("Met Ravi Anand at the fair, he gave 0113 496 0022 as his mobile.", "agent:desk",
     ("Ravi Anand", "phone", "0113 496 0022")),
    ("Ottilie Marsh's number has changed. New number: 0161 496 7316.", "agent:desk",
     ("Ottilie Marsh", "phone", "0161 496 7316")),  # a note goes on about whom it named
    ("best to email me at t.okafor@quillmail.net going forward", "user:tamsin",
     ("Tamsin", "email", "t.okafor@quillmail.net")),
])
def test_a_number_or_address_beside_a_contact_word_is_its_owners(
        text: str, actor: str, expected: tuple[str, str, str]) -> None:
    assert expected in _read(text, actor)


@pytest.mark.parametrize(("text", "actor"), [
    ("my work line is 020 7946 5521, office hours only", "user:tamsin"),  # another slot than the own number
    ("Call the front desk on 0161 496 0000 for the keys.", "agent:desk"),
    ("Parcel 5521 left the depot, tracking number 0044 8812 7731.", "agent:desk"),
    ("We sold 1 200 000 units last year.", "user:tamsin"),  # no contact word: a quantity
    ("My social security number is 078-05-1121.", "user:tamsin"),  # an identifier, not a phone
    ("Noted: your national insurance number 0203 445 6671 is saved.", "assistant:memo"),
    ("Please call 0161 496 1234 to confirm the booking.", "agent:desk"),  # whose? a note does not say
])
def test_a_qualified_or_ownerless_number_is_not_a_persons_phone(text: str, actor: str) -> None:
    event = EventInput(event_id=1, namespace="contacts", source="chat", source_event_id="c/1", kind="transcript",
                       actor=actor, content=text, occurred_at=OCC, received_at=OCC, authority=1,
                       provenance_root="chat://c/1")
    ctx = make_context(event)
    assert contact_facts(ctx, ctx.actor_speaker, text, (0, len(text)), []) == []


def test_an_instruction_to_call_a_number_gives_no_one_that_number() -> None:
    """The note named Priya Lal, but "Call … to confirm" is whoever answers (the rental desk), not hers."""
    assert not any("0161 496 1234" in value for _, _, value in _read(
        "Booked the van for Priya Lal. Call 0161 496 1234 to confirm.", "agent:desk"))


def test_a_renewed_attribute_with_no_owner_is_the_speakers_own_in_a_persons_turn() -> None:
    """Chat drops the owner of what it renews: "new address is …" is the speaker's address; the same
    words in a desk's note are not the desk's."""
    event = EventInput(event_id=1, namespace="contacts", source="chat", source_event_id="c/1", kind="transcript",
                       actor="user:tamsin", content="new address is 9 Calle Sierpes, Sevilla", occurred_at=OCC,
                       received_at=OCC, authority=1, provenance_root="chat://c/1")
    facts = {(f.subject, f.predicate, str(f.value)) for f in HeuristicDistiller().distill(event)}
    assert any(f[:2] == ("Tamsin", "address") and f[2].startswith("9 Calle Sierpes") for f in facts)
    note = EventInput(event_id=2, namespace="contacts", source="desk", source_event_id="d/1", kind="note",
                      actor="agent:desk", content="New address is 9 Calle Sierpes, Sevilla.", occurred_at=OCC,
                      received_at=OCC, authority=1, provenance_root="desk://d/1")
    assert not any(f.subject == "Desk" and f.predicate == "address" for f in HeuristicDistiller().distill(note))


@pytest.mark.parametrize(("text", "expected"), [
    ("officially started at Brindlecombe now", "I officially started at Brindlecombe now"),
    ("Just moved to Tromso", "I just moved to Tromso"),
    ("already finished the harbour book", "I already finished the harbour book"),
    ("Honestly loved it", "I honestly loved it"),
    ("Family moved to Lyon", "Family moved to Lyon"),  # a subject, not an adverb
    ("started at noon", "I started at noon"),
    ("Meeting moved to Friday", "Meeting moved to Friday"),
])
def test_chat_that_drops_the_first_person_before_an_adverb_has_the_speaker_as_subject(
        text: str, expected: str) -> None:
    assert restore_subject(text, "Tamsin") == expected
