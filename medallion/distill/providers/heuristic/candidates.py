"""Turning readings into :class:`FactCandidate`: meeting-header attendance, a rule's proto-facts with
their dates, statements and plans applied, and the ``states`` path (sentences no rule read, offered to
the clause reader) — every candidate in the open vocabulary's shape."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from medallion.distill.language.dates import (
    FUTURE_RE,
    MODAL_FUTURE_RE,
    DateHit,
    find_dates,
    midnight,
    replace_dates,
)
from medallion.distill.language.lexicon import (
    CONF_STATES,
    CONF_THIRD,
    ENTITY_PREDICATES,
    ROLE_RE,
    STATE_PREDICATES,
)
from medallion.distill.language.sentences import (
    LEAD_PRO,
    LEAD_PRO_POSS,
    REQUEST_RE,
    SECOND_PERSON_RE,
    Context,
    Subject,
    parse_subject,
)
from medallion.distill.language.wording import (
    as_statement,
    possessive_form,
    resolve_person,
    title_name,
    title_role,
)
from medallion.distill.providers.heuristic import open_reading
from medallion.distill.providers.heuristic.open_vocabulary import open_slot
from medallion.distill.providers.heuristic.rules.values import ProtoFact
from medallion.distill.types import FactCandidate


def _split_people(text: str) -> list[str]:
    """The names in an attendee list ("Alice, Bob and carol.d")."""
    parts = re.split(r"\s*(?:,|;|\band\b|&)\s*", text)
    return [title_name(p.strip()) for p in parts if p.strip() and re.match(r"^[\w][\w .'-]*$", p.strip())]


def header_facts(ctx: Context, body: str, span: tuple[int, int]) -> list[FactCandidate]:
    """A meeting header "[Title - Room 101 - attendees: Alice, Bob]": who attended, and where it took place."""
    parts = [p.strip() for p in re.split(r"\s+[-|–]\s+|\s*\|\s*", body) if p.strip()]
    title: str | None = None
    room: str | None = None
    people: list[str] = []
    for part in parts:
        m = re.match(r"^(?:attendees|participants|present)\s*:\s*(?P<p>.+)$", part, re.I)
        if m:
            people = _split_people(m.group("p"))
            continue
        m = re.match(r"^(?:room|location|where)\s*:\s*(?P<r>.+)$", part, re.I)
        if m:
            room = m.group("r").strip()
            continue
        if title is None:
            title = part
        elif room is None:
            room = part
    title = title or ctx.title or "meeting"
    ctx.title = title
    return _attendance(ctx, title, room, people, span)


def _attendance(
    ctx: Context, title: str, room: str | None, people: list[str], span: tuple[int, int] | None
) -> list[FactCandidate]:
    """``attended`` per person, and the meeting ``located_in`` its room, on the event's day."""
    facts: list[FactCandidate] = []
    where = f" in {room}" if room else ""
    when = f" on {ctx.today.isoformat()}"
    for person in people:
        ctx.people.add(person)
        facts.append(
            FactCandidate(
                subject=person,
                predicate="attended",
                value=title,
                statement=f"{person} attended {title}{where}{when}.",
                valid_from=ctx.occurred,
                confidence=CONF_THIRD,
                span=span,
                object_entity=title,
            )
        )
    if room:
        facts.append(
            FactCandidate(
                subject=title,
                predicate="located_in",
                value=room,
                statement=f"{title} took place in {room}{when}.",
                valid_from=ctx.occurred,
                confidence=CONF_THIRD,
                span=span,
                object_entity=room,
            )
        )
    return facts


def metadata_attendance(ctx: Context) -> list[FactCandidate]:
    """A transcript's attendees and title given as metadata, when no header line lists them."""
    meta = ctx.event.metadata if isinstance(ctx.event.metadata, dict) else {}
    attendees = meta.get("attendees")
    title = meta.get("title")
    if ctx.event.kind != "transcript" or not isinstance(attendees, list) or not isinstance(title, str):
        return []
    people = [title_name(str(a)) for a in attendees if isinstance(a, str) and a.strip()]
    room = meta.get("room") if isinstance(meta.get("room"), str) else None
    return _attendance(ctx, title, room, people, None)


