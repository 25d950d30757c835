"""Sentence shapes that state a fact about the user's people and things without "I" or "my" as
their subject, read by the offline writer (`step/sentences.is_fact`, `step/clauses.clauses`):

- an appositive naming someone's role: "Greg, the guy who owns our building, came round" states
  who Greg is ("Greg is the guy who owns our building.") and what he did (`appositive`); by a
  relation ("Bill, my neighbour, has a new car", "meet Toby, my puppy") it stays one record
  held by the name, so a second neighbour or puppy never reads as a new value of the first;
- a relative clause identifying someone or something: "The vet who did Rufus's operation was
  Dr. Hallorann", "the guy who fixed my laptop was my cousin Raj";
- a thing of the speaker's named: "The hamster is called Nugget", "The dog's name is Mabel",
  "The sofa came from a shop called Loom and Oak";
- the speaker's people by "the" or by name, doing something with a specific: "The kids go to
  St Anne's Primary", "Sam from work is getting married in Cornwall", "Josh wants to study
  medicine at Edinburgh";
- something given to the speaker: "Work gave me a MacBook";
- someone of the speaker's by a family word said bare or a child's rank: what changed for them
  ("Mum sold up and moved to Cromer", "Dad got rid of the Volvo and bought a Tesla"), what
  they have ("Olly's got chickenpox", "The youngest is allergic to penicillin") or what a
  professional said of them ("The vet said Miso should have wet food"): `kin_fact`;
- how the household runs, said of the thing (`arrangement`): who provides it ("The home
  insurance renewed with Direct Line", "Prescriptions come from Well Pharmacy these days"), a rule
  that binds everyone ("The new policy means three office days a week for everyone"), a recurring
  day ("Book club meets on the first Thursday of the month"), when it falls due ("The car's MOT
  is due in March"), a place the speaker belongs to changing how it runs ("The company moved its
  head office to Leeds");
- someone named and their news ("Ollie's got an apprenticeship", "Zara's found a flat"), the
  household's pet or children by "the" ("the dog's had to go on a special diet"): `name_news`;
  who does something for the speaker ("Kev at Sharp Lines does my hair"): `does_for_me`;
- the job a request for help with an application rests on (`job_asked`);
- the asker's age inside a question about it ("Is 38 too old to retrain?" -> "I'm 38.":
  `age_asked`);
- someone introduced ("meet Toby, my puppy" -> "Toby, my puppy.": `introduced`), and a thing or
  person of the speaker's named inside a question ("a lens for my Fuji X-T4?" -> "I have a Fuji
  X-T4.", "tell my landlord, Mr Hughes, ...?" -> "Mr Hughes, my landlord.": `owned_named`).

Not facts: a clause with no verb ("My husband.", "For the slow reply.": `is_fragment`), and
anything said to or about the listener ("you").
"""

from __future__ import annotations

import re

from ..text import FACT_STOPWORDS
from .attributes import _WEEKDAY as WEEKDAY
from .holders import RELATIONS, may_be_name
from .occupations import NOT_A_THING, trade

_RELATION_WORDS = "|".join(sorted(RELATIONS, key=len, reverse=True))
_NAME = r"(?-i:[A-Z][a-z]+(?:-[A-Z][a-z]+)?)"
_YOU = re.compile(r"\byou(?:r|'re|'ll|'d|'ve)?\b", re.I)
_PAST = r"""came|went|got|gave|took|made|found|bought|sold|left|won|lost|met|began|ran|saw|wrote
    |had|did|told|brought|built|kept|put|sent|spent|paid|drove|flew|broke|fell|grew|became|chose
    |taught|caught|sang|swam|rode|wore|hurt|cut"""
_PAST = "|".join(w.strip() for w in _PAST.split("|"))
# The verb of a statement about a third person: present ("wants", "goes"), past ("moved",
# "came"), a progressive or perfect ("is getting", "has switched"), a modal of a plan.
_VERB = (rf"(?:(?:just|finally|recently|now|still|already|also|even)\s+)?"
         rf"(?:(?:is|was|'s|\u2019s|has|had|will|'ll)\s+(?:(?:just|now|finally|been)\s+)?"
         rf"[a-z]+(?:ing|ed|en)\b|[a-z]+(?:s|ed)\b|(?:{_PAST})\b)")

# "Greg, the guy who owns our building, finally came round ...", "Josh, my eldest, wants ...":
# a name, a role after it between commas, then the sentence's verb.
_APPOSITIVE = re.compile(
    rf"^(?P<name>{_NAME}(?:\s+{_NAME}|(?:'s|\u2019s)\s+(?:{_RELATION_WORDS}))?),\s+"
    rf"(?P<role>(?:my|our|the|a|an)\s+[^,]{{2,60}}?),\s+(?P<pred>{_VERB}.*)$", re.I)
# "Jon, my man, ...", "Caroline, my dear, ...": a vocative, not a role.
_VOCATIVES = (r"my\s+(?:man|dear|friend|love|darling|buddy|pal|mate|girl|boy|guy|dude|lady|"
              r"sweet\w*|good\s+\w+|old\s+\w+)")
_VOCATIVE = re.compile(rf"^{_VOCATIVES}$", re.I)
_VOCATIVE_LEAD = re.compile(rf"^\W*{_NAME},\s+{_VOCATIVES},\s*", re.I)


def without_vocative(body: str) -> str:
    """`body` without a name and a vocative opening it ("Caroline, my dear, you are amazing."
    -> "you are amazing."): the listener addressed, no one's fact."""
    return _VOCATIVE_LEAD.sub("", body, count=1)


# "Toby, my puppy.", "Mr Hughes, my landlord.": who someone is, as `introduced` and
# `owned_named` write it.
_NAME_ROLE = re.compile(rf"^(?:(?:dr|mr|mrs|ms|miss|prof)\.?\s+)?{_NAME}(?:\s+{_NAME})?,\s+"
                        rf"(?:my|our)\s+[^,?]+[.!]?$", re.I)


def names_role(sentence: str) -> bool:
    """Whether a sentence names someone and their relation to the speaker and nothing else
    ("Toby, my puppy."): a statement, not a command to "Toby"."""
    return bool(_NAME_ROLE.match(sentence.strip())) and not _VOCATIVE.match(
        sentence.split(",", 1)[1].strip().rstrip(".!"))


_MY_RELATION = re.compile(rf"^(?:my|our)\s+(?:[a-z-]+\s+){{0,2}}?(?:{_RELATION_WORDS})\b", re.I)


