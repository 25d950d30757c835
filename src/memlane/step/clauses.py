"""What a person would write down from a sentence: its facts, one per clause, without the talk.

The heuristic writer (`step/heuristic.py`) files each user sentence through `clauses`:

- a request to keep something ("please remember that ...", "note that ...") is taken off, and
  what it asks to keep is the fact;
- a question or request that follows a statement ("She's a corgi called Biscuit, what toys suit
  her?", "We fly to Crete on 14 August, can you suggest beaches?") is cut off, the statement kept;
- a question gives the statement it carries: wrapped ("Did I mention my partner Sunita is a
  civil engineer?"), after it (", I've got a slipped disc?"), the reason it rests on ("Since
  I'm coeliac, ...?"), a trait it names ("for my vegan sister?"); a "he" or "she" after a
  question naming someone of the speaker's is them, a "there" the one place it names;
- fillers are trimmed: "by the way", "btw", "not gonna lie", who brought the news ("The school
  rang, ..."), and a consequence that only serves the conversation (", so anything up north
  works for me", ", so no meat please"); a reason before the fact is cut off (", which is why
  I bought a Vespa");
- two facts joined in one sentence ("My employer is Novo Nordisk and my start date is 15
  September", "My sister lives in Bristol and I live in Leeds") are two clauses, each its own
  record; a pronoun opening the second ("... and she is 14 years old") is replaced by the holder
  the first named ("My cat is 14 years old"), or by someone the first names ("The vet said
  Mittens needs a new diet, so she's on ..."), so each record says whom it is about;
- two predicates of one subject ("My son Ali is 4 and goes to nursery", "I live in Hull and
  work for the NHS") are two clauses, each with the subject; not a list of objects ("I like
  tea and coffee"), a sequence ("and then"), nor a change the second half gives ("Maya quit
  netball and plays hockey now");
- a value named first as a change is said as its thing's ("The Gym Group is my gym now" ->
  "My gym is The Gym Group now."), and an ending after a new fact stays (", so no more renting
  in Hackney": what the supersede rule reads as ended).

The message itself keeps every word: only the record's text is trimmed.
"""

from __future__ import annotations

import re

from .asides import condition_asked
from .attributes import _occupation
from .endings import _ENDED_PIECE
from .holders import _TITLES, RELATIONS, may_be_name, pronoun
from .measures import home_named
from .shapes import (
    age_asked,
    appositive,
    introduced,
    is_fragment,
    job_asked,
    owned_named,
    trait_asked,
    without_vocative,
)

_KEEP = re.compile(
    r"^\W*(?:(?:and|also|oh|so|btw|by\s+the\s+way|one\s+more\s+thing)[\s,]+)*(?:please\s+|pls\s+"
    r"|can\s+you\s+|could\s+you\s+)?(?:(?:do\s+)?remember|keep\s+in\s+mind|make\s+a\s+note|note"
    r"|for\s+the\s+record|just\s+so\s+you\s+know|fyi|for\s+your\s+information|don't\s+forget)"
    r"(?:\s+(?:that|this|of\s+this))?\s*[,:-]?\s+", re.I)
_KEEP_TAIL = re.compile(r"[,;\s-]+(?:(?:so\s+)?please\s+|pls\s+|can\s+you\s+|do\s+)?(?:remember|"
                        r"note|keep\s+in\s+mind)(?:\s+(?:that|this|it))?\s*[.!]*$"
                        r"|[,;\s-]+(?:please\s+)?keep\s+(?:that|this|it)\s+in\s+mind\s*[.!]*$",
                        re.I)
_FILLER_HEAD = re.compile(r"^\W*(?:(?:by\s+the\s+way|btw|fyi|just\s+so\s+you\s+know|oh|also|"
                          r"ugh|argh|honestly|random(?:ly)?(?:\s*,?\s+but)?|quick\s+one|"
                          r"quick\s+question|(?:so\s+|how\s+|really\s+)?annoying(?:ly)?|sadly|"
                          r"unfortunately|luckily|thankfully|fingers\s+crossed|eek|oof|phew|"
                          r"not\s+gonna\s+lie|ngl|tbh|to\s+be\s+honest|if\s+i'?m\s+(?:being\s+)?"
                          r"honest|to\s+be\s+fair|not\s+much|nothing\s+much|(?:i\s+)?(?:just\s+)?"
                          r"wanted\s+to\s+(?:say|let\s+you\s+know|tell\s+you|share|mention)"
                          r"(?:\s+that)?|"
                          r"(?:and\s+)?one\s+more\s+thing|(?:important|worth\s+knowing)(?=\s*[:!\u2013\u2014-])|"
                          r"(?:oh\s+)?i\s+meant\s+to\s+"
                          r"(?:say|mention)|(?:(?:right|ok|okay)[\s,]+)?(?:so\s+)?the\s+thing\s+is|"
                          r"anyway|anyways|random\s+thing|fun\s+fact|(?:as\s+for\s+)?me(?=\s*,))\b"
                          r"[\s,:;-]*(?:and\s+)?)+", re.I)
_FILLER_TAIL = re.compile(r"[,;\s-]+(?:by\s+the\s+way|btw|fyi|just\s+so\s+you\s+know|haha|lol|"
                          r"if\s+that\s+matters|if\s+that\s+helps|for\s+what\s+it'?s\s+worth"
                          r"|(?:i\s+)?forgot\s+to\s+(?:say|mention)|should\s+have\s+said)"
                          r"\s*([.!]*)$", re.I)
