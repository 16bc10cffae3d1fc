"""Cases for "at query time, the present wins" (medallion/serve/present.py), written for this stage with
invented people, places and organisations; no benchmark phrasing.

Each case is a few turns (in time order, a day apart), one question, and what a user expects:
``expect`` words in the top search hit, ``reject`` words not in it (``past`` and ``many`` cases: each
``expect`` word in one of the top five). Each turn has a role, used to measure the similarity threshold
(bench/present_threshold.py): ``old`` and ``new`` say the same kind of thing about one subject, the
later one changing it; ``other`` is a turn of the same namespace that must not be taken for an update
of the ``old`` or ``new`` turn (an unrelated request, a statement about someone else).

Kinds: ``present`` (the newest of similar turns must win), ``past`` (an older turn stays reachable),
``unrelated`` (a later turn about something else must not win), ``many`` (a second value of a
many-valued meaning must not hide the first). ``thread`` puts the turns in one conversation thread
(each chunk's context then carries the previous turn).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Said:
    actor: str
    text: str
    role: Literal["old", "new", "other"]


@dataclass(frozen=True)
class PresentCase:
    id: str
    kind: Literal["present", "past", "unrelated", "many"]
    turns: tuple[Said, ...]
    question: str
    expect: tuple[str, ...]
    reject: tuple[str, ...] = ()
    thread: bool = False


CASES: list[PresentCase] = [
    PresentCase("started-at-now", "present", (
        Said("user:selma", "I work at Brackenfield Analytics as a data engineer.", "old"),
        Said("user:selma", "I've officially started at Orrinwood Labs now, badge and all", "new"),
    ), "Where does Selma work?", ("orrinwood",), ("brackenfield",)),
    PresentCase("keys-to-new-flat", "present", (
        Said("user:jonas", "home is a tiny flat in Ludvika, right above a bakery", "old"),
        Said("user:jonas", "we finally got the keys to our place in Falun!! boxes everywhere", "new"),
    ), "Where does Jonas live now?", ("falun",), ("ludvika",)),
    PresentCase("car-swap", "present", (
        Said("user:ayla", "my car is a rusty old Corolla that refuses to die", "old"),
        Said("user:ayla", "picked up a secondhand Nissan Leaf yesterday, so quiet compared to the old one", "new"),
    ), "What car does Ayla drive?", ("leaf",), ("corolla",)),
    PresentCase("gym-to-climbing-note", "present", (
        Said("user:coach", "Ravi trains at Ironside Gym three mornings a week.", "old"),
        Said("user:coach", "Ravi has switched to the Summit Wall bouldering hall on Canal Street.", "new"),
    ), "Where does Ravi train these days?", ("summit",), ("ironside",)),
    PresentCase("team-in-thread", "present", (
        Said("user:mei", "i'm on the billing squad, mostly invoices and refunds", "old"),
        Said("user:mei", "moved over to the search relevance squad this sprint, very different work", "new"),
    ), "Which squad is Mei on?", ("relevance",), ("billing",), thread=True),
    PresentCase("started-at-past-question", "past", (
        Said("user:selma", "I work at Brackenfield Analytics as a data engineer.", "old"),
        Said("user:selma", "I've officially started at Orrinwood Labs now, badge and all", "new"),
    ), "Where did Selma work before?", ("brackenfield",)),
    PresentCase("errand-after-job", "unrelated", (
        Said("user:dara", "I'm a line cook at the Salt Harbour bistro, evenings mostly", "old"),
        Said("user:dara", "can you remind me to renew my library card on friday", "other"),
    ), "Where does Dara work?", ("salt", "harbour"), ("library",)),
    PresentCase("errand-after-job-thread", "unrelated", (
        Said("user:dara", "I'm a line cook at the Salt Harbour bistro, evenings mostly", "old"),
        Said("user:dara", "can you remind me to renew my library card on friday", "other"),
    ), "Where does Dara work?", ("salt", "harbour"), ("library",), thread=True),
    PresentCase("brother-lives-elsewhere", "unrelated", (
        Said("user:nuno", "I live in Tavira, five minutes from the river", "old"),
        Said("user:nuno", "my brother Rui lives in Braga with his two dogs", "other"),
    ), "Where does Nuno live?", ("tavira",), ("braga",)),
    PresentCase("home-then-job", "unrelated", (
        Said("user:tilde", "I live in Visby, in a yellow house near the harbour", "old"),
        Said("user:tilde", "I work as a nurse at the regional hospital, night rota", "other"),
    ), "Where does Tilde live?", ("visby",), ("nurse",)),
    PresentCase("home-then-job-thread", "unrelated", (
        Said("user:tilde", "I live in Visby, in a yellow house near the harbour", "old"),
        Said("user:tilde", "I work as a nurse at the regional hospital, night rota", "other"),
    ), "Where does Tilde live?", ("visby",), ("nurse",), thread=True),
    PresentCase("dog-then-car", "unrelated", (
        Said("user:ines", "my dog is a greyhound called Pip, very lazy", "old"),
        Said("user:ines", "my car is a blue Fiat Panda with a dented door", "other"),
    ), "What dog does Ines have?", ("greyhound",), ("panda",)),
    PresentCase("allergy-then-food", "unrelated", (
        Said("user:kai", "I'm allergic to peanuts, carry an epipen everywhere", "old"),
        Said("user:kai", "my favourite food is tonkotsu ramen from the stall by the station", "other"),
    ), "What is Kai allergic to?", ("peanuts",), ("ramen",)),
    PresentCase("manager-then-weekend", "unrelated", (
        Said("user:bo", "my manager is Henrietta Pask, she runs the data platform group", "old"),
        Said("user:bo", "spent the weekend hiking the ridge trail above Lake Orta", "other"),
    ), "Who is Bo's manager?", ("henrietta",), ("orta",), thread=True),
    PresentCase("second-language", "many", (
        Said("user:elif", "I speak Finnish fluently, grew up in Tampere", "old"),
        Said("user:elif", "I also speak Basque now, after two years of evening classes", "new"),
    ), "What languages does Elif speak?", ("finnish", "basque")),
    # the first turn's belief lands in the catch-all ``states``, which tells no slot apart
    PresentCase("tier-in-a-note", "present", (
        Said("agent:accounts", "Customer Ilse Brandt is on the Basic tier, invoiced quarterly.", "old"),
        Said("agent:accounts", "Ilse Brandt upgraded to the Gold tier this morning, invoiced yearly.", "new"),
    ), "Which tier is Ilse Brandt on?", ("gold",), ("basic",)),
    # A plan under consideration, then the settled value: the settled turn answers.
    PresentCase("plan-then-settled", "present", (
        Said("user:odile", "I think we'll call the sailboat Pistache, probably, not sure yet", "old"),
        Said("user:odile", "ok decided: the sailboat's name is going to be Moka", "new"),
    ), "What is Odile's sailboat called?", ("moka",), ("pistache",)),
    # A later note about a relative of the person is no update of the person's own belief.
    PresentCase("relative-bought-later", "unrelated", (
        Said("agent:depot", "Corvin Hale drives a green Lada Niva to the depot every morning.", "old"),
        Said("agent:depot", "Corvin Hale's wife bought a red Vespa scooter last week.", "other"),
    ), "What does Corvin Hale drive?", ("lada",), ("vespa",)),
    PresentCase("relative-moving-later", "unrelated", (
        Said("user:liesel", "I'm reading The Glass Orchard at the moment, slow but lovely", "old"),
        Said("user:liesel", "my sister's coming to stay next week, need to clear the spare room", "other"),
    ), "What book is Liesel reading?", ("orchard",)),
    # Two learned slots the ledger has already closed a belief in (another person's) are slots it tracks:
    # a later belief in the one is no update of the other, however alike the sentences read.
    PresentCase("two-tracked-learned-slots", "unrelated", (
        Said("agent:registry", "Mira Sandoval is registered in the canton of Vaud.", "other"),
        Said("agent:registry", "Oskar Lindqvist is registered in the canton of Uri.", "old"),
        Said("agent:registry", "Mira Sandoval is registered in the canton of Jura.", "other"),
        Said("agent:registry", "Tobias Renner is taxed in the canton of Zug.", "other"),
        Said("agent:registry", "Tobias Renner is taxed in the canton of Glarus.", "other"),
        Said("agent:registry", "Oskar Lindqvist is taxed in the canton of Ticino.", "other"),
    ), "Which canton is Oskar Lindqvist registered in?", ("uri",), ("ticino",)),
    # A turn that takes back the one before it answers, though it repeats none of the question's words.
    PresentCase("taken-back-next-turn", "present", (
        Said("user:odalys", "let's hold the quiz night on wednesday in the back room", "old"),
        Said("user:odalys", "scratch that, friday suits everyone better", "new"),
    ), "What day is the quiz night?", ("friday",), ("wednesday",)),
    # The asker's own new tie, said in the first person inside a turn that opens with small talk, answers
    # "who's my manager?" though the old turn opens with the relative asked for.
    PresentCase("own-tie-after-small-talk", "present", (
        Said("user:brigida", "my manager Costel Varga wants the slides by thursday, as usual", "old"),
        Said("assistant:bot", "Want a hand drafting them?", "other"),
        Said("user:brigida", "not now. team shake-up announced this morning. i report to Halvard Ostby now. "
                             "seems nice enough", "new"),
    ), "who's my manager?", ("halvard",), ("costel",)),
]
