"""The synthetic ledger of ``bench/search_latency.py``: people with an alias each, and the facts about them
over the predicate vocabulary (places, organisations, teams, tools, projects, events), with valid
intervals and questions generated from facts ("Where does Maria Lopez live?").

Names, cities and the rest are generic word lists of this module; nothing comes from a benchmark's data.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

NAMESPACE = "p4"


def _w(text: str) -> list[str]:
    return text.split()


FIRST = _w("Maria Ana Liam Noah Olivia Emma Ava Sofia Mia Lucas Mateo Ethan Aiden Chloe Grace Hannah Isla Jack "
           "Leo Zoe Amir Priya Ravi Aisha Omar Yusuf Fatima Chen Wei Mei Hiro Yuki Kenji Sakura Jin Min Soo Arjun "
           "Nina Elena Ivan Olga Pavel Katya Tomas Lena Jonas Freya Sven Astrid Pierre Claire Louis Camille Marco "
           "Giulia Luca Chiara Diego Lucia Pablo Carmen Joao Beatriz Kofi Ama Kwame Zara Tariq Leila Samir Noor "
           "Dmitri Irina Anders Ingrid Felix Clara Oscar Alma")
LAST = _w("Lopez Kim Smith Garcia Nguyen Patel Mueller Rossi Silva Cohen Tanaka Sato Ivanova Novak Jensen Larsen "
          "Dubois Martin Bianchi Romano Fernandez Torres Okafor Mensah Haddad Rahman Khan Singh Sharma Gupta Wang "
          "Li Zhang Chen Park Choi Yamamoto Suzuki Petrov Sokolov Horvat Kowalski Nowak Hansen Berg Lindqvist "
          "Moreau Laurent Ricci Greco Costa Santos Pereira Alvarez Ramos Diaz Mendes Owusu Boateng Nasser Aziz "
          "Hussein Karimi Ahmadi Volkov Popov Eriksson Nilsson Weber Schmidt Fischer Wagner Becker Hoffmann "
          "Schulz Keller Brennan Walsh")
CITIES = _w("Lisbon Porto Madrid Barcelona Valencia Seville Paris Lyon Marseille Berlin Munich Hamburg Cologne "
            "Vienna Zurich Geneva Milan Rome Turin Naples Amsterdam Rotterdam Utrecht Brussels Antwerp Copenhagen "
            "Stockholm Oslo Helsinki Reykjavik Dublin Cork London Manchester Edinburgh Glasgow Warsaw Krakow Prague "
            "Budapest Bucharest Sofia Athens Istanbul Ankara Cairo Nairobi Lagos Accra Casablanca Tunis Dubai "
            "Doha Mumbai Delhi Bangalore Chennai Karachi Dhaka Bangkok Hanoi Singapore Jakarta Manila Seoul Busan "
            "Tokyo Osaka Kyoto Shanghai Beijing Shenzhen Taipei Sydney Melbourne Auckland Toronto Montreal "
            "Vancouver Chicago Boston Seattle Denver Austin Houston Atlanta Miami Portland Phoenix Mexico-City "
            "Bogota Lima Santiago Quito Montevideo Caracas Havana")
ORG_A = _w("Blue Northern Bright Silver Green Iron Quiet Rapid Open Solar Deep Clear Summit Harbor Cedar Atlas")
ORG_B = _w("Labs Systems Analytics Robotics Health Logistics Bank Media Energy Foods Works Capital")
ORGS = [f"{a} {b}" for a in ORG_A for b in ORG_B]
TEAMS = _w("platform payments search growth mobile infra data security design research support billing "
           "onboarding identity compliance analytics ml-ops frontend backend release")
ROLES = ("software engineer", "senior engineer", "staff engineer", "engineering manager", "product manager",
         "designer", "data scientist", "data engineer", "site reliability engineer", "security analyst",
         "technical writer", "sales lead", "account executive", "support specialist", "recruiter",
         "finance analyst", "marketing manager", "chief of staff", "QA engineer", "solutions architect")
TIMEZONES = ("Europe/Lisbon", "Europe/Berlin", "Europe/London", "America/New_York", "America/Chicago",
             "America/Los_Angeles", "Asia/Tokyo", "Asia/Kolkata", "Asia/Singapore", "Australia/Sydney",
             "Africa/Lagos", "America/Sao_Paulo")
LIKES = ("green tea", "black coffee", "window seats", "async standups", "morning meetings", "dark mode",
         "written proposals", "pair programming", "quiet offices", "vegetarian food", "spicy food", "jazz",
         "hiking on weekends", "board games", "short emails", "video calls", "trains over planes",
         "mechanical keyboards", "standing desks", "detailed agendas", "sushi", "Italian food", "cycling to work",
         "early lunches", "podcasts", "sci-fi novels", "running", "remote work", "whiteboard sessions",
         "Slack huddles")
TOOLS = ("VS Code", "Vim", "Emacs", "Figma", "Jira", "Linear", "Notion", "Obsidian", "Slack", "Zoom", "Docker",
         "Kubernetes", "Terraform", "Grafana", "Postgres", "Python", "Rust", "Go", "TypeScript", "Excel",
         "Tableau", "Looker", "GitHub Actions", "PyCharm", "IntelliJ", "Miro", "Asana", "Airflow", "dbt", "Sentry")
PROJECTS = [f"{a} {b}" for a in _w("Apollo Hermes Orion Vega Lyra Nova Phoenix Titan Atlas Juno Helios Iris Pegasus "
                                   "Draco Cygnus Aquila Hydra Lynx Perseus Rigel")
            for b in ("migration", "rewrite", "dashboard", "pipeline", "launch", "audit", "redesign", "pilot")]
EVENTS = [f"{a} {b}" for a in ("Q1 planning", "Q2 planning", "Q3 planning", "Q4 planning", "annual offsite",
                               "security review", "design sprint", "hackathon", "all-hands", "customer summit")
          for b in ("2022", "2023", "2024", "2025")]
GOALS = ("learn Rust", "run a marathon", "get promoted to staff engineer", "speak Japanese", "ship the mobile app",
         "reduce on-call load", "write a book", "mentor two juniors", "cut cloud costs by 20 percent",
         "present at a conference", "learn to sail", "finish the data migration", "improve test coverage",
         "move to a four-day week", "learn piano")
PLANS = ("visit Japan in spring", "take two weeks off in August", "move to a new apartment", "buy a car",
         "start a reading group", "switch teams next quarter", "attend KubeCon", "renovate the kitchen",
         "adopt a dog", "take a leadership course", "run the Berlin half marathon", "visit family in December")
STATES = ("has two cats", "is allergic to peanuts", "speaks three languages", "plays the guitar",
          "is training for a triathlon", "has a newborn daughter", "volunteers at a food bank",
          "collects vinyl records", "is learning to cook Thai food", "grew up on a farm", "commutes by ferry",
          "keeps bees", "is colour blind", "coaches a youth football team")
RELATIONS = ("reports to", "is the manager of", "is a sibling of", "mentors", "is married to")

QUESTIONS = {
    "lives_in": "Where does {n} live?", "works_at": "Which company does {n} work for?",
    "role": "What is {n}'s job title?", "timezone": "What time zone is {n} in?",
    "birthday": "When is {n}'s birthday?", "email": "What is {n}'s email address?",
    "member_of": "Which team is {n} on?", "prefers": "What does {n} like?", "dislikes": "What does {n} dislike?",
    "uses": "Which tools does {n} use?", "owns": "Which project does {n} own?",
    "goal": "What does {n} want to achieve?", "plans": "What is {n} planning to do?",
    "attended": "Which events did {n} attend?", "relationship": "Who is {n} related to at work?",
    "states": "What else do we know about {n}?", "alias": "What is {n}'s nickname?",
}
ACTORS = (("user:{h}", 50), ("agent:atlas", 25), ("system:hr", 10), ("bot:sync", 10), ("user:admin", 5))
SOURCES = ("chat", "notes", "hr", "calendar", "email")


# ---------------------------------------------------------------------------------------------- data
def _date(rng: random.Random, start_year: int, end_year: int) -> datetime:
    start = datetime(start_year, 1, 1, tzinfo=UTC)
    span = (datetime(end_year, 12, 31, tzinfo=UTC) - start).total_seconds()
    return (start + timedelta(seconds=rng.uniform(0, span))).replace(microsecond=0)


def person_facts(rng: random.Random, name: str, handle: str, people: list[str]) -> list[dict]:
    """~20 candidate facts about one person: (predicate, value, statement, object entity, valid_from)."""
    out: list[dict] = []

    def add(pred: str, value: str, statement: str, when: datetime, obj: tuple[str, str] | None = None) -> None:
        out.append({"predicate": pred, "value": value, "statement": statement, "valid_from": when, "object": obj})

    def history(pred: str, values: list[str], template: str, kind: str | None, max_old: int) -> None:
        picks = rng.sample(values, 1 + rng.randint(0, max_old))
        dates = sorted(_date(rng, 2015, 2025) for _ in picks)
        for when, value in zip(dates, picks, strict=True):
            add(pred, value, template.format(n=name, v=value), when, (value, kind) if kind else None)

    history("lives_in", CITIES, "{n} lives in {v}.", "place", 2)
    history("works_at", ORGS, "{n} works at {v}.", "organisation", 1)
    history("role", list(ROLES), "{n} is a {v}.", None, 1)
    add("timezone", (tz := rng.choice(TIMEZONES)), f"{name} is in the {tz} time zone.", _date(rng, 2020, 2025))
    birthday = _date(rng, 1965, 2002).date().isoformat()
    add("birthday", birthday, f"{name} was born on {birthday}.", _date(rng, 2018, 2025))
    email = f"{handle}@{rng.choice(ORGS).split()[0].lower()}.example"
    add("email", email, f"{name}'s email address is {email}.", _date(rng, 2018, 2025))
    for team in rng.sample(TEAMS, rng.randint(1, 2)):
        add("member_of", team, f"{name} is a member of the {team} team.", _date(rng, 2019, 2025), (team, "group"))
    likes = rng.sample(LIKES, 4)
    for thing in likes[: rng.randint(2, 3)]:
        add("prefers", thing, f"{name} prefers {thing}.", _date(rng, 2019, 2025))
    add("dislikes", likes[3], f"{name} dislikes {likes[3]}.", _date(rng, 2019, 2025))
    for tool in rng.sample(TOOLS, 2):
        add("uses", tool, f"{name} uses {tool}.", _date(rng, 2020, 2025), (tool, "thing"))
    project = rng.choice(PROJECTS)
    add("owns", project, f"{name} owns the {project} project.", _date(rng, 2020, 2025), (project, "thing"))
    goal = rng.choice(GOALS)
    add("goal", goal, f"{name} wants to {goal}.", _date(rng, 2023, 2025))
    plan = rng.choice(PLANS)
    add("plans", plan, f"{name} plans to {plan}.", _date(rng, 2024, 2025))
    for event in rng.sample(EVENTS, 2):
        add("attended", event, f"{name} attended the {event}.", _date(rng, 2022, 2025), (event, "event"))
    other, relation = rng.choice(people), rng.choice(RELATIONS)
    if other != name:
        add("relationship", f"{relation} {other}", f"{name} {relation} {other}.", _date(rng, 2018, 2025),
            (other, "person"))
    state = rng.choice(STATES)
    add("states", state, f"{name} {state}.", _date(rng, 2018, 2025))
    return out


def build_dataset(n_facts: int, seed: int) -> tuple[list[dict], list[dict], dict[str, dict]]:
    """Facts (without event ids yet), the events carrying them, and the people (name → info)."""
    rng = random.Random(seed)
    n_people = max(50, n_facts // 20)
    names = [f"{f} {last}" for f in FIRST for last in LAST]
    if n_people > len(names):
        names += [f"{f} {m}. {last}" for m in "ABCDEFGHJKLMNPRSTW" for f in FIRST for last in LAST]
    people = rng.sample(names, n_people)
    info: dict[str, dict] = {}
    facts: list[dict] = []
    events: list[dict] = []
    while len(facts) < n_facts:
        for name in people:
            if len(facts) >= n_facts:
                break
            round_no = info.get(name, {}).get("round", -1) + 1
            handle = "".join(p[0] for p in name.split()[:-1]).lower() + name.split()[-1].lower()
            info[name] = {"handle": handle, "round": round_no}
            mine = sorted(person_facts(rng, name, handle, people), key=lambda f: f["valid_from"])
            actor_tpl = rng.choices([a for a, _ in ACTORS], [w for _, w in ACTORS])[0]
            i = 0
            while i < len(mine) and len(facts) < n_facts:  # 1-3 facts per event, as one turn would yield
                group = mine[i : i + rng.randint(1, 3)]
                i += len(group)
                when = group[0]["valid_from"]
                content, spans = "", []
                for fact in group:
                    if content:
                        content += " "
                    spans.append((len(content), len(content) + len(fact["statement"])))
                    content += fact["statement"]
                seid = f"{handle}-{round_no}-{len(events)}"
                events.append({
                    "namespace": NAMESPACE, "source": rng.choice(SOURCES), "source_event_id": seid,
                    "kind": "note", "content": content, "actor": actor_tpl.format(h=handle),
                    "occurred_at": when.isoformat(), "provenance_root": f"bench://p4/{handle}/{round_no}",
                })
                for fact, span in zip(group, spans, strict=True):
                    if len(facts) >= n_facts:
                        break
                    facts.append({**fact, "subject": name, "event_index": len(events) - 1, "span": span,
                                  "valid_from": when, "confidence": round(rng.uniform(0.6, 0.98), 3)})
    return facts, events, info
