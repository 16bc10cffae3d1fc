"""The ordered table of named rules that read a parsed sentence (see the package docstring)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from medallion.distill.language.lexicon import REL_NOUNS
from medallion.distill.language.parse import (
    ADDRESSEE,
    PRONOUNS,
    PROPER,
    Sentence,
    children,
    is_when,
    noted,
    parse,
    subject_name,
)
from medallion.distill.providers.heuristic.rules.clause_values import (
    CHANGE_VERBS,
    NOTHING,
    Reading,
    classifier,
    is_time,
    make_reading,
    typed_value,
)


# --------------------------------------------------------------------------------------- rules
def non_assertion(s: Sentence) -> Reading | None:
    """Questions, fragments without a verb ("A photo of a beach."), interjections ("Sorry to hear
    that"), commands and advice ("Keep going."), and anything said to or about the addressee."""
    root = s.root
    words = {t.lower_ for t in s.doc}
    if s.doc.text.rstrip().endswith("?") or words & ADDRESSEE:
        return NOTHING
    if root.pos_ not in ("VERB", "AUX"):
        return NOTHING
    subjects = children(root, "nsubj", "nsubjpass", "expl", "csubj")
    if not subjects and root.tag_ == "VB":
        return NOTHING  # imperative
    return None


_DUMMY_SUBJECTS = frozenset({"it", "that", "this", "there", "what", "which", "everything"})
_LINKING = frozenset({"be", "look", "seem", "sound", "feel", "get", "go", "become", "stay", "remain", "do", "keep"})


def _adjectives(tok: Any) -> list[Any]:
    """An adjective and the adjectives coordinated with it ("happy and thankful")."""
    return [tok] + [c for c in tok.children if c.dep_ == "conj" and c.pos_ == "ADJ"]


def reaction(s: Sentence) -> Reading | None:
    """Evaluations and feelings with nothing they are about: 'That's awesome', 'The colours look so
    bold', 'Rosalind was so happy', 'Here's a pic', 'It was a great experience'. A linking verb with
    an adjective and no prepositional object anywhere, a demonstrative or dummy subject, or a
    presentational 'here is' asserts no testable relation."""
    root = s.root
    subj = children(root, "nsubj", "expl")
    if root.lemma_ == "be" and (any(c.lower_ in ("here", "there") for c in root.children if c.dep_ in
                                    ("advmod", "expl")) and not children(root, "prep")):
        return NOTHING
    if root.lemma_ not in _LINKING:
        return None
    acomp = children(root, "acomp")
    if (acomp and acomp[0].pos_ == "ADJ" and not any(children(a, "prep") for a in _adjectives(acomp[0]))
            and not children(root, "prep")):
        return NOTHING
    if (root.lemma_ == "be" and subj and subj[0].lower_ in _DUMMY_SUBJECTS
            and not any(children(c, "prep") for c in children(root, "acomp", "attr"))
            and not children(root, "prep")):
        return NOTHING
    return None


def _owner(s: Sentence, noun: Any) -> str | None:
    """Whose attribute a relational noun names: its *of* / *for* object ("the author of X", "the
    venue for the offsite") or its possessor ("X's manager", "my number")."""
    for prep in children(noun, "prep"):
        objs = children(prep, "pobj")
        if prep.lower_ in ("of", "for") and objs:
            return subject_name(s, objs[0])
    poss = children(noun, "poss")
    if not poss:
        return None
    if poss[0].lower_ in ("my", "i"):
        return s.speaker
    if poss[0].lower_ in PRONOUNS | {"his", "her", "their", "its", "our"}:
        return None
    # without the possessor's own "'s", keeping a nested one ("Alice's sister" of "Alice's sister's")
    return s.text([t for t in poss[0].subtree if not (t.dep_ == "case" and t.head.i == poss[0].i)]) or None


def _same_possessor(noun: Any, other: Any) -> bool:
    """Both sides are owned by the same possessor ("my X is my Y", "his job is his life")."""
    mine, theirs = children(noun, "poss"), children(other, "poss")
    return bool(mine and theirs) and mine[0].lower_ == theirs[0].lower_


def _proper_value(noun: Any, adjective: Any) -> bool:
    """A proper adjective alone ("Swedish", "Catholic") after "the <attribute> of X is" names the
    attribute's value: "The official language of Japan is Swedish". After a possessor it stays a
    description ("Maya's mom is Korean" says what the mom is, not who she is), as does a common
    adjective ("interested in art")."""
    return (adjective.text[:1].isupper() and not list(adjective.children) and not children(noun, "poss")
            and any(p.lower_ in ("of", "for") for p in children(noun, "prep")))


def _noun_relation(s: Sentence, noun: Any) -> str:
    """The attribute a relational noun names, with its modifiers ("favourite board game",
    "primary on-call"), without articles and possessors."""
    skip = {t.i for c in noun.children if c.dep_ in ("det", "poss", "predet", "case") for t in c.subtree}
    words = [t for t in noun.subtree if t.i < noun.i and t.i not in skip and not t.is_punct
             and t.lower_ not in ("new", "current", "old", "previous", "latest")]
    return " ".join(s.text([t]).lower() for t in [*words, noun])


def _of_object(noun: Any) -> Any:
    return next(o for p in children(noun, "prep") if p.lower_ in ("of", "for") for o in children(p, "pobj"))


_WH = frozenset(("that", "which", "who", "whom", "where"))


def _nested(s: Sentence, noun: Any) -> tuple[str, str] | None:
    """A relational noun whose owner is inside a relative clause or another relational noun:
    'The university where X was educated' → (X, 'educated university'), 'The company that produced
    X' → (X, 'company produced'), 'the name of the head of state in X' → (X, 'head of state')."""
    # "The kind of car that X drives": the clause may hang on the of-object; the relation is the
    # whole noun phrase either way ("kind of car"), so both parses give one slot
    kind = next((o for p in children(noun, "prep") if p.lower_ == "of" for o in children(p, "pobj")), None)
    relation = _noun_relation(s, noun) + (f" of {_noun_relation(s, kind)}" if kind is not None else "")
    for rel in [*children(noun, "relcl"), *(children(kind, "relcl") if kind is not None else [])]:
        subj = [t for t in children(rel, "nsubj", "nsubjpass") if t.lower_ not in _WH and t.lower_ not in PRONOUNS]
        objs = [t for t in children(rel, "dobj") if t.lower_ not in _WH and t.lower_ not in PRONOUNS]
        if subj:
            return subject_name(s, subj[0]) or "", f"{rel.lemma_} {relation}"
        named = sorted({t for c in children(rel, "compound") if c.tag_ in PROPER for t in c.subtree}, key=lambda t: t.i)
        if named and rel.tag_ in ("NNS", "VBZ", "VBD", "VBP"):
            # the parser took the names before the clause's verb for its compound ("that Ines Alvarez plays")
            return s.text(named), f"{rel.lemma_} {relation}"
        if objs:
            return subject_name(s, objs[0]) or "", f"{relation} {rel.lemma_}"
    if noun.lower_ == "name":
        for prep in children(noun, "prep"):
            inner = children(prep, "pobj")
            if prep.lower_ == "of" and inner and inner[0].pos_ == "NOUN":
                named_owner = [t for t in inner[0].subtree if t.dep_ == "pobj" and t.tag_ in PROPER
                               and t.head.lower_ in ("of", "in", "for")]
                if named_owner:
                    cut = named_owner[-1].head.i
                    words = [t for t in inner[0].subtree if t.i < cut and t.dep_ not in ("det", "amod")]
                    return subject_name(s, named_owner[-1]) or "", " ".join(t.lower_ for t in words)
    return None


def relational_noun(s: Sentence) -> Reading | None:
    """'The author of X is Y', "X's manager is Y", 'Y is the manager of X', 'The venue for X is Y':
    a relational noun names the attribute, its *of*/*for* object (or possessor) is the subject, the
    other side the value."""
    root = s.root
    if root.lemma_ != "be":
        return None
    subj = children(root, "nsubj")
    attrs = children(root, "attr", "acomp")
    if not subj or not attrs:
        return None
    for noun, other in ((subj[0], attrs[0]), (attrs[0], subj[0])):
        if noun.pos_ not in ("NOUN", "PROPN") or noun.tag_ in PROPER and noun.i != subj[0].i:
            continue
        nested = _nested(s, noun)
        if nested is not None:  # "The university where X was educated is Y", "the name of the head of X"
            owner_name, relation = nested
            return make_reading(s, owner_name, relation, other, "relational_noun", stative=True, definite=True)
        owner_name = _owner(s, noun)
        if not owner_name:
            continue
        if noun.i != subj[0].i and any(c.lower_ in ("a", "an") for c in noun.children):
            # "X is a citizen of Y": membership of X in Y, not Y's attribute
            return make_reading(s, subject_name(s, subj[0]), _noun_relation(s, noun), _of_object(noun),
                                "relational_noun", stative=True, definite=True)
        if other.lower_ in PRONOUNS and other.lower_ not in ("i", "me"):
            return None
        if noun.i == subj[0].i and other.dep_ == "acomp" and not _proper_value(noun, other):
            return None  # "X's mom was interested in art" describes the mom; it does not say who she is
        if noun.i == subj[0].i and _a_person(noun) and (_indefinite(other) or other.like_num
                                                         or other.text in s.masked):
            return None  # "my sister is a nurse", "my son is 7" say what the person is, not who they are
        if _same_possessor(noun, other):
            return None  # "my family is my motivation": a description of the family, not who it is
        relation = _noun_relation(s, noun)
        rel = relation if noun.i == subj[0].i else f"the {relation} of"
        return make_reading(s, owner_name, rel, other, "relational_noun", stative=noun.tag_ in ("NN", "NNP"),
                        definite=noun.tag_ in ("NN", "NNP"))
    return None


# "moved on to bigger projects", "move forward to healthier habits": a change verb with one of these
# particles is a figure of speech, not an attribute taking a new value (nor a new home)
_FIGURATIVE = frozenset({"on", "forward", "ahead", "along", "past", "beyond", "away"})


def _change_to(s: Sentence, verb: Any) -> tuple[Any, str] | None:
    """The new value of a change verb: its *to* object ("raised to 2.5M", "goes up to 55k")."""
    if any(p.dep_ in ("prt", "advmod") and p.lower_ in _FIGURATIVE for p in verb.children):
        return None
    particles = [p for p in verb.children if p.dep_ in ("prt", "advmod") and p.lower_ in ("up", "down", "back", "over")]
    for prep in children(verb, "prep", "dative") + [p for t in particles for p in children(t, "prep")]:
        objs = children(prep, "pobj")
        if prep.lower_ in ("to", "into") and objs:
            particle = " ".join(p.lower_ for p in particles)
            return objs[0], f"{verb.lemma_} {particle} to".replace("  ", " ")
    return None


def changed_attribute(s: Sentence) -> Reading | None:
    """'Tannery's billing address changed to X', 'The venue for the offsite changed to Y', 'Sigrid
    switched her timezone to Z', 'We upgraded orders-db to 17': a change verb whose *to* object is
    the new value of an attribute (the relational noun) or of the changed thing."""
    root = s.root
    if root.lemma_ not in CHANGE_VERBS:
        return None
    found = _change_to(s, root)
    if found is None:
        return None
    value_head, verb_relation = found
    subj = children(root, "nsubj", "nsubjpass")
    objs = children(root, "dobj")
    thing = objs[0] if objs else (subj[0] if subj else None)
    if thing is None:
        return None
    poss = children(thing, "poss")
    if objs and poss and poss[0].lower_ in ("his", "her", "their", "its", "my", "our") and subj:
        owner = subject_name(s, subj[0])  # "Sigrid switched her timezone to ..."
        return make_reading(s, owner, _noun_relation(s, thing), value_head, "changed_attribute", stative=True,
                        definite=True)
    owner = _owner(s, thing) if thing.pos_ in ("NOUN", "PROPN") and not _a_person(thing) else None
    if owner:
        return make_reading(s, owner, _noun_relation(s, thing), value_head, "changed_attribute", stative=True,
                        definite=True)
    if objs and not _definite(thing):
        return None  # "they bring so much joy into my life": no particular thing took a new value
    return make_reading(s, subject_name(s, thing), verb_relation, value_head, "changed_attribute", stative=True,
                    definite=True)


_PERSON_NOUN = re.compile(rf"^(?:{REL_NOUNS})$", re.I)


def _a_person(noun: Any) -> bool:
    """A noun that names a person by their tie to someone ("my sister", "Dana's boss"): the person
    moves, works and is described; they are not an attribute that takes a place or a job as its value
    ("my sister moved to Eastfold" says where the sister lives, not that Eastfold is the sister)."""
    return bool(_PERSON_NOUN.match(noun.lower_)) or bool(_PERSON_NOUN.match(noun.lemma_))


def _indefinite(noun: Any) -> bool:
    """A description ("a nurse", "an early riser"), not an identity."""
    return any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in noun.children)


