"""A seeded generator of multi-speaker chat conversations, as Bronze transcript events.

Why it exists: the rebuild, kill-and-resume and faulty-LLM tests need a long, realistic stream of
chat turns (several speakers, several sessions, facts that later change), and a test suite must carry
its own data rather than read a benchmark from outside the repository. Everything here is invented:
the people, towns, employers, pets and the phrasing; none of it comes from a benchmark.

The stream is a prefix-stable function of the seed: ``generate(seed, 120)`` is the first 120 turns of
``generate(seed, 5000)``, so a test takes a slice sized to its runtime. Each speaker has a home town,
an employer and role, a morning drink, pets, hobbies and two people they talk about (a relative and
a friend), and now and then one of those values changes: a move, a new job, a switched drink. Such a
turn is recorded in :attr:`Chat.updates` with the value it replaces. Around the facts: questions and
their answers, small talk, plans, complaints and replies that state nothing.

Sessions are threads of the conversation (``thread`` = ``<conversation>/s<n>``), a few days apart,
each with two to all of the speakers; turns within a session are a few minutes apart. Times start in
March 2016 and stay in the past for the longest stream a test asks for.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

START = datetime(2016, 3, 7, 18, 20, tzinfo=UTC)  # a Monday evening
SETTLE = 30  # turns a value lasts at least before it changes again

GIVEN = ["Ottilie", "Bram", "Sunniva", "Kofi", "Ilse", "Teodor", "Marisol", "Yusuf", "Aino", "Rafferty",
         "Noor", "Lucan", "Wren", "Dagny", "Emeka", "Solveig", "Casimir", "Leontine", "Hamid", "Jarrah",
         "Mirela", "Tobiah", "Esperanza", "Idris", "Fenna", "Oskar", "Zainab", "Piet", "Ulla", "Matthias"]
TOWNS = ["Brightwater", "Kestrel Bay", "Dunmere", "Halvik", "Corrowan", "Pellston", "Tarnby", "Quenby",
         "Westerlo", "Ravensholm", "Lindmark", "Orvell", "Saltcombe", "Greymoor", "Vellan", "Hollin",
         "Marrick", "Ostberg", "Cawdor Falls", "Penhallow"]
EMPLOYERS = ["Tidewell Labs", "Copperleaf Bakery", "Northgate Logistics", "Bluefen Studio", "Lantern Robotics",
             "Juniper Health", "Mossline Books", "Quayside Dental", "Ironbark Freight", "Harbourlight Radio",
             "Fernhill School", "Slatecourt Insurance", "Windrow Farms", "Orchid Lane Clinic", "Cobalt Ferries"]
ROLES = ["nurse", "bookkeeper", "line cook", "data analyst", "bus driver", "teacher", "welder", "pharmacist",
         "sound engineer", "dispatcher", "carpenter", "translator", "lab technician", "receptionist"]
PET_KINDS = ["dog", "cat", "rabbit", "parrot", "tortoise", "ferret", "hamster"]
PET_NAMES = ["Pickle", "Juno", "Moth", "Sprocket", "Clementine", "Waffles", "Tofu", "Pepper", "Ziggy", "Marlow",
             "Nettle", "Bisque", "Dumpling", "Otto", "Figaro", "Sable"]
DRINKS = ["green tea", "black coffee", "oat lattes", "mint tea", "hot chocolate", "espresso", "rooibos",
          "chai", "cold brew"]
HOBBIES = ["bouldering", "birdwatching", "woodturning", "sea swimming", "chess", "sourdough baking",
           "trail running", "choir singing", "knitting", "kayaking", "board games", "stargazing"]
RELATIVES = ["sister", "brother", "cousin", "aunt", "uncle"]
FRIENDS = ["neighbour", "old flatmate", "friend", "colleague"]


@dataclass
class Person:
    """One person's current values, and when each slot was last said or changed (``said``: slot → turn)."""

    name: str
    town: str
    employer: str
    role: str
    drink: str
    pets: list[tuple[str, str]] = field(default_factory=list)
    hobbies: list[str] = field(default_factory=list)
    said: dict[str, int] = field(default_factory=dict)


@dataclass
class Speaker(Person):
    """A speaker, with the two people (a relative, a friend) they tell the others about."""

    others: list[tuple[str, Person]] = field(default_factory=list)


