"""Statements that replace no held fact though a rule paired them: the last word on a
supersede, asked by `supersede.decide` after every rule.

A rule reads a statement's value against a held fact by its type, a shared word or a change
cue; some statements fit those signals and still say nothing of the held fact's state now:

- not so now (`endings.not_now`, `endings.not_done`): almost made, a target, the past, a
  change not made;
- one past occasion: "The flight was delayed to 9 last time we flew", "The train left at 8:15
  yesterday", "Yoga was on Thursday last week" (a clock time or a day then, with no "now"
  and no change of the plan said: "moved to Fridays last week" still replaces);
- another person's, said against the speaker: "it was my cousin who got the job at Currys,
  not me"; or the listener's: "You live in Ripon, don't you?", "Did your book club move?";
- one shift ended, not the kind of shift one works: "I'm done with my shift, off home now"
  (no kind of shift, early, late, nights, ... or hours given);
- the held value named as wrong (or "instead of" it) against another thing, the held fact's
  attribute (one of the fixed list) not said: a thing the new name names ("I meant the York
  office, not Leeds" / "I live in Leeds") or the speaker's other doing ("I shop at Aldi, not
  Tesco", "I shopped there instead of Asda" / "I work at Tesco"). "I actually work at Aldi,
  not Tesco" replaces; so do bare values: "sorry, Kendal, not Keswick".
Pure: reads the claims only.
"""

from __future__ import annotations

import re

from ..text import fact_terms, stem
from .claim import Claim
from .endings import not_done, not_now
from .misstated import wrong_value

_LAST_TIME = re.compile(r"\b(?:the\s+)?last\s+time\b(?!\s+(?:i|we)\s+(?:told|said|mentioned|"
                        r"checked|looked|spoke|asked))", re.I)
_YESTERDAY = re.compile(r"\b(?:yesterday|last\s+(?:night|week|month|year|summer|winter|spring|"
                        r"autumn|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|the\s+other\s+(?:day|week)|"
                        r"(?:a|\w+)\s+(?:days?|weeks?|months?|years?)\s+ago)\b", re.I)
_WEEKDAY = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b", re.I)
_CLOCK = re.compile(r"\b(?:at|to|till|until)\s+\d{1,2}(?:[:.]\d{2})?\b(?!\s*(?:mg|mcg|ml|kg|g|lbs?|"
                    r"%|miles|km|units?|quid|pounds|grand|k)\b)|\b\d{1,2}[:.]\d{2}\b|"
                    r"\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)", re.I)
_NOW = re.compile(r"\b(?:now|from\s+now|these\s+days|nowadays|any\s*more|any\s+longer|no\s+longer|"
                  r"for\s+good|permanently|going\s+forward|from\s+then\s+on|ever\s+since|"
                  r"since\s+then|from\s+(?:next|this)\b)", re.I)
_SETTLED = re.compile(r"\b(?:moved|changed|switched|rescheduled|brought\s+forward|pushed\s+back|"
                      r"put\s+back|swapped|announced|emailed|texted|told\s+(?:me|us)|increased|"
                      r"decreased|raised|lowered|upped|reduced|bumped|(?:went|gone|put\s+\w+)\s+"
                      r"(?:up|down))\b", re.I)
_NOT_ME = re.compile(r"\b(?:not|wasn['\u2019]?t|isn['\u2019]?t)\s+me\b|\bit\s+(?:was|is|['\u2019]s)"
                     r"\s+(?:my|our|his|her|their)\s+\w+\s+(?:\w+\s+)?who\b", re.I)
_LISTENER = re.compile(r"^\W*(?:(?:did|do|does|is|are|has|have|had|was|were|will|would|should|can|"
                       r"could)\s+)?(?:you|your)\b(?!\s+(?:know|see|remember|'ll|will\s+never|"
                       r"won't|guessed|asked|wanted))", re.I)
_SHIFT_KIND = re.compile(r"\b(?:early|earlies|late|lates|nights?|days?|double|twilight|"
                         r"graveyard|swing|split|weekends?|mornings?|afternoons?|evenings?|"
                         r"overnight|rota|\d)", re.I)
