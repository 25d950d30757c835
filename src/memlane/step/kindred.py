"""Two readings for the anchored rule (`step/anchored.py`): **one thing said by another word**,
and **a thing moved by someone else**.

Another word: people name a routine, a service, a budget or a race they keep by more than one
word ("football practice" / "the coach moved training", "my train" / "my morning service",
"the budget" / "what we can spend", "the marathon" / "I've swapped races"). `same_thing` gives
one word for each group, so the two statements share an anchor; the rest of the rule (one
holder, a new value of one type, a change cue, one held fact fitting) is unchanged.

Someone else: a club, a coach, a school, a pool moving a relation's routine ("The coach moved
training to Friday evenings" of "My son's football practice is on Wednesday evenings") says it
of the speaker's own household: `moved_by_other` tells such a sentence, and `anchored` then lets
the held fact of a relation of the speaker's fit, when the sentence names no other owner.

More: a held fact of the speaker's that names who does it for them ("Our cleaner, Bogdana,
comes on Thursdays") is that person's when a statement of them changes it (`helper`); a service
taken by its time ("I catch the 8:05 instead") is the held one taken at another
(`service_by_time`); a name after "I've swapped races" is the race's (`races_swapped`); a
person given in a role ("My daughter's teacher is now Mr Obi") replaces the one held in it,
or with whom a lesson or a school year is held ("in Year 3 with Miss Hughes": `role_changed`).

Pure: reads words only.
"""

from __future__ import annotations

import re

from .holders import pronoun

_GROUPS = (
    ("practice", "training", "session", "sessions", "class", "classes", "lesson", "lessons"),
    ("train", "service"),
    ("ferry", "sailing"),
    ("budget", "spend", "spending"),
    ("race", "races", "marathon", "marathons", "sportive", "triathlon"),
)
"""Words of one thing each: a routine's meeting, a service taken, a budget, a race entered.
"Training" is the routine's ("training" the word, not the lemma "train" of a train taken)."""
_ONE = {w: group[0] for group in _GROUPS for w in group}


def same_thing(word: str) -> str | None:
    """The one word for the group `word` (lower case, as said) is of, or None: "training",
    "lessons": "practice"; "service": "train"; "spend": "budget"; "races": "race"."""
    return _ONE.get(word)


def search_words(clause: str) -> list[str]:
    """The other words of each group a word of `clause` is of ("my morning service": "train"),
    the services a time taken names ("I catch the 8:05 instead": "train", "bus") and where a
    role changed is held ("switched teachers": "lessons", "class", "year"), searched
    for beside its own (`step/related.py`): the held fact may say the thing by one."""
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", clause)}
    timed = ["train", "bus", "ferry", "tram"] if _SERVICE_TIME.search(clause) else []  # "the 8:05"
    if _ROLE_GIVEN.search(clause):  # ("switched teachers": "lessons", "class" too)
        timed += [r for r in _ROLES.split("|") if re.search(rf"\b{r}", clause, re.I)] + \
            ["lessons", "class", "year"]
    return [w for group in _GROUPS if said & set(group) for w in group if w not in said] + \
        [w for w in timed if w not in said]


_RACES_SWAPPED = re.compile(r"\b(?:switch|swapp|chang)(?:ed|ing)\s+(?:races|marathons)\b", re.I)


def races_swapped(new: str, held: str) -> bool:
    """Whether `new` says the speaker swapped races ("I've swapped races, I'm doing Berlin
    instead") and `held` names one ("the Chicago marathon"): the name then given is the race's,
    as a place is (a race entered beside a held one, "I've entered the Berlin marathon", is
    none in its place)."""
    return _RACES_SWAPPED.search(new) is not None and \
        bool({w.lower() for w in re.findall(r"[A-Za-z]+", held)} & set(_GROUPS[4]))


_BY_OTHER = re.compile(
    r"^\W*the\s+(?!(?:one|thing|same|other|new|old)\b)[a-z]+(?:\s+[a-z]+)?\s+"
    r"(?:has\s+|have\s+|had\s+|'s\s+|'ve\s+)?(?:moved|changed|switched|shifted|rescheduled|"
    r"re-scheduled|put)(?P<thing>\s+(?:the\s+|his\s+|her\s+|their\s+|its\s+)?(?!(?:to|into|"
    r"from|in|on|at|back|over|up|down|out|away|off|it|that|them|us|me|him|her|my|our|house|"
    r"office|shop)\b)[a-z].*)", re.I)
