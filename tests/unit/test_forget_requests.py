"""Recognising a forget request by its structure (issue 31, point 5).

Why: "please forget my social security number" must withhold the number at once, but a sentence that
only mentions forgetting ("I always forget my keys", "don't forget the milk", "forget it, let's go")
must withhold nothing. Whose data a request is about decides whether it withholds (the speaker's own)
or only files an erasure request (someone else's). Every sentence here is invented for this test.
"""

from __future__ import annotations

import pytest

from medallion.silver.forget_requests import detect, instructs, kept

# (sentence, mode, target, own, about_whom)
REQUESTS = [
    ("Please forget my social security number.", "phrase", "social security number", True, None),
    ("on second thought don't keep my address, please forget it", "phrase", "address", True, None),
    ("wait, delete my locker code", "phrase", "locker code", True, None),
    # a lead of contrast, and where to remove it from named as the record it is in
    ("but scrap the info about my allergy, not comfortable with it", "about", "allergy", True, None),
    ("Please remove my mobile number from this ticket, email only.", "phrase", "mobile number", True, None),
    # the object ends where a second verb starts
    ("Forget my mobile number and reach me by email instead.", "phrase", "mobile number", True, None),
    ("Could you please erase my home address from your memory?", "phrase", "home address", True, None),
    ("Delete my phone number please.", "phrase", "phone number", True, None),
    ("Hey, scratch my bank details from your notes.", "phrase", "bank details", True, None),
    ("Stop remembering my birthday.", "phrase", "birthday", True, None),
    ("I'd like you to forget my allergy, thanks.", "phrase", "allergy", True, None),
    ("Please wipe my passport number.", "phrase", "passport number", True, None),
    ("Forget about my old job at Lumen Health, please.", "phrase", "old job at Lumen Health", True, None),
    ("Forget the address I gave you.", "phrase", "address I gave you", True, None),
    ("Don't remember my salary.", "phrase", "salary", True, None),
    ("Can you delete what I said about my salary?", "about", "salary", True, None),
    ("Forget what I told you about the diagnosis.", "about", "diagnosis", True, None),
    ("Please forget that.", "previous", None, True, None),
    ("Forget what I just said.", "previous", None, True, None),
    ("I want you to forget everything about me.", "everything", None, True, None),
    ("Forget everything about my ex, Jorik.", "everything", "ex, Jorik", True, None),
    ("Forget Tom's address.", "phrase", "address", False, "Tom"),
    ("Please forget Marta Quell's new number.", "phrase", "new number", False, "Marta Quell"),
    ("Forget everything you know about Priya.", "everything", "Priya", False, "Priya"),
    ("Forget her phone number.", "phrase", "phone number", False, None),
    # a lead-in clause, a generic noun, a negated keeping verb, "I'd rather you didn't"
    ("ugh, scrap that info about my ex, I'd rather not have it around.", "about", "ex", True, None),
    ("I'd rather you didn't remember my bank details.", "phrase", "bank details", True, None),
    ("don't keep my salary on file, please.", "phrase", "salary", True, None),
    ("Please don't store that health thing I mentioned earlier.", "phrase", "health thing I mentioned earlier",
     True, None),
    ("Per the team lead, remove the old note on Bruno's review from memory.", "phrase", "old note on Bruno's review",
     False, "Bruno"),
    ("Delete what I told you about Philippa's job, she's a private person.", "about", "job", False, "Philippa"),
    # chat spellings, and an object that ends at "please", an emoji or a new clause
    ("can u not remember my blood type pls 😬 no idea why i shared it", "phrase", "blood type", True, None),
    ("plz wipe the bit about my landlord, dont want it stored", "about", "landlord", True, None),
    ("please forget the divorce stuff, the job stuff can stay", "phrase", "divorce", True, None),
    # an interjection first, a wh-clause as the object, a remark after it
    ("hmm ok pls forget where i work, shouldn't have said it", "phrase", "where i work", True, None),
    # a topic in lower case is the speaker's own, not a person's name
    ("i'd rather you not keep anything about the fertility stuff", "about", "fertility", True, None),
    # "take … out of my notes / off my file"
    ("Take my insurance details out of my notes, please.", "phrase", "insurance details", True, None),
    ("take my old address off the file", "phrase", "old address", True, None),
    ("forget my home number but keep the work one", "phrase", "home number", True, None),
    # an interjection before the request; "(that) I told you my X": what the speaker said about X
    ("ugh forget i told you my weight", "about", "weight", True, None),
    ("oops, please forget that I told you my pin", "about", "pin", True, None),
    # an exclamation or "on reflection" before it; the object ends at a comma that goes on with a new clause
    # or says what is kept; "don't keep that code": the thing just given
    ("oh god don't keep that code, facilities would hate it", "phrase", "code", True, None),
    ("on reflection please don't keep my kid's school, privacy thing", "phrase", "kid's school", True, None),
    ("Actually please delete the mobile, email only.", "phrase", "mobile", True, None),
    ("please forget my phone, my address and my email", "phrase", "phone, my address and my email", True, None),
]
# Told on the data subject's behalf (a note or a ticket): the asker's own data.
RELAYED = [
    ("Oskar asked us to delete his home phone from our records.", "home phone", "Oskar"),
    ("4410: verified, the customer asked us to purge the birth date; forget it.", "birth date", None),
    ("Lidia requested that her emergency contact details be erased.", "emergency contact details", "Lidia"),
    ("2901: Benedek asked that we not store his personal mobile; scrap it.", "personal mobile", "Benedek"),
    ("Ticket 7702: Ilse requested we purge her IBAN from the ticket.", "IBAN", "Ilse"),
    ("Ticket 3318: customer asks us to delete her loyalty number from the record.", "loyalty number", None),
    # a ticket's reporter or requester asking, in the ticket's own words
    ("HD-77: reporter requests you stop keeping his home phone on file.", "home phone", None),
    ("requester asked us to remove her badge photo", "badge photo", None),
    ("Per Wilhelmina's request, delete her visa number from our notes.", "visa number", "Wilhelmina"),
    ("On behalf of Teodor Marsh, forget his old address.", "old address", "Teodor Marsh"),
    ("As Priya asked, please erase her bank details.", "bank details", "Priya"),
    # the request as a noun, and a withdrawal of consent the sentence then acts on
    ("Hollis Brandt requested erasure of her passport scan from our records.", "passport scan", "Hollis Brandt"),
    ("Caller Ivo Renner invoked erasure for his IBAN.", "IBAN", "Ivo Renner"),
    ("Marit Sole has withdrawn consent; remove the note about her allergy.", "allergy", "Marit Sole"),
    ("Guest Oren Tal asks us to keep no record of his room preferences.", "room preferences", "Oren Tal"),
    ("Pt Elske Brandvold withdrew consent for us to hold her fertility records.", "fertility records",
     "Elske Brandvold"),
    # told of the records, a plain "remove his …" asks them; "asked us not to keep …"
    ("Haldane asked us to remove his insurance number.", "insurance number", "Haldane"),
    ("7702: caller asked us not to keep her maiden name on file.", "maiden name", None),
]

