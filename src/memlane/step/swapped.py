"""A held thing replaced when no lexicon names the new one, or the old one is named by its kind:

- the old one named as ended and a new one of a name no family knows got in the same sentence
  ("The Zafira failed its MOT, so I've ended up with a secondhand Lada Niva": the held car's
  name, an ending said of it, then a capitalised name got, in a later clause), the new one's
  kind read from the held thing's;
- a thing of a kind swapped by its holder for another ("Owain's swapped his car for a camper
  van", "I've traded my bike in for an e-scooter"): the holder's one held thing of that kind.

Only the holder's own thing (the subject of the swap is the held fact's holder; the ended name
is in one held fact only, of the new statement's holder), never a maybe, a question, a one-off,
a stand-in, an addition, a while ("for the summer", "until the insurance pays out") or a thing
of another kind the name makes ("a Bosch battery"). Read by `step/ended.py` (`ended_value`), as
the last way a held value is named as ended.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import families, slots
from .categories import FAMILIES
from .claim import Claim
from .endings import _ADDITIVE, _ONE_OFF, STOLEN, THING_GONE, not_done, not_now

Verdict = tuple[str, int, tuple[str, ...]]

_KINDS = {"car": "car", "van": "car", "motor": "car", "phone": "phone", "mobile": "phone",
          "laptop": "laptop", "bike": "", "motorbike": "", "scooter": "", "boiler": "",
          "sofa": "", "telly": "", "tv": "", "fridge": "", "washing machine": ""}
"""A thing's kind as a swap names it, and the family (`step/categories.py`) a held one of the
kind is of ("" for none: the held fact names the kind itself)."""
_SWAP = re.compile(
    r"\b(?:swapped|traded|exchanged|part[-\s]?ex(?:changed|ed|'d)?)\s+(?:in\s+)?"
    r"(?P<whose>his|her|their|my|our|the)\s+(?:(?:old|trusty|beloved)\s+)?"
    rf"(?P<kind>{'|'.join(sorted(_KINDS, key=len, reverse=True))})\s+(?:in\s+)?for\s+"
    r"(?:an?|the)\s+(?P<new>[\w' -]+)", re.I)
_FAILED = r"failed\s+(?:its|the|her|his|their)\s+(?:mot|nct|wof|rego|inspection|smog\s+check)"
_ENDED = re.compile(rf"\W*(?:['\u2019]s\s+)?(?:\w+\s+){{0,2}}?(?:(?:has|had|have|just|finally|"
                    rf"completely|totally|well\s+and\s+truly)\s+)*(?:{THING_GONE}|{_FAILED}|"
                    rf"(?:got|was|been)\s+(?:{STOLEN}|stolen|totall?ed))\b", re.I)
"""An ending said just after a held thing's name ("The Zafira failed its MOT", "the Astra's
gearbox packed up", "the Berlingo finally died")."""
_GOT_NAMED = re.compile(
    r"\b(?:ended\s+up\s+(?:with|buying|getting)|bought|got|picked\s+up|"
    r"(?:i'm|i\s+am|we're|we\s+are)\s+(?:in|driving)|now\s+driving)\s+(?:myself\s+)?an?\s+"
    r"(?:(?:new|used|second-?hand|secondhand|cheap|little|old|shiny|\d{4})\s+)*"
    r"(?P<name>(?-i:[A-Z][\w-]*)(?:\s+(?-i:[A-Z0-9][\w-]*))*)", re.I)
"""A named thing got ("ended up with a secondhand Lada Niva"), its name capitalised."""
_WHILE = re.compile(r"\b(?:for\s+(?:the|a|an|this|that)\s+(?:summer|winter|week|weekend|month|"
                    r"while|bit|holiday|trip|day)|until|till|for\s+now|temporarily|borrow\w*|"
                    r"hire|courtesy|loan)\b", re.I)


