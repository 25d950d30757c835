"""Who a statement is about (`holder_attribute`): the speaker, a relation ("my sister Ana",
"the cat"), a person by name, or a pronoun left for the supersede rule to resolve; and which
words say so. Pure; read by `step/supersede.read_claim`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .endings import MONTHS_AND_DAYS
from .lexicon import EVENT_WORDS, data_rows

RELATIONS = {
    w: w for w in """mother father parents sister brother wife husband partner girlfriend
    boyfriend fiance fiancee son daughter kid kids child children baby friend cousin aunt uncle
    niece nephew grandmother grandfather grandma grandpa granddaughter grandson grandchild
    stepson stepdaughter stepmother stepfather godson goddaughter boss manager colleague coworker
    roommate flatmate neighbor neighbour landlord landlady teacher doctor dentist therapist
    mate pal buddy bestie housemate classmate teammate workmate ex twin spouse stepsister
    stepbrother godmother godfather carer tutor coach mentor lodger tenant intern apprentice trainee
    dog cat puppy kitten pet horse rabbit hamster parrot tortoise budgie ferret gecko snake
    lizard pony chinchilla cockatiel goldfish terrapin bunny""".split()
} | {"mom": "mother", "mum": "mother", "dad": "father", "sis": "sister", "bro": "brother",
     "granny": "grandmother", "supervisor": "manager", "gp": "doctor", "wifey": "wife",
     "hubby": "husband", "team lead": "manager", "stepmum": "stepmother", "stepdad": "stepfather",
     "grandkid": "grandchild", "nan": "grandmother", "nana": "grandmother",
     "nanna": "grandmother", "gran": "grandmother", "grandad": "grandfather",
     "granddad": "grandfather", "grampa": "grandfather", "gramps": "grandfather",
     "auntie": "aunt", "aunty": "aunt", "missus": "wife",
     # a child by their place among the children ("my eldest", "our youngest"): one each
     "eldest": "eldest", "oldest": "eldest", "youngest": "youngest"}
# Relations of one gender: "she" never stands for "my son", nor "he" for "my daughter".
GENDER = {w: "she" for w in """mother mum mom sister wife girlfriend daughter aunt auntie niece
    grandmother grandma granny nan nana granddaughter stepdaughter stepmother stepmum stepsister
    godmother goddaughter fiancee landlady aunty missus wifey""".split()} | {
    w: "he" for w in """father dad brother husband boyfriend son uncle nephew grandfather grandpa
    grandad granddad grandson stepson stepfather stepdad stepbrother godson godfather fiance
    landlord""".split()}


_NAMES: dict[str, str] = {}
"""Common first names and the pronoun a person of that name is usually called by, read once
from data/first_names.tsv (built by scripts/build_first_names.py; names both sexes are called
by are not in it): packaged data, no user's words."""


def _first_names() -> dict[str, str]:
    if not _NAMES:
        for name, *said in data_rows("first_names.tsv"):
            if value := "\t".join(said):
                _NAMES[name] = value
    return _NAMES


def pronoun(who: str) -> str | None:
    """"she" or "he" for a holder or a mention of one ("my friend Aoife", "daughter ella",
    "named marcus"): by a relation of one gender, else by the first name, else None. Of a
    chain, the last one's ("my husband's sister": she)."""
    words = re.findall(r"[a-z]+", re.split(r"['\u2019]s\s", who.lower())[-1])
    for w in words:
        if w in GENDER:
            return GENDER[w]
    names = _first_names()
    found = {names[w] for w in words if w in names and w != "named"}
    return found.pop() if len(found) == 1 else None


# Relations whose identity is an attribute of the speaker: "my boss is Priya" says who the
# speaker's boss is, a fact about the speaker, not about Priya.
_IDENTITY_SAME = {"boss": "manager", "supervisor": "manager"}
# A relation "-in-law" is another relation ("my father-in-law" is not "my dad").
_REL_WORDS = "(?:" + "|".join(sorted((re.escape(k) for k in RELATIONS), key=len, reverse=True)) \
    + r")(?:-in-law|\s+in\s+law)?"
_OWNER = r"(?:my|our)\s+(?:new\s+|old\s+|current\s+|former\s+|little\s+|older\s+|younger\s+" \
         r"|eldest\s+|youngest\s+|big\s+|baby\s+|best\s+|close\s+|oldest\s+|dear\s+" \
         r"|other\s+(?!half\b))*"