"""A sentence opening with an outside doer who moved a thing ("The coach moved training ...",
"The pool changed the class ...", "The leisure centre switched his swimming ..."); never one of
the speaker's ("my", "our": their own thing, read as theirs), a place's own move ("The bakery
moved to ..."), "it" moved (`anchored` reads that), nor a question."""


def helper(holder: str, theirs: str, said: str, held: str) -> str | None:
    """The name of the one who works for the speaker, when `held` (the speaker's fact) names
    them by their role ("Our cleaner, Bogdana, comes on Thursdays", "my trainer Kofi") and
    `said`, of them (`holder` a name, "she" / "he", or the speaker's word), names them again
    ("Bogdana can only do Mondays from now on"): the fact is about that person, the anchor both
    share. Else None."""
    who = holder.rpartition("|")[2]
    if theirs != "i" or not (who in ("?she", "?he", "i") or who.startswith("named ")):
        return None
    for m in re.finditer(r"(?-i:\b[A-Z][a-z]{2,})", said):
        name = m.group(0)
        if re.search(rf"\b(?:my|our)\s+(?:[a-z]+\s+)?[a-z]+,?\s+(?-i:{name})\b", held, re.I) and \
                who in ("?she", "?he", "i", f"named {name.lower()}"):
            return name.lower()
    return None


def clause_of(said: str, name: str) -> str:
    """The clause of `said` that names `name` ("She's taken on another family, so Bogdana can
    only do Mondays": "Bogdana can only do Mondays"), or `said`."""
    parts = re.split(r"[,;]|\b(?:so|and|but)\b", said)
    return next((p for p in parts if re.search(rf"\b{name}\b", p, re.I)), said)


_SERVICE_TIME = re.compile(
    r"\b(?:catch|catching|caught|get|getting|got|take|taking|took|on|is(?:\s+now)?)\s+the\s+"
    r"(\d{1,2}[:.]\d{2})"
    r"(?:\s*(?:am|pm))?(?=\s*(?:[,;.!]|$|(?:train|bus|service|sailing|tram|ferry|coach|instead|"
    r"now|these|from|into|to|every|each|most|in|out|home|back)\b))", re.I)
"""A service taken by its time ("catch the 8:05", "on the 7:40 train", "the train I get back is
the 18:04"): no other noun after it ("the 8:05 showing" is a film's)."""


def service_by_time(said: str, held: list[str]) -> list[int]:
    """The held facts (their texts; "" for one of another holder) whose service taken by its
    time `said` gives another time of ("I catch the 8:05 instead" / "I'm on the 7:40 train
    every day"): each naming one such service, of a time other than the new one."""
    mine = {m[1].replace(".", ":") for m in _SERVICE_TIME.finditer(said)}
    if len(mine) != 1:
        return []
    out = []
    for i, text in enumerate(held):
        theirs = {m[1].replace(".", ":") for m in _SERVICE_TIME.finditer(text)}
        if len(theirs) == 1 and theirs != mine:
            out.append(i)
    return out


_ROLES = "teacher|tutor|coach|trainer|instructor|cleaner|physio"
_ROLE = re.compile(rf"\b({_ROLES})s?\b", re.I)
_TAUGHT = re.compile(r"\b(?:lessons?|class(?:es)?|year\s+\d+|school|training|practice|sessions?)\b",
                     re.I)
_TITLES = "Mr|Mrs|Ms|Miss|Dr|Coach"
_NOT_NAMES = (rf"(?:{_TITLES}|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|"
              r"Nov|Dec)\w*)\b")
_PERSON = re.compile(
    rf"(?-i:\b(?:{_TITLES})\.?\s+([A-Z][a-z]+))|\bcalled\s+(?-i:([A-Z][a-z]+))|"
    rf"\b(?:with|is|'s)\s+(?-i:(?!{_NOT_NAMES})([A-Z][a-z]+))\b|(?:{_ROLES}),\s+(?-i:([A-Z][a-z]+)),",
    re.I)
"""A person named: by title ("Miss Hughes"), as "called Rohan", after "with" / "is" ("with
Priya", "is Harriet"), or after their role ("Our cleaner, Bogdana,")."""
_WHOSE = re.compile(
    rf"(?:\b(?:my|our)\s+([a-z]+)|(?-i:\b([A-Z][a-z]+)))['\u2019]s\s+(?:[a-z]+\s+)?(?:{_ROLES})|"
    r"^\W*(?:my|our)\s+([a-z]+)\b|\b(him|her)\b", re.I)