def _resolve_statement(
    ctx: Context, speaker: str | None, subj: Subject, text: str, hits: list[DateHit], keep_abs: bool
) -> str:
    """The clause as a self-contained statement: absolute dates, he / she and I / we resolved."""
    out = replace_dates(text, hits, keep_absolute=keep_abs)
    if subj.kind == "third" and subj.name and LEAD_PRO.match(out):
        out = LEAD_PRO.sub(f"{subj.name} ", out, count=1)
    elif subj.kind == "third" and subj.name and subj.possessive and LEAD_PRO_POSS.match(out):
        out = LEAD_PRO_POSS.sub(f"{possessive_form(subj.name)} ", out, count=1)
    if ctx.team:
        out = re.sub(r"^(?:[Tt]he|[Oo]ur)\s+(?:whole\s+)?team\b", lambda _m: ctx.team or "", out)
    out = resolve_person(out, speaker, ctx.team)
    return as_statement(out)


def build_candidates(
    ctx: Context, speaker: str | None, subj: Subject, text: str, protos: list[ProtoFact], span: tuple[int, int]
) -> list[FactCandidate]:
    """A rule's proto-facts as candidates: a state dated in the future (or said with will / going to)
    becomes a plan, a past date becomes ``valid_from``, and each is put in the open vocabulary's shape."""
    future_ctx = bool(FUTURE_RE.search(text))
    hits = find_dates(text, ctx.today, future_ctx)
    first = hits[0] if hits else None
    modal_future = bool(re.search(r"\b(?:will|shall|going\s+to|am\s+moving|is\s+moving)\b", text, re.I))
    out: list[FactCandidate] = []
    plan_done = False
    for p in protos:
        subject = p.subject or subj.name
        if not subject:
            continue
        keep_abs = p.predicate == "birthday"
        statement = p.statement or _resolve_statement(ctx, speaker, subj, text, hits, keep_abs)
        valid_from = ctx.occurred
        predicate, value, obj = p.predicate, p.value, p.obj
        conf = p.confidence if p.confidence is not None else CONF_THIRD
        is_future = first is not None and first.day > ctx.today
        if predicate in STATE_PREDICATES and (is_future or modal_future) and p.subject is None:
            if plan_done:
                continue
            plan_done = True
            predicate, obj = "plans", None
            value = _plan_from_statement(statement, subject)
        elif predicate not in ("plans", "goal", "birthday") and first is not None and not is_future:
            valid_from = datetime.combine(first.day, first.at, tzinfo=UTC) if first.at else midnight(first.day)
        if obj is None and predicate in ENTITY_PREDICATES and isinstance(value, str) and not value.startswith("none ("):
            obj = value
        if predicate == "role" and isinstance(value, str):
            value = title_role(value)
        if isinstance(obj, str):
            obj = resolve_person(obj, speaker, ctx.team)
        if isinstance(value, str):
            value = resolve_person(value, speaker, ctx.team) if predicate not in ("email",) else value
            value = value.strip().rstrip(".,;:!? ")
            if not value:
                continue
        subject, predicate, value, obj, hint = open_slot(subject, predicate, value, obj, statement)
        out.append(
            FactCandidate(
                subject=subject,
                predicate=predicate,
                value=value,
                statement=statement,
                valid_from=valid_from,
                confidence=conf,
                span=span,
                object_entity=obj,
                value_type="entity" if obj else "text",
                cardinality=hint,
                change=predicate not in ("goal", "plans", "attended") and _states_change(statement),
            )
        )
    return out


_REPLACED_RE = re.compile(r"\b(?:no\s+longer|anymore|instead|switched|moved|transferred|changed|relocated)\b", re.I)
_NOW_RE = re.compile(r"(?<!right )(?<!for )(?<!by )(?<!until )(?<!just )(?<!from )\bnow\b", re.I)
_ADDED_RE = re.compile(r"\b(?:also|too|as\s+well|another|additionally)\b", re.I)
_JOINED_RE = re.compile(
    r"\b(?:join(?:s|ed|ing)?|part\s+of|members?\s+of|sign(?:s|ed)?\s+up|(?:took|taken|takes?|taking)\s+up)\b", re.I)


def _states_change(statement: str) -> bool:
    """Whether a statement says its value took another's place, which in a many-valued slot closes
    the others: replacement words ("switched", "moved", "no longer", "instead"), or a bare "now"
    ("Kofi now prefers the window seat"), unless it adds one more ("also", "too"). Joining a group
    or taking up a pursuit ("is now part of the choir", "now a member of", "took up") adds a
    membership and ends none, so a bare "now" there is not a change."""
    if _ADDED_RE.search(statement):
        return False
    if _REPLACED_RE.search(statement):
        return True
    return bool(_NOW_RE.search(statement)) and not _JOINED_RE.search(statement)


