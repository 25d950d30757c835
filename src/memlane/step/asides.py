"""Facts told in passing that no statement shape carries (`step/clauses.py`, the heuristic's
filter): a health condition a question rests on ("with my asthma, is it okay to run when it's
freezing?" -> "I have asthma."), and a dislike told by what the thing does to the speaker
("Coriander tastes like soap to me", "Olives make me gag", "Blue cheese turns my stomach").

The condition is one of the lexicon's (`lexicon.CONDITIONS`) or a body part said as bad ("my
dodgy knee"), named with "my" after "with", "given", "because of", "due to" or "for" in a
question; someone else's ("with my son's asthma") is not the speaker's. The dislike is said of
a thing to the speaker, never in a question. Pure.
"""

from __future__ import annotations

import re

from .lexicon import CONDITIONS

_CONDITION = "|".join(CONDITIONS)
_PART = (r"(?:dodgy|bad|weak|gammy|dicky|wonky|sore|stiff|bad|arthritic|damaged|injured|"
         r"replaced|new)\s+(?:knees?|hips?|back|shoulders?|ankles?|wrists?|neck|elbows?|hands?|feet)")
_WHAT = rf"((?:{_CONDITION})(?:\s+(?:disease|disorder|syndrome))?|{_PART})(?!\w|['\u2019]s)"
_ASIDE = re.compile(rf"\b(?:with|given|because\s+of|due\s+to|for|considering)\s+my\s+"
                    rf"(?:(?:mild|severe|chronic|awful|terrible|bad|type\s+[12]|new)\s+)*{_WHAT}"
                    # "a stretch for someone with sciatica like me"
                    rf"|\b(?:someone|somebody|people|a\s+person)\s+with\s+{_WHAT}\s+like\s+me\b",
                    re.I)


def condition_asked(sentence: str) -> str | None:
    """The speaker's condition a question rests on ("Given my dodgy knee, would a rowing
    machine be better?" -> "I have a dodgy knee."); None when it names none."""
    if not sentence.rstrip().endswith("?"):
        return None
    m = _ASIDE.search(sentence)
    if m is None:
        return None
    what = " ".join((m.group(1) or m.group(2)).split())
    article = "a " if re.match(_PART, what, re.I) or re.search(r"\b(?:back|knee|hip)$", what) \
        and not what.lower().startswith(("a ", "an ")) else ""
    return f"I have {article}{what}."


_BY_EFFECT = re.compile(
    r"^\W*(?-i:[A-Z])?[\w' -]{2,40}?\s+(?:(?:tastes?|smells?)\s+(?:\w+\s+)?like\s+[\w' -]{2,30}?\s+"
    r"to\s+me|(?:makes?|made)\s+me\s+(?:want\s+to\s+)?(?:gag|retch|heave|vomit|throw\s+up|sick|"
    r"feel\s+(?:sick|ill|queasy|nauseous|rough))|turns?\s+my\s+stomach|gives?\s+me\s+(?:a\s+)?"
    r"(?:headache|migraine|hives|rash|heartburn|indigestion|the\s+(?:creeps|ick))|(?:is|are)\s+"
    r"(?:just\s+|absolutely\s+|honestly\s+)?(?:vile|disgusting|revolting|gross|rank|foul)\s+"
    r"to\s+me)\b", re.I)


def dislike_by_effect(clause: str) -> bool:
    """Whether `clause` says the speaker can't stand a thing by what it does to them
    ("Coriander tastes like soap to me, always has", "Mushrooms make me gag"): a fact worth
    keeping though no "I" opens it. Not in a question, not of "you"."""
    body = clause.strip()
    return not body.endswith("?") and not re.search(r"\byou(?:r|'re)?\b", body, re.I) and \
        not re.match(r"\W*(?:i|we|it|this|that|he|she|they)\b", body, re.I) and \
        _BY_EFFECT.match(body) is not None
