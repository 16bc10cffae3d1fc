"""Reading English: a Bronze event becomes fact candidates, before Silver decides what to keep.

``language/`` reads the text (dates, sentences and their context, wording, the dependency parse and
the clauses it cuts); ``providers/`` turn an event into :class:`~medallion.distill.types.FactCandidate`
rows (the offline heuristic with every rule in ``providers/heuristic/rules/``, and the
OpenAI-compatible one over :mod:`medallion.distill.llm`); ``vocabulary`` is the one loader of the
vocabulary seeds (``seeds/*.csv``, shipped with the package), ``predicates`` the open vocabulary
built on them. Silver (the ledger) imports this package; this package never imports Silver.
"""