def appositive(sentence: str) -> list[str] | None:
    """The two facts of a sentence naming someone by name and role between commas ("Josh, my
    eldest, wants to study medicine at Edinburgh."): who they are ("Josh is my eldest.") and
    what the rest says of them ("Josh wants to study medicine at Edinburgh."); one record when
    the role is a relation of the speaker's ("Bill, my neighbour, has a new car."). None when the
    sentence has no such shape, the opening word is no name, or it speaks to the listener
    ("John, my friend, you should ...")."""
    m = _APPOSITIVE.match(sentence.strip())
    if m is None or _YOU.search(sentence):
        return None
    name, role, pred = m.group("name"), m.group("role").strip(), m.group("pred").strip()
    head = name.split()[0].split("'")[0]
    if _VOCATIVE.match(role) or not may_be_name(head) or head.lower() in FACT_STOPWORDS:
        return None
    if pred[-1] not in ".!?":
        pred += "."
    if _MY_RELATION.match(role):
        # "Dorothy, my neighbour, waters the plants": one record, held by Dorothy. "Dorothy is
        # my neighbour." would read as who the speaker's neighbour is, which another
        # neighbour named later would replace.
        return [f"{name}, {role}, {pred}"]
    return [f"{name} is {role}.", f"{name} {pred}"]


# "Greg is the guy who owns our building.", "Josh is my eldest.": who someone is to the speaker.
_ROLE = r"""[a-z]+(?:er|or|ist|ian|ant|ent|man|woman)|nurse|vet|chef|cook|pilot|nanny|midwife
    |paramedic|surgeon|judge|priest|vicar|rabbi|imam|coach"""
_ROLE = re.sub(r"\s+", "", _ROLE)
_IDENTITY = re.compile(
    rf"^{_NAME}(?:\s+{_NAME}|(?:'s|\u2019s)\s+(?:{_RELATION_WORDS}))?\s+(?:is|was|'s)\s+"
    rf"(?:(?:my|our)\s+\S|(?:the|a|an)\s+(?:[a-z-]+\s+){{0,3}}?(?:(?:{_RELATION_WORDS}|{_ROLE})"
    rf"\b(?:\s+(?:who|that|at|from|in|of|for|on)\b.*)?[.!]*$|[a-z]+\s+(?:who|that)\s+[a-z]+s?\b))",
    re.I)
# "The vet who did Rufus's operation was Dr. Hallorann": someone (or something) by what they
# did, then who (or what) they are: a name, or someone of the speaker's.
_WHO_WAS = re.compile(
    rf"^(?:the|our|my)\s+(?:[a-z-]+\s+){{0,2}}?[a-z-]+\s+(?:who|that|which|we|i)\s+[^,?]{{2,60}}?"
    rf"\s+(?:is|was|are|were)\s+(?:(?:my|our)\s+(?:[a-z-]+\s+)?(?:{_RELATION_WORDS}|[a-z]+)\b"
    rf"|(?:called\s+|named\s+)?(?:(?:dr|mr|mrs|ms|miss|prof)\.?\s+)?(?-i:[A-Z]))", re.I)
# "The hamster is called Nugget", "The dog's name is Mabel", "The boiler was put in by a firm
# called Hartley Heating": a thing of the speaker's (by "the", "our", "my") and its name.
_THING_NAMED = re.compile(
    r"^(?:the|our|my)\s+(?:[a-z-]+\s+){0,2}?[a-z-]+(?:'s|\u2019s)?\s+[^?]*?"
    r"(?:\b(?:called|named)\s+|\bname\s+is\s+)(?-i:[A-Z0-9])", re.I)
# "The kids go to St Anne's Primary", "The dog is 8": the speaker's people by "the", and a
# specific (a name, a number) in what is said of them.
_PLURAL_VERB = r"""(?:go|live|work|attend|study|play|have|love|like|hate|train|swim|walk|sleep
    |eat|get|are|were|stay|share|visit|do|take|need|want|start|speak)\b"""
_PLURAL_VERB = re.sub(r"\s+", "", _PLURAL_VERB)
_THE_RELATION = re.compile(
    rf"^(?:the|our)\s+(?:(?:little|older|younger|eldest|youngest|new|old|two|three)\s+)?"
    rf"(?:{_RELATION_WORDS})s?\s+(?:{_VERB}|{_PLURAL_VERB})[^?]*?(?:\b(?-i:[A-Z])|\d)", re.I)
# "The kids' school is St Wilfrid's", "The dog's vet is Dr Shah": a thing of the speaker's
# people (by "the" or "our"), named.
_THEIR_THING_NAMED = re.compile(
    rf"^(?:the|our)\s+(?:(?:little|older|younger|eldest|youngest|two|three)\s+)?"
    rf"(?:{_RELATION_WORDS})(?:s'|'s|\u2019s|s\u2019)\s+(?:[a-z-]+\s+){{0,2}}?[a-z-]+\s+"
    rf"(?:is|are|was|were)\s+(?:now\s+|still\s+)?(?:(?-i:[A-Z])|\d)", re.I)
# "The piano belonged to my grandad, it's a Bechstein": a thing (by "the") in a statement about
# the speaker's (my, our, me, us) that names it.
_THE_THING = re.compile(rf"^(?:the|our)\s+(?:[a-z-]+\s+){{0,2}}?[a-z-]+\s+{_VERB}", re.I)
_MINE = re.compile(r"\b(?:my|our|me|us)\b", re.I)
_SPECIFIC = re.compile(r"(?<=\s)(?-i:[A-Z])[\w'-]+|\d")
# "Sam from work is getting married in Cornwall", "Josh wants to study medicine at Edinburgh":
# someone by name (where the speaker knows them from), a verb, and a specific after it.
_NAME_DOES = re.compile(
    rf"^(?P<name>{_NAME})(?:\s+from\s+(?:work|school|uni|church|the\s+[a-z]+|next\s+door|"
    rf"upstairs|downstairs|down\s+the\s+road))?\s+{_VERB}[^?]*?\b(?:(?-i:[A-Z])|\d)", re.I)
# "... meet Toby, my puppy", "This is Ada, our lodger": someone of the speaker's introduced.
_INTRODUCED = re.compile(rf"(?:^|[\s,;:\u2013\u2014-])(?:meet|this\s+is|that'?s|that\s+is|here'?s)"
                         rf"\s+(?P<name>{_NAME}),\s+(?P<who>(?:my|our)\s+(?:[a-z-]+\s+)?"
                         rf"(?:{_RELATION_WORDS}|puppy|pup|kitten|baby|boy|girl))\b", re.I)
# "Roasted chicken is one of my favourites": what the speaker likes, said of the thing.
_FAVOURITE = re.compile(r"^[^?]*?\b(?:is|are|was|were)\s+(?:(?:one|some)\s+of\s+|among\s+)?"
                        r"(?:my|our)\s+(?:all-time\s+|absolute\s+|new\s+|top\s+)?"
                        r"(?:fave|favou?rite)s?\b", re.I)