"""("my other flatmate Harry": another flatmate, a holder like the first; "my other half" is
a partner)"""
_PETS = frozenset("""dog cat puppy kitten pet horse rabbit hamster parrot tortoise budgie ferret
    gecko snake lizard pony chinchilla cockatiel goldfish terrapin bunny""".split())
_PET_WORDS = "|".join(sorted(_PETS))
# "The wife's traded the Corsa in": a spouse by "the", as British speakers say it.
_REL_SUBJECT = re.compile(rf"^(?:{_OWNER}({_REL_WORDS}|other\s+half)|the\s+({_PET_WORDS}|wife|"
                          r"husband|missus|hubby|eldest|oldest|youngest|(?:baby|kids|children|twins)(?![\'\u2019])))(?:'s|\u2019s)?\b"
                          r"(?:,?\s+(?-i:([A-Z][A-Za-z0-9-]*))\b,?)?", re.I)
_NAME = r"(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
_CHAIN = re.compile(rf"\s+({_REL_WORDS})\b", re.I)
# "my manager is Priya Shah", "my new boss's name is Dave", "Priya is my new manager".
_ROLE_MOD = r"(?:(?:line|new|current|regular|usual|main|personal|team|direct)\s+)?"
"""A word before the role that names the same one ("my line manager", "my usual GP")."""
_IDENTITY = re.compile(
    rf"^{_OWNER}{_ROLE_MOD}({_REL_WORDS})(?:(?:'s|\u2019s)\s+name)?\s+(?:now\s+)?(?:is|was)\s+"
    rf"(?:now\s+|(?:an?\s+[a-z]+\s+)?called\s+|(?:an?\s+[a-z]+\s+)?named\s+)?({_NAME})\b"
    rf"|^({_NAME})\s+is\s+(?:now\s+)?{_OWNER}{_ROLE_MOD}({_REL_WORDS})\b"
    # "My partner's Idris now": "'s" is "is" when the name ends the clause
    rf"|^{_OWNER}{_ROLE_MOD}({_REL_WORDS})['\u2019]s\s+({_NAME})(?:\s+now)?(?=\s*(?:[.!,;]|\s-|$))",
    re.I)
# "Mia turned 12", "Tom left": a person by name (matched to "my daughter Mia" when held).
# (a sentence adverb may stand between: "Becky finally got the keys")
_NAMED_SUBJECT = re.compile(r"^(?-i:([A-Z][a-z]+))(?:\s+(?-i:[A-Z][a-z]+))?"
                            r"(?=(?:\s+[a-z]{3,}ly(?=\s))?(?:'s\b|\s+(?:is|was|"
                            r"has|had|just|now|\w+s|\w+ed|left|got|went|quit|gave|took|fell|became)"
                            r"\b))", re.I)
_NAMED_CHAIN = re.compile(rf"(?:'s|\u2019s)\s+(?:(?:new|old|little|older|younger|eldest|"
                          rf"youngest|big|best)\s+)*({_REL_WORDS})\b", re.I)
_NOT_NAMES = frozenset("""the this that these those there here my our your his her their its
    it he she they we i today tomorrow yesterday everyone someone nobody everything something
    nothing rent work mom mum dad good great bad sad big quick news update so well also just
    guess turns sorry thanks happy funny landlord landlady boss council school nursery bank gym
    office company management college uni new old next last first mine yours ours hers theirs
    home
    """.split()) | frozenset(
    # a verb that opens a sentence with its subject dropped ("Got poached by Aldi", "Joined
    # Otley Harriers"): the speaker's, no name
    """got joined started signed moved switched retrained qualified landed took quit went
    finished passed handed""".split()) | frozenset(
    """sadly luckily unluckily
    unfortunately fortunately hopefully apparently basically honestly finally recently obviously
    actually literally clearly thankfully annoyingly weirdly surprisingly happily tragically
    naturally eventually seriously personally originally currently usually normally generally
    typically frankly suddenly unexpectedly interestingly amazingly anyway meanwhile""".split())
"""Sentence adverbs open a sentence capitalised, as a name does ("Sadly Kiwi died")."""


