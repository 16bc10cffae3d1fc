"""Held-out plain-language cases, written before any rule that they measure, by a writer who had not read the
distiller. They are reported beside the development set and never tuned on: no rule may be changed because one of
these fails.

Each case is a short sequence of events (in time order, one day apart unless the text says otherwise), one
question, and what a user expects from the top answer of ``search``:

* ``expect``: words (case-insensitive, whole tokens) that must all appear in the top hit;
* ``reject``: words that must not appear in the top hit (for ``forget`` cases: in none of the top five hits).

Kinds: ``update`` (a later event changes a value), ``two_subjects`` (one event states facts about two subjects),
``forget`` (the speaker asks the memory to forget something of their own). Forms: ``chat`` (a transcript turn),
``note`` and ``ticket`` (an issue comment).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Turn:
    """One event: who wrote it and its verbatim text."""

    actor: str
    text: str


@dataclass(frozen=True)
class HeldOut:
    """One held-out case (see the module docstring)."""

    id: str
    kind: Literal["update", "two_subjects", "forget"]
    form: Literal["chat", "note", "ticket"]
    events: tuple[Turn, ...]
    question: str
    expect: tuple[str, ...]
    reject: tuple[str, ...]


CASES: list[HeldOut] = [
    # ------------------------------------------------------------------ update / chat
    HeldOut(
        id="update-job-accepted-offer",
        kind="update",
        form="chat",
        events=(
            Turn("user:marta", "ok so i work at Fernhill Logistics as a dispatcher, been there 3 yrs"),
            Turn("user:marta", "big news!! i accepted an offer from Quillmark, starting monday"),
        ),
        question="Where does Marta work now?",
        expect=("quillmark",),
        reject=("fernhill",),
    ),
    HeldOut(
        id="update-job-first-day",
        kind="update",
        form="chat",
        events=(
            Turn("user:dmitri", "im a barista at the Copper Kettle on 5th street, the early shift is brutal"),
            Turn("user:dmitri", "can you remind me to buy oat milk later"),
            Turn("user:dmitri", "first day at Halvorsen Bikes went fine, they let me true a wheel already"),
        ),
        question="Where does Dmitri work?",
        expect=("halvorsen",),
        reject=("copper", "kettle"),
    ),
    HeldOut(
        id="update-role-promotion",
        kind="update",
        form="chat",
        events=(
            Turn("user:priya", "at Lumetra i'm a junior QA tester, mostly manual regression stuff"),
            Turn("user:priya", "got promoted!!! officially test automation lead as of today"),
        ),
        question="What is Priya's role at Lumetra?",
        expect=("automation", "lead"),
        reject=("junior", "manual"),
    ),
    HeldOut(
        id="update-left-job-officially-started",
        kind="update",
        form="chat",
        events=(
            Turn("user:oskar", "i do night shifts as a security guard at the Brennan mall"),
            Turn("user:oskar", "handed in my notice. tonight is the last one, cant wait"),
            Turn("user:oskar", "officially started the nursing programme at Kellerby College this morning"),
        ),
        question="What does Oskar do now?",
        expect=("nursing",),
        reject=("guard", "brennan"),
    ),
    HeldOut(
        id="update-favourite-band-now",
        kind="update",
        form="chat",
        events=(
            Turn("user:lena", "my favourite band is The Paper Moths, seen them live four times"),
            Turn("user:lena", "honestly Velvet Arcade is now my favourite band, cant stop listening"),
        ),
        question="What is Lena's favourite band?",
        expect=("velvet", "arcade"),
        reject=("moths",),
    ),
    HeldOut(
        id="update-drink-reversed",
        kind="update",
        form="chat",
        events=(
            Turn("user:tomas", "three espressos before noon minimum, i cant function without espresso"),
            Turn("user:tomas", "gave up on that stuff completly. its all rooibos tea now, no regrets"),
        ),
        question="What does Tomas drink these days?",
        expect=("rooibos",),
        reject=("espresso", "espressos"),
    ),
    HeldOut(
        id="update-no-longer-vegan",
        kind="update",
        form="chat",
        events=(
            Turn("user:ines", "fyi i'm vegan so skip the cheese board for me at the party"),
            Turn("user:ines", "update: i'm no longer vegan, eating fish and eggs again since last month"),
        ),
        question="What does Ines eat these days?",
        expect=("fish",),
        reject=("cheese",),
    ),
    HeldOut(
        id="update-cat-gone",
        kind="update",
        form="chat",
        events=(
            Turn("user:hannah", "our cat Biscuit keeps knocking plants off the windowsill lol"),
            Turn("user:hannah", "we don't have the cat any more. she went to live with my mum in the countryside"),
        ),
        question="Where does Biscuit live now?",
        expect=("countryside",),
        reject=("windowsill", "plants"),
    ),
    HeldOut(
        id="update-reading-three-books",
        kind="update",
        form="chat",
        events=(
            Turn("user:femi", "currently reading The Salt Archive, slow start tbh"),
            Turn("user:femi", "dropped that one. now reading Nine Lanterns, way better"),
            Turn("user:femi", "finished it in two days! started Harbour of Glass tonight"),
        ),
        question="What book is Femi reading at the moment?",
        expect=("harbour", "glass"),
        reject=("salt", "lanterns"),
    ),
    HeldOut(
        id="update-training-three-races",
        kind="update",
        form="chat",
        events=(
            Turn("user:jonas", "training for the Riverbend 10k in april"),
            Turn("user:jonas", "signed up for a half marathon in Oldport instead, the 10k felt too easy"),
            Turn("user:jonas", "ok going all in: the Kestrel Ridge ultra in september. 50 km of trail"),
        ),
        question="What race is Jonas training for?",
        expect=("kestrel",),
        reject=("riverbend", "oldport"),
    ),
    HeldOut(
        id="update-watching-three-shows",
        kind="update",
        form="chat",
        events=(
            Turn("user:aiko", "watching Dust Protocol on weekends, on season 2 rn"),
            Turn("user:aiko", "gave up on it tbh. switched to Marrowby, that baking competition show"),
            Turn("user:aiko", "now im hooked on Cold Orbit, binged 6 episodes last night"),
        ),
        question="Which show is Aiko watching now?",
        expect=("orbit",),
        reject=("dust", "marrowby"),
    ),
    HeldOut(
        id="update-phone-pronoun",
        kind="update",
        form="chat",
        events=(
            Turn("user:rafael", "my number is 0742 881 390 if the courier needs it"),
            Turn("user:rafael", "I got a new number. It's 0798 215 664 now."),
        ),
        question="What is Rafael's phone number?",
        expect=("215", "664"),
        reject=("881", "390"),
    ),
    HeldOut(
        id="update-home-new-place",
        kind="update",
        form="chat",
        events=(
            Turn("user:sofia", "we rent a flat in Dunmore, tiny but close to the river"),
            Turn("user:sofia", "we found a new place!! it's in Ashgrove, moving in on the 12th"),
        ),
        question="Where does Sofia live?",
        expect=("ashgrove",),
        reject=("dunmore",),
    ),
    HeldOut(
        id="update-pet-replaced",
        kind="update",
        form="chat",
        events=(
            Turn("user:gus", "took Bramble out for an hour, he's getting slow in his old age"),
            Turn("user:gus", "sad news, the old boy passed away in march. house feels empty"),
            Turn("user:gus", "we adopted a kitten called Tofu last weekend, she's already a menace"),
        ),
        question="What pet does Gus have now?",
        expect=("tofu",),
        reject=("bramble",),
    ),
    HeldOut(
        id="update-car-sold",
        kind="update",
        form="chat",
        events=(
            Turn("user:nadia", "my car is an old silver Corolla, 230k km on it and still going"),
            Turn("user:nadia", "sold the old thing. picked up a used Skoda Octavia estate on saturday"),
        ),
        question="What car does Nadia drive?",
        expect=("octavia",),
        reject=("corolla",),
    ),
    # ------------------------------------------------------------------ update / note
    HeldOut(
        id="update-note-hr-manager",
        kind="update",
        form="note",
        events=(
            Turn("user:hr", "Kwame Asante reports to Delia Frost in Finance Operations."),
            Turn("user:hr", "Effective 1 March, Kwame Asante's line manager is Robert Ngata after the reorg."),
        ),
        question="Who is Kwame's manager?",
        expect=("ngata",),
        reject=("frost",),
    ),
    HeldOut(
        id="update-note-ops-desk-move",
        kind="update",
        form="note",
        events=(
            Turn("user:ops", "Seating: Elif Demir sits on floor 3 next to the print room."),
            Turn("user:ops", "Elif Demir moved to the Harbourside office this week, desk by the lifts."),
        ),
        question="Where does Elif sit?",
        expect=("harbourside",),
        reject=("print",),
    ),
    HeldOut(
        id="update-note-hr-emergency-contact",
        kind="update",
        form="note",
        events=(
            Turn("user:hr", "Emergency contact for Paulo Reis: his wife Carla, mobile 0612 447 903."),
            Turn("user:hr", "Paulo updated his emergency contact. It is now his brother Marco, 0655 120 338."),
        ),
        question="Who is Paulo's emergency contact?",
        expect=("marco",),
        reject=("carla",),
    ),
    HeldOut(
        id="update-note-ops-team",
        kind="update",
        form="note",
        events=(
            Turn("user:ops", "Yusuf Kaya joins the Platform team as on-call secondary for the payments cluster."),
            Turn("user:ops", "Yusuf has been reassigned to Data Ingestion, starting next sprint."),
        ),
        question="Which team is Yusuf on?",
        expect=("ingestion",),
        reject=("platform",),
    ),
    HeldOut(
        id="update-note-self-gym",
        kind="update",
        form="note",
        events=(
            Turn("user:clara", "gym plan: mondays and thursdays at Ironleaf, 7am sharp"),
            Turn("user:clara", "switched it up. swimming at Lakeside Leisure now, tuesdays after work"),
        ),
        question="Where does Clara work out?",
        expect=("lakeside",),
        reject=("ironleaf",),
    ),
    HeldOut(
        id="update-note-self-dentist",
        kind="update",
        form="note",
        events=(
            Turn("user:bea", "dentist: Dr. Okafor at Bright Smile on Wellgate Road"),
            Turn("user:bea", "new dentist is Dr. Lindqvist, much closer to work. next appointment 14 june"),
        ),
        question="Who is Bea's dentist?",
        expect=("lindqvist",),
        reject=("okafor",),
    ),
    HeldOut(
        id="update-note-hr-title",
        kind="update",
        form="note",
        events=(
            Turn("user:hr", "Marguerite Holm, Senior Accountant, handles payroll approvals."),
            Turn("user:hr", "Marguerite Holm's title changed to Controller after the board meeting."),
        ),
        question="What is Marguerite's job title?",
        expect=("controller",),
        reject=("accountant",),
    ),
    HeldOut(
        id="update-note-self-language",
        kind="update",
        form="note",
        events=(
            Turn("user:theo", "learning Portuguese on the app, 40 day streak"),
            Turn("user:theo", "quit the app. doing Japanese with a tutor twice a week instead"),
        ),
        question="Which language is Theo learning?",
        expect=("japanese",),
        reject=("portuguese",),
    ),
    # ------------------------------------------------------------------ update / ticket
    HeldOut(
        id="update-ticket-assignee",
        kind="update",
        form="ticket",
        events=(
            Turn("user:support", "INC-4412 opened: checkout returns 502 for EU users. Assigned to Birgit."),
            Turn("user:support", "Birgit: looking at the gateway logs now, nothing obvious yet."),
            Turn("user:support", "Reassigning INC-4412 to Haruto per on-call rotation, he knows the gateway."),
        ),
        question="Who is INC-4412 assigned to?",
        expect=("haruto",),
        reject=("birgit",),
    ),
    HeldOut(
        id="update-ticket-priority-raised",
        kind="update",
        form="ticket",
        events=(
            Turn("user:support", "PAY-118 login loop on the Android app. Priority: P3, only a few users hit."),
            Turn("user:support", "Bumped to P1, now seen on 30% of sessions after the 4.2 release."),
        ),
        question="What priority is PAY-118?",
        expect=("p1",),
        reject=("p3",),
    ),
    HeldOut(
        id="update-ticket-server-region",
        kind="update",
        form="ticket",
        events=(
            Turn("user:ops", "The reporting database for Glint is hosted on the Tern server in Frankfurt."),
            Turn("user:ops", "Migration done: Glint reporting is now served from the Osprey cluster in Dublin."),
        ),
        question="Where is Glint's reporting database hosted?",
        expect=("osprey",),
        reject=("tern", "frankfurt"),
    ),
    HeldOut(
        id="update-ticket-status-closed",
        kind="update",
        form="ticket",
        events=(
            Turn("user:qa", "BUG-771 CSV export drops the last row. Status: in progress, fix on a branch."),
            Turn("user:qa", "Verified on staging, closing BUG-771 as resolved."),
        ),
        question="What is the status of BUG-771?",
        expect=("resolved",),
        reject=("progress",),
    ),
    HeldOut(
        id="update-ticket-release-slips",
        kind="update",
        form="ticket",
        events=(
            Turn("user:pm", "Release 3.8 of Tandem is scheduled for 14 October."),
            Turn("user:pm", "Heads up: Tandem 3.8 slips to 2 November because of the SSO regression."),
        ),
        question="When does Tandem 3.8 ship?",
        expect=("november",),
        reject=("october",),
    ),
    HeldOut(
        id="update-ticket-customer-contact",
        kind="update",
        form="ticket",
        events=(
            Turn("user:support", "Customer contact for the Brightwater account is Joanna Pike (procurement)."),
            Turn("user:support", "Brightwater changed their point of contact, route everything to Samir Haddad."),
        ),
        question="Who is the contact person at Brightwater?",
        expect=("haddad",),
        reject=("pike",),
    ),
    HeldOut(
        id="update-ticket-firmware",
        kind="update",
        form="ticket",
        events=(
            Turn("user:ops", "Kiosks in store 41 run firmware Cobalt, auto-update disabled."),
            Turn("user:ops", "Rolled the store 41 kiosks forward to firmware Saffron tonight, 12/12 healthy."),
        ),
        question="Which firmware do the store 41 kiosks run?",
        expect=("saffron",),
        reject=("cobalt",),
    ),
    # ------------------------------------------------------------------ two_subjects / chat
    HeldOut(
        id="two-subjects-cars",
        kind="two_subjects",
        form="chat",
        events=(Turn("user:mirela", "i drive a Subaru and my husband Piet drives a Peugeot van for work"),),
        question="What does Mirela's husband drive?",
        expect=("peugeot",),
        reject=("subaru",),
    ),
    HeldOut(
        id="two-subjects-cat-ages",
        kind="two_subjects",
        form="chat",
        events=(Turn("user:kofi", "our two cats: Mango is six and Sprocket just turned eleven"),),
        question="How old is Sprocket?",
        expect=("eleven",),
        reject=("six",),
    ),
    HeldOut(
        id="two-subjects-while-cities",
        kind="two_subjects",
        form="chat",
        events=(Turn("user:wren", "my sister lives in Tallinn while i'm stuck in Dorset for another year"),),
        question="Where does Wren live?",
        expect=("dorset",),
        reject=("tallinn",),
    ),
    HeldOut(
        id="two-subjects-whereas-allergies",
        kind="two_subjects",
        form="chat",
        events=(Turn("user:arjun", "my son is allergic to peanuts, whereas my daughter can't have shellfish"),),
        question="What is Arjun's daughter allergic to?",
        expect=("shellfish",),
        reject=("peanuts",),
    ),
    HeldOut(
        id="two-subjects-list-schools",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:beatriz", "school run is chaos lol"),
            Turn("user:beatriz", "Tiago goes to Northgate Primary, Lucia is at Hollybrook, baby at Little Acorns"),
        ),
        question="Which school does Lucia go to?",
        expect=("hollybrook",),
        reject=("northgate", "acorns"),
    ),
    HeldOut(
        id="two-subjects-possessive-birthdays",
        kind="two_subjects",
        form="chat",
        events=(Turn("user:greta", "Jonah's birthday is 2 december and mine is 19 june, so one party in between"),),
        question="When is Greta's birthday?",
        expect=("june",),
        reject=("december",),
    ),
    HeldOut(
        id="two-subjects-coordinated-jobs",
        kind="two_subjects",
        form="chat",
        events=(Turn("user:leo", "my brother works as an electrician in Cork and my dad drives a taxi in Limerick"),),
        question="What does Leo's dad do for work?",
        expect=("taxi",),
        reject=("electrician",),
    ),
    # ------------------------------------------------------------------ two_subjects / note
    HeldOut(
        id="two-subjects-note-hr-starters",
        kind="two_subjects",
        form="note",
        events=(
            Turn("user:hr", "New starters: Aroha Wiremu joins Legal as a paralegal; Bastian Roth joins Facilities."),
        ),
        question="Which department did Bastian join?",
        expect=("facilities",),
        reject=("legal",),
    ),
    HeldOut(
        id="two-subjects-note-vet-boosters",
        kind="two_subjects",
        form="note",
        events=(Turn("user:noor", "vet: Pebble needs her rabies booster in August, Ziggy's isn't due until October"),),
        question="When is Ziggy's booster due?",
        expect=("october",),
        reject=("august",),
    ),
    HeldOut(
        id="two-subjects-note-ops-parking",
        kind="two_subjects",
        form="note",
        events=(Turn("user:ops", "Parking: Ingrid Solberg has bay 14 in the east lot, Mateo Ruiz has bay 27."),),
        question="Where does Mateo park?",
        expect=("27",),
        reject=("east", "14"),
    ),
    HeldOut(
        id="two-subjects-note-shoe-sizes",
        kind="two_subjects",
        form="note",
        events=(Turn("user:ruth", "shoe sizes for xmas shopping: Dan wears a 44, Ellie wears a 37"),),
        question="What shoe size does Ellie wear?",
        expect=("37",),
        reject=("44",),
    ),
    # ------------------------------------------------------------------ two_subjects / ticket
    HeldOut(
        id="two-subjects-ticket-escalation-roles",
        kind="two_subjects",
        form="ticket",
        events=(Turn("user:support", "SUP-903: Marek processed the refund, while Chiara owns the follow-up call."),),
        question="Who processed the refund on SUP-903?",
        expect=("marek",),
        reject=("chiara",),
    ),
    HeldOut(
        id="two-subjects-ticket-colleague-browser",
        kind="two_subjects",
        form="ticket",
        events=(
            Turn("user:qa", "Reporter Nils hits the crash on Firefox; his colleague Astrid can't repro on Safari."),
        ),
        question="Which browser does Astrid use?",
        expect=("safari",),
        reject=("firefox",),
    ),
    HeldOut(
        id="two-subjects-ticket-environments",
        kind="two_subjects",
        form="ticket",
        events=(
            Turn("user:ops", "Staging runs Postgres 15 on the Heron box; production is still on Postgres 12 on Kite."),
        ),
        question="Which host runs production Postgres?",
        expect=("kite",),
        reject=("heron",),
    ),
    HeldOut(
        id="two-subjects-ticket-ownership",
        kind="two_subjects",
        form="ticket",
        events=(Turn("user:pm", "Q3 ownership: billing belongs to Team Otter, notifications go to Team Lynx."),),
        question="Which team owns notifications?",
        expect=("lynx",),
        reject=("otter",),
    ),
    # ------------------------------------------------------------------ forget / chat
    HeldOut(
        id="forget-phone-number",
        kind="forget",
        form="chat",
        events=(
            Turn("user:elena", "my cell is 0761 332 905, text me if the plumber shows up"),
            Turn("user:elena", "he came, all fixed"),
            Turn("user:elena", "please forget my phone number"),
        ),
        question="What is Elena's phone number?",
        expect=(),
        reject=("332", "905"),
    ),
    HeldOut(
        id="forget-home-address",
        kind="forget",
        form="chat",
        events=(
            Turn("user:bruno", "i live at 17 Calloway Lane, flat 2, ring twice"),
            Turn("user:bruno", "can you delete what I said about where I live? dont want that stored"),
        ),
        question="What is Bruno's address?",
        expect=(),
        reject=("calloway",),
    ),
    HeldOut(
        id="forget-medication",
        kind="forget",
        form="chat",
        events=(
            Turn("user:ayesha", "just so you know i take sertraline, 50mg every morning"),
            Turn("user:ayesha", "anyway what time does the pharmacy on Gray St close on sundays"),
            Turn("user:ayesha", "forget everything about my medication please"),
        ),
        question="What medication does Ayesha take?",
        expect=(),
        reject=("sertraline", "50mg"),
    ),
    HeldOut(
        id="forget-ex-name",
        kind="forget",
        form="chat",
        events=(
            Turn("user:kasia", "my ex, Dominik, still has my bike lol"),
            Turn("user:kasia", "dont remember my ex's name anymore, i'm done with that chapter"),
        ),
        question="What is the name of Kasia's ex?",
        expect=(),
        reject=("dominik",),
    ),
    HeldOut(
        id="forget-salary",
        kind="forget",
        form="chat",
        events=(
            Turn("user:hugo", "after the raise my salary is 68500 before tax"),
            Turn("user:hugo", "scratch that, erase my salary from memory"),
        ),
        question="How much does Hugo earn?",
        expect=(),
        reject=("68500",),
    ),
    HeldOut(
        id="forget-password-hint",
        kind="forget",
        form="chat",
        events=(
            Turn("user:mina", "password hint for the family nas: first dog + house number, like Waffles42"),
            Turn("user:mina", "oh no i shouldnt have typed that. please wipe the password hint"),
        ),
        question="What is Mina's password hint for the NAS?",
        expect=(),
        reject=("waffles42",),
    ),
    HeldOut(
        id="forget-birthday",
        kind="forget",
        form="chat",
        events=(
            Turn("user:olu", "my birthday is 23 february, no surprise party pls"),
            Turn("user:olu", "actually can you not keep my birthday on file. just forget it"),
        ),
        question="When is Olu's birthday?",
        expect=(),
        reject=("february",),
    ),
    HeldOut(
        id="forget-diagnosis",
        kind="forget",
        form="chat",
        events=(
            Turn("user:freya", "got diagnosed with coeliac disease last month so gluten is out"),
            Turn("user:freya", "recommend a good bakery near the station?"),
            Turn("user:freya", "hey, remove the diagnosis thing from your memory, I'd rather it not be stored"),
        ),
        question="What was Freya diagnosed with?",
        expect=(),
        reject=("coeliac", "gluten"),
    ),
    # ------------------------------------------------------------------ forget / note
    HeldOut(
        id="forget-note-door-code",
        kind="forget",
        form="note",
        events=(
            Turn("user:ivo", "door code for my building is 4471, back gate same"),
            Turn("user:ivo", "note to self: delete my door code from memory"),
        ),
        question="What is Ivo's door code?",
        expect=(),
        reject=("4471",),
    ),
    HeldOut(
        id="forget-note-therapist",
        kind="forget",
        form="note",
        events=(
            Turn("user:lotte", "therapy with Dr. Vennard every other thursday at 5"),
            Turn("user:lotte", "forget my therapy details, please. keeping that offline"),
        ),
        question="Who is Lotte's therapist?",
        expect=(),
        reject=("vennard",),
    ),
    HeldOut(
        id="forget-note-bank",
        kind="forget",
        form="note",
        events=(
            Turn("user:sami", "bank: Northwind Credit Union, savings account ending 8812"),
            Turn("user:sami", "groceries budget this month: keep it under 400"),
            Turn("user:sami", "remove all of my bank info from memory"),
        ),
        question="Which bank does Sami use?",
        expect=(),
        reject=("northwind", "8812"),
    ),
    # ------------------------------------------------------------------ forget / ticket
    HeldOut(
        id="forget-ticket-home-phone",
        kind="forget",
        form="ticket",
        events=(
            Turn("user:renata", "Call me on my home line 0203 554 719 if the courier can't find the door."),
            Turn("user:support", "Noted, courier booked for Tuesday morning."),
            Turn("user:renata", "Please delete my home phone number from this ticket and from your records."),
        ),
        question="What is Renata's home phone number?",
        expect=(),
        reject=("554", "719"),
    ),
    HeldOut(
        id="forget-ticket-shipping-address",
        kind="forget",
        form="ticket",
        events=(
            Turn("user:tobias", "Ship the replacement router to my place: 8 Wickham Row, Eastleigh."),
            Turn("user:support", "Replacement shipped, should arrive in two working days."),
            Turn("user:tobias", "Got it, thanks. Please forget my home address now that it's delivered."),
        ),
        question="What is Tobias's home address?",
        expect=(),
        reject=("wickham", "eastleigh"),
    ),
    HeldOut(
        id="forget-ticket-date-of-birth",
        kind="forget",
        form="ticket",
        events=(
            Turn("user:gaia", "For the account recovery: my date of birth is 9 July 1986."),
            Turn("user:gaia", "Account recovered, thank you. Can you erase my date of birth from memory?"),
        ),
        question="What is Gaia's date of birth?",
        expect=(),
        reject=("july", "1986"),
    ),
    HeldOut(
        id="forget-ticket-back-condition",
        kind="forget",
        form="ticket",
        events=(
            Turn("user:ward", "Requesting a standing desk, I have a herniated disc in my lower back."),
            Turn("user:ward", "Desk arrived. Please don't retain the info about my back anymore."),
        ),
        question="What health condition does Ward have?",
        expect=(),
        reject=("herniated", "disc"),
    ),
]