def _plan_from_statement(statement: str, subject: str) -> str:
    """The plan a statement states about ``subject`` ("Bob will move to Lisbon" → "move to Lisbon")."""
    body = statement.rstrip(".")
    if body.startswith(subject):
        body = body[len(subject) :].strip()
    body = re.sub(r"^(?:is|are|will|shall|is\s+going\s+to|plans\s+to|intends\s+to)\s+", "", body)
    body = re.sub(r"^be\s+", "be ", body)
    return body


def states_candidates(ctx: Context, speaker: str | None, text: str, span: tuple[int, int]) -> list[FactCandidate]:
    """A sentence no curated rule read: the clause reader (``open_reading``) gives it a slot, learned
    or curated, or decides it asserts nothing; ``states`` is kept for an assertion with no relation."""
    body = text.strip().rstrip(".!")
    if len(re.findall(r"[A-Za-z]{2,}|\bI\b|\d+", body)) < 3:  # "I drive a Tesla", "Rex is 4" are whole claims
        return []
    if REQUEST_RE.match(body) or SECOND_PERSON_RE.match(body) or body.endswith("?"):
        return []
    subj = parse_subject(ctx, speaker, body)
    if subj.kind == "fp" and not subj.name:
        return []
    if subj.kind == "none" and LEAD_PRO.match(body):
        return []  # he/she with no antecedent
    future_ctx = bool(FUTURE_RE.search(body))
    hits = find_dates(body, ctx.today, future_ctx)
    statement = _resolve_statement(ctx, speaker, subj, body, hits, keep_abs=False)
    valid_from = ctx.occurred
    if hits and hits[0].day <= ctx.today:
        h = hits[0]
        valid_from = datetime.combine(h.day, h.at, tzinfo=UTC) if h.at else midnight(h.day)
    titled = bool(ctx.ctx_subject) and statement.startswith(ctx.ctx_subject or "\0")
    # a ticket or document title ("ATL-88 Block invoicing ...") is a statement about its key
    readings = [] if titled else open_reading.read_all(statement, speaker)
    if readings == [open_reading.NOTHING]:
        return []
    if readings:
        future = any(h.day > ctx.today for h in hits) or bool(MODAL_FUTURE_RE.search(body))
        return [c for r in readings if (c := _from_reading(ctx, speaker, r, statement, valid_from, future, span))]
    subject = ctx.ctx_subject if titled else open_reading.subject_of(statement, speaker)
    if subject is None and subj.kind in ("fp", "we") and subj.name:
        subject = subj.name
    if not subject or subject.lower() not in statement.lower():
        return []  # no subject the statement names: nothing testable to keep
    return [FactCandidate(subject=subject, predicate="states", value=statement.rstrip("."), statement=statement,
                          valid_from=valid_from, confidence=CONF_STATES, span=span, object_entity=None)]


def _from_reading(ctx: Context, speaker: str | None, reading: open_reading.Reading, statement: str,
                  valid_from: datetime, future_ctx: bool, span: tuple[int, int]) -> FactCandidate | None:
    """A clause reading as a candidate, in the open vocabulary's shape (see :func:`open_slot`)."""
    if future_ctx and reading.origin == "learned":
        return FactCandidate(subject=reading.subject, predicate="plans",
                             value=_plan_from_statement(statement, reading.subject), statement=statement,
                             valid_from=ctx.occurred, confidence=CONF_STATES, span=span)
    value, predicate = reading.value, reading.predicate
    if isinstance(value, str):
        value = resolve_person(value, speaker, ctx.team).strip().rstrip(".,;:!? ")
        if not value:
            return None
        if predicate == "kind" and ROLE_RE.search(value):
            predicate, value = "role", title_role(value)  # "Breno is now Principal Engineer"
    entity = reading.value_type == "entity" and isinstance(value, str) and predicate != "role"
    subject, predicate, value, obj, hint = open_slot(reading.subject, predicate, value,
                                                      value if entity else None, statement)
    return FactCandidate(
        subject=subject, predicate=predicate, value=value, statement=statement,
        valid_from=valid_from, confidence=CONF_THIRD if reading.origin == "curated" else CONF_STATES, span=span,
        object_entity=obj, value_type="entity" if obj else (  # type: ignore[arg-type]
            reading.value_type if reading.value_type != "entity" else "text"),
        cardinality=hint or reading.cardinality, relation=reading.relation, change=reading.change,
    )