def may_be_name(word: str) -> bool:
    """Whether a capitalised word opening a sentence may be a person's name (not "The",
    "Today", "Rent", ...)."""
    return word.lower() not in _NOT_NAMES and word.lower() not in MONTHS_AND_DAYS

_NEW_IDENTITY = re.compile(
    rf"\b(?:a|my|our)\s+new\s+({_REL_WORDS})(?:\s+now)?(?:,|\s+is|\s+called|\s+named|:)\s+"
    rf"(?:now\s+)?({_NAME})()()()()", re.I)  # (the groups of `_IDENTITY`)
_PRONOUN = re.compile(r"^(she|he|they|it)(?:'s|\u2019s|\s)", re.I)
# Someone of the speaker's by the family word alone, capitalised as a name: "Mum", "Dad".
_BARE_NAMES = r"Mum|Mom|Dad|Grandma|Grandpa|Granny|Nan|Nana|Nanna|Gran|Grandad|Granddad|Hubby"
_BARE_RELATION = re.compile(rf"^(?-i:({_BARE_NAMES}))(?:'s)?\b")
# Someone by a family title and a name: "Uncle Mike", "Auntie Pat", "Cousin Ellie".
_TITLES = r"Uncle|Auntie|Aunty|Aunt|Cousin|Grandma|Grandpa|Grandad|Granddad|Nan|Nana|Granny|Gran"
_TITLED = re.compile(rf"^(?-i:({_TITLES})\s+([A-Z][a-z]+))(?:'s|\u2019s)?\b")
_CHANGED_THEIRS = re.compile(
    r"^(?:we|i|they)(?:'ve|\s+have|\s+had)?\s+(?:just\s+)?(?:put|raised|moved|changed|increased|"
    r"cut|upped|switched|lowered|reduced|bumped)\s+(his|her)\s+(?!(?:\w+\s+)?(?:"
    + _REL_WORDS + r")\b)", re.I)
# "We've pushed our daughter's bedtime back to 7:30": the daughter's, not the speaker's.
# "They moved my husband's physio to Thursdays": the husband's, whoever moved it.
_CHANGED_RELATIONS = re.compile(
    r"^(?:we|i|they)(?:'ve|\s+have|\s+had)?\s+(?:just\s+)?(?:put|raised|moved|changed|increased|"
    r"cut|upped|switched|lowered|reduced|bumped|pushed|brought|rebooked|rescheduled|postponed|"
    r"shifted)\s+" + _OWNER + "(" + _REL_WORDS
    + r")(?:'s|\u2019s)\s", re.I)
# Someone whose dose another changed: "They've put my mother-in-law up to 10mg of amlodipine".
_DOSED_RELATION = re.compile(
    r"^(?:we|i|they|the\s+\w+|(?:my|our|his|her)\s+\w+)(?:'ve|\s+have|\s+has|\s+had|'s)?\s+"
    r"(?:just\s+)?(?:put|upped|moved|bumped|raised|increased|reduced|lowered|cut|dropped|taken)\s+"
    + _OWNER + "(" + _REL_WORDS + r")\s+((?:(?:up|down|back)\s+)?to\s+\d+(?:\.\d+)?\s*"
    r"(?:mg|mcg|ml|units?)\b.*)$", re.I | re.S)
# Someone the speaker moved ("We moved him to Oakfield Primary", "We've had to move Mum into a
# care home", "We'll transfer our son to ...", "We moved Harry to Castle School"): the move is
# theirs, where they now live or study.
_MOVED_SOMEONE = re.compile(
    r"^(?:we|i)(?:'ve|'d|'ll|\s+have|\s+had|\s+will)?(?:\s+(?:just|finally|recently|now|"
    r"had\s+to|have\s+to|might|may|could|would|should|need\s+to|want\s+to|hope\s+to|"
    r"(?:are|'re|am|'m)\s+going\s+to|be|been))*\s+"
    r"(?:move|moved|moving|transfer|transferred|transferring|switch|switched)\s+"
    r"(?:(him|her)|(?-i:(Mum|Mom|Dad|Grandma|Grandpa|Granny|Nan|Nana|Gran|Grandad))"
    r"|" + _OWNER + "(" + _REL_WORDS + r")|the\s+(" + _PET_WORDS + r")|(?-i:([A-Z][a-z]+)))"
    r"(?!'s|\u2019s|\w)"
    r"\s+(?:(?:up|over|down|back|across)\s+)?((?:to|into|onto|in\s+with)\s.*)$", re.I | re.S)
