"""Development cases by a fourth writer, in the held-out format (see bench/heldout.py): 30 updates, 18
two-subject turns and 12 forget requests, in chat, note and ticket form.

Written in one sitting by a helper session that had read neither the engine's code nor any other case
file. Their first measurement, before any rule was changed for them, was 37 of 60 (updates 19/30, two
subjects 11/18, forget 7/12) on 16d64ca and 36 of 60 on 09f8307, the build before that day's rules: text
nobody here had tuned for does well below the held-out set (45 and 46 of 60 on the same builds). Rules
have been built from their failures since (forget requests with a discourse opener or passed on by a
note's lead, a turn that says what to keep is no answer), so they are a development set now;
bench/heldout.py prints them beside the others. Invented people, places and products; no benchmark
phrasing.
"""

from __future__ import annotations

from tests.heldout_cases import HeldOut, Turn

CASES: list[HeldOut] = [
    # ------------------------------------------------------------------ updates: chat
    HeldOut(
        id="fourth-update-chat-new-job-no-word",
        kind="update",
        form="chat",
        events=(
            Turn("user:anouk", "I'm a pastry cook at Tallowmere Bakery, early shifts but I love the sourdough crew"),
            Turn("user:anouk", "handed in my apron today, bittersweet 🥲"),
            Turn("user:anouk", "first day at Quillon Studios went really well!! the design team is so nice"),
        ),
        question="Where does Anouk work these days?",
        expect=("quillon",),
        reject=("tallowmere",),
    ),
    HeldOut(
        id="fourth-update-chat-coffee-to-tea",
        kind="update",
        form="chat",
        events=(
            Turn("user:bastien", "can't function before my double espresso from the Corvale cafe downstairs"),
            Turn("user:bastien", "I don't drink coffee anymore, it's rooibos now. sleeping way better"),
        ),
        question="What does Bastien drink in the morning?",
        expect=("rooibos",),
        reject=("espresso",),
    ),
    HeldOut(
        id="fourth-update-chat-three-gyms",
        kind="update",
        form="chat",
        events=(
            Turn("user:kofi", "signed up at Ironleaf Gym downtown, 12 month contract lol"),
            Turn("user:kofi", "switched to Pulsewright, it's closer to home"),
            Turn(
                "user:kofi",
                "ok final answer: I'm training at Strandhall Fitness now, the other place was always "
                "packed",
            ),
        ),
        question="Which gym does Kofi go to?",
        expect=("strandhall",),
        reject=("pulsewright", "ironleaf"),
    ),
    HeldOut(
        id="fourth-update-chat-email-pronoun",
        kind="update",
        form="chat",
        events=(
            Turn("user:ines", "you can reach me at ines.marlow@fernlight.net for the club newsletter"),
            Turn("user:ines", "the book club picked a mystery novel for next month, yay"),
            Turn("user:ines", "got a new email btw. it's ines@corrowby.org"),
        ),
        question="What's Ines's email address?",
        expect=("corrowby",),
        reject=("fernlight",),
    ),
    HeldOut(
        id="fourth-update-chat-sold-vespa",
        kind="update",
        form="chat",
        events=(
            Turn("user:lina", "I ride my red Vespa to the office every day, parking is a breeze"),
            Turn("user:lina", "the canteen had lentil soup today, surprisingly good"),
            Turn("user:lina", "sold the vespa last weekend, got a Brisko e-bike instead 🚲"),
        ),
        question="What does Lina ride to work now?",
        expect=("brisko",),
        reject=("vespa",),
    ),
    HeldOut(
        id="fourth-update-chat-oops-restaurant",
        kind="update",
        form="chat",
        events=(
            Turn("user:tomas", "dinner with my parents is at Osteria Valdoro on saturday at 7"),
            Turn("user:tomas", "oops, I meant Casa Pellinor, got the two names mixed up"),
        ),
        question="Where is Tomas having dinner with his parents on Saturday?",
        expect=("pellinor",),
        reject=("valdoro",),
    ),
    HeldOut(
        id="fourth-update-chat-holiday-plan-change",
        kind="update",
        form="chat",
        events=(
            Turn("user:maren", "booked a week in Skarholt for the october break, little cabin by the lake"),
            Turn("user:maren", "change of plans: we're doing Velmora in october instead, the cabin fell through 😩"),
        ),
        question="Where is Maren going for the October break?",
        expect=("velmora",),
        reject=("skarholt",),
    ),
    HeldOut(
        id="fourth-update-chat-favourite-band",
        kind="update",
        form="chat",
        events=(
            Turn("user:jules", "fav band rn is The Copperlings, had them on repeat all week"),
            Turn("user:jules", "ok Murmurfield is my favourite now, their new album is unreal"),
        ),
        question="What's Jules's favourite band?",
        expect=("murmurfield",),
        reject=("copperlings",),
    ),
    HeldOut(
        id="fourth-update-chat-diet-vegan",
        kind="update",
        form="chat",
        events=(
            Turn("user:priya", "I'm pescatarian, so fish is fine but no meat pls"),
            Turn("user:priya", "quick heads up for the team lunch: went fully vegan since march 🌱 no fish or dairy"),
        ),
        question="What diet does Priya follow?",
        expect=("vegan",),
        reject=("pescatarian",),
    ),
    HeldOut(
        id="fourth-update-chat-timezone-move",
        kind="update",
        form="chat",
        events=(
            Turn("user:dmitri", "I live in Harwick so I'm on GMT, mornings work best for calls"),
            Turn("user:dmitri", "moved to Tessaly Bay last week!! I'm on PST now, so schedule calls after 9 my time"),
        ),
        question="What timezone is Dmitri in?",
        expect=("pst",),
        reject=("gmt",),
    ),
    HeldOut(
        id="fourth-update-chat-new-pet",
        kind="update",
        form="chat",
        events=(
            Turn("user:sunniva", "my cat Pebbleton turned 3 today 🎂"),
            Turn("user:sunniva", "Pebbleton lives with my aunt now, she has a big garden and he's much happier there"),
            Turn("user:sunniva", "say hi to Thistlewick, our new lop rabbit 🐰 he's the only pet in the flat now"),
        ),
        question="What's the name of Sunniva's pet now?",
        expect=("thistlewick",),
        reject=("pebbleton",),
    ),
    HeldOut(
        id="fourth-update-chat-dating-someone-new",
        kind="update",
        form="chat",
        events=(
            Turn("user:rafael", "my girlfriend Odalys is coming to visit next weekend"),
            Turn("user:rafael", "we broke up last month. it's fine, mostly"),
            Turn("user:rafael", "started seeing someone new, her name is Wrenna and she's a potter"),
        ),
        question="Who is Rafael dating?",
        expect=("wrenna",),
        reject=("odalys",),
    ),
    HeldOut(
        id="fourth-update-chat-school-switch",
        kind="update",
        form="chat",
        events=(
            Turn("user:noor", "my son goes to brindlecombe primary, it's a 40 min drive each way"),
            Turn("user:noor", "we moved him to ashgrove academy bc of the commute, he starts tmrw"),
        ),
        question="Which school does Noor's son go to?",
        expect=("ashgrove",),
        reject=("brindlecombe",),
    ),
    HeldOut(
        id="fourth-update-chat-control-friend-car",
        kind="update",
        form="chat",
        events=(
            Turn("user:elias", "I drive a silver Korvalt Estate, lots of room for the dogs"),
            Turn("user:elias", "my buddy Jens just bought a Zephrane coupe, so jealous lol"),
        ),
        question="What car does Elias drive?",
        expect=("korvalt",),
        reject=("zephrane",),
    ),
    HeldOut(
        id="fourth-update-chat-control-brother-team",
        kind="update",
        form="chat",
        events=(
            Turn("user:hana", "I play left back for the Millbrook Otters, training is tue and thu"),
            Turn("user:hana", "my brother joined the Ravensholm Pike this season, his first match is saturday"),
        ),
        question="Which team does Hana play for?",
        expect=("millbrook",),
        reject=("ravensholm",),
    ),
    # ------------------------------------------------------------------ updates: notes
    HeldOut(
        id="fourth-update-note-address-move",
        kind="update",
        form="note",
        events=(
            Turn("agent:frontdesk", "Mr. Caspian Orrell's home address on file: 14 Fennick Lane, Dorrowby."),
            Turn(
                "agent:frontdesk",
                "Mr. Orrell called to update his details: he has moved to 3 Larkspire Court, Hallowmere.",
            ),
        ),
        question="What's Caspian Orrell's current address?",
        expect=("larkspire",),
        reject=("fennick",),
    ),
    HeldOut(
        id="fourth-update-note-phone-change",
        kind="update",
        form="note",
        events=(
            Turn("agent:clinic", "Patient Zofia Brenn, contact number 0171 448 2093."),
            Turn("agent:clinic", "Zofia Brenn's phone number has changed. New number: 0171 662 5810."),
        ),
        question="What's Zofia Brenn's phone number?",
        expect=("5810",),
        reject=("2093",),
    ),
    HeldOut(
        id="fourth-update-note-plan-tier",
        kind="update",
        form="note",
        events=(
            Turn("agent:support", "Customer Halvard Ness is on the Basic plan of Trellisync, billed monthly."),
            Turn("agent:support", "Halvard Ness upgraded his Trellisync subscription to the Summit tier today."),
        ),
        question="Which Trellisync plan is Halvard Ness on?",
        expect=("summit",),
        reject=("basic",),
    ),
    HeldOut(
        id="fourth-update-note-new-manager",
        kind="update",
        form="note",
        events=(
            Turn("agent:hr", "Odile Ferrand works in Logistics and reports to Bram Keswick."),
            Turn("agent:hr", "As of 1 June, Odile Ferrand moves to the Procurement team and reports to Saskia Thorne."),
        ),
        question="Who is Odile Ferrand's manager?",
        expect=("thorne",),
        reject=("keswick",),
    ),
    HeldOut(
        id="fourth-update-note-medication-filler",
        kind="update",
        form="note",
        events=(
            Turn("agent:clinic", "Mr. Aurelio Banks takes Dravoxin 20 mg daily for blood pressure."),
            Turn("agent:clinic", "Reminder: clinic closed Friday afternoon for staff training."),
            Turn(
                "agent:clinic",
                "Dr. Lemaire stopped the previous prescription; Mr. Banks now takes Celmarine 5 mg daily "
                "for his blood pressure.",
            ),
        ),
        question="What blood pressure medication does Aurelio Banks take?",
        expect=("celmarine",),
        reject=("dravoxin",),
    ),
    HeldOut(
        id="fourth-update-note-control-visitor-car",
        kind="update",
        form="note",
        events=(
            Turn("agent:frontdesk", "Ms. Yusra Delacroix drives a blue Vantrell hatchback and parks in bay 12."),
            Turn(
                "agent:frontdesk",
                "Ms. Delacroix's cousin visited today in a white Oberlund van; sent to the guest lot.",
            ),
        ),
        question="What car does Yusra Delacroix drive?",
        expect=("vantrell",),
        reject=("oberlund",),
    ),
    HeldOut(
        id="fourth-update-note-three-rooms",
        kind="update",
        form="note",
        events=(
            Turn("agent:frontdesk", "Guest Piet Olander checked into room 214 for four nights."),
            Turn("agent:frontdesk", "Piet Olander moved to room 309 after a plumbing issue."),
            Turn("agent:frontdesk", "Mr. Olander asked for somewhere quieter and is now in room 512."),
        ),
        question="Which room is Piet Olander staying in?",
        expect=("512",),
        reject=("309", "214"),
    ),
    HeldOut(
        id="fourth-update-note-emergency-contact",
        kind="update",
        form="note",
        events=(
            Turn("agent:hr", "Emergency contact for Greta Munk: her husband, Arvid Munk."),
            Turn("agent:hr", "Greta Munk updated her emergency contact to her sister, Liv Sandqvist."),
        ),
        question="Who is Greta Munk's emergency contact?",
        expect=("sandqvist",),
        reject=("arvid",),
    ),
    # ------------------------------------------------------------------ updates: tickets
    HeldOut(
        id="fourth-update-ticket-status-resolved",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:support", "Ticket 4471: customer cannot sync calendar in the Quillon app. Status: open."),
            Turn(
                "agent:support",
                "Ticket 4471 update: fix deployed and customer confirmed it works. Status: resolved.",
            ),
        ),
        question="What's the status of ticket 4471?",
        expect=("resolved",),
        reject=("open",),
    ),
    HeldOut(
        id="fourth-update-ticket-reassigned",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:support", "Ticket 5832 assigned to Marguerite (tier 2)."),
            Turn("agent:support", "Ticket 5832 reassigned to Tobiah from the billing team."),
        ),
        question="Who handles ticket 5832 now?",
        expect=("tobiah",),
        reject=("marguerite",),
    ),
    HeldOut(
        id="fourth-update-ticket-priority-filler",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:support", "Ticket 6120 (export to PDF fails in Lumenvault): priority low."),
            Turn("agent:support", "Ticket 6188: customer asked for an invoice copy, sent it over."),
            Turn(
                "agent:support",
                "Ticket 6120 escalated, it affects three enterprise accounts. Priority is now urgent.",
            ),
        ),
        question="What priority is ticket 6120?",
        expect=("urgent",),
        reject=("low",),
    ),
    HeldOut(
        id="fourth-update-ticket-due-date",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:support", "Ticket 7305: data migration for Harrowline Ltd, due March 14."),
            Turn("agent:support", "Ticket 7305: customer requested more time, due date moved to April 2."),
        ),
        question="When is ticket 7305 due?",
        expect=("april",),
        reject=("march",),
    ),
    HeldOut(
        id="fourth-update-ticket-three-plans",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:sales", "Ticket 9044: customer Delphine Aubry is on the Starter plan."),
            Turn("agent:sales", "9044 - Delphine moved up to the Growth plan to get API access."),
            Turn("agent:sales", "9044: after the call with our sales lead she signed for Enterprise, effective today."),
        ),
        question="What plan is Delphine Aubry on?",
        expect=("enterprise",),
        reject=("growth", "starter"),
    ),
    HeldOut(
        id="fourth-update-ticket-control-other-ticket",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:support", "Ticket 3390: login loop on the mobile app. Assigned to Ingrid."),
            Turn("agent:support", "Ticket 3391 (different customer, billing question) assigned to Baptiste."),
        ),
        question="Who is handling ticket 3390?",
        expect=("ingrid",),
        reject=("baptiste",),
    ),
    HeldOut(
        id="fourth-update-ticket-town-correction",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:support", "Ticket 2718: replacement router to ship to 22 Corbel Street, Wexmoor."),
            Turn("agent:support", "Correction on ticket 2718: the town is actually Ashbury, I mistyped it earlier."),
        ),
        question="Which town should the router for ticket 2718 ship to?",
        expect=("ashbury",),
        reject=("wexmoor",),
    ),
    # ------------------------------------------------------------------ two subjects: chat
    HeldOut(
        id="fourth-two-chat-husband-workplace",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:saoirse", "my husband Declan works at Brightwater Foundry and I'm at Pemberly Labs"),
            Turn("user:saoirse", "we're thinking of repainting the hallway a dark green this spring"),
        ),
        question="Where does Saoirse's husband work?",
        expect=("brightwater",),
        reject=("pemberly",),
    ),
    HeldOut(
        id="fourth-two-chat-kids-instruments",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:farid", "my daughter Amira plays the cello and Yusuf, my youngest, is learning the trombone 🎺"),
            Turn("user:farid", "their school concert is on the 20th, need to buy black shirts for both"),
        ),
        question="What instrument does Yusuf play?",
        expect=("trombone",),
        reject=("cello",),
    ),
    HeldOut(
        id="fourth-two-chat-pets-food",
        kind="two_subjects",
        form="chat",
        events=(
            Turn(
                "user:leonie",
                "our dog Biscotti eats Grainmor kibble, the cat Nimbus only eats Pawlette pouches "
                "(picky!!)",
            ),
            Turn("user:leonie", "vet appointment for both of them next tuesday, just the yearly checkup"),
        ),
        question="What food does Nimbus eat?",
        expect=("pawlette",),
        reject=("grainmor",),
    ),
    HeldOut(
        id="fourth-two-chat-allergies-whereas",
        kind="two_subjects",
        form="chat",
        events=(
            Turn(
                "user:oskar",
                "for the dinner party: I'm allergic to hazelnuts, whereas my wife Frida is allergic to "
                "shellfish",
            ),
            Turn("user:oskar", "we'll probably do a mushroom risotto, does that sound ok?"),
        ),
        question="What is Frida allergic to?",
        expect=("shellfish",),
        reject=("hazelnuts",),
    ),
    HeldOut(
        id="fourth-two-chat-brother-car",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:mei", "my brother drives a Calloway pickup and my dad still has his old Serrano sedan"),
            Turn("user:mei", "thinking about getting my own car next year, any tips?"),
        ),
        question="What does Mei's brother drive?",
        expect=("calloway",),
        reject=("serrano",),
    ),
    HeldOut(
        id="fourth-two-chat-lowercase-kids-schools",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:tariq", "kids update: zara's at fernbrook high now, idris started at tumblewood nursery"),
            Turn("user:tariq", "drop-off mornings are chaos now lol"),
        ),
        question="Which school is Zara at?",
        expect=("fernbrook",),
        reject=("tumblewood",),
    ),
    HeldOut(
        id="fourth-two-chat-roommates-later-event",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:gwen", "my roommates are Pia and Lotte. Pia's a nurse, Lotte teaches piano"),
            Turn("user:gwen", "Lotte quit teaching, she's a barista at Kettleworth now"),
        ),
        question="What does Lotte do for work now?",
        expect=("barista",),
        reject=("nurse",),
    ),
    HeldOut(
        id="fourth-two-chat-family-schedule-semicolons",
        kind="two_subjects",
        form="chat",
        events=(
            Turn(
                "user:bruno",
                "weekly schedule: me, climbing on tuesdays; Sofie, pottery on wednesdays; our son Teo, "
                "judo on thursdays",
            ),
            Turn("user:bruno", "fridays are free so that's pizza night 🍕"),
        ),
        question="What day does Teo have judo?",
        expect=("thursdays",),
        reject=("tuesdays", "wednesdays"),
    ),
    HeldOut(
        id="fourth-two-chat-birthdays-possessive",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:ilse", "Joris's birthday is the 12th of August, mine's the 3rd of November"),
            Turn("user:ilse", "remind me to book a table somewhere nice for both"),
        ),
        question="When is Ilse's birthday?",
        expect=("november",),
        reject=("august",),
    ),
    # ------------------------------------------------------------------ two subjects: notes
    HeldOut(
        id="fourth-two-note-patient-and-son",
        kind="two_subjects",
        form="note",
        events=(
            Turn(
                "agent:clinic",
                "Patient Harriet Olsberg (72) attended with her son Callum. Harriet was diagnosed with "
                "osteoarthritis of the knee; Callum mentioned he is being treated for asthma.",
            ),
            Turn("agent:clinic", "Follow-up booked for Ms. Olsberg in six weeks; physiotherapy referral sent."),
        ),
        question="What was Harriet Olsberg diagnosed with?",
        expect=("osteoarthritis",),
        reject=("asthma",),
    ),
    HeldOut(
        id="fourth-two-note-new-hires-offices",
        kind="two_subjects",
        form="note",
        events=(
            Turn(
                "agent:hr",
                "Onboarding this week: Selma Achterberg joins as data analyst at the Wyndle office; "
                "Kasimir Rudd joins as QA engineer at the Pellbrook office.",
            ),
            Turn("agent:hr", "Both new hires need laptops ordered by Friday."),
        ),
        question="Which office is Kasimir Rudd based at?",
        expect=("pellbrook",),
        reject=("wyndle",),
    ),
    HeldOut(
        id="fourth-two-note-couple-pillows",
        kind="two_subjects",
        form="note",
        events=(
            Turn(
                "agent:frontdesk",
                "Mr. and Mrs. Castellan checked in to the garden suite. Mr. Castellan requested a feather"
                " pillow; Mrs. Castellan needs a hypoallergenic one.",
            ),
            Turn("agent:frontdesk", "The Castellans requested a late checkout on Sunday; approved until 1 pm."),
        ),
        question="What kind of pillow does Mrs. Castellan need?",
        expect=("hypoallergenic",),
        reject=("feather",),
    ),
    HeldOut(
        id="fourth-two-note-twins-vaccines",
        kind="two_subjects",
        form="note",
        events=(
            Turn(
                "agent:clinic",
                "Vaccination visit for the Draycott twins: Ellis received the Mendoravax booster, while "
                "Maude received the Tyrellin dose.",
            ),
            Turn("agent:clinic", "Both children tolerated the injections well; next visit in twelve months."),
        ),
        question="Which vaccine did Maude Draycott get?",
        expect=("tyrellin",),
        reject=("mendoravax",),
    ),
    HeldOut(
        id="fourth-two-note-desks-later-move",
        kind="two_subjects",
        form="note",
        events=(
            Turn("agent:hr", "Desk assignments: Rowan Pike at desk 4B, Esther Lindqvist at desk 7C."),
            Turn("agent:hr", "Rowan Pike moved to desk 9A near the windows."),
        ),
        question="Which desk does Esther Lindqvist sit at?",
        expect=("7c",),
        reject=("4b", "9a"),
    ),
    # ------------------------------------------------------------------ two subjects: tickets
    HeldOut(
        id="fourth-two-ticket-staging-production",
        kind="two_subjects",
        form="ticket",
        events=(
            Turn(
                "agent:support",
                "Ticket 5510: checkout works on staging (build 311) but fails on production (build 298).",
            ),
            Turn("agent:support", "Ticket 5510: customer says the issue started after Tuesday's release."),
        ),
        question="Which build is production running for ticket 5510?",
        expect=("298",),
        reject=("311",),
    ),
    HeldOut(
        id="fourth-two-ticket-two-users-errors",
        kind="two_subjects",
        form="ticket",
        events=(
            Turn(
                "agent:support",
                "Ticket 6603: two users affected. Aldo Ferreira sees error E42 when logging in; Brigid "
                "Hale sees error E77 when uploading files.",
            ),
            Turn("agent:support", "Ticket 6603: both users are on the same company account, their admin is cc'd."),
        ),
        question="What error does Brigid Hale get?",
        expect=("e77",),
        reject=("e42",),
    ),
    HeldOut(
        id="fourth-two-ticket-two-printers",
        kind="two_subjects",
        form="ticket",
        events=(
            Turn(
                "agent:support",
                "Ticket 7718: customer has two printers, the office one is a Dovecraft X5 and the one at "
                "home is a Brenner Jet.",
            ),
            Turn(
                "agent:support",
                "Ticket 7718: customer says neither printer shows up after the latest driver update.",
            ),
        ),
        question="Which printer does the customer on ticket 7718 have at home?",
        expect=("brenner",),
        reject=("dovecraft",),
    ),
    HeldOut(
        id="fourth-two-ticket-site-contacts-later",
        kind="two_subjects",
        form="ticket",
        events=(
            Turn(
                "agent:support",
                "Ticket 8830: two warehouses affected. Kelby site contact is Ruth Amsel; Oswin site "
                "contact is Mateo Brisk.",
            ),
            Turn(
                "agent:support",
                "Ticket 8830: Ruth Amsel has left the company, the new Kelby contact is Neha Vardhan.",
            ),
        ),
        question="Who is the contact for the Oswin site on ticket 8830?",
        expect=("brisk",),
        reject=("vardhan",),
    ),
    # ------------------------------------------------------------------ forget: chat
    HeldOut(
        id="fourth-forget-chat-bank-pin",
        kind="forget",
        form="chat",
        events=(
            Turn("user:celeste", "my bank PIN is 4826 in case I forget it lol"),
            Turn("user:celeste", "actually please forget my PIN, I shouldn't have shared that"),
        ),
        question="What's Celeste's bank PIN?",
        expect=(),
        reject=("4826",),
    ),
    HeldOut(
        id="fourth-forget-chat-therapist-keep-dentist",
        kind="forget",
        form="chat",
        events=(
            Turn("user:henrik", "my therapist is Dr. Vollmer, I see her every thursday for panic attacks"),
            Turn("user:henrik", "dentist is Dr. Asante at Kelsbury Dental, checkup due in may"),
            Turn("user:henrik", "delete what I told you about my therapist pls. keep the dentist info tho"),
        ),
        question="Who is Henrik's dentist?",
        expect=("asante",),
        reject=("vollmer",),
    ),
    HeldOut(
        id="fourth-forget-chat-home-address",
        kind="forget",
        form="chat",
        events=(
            Turn("user:yara", "my home address is 9 Sorrel Mews, Brantholme, for the parcel stuff"),
            Turn("user:yara", "on second thought don't keep my address, please forget it"),
        ),
        question="Where does Yara live?",
        expect=(),
        reject=("sorrel", "brantholme"),
    ),
    HeldOut(
        id="fourth-forget-chat-diagnosis",
        kind="forget",
        form="chat",
        events=(
            Turn("user:lucas", "I was diagnosed with ulcerative colitis last year, so I skip spicy food"),
            Turn("user:lucas", "please forget my diagnosis, I don't want that stored anywhere"),
        ),
        question="What health condition does Lucas have?",
        expect=(),
        reject=("colitis",),
    ),
    HeldOut(
        id="fourth-forget-chat-salary-keep-employer",
        kind="forget",
        form="chat",
        events=(
            Turn("user:nadia", "I work at Corvent Logistics as a dispatcher"),
            Turn("user:nadia", "my salary's 58400 a year, kinda low tbh"),
            Turn("user:nadia", "hey forget my salary pls, that's private. the job stuff is fine to keep"),
        ),
        question="Where does Nadia work?",
        expect=("corvent",),
        reject=("58400",),
    ),
    HeldOut(
        id="fourth-forget-chat-ex-name",
        kind="forget",
        form="chat",
        events=(
            Turn("user:ottilie", "my ex, Fabian Korr, keeps texting me about the couch"),
            Turn("user:ottilie", "can you delete everything about my ex? don't keep his name"),
        ),
        question="What's the name of Ottilie's ex?",
        expect=(),
        reject=("korr", "fabian"),
    ),
    # ------------------------------------------------------------------ forget: notes
    HeldOut(
        id="fourth-forget-note-eating-disorder",
        kind="forget",
        form="note",
        events=(
            Turn(
                "agent:clinic",
                "Patient Morwenna Tisdale disclosed a history of bulimia; currently stable, no treatment "
                "needed.",
            ),
            Turn(
                "agent:clinic",
                "Ms. Tisdale asked that we not keep the note about her eating disorder history. Please "
                "forget it.",
            ),
        ),
        question="What health history did Morwenna Tisdale disclose?",
        expect=(),
        reject=("bulimia",),
    ),
    HeldOut(
        id="fourth-forget-note-passport-keep-name",
        kind="forget",
        form="note",
        events=(
            Turn("agent:hr", "Employee Anselm Grieve prefers to be called Sel."),
            Turn("agent:hr", "Anselm Grieve's passport number is X7731904, provided for the travel booking."),
            Turn(
                "agent:hr",
                "Per Anselm's request, delete his passport number from our notes; keep his preferred "
                "name.",
            ),
        ),
        question="What name does Anselm Grieve prefer to go by?",
        expect=("sel",),
        reject=("x7731904",),
    ),
    # ------------------------------------------------------------------ forget: tickets
    HeldOut(
        id="fourth-forget-ticket-card-number",
        kind="forget",
        form="ticket",
        events=(
            Turn("agent:support", "Ticket 4902: customer gave card ending 3317 for the refund."),
            Turn(
                "agent:support",
                "Ticket 4902: customer asked us to forget the card details; the refund will go to store "
                "credit instead.",
            ),
        ),
        question="What card did the customer give on ticket 4902?",
        expect=(),
        reject=("3317",),
    ),
    HeldOut(
        id="fourth-forget-ticket-dob-keep-email",
        kind="forget",
        form="ticket",
        events=(
            Turn("agent:support", "Ticket 5277: account email for Roisin Dunmore is roisin@hallowfen.io."),
            Turn("agent:support", "Ticket 5277: for verification she gave her date of birth, 14 Feb 1986."),
            Turn(
                "agent:support",
                "Ticket 5277: customer asks us to delete her date of birth from the record. The email "
                "stays.",
            ),
        ),
        question="What's the account email on ticket 5277?",
        expect=("hallowfen",),
        reject=("1986",),
    ),
    HeldOut(
        id="fourth-forget-ticket-medical-leave",
        kind="forget",
        form="ticket",
        events=(
            Turn(
                "agent:support",
                "Ticket 6340: customer mentioned she is on medical leave for chemotherapy, so replies may"
                " be slow.",
            ),
            Turn(
                "agent:support",
                "Ticket 6340: customer asked that we don't keep the part about her medical leave. Please "
                "remove it.",
            ),
        ),
        question="Why might the customer on ticket 6340 reply slowly?",
        expect=(),
        reject=("chemotherapy",),
    ),
    HeldOut(
        id="fourth-forget-ticket-phone-keep-time",
        kind="forget",
        form="ticket",
        events=(
            Turn("agent:support", "Ticket 7189: caller's home phone is 0203 774 9152."),
            Turn("agent:support", "Ticket 7189: preferred contact time is weekday mornings."),
            Turn(
                "agent:support",
                "Ticket 7189: customer asked us to forget the home phone number and contact by email "
                "only. Keep the preferred time.",
            ),
        ),
        question="When does the customer on ticket 7189 prefer to be contacted?",
        expect=("mornings",),
        reject=("9152",),
    ),
]