# ", so <consequence>": the conversation's, not the fact's ("so anything up north works").
# Never one that ends a held fact: ", so no more renting in Hackney", ", so that's the gym done".
_SO_TAIL = re.compile(r",\s+(?:so|which\s+means)\s+(?![^,]*\b(?:now|instead|no\s+more|no\s+longer"
                      r"|any\s*more|done|me\s+(?:up|down|onto|back|over)|i'm|i've|we're)\b|[^,]*\d)"
                      r"(?!(?:i|i'm|i've|we|we're|my|our|she|he|"
                      r"she's|he's|they|they're|it's|his|her|their|now)\b|(?-i:[A-Z]))"
                      # nor a verbless restatement of what the speaker is: ", so pescatarian
                      # really", ", so basically vegan"
                      r"(?!(?:a\s+|an\s+)?[a-z-]+\s+(?:really|basically|technically|i\s+guess|"
                      r"i\s+suppose|i\s+reckon)\W*$|(?:basically|technically|officially|"
                      r"pretty\s+much)\s+(?:a\s+|an\s+)?[a-z-]+\W*$)[^,]*$",
                      re.I)
# " so no <thing> please" with no comma: the request the fact makes ("I'm allergic to sesame so
# no sesame oil or seeds please").
_SO_NO = re.compile(r"\s+so\s+(?:no|nothing|don't|please\s+(?:no|don't))\b(?!\s+(?:more|longer)\b)"
                    r"[^,]*$", re.I)
# A question or request after the statement: ", what toys suit her?", ", can you suggest ...".
_ASK_TAIL = re.compile(
    r"(?:[,;:\u2013\u2014-]|\s-)\s*(?:and\s+|so\s+|but\s+)?(?:what|which(?!\s+(?:is|was)\s+why)|how|any|can|could|"
    r"would|will|do|does|did|should|is\s+there|are\s+there|is\s+(?:that|it|this)\s+[a-z]+"
    r"|where|when|who|why|please|pls|"
    r"suggest|recommend|tell\s+me|help\s+me|give\s+me|remind\s+me|ideas?)\b.*$", re.I)
# A relative clause inside the sentence, which a question's tail would take for its wh-word:
# "My nephew Josh, who is staying with us till Easter, knocked a glass over" (the sentence goes
# on after it with its verb). A comment at the end (", which is awesome") is still trimmed.
_RELATIVE = re.compile(r"^,\s*(?:who|whose)\b[^,?]{3,80},\s+(?!(?:i|we|you|it|they|he|she|that|"
                       r"which|and|but|so|yet|or)\b)[a-z]+", re.I)
# A yes/no question after a statement, in a sentence that ends asking it: "I've got a nut
# allergy, is marzipan safe?".
_YES_NO_TAIL = re.compile(r"[,;:]\s*(?:so\s+|but\s+|and\s+)?(?:is|are|was|were|can|could|does|"
                          r"do|would|will|should|shall|am\s+i)\s+[^,;:]+\?+\s*$", re.I)
_SUBJECT = r"(?:i|i'm|i've|i'll|i'd|my|we|we're|we've|our|she|he|she's|he's|they|they're|it's|" \
           r"his|her|their|(?:both|all|most|half|one|two|neither|none)\s+(?:of\s+)?(?:my|our))\b"
# Where two facts meet: "... and my start date is ...", "...; my new manager is ...".
_JOIN = re.compile(rf"\s*;\s*(?={_SUBJECT}|[A-Z])|,?\s+(?:and|but|while|whereas|so|and\s+so"
                   rf"|so\s+now|and\s+now|(?:which|and\s+that)(?:\s+is|'s|\s+was)\s+why"
                   rf"|that(?:'s|\s+is|\s+was)\s+why)\s+(?!(?:i|we)\s+(?:are|were|have|had|both|will)\b)"
                   rf"(?={_SUBJECT})"
                   # "... so Dr Ngata supervises me now": someone by name, then their verb
                   rf"|,?\s+so\s+(?=(?-i:[A-Z][a-z]+\s+(?:[A-Z][a-z]+\s+)?)[a-z]+s\b)"
                   # "Jake's 15 now, and Lily is still 11": another person by name, their fact
                   rf"|,\s+(?:and|but)\s+(?=(?-i:[A-Z][a-z]+)(?:'s|\s+(?:is|was|has|still))\s)"
                   rf"|,\s+(?!it\b|it's\b|they\b|they're\b)"
                   rf"(?={_SUBJECT}(?!\s+(?:think|guess|mean|know|hope)\b))", re.I)
_RELATION_WORDS = "|".join(sorted(RELATIONS, key=len, reverse=True))
_THEIRS = r"dog|cat|puppy|pup|kitten|horse|kids|children|boys|girls|baby|twins"
_OWNER_SUBJECT = re.compile(rf"^((?:my|our)\s+(?:(?:new|old|little|big|older|younger|eldest|"
                            rf"youngest|best)\s+)?[a-z]+(?:-in-law)?(?:'s\s+(?:{_RELATION_WORDS}))?"
                            rf"(?:\s+(?-i:[A-Z][a-z]+)|\s+\d+)?"
                            # or someone by name: "Dave moved to Leeds, he's at Aldi now"
                            rf"|(?-i:(?:(?:{_TITLES})\s+)?[A-Z][a-z]+)(?:'s\s+(?:{_RELATION_WORDS}))?"
                            # or the household's by "the": "the dog's had to go on a diet, he's ..."
                            rf"|the\s+(?:{_THEIRS}))"
                            # ("Leo's class had ...": the class's, not Leo's; "Mum's always ...")
                            rf"(?:'s(?!\s+(?!always\b|perhaps\b)[a-z]+s\b))?"
                            rf"\s+(?:is|was|has|[a-z]+s|[a-z]+ed|fell|gave|took|got|went|"
                            rf"became|had\s+to)\b", re.I)