# Someone who put a pet (or a person by name) on a brand: "The vet put Luna on Hill's", "We've
# switched Bruno to Royal Canin": what Luna or Bruno is on, not the speaker.
_PUT_ON = re.compile(
    r"^(?i:(?:the|my|our)\s+\w+|we|i|they)(?:'ve|\s+has|\s+have|\s+had)?(?:\s+(?:just|now|"
    r"finally|recently))*\s+(?:put|switched|moved|changed|started)\s+"
    r"(?:(?-i:([A-Z][a-z]+))|(?:the|our|my)\s+(" + _PET_WORDS + r"))(?!'s|\u2019s|\w)"
    r"\s+(?:over\s+)?(?:on|onto|to)\s+((?-i:[A-Z]).*)$", re.S)
# Someone the speaker got onto a thing ("We finally got him onto a smartphone, a Motorola",
# "I've put Mum on a Doro"): what they are on now, theirs.
_GOT_ONTO = re.compile(
    r"^(?:we|i)(?:'ve|\s+have|\s+had)?(?:\s+(?:just|finally|eventually|now|at\s+last))*\s+"
    r"(?:got|put|moved|switched|converted)\s+(?:(him|her)|(?-i:(Mum|Mom|Dad|Grandma|Grandpa|Granny|"
    r"Nan|Nana|Gran|Grandad))|" + _OWNER + "(" + _REL_WORDS + r"))(?!'s|\u2019s|\w)"
    r"\s+(?:over\s+)?(?:on|onto)\s+((?:a|an|the)\s.*)$", re.I | re.S)
_PLURAL_THING = re.compile(r"^\s+[a-z]+s\s+(?:are|were|have|had)\b")
_THEIR_RELATION = re.compile(rf"^(his|her|their)\s+(?:\w+\s+)??({_REL_WORDS})\b", re.I)
# Someone else changed a thing of the speaker's: "My doctor raised my sertraline to 100mg",
# "the landlord put our rent up": the fact is the speaker's (the thing is no person).
_CHANGED_MINE = re.compile(
    r"^,?\s+(?:has\s+|have\s+|just\s+)*(?:raised|lowered|moved|changed|put|increased|reduced|"
    r"cut|upped|switched|pushed|rescheduled|doubled|halved|bumped)\s+(?:up\s+)?(?:my|our)\s+"
    r"(?:\w+\s+)??(\w+)", re.I)
_DOSED = re.compile(r"\s*(?:has\s+|have\s+|just\s+)*(?:raised|lowered|increased|reduced|cut|upped|"
                    r"doubled|halved|bumped|put)\s+(?:up\s+)?(?:my|the)\s+\w+(?:\s+\w+)?\s+"
                    r"(?:up\s+|down\s+)?to\s+\d+(?:\.\d+)?\s*(?:mg|mcg|ml|units?)\b", re.I)
"""A dose someone changed ("she's upped the sertraline to 100mg"): the speaker's, by its unit."""
# Someone of the speaker's did something to the speaker: "My sister gave me a Kobo", "My
# therapist had to move us to Wednesdays": what follows is the speaker's.
_ACTED_ON_ME = re.compile(
    r"^,?\s+(?:has\s+|have\s+|had\s+(?:to\s+)?|just\s+|finally\s+)*(?:gave|given|got|bought|"
    r"lent|sent|moved?|put|switched|transferred|booked|signed|registered|enrolled)\s+(?:me|us)\b"
    # "My doctor has me on 20mg of citalopram": the dose is the speaker's
    r"|^,?\s+(?:has|have|'s|keeps|kept)\s+(?:got\s+|still\s+)?(?:me|us)\s+on\b",
    re.I)
# "Our landlord wants 1200 a month for rent": what the one the speaker pays asks of them
_CHARGES = re.compile(
    r"^,?\s+(?:wants|charges|asks(?:\s+for)?|(?:is|'s)\s+(?:charging|asking(?:\s+for)?))\s+"
    r"(?:me\s+|us\s+)?[£$€]?\d[\d,.]*k?\s*(?:a|per|each|every)\s+(?:month|week|year)\b", re.I)
