"""A routine **said with a new pattern** (`measures.by_type` asks; `numbered.settle` asks
`once_of` for every replace): "I'm in the office every day now", "fortnightly now", "the last
Friday of the month from now on", "Moved my Pilates to Thursdays" replaces the held pattern of
the same routine: the same activity, appointment or person seen ("physio", "Pilates", "my
therapist", "book club", by a word both say), or the office / working from home.

The pattern is what the sentence gives of when: weekdays ("Thursdays"), parts of the day
("mornings"), how often ("every day", "three days a week", "fortnightly", "the last Friday of
the month"); the new one must differ from the held one and be said as the routine now ("now",
"from now on", "moved to", "can only do"). Refused: a one-off ("just this week", "tomorrow
instead"), a maybe or a plan ("might move me to Thursdays", "talk of ... from January"),
another person's ("my mum's physio", "my sister's in the office"), another routine (no word
shared), an addition; two held routines that fit: `related` (both kept). Pure: reads the
claims' texts only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import slots
from .claim import Claim
from .endings import _ADDITIVE, _ONE_OFF
from .holders import RELATIONS, pronoun

Verdict = tuple[str, int, tuple[str, ...]]
"""("supersedes" or "related", the index of the held fact, why)."""

_DAY = r"(mon|tues|wednes|thurs|fri|satur|sun)days?"
_COUNT = {w: n for n, w in enumerate("one two three four five six seven".split(), 1)}
_PATTERNS = tuple((name, re.compile(rx, re.I)) for name, rx in (
    ("daily", r"\bevery\s+(?:single\s+)?(?:day|weekday)\b|\bdaily\b|\bfull[-\s]?time\b|"
              r"\bmonday\s+to\s+friday\b|\b(?:five|5)\s+days\s+(?:a|per|each)\s+week\b"),
    ("fortnightly", r"\bfortnightly\b|\bbi-?weekly\b|\bevery\s+(?:other|second|two)\s+"
                    r"(?:week|(?:mon|tues|wednes|thurs|fri|satur|sun)day)s?\b"),
    ("monthly", r"\bmonthly\b|\b(?:once\s+a|every|each)\s+month\b"),
    ("weekly", r"\bweekly\b|\bonce\s+a\s+week\b"),
))
_DAYS_A_WEEK = re.compile(r"\b(one|two|three|four|six|seven|[1-7])\s+days?\s+(?:a|per|each)\s+"
                          r"week\b|\b(twice|three\s+times)\s+a\s+week\b", re.I)
_NTH = re.compile(rf"\b(first|second|third|fourth|last|1st|2nd|3rd|4th)\s+{_DAY}\s+of\s+"
                  r"(?:the|each|every)\s+month\b", re.I)
_WEEKDAY = re.compile(rf"\b{_DAY}\b", re.I)
_PART = re.compile(r"\b(morning|afternoon|evening|night|lunchtime)s?\b", re.I)
_RECURS = re.compile(r"\bevery\b|\beach\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days\b|"
                     r"\bweekly\b|\bfortnightly\b|"
                     r"\bmonthly\b|\bdaily\b|\ba\s+week\b|\bof\s+the\s+month\b|\bmornings\b|"
                     r"\bevenings\b|\bnights\b|\bafternoons\b|\bfull[-\s]?time\b", re.I)
"""A pattern said as recurring, not one day."""
_AS_NOW = re.compile(
    r"\bnow\b|\bfrom\s+(?:now|here)\s+on\b|\bthese\s+days\b|\bnowadays\b|\bgoing\s+forward\b|"
    r"\bfrom\s+(?:next|this)\s+(?:week|month|term)\b|\banymore\b|\bany\s+more\b|"
    r"\b(?:moved|switched|changed|swapped|shifted)\b|\bcan\s+only\b|\bonly\s+(?:do|does)\b|"
    r"\bpermanent\w*\b|\bscrapped\b", re.I)
_ONCE = re.compile(r"(?<!from\s)(?<!starting\s)\btomorrow\b|\btonight\b|\bjust\s+this\b|"
                   r"(?<!from\s)\bthis\s+(?:week|time|once)\b|"
                   r"(?<!from\s)\bnext\s+(?:week|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b(?!s)|"
                   r"\bfor\s+(?:a|one|this|the)\s+(?:week|day|month)\b|\buntil\b", re.I)
"""A one-off ("just this week", "tomorrow instead"), not a new routine."""
_MAYBE = re.compile(r"\btalk\s+of\b|\bhope\s+not\b|\bnot\s+sure\b|\bmight\b|\brumou?r|"
                    r"\bsupposed\s+to\b|\bfrom\s+(?:january|february|march|april|may|june|july|"
                    r"august|september|october|november|december|next\s+(?:month|year))\b", re.I)
_WORK = re.compile(r"\b(?:office|from\s+home|wfh|remote(?:ly)?|hybrid|in\s+the\s+office|"
                   r"work(?:ing)?\s+from)\b", re.I)
"""The office / working from home: one routine, whatever words say it."""
_PLAIN = frozenset("""the a an my our your his her their i i'm i've we we're we've me us it it's
    is are was were be been being am has have had do does did go goes going gone went get got
    now from on in at to for of and but so with every each other only just can can't now
    week weeks month months day days time times once twice fortnightly weekly monthly daily
    first second third fourth last next this that from here then these switched moved changed
    swapped shifted instead anymore more less back which fine honestly from going forward
    morning mornings afternoon afternoons evening evenings night nights standing appointment
    regular usual session sessions meet meets meeting see sees seeing come comes coming play
    plays playing work works working told said says still really new""".split())
_REL = "|".join(sorted(RELATIONS, key=len, reverse=True))
_OTHER = re.compile(rf"\b(?:my|our)\s+({_REL})(?:-in-law)?(?:['\u2019]s\b|\s+(?:is|has|goes|"
                    r"works|does|was|had|got)\b)|(?-i:\b([A-Z][a-z]+))['\u2019]s\s+been\b", re.I)
"""Another person's ("my mum's physio", "My brother's been told to go in")."""