_PRONOUN_START = re.compile(r"^(she|he|it|they)(\s+is|'s|\u2019s|\s+was|\s+has|\s+\w+s\b)?",
                            re.I)
_POSSESSIVE_START = re.compile(r"^(her|his|their)\s+(?=[a-z])", re.I)
# A person or pet of the speaker's named anywhere in a clause ("a gift for my wife"): who a
# following "she" or "her" stands for.
_REL_MENTION = re.compile(
    rf"\b(?:my|our)\s+(?:\d+[\s-]*(?:year|yr)s?[\s-]*old\s+)?"
    rf"(?:(?:new|little|older|younger|eldest|youngest|best)\s+)?"
    rf"(?:{'|'.join(sorted(RELATIONS, key=len, reverse=True))})(?:-in-law)?\b"
    rf"(?:\s+(?-i:[A-Z][a-z]+))?",
    re.I)


# Someone by name inside a clause, doing something: "The vet said Mittens needs a new diet",
# whom a following "she" stands for.
# (not a thing of someone's: "Dad's Focus is in the garage")
_NAME_MENTION = re.compile(r"(?<=\s)(?<!['\u2019]s\s)(?-i:[A-Z][a-z]+)"
                           r"(?=\s+(?:is|was|has|needs|[a-z]+s|[a-z]+ed)\b)"
                           # "The vet put Bramble on a diet": someone by name, the object
                           r"|(?:(?<=\sput\s)|(?<=\sgot\s)|(?<=\stook\s)|(?<=\smoved\s))(?-i:[A-Z][a-z]+)"
                           r"(?=\s+(?:on|onto|to|off)\b)")


# Someone of the speaker's by a family word said bare: "at the hospital with Dad, he's had ...".
_KIN_MENTION = re.compile(r"(?<=\s)(?:(?-i:Mum|Mom|Mam|Dad|Nan|Nana|Gran|Granny|Grandad|Granddad|"
                          r"Grandma|Grandpa)\b|(?:mum|mom|mam|dad|nan|nana|gran|granny|grandad|"
                          r"granddad|grandma|grandpa)(?=['\u2019]s\s))")  # ("grandad's birthday")


def asked_to_keep(sentence: str) -> bool:
    """Whether the sentence asks to remember something ("please remember that ...")."""
    return bool(_KEEP.match(sentence) or _KEEP_TAIL.search(sentence))


# The reason a question gave, once the question is cut: "Since I'm coeliac" states "I'm coeliac".
_REASON_LEAD = re.compile(r"^(?:since|because|cos|as|given\s+that|seeing\s+as|now\s+that)\s+"
                          r"(?=(?:i|i'm|i've|my|we|we're|we've|our)\b)", re.I)


# Who brought the news, before it: "The school rang, Mia's been moved up to the top set".
_NEWS_LEAD = re.compile(r"^(?:the|my|our)\s+(?:[a-z]+\s+)?[a-z]+\s+(?:rang|called|phoned|emailed|"
                        r"texted|wrote|messaged)(?:\s+(?:me|us))?(?:\s+(?:today|earlier|yesterday|"
                        r"this\s+morning|last\s+night))?\s*[,:;\u2013\u2014-]\s+(?=\S+\s+\S+\s+\S)",
                        re.I)
_AS_ROLE = re.compile(r"^as\s+(an?\s+[^,]{3,40})\.$", re.I)
# "Being asthmatic, I ...", "As a primary school teacher I ...": what the speaker is, then the
# rest (never "As a kid I ...", "Being honest, ...": a time or a manner, not what one is).
_BEING = re.compile(r"^\W*(?:being|as)\s+((?!(?:an?\s+)?(?:kid|child|teen|teenager|youngster|boy|"
                    r"girl|baby|toddler|student|result|rule|whole|treat|joke|favour|gift|present|"
                    r"bonus|precaution|aside|honest|fair|realistic|usual|always|ever|well|soon|"
                    r"far|long|much|such|it|if|though|i)\b)(?:an?\s+)?(?:[a-z][\w-]*\s+){0,4}?"
                    r"[a-z][\w-]*),?\s+(?=(?:i|i'm|i've|i'd)\b)", re.I)


def trim(sentence: str) -> str:
    """The sentence without a remember-request, a question or request after its statement,
    or fillers. Returns the sentence as is when nothing of a statement would be left."""
    s = _KEEP.sub("", sentence, count=1)
    s = _KEEP_TAIL.sub(".", s)
    s = without_vocative(_FILLER_HEAD.sub("", s, count=1))
    s = _NEWS_LEAD.sub("", s, count=1)
    s = _BEING.sub(r"I'm \1, and ", s, count=1)  # "Being asthmatic, I ...": two facts
    s = _FILLER_TAIL.sub(r"\1", s)
    ask = _ASK_TAIL.search(s) or _YES_NO_TAIL.search(s)
    if ask is not None and _RELATIVE.match(s[ask.start():]) and \
            not s.rstrip("\"')]\u201d\u2019").endswith("?"):
        ask = None  # "My nephew Josh, who is staying with us, ...": a relative clause, no question
    if ask is not None and ask.start() > 0 and len(s[:ask.start()].split()) >= 3:
        s = s[:ask.start()].rstrip() + "."
        s = _REASON_LEAD.sub("", s, count=1)  # "Since I'm coeliac, which beers ...?"
        s = _AS_ROLE.sub(r"I'm \1", s, count=1)  # "As a Type 1 diabetic, what snacks ...?"
    so = _SO_TAIL.search(s.rstrip(".!")) or _SO_NO.search(s.rstrip(".!"))
    if so is not None and len(s[:so.start()].split()) >= 2:
        s = s[:so.start()].rstrip() + "."
    s = s.strip(" ,;:-")
    if not s or len(s.split()) < 2:
        return sentence
    if s[-1] not in ".!?":
        s += "."
    return s[0].upper() + s[1:]