PAYEES = frozenset({"landlord", "landlady", "letting agent", "letting agents"})
"""Whom the speaker pays by the month: what they ask is the speaker's (`broad.amount` too)."""
_SPEAKER = re.compile(r"^([A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,3}): ")
# "My office moved to Leeds", "Our lodger lives in Hull", "The bakery moved to Pine Street": a
# person's fact (where one lives or works, an age) said of a thing (the speaker's or another)
# that no relation word names is that thing's (or that person's), never the speaker's own: "I
# live in Harrogate" stays.
_PERSONAL = frozenset({"residence", "employer", "age"})
_OWNED_SUBJECT = re.compile(
    r"^(?:my|our|the(?!\s+(?:whole\s+)?(?:family|kids|children|boys|girls|twins|lads)\b)"
    r"(?!\s+(?:[a-z-]+\s+){0,2}?(?:" + EVENT_WORDS + r")(?:['\u2019]?s)?\b))\s+"
    r"((?:[a-z-]+\s+){0,2}?[a-z-]+)(?:['\u2019]s)?\s+(?:has\s+|have\s+|had\s+|just\s+|also\s+|"
    r"now\s+|been\s+)*(?:moved|moves|relocated|lives|lived|works|worked|turned|retired|emigrated)\b"
    r"(?!\s+(?:me|us)\b)", re.I)


# "Dr Ngata supervises me now", "Helen coaches me": who the speaker's supervisor or coach is.
_ROLE_ME = re.compile(r"^((?-i:[A-Z][\w'.-]*)(?:\s+(?-i:[A-Z][\w'-]*)){0,2})\s+(?:now\s+)?"
                      r"(supervis|coach|teach|manag|mentor|tutor|train)(?:es|s)\s+me\b(.*)$",
                      re.I | re.S)
_ROLE_NOUN = {"supervis": "supervisor", "coach": "coach", "teach": "teacher", "manag": "manager",
              "mentor": "mentor", "tutor": "tutor", "train": "trainer"}


# "Agnieszka cleans for us now", "Sam walks the dog for us": the doer of a service, named by
# the agent noun of its verb ("our cleaner", "our walker"): who holds that role for the speaker.
_DOES_FOR_ME = re.compile(r"^((?-i:[A-Z][a-z'-]+)(?:\s+(?-i:[A-Z][a-z'-]+))?)\s+(?:now\s+)?"
                          r"([a-z]{3,}?)(?:es|s)\s+(?:\w+\s+){0,2}?for\s+(?:me|us)\b(.*)$",
                          re.S)


def names_my_role(body: str) -> bool:
    """Whether `body` says who the speaker's supervisor, coach, teacher, manager, mentor, tutor
    or trainer is by what they do to the speaker ("Helen coaches me now")."""
    return _ROLE_ME.match(body) is not None


_REPORT_TO = re.compile(r"^(?:i|we)\s+(?:now\s+)?report\s+to\s+((?-i:[A-Z][\w'-]*)"
                        r"(?:\s+(?-i:[A-Z][\w'-]*))?)(.*)$", re.I | re.S)


_NOT_DOERS = frozenset("work live stay pay vote fall root wait ask look car care cover".split())
"""Verbs of no service role ("Tom works for us": an employee; "Ana covers for me": one-off)."""


def role_me(body: str) -> str:
    """`body` with "<Name> <role verb>s me ..." read as "My <role> is <Name> ...", and "I
    report to <Name>" as "My manager is <Name>"."""
    report = _REPORT_TO.match(body)
    if report is not None:
        return f"My manager is {report.group(1)}{report.group(2)}"
    m = _ROLE_ME.match(body)
    if m is None or not may_be_name(m.group(1).split()[0]):
        doer = _DOES_FOR_ME.match(body)
        if doer is not None and may_be_name(doer.group(1).split()[0]) and \
                doer.group(2).lower() not in _NOT_DOERS:
            verb = doer.group(2).lower()
            return f"Our {verb}{'r' if verb.endswith('e') else 'er'} is {doer.group(1)}" \
                f"{doer.group(3)}"
        return body
    return f"My {_ROLE_NOUN[m.group(2).lower()]} is {m.group(1)}{m.group(3)}"