_OPEN = re.compile(r"\b(?:open|opens|opening|closed|closes|closing|shut|shuts)\b", re.I)
"""A place's days ("The gym is open every day now"), not the holder's routine."""
_SPEAKER = re.compile(r"^\W*(?:i|i'm|i've|we|we're|we've)\b", re.I)


def _others(text: str, held: bool = False) -> set[str]:
    """The people `text` says a routine is of (`_OTHER`), or, `held`, every word of it."""
    if held:
        return {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    return {(m.group(1) or m.group(2)).lower() for m in _OTHER.finditer(text)}


def pattern(text: str) -> frozenset[str]:
    """When `text` says a routine is: its weekdays, parts of the day and how often."""
    out = {name for name, rx in _PATTERNS if rx.search(text)}
    out |= {f"{_COUNT.get(a.lower(), a) if a else b.lower()} a week"
            for a, b in _DAYS_A_WEEK.findall(text)}
    out |= {f"{n.lower()} {d.lower()}day monthly" for n, d in _NTH.findall(text)}
    if not any(t.endswith("monthly") and t != "monthly" for t in out):
        out |= {f"{d.lower()}day" for d in _WEEKDAY.findall(text)}
    out |= {p.lower() for p in _PART.findall(text)}
    return frozenset(out)


def _words(text: str) -> set[str]:
    """The words naming what the routine is ("physio", "pilates", "therapist", "book club")."""
    words = {w.lower().removesuffix("'s").removesuffix("\u2019s")
             for w in re.findall(r"[A-Za-z][A-Za-z'\u2019-]+", text)}
    return {w for w in words if len(w) > 3 and w not in _PLAIN and not _WEEKDAY.fullmatch(w)
            and pronoun(w) is None}


def _same(new: str, held: str) -> str | None:
    if _WORK.search(new) and _WORK.search(held):
        return "where one works"
    shared = {a for a in _words(new) for b in _words(held)
              if a == b or min(len(a), len(b)) >= 6 and a[:6] == b[:6] and (  # ("acupuncture" /
                  a.startswith(b) or b.startswith(a) or a[:9] == b[:9])}  # "acupuncturist")
    shared = {w for w in shared if _before(new, w) == _before(held, w) or
              _before(new, w) & _before(held, w)}  # (not "chess club" / "walking club", nor
    # "our cleaner" / "the window cleaner")
    return sorted(shared)[0] if shared else None


def _before(text: str, word: str) -> set[str]:
    """The content word said right before `word` ("chess" in "my chess club"), if any."""
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'\u2019-]*", text)]
    return {a for a, b in zip(words, words[1:], strict=False)
            if b.removesuffix("'s").removesuffix("\u2019s")[:6] == word[:6] and a not in _PLAIN and
            not a.endswith(("'s", "\u2019s"))}


_ON_DAY = re.compile(r"\bon\s+(mon|tues|wednes|thurs|fri|satur|sun)day\b(?!['\u2019]?s)", re.I)
"""One day of a routine held on that weekday ("on Monday" of "on Mondays")."""
_FROM_DAY = re.compile(r"\b(?:from|starting|as\s+of)\s+(?:today|tomorrow|this\s+week)\b", re.I)


def once_of(new: Claim, held: Claim) -> bool:
    """Whether `new` says a one-off of the held routine ("The cleaner's coming Friday instead
    this week") or a place's days ("The gym is open every day now"): no replace of it."""
    said = _FROM_DAY.sub("", new.context or new.said)  # (not "From today I'm in every day")
    if not (_RECURS.search(held.said) and pattern(held.said) and pattern(new.said)):
        return False
    if _OPEN.search(new.said) and not _OPEN.search(held.said):
        return True  # ("The gym is open every day now" / "I go to the gym on Mondays")
    day = _ON_DAY.search(said)
    if day is not None and f"{day.group(1).lower()}day" in pattern(held.said) and \
            not _RECURS.search(new.said) and not _AS_NOW.search(said):
        return True  # one session of it ("Cancelled yoga on Monday" / "... on Mondays")
    return bool((_ONCE.search(said) or _ONE_OFF.search(said)) and
                not re.search(r"\bfrom\s+(?:now|here)\s+on\b|\bgoing\s+forward\b", said, re.I))


def new_pattern(new: Claim, holder: str, claims: Sequence[Claim]) -> Verdict | None:
    """The held pattern of the routine `new` gives a new pattern of (see the module
    docstring); None when none fits or the statement is refused."""
    said = new.context or new.said
    mine = pattern(new.said) or (pattern(said) if len(new.said.split()) < 6 else frozenset())
    if not mine or "?" in new.said or new.additive or _ADDITIVE.search(said) or \
            slots.hypothetical(said) or _MAYBE.search(said) or _ONCE.search(said) or \
            _ONE_OFF.search(said) or not _AS_NOW.search(said) or _OPEN.search(new.said):
        return None
    if not (_RECURS.search(said) or re.search(r"\bfrom\s+(?:now|here)\s+on\b|\bgoing\s+"
                                              r"forward\b|\bcan\s+only\b", said, re.I)):
        return None  # (one day said: "Yoga's on Thursday", not "on Thursdays")
    own = new.said if _SPEAKER.match(new.said) else said  # (the speaker's clause: not "My
    # manager's hauled everyone back, so I'm in the office every day now")
    fits: list[tuple[int, str]] = []
    for i, c in enumerate(claims):
        if not c.said or c.ends or c.holder != holder or not _RECURS.search(c.said) or \
                _others(own) - _others(c.said, held=True):
            continue  # (another person's: "my mum's physio", not "my therapist has cut ...")
        theirs = pattern(c.said)
        if theirs and theirs != mine and not mine <= theirs and (thing := _same(said, c.said)):
            fits.append((i, thing))
    if not fits:
        return None
    if len(fits) > 1:
        return "related", fits[-1][0], ("a new pattern of a routine, but two held routines "
                                        "fit: both kept",)
    i, thing = fits[0]
    return "supersedes", i, (f"the same routine ({thing})", "a new pattern said as now",
                             "the only held routine that fits")