# A clause that says something changed or stopped but not what replaced it ("Tomasz switched
# schools", "I don't play football anymore", "I left David Lloyd"): the clause after it, said
# of the same holder (a pronoun), gives the new value, so the two stay one fact.
_CHANGE_ONLY = re.compile(
    r"\b(?:(?:switched|changed|swapped)\s+[a-z]+s|(?:stopped|quit|gave\s+up|given\s+up|left|sold|"
    r"got\s+rid\s+of|traded\s+in)\b.*|no\s+longer\b.*|any\s*more|moved\s+(?:house|home))"
    r"[\s.!]*$", re.I)
_SAME_HOLDER_NEXT = re.compile(r"^(?:he|she|they|it|i|we)(?:'s|\u2019s|'m|'re|'ve|\s)", re.I)


_COMPOUND = re.compile(r"^\s+and\s+(?:i|we)\b", re.I)


def _parts(sentence: str) -> list[str]:
    """`sentence` cut where two facts meet (`_JOIN`); none when a piece would be one word
    ("Yeah, I've been ...": a reply, not two facts), except a name joined to the speaker ("Hannah
    and I split up, and my partner is now Joss": the first piece is "Hannah and I split up"), or
    someone of theirs ("My kids and I painted"); a last piece with no verb ("Max, my childhood
    dog") stays with the one before.
    A piece that only announces a change whose value the next gives (`_CHANGE_ONLY`) stays with
    it ("Tomasz switched schools, he's at Oakfield now")."""
    cuts = [m for m in _JOIN.finditer(sentence) if m.start() > 0 and m.end() < len(sentence)]
    pieces: list[str] = []
    start = 0
    for i, m in enumerate(cuts):
        piece = sentence[start:m.start()]
        nxt = sentence[m.end():cuts[i + 1].start() if i + 1 < len(cuts) else len(sentence)]
        if (len(piece.split()) < 2 or is_fragment(piece)) and _COMPOUND.match(sentence[m.start():]):
            continue  # "Hannah and I", "My kids and I": one subject
        if i + 1 == len(cuts) and is_fragment(nxt):
            continue  # "That one is Max, my childhood dog": who Max is, no fact of its own
        if len(piece.split()) < 2 or len(nxt.split()) < 2:
            return [sentence]
        if _CHANGE_ONLY.search(piece) and _SAME_HOLDER_NEXT.match(nxt.strip()):
            continue  # the cut is not taken: the piece runs on into the next
        pieces.append(piece)
        start = m.end()
    pieces.append(sentence[start:])
    return [p for p in pieces if p.strip()]


# Two predicates of one subject: "My son Ali is 4 and goes to nursery", "I live in Leeds and work
# at Tesco". The second opens with a verb of a fact (not "and then", not a list of objects: "I
# like tea and coffee").
_THIRD = """is was has does goes works lives plays attends studies teaches drives rides sings trains
    owns runs loves likes eats takes uses speaks volunteers coaches swims walks cycles commutes
    rents supports""".split()
_BASE = """have do go work live play attend study teach drive ride sing train own run love like eat
    take use speak volunteer coach swim walk cycle commute rent support""".split()
_TWO_PREDICATES = re.compile(
    rf"^(?P<s>(?:my|our)\s+(?:(?:new|little|older|younger|eldest|youngest|best|big)\s+)?"
    rf"(?:{_RELATION_WORDS})(?:\s+(?-i:[A-Z][a-z]+))?|(?-i:(?:(?:{_TITLES})\s+)?[A-Z][a-z]+))"
    rf"\s+(?P<p>\S.*?),?\s+and\s+"
    rf"(?P<q>(?:{'|'.join(_THIRD)})\b.*)$"
    rf"|^(?P<i>i|we)\s+(?P<ip>\S.*?),?\s+and\s+(?P<iq>(?:{'|'.join(_BASE)})\b.*)$", re.I)


def _one_predicate(part: str) -> list[str]:
    """`part` as one clause per predicate of its subject (`_TWO_PREDICATES`); as is when the
    first only announces a change the second gives ("Elsie gave up ballet and does ...")."""
    m = _TWO_PREDICATES.match(part.strip().rstrip(".!"))
    if m is None or _CHANGE_ONLY.search(m.group("p") or m.group("ip")) or \
            (m.group("s") and m.group("s")[0].isupper() and " " not in m.group("s")
             and (not may_be_name(m.group("s")) or re.fullmatch(_TITLES, m.group("s")))):
        return [part]  # (a title's person: "Auntie Jan's packed in caring and works as ...")
    subj = m.group("s") or m.group("i")
    first, second = m.group("p") or m.group("ip"), m.group("q") or m.group("iq")
    if len(first.split()) < 2 and not re.search(r"\d", first) or len(second.split()) < 2:
        return [part]
    return [f"{subj} {first}", f"{subj} {second}"]


# A job and where it is done, in one clause of the speaker's: "I work as a data analyst at
# Deloitte in Manchester", "I'm a software tester at BT" (the employer a name).
_JOB_AT = re.compile(r"^(?P<job>(?:i'?m|i\s+am|i\s+work\s+as)\s+an?\s+(?:[a-z-]+\s+){0,2}[a-z-]+)"
                     r"\s+(?P<at>at|for|with)\s+(?P<org>(?:the\s+)?(?-i:[A-Z])[\w&'-]*"
                     r"(?:\s+(?-i:[A-Z])[\w&'-]*){0,3}(?:\s+in\s+(?-i:[A-Z])[\w'-]*"
                     r"(?:\s+(?-i:[A-Z])[\w'-]*)?)?)\s*[.!]*$", re.I)


