"""How the graph walk of search scores and extends paths (serve/graph.py), without a database.

People, towns, projects and predicates are invented; each test pins one general rule: words are
used once along a path, acronyms spell key words, a bridge must explain more than its prefix, the
fact nearest the question stands in for a key no word matches, literal values and "<part> of
<name>" entities lead on. The SQL helpers run against a stub connection that
returns canned rows, so only their Python side is under test here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from medallion.serve import graph
from medallion.serve.graph import Hop, Mention


def _fetch(edges: Sequence[tuple[str, str, str | None, str]]) -> graph.Fetch:
    def fetch(nodes: list[str]) -> list[Hop]:
        return [Hop(*e) for e in edges if e[0] in nodes]
    return fetch


def _ranked(edges: Sequence[tuple[str, str, str | None, str]], query: str, start: str) -> list[str]:
    words = graph.query_words(query, once=False)
    return graph.ranked_facts(graph.walk([start], words, _fetch(edges)))


class _Rows:
    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self.rows = rows

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows


class _Conn:
    """Answers each execute with the next canned result, and keeps what it was asked."""

    def __init__(self, *results: list[tuple[Any, ...]]) -> None:
        self.results = list(results)
        self.asked: list[tuple[str, Any]] = []

    def execute(self, sql: str, params: Any = None) -> _Rows:
        self.asked.append((sql, params))
        return _Rows(self.results.pop(0) if self.results else [])


def test_a_word_used_by_one_hop_is_not_used_again_by_a_later_hop() -> None:
    # "town" is spent on moved_to_town: the twin-town hop after it explains nothing new
    edges = [("ines", "moved_to_town", "porto", "f-moved"), ("porto", "twin_town", "bristol", "f-twin")]
    assert _ranked(edges, "Which town did Ines move to?", "ines") == ["f-moved"]
    # a word the question repeats may explain two hops
    assert _ranked(edges, "Which town is the twin town of the town Ines moved to?", "ines")[0] == "f-twin"
    assert graph.query_words("the town of the town", once=False) == ["town", "town"]
    assert graph.query_words("the town of the town") == ["town"]


def test_hop_match_reports_the_words_it_used() -> None:
    assert graph.hop_match("moved_to_town", ("town", "moved", "team")) == (1.0, ("town", "moved"))
    assert graph.hop_match("works_at", ("employer", "town")) == (1.0, ("employer",))  # a curated cue
    assert graph.hop_match("painted_by", ("town",)) == (0.0, ())
    assert graph.unused(("town", "moved", "town"), ("town",)) == ("moved", "town")


def test_an_acronym_in_the_question_spells_consecutive_key_words() -> None:
    assert graph.hop_score("chief_technology_officer", ["cto"]) == 1.0
    assert graph.hop_score("product_manager", ["pm", "team"]) == 1.0
    assert graph.hop_score("chief_financial_officer", ["cto"]) == 0.0  # the initials must agree
    assert graph.hop_score("product_manager", ["p"]) == 0.0  # one letter is no acronym
    edges = [("orbitex", "chief_technology_officer", "dara", "f-cto"), ("dara", "lives_in", "quito", "f-home")]
    assert _ranked(edges, "Where does the CTO of Orbitex live?", "orbitex")[:2] == ["f-home", "f-cto"]


def test_a_bridge_that_leads_to_more_of_the_question_outranks_its_prefix() -> None:
    # "country" names no key word: the resident_of hop is a bridge, and the seat behind it is the answer
    edges = [("tidewater", "maintainer", "noor", "f-maintainer"), ("noor", "resident_of", "chile", "f-resident"),
             ("chile", "seat", "santiago", "f-seat")]
    ranked = _ranked(edges, "What is the seat of the country of the maintainer of Tidewater?", "tidewater")
    assert ranked[:3] == ["f-seat", "f-resident", "f-maintainer"]
    path = graph.walk(["tidewater"], ["seat", "country", "maintainer"], _fetch(edges))[0]
    assert path.unmatched == 1 and path.used == ("maintainer", "seat")
    assert path.score == 2 + 2 * graph.COVERAGE - graph.BRIDGE_COST
    # a bridge whose last hop explains no more than the prefix costs more than half: it is cut
    assert graph.Path("a", (Hop("a", "x", "b", "1"),), (0.0, 1.0)).score < 0.5
    # the only route, a weak hop behind a bridge, keeps a positive score
    assert graph.Path("a", (Hop("a", "x", "b", "1"), Hop("b", "y", "c", "2")), (0.0, 0.5)).score > 0


def test_of_two_paths_the_one_explaining_more_of_the_question_wins() -> None:
    # the CTO path matches two keys in full; the longer one adds "region", behind a bridge and with
    # a half-matched key, and still explains one more word of the question
    edges = [("corvid", "chief_technology_officer", "mona", "f-cto"),
             ("mona", "raised_in_town", "graz", "f-raised"), ("graz", "part_of_region", "styria", "f-region")]
    ranked = _ranked(edges, "What region does the CTO of Corvid come from?", "corvid")
    assert ranked[:3] == ["f-region", "f-raised", "f-cto"]


def test_the_list_weight_counts_every_hop_of_the_best_path() -> None:
    edges = [("atlas", "maintainer", "kemi", "f-maintainer"), ("kemi", "lives_in", "lagos", "f-home")]
    words = graph.query_words("Where does the steward of Atlas live?")  # "steward" names no key: a bridge
    assert graph.list_weight(graph.walk(["atlas"], words, _fetch(edges))) == 2.0


def test_a_literal_value_that_names_an_entity_is_followed() -> None:
    # (subject, predicate, edge target, fact, literal value of a followable fact without an edge, cosine)
    conn = _Conn([("rana", "drives_car", None, "f-car", "Cargo van", 0.4),
                  ("rana", "nickname", None, "f-nick", "the Wall", 0.2),
                  ("rana", "mentor", "e-ole", "f-mentor", None, 0.1)],
                 [("cargo van", "e-van")])
    found = graph.hops(conn, source="silver.facts", where="TRUE", params={"ns": "ns", "q": "[0.1]"},
                       nodes=["rana"], believed="TRUE")
    assert found == [Hop("rana", "drives_car", "e-van", "f-car", 0.4), Hop("rana", "nickname", None, "f-nick", 0.2),
                     Hop("rana", "mentor", "e-ole", "f-mentor", 0.1)]
    assert conn.asked[1][1] == ("ns", ["cargo van", "the wall"])  # looked up by normalised name
    assert "<=> %(q)s::vector" in conn.asked[0][0]  # the cosine to the question, where search gives its vector
    # no literal to resolve: no second query; no query vector (follow): no cosine
    conn = _Conn([("rana", "mentor", "e-ole", "f-mentor", None, None)])
    assert graph.hops(conn, source="silver.facts", where="TRUE", params={"ns": "ns"}, nodes=["rana"],
                      believed="TRUE") == [Hop("rana", "mentor", "e-ole", "f-mentor")]
    assert len(conn.asked) == 1 and "<=>" not in conn.asked[0][0]


def test_the_hop_closest_to_the_question_stands_in_for_a_key_no_word_matches() -> None:
    # "hometown" shares no stem with grew_up_in_town; among Iva's facts that no word matches, the
    # one whose statement is nearest the question (by the search's own vectors) is taken as matched
    edges = [Hop("opal", "designed_by", "iva", "f-designed", 0.30),
             Hop("iva", "grew_up_in_town", "split", "f-grew", 0.62), Hop("iva", "mentor", "teo", "f-mentor", 0.41),
             Hop("iva", "resident_of", "chile", "f-resident", 0.44)]

    def fetch(nodes: list[str]) -> list[Hop]:
        return [h for h in edges if h.source in nodes]
    paths = graph.walk(["opal"], graph.query_words("What is the hometown of the person who designed Opal?"), fetch)
    assert graph.ranked_facts(paths)[:2] == ["f-grew", "f-designed"]
    assert paths[0].scores == (1.0, graph.CLOSEST) and paths[0].unmatched == 0
    # one stand-in per node and path: the other unmatched facts stay bridges (and end no path)
    assert {p.hops[-1].fact_id for p in paths} == {"f-grew", "f-designed"}
    # without cosines (follow, or a fact with no embedding) nothing stands in
    plain = [h._replace(similarity=None) for h in edges]
    assert graph.ranked_facts(graph.walk(["opal"], graph.query_words("the hometown of the designer of Opal?"),
                                         lambda nodes: [h for h in plain if h.source in nodes])) == ["f-designed"]


def test_a_part_of_a_named_entity_is_reached_by_a_name_hop() -> None:
    conn = _Conn([("e-acme", "e-ws", "workshop"), ("e-acme", "e-of", "of")])
    parts = graph.part_hops(conn, "ns", ["e-acme"])
    assert parts == [Hop("e-acme", "workshop", "e-ws", "")]  # a part with no content word is no hop
    edges = [("lena", "works_at", "e-acme", "f-work"), ("e-ws", "located_in_town", "oslo", "f-ws")]

    def fetch(nodes: list[str]) -> list[Hop]:
        return [Hop(*e) for e in edges if e[0] in nodes] + [p for p in parts if p.source in nodes]
    paths = graph.walk(["lena"], graph.query_words("Where is the workshop of Lena's employer located?"), fetch)
    assert graph.ranked_facts(paths)[:2] == ["f-ws", "f-work"]  # the name hop answers nothing itself
    assert all(p.hops[-1].fact_id for p in paths)  # and ends no path


def test_a_stand_in_answers_what_no_word_explains_and_is_a_bridge_inside_a_path() -> None:
    # Where does the maintainer of Quillby live? Every word is matched on the maintainer's own home:
    # the mentor fact, nearest among the maintainer's unmatched facts, must not lead to a better score
    edges = [Hop("quillby", "maintainer", "tavi", "f-maintainer", 0.5), Hop("tavi", "mentor", "odo", "f-mentor", 0.6),
             Hop("tavi", "lives_in", "harrow", "f-home", 0.4), Hop("odo", "lives_in", "salt", "f-odo-home", 0.4)]

    def fetch(nodes: list[str]) -> list[Hop]:
        return [h for h in edges if h.source in nodes]
    paths = graph.walk(["quillby"], ["maintainer", "live"], fetch)
    assert graph.ranked_facts(paths)[:2] == ["f-home", "f-maintainer"]
    through = next(p for p in paths if [h.fact_id for h in p.hops] == ["f-maintainer", "f-mentor", "f-odo-home"])
    assert through.stood_in[1] and through.unmatched == 1  # gone on from: it costs as a bridge
    # "Who maintains Quillby?": every word is explained, nothing is left for a stand-in to answer
    assert graph.ranked_facts(graph.walk(["quillby"], ["maintainer"], fetch)) == ["f-maintainer"]
    # a path of stand-ins alone answers nothing the question said
    assert graph.walk(["tavi"], ["weather"], fetch) == []


def test_names_written_as_names_come_first_and_common_nouns_step_aside() -> None:
    query = "Which roast of coffee does Ann Lee order at Blue Door?"
    coffee, ann, door = Mention("e-coffee", "Coffee", (3, 4)), Mention("e-ann", "Ann Lee", (5, 7)), \
        Mention("e-door", "Blue Door", (9, 11))
    assert graph.names_first(query, [coffee, ann, door]) == [ann, door]
    assert graph.words_outside(query, [m.span for m in graph.names_first(query, [coffee, ann])]) == [
        "roast", "coffee", "order", "blue", "door"]  # "coffee" stays a word of the question
    # typed in lower case: no mention is written as a name, so all are kept
    assert graph.names_first("which roast of coffee does ann lee order", [coffee, ann]) == [coffee, ann]
