"""Development cases by an eighth writer, in the held-out format (see bench/heldout.py): 30 updates, 15
two-subject turns and 15 forget requests, in chat, note and ticket form.

Written in one sitting by a helper session that had read neither the engine's code nor any other case
file, asked for the shapes users write (a new job without a job noun, "X is now my favourite Y", a
negated state, a sequence, a new value through a pronoun, a replacement told as an event, two subjects in
one sentence, forget requests that keep something else). Invented people, places and products; no
benchmark phrasing. First measured before any rule was changed for them (2026-12-07, on 82780b4): 48 of
60 (updates 24/30, two subjects 13/15, forget 11/15), where the held-out set gives 50 of 60 on the same
build. Rules may be built from their failures since: a development set.
"""

from __future__ import annotations

from tests.heldout_cases import HeldOut, Turn

CASES: list[HeldOut] = [
    # ------------------------------------------------------------------ updates
    HeldOut(
        id="eighth-update-chat-vennow-first-day",
        kind="update",
        form="chat",
        events=(
            Turn(
                "user:tamsin",
                "ugh monday again. i do payroll stuff at Grindle & Hask, it's fine, boring but fine, "
                "the coffee machine is honestly the only perk lol",
            ),
            Turn("assistant:bot", "Ha, a good coffee machine is underrated. Anything fun planned this week?"),
            Turn("user:tamsin", "nah just laundry and maybe the farmers market if it doesnt rain"),
            Turn(
                "user:tamsin",
                "ok BIG news. officially started at Vennow Analytics today!! new badge, new laptop, "
                "desk by the window, new me 😎",
            ),
            Turn("assistant:bot", "Congrats!! How did day one go?"),
        ),
        question="where does tamsin work these days?",
        expect=("vennow",),
        reject=("grindle",),
    ),
    HeldOut(
        id="eighth-update-chat-favourite-band-saltmarsh",
        kind="update",
        form="chat",
        events=(
            Turn(
                "user:bo",
                "my favourite band is The Cobbled Hours, saw them 4 times in this tiny pub in Wexley",
            ),
            Turn("assistant:bot", "Four times is dedication! Small venues are the best way to see a band."),
            Turn("user:bo", "random q but do u know any good recipes w leeks, i bought way too many"),
            Turn("assistant:bot", "Leek and potato soup is hard to beat, or try them braised in butter."),
            Turn(
                "user:bo",
                "ok hot take: Saltmarsh Radio is now my favorite band. the new album has been on repeat "
                "all week, sorry to my older self",
            ),
        ),
        question="what's my favorite band right now?",
        expect=("saltmarsh",),
        reject=("cobbled",),
    ),
    HeldOut(
        id="eighth-update-chat-not-vegan-anymore",
        kind="update",
        form="chat",
        events=(
            Turn("user:ines", "fyi i'm vegan so no cheese boards pls 😅 been fully plant based for 6 yrs"),
            Turn("assistant:bot", "Noted! I'll keep suggestions plant-based."),
            Turn("user:ines", "what's a good gift for a 30th? my friend is impossible to shop for"),
            Turn("assistant:bot", "An experience usually lands well — a class, a tasting, concert tickets."),
            Turn(
                "user:ines",
                "quick heads up, i'm not vegan anymore! went pescatarian back in march, fish tacos are "
                "back on the menu baby",
            ),
        ),
        question="what diet is ines on these days?",
        expect=("pescatarian",),
        reject=(),
    ),
    HeldOut(
        id="eighth-update-chat-quit-smoking",
        kind="update",
        form="chat",
        events=(
            Turn("user:wen", "i'm on like half a pack of Dunmore Reds a day, i know i know, don't start"),
            Turn("assistant:bot", "No lecture from me. If you ever want help cutting down, just say."),
            Turn("user:wen", "lol thx. anyway the weather is gross, been inside all weekend"),
            Turn(
                "user:wen",
                "3 weeks without a cig!!! i actually quit this time. patches + pure spite. my lungs "
                "feel weird but good weird",
            ),
            Turn("assistant:bot", "Three weeks is huge, well done!"),
        ),
        question="does wen still smoke?",
        expect=("quit",),
        reject=("dunmore",),
    ),
    HeldOut(
        id="eighth-update-chat-three-books-pellucid",
        kind="update",
        form="chat",
        events=(
            Turn("user:mei", "currently reading The Lantern Ledger, it's slow but i like the vibe"),
            Turn("assistant:bot", "Slow burns can be worth it. What's it about?"),
            Turn(
                "user:mei",
                "finished lantern ledger last night! now on Orchard of Small Knives, a friend swore by it",
            ),
            Turn("user:mei", "also my neighbour's rooster is back. 5am. every. single. day. send help"),
            Turn("assistant:bot", "Earplugs and solidarity. 🐓"),
            Turn(
                "user:mei",
                "ok the knives book was a dnf for me tbh, couldn't get into it. just started Pellucid "
                "Winter and i'm hooked already",
            ),
        ),
        question="What book is Mei reading at the moment?",
        expect=("pellucid",),
        reject=("orchard", "lantern"),
    ),
    HeldOut(
        id="eighth-update-chat-new-number-pronoun",
        kind="update",
        form="chat",
        events=(
            Turn("user:oskar", "if the clinic calls, my cell is 503-271-8840"),
            Turn("assistant:bot", "Noted, I'll use that."),
            Turn("user:oskar", "the appointment got moved anyway, whatever"),
            Turn(
                "user:oskar",
                "got a new number. it's 503-619-2207 — the old sim got fried when my phone went in the "
                "lake, long story, don't ask",
            ),
        ),
        question="what's Oskar's phone number?",
        expect=("2207",),
        reject=("8840",),
    ),
    HeldOut(
        id="eighth-update-chat-moved-to-tressick",
        kind="update",
        form="chat",
        events=(
            Turn("user:maren", "we're in Harlowe Bay, the little blue house by the ferry, the kids love it"),
            Turn("assistant:bot", "That sounds lovely. Do you take the ferry much?"),
            Turn("user:maren", "packing is hell. why do we own 9 colanders"),
            Turn(
                "user:maren",
                "we moved!! the new place is in Tressick, about 40 min north. way more space and an "
                "actual garden 🌱",
            ),
            Turn("assistant:bot", "Congrats on the move! Enjoy the garden."),
        ),
        question="what town does Maren live in now?",
        expect=("tressick",),
        reject=("harlowe",),
    ),
    HeldOut(
        id="eighth-update-chat-dog-to-kitten",
        kind="update",
        form="chat",
        events=(
            Turn("user:colm", "our dog Bramble turned 14 today, he's slow now but still steals socks"),
            Turn("assistant:bot", "Happy birthday to Bramble! Sock thieves never retire."),
            Turn(
                "user:colm",
                "our old boy passed away last month 😢 the house was so quiet without him. anyway we "
                "adopted a kitten on saturday, her name's Pickle and she is an absolute menace",
            ),
            Turn("assistant:bot", "I'm so sorry about your dog. And welcome, Pickle."),
        ),
        question="what's the name of colm's pet?",
        expect=("pickle",),
        reject=("bramble",),
    ),
    HeldOut(
        id="eighth-update-note-dov-relocated",
        kind="update",
        form="note",
        events=(
            Turn(
                "user:caseworker_ilona",
                "Intake note: Dov Arkin, 41, lives in Selbrook with his partner; commutes by train to "
                "the depot. Wants help with CV.",
            ),
            Turn("user:caseworker_ilona", "Note: Dov missed the 3rd appointment, rescheduled for next week."),
            Turn(
                "user:caseworker_ilona",
                "Follow-up note: Dov has relocated to Amberlea for his partner's new job. Forwarding "
                "address pending; keep sessions remote.",
            ),
        ),
        question="Which town does Dov Arkin live in now?",
        expect=("amberlea",),
        reject=("selbrook",),
    ),
    HeldOut(
        id="eighth-update-chat-seeing-someone-new",
        kind="update",
        form="chat",
        events=(
            Turn("user:rhea", "my boyfriend Cass is dragging me to a pottery class saturday lmao"),
            Turn("assistant:bot", "Could be fun! Wear clothes you don't mind ruining."),
            Turn("user:rhea", "ok so that's over. we ended things in june and honestly good riddance"),
            Turn("assistant:bot", "Sorry to hear it — sounds like you're doing okay though."),
            Turn(
                "user:rhea",
                "soooo i've been seeing someone new 👀 her name's Juno, she's a ceramicist (yes really, "
                "the universe has jokes)",
            ),
        ),
        question="who is rhea dating now?",
        expect=("juno",),
        reject=("cass",),
    ),
    HeldOut(
        id="eighth-update-chat-car-halden-brio",
        kind="update",
        form="chat",
        events=(
            Turn(
                "user:dez",
                "my car is an old Corvan Mistral, 200k miles and the heater only works on full blast",
            ),
            Turn("assistant:bot", "Sounds like it has character. Keep an eye on that heater core."),
            Turn(
                "user:dez",
                "traded it in lol. picked up a Halden Brio hatchback yesterday and it has HEATED SEATS, "
                "i'm crying",
            ),
        ),
        question="what car does Dez drive?",
        expect=("brio",),
        reject=("mistral",),
    ),
    HeldOut(
        id="eighth-update-chat-phone-nuvola",
        kind="update",
        form="chat",
        events=(
            Turn("user:kip", "my phone's a Zephra 9, screen is cracked in like 4 places"),
            Turn("assistant:bot", "Might be worth a repair before it spreads."),
            Turn("user:kip", "finally caved and bought the Nuvola X2. battery lasts two whole days 🙃"),
        ),
        question="what phone do I have?",
        expect=("nuvola",),
        reject=("zephra",),
    ),
    HeldOut(
        id="eighth-update-ticket-contact-email-shared-inbox",
        kind="update",
        form="ticket",
        events=(
            Turn(
                "reporter:kell",
                "Export to CSV fails with a timeout on reports over 10k rows. Please send updates to "
                "kell.ambry@quillnet.org.",
            ),
            Turn("agent:sunil", "Thanks Kell, reproduced on our side. Escalating to the reports team."),
            Turn(
                "reporter:kell",
                "Our contact changed, we've set up a shared inbox. Use ops-desk@harrowfield.co for this "
                "ticket going forward.",
            ),
            Turn("agent:sunil", "Updated, thanks."),
        ),
        question="What email should updates on Kell's ticket go to?",
        expect=("harrowfield",),
        reject=("quillnet",),
    ),
    HeldOut(
        id="eighth-update-chat-daughter-switched-school",
        kind="update",
        form="chat",
        events=(
            Turn("user:petra", "my daughter Ada goes to Wexmoor Primary, she's in the year 2 class"),
            Turn("assistant:bot", "Nice! Does she like it?"),
            Turn("user:petra", "mostly, she hates the lunches lol"),
            Turn(
                "user:petra",
                "ada switched schools after winter break, she's at Lindenhollow Academy now and she "
                "already has a best friend named Tilly 😭",
            ),
        ),
        question="what school does my daughter go to?",
        expect=("lindenhollow",),
        reject=("wexmoor",),
    ),
    HeldOut(
        id="eighth-update-chat-team-fathom",
        kind="update",
        form="chat",
        events=(
            Turn("user:jory", "i'm on team Gannet, we own all the payments stuff"),
            Turn("assistant:bot", "Payments — high stakes! Fun though."),
            Turn("user:jory", "lunch rec near the office? so bored of the sandwich place"),
            Turn("assistant:bot", "Is there a ramen spot nearby? Always a safe bet."),
            Turn(
                "user:jory",
                "update: as of this sprint they moved me over to Fathom (search infra). totally "
                "different codebase, send prayers",
            ),
        ),
        question="which team is jory on?",
        expect=("fathom",),
        reject=("gannet",),
    ),
    HeldOut(
        id="eighth-update-chat-reorg-new-manager",
        kind="update",
        form="chat",
        events=(
            Turn("user:anke", "my manager Ilse Brandvold wants the deck by friday, classic"),
            Turn("assistant:bot", "Want help outlining it?"),
            Turn(
                "user:anke",
                "maybe later. big reorg announced today. i report to Teodor Maas now. he seems chill? we'll see",
            ),
        ),
        question="who's my manager?",
        expect=("maas",),
        reject=("brandvold",),
    ),
    HeldOut(
        id="eighth-update-chat-gym-cragloft",
        kind="update",
        form="chat",
        events=(
            Turn("user:nell", "i go to Ironvale Fitness on 5th, mostly for the sauna if im honest"),
            Turn("assistant:bot", "The sauna is a perfectly valid reason."),
            Turn(
                "user:nell",
                "cancelled that membership. joined Cragloft, the climbing gym by the canal. way more fun "
                "and my forearms hate me",
            ),
        ),
        question="which gym does Nell go to?",
        expect=("cragloft",),
        reject=("ironvale",),
    ),
    HeldOut(
        id="eighth-update-chat-hobby-bookbinding",
        kind="update",
        form="chat",
        events=(
            Turn("user:sefa", "learning the bandoneon!! its so hard, the buttons make zero sense"),
            Turn("assistant:bot", "It's famously tricky — the layout changes push vs pull. Stick with it!"),
            Turn("user:sefa", "how do u get candle wax out of a tablecloth"),
            Turn("assistant:bot", "Freeze it, scrape, then iron between paper towels."),
            Turn(
                "user:sefa",
                "gave up on that instrument lol. now i'm obsessed with bookbinding, made a little "
                "notebook with coptic stitch this weekend",
            ),
        ),
        question="what hobby is Sefa into?",
        expect=("bookbinding",),
        reject=("bandoneon",),
    ),
    HeldOut(
        id="eighth-update-chat-vendor-sync-day",
        kind="update",
        form="chat",
        events=(
            Turn("user:ravi", "reminder to self: vendor sync with Kolbeck Supply is every tuesday at 2"),
            Turn("assistant:bot", "Got it, I'll remember that."),
            Turn("user:ravi", "they asked to move it. the vendor sync is thursday afternoons from now on"),
        ),
        question="what day is the Kolbeck vendor sync?",
        expect=("thursday",),
        reject=("tuesday",),
    ),
    HeldOut(
        id="eighth-update-ticket-monthly-price",
        kind="update",
        form="ticket",
        events=(
            Turn(
                "reporter:margit",
                "We're being charged $480/month on the Teal plan but we only have 6 seats. Is that right?",
            ),
            Turn("agent:obi", "Looking into it. It looks like your account was left on legacy pricing."),
            Turn(
                "agent:obi",
                "Fixed: after the migration your plan bills at $365/month, starting with the next invoice.",
            ),
            Turn("reporter:margit", "Perfect, thanks!"),
        ),
        question="How much is Margit's monthly bill now?",
        expect=("365",),
        reject=("480",),
    ),
    HeldOut(
        id="eighth-update-ticket-agent-build",
        kind="update",
        form="ticket",
        events=(
            Turn(
                "reporter:hugo",
                "Sync daemon crashes on startup. We're running Ledgerly agent build 4471 on all nodes.",
            ),
            Turn("agent:wren", "Can you attach logs? There's also a newer build you could try."),
            Turn(
                "reporter:hugo",
                "Rolled every node to build 5093 this morning, crash still happens. Logs attached.",
            ),
        ),
        question="What build is Hugo running?",
        expect=("5093",),
        reject=("4471",),
    ),
    HeldOut(
        id="eighth-update-chat-son-birthday",
        kind="update",
        form="chat",
        events=(
            Turn("user:lowri", "my son Fenn is 6 and obsessed with dinosaurs, any book recs?"),
            Turn("assistant:bot", "Picture encyclopedias are a hit at that age — big pages, lots of teeth."),
            Turn(
                "user:lowri",
                "Fenn turned 7 yesterday!! dino cake, eleven kids, absolute chaos, i need a nap",
            ),
        ),
        question="how old is Fenn?",
        expect=("7",),
        reject=("6",),
    ),
    HeldOut(
        id="eighth-update-chat-got-engaged",
        kind="update",
        form="chat",
        events=(
            Turn("user:ama", "i'm single, no kids, very much enjoying my peace lol"),
            Turn("assistant:bot", "Sounds like a good place to be."),
            Turn("user:ama", "what's a good plant that can't die. asking for me"),
            Turn("assistant:bot", "A snake plant. It thrives on neglect."),
            Turn(
                "user:ama",
                "guess who got ENGAGED 💍💍 Soren asked on the pier at Kittiwake Point and i ugly cried",
            ),
        ),
        question="what's my relationship status?",
        expect=("engaged",),
        reject=("single",),
    ),
    HeldOut(
        id="eighth-update-chat-brother-job-not-mine",
        kind="update",
        form="chat",
        events=(
            Turn("user:gwil", "my brother Aled works at Quarrystone Bank, he won't shut up about his bonus"),
            Turn("assistant:bot", "Ha, every family has one."),
            Turn(
                "user:gwil",
                "anyway news on my end: joined Brightwick Foods last week, doing supply planning. first "
                "real grown-up job!",
            ),
        ),
        question="where do I work?",
        expect=("brightwick",),
        reject=("quarrystone",),
    ),
    HeldOut(
        id="eighth-update-chat-sister-moved-not-me",
        kind="update",
        form="chat",
        events=(
            Turn(
                "user:saoirse",
                "I live in Corrowmere, tiny flat above a bakery, it smells amazing every morning",
            ),
            Turn("assistant:bot", "Living above a bakery sounds dangerous in the best way."),
            Turn(
                "user:saoirse",
                "my sister just moved to Eastfold. she got a whole house for what i pay in rent, im so "
                "jealous",
            ),
        ),
        question="where do I live?",
        expect=("corrowmere",),
        reject=("eastfold",),
    ),
    HeldOut(
        id="eighth-update-chat-partner-number-not-mine",
        kind="update",
        form="chat",
        events=(
            Turn("user:bex", "my number is 0749 220 1186 if you need it for the booking"),
            Turn("assistant:bot", "Thanks, saved."),
            Turn("user:bex", "oh and Dani changed her number, it's 0749 884 3012 now"),
        ),
        question="what's my phone number?",
        expect=("1186",),
        reject=("3012",),
    ),
    HeldOut(
        id="eighth-update-note-project-reassigned",
        kind="update",
        form="note",
        events=(
            Turn(
                "user:hr_tomas",
                "Onboarding note: Priyam Desai joins the platform group, assigned to Project Halyard.",
            ),
            Turn("user:hr_tomas", "Note: laptop delivered, access requests filed, buddy is Kofi."),
            Turn(
                "user:hr_tomas",
                "Update: Priyam reassigned to Project Soapstone effective 1 May, per her lead.",
            ),
        ),
        question="Which project is Priyam on?",
        expect=("soapstone",),
        reject=("halyard",),
    ),
    HeldOut(
        id="eighth-update-chat-email-after-hack",
        kind="update",
        form="chat",
        events=(
            Turn("user:juni", "my email's juni.padd@fernpost.net for the newsletter thing"),
            Turn("assistant:bot", "Got it."),
            Turn("user:juni", "new email, the old one got hacked 🙄 it's jpadd.writes@lumora.mail"),
        ),
        question="what's Juni's email?",
        expect=("lumora",),
        reject=("fernpost",),
    ),
    HeldOut(
        id="eighth-update-note-first-week-catering",
        kind="update",
        form="note",
        events=(
            Turn(
                "user:coach_aiyana",
                "Career coaching note: Halvard works as a line cook at Bistro Merrin, wants to move into "
                "catering within a year.",
            ),
            Turn("user:coach_aiyana", "Session 2: reworked CV, practised interview answers."),
            Turn(
                "user:coach_aiyana",
                "Session 4: Halvard's first week at Tidewright Catering went well. Nervous about the "
                "knife skills test on Friday.",
            ),
        ),
        question="where is Halvard working now?",
        expect=("tidewright",),
        reject=("merrin",),
    ),
    HeldOut(
        id="eighth-update-ticket-assignee-three-handoffs",
        kind="update",
        form="ticket",
        events=(
            Turn("agent:dispatch", "Assigning to Pim Rutgers for initial triage."),
            Turn("agent:pim", "Pim here — I'm out from tomorrow, reassigning to Gudrun Hale."),
            Turn("reporter:ottavio", "Any update? Print queue on floor 3 is still stuck."),
            Turn("agent:dispatch", "Handing this over to Zoltan Arkwell for the weekend rotation."),
        ),
        question="Who is the ticket assigned to now?",
        expect=("zoltan",),
        reject=("gudrun", "pim"),
    ),
    # ------------------------------------------------------------------ two subjects
    HeldOut(
        id="eighth-two-chat-husband-pickup",
        kind="two_subjects",
        form="chat",
        events=(
            Turn(
                "user:hollis",
                "my husband's got the Rennick Tor pickup while i'm stuck with the tiny Ossa Pip, which "
                "is fine until we need to haul literally anything",
            ),
            Turn("assistant:bot", "Sounds like a good division of labour."),
        ),
        question="what does my husband drive?",
        expect=("rennick",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-chat-cats-ages",
        kind="two_subjects",
        form="chat",
        events=(
            Turn(
                "user:tilde",
                "update on the cats: Biscuit is 4, Marzipan just turned 11. both tabbies, both gremlins",
            ),
            Turn("assistant:bot", "Happy belated to Marzipan!"),
            Turn("user:tilde", "she got tuna, she's thriving"),
        ),
        question="how old is Marzipan?",
        expect=("11",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-ticket-account-owners",
        kind="two_subjects",
        form="ticket",
        events=(
            Turn("reporter:signe", "Invoices for our northern subsidiaries show the wrong VAT rate."),
            Turn(
                "agent:leena",
                "For routing: Ottilie handles the Brecon account whereas Dmitri owns everything in the "
                "Nordic region, so I'm looping him in.",
            ),
        ),
        question="Who owns the Nordic region?",
        expect=("dmitri",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-chat-sister-and-mum",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:magnus", "family stuff is a lot this month"),
            Turn("assistant:bot", "Want to talk through it?"),
            Turn(
                "user:magnus",
                "eh. my sister Hanne lives in Vellmoor now. Mum's still out in Ashcombe Cross, won't "
                "leave the farm for anything, so it's me driving between the two every weekend",
            ),
        ),
        question="where does my mom live?",
        expect=("ashcombe",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-note-children-allergies",
        kind="two_subjects",
        form="note",
        events=(
            Turn(
                "user:nurse_odile",
                "Intake note: two children on file. Daughter Ysolde (9) is allergic to peanuts; son "
                "Tobiah (12) is allergic to penicillin. Both vaccinations current.",
            ),
        ),
        question="What is Tobiah allergic to?",
        expect=("penicillin",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-ticket-clients-per-user",
        kind="two_subjects",
        form="ticket",
        events=(
            Turn("reporter:fenna", "Notifications stopped arriving sometime Tuesday."),
            Turn("agent:marek", "Which clients are the affected people using?"),
            Turn(
                "reporter:fenna",
                "Two people on my team: Greta uses the Skiff mobile app, while Pavlo is on the Quayside "
                "desktop client (Linux).",
            ),
        ),
        question="Which client is Pavlo on?",
        expect=("quayside",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-chat-three-kids-schools",
        kind="two_subjects",
        form="chat",
        events=(
            Turn(
                "user:dalia",
                "ok school run logistics from hell: Elowen is at Brackenfield Middle, Rafe's at "
                "Tumbleweed kindergarten and baby Noor starts daycare in september. i need a clone",
            ),
            Turn("assistant:bot", "That's three drop-offs — want help planning a route?"),
        ),
        question="where does Rafe go to school?",
        expect=("tumbleweed",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-chat-roommate-bakery",
        kind="two_subjects",
        form="chat",
        events=(
            Turn(
                "user:theo",
                "i'm a total night owl but my roommate Caspian is up at 4:30 for his shift at the bakery "
                "on Pell Street, so we basically live in different timezones",
            ),
            Turn("assistant:bot", "At least the free bread must help."),
            Turn("user:theo", "the free bread is the only reason we're still friends"),
        ),
        question="what does Caspian do for work?",
        expect=("bakery",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-chat-birthdays-semicolon",
        kind="two_subjects",
        form="chat",
        events=(
            Turn(
                "user:liv",
                "writing these down before i forget again: Lotte's birthday is 14 April; Gerrit's is 2 November.",
            ),
            Turn("assistant:bot", "Saved both."),
        ),
        question="when is Gerrit's birthday?",
        expect=("november",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-chat-parrot-tortoise-food",
        kind="two_subjects",
        form="chat",
        events=(
            Turn(
                "user:yusuf",
                "pet sitter instructions, pls keep: the parrot (Figaro) only eats Sunnybeak pellets, and "
                "Mossback the tortoise gets dandelion greens + the occasional strawberry",
            ),
        ),
        question="what does Mossback eat?",
        expect=("dandelion",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-ticket-two-contacts-emails",
        kind="two_subjects",
        form="ticket",
        events=(
            Turn("reporter:anouk", "Our invoices are being sent to an old address."),
            Turn(
                "agent:corin",
                "cc'ing both contacts: Anouk (technical) is anouk@trellisworks.io and Raymond from "
                "billing is r.fahey@copperlane.biz.",
            ),
        ),
        question="What's Raymond's email?",
        expect=("copperlane",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-chat-parents-jobs",
        kind="two_subjects",
        form="chat",
        events=(
            Turn(
                "user:perrin",
                "my dad fixes boat engines down at Gullhaven marina and my mom teaches chemistry at Rook "
                "Hill High",
            ),
            Turn("assistant:bot", "Practical family! Did any of that rub off on you?"),
            Turn("user:perrin", "i can blow things up and then fail to fix them so, half"),
        ),
        question="where does my mom teach?",
        expect=("rook",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-note-ferro-household",
        kind="two_subjects",
        form="note",
        events=(
            Turn(
                "user:carer_jo",
                "Household note: Mr. Ferro takes his meds at 8am with breakfast. Mrs. Ferro's physio is "
                "Thursdays at Calder Clinic, taxi already booked.",
            ),
        ),
        question="Where does Mrs. Ferro go for physio?",
        expect=("calder",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-chat-wife-tea",
        kind="two_subjects",
        form="chat",
        events=(
            Turn(
                "user:eskil",
                "i'm a dark roast guy through and through, but my wife Sunniva only drinks Kettlebrook oolong",
            ),
            Turn("assistant:bot", "A household of two very different mornings."),
        ),
        question="what tea does my wife drink?",
        expect=("kettlebrook",),
        reject=(),
    ),
    HeldOut(
        id="eighth-two-chat-nephews-instruments",
        kind="two_subjects",
        form="chat",
        events=(
            Turn("user:idony", "my cousin Lisbet plays cello in a community orchestra, concert's sunday"),
            Turn("assistant:bot", "Enjoy the concert!"),
            Turn(
                "user:idony",
                "nephew update: Arvo plays the oboe now and Kit picked the euphonium. god help my ears "
                "at christmas",
            ),
        ),
        question="what instrument does Kit play?",
        expect=("euphonium",),
        reject=("cello",),
    ),
    # ------------------------------------------------------------------ forget
    HeldOut(
        id="eighth-forget-chat-home-address",
        kind="forget",
        form="chat",
        events=(
            Turn("user:corwin", "my address is 14 Wrenlow Terrace, Pellham, for the delivery thing"),
            Turn("assistant:bot", "Got it."),
            Turn("user:corwin", "actually pls forget my address, i don't want that stored anywhere"),
            Turn("assistant:bot", "Done — I won't keep it."),
        ),
        question="what's Corwin's address?",
        expect=(),
        reject=("wrenlow",),
    ),
    HeldOut(
        id="eighth-forget-chat-address-keep-email",
        kind="forget",
        form="chat",
        events=(
            Turn("user:sabine", "email is sabine.orr@dovecote.me btw"),
            Turn("user:sabine", "and i'm at 22 Halloran Row, flat 3, buzzer's broken"),
            Turn("assistant:bot", "Thanks, noted both."),
            Turn("user:sabine", "on second thought forget my home address. the email is fine to keep"),
        ),
        question="what's Sabine's email?",
        expect=("dovecote",),
        reject=("halloran",),
    ),
    HeldOut(
        id="eighth-forget-chat-phone-number",
        kind="forget",
        form="chat",
        events=(
            Turn("user:ife", "my cell is 0412 778 9036 in case the courier needs it"),
            Turn("assistant:bot", "Saved."),
            Turn("user:ife", "is it normal for sourdough starter to smell like nail polish"),
            Turn("assistant:bot", "Yes — it's hungry. Feed it more often."),
            Turn("user:ife", "ok also delete what i said about my phone number please, i'd rather not"),
        ),
        question="what's my phone number?",
        expect=(),
        reject=("9036",),
    ),
    HeldOut(
        id="eighth-forget-chat-diagnosis",
        kind="forget",
        form="chat",
        events=(
            Turn(
                "user:marisa",
                "so i got diagnosed with hypothyroidism last week, explains why i've been so wiped out "
                "all the time. kind of a relief honestly",
            ),
            Turn("assistant:bot", "That must be a relief to have an answer. How are you feeling?"),
            Turn(
                "user:marisa",
                "fine. but scrap the info about my diagnosis, i'm not comfortable having that saved",
            ),
        ),
        question="what was I diagnosed with?",
        expect=(),
        reject=("hypothyroidism",),
    ),
    HeldOut(
        id="eighth-forget-chat-ex-name",
        kind="forget",
        form="chat",
        events=(
            Turn("user:rosalind", "my ex Tobias Lenk keeps liking my old photos from 2019, creepy much"),
            Turn("assistant:bot", "You could always block or restrict him."),
            Turn("user:rosalind", "forget my ex's name pls. don't want him anywhere in here"),
        ),
        question="what's my ex called?",
        expect=(),
        reject=("lenk", "tobias"),
    ),
    HeldOut(
        id="eighth-forget-chat-salary-keep-employer",
        kind="forget",
        form="chat",
        events=(
            Turn("user:idris", "i'm at Pelorus Systems, backend team, been there two years"),
            Turn("assistant:bot", "Nice, what stack?"),
            Turn("user:idris", "mostly go. they pay me 84k which is kinda low for the city honestly"),
            Turn("user:idris", "forget my salary, that's private. where i work is fine to keep though"),
        ),
        question="where does Idris work?",
        expect=("pelorus",),
        reject=("84k",),
    ),
    HeldOut(
        id="eighth-forget-note-client-address-removed",
        kind="forget",
        form="note",
        events=(
            Turn(
                "user:intake_selma",
                "Intake note: Marisol Quent's home address is 9 Fenwick Lane, Oaksett. Prefers text contact.",
            ),
            Turn(
                "user:intake_selma",
                "Note: at the client's request, please forget her home address — remove it from the "
                "record. Contact by text only.",
            ),
        ),
        question="What is Marisol's home address?",
        expect=(),
        reject=("fenwick",),
    ),
    HeldOut(
        id="eighth-forget-ticket-pasted-api-key",
        kind="forget",
        form="ticket",
        events=(
            Turn(
                "reporter:yann",
                "Webhook retries never fire. Here's the config; API key is tk_live_88fjq2 in case you "
                "need to reproduce.",
            ),
            Turn("agent:beatriz", "Thanks, trying to reproduce now."),
            Turn(
                "reporter:yann",
                "oops, shouldn't have pasted that. please forget the key I posted above, I've rotated it anyway.",
            ),
        ),
        question="What is Yann's API key?",
        expect=(),
        reject=("88fjq2",),
    ),
    HeldOut(
        id="eighth-forget-chat-birthday",
        kind="forget",
        form="chat",
        events=(
            Turn("user:ceri", "my birthday's july 9, just so you know 🎂"),
            Turn("assistant:bot", "Noted! Any plans?"),
            Turn("user:ceri", "actually forget my birthday. i hate the fuss, genuinely"),
        ),
        question="when is my birthday?",
        expect=(),
        reject=("july",),
    ),
    HeldOut(
        id="eighth-forget-chat-kids-school",
        kind="forget",
        form="chat",
        events=(
            Turn(
                "user:haruto",
                "my son goes to Marrowby Primary, pickup's at 3:15 so i leave work early tuesdays",
            ),
            Turn("assistant:bot", "Got it, I'll keep that in mind for scheduling."),
            Turn("user:haruto", "please don't remember my kid's school. safety thing, sorry"),
        ),
        question="what school does my son go to?",
        expect=(),
        reject=("marrowby",),
    ),
    HeldOut(
        id="eighth-forget-chat-home-keep-allergy",
        kind="forget",
        form="chat",
        events=(
            Turn("user:lys", "i live in the Quenby flats on the east side, 6th floor no lift 💀"),
            Turn("assistant:bot", "Free stair workout at least."),
            Turn("user:lys", "also i'm allergic to shellfish, so no paella recs lol"),
            Turn("user:lys", "hmm forget where i live but keep the allergy thing"),
        ),
        question="what am I allergic to?",
        expect=("shellfish",),
        reject=("quenby",),
    ),
    HeldOut(
        id="eighth-forget-ticket-phone-keep-email",
        kind="forget",
        form="ticket",
        events=(
            Turn(
                "reporter:aurelie",
                "Login loops back to the start page. You can reach me at aurelie.m@brightfen.org.",
            ),
            Turn("reporter:aurelie", "Also my direct line is +33 6 12 48 6621 if email is slow."),
            Turn("agent:hamza", "Thanks, we'll be in touch."),
            Turn("reporter:aurelie", "Please remove my phone number from this ticket, email only from now on."),
        ),
        question="How should we contact Aurelie?",
        expect=("brightfen",),
        reject=("6621",),
    ),
    HeldOut(
        id="eighth-forget-chat-workplace",
        kind="forget",
        form="chat",
        events=(
            Turn(
                "user:fintan",
                "work at Tallowmere Insurance, claims dept, it's grim. today a guy claimed a goose "
                "stole his car keys and honestly i believe him",
            ),
            Turn("assistant:bot", "Geese are capable of anything."),
            Turn("user:fintan", "forget i told you where i work lol, my boss is paranoid about this stuff"),
        ),
        question="where do I work?",
        expect=(),
        reject=("tallowmere",),
    ),
    HeldOut(
        id="eighth-forget-note-heart-rate-keep-race",
        kind="forget",
        form="note",
        events=(
            Turn(
                "user:coach_wendell",
                "Coaching note: Arjun's target race is the Saltcombe Marathon in October.",
            ),
            Turn("user:coach_wendell", "Session note: resting HR 48, down from last block."),
            Turn(
                "user:coach_wendell",
                "Note: Arjun asked us to delete his heart rate data. Race goal stays on file.",
            ),
        ),
        question="What race is Arjun training for?",
        expect=("saltcombe",),
        reject=("48",),
    ),
    HeldOut(
        id="eighth-forget-chat-license-plate",
        kind="forget",
        form="chat",
        events=(
            Turn("user:odette", "my plate is KX19 ZLR if the parking app asks"),
            Turn("assistant:bot", "Saved it."),
            Turn("user:odette", "forget my license plate, i'm selling that car anyway"),
        ),
        question="what's my license plate?",
        expect=(),
        reject=("zlr",),
    ),
]