def _job_and_employer(part: str) -> list[str]:
    """`part` as two facts when it names the speaker's job and, after it, the employer by name
    (`_JOB_AT`): "I'm at KPMG now" changes the employer and keeps the job, "I'm a nurse now"
    the reverse. As is for what is no occupation ("I'm a member at PureGym")."""
    m = _JOB_AT.match(part.strip())
    if m is None or not _occupation(re.sub(r"^i\s+work\s+as", "I'm", m.group("job"), flags=re.I)):
        return [part]
    return [m.group("job") + ".", f"I work {m.group('at').lower()} {m.group('org')}."]


# A reason after the fact: ", it's closer", ", it's much cheaper" (the conversation's, as
# ", so ..." is).
_REASON_TAIL = re.compile(r",\s+(?:it'?s|it\s+is|that'?s)\s+(?:much\s+|a\s+lot\s+|way\s+|so\s+)?"
                          r"[a-z]+er(?:\s+(?:to|for)\s+[a-z]+)?\s*([.!]*)$", re.I)
# A value named first, as a change: "The Gym Group is my gym now" states "My gym is The Gym
# Group now".
_INVERTED = re.compile(r"^((?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*){0,3})\s+is\s+(?:now\s+)?"
                       r"(my|our)\s+([a-z]+(?:\s+(?!now\b)[a-z]+)?)(\s+now)\s*([.!]*)$")


def _value_last(part: str) -> str:
    """`part` with a value named first said as its thing's (`_INVERTED`); as is otherwise,
    and for a person ("Priya is my manager now": the identity rule reads it)."""
    part = _REASON_TAIL.sub(r"\1", part.strip())
    m = _INVERTED.match(part)
    if m is None or m.group(1).split()[0].lower() in ("i", "it", "this", "that", "there") or \
            m.group(3).split()[-1] in RELATIONS or not may_be_name(m.group(1).split()[-1]):
        return part
    return f"{m.group(2).capitalize()} {m.group(3)} is {m.group(1)} now."


_SUBORDINATE = re.compile(r"^(?:because|cos|'cause)\s+", re.I)
# A thing said to have ended is not what a following "it" is: "My bike got nicked, so it's the
# train for me" says nothing about the bike ("it" is the situation), as "Our boiler packed in and
# it's cold showers all week" does not make the boiler cold showers.
_THING_ENDED = re.compile(rf"{_ENDED_PIECE.pattern}|\b(?:stolen|gave\s+up)\b", re.I)
# (died, nicked, conked out, written off: `_ENDED_PIECE` has them, from `endings.THING_GONE`)
_IT_START = re.compile(r"^(?:it|its)(?:'s|\u2019s|\s)", re.I)
# A thing named after the holder ("My car failed its MOT, so it's the bus for now", "My cat
# caught a mouse and it's dead now"): a following "it" may be either, or the situation.
_OBJECT = re.compile(r"\b(?:a|an|the|this|that|some|its|his|her|their|my|our|your)\s+[a-z]", re.I)
# Someone else a clause names after its holder ("My boss hired Sarah", "My mum visited my gran"):
# whom a following "he" or "she" may stand for as well.
_OTHER_PERSON = re.compile(
    rf"\b(?:my|our|his|her|their)\s+(?:(?:new|little|older|younger|eldest|youngest|best)\s+)?"
    rf"(?:{_RELATION_WORDS})\b(?:\s+(?-i:[A-Z][a-z]+))?"
    r"|\b(?:met|meet|married|marry|hired|fired|visited|visit|beat|rang|told|tell|saw|see"
    r"|seeing|dating|dated|helped|help|invited|asked|and|with|friend|replaced|introduced|texted"
    r"|emailed)\s+(?P<name>(?-i:[A-Z][a-z]+))\b(?!\s+(?-i:[A-Z]))"  # not a firm: "Network Rail"
    r"|(?<=\s)(?-i:Mum|Mom|Mam|Dad|Nan|Nana|Gran|Granny|Grandad|Granddad|Grandma|Grandpa)\b",
    re.I)
# "It" as the weather, the time or the situation, whatever the clause before names: "it's
# raining", "it's been three weeks", "it's the landline for now", "it's an early start every day".
_IT_SITUATION = re.compile(
    r"^it(?:'s|\u2019s|\s+is|\s+was|\s+will\s+be)\s+(?:(?:raining|snowing|pouring|drizzling|sunny"
    r"|windy|cloudy|freezing|boiling|late|early|time|nearly|almost|half|too\s+late)\b"
    r"|been\s+(?:\d+|a|an|ages|over|nearly|almost|about|weeks|months|years|days|since|two|three"
    r"|four|five|six|seven|eight|nine|ten|several|forever)\b"
    r"|my\s+(?:birthday|anniversary|turn|day\s+off|fault|treat|shout)\b"
    r"|[^,.;]*?\b(?:for\s+(?:me|us|now|the\s+(?:week|month|time\s+being))|every\s+[a-z]+"
    r"|all\s+(?:week|day|month|year|weekend)|this\s+(?:week|month|year|weekend)|today|tonight"
    r"|tomorrow|until|till|from\s+now\s+on)\b)", re.I)
_PETS = frozenset("dog cat puppy kitten pet horse rabbit hamster parrot".split())


