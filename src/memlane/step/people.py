"""One mechanism of the supersede rule (`step/supersede.py`): **another person's change told
by an event** ("Kieran got poached by Dyson", "She's retrained as a dental nurse", "My
brother's gone over to Brondesbury", "Maya's moved up to Oakwood").

A person's job, employer, school, club or home changes by what happened to them more often
than by "X is at Y now". An event names the attributes it may change (`_EVENTS`: "poached by"
an employer; "retrained as" a job; "moved up to" a school, a club, a town ...) and the value
after it, a name (or a job title). It replaces the ONE held fact of that person whose
attribute is one of those (read from the held fact: `held_attribute`), when the value is
another one. Never:
- for the speaker ("I", "we": their own changes are the other mechanisms'), or for a pronoun
  or a name that stands for no one held, or for two (`resolve`);
- when two held facts of the person fit the event (a town and a club for "moved to"): both
  kept, no guess;
- for a maybe, a question, a one-off, an offer or a negation ("she's been offered a job at
  Meta", "he hasn't joined Leeds");
- for a job told only by what they do now ("Nadia is teaching maths") unless the sentence
  says the old one ended ("walked away from law").

Pure: reads the claims' texts only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import families, placekind, slots
from .attributes import _occupation
from .categories import FAMILIES
from .claim import Claim
from .endings import _ADDITIVE, _ONE_OFF, LEFT_WORK
from .holders import RELATIONS, pronoun

Verdict = tuple[str, int, tuple[str, ...]]

_NAME = r"(?!(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|january|february|march|april|june|" \
        r"july|august|september|october|november|december)\b)" \
        r"(?-i:(?:St\.?\s+)?[A-Z][\w'&-]*(?:\s+(?:[A-Z][\w'&-]*|of|and|&))*)"
_JOB = r"(?:an?\s+)((?:[a-z-]+\s+){0,2}[a-z-]+)"
_GONE = r"(?:gone|went|moved|moving|headed|heading)"
# (attributes an event may change, the pattern whose group 1 is the new value)
_EVENTS: tuple[tuple[frozenset[str], re.Pattern[str]], ...] = tuple(
    (frozenset(attrs.split()), re.compile(rx, re.I)) for attrs, rx in (
        ("employer", rf"\b(?:poached|headhunted|head-hunted|snapped\s+up|taken\s+on|hired|"
                     rf"recruited)\s+by\s+(?:the\s+)?({_NAME})"),
        ("employer", rf"\b(?:started|starting|begun|began)\s+"
                     rf"(?:a\s+(?:new\s+)?job\s+|work(?:ing)?\s+)(?:at|with|for)\s+(?:the\s+)?({_NAME})"),
        ("employer", rf"\b{_GONE}\s+(?:over\s+)?to\s+work\s+(?:at|for|with)\s+"
                     rf"(?:the\s+)?({_NAME})"),
        ("employer", rf"\b(?:got|landed|taken|took|accepted)\s+a\s+(?:new\s+)?"
                     rf"(?:job|role|position)\s+(?:at|with)\s+(?:the\s+)?({_NAME})"),
        ("employer", rf"\bjumped\s+ship\b[^.;]*?\b(?:to|at)\s+(?:the\s+)?({_NAME})"),
        ("job", rf"\b(?:retrained|qualified|requalified|(?:gone|went)\s+"
                rf"(?:self-employed|freelance))\s+as\s+{_JOB}"),
        ("job", rf"\b(?:become|became|training|trained|working|started|starting)\s+"
                rf"(?:as\s+)?{_JOB}"),
        ("job", r"\b(?:is|'s|now)\s+(teaching)\b"),
        ("job", rf"\b(?:is|'s)\s+now\s+{_JOB}"),  # ("left pharmacy and is now a tester")
        ("job", rf"\b(?:is|'s|works?|working)\s+(?:as\s+)?{_JOB}\s+now\b"),  # ("left law and
        # she's a yoga teacher now", "packed in caring and works as a receptionist now")
        # a job and the employer named ("he's a lorry driver for Eddie Stobart now", "Zainab's
        # now the assistant manager at Waitrose"): either held one
        ("job employer", rf"\b(?:is|'s)\s+(?:now\s+)?(?:an?|the)\s+"
                         rf"((?:[a-z-]+\s+){{0,2}}[a-z-]+)\s+(?:at|for|with)\s+(?:the\s+)?{_NAME}(?:\s+now\b|(?<=\w)(?=\s*[.!]?$))"),
        # a job ended, then an employer or a service joined ("jacked in scaffolding and joined
        # the police")
        ("job employer", rf"\bjoined\s+(?:the\s+)?((?-i:police|army|navy|fire\s+service|"
                         rf"ambulance\s+service|civil\s+service|council)|{_NAME})"),
        # what one does now in place of a job said to end ("retired from the Royal Mail and
        # now does van deliveries for a florist")
        ("job employer", r"\bnow\s+(?:does|do|doing|works|working|drives|driving|volunteers|"
                         r"volunteering|helps|helping)\s+((?:[a-z-]+\s+){0,3}?[a-z-]+)?\s*"
                         r"(?:for|at|with)\s"),
        # a club that took them on ("picked up by the county squad, Kent Lightning",
        # "signed by the Leyton Orient academy")
        ("team", rf"\b(?:picked\s+up|scouted|signed|selected|called\s+up)\s+(?:by|for)\s+"
                 rf"(?:the\s+)?(?:(?:[a-z-]+\s+){{0,2}}(?:squad|team|side|club),?\s+)?({_NAME})"),
        ("school", rf"\b(?:moved|gone|went)\s+up\s+to\s+(?:the\s+)?({_NAME})"),
        ("school", rf"\b(?:started|starts)\s+(?:in\s+)?(?:reception|year\s+\d+)\s+(?:at|in)\s+"
                   rf"(?:the\s+)?({_NAME})"),
        # left study for work ("Hannah's graduated and is working at Airbus now")
        ("school", rf"\bgraduated\b[^.;]*?\b(?:working|works|job|started)\s+(?:at|for|with)\s+"
                   rf"(?:the\s+)?({_NAME})"),
        ("school team employer", rf"\b(?:started|starting)\s+at\s+(?:the\s+)?({_NAME})"),
        ("employer school team", rf"\bstarts\s+(?:work\s+)?(?:at|with)\s+(?:the\s+)?({_NAME})"),
        ("team employer", rf"\b(?:gone|went)\s+(?:over|across)\s+to\s+(?:the\s+)?({_NAME})"),
        ("team employer school", rf"\bmoved\s+(?:over|across)\s+to\s+(?:the\s+)?({_NAME})"),
        ("employer", rf"\b(?:is|'s)\s+(?:now\s+)?(?:with|at)\s+(?:the\s+)?({_NAME})\s+now\b"),
        ("team", rf"\b(?:signed\s+(?:on\s+)?(?:for|with))\s+(?:the\s+)?({_NAME})"),
        ("residence school team", rf"\b(?:moved|relocated|transferred)\s+"
                                  rf"(?:back\s+|down\s+|out\s+|away\s+)?to\s+(?:the\s+)?({_NAME})"),
        ("residence", rf"\b(?:sold\s+up|packed\s+up|upped\s+sticks|emigrated|sold\s+(?:the|her|"
                      rf"his|their)\s+(?:house|flat|place|home|bungalow))\b[^.;]*?"
                      rf"\b(?:to|in)\s+(?:live\s+in\s+)?({_NAME})"),
        ("residence", rf"\b(?:gone|went|moved)\s+to\s+live\s+(?:in|near)\s+({_NAME})"),
        # a home of another kind somewhere ("Dad's downsized to a flat in Cromer")
        ("residence", rf"\b(?:downsized|moved|relocated)\s+(?:in)?to\s+(?:a|an|her|his|their)\s+"
                      rf"(?:[\w-]+\s+){{0,2}}(?:place|flat|house|home|apartment|bungalow|cottage)"
                      rf"\s+(?:in|near)\s+({_NAME})"),
        # gone somewhere to live or work there ("gone off to Lisbon to work remotely")
        ("residence", rf"\b(?:gone|went|moved|headed)\s+(?:off\s+|out\s+|over\s+|away\s+)?to\s+"
                      rf"({_NAME})\s+to\s+(?:work|live|study|settle)\b"),
        ("residence", rf"\b(?:retired|emigrated)\s+(?:out\s+|over\s+|down\s+)?to\s+({_NAME})"),
        ("residence", rf"\bgot\s+the\s+keys\s+(?:to|for)\s+(?:a|an|her|his|their)\s+"
                      rf"(?:[\w-]+\s+){{0,2}}(?:place|flat|house|home|apartment|bungalow|cottage)"
                      rf"\s+(?:in|near)\s+({_NAME})"),
    ))
# The old job said as ended: a job told only by what they do now needs it.
_LEFT = re.compile(rf"\b(?:{LEFT_WORK}|moved\s+on\s+from|chucked\s+in|"
                   r"handed\s+(?:in\s+)?(?:her|his|their)\s+notice|made\s+redundant|"
                   r"laid\s+off|retired\s+from|retirement\s+from|stepped\s+down|hung\s+up)\b", re.I)
# What one leaves that is no job: a club, a committee, a choir ("retired from the bowls club
# committee and now helps out at the food bank").
_PASTIME = re.compile(r"\W*(?:the|a|an|her|his|their)?\s*(?:[\w'-]+\s+){0,3}?(?:club|committee|"
                      r"choir|band|society|league|group|board|team|squad|class|course)\b", re.I)


def _left_work(said: str) -> bool:
    """Whether `said` says a job or an employer was left (`_LEFT`), not a pastime (`_PASTIME`)."""
    return any(_PASTIME.match(said, m.end()) is None for m in _LEFT.finditer(said))


_WEAK_JOB = re.compile(r"^(?:training|trained|working|works?|started|starting|is|'s|now)\b", re.I)
# What is not (yet) so: offered, applied, hoping, a negation.
_NOT_SO = re.compile(r"\b(?:offered|offer|applied|applying|interview\w*|hoping|hopes|wants?\s+to|"
                     r"thinking|considering|not|never|hasn't|hadn't|didn't|won't|isn't|wasn't|"
                     r"no\s+longer|for\s+(?:a|the)\s+(?:week|weekend|fortnight|few|couple|holiday|"
                     r"summer|month)|on\s+holiday|visiting|trial|for\s+a\s+(?:few|couple)|while|"
                     r"until|till|for\s+now|borrow\w*|lent|loan\w*|courtesy|temporar\w*|"
                     r"hire\s+car|rental|spare)\b", re.I)
# What a held fact's words say, where the attribute list names none ("plays cricket for Ealing
# CC": a club; "'s a postman": a job).
_HELD_TEAM = re.compile(r"\bplays?\s+(?:[a-z-]+\s+){0,2}for\s+(?:the\s+)?(?-i:[A-Z])", re.I)
_HELD_JOB = re.compile(r"^\W*(?:my|our)\s+[\w\s-]+?(?:'s|\u2019s|\s+is)\s+(an?\s+.*)$", re.I)
PEOPLE = frozenset({"employer", "job", "school", "team", "residence"})


def held_attribute(c: Claim) -> str | None:
    """The attribute of the held fact `c` among `PEOPLE`: the one the rule read, else what its
    words say (a club played for, a job by the noun after "'s a")."""
    if c.attribute in PEOPLE:
        return c.attribute
    if _HELD_TEAM.search(c.said):
        return "team"
    m = _HELD_JOB.match(c.said.strip())
    if m is not None and _occupation("is " + m.group(1)):
        return "job"
    return None


def _job(words: str) -> str:
    """The job title `words` open with ("dental nurse" of "dental nurse starts next"), or ""."""
    if words.lower() == "teaching":
        return words
    parts = re.split(r"\s+(?:for|at|in|on|with|to|from|and|but|so|the|a|an|this|that|last|next|"
                     r"now|again|too)\b", words, maxsplit=1, flags=re.I)[0].split()
    for n in range(len(parts), 0, -1):
        if _occupation("is a " + " ".join(parts[:n])):
            return " ".join(parts[:n])
    return ""


def event(said: str, context: str = "") -> tuple[frozenset[str], str] | None:
    """(the attributes the change event of `said` may be of, the new value), or None: no such
    event, or one said as what may be, is not so or happened once. `context`: the sentence
    `said` was cut from (where the old job may be said to have ended)."""
    if event_blocked(said):
        return None
    ended = _left_work(said) or _left_work(context)
    for attrs, rx in _EVENTS:
        m = rx.search(said)
        if m is None:
            continue
        value = (m.group(1) or m.group(0)).strip()
        named_now = attrs == {"job", "employer"} and re.search(r"\bnow\b", m.group(0), re.I)
        if (m.group(0).lower().startswith("starts") or re.match(r"(?:is|'s)\b", m.group(0), re.I)) \
                and not ended and not named_now:
            continue  # ("she starts at Aldi on Monday": a shift, unless a job ended; "she's the
            # manager at Lidl now" says the job and the employer now)
        if m.group(0).lower().startswith("start") and "employer" in attrs and not ended:
            attrs = attrs - {"employer"}  # ("he's started at PureGym": no job said to end)
        if m.group(0).lower().startswith(("now", "joined")) and not ended:
            continue  # ("now does the school run for Mum", "joined the choir": no job ended)
        placed = placekind.kinds(value) & PEOPLE
        if placed and len(attrs) > 1:  # ("moved over to Oakfield Juniors": a school, a club)
            attrs = attrs & placed
            if not attrs:
                continue  # ("went over to Fernhill Academy for a match": no move of school)
        if attrs == {"job"}:
            value = _job(value)
            if not value:
                continue
            if _WEAK_JOB.match(m.group(0).strip()) and not ended:
                continue  # ("Nadia is teaching a class on Sundays": no job ended)
        return attrs, value
    return None


def resolve(new: Claim, claims: Sequence[Claim], attrs: frozenset[str]) -> str | None:
    """The holder a pronoun ("she", "he") stands for among the third parties holding a fact of
    one of `attrs`: the one that may be of that sex (by the relation word or the first name),
    when it is read as of that sex, or, its sex unread ("my colleague Gareth"), when another
    one was ruled out by sex ("my colleague Joanna" for "he"): the speaker said "he" of
    someone it could only be. None when no one, or more than one, fits."""
    prefix, _, who = new.holder.rpartition("|")
    if who not in ("?she", "?he"):
        return None
    return _the_one(who[1:], {c.holder for c in claims if c.holder.rpartition("|")[0] == prefix
                              and held_attribute(c) in attrs})


def _the_one(sex: str, holders: set[str]) -> str | None:
    """The one of `holders` (third parties among them) "she" / "he" (`sex`) stands for (see
    `resolve`)."""
    people = {h for h in holders if (them := h.rpartition("|")[2]) != "i" and "?" not in them
              and not them.startswith("named ")}
    fits = {h for h in people if (pronoun(h.rpartition("|")[2]) or sex) == sex}
    if len(fits) != 1:
        return None
    one = fits.pop()
    read = pronoun(one.rpartition("|")[2])
    return one if read == sex or (read is None and len(people) > 1) else None


# After a person's "'s", a word that says it is "has" or "is" ("Maya's moved", "Mum's gone",
# "Kieran's at"), not a possessive ("My son's football training moved"): a past participle by
# its ending, or a word that follows "has" / "is".
_HAS_IS = re.compile(r"^\W*(?:\w+\s+){0,3}?\w+(?:'s|\u2019s)\s+"
                     r"(?:\w+(?:ed|en|ne|wn|ld|ught|ot|ft|it|ck|ung)|just|now|finally|recently|also|become|come|run|put|cut|set|a|an|the|at|in|"
                     r"on|with|still|back|off|never|not|moving|going|started|working|teaching|"
                     r"training|living|up|over|out|had)\b", re.I)
_POSSESSED = re.compile(r"^\W*(?!(?:he|she|it|that|there|what)\b)"
                        r"(?:(?:my|our|the)\s+(?:[a-z]+\s+)?)?[a-z-]+(?:'s|\u2019s)\s", re.I)


def _of_a_thing(said: str) -> bool:
    """Whether `said` opens with a person's thing ("My son's football training moved to ..."):
    the event is the thing's, not the person's."""
    return _POSSESSED.match(said) is not None and _HAS_IS.match(said) is None


def changed(new: Claim, holder: str, claims: Sequence[Claim]) -> Verdict | None:
    """The one held fact of the person `holder` (resolved; never the speaker) that the change
    event of `new` replaces (see the module docstring), or None; and a name one goes by now
    (`name_taken`, the speaker's too)."""
    if (taken := name_taken(new, holder, claims)) is not None:
        return taken
    said = new.context or new.said
    if _of_a_thing(new.said):
        return None
    found = event(new.said, said)
    if found is None or (said != new.said and event(said) is None and _NOT_SO.search(said)):
        return None
    attrs, value = found
    if "?" in new.holder:  # (read here, strictly: never a person of a sex unread)
        holder = resolve(new, claims, attrs) or new.holder
    who = holder.rpartition("|")[2]
    if who == "i" or "?" in who or who.startswith("named "):
        return None
    fits = [i for i, c in enumerate(claims) if c.holder == holder and c.said and
            held_attribute(c) in attrs]
    if len(fits) != 1:
        return None
    i = fits[0]
    held = claims[i].said.lower()
    words = [w for w in value.lower().split() if len(w) > 3]
    if value.lower() in held or (words and all(w in held for w in words)):
        return None  # the held value again ("moved up to Oakwood" of "is at Oakwood"; not
        # "Riverside Primary" of "is at Riverside Nursery")
    return "supersedes", i, (
        f"same holder ({holder})", f"a change of {held_attribute(claims[i])} told by an event",
        f"another value given ({value})", "the only held fact of this person it fits")


_GOES_BY = re.compile(rf"\b(?:go|goes|going)\s+by\s+({_NAME})(?=[\s,.;!]|$)[^?]*$", re.I)
_HELD_NAME = re.compile(rf"\b(?:sur|last\s+|family\s+|first\s+|nick)?name(?:['\u2019]s|\s+is|"
                        rf"\s+was)\s+(?:still\s+)?({_NAME})", re.I)


def name_words(clause: str) -> list[str]:
    """The words a held name is said with, for a clause giving the name one goes by
    (searched for by `step/related.py`: "I go by Okafor now" / "My surname is Pritchard")."""
    return ["name", "surname"] if _GOES_BY.search(clause) else []


def name_taken(new: Claim, holder: str, claims: Sequence[Claim]) -> Verdict | None:
    """A name `holder` goes by now ("I go by Okafor now since the wedding") in place of the one
    held fact of the holder that gives their name ("My surname is Pritchard"); None when it is
    not worded as a change, is a maybe or a question, or no held name, or two, fit."""
    said = new.context or new.said
    m = _GOES_BY.search(new.said)
    if m is None or not re.search(r"\b(?:now|these\s+days|since|after|anymore|married)\b",
                                  said, re.I) or slots.hypothetical(said):
        return None
    fits = [(i, n.group(1)) for i, c in enumerate(claims) if c.holder == holder and c.said and
            not c.ends and (n := _HELD_NAME.search(c.said)) is not None]
    if len(fits) != 1 or fits[0][1].lower() == m.group(1).lower():
        return None
    return "supersedes", fits[0][0], (f"same holder ({holder})", f"goes by {m.group(1)} now",
                                      "the only held fact of their name")


_OPENS_PERSON = re.compile(
    r"^\W*(?:(?:she|he)\b|(?-i:Mum|Mom|Dad|Nan|Gran|Grandad|Grandma|Grandpa)\b|(?:my|our|the)\s+"
    r"(?:[a-z]+\s+)?(?:" + "|".join(sorted(RELATIONS, key=len, reverse=True)) + r")(?:-in-law)?"
    r"(?:'s|\u2019s|\s))", re.I)


def told(clause: str) -> bool:
    """Whether `clause` tells a person's change by an event ("She's retrained as a dental nurse",
    "Mum's gone to work at Waitrose now"): someone of the speaker's opens it, by a pronoun or a
    relation (a name's news is `holders.held_news`, filed when the name is held). Filed as a
    fact whatever its shape; the supersede rule decides whose."""
    return _OPENS_PERSON.match(clause) is not None and (event(clause) is not None or (
        _GOT.search(clause) is not None and not event_blocked(clause) and
        any(families.members(clause, fam, switched=True, brands=True) for fam in FAMILIES)))


_GOT = re.compile(r"\b(?:bought|got\s+(?:a|an|herself|himself)|picked\s+up|"
                  r"(?:got|put|moved|switched)\s+(?:him|her)\s+(?:over\s+)?onto?|"
                  rf"{families.TRADED}|replaced\s+(?:it|her|his)\s+\w*\s*with)\b",
                  re.I)


def thing_changed(new: Claim, holder: str, claims: Sequence[Claim]) -> Verdict | None:
    """The held thing (a car, a phone: one of a family, `step/categories.py`) of a third party
    (by a relation, a name, or the one a pronoun stands for: `_the_one`) that `new` says was
    got or is now used in its place ("He's got rid of that little Fiat and bought a BMW", "Ella
    is using an old iPhone SE"): the person's one held fact of the family. Each side is read
    with the other as its context ("has a Motorola" beside "an iPhone SE": a phone)."""
    prefix, _, who = holder.rpartition("|")
    said = new.context or new.said
    if event_blocked(said) or (_GOT.search(new.said) is None and _USING.search(new.said) is None) \
            or families._FOR_ANOTHER.search(said) or _ADDITIVE.search(new.said):
        return None
    if who == "i" or who.startswith("named ") or ("?" in who and who not in ("?she", "?he")):
        return None
    fits: list[tuple[int, str]] = []
    for i, c in enumerate(claims):
        if c.holder.rpartition("|")[0] != prefix or ("?" not in who and c.holder != holder) or \
                (len(c.said) > 8 and c.said.strip().rstrip(".!").lower() in said.lower()):
            continue  # (another clause of this sentence: "Mum's Clio failed its MOT")
        for fam in FAMILIES:
            theirs = families.members(c.said, fam, said, switched=True)
            mine = families.members(new.said, fam, c.said, switched=True, brands=True)
            if theirs and len(families._fresh(mine, theirs)) == 1 and \
                    not families._another(new.said, c.said, fam.name):
                fits.append((i, fam.name))
    if "?" in who:
        # the one whose held thing the sentence says ended ("Dev's Golf got written off so
        # he's bought ..."), else the one the pronoun's sex leaves (`_the_one`)
        gone = {claims[i].holder for i, _ in fits if slots.ended_again(claims[i].said, said)}
        one = gone.pop() if len(gone) == 1 else _the_one(who[1:], {claims[i].holder
                                                                   for i, _ in fits})
        fits = [(i, name) for i, name in fits if claims[i].holder == one]
    if len(fits) != 1:
        return None  # (two may be meant, or the one is of a sex unread)
    i, name = fits[0]
    return "supersedes", i, (
        f"the one held {name} of {claims[i].holder}", f"another {name} got or used in its place",
        "the only held fact it fits")


_USING = re.compile(r"\b(?:is|'s|are)\s+(?:now\s+)?(?:using|on)\s+(?:a|an|the|her|his|their)\b",
                    re.I)


def event_blocked(said: str) -> bool:
    """Whether `said` is a maybe, a question, a one-off, an offer or a negation."""
    return "?" in said or slots.hypothetical(said) or bool(_ONE_OFF.search(said)) or \
        bool(_NOT_SO.search(said))


_UNSETTLED = re.compile(r"\b(?:offered|applied\s+(?:for|to)|interview(?:ed|ing)?\s+(?:at|with|for)|"
                        r"turned\s+(?:it|them|(?:the|that|this)\s+\w+)\s+down)\b", re.I)
_SETTLED = re.compile(r"\b(?:i|we)(?:'ve|\s+have)\s+(?:just\s+)?(?:taken|accepted|started|signed)\b"
                      r"|\b(?:took|accepted)\s+(?:a|the)\s+(?:job|role|position)\b", re.I)
"""An offer taken ("I've taken a job at Caffe Nero, they offered an extra pound an hour")."""
# A stand-in while one's own is away ("a courtesy car while the Fiesta is in the garage"), or
# one not one's own ("a company van").
_STAND_IN = re.compile(r"\b(?:courtesy|loan(?:ed|er)?\s+(?:car|phone|van)|on\s+loan|borrow\w*|"
                       r"hire\s+car|rental|stand-in|temporar\w*|(?:company|pool)\s+(?:car|van))\b"
                       r"|\bwhile\s+(?:the|his|her|my|"
                       r"our|their|its)\s+(?:[\w-]+\s+){0,3}?(?:is|'s|are|was)\s+(?:being\s+"
                       r"(?:fixed|repaired|serviced|mended)|in\s+(?:the\s+garage|for|at)|off\s+the\s+road)"
                       # one's own away, then another's used ("Dad's Focus is in the garage so
                       # he's been driving Mum's Panda all week")
                       r"|\b(?:is|'s|was)\s+(?:in\s+the\s+garage|off\s+the\s+road|in\s+for\s+"
                       r"(?:repairs?|a\s+service))\b",
                       re.I)
# A thing got for someone else ("My wife bought her mum an iPhone SE", "I bought her an iPhone"):
# theirs, not the buyer's.
_GIFT = re.compile(r"\b(?:bought|got|gave|given|ordered|picked\s+up|treated)\s+(?:her|his|their|my|"
                   r"our)\s+(?:\w+\s+)?(?:" + "|".join(sorted(RELATIONS, key=len, reverse=True))
                   + r")s?\s+(?:a|an|the|some|one)\b|\b(?:i|we)(?:'ve|\s+have)?\s+(?:just\s+)?"
                   r"(?:got|bought|ordered)\s+(?:him|her|them)\s+(?:a|an)\b", re.I)


def unsettled(said: str, claims: Sequence[Claim] = (), target: int | None = None) -> bool:
    """Whether `said` tells an offer, an application or an interview, or one turned down ("Liam's
    been offered a job at Google"), a stand-in while one's own is away ("a courtesy car while
    the Fiesta is in the garage"; a company car, unless the held fact `claims[target]` is one:
    "My wife drives a Qashqai, it's her company car") or a thing got for someone else ("bought
    her mum an iPhone", "we got him an Acer"): no replacement of anyone's fact."""
    stand = _STAND_IN.search(said)
    held = claims[target].said if target is not None and target < len(claims) else ""
    if stand is not None and _COMPANY.match(stand.group(0)) and _COMPANY.search(held):
        stand = None
    return (_UNSETTLED.search(said) is not None and _SETTLED.search(said) is None) or \
        stand is not None or _GIFT.search(said) is not None


_COMPANY = re.compile(r"\b(?:company|pool)\s+(?:car|van)\b", re.I)
