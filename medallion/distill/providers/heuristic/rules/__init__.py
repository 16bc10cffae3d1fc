"""Every rule of the heuristic distiller, in one folder.

To add a predicate rule: write the rule (a function of :class:`.base.RuleInput` returning a
:data:`.base.Verdict`) in the topic module it belongs to (``person``, ``possessive``, ``thing``,
``taste_and_plan``, ``subjectless``), with its regular expression in ``patterns`` and any value
helper in ``values``, and name it in the ordered table ``table.PATTERN_RULES``. A new predicate is a
row of the seed ``medallion/distill/seeds/predicates.csv`` (its aliases in ``predicate_aliases.csv``).
The clause reader's rules, for sentences the curated rules do not read, are ``clauses`` (its table)
and ``clause_values``.
"""
