"""A medicine in place of another (issue 41): "The GP's put me on fexofenadine since the other
stuff was making me drowsy" replaces "I take 10mg of cetirizine", "Dad's consultant has put him
on ramipril instead" replaces "My dad takes amlodipine".

A person takes several medicines at once, so a new one is an addition unless the sentence says it
is in place of another: "instead", "switched / swapped / changed to", "the old / other tablets",
"taken off", "came off". A medicine is read by name (`lexicon.MEDICATIONS`) or by the stem an
international non-proprietary name is built on ("-pril", "-sartan", "-dipine", "-olol",
"-statin", "-prazole", ...: the WHO's stems, which is what makes the rule hold for medicines
nobody listed). The held fact replaced is the one medicine of the same holder; two held: kept,
linked (`related`). Refused: an addition ("also", "as well", "on top of"), a maybe, a question,
a one-off ("today", "for a week"), the same medicine again (a dose: `step/numbered.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import slots
from .claim import Claim
from .endings import _ADDITIVE, _ONE_OFF
from .lexicon import MEDICATIONS

Verdict = tuple[str, int, tuple[str, ...]]

_STEMS = (r"[a-z]{2,}(?:pril|sartan|dipine|olol|vastatin|statin|prazole|tidine|fenadine|tadine|"
          r"tirizine|izine|oxetine|xetine|afaxine|triptan|cillin|mycin|cycline|floxacin|"
          r"thyroxine|formin|gliptin|gliflozin|lukast|olone|isone|zepam|azolam|codone|profen|"
          r"fenac|parin|xaban|gatran|semide|thiazide|zosin|terol|sonide|asone|setron|tropin|"
          r"triptyline|ipramine|peridone|apine|azine|lamide|mide|zolam)")
_NAMED = re.compile(r"\b(?:" + "|".join(m for m in MEDICATIONS
                                        if "mg" not in m and "prescri" not in m and
                                        m not in ("medication", "meds")) +
                    rf"|{_STEMS})\b", re.I)
_IN_PLACE = re.compile(
    r"\binstead\b(?!\s+of\b)|\b(?:switched|swapped|changed|moved)\s+(?:\w+\s+){0,2}?(?:to|onto)\b"
    r"|\bthe\s+(?:old|other|previous|last|usual)\s+(?:stuff|tablets?|pills?|meds|medication|"
    r"medicine|ones?|drugs?|prescription)\b|\b(?:taken|took)\s+(?:me|him|her|them|us)\s+off\b"
    r"|\bcame\s+off\b|\bno\s+longer\s+on\b", re.I)
_MORE = re.compile(r"\b(?:on\s+top\s+of|alongside|together\s+with|added|adding|plus|both)\b",
                   re.I)
_INSTEAD_OF = re.compile(r"\binstead\s+of\s+(\w+)", re.I)


def medicines(text: str) -> set[str]:
    """The medicines `text` names, lower-case."""
    return {m.group(0).lower() for m in _NAMED.finditer(text)}


def in_place(new: Claim, holder: str, claims: Sequence[Claim]) -> Verdict | None:
    """The one held fact of the holder naming a medicine that `new` puts another in place of
    (see the module docstring); `related` to the newest when two fit; None otherwise."""
    said = new.context or new.said
    mine = medicines(new.said)
    rest = _IN_PLACE.sub(" ", said)  # ("the other stuff" is the one replaced, no addition)
    if not mine or "?" in said or _ADDITIVE.search(rest) or _MORE.search(said) or \
            slots.hypothetical(said) or _ONE_OFF.search(said) or not _IN_PLACE.search(said):
        return None
    gone = _INSTEAD_OF.search(said)
    mine -= {gone.group(1).lower()} if gone else set()  # ("ramipril instead of amlodipine")
    fits = [i for i, c in enumerate(claims)
            if c.said and c.said != new.said and not c.ends and c.holder == holder and
            (theirs := medicines(c.said)) and mine - theirs]
    if not mine or not fits:
        return None
    mine -= {m for i in fits for m in medicines(claims[i].said)}  # ("..., the citalopram ...")
    if len(fits) > 1:
        return "related", fits[-1], ("another medicine said in place of one, but "
                                     f"{len(fits)} held medicines of the holder: both kept",)
    return "supersedes", fits[0], (f"same holder ({holder})",
                                   f"another medicine ({', '.join(sorted(mine))})",
                                   "said to be in place of the held one",
                                   "the only held medicine of the holder")
