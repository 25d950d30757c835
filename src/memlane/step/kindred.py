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

Pure: reads words only.
"""

from __future__ import annotations

import re

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
    searched for beside its own (`step/related.py`): the held fact may say the thing by one."""
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", clause)}
    return [w for group in _GROUPS if said & set(group) for w in group if w not in said]


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
    r"re-scheduled|put)(?P<thing>\s+(?:the\s+|his\s+|her\s+|their\s+|its\s+)?(?!(?:to|into|from|in|on|at|"
    r"back|over|up|down|out|away|off|it|that|them|us|me|him|her|my|our|house|office|shop)\b)[a-z].*)", re.I)
"""A sentence opening with an outside doer who moved a thing ("The coach moved training ...",
"The pool changed the class ...", "The leisure centre switched his swimming ..."); never one of
the speaker's ("my", "our": their own thing, read as theirs), a place's own move ("The bakery moved to ..."),
"it" moved (`anchored` reads that), nor a question."""


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
