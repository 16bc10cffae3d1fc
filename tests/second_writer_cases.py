"""Development cases by a second writer, in the held-out format (see bench/heldout.py): 30 updates, 18
two-subject turns and 12 forget requests, in chat, note and ticket form.

Written in one sitting by a helper session that had read neither the engine's code nor any other case
file, so that they measured the engine on text nobody here had tuned for: their first measurement, before
any rule was changed, was 29 of 60 (updates 19/30, two subjects 5/18, forget 5/12), beside 32 of 60 on the
held-out set. Rules have been tuned on them since, so they are a development set now; bench/heldout.py
prints them beside the others. Invented people, places and products; no benchmark phrasing.
"""

from __future__ import annotations

from tests.heldout_cases import HeldOut, Turn

CASES: list[HeldOut] = [
    # ------------------------------------------------------------------
    # UPDATE — chat
    # ------------------------------------------------------------------
    HeldOut(
        id="second-update-nurse-new-clinic",
        kind="update",
        form="chat",
        events=(
            Turn("user:maren",
                 "hi! im maren, i work as a nurse at Quillfield Memorial, mostly nights on the cardiac ward"),
            Turn("user:maren", "ugh the bus was late AGAIN this morning"),
            Turn("user:maren",
                 "started at Harrowgate Clinic today!! new badge, new scrubs, everyone seems nice so far 😅"),
        ),
        question="Where does Maren work?",
        expect=("harrowgate",),
        reject=("quillfield",),
    ),
    HeldOut(
        id="second-update-city-implicit-renting",
        kind="update",
        form="chat",
        events=(
            Turn("user:tobias", "I live in Varnholm, it's a small place by the lake, very quiet"),
            Turn("user:tobias", "whats a good recipe for lentil soup that isnt bland"),
            Turn("user:tobias",
                 "these days I'm renting a flat in Elsmere, way closer to the office and the rent is actually ok"),
        ),
        question="What city does Tobias live in?",
        expect=("elsmere",),
        reject=("varnholm",),
    ),
    HeldOut(
        id="second-update-phone-new-sim",
        kind="update",
        form="chat",
        events=(
            Turn("user:priya", "my number is 0771 302 5518 if the courier needs it"),
            Turn("user:priya", "thx for the reminder about the dentist"),
            Turn("user:priya", "got a new number btw. it's 0798 644 2107, the old sim just died on me"),
        ),
        question="What's Priya's phone number?",
        expect=("2107",),
        reject=("5518",),
    ),
    HeldOut(
        id="second-update-email-fernpost",
        kind="update",
        form="chat",
        events=(
            Turn("user:kemal",
                 "you can reach me at kemal.ozdil@brackwater.com, Brackwater is my internet provider lol"),
            Turn("user:kemal",
                 "moved everything over to Fernpost, new email is kemal.ozdil@fernpost.org, use that one from now "
                 "on pls"),
        ),
        question="What's Kemal's email address?",
        expect=("fernpost",),
        reject=("brackwater",),
    ),
    HeldOut(
        id="second-update-favorite-band",
        kind="update",
        form="chat",
        events=(
            Turn("user:sunniva", "my favourite band right now is the Marrowlights, cant stop listening honestly"),
            Turn("user:sunniva", "going to my cousins wedding this weekend, need a dress"),
            Turn("user:sunniva",
                 "ok new obsession 🎧 Copper Finch Ensemble is my fav band now, on repeat all day every day"),
        ),
        question="What's Sunniva's favorite band?",
        expect=("copper", "finch"),
        reject=("marrowlights",),
    ),
    HeldOut(
        id="second-update-dating-implicit",
        kind="update",
        form="chat",
        events=(
            Turn("user:dara", "been seeing Olek for like 3 months now, he's great, cooks amazing dumplings"),
            Turn("user:dara", "remind me to call the landlord about the boiler"),
            Turn("user:dara", "so I'm with Teodor now 🙈 we met at the climbing wall and he makes me laugh constantly"),
        ),
        question="Who is Dara dating?",
        expect=("teodor",),
        reject=("olek",),
    ),
    HeldOut(
        id="second-update-car-traded-in",
        kind="update",
        form="chat",
        events=(
            Turn("user:felix", "I drive an old Korrin Vesta, rust everywhere but it starts every time"),
            Turn("user:felix", "traded it in!! picked up a Halden Spry yesterday 🚗 smells so new"),
        ),
        question="What car does Felix drive?",
        expect=("halden", "spry"),
        reject=("vesta",),
    ),
    HeldOut(
        id="second-update-pet-passed-adopted",
        kind="update",
        form="chat",
        events=(
            Turn("user:imogen", "my cat Pickle is 14 and sleeps literally all day on the radiator"),
            Turn("user:imogen", "any tips for getting red wine out of a carpet"),
            Turn("user:imogen",
                 "Pickle passed away in march 😢 we adopted a rescue greyhound called Bramble last week, she's so "
                 "gentle"),
        ),
        question="What's the name of Imogen's pet?",
        expect=("bramble",),
        reject=("pickle",),
    ),
    HeldOut(
        id="second-update-diet-pescatarian",
        kind="update",
        form="chat",
        events=(
            Turn("user:lior", "I'm vegan, so no cheese on anything for me pls"),
            Turn("user:lior", "ok confession, i eat fish again. pescatarian these days i guess 🐟"),
        ),
        question="What diet does Lior follow?",
        expect=("pescatarian",),
        reject=("vegan",),
    ),
    HeldOut(
        id="second-update-reading-new-book",
        kind="update",
        form="chat",
        events=(
            Turn("user:nadia", "reading The Salt Orchard at the moment, slow but really pretty writing"),
            Turn("user:nadia", "my sister's coming to stay next week, need to clear the spare room"),
            Turn("user:nadia",
                 "finally started Gravel Kings by Imre Solt, already halfway through it, couldn't put it down last "
                 "night"),
        ),
        question="What book is Nadia reading?",
        expect=("gravel", "kings"),
        reject=("orchard",),
    ),
    HeldOut(
        id="second-update-learning-cello",
        kind="update",
        form="chat",
        events=(
            Turn("user:oskar", "I'm learning Portuguese in the evenings, about 20 min a day"),
            Turn("user:oskar", "dropped the language stuff tbh, taking cello lessons on thursdays now and I love it"),
        ),
        question="What is Oskar learning?",
        expect=("cello",),
        reject=("portuguese",),
    ),
    HeldOut(
        id="second-update-doctor-after-move",
        kind="update",
        form="chat",
        events=(
            Turn("user:hana", "my GP is Dr. Almqvist at the Fenwick practice, been with her for years"),
            Turn("user:hana", "what's the weather supposed to be like saturday"),
            Turn("user:hana", "new doctor since I moved — Dr Threlkeld, she's lovely and actually listens"),
        ),
        question="Who is Hana's doctor?",
        expect=("threlkeld",),
        reject=("almqvist",),
    ),
    HeldOut(
        id="second-update-manager-reorg",
        kind="update",
        form="chat",
        events=(
            Turn("user:wren", "my manager is Costa, he's pretty chill about remote days"),
            Turn("user:wren", "reorg happened last week, I report to Idun Halvorsen now. different vibe entirely"),
        ),
        question="Who is Wren's manager?",
        expect=("idun",),
        reject=("costa",),
    ),
    HeldOut(
        id="second-update-control-sister-job",
        kind="update",
        form="chat",
        events=(
            Turn("user:matteo", "I work at Lindqvist Bakery, early shifts 😴 like 4am starts"),
            Turn("user:matteo", "my sister just got hired at Orrin Labs!! so proud of her, she worked so hard for it"),
        ),
        question="Where does Matteo work?",
        expect=("lindqvist",),
        reject=("orrin",),
    ),
    HeldOut(
        id="second-update-control-second-phone",
        kind="update",
        form="chat",
        events=(
            Turn("user:zofia", "my personal cell is 0755 210 3381, text me there"),
            Turn("user:zofia", "also my work line is 020 7946 1180 but thats only for office hours"),
        ),
        question="What's Zofia's personal cell number?",
        expect=("3381",),
        reject=("1180",),
    ),
    HeldOut(
        id="second-update-control-maybe-moving",
        kind="update",
        form="chat",
        events=(
            Turn("user:ansel", "I live in Corrick, near the old mill by the river"),
            Turn("user:ansel",
                 "thinking about maybe moving to Westerhale next year if the job thing works out, idk, we'll see"),
        ),
        question="Where does Ansel live?",
        expect=("corrick",),
        reject=("westerhale",),
    ),
    HeldOut(
        id="second-update-control-college-job",
        kind="update",
        form="chat",
        events=(
            Turn("user:bettina", "I work as a sound engineer at Tallowmere Studios, mostly podcasts and some bands"),
            Turn("user:bettina",
                 "funny story, back in college I waited tables at the Blue Heron diner for 2 years and hated every "
                 "minute"),
        ),
        question="Where does Bettina work?",
        expect=("tallowmere",),
        reject=("heron",),
    ),
    HeldOut(
        id="second-update-gym-hedge-settled",
        kind="update",
        form="chat",
        events=(
            Turn("user:rafe", "I train at Stonebridge Gym 4x a week, legs on mondays obviously"),
            Turn("user:rafe",
                 "might switch gyms, either IronLeaf or Pulse Yard, not sure yet, stonebridge got so pricey"),
            Turn("user:rafe", "signed the contract at pulse yard today 💪 first session tmrw"),
        ),
        question="Which gym does Rafe go to?",
        expect=("pulse",),
        reject=("stonebridge", "ironleaf"),
    ),
    # ------------------------------------------------------------------
    # UPDATE — note
    # ------------------------------------------------------------------
    HeldOut(
        id="second-update-note-team-move",
        kind="update",
        form="note",
        events=(
            Turn("user:hr-desk", "Gunnar Eklund joins the Payments team as a backend engineer, starting Monday."),
            Turn("user:hr-desk", "Reminder: quarterly fire drill on the 12th, all staff."),
            Turn("user:hr-desk", "Gunnar has moved over to the Search Relevance squad effective this sprint."),
        ),
        question="Which team is Gunnar on?",
        expect=("relevance",),
        reject=("payments",),
    ),
    HeldOut(
        id="second-update-note-school-transfer",
        kind="update",
        form="note",
        events=(
            Turn("user:office-admin", "Parent meeting notes: Ilse's son Bruno attends Hollowmere Primary, year 4."),
            Turn("user:office-admin", "Bruno now attends Kettlewick Academy after the family's move over the summer."),
        ),
        question="What school does Bruno go to?",
        expect=("kettlewick",),
        reject=("hollowmere",),
    ),
    HeldOut(
        id="second-update-note-meeting-day",
        kind="update",
        form="note",
        events=(
            Turn("user:team-lead", "Standup with Marisol's design group is every Tuesday at 10, room Alder."),
            Turn("user:team-lead", "Budget review slides are due end of month."),
            Turn("user:team-lead", "Heads up: Marisol moved her group's weekly sync to Thursdays starting next week."),
        ),
        question="What day does Marisol's group meet?",
        expect=("thursdays",),
        reject=("tuesday",),
    ),
    HeldOut(
        id="second-update-note-plan-tier",
        kind="update",
        form="note",
        events=(
            Turn("user:accounts", "Client note: Ekaterina is on the Bronze tier of the Lumora plan, billed monthly."),
            Turn("user:accounts", "Ekaterina upgraded her Lumora account to Platinum today, prorated invoice sent."),
        ),
        question="What plan tier is Ekaterina on?",
        expect=("platinum",),
        reject=("bronze",),
    ),
    HeldOut(
        id="second-update-note-control-wife-physio",
        kind="update",
        form="note",
        events=(
            Turn("user:clinic-desk", "Ruairi's physiotherapist is Aoife Brennan, sessions on Wednesdays for his knee."),
            Turn("user:clinic-desk",
                 "Ruairi's wife Clodagh mentioned she sees a physio called Declan Farrow for her shoulder."),
        ),
        question="Who is Ruairi's physiotherapist?",
        expect=("brennan",),
        reject=("farrow",),
    ),
    HeldOut(
        id="second-update-note-project-owner",
        kind="update",
        form="note",
        events=(
            Turn("user:pm-notes", "Project Larkspur kickoff: owner is Yusuf Amari, target launch Q3."),
            Turn("user:pm-notes",
                 "Larkspur: Thea Lindgren is the owner going forward, all approvals route through her."),
        ),
        question="Who owns Project Larkspur?",
        expect=("thea",),
        reject=("yusuf",),
    ),
    # ------------------------------------------------------------------
    # UPDATE — ticket
    # ------------------------------------------------------------------
    HeldOut(
        id="second-update-ticket-status-resolved",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:support", "Ticket 4471: customer Brigid cannot log in after password reset. Status: triage."),
            Turn("agent:support", "Ticket 4471 resolved, cache cleared and Brigid confirmed login works."),
        ),
        question="What's the status of ticket 4471?",
        expect=("resolved",),
        reject=("triage",),
    ),
    HeldOut(
        id="second-update-ticket-priority-bump",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:helpdesk", "#5820 Halvard reports the invoice PDF comes out blank. Priority: P4."),
            Turn("agent:helpdesk", "#5820 escalated, now P1 because Halvard's audit is on Friday."),
        ),
        question="What priority is ticket 5820?",
        expect=("p1",),
        reject=("p4",),
    ),
    HeldOut(
        id="second-update-ticket-reassigned",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:support", "Ticket 3109 (Odile, sync broken on her tablet) assigned to Marcus."),
            Turn("agent:support", "3109 reassigned to Farah from the mobile team."),
        ),
        question="Who is handling ticket 3109?",
        expect=("farah",),
        reject=("marcus",),
    ),
    HeldOut(
        id="second-update-ticket-due-date",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:ops", "Ticket 2264: replace Soren's laptop battery, due March 14."),
            Turn("agent:ops", "2264 due date pushed to March 28, parts are backordered."),
        ),
        question="When is ticket 2264 due?",
        expect=("28",),
        reject=("14",),
    ),
    HeldOut(
        id="second-update-ticket-control-other-ticket",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:support", "Ticket 7702 for Leontine (VPN drops every hour): assigned to Piotr."),
            Turn("agent:support",
                 "Ticket 7703, unrelated, for Leontine's colleague Basil (printer jam): assigned to Greta."),
        ),
        question="Who is handling ticket 7702?",
        expect=("piotr",),
        reject=("greta",),
    ),
    HeldOut(
        id="second-update-ticket-contact-email",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:support", "Ticket 6015: Casimir's contact email on file is casimir@tollbridge.co."),
            Turn("agent:support",
                 "Ticket 6015: Casimir asked us to update his contact email to casimir.v@wrenfield.io."),
        ),
        question="What's Casimir's contact email?",
        expect=("wrenfield",),
        reject=("tollbridge",),
    ),
    # ------------------------------------------------------------------
    # TWO SUBJECTS — chat
    # ------------------------------------------------------------------
    HeldOut(
        id="second-two-cars-brother",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:joaquin",
                 "I drive a Marlow Ridgeback and my brother Ezra has this tiny Pella Zippet, he can barely fit in "
                 "it lol"),
        ),
        question="What car does Joaquin drive?",
        expect=("ridgeback",),
        reject=("zippet",),
    ),
    HeldOut(
        id="second-two-ages-sister",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:ana", "i'm 29 and my sister Bea is 34, she hates when i say that out loud"),
        ),
        question="How old is Ana?",
        expect=("29",),
        reject=("34",),
    ),
    HeldOut(
        id="second-two-pets-roommate",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:keiko",
                 "my dog Waffles is a corgi and my roommate's cat Mochi is a sphynx, they are weirdly best friends "
                 "🐶🐱"),
        ),
        question="What breed is Keiko's dog?",
        expect=("corgi",),
        reject=("sphynx",),
    ),
    HeldOut(
        id="second-two-kids-schools",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:deshawn",
                 "school run is chaos, my daughter Amara goes to Pinecrest Elementary and my son Jalen's at "
                 "Rookwood Middle, opposite ends of town"),
        ),
        question="What school does Deshawn's son go to?",
        expect=("rookwood",),
        reject=("pinecrest",),
    ),
    HeldOut(
        id="second-two-coworkers-duties",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:svea", "on my team Henrik handles billing and Malin does onboarding, I just nag them both"),
        ),
        question="What does Malin handle on Svea's team?",
        expect=("onboarding",),
        reject=("billing",),
    ),
    HeldOut(
        id="second-two-rooms-paint",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:orla",
                 "finally finished painting!! the guest room is sage green and our bedroom's a dusty terracotta, "
                 "took all weekend"),
        ),
        question="What color is Orla's bedroom?",
        expect=("terracotta",),
        reject=("sage",),
    ),
    HeldOut(
        id="second-two-staging-prod-builds",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:ravi",
                 "fyi staging runs build 4418 while prod is still stuck on build 4390 until the freeze ends"),
        ),
        question="What build is Ravi's prod running?",
        expect=("4390",),
        reject=("4418",),
    ),
    HeldOut(
        id="second-two-spouse-employer",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:elif",
                 "I teach chemistry at Dunholm High and my husband Cem is an architect at Vossberg and Lund, so "
                 "dinner talk is very nerdy"),
        ),
        question="Where does Elif's husband work?",
        expect=("vossberg",),
        reject=("dunholm",),
    ),
    HeldOut(
        id="second-two-parents-cities",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:mateus",
                 "holidays are complicated, my mum lives in Ferrowby and dad moved to Glenmarrow after the divorce "
                 "so its two trips"),
        ),
        question="Where does Mateus's mum live?",
        expect=("ferrowby",),
        reject=("glenmarrow",),
    ),
    HeldOut(
        id="second-two-fav-food-friend",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:noor",
                 "my fav food is shakshuka, my bff Lina is obsessed with pho instead, we never agree where to eat"),
        ),
        question="What's Noor's favorite food?",
        expect=("shakshuka",),
        reject=("pho",),
    ),
    HeldOut(
        id="second-two-birthdays-partner",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:tamsin",
                 "my birthday is 9 July and my partner Jory's is 22 November, so we kind of get two party seasons"),
        ),
        question="When is Tamsin's partner's birthday?",
        expect=("22", "november"),
        reject=("july",),
    ),
    # ------------------------------------------------------------------
    # TWO SUBJECTS — note
    # ------------------------------------------------------------------
    HeldOut(
        id="second-two-note-new-hires-managers",
        kind="two_subjects",
        form="note",
        events=(
            Turn("user:hr-desk", "Onboarding: Priyanka joins Finance under Olu; Dmitri joins Legal under Sabine."),
        ),
        question="Who is Dmitri's manager?",
        expect=("sabine",),
        reject=("olu",),
    ),
    HeldOut(
        id="second-two-note-desk-assignments",
        kind="two_subjects",
        form="note",
        events=(
            Turn("user:facilities",
                 "Desk assignments: Rosalind sits at desk 4B on floor three, Tomasz at desk 7F on floor five."),
        ),
        question="Which desk is Tomasz at?",
        expect=("7f",),
        reject=("4b",),
    ),
    HeldOut(
        id="second-two-note-vet-two-pets",
        kind="two_subjects",
        form="note",
        events=(
            Turn("user:vet-clinic",
                 "Owner Hallie brought in two: Biscuit (beagle, 12 kg, due for rabies booster) and Fennel (tabby, "
                 "needs dental cleaning)."),
        ),
        question="What does Hallie's cat Fennel need?",
        expect=("dental",),
        reject=("rabies",),
    ),
    HeldOut(
        id="second-two-note-athletes-events",
        kind="two_subjects",
        form="note",
        events=(
            Turn("user:coach-notes", "Athletes: Inez runs the 800m, her brother Paulo does the triple jump."),
        ),
        question="What event does Inez compete in?",
        expect=("800m",),
        reject=("triple",),
    ),
    # ------------------------------------------------------------------
    # TWO SUBJECTS — ticket
    # ------------------------------------------------------------------
    HeldOut(
        id="second-two-ticket-two-reports",
        kind="two_subjects",
        form="ticket",
        events=(
            Turn("agent:support",
                 "Two reports from Wilhelmina: #8120 the export button is greyed out, #8121 her avatar upload fails"
                 " with a size error."),
        ),
        question="What's ticket 8121 about?",
        expect=("avatar",),
        reject=("export",),
    ),
    HeldOut(
        id="second-two-ticket-hardware-colleagues",
        kind="two_subjects",
        form="ticket",
        events=(
            Turn("agent:it-desk",
                 "Ticket 9033: Benedikt's laptop needs a new keyboard; his colleague Ottilie's monitor flickers and"
                 " needs a replacement cable."),
        ),
        question="What does Benedikt's laptop need?",
        expect=("keyboard",),
        reject=("flickers", "cable"),
    ),
    HeldOut(
        id="second-two-ticket-staging-prod-release",
        kind="two_subjects",
        form="ticket",
        events=(
            Turn("agent:support",
                 "Ticket 4550: Caspian's staging environment runs release 2207, his production is still on release "
                 "2188."),
        ),
        question="What release is Caspian's production environment on?",
        expect=("2188",),
        reject=("2207",),
    ),
    # ------------------------------------------------------------------
    # FORGET — chat
    # ------------------------------------------------------------------
    HeldOut(
        id="second-forget-home-address",
        kind="forget",
        form="chat",
        events=(
            Turn("user:anneke", "my home address is 14 Quillan Road, Marshby, in case the parcel form asks"),
            Turn("user:anneke", "actually please forget my address, I shouldn't have shared it here"),
        ),
        question="What is Anneke's address?",
        expect=(),
        reject=("quillan", "marshby"),
    ),
    HeldOut(
        id="second-forget-diagnosis",
        kind="forget",
        form="chat",
        events=(
            Turn("user:jorge", "so I was diagnosed with celiac disease last spring, which explains a lot honestly"),
            Turn("user:jorge", "what time does the pharmacy close on sundays"),
            Turn("user:jorge", "can you delete what I told you about my diagnosis? rather keep that private"),
        ),
        question="What was Jorge diagnosed with?",
        expect=(),
        reject=("celiac",),
    ),
    HeldOut(
        id="second-forget-salary",
        kind="forget",
        form="chat",
        events=(
            Turn("user:beatrix", "my salary is 84k before tax, feels low for this city tbh"),
            Turn("user:beatrix", "can u not remember my salary pls 🙏 idk why i typed that"),
        ),
        question="What's Beatrix's salary?",
        expect=(),
        reject=("84k",),
    ),
    HeldOut(
        id="second-forget-ex-name",
        kind="forget",
        form="chat",
        events=(
            Turn("user:oisin", "my ex is called Fintan and honestly he was awful to me the whole time"),
            Turn("user:oisin", "scrub the bit about my ex pls, don't want that stored anywhere"),
        ),
        question="Who is Oisin's ex?",
        expect=(),
        reject=("fintan",),
    ),
    HeldOut(
        id="second-forget-passport-number",
        kind="forget",
        form="chat",
        events=(
            Turn("user:yasmin", "for the booking, my passport number is K7730195"),
            Turn("user:yasmin", "booking's done, forget my passport number now please"),
        ),
        question="What is Yasmin's passport number?",
        expect=(),
        reject=("k7730195",),
    ),
    HeldOut(
        id="second-forget-therapy-keep-race",
        kind="forget",
        form="chat",
        events=(
            Turn("user:lucan", "I've been seeing a therapist, Dr. Everly Rooke, every monday after work"),
            Turn("user:lucan", "also training for the Haverford half marathon in may, up to 16k long runs now"),
            Turn("user:lucan", "pls forget the therapy stuff, the running stuff is fine to keep"),
        ),
        question="What race is Lucan training for?",
        expect=("haverford",),
        reject=("rooke",),
    ),
    HeldOut(
        id="second-forget-weight",
        kind="forget",
        form="chat",
        events=(
            Turn("user:marguerite", "i'm 92 kilos right now, trying to lose some before the wedding"),
            Turn("user:marguerite", "actually delete my weight from your memory, that's embarrassing 😬"),
        ),
        question="How much does Marguerite weigh?",
        expect=(),
        reject=("92",),
    ),
    # ------------------------------------------------------------------
    # FORGET — note
    # ------------------------------------------------------------------
    HeldOut(
        id="second-forget-note-medical-leave",
        kind="forget",
        form="note",
        events=(
            Turn("user:hr-desk", "Confidential: Halima is on medical leave for hip surgery until June."),
            Turn("user:hr-desk",
                 "Per Halima's request, delete the medical details from her file. Leave dates stay on the calendar."),
        ),
        question="Why is Halima on leave?",
        expect=(),
        reject=("hip", "surgery"),
    ),
    HeldOut(
        id="second-forget-note-contact-keep-unit",
        kind="forget",
        form="note",
        events=(
            Turn("user:tenant-office", "Tenant Cordelia rents unit 5C at Ashgrove Court, lease through next August."),
            Turn("user:tenant-office", "Cordelia's emergency contact: her brother Lucius, 0770 118 4432."),
            Turn("user:tenant-office",
                 "Cordelia asked that we not retain her emergency contact details; please forget them."),
        ),
        question="Which unit does Cordelia rent?",
        expect=("5c",),
        reject=("4432", "lucius"),
    ),
    # ------------------------------------------------------------------
    # FORGET — ticket
    # ------------------------------------------------------------------
    HeldOut(
        id="second-forget-ticket-billing-details",
        kind="forget",
        form="ticket",
        events=(
            Turn("agent:support",
                 "Ticket 3380: Valentin provided card ending 6621 and billing address 9 Tern Lane for verification."),
            Turn("agent:support",
                 "Ticket 3380: Valentin requested we purge his card and address details from the ticket."),
        ),
        question="What's Valentin's billing address?",
        expect=(),
        reject=("tern", "6621"),
    ),
    HeldOut(
        id="second-forget-ticket-dob-keep-router",
        kind="forget",
        form="ticket",
        events=(
            Turn("agent:support",
                 "Ticket 5102: Giselle's home router is a Nettle AX9; issue is wifi dropouts every evening."),
            Turn("agent:support",
                 "Ticket 5102: Giselle shared her date of birth, 3 November 1988, for account verification."),
            Turn("agent:support",
                 "Ticket 5102: verification done, Giselle asked us to delete her date of birth from the ticket."),
        ),
        question="What router does Giselle have?",
        expect=("nettle",),
        reject=("1988",),
    ),
    HeldOut(
        id="second-forget-ticket-family-details",
        kind="forget",
        form="ticket",
        events=(
            Turn("agent:helpdesk",
                 "Ticket 6640: Augustin needs the joint account moved to his own name because he and his wife "
                 "Marisa are separating."),
            Turn("agent:helpdesk",
                 "Ticket 6640: Augustin asked that we remove the personal and family details he shared."),
        ),
        question="Why does Augustin need the account moved?",
        expect=(),
        reject=("marisa", "separating"),
    ),
]
