"""Forget on request (issue 31, point 5), through the tools, the wiki and the erasure list.

Why: a person who tells the memory "please forget my social security number" must not find the
number again, at once, wherever the memory answers (search, recall, list, the wiki), while an erasure
of what they said waits for the two-person approval. What else they said stays. ``read`` of a
withheld fact says that it is withheld and at whose request. A request about someone else's data
only files the erasure request. The withholding is derived from Bronze, so a full rebuild gives the
same withheld set and files nothing twice.

Every case here is invented for this test (people, places, numbers).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from medallion.bronze import erasure
from medallion.db.connection import connect
from medallion.publish.dbt_runner import DBT_PROJECT_DIR, dbt_env, dbt_executable
from medallion.publish.forget import approve_and_forget
from medallion.publish.wiki import compile_wiki
from medallion.serve.tools import Tools, open_tools
from medallion.settings import Settings
from medallion.silver.derive import derive, ledger_hash
from tests.conftest import fresh_database

NS = "forget-dana"
SSN = "078-05-1120"
TURNS = (
    ("user:dana", "My social security number is 078-05-1120."),
    ("assistant:memo", "Noted: your social security number 078-05-1120 is saved."),
    ("user:dana", "I live at 14 Larkspur Lane in Hollowmere."),
    ("user:dana", "I play the cello in a community orchestra."),
    ("user:tomas", "My phone number is 555-0147."),
    ("user:dana", "My salary is 92,000 a year."),
    ("user:dana", "Please forget my social security number."),
    ("user:dana", "Forget Tomas's phone number."),
    ("user:dana", "Can you delete what I said about my salary?"),
    ("user:dana", "I always forget my keys."),
    ("user:dana", "Don't forget the milk tomorrow."),
)
# Two more speakers: "forget that" (the speaker's previous turn) and "forget everything about me".
OTHERS = {
    "forget-lena": (("user:lena", "I drive a green Volvo."), ("user:lena", "My locker code is 4417."),
                    ("user:lena", "Please forget that.")),
    "forget-ravi": (("user:ravi", "I work at Ostara Bank."), ("user:kim", "I work at Lumen Health."),
                    ("user:ravi", "I want you to forget everything about me.")),
    # a short target far from every sentence in absolute terms, yet clearly nearest one turn
    "forget-oren": (("user:oren", "I was diagnosed with asthma as a kid, still carry an inhaler."),
                    ("user:oren", "The bus to Hartwell leaves at seven."),
                    ("user:oren", "ugh, scrap what I told you about my diagnosis, ok?")),
    # a desk note relays the data subject's own request
    "forget-desk": (("agent:desk", "Client Mireille Fonteyn's home phone is 0491 220 817."),
                    ("agent:desk", "Mireille Fonteyn prefers email for invoices."),
                    ("agent:desk", "Mireille asked us to delete her home phone from our records.")),
    # a request that also says what to keep, and a note that passes a request on by its lead
    "forget-keep": (("user:hanne", "my physio is Dr. Ilves, I go every tuesday for my knee"),
                    ("user:hanne", "the dentist is Dr. Okoro at Brightwell Dental, next checkup in june"),
                    ("user:hanne", "delete what I told you about my physio pls. keep the dentist info tho"),
                    ("agent:hr", "Employee Joost Varga's passport number is P4402917, for the travel booking."),
                    ("agent:hr", "Per Joost's request, delete his passport number from our notes.")),
    # a request told as a noun, naming the data by its abbreviation, of a note that gives the name possessive
    "forget-noun": (("agent:records", "Patient Anneke Vos's date of birth: 12 March 1981."),
                    ("agent:records", "Anneke Vos prefers morning appointments."),
                    ("agent:records", "Anneke Vos requested erasure of her DOB from our records.")),
    # a request whose verb is "take … out of my notes", and a withdrawal of consent that names what it covers
    "forget-take": (("user:ysolde", "Note to self: insurance policy no. QV-558201, renews in May."),
                    ("user:ysolde", "Note to self: the ferry to Brannock leaves at nine."),
                    ("user:ysolde", "Take my insurance details out of my notes, please."),
                    ("agent:clinic", "Pt Oswin Tarrant attends a sleep clinic at Corley House on Fridays."),
                    ("agent:clinic", "Oswin Tarrant withdrew consent for us to hold his sleep clinic records.")),
    # a target named in full withholds what holds every word of it, not a near one; a relayed plain "remove"
    "forget-exact": (("user:wilma", "my home address is 3 Sorrel Yard, Alnwick"),
                     ("user:wilma", "my work address is 40 Bondgate, Alnwick"),
                     ("user:wilma", "forget my home address but keep the work one"),
                     ("agent:desk", "Client Ivo Haldane's insurance number is QX-88120."),
                     ("agent:desk", "Haldane asked us to remove his insurance number.")),
    # requests that name a kind of datum the turns give by its shape only, after a lead ("but") or with a
    # place to remove it from ("from this ticket")
    "forget-shape": (("user:corin", "email is corin.vale@larchmail.net fyi"),
                     ("user:corin", "and i'm at 17 Wrenfield Row, top floor, the bell doesn't work"),
                     ("user:corin", "ok but forget my home address. the email can stay"),
                     ("reporter:ines", "Sync fails on every launch. Best to reach me at ines.rahm@quolbox.org."),
                     ("reporter:ines", "Or my direct line, 0161 496 0732, if that is quicker."),
                     ("reporter:ines", "Please remove my phone number from this ticket, email only.")),
    # a request whose turn says what to keep, in words as near it as what it forgets; "don't keep that code"
    "forget-kept": (("user:sunniva", "i live in Harwick, near the old mill"),
                    ("assistant:memo", "Lovely area."),
                    ("user:sunniva", "and i work at Brume Pharma in the lab"),
                    ("assistant:memo", "Interesting!"),
                    ("user:sunniva", "don't keep where i work pls, contract stuff. where i live is fine"),
                    ("user:pell", "my door code at the studio is 8830, for the cleaner"),
                    ("user:pell", "oh god don't keep that code, my landlord would be livid")),
}
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass
class World:
    settings: Settings
    tools: Tools
    engine: psycopg.Connection


def _text(hit: dict[str, Any]) -> str:
    """Everything a reader sees of one result: statement, value, and its event's other hits."""
    parts = [str(hit.get("statement") or ""), str(hit.get("value") or "")]
    parts += [str(s.get("statement") or "") for s in hit.get("same_event") or []]
    return " ".join(parts)


