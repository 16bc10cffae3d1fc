"""Markdown tables for asset metadata, the one shape every asset module previews rows in.

Dagster renders a ``MetadataValue.md`` in the asset's materialization panel; the Bronze, Silver, Gold
and audit assets all preview a few rows that way, so the table is written once, here.
"""

from __future__ import annotations


def markdown_table(rows: list[dict], empty: str = "_no rows_") -> str:
    """``rows`` (dicts with the same keys, the first row's order) as a Markdown table; ``empty`` when
    there are none. A ``|`` in a cell is escaped and a newline becomes a space, so a stored statement
    cannot break the table."""
    if not rows:
        return empty
    cols = list(rows[0])
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in rows:
        cells = [str(row[c]).replace("|", "\\|").replace("\n", " ") for c in cols]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