# "They're called Peruvian Lilies", "It's named Biscuit": something just spoken of, by its name.
_CALLED = re.compile(r"^(?:they|it|she|he)(?:'re|'s|\u2019re|\u2019s|\s+(?:is|are|was|were))\s+"
                     r"(?:called|named)\s+(?-i:[A-Z])", re.I)
# "Her name is Shadow!": someone just shown or spoken of, and their name.
_THEIR_NAME = re.compile(r"^(?:her|his|its|their)\s+names?(?:'s|\s+is|\s+are|\s+was)\s+"
                         r"(?-i:[A-Z])", re.I)
# "Art's allowed me to explore my transition", "Therapy has helped me manage my anxiety": what
# something did for the speaker, said of the speaker's own.
_LET_ME = re.compile(r"^\S+(?:'s|\u2019s|\s+has|\s+have)?\s+(?:really\s+)?(?:allowed|helped|taught|"
                     r"let|pushed|encouraged|forced|inspired)\s+(?:me|us)\s+(?:to\s+)?[a-z]+\b"
                     r"[^?]*\b(?:my|our)\s+[a-z]", re.I)
def introduced(sentence: str) -> list[str] | None:
    """The facts of a sentence introducing someone of the speaker's ("We got a puppy - meet
    Toby, my puppy."): what comes before, if anything, and who they are ("Toby, my puppy.").
    None when it introduces no one."""
    m = _INTRODUCED.search(sentence)
    if m is None or _YOU.search(m.group(0)):
        return None
    before = sentence[:m.start()].strip(" ,;:-\u2013\u2014")
    who = f"{m.group('name')}, {m.group('who')}."  # not "Toby is my puppy": see `appositive`
    return [before + ".", who] if len(before.split()) >= 3 else [who]


# "Ruth wants to be a vet", "Omar is hoping to study law": someone's plan for their life.
_NAME_PLANS = re.compile(
    rf"^{_NAME}(?:'s|\u2019s)?\s+(?:(?:still|really|now)\s+)?(?:wants|plans|hopes|intends|"
    rf"(?:is|'s)\s+(?:hoping|planning|going|training|studying)|would\s+like|'d\s+like)\s+"
    rf"(?:to\s+)?(?:be|become|study|train|work|move|retire|live|join|apply|qualify|open|start)\b"
    rf"\s+\S", re.I)
# "Work gave me a MacBook", "The surgery sent me a new inhaler": something given to the speaker,
# named (a name, a number).
_GIVEN_ME = re.compile(r"\b(?:gave|got|bought|lent|loaned|sent|issued|handed|prescribed|"
                       r"offered)\s+(?:me|us)\s+(?:an?\s+|the\s+|my\s+|our\s+)?(?:new\s+)?"
                       r"(?:(?-i:[A-Z])|\d)", re.I)


# Someone of the speaker's by a family word said bare ("Mum", "Grandad") or by rank among the
# children ("the youngest").
_KIN = (rf"(?:(?-i:Mum|Mom|Mam|Dad|Nan|Nana|Gran|Granny|Grandad|Granddad|Grandma|Grandpa)"
        rf"|(?-i:Auntie|Aunt|Uncle)\s+{_NAME}|the\s+(?:youngest|eldest|oldest|middle\s+one|"
        rf"little\s+one|baby|twins|wife|husband|missus|missis|other\s+half|better\s+half|in-laws"
        rf"|kids'?\s+(?:dad|mum|mom)|ex)|(?-i:Hubby|Wifey))")
# What changed for them, or where they are now: "Mum sold up and moved to Cromer", "Dad got
# rid of the Volvo", "Mum's on a waiting list for ...". Not "Dad's got a point".
_KIN_DOES = re.compile(
    rf"^{_KIN}(?:(?:'s|\u2019s|\s+has|\s+had)?\s+(?:(?:just|finally|recently|now|also)\s+)?"
    rf"(?:got\s+(?!(?:to|a\s+point|a\s+lot|it|that|this|home|back|up|in|there|nothing)\b)|"
    rf"(?:moved|switched|started|joined|left|quit|retired|married|bought|sold|traded|swapped|"
    rf"scrapped|adopted|became|"
    rf"lives|works|drives|owns|took\s+up|gave\s+up|turned\s+\d)\b)"
    rf"|(?:'s|\u2019s|\s+is|\s+was)\s+(?:now\s+)?(?:on|in|at|with)\s+(?:(?:a|an|the)\s+"
    rf"(?!(?:mood|hurry|rush|bit|state|huff|good|bad|funny|right)\b)|(?-i:[A-Z])))", re.I)
# A plan of theirs with its date: "Grandad's moving into a care home in Whitby next month",
# "Mum's starting chemo on Monday" (not "Dad's getting on a bit").
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
_SOON = (rf"(?:\d|\b(?:next|tomorrow|tonight)\b|\bthis\s+(?:week|month|year|weekend|summer|spring|"
         rf"autumn|winter)\b|\b{_MONTH}\b|\b{WEEKDAY}s?\b)")
_KIN_PLAN = re.compile(
    rf"^{_KIN}(?:(?:'s|\u2019s|\s+is|\s+are)\s+(?:(?:just|finally|now|also|definitely)\s+)?"
    rf"(?:moving|starting|retiring|leaving|joining|selling|buying|having|going|coming|flying|"
    rf"getting|booked|due)|\s+(?:starts?|moves?|leaves?|retires?|begins?|finishes|joins?|goes|"
    rf"go|flies|fly|comes?))\b[^?]*?{_SOON}", re.I)
# An illness or condition someone has: "Olly's got chickenpox", "The youngest is allergic to
# penicillin", "Mum's diabetic".
_ILL = (r"(?:\w*(?:pox|itis|fever|flu)|covid|measles|mumps|shingles|diabetes|asthma|eczema|"
        r"cancer|dementia|gout|norovirus|adhd|autism|type\s+[12]|parkinson'?s|alzheimer'?s|"
        r"an?\s+(?:(?:bad|nasty|minor|mild|small|major|massive|slight)\s+)?"
        r"(?:cold|virus|bug|stomach\s+bug|(?:chest|ear|eye|kidney)\s+infection|concussion|stroke"
        r"|heart\s+attack|seizure|fall|breakdown|op|operation|miscarriage)"
        r"|(?:a\s+)?(?:broken|sprained|fractured|torn)\s+[a-z]+)\b")