@pytest.fixture(scope="module")
def world(pg_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp: Path = tmp_path_factory.mktemp("forget")
    with fresh_database(pg_server) as url:
        settings = Settings(home=tmp / "home", database_url=url, inbox=tmp / "inbox")
        with open_tools(None, settings) as opened:
            for namespace, turns in ((NS, TURNS), *OTHERS.items()):
                for i, (actor, text) in enumerate(turns):
                    outcome = opened.remember(namespace=namespace, content=text, kind="transcript", actor=actor,
                                              occurred_at=f"2026-02-{i + 1:02d}T10:00:00+00:00", source="chat",
                                              source_event_id=f"t{i}", derive_now=False)
                    assert outcome["status"] == "inserted", outcome
        engine = connect(settings, "engine", autocommit=True)
        try:
            derive(engine, settings, namespaces=[NS, *OTHERS])
            with open_tools(None, settings) as tools:
                yield World(settings, tools, engine)
        finally:
            engine.close()


def _withheld(conn: psycopg.Connection) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT item_id, item_kind, bronze_event_id, requested_by FROM silver.withheld "
                        "WHERE namespace = %s ORDER BY 1, 3", (NS,)).fetchall()


def _forget_requests(conn: psycopg.Connection) -> list[dict[str, Any]]:
    return [r for r in erasure.list_requests(conn, namespaces=[NS]) if r["requested_by"].split(":")[0]
            in ("subject", "speaker")]


def _event(conn: psycopg.Connection, index: int) -> int:
    row = conn.execute("SELECT event_id FROM bronze.events WHERE namespace = %s AND source_event_id = %s",
                       (NS, f"t{index}")).fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize("question", ["What is my social security number?", "Dana's social security number",
                                      SSN, "What did the assistant save for Dana?"])