_NAMED_THING = re.compile(r"\b(?-i:[A-Z])[\w'\u2019-]*\s+(?!(?:now|then|too|again|instead|though|"
                          r"anyway|please|really|either|here|there|today|tonight|actually|mind)\b)"
                          r"((?-i:[a-z])+),?\s+"
                          r"(?:not|rather\s+than)\s", re.I)
"""A name, then a thing it names, set against the value named wrong: "the York office, not"."""
_INSTEAD_OF = re.compile(r"\binstead\s+of\s+(?:the\s+|my\s+|our\s+)?((?-i:[A-Z])[\w'\u2019-]*"
                         r"(?:\s+(?-i:[A-Z])[\w'\u2019-]*)?)", re.I)
"""A name set against what is said: "I shopped there instead of Asda"."""
_I_VERB = re.compile(r"\b(?:i|we)(?:\s+|(?:['\u2019]m|\s+am|['\u2019]re|\s+are)\s+(?=\w+ing\b))"
                     r"(?:\w+ly\s+|just\s+|always\s+|now\s+)?((?-i:[a-z])+)\b", re.I)
"""The speaker's doing: "I shop", "we're visiting" (not "I'm in York": no verb)."""
_OWNING = frozenset("""meant mean said say put wrote typed had got think thought was were am
    misread misspoke muddled mixed confused""".split())


def why_kept(new: Claim, held: Claim) -> str | None:
    """Why `new` replaces not the held fact `held` a rule found for it (the reason said with
    the verdict), or None when nothing here stands in its way (see the module docstring)."""
    said = new.context or new.said
    if not_now(new.said) or not_done(new.said) and not new.key <= held.key:
        return "but said as not so now: no change, both kept"
    if not _NOW.search(said) and (_LAST_TIME.search(said) or _YESTERDAY.search(said) and (
            _CLOCK.search(said) or _WEEKDAY.search(_YESTERDAY.sub(" ", said))) and
            not _SETTLED.search(said)):
        return "but said of one past occasion: no change, both kept"
    if held.holder == "i" and _NOT_ME.search(said):
        return "but said of someone else, not the speaker: both kept"
    if held.holder == "i" and _LISTENER.search(new.said):
        return "but said or asked of the listener: both kept"
    if held.attribute == "shift" == new.attribute and not _SHIFT_KIND.search(
            re.sub(r"\bshifts?\b", " ", new.said, flags=re.I)):
        return "but no kind of shift given (one shift, not the pattern): both kept"
    if other_thing(new, held):
        return "but the held value is named wrong against another thing: both kept"
    return None


def other_thing(new: Claim, held: Claim) -> bool:
    """Whether `new` names the value of `held` as wrong ("not Tesco") of another thing, the
    held fact's attribute (one of the fixed list) not said: a thing named by the new value
    ("the York office, not Leeds") or the speaker's own other doing ("I shop at Aldi, not
    Tesco" / "I work at Tesco"), neither said by the held fact."""
    said = new.context or new.said
    m = _INSTEAD_OF.search(said)
    wrong = wrong_value(said) or (fact_terms(m.group(1)) if m else None)
    if not wrong or not wrong <= held.terms or held.attribute is None or \
            held.attribute.startswith("the ") or new.attribute == held.attribute:
        return False  # (a thing's own attribute, "the allotment": its words are the thing's)
    if (m := _NAMED_THING.search(said)) and not fact_terms(m.group(1)) <= held.terms:
        return True  # (the sentence, for its clause "My mistake." too)
    mine, theirs = _doing(re.split(r"\s(?:not|instead)\s", said)[0]), _doing(held.said)
    return mine is not None and theirs is not None and _root(mine) != _root(theirs)


def _root(verb: str) -> str:
    """`verb` without its ending, alike in every form: "living", "live" -> "liv"."""
    return re.sub(r"(\w)\1$", r"\1", stem(verb.lower()).removesuffix("e"))


def _doing(text: str) -> str | None:
    """The verb of the speaker's last "I <verb>" / "we <verb>" in `text`, but a word that
    owns a mistake ("I meant", "I said"): "I shop at Aldi" -> "shop"."""
    verbs = [v.lower() for v in _I_VERB.findall(text) if v.lower() not in _OWNING]
    return verbs[-1] if verbs else None
