"""One broad mechanism of the supersede rule (`step/supersede.py`): **a number by its topic
word**, not by its label.

A held fact gives a number of the speaker's ("I weigh 182 lbs", "my phone bill is £58", "my
pocket money is 20 a week"); a later statement gives another number by the word of its topic
alone, with no label: the instrument that reads it ("the scale said 176 this morning",
"weighed in at 12 stone"), the thing it is paid as ("the bill's gone up to 64 quid", "the
direct debit is £71 now"), or who moved it for the speaker ("they bumped me up to 100 a
week", "the doctor upped my dose to 20mg"). The new number replaces the one held number of
that topic when:
- the units agree: a weight for a weight (lbs / kg / stone, or none said), money for money
  (£, quid, pounds, dollars, or none), a dose for a dose (mg, puffs), and the same period
  when both give one ("a week" / "a month"), and the value is a plausible next value of the
  held one (a parcel's 3 kg is no reading of an 80 kg person);
- the number stands by its topic word (within a few words: "the scale said 176"; not "the
  scale at the post office said the parcel was 3 kg");
- the holder is the speaker (or "me" / "us" moved by someone: "Mum bumped me up to 25 a
  week"), and no other person is named ("my son weighed 40 kg") nor owns it ("the dog's dose");
- it is no maybe, question, addition, or another bill ("the water bill" / "my phone bill").

Two held facts of the topic: `related` to the newest (both kept), never a guess. Pure: reads
the claims' texts only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from . import slots
from .broad import _CHANGE, _OTHER
from .claim import Claim
from .endings import _ADDITIVE

Verdict = tuple[str, int, tuple[str, ...]]
"""("supersedes" or "related", the index of the held fact, why)."""

_MASS = r"lbs?|pounds?|kg|kgs|kilos?|kilograms?|stone"
_MONEY = r"quid|pounds?|dollars?|bucks|euros?|p"
_DOSE = r"mg|mcg|micrograms?|milligrams?|ml|puffs?|tablets?|pills?|units?"


@dataclass(frozen=True)
class Topic:
    """A number of the speaker's told by the word of its topic."""

    name: str
    said: str
    """The topic words before the number in the new statement (a regular-expression fragment)."""
    held: str
    """Words of a held fact stating a number of this topic."""
    units: str
    """The units a number of the topic is given in (money also by a currency sign)."""
    ratio: float
    """The largest factor between the held and the new value that is still a next value."""
    changed: bool = False
    """Whether the statement must be worded as a change ("gone up to", "now"): a bill read once
    ("the bill was 70 with the roaming") is no new rate; a scale's reading is."""
    hints: str = ""
    """Words a held fact of the topic is said with, searched for (`step/related.py`)."""


TOPICS: tuple[Topic, ...] = (
    Topic("weight", said=r"\bscales?\b|\bweigh(?:ed|s|ing)?(?:\s+(?:in|myself))?\b|\bweigh-in\b",
          held=r"\bweigh\w*|\bweight\b", units=_MASS, ratio=1.3,
          hints="weigh weight kg kilos lbs stone"),
    Topic("bill", said=r"\bbill\b|\bbill['\u2019]s\b|\bdirect\s+debit\b",
          held=r"\bbill\b|\bdirect\s+debit\b", units=_MONEY, ratio=2.0, changed=True,
          hints="bill debit"),
    Topic("dose", said=r"\bdos(?:e|es|age)\b", held=r"\d\s?(?:mg|mcg|ml)\b|\bdos(?:e|age)\b",
          units=_DOSE, ratio=4.0, changed=True, hints="mg dose"),
    Topic("rate", said=r"\b(?:bumped|put|moved|raised|upped|cut|dropped|knocked|pushed|"
                       r"brought)\s+(?:me|us)\s+(?:(?:up|down|back)\s+)?to\b",
          # (what is paid to the speaker: "bumped me up" is no rent or bill of theirs)
          held=r"\b(?:pocket\s+money|allowance|pay|paid|wages?|salary|earn\w*|stipend|"
               r"bursary|hours|get)\b",
          units=_MONEY, ratio=2.5, hints=""),
)
"""The topics whose numbers are told by a word of the topic."""

_NUMBER = re.compile(
    rf"(?P<cur>[£$€])?\s?(?P<n>\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?)(?P<k>k\b)?"
    rf"(?:\s*(?P<unit>{_MASS}|{_MONEY}|{_DOSE})\b)?(?![:/]\d)(?!\s*(?:%|am\b|pm\b))", re.I)
_PERIOD = re.compile(r"\b(?:a|an|per|each|every)\s+(day|week|fortnight|month|year|hour)\b", re.I)
_BILL_KIND = re.compile(r"\b([a-z]+)\s+bill\b", re.I)
_NOT_KIND = frozenset("the my our a this that last next monthly new whole".split())
_NEAR = 4
"""How many words may stand between the topic word and its number."""