_ROLE_GIVEN = re.compile(
    rf"\b(?:switch|swapp|chang)\w*\s+(?:[\w'\u2019]+\s+){{0,3}}?(?:{_ROLES})|"
    rf"\bnew\s+(?:\w+\s+)?(?:{_ROLES})|"
    rf"(?:{_ROLES})s?\s+(?:is|are|'s)\s+(?:now\s+)?(?-i:(?:(?:{_TITLES})\.?\s+)?[A-Z])", re.I)
"""A role said to have another holder: "switched teachers", "a new coach", "teacher is now Mr
Obi" (not a person met in it: "coffee with my old teacher Mr Patel")."""


def _whose(text: str) -> str:
    """Whose the role is: who owns it ("my son's tutor", "my sister's piano teacher"), a
    household member the sentence opens with ("My daughter is in ..."), "he" / "she" for "him"
    / "her", else the speaker ("i")."""
    for m in _WHOSE.finditer(text):
        if m[1] or m[2]:  # ("my sister's piano teacher", "Tom's coach": theirs)
            return (m[1] or m[2]).lower()
        if (m[3] or "").lower() in HOUSEHOLD:
            return m[3].lower()
        if m[4]:
            return {"him": "he", "her": "she"}[m[4].lower()]
    return "i"


def _people(text: str) -> set[str]:
    return {next(g for g in m.groups() if g) for m in _PERSON.finditer(text)}


_PLAIN = frozenset("my our his her their the a an new old usual regular".split())


def _kind_of_role(said: str, role: str) -> set[str]:
    """The words `said` tells the role's kind by: the word before it ("piano teacher") and the
    place after it ("teacher at the gym"), not a possessive or "new"."""
    out = set()
    for m in re.finditer(rf"(?:(?<!['\u2019])\b([a-z]{{3,}})\s+)?\b{role}s?\b"
                         r"(?:\s+(?:at|for|from)\s+(?:the\s+)?([a-z]+))?", said, re.I):
        out |= {w.lower() for w in m.groups() if w and w.lower() not in _PLAIN and
                not w.lower().endswith("ed")}  # ("changed teachers": no kind)
    return out


def role_changed(said: str, held: list[str]) -> list[tuple[int, str]]:
    """The held facts (texts; "" for none to read) whose person in a role `said` names another
    person for ("My daughter's teacher is now Mr Obi" / "My daughter is in Year 3 with Miss
    Hughes"; "I've switched teachers, I'm learning with ... Rohan now" / "My piano lessons are
    with Mrs Adeyemi"), of the same household member ("him" / "her" one of that gender), with
    the role word or a lesson, class or school beside a titled name, and every word of the
    role's kind `said` gives ("piano teacher", "teacher at the gym"); with the role each names."""
    role = _ROLE.search(said)
    mine = _people(said)
    if role is None or len(mine) != 1 or not _ROLE_GIVEN.search(said):
        return []
    whose = _whose(said)
    kind = _kind_of_role(said, role[1])
    out = []
    for i, text in enumerate(held):
        theirs = _people(text)
        rel = _whose(text)
        if len(theirs) != 1 or theirs == mine or kind - {w.lower() for w in re.findall(
                r"[A-Za-z]+", text)} or not (
                rel == whose or (whose in ("he", "she") and rel in HOUSEHOLD and
                                 pronoun(rel) == whose)):
            continue
        if re.search(rf"\b{role[1]}", text, re.I) or (_TAUGHT.search(text) and _PERSON.search(
                text) and re.search(r"(?-i:\b(?:Mr|Mrs|Ms|Miss|Dr|Coach)\b)", text)):
            out.append((i, role[1].lower()))
    return out


HOUSEHOLD = frozenset("""son daughter kid kids child children baby boy boys girl girls twins
    stepson stepdaughter wife husband partner""".split())
"""The relations whose routine a doer moves is told of as the household's ("The coach moved
training ..." of "my son's football practice"); not a friend's, a boss's or a neighbour's."""


def moved_by_other(said: str) -> str | None:
    """What an outside doer (a club, coach, pool, school) moved, as `said` tells it after the
    verb ("The club moved netball training to Tuesdays": "netball training to Tuesdays"), so
    the doer is no word of the thing; None when asked, or said of the speaker's
    own thing ("I moved ...", "my coach's ...")."""
    m = _BY_OTHER.match(said)
    return None if m is None or "?" in said else said[m.start("thing"):].strip()
