"""An age **reached**, said of a person the sentence names or of the one person "she" or "he"
can be, whoever the clause's own holder is (`numbered.settle` asks before any other verdict
stands: "We took Nell out for cake, she turned 42" is Nell's age, not the speaker's):

- celebrated: "a barbecue to celebrate him turning 12";
- "turned N": "Bluey turned twelve last week", "for Tomasz, he turned 41";
- "is N now": "Can't believe Bert is 90 now";
- a birthday ordinal, in figures or words: "Aoife's 7th birthday", "Kyle's 21st was a do",
  "Captain had his thirty-third birthday".

Whose: the name said with the age ("Aoife's 7th", "Bluey turned"), else the one held person
the sentence names before it, else, for "she" / "he", the one person held with an age whose
sex (a relation of one sex, else the first name) is the pronoun's; a held person of unread sex
could be meant, so none is. The held age must be one to five years younger; two held ages that
fit: `related` (both kept). Refused: a question, a maybe, a plan ("will be 40 next month"), an
anniversary, an ordinal of another thing ("her 9th swimming badge", "her 43rd parkrun"), a name
said as another relation than the held one ("my nephew Max" / "our dog Max"). Pure: reads the
claims' texts only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from . import slots
from .broad import _ORDINAL_WORDS, _held_age
from .claim import Claim
from .holders import RELATIONS, pronoun
from .lexicon import NUMBER_WORD, NUMBER_WORDS

Verdict = tuple[str, int, tuple[str, ...]]
"""("supersedes" or "related", the index of the held fact, why)."""

_N = rf"(?P<n{{}}>\d{{{{1,3}}}}|{NUMBER_WORD})"
_TENS_ORD = {"twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60,
             "seventieth": 70, "eightieth": 80, "ninetieth": 90}
_UNITS_ORD = {w: n for w, n in _ORDINAL_WORDS.items() if n < 10}
_ORDINALS = _ORDINAL_WORDS | _TENS_ORD | {
    f"{t}{sep}{u}": NUMBER_WORDS[t] + n for t in ("twenty", "thirty", "forty", "fifty", "sixty",
                                                  "seventy", "eighty", "ninety")
    for u, n in _UNITS_ORD.items() for sep in ("-", " ")}
_ORD = (r"(?P<ord>\d{1,3}(?:st|nd|rd|th)|" + "|".join(sorted(_ORDINALS, key=len, reverse=True))
        + ")")
_NAME = r"(?-i:[A-Z][a-z]+)"
_REACHED = re.compile(
    rf"\b(?:celebrat\w*|mark\w*|party\s+for|toast\w*|cake\s+for)\s+(?:(?P<t>him|her|them|{_NAME})"
    rf"(?:['\u2019]s)?\s+)?turning\s+{_N.format(1)}\b"
    rf"|(?:\b(?P<s>{_NAME}|he|she)\s+(?:has\s+|had\s+|just\s+|only\s+|finally\s+)*)?\bturned\s+"
    rf"{_N.format(2)}\b(?!\s*(?:minutes?|mins?|degrees?|%|pounds|quid|grand|k)\b)"
    rf"|\b(?P<c>{_NAME}|he|she)(?:\s+is|['\u2019]s)\s+"
    rf"(?:now\s+{_N.format(3)}\b|{_N.format(4)}\s+now\b)"
    rf"|\b(?:(?P<o>{_NAME})['\u2019]s|(?P<p>his|her))\s+{_ORD}(?=\s+birthday\b|\s+(?:party|"
    r"bash|do|was|is|on|last|yesterday)\b|\s*[.,!;]|\s*$)", re.I)
"""An age said as reached: who (a name or a pronoun, when said with it), then the number."""
_PARTY = re.compile(r"\s+(?:birthday|party|bash|do)\b", re.I)
"""What "his" / "her" with an ordinal must be said with to be a birthday."""
_NOT_REACHED = re.compile(
    r"\banniversar\w*|\b(?:will|['\u2019]ll|going\s+to)\s+be\b|\bnext\s+(?:week|month|year|"
    r"\w+day)\b|\btomorrow\b|\bsoon\b|\bin\s+(?:a|two|three|\d+)\s+(?:days?|weeks?|months?)\b",
    re.I)
"""An anniversary, or an age to come."""
_NOT_NAMES = frozenset("""i i'm we he she it they my our the a an so and but we'd just had
    bought got can't can it's that this there what when then monday tuesday wednesday thursday
    friday saturday sunday january february march april may june july august september october
    november december christmas easter""".split())
_KIN = re.compile(r"\b(?:my|our)\s+(?:\w+\s+)?(" + "|".join(
    sorted(map(re.escape, RELATIONS), key=len, reverse=True)) + r")(?:-in-law)?\b", re.I)
"""A relation the sentence names ("My niece had her 17th"): a person, held or not."""
_PET_WORDS = frozenset("""dog cat puppy kitten pet horse rabbit hamster parrot tortoise budgie
    ferret gecko snake lizard pony chinchilla cockatiel goldfish terrapin bunny kelpie""".split())


def _number(m: re.Match[str]) -> int:
    if o := m.group("ord"):
        w = o.lower()
        return _ORDINALS[w] if w in _ORDINALS else int(re.sub(r"\D", "", w))
    n = next(m.group(f"n{k}") for k in range(1, 5) if m.group(f"n{k}"))
    return int(n) if n.isdigit() else NUMBER_WORDS.get(" ".join(n.lower().split()), -1)


def _aged(claims: Sequence[Claim]) -> dict[str, list[int]]:
    """The held facts giving a person's age, by holder (the speaker's off)."""
    out: dict[str, list[int]] = {}
    for i, c in enumerate(claims):
        if c.said and not c.ends and c.holder.rpartition("|")[2] != "i" and \
                "?" not in c.holder and _held_age(c) is not None:
            out.setdefault(c.holder, []).append(i)
    return out


def _named(name: str, before: str, aged: dict[str, list[int]]) -> str | None:
    """The holder held with this name, unless the sentence says it of another relation ("my
    nephew Max" / "our dog Max")."""
    owners = [h for h in aged if h.rpartition("|")[2].split(" ")[-1] == name.lower()]
    said = re.search(r"\b([a-z-]+)\s*$", before)
    word = said.group(1).lower() if said else ""
    if word in RELATIONS or word in _PET_WORDS:
        owners = [h for h in owners if word in h.rpartition("|")[2].split(" ")]
    return owners[0] if len(owners) == 1 else None


def _whose(m: re.Match[str], said: str, at: int, aged: dict[str, list[int]],
           fits: Callable[[str], bool]) -> str | None:
    who = next((m.group(g) for g in "tsocp" if m.group(g)), None)
    if who and who.lower() not in ("him", "her", "them", "he", "she", "his"):
        return _named(who, said[:at + m.start()], aged)
    before = said[:at + m.start()]
    if any(k.group(0).lower().endswith("-in-law") or not any(
            k.group(1).lower() in h.rpartition("|")[2].split(" ") for h in aged)
           for k in _KIN.finditer(before)):
        return None  # (a relation held with no age: "My niece had her 17th" / "My daughter is 16")
    people = {w for w in re.findall(_NAME, before) if w.lower() not in _NOT_NAMES
              and (_named(w, "", aged) or pronoun(w))}  # (held, or a first name)
    sex = {"him": "he", "his": "he", "her": "she"}.get((who or "").lower(), (who or "").lower())
    if len(people) == 1:
        h = _named(people.pop(), "", aged)
        if h is None:
            return None  # (someone not held: "Mia's friend Ella had a party to celebrate ...")
        return h if sex not in ("he", "she") or pronoun(h.rpartition("|")[2]) in (sex, None) \
            else None
    if people or sex not in ("he", "she"):
        return None  # (two named, or no one: "Mia's friend Ella had a party to celebrate ...")
    sexes = {h: pronoun(h.rpartition("|")[2]) for h in aged if fits(h)}  # (a held age the
    # new one cannot follow is no one meant)
    fit = [h for h, s in sexes.items() if s == sex]
    return fit[0] if len(fit) == 1 and None not in sexes.values() else None


def reached(new: Claim, claims: Sequence[Claim]) -> Verdict | None:
    """The held age an age said as reached replaces (see the module docstring); None when
    none fits or the statement is refused."""
    said = new.context or new.said
    if "?" in new.said or slots.hypothetical(said) or _NOT_REACHED.search(said):
        return None
    m = _REACHED.search(new.said)  # (in the clause itself: not "Callum had his birthday, ...")
    if m is None or m.group("p") and not _PARTY.match(new.said, m.end()):
        return None  # ("She won her 5th.": a race, not a birthday)
    aged, n = _aged(claims), _number(m)

    def fit(holder: str) -> list[int]:
        return [i for i in aged[holder] if 1 <= n - (_held_age(claims[i]) or n) <= 5]
    at = said.lower().find(m.group(0).lower())  # (where the age is said in the sentence;
    # not found, a rewritten clause: every name of the sentence counts)
    holder = _whose(m, said, at - m.start() if at >= 0 else len(said) - m.start(), aged,
                    lambda h: bool(fit(h)))
    fits = fit(holder) if holder is not None else []
    if not fits:
        return None
    if len(fits) > 1:
        return "related", fits[-1], ("another age, but two held ages fit: both kept",)
    return "supersedes", fits[0], ("another age", f"held by the person meant ({holder})",
                                   "said as reached", "the only held age that fits")
