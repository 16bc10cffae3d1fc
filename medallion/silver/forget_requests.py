"""Forget on request: recognise a speaker asking the memory to forget something, by its structure.

A forget request is a sentence of a turn, note or issue that is a request (an imperative, or "can
you …", "I want you to …") whose verb forgets or deletes, addressed to the memory, with an object:
"please forget my social security number", "can you delete what I said about my salary", "forget
everything about me", "forget that" (the speaker's previous turn). Whose data it is follows from the
object's form: a first-person possessive, "what I said", "me" → the speaker's own; another's
possessive or name ("forget Tom's address", "everything about Tom") → someone else's.

Only function words and the few verbs of forgetting are listed here; what the object names (a phone
number, a diagnosis, an ex) is never listed: :mod:`medallion.silver.withhold` matches it by meaning.
A sentence that merely mentions forgetting ("I always forget my keys", "don't forget the milk",
"forget it, let's go") is not a request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_SENTENCE = 300  # characters

# How a request opens, before its verb: nothing, "please", "can you", "I want you to", …
_LEAD = re.compile(
    r"^(?:(?:ok(?:ay)?|hey|so|actually|also|and|but|now|oh|well|right|alright|hmm+|um+|uh+|ah+|ugh+|argh+|oops|"
    r"whoops|one more thing|god|gosh|geez|jeez|yikes|eek|no|dear|crap|damn|"
    r"on\s+second\s+thoughts?|on\s+reflection|thinking\s+again|having\s+thought\s+about\s+it"
    r"|wait|sorry|btw|by\s+the\s+way|come\s+to\s+think\s+of\s+it|thinking\s+about\s+it)\b[\s,:;-]*+)*+"
    r"(?:(?:please|kindly|just)\s++)*+"
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+|kindly\s+|just\s+)*"
    r"|i(?:\s+would|'d|’d)?\s+(?:want|need|like|prefer|ask)\s+(?:for\s+)?you\s+to\s+(?:please\s+|just\s+)*"
    r"|you\s+(?:should|must|need\s+to|have\s+to)\s+(?:please\s+|just\s+)*"
    r"|(?P<rather>i(?:'d|’d|\s+would)\s+(?:rather|prefer)\s+(?:if\s+)?you\s+(?:didn't|didn’t|did\s+not|not|don't|"
    r"don’t|wouldn't|wouldn’t|never)\s+)"
    r"|)",
    re.IGNORECASE,
)
# Verbs that address the memory by themselves, and verbs that do when they say what from.
_FORGET = (r"forget|unlearn|stop\s+remembering|no\s+longer\s+remember|(?:do\s+not|don't|don’t|never)\s+remember"
           r"|stop\s+(?:storing|keeping|tracking|retaining|saving)")
# Keeping verbs: negated ("don't keep my salary on file"), they ask the memory not to hold something.
_KEEP = r"keep|store|retain|save|record|hold\s+on\s*to|hang\s+on\s+to|remember"
_NOT_KEEP = rf"(?:do\s+not|don't|don’t|never|not)\s+(?:{_KEEP})"
_DELETE = (r"delete|erase|remove|wipe|purge|scrub|scratch|scrap|drop|clear|discard|get\s+rid\s+of|throw\s+(?:out|away)"
           r"|keep\s+no\s+(?:records?|notes?|cop(?:y|ies)|trace)\s+of"
           r"|take(?=\s.+\s(?:out\s+of|off)\s)"  # "take my passport details out of my notes"
           rf"|{_NOT_KEEP}")
_VERB = re.compile(rf"^(?P<verb>{_FORGET}|{_DELETE})\b\s*(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)
# After "I'd rather you didn't", a bare keeping verb asks not to keep.
_BARE_KEEP = re.compile(rf"^(?P<verb>{_KEEP})\b\s*(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)
_NEGATED_KEEP = re.compile(_NOT_KEEP, re.IGNORECASE)
# A request told on someone's behalf: "Thiago asked us to delete his home phone", "the customer asked
# that we not store her mobile", "Svetlana requested that her emergency contact details be erased".
_NAMED = r"[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?"  # "Thiago", "Ines Varga"
_ROLES = (r"customer|client|patient|pt|user|caller|employee|member|guest|resident|tenant|reporter|requester|"
          r"requestor")  # "the customer asked …", a ticket's "reporter requests …"
_WHO = rf"(?:(?i:{_ROLES})\s+(?=[A-Z]))?(?P<who>{_NAMED}|(?:the\s+)?(?:{_ROLES}|he|she|they))"  # "Guest Oren Tal"
_RELAYED = re.compile(
    rf"^{_WHO}\s+(?:has\s+|had\s+)?(?:asked|asks|requested|requests|wants|wanted|would\s+like)\s+"
    r"(?:(?:us|you|me|them|the\s+team)\s+to\s+(?P<ask>.+)"
    r"|(?:us|you|me|them|the\s+team)\s+(?P<notto>not\s+to\s+.+)"
    r"|(?:that\s+)?(?:we|you|I)\s+(?P<not>not\s+.+)"
    r"|(?:that\s+)?(?:we|you)\s+(?P<ask2>.+)"
    r"|(?:that\s+)?(?P<obj>.+?)\s+(?:be|is|are|gets?)\s+(?:erased|deleted|removed|forgotten|purged|wiped|scrubbed|"
    r"dropped|discarded)(?P<tail>\b.*))$", re.DOTALL)
# A request told as a noun ("Delphine requested erasure of her home phone number", "Norbert invoked erasure
# for his DOB"), and a withdrawal of consent that the rest of the sentence acts on ("Sefton has withdrawn
# consent; remove the note about his diagnosis"): both on behalf of the person named.
_ERASURE_ASKED = re.compile(
    rf"^{_WHO}\s+(?:has\s+|had\s+)?(?:requested|requests|asked\s+for|asks\s+for|invoked|invokes|exercised|"
    r"exercises|filed|made)\s+(?:an?\s+|the\s+|(?:his|her|their)\s+)?(?:right\s+to\s+)?(?:erasure|deletion|removal)"
    r"(?:\s+request)?\s+(?:of|for|on)\s+(?P<obj>.+)$", re.DOTALL)
_CONSENT_WITHDRAWN = re.compile(
    rf"^{_WHO}\s+(?:has\s+|had\s+)?(?:withdrawn|withdrew|withdraws|revoked|revokes|pulled)\s+"
    r"(?:(?:his|her|their)\s+)?consent\b(?:\s+(?:for|to)\s+(?:(?:us|you|the\s+\w+)\s+)?(?:to\s+)?"
    r"(?:hold|keep|store|retain|have|process|use)(?:ing)?\s+(?P<held>.+))?")
# A request a note passes on by its lead: "Per Anselm's request, delete his passport number", "At the
# customer's request: remove her date of birth", "On behalf of Ines, forget her old address".
_ASKER = rf"{_NAMED}|(?:the\s+)?(?:{_ROLES})"
_ON_BEHALF = re.compile(
    rf"^(?:(?i:per|at|by)\s+(?P<who>{_ASKER})(?:'s|’s)\s+(?:own\s+)?request|(?i:on\s+behalf\s+of)\s+(?P<whom>{_ASKER})"
    rf"|(?i:as)\s+(?P<asker>{_ASKER})\s+(?:asked|requested))\s*[,:;-]\s*(?P<ask>.+)$", re.DOTALL)
_THEIRS = re.compile(r"\b(?:his|her|their)\b", re.IGNORECASE)  # in a relayed request: the asker's own
_RECORDS_VERB = re.compile(r"^(?:remove|drop|clear|scrub|discard|take\s+out)\b", re.IGNORECASE)
_PRONOUN = re.compile(r"^(?:him|her|them|it|this|that|these|those|everyone|anyone)$", re.IGNORECASE)
_LIST_GOES_ON = re.compile(r"\b(?:and|or|plus)\b|&")  # "my phone, my address and my email": one object
_SAID_BEFORE = re.compile(r"^(?:that|this|those|these)\s+[\w-]+$", re.IGNORECASE)  # "that code", one noun
_STRONG_DELETE = re.compile(r"^(?:delete|erase|wipe|purge|scrub)$", re.IGNORECASE)
# "… from your memory / records / notes", said after the object.
_FROM_MEMORY = re.compile(
    r"\s*+\b(?:from|out\s++of|off|in|on)\s++(?:(?:your|the|my|our|this|that)\s++)?(?:memory|memories|mind|records?|notes?|files?|database|"
    r"system|brain|history|profile|ticket|thread|account|chat|conversation)\b.*$", re.IGNORECASE)
_TRAILING = re.compile(r"(?:[\s,]++(?:please|for\s+me|for\s+good|forever|permanently|completely|entirely|now|"
                       r"right\s+away|too|as\s+well|thanks?(?:\s+you)?|ok(?:ay)?))++\s*+$", re.IGNORECASE)
_EVERYTHING = re.compile(
    r"^(?:about\s+)?(?:everything|anything|all|whatever)(?:\s+(?:that\s+)?(?:you(?:'ve|’ve)?\s+)?"
    r"(?:know|knew|have|has|got|remember|stored|learned|learnt|heard|recorded|kept|said|saved))?"
    r"\s+(?:about|on|of|regarding|concerning)\s+(?P<x>.+)$", re.IGNORECASE)
_WHAT_I_SAID = re.compile(  # "what I said about …", and "(that) I told you my salary" (what: the object)
    r"^(?:about\s+)?(?:(?:what|everything|anything|all|whatever|the\s+(?:stuff|things?))\s+|that\s+(?=i\b)|(?=i\s))"
    r"(?:that\s+)?i(?:'ve|’ve|\s+have)?"
    r"\s+(?:just\s+)?(?:said|told\s+you|mentioned|shared|wrote|typed|gave\s+you|say|tell\s+you)"
    r"(?:\s+(?:(?:about|on|regarding|concerning)\s+|(?=(?:my|our)\b))(?P<x>.+))?$", re.IGNORECASE)
_PREVIOUS = re.compile(
    r"^(?:that|this|(?:my|the)\s+last\s+(?:message|thing\s+i\s+said|sentence|turn)|what\s+i\s+just\s+(?:said|wrote))$",
    re.IGNORECASE)
_IDIOM = re.compile(r"^(?:about\s+)?(?:it|it\s+all|all\s+(?:of\s+)?it|about\s+it|that\s+idea|the\s+whole\s+thing)?$",
                    re.IGNORECASE)
_OWN = re.compile(r"^(?:about\s+)?(?:all\s+(?:of\s+)?)?(?:my|mine|me|myself|our|us)\b\s*(?P<x>.*)$", re.IGNORECASE)
_POSSESSIVE = re.compile(r"^(?:about\s+)?(?P<who>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)(?:'s|’s|')\s+(?P<x>.+)$")
_THIRD = re.compile(r"^(?:about\s+)?(?:his|her|their|its)\b\s*(?P<x>.*)$", re.IGNORECASE)
_ARTICLE = re.compile(r"^(?:about\s+)?(?:the|a|an|that|this|those|these|any|all|some)\s+", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself|i'm|i’m|i've|i’ve)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_NEXT = (r"(?:let's|let’s|we|i|you|tell|what|how|ok(?:ay)?|thanks?|he|she|they|it|that|this|that's|it's|i'd|i'm|"
         r"don't|don’t|idk|the|shouldn't|shouldn’t|should|didn't|didn’t|wasn't|wasn’t|was|not|sorry|oops|"
         r"that’s|it’s|i’d|i’m|just|delete|remove|forget|erase|scrap|wipe|purge|drop|keep|leave|retain)\b")
_CLAUSE_END = re.compile(
    rf"(?:[;:–—\U0001F300-\U0001FAFF\u2600-\u27BF]|,\s*+(?:(?:and|but|because|since|so|then)\s++)?{_NEXT}"
    rf"|\s(?:and|but|because|since|so|then)\s++{_NEXT}|\s++please\b"
    # "… the home phone number and contact by email only": a second verb, told by what follows it
    r"|\s(?:and|but)\s++\w+\s++(?:by|via|through|me|us|them|him|her|only|instead)\b"
    # "delete the mobile, email only": what is kept, after a comma
    r"|,\s*+(?:[\w-]++\s++){0,2}?[\w-]++\s++only\b).*$",
    re.IGNORECASE)
# Keeping, asked of the memory beside a request ("keep the dentist info tho", "the job stuff is fine to
# keep", "Keep the preferred time."): an instruction, not something to remember.
_KEEP_ASK = re.compile(
    r"^\W*(?:(?:but|and|though|ok(?:ay)?|please|pls|just|do)\s+)*(?:keep|retain|save|store|hold\s+on\s+to)\s+"
    r"(?:(?:the|my|his|her|their|our)\s+)?(?:[\w-]+\s+){0,3}?(?:info|information|stuff|details?|data|part|bits?|notes?|"
    r"records?|rest|everything\s+else)\b|\b(?:is|are|'s|’s)\s+(?:fine|ok(?:ay)?|good)\s+to\s+keep\b"
    r"|^\W*(?:you\s+(?:can|may)\s+keep)\b", re.IGNORECASE)


@dataclass(frozen=True)
class ForgetRequest:
    """One request: what to forget and whose it is.

    ``mode``: ``phrase`` (``target`` names the thing, matched by meaning), ``about`` (what the speaker
    said about ``target``), ``everything`` (every item that mentions ``target``; ``target`` None: the
    speaker themself) or ``previous`` (the speaker's previous turn). ``own``: the data of the person
    who asked (the speaker, or for a ``relayed`` request ``about_whom``); otherwise ``about_whom``
    names the other person when the request does.
    """

    mode: str
    target: str | None
    own: bool
    about_whom: str | None = None
    sentence: str = ""
    relayed: bool = False  # told by someone else on behalf of ``about_whom`` (or of the person the text is about)


def detect(text: str) -> ForgetRequest | None:
    """The first forget request among the sentences of ``text``, or None. A request is one short
    sentence: a longer one is not read (which also bounds every pattern's work). It may follow a
    lead-in clause ("ugh, forget …", "Per HR, remove …", "1234: verified; don't keep …"): each
    sentence is read from its start, then from after each comma, semicolon or colon."""
    for match in _SENTENCE.finditer(spelled_out(text or "")):
        if match.end() - match.start() > MAX_SENTENCE:
            continue
        sentence = match.group().strip()
        starts = [0] + [m.end() for m in _CLAUSE_BREAK.finditer(sentence)]
        consent = _CONSENT_WITHDRAWN.match(sentence)
        for start in starts:
            found = _request(sentence[start:].strip(), sentence)
            if found is not None and consent is not None and start > 0:
                who = consent.group("who")
                return _passed_on(found, who if who[:1].isupper() else None, sentence)
            if found is not None:
                return found
    return None


def instructs(text: str) -> bool:
    """Whether ``text`` only tells the memory what to forget or what to keep: a forget request
    (:func:`detect`), or a sentence asking it to keep something ("keep the dentist info tho")."""
    return detect(text) is not None or any(
        _KEEP_ASK.search(m.group().strip()) for m in _SENTENCE.finditer(spelled_out(text or "")))


# What a turn asks the memory to keep beside a request, its object named: "where i live is fine", "keep
# the dentist info", "email only", "you can keep my work number".
_KEPT = (
    re.compile(r"(?<![\w'’])(?<!not\s)(?<!n't\s)(?<!n’t\s)(?<!never\s)(?:keep|retain|hold\s+on\s+to)\s+(?!no\b)(?P<x>[^,.;:!?]+)",
               re.IGNORECASE),
    re.compile(r"(?:^|[,;:]\s*|\b(?:but|and|though)\s+)(?P<x>[^,.;:!?]+?)\s+(?:(?:is|are|'s|’s)\s+(?:fine|ok(?:ay)?|"
               r"good|alright)|can\s+stay)\b", re.IGNORECASE),
    re.compile(r"(?:^|[,;:]\s*)(?P<x>(?:[\w-]+\s+){0,2}?[\w-]+)\s+only\b", re.IGNORECASE),
)
_KEPT_TAIL = re.compile(r"(?:\s++(?:tho(?:ugh)?+|please|thanks|info(?:rmation)?+|stuff|details?+|to\s++keep)\b)++$",
                        re.IGNORECASE)


def kept(text: str) -> list[str]:
    """What ``text`` asks the memory to keep beside a forget request ("where i live is fine" → "where i
    live"; "delete the mobile, email only" → "email"), each named as its words; a pronoun ("that's fine")
    names nothing."""
    found = []
    for sentence in _SENTENCE.finditer(spelled_out(text or "")):
        for pattern in _KEPT:
            for m in pattern.finditer(sentence.group()):
                phrase = _KEPT_TAIL.sub("", _clean(m.group("x"))).strip()
                if phrase and not _PRONOUN.fullmatch(phrase) and not _VERB.match(phrase) and \
                        phrase.casefold() not in ("all", "everything else", "the rest", "rest"):
                    found.append(phrase)
    return list(dict.fromkeys(found))


_CLAUSE_BREAK = re.compile(r"[,;:]\s*+")
# Chat spellings of the function words a request is read by ("can u not remember my salary pls").
_SHORTHAND = {"u": "you", "ur": "your", "pls": "please", "plz": "please", "pleeease": "please", "dont": "don't",
              "cant": "can't", "wont": "won't", "thx": "thanks"}
_SHORTHAND_RE = re.compile(r"\b(?:" + "|".join(_SHORTHAND) + r")\b", re.IGNORECASE)


def spelled_out(text: str) -> str:
    """``text`` with the chat spellings of function words written out ("u" → "you", "pls" → "please")."""
    return _SHORTHAND_RE.sub(lambda m: _SHORTHAND[m.group(0).casefold()], text)
# Generic words for "the information": "that info about my ex", "the therapist stuff".
_GENERIC = re.compile(r"^(?:info|information|stuff|details?|data|things?|bits?|part|note|notes|entry|record)\s+"
                      r"(?:about|on|regarding|concerning|of)\s+(?P<x>.+)$", re.IGNORECASE)
_GENERIC_TAIL = re.compile(r"\s+(?:info|information|stuff|thing|things|business)$",
                           re.IGNORECASE)
_NAMED_POSSESSIVE = re.compile(r"\b(?P<who>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)(?:'s|’s)\s")


def _request(body: str, sentence: str) -> ForgetRequest | None:
    body = body.rstrip(" .!?").strip().strip('"“”')
    relayed = _RELAYED.match(body)
    if relayed is not None:
        return _relayed(relayed, sentence)
    erasure = _ERASURE_ASKED.match(body)
    if erasure is not None:
        who = erasure.group("who")
        named = _named(who)
        obj = _THEIRS.sub("my", erasure.group("obj"), count=1)
        return _passed_on(_request("delete " + obj, sentence), named, sentence)
    consent = _CONSENT_WITHDRAWN.match(body)
    if consent is not None and consent.group("held"):  # "withdrew consent for us to hold her test results"
        who = consent.group("who")
        named = _named(who)
        return _passed_on(_request("delete " + _THEIRS.sub("my", consent.group("held"), count=1), sentence),
                          named, sentence)
    behalf = _ON_BEHALF.match(body)
    if behalf is not None:
        return _on_behalf(behalf, sentence)
    lead = _LEAD.match(body)
    rest = body[lead.end():] if lead else body
    rather = bool(lead and lead.group("rather"))
    verb = (_BARE_KEEP if rather else _VERB).match(rest)
    if verb is None:
        return None
    said = verb.group("verb")
    obj = verb.group("rest").strip()
    memory_cue = bool(_FROM_MEMORY.search(obj))
    obj = _FROM_MEMORY.sub("", obj)
    obj = _TRAILING.sub("", _CLAUSE_END.sub("", obj)).strip(" ,")
    head, comma, tail = obj.partition(",")
    # "that code, facilities would kill me": the object ends at the comma, unless a list or a name goes on
    if comma and head.strip() and not _LIST_GOES_ON.search(tail) and not re.fullmatch(_NAMED, tail.strip()):
        obj = head.strip()
    # "keep no record of …" says where from: the memory
    forgets = rather or re.fullmatch(_FORGET, said, re.IGNORECASE) is not None or said.casefold().startswith("keep no")
    if _IDIOM.fullmatch(obj):  # "forget it", "forget about it": a dismissal, not a request
        return None
    if _PREVIOUS.fullmatch(obj):
        return ForgetRequest("previous", None, True, sentence=sentence) if forgets or memory_cue else None
    found = _object(obj, sentence)
    if found is None:
        return None
    # "delete my …" asks the memory; "don't keep my …" and "don't keep that code" (what was just said) too,
    # but "don't keep the door open" does not
    strong = _STRONG_DELETE.fullmatch(said) or (_NEGATED_KEEP.fullmatch(said) and (
        _FIRST_PERSON.search(obj) or _SAID_BEFORE.match(obj)))
    if not (forgets or memory_cue or found.mode in ("about", "everything") or (found.own and strong)):
        return None  # "remove the tomatoes", "clear the table": not addressed to the memory
    return found


def _named(who: str) -> str | None:
    """The asker a relayed request names, or None for a role or a pronoun ("the customer", "she")."""
    return who if who[:1].isupper() and who.casefold() not in ("he", "she", "they") else None


def _on_behalf(match: re.Match[str], sentence: str) -> ForgetRequest | None:
    """A request a note passes on by its lead ("Per Anselm's request, delete his passport number"): the
    asker's own data when the object is theirs, as for :func:`_relayed`."""
    who = match.group("who") or match.group("whom") or match.group("asker")
    named = who if who[:1].isupper() else None
    return _passed_on(_request(_THEIRS.sub("my", match.group("ask"), count=1), sentence), named, sentence)


def _relayed(match: re.Match[str], sentence: str) -> ForgetRequest | None:
    """A request told on behalf of the person who asked ("Thiago asked us to delete his home phone"):
    it is that person's own data when the object is theirs (his, her, their, or nothing said)."""
    who = match.group("who")
    named = _named(who)
    ask = match.group("ask") or match.group("ask2")
    if ask is not None:  # the asker's own data asked off the records: "remove his passport number"
        own = _THEIRS.sub("my", ask, count=1)
        inner = _request(_RECORDS_VERB.sub("delete", own, count=1) if own != ask else ask, sentence)
    elif match.group("not") is not None or match.group("notto") is not None:
        negated = (match.group("not") or match.group("notto")).replace("not to ", "not ", 1)
        inner = _request("do " + _THEIRS.sub("my", negated, count=1), sentence)
    else:
        obj = match.group("obj")
        inner = _request("delete " + _THEIRS.sub("my", obj, count=1), sentence) if obj else None
    return _passed_on(inner, named, sentence)


def _passed_on(inner: ForgetRequest | None, named: str | None, sentence: str) -> ForgetRequest | None:
    """The request ``inner`` read from what someone passed on for ``named`` (None: the person the text
    is about): theirs, unless its object names another person."""
    if inner is None:
        return None
    if inner.about_whom is not None and (named is None or inner.about_whom != named):
        return inner  # someone else's data, named in the object
    return ForgetRequest(inner.mode, inner.target, True, named, sentence, relayed=True)


def _object(obj: str, sentence: str) -> ForgetRequest | None:
    """What the request's object names, and whose it is."""
    generic = _GENERIC.match(_ARTICLE.sub("", obj))
    if generic is not None:  # "that info about my ex": what was said about it
        inner = _object(generic.group("x"), sentence)
        return None if inner is None else ForgetRequest(
            "about" if inner.mode == "phrase" else inner.mode, inner.target, inner.own, inner.about_whom, sentence)
    said = _WHAT_I_SAID.match(obj)
    if said is not None:
        target = _clean(said.group("x"))
        own = _OWN.match(target)
        target = _clean(own.group("x")) if own is not None and own.group("x") else target
        other = _POSSESSIVE.match(target)
        if other is not None:  # "what I told you about Philippa's job": Philippa's data
            return ForgetRequest("about", _clean(other.group("x")), False, other.group("who"), sentence)
        return ForgetRequest("about", target, True, sentence=sentence) if target else \
            ForgetRequest("previous", None, True, sentence=sentence)
    every = _EVERYTHING.match(obj)
    if every is not None:
        x = every.group("x").strip()
        if re.fullmatch(r"(?:me|myself|us|ourselves)", x, re.IGNORECASE):
            return ForgetRequest("everything", None, True, sentence=sentence)
        own = _OWN.match(x)
        if own is not None:
            return ForgetRequest("everything", _clean(own.group("x")) or None, True, sentence=sentence)
        third = _POSSESSIVE.match(x)
        if third is not None:
            return ForgetRequest("about", _clean(third.group("x")), False, third.group("who"), sentence)
        if not re.match(r"^(?:the\s+)?[A-Z]", x):  # "anything about the therapy stuff": a topic of the speaker's
            return ForgetRequest("about", _clean(x), True, sentence=sentence)
        return ForgetRequest("everything", _clean(x), False, _clean(x), sentence)
    own = _OWN.match(obj)
    if own is not None:
        target = _clean(own.group("x"))
        return ForgetRequest("phrase", target, True, sentence=sentence) if target else None
    third = _POSSESSIVE.match(obj)
    if third is not None:
        return ForgetRequest("phrase", _clean(third.group("x")), False, third.group("who"), sentence)
    if _THIRD.match(obj):
        target = _clean(_THIRD.match(obj).group("x"))  # type: ignore[union-attr]
        return ForgetRequest("phrase", target, False, sentence=sentence) if target else None
    target = _clean(obj)
    if not target or _PRONOUN.fullmatch(target):
        return None  # "forget him": a person, not something said
    named = _NAMED_POSSESSIVE.search(obj)
    if named is not None:  # "the earlier note on Gideon's status": Gideon's data
        return ForgetRequest("phrase", target, False, named.group("who"), sentence)
    # "the address I gave you": the speaker's own words; a bare object is taken as the speaker's too
    return ForgetRequest("phrase", target, True, sentence=sentence) if _FIRST_PERSON.search(obj) or \
        not re.match(r"^[A-Z]", obj) else ForgetRequest("everything", target, False, target, sentence)


def _clean(text: str | None) -> str:
    """The target phrase without articles, "about" and surrounding punctuation."""
    text = (text or "").strip(" ,;:'\"“”")
    text = _ARTICLE.sub("", text).strip()
    return _GENERIC_TAIL.sub("", text).strip() if _GENERIC_TAIL.sub("", text).strip() else text