def _definite(noun: Any) -> bool:
    """A particular thing: a name, or a noun with "the" / "this" / "that" or an owner ("the budget",
    "orders-db"), not an amount or a kind ("so much joy", "some changes")."""
    if noun.tag_ in PROPER or noun.pos_ == "PROPN":
        return True
    return any(c.dep_ == "poss" or c.dep_ == "det" and c.lower_ in ("the", "this", "that", "these", "those")
               for c in noun.children)


def named(s: Sentence) -> Reading | None:
    """'The internal wiki is called Compass', 'The app is now named Riverstone', 'the alerts channel
    is #oncall-noise': a thing and the name it goes by (the curated ``name`` slot)."""
    root = s.root
    subj = children(root, "nsubj", "nsubjpass")
    if not subj or subj[0].lower_ in PRONOUNS or subj[0].tag_ in PROPER:
        return None
    if root.lemma_ in ("call", "name") and children(root, "auxpass"):
        comp = children(root, "oprd", "attr", "xcomp", "dobj")
        if comp:
            return make_reading(s, subject_name(s, subj[0]), "named", comp[0], "named", stative=True, definite=True)
    if (root.lemma_ == "be" and subj[0].pos_ == "NOUN" and any(c.lower_ == "the" for c in subj[0].children)
            and not children(subj[0], "relcl") and _nested(s, subj[0]) is None):
        attrs = children(root, "attr")
        if attrs and (attrs[0].tag_ in PROPER or attrs[0].text.startswith("Zyx")) \
                and not _owner(s, subj[0]):
            return make_reading(s, subject_name(s, subj[0]), "named", attrs[0], "named", stative=True, definite=True)
    return None