def _others(rest: str) -> list[str]:
    """The people `rest` (a clause after its holder) names: whom a pronoun may stand for too."""
    return [m.group("name") or m.group(0) for m in _OTHER_PERSON.finditer(rest)
            if m.group("name") is None or may_be_name(m.group("name"))]


def _person(owner: str) -> bool:
    """Whether `owner` is someone (not a thing or a pet a following "it" may stand for)."""
    said = set(re.findall(r"[a-z]+", owner.lower()))
    return bool(said & set(RELATIONS) - _PETS) or not owner.lower().startswith(
        ("my ", "our ", "the ")) and not said & _PETS


def _holder_for(clause: str, owners: list[str], thing: bool) -> str | None:
    """Whom the pronoun opening `clause` stands for among `owners` (the clause before's holder
    first, then anyone else it names): the one it can be; none when it may be two ("My boss
    hired Sarah and she's great": the boss or Sarah), or when "it" would be a person or a
    thing the clause before does not leave it alone with (`thing`)."""
    if _IT_START.match(clause):
        return owners[0] if thing and not _IT_SITUATION.match(clause) else None
    fits = [o for o in owners if not _clashes(clause, o)]
    return fits[0] if len(fits) == 1 else None


def split_clauses(sentence: str) -> list[str]:
    """The facts of one sentence, one per clause (see the module docstring)."""
    parts = [r for p in _parts(sentence) for q in _one_predicate(p) for r in _job_and_employer(q)]
    if len(parts) < 2:
        return [_value_last(sentence)]
    parts = [_value_last(p) for p in parts]
    asked = sentence.rstrip().endswith("?")
    out: list[str] = []
    owners: list[str] = []  # whom a following pronoun may stand for, the clause's holder first
    thing = False  # the holder is a thing a following "it" may stand for
    for p in parts:
        p = p.strip(" ,;")
        bare = _SUBORDINATE.sub("", p, count=1)
        if len(bare.split()) >= 3:  # "Because my wife works Saturdays, we ...": her fact
            p = bare
        m = _OWNER_SUBJECT.match(p)
        if m is not None and (m.group(1)[0].islower() or m.group(1).startswith(("My ", "Our "))
                              or may_be_name(m.group(1).split("'")[0])):
            owners = [m.group(1), *_others(p[m.end(1):])]
            thing = not _THING_ENDED.search(p) and not _person(m.group(1)) and \
                not _OBJECT.search(p[m.end():])
        elif owners and (holder := _holder_for(p, owners, thing)) is not None:
            p = _with_holder(p, holder)
        else:
            owners, thing = _mentions(p), False
        # everyone named so far ("with my aunt and my niece, she's ...": either, so neither)
        owners += [x for x in _mentions(p) if x.lower() not in {o.lower() for o in owners}]
        if p[-1] not in ".!?":
            p += "?" if asked and _QUESTION_START.match(p) else "."
        out.append(p[0].upper() + p[1:])
    return out


# A piece of a question that asks ("How do I keep my starter alive" of "..., while I'm away?").
_QUESTION_START = re.compile(r"^\W*(?:how|what|what's|which|where|when|why|who|can|could|should|"
                             r"would|will|do|does|did|is|are|am|any)\b", re.I)


def carry_holders(sentences: list[str]) -> list[str]:
    """`sentences` (of one message) with "he", "she", "his" or "her" opening one replaced by the
    person the one before it opened with (someone of the speaker's, "my son", or a name), as
    `split_clauses` does within a sentence: "Dave changed jobs. He's at Screwfix now." gives
    "Dave is at Screwfix now.", a fact about Dave. "It" and "they" are left: they stand for
    things and groups as often ("It's where I'm most alive")."""
    out = [home_named(sentences[i - 1], _there_named(sentences[i - 1], s)) if i else s
           for i, s in enumerate(sentences)]
    for i in range(1, len(out)):
        m = _OWNER_SUBJECT.match(sentences[i - 1].strip())
        if not (_HE_SHE.match(out[i]) or _HIS_HER.match(out[i])) or out[i].rstrip().endswith("?"):
            continue
        if m is None:
            asked = _asked_of(sentences[i - 1])
            if asked is not None:  # "... a book for my nephew? He's obsessed with dinosaurs."
                said = _with_holder(out[i], asked)
                out[i] = said[0].upper() + said[1:]
            continue
        owner = m.group(1)
        if not _one_of(out[i], owner, _mentions(sentences[i - 1])):
            continue  # "My mum met my sister for lunch. She's ...": either of them
        person = _REL_MENTION.fullmatch(owner) is not None if owner[0].lower() == owner[0] or \
            owner.startswith(("My ", "Our ")) else may_be_name(owner.split("'")[0])
        prev = sentences[i - 1].strip()
        if person and _holder_for(out[i], [owner, *_others(prev[m.end(1):])], False) == owner:
            said = _with_holder(out[i], owner)
            out[i] = said[0].upper() + said[1:]
    return out


_HE_SHE = re.compile(r"^(?:he|she)(?:'s|\u2019s|\s)", re.I)
_HIS_HER = re.compile(r"^(?:his|her)\s+(?=[a-z])", re.I)
"""A sentence opening with his or her: "His girlfriend Aoife is a vet." is Lorcan's."""


_THERE = re.compile(r"\b(?P<verb>(?:moving|move|moved|going|go|went|flying|fly|flew|heading|"
                    r"travelling|traveling|travelled|traveled|driving|drive|drove|been|off|get|got"
                    r"|come|came|coming|walk|walked|went\s+back|get\s+back)\s+(?:out\s+|over\s+|back\s+|up\s+|down\s+)?)?there\b",
                    re.I)
