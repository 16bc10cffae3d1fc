"""Mapping cases for slots by meaning, written before the threshold was chosen.

Each case is a distilled statement whose relation phrase no alias names, its subject, its value and
the value's type, and the curated predicate it means (``None``: it must stay a learned slot). The
names are invented. ``TUNING`` chose ``slot_meaning.THRESHOLD``; ``HELD_OUT`` only measures it.
"""

from __future__ import annotations

from typing import NamedTuple


class MappingCase(NamedTuple):
    statement: str
    subject: str
    value: str
    value_type: str
    expected: str | None


TUNING = [
    MappingCase("Orla accepted a position at Quillfeather as a data analyst.", "Orla", "Quillfeather", "entity",
                "works_at"),
    MappingCase("Tomasz signed on with Brightwater Labs last spring.", "Tomasz", "Brightwater Labs", "entity",
                "works_at"),
    MappingCase("Ayo landed a gig at Cobaltline.", "Ayo", "Cobaltline", "entity", "works_at"),
    MappingCase("Mirela is now on the payroll of Fennick Logistics.", "Mirela", "Fennick Logistics", "entity",
                "works_at"),
    MappingCase("Hollis makes his home in Tarrow.", "Hollis", "Tarrow", "entity", "lives_in"),
    MappingCase("Sunniva rents a flat in Oderby.", "Sunniva", "Oderby", "entity", "lives_in"),
    MappingCase("Renske plays cello for the Vell Quartet.", "Renske", "Vell Quartet", "entity", "member_of"),
    MappingCase("Idris got engaged and wed Philippa.", "Idris", "Philippa", "entity", "spouse"),
    MappingCase("Kasimir answers to Ottoline at work.", "Kasimir", "Ottoline", "entity", "reports_to"),
    MappingCase("Bettany came into the world on a date.", "Bettany", "1990-04-02", "date", "birthday"),
    MappingCase("Wendeline visited Brocade Harbour.", "Wendeline", "Brocade Harbour", "entity", None),
    MappingCase("Caspian bought a kayak from Rillmart.", "Caspian", "Rillmart", "entity", None),
    MappingCase("Jolene painted a mural of Grayhaven.", "Jolene", "Grayhaven", "entity", None),
    MappingCase("Nadir adopted a cat named Pip.", "Nadir", "Pip", "entity", None),
    MappingCase("Ottilie is reading Ember Tides.", "Ottilie", "Ember Tides", "entity", None),
    MappingCase("Marek met Lidka at a wedding.", "Marek", "Lidka", "entity", None),
    MappingCase("Elspeth donated to Harrowgate Shelter.", "Elspeth", "Harrowgate Shelter", "entity", None),
    MappingCase("Fintan listens to Velvet Orchard.", "Fintan", "Velvet Orchard", "entity", None),
    MappingCase("Greer was writing a letter to Amadou.", "Greer", "Amadou", "entity", None),
    MappingCase("Imke called Brannock Clinic about her knee.", "Imke", "Brannock Clinic", "entity", None),
]

HELD_OUT = [
    MappingCase("Percival took up a post at Aldermoor University.", "Percival", "Aldermoor University", "entity",
                "works_at"),
    MappingCase("Zuri started a new job at Tessellate.", "Zuri", "Tessellate", "entity", "works_at"),
    MappingCase("Leocadia is working for Marrow & Finch these days.", "Leocadia", "Marrow & Finch", "entity",
                "works_at"),
    MappingCase("Dagny was recruited by Solvent Bay.", "Dagny", "Solvent Bay", "entity", "works_at"),
    MappingCase("Ruairi settled down in Kelmscott.", "Ruairi", "Kelmscott", "entity", "lives_in"),
    MappingCase("Annika bought a house in Fernvale and lives there.", "Annika", "Fernvale", "entity", "lives_in"),
    MappingCase("Beau sings with the Larkspur Choir.", "Beau", "Larkspur Choir", "entity", "member_of"),
    MappingCase("Tamsin tied the knot with Evander.", "Tamsin", "Evander", "entity", "spouse"),
    MappingCase("Cosmo's line manager is Verity.", "Cosmo", "Verity", "entity", "reports_to"),
    MappingCase("Liesl turned up at the Quarry Summit.", "Liesl", "Quarry Summit", "entity", "attended"),
    MappingCase("Hamish photographed Bellwether Falls.", "Hamish", "Bellwether Falls", "entity", None),
    MappingCase("Priya ordered pizza from Crustworks.", "Priya", "Crustworks", "entity", None),
    MappingCase("Søren drove past Millbrook.", "Søren", "Millbrook", "entity", None),
    MappingCase("Yusra is knitting a scarf for Olwen.", "Yusra", "Olwen", "entity", None),
    MappingCase("Benedikt watched Silent Ridge twice.", "Benedikt", "Silent Ridge", "entity", None),
    MappingCase("Maelle is training her dog Biscuit.", "Maelle", "Biscuit", "entity", None),
    MappingCase("Conall wrote to Harbourline about a refund.", "Conall", "Harbourline", "entity", None),
    MappingCase("Ingrid hiked up Corrie Peak.", "Ingrid", "Corrie Peak", "entity", None),
    MappingCase("Lucan sold his bike to Ferris.", "Lucan", "Ferris", "entity", None),
    MappingCase("Delphine studied the history of Oakhurst.", "Delphine", "Oakhurst", "entity", None),
]