_UNWELL = re.compile(
    rf"^(?:{_KIN}|(?P<name>{_NAME}))(?:(?:'s|\u2019s|\s+has)\s+(?:just\s+)?(?:got|caught)|"
    rf"\s+(?:has|had|caught|got)|(?:'s|\u2019s|\s+has)\s+been\s+diagnosed\s+with)\s+(?:[a-z]+\s+)?{_ILL}"
    rf"|^(?:{_KIN}|(?P<who>{_NAME}))(?:'s|\u2019s|\s+is)\s+(?:now\s+|also\s+)?(?:allergic\s+to|"
    rf"diabetic|asthmatic|epileptic|coeliac|celiac|lactose\s+intolerant|autistic|dyslexic)\b"
    # where an illness keeps them: "Mum's been in and out of hospital since Christmas"
    rf"|^{_KIN}(?:'s|\u2019s|\s+is|\s+has)\s+(?:been\s+)?(?:now\s+|still\s+)?(?:in\s+(?:and\s+out\s+"
    rf"of\s+)?hospital|in\s+a\s+care\s+home|on\s+dialysis|on\s+oxygen|having\s+chemo|"
    rf"in\s+remission|housebound|bed-?bound)\b",
    re.I)
# What a professional said or did about someone of the speaker's: "The vet said Miso should
# have wet food", "The doctor told Dad to cut out salt", "The vet put Bramble on a diet".
_ADVISED = re.compile(
    rf"^(?:the|our|my)\s+(?:[a-z]+\s+)?(?:vet|doctor|gp|dentist|nurse|physio|consultant|surgeon|"
    rf"midwife|specialist|optician|pharmacist|dietitian|nutritionist|paediatrician|"
    rf"health\s+visitor|hospital|surgery|clinic)\s+(?:has\s+)?(?:said|says|told|reckons|put|"
    rf"advised|recommended|wants|thinks)\s+(?:that\s+)?(?:{_KIN}|(?P<name>{_NAME}))\s+"
    rf"(?:should|needs|has\s+to|must|mustn't|shouldn't|can't|cannot|is\s+to|to|on)\b", re.I)


def kin_fact(body: str) -> bool:
    """Whether `body` states a fact about someone of the speaker's said by a family word, a
    child's rank or (for an illness, or a professional's advice) a name: what changed for them
    (`_KIN_DOES`), what they have (`_UNWELL`), what they were told (`_ADVISED`)."""
    s = body.strip()
    if _KIN_DOES.match(s) or _KIN_PLAN.match(s):
        return True
    for m in (_UNWELL.match(s), _ADVISED.match(s)):
        if m is None:
            continue
        name = m.groupdict().get("name") or m.groupdict().get("who")
        if name is None or (may_be_name(name) and name.lower() not in FACT_STOPWORDS):
            return True
    return False


# "Is 38 too old to retrain as a nurse?", "Am I too old at 52 to start running?": the asker's age.
_AGE_ASKED = re.compile(r"^\W*(?:is\s+(?P<a>\d{2})\s+(?:too\s+(?:old|late)|(?:too\s+)?old\s+to)"
                        r"|am\s+i\s+too\s+old\s+at\s+(?P<b>\d{2}))\b", re.I)


def age_asked(sentence: str) -> str | None:
    """The speaker's age a question about it rests on ("Is 38 too old to retrain?" -> "I'm
    38."); None for any other question."""
    m = _AGE_ASKED.match(sentence)
    return None if m is None else f"I'm {m.group('a') or m.group('b')}."


# "What can I cook for my vegan sister?", "a gift for my diabetic dad?", "Is it safe to fly at
# 30 weeks pregnant?": a lasting trait of someone of the speaker's (or the speaker's) that a
# question rests on.
_TRAIT = r"""vegan|vegetarian|veggie|pescatarian|diabetic|coeliac|celiac|asthmatic|epileptic
    |autistic|dyslexic|deaf|blind|disabled|pregnant|lactose[\s-]intolerant|teetotal|housebound"""
_TRAIT = re.sub(r"\s+", "", _TRAIT)
_TRAIT_ASKED = re.compile(
    rf"\b(?P<my>my|our)\s+(?P<mod>(?:new|little|older|younger|eldest|youngest|best|elderly)\s+)?"
    rf"(?P<trait>{_TRAIT})\s+(?P<who>(?:{_RELATION_WORDS})s?)\b"
    rf"|\bat\s+(?P<weeks>\d{{1,2}})\s+weeks\s+pregnant\b", re.I)
_PLURAL_KIN = frozenset("kids children parents twins in-laws grandparents boys girls".split())


def trait_asked(sentence: str) -> str | None:
    """The trait a question rests on ("What can I cook for my vegan sister?" -> "My sister is
    vegan."); None when it names none."""
    m = _TRAIT_ASKED.search(sentence)
    if m is None:
        return None
    if m.group("weeks"):
        return f"I'm {m.group('weeks')} weeks pregnant."
    who = m.group("who").lower()
    verb = "are" if who in _PLURAL_KIN or who not in RELATIONS else "is"
    return f"{m.group('my').capitalize()} {(m.group('mod') or '').lower()}{who} {verb} " \
        f"{m.group('trait').lower()}."


def world_fact(body: str, names: frozenset[str] = frozenset()) -> bool:
    """Whether `body` (a clause, its opener taken off) states a fact about the speaker's people
    or things by one of the shapes above, not addressed to the listener. `names` (lower case)
    are the participants': a shape opening with one is talk to them, not about someone."""
    s = body.strip()
    if not s or s.rstrip("\"')]").endswith("?") or _YOU.search(s):
        return False
    if _WHO_WAS.match(s) or _THING_NAMED.match(s) or _THE_RELATION.match(s) or kin_fact(s) or \
            _THEIR_THING_NAMED.match(s) or \
            _GIVEN_ME.search(s) or _INTRODUCED.search(s) or _LET_ME.match(s) or \
            _THEIR_NAME.match(s) or _FAVOURITE.match(s) or _CALLED.match(s) or \
            arrangement(s) or name_news(s) or does_for_me(s):
        return True
    if _THE_THING.match(s) and _MINE.search(s) and \
            any(v.group(0) != "I" for v in _SPECIFIC.finditer(s)):
        return True
    first = s.split()[0].strip(",.!").split("'")[0]
    if first.lower() in names or not may_be_name(first) or \
            (first.lower() in FACT_STOPWORDS and not _WORD_NAME.match(s)):
        return False
    return bool(_IDENTITY.match(s) or _NAME_DOES.match(s) or _NAME_PLANS.match(s) or
                _NAME_NOW.match(s))


# --- arrangements: what the household runs on, said of the thing -------------------------------

_NUMBER_WORDS = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|half|once|" \
    r"twice)"
