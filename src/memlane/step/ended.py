"""The held value named as ended: one broad mechanism for corrections no phrase rule names.

A statement that names the distinctive value of one held fact (a person's name, a brand, a
provider, a drug, a place, an activity, a position) with an ending said of that value ends that
fact, whoever holds it and whatever the attribute:

- the value as the subject of the ending ("Hannah and I broke up", "Dr Moore retired", "Smudge
  passed away", "Cetirizine stopped working", "Greenacres got too expensive");
- the value as its object, the one who ended it the fact's holder ("I've given badminton up",
  "My sister split up with Sam", "We cancelled Riverford", "I've moved out of goal").

The fact is superseded by the statement (the project keeps no "ended, nothing instead": the
statement that says it ended is the newer version, the old text stays in the dated history).
When another clause of the same sentence states the replacement first ("The car's insured with
LV now, Direct Line got too expensive"), that clause supersedes it.

Never a guess: every word of the ended phrase is in the one held fact it ends (two held facts
naming it: both kept, linked); a person held as family, a partner or a pet is ended only by a
death or, for a partner, a break-up ("Hannah retired" ends no girlfriend), a thing of theirs by
any ending ("Ravi's Leon was written off"); another person in
the sentence ("... got too expensive for my brother", "Tom split up with ...") or as the one
who ended it blocks it; so do a maybe, a question, a one-off ("this morning"), an ending for a
while or long ago ("on leave", "when I was 18"), a negation ("I'll never give up squash") and
an ending said only of the future ("is retiring").

Last, a thing swapped by its kind, or one no lexicon names got after the held one ended
(`step/swapped.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..text import fact_terms, stem
from . import slots, swapped
from .claim import Claim
from .cues import CUES
from .endings import (
    _LEFT_FOR_NOW,
    _LIGHT,
    _ONE_OFF,
    _TIME_WORDS,
    DISPOSED,
    GIVEN_UP,
    PAUSED,
    STOLEN,
    THING_GONE,
    _loose,
)
from .holders import RELATIONS

Verdict = tuple[str, int, tuple[str, ...]]
"""(`supersedes` or `related`, the index of the held fact, why): a `supersede.Decision`'s
fields."""

_DEATH = r"died|passed\s+away|passed\s+on|(?:was|got|had\s+to\s+be)\s+put\s+(?:down|to\s+sleep)"
_BREAKUP = r"(?:broke|split)\s+up|separated|divorced|(?:dumped|left)\s+me"
_WE_PARTED = (rf"{_BREAKUP}|called\s+it\s+(?:a\s+day|quits)|went\s+our\s+separate\s+ways|"
              r"parted\s+(?:ways|company)|finished\s+things|ended\s+things|"
              r"(?:are|'re)\s+(?:(?:so|officially|totally)\s+)?(?:done|over|finished)"
              r"(?=\s*(?:[,;.!]|$|now\b|for\s+good\b))")
"""A break-up said of the two ("Hannah and I called it a day", "Jamie and I went our separate
ways", "Alex and I are done"): with the speaker beside the value, not of the value alone ("Dr
Moore called it a day" is a retirement)."""
_DEPART = (r"retired|emigrated|moved\s+away|(?:packed|jacked)\s+it\s+in|called\s+it\s+a\s+day|"
           r"handed\s+in\s+(?:her|his|their)\s+notice|"
           r"(?:got\s+|was\s+|been\s+)?(?:moved|gone|went)\s+(?:on\s+)?to\s+"
           r"(?:another|a\s+(?:different|new))\s+(?:project|team|role|job|"
           r"department|practice|surgery|branch|school|club)|"
           r"left(?=\s*[.!]?\s*$|\s+(?:the\s+|her\s+|his\s+|their\s+)?(?:practice|"
           r"surgery|company|firm|agency|salon|school|club|team|job|area|clinic|business|"
           r"country|gym|service)\b)|quit(?=\s+(?:hairdressing|teaching|coaching|"
           r"cleaning|work|working|the\s+job|her\s+job|his\s+job)\b)|stopped\s+(?:working|"
           r"practising|practicing|coaching|teaching|cleaning)")
_GONE = (r"stopped\s+(?:working|helping|doing\s+anything|making\s+a\s+difference)|"
         r"gone(?=\s*(?:[,;.!]|$|\s+(?:now|for\s+good|at\s+last)\b))|"
         rf"closed(?:\s+down)?|shut(?:\s+down)?|{THING_GONE}|"
         r"(?:was|got|been|is|are)\s+(?:scrapped|sold|written\s+off|cancell?ed|discontinued|"
         r"closed|shut|axed)")
_WEAK = r"kept\s+[a-z]+ing|got\s+(?:far\s+|way\s+|much\s+)?(?:too|so)\s+[a-z]+"
"""Said of a value, an ending only beside a replacement ("Lloyds kept closing branches, so
I've moved to First Direct"); alone, a complaint."""

_SHUT_ITS = re.compile(r"\s+(?:the|a|an|its|their|this|that|some|one|two|three|all|most|lots)\b",
                       re.I)
"""What follows a value that "closed" or "shut" something of its own ("closed the branch in
town"), not the speaker's ("Barclays closed my account") nor itself ("closed down")."""
_AUX = r"(?:(?:has|have|had|'s|'ve|'d)\s+)?(?:(?:just|finally|recently|both|sadly|eventually|" \
    r"actually|now|all|since)\s+)*"
_SUBJECT = re.compile(
    rf"(?P<v>[^,;:.!?]+?)\s+(?:and\s+(?:i|me)\s+{_AUX}(?P<us>{_WE_PARTED})|{_AUX}(?:"
    rf"(?P<death>{_DEATH})|(?P<split>{_BREAKUP})|(?P<depart>{_DEPART})|(?P<gone>{_GONE})|"
    rf"(?P<weak>{_WEAK})))\b", re.I)
_OBJECT = re.compile(
    r"(?:(?P<split>(?:broke|split)\s+up\s+with|split\s+from|divorced|dumped|called\s+off\s+"
    r"(?:the|her|his|their|our|my)\s+(?:engagement|wedding)\s+(?:with|to))"
    r"|(?P<shut>closed|shut|axed)"
    r"|(?P<gone>(?:gave|given|giving)\s+up(?:\s+on)?|quit|quitted|packed\s+in|cancell?ed|"
    rf"moved\s+out\s+of|{GIVEN_UP}|{DISPOSED}|(?P<stolen>{STOLEN})|(?P<meoff>(?:took|taken|weaned)\s+me\s+off)|"
    r"(?P<left>left)(?=\s+(?:the\s+)?(?-i:[A-Z]))|stopped\s+(?:taking|using|"
    r"going\s+to|playing|doing|seeing|buying|shopping\s+at|banking\s+with)|no\s+longer\s+"
    r"(?:[a-z]+\s+)?(?:with|at|to|in|on|for)?|(?:gave|given)\s+(?P<up>(?:the\s+|my\s+|our\s+)?"
    r"[A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*)?)\s+up))"
    r"\s*(?P<v>[^,;.!?]*)", re.I)
_CUT = re.compile(r"[,;:!?]|\.(?:\s|$)|\band\b(?!\s+(?:i|me)\b)|\b(?:so|but|because|since|as|"
                  r"while|when|after|though|although|then|until|which|who)\b", re.I)
_OBJECT_END = re.compile(r"\s+(?:for|and|but|so|because|since|to|into|with|after|as|then|now|"
                         r"any\s*more|instead|last|this|in|on|at|over|ago|back|when|"
                         r"before|years?|months?|weeks?|a\s+while|altogether)\b.*$", re.I)
_NEGATED = re.compile(r"\b(?:not|never|n't|no\s+way|nearly|almost|will|'ll|won't|going\s+to|"
                      r"about\s+to|thinking|planning|refuse|refused)\W+(?:\w+\W+){0,2}$", re.I)
_PERSON = re.compile(r"\b(?:my|our|his|her|their)\s+(?:\w+\s+)?(?P<rel>"
                     + "|".join(sorted(RELATIONS, key=len, reverse=True))
                     + r")\b|(?-i:\b[A-Z][a-z]+)['\u2019]s\b|\b(?:he|she|they)\b", re.I)
_PARTNERS = frozenset("""wife husband partner girlfriend boyfriend fiance fiancee spouse
    seeing dating engaged married""".split())
_KIN = frozenset("""mother father parents sister brother son daughter kid kids child children
    baby friend cousin aunt uncle niece nephew grandmother grandfather grandma grandpa
    granddaughter grandson grandchild stepson stepdaughter stepmother stepfather godson
    goddaughter mate pal buddy bestie twin stepsister stepbrother godmother godfather mum mom
    dad""".split()) | _PARTNERS | frozenset("dog cat puppy kitten pet horse rabbit hamster "
                                            "parrot tortoise".split())
_NOT_VALUE = frozenset(stem(w) for w in """i me we us my our the a an his her their it its
    this that dr mr mrs ms miss st old new""".split())
_STILL = re.compile(r"\bstill\b|\bas\s+well\b|\balso\b", re.I)
"""Said as kept or added ("Chloe still does my hair", "also"): nothing ended."""
_PASSING = re.compile(
    rf"{PAUSED}|\b(?:fine|working|back|open)\s+again\b|"
    r"\bon\s+(?:\w+\s+)?leave\b|\b(?:reopen|reopened|reopens)\b|"
    r"\b(?:closed|shut)\s+(?:early|for|on|over|at|till|until)\b|"
    r"\bwhen\s+(?:i|we)\s+(?:was|were)\b|\byears\s+ago\b|\bas\s+a\s+(?:kid|child|teenager)\b",
    re.I)
"""Ended for a while, or long ago ("stopped working for a week", "on maternity leave", "closed
early on Sunday", "I left Hove when I was 18"): no change of what is held now."""
_I = frozenset("i we i've we've i'd we'd".split())


@dataclass(frozen=True)
class _Ending:
    """One ending a sentence says, and of what."""

    value: str
    """The words naming what ended ("Dr Moore", "the second row")."""
    doer: str
    """Who ended it, for an ending with an object ("I", "my sister"); "" when the value is the
    subject, or when no one is said ("Cancelled Riverford")."""
    kind: str
    """`death`, `split` (a break-up), `depart` (a person gone from a role), `gone` (a thing
    ended) or `weak` (an ending only beside a replacement)."""
    piece: str
    """The clause of the sentence it is said in."""
    start: int
    """Where that clause starts in the sentence."""


def endings(sentence: str) -> list[_Ending]:
    """The endings `sentence` says of a named value (see the module docstring)."""
    out: list[_Ending] = []
    cuts = [0] + [m.end() for m in _CUT.finditer(sentence)] + [len(sentence) + 1]
    for start, end in zip(cuts, cuts[1:], strict=False):
        piece = sentence[start:end]
        m = _SUBJECT.search(piece)
        if m is not None and re.fullmatch(r"closed|shut|axed", m.group("gone") or "", re.I) and \
                _SHUT_ITS.match(piece, m.end()):
            m = None  # "Barclays closed the branch in town": a part of it ended, not it
        if m is not None and not _NEGATED.search(piece[:m.start("v")]):
            kind = next(k for k in ("us", "death", "split", "depart", "gone", "weak") if m.group(k))
            value = re.sub(r"^\s*(?:and|so|but|then|now)\s+", "", m.group("v"), flags=re.I)
            out.append(_Ending(value.strip(), "i" if kind == "us" else "",
                               "split" if kind == "us" else kind, piece, start))
    for m in _OBJECT.finditer(sentence):
        before = sentence[:m.start()]
        cut = max((c.end() for c in _CUT.finditer(before)), default=0)
        doer = before[cut:].strip()
        if _NEGATED.search(before[cut:]) or len(doer.split()) > 4:
            continue
        if m.group("left") and _LEFT_FOR_NOW.search(m.group("v")):
            continue  # "left Tesco at 6": for the day, not for good
        value = m.group("up") or _OBJECT_END.sub("", " " + m.group("v")).strip()
        kind = "split" if m.group("split") else "gone"
        if m.group("shut") and doer.lower().split()[:1] in (["they"], ["they've"]):
            doer = ""  # "They closed the Lidl on Mill Road": no one's own ending
        if m.group("meoff"):
            doer = "I"  # "The GP took me off ramipril": the speaker's, whoever did it
        if m.group("stolen"):
            doer = ""  # "Someone nicked my iPhone": the owner's loss, not the thief's ending
        after = _CUT.search(sentence, m.end())
        out.append(_Ending(value, doer, kind, sentence[cut:after.start() if after else None], cut))
    return out


def _terms(text: str) -> frozenset[str]:
    return frozenset(_loose(t) for t in fact_terms(text)) - \
        {_loose(t) for t in _TIME_WORDS | _LIGHT | _NOT_VALUE}


def _names_it(e: _Ending, c: Claim, skip: frozenset[str]) -> bool:
    """Whether every word of the ended phrase is in the held fact `c` (its owner too: "my
    neighbour's cat Tiger" is not "my cat Tiger"), one of them its value (not the thing it is
    of, "my phone", nor a person's relation word)."""
    words = _terms(e.value)
    loose_skip = {_loose(stem(w)) for w in skip}
    return bool((words - loose_skip) & {_loose(t) for t in c.values}) and \
        words <= {_loose(t) for t in c.terms}


def _of_holder(e: _Ending, c: Claim, sentence: str) -> bool:
    """Whether the ending is the held fact's holder's: the one who ended it is the speaker (for
    a fact of the speaker's) or named in the held fact; no other person in its sentence ("...
    got too expensive for my brother", "Mr Patel moved away, so my mum sees ...")."""
    held = {_loose(t) for t in c.terms}
    doer = [w for w in re.findall(r"[\w']+", e.doer.lower()) if w not in ("have", "has", "had",
                                                                        "just", "finally")]
    if any(w.split("'")[0] in ("you", "he", "she", "they") for w in doer[1:]):
        return False  # ("I heard she quit the choir": hers, not the speaker's)
    if doer:
        words = _terms(" ".join(doer))
        if set(doer) <= _I | {"'ve"} or doer[0] in _I:
            if c.holder.rpartition("|")[2] != "i":
                return False
        elif not words or not words <= held:
            return False  # "Tom split up with ...": someone else's break-up
    rest = sentence.replace(e.value, " ")
    for m in _PERSON.finditer(rest):
        if m.group(0).lower() in ("he", "she", "they"):
            continue
        who = _terms(m.group(0)) - {_loose(stem(w)) for w in ("my", "our")}
        if not who <= held:
            return False  # "... got too expensive for my brother": his, not the held one
    return True


def _fits_kind(e: _Ending, c: Claim) -> bool:
    """A person held as family, a partner or a pet is ended by a death, or (a partner) a
    break-up; a role by those or a departure; a thing by anything but a break-up."""
    # ("my mum's carer": a carer; "my girlfriend's name is Madison": a girlfriend)
    said = re.sub(r"[A-Za-z]+['\u2019]s\b(?!\s+name\b)", " ", c.said)
    said = re.sub(r"\b[a-z]+\s+(?=[a-z]{2,}(?:er|or|ist|ian)\b)", " ", said)  # ("dog walker")
    words = {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z]+", said)} | \
        {w.lower() for w in re.findall(r"[A-Za-z]+", said)}
    thing = _terms(e.value) - _terms(c.holder.rpartition("|")[2]) - _terms(e.doer)
    if e.kind == "gone" and thing and thing <= {_loose(t) for t in c.values}:
        return True  # a thing of a person's ended ("Niamh's Picanto was written off")
    if words & _PARTNERS:
        return e.kind in ("death", "split")
    if words & _KIN:
        return e.kind == "death"
    return e.kind != "split"


def ended_value(new: Claim, claims: Sequence[Claim], skip: frozenset[str]) -> Verdict | None:
    """The held fact `new` (or its sentence, for a clause stating the replacement) says ended
    by naming its value (see the module docstring), or replaced (`step/swapped.py`); None when
    no one held fact fits."""
    sentence = new.context or new.said
    if not new.said or slots.hypothetical(sentence) or _ONE_OFF.search(sentence) or \
            "?" in new.said or _STILL.search(sentence):
        return None
    prefix = new.holder.rpartition("|")[0]
    own = new.said.lower().rstrip(".!").strip()
    for e in endings(sentence):
        if _PASSING.search(_part(sentence, e.start)):
            continue  # (its own part of the sentence: "..., for a week"; not "...; I've been
            # seeing Owen for a couple of months")
        here = e.piece.lower().strip(" ,;.!") in own or own in e.piece.lower()
        if e.kind == "weak" and not (CUES.search(sentence.replace(e.piece, " ")) or
                                     re.search(r"\binstead\b", sentence, re.I)):
            continue  # "Lloyds kept closing branches" alone: a complaint, not an ending
        if not here and not _replacement(new, sentence, e):
            continue
        named = [i for i, c in enumerate(claims) if c.said and not c.ends and
                 c.holder.rpartition("|")[0] == prefix and
                 (_names_it(e, c, skip) or _partner_of_mine(e, c)) and
                 (here or (c.said.lower().rstrip(".!") not in sentence.lower() and
                           (_another(new.said, c.said) or _job_for(new, c, e, claims, skip))))]
        if len(named) > 1:
            return ("related", named[-1], (f"names {e.value!r} as ended, which {len(named)} "
                                           "held facts name: both kept, the new one newer",))
        c = claims[named[0]] if named else None
        if c is not None and (_partner_of_mine(e, c) or
                              _of_holder(e, c, sentence) and _fits_kind(e, c)):
            return ("supersedes", named[0], (
                f"names the held value ({e.value}) as ended ({e.kind})",
                "the one held fact naming it" + ("" if here else
                                                 ", replaced by this clause of the sentence")))
    return swapped.after_end(new, claims)  # (a new one no lexicon names; a kind swapped)


def _part(sentence: str, at: int) -> str:
    """The part of `sentence` between semicolons that holds the position `at`."""
    start = sentence.rfind(";", 0, at) + 1
    end = sentence.find(";", at)
    return sentence[start:end if end >= 0 else None]


def _job_for(new: Claim, c: Claim, e: _Ending, claims: Sequence[Claim],
             skip: frozenset[str]) -> bool:
    """Whether `new` gives the job one has now in place of the employer the held `c` names
    ("I quit the hotel, I'm a postman now" / "I work at the Crown Hotel."): the place one
    worked is the job one had there. Only when no other held fact of the holder names the
    place left ("I also work weekends at the Station Hotel": which hotel is not certain)."""
    return new.attribute == "job" and c.attribute == "employer" and new.holder == c.holder \
        and sum(1 for k in claims if k.holder == c.holder and _names_it(e, k, skip)) == 1


def _partner_of_mine(e: _Ending, c: Claim) -> bool:
    """Whether `e` is the speaker's break-up ("Hannah and I called it a day") with the partner
    the held fact is about, held as its holder ("My girlfriend Hannah and I have been together
    about two years": the parse's holder is "girlfriend hannah", the speaker's partner)."""
    if e.kind != "split" or e.doer != "i":
        return False
    who = c.holder.rpartition("|")[2].split()
    return len(who) > 1 and who[0] in _PARTNERS and \
        " ".join(who[1:]) == " ".join(e.value.lower().split())


def _replacement(new: Claim, sentence: str, e: _Ending) -> bool:
    """Whether `new`, another clause of the sentence that says `e`, states what is in the
    ended value's place: worded as a change or as taken ("I've bought a Yaris"), and no pronoun
    for its holder ("she was 52")."""
    said = new.said
    if e.piece.strip(" ,;.!").lower() in said.lower() or re.match(r"\W*(?:he|she|they|it)\b",
                                                                   said, re.I):
        return False
    return CUES.search(said) is not None or _TOOK.search(said) is not None or \
        re.search(r"\binstead\b", said, re.I) is not None


def _another(said: str, held: str) -> bool:
    """Whether `said` gives another value of a type `held` gives, its opening name one too
    ("Ollie walks the dog now" for "Our dog walker is Jess")."""
    return bool(slots.another_value(f"and {said}", held) or slots.fresh_type(said, held))


_TOOK = re.compile(r"\b(?:i|we)(?:'ve|\s+have|'d|\s+had)?\s+(?:just\s+|now\s+|since\s+)?"
                   r"(?:bought|got|adopted|found|joined|signed\s+up|registered|picked\s+up|"
                   r"gone\s+for|went\s+for|taken\s+on|hired|chose|chosen)\b", re.I)
"""A replacement said as taken ("I've bought a second-hand Yaris")."""