def _dosed_relation(body: str) -> tuple[str, None, str] | None:
    """(the relation, None, "to 10mg of ...") of a dose another changed (`_DOSED_RELATION`)."""
    dosed = _DOSED_RELATION.match(body)
    if dosed is None:
        return None
    word = dosed.group(1).lower()
    return RELATIONS.get(word, word), None, dosed.group(2)


def _got_onto(body: str) -> tuple[str, None, str] | None:
    """(holder, None, "is on ...") for someone the speaker got onto a thing (`_GOT_ONTO`)."""
    onto = _GOT_ONTO.match(body)
    if onto is None:
        return None
    if onto.group(1):
        return "?" + ("he" if onto.group(1).lower() == "him" else "she"), None, \
            "is on " + onto.group(4)
    word = (onto.group(2) or onto.group(3)).lower()
    return RELATIONS.get(word, word), None, "is on " + onto.group(4)


def _bare_holder(body: str, bare: re.Match[str]) -> tuple[str, str | None, str]:
    """The holder a bare relation opens `body` with ("Mum has moved"), or the relation of
    theirs it names ("Mum's friend has ...": the friend's, not Mum's)."""
    word = bare.group(1).lower()
    chain = _NAMED_CHAIN.match(body[bare.end(1):])
    if chain is not None:
        other = chain.group(1).lower()
        return f"{RELATIONS.get(word, word)}'s {RELATIONS.get(other, other)}", None, \
            body[bare.end(1) + chain.end():]
    return RELATIONS.get(word, word), None, body[bare.end():]


def holder_attribute(body: str) -> tuple[str, str | None, str]:
    """(holder, attribute if the subject already names it, the rest of the sentence)."""
    ident = _IDENTITY.match(body) or _NEW_IDENTITY.search(body)
    if ident is not None:
        rel = (ident.group(1) or ident.group(4) or ident.group(5)).lower()
        if rel not in _PETS:
            rel = _IDENTITY_SAME.get(rel, RELATIONS.get(rel, rel))
            return "i", f"who is my {rel}", body
    rel_m = _REL_SUBJECT.match(body)
    if rel_m is not None:
        word = " ".join((rel_m.group(1) or rel_m.group(2)).lower().split())
        rel = RELATIONS.get(word, "partner" if word == "other half" else word)
        name = f" {rel_m.group(3).lower()}" if rel_m.group(3) else ""
        rest = body[rel_m.end():]
        chain = _CHAIN.match(rest) if rel_m.group(0).endswith(("'s", "\u2019s")) else (
            _NAMED_CHAIN.match(rest) if name else None)
        if chain is not None:  # "my sister's cat", "my friend Lorcan's girlfriend Aoife": theirs
            word = chain.group(1).lower()
            return f"{rel}{name}'s {RELATIONS.get(word, word)}", None, rest[chain.end():]
        acted = _CHANGED_MINE.match(rest)
        if acted is not None and acted.group(1).lower() not in RELATIONS:
            return "i", None, rest  # "My doctor raised my sertraline to 100mg": the speaker's
        if _ACTED_ON_ME.match(rest) or (rel in PAYEES and _CHARGES.match(rest)):
            return "i", None, rest  # "My sister gave me a Kobo", "My therapist moved us to ..."
        return rel + name, None, rest
    theirs = _THEIR_RELATION.match(body)
    if theirs is not None:  # "His sister switched schools": not the speaker's sister
        word = theirs.group(2).lower()
        return f"{theirs.group(1).lower()} {RELATIONS.get(word, word)}", None, body[theirs.end():]
    relation_changed = _CHANGED_RELATIONS.match(body)
    if relation_changed is not None:
        word = relation_changed.group(1).lower()
        return RELATIONS.get(word, word), None, body[relation_changed.end():]
    moved = _MOVED_SOMEONE.match(body)
    if moved is not None and not (moved.group(5) and not may_be_name(moved.group(5))):
        # "We moved him to Oakfield Primary", "We moved Harry to Castle School": theirs
        if moved.group(1):
            return "?" + ("he" if moved.group(1).lower() == "him" else "she"), None, \
                "moved " + moved.group(6)
        if moved.group(5):
            return "named " + moved.group(5).lower(), None, "moved " + moved.group(6)
        word = (moved.group(2) or moved.group(3) or moved.group(4)).lower()
        return RELATIONS.get(word, word), None, "moved " + moved.group(6)
    onto = _got_onto(body) or _dosed_relation(body)
    if onto is not None:  # "We got him onto a smartphone", "put my mum up to 10mg": theirs
        return onto
    put = _PUT_ON.match(body)
    if put is not None and (put.group(2) or may_be_name(put.group(1))):
        who = f"named {put.group(1).lower()}" if put.group(1) else put.group(2).lower()
        return who, None, "is on " + put.group(3)
    theirs_changed = _CHANGED_THEIRS.match(body)
    if theirs_changed is not None:  # "We've put his pocket money up to £7": his
        return "?" + ("he" if theirs_changed.group(1).lower() == "his" else "she"), None, body
    if re.match(r"^(?:his|her)\s+[a-z]", body, re.I):
        # "His football training moved to Mondays": his, whoever he is (`_resolve`)
        return "?" + ("he" if body[:3].lower() == "his" else "she"), None, body.split(" ", 1)[1]
    if (kin := _kin_first(body)) is not None:
        return kin
    bare = _BARE_RELATION.match(body)
    if bare is not None:  # "Mum has moved to Nottingham", "Dad turned 70"
        return _bare_holder(body, bare)
    pronoun = _PRONOUN.match(body)
    if pronoun is not None and pronoun.group(1).lower() in ("they", "it") and \
            re.search(r"\b(?:my|our)\b", body, re.I):
        return "i", None, body  # "they put my rent up": the speaker's rent
    if pronoun is not None and _DOSED.match(body, pronoun.end()):
        return "i", None, body  # "She's upped the sertraline to 100mg": the prescriber; my dose
    if pronoun is not None:
        return "?" + pronoun.group(1).lower(), None, body
    named = _NAMED_SUBJECT.match(body)
    if named is not None and _PLURAL_THING.match(body[named.end():]):
        named = None  # "Piano lessons are on Thursdays": a thing, not someone called Piano
    if named is not None and named.group(1).lower() not in _NOT_NAMES:
        who, rest = "named " + named.group(1).lower(), body[named.end():]
        chain = _NAMED_CHAIN.match(rest)
        if chain is not None:  # "Marco's son turned 2": the son's, not Marco's
            word = chain.group(1).lower()
            return f"{who}'s {RELATIONS.get(word, word)}", None, rest[chain.end():]
        return who, None, rest
    return "i", None, body