NOT_REQUESTS = [
    "but remove the lid before you microwave it",
    "I always forget my keys.",
    "Per the manual, remove the cover before cleaning.",
    "Don't forget the milk.",
    "Do not forget to call Omar tomorrow.",
    "Never forget where you came from.",
    "Forget it, let's go to Lisbon instead.",
    "Did you forget my birthday?",
    "She told me to forget him.",
    "Remove the tomatoes from the salad.",
    "Clear the table before dinner.",
    "Drop the kids at school at eight.",
    "I forgot my umbrella at the office.",
    "We should delete the old branch.",
    "Forget about it.",
    "Don't keep the door open.",
    "I'd rather you didn't call after nine.",
    "She asked me to keep the receipts.",
    "He told me to forget him.",
    "She requested we move the meeting to Friday.",
    "can u remember to water the plants pls",
    "I keep no record of receipts.",
    "Mr Oduya has withdrawn consent for the photo release.",
    "The auditor requested removal of the old signage.",
    "Take the bins out of the garage.",
    "She asked me to remove the tomatoes.",
    "He asked us not to call after nine.",
    "take my laptop off the charger",
    "Hmm, I forget where I parked.",
    "Don't keep that window open.",
    "oh god, don't keep the dog waiting",
]


@pytest.mark.parametrize(("sentence", "mode", "target", "own", "whom"), REQUESTS, ids=[r[0] for r in REQUESTS])
def test_a_request_is_recognised_with_its_target_and_owner(sentence: str, mode: str, target: str | None, own: bool,
                                                           whom: str | None) -> None:
    found = detect(sentence)
    assert found is not None, sentence
    assert (found.mode, found.target, found.own, found.about_whom) == (mode, target, own, whom)


@pytest.mark.parametrize(("sentence", "target", "whom"), RELAYED, ids=[r[0] for r in RELAYED])
def test_a_request_told_on_someones_behalf_is_theirs(sentence: str, target: str, whom: str | None) -> None:
    found = detect(sentence)
    assert found is not None, sentence
    assert (found.target, found.own, found.about_whom, found.relayed) == (target, True, whom, True)


@pytest.mark.parametrize("sentence", NOT_REQUESTS)
def test_a_sentence_that_mentions_forgetting_is_not_a_request(sentence: str) -> None:
    assert detect(sentence) is None


def test_the_request_may_be_any_sentence_of_a_turn() -> None:
    found = detect("Thanks for the help today. Oh, and please forget my locker code.")
    assert found is not None and found.target == "locker code" and found.own


def test_a_long_sentence_is_not_read_as_a_request() -> None:
    assert detect("Please forget my " + "very " * 100 + "long list.") is None


@pytest.mark.parametrize(("text", "instruction"), [
    ("keep the dentist info tho", True),
    ("the job stuff is fine to keep", True),
    ("but keep the running stuff", True),
    ("delete what I said about my landlord", True),
    ("Keep the receipts in the blue folder", False),  # where things are kept is a fact
    ("keep the change", False),
    ("I keep my bike in the shed", False),
])
def test_a_text_that_only_tells_the_memory_what_to_forget_or_keep(text: str, instruction: bool) -> None:
    """Such a text states nothing to remember, so search puts it after the texts that do."""
    assert instructs(text) is instruction


@pytest.mark.parametrize(("text", "keeps"), [
    ("don't keep where i work pls, NDA stuff. where i live is fine", ["where i live"]),
    ("Actually please delete the mobile, email only.", ["email"]),
    ("forget my plate number. the car info can stay", ["car"]),
    ("keep the dentist info tho, but forget the therapist stuff", ["dentist"]),
    ("on second thought forget my home address. the email is fine to keep", ["email"]),
    ("oh god don't keep that code, my boss would hate it", []),
    ("forget my salary, that's fine", []),
    ("keep no record of my home address", []),  # a request, not something kept
])
def test_what_a_turn_asks_to_keep_beside_a_request(text: str, keeps: list[str]) -> None:
    """The phrases withholding leaves alone when they are nearer an item than what is forgotten."""
    assert kept(text) == keeps