def test_a_forgotten_value_is_in_no_search_hit(world: World, question: str) -> None:
    hits = world.tools.search(question, namespace=NS, k=5)
    assert not any(SSN in _text(h) for h in hits), [_text(h) for h in hits]
    every = world.tools.search(question, namespace=NS, k=20, per_event=False, include_superseded=True)
    assert not any(SSN in _text(h) for h in every)


def test_recall_list_history_and_the_wiki_never_return_it(world: World) -> None:
    for stakes in ("low", "high"):
        answer = world.tools.recall("What is Dana's social security number?", namespace=NS, stakes=stakes)
        assert not any(SSN in _text(a) for a in answer["answers"])
    listed = world.tools.list(namespace=NS, include_superseded=True, limit=500)
    assert listed and not any(SSN in _text(f) for f in listed)
    for fact in listed:
        for version in world.tools.history(fact["subject"], fact["predicate"], namespace=NS):
            assert SSN not in _text(version)
    result = compile_wiki(world.settings, world.engine, world.tools, [NS])
    assert result.pages and not any(SSN in page.content for page in result.pages)


def test_a_short_target_withholds_the_clearly_nearest_turn_only(world: World) -> None:
    """ "my diagnosis" names no word of "diagnosed with asthma" and is far from it by cosine, yet it is the
    turn the request is about; the bus turn stays served."""
    hits = world.tools.search("What was Oren diagnosed with?", namespace="forget-oren", k=5)
    assert all("asthma" not in _text(h).casefold() for h in hits), hits
    bus = world.tools.search("When does the bus to Hartwell leave?", namespace="forget-oren", k=5)
    assert any("seven" in _text(h).casefold() for h in bus), bus


def test_a_request_relayed_for_the_data_subject_withholds_their_data(world: World) -> None:
    """A note that the client asked to delete her home phone withholds the number at once; her other
    facts stay."""
    hits = world.tools.search("What is Mireille's home phone?", namespace="forget-desk", k=5)
    assert all("220" not in _text(h) for h in hits), hits
    other = world.tools.search("How does Mireille want invoices?", namespace="forget-desk", k=5)
    assert any("email" in _text(h).casefold() for h in other), other


def test_an_erasure_requested_as_a_noun_withholds_the_data_its_abbreviation_names(world: World) -> None:
    """"requested erasure of her DOB" withholds the note that gave her date of birth; her other note stays."""
    hits = world.tools.search("What is Anneke Vos's date of birth?", namespace="forget-noun", k=5)
    assert all("1981" not in _text(h) for h in hits), hits
    other = world.tools.search("When does Anneke Vos like appointments?", namespace="forget-noun", k=5)
    assert any("morning" in _text(h).casefold() for h in other), other


def test_take_out_of_my_notes_and_a_withdrawn_consent_withhold_what_they_name(world: World) -> None:
    insurance = world.tools.search("What is Ysolde's insurance policy number?", namespace="forget-take", k=5)
    assert not any("558201" in _text(h) for h in insurance), [_text(h) for h in insurance]
    ferry = world.tools.search("When does the ferry to Brannock leave?", namespace="forget-take", k=5)
    assert any("nine" in _text(h).casefold() for h in ferry), ferry
    clinic = world.tools.search("Where does Oswin Tarrant go on Fridays?", namespace="forget-take", k=5)
    assert not any("corley" in _text(h).casefold() for h in clinic), [_text(h) for h in clinic]


def test_a_datum_given_by_its_shape_is_withheld_and_the_other_kind_stays(world: World) -> None:
    """"forget my home address" withholds the turn that gave a street without the word "address", and not
    the email address; "remove my phone number from this ticket" withholds the direct line, not the email."""
    address = world.tools.search("What is Corin's address?", namespace="forget-shape", k=5)
    assert not any("wrenfield" in _text(h).casefold() for h in address), [_text(h) for h in address]
    email = world.tools.search("What is Corin's email?", namespace="forget-shape", k=5)
    assert email and "larchmail" in _text(email[0]).casefold(), [_text(h) for h in email]
    phone = world.tools.search("How can we reach Ines?", namespace="forget-shape", k=5)
    assert not any("0732" in _text(h) for h in phone), [_text(h) for h in phone]
    assert any("quolbox" in _text(h).casefold() for h in phone), [_text(h) for h in phone]


