"""A misstatement put right by naming the held value as wrong: "I'm 58, not 38", "I said
Rhiannon but it's Rhian", "Harcourt Road was wrong, it's Harcourt Avenue", "14th rather than
the 12th".

The value named as wrong (`wrong_value`: after "not" or "rather than", after "I said", before
"was wrong") is the strongest sign of which held fact a statement corrects: when exactly one held
fact of the same holder says it, and the statement gives another value of its type, that fact is
the one corrected (`named_wrong`, asked by `supersede.decide` when no other rule decided). The
statement must own a mistake ("sorry", "typo", "I meant", "got it wrong", `_OWNED`) or state
the same attribute the held fact does ("My manager is Geraint, not Gwilym"). Never when two held
facts say the value, when no held fact of that holder does ("we're going to Porto, not Lisbon"
with no Lisbon held; "my brother lives in Ripon, not Harrogate like me"), nor from a question, a
wish or preference ("I'd like a hybrid, not a Yaris again"), another one's belief ("people think
Dad's 60, not 70") or a one-off ("this year"). Pure: reads the claims only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..text import fact_terms
from .claim import Claim
from .cues import _CORRECTS

_VALUE = r"((?:[£$€]?[\w:.,'\u2019-]*\w)(?:\s+(?!(?:but|and|or|like|as|so|then|which|who|that|" \
    r"either|again)\b)[\w:'\u2019-]*\w){0,2})"
"""A value phrase of up to three words (a number, a name, "fourth floor"), stopped by a
conjunction ("not Brightwell but Brightmoor") or by punctuation."""
_ARTICLE = r"(?:(?:an?|the|my|on|in|at|for)\s+)?"
_NAMED_WRONG = (
    re.compile(rf"\bnot\s+{_ARTICLE}{_VALUE}", re.I),
    re.compile(rf"\brather\s+than\s+{_ARTICLE}{_VALUE}", re.I),
    # "I wrongly said Keswick", "I said Rhiannon but ...", "why I said spaniel" (not "like I
    # said I do enjoy ...": the same again)
    re.compile(rf"(?:\bi\s+(?:wrongly|mistakenly|accidentally)\s+|\bwhy\s+i\s+)(?:said|put|wrote"
               rf"|typed)\s+{_ARTICLE}{_VALUE}", re.I),
    re.compile(rf"(?<!like\s)(?<!as\s)\bi\s+(?:said|put|wrote|typed)\s+{_ARTICLE}{_VALUE}"
               r"(?=\s*,?\s+but\b)", re.I),
    re.compile(r"(?:^|[,;:.!-]\s*)((?:[£$€]?[\w:'\u2019-]+\s+){0,2}[\w:'\u2019-]+)\s+"
               r"(?:was|is)\s+wrong\b", re.I),
)
_OWNED = re.compile(
    r"\b(?:sorry|oops|whoops|typo|mis(?:typed|spoke|count\w*|read|remembered|heard|spelt|spelled)"
    r"|fat\s+fingers?|correction|correct(?:ing)?\s+(?:myself|that)|my\s+(?:mistake|bad)|mistake"
    r"|mistaken|wrong(?:ly)?|i\s+meant|meant\s+to\s+say|actually|scratch\s+that|make\s+that"
    r"|(?<!like\s)(?<!as\s)i\s+said\s+[^,.;!?]{1,40}?,?\s+but|muddled|mixed\s+(?:\w+\s+)?up|mix\s+(?:\w+\s+)?up|confused|thinking\s+of)\b",
    re.I)
"""Words by which a speaker owns a mistake: what makes "X, not Y" a correction, not a contrast."""
_NOT_SO = re.compile(
    r"\?|\b(?:want|wants|wanted|would\s+like|'d\s+like|prefer|rather\s+have|fancy|hope|wish"
    r"|think|thinks|reckon|reckons|assume|guess|might|maybe|if|this\s+(?:year|time|week|once)"
    r"|today|tonight|instead\s+of|again)\b", re.I)
"""A question, a wish or preference, another's belief, a maybe or a one-off: never a
misstatement put right."""
_ONCE = re.compile(r"\b(?:this\s+(?:year|time|week|once|summer|winter|spring|autumn)|today"
                   r"|tonight|for\s+once)\b", re.I)
"""A one-off said against the usual: "this year we're going to Devon, not Cornwall"."""
_SAID_ONLY = re.compile(rf"\W*i\s+(?:(?:wrongly|mistakenly|accidentally)\s+)?(?:said|put|wrote"
                        rf"|typed)\s+{_ARTICLE}{_VALUE}[\s.!]*$", re.I)
_MISTAKE_ONLY = re.compile(r"\W*i\s+(?:\w+\s+){0,3}?(?:mis(?:typed|spoke|counted|read|remembered"
                           r"|heard|spelt|spelled)|got\s+(?:it|that|them|those|\w+)\s+(?:wrong|muddled"
                           r"|mixed\s+up|confused)|(?:read|heard|typed|wrote)\s+(?:\w+\s+){0,2}wrong"
                           r"|was\s+thinking\s+of\s+\w+\s+else)\b[^,;:]*$", re.I)
_NO_VALUE = frozenset("""i we you he she they sure yet really quite even only just always ever that
    this these those much many too so very that's it it's at all any anymore anything sorry bad
    great good well like as to be been being there here now then again if when because what how
    why today tonight""".split())
"""First words after "not" that name no value: "not sure yet", "not that bad"."""
_ORDINAL = frozenset({"st", "nd", "rd", "th"})
_FILLER = frozenset({"one", "ones"})


def wrong_value(text: str) -> frozenset[str] | None:
    """The terms of the value `text` names as wrong ("not 38", "rather than the 12th", "I said
    Rhiannon", "Harcourt Road was wrong"), or None when it names none. ("the red one": "red")"""
    phrase = _named(text)
    return None if phrase is None else fact_terms(phrase) - _ORDINAL - _FILLER


def _named(text: str) -> str | None:
    """The phrase `text` names as wrong, as said (see `wrong_value`)."""
    for pattern in _NAMED_WRONG:
        for m in pattern.finditer(text):
            first = m.group(1).split()[0].lower()
            if first in _NO_VALUE or first.endswith("ing") and not first[0].isdigit():
                continue  # "not sure yet", "not moving": a negation, no value named
            if fact_terms(m.group(1)) - _ORDINAL - _FILLER:
                return m.group(1)
    return None


def corrects(text: str) -> bool:
    """Whether `text` says outright that something changed or was wrong (`cues._CORRECTS`), or
    owns a mistake in a number or name it names as wrong ("Typo: I'm 58, not 38", "sorry,
    Kendal, not Keswick"): `Claim.corrects`."""
    if _CORRECTS.search(text):
        return True
    phrase = _named(text) if _OWNED.search(text) else None  # (a number or a name: "sorry, I'm
    return phrase is not None and re.search(r"\d|(?-i:[A-Z])", phrase) is not None  # not a fan")


def once_instead(new: Claim, claims: Sequence[Claim]) -> bool:
    """Whether `new` sets a one-off against a held value it names ("We holiday in Cornwall every
    summer" / "This year we're going to Devon, not Cornwall"): no replace, both kept."""
    said = new.context or new.said
    wrong = wrong_value(said) if _ONCE.search(said) else None
    return wrong is not None and any(wrong <= c.terms for c in claims)


def named_wrong(new: Claim, holder: str, claims: Sequence[Claim]
                ) -> tuple[str, int, tuple[str, ...]] | None:
    """("supersedes", index, reasons) for the one held fact `new` corrects by naming its value
    as wrong (see the module docstring); None when there is none for certain."""
    said = new.context or new.said
    wrong = wrong_value(said)
    if wrong is None or _NOT_SO.search(said) or new.additive:
        return None
    who = holder.rpartition("|")[2]
    unsure = who.startswith("?") or who.startswith("named ")
    fits = [i for i, c in enumerate(claims) if wrong <= c.terms and not _said_wrong(c, wrong) and
            "?" not in c.holder and ("named " not in c.holder.rpartition("|")[2] or
                                     c.holder == holder) and  # ("yoga's on ...": the same)
            (_may_be(who, c, new.said) if unsure else
             c.holder == holder or _identity(new, holder, c))]
    if len(fits) != 1:
        return None  # none held (a contrast, another one's value) or two: not this one for certain
    i = fits[0]
    c = claims[i]
    if who.startswith("?") and _it_named(said, c) or any(
            not fact_terms(m.group(1)) <= c.terms for m in _FOR_THING.finditer(said)):
        return None  # "it's Tuesday, not Monday, the party", "I meant Tuesday for the dentist"
    fresh = new.terms - c.terms - wrong - fact_terms(" ".join(_OWNED.findall(said)))
    if not fresh or (_numeric(wrong) and not _numeric(fresh)):
        return None  # no other value given, or a word where a number was
    same = new.attribute is not None and new.attribute == c.attribute or _identity(new, holder, c)
    if not same and not new.corrects and not _OWNED.search(said):
        return None  # "I'm a pharmacist, not a vet": a contrast unless a mistake is owned
    return ("supersedes", i, (f"names {' '.join(sorted(wrong))} as wrong, which only this held "
                              f"fact of {c.holder} says", "a new value given"))


def whole(text: str, said: Claim) -> str:
    """The record `text` of a clause that corrects a held fact, or its whole sentence when the
    clause says "it" and only the sentence says what was wrong ("It's actually the fifth." of
    "I said fourth floor but it's actually the fifth."): the record keeps what it is about."""
    wrong = wrong_value(said.context) if said.context else None
    if wrong is None or not said.holder.rpartition("|")[2].startswith("?") or \
            wrong <= fact_terms(text) or len(said.context) > 200:
        return text
    return said.context


def owned_only(clause: str, sentence: str) -> bool:
    """Whether `clause`, cut from `sentence` which names a value as wrong, only owns the mistake
    ("I said Rhiannon", "I misread the timetable", "I got them muddled"): no fact to file."""
    return clause.strip() != sentence.strip() and wrong_value(sentence) is not None and (
        _SAID_ONLY.match(clause) is not None or _MISTAKE_ONLY.match(clause) is not None)


def _said_wrong(c: Claim, wrong: frozenset[str]) -> bool:
    """Whether the held `c` itself names `wrong` as wrong: a correction filed already."""
    theirs = wrong_value(c.context or c.said)
    return theirs is not None and bool(theirs & wrong)


_THING_SAID = re.compile(r"(?:the|my|our|his|her|their|that|this)\s+([a-z][a-z ]*)", re.I)
_FOR_THING = re.compile(r"\b(?:for|about|of|with|to)\s+(?:the|my|our|his|her|their)\s+"
                        r"([a-z]+(?:\s+[a-z]+)?)\b", re.I)
"""A thing the statement is about, named after a preposition ("Tuesday for the dentist"): when
the held fact does not say it, the value named wrong is another thing's."""
_SEGMENT = re.compile(r"\s[-\u2013\u2014]\s|[,;:]\s*")


def _it_named(said: str, c: Claim) -> bool:
    """Whether `said` names what its "it" is, as a phrase of its own the held `c` does not say
    ("Sorry, it's Tuesday, not Monday, the party")."""
    for part in _SEGMENT.split(said.strip().rstrip(".!")):
        m = _THING_SAID.fullmatch(part.strip())
        if m is not None and not fact_terms(m.group(1)) <= c.terms:
            return True
    return False


def _numeric(terms: frozenset[str]) -> bool:
    return any(ch.isdigit() for t in terms for ch in t)


def _identity(new: Claim, holder: str, c: Claim) -> bool:
    """Whether one side names as the holder what the other names as the attribute ("My
    sister's called Rhiannon" / "my sister is Rhian": who that relation is; "My dentist
    appointment is on 12 March" / "the dentist is the 14th"): one fact, read two ways."""
    mine, theirs = holder.rpartition("|")[2], c.holder.rpartition("|")[2]
    return mine == "i" and new.attribute in (f"who is my {theirs}", f"the {theirs}") or \
        theirs == "i" and c.attribute in (f"who is my {mine}", f"the {mine}")


def _may_be(who: str, c: Claim, said: str) -> bool:
    """Whether the unresolved holder `who` may be the held fact `c`'s: "it" any one's; a name
    only when it is a word of the held fact ("Mill Road was wrong" reads Mill as a name) or the
    value given ("Octavia, not Fabia")."""
    name = who[6:]
    return who.startswith("?") or name in c.terms or c.holder.endswith(" " + name) or \
        name.isalpha() and re.match(rf"\W*{name}\W+(?:not|rather\s+than)\b", said, re.I) \
        is not None  # (one word: "Sam's sister, not Sam, is coming" names another person)