_GOING = re.compile(r"\b(?:going|heading|flying|travelling|traveling)(?=\s+(?:for|in|on|next|"
                    r"this|with|at\s+the|from)\b)", re.I)
_PLACE_NAME = re.compile(r"(?<=\s)(?-i:[A-Z][a-z]{2,}(?:\s+[A-Z][a-z]+)?)\b")
_NOT_PLACE = frozenset("""january february march april may june july august september october
    november december monday tuesday wednesday thursday friday saturday sunday christmas easter
    english french spanish german italian""".split())


def _there_named(question: str, sentence: str) -> str:
    """`sentence` with "there" said as the one place the question before it names ("What time
    zone is Singapore in? I'm moving there in March." -> "I'm moving to Singapore in March.");
    as is otherwise."""
    if not question.rstrip().endswith("?") or sentence.rstrip().endswith("?"):
        return sentence
    m = _THERE.search(sentence) or _GOING.search(sentence)
    heads = {p.group(0): p.group(0).split()[0] for p in _PLACE_NAME.finditer(question)}
    places = {p for p, head in heads.items()
              if head.lower() not in _NOT_PLACE and may_be_name(head)}
    if m is None or len(places) != 1 or not _SPEAKER_START.match(sentence):
        return sentence
    place = places.pop()
    if m.re is _GOING:  # "We're going for my 40th": where, said of the question's place
        said = f"{m.group(0)} to {place}"
    else:
        said = f"{m.group('verb')}to {place}" if m.group("verb") else f"in {place}"
    return sentence[:m.start()] + said + sentence[m.end():]


_SPEAKER_START = re.compile(r"^\W*(?:i|i'm|i've|i'll|we|we're|we've|we'll|my|our)\b", re.I)


def _asked_of(question: str) -> str | None:
    """The one person of the speaker's a question names ("Can you recommend a book for my
    10 year old nephew?" -> "my 10 year old nephew"), whom a "he" or "she" after it stands
    for; None for a statement, or a question naming none or two."""
    if not question.rstrip().endswith("?"):
        return None
    mentions = {m.group(0) for m in _REL_MENTION.finditer(question)}
    return mentions.pop() if len(mentions) == 1 else None


def _mentions(text: str) -> list[str]:
    """Who of the speaker's `text` names: "my mum", a name doing something, "Dad"."""
    return [m.group(0) for m in _REL_MENTION.finditer(text)] or \
        [m.group(0) for m in _NAME_MENTION.finditer(text) if may_be_name(m.group(0))] or \
        [m.group(0) for m in _KIN_MENTION.finditer(text)]


def _the_one(clause: str, owner: str, seen: list[str]) -> str | None:
    """Whom the pronoun opening `clause` stands for: the one person in view (`owner` and
    `seen`) of its gender; None when two are ("Had lunch with my mum and my sister, she's got
    a new job": either woman, so neither). `owner` when no pronoun opens it."""
    if not _PRONOUN_START.match(clause) and not _POSSESSIVE_START.match(clause):
        return owner
    fits = {s.lower(): s for s in [owner, *seen] if not _clashes(clause, s)}
    return next(iter(fits.values())) if len(fits) == 1 else None


def _one_of(clause: str, owner: str, seen: list[str]) -> bool:
    """Whether the pronoun opening `clause` stands for `owner` alone (`_the_one`)."""
    who = _the_one(clause, owner, seen)
    return who is not None and who.lower() == owner.lower()


def name_holder(clause: str, held: str) -> str:
    """`clause` ("She works at PwC now.") with its opening "he" or "she" replaced by the person
    the held fact it corrects opens with ("My partner works at Deloitte."): the record then
    says whom it is about. As is when the held fact opens with no one of the speaker's."""
    m = _OWNER_SUBJECT.match(held.strip())
    if m is None or not _HE_SHE.match(clause) or _REL_MENTION.fullmatch(m.group(1)) is None or \
            _holder_for(clause, [m.group(1), *_others(held.strip()[m.end(1):])], False) is None:
        return clause
    said = _with_holder(clause, m.group(1))
    return said[0].upper() + said[1:]


def _clashes(clause: str, owner: str) -> bool:
    """Whether the pronoun opening `clause` cannot stand for `owner` ("she" for "my son")."""
    word = re.split(r"['\u2019\s]", clause.strip().lower(), maxsplit=1)[0]
    said = {"her": "she", "his": "he"}.get(word, word)
    return said in ("she", "he") and pronoun(owner) not in (None, said)


_PERFECT = re.compile(r"\s+(?:just\s+|finally\s+|now\s+|already\s+)?(?:had|been|got|gone|done|"
                      r"made|taken|given|(?!(?:obsessed|interested|scared|worried|excited|"
                      r"terrified|involved|tired|bored|engaged|married|divorced|based|related|"
                      r"hooked|fascinated|addicted|attached|allergic|registered|vaccinated|"
                      r"qualified|employed|retired|stressed|pleased|annoyed|upset)\b)[a-z]+ed"
                      r"|shot|grown|left|lost|broken|bought|sold|found"
                      r"|won|seen|thrown|fallen|begun|become|caught|taught|brought|kept|sent"
                      r"|spent|built|quit|written|driven|ridden|eaten|forgotten|flown|swum|met"
                      r"|paid|told|heard|split|put|run|drawn|chosen|woken|risen|stolen)\b", re.I)