def test_what_a_request_says_to_keep_stays_and_that_code_is_the_one_just_given(world: World) -> None:
    """"don't keep where i work … where i live is fine": by meaning, "where i work" is as near the turn
    that says where she lives as the one that says where she works; the kept phrase is nearer the first,
    so it stays. "don't keep that code" names the code just given."""
    home = world.tools.search("Where does Sunniva live?", namespace="forget-kept", k=5)
    assert home and "harwick" in _text(home[0]).casefold(), [_text(h) for h in home]
    work = world.tools.search("Where does Sunniva work?", namespace="forget-kept", k=5)
    assert not any("brume" in _text(h).casefold() for h in work), [_text(h) for h in work]
    code = world.tools.search("What is Pell's studio door code?", namespace="forget-kept", k=5)
    assert not any("8830" in _text(h) for h in code), [_text(h) for h in code]


def test_a_target_named_in_full_leaves_a_near_one_and_a_relayed_remove_is_a_request(world: World) -> None:
    home = world.tools.search("What is Wilma's home address?", namespace="forget-exact", k=5)
    assert not any("sorrel" in _text(h).casefold() for h in home), [_text(h) for h in home]
    work = world.tools.search("What is Wilma's work address?", namespace="forget-exact", k=5)
    assert "bondgate" in _text(work[0]).casefold(), [_text(h) for h in work]
    insurance = world.tools.search("What is Ivo Haldane's insurance number?", namespace="forget-exact", k=5)
    assert not any("88120" in _text(h) for h in insurance), [_text(h) for h in insurance]


def test_a_turn_that_says_what_to_keep_is_no_answer_and_a_note_may_pass_a_request_on(world: World) -> None:
    """ "keep the dentist info tho" shares the question's words better than the belief that answers
    "Who is Hanne's dentist?", but tells nothing: the belief comes first. "Per Joost's request, delete
    his passport number" is Joost's own request, relayed: the number is withheld at once."""
    dentist = world.tools.search("Who is Hanne's dentist?", namespace="forget-keep", k=5)
    assert "okoro" in _text(dentist[0]).casefold(), [_text(h) for h in dentist]
    assert not any("ilves" in _text(h).casefold() for h in dentist)
    passport = world.tools.search("What is Joost's passport number?", namespace="forget-keep", k=5)
    assert not any("P4402917" in _text(h) for h in passport), [_text(h) for h in passport]


def test_forget_that_withholds_the_speakers_previous_turn(world: World) -> None:
    hits = world.tools.search("What is Lena's locker code?", namespace="forget-lena", k=5)
    assert not any("4417" in _text(h) for h in hits), [_text(h) for h in hits]
    car = world.tools.search("What car does Lena drive?", namespace="forget-lena", k=5)
    assert any("Volvo" in _text(h) for h in car)


def test_forget_everything_about_me_withholds_the_speaker_alone(world: World) -> None:
    hits = world.tools.search("Where does Ravi work?", namespace="forget-ravi", k=5)
    assert not any("Ostara" in _text(h) for h in hits), [_text(h) for h in hits]
    kim = world.tools.search("Where does Kim work?", namespace="forget-ravi", k=5)
    assert any("Lumen" in _text(h) for h in kim)


def test_the_speakers_other_facts_stay(world: World) -> None:
    home = world.tools.search("Where does Dana live?", namespace=NS, k=5)
    assert any("Larkspur" in _text(h) for h in home)
    music = world.tools.search("What instrument does Dana play?", namespace=NS, k=5)
    assert any("cello" in _text(h) for h in music)


def test_what_i_said_about_a_topic_is_withheld_too(world: World) -> None:
    hits = world.tools.search("What is Dana's salary?", namespace=NS, k=5)
    assert not any("92,000" in _text(h) or "92" in _TOKEN.findall(_text(h)) for h in hits)


