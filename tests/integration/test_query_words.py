"""The full-text half of search reads a question's words as PostgreSQL reads the stored texts.

Why: a question names people in the possessive ("Who is Thomas's daughter?"). Dropping only the
apostrophe left "thomass", which the English stemmer keeps whole, while the stored "Thomas's daughter is
…" is indexed under "thoma": the full-text lists never found the one text about the person asked for.
"""

from __future__ import annotations

import psycopg
import pytest

from medallion.serve.search import content_words, tsqueries
from tests.conftest import fresh_database


@pytest.mark.parametrize(("question", "stored"), [
    ("Who is Thomas's daughter?", "Thomas's daughter is Ysolde Marr."),
    ("What is Iris’s postcode?", "Iris's postcode is KW15 1DL."),
    ("Where does Ana's dog sleep?", "Ana's dog sleeps in the porch."),
])
def test_a_possessive_in_the_question_matches_the_stored_text(pg_server: str, question: str, stored: str) -> None:
    with fresh_database(pg_server) as url, psycopg.connect(url) as conn:
        row = conn.execute("SELECT to_tsvector('english', %s) @@ to_tsquery('english', %s)",
                           (stored, tsqueries(question)["tsq_all"])).fetchone()
    assert row is not None and row[0] is True, (content_words(question), stored)
