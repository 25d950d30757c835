"""An event moved, named by a word of its kind: one reading of `step/anchored.py`'s "a dated or
timed thing moved", for when the statement shares no word with the held fact.

People name a booked or scheduled thing by another word of its kind when it moves: "Our flight
to Split takes off at 7:15" / "take-off has been pushed back to 9:50"; "My physio appointment is
on Tuesday" / "they've moved the session to Thursday"; "My knee operation is on 22 September" /
"the hospital has postponed the op to 6 October". Each `KINDS` group is one kind of event (a
journey, a match, a booking, a class, a meeting, ...); a word may stand in more than one.

The statement replaces a held fact when: the thing it moves (the subject of "has been pushed
back", "is now at", "now starts at"; the object of "moved the session to") is a word of a kind
the held fact names; every other word of that thing is the held fact's too ("the physio
session"; never "my other appointment", "the kids' dentist appointment", "my son's lesson",
"my colleague's train"); the held fact is the speaker's (or a thing's: "It sails at 17:30") and
gives a day, a time or a date the statement gives another of (or a place it is "moved to"
another one of); and it is the only held fact that fits (two: `related`, both kept).
`anchored.same_anchor` asks it last, after its own gates (a change cue, no maybe, no one-off,
nothing kept, nothing added).

`MARK`: a search mark (`step/marks.py`) so a move worded with none of the held fact's words
("They've moved it to Thursday") is shown the held dated events. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import anchored, slots
from .claim import Claim
from .lexicon import EVENT_KINDS


def plain(word: str) -> str:
    """`word` lower case, its possessive and plural "-s" off ("Luca's": "luca"; "sails":
    "sail"); never "-ing" or "-ed": "booking" is no "book", "meeting" no "meet"."""
    w = re.sub(r"['\u2019]s?$", "", word.lower())
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us")) else w


KINDS = EVENT_KINDS
"""Words for one kind of event, as `plain` reads them (`lexicon.EVENT_KINDS`)."""

_VERB = (r"(?:moved|pushed|bumped|shifted|rescheduled|re-?scheduled|rebooked|re-booked|brought|"
         r"changed|postponed|delayed|put)")
_SUBJECT = re.compile(
    r"(?:^|[,;:]\s*|\b(?:and|but|so)\s+)(?:the\s+|my\s+|our\s+)?((?:[\w'\u2019-]+\s+){0,2}?"
    r"[a-z][\w-]*?)(?:['\u2019]s)?\s+(?:(?:has|have|had|is|was|got|been|just|now|already)\s+)*"
    rf"(?:{_VERB}\b|(?<=now\s)(?:at|for|on|\d)|(?:starts|begins|leaves|departs|goes)\s+"
    r"(?:at|from|on)\b)", re.I)
"""The thing moved, as a subject: "Take-off has been pushed back", "the sailing is now at",
"the shift now starts at", "the slot's now 14:40"."""
_OBJECT = re.compile(
    rf"\b{_VERB}\s+(?:back\s+|forward\s+)?(?:(?:the|my|our)\s+((?:[\w'\u2019-]+\s+){{0,2}}?"
    r"[a-z][\w-]*)|([a-z][\w-]*))\s+(?:back\s+|forward\s+)?(?:to|till|until|for)\b", re.I)
"""The thing moved, as an object: "moved the session to", "shifted boarding to"."""
_GOES = re.compile(r"\b(?:it|that\s+one)(?:['\u2019]s|\s+is)?\s+now\s+(?:goes|leaves|departs|sails|"
                   r"runs|takes\s+off)\s+(?:at|from)\b", re.I)
"""A journey said by "it" leaving at another time ("it now goes at 8:55")."""
_TO_PLACE = re.compile(rf"\b{_VERB}\s+(?:\w+\s+)?to\s+(?:the\s+)?(?![\d£$])"
                       rf"(?!(?:{slots._WEEKDAY.pattern}|tomorrow|next|this|noon|midday|midnight)\b)",
                       re.I)
"""A thing moved to another place, not to a day or a time."""
_PAST = re.compile(r"\b(?:last\s+(?:week|month|year|time|season)|yesterday)\b", re.I)
"""A move said of an event gone by ("Last week's session was moved to 6pm")."""
_WEAK = ("i", "?it", "?they")
_DATED = ("weekday", "time", "date", "ordinal")


def kin(word: str) -> frozenset[str]:
    """The words of every kind `word` is of; empty when it names no event."""
    return frozenset().union(*(g for g in KINDS if plain(word) in g))


def thing_moved(said: str) -> tuple[str, ...] | None:
    """The words of the thing `said` moves (`plain`), its head last, or None when it moves no thing
    of a `KINDS` group; "it" that now leaves at another time is a journey ("it now goes at
    8:55")."""
    if _GOES.search(said):
        return ("departure",)  # (a word of the journey kind)
    for m in (*_SUBJECT.finditer(said), *_OBJECT.finditer(said)):
        phrase = next(g for g in m.groups() if g)
        words = tuple(plain(w) for w in phrase.split())
        if words and kin(words[-1]):
            return words
    return None


def moved(new: Claim, holder: str, claims: Sequence[Claim], said: str,
          skip: frozenset[str]) -> list[tuple[int, str, str]]:
    """The held facts the event `new` moves may be (see the module docstring), as
    `anchored.same_anchor` counts fits: (index, the type of value changed, the thing)."""
    words = thing_moved(new.said)
    prefix, _, who = holder.rpartition("|")
    if words is None or _PAST.search(said) or slots.hypothetical(said):
        return []
    head, rest = words[-1], set(words[:-1])
    venue = _TO_PLACE.search(new.said) is not None  # ("moved to the community hall on ...")
    # (a capital read as a name: the thing itself, "Boarding has been ..."; or a place the held
    # fact names, who told of it: "Luca's rang, ...")
    name = plain(who[6:]) if who.startswith("named ") else None
    out = []
    for i, c in enumerate(claims):
        their_prefix, _, them = c.holder.rpartition("|")
        words_held = {plain(w) for w in anchored._WORD.findall(c.said)}
        if not c.said or c.ends or their_prefix != prefix or them not in _WEAK or not (
                who in _WEAK or name in words_held or name == head):
            continue
        if not (kin(head) | {head}) & words_held or not rest <= words_held:
            continue  # (another kind of event, or another one of the kind: "my other ...")
        changed = anchored._changed(new.said, c.said, skip, dated=True)
        if changed is not None and (changed[0] in _DATED or changed[0] == "name" and venue and
                                    slots.placed(c.said, "name")):
            out.append((i, changed[0], head))
    return out


MARK = "\x00moved"
"""A search mark: a day, a time or a date moved; a held event of a kind given one."""
_MOVE = re.compile(rf"\b(?:{_VERB}\s+(?:\w+\s+){{0,4}}?(?:to|till|until|for)|now\s+(?:at|for|on|"
                   r"starts|goes|leaves))\b", re.I)


def marks(text: str, held: bool = False) -> frozenset[str]:
    """`MARK` when `text` moves a thing to a day, time or date (for `step/marks.py`); of a
    `held` text, when it gives one: what a statement moves may be any dated thing held."""
    text = text[:2000]
    if not (held or _MOVE.search(text)):
        return frozenset()
    found = slots.values(text)
    dated = found.keys() & {"weekday", "date", "ordinal"} or anchored._times(text)
    return frozenset({MARK}) if dated else frozenset()


__all__ = ["KINDS", "MARK", "kin", "marks", "moved", "plain", "thing_moved"]
