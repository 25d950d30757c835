"""A provider named in lower case ("giffgaff", "voxi"): a name, though not capitalised, when
said as what the holder switched over to. Read by `step/slots.py` (a value of type "name") and
`step/supersede.py` (a key of the claim)."""

from __future__ import annotations

import re

_SWITCHED_TO = re.compile(
    r"\b(?:switched|moved|ported|changed|gone|went|transferred|swapped)\s+(?:\w+\s+){0,3}?"
    r"(?:over|across)\s+to\s+(?-i:([a-z][a-z0-9]{2,}))"
    r"(?=\s*(?:[.,;!?]|$)|\s+(?:when|last|this|in|for|because|since|after|now|as|and|so|instead"
    r"|from|a|about|recently)\b)", re.I)
_NOT_BRANDS = frozenset("""earlies lates nights days them him her it us you me one ones paper
    cash card direct debit online decaf oat soya almond skimmed semi full part home work school
    the my our his their day days week weeks month months year years morning mornings evening
    evenings night weekend weekends time times today tomorrow tonight term season""".split())


def lower_brand(text: str) -> str | None:
    """A provider named in lower case as what the holder switched over to ("I ported my
    number over to giffgaff", "moved over to voxi"): a name, though not capitalised. Not a
    time, a shift, a person or a plain kind ("over to nights", "over to paper billing")."""
    m = _SWITCHED_TO.search(text)
    if m is None:
        return None
    word = m.group(1).lower()
    if word in _NOT_BRANDS or word.endswith(("ing", "ly", "ed")):
        return None
    return word