def _numbers(text: str, units: str) -> list[tuple[float, str]]:
    """The numbers `text` gives in the topic's units, each as (value, unit class): "mass",
    "money", "" when no unit is said; a number in another unit ("3 miles") is left out."""
    unit_rx = re.compile(rf"^(?:{units})$", re.I)
    out = []
    for m in _NUMBER.finditer(text):
        after = text[m.end():m.end() + 12]
        if not m.group("unit") and not m.group("cur") and re.match(r"\s*[a-z]{3,}", after,
                                                                  re.I) and \
                not _PERIOD.match(after.strip()) and \
                not re.match(r"\s*(?:this|now|these|since|from|for|at|on|in|and|so|but)\b",
                             after, re.I):
            continue  # ("40 lengths", "3 miles": another unit)
        n = float(m.group("n").replace(",", "")) * (1000 if m.group("k") else 1)
        unit = m.group("unit") or ""
        if unit and not unit_rx.match(unit):
            continue
        u = unit.lower()
        kind = "pounds" if u in ("pound", "pounds") else "money" if m.group("cur") or \
            re.fullmatch(_MONEY, u) else "dose" if re.fullmatch(_DOSE, u) else \
            "mass" if u else ""
        out.append((n, kind))
    return out


def _agree(a: str, b: str) -> bool:
    """Whether two unit classes can be one unit ("pounds" is mass or money; none is any)."""
    return not a or not b or a == b or "pounds" in (a, b)


def _near(text: str, topic: Topic) -> bool:
    """Whether a number stands within a few words after the topic's word."""
    return re.search(rf"(?:{topic.said})\W+(?:[\w'\u2019]+\W+){{0,{_NEAR}}}?[£$€]?\d", text,
                     re.I) is not None or re.search(  # ("the scales this morning and it said 79")
        rf"(?:{topic.said})\W+(?:[\w'\u2019]+\W+){{0,8}}?(?:(?:said|says|read|reads|showed|shows)"
        r"\s+|[-\u2013:]\s*)[£$€]?\d", text, re.I) is not None  # (or "... this morning - 89.5!")


def by_topic(new: Claim, holder: str, claims: Sequence[Claim]) -> Verdict | None:
    """The one held number of a topic that `new` gives another value of by the topic's word
    (see the module docstring); `related` to the newest when two held facts fit; None when
    none fits or the statement is refused."""
    said = new.context or new.said
    if "?" in said or new.additive or _ADDITIVE.search(said) or slots.hypothetical(said):
        return None
    for topic in TOPICS:
        if not re.search(topic.said, said, re.I) or not _near(said, topic) or \
                (topic.changed and not _CHANGE.search(said)):
            continue
        moved_me = topic.name == "rate"  # ("Mum bumped me up to 25": the speaker's number)
        if not _speaker(holder, said, moved_me) or re.search(
                rf"\b\w+['\u2019]s\s+(?:\w+\s+)?(?:{topic.said})", said, re.I):
            continue  # (someone's own: "upped the dog's dose", "my wife's bill")
        mine = _numbers(said, topic.units)
        if len(mine) != 1:
            continue
        fits = [i for i, c in enumerate(claims) if _fits(mine[0], said, c, topic)]
        if not fits:
            continue
        i = fits[-1]
        if len(fits) > 1:
            return "related", i, (f"another {topic.name} given by its topic word, but "
                                  f"{len(fits)} held facts give one: both kept, the new one "
                                  "marked newer",)
        return "supersedes", i, (
            "same holder (the speaker)", f"the {topic.name} told by its topic word",
            "the units agree", "the only held number of this topic")
    return None


def _speaker(holder: str, said: str, moved_me: bool) -> bool:
    """Whether the number is the speaker's: the speaker or a weak holder said with no other
    person, or "me" / "us" moved by whoever the subject is."""
    who = holder.rpartition("|")[2]
    if moved_me:
        return not re.search(r"\b(?:my|our)\s+\w+['\u2019]s\b", said, re.I)
    return (who in ("i", "?they", "?it") or who.startswith("named ")) and \
        not _OTHER.search(said)


def _fits(number: tuple[float, str], said: str, c: Claim, topic: Topic) -> bool:
    """Whether held fact `c` is the speaker's one number of `topic` that `number` is a next
    value of."""
    if not c.said or c.ends or c.holder.rpartition("|")[2] != "i" or \
            not (c.attribute == topic.name or re.search(topic.held, c.said, re.I)) or \
            _OTHER.search(c.said):
        return False
    theirs = _numbers(c.said, topic.units)
    if len(theirs) != 1:
        return False
    (n, kind), (held_n, held_kind) = number, theirs[0]
    if not _agree(kind, held_kind) or n == held_n or held_n <= 0 or \
            not 1 / topic.ratio <= n / held_n <= topic.ratio:
        return False
    periods = ({p.lower() for p in _PERIOD.findall(said)},
               {p.lower() for p in _PERIOD.findall(c.said)})
    if periods[0] and periods[1] and periods[0] != periods[1]:
        return False  # ("£58 a month" / "£600 a year")
    if topic.name == "rate" and not (periods[0] and periods[1]):
        return False  # a rate is moved per the same period, said on both sides
    kinds = [{k.lower() for k in _BILL_KIND.findall(t)} - _NOT_KIND for t in (said, c.said)]
    return not (kinds[0] and kinds[1] and not kinds[0] & kinds[1])  # (water bill / phone bill)


def search_words(clause: str) -> list[str]:
    """The words a held number of each topic `clause` names is said with (`Topic.hints`),
    searched for beside its own (`step/related.py`)."""
    return [w for t in TOPICS if re.search(t.said, clause, re.I) for w in t.hints.split()]