def _with_holder(clause: str, owner: str) -> str:
    """`clause` with its opening pronoun replaced by `owner` ("she is 14" -> "my cat is 14")."""
    if _clashes(clause, owner):
        return clause  # "My son ... She's ...": someone else
    own = _POSSESSIVE_START.match(clause)
    if own is not None:
        return f"{owner}'s {clause[own.end():]}"
    m = _PRONOUN_START.match(clause)
    if m is None:
        return clause
    verb = m.group(2) or ""
    if verb.lower() in ("'s", "\u2019s"):  # "he's had a stroke": has; "she's 14": is
        verb = " has" if _PERFECT.match(clause[m.end():]) else " is"
    return owner + verb + clause[m.end():]


# A statement of the speaker's inside a question ("What snacks are safe, given that I'm allergic
# to peanuts?"): the question is no fact, the reason it gives is.
_GIVEN = re.compile(r"[,\s]\s*(?:given\s+that|since|because|seeing\s+(?:as|that)|now\s+that|while|"
                    r"considering(?:\s+that)?)\s+((?:i|i'm|i've|my|we|we're|our)\b[^?]*?)"
                    r"\s*\?+\s*$", re.I)


# A request said without a question mark: "Help me write a cover letter for ...".
_ASKING = re.compile(r"^\W*(?:please\s+)?(?:help\s+me|write|draft|check|proofread|polish|"
                     r"review|improve|tidy\s+up)\b", re.I)


# A statement wrapped in a question to the listener: "Did I mention my partner Sunita is a civil
# engineer?", "Have I told you we're moving to Derby?", "Is it normal that my son still ...?".
# What follows the frame is the statement, when it opens with the speaker or theirs.
_ASKED_FRAME = re.compile(
    r"^\W*(?:(?:oh|and|so|btw|by\s+the\s+way|wait)[\s,]+)*(?:did\s+i\s+(?:ever\s+)?(?:tell\s+you"
    r"|mention|say)|have\s+i\s+(?:ever\s+|already\s+)?(?:told\s+you|mentioned|said)|do\s+you"
    r"\s+remember|did\s+you\s+know|(?:as\s+)?you\s+know|(?:is|isn't)\s+it\s+(?:normal|weird|bad|ok|okay|odd|strange|"
    r"silly|wrong|common|fine|unusual|mad|crazy)|would\s+it\s+be\s+(?:weird|bad|odd|silly|wrong"
    r"|rude))\s+(?:(?:that|about\s+how)\s+)?(?=(?:i|i'm|i've|i'd|my|we|we're|we've|our)\b)",
    re.I)
# A statement after the question, in a sentence that ends asking it: "What's a good stretch
# for back pain, I've got a slipped disc?", "Any gift ideas for my wife, she's into pottery?".
_STATED_AFTER = re.compile(
    r"[,;:\u2013\u2014-]\s+(?:(?:and|but|because|cos|since|as)\s+)?((?:i|i'm|i've|i'd|my|we|"
    r"we're|we've|our|she's|he's|she|he|they're)\b(?!\s+(?:think|guess|mean|wonder|know|suppose"
    r"|reckon|hope|was\s+wondering|wonder|were\s+wondering|don't\s+know|(?:'m|\s+am)\s+(?:not\s+"
    r"sure|curious|wondering|confused|stuck|lost))\b)[^,;?]{6,}?)\s*\?+\s*$", re.I)


TAG_WORDS = r"right|yeah|innit|no"
"""The words of a question tag ("..., right?"), for `_TAG` and `heuristic._untagged`."""
_TAG = re.compile(rf",?\s+(?:{TAG_WORDS}|didn't\s+i|haven't\s+i)$", re.I)


def _statement_of_question(sentence: str) -> str | None:
    """The statement a question carries, said as one ("Did I mention my partner Sunita is a
    civil engineer?" -> "My partner Sunita is a civil engineer."; "..., she's into pottery?"
    -> "My wife is into pottery." when the question names her); None when it carries none."""
    framed = _ASKED_FRAME.match(sentence)
    if framed is not None:
        said = _TAG.sub("", sentence[framed.end():].rstrip(" ?!"))
    else:
        after = _STATED_AFTER.search(sentence)
        if after is None or len(sentence[:after.start()].split()) < 2:
            return None
        said = after.group(1).strip()
        mentions = list(_REL_MENTION.finditer(sentence[:after.start()]))
        if mentions and _HE_SHE.match(said):
            said = _with_holder(said, mentions[-1].group(0))
    if len(said.split()) < 3:
        return None
    return said[0].upper() + said[1:] + "."


def clauses(sentence: str) -> list[str]:
    """The record texts a sentence gives: trimmed, then split into one fact per clause; a
    question gives the statement it rests on, if it states one."""
    asked = sentence.rstrip().endswith("?")
    given = _GIVEN.search(sentence) if asked else None
    if given is not None and _ASK_TAIL.search(given.group(1)) is not None:
        given = None  # "... since I started the new job, is that a screen thing?": no reason
    stated = _statement_of_question(sentence) if asked else None
    if stated is not None:
        return clauses(stated)
    if given is not None and len(given.group(1).split()) >= 3:
        stated = given.group(1).rstrip(" ,;") + "."
        return split_clauses(stated[0].upper() + stated[1:])
    if sentence.rstrip().endswith("?") or _ASKING.match(sentence):
        owned = job_asked(sentence) or owned_named(sentence) or age_asked(sentence) or \
            trait_asked(sentence) or condition_asked(sentence)
        if owned is not None:  # "... a lens for my Fuji X-T4?": the speaker has one
            return [owned]
    said = trim(sentence)
    named = appositive(said) or introduced(said)
    if named is not None:  # "Josh, my eldest, wants ...": who Josh is, and what he wants
        return [c for part in named for c in split_clauses(part)]
    return split_clauses(said)