def copula_adjective(s: Sentence) -> Reading | None:
    """'X is famous for Y', 'X is allergic to Y', 'X is located in the city of Y'."""
    root = s.root
    head = None
    if root.lemma_ == "be":
        acomp = children(root, "acomp")
        head = acomp[0] if acomp else None
    elif root.tag_ == "VBN" and children(root, "auxpass"):
        head = root  # passive: 'X was born in Y', 'X is owned by Y'
    if head is None:
        return None
    subj = children(root, "nsubj", "nsubjpass")
    if not subj:
        return None
    heads = [head] if head.i == root.i else _adjectives(head)
    preps = [p for h in heads for p in children(h, "prep", "agent")]
    for prep in preps + ([] if head.i == root.i else children(root, "prep")):
        objs = children(prep, "pobj")
        if not objs:
            continue
        obj, relation = objs[0], f"{head.lower_} {prep.lower_}"
        cls = classifier(obj)
        if cls:
            obj, relation = cls[0], f"{relation} the {cls[1]} of"
        return make_reading(s, subject_name(s, subj[0]), relation, obj, "copula_adjective", stative=True,
                        definite=cls is not None)
    return None


# A job taken (or ended) is read by the job noun the verb governs, not by the verb: "started a new
# job as a pastry chef", "got a job at the bakery", "took a position at the lab" all say where the
# subject works or what the subject does, in the curated slots.
_JOB_NOUNS = frozenset({"job", "position", "post", "role", "gig", "internship", "placement"})
_JOB_TAKEN = frozenset({"start", "get", "land", "find", "take", "accept", "begin", "secure", "have", "score", "win"})
_JOB_ENDED = frozenset({"lose", "leave", "quit"})
_HEDGES = frozenset({"may", "might", "could", "would", "should"})
_TRAILING_WHEN = re.compile(r"\s+(?:on|in|since|from)\s+\d{4}-\d{2}-\d{2}$")


