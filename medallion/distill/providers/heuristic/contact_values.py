"""Phone numbers and email addresses a sentence gives, read by their shape rather than by a rule per
phrasing.

People give a new number in many ways: "new phone, new number: 07700 900456", "you can reach me on
0612 999 000 from now on", "switched numbers, it's 0612 111 222 now", "she asked us to use 020 7946 0777
as her callback number". No pattern rule reads most of them, and a rule per wording would not carry over
to the next one. What they share is a value whose shape says what it is, beside a word for a way to
reach someone (number, phone, cell, mobile, email, reach, call, text). Such a value that no rule read
is the ``phone`` or ``email`` of its owner: the person the possessive before the contact word names
("my", "Ilka's", "her" for the sentence's subject), the speaker when the sentence says "reach me" or
speaks in the first person, else the person the sentence opens with or names, else the speaker of a
person's turn or the person a note last named.

A qualified contact ("work line", "office number", "emergency contact", "fax") is another slot than
the person's own number and is left to the rules: read as ``phone``, it would close the personal one.
Both slots are single-valued, so the new value closes the old one in the ledger with no change word.
"""

from __future__ import annotations

import re

from medallion.distill.language.lexicon import CONF_FIRST, CONF_THIRD, NAME_RE, STOP_CAPS
from medallion.distill.language.sentences import Context, parse_subject
from medallion.distill.types import FactCandidate

# a phone number: 7 to 15 digits in groups ("+44 7700 900456", "020 7946 0321", "555-0199", "(555) 010-2233")
_PHONE = re.compile(r"(?<![\w.+@/-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,5}\)[ .-]?)?\d{2,5}(?:[ .-]\d{2,8}){0,4}"
                    r"(?![\w@/-]|\.\d)")
# an email address (silver/value_shapes.py reads the same shape)
EMAIL = re.compile(r"(?<![\w.%+-])[\w.%+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?![\w-])", re.I)
_CONTACT_WORD = re.compile(r"\b(?:phones?|numbers?|cell|mobile|callback|e-?mails?|reach(?:ed|able)?|call|text|ring|"
                           r"whatsapp|signal|contact)\b", re.I)
# "my new number", "Ilka's callback number", "her personal email": a possessive and the contact noun
_OWNED = re.compile(r"(?P<owner>\b(?:my|his|her|their)|\b[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?(?:'s|’s))\s+"
                    r"(?P<words>(?:[\w-]+\s+){0,2}?)(?P<noun>phone(?:\s+number)?|number|cell|mobile|line|"
                    r"e-?mail(?:\s+address)?)\b")
# a contact that is not the person's own: another slot, left to the rules
_QUALIFIED = re.compile(r"\b(?:work|office|desk|fax|landline|home|business|emergency|support|company|main|"
                        r"direct|team|front|reception|account|order|ticket|case|policy|tracking|reference|"
                        r"invoice|room|flight|booking|serial|license|licence|tax|id|social|security|insurance|"
                        r"national|passport|card|bank|routing|iban|pin|registration|vat|member(?:ship)?|customer|"
                        r"confirmation|seat|badge|student|employee|patient|staff|model|part|version)\b", re.I)
_REACH_ME = re.compile(r"\b(?:reach|call|text|ring|message|contact|whatsapp|email|e-mail)\s+me\b", re.I)
_IMPERATIVE = re.compile(r"^\W*(?:please\s+)?(?:call|ring|text|phone|dial|email|e-mail|contact|reach)\b", re.I)
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|I've|I’ve|my|me|mine)\b")
# the role a record names its person by ("Patient Zofia Brenn", "customer Delphine Aubry")
_RECORD_ROLE = frozenset(("patient", "customer", "client", "guest", "employee", "tenant", "member", "user",
                          "contact", "candidate", "applicant", "student", "resident", "caller", "visitor"))


