"""Open relation reading: one sentence → (subject, relation, typed value), or nothing.

The curated rules of the heuristic distiller (``heuristic.rules.table.PATTERN_RULES``) know a few dozen
phrasings of a few dozen predicates. Every other sentence comes here. A dependency parse (spaCy's ``en_core_web_sm``
3.8.0 pipeline, see STANDARDS.md for why a parser and not more patterns) gives the clause's
structure; an ordered table of named rules (:data:`RULES`) reads it. The first rule that answers
decides; each rule is a plain function over the parsed sentence, testable alone.

A rule answers either :data:`NOTHING` (social talk, reactions, advice, questions, narration without
an assertion: no fact), or a :class:`Reading`: the subject the clause is about, the relation phrase,
the slot it names (curated through the alias seed, or learned), the value and its type, and the
cardinality the general rule gives (``distill/predicates.py``). A sentence no rule reads but that
asserts something about a known subject becomes ``states``.
"""

from medallion.distill.language.parse import collecting, parse, warm
from medallion.distill.providers.heuristic.rules.clause_values import NOTHING, Reading
from medallion.distill.providers.heuristic.rules.clauses import RULES, read_all, subject_of

__all__ = ["NOTHING", "RULES", "Reading", "collecting", "parse", "read_all", "subject_of", "warm"]