_WEEKDAY = rf"{WEEKDAY}s?"
# A thing of the household's (by "the", "our" or a bare noun), a few words at most: "The home
# insurance", "Prescriptions", "Dog food", "The gas and electric". Never a person: a relation
# word is the head of someone, and a pronoun or "everyone" is no thing.
_THING = r"(?:(?:the|our)\s+)?(?P<thing>(?:[a-z-]+(?:'s|\u2019s|s')?\s+){0,3}?[a-z-]+)"
_NOT_THING = frozenset("""it that this there here everyone everybody nobody someone something
    everything nothing anything life which what who he she they we you i people""".split())
# Who provides it: "Prescriptions come from Well Pharmacy these days", "The home insurance
# renewed with Direct Line", "The gas and electric are with Octopus", "Repeat prescriptions go
# through the Co-op". The provider is named (a capital) and held by an account ("is with",
# "renewed with", "goes through", "is supplied by"); a thing that "comes from" somewhere is its
# provider's only when the sentence says it is one now ("these days", "now", "they deliver"):
# "The best tea comes from Assam" is the world's. Never a passing delivery ("The parcel came
# from Amazon").
_PROVIDER = r"(?:the\s+)?(?-i:[A-Z])"
_NOWADAYS = re.compile(r"\b(?:now|these\s+days|nowadays|this\s+year|since|any\s*more|instead|"
                       r"always|usually|every\s+(?:week|month|year)|deliver(?:s|ed|y|ies)?|"
                       r"orders?|subscription|account)\b", re.I)
_PROVIDED = re.compile(
    rf"^{_THING}\s+(?:(?:now|still|all)\s+)?(?:(?:is|are|renew(?:s|ed)?)\s+(?:now\s+|still\s+)?"
    rf"(?:with|through|via)|(?:goes|go)\s+(?:now\s+|still\s+)?(?:through|via)"
    rf"|(?:gets?|is|are)\s+(?:delivered|supplied|serviced|covered|insured|provided|handled|"
    rf"managed)\s+(?:now\s+)?(?:by|from|through|via|with))\s+{_PROVIDER}", re.I)
_COMES_FROM = re.compile(
    rf"^{_THING}\s+(?:(?:now|still|all)\s+)?(?:comes?|is|are)\s+(?:now\s+)?(?:from|with)\s+"
    rf"{_PROVIDER}", re.I)
_PASSING = frozenset("""meeting call chat party match game date dinner lunch breakfast drink
    drinks gig show talk session film movie weather news traffic problem issue trouble question
    difference fault thing stuff sale offer deal season summer winter spring autumn answer ball
    truth blame focus power luck pressure""".split())
# A rule or arrangement that binds the speaker, said of everyone: "The new policy means three
# office days a week for everyone now", "The office policy is four days in".
_RULE = re.compile(
    r"^(?:the|our)\s+(?:[a-z-]+(?:'s|\u2019s)?\s+){0,2}?(?:policy|rule|rules|rota|contract|"
    r"schedule|timetable|arrangement|set-?up|agreement|regulations?)\s+"
    r"(?:now\s+)?(?:means|mean|is|are|says|say|requires|require)\s+(?:now\s+)?(?:that\s+)?"
    r"(?P<rest>.+)$", re.I)
_BINDS = re.compile(rf"\d|\b(?:{_NUMBER_WORDS}|{_WEEKDAY}|everyone|everybody|all\s+staff|staff|"
                    rf"we|us|no)\b|(?<=\s)(?-i:[A-Z])", re.I)
# A group's or a household's recurring day: "Book club meets on the first Thursday of the
# month", "Five-a-side runs on alternate Sundays", "Pub quiz is the last Friday of every month".
# Where it is held may come between ("meets in the pavilion on the last Sunday"), and whose it
# is after the thing ("Parents' evening at the kids' school is always the second Wednesday").
_OF_PLACE = r"(?:\s+(?:at|for|of|in)\s+(?:the\s+|our\s+)?[a-z'-]+(?:\s+[a-z'-]+)?)?"
_RECURRING = re.compile(
    rf"^{_THING}{_OF_PLACE}\s+(?:(?:now|still|usually|always)\s+)?(?:meets?|runs?|is|are|happens?|"
    rf"rehearses?|trains?|plays?|takes\s+place|gets?\s+collected|goes\s+out|comes?(?:\s+round)?|"
    rf"visits?|calls?|starts?)\s+(?:now\s+|still\s+|always\s+|usually\s+)?"
    rf"(?:(?:in|at)\s+(?:the\s+|our\s+)?[a-z'-]+(?:\s+[a-z'-]+)?\s+)?"
    rf"(?:on\s+|at\s+)?(?:the\s+)?(?P<when>"
    rf"(?:every|each|alternate|other|every\s+other)\s+(?:[a-z]+\s+)?{_WEEKDAY}"
    rf"|(?:first|second|third|fourth|last)\s+{_WEEKDAY}\s+(?:of\s+(?:the|every|each)\s+month"
    rf"|(?:in|of)\s+(?:every\s+|each\s+)?{_MONTH}\b)"
    rf"|(?:mon|tues|wednes|thurs|fri|satur|sun)days\b|(?:weekly|fortnightly|monthly)"
    rf"|every\s+(?:\d+|{_NUMBER_WORDS}|few)\s+(?:days|weeks|months|years)\b"
    rf"|(?:once|twice|{_NUMBER_WORDS}\s+times)\s+a\s+(?:week|month|year)\b)", re.I)
# "The car's insured through Admiral", "Phone contract's with O2": the "'s" is "is".
_IS_CONTRACTED = re.compile(
    r"(?<=[a-z])(?:'s|\u2019s)\s+(?=(?:now\s+|still\s+)?(?:with|through|via|insured|covered|"
    r"delivered|supplied|serviced|provided|managed|handled|due|every)\b)", re.I)

# When a thing of the household's falls due: "The car's MOT is due in March", "The passport
# expires on 3 June", "The lease runs out in August".
_DUE = re.compile(
    rf"^{_THING}\s+(?:(?:is|are)\s+(?:now\s+)?(?:due|up\s+for\s+renewal)(?:\s+for\s+renewal)?"
    rf"|expires?|renews?|runs\s+out)\s+(?:on\s+|in\s+|by\s+|at\s+the\s+end\s+of\s+)?"
    rf"(?:the\s+)?(?:\d|{_MONTH}\b|{_WEEKDAY}\b)", re.I)