def job_object(s: Sentence) -> Reading | None:
    """'I started a new job as a pastry chef' → role; 'Priya got a job at the bakery' → works_at; 'I
    lost my job at Kestrel Freight' → works_at "none (left Kestrel Freight)" (the slot's value ends). A job noun
    governed by a verb that takes or ends it; a wish, a search, a hedge or a negation is left to
    the other rules ("looking for a job at X" says nothing about where X works)."""
    root = s.root
    subj = children(root, "nsubj")
    objs = [o for o in children(root, "dobj") if o.lemma_.lower() in _JOB_NOUNS]
    verb = root.lemma_.lower()
    if root.pos_ != "VERB" or not subj or not objs or verb not in _JOB_TAKEN | _JOB_ENDED:
        return None
    if children(root, "neg") or any(a.lower_ in _HEDGES for a in children(root, "aux")):
        return None
    preps = [p for p in children(objs[0], "prep") + children(root, "prep") if children(p, "pobj")]
    found: dict[str, Any] = {}
    for prep in preps:
        obj = children(prep, "pobj")[0]
        if is_when(s, obj) or obj.lower_ in PRONOUNS:
            continue
        if prep.lower_ == "as":
            found.setdefault("work as", obj)
        elif prep.lower_ in ("at", "with", "for"):
            found.setdefault("work at", obj)
    relation = "work at" if "work at" in found else "work as" if "work as" in found else None
    if relation is None:
        return None
    value, vtype = typed_value(s, found[relation])
    if isinstance(value, str):
        value = _TRAILING_WHEN.sub("", value)  # "as a pastry chef last week": the date says when, not what
    if verb in _JOB_ENDED:
        value, vtype = f"none (left {value})", "text"  # the slot's value ends: no edge to the old employer
    return make_reading(s, subject_name(s, subj[0]), relation, found[relation], "job_object", stative=True,
                        definite=True, value=value, value_type=vtype)


