"""The days a new message names, pure: "on 16 June, 2023", "May 25, 2023", "in January 2022".

A question about a day ("What did Maria share on 16 June, 2023?") often shares no word with the
facts of that day ("Maria joined a gym"): no word search reaches them, but the stretch filed that
day holds them. `named_spans` finds the calendar spans a message names (a day, or a whole month),
and `Thread.context` shows the stretches that end within one (`Policy.dated_lines`): their lines
join the ones the line index matched, so their records are in reach and their turns may be opened.

Dates are read as the buffer shows them (UTC, `memlane.validate.date_text`). A date without a
year is the last one not after `now`. Weekdays and relative dates ("last Friday") are not read: a
message names them relative to a day it does not say.
"""

from __future__ import annotations

import calendar
import re
import time
from collections.abc import Callable, Sequence

from ..types import Episode

__all__ = ["DAY", "MAX_SPANS", "dated_stretches", "named_spans"]

DAY = 86400.0

MAX_SPANS = 3
"""At most this many spans are read from one message (a pasted calendar names dozens)."""

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
_MONTHS["sept"] = 9
_FULL = frozenset(m.lower() for m in calendar.month_name if m)
_MONTH = r"(?P<{}>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAYNUM = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{}>(?:19|20)\d\d)"

_PATTERNS = [
    # 2023-06-16
    re.compile(r"\b(?P<y>(?:19|20)\d\d)-(?P<m>[01]\d)-(?P<d>[0-3]\d)\b"),
    # 16 June, 2023 / 8th of December 2023 / 16 June
    re.compile(r"\b" + _DAYNUM.format("d") + r"\s+(?:of\s+)?" + _MONTH.format("mn")
               + r"(?:,?\s*" + _YEAR.format("y") + r")?\b", re.IGNORECASE),
    # May 25, 2023 / Aug 15th / December 1,2023
    re.compile(r"\b" + _MONTH.format("mn") + r"\s+" + _DAYNUM.format("d")
               + r"(?:\s*,\s*|\s+)?" + r"(?:" + _YEAR.format("y") + r")?\b", re.IGNORECASE),
    # January 2022 / in May / during August
    re.compile(r"\b" + _MONTH.format("mn") + r",?\s+" + _YEAR.format("y") + r"\b",
               re.IGNORECASE),
    re.compile(r"\b(?:in|during|of|since|early|late|mid)\s+" + _MONTH.format("mn") + r"\b",
               re.IGNORECASE),
]


_AMBIGUOUS = frozenset({"may", "march"})
"""Month names that are also common words: read as months only when capitalized."""


def _month_word(word: str) -> bool:
    """Whether `word` (a month name or abbreviation as matched) is written as a month: a full
    name in any case but "may" and "march", which must be capitalized, as abbreviations must
    ("dec", "sat" are words too)."""
    if word[:1].isupper():
        return True
    w = word.lower().rstrip(".")
    return w in _FULL and w not in _AMBIGUOUS


_ANY = re.compile(r"\b(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True))
                  + r")\b|\d-[01]\d-", re.IGNORECASE)
"""What every pattern needs (a month's name or an ISO date): one scan says most messages name
no date, so the patterns are not tried on them (every new message is read, 5 scans cost about
35 microseconds on a short one)."""


def _month_of(name: str) -> int:
    return _MONTHS[name.lower().rstrip(".")]


def _utc(y: int, m: int, d: int) -> float:
    return float(calendar.timegm((y, m, d, 0, 0, 0)))


def _span(y: int | None, m: int, d: int | None, now: float) -> tuple[float, float] | None:
    """[start, end) of the day (or the month when `d` is None), UTC; a date without a year is
    the last one that starts before `now`. None when no calendar has it (31 February)."""
    if not 1 <= m <= 12:
        return None
    if y is None:
        this = time.gmtime(now).tm_year
        for year in (this, this - 1):
            got = _span(year, m, d, now)
            if got is not None and got[0] <= now:
                return got
        return None
    last = calendar.monthrange(y, m)[1]
    if d is None:
        end = _utc(y + 1, 1, 1) if m == 12 else _utc(y, m + 1, 1)
        return _utc(y, m, 1), end
    if not 1 <= d <= last:
        return None
    start = _utc(y, m, d)
    return start, start + DAY


def named_spans(text: str, now: float) -> list[tuple[float, float]]:
    """The calendar spans `text` names, as [start, end) epoch seconds (UTC), in the order they
    first occur, each once, at most `MAX_SPANS`: a day for a full date, a month for a month
    with a year or after "in", "during", "of", "since", "early", "late" or "mid". A date
    without a year takes the year of the first date in `text` that has one ("between August 11
    and August 15 2023"), else `now` places it."""
    if not _ANY.search(text):
        return []
    found: list[tuple[int, int | None, int, int | None]] = []
    taken: list[tuple[int, int]] = []
    for pat in _PATTERNS:
        for m in pat.finditer(text):
            a, b = m.span()
            if any(a < b2 and a2 < b for a2, b2 in taken):
                continue  # a longer pattern read these words already
            g = m.groupdict()
            if g.get("mn") and not _month_word(g["mn"]):
                continue
            taken.append((a, b))
            found.append((a, int(g["y"]) if g.get("y") else None,
                          int(g["m"]) if g.get("m") else _month_of(g["mn"]),
                          int(g["d"]) if g.get("d") else None))
    found.sort(key=lambda x: x[0])
    given = next((y for _, y, _, _ in found if y is not None), None)
    out: list[tuple[float, float]] = []
    for _, year, month, day in found:
        span = _span(given if year is None else year, month, day, now)
        if span is not None and span not in out:
            out.append(span)
            if len(out) == MAX_SPANS:
                break
    return out


def dated_stretches(episodes: Sequence[Episode], spans: Sequence[tuple[float, float]],
                    want: frozenset[str], terms_of: Callable[[str], frozenset[str]], k: int,
                    first: Episode | None = None) -> list[Episode]:
    """Of `episodes` (and `first`, the thread's first stretch, which the line index leaves
    out), the ones that end within one of `spans` (`named_spans`), at most `k`: the ones whose
    lines share the most of the terms `want` first, then the newest. A stretch is dated by its
    end (`Episode.date`), the day the buffer shows for it."""
    if not spans or k <= 0:
        return []
    every = [*episodes, first] if first is not None else episodes
    inside = {ep.end: ep for ep in every if any(a <= ep.date < b for a, b in spans)}
    best = sorted(inside.values(), key=lambda ep: (-len(terms_of(ep.line) & want), -ep.end))
    return best[:k]
