"""What kind of thing a text names, read cheaply from the packaged word lists, so the memory
step is shown a held fact that shares no word with the statement changing it.

A correction is often worded with none of the held fact's words: "I use a TCL 40" / "My
phone's an Alcatel flip these days"; "My friend Aisha is a social worker" / "She's retrained
as a counsellor"; "I'm a sous chef at a hotel" / "I work as a food safety inspector now". No
search of the new statement finds the held one, so the rule (`supersede.decide`) never sees
it. A mark is a term both texts are given for `related.pick` and by which the namespace's
newest records are scanned (`related.held_marked`):

- a family (`categories.FAMILIES`): one of its members named ("TCL", "Alcatel": phone), as
  `families.brand_families` reads it;
- the speaker's residence (`places.marks`);
- an employer, a job (a title in a frame: "I'm a dental nurse", "works as ...") or a club, held
  or said now (`orgs.marks`: "a tester at Experian" / "I'm with Rightmove now"); one mark per
  kind, so a text naming a kind twice over does not outrank one sharing the statement's words;
- a value by its type (`measures.marks`): a street address, a dated event or a date moved, a
  range of the clock ("22 Fenwick Terrace" / "the new place on Elder Road", "Our wedding is on
  18 July" / "they've shifted us to 9 August").

Marks only widen which held facts the step is shown; they decide nothing. Pure; no text a user
wrote is kept.
"""

from __future__ import annotations

from . import families, measures, occasions, orgs, places
from .categories import FAMILIES

_FAMILY = "\x00"
"""A family's mark is its name after this ("\x00phone")."""
_FAMILY_MARKS = frozenset(_FAMILY + f.name for f in FAMILIES)
TEXT_CHARS = 2000
"""The most of a text read for its marks (a fact is said in far fewer)."""


def marks(text: str, only: frozenset[str] | None = None) -> frozenset[str]:
    """The marks of `text` (see the module docstring): families, the residence, an employer, a
    job or a club, a value's type; of `only` when given (a held text is read for the marks a
    new statement has, no others). A range of the clock (`measures.HOURS_MARK`) and the "hours"
    family (full-time, part-time) share one mark: both are working hours."""
    text = text[:TEXT_CHARS]
    if only is not None and not only:
        return frozenset()
    out: set[str] = set()
    if only is None or places.MARK in only:
        out |= places.marks(text)
    if only is None or not only.isdisjoint(_FAMILY_MARKS):
        among = None if only is None else frozenset(m[1:] for m in only & _FAMILY_MARKS)
        out |= {_FAMILY + name for name in families.brand_families(text, among)}
    if only is None or any(m.startswith(orgs.MARK) for m in only):
        out |= {m for m in orgs.marks(text) if only is None or m in only}
    if only is None or not only.isdisjoint(measures.MARKS):
        out |= measures.marks(text) & (measures.MARKS if only is None else only)
    if only is None or occasions.MARK in only:
        out |= occasions.marks(text, held=only is not None)
    return frozenset(out)


__all__ = ["TEXT_CHARS", "marks"]