def verb_classifier(s: Sentence) -> Reading | None:
    """'X plays the position of Y', 'X speaks the language of Y': a verb whose object is a definite
    classifier; the classifier is part of the slot and the value is single."""
    root = s.root
    subj = children(root, "nsubj")
    objs = children(root, "dobj")
    if root.pos_ != "VERB" or not subj or not objs:
        return None
    cls = classifier(objs[0])
    if not cls:
        return None
    return make_reading(s, subject_name(s, subj[0]), f"{root.lemma_} the {cls[1]} of", cls[0], "verb_classifier",
                    stative=True, definite=True)


def verb_preposition(s: Sentence) -> Reading | None:
    """'Bob moved to Madrid', 'X works for Y', 'X died in the city of Y': verb + preposition +
    object. A move, a residence or a job is a curated slot through the alias seed; other verbs are
    learned, and an action accumulates values unless its object is a definite classifier."""
    root = s.root
    subj = children(root, "nsubj")
    if root.pos_ != "VERB" or not subj or children(root, "dobj"):
        return None
    preps = children(root, "prep", "dative")
    for prep in [p for p in preps if p.i > root.i] + [p for p in preps if p.i < root.i]:
        objs = children(prep, "pobj")
        if not objs or is_when(s, objs[0]):
            continue
        particle = "".join(f"{p.lower_} " for p in children(root, "prt")
                           + [a for a in children(root, "advmod") if a.lower_ in _FIGURATIVE])
        obj, relation, definite = objs[0], f"{root.lemma_} {particle}{prep.lower_}", False
        cls = classifier(obj)
        if cls:
            obj, relation, definite = cls[0], f"{relation} the {cls[1]} of", True
        return make_reading(s, subject_name(s, subj[0]), relation, obj, "verb_preposition", stative=False,
                        definite=definite)
    return None


