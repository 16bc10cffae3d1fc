"""Overlay anchoring (G6) without a database: where a person's quote lands in a fact's statement.

``locate`` finds an exact quote (prefix / suffix pick among repeats), ``fuzzy_locate`` re-finds it
after a re-derivation reworded the statement, and ``anchor`` tries the target fact, then the facts
of the same Bronze event (same slot first), exact before fuzzy. ``anchor`` takes plain fact dicts,
so it is tested here with invented ones. Statements are invented (tickets, notes, chat).
"""

from __future__ import annotations

from typing import Any

from medallion.silver.overlays import FUZZY_MIN, Anchor, anchor, fuzzy_locate, locate

EXPORT_QUOTE = "billing exports now run nightly at 02:00 UTC"
EXPORT_REWORDED = "Ticket 4411: the billing export now runs nightly at 02:00 UTC for all tenants."
STANDUP = "Priya moved the standup to 9:30 because the 9:00 slot clashed with the 9:00 vendor call."


def fact(fact_id: str, statement: str, subject_id: str = "priya", predicate: str = "states") -> dict[str, Any]:
    """A ledger fact as the anchoring step reads it."""
    return {"fact_id": fact_id, "statement": statement, "bronze_event_id": 7, "subject_id": subject_id,
            "predicate": predicate}


def quoted(statement: str, span: tuple[int, int] | None) -> str | None:
    return None if span is None else statement[span[0]:span[1]]


# --- locate ---------------------------------------------------------------------------------------


def test_locate_finds_the_exact_quote() -> None:
    """An overlay on "9:30" must cover exactly those characters of the statement."""
    span = locate(STANDUP, "9:30")
    assert span == (STANDUP.index("9:30"), STANDUP.index("9:30") + 4)
    assert quoted(STANDUP, span) == "9:30"


def test_locate_without_context_takes_the_first_occurrence() -> None:
    """With no prefix or suffix the earliest occurrence is the deterministic choice."""
    assert locate(STANDUP, "9:00") == (STANDUP.index("9:00"), STANDUP.index("9:00") + 4)


def test_locate_disambiguates_a_repeated_quote_by_suffix_or_prefix() -> None:
    """A redaction of the vendor call's time must not land on the standup slot's "9:00"."""
    second = STANDUP.rindex("9:00")
    first = STANDUP.index("9:00")
    assert first != second
    assert locate(STANDUP, "9:00", suffix=" vendor call") == (second, second + 4)
    assert locate(STANDUP, "9:00", prefix="with the ") == (second, second + 4)
    assert locate(STANDUP, "9:00", prefix="because the ", suffix=" slot") == (first, first + 4)


def test_locate_prefers_the_occurrence_matching_both_sides() -> None:
    """When the prefix fits some occurrences and the suffix others, the one matching both wins."""
    text = "Tag v2 on release, tag v2 on main, tag v2 on release."
    at = text.rindex("v2 on release")
    assert locate(text, "v2", prefix="tag ", suffix=" on release") == (at, at + 2)


def test_locate_missing_quote_is_none() -> None:
    """A quote the statement no longer contains must not anchor anywhere."""
    assert locate(STANDUP, "10:00") is None
    assert locate(STANDUP, "10:00", prefix="to ", suffix=" because") is None
    assert locate("", "9:30") is None


def test_locate_is_case_sensitive() -> None:
    """The selector is an exact text quote; "priya" is not "Priya"."""
    assert locate(STANDUP, "priya moved") is None


# --- fuzzy_locate ---------------------------------------------------------------------------------


def test_fuzzy_locate_reanchors_after_a_small_rewording() -> None:
    """After a re-derivation reworded the fact, the overlay still finds its place, with a score."""
    found = fuzzy_locate(EXPORT_REWORDED, EXPORT_QUOTE)
    assert found is not None
    (start, end), score = found
    assert FUZZY_MIN <= score < 100.0
    assert EXPORT_REWORDED[start:end] == "billing export now runs nightly at 02:00 UTC"