# A place the speaker belongs to, by "the", changed how it runs: "The company moved its head
# office to Leeds", "The surgery has switched to online booking only". Not a one-day event
# ("The school closed for snow").
_PLACE_CHANGED = re.compile(
    r"^(?:the|our)\s+(?:[a-z-]+\s+)?(?:company|firm|office|school|nursery|gym|surgery|practice|"
    r"clinic|church|club|council|agency|hospital|college|uni|university|pharmacy|vets|bank|"
    r"library|pool|leisure\s+centre|salon|studio|team)\s+(?:has\s+|have\s+|'s\s+)?"
    r"(?:just\s+|now\s+|finally\s+|recently\s+)?(?:moved|relocated|switched|changed|merged|"
    r"introduced|brought\s+in|stopped|started|put\s+up|raised|cut|scrapped|dropped)\s+"
    r"(?:\S+\s+){1,}\S", re.I)

# The speaker's health said of the body or the reading, no "my": "Blood pressure's been high
# lately", "Hay fever's awful this year", "Back's been playing up since the move".
_BODY = r"""blood\s+pressure|blood\s+sugars?|cholesterol|iron|thyroid|heart\s+rate|bp|hay\s+fever
    |asthma|eczema|psoriasis|migraines?|headaches|back|knee|knees|hip|shoulder|sciatica|arthritis
    |ibs|anxiety|insomnia|sleep|periods?|bloods|test\s+results|scan|biopsy"""
_BODY = re.sub(r"\s+", "", _BODY)
_HEALTH = re.compile(
    rf"^(?:the\s+)?(?:{_BODY})(?:'s|\u2019s|\s+is|\s+are|\s+was|\s+were|\s+has|\s+have)?\s+"
    rf"(?:been\s+|gone\s+|come\s+back\s+|came\s+back\s+|still\s+|really\s+|so\s+)*"
    rf"(?:high|low|up|down|raised|normal|clear|fine|awful|bad|terrible|worse|better|playing\s+up|"
    rf"flaring\s+up|flared\s+up|under\s+control|borderline|at\s+\d|\d)", re.I)
# What a professional told the speaker, no "I": "The physio says no running for six weeks".
_ADVICE = re.compile(
    r"^(?:the|my|our)\s+(?:[a-z]+\s+)?(?:doctor|gp|dentist|nurse|physio|consultant|surgeon|"
    r"midwife|specialist|optician|pharmacist|dietitian|dietician|nutritionist|osteo|chiropractor|"
    r"hospital|surgery|clinic)\s+(?:has\s+)?(?:says|said|wants|told\s+me|reckons|advised|"
    r"recommended|thinks)\s+(?:that\s+)?(?:no\s+[a-z]|(?:i|me)\s+[a-z]|nothing\s+[a-z])",
    re.I)
# A plan settled: "Holiday's booked, Crete for ten days in June", "The venue is sorted for the
# 12th" (something named or dated in the sentence).
_BOOKED = re.compile(
    rf"^{_THING}(?:'s|\u2019s|\s+is|\s+are|\s+has\s+been|\s+have\s+been)\s+(?:all\s+|now\s+|finally\s+)?"
    rf"(?:booked|sorted|confirmed|arranged|paid\s+for|set)\b(?=.*?(?:\d|\b(?-i:[A-Z])))",
    re.I)


# A job booked on a thing of the household's, with its date: "the boiler's being serviced by a
# bloke from HomeServe next Tuesday", "The car's going in for its MOT on Friday".
_SCHEDULED = re.compile(
    rf"^{_THING}(?:'s|\u2019s|\s+is|\s+are)\s+(?:(?:being|getting)\s+(?:[a-z]+ly\s+)?[a-z]+(?:ed|en|t)"
    rf"|going\s+in\s+for|booked\s+in)\b(?=[^?]*?{_SOON})", re.I)


def _a_thing(m: re.Match[str] | None, person: bool = False) -> bool:
    """Whether the subject a shape matched is a thing of the household's: no pronoun, no
    passing event, no person (a relation word as its head) unless `person` may be one ("The
    baby's due in April")."""
    if m is None:
        return False
    words = m.group("thing").lower().split()
    head = words[-1]
    return words[0] not in _NOT_THING and head not in _NOT_THING and head not in _PASSING \
        and (person or head not in RELATIONS)


def arrangement(body: str) -> bool:
    """Whether `body` states how something of the speaker's household or life is arranged,
    with no "I" in it: who provides a thing (`_PROVIDED`, `_COMES_FROM`), a rule that binds
    everyone (`_RULE`), a recurring day (`_RECURRING`), when it falls due (`_DUE`), how a
    place they belong to changed (`_PLACE_CHANGED`), their health (`_HEALTH`), what a
    professional told them (`_ADVICE`), a plan settled (`_BOOKED`). Not said to the listener,
    nor asked."""
    s = _IS_CONTRACTED.sub(" is ", body.strip())
    if not s or s.rstrip("\"')]").endswith("?") or _YOU.search(s):
        return False
    rule = _RULE.match(s)
    if rule is not None and _BINDS.search(rule.group("rest")):
        return True
    return _a_thing(_PROVIDED.match(s)) or \
        (_a_thing(_COMES_FROM.match(s)) and _NOWADAYS.search(s) is not None) or \
        _a_thing(_RECURRING.match(s)) or _a_thing(_DUE.match(s), person=True) or \
        _PLACE_CHANGED.match(s) is not None or _HEALTH.match(s) is not None or \
        _ADVICE.match(s) is not None or _a_thing(_BOOKED.match(s)) or \
        _a_thing(_SCHEDULED.match(body.strip()))


# What someone "found" that is news: a home, work, a person ("Zara's found a flat"), not a
# tenner in a coat.
_FOUND = r"""flat|house|home|place|room|job|role|position|school|nursery|tenant|buyer|flatmate
    |lodger|partner|girlfriend|boyfriend|carer|childminder|nanny|surgeon|specialist|dentist"""
_FOUND = re.sub(r"\s+", "", _FOUND)
# Someone by name and their news: "Ollie's got an apprenticeship with an electrician", "Zara's
# found a flat in Clapham", "Hannah's landed an internship". What they got is a thing (at most
# a plain modifier before it, then the clause ends or goes on with a preposition), never a
# remark ("Tom's got a point", "Sam's got a lot on", "Ellie's got a great laugh").
_NAME_NEWS = re.compile(
    rf"^(?P<name>{_NAME})(?:'s|\u2019s|\s+has)\s+(?:(?:just|finally|now|recently|also)\s+)?"
    rf"(?:got|landed|bagged|secured|been\s+offered|been\s+given|found(?=\s+\w+\s+(?:\w+\s+)?"
    rf"(?:{_FOUND})\b))\s+"
    rf"(?:a|an|her|his|their)\s+(?:(?:new|first|proper|full-time|part-time|permanent|little|"
    rf"summer|second|weekend|saturday)\s+)?(?P<what>[a-z-]+)"
    rf"(?=\s*(?:[,.!;]|$|\s+(?:with|at|in|on|for|from|to|now|and|as|this|next|last|today|"
    rf"yesterday|called|named|near|by|off|round|opposite|outside|close|just|up|down)\b))", re.I)