def verb_object(s: Sentence) -> Reading | None:
    """'Maria bought a kayak', 'Leo manages Priya': verb + direct object; a curated alias may swap
    the sides (an inverse phrasing)."""
    root = s.root
    subj = children(root, "nsubj")
    objs = children(root, "dobj")
    if root.pos_ != "VERB" or not subj or not objs:
        return None
    if objs[0].lower_ in PRONOUNS:
        return NOTHING  # "The kids loved it": the object is not recoverable from the sentence
    particle = children(root, "prt")
    if root.lemma_ == "turn" and not particle and (objs[0].like_num or objs[0].text in s.masked):
        # "Marzipan just turned 11": the age reached is the figure "Marzipan is 11" gives, and replaces it
        return make_reading(s, subject_name(s, subj[0]), "amount", objs[0], "verb_object", stative=True,
                            definite=True)
    relation = " ".join([root.lemma_] + [p.lower_ for p in particle])
    return make_reading(s, subject_name(s, subj[0]), relation, objs[0], "verb_object", stative=False)


def copula_class(s: Sentence) -> Reading | None:
    """'Rust is a programming language': membership of a class (many-valued ``is_a``)."""
    root = s.root
    subj = children(root, "nsubj")
    attrs = children(root, "attr")
    if root.lemma_ != "be" or not subj or not attrs or attrs[0].pos_ not in ("NOUN", "PROPN"):
        return None
    if not any(c.lower_ in ("a", "an") for c in attrs[0].children) and attrs[0].tag_ not in PROPER:
        return None
    return make_reading(s, subject_name(s, subj[0]), "kind of", attrs[0], "copula_class", stative=False)


def copula_value(s: Sentence) -> Reading | None:
    """'The Q3 target is 2M' (an amount), 'The standup is at 9:30' (a time): a thing and its
    current figure or time, single-valued curated slots."""
    root = s.root
    subj = children(root, "nsubj")
    if root.lemma_ != "be" or not subj or subj[0].lower_ in PRONOUNS:
        return None
    # "my son is 7" is the son's figure (his age), not the speaker's attribute "son"
    owner = _owner(s, subj[0]) if subj[0].pos_ == "NOUN" and not _a_person(subj[0]) else None
    # "Rosalind was 17": a named subject's bare number is an age or a count, not an amount slot
    named_subject = owner is None and subj[0].pos_ != "NOUN"
    subject, relation = (owner, _noun_relation(s, subj[0])) if owner else (subject_name(s, subj[0]), "amount")
    for attr in children(root, "attr", "npadvmod", "acomp"):
        if is_time(s, attr):
            return make_reading(s, subject_name(s, subj[0]), "scheduled at", attr, "copula_value", stative=True)
        if (attr.like_num or attr.text in s.masked) and not named_subject:
            return make_reading(s, subject, relation, attr, "copula_value", stative=True, definite=True)
    for prep in children(root, "prep"):
        objs = children(prep, "pobj")
        if objs and is_time(s, objs[0]):
            return make_reading(s, subject_name(s, subj[0]), "scheduled at", objs[0], "copula_value", stative=True)
        if objs and prep.lower_ in ("on", "at") and (objs[0].like_num or objs[0].text in s.masked):
            return make_reading(s, subject_name(s, subj[0]), "on version", objs[0], "copula_value", stative=True,
                            definite=True)
    return None


def copula_place(s: Sentence) -> Reading | None:
    """'The new flat is on Harbour Street', 'The clinic is in Leeds': a thing (a common noun, not
    a person or a pronoun) and the named place it is in (the curated ``located_in``)."""
    root = s.root
    subj = children(root, "nsubj")
    if root.lemma_ != "be" or not subj or subj[0].pos_ != "NOUN" or subj[0].lower_ in PRONOUNS:
        return None
    if children(root, "attr", "acomp", "neg"):
        return None
    for prep in children(root, "prep"):
        objs = children(prep, "pobj")
        if (prep.lower_ in ("in", "on", "at") and objs and objs[0].tag_ in PROPER and objs[0].text not in s.masked
                and not is_when(s, objs[0])):
            return make_reading(s, subject_name(s, subj[0]), "located in", objs[0], "copula_place", stative=True,
                                definite=True)
    return None


