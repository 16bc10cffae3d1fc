"""The English the distillers and Silver's chunk restatement read with: ``lexicon`` (word lists),
``dates`` (absolute and relative dates), ``wording`` (first person, values, statements),
``sentences`` (lines, sentences, subjects and their context), ``parse`` (the dependency parse and
its noun-phrase helpers) and ``coordination`` (the clauses one sentence holds, and what "it" names).
No module here knows a predicate rule."""