def test_fuzzy_span_covers_a_longer_rewording_entirely() -> None:
    """A re-anchored edit or redaction must cover the whole reworded phrase, not stop one character short."""
    reworded = "Priya moved the daily stand-up to 9:30 because of a clash"
    found = fuzzy_locate(reworded, "moved the daily standup to 9:30")
    assert found is not None
    (start, end), _ = found
    assert reworded[start:end] == "moved the daily stand-up to 9:30"


def test_fuzzy_locate_scores_an_exact_quote_at_100() -> None:
    """An unchanged quote is a perfect match."""
    found = fuzzy_locate(STANDUP, "vendor call")
    assert found is not None
    span, score = found
    assert quoted(STANDUP, span) == "vendor call"
    assert score == 100.0


def test_fuzzy_locate_rejects_an_unrelated_statement() -> None:
    """An overlay must not drift onto a fact about something else."""
    assert fuzzy_locate("The staging cluster runs out of disk every Friday night.",
                        "moved the daily standup to 9:30") is None
    assert fuzzy_locate("", "moved the daily standup to 9:30") is None


# --- anchor ---------------------------------------------------------------------------------------


def test_anchor_direct_when_the_target_still_has_the_quote() -> None:
    """The common case: the fact is unchanged, the overlay stays where its author put it."""
    target = fact("f-1", STANDUP)
    at = STANDUP.rindex("9:00")
    got = anchor(target, [], "9:00", "with the ", " vendor", ("priya", "states"))
    assert got == Anchor("f-1", "anchored", "direct", 100.0, (at, at + 4))


def test_anchor_exact_on_a_sibling_prefers_the_same_slot() -> None:
    """After a re-derivation, the fact of the same slot takes the overlay over another fact quoting it."""
    siblings = [
        fact("f-a", "Priya said the vendor call is at 9:00.", "priya", "states"),
        fact("f-b", "The vendor call is at 9:00 on Tuesdays.", "vendor-call", "scheduled_at"),
    ]
    got = anchor(None, siblings, "9:00", "", "", ("vendor-call", "scheduled_at"))
    assert (got.fact_id, got.status, got.method, got.score) == ("f-b", "reanchored", "exact", 100.0)
    assert quoted(siblings[1]["statement"], got.span) == "9:00"


def test_anchor_falls_back_to_siblings_when_the_target_lost_the_quote() -> None:
    """A target that no longer contains the quote does not hold the overlay; a sibling that does, does."""
    target = fact("f-old", "Priya moved the standup.")
    sibling = fact("f-new", "Priya moved the standup to 9:30.")
    got = anchor(target, [sibling], "to 9:30", "", "", ("priya", "states"))
    assert (got.fact_id, got.status, got.method) == ("f-new", "reanchored", "exact")


def test_anchor_fuzzy_when_no_fact_has_the_exact_quote() -> None:
    """A reworded statement is re-found approximately, with its score, rather than dropped."""
    siblings = [fact("f-other", "Ticket 4411 was filed by the finance team."),
                fact("f-new", EXPORT_REWORDED, "billing-export", "scheduled_at")]
    got = anchor(None, siblings, EXPORT_QUOTE, "", "", ("billing-export", "scheduled_at"))
    assert (got.fact_id, got.status, got.method) == ("f-new", "reanchored", "fuzzy")
    assert got.score is not None and FUZZY_MIN <= got.score < 100.0
    assert quoted(EXPORT_REWORDED, got.span) == "billing export now runs nightly at 02:00 UTC"


def test_anchor_unanchored_when_nothing_matches() -> None:
    """An overlay that fits nowhere is reported unanchored (kept for review), never put on a wrong fact."""
    siblings = [fact("f-x", "The staging cluster runs out of disk every Friday night.")]
    got = anchor(None, siblings, "moved the daily standup to 9:30", "", "", ("priya", "states"))
    assert got == Anchor(None, "unanchored", None, None, None)
    assert anchor(None, [], "9:30", "", "", (None, None)) == Anchor(None, "unanchored", None, None, None)