def contact_facts(ctx: Context, speaker: str | None, sentence: str, span: tuple[int, int],
                  read: list[FactCandidate]) -> list[FactCandidate]:
    """The ``phone`` and ``email`` facts of ``sentence`` whose value no fact in ``read`` holds."""
    if not _CONTACT_WORD.search(sentence):
        return []
    held = " ".join(str(f.value) for f in read)
    out: list[FactCandidate] = []
    for predicate, value, start in _values(sentence):
        if value in held:
            continue
        owner = _owner(ctx, speaker, sentence, start)
        if owner is None:
            continue
        noun = "phone number" if predicate == "phone" else "email address"
        out.append(FactCandidate(
            subject=owner, predicate=predicate, value=value, statement=f"{owner}'s {noun} is {value}.",
            valid_from=ctx.occurred, confidence=CONF_FIRST if owner == speaker else CONF_THIRD, span=span,
            value_type="text", relation=noun))
    return out


def _values(sentence: str) -> list[tuple[str, str, int]]:
    """Each phone number and email address of the sentence, with where it starts."""
    found = [("email", m.group(0), m.start()) for m in EMAIL.finditer(sentence)]
    for m in _PHONE.finditer(sentence):
        digits = sum(c.isdigit() for c in m.group(0))
        if 7 <= digits <= 15 and not EMAIL.search(sentence[max(0, m.start() - 40):m.end() + 1]):
            found.append(("phone", m.group(0).strip(), m.start()))
    return found


def _owner(ctx: Context, speaker: str | None, sentence: str, before: int) -> str | None:
    """Whose number or address the value at ``before`` is, or None when the sentence does not say or
    names a qualified contact (a work line, an office number)."""
    owned = [m for m in _OWNED.finditer(sentence) if m.start() < before + 40]
    if owned:
        m = owned[-1]
        if _QUALIFIED.search(m.group("words")) or _QUALIFIED.search(sentence[max(0, m.start() - 20):m.start()]):
            return None
        owner = m.group("owner")
        if owner.lower() == "my":
            return speaker
        if owner.lower() in ("his", "her", "their"):
            subject = parse_subject(ctx, speaker, sentence)
            return subject.name if subject.kind == "third" else _named(sentence[:m.start()]) or ctx.last_person
        return re.sub(r"(?:'s|’s)$", "", owner)
    if _QUALIFIED.search(sentence[:before]):
        return None
    if _REACH_ME.search(sentence) or _FIRST_PERSON.search(sentence):
        return speaker
    if _IMPERATIVE.match(sentence):  # "Call 0161 496 1234 to confirm": an instruction, whoever answers
        return None
    subject = parse_subject(ctx, speaker, sentence)
    if subject.kind == "third" and subject.name:
        return subject.name
    named = _named(sentence[:before])
    if named is not None:
        return named
    # a person's own turn that names no one else gives the speaker's number ("new phone, new number: …")
    # a note's sentence that names no one goes on about the person the note last named ("Zofia Brenn's
    # number has changed. New number: …")
    person_turn = (ctx.event.actor or "").startswith("user:") or speaker != ctx.actor_speaker
    if subject.kind not in ("none", "np"):
        return None
    return speaker if person_turn else ctx.last_person


def _named(text: str) -> str | None:
    """The last person-like name in ``text`` ("Patient Zofia Brenn, new phone number" → "Zofia Brenn")."""
    for m in reversed(list(NAME_RE.finditer(text))):
        words = m.group(0).split()
        if words and (words[0].lower() in _RECORD_ROLE or (m.start() == 0 and len(words) > 2)):
            words = words[1:]  # a record's role, or a sentence's capitalised first word ("Met Ravi Anand")
        elif m.start() == 0 and len(words) == 1:
            continue  # one capitalised word opening the sentence is no name by itself
        if words and words[0].lower() not in STOP_CAPS and not any(c.isdigit() for c in "".join(words)):
            return " ".join(words)
    return None