_NO_NEWS = frozenset("""point lot bit way feeling sense mind clue idea knack temper heart voice
    thing problem go look laugh minute moment second chance word say right reason habit attitude
    opinion gift eye face smile fair toy toys treat bone haircut game present sticker bath walk
    nap time day night week chat drink party break rest lie-in sulk tantrum meltdown""".split())


# The household's pets and children by "the", and what they have had to do or now have: "the
# dog's had to go on a special diet", "The dog has got a sensitive stomach apparently".
_THEIR_NEWS = re.compile(
    r"^(?:the|our)\s+(?:dog|cat|puppy|pup|kitten|horse|kids|children|boys|girls|baby|twins)"
    r"(?:'s|\u2019s|\s+has|\s+have)\s+(?:(?:just|finally|now|recently|also)\s+)?"
    r"(?:had\s+to\s+(?:go|stop|start|have|switch|take|be|move|change|come\s+off)\b"
    r"|(?:got|been\s+given|been\s+put\s+on|been\s+prescribed)\s+(?:a|an)\s+(?:[a-z-]+\s+)?"
    r"(?P<what>[a-z-]+)(?=\s*(?:[,.!;]|$|\s+(?:apparently|now|again|too|as\s+well|with|from|"
    r"on|in|at|for|and|this|next|last)\b)))", re.I)


# Someone by name and a life event they are in: "Priya's expecting", "Dan's engaged to ...",
# "Omar's starting at the fire service", "Grace's having a hip replacement".
_NAME_STATE = re.compile(
    rf"^(?P<name>{_NAME})(?:'s|\u2019s|\s+is|\s+has|\s+was)\s+(?:(?:just|now|finally|also|"
    rf"officially)\s+)?(?:expecting|pregnant|engaged|married|divorced|separated|split\s+up|"
    rf"broken\s+up|retiring|starting\s+(?:at|with|as|a|an|her|his)|signed\s+(?:for|with)|"
    # a job ended ("Tom's retired now"; not "retired the van"), a club gone over to
    rf"retired{NOT_A_THING}|took\s+early\s+retirement|"
    rf"(?:gone|switched)\s+over\s+to\s+(?-i:[A-Z])\w*|"
    rf"recovering|off\s+sick|on\s+(?:maternity|paternity|sick)\s+leave|in\s+hospital|"
    rf"(?:been\s+)?made\s+redundant|having\s+(?:a|an|her|his|their)\s+(?:[a-z-]+\s+)?"
    rf"(?P<what>[a-z-]+))\b", re.I)


# Someone by name and the job they do now, by its title ("Priya's a data scientist now",
# "Gran's a lollipop lady these days"): `occupations.trade` decides (not "Tom's a legend now").
_NAME_JOB = re.compile(
    rf"^(?P<name>{_NAME})(?:'s|\u2019s|\s+is)\s+(?:now\s+)?an?\s+(?P<what>(?:[a-z-]+\s+){{0,3}}?"
    rf"[a-z-]+)(?:\s+(?:now|these\s+days|nowadays)\b|\s+(?=(?:at|in|for|with)\s))", re.I)


def name_news(body: str) -> bool:
    """Whether `body` opens with someone by name and what they newly have (`_NAME_NEWS`) or a
    life event they are in (`_NAME_STATE`), or
    with the household's pet or children and what they have had to do or now have
    (`_THEIR_NEWS`)."""
    if _YOU.search(body):
        return False
    theirs = _THEIR_NEWS.match(body.strip())
    if theirs is not None:
        return (theirs.group("what") or "").lower() not in _NO_NEWS
    job = _NAME_JOB.match(body.strip())
    if job is not None and may_be_name(job.group("name")) and trade(job.group("what")) and \
            job.group("name").lower() not in FACT_STOPWORDS:
        return True
    state = _NAME_STATE.match(body.strip())
    if state is not None and may_be_name(state.group("name")) and \
            state.group("name").lower() not in FACT_STOPWORDS and \
            (state.group("what") or "").lower() not in _NO_NEWS:
        return True
    m = _NAME_NEWS.match(body.strip())
    if m is None:
        return False
    name = m.group("name")
    return m.group("what").lower() not in _NO_NEWS and may_be_name(name) and \
        name.lower() not in FACT_STOPWORDS


# Someone by name (where they work, or "a woman called Jo") who does something for the speaker:
# "Kev at Sharp Lines does my hair", "A lad called Dan walks our dog", "Mrs Patel cleans for us".
_SERVES = r"""does|cuts|colours|styles|cleans|walks|minds|feeds|looks\s+after|babysits|teaches
    |tutors|coaches|trains|treats|sees|fixes|services|repairs|manages|supervises|mentors|drives
    |collects|delivers|picks\s+up|does\s+for|cooks\s+for|works\s+for|sorts|handles|prepares"""
_SERVES = re.sub(r"\s+", "", _SERVES)
_FOR_ME = re.compile(
    rf"^(?:(?:a|an|the|this)\s+(?:[a-z]+\s+)?[a-z]+\s+(?:called|named)\s+)?"
    rf"(?:(?:dr|mr|mrs|ms|miss)\.?\s+)?(?P<name>{_NAME})(?:\s+{_NAME})?"
    rf"(?:\s+(?:at|from)\s+(?:the\s+)?(?:(?-i:[A-Z])[\w'&-]*(?:\s+(?-i:[A-Z])[\w'&-]*){{0,3}}"
    rf"|(?-i:[a-z]+)))?"
    rf"\s+(?:(?:now|also|usually|still)\s+)?(?:{_SERVES})\s+(?:(?:my|our)\s+[a-z]|(?:me|us)\b"
    rf"|for\s+(?:me|us)\b)", re.I)


def does_for_me(body: str) -> bool:
    """Whether `body` says who does something for the speaker (`_FOR_ME`)."""
    m = _FOR_ME.match(body.strip())
    return m is not None and not _YOU.search(body) and may_be_name(m.group("name")) and \
        m.group("name").lower() not in FACT_STOPWORDS


# Someone by name who does something now: "Ollie walks the dog now" (a change of who does it).
_NAME_NOW = re.compile(rf"^{_NAME}\s+(?:(?:now|also)\s+)?[a-z]{{3,}}s\b[^?]*\b(?:now|these\s+days|"
                       rf"instead)\W*$")