def _kin_first(body: str) -> tuple[str, None, str] | None:
    """A relation said first, with a title or as whose thing it is: "Uncle Mike's given up the
    taxi" (uncle mike), "New address for my mum: 3 Willow Close" (mother)."""
    owed = _THING_FOR.match(body)
    if owed is not None and owed.group(1).lower() in RELATIONS:
        word = owed.group(1).lower()
        return RELATIONS.get(word, word), None, body
    titled = _TITLED.match(body)
    if titled is not None and may_be_name(titled.group(2)):
        word = titled.group(1).lower()
        return f"{RELATIONS.get(word, word)} {titled.group(2).lower()}", None, body[titled.end():]
    return None


_THING_FOR = re.compile(r"^\W*(?:(?:my|our|the)\s+)?(?:new\s+)?[a-z]+\s+(?:for|of)\s+(?:my|our)\s+"
                        r"([a-z-]+)\b", re.I)
"""A thing of someone named first: "New address for my mum: 3 Willow Close" is the mother's."""


# Relations one may have several of: a new name is another one, unless said to replace.
MANY = frozenset("""sister brother son daughter kid child friend cousin aunt uncle niece nephew
    grandmother grandfather grandma grandpa granddaughter grandson grandchild stepson
    stepdaughter godson goddaughter colleague coworker roommate flatmate neighbor neighbour mate
    pal buddy housemate classmate teammate workmate twin stepsister stepbrother""".split())


