"""The heuristic distiller: one Bronze event in, candidates out (the pipeline is described in the
package docstring). This module walks the event line by line and sentence by sentence, asks the
pattern rules about each clause, and hands the sentences no rule read to the clause reader."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

from medallion.distill.language.coordination import clause_spans, clause_text, gapped_clauses, resolve_anaphor
from medallion.distill.language.lexicon import EMOTICON_RE
from medallion.distill.language.sentences import (
    HEADER_RE,
    HEADING_RE,
    LEAD_PRO,
    QUOTES,
    REQUEST_RE,
    SECOND_PERSON_RE,
    SYSTEM_RE,
    Clause,
    Context,
    Subject,
    front_date_to_end,
    is_noise,
    lead_text,
    line_speaker,
    make_context,
    normalise,
    note_people,
    parse_subject,
    restore_owner,
    restore_subject,
    sentence_spans,
    split_clauses,
    strip_lead,
)
from medallion.distill.providers.heuristic import open_reading
from medallion.distill.providers.heuristic.candidates import (
    build_candidates,
    header_facts,
    metadata_attendance,
    states_candidates,
)
from medallion.distill.providers.heuristic.contact_values import contact_facts
from medallion.distill.providers.heuristic.rules.record import read_record
from medallion.distill.providers.heuristic.rules.table import apply_pattern_rules, relative_rest
from medallion.distill.types import EventInput, FactCandidate

SKIPPED_KINDS = frozenset({"fact", "document", "overlay"})


class HeuristicDistiller:
    """S1 ``heuristic`` provider: deterministic pattern-based distillation (see the package docstring)."""

    name = "heuristic"

    def prepare(self, events: list[EventInput],
                guard: Callable[[], AbstractContextManager[object]] = nullcontext) -> None:
        """Parse ahead, in one batch, every sentence the clause reader will be asked about for these
        events (a dry run lists them); :meth:`distill` then finds them parsed. Each event's dry run
        runs under ``guard()`` (the derivation's time budget), the batch parse outside it."""
        with open_reading.collecting() as pending:
            for event in events:
                try:
                    with guard():
                        self.distill(event)
                except Exception:  # noqa: BLE001 - the real pass reports (and parks) the event
                    continue
        open_reading.warm(pending)

    def distill(self, event: EventInput) -> list[FactCandidate]:
        """The event's candidates, in the order its sentences say them, each (subject, predicate,
        value) once."""
        if event.kind in SKIPPED_KINDS or not event.content or not event.content.strip():
            return []
        if _is_system_prompt_event(event):
            return []
        ctx = make_context(event)
        out: list[FactCandidate] = []
        seen: set[tuple[str, str, str]] = set()
        header_seen = False
        pos = 0
        previous: str | None = None  # the sentence before, in the same speaker's turn
        previous_speaker: str | None = None
        content = event.content
        for line in content.split("\n"):
            line_start = pos
            pos += len(line) + 1
            if not line.strip():
                continue
            header = HEADER_RE.match(line)
            if header:
                header_seen = True
                for fact in header_facts(ctx, header.group("body"), (line_start, line_start + len(line.rstrip()))):
                    _add(out, seen, fact)
                continue
            if HEADING_RE.match(line) and event.kind in ("note", "issue", "message"):
                continue
            speaker, body_offset = line_speaker(ctx, line)
            if speaker == "":  # a system/instructions line
                continue
            fields = read_record(ctx, line[body_offset:], line_start + body_offset)
            if fields:  # "Ticket 5105: priority set to low": the record's fields, not sentences
                for fact in fields:
                    _add(out, seen, fact)
                previous, previous_speaker = None, speaker
                continue
            if speaker != previous_speaker:
                previous, previous_speaker = None, speaker  # "it" names what this speaker's turn named
            for s_start, s_end in sentence_spans(line, body_offset):
                raw = line[s_start:s_end]
                span = (line_start + s_start, line_start + s_end)
                facts = _turn_sentence_facts(ctx, speaker, raw, span, previous)
                for fact in facts + contact_facts(ctx, speaker, raw, span, facts):
                    _add(out, seen, fact)
                previous = raw
        if not header_seen:
            for fact in metadata_attendance(ctx):
                _add(out, seen, fact)
        return out


def _add(out: list[FactCandidate], seen: set[tuple[str, str, str]], fact: FactCandidate) -> None:
    """Append ``fact`` unless the event already said the same (subject, predicate, value)."""
    key = (fact.subject.lower(), fact.predicate, str(fact.value).lower())
    if key in seen:
        return
    seen.add(key)
    out.append(fact)


def _is_system_prompt_event(event: EventInput) -> bool:
    """Instructions to an assistant ("You are a helpful …") describe no one: the whole event is skipped."""
    meta_role = str(event.metadata.get("role", "")).lower() if isinstance(event.metadata, dict) else ""
    if meta_role in ("system", "developer"):
        return True
    actor_prefix = (event.actor or "").partition(":")[0].lower()
    head = event.content.lstrip()[:200].translate(QUOTES)
    if actor_prefix in ("agent", "system", "assistant", "bot") or event.source in ("agent", "prompt"):
        return bool(SYSTEM_RE.match(head))
    return bool(
        re.match(r"^(?:system\s*:|<\|?system\|?>|you\s+are\s+an?\s+(?:helpful\s+)?(?:ai|assistant))", head, re.I)
    )


def _turn_sentence_facts(ctx: Context, speaker: str | None, raw: str, span: tuple[int, int],
                         previous: str | None) -> list[FactCandidate]:
    """One sentence of a turn: a clause-initial "it" / "that" / "this" read as what the sentence
    before named ("I got a new phone number. It's 555-0199 now."), and a sentence that speaks of
    several subjects ("I drive a Tesla and my wife drives a Camry") read clause by clause, each
    clause's facts with the clause's span (the span of its ``clause`` chunk, silver/chunks.py)."""
    gapped = gapped_clauses(raw)
    if gapped:  # "Jan's birthday is in May and Kim's in June": each clause whole
        return [f for start, end, text in gapped
                for f in _sentence_facts(ctx, speaker, text, (span[0] + start, span[0] + end))]
    pieces = clause_spans(raw)
    if not pieces:
        return _sentence_facts(ctx, speaker, resolve_anaphor(raw, previous, speaker), span)
    facts: list[FactCandidate] = []
    for start, end in pieces:
        text = clause_text(raw[start:end])
        if start == 0:
            text = resolve_anaphor(text, previous, speaker)
        facts.extend(_sentence_facts(ctx, speaker, text, (span[0] + start, span[0] + end)))
    return facts


def _sentence_facts(ctx: Context, speaker: str | None, raw: str, span: tuple[int, int]) -> list[FactCandidate]:
    """One sentence's candidates: noise, questions and requests yield none; each clause is offered to
    the pattern rules; a sentence none of whose clauses they read goes whole to ``states`` (the clause
    reader), and an unread clause of a read sentence only when it has a subject of its own."""
    if "; " in raw:  # two sentences joined by a semicolon are read one by one
        return [f for part in raw.split("; ") for f in _sentence_facts(ctx, speaker, part, span)]
    text = restore_subject(normalise(raw), speaker)
    person_turn = (ctx.event.actor or "").startswith("user:") or speaker != ctx.actor_speaker
    text = restore_owner(text, speaker if person_turn else None)
    if not text or text.endswith("?") or SYSTEM_RE.match(text):
        return []
    text = strip_lead(text, ctx)
    text = EMOTICON_RE.sub("", text).strip()
    if not text or text.endswith("?") or SYSTEM_RE.match(text) or SECOND_PERSON_RE.match(text):
        return []
    if is_noise(text, ctx):
        return []
    text = re.sub(r"^(?:[Ll]et\s+us|[Ll]ets)\s+(?=(?:aim|try|target|plan|strive)\b)", "we ", text)
    if REQUEST_RE.match(text):
        # A request can still carry facts after a dash: "Please congratulate Carol - she was promoted ..."
        note_people(ctx, text)
        parts = re.split(r"\s+-\s+|;\s+", text, maxsplit=1)
        if len(parts) < 2:
            return []
        text = parts[1]
    pieces = split_clauses(text)
    facts: list[FactCandidate] = []
    unmatched: list[tuple[Clause, Subject]] = []
    matched_any = False
    prev_subject_text: str | None = None
    for clause in pieces:
        ctext = clause.text
        if clause.kind == "carry" and prev_subject_text:
            ctext = f"{prev_subject_text} {ctext}"
        ctext = strip_lead(ctext, ctx) if clause.kind != "main" else ctext
        ctext = front_date_to_end(ctext)
        if not ctext or REQUEST_RE.match(ctext) or SECOND_PERSON_RE.match(ctext):
            continue
        subj = parse_subject(ctx, speaker, ctext)
        if subj.kind in ("fp", "we") and subj.name is None:
            continue  # first person with no known speaker
        if subj.kind == "none" and LEAD_PRO.match(ctext):
            continue  # he/she with no antecedent in this event
        protos = apply_pattern_rules(ctx, speaker, subj, ctext)
        if protos is not None:
            matched_any = True
            facts.extend(build_candidates(ctx, speaker, subj, ctext, protos, span))
            rest = relative_rest(ctx, speaker, ctext) if subj.possessive else None
            if rest:
                facts.extend(states_candidates(ctx, speaker, rest, span))
        else:
            unmatched.append((clause, subj))
            if clause.kind == "carry":
                unmatched[-1] = (Clause(ctext, "carry"), subj)
        lead = lead_text(ctext)
        if lead:
            prev_subject_text = lead
        note_people(ctx, ctext, subj)
    if not matched_any:
        return states_candidates(ctx, speaker, text, span)
    for clause, subj in unmatched:
        if clause.kind == "tail" or subj.kind == "none":
            continue
        if len(clause.text.split()) < 3:
            continue
        facts.extend(states_candidates(ctx, speaker, clause.text, span))
    return facts