def test_read_of_a_withheld_fact_says_so_and_at_whose_request(world: World) -> None:
    forget = _event(world.engine, 6)
    fact_id = world.engine.execute(
        "SELECT w.item_id FROM silver.withheld w JOIN silver.facts f ON f.fact_id = w.item_id "
        "WHERE w.bronze_event_id = %s AND f.bronze_event_id = %s", (forget, _event(world.engine, 0))).fetchone()[0]
    for given in (fact_id, fact_id[:8]):
        [answer] = world.tools.read(given)
        assert answer["withheld"] is True and answer["requested_by"] == "user:dana"
        assert answer["forget_event_id"] == forget
        assert "withheld" in answer["statement"] and "user:dana" in answer["statement"]
        assert SSN not in str(answer)


def test_an_erasure_request_is_pending_for_the_data_subject(world: World) -> None:
    forget = _event(world.engine, 6)
    own = [r for r in _forget_requests(world.engine) if r["requested_by"] == "subject:user:dana"
           and f"event {forget}" in r["reason"]]
    events = {r["event_id"] for r in own}
    assert _event(world.engine, 0) in events  # the turn that said it
    assert _event(world.engine, 1) in events  # the assistant's echo of the value
    assert _event(world.engine, 2) not in events and _event(world.engine, 3) not in events
    assert all(r["status"] == "pending" for r in own)


def test_a_request_about_someone_elses_data_only_files_the_request(world: World) -> None:
    tomas = _event(world.engine, 4)
    filed = [r for r in _forget_requests(world.engine) if r["event_id"] == tomas]
    assert [r["requested_by"] for r in filed] == ["speaker:user:dana"]
    assert "someone else's data" in filed[0]["reason"]
    withheld_events = {r[0] for r in world.engine.execute(
        "SELECT f.bronze_event_id FROM silver.withheld w JOIN silver.facts f ON f.fact_id = w.item_id").fetchall()}
    assert tomas not in withheld_events
    hits = world.tools.search("What is Tomas's phone number?", namespace=NS, k=5)
    assert any("555-0147" in _text(h) for h in hits)


