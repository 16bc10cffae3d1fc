"""The compact answers the MCP server gives by default: what an agent reads first, a fraction of the size.

A served fact carries every time, authority, confidence, overlay and provenance field, about 800
characters of JSON each; an agent that asked "where does Alice live" needs the statement, its id,
when it held and whether it is still believed. ``search`` cuts its results with
:func:`medallion.serve.search.compact`; ``recall`` and ``history`` are cut here the same way. The
full record is one ``read`` of the id away, or the same call with ``detail='full'``.
"""

from __future__ import annotations

from typing import Any, Literal

from medallion.serve import search as searching

Detail = Literal["compact", "full"]


def fact(item: dict[str, Any]) -> dict[str, Any]:
    """One served fact cut to its statement, id, validity, whether it is believed now, and its source."""
    provenance = item.get("provenance") or {}
    row: dict[str, Any] = {"fact_id": item.get("fact_id"), "statement": item.get("statement"),
                           "predicate": item.get("predicate"),
                           "valid_from": (item.get("valid_from") or "")[:10] or None,
                           "valid_to": (item.get("valid_to") or "")[:10] or None,
                           "current": item.get("current", item.get("valid_to") is None)}
    if item.get("contested"):
        row["contested"] = True
    if item.get("score") is not None:
        row["score"] = round(float(item["score"]), 4)
    row["provenance"] = {"namespace": provenance.get("namespace"), "source": provenance.get("source"),
                         "event_id": provenance.get("bronze_event_id")}
    return row


def history(rows: list[dict[str, Any]], detail: Detail) -> list[dict[str, Any]]:
    """A slot's versions, oldest first: each cut by :func:`fact` unless ``detail`` is 'full'."""
    return rows if detail == "full" else [fact(r) for r in rows]


def recall(answer: dict[str, Any], detail: Detail) -> dict[str, Any]:
    """A recall's answer with its answers cut (which hop answered, and why, are kept whole).

    The ledger answers with search results (cut as ``search`` cuts them), Hindsight with served
    facts (cut by :func:`fact`); the graph's chains already name only each step's fact and statement.
    """
    if detail == "full":
        return answer
    answers = answer.get("answers") or []
    if answer.get("hop") == "ledger":
        cut = searching.compact(answers)
    elif answer.get("hop") == "graph":
        cut = answers
    else:
        cut = [fact(a) for a in answers]
    return {**answer, "answers": cut}