def after_end(new: Claim, claims: Sequence[Claim]) -> Verdict | None:
    """The one held thing of `new`'s holder that its sentence says was swapped for another, or
    ended and a new one got under a name no family knows (see the module docstring)."""
    said = new.context or new.said
    if (_SWAP.search(new.said) or _GOT_NAMED.search(new.said)) is None:
        return None  # (neither a swap nor a named thing got: the common case, read first)
    if "?" in said or slots.hypothetical(said) or _ONE_OFF.search(said) or \
            _WHILE.search(said) or _ADDITIVE.search(new.said) or not_done(said) or \
            not_now(said) or families._REFUSE.search(said):
        return None
    fits = [i for i, c in enumerate(claims) if c.said and not c.ends and
            c.said.rstrip(".!").lower() not in said.lower() and _same_holder(new.holder, c.holder)
            and (_swapped(new.said, c) or _ended_and_got(new.said, said, c))]
    if len(fits) != 1:
        return None
    return "supersedes", fits[0], (f"the held thing of {claims[fits[0]].holder} said ended or "
                                   "swapped", "another of its kind got in its place")


def _same_holder(who: str, theirs: str) -> bool:
    """The same holder: the speaker, the same relation, or a name the held holder ends with
    ("named owain" / "mate owain"); never a pronoun's guess."""
    prefix, _, me = who.rpartition("|")
    their_prefix, _, them = theirs.rpartition("|")
    if prefix != their_prefix or "?" in me:
        return False
    if me.startswith("named "):
        return them.split()[-1:] == me[6:].split()[-1:]
    return me == them


def _swapped(clause: str, c: Claim) -> bool:
    """Whether `clause` swaps its holder's thing of a kind `c` holds for another ("Owain's
    swapped his car for a camper van" / "My mate Owain drives a Honda Jazz")."""
    m = _SWAP.search(clause)
    if m is None:
        return False
    kind = m.group("kind").lower()
    fam = next((f for f in FAMILIES if f.name == _KINDS[kind]), None)
    held = bool(families.members(c.said, fam, c.said, switched=True, brands=True)) if fam \
        else re.search(rf"\b{kind}\b", c.said, re.I) is not None
    got = m.group("new")
    return held and c.attribute in (None, _KINDS[kind] or None, kind) and \
        not re.search(rf"\b{re.escape(got.split()[0])}\b", c.said, re.I) and \
        (got[:1].isupper() or _THING.match(got) is not None or  # ("a book on the commute": no
         fam is not None and bool(families.members(got, fam, got, switched=True, brands=True)))


_THING = re.compile(r"(?:(?:new|used|second-?hand|secondhand|electric|little|big|old)\s+)*"
                    r"(?:camper\s*van|campervan|motorhome|van|pick-?up|truck|estate|hatchback|suv|"
                    r"car|motorbike|e-?bike|e-?scooter|scooter|bike|flip\s+phone|smartphone|"
                    r"laptop|tablet|chromebook|sofa|telly|tv|fridge|boiler)\b", re.I)
"""A thing of a kind a swap may get, said by its kind ("swapped his car for a camper van")."""


def _ended_and_got(clause: str, sentence: str, c: Claim) -> bool:
    """Whether `sentence` says a name of `c`'s thing ended in a clause before `clause`, which
    gets a thing of a name `c` does not say, no other product ("a Bosch battery")."""
    got = _GOT_NAMED.search(clause)
    at = sentence.find(clause.rstrip(".!")[:20]) if got else -1
    if got is None or at <= 0 or families._PRODUCT.match(clause, got.end()) or \
            any(w.lower() in c.said.lower() for w in got.group("name").split()):
        return False
    before = sentence[:at]
    names = {w for w in re.findall(r"(?-i:\b[A-Z][\w-]{2,})", c.said) if w.lower() in c.values}
    thing = any(families.members(c.said, f, c.said, switched=True, brands=True)
                for f in FAMILIES if f.name in ("car", "phone", "laptop")) or c.attribute == "car"
    return thing and any(_ENDED.match(before, m.end())
                         for n in names for m in re.finditer(rf"\b{re.escape(n)}\b", before))