def verb_complement(s: Sentence) -> Reading | None:
    """'Torsten started making music', 'Nate wants to learn the cello': a verb whose complement is
    another verb; the two verbs are the relation, the complement's object the value."""
    root = s.root
    subj = children(root, "nsubj")
    comps = children(root, "xcomp")
    if root.pos_ != "VERB" or not subj or not comps or comps[0].pos_ != "VERB":
        return None
    comp = comps[0]
    objs = children(comp, "dobj", "attr")
    relation = f"{root.lemma_} {comp.lemma_}"
    if not objs:
        for prep in children(comp, "prep"):
            inner = children(prep, "pobj")
            if inner and not is_when(s, inner[0]):
                objs, relation = inner, f"{relation} {prep.lower_}"
                break
    if not objs or objs[0].lower_ in PRONOUNS:
        return None
    return make_reading(s, subject_name(s, subj[0]), relation, objs[0], "verb_complement", stative=False)


MAX_SENTENCE = 1000  # characters; the parser's time grows with length, and no assertion needs more
Rule = Callable[[Sentence], Reading | None]
# The ordered table: the first rule that answers decides.
RULES: tuple[tuple[str, Rule], ...] = (
    ("non_assertion", non_assertion),
    ("named", named),
    ("relational_noun", relational_noun),
    ("reaction", reaction),
    ("changed_attribute", changed_attribute),
    ("copula_value", copula_value),
    ("copula_place", copula_place),
    ("copula_adjective", copula_adjective),
    ("job_object", job_object),
    ("verb_classifier", verb_classifier),
    ("verb_preposition", verb_preposition),
    ("verb_object", verb_object),
    ("verb_complement", verb_complement),
    ("copula_class", copula_class),
)


# A spaced dash joins two clauses the parser would read as one ("the POS overnight - terminal" as a noun).
_DASH_JOINT = re.compile(r"\s+[-–—]\s+")


def read_all(text: str, speaker: str | None = None) -> list[Reading]:
    """Every reading of one sentence: the main clause's, then those of the clauses joined to it
    ("Finance approved the increase, the budget goes up to 55k"; "Turns out I'm allergic to X").
    ``[NOTHING]`` when it asserts nothing; ``[]`` when it asserts something no rule reads."""
    if not text.strip():
        return [NOTHING]
    if len(text) > MAX_SENTENCE:
        return []  # not a sentence a person wrote (a log line, a pasted table): kept as `states`, unparsed
    if noted(text, speaker):
        return []
    parts = _DASH_JOINT.split(text)
    if len(parts) > 1 and all(len(p.split()) >= 2 for p in parts):  # "flashed it overnight - terminal is on v9"
        found = [r for p in parts for r in read_all(p, speaker)]
        real = list(dict.fromkeys(r for r in found if r is not NOTHING))
        return real or ([NOTHING] if NOTHING in found else [])
    s = parse(text, speaker)
    first = _apply(s)
    out = [first] if isinstance(first, Reading) and first is not NOTHING else []
    root = s.root
    for clause in children(root, "ccomp", "parataxis", "conj"):
        if clause.pos_ in ("VERB", "AUX") and children(clause, "nsubj", "nsubjpass"):
            inner = _apply(Sentence(s.doc, s.masked, s.speaker, clause))
            if isinstance(inner, Reading) and inner is not NOTHING and inner not in out:
                out.append(inner)
    if out:
        return out
    return [NOTHING] if first is NOTHING else []


def _apply(s: Sentence) -> Reading | None:
    for _name, rule in RULES:
        found = rule(s)
        if found is not None:
            return found
    return None


def subject_of(text: str, speaker: str | None = None) -> str | None:
    """The clause's grammatical subject, for a ``states`` fact (``None`` for an unresolved pronoun)."""
    if len(text) > MAX_SENTENCE or noted(text, speaker):
        return None
    s = parse(text, speaker)
    subj = children(s.root, "nsubj", "nsubjpass")
    return subject_name(s, subj[0]) if subj else None