# A person or pet by name in a held fact: "my flatmate Ravi" (the holder), "a budgie called
# Kiwi" (the name a fact gives).
_CALLED_NAME = re.compile(r"\b(?:called|named)\s+(?-i:([A-Z][a-z]+))\b", re.I)
_ADVERB_LEAD = re.compile(rf"^(?-i:[A-Z][a-z]+ly\b,?|{_TITLES})\s+(?=(?-i:[A-Z]))")
"""What may stand before a name opening news: a sentence adverb ("Sadly Kiwi died"), a family
title ("Uncle Mike's given up the taxi")."""
_HELD_NEWS = re.compile(r"^(?-i:([A-Z][a-z]+))(?:'s|\u2019s|\s+(?:has|had|is|was|just|now|"
                        r"finally|got|went|left|quit|took|gave|became|\w+ed|\w+s))\b(.*)$", re.S)


def held_names(texts: Iterable[str]) -> frozenset[str]:
    """The names (lower case) of the people and pets `texts` (held facts) name: a holder by
    name ("My flatmate Ravi works at Deloitte", "Arlo goes to Little Acorns") or a name given
    ("My mum has a budgie called Kiwi")."""
    out: set[str] = set()
    for text in texts:
        body = _SPEAKER.sub("", text.strip(), count=1)
        holder = holder_attribute(body)[0].split(" ")
        if len(holder) == 2 and (holder[0] == "named" or holder[0] in RELATIONS.values()):
            out.add(holder[1])
        out.update(m.group(1).lower() for m in _CALLED_NAME.finditer(body))
    return frozenset(n for n in out if may_be_name(n))


def held_news(clause: str, names: frozenset[str]) -> bool:
    """Whether `clause` is news of someone the held facts name (`held_names`): the name opens
    it (after a sentence adverb: "Sadly Kiwi died, ..."), a verb follows, and two more words
    say what ("Ravi's jumped ship to EY", "Marek's gone and got a job as a postman"). A
    question, or one said to the listener, is none."""
    body = _ADVERB_LEAD.sub("", clause.strip(), count=1)
    m = _HELD_NEWS.match(body)
    if m is None or m.group(1).lower() not in names or body.rstrip().endswith("?") or \
            re.search(r"\byou(?:r|'re|'ll)?\b", body, re.I):
        return False
    return len(re.findall(r"[A-Za-z0-9]{3,}", m.group(2))) >= 2


# Someone the sentence names before its pronoun: a first name ("Lucy wrote off the Jazz and
# she's got a Puma now") or a relation ("my mum", "Dad").
_MENTION = re.compile(rf"\b(?:(?:my|our|the)\s+(?:[a-z]+\s+)?({_REL_WORDS})|(?-i:({_BARE_NAMES}))"
                      r"|(?-i:([A-Z][a-z]+)))\b", re.I)


def stands_for(said: str, sentence: str, holder: str, held: Iterable[str]) -> str | None:
    """The holder "she" or "he" opening `said` (a clause of `sentence`, read as `holder`:
    "?she", with the speaker's "Name|" prefix if any) stands for when the sentence names people
    before it: the one named person of a sex that fits, as held (`held`: the held facts'
    holders), or "named <name>" when not held; "someone of ..." (no one's facts) when two fit.
    None when the sentence names no one who may be meant: the held facts decide, as before."""
    prefix, _, who = holder.rpartition("|")
    if who not in ("?she", "?he") or not sentence:
        return None
    at = sentence.lower().find(" ".join(said.lower().split()[:3]))
    if at <= 0:
        return None
    names = _first_names()
    theirs = {h.rpartition("|")[2] for h in held if h.rpartition("|")[0] == prefix}
    fits: set[str] = set()
    for m in _MENTION.finditer(sentence[:at]):
        name = (m.group(3) or "").lower()
        if name and (not may_be_name(name) or (name not in names and
                                               not any(h.endswith(" " + name) for h in theirs))):
            continue  # ("the Jazz": no one's name)
        word = (m.group(1) or m.group(2) or m.group(3)).lower()
        if (pronoun(word) or who[1:]) != who[1:]:
            continue  # ("Dad rang, she's ...": not Dad)
        rel = RELATIONS.get(word, word) if not m.group(3) else None
        found = {h for h in theirs if (rel and (h == rel or h.startswith(rel + " "))) or
                 (not rel and (h == "named " + word or h.endswith(" " + word)))}
        fits |= found or {f"named {word}" if not rel else rel}
    if not fits:
        return None
    one = fits.pop() if len(fits) == 1 else "someone of " + " or ".join(sorted(fits))
    return (prefix + "|" if prefix else "") + one