# A name that is a word too, told by the verb after it: "Will cooks at a Thai place" (the
# modal takes a bare verb: "Will this work").
_WORD_NAME = re.compile(r"^(?-i:[A-Z][a-z]+)\s+(?!(?:is|was|has|does|this|its|his|us|yes|as|"
                        r"less|plus|thus|whereas)\b)[a-z]{3,}s\b")


# What a person does or what changed for them: "Jo got a job", "Dev has switched to cello".
_PERSON_DOES = re.compile(
    rf"^{_NAME}(?:'s|\u2019s)?(?:\s+(?:{_RELATION_WORDS}))?\s+(?:(?:just|finally|recently|now|"
    rf"still|also)\s+)?(?:(?:has|had|'s|\u2019s|is|was)\s+(?:just\s+|now\s+)?)?(?:got|gets|"
    rf"moved|moving|lives|living|works|working|switched|started|starting|joined|left|leaving|quit|"
    rf"retired|changed|married|marrying|getting|studies|studying|teaches|teaching|trains|training|goes|"
    rf"going|plays|wants|plans|planning|hopes|hoping|passed|bought|sold|adopted|became|turned|"
    rf"expecting|owns|runs|drives|attends|been\s+(?:made|given|offered|told|[a-z]+ed)|"
    rf"(?:his|her|their)\s+[a-z0-9]+\s+birthday)\b"  # ("Biscuit had her tenth birthday")
    rf"|^{_NAME}(?:'s|\u2019s)?(?:\s+(?:{_RELATION_WORDS}))?\s+(?:is|was|'s|\u2019s)\s+(?:now\s+)?"
    rf"(?:an?|at|with|the|my|our)\s", re.I)


def names_holder(body: str) -> bool:
    """Whether the clause opens with someone by name whose fact it states ("Jo got a job at
    the council"): that name is the fact's holder, a specific as any name past the first word."""
    s = body.strip()
    first = s.split()[0].strip(",.!").split("'")[0] if s else ""
    if not first or first.lower() in FACT_STOPWORDS or not may_be_name(first) or \
            not first[0].isupper():
        return False
    if first.lower().endswith(("ing", "ed")):
        return False  # "Volunteering is ...", "Painting looks ...": an activity, no one
    return bool(_PERSON_DOES.match(s) or _NAME_NOW.match(s))


# Words that make a clause a statement: a verb form or a copula.
_FINITE = re.compile(r"\b(?:is|are|was|were|am|be|been|has|have|had|do|does|did|will|would|can|"
                     r"could|should|must|shall|may|might)\b|'(?:s|m|re|ve|ll|d)\b|"
                     r"\b[a-z]{3,}(?:ed|s)\b|\b(?:" + _PAST + r")\b", re.I)
_FRAGMENT_LEAD = re.compile(r"^\W*(?:my|our|the|a|an|his|her|their|for|to|with|from|about|of|"
                            r"on|in|at|by|just|and|but|or|so)\b", re.I)


def is_fragment(clause: str) -> bool:
    """Whether a clause is a piece of a sentence with no verb of its own: "My husband.", "For
    the slow reply.", "The blue one." (an answer or a tail, not a fact). A number or a named
    value after a colon ("My PIN: 4471") is not a fragment."""
    s = clause.strip().rstrip(".!")
    words = s.split()
    if not words or len(words) > 4 or any(ch.isdigit() for ch in s) or ":" in s:
        return False
    if not _FRAGMENT_LEAD.match(s):
        return False
    return len(words) <= 2 or not _FINITE.search(" ".join(words[1:]))


# "Can you recommend a lens for my Fuji X-T4?": a thing of the speaker's by its name, inside a
# question or request (the name ends the phrase: "my Python code" is no thing owned).
_OWNED_NAMED = re.compile(
    r"\b(?:my|our)\s+(?:(?:new|old|little)\s+)?((?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z0-9])[\w-]*){0,2})"
    r"(?=\s*(?:[?.!,]|$|\s+(?:for|to|with|on|in|at|and|or|when|if|because|since|before|after"
    r"|from|so|this|next|every)\b))")
_NOT_OWNED = frozenset("""mum mom dad nan nana gran granny grandad granddad grandma grandpa
    god lord""".split())


# "Should I tell my landlord, Mr Hughes, about the leak?": someone of the speaker's by name.
_RELATION_NAMED = re.compile(
    rf"\b(my|our)\s+((?:(?:new|old|little|older|younger|eldest|youngest|best)\s+)?"
    rf"(?:{_RELATION_WORDS}))(?:,\s+|\s+)((?:(?:dr|mr|mrs|ms|miss|prof)\.?\s+)?"
    rf"(?-i:[A-Z][a-z]+)(?:\s+(?-i:[A-Z][a-z]+))?)\b", re.I)


# "Can you help me write a cover letter for the Lidl area manager job?": the speaker is applying
# for a job named by its employer (a capital), asked about in a request.
_JOB_ASKED = re.compile(
    r"\b(?:cover\s+letter|application|cv|personal\s+statement|interview|supporting\s+statement)"
    r"\s+(?:for|to)\s+(?:the|a|an)\s+((?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*){0,3}"
    r"(?:\s+[a-z-]+){0,3}?\s+(?:job|role|position|post|vacancy|apprenticeship|internship))\b",
    re.I)


def job_asked(sentence: str) -> str | None:
    """The application a request rests on ("... a cover letter for the Lidl area manager job?"
    -> "I'm applying for the Lidl area manager job."); None when it names none."""
    m = _JOB_ASKED.search(sentence)
    if m is None or not may_be_name(m.group(1).split()[0]):
        return None
    return f"I'm applying for the {m.group(1)}."


def owned_named(sentence: str) -> str | None:
    """The fact a question or request rests on when it names a thing of the speaker's ("...
    a lens for my Fuji X-T4?" -> "I have a Fuji X-T4.") or someone of theirs by name ("...
    tell my landlord, Mr Hughes, ...?" -> "Mr Hughes, my landlord."); None when it names
    none (a family word or a month is no thing: "my Mum", "my May rota")."""
    who = _RELATION_NAMED.search(sentence)
    if who is not None and may_be_name(who.group(3).split()[-1]) and \
            who.group(3).split()[0].lower() not in FACT_STOPWORDS:
        return f"{who.group(3)}, {who.group(1).lower()} {who.group(2)}."
    m = _OWNED_NAMED.search(sentence)
    if m is None:
        return None
    thing = m.group(1)
    head = thing.split()[0].lower()
    if head in _NOT_OWNED or head in RELATIONS or not may_be_name(head) or \
            head in FACT_STOPWORDS:
        return None
    article = "an" if head[0] in "aeiou" else "a"
    return f"I have {article} {thing}."