@dataclass(frozen=True)
class Update:
    """A turn that revises a value said earlier: who, which slot, the old and the new value."""

    turn: int
    person: str
    slot: str
    old: str
    new: str


@dataclass(frozen=True)
class Chat:
    """The generated events (Bronze contract, kind ``transcript``) and the updates among them."""

    events: list[dict[str, Any]]
    updates: list[Update]
    speakers: list[str]
    sessions: int


class _Writer:
    """The state of one conversation while its turns are written (one random source, used in order)."""

    def __init__(self, rng: random.Random, speakers: int) -> None:
        self.rng = rng
        names = rng.sample(GIVEN, speakers + 2 * speakers)
        self.cast = [self._speaker(names[i], names[speakers + 2 * i: speakers + 2 * i + 2])
                     for i in range(speakers)]
        self.updates: list[Update] = []
        self.turn = 0

    def _person(self, name: str) -> Person:
        r = self.rng
        return Person(name, r.choice(TOWNS), r.choice(EMPLOYERS), r.choice(ROLES), r.choice(DRINKS))

    def _speaker(self, name: str, other_names: list[str]) -> Speaker:
        base = self._person(name)
        speaker = Speaker(base.name, base.town, base.employer, base.role, base.drink)
        speaker.others = [(self.rng.choice(RELATIVES), self._person(other_names[0])),
                          (self.rng.choice(FRIENDS), self._person(other_names[1]))]
        return speaker

    def _other(self, current: str, pool: list[str]) -> str:
        return self.rng.choice([v for v in pool if v != current])

    def _restate(self, person: Person, slot: str, chance: float) -> bool:
        """Whether this turn says the slot's current value rather than a new one: always the first time,
        and while the last change is recent (a value lasts at least :data:`SETTLE` turns)."""
        if slot not in person.said:
            person.said[slot] = self.turn
            return True
        return self.turn - person.said[slot] < SETTLE or self.rng.random() < chance

    def _update(self, person: Person, slot: str, old: str, new: str) -> None:
        person.said[slot] = self.turn
        self.updates.append(Update(self.turn, person.name, slot, old, new))

    # ---------------------------------------------------------------- what a speaker says about themself

    def home(self, me: Speaker) -> str:
        r = self.rng
        if self._restate(me, "town", 0.4):
            return r.choice([
                f"I live in {me.town}, right by the old tram depot.",
                f"We've been living in {me.town} for about four years now.",
                f"I live in {me.town}. It's quiet, but the bakery on the corner makes up for it.",
                f"home is {me.town} these days, tiny flat but a lovely view",
            ])
        old, me.town = me.town, self._other(me.town, TOWNS)
        self._update(me, "town", old, me.town)
        return r.choice([
            f"Big news: I moved to {me.town} last week, boxes everywhere.",
            f"So we finally left {old}. I moved to {me.town} and the commute is half as long.",
            f"I've relocated to {me.town}, the rent in {old} was getting silly.",
            f"btw i moved to {me.town} at the weekend, still no internet lol",
        ])

    def job(self, me: Speaker) -> str:
        r = self.rng
        if self._restate(me, "job", 0.35):
            return r.choice([
                f"I work at {me.employer} as a {me.role}.",
                f"I'm a {me.role} at {me.employer}, mostly early shifts.",
                f"Work is the same as ever, I work at {me.employer} and the coffee machine is still broken.",
            ])
        old, me.employer = me.employer, self._other(me.employer, EMPLOYERS)
        self._update(me, "job", old, me.employer)
        if r.random() < 0.5:
            me.role = self._other(me.role, ROLES)
        return r.choice([
            f"I left {old} and started at {me.employer} on Monday.",
            f"New job! I work at {me.employer} now, as a {me.role}.",
            f"I quit {old} last month. I work for {me.employer} now and I'm so much happier.",
            f"I started at {me.employer} this week, everyone seems nice so far.",
        ])

    def drink(self, me: Speaker) -> str:
        r = self.rng
        if self._restate(me, "drink", 0.3):
            return r.choice([
                f"I can't start the day without {me.drink}.",
                f"Honestly I drink way too much {me.drink}.",
                f"My favourite drink is {me.drink}, always has been.",
            ])
        old, me.drink = me.drink, self._other(me.drink, DRINKS)
        self._update(me, "drink", old, me.drink)
        return r.choice([
            f"I switched from {old} to {me.drink} in the mornings, feel much better.",
            f"I don't drink {old} anymore, it's {me.drink} now.",
            f"Doctor told me to cut back, so I switched to {me.drink}.",
        ])

    def pet(self, me: Speaker) -> str:
        r = self.rng
        if me.pets and (len(me.pets) >= 3 or r.random() < 0.55):
            kind, name = r.choice(me.pets)
            return r.choice([
                f"{name} chewed through another charger cable last night.",
                f"My {kind} {name} has decided the bathtub is her bed now.",
                f"Took {name} to the vet, all fine, just a bit overweight.",
            ])
        kind, name = r.choice(PET_KINDS), r.choice([n for n in PET_NAMES if n not in {p[1] for p in me.pets}])
        me.pets.append((kind, name))
        return r.choice([
            f"We adopted a {kind}! Her name is {name}.",
            f"I got a {kind} from the shelter, we called him {name}.",
            f"Meet {name}, my new {kind}. Already runs the house.",
        ])

    def hobby(self, me: Speaker) -> str:
        r = self.rng
        if me.hobbies and (len(me.hobbies) >= 4 or r.random() < 0.5):
            hobby = r.choice(me.hobbies)
            return r.choice([
                f"Went {hobby} again on Sunday, my arms are dead.",
                f"Still loving {hobby}, I go twice a week now.",
                f"Does anyone want to try {hobby} with me next weekend?",
            ])
        hobby = r.choice([h for h in HOBBIES if h not in me.hobbies])
        me.hobbies.append(hobby)
        return r.choice([
            f"I've taken up {hobby}, a friend dragged me along and now I'm hooked.",
            f"I'm really into {hobby} lately.",
            f"I signed up for a {hobby} course at the community centre.",
        ])

    # ---------------------------------------------------------------- people the speaker talks about

    def third(self, me: Speaker) -> str:
        r = self.rng
        relation, other = r.choice(me.others)
        if "town" not in other.said:
            other.said["town"] = self.turn
            return r.choice([
                f"My {relation} {other.name} lives in {other.town}, we should visit.",
                f"{other.name}, my {relation}, lives in {other.town} and keeps asking me to come over.",
            ])
        if "job" not in other.said:
            other.said["job"] = self.turn
            return r.choice([
                f"{other.name} works at {other.employer}; apparently it's chaos there.",
                f"My {relation} {other.name} works for {other.employer} as a {other.role}.",
            ])
        if min(self.turn - other.said[slot] for slot in ("town", "job")) < SETTLE:
            return r.choice([
                f"My {relation} {other.name} is coming to stay for a few days.",
                f"Had a long call with {other.name} last night, we talked for hours.",
            ])
        if r.random() < 0.5:
            old, other.town = other.town, self._other(other.town, TOWNS)
            self._update(other, "town", old, other.town)
            return r.choice([
                f"Guess what, {other.name} moved to {other.town}! No more long drives to {old}.",
                f"My {relation} {other.name} relocated to {other.town} for a new start.",
            ])
        old, other.employer = other.employer, self._other(other.employer, EMPLOYERS)
        self._update(other, "job", old, other.employer)
        return r.choice([
            f"{other.name} left {old} and works at {other.employer} now.",
            f"My {relation} {other.name} just started at {other.employer}.",
        ])

    # ---------------------------------------------------------------- talk that states little or nothing

    def question(self, you: Speaker) -> tuple[str, str]:
        """A question put to ``you`` and its topic (the answer that follows keeps to it)."""
        r = self.rng
        topic = r.choice(["home", "work", "drink", "weekend", "tap", "family"])
        return r.choice({
            "home": [f"{you.name}, where are you living these days?", f"Are you still in {you.town}, {you.name}?"],
            "work": [f"How's work going, {you.name}?", f"{you.name}, are you still at {you.employer}?"],
            "drink": [f"Are you still drinking {you.drink}, {you.name}?", f"{you.name}, tea or coffee?"],
            "weekend": [f"What did you get up to this weekend, {you.name}?", f"{you.name}, good weekend?"],
            "tap": [f"{you.name}, did you ever fix that leaky tap?"],
            "family": [f"How is your {you.others[0][0]} doing, {you.name}?"],
        }[topic]), topic

    def answer(self, me: Speaker, topic: str) -> str:
        """The reply to a question on ``topic``: the current value, now and then a change."""
        r = self.rng
        if topic in ("home", "work", "drink") and r.random() < 0.25:
            return {"home": self.home, "work": self.job, "drink": self.drink}[topic](me)
        relation, other = me.others[0]
        return r.choice({
            "home": [f"Still in {me.town}, nothing ever changes here haha", f"Yep, still {me.town}. Can't complain."],
            "work": [f"Busy! {me.employer} is short-staffed again.",
                     f"It's going okay, being a {me.role} is tiring but I like it."],
            "drink": [f"Still {me.drink}, I'm a creature of habit.", "Whatever's in the pot, honestly."],
            "weekend": ["Not much, mostly sleeping and laundry.", "Worked Saturday, slept Sunday.",
                        "Went to a car boot sale, bought a lamp I don't need."],
            "tap": ["Ha, no, the plumber cancelled twice.", "Finally! Took a whole afternoon and a video tutorial."],
            "family": [f"{other.name} is fine, busy as always.", f"Good, thanks! {other.name} says hi."],
        }[topic])

    def small_talk(self, me: Speaker) -> str:
        r = self.rng
        town = r.choice(TOWNS)
        return r.choice([
            "The weather has been awful all week.",
            "haha yes exactly",
            "I need a holiday so badly.",
            "Sorry, was in a meeting, catching up now.",
            "That's brilliant, congratulations!",
            "Oh no, hope it gets sorted soon.",
            f"We're thinking of a weekend in {town} next month.",
            "Has anyone tried the new noodle place by the station?",
            "Traffic was a nightmare this morning, took an hour to get in.",
            "Lol same.",
            f"My train got cancelled again, stuck in {town} for an hour.",
            "Happy Friday everyone!",
        ])