def test_the_review_queue_shows_the_request(world: World, tmp_path: Path) -> None:
    """dbt builds the review queue: each request a forget request filed is one item, naming who asked
    and the forget event, quoting nothing of what it erases."""
    command = [dbt_executable(), "build", "--select", "+review_queue", "--indirect-selection", "cautious", "--quiet",
               "--project-dir", str(DBT_PROJECT_DIR), "--profiles-dir", str(DBT_PROJECT_DIR),
               "--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs")]
    result = subprocess.run(command, capture_output=True, text=True, check=False, cwd=DBT_PROJECT_DIR,  # noqa: S603
                            env={**os.environ, **dbt_env(world.settings)}, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = world.engine.execute(
        "SELECT item_id, severity, subject, summary, action FROM gold_marts.review_queue "
        "WHERE item_kind = 'erasure_request' AND namespace = %s ORDER BY item_id", (NS,)).fetchall()
    filed = _forget_requests(world.engine)
    assert {r[0] for r in rows} == {f"erasure:{r['request_id']}" for r in filed}
    forget = _event(world.engine, 6)
    mine = [r for r in rows if r[2] == "subject:user:dana" and f"event {forget}" in r[3]]
    assert mine and all(r[1] == "high" and "approve" in r[4] for r in mine)
    assert not any(SSN in " ".join(r) for r in rows)


def test_sentences_that_only_mention_forgetting_withhold_nothing(world: World) -> None:
    requests = {r[0] for r in world.engine.execute(
        "SELECT DISTINCT bronze_event_id FROM silver.withheld WHERE namespace = %s", (NS,)).fetchall()}
    assert requests == {_event(world.engine, 6), _event(world.engine, 8)}
    # the forget requests themselves state no fact
    assert world.engine.execute("SELECT count(*) FROM silver.facts WHERE bronze_event_id = ANY(%s)",
                                ([_event(world.engine, i) for i in (6, 7, 8)],)).fetchone()[0] == 0


def test_a_full_rebuild_gives_the_same_withheld_set_and_files_nothing_twice(world: World) -> None:
    before, requests, ledger = _withheld(world.engine), _forget_requests(world.engine), ledger_hash(world.engine, NS)
    derive(world.engine, world.settings, full_rebuild=True)
    assert _withheld(world.engine) == before
    assert _forget_requests(world.engine) == requests
    assert ledger_hash(world.engine, NS) == ledger


def test_an_approved_request_erases_the_turn(pg_server: str, tmp_path: Path) -> None:
    """The filed request goes through the existing two-person approval: an admin who is not the data
    subject approves it, the turn is erased, and nothing is left to withhold: the request does not
    move on to the closest of what is left (another number of the same speaker)."""
    with fresh_database(pg_server) as url:
        settings = Settings(home=tmp_path / "home", database_url=url, inbox=tmp_path / "inbox")
        with open_tools(None, settings) as tools:
            for i, text in enumerate(("My visa number is V-5512.", "My passport number is X7741902.",
                                      "Please forget my passport number.")):
                tools.remember(namespace="forget-ivo", content=text, kind="transcript", actor="user:ivo",
                               occurred_at=f"2026-03-0{i + 1}T09:00:00+00:00", source="chat",
                               source_event_id=f"p{i}", derive_now=False)
        engine = connect(settings, "engine", autocommit=True)
        admin = psycopg.connect(url, autocommit=True)
        try:
            derive(engine, settings, namespaces=["forget-ivo"])
            [request] = erasure.list_requests(engine, status="pending", namespaces=["forget-ivo"])
            assert request["requested_by"] == "subject:user:ivo"
            done = approve_and_forget(admin, engine, settings, request["request_id"], token=None,
                                      local_name="local:registrar")
            assert done.approved.erased == 1
            assert engine.execute("SELECT count(*) FROM bronze.events WHERE content LIKE '%X7741902%'"
                                  ).fetchone()[0] == 0
            assert engine.execute("SELECT count(*) FROM silver.withheld").fetchone()[0] == 0
            assert erasure.list_requests(engine, status="pending", namespaces=["forget-ivo"]) == []
            with open_tools(None, settings) as tools:
                hits = tools.search("visa number", namespace="forget-ivo", k=5)
            assert any("5512" in _text(h) for h in hits)
        finally:
            engine.close()
            admin.close()



def test_withheld_at_once_when_remembered_and_the_same_after_a_rebuild(pg_server: str, tmp_path: Path) -> None:
    """A forget request remembered through the tools (derived right away) withholds before the next
    search; the incremental result equals a full rebuild's, and the rebuild files nothing twice."""
    with fresh_database(pg_server) as url:
        settings = Settings(home=tmp_path / "home", database_url=url, inbox=tmp_path / "inbox")
        with open_tools(None, settings) as tools:
            for i, text in enumerate(("My gym locker combination is 31-07-44.", "I teach chemistry at Brantwick.",
                                      "Could you forget my gym locker combination?")):
                tools.remember(namespace="forget-noor", content=text, kind="transcript", actor="user:noor",
                               occurred_at=f"2026-04-0{i + 1}T08:00:00+00:00", source="chat", source_event_id=f"n{i}")
                if i == 1:
                    hits = tools.search("Noor's locker combination", namespace="forget-noor", k=5)
                    assert any("31-07-44" in _text(h) for h in hits)
            hits = tools.search("Noor's locker combination", namespace="forget-noor", k=5)
            assert not any("31-07-44" in _text(h) for h in hits)
            assert any("chemistry" in _text(h) for h in tools.search("What does Noor teach?", namespace="forget-noor"))
        engine = connect(settings, "engine", autocommit=True)
        try:
            def state() -> tuple[Any, ...]:
                return (engine.execute("SELECT item_id, item_kind, bronze_event_id, requested_by, reason, recorded_at "
                                       "FROM silver.withheld ORDER BY 1, 3").fetchall(),
                        engine.execute("SELECT request_id, event_id, requested_by, reason, forget_event_id "
                                       "FROM bronze.erasure_requests ORDER BY 1").fetchall())
            incremental = state()
            assert incremental[0] and len(incremental[1]) == 1
            derive(engine, settings, full_rebuild=True)
            assert state() == incremental
        finally:
            engine.close()
