"""Storage routing (S10) and importance (S12): where a fact goes, and how much it matters.

The essay's test is cost-of-error × volatility, read from the vocabulary (predicates.csv):

| stakes | volatility | goes to |
|---|---|---|
| low | ephemeral | working memory only (``silver.working_memory``, with ``expires_at``) |
| low | stable or volatile | ledger |
| high | stable | ledger |
| high | volatile | ledger, monitored (``gold_marts.alerts`` when it changes or goes stale) |

Documents go to versioned documents (S8) and syntheses over 2+ sources to the wiki (G10); neither
passes through this function.
"""

from __future__ import annotations

import re
from typing import Literal

from medallion.distill.vocabulary import Predicate

Route = Literal["working_memory", "ledger", "ledger_monitored"]
_EMPHASIS = re.compile(r"\b(important|critical|always|never|must|remember|urgent|allergic)\b|!", re.IGNORECASE)


def route(pred: Predicate) -> Route:
    """Where a fact of this predicate is stored."""
    if pred.stakes == "low" and pred.volatility == "ephemeral":
        return "working_memory"
    if pred.stakes == "high" and pred.volatility in ("volatile", "ephemeral"):
        return "ledger_monitored"
    return "ledger"


def importance(pred: Predicate, authority: int, statement: str) -> float:
    """0–1: predicate stakes, authority and explicit emphasis (repetition is counted by dbt)."""
    score = 0.5 if pred.stakes == "high" else 0.25
    score += (5 - authority) * 0.06  # user 0.24 … inference 0
    if _EMPHASIS.search(statement):
        score += 0.15
    return round(min(score, 1.0), 3)