_WEIGHTS = {"home": 8, "job": 8, "drink": 5, "pet": 5, "hobby": 5, "third": 8, "question": 12, "small_talk": 20}


def generate(seed: int = 2016, turns: int = 3000, speakers: int = 4,
             namespace: str = "chat-harbour") -> Chat:
    """The first ``turns`` turns of conversation ``seed`` among ``speakers`` people (at least 2), as events.

    Deterministic for a seed; a shorter stream is a prefix of a longer one. Every event follows the
    Bronze contract: ``source`` ``chat``, ``source_event_id`` ``<namespace>:s<session>:<turn>``,
    ``actor`` ``user:<first name>``, the session as provenance root and thread.
    """
    if speakers < 2 or speakers > len(GIVEN) // 3:
        raise ValueError(f"speakers must be between 2 and {len(GIVEN) // 3}")
    rng = random.Random(seed)
    writer = _Writer(rng, speakers)
    events: list[dict[str, Any]] = []
    session, when = 0, START
    pending: tuple[Speaker, str] | None = None  # who a question was put to, and its topic: they answer next
    while len(events) < turns:
        session += 1
        when = when.replace(hour=rng.choice([8, 12, 18, 20]), minute=rng.randrange(60)) + timedelta(
            days=rng.randint(2, 9))
        present = rng.sample(writer.cast, rng.randint(2, speakers))
        previous: Speaker | None = None
        pending = None
        at = when
        for _ in range(rng.randint(12, 28)):
            if len(events) == turns:
                break
            writer.turn = len(events)
            if pending is not None:
                me, text = pending[0], writer.answer(*pending)
                pending = None
            else:
                me = rng.choice([p for p in present if p is not previous] or present)
                action = rng.choices(list(_WEIGHTS), weights=list(_WEIGHTS.values()))[0]
                if action == "question":
                    you = rng.choice([p for p in present if p is not me])
                    text, topic = writer.question(you)
                    pending = (you, topic)
                elif action == "small_talk":
                    text = writer.small_talk(me)
                else:
                    text = getattr(writer, action)(me)
            previous = me
            at += timedelta(minutes=rng.randint(1, 6))
            events.append({
                "namespace": namespace, "source": "chat",
                "source_event_id": f"{namespace}:s{session}:{len(events) + 1}", "kind": "transcript",
                "actor": f"user:{me.name.lower()}", "content": text, "occurred_at": at.isoformat(),
                "provenance_root": f"chat://{namespace}/s{session}", "thread": f"{namespace}/s{session}",
                "metadata": {"session": session, "speaker": me.name},
            })
    return Chat(events, writer.updates, [p.name for p in writer.cast], session)
