"""S1 distill — the offline ``heuristic`` provider (deterministic, no network, no model).

One Bronze event in, zero or more :class:`FactCandidate` out. The pipeline, per event:

1. ``kind`` ``fact`` / ``document`` / ``overlay`` → ``[]`` (handled elsewhere: S1, S8, G-overlays).
   System-prompt events (``metadata.role == "system"`` or content opening with "You are …" /
   "As an AI …" from an agent or system actor) → ``[]``.
2. Lines. A meeting header line ``[Title - Room 101 - attendees: Alice, Bob]`` yields one
   ``attended`` fact per attendee plus ``<Title> located_in <Room>``. A line starting with a
   speaker prefix (``Rosalind: …`` / ``Rosalind : …``, chat-export style) sets the
   speaker for that line, overriding the actor. Field labels (``Reporter:``, ``Note:``,
   ``Co-authored-by:`` …) are not speakers.
3. Sentence segmentation (``.``/``!``/``?`` followed by space or end of line, abbreviations and
   decimals protected), then per sentence: questions (ending in ``?``), greetings, thanks,
   acknowledgements, reactions ("that's so cool"), "please …"/"let's …" requests, second-person
   and system-prompt sentences, and fragments under three words yield nothing.
4. Clauses. A sentence whose coordinated clauses have different subjects ("I drive a Tesla and my
   wife drives a Camry", "Rex is 4, Bella is 2 and Max is 9", ", whereas my husband …") is first cut
   by its dependency parse (``distill/language/coordination.py``) and each clause read as a sentence of its
   own, with the clause's span (the span of its ``clause`` chunk). Then a sentence is split where a
   new subject starts (", so my timezone is …", " and I use …", "; …", " - …") and where a verb
   continues the previous subject ("Tigran is based in Yerevan and will pair with Bob" → "Tigran
   will pair with Bob").
5. Pattern rules for the S9 vocabulary run on each clause: an ordered table of named rules
   (:data:`PATTERN_RULES`, first answer wins, each rule callable alone). A sentence in which no
   clause matched becomes one ``states`` fact (or what the clause reader reads in it); unmatched
   clauses of a sentence that did match become ``states`` only when they have a subject of their own.

Speaker and pronouns. The speaker is the line prefix, else the actor: ``user:alice`` → "Alice",
``agent:atlas-assistant`` → "Atlas Assistant"; ``system:*`` / ``service:*`` / ``bot:*`` actors have no
personal speaker (first-person clauses are then dropped, third-person ones still count). I / me /
my / mine / myself become the speaker in ``subject`` and ``statement`` with verb agreement ("I live
in Berlin" → "Bob lives in Berlin."). We / us / our / "the team" / "let's" become the team only
when it is obvious: the event's ``metadata.team``, else the namespace when it names a team
(``team-*``). Otherwise "we" is left unresolved: no pattern fact is drawn from it and the sentence is
kept as a ``states`` fact of the speaker ("Henrike: We went to the beach."). A clause-initial he /
she becomes the last person named earlier in the same event; with no antecedent the clause is dropped.
A sentence-initial it / that / this followed by a value (not an evaluation: "It's special to me"
stays a reaction) becomes the thing the same speaker's previous sentence named ("I got a new phone
number. It's 555-0199 now." → "my new phone number is 555-0199 now", the speaker's phone).

Dates (``valid_from``), relative to ``occurred_at`` (UTC), resolved to 00:00 UTC of the day:

* today / this morning → that day; yesterday / last night → −1 day; tomorrow → +1 day.
* last week → −7 days; next week → the Monday of the next calendar week; "over the weekend" →
  the most recent Saturday before the event day.
* last month → the same day one calendar month earlier, clamped to the month's length (31 March →
  28/29 February); last year → the same day one year earlier (29 February → 28 February).
* N days / weeks / months / years ago; in N days / weeks (future).
* next <weekday> → that weekday in the next calendar week (weeks start on Monday), so "next Friday"
  said on Thursday 12 November is Friday 20 November; last <weekday> → the most recent one strictly
  before; on / by <weekday> → the next one strictly after when the clause looks at the future (will,
  going to, plan, by, until …), else the most recent one strictly before.
* Absolute dates: ISO ``2026-11-04`` (a time, if given, is kept), ``3 May``, ``May 3``, ``3rd of
  May``, with or without a year, ``in March 2025``, ``in 2024``. A date without a year takes the most
  recent such date not after ``occurred_at``; in a future-looking clause (plans, goals, deadlines:
  "by 11 December") the next such date on or after it.
* No date → ``occurred_at`` itself.

Future dates never become ``valid_from``: ``plans`` and ``goal`` keep ``valid_from = occurred_at``
and carry the absolute date in their value ("present the billing roadmap at the all-hands on
2026-12-04"); any other state-changing rule (lives_in, works_at, member_of, role, owns, uses …)
whose clause is dated in the future, or that is phrased with will / going to, is emitted as
``plans`` instead ("Tigran Petrosyan joins team-atlas as a backend contractor on 2026-11-20").
``birthday`` takes the date as its value (``YYYY-MM-DD`` with a year, ISO 8601 ``--MM-DD`` without
one) and ``valid_from = occurred_at``. Statements replace relative dates by absolute ones ("Bob
moved to Lisbon on 2026-11-24.", "Bob switched to Neovim in October 2026.").

Decisions the issue left open:

* "left X" / "quit X" / "no longer work at X" → ``works_at`` with value ``"none (left X)"`` and no
  ``object_entity``: same slot, different value, so a judge sees a change (a contradiction of the
  old employer) rather than a second employer.
* Allergies and diets ("I'm allergic to peanuts", "I'm vegetarian") → ``states`` with value
  "allergic to peanuts" (a medical / dietary fact, not a taste; it must not decay or be contested like
  a preference). Explicit, so confidence 0.9 / 0.7 like the other patterns.
* Tool and version: "X runs / is on / was upgraded to <Tool> <N>", "upgrade X to Y", "<Tool> <N> for
  the X" → ``version`` with subject X ("atlas-api database", value "PostgreSQL 15"); a versioned tool
  with no explicit target ("we upgraded to Postgres 18", "the team uses Postgres 16") → ``uses`` of
  the team / speaker with value "PostgreSQL 18". Common tool spellings are canonicalised in
  uses/version values (Postgres → PostgreSQL, k8s → Kubernetes, nvim → Neovim).
* relationship values read from the subject: "Alice is Bob's manager" → (Alice, "manager of Bob"),
  "Carol reports to Dan" → (Carol, "reports to Dan"), "my sister Jane" → (Jane, "sister of Alice");
  ``object_entity`` is the other person.
* name: "I'm X" where X is the speaker yields nothing new; "my name is X" / "I'm X" (X different
  from the speaker's handle) → name; "call me X", "I go by X", "X, also known as Y" → alias.
* Role values in lower case are title-cased ("design lead" → "Design Lead") so they compare with HR
  records; other values keep their casing, lose articles and trailing punctuation.

Confidence: 0.9 explicit first-person patterns (I / my / we / our), 0.7 third-person patterns and
meeting headers, 0.5 ``states``. ``span`` is the sentence's (start, end) in ``event.content``.
Regexes are compiled once at import; a sentence costs about 50–150 µs (LoCoMo: ~90 µs on average).

The English it reads with is :mod:`medallion.distill.language` (``lexicon``, ``dates``, ``wording``,
``sentences``, ``parse``, ``coordination``). Its rules are all in ``rules/``: ``patterns`` (the
rules' regular expressions), ``base`` (what a rule is), ``values``, the rules by topic
(``subjectless``, ``possessive``, ``person``, ``thing``, ``taste_and_plan``), ``table`` (the ordered
table), and the clause reader's ``clauses`` (its rule table) and ``clause_values``. Then
``open_reading`` (the clause reader's one door), ``open_vocabulary``, ``candidates``, ``distiller``.
"""

from medallion.distill.providers.heuristic.distiller import HeuristicDistiller
from medallion.distill.providers.heuristic.rules.table import PATTERN_RULES, apply_pattern_rules, rule

__all__ = ["PATTERN_RULES", "HeuristicDistiller", "apply_pattern_rules", "rule"]
