"""What kind of thing a text names, read cheaply from the packaged word lists, so the memory
step is shown a held fact that shares no word with the statement changing it.

A correction is often worded with none of the held fact's words: "I use a TCL 40" / "My
phone's an Alcatel flip these days"; "My friend Aisha is a social worker" / "She's retrained
as a counsellor"; "I'm a sous chef at a hotel" / "I work as a food safety inspector now". No
search of the new statement finds the held one, so the rule (`supersede.decide`) never sees
it. A mark is a term both texts are given for `related.pick` and by which the namespace's
newest records are scanned (`related.held_marked`):

- a family (`categories.FAMILIES`): one of its members named ("TCL", "Alcatel": phone), as
  `families.members` reads a brand (the families a word of a member may name are found first,
  by an index of each member's first word, as `families._may_name` reads it);
- the speaker's residence (`places.marks`);
- an employer, a job (a title in a frame: "I'm a dental nurse", "works as ...") or a club, held
  or said now (`orgs.marks`: "a tester at Experian" / "I'm with Rightmove now"); one mark per
  kind, so a text naming a kind twice over does not outrank one sharing the statement's words;
- a value by its type (`measures.marks`): a street address, a dated event or a date moved, a
  range of the clock ("22 Fenwick Terrace" / "the new place on Elder Road", "Our wedding is on
  18 July" / "they've shifted us to 9 August").

Marks only widen which held facts the step is shown; they decide nothing. Pure; the index is
built from the packaged lists once, at import (no text a user wrote is kept).
"""

from __future__ import annotations

import re

from . import measures, orgs, places
from .categories import FAMILIES
from .families import _FIRST_WORDS, members

_WORD = re.compile(r"[^\W_]+")
_WHOLE: dict[str, frozenset[str]] = {}
_OPENS: dict[str, frozenset[str]] = {}


def _index() -> None:
    whole: dict[str, set[str]] = {}
    opens: dict[str, set[str]] = {}
    for f in FAMILIES:
        words = _FIRST_WORDS[f.name]
        if words is None:
            continue  # (a member that is a pattern: no word names the family alone)
        for w in words[0]:
            whole.setdefault(w, set()).add("\x00" + f.name)
        for w in words[1]:
            opens.setdefault(w, set()).add("\x00" + f.name)
    _WHOLE.update({k: frozenset(v) for k, v in whole.items()})
    _OPENS.update({k: frozenset(v) for k, v in opens.items()})


_index()
_FAMILY_MARKS = frozenset("\x00" + f.name for f in FAMILIES)
TEXT_CHARS = 2000
"""The most of a text read for its marks (a fact is said in far fewer)."""


def marks(text: str, only: frozenset[str] | None = None) -> frozenset[str]:
    """The marks of `text` (see the module docstring): families, a job, the residence; of
    `only` when given (a held text is read for the marks a new statement has, no others)."""
    text = text[:TEXT_CHARS]
    if only is not None and not only:
        return frozenset()
    words = _WORD.findall(text)
    out: set[str] = set()
    if only is None or places.MARK in only:
        out |= places.marks(text)
    if only is None or not only.isdisjoint(_FAMILY_MARKS):
        named: set[str] = set()
        for w in words:
            named |= _WHOLE.get(w, frozenset())
            for n in range(1, min(5, len(w)) + 1):
                named |= _OPENS.get(w[:n], frozenset())
        if only is not None:
            named &= only
        out |= {"\x00" + f.name for f in FAMILIES
                if "\x00" + f.name in named and members(text, f, text, brands=True)}
    if only is None or any(m.startswith(orgs.MARK) for m in only):
        out |= {m for m in orgs.marks(text) if only is None or m in only}
    if only is None or not only.isdisjoint(measures.MARKS):
        out |= measures.marks(text) & (measures.MARKS if only is None else only)
    return frozenset(out)


__all__ = ["TEXT_CHARS", "marks"]
