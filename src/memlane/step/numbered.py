"""One broad mechanism of the supersede rule (`step/supersede.py`): **a thing told by its number,
a dose, a count or an age, read by the shape of the value rather than by the verb**.

- a labelled number: "locker 58", "desk number 14", "my locker at the pool is number 31", "the
  door code is 4471", "the 42 bus" / "I catch the 23" (a route), "a size 8 shoe", "plot 7";
- a dose of a named drug: "5mg of amlodipine", "two puffs of Clenil", "my sertraline ... to
  100mg" (the unit and the drug both said again);
- an age, by any wording of what is true now: "is 8", "'s 12 now", "turned 35", "was 68 on
  Tuesday", "had her tenth birthday" (`broad._BIRTHDAY`), one to five years past the held one;
- a count of a thing ("31 kids in Maisie's class", "four days in the office"): read by
  `broad.amount`, with a named holder whose thing the held fact names ("Maisie's class") as the
  held fact's holder.

The new value replaces the one held fact of the same holder (a weak holder, "they" or the
speaker, for a thing the sentence gives no other owner) and the same label, drug or thing, with
another number in the same unit, said as true now (a change cue is not needed: "They gave me
locker 58" says the new one). Never when the statement adds ("a second locker"), is once
("took 40mg today"), is not yet true ("will be 8 next month", "going up to 30mg in June"; but
"from next week" is a change, as in `step/anchored.py`), may be, asks, or names another label,
drug or holder; never for a number inside a date, a clock time or a price. Two held facts that
fit: None (both kept).

`settle` is asked last, for every verdict of `supersede.decide` (a model's vetted replace too):
what replaced nothing is read as above, and a replace by any rule of such a value is refused
(`related`: both kept, the new one marked newer) when the value is not yet true ("Finn turns 13
on Friday"), of another drug or another of a label's kind ("size 12 jeans" / "size 10 shoes"),
an earlier age ("was 5 when we moved here"), a place's own count ("The library is open 40
hours a week now"), or someone else's ("put my wife up to 250mg").

Pure: reads the claims' texts only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..text import FACT_STOPWORDS, stem
from . import broad, misstated, slots
from .anchored import _ONCE
from .claim import Claim
from .endings import _ADDITIVE, _CLAUSE_CUT, _ONE_OFF, _loose
from .holders import RELATIONS, pronoun
from .lexicon import NUMBER_WORD, NUMBER_WORDS
from .reached import reached
from .routines import once_of
from .sentences import dropped_subject

Fit = broad.Fit
Verdict = tuple[str, int | None, tuple[str, ...]]
"""A verdict of `supersede.decide`: ("supersedes", "related", "new" or "same", the index of the
held fact or None, why)."""

_WORDS = NUMBER_WORDS
_WORD_N = NUMBER_WORD
_N = rf"(\d{{1,5}}[a-z]?|{_WORD_N})"

_LATER = re.compile(
    r"\b(?:will|shall|gonna|going\s+(?:up|down|back)\s+to|turns(?!\s+out\b)|turning|"
    r"(?<!from\s)next\s+(?:week|month|year|term|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|"
    r"in\s+a\s+(?:week|fortnight|month|year))\b|'ll\b", re.I)
"""Said of a time to come ("will be 8 next month", "going up to 30mg", "turns 8 on Friday");
"from next week" is a change and stays one."""
_AGE_LATER = re.compile(rf"\b(?:turns|turning|be)\s+{_N}\b(?!\s*(?:minutes?|mins?|%))", re.I)
"""An age to come: "turns 13", "will be 18"."""
_NOT_YET = re.compile(rf"{_LATER.pattern}|\b(?:due\s+to|soon|nearly|almost|next\s+time)\b", re.I)
"""Not yet true, broadly: what `fit` refuses to read."""
_QUESTION = re.compile(r"\?\s*$|^\W*(?:is|are|was|were|do|does|did|can|could|should|has|have)"
                       r"\b", re.I)
_CHANGED = re.compile(
    r"\b(?:chang|mov|switch|gave|given|put|upp|cut|rais|lower|increas|reduc|doubl|halv|rerout|"
    r"scrap|reassign|allocat|assign|swapp|transferr)\w*", re.I)
"""A change made at a time ("changed the door code this morning"): not a one-off."""
_CARERS = frozenset("""doctor gp dentist therapist consultant nurse manager boss supervisor
    landlord landlady teacher tutor coach mentor carer team lead""".split())
_EVENT = re.compile(r"\b(?:visited|went|saw|stayed|watched|played|met|ate|flew|walked|ran|"
                    r"read|sat|waited|found|lost|left|passed)\b", re.I)
"""A past event: a number it names is where one was, not one's own (`_labelled`)."""
_WAS_WHEN = re.compile(rf"\bwas\s+{_N}\s+when\b|\bat\s+the\s+time\b", re.I)
_FIRST = re.compile(r"\b(?:i|i'm|i've|i'd|me|my|mine|we|we're|we've|us|our)\b", re.I)
_PAST = re.compile(r"\b(?:used\s+to|when\s+(?:i|we|he|she|they)\s+(?:was|were)|back\s+then|"
                   r"as\s+a\s+(?:kid|child|student))\b", re.I)

# A labelled number. The label is a noun of this class (a place one is given, a route, a size, a
# code), read with the word before it when that word is a noun of its own ("door code").
_NOUNS = (r"locker|room|desk|seat|platform|gate|route|bus|tram|flat|apartment|house|plot|pitch|"
          r"bay|space|table|row|ward|bed|cabin|berth|stand|unit|pew|peg|size|code|pin|extension|"
          r"shirt|squad\s+number")
_LABEL = _NOUNS + "|number"
_SAME_LABEL = {"bus": "route", "tram": "route", "squad number": "shirt", "kit": "shirt",
               "shirts": "shirt", "squad": "shirt"}
"""Labels said by other words: "the 42 bus" is a route, "my kit number" a shirt's."""
_DET = r"(?:my|our|the|a|an|his|her|their|your)"
"""A word before a label is a noun of its name only after one of these ("the door code",
"my parking space"), not a verb ("I've been given space 31")."""
_LABELLED = re.compile(
    rf"(?:\b{_DET}\s+(?P<mod>[a-z]{{3,}})\s+|\b)(?P<label>{_LABEL})\s+(?:number\s+|no\.?\s*|#\s*)?"
    r"(?P<n>\d{1,5}[a-z]?)\b(?![:.,]\d|\s*(?:am|pm|%|mg|ml|kg|st|nd|rd|th)\b)"
    r"(?:\s+(?:in\s+)?(?P<after>[a-z]{3,}))?"
    rf"|(?:\b{_DET}\s+(?P<mod2>[a-z]{{3,}})\s+|\b)(?P<label2>{_LABEL})\b(?!\s+(?:{_NOUNS})\b)"
    r"(?:\s+(?!is\b|was\b|to\b)[a-z']+){0,4}?"
    r"\s+(?:is|was|'s|are|to|now)\s+(?:now\s+)?(?:number\s+|no\.?\s*|#\s*|size\s+)?"
    r"(?P<n2>\d{1,5}[a-z]?)\b(?![:.,]\d|\s*(?:am|pm|%|mg|ml|kg|st|nd|rd|th|minutes?|mins?|"
    r"hours?|days?|weeks?|years?|quid|pounds?|p)\b)", re.I)
_ROUTE = re.compile(r"\b(?:catch|catches|get|gets|take|takes|ride|on|the)\s+the\s+(\d{1,3}[a-z]?)"
                    r"\b(?![:.]\d|\s*(?:am|pm|%|minutes?|mins?|st|nd|rd|th)\b)"
                    r"|\b(?:the|number)\s+(\d{1,3}[a-z]?)\s+(?:bus|tram|route|service|night\s+bus)\b",
                    re.I)
_NOT_MODS = frozenset("""the my our his her their your a an at in on of for and to is was new
    old current usual same this that its front back now these today after when since before
    instead too also still""".split())

_DOSE = re.compile(
    rf"(?<![\d.])(\d+(?:\.\d+)?|\b(?:{_WORD_N}))\s?(mg|mcg|micrograms?|ml|puffs?|tablets?|"
    r"pills?|capsules?|units?|drops?|sprays?)\b", re.I)
_OF_DRUG = re.compile(r"^\s+(?:of\s+(?:(?:my|the|her|his|their)\s+)?([A-Za-z][a-z-]{3,})|"
                      r"(?-i:([A-Z][a-z-]{3,})))")
"""A drug named after its dose: "5mg of amlodipine", "two puffs Clenil"."""
_DOSE_OF = re.compile(r"\d\s?(mg|mcg|ml|puff|tablet|pill|capsule|unit|drop|spray)s?\s+of\s+"
                      r"(?:my\s+|the\s+)?([A-Za-z][a-z-]{3,})", re.I)
_DRUG_BEFORE = re.compile(r"(?:\b(?:my|the|his|her|their|our|of)\s+|(?-i:(?<=[a-z,]\s)(?=[A-Z])))"
                          r"([A-Za-z][a-z-]{3,})(?:['\u2019]s)?\b", re.I)
"""A drug named before its dose: "my amlodipine's been doubled to 10mg", "cut my Ventolin to
one puff" (owned, or a name past the first word), the nearest one."""
_RIGHT_BEFORE = re.compile(r"\b([A-Za-z][a-z-]{3,}),?\s+$")
"""A drug named right before its dose: "amlodipine 5mg", "I'm on sertraline, 50mg"."""
_NOT_DRUGS = frozenset("""blood pressure tablets tablet pills medication meds dose doses
    take takes taking been have has had with from every each morning night
    evening twice once daily dose dosage doctor nurse down back them they were that this then
    than just only about around roughly extra another more less over least upped cut
    review appointment check check-up checkup consultation bloods results visit annual
    thyroid heart anxiety cholesterol pressure asthma diabetes depression""".split())

_AGE_AFTER = (r"(?![.,]\d)(?=\s*(?:[.,;!]|$|now\b|years?\s+old\b|this\s+year\b|already\b|and\b|"
              r"as\s+of\b|but\b|so\b|on\b|last\b|yesterday\b|today\b|at\s+the\s+weekend\b))")
_AGE = re.compile(
    rf"(?:\b(?:is|am|are|now)|['\u2019](?:s|m|re))\s+(?:now\s+|just\s+|already\s+)?{_N}{_AGE_AFTER}"
    rf"|\bturned\s+{_N}\b(?!\s*(?:minutes?|mins?|degrees?|%))"
    rf"|\b(?:hit|reached)\s+{_N}{_AGE_AFTER}"
    rf"|\bwas\s+{_N}\s+(?=on\b|last\b|yesterday\b|at\s+the\s+weekend\b)"
    rf"|\b{_N}\s+years?\s+old\b|\baged\s+{_N}\b"
    # an age in words beside a birthday: "had her birthday on Sunday, four already"
    rf"|\bbirthday\b[^.;!?]*?[,\s]\s*{_N}\s+(?:already|today|now)\b", re.I)

_OPENER = re.compile(r"^\W*(?:got|been|just|finally|recently|now|had|[a-z]+ed)\b", re.I)
"""A verb opening a sentence with its subject dropped, which the holder reading takes for a
name ("Got reassigned to bay 7")."""
_OWN_ORDINAL = re.compile(
    r"\b(?:had|celebrated|it'?s|was)\s+(?:my|his|her|their)\s+(\d{1,3}(?:st|nd|rd|th)|"
    + "|".join(broad._ORDINAL_WORDS) + r")\b(?!\s+(?!birthday\b)[a-z]{3,})", re.I)
"""A birthday ordinal of the sentence's holder: "Just had my 30th", "had her fifth birthday"."""


def settle(new: Claim, holder: str, claims: Sequence[Claim], skip: frozenset[str],
           verdict: Verdict) -> Verdict:
    """The rule's verdict (`supersede.decide`), settled by this mechanism: a statement that
    replaced nothing replaces the one held fact `fit` finds; a replace by a number, dose, count
    or age not yet true ("Finn turns 13 on Friday", "my fluoxetine is going up to 40mg in
    June") is refused (related: both kept, the new one marked newer)."""
    kind, target, reasons = verdict
    if (celebrated := reached(new, claims)) is not None:  # ("to celebrate him turning 12": the
        return celebrated  # age of the person the sentence names, reached; not the speaker's)
    if kind == "supersedes" and target is not None and once_of(new, claims[target]):
        return "related", target, (*reasons, "but said as a one-off of the held routine or a "
                                   "place's days: both kept, the new one marked newer")
    if kind == "supersedes" and target is not None and _not_yet(new, claims[target]):
        return "related", target, (*reasons, "but the new value is not yet true: both kept, "
                                   "the new one marked newer")
    if kind == "supersedes" and target is not None and (
            _other_drug(new, claims[target]) or _other_label(new, claims[target])):
        return "related", target, (*reasons, "but the number given is of another drug or "
                                   "label: both kept, the new one marked newer")
    if kind == "supersedes" and target is not None and (
            _younger(new, claims[target]) or _place_as_subject(new, claims[target]) or
            _theirs(new, claims[target])):
        return "related", target, (*reasons, "but the number given is an earlier age or the "
                                   "place's own: both kept, the new one marked newer")
    if kind in ("related", "new") and (hit := fit(new, holder, claims, skip)) is not None:
        return ("supersedes", *hit)
    return verdict


def _aged(c: Claim) -> bool:
    """Whether a held fact states an age: read as one, or as no other attribute and giving no
    labelled number or dose ("Our cat Biscuit is nine"; not "My locker is 31")."""
    return c.attribute == "age" or (c.attribute is None and not labelled(c.said) and
                                    not doses(c.said) and bool(ages(c.said)))


_KIN = "|".join(sorted((w for w in RELATIONS if w not in _CARERS), key=len, reverse=True))
_THEIRS = re.compile(rf"\b(?:my|our)\s+(?:{_KIN})(?:['\u2019]s\b|\s+(?:up|down|on|onto|off|to|"
                     r"takes?|is|was|has|gets?|got|turned)\b)", re.I)
"""Someone of the speaker's whose number, dose or age it is ("put my wife up to 250mg", "my
son's locker"); not the professional who changed the speaker's ("my doctor's upped it")."""


def _theirs(new: Claim, held: Claim) -> bool:
    """A number, dose or age of someone the sentence names ("Neurologist put my wife up to
    250mg of lamotrigine"), replacing the speaker's own ("I'm on 200mg of lamotrigine")."""
    if set(re.findall(r"\d+", new.said)) <= set(re.findall(r"\d+", held.said)):
        return False  # the speaker's own numbers again ("... is 4400 and my cat is Tom")
    return held.holder.rpartition("|")[2] == "i" and not _THEIRS.search(held.said) and \
        bool(_THEIRS.search(new.said)) and \
        bool(doses(new.said) or labelled(new.said) or ages(new.said))


def _younger(new: Claim, held: Claim) -> bool:
    """An age below the held one or far above it, not said as a correction ("My daughter was 5
    when we moved here" / "My daughter is 7"), or an age said of a past time ("was 5 when")."""
    mine, theirs = ages(new.said), ages(held.said)
    if len(theirs) != 1 or not _aged(held):
        return False
    wrong = misstated.wrong_value(new.context or new.said)  # ("I'm 58, not 38": said wrong)
    return bool(_WAS_WHEN.search(new.context or new.said)) or bool(mine) and not new.corrects \
        and not (wrong and wrong <= held.terms) \
        and (max(mine) < next(iter(theirs)) or min(mine) > next(iter(theirs)) + _AGED_AT_MOST)


_AGED_AT_MOST = 10
"""Most years a held age grows by in one step (12 -> 50 is someone else's: "Leo's class had a
party for Mr Evans, he turned 50"); a correction says more."""


def _place_as_subject(new: Claim, held: Claim) -> bool:
    """A number said of a place the speaker's held number is at ("The library is open 40 hours
    a week now" / "I do 20 hours a week at the library"): the place's, not the speaker's."""
    subject = slots.subject(new.said)
    if not subject or _FIRST.search(new.said) or not _FIRST.search(held.said):
        return False
    return re.search(rf"\b(?:at|in|for|with|from)\s+(?:the\s+|my\s+|our\s+)?"
                     rf"{re.escape(subject[-1])}", held.said, re.I) is not None


def _not_yet(new: Claim, held: Claim) -> bool:
    """An age, a dose or a labelled number, as the held fact has one, said of a time to come
    ("will be 8", "turns 13 on Friday", "going up to 40mg"), not of today or "from next
    week"."""
    said = new.context or new.said
    return bool(_LATER.search(said)) and not re.search(r"\btoday\b", said, re.I) and \
        any(bool(read(new.said)) and bool(read(held.said)) for read in (ages, doses, labelled)
            ) or bool(_AGE_LATER.search(new.said) and ages(held.said))


def fit(new: Claim, holder: str, claims: Sequence[Claim], skip: frozenset[str]) -> Fit | None:
    """The one held fact `new` gives another number, dose, count or age of (see the module
    docstring), and why; None when none or more than one fits, or when it is refused."""
    said = new.context or new.said
    head = _head(said)  # (what follows the value's clause is another matter: "Lily's just
    # turned 11 and wants a phone")
    if new.additive or _ADDITIVE.search(said) or slots.hypothetical(head) or \
            _QUESTION.search(said) or _NOT_YET.search(head) or _PAST.search(head):
        return None
    prefix, _, who = holder.rpartition("|")
    if who.startswith("named ") and (dropped_subject(new.said) or
                                     _OPENER.match(new.said) and _OPENER.match(who[6:])):
        holder = f"{prefix}|i" if prefix else "i"  # "Got reassigned to bay 7": the speaker
    aged = _age(new, holder, claims)  # ("she turned 8 last Saturday", "is 12 today": now)
    if aged is not None or (_ONE_OFF.search(said) or _ONCE.search(said)) and \
            not _CHANGED.search(said):
        return aged  # ("took 40mg today", "I'm in room 12 this week": once)
    return (None if _NAMES_ONE.search(said) else _labelled(new, holder, claims, said)) or \
        _dose(new, holder, claims, said) or _count(new, holder, claims, skip) or \
        work_days(new, holder, claims)


_NAMES_ONE = re.compile(r"\b[a-z]+\s+(?:number\s+|no\.?\s*|#)?\d+[a-z]?\s+(?:is|has|'s|was)\s+"
                        r"(?:\w+\s+)?\d", re.I)
"""A labelled number that names which one the sentence is about ("My locker number 1 is 4401":
locker 1's code), not a value of the holder's one locker."""


_VALUE = re.compile(rf"\d|\b(?:{_WORD_N}|{'|'.join(broad._ORDINAL_WORDS)})\b", re.I)


def _head(said: str) -> str:
    """`said` up to the end of the clause of its first number (`_CLAUSE_CUT`); all of it when
    it gives none."""
    value = _VALUE.search(said)
    cut = _CLAUSE_CUT.search(said, value.end()) if value is not None else None
    return said[:cut.start()] if cut is not None else said


def _number(word: str) -> str:
    w = word.lower()
    return str(_WORDS[w]) if w in _WORDS else w


def ages(text: str) -> set[int]:
    """The ages `text` gives as true now ("Jamie's 12 now", "turned 35", "had her tenth
    birthday"), as numbers."""
    out = {int(_number(n)) for m in _AGE.finditer(text) for n in m.groups() if n and
           _number(n).isdigit()}
    out |= {broad._age(m.group("n")) for m in broad._BIRTHDAY.finditer(text)}
    out |= {broad._age(m.group(1)) for m in _OWN_ORDINAL.finditer(text)}
    return {a for a in out if 0 < a < 120}


_BIRTHDAY_OF = re.compile(r"(?-i:\b([A-Z][a-z]+))['\u2019]s\s+(?:\w+\s+)?birthday\b")
"""Whose birthday a sentence about no one names ("It was Pepper's birthday yesterday")."""


def _age(new: Claim, holder: str, claims: Sequence[Claim]) -> Fit | None:
    """The held age of the same holder (a pronoun only as `_aged_pronoun` resolves it, a name
    only as the one held fact says it is of that age), one to five years below the age said
    now."""
    mine = ages(new.said)
    if len(mine) != 1:
        return None
    holder, age = _aged_pronoun(holder, claims), mine.pop()
    if "?" in holder and (of := _BIRTHDAY_OF.search(new.said)):  # ("It was Pepper's birthday")
        holder = holder.rpartition("?")[0] + "named " + of.group(1).lower()
    who = holder.rpartition("|")[2]
    if "?" in holder:
        return None
    if who.startswith("named "):  # "Speedy turned 41" / "Our tortoise Speedy is 40": the one
        # held fact that gives the name an age
        said_of = re.compile(rf"(?-i:\b{re.escape(who[6:].capitalize())}\b)(?:['\u2019]s)?\s+"
                             rf"(?:is|was|turned)\s", re.I)
        fits = [i for i, c in enumerate(claims) if not c.ends and said_of.search(c.said) and
                len(held := ages(c.said)) == 1 and 0 < age - held.pop() <= 5]
    else:
        fits = [i for i, c in enumerate(claims) if c.holder == holder and not c.ends and
                _aged(c) and len(held := ages(c.said)) == 1 and 0 < age - held.pop() <= 5]
    return (fits[0], (f"same holder ({holder})", f"an age said now ({age}), one to five years "
                      "past the held one", "the only held age of this holder")) \
        if len(fits) == 1 else None


def earlier_ages(text: str) -> list[str]:
    """The ages one to five years below an age `text` gives now, in digits and in words: what
    the held age may be ("Just had my 30th" / "I'm 29"), for the search that finds it."""
    back = {a - k for a in ages(text) for k in range(1, 6) if a - k > 0}
    words = {n: w for w, n in _WORDS.items()}
    return [f for a in sorted(back) for f in (str(a), words.get(a, "")) if f]


_STRENGTHS = {"mg": (5, 10, 20, 25, 30, 40, 50, 75, 100, 150, 200, 250, 500),
              "mcg": (25, 50, 75, 100, 125, 150, 200)}


def held_strengths(text: str) -> list[str]:
    """For a dose given with no drug named ("the GP has bumped me up to 50mcg"), the usual
    strengths of its unit as a held dose spells them ("25mcg"): what the search that finds
    the speaker's one held dose looks for, since no other word of it is said."""
    units = {u for d, u, _ in doses(text) if not d and u in _STRENGTHS}
    return [f"{n}{u}" for u in sorted(units) for n in _STRENGTHS[u]]


def _aged_pronoun(holder: str, claims: Sequence[Claim]) -> str:
    """"she" or "he" as the one third party of that gender with a held age ("My daughter is
    4" / "She had her fifth birthday party"); else `holder` as it is."""
    prefix, _, who = holder.rpartition("|")
    if who not in ("?she", "?he"):
        return holder
    owners = {c.holder for c in claims if c.holder.rpartition("|")[0] == prefix and
              "?" not in c.holder and pronoun(c.holder.rpartition("|")[2]) == who[1:] and
              ages(c.said)}
    return owners.pop() if len(owners) == 1 else holder


def labelled(text: str) -> dict[str, set[tuple[frozenset[str], str]]]:
    """The labelled numbers of `text`, by label, each with the words that tell one of its
    kind from another (a noun before the label, one after the number): {"locker": {((),
    "58")}}, {"code": {({"door"}, "4471")}}, {"size": {({"shoe"}, "10")}}; a route taken ("I
    catch the 23") is a "route"."""
    out: dict[str, set[tuple[frozenset[str], str]]] = {}
    for m in _LABELLED.finditer(text):
        label = (m.group("label") or m.group("label2")).lower()
        words = [w.lower() for w in (m.group("mod"), m.group("mod2"), m.group("after")) if w]
        if label == "number":  # "my locker number", "the number 10 shirt": the locker's, the
            # shirt's
            label = next((w for w in words if w in _NOUNS.split("|") or w in _SAME_LABEL),
                         label)
        label = _SAME_LABEL.get(label, label)
        quals = frozenset(_loose(stem(w)) for w in words if w not in _NOT_MODS and
                          w not in FACT_STOPWORDS and _SAME_LABEL.get(w, w) != label)
        out.setdefault(label, set()).add((quals, (m.group("n") or m.group("n2")).lower()))
    for m in _ROUTE.finditer(text):
        out.setdefault("route", set()).add((frozenset(),
                                            next(g for g in m.groups() if g).lower()))
    if "number" in out and (len(out) > 1 or any(q for q, _ in out["number"])):
        del out["number"]  # ("my locker number is 31": the locker's; "the museum number 5":
        # no label of this class)
    return out


def _labelled(new: Claim, holder: str, claims: Sequence[Claim], said: str) -> Fit | None:
    """The one held number of the same label (and the same word before it when both say one:
    "door code" / "gate code" are two), another number said in its place."""
    mine = labelled(new.said)  # (the clause's own values, not its sentence's)
    if re.search(r"\b(?:next\s+to|beside|opposite|than|like|near)\s+(?:mine|ours)\b", said,
                 re.I):
        return None  # "Bay 23 next to mine is empty now": another one
    if _EVENT.search(said) and not (_CHANGED.search(said) or re.search(r"\bnow\b", said, re.I)):
        return None  # "I visited room 12", "we stayed in flat 3": where one was, once
    fits: list[tuple[int, str]] = []
    for i, c in enumerate(claims):
        if not c.said or c.ends:
            continue
        for label, held in labelled(c.said).items():
            if len(held) != 1 or label not in mine:
                continue
            (quals, value), = held
            given = {v for q, v in mine[label] if not (q and quals and not q & quals)}
            new_values = given - {value}
            if len(new_values) == 1 and (value not in given or new.cue) and \
                    _owner_fits(holder, c, said, label) and _subject_fits(new.said, c, label):
                fits.append((i, " ".join([*sorted(quals), label])))
    if len({i for i, _ in fits}) != 1:
        return None
    i, thing = fits[0]
    return i, (f"the same label ({thing})", "another number given for it",
               "the only held number of that label")


def _owner_fits(holder: str, c: Claim, said: str, label: str) -> bool:
    """The same holder or a weak one ("they", "it", the speaker) for the speaker's, or anyone
    changing a thing no one owns ("the door code"), when the sentence names no other person
    than the held fact does ("the key safe code at Mum's" in both is one code)."""
    other = {m.lower() for m in _others(said)} - {m.lower() for m in _others(c.said)}
    mine, theirs = holder.rpartition("|")[2], c.holder.rpartition("|")[2]
    if other or _possessor(said, label) != _possessor(c.said, label):
        return False  # ("Ann4's locker number is 37" is not "My locker at the pool ...")
    if holder == c.holder or (mine in ("?they", "?it", "i") and theirs == "i"):
        return True
    unowned = re.compile(rf"\bthe\s+(?:[a-z]+\s+){{0,2}}{label}\b", re.I)
    return bool(unowned.search(c.said) and unowned.search(said)) and \
        not re.search(r"\b(?:my|our)\b", said, re.I)


def _possessor(text: str, label: str) -> str | None:
    """Whose the label is by a possessive right before it ("Ann's locker", "Dad's new desk"),
    lower-case; None when none is said ("my locker", "the gate code")."""
    m = re.search(rf"\b([\w-]+)['\u2019]s\s+(?:[a-z]+\s+)?{label}\b", text, re.I)
    return m.group(1).lower() if m else None


def _others(text: str) -> list[str]:
    """The other people a sentence names (`broad._OTHER`): "my brother", "she", "Tom's"."""
    return [m.group(0) for m in broad._OTHER.finditer(text)]


def _subject_fits(said: str, held: Claim, label: str) -> bool:
    """Whether the sentence's subject may be the held label's: none, the label or a word of the
    held fact, or another ("the club", "they") that gives it to the speaker ("my seat", "gave
    me") or changes a thing no one owns ("the gate code"). Not "The printer moved to desk 20"
    (the printer's desk)."""
    subject = slots.subject(said)
    the = re.compile(rf"\bthe\s+(?:[a-z]+\s+){{0,2}}{label}\b", re.I)
    unowned = bool(the.search(held.said) and the.search(said))
    opens = re.match(rf"\W*(?:the\s+)?{label}\s+(?:number\s+|no\.?\s*)?\d", said, re.I)
    if opens or subject and subject[-1] == label:  # "Bay 23 is free now": a bay, not mine
        return bool(_FIRST.search(said)) or unowned
    if not subject or set(subject) & held.terms or stem(subject[-1]) in held.terms:
        return True
    return bool(re.search(rf"\b(?:my|our)\s+(?:[a-z]+\s+)?{label}\b|\bme\b", said, re.I)) or \
        unowned


def doses(text: str) -> set[tuple[str, str, str]]:
    """The doses `text` gives, as (drug, unit, number): "5mg of amlodipine" ("amlodipine",
    "mg", "5"), "my amlodipine's been doubled to 10mg" ("amlodipine", "mg", "10")."""
    out = set()
    for m in _DOSE.finditer(text):
        unit = stem(m.group(2).lower().replace("micrograms", "mcg").replace("microgram", "mcg"))
        after = _OF_DRUG.match(text[m.end():])
        before = [*_DRUG_BEFORE.finditer(text[max(0, m.start() - 60):m.start()]),
                  *_RIGHT_BEFORE.finditer(text[max(0, m.start() - 30):m.start()])]
        drug = ""
        for found in (after, *reversed(before)):
            word = next((g for g in found.groups() if g), "") if found is not None else ""
            if word and word.lower() not in _NOT_DRUGS:
                drug = stem(word.lower())
                break
        out.add((drug, unit, _number(m.group(1))))
    return out


_CARER = re.compile(rf"\bmy\s+(?:{'|'.join(sorted(_CARERS))}|psychiatrist|consultant|"
                    r"pharmacist|specialist|cardiologist|diabetes\s+nurse)\b", re.I)
"""Who changed the speaker's dose, not whose dose it is ("My psychiatrist cut the propranolol
down, so now it's 20mg")."""


def _dose(new: Claim, holder: str, claims: Sequence[Claim], said: str) -> Fit | None:
    """The one held dose of the same drug in the same unit, another number given for it."""
    mine = doses(new.said)
    if not mine:
        return None  # (no dose given: none to fit, as the loop below would find)
    fits: list[tuple[int, str]] = []
    cared = _CARER.sub("the doctor", said)  # ("My psychiatrist cut ...": not whose dose)
    for i, c in enumerate(claims):
        if not c.said or c.ends or not (broad._holder_fits(holder, c.holder, cared) or
                                        _my_drug(c, said)):
            continue
        held = doses(c.said)
        if len(held) != 1:
            continue
        (drug, unit, value), = held
        given = {n for d, u, n in mine if u == unit and drug and
                 (d == drug or not d and drug in _drugs(said))}
        if given and value not in given:
            fits.append((i, drug))
    who = holder.rpartition("|")[2]
    kin = who not in ("i", "") and not who.startswith(("?", "named ")) and _ITS_THEIRS.search(said)
    if not fits and mine and not any(d for d, _, _ in mine) and (kin or _MINE.search(said) and (
            _MOVED_ME.search(said) or not broad._OTHER.search(said.replace("doctor's", "doctor")))):
        # No drug named, the speaker's dose ("the doctor's bumped me up to 75mg"), or a
        # relation's said of them ("Dad ... he's on 10mg now"): the one held dose of theirs in
        # that unit, when they hold one only.
        units = {u for _, u, _ in mine}
        mine_held = [(i, dose) for i, c in enumerate(claims) if c.said and not c.ends and
                     c.holder.rpartition("|")[2] == (who if kin else "i") and
                     (dose := doses(c.said))]
        if len(mine_held) == 1 and len(mine_held[0][1]) == 1:
            (drug, unit, value), = mine_held[0][1]
            if drug and unit in units and value not in {n for _, u, n in mine if u == unit}:
                fits = [(mine_held[0][0], drug)]
    if len(fits) != 1:
        return None
    i, drug = fits[0]
    return i, (f"the same drug ({drug})", "another dose in the held unit",
               "the only held dose of that drug")


_ITS_NOW = (r"(?:^|[,;])\W*(?:it'?s|it\s+is)\s+(?:now\s+)?\d[^.!?]*\b"
            r"(?:now|from\s+(?:here|now)\s+on|going\s+forward|these\s+days)\b")
"""The speaker's one drug as "it", at a dose from now ("..., it's 40mg daily from here on")."""
_MOVED_ME = re.compile(rf"\b[a-z]+\s+me\s+(?:up|down|back)\s+(?:to|onto)\b|{_ITS_NOW}"
                       r"|\b(?:dropped|cut|put|moved|upped|raised|lowered|reduced|increased)\s+me\s+"
                       r"to\s+\d", re.I)
"""The speaker's dose moved by someone ("She's bumped me up to 100mg"): whoever did it."""
_MINE = re.compile(r"\b(?:me|my\s+dose)\b|\b(?:i'm|i\s+am)\s+(?:now\s+|only\s+)?(?:on|taking)\s+\d"
                   rf"|{_ITS_NOW}", re.I)
"""The dose is the speaker's: "put me up to 75mg", "my dose is 20mg now", "I'm on 40mg now",
"it's 40mg daily from here on" (their one drug, as "it")."""


_ITS_THEIRS = re.compile(r"\b(?:he|she)(?:['\u2019]s|\s+is)\s+(?:now\s+|only\s+)?(?:on|taking)\s+\d"
                         r"|\b(?:him|her)\s+(?:up|down|back)\s+(?:to|onto)\s+\d", re.I)
"""A relation's dose said of them ("he's on 10mg a day now", "put her up to 40mg")."""


def with_drug(text: str, sentence: str, held: str) -> str:
    """The record text of a clause that gives a new dose of the held fact's one drug named only
    elsewhere in its sentence ("My psychiatrist cut the propranolol down, so now it's 20mg"):
    the whole sentence, so the record says which drug (and the vet, reading the text alone,
    finds the same one). Else `text`."""
    theirs = doses(held)
    if not sentence or len(theirs) != 1 or len(sentence) > 400:
        return text
    drug = next(iter(theirs))[0]
    named = rf"\b{re.escape(drug)}"
    return sentence if drug and doses(text) and not re.search(named, text, re.I) and \
        re.search(named, sentence, re.I) else text


def _my_drug(held: Claim, said: str) -> bool:
    """Whether `said` names the speaker's held drug as theirs ("Dr Patel halved my
    atorvastatin") and no one else's."""
    theirs = doses(held.said)
    if held.holder.rpartition("|")[2] != "i" or len(theirs) != 1 or broad._OTHER.search(said):
        return False
    drug = re.escape(next(iter(theirs))[0])  # (or "took me down to 75mg of venlafaxine")
    return bool(re.search(rf"\bmy\s+{drug}", said, re.I) or
                re.search(r"\bme\b", said, re.I) and re.search(rf"\b{drug}", said, re.I))


def _other_drug(new: Claim, held: Claim) -> bool:
    """Whether every dose `new` gives in the unit of the held one's is "of" another drug ("I
    take 10mg of propranolol with my sertraline now" / "I take 50mg of sertraline")."""
    theirs = doses(held.said)
    if len(theirs) != 1:
        return False
    (drug, unit, _), = theirs
    named = {(stem(d.lower()), stem(u.lower())) for d, u in
             ((m.group(2), m.group(1)) for m in _DOSE_OF.finditer(new.said))}
    mine = [d for d, u, _ in doses(new.said) if u == unit]
    return bool(drug) and bool(mine) and all(d and d != drug and (d, unit) in named
                                             for d in mine)


def _other_label(new: Claim, held: Claim) -> bool:
    """Whether the number `new` gives of the held label is of another of its kind, by the
    words around both ("size 12 jeans" / "size 10 shoes", "the alarm code" / "the door
    code")."""
    mine = labelled(new.said)
    for label, theirs in labelled(held.said).items():
        quals = {q for q, _ in theirs}
        if label in mine and all(q for q, _ in mine[label]) and all(q for q in quals) and \
                not any(q & p for q, _ in mine[label] for p in quals):
            return True
    return False


def _drugs(said: str) -> set[str]:
    return {stem(w.lower()) for w in re.findall(r"[A-Za-z][a-z-]{3,}", said)}


def _count(new: Claim, holder: str, claims: Sequence[Claim], skip: frozenset[str]) -> Fit | None:
    """A count of a thing a named holder owns in both sentences ("Maisie's class has 31 kids
    now" / "There are 28 kids in Maisie's class"): `broad.amount` read with the held fact's
    holder, when exactly one held holder says that thing."""
    who = holder.rpartition("|")[2]
    if not who.startswith("named "):
        return None
    owns = re.compile(rf"\b{re.escape(who[6:])}['\u2019]s\s+([a-z]+)", re.I)
    mine = {m.group(1).lower() for m in owns.finditer(new.said)}
    owners = {c.holder for c in claims if c.said and
              {m.group(1).lower() for m in owns.finditer(c.said)} & mine}
    if len(owners) != 1:
        return None
    owner = owners.pop()
    # The name's thing read as the held holder's ("the class has 31 kids now"), so that the name
    # is not taken for another person beside the held holder.
    mine_said = owns.sub(lambda m: "the " + m.group(1), new.said)
    context = owns.sub(lambda m: "the " + m.group(1), new.context) if new.context else ""
    return broad.amount(replace(new, holder=owner, said=mine_said, context=context), owner,
                        claims, skip)


_DAYS_A_WEEK = re.compile(rf"\b{_N}[-\s]+days?\s+(?:a|per|each)\s+week\b|\b{_N}-day\s+week\b", re.I)
_WORKS = re.compile(r"\bwork(?:s|ing)?\b(?!\s+(?:out|from\s+home|in\s+the\s+office))", re.I)
_PUT_ME = re.compile(r"^\W*(?:the\s+|my\s+|our\s+)?[a-z]+\s+(?:has\s+|have\s+|'s\s+)?(?:put|moved|"
                     r"bumped|dropped|cut|upped|switched)\s+me\s+(?:up\s+|down\s+|back\s+)?"
                     r"(?:on|onto|to)\s+|\s+from\s+(?:the\s+)?(?:new|next)\s+(?:term|year|month)\W*$",
                     re.I)
"""Who moved the speaker's days, and from when ("The boss has put me on four days a week from
the new term"): read as the days alone."""
_NOW_ON = re.compile(r"\b(?:now|since|from\s+here\s+on|from\s+now\s+on|these\s+days|nowadays|"
                     r"any\s*more|instead|from\s+(?:this|next)\s+(?:week|month)|"
                     r"from\s+(?:the\s+)?(?:new|next)\s+(?:term|year))\b", re.I)
_SINCE_WHAT = re.compile(r"^\W*(?:since|after)\s+(?:the|my|our)\s+[a-z-]+\s*,?\s*", re.I)
_SINCE_END = re.compile(r"\s+(?:since|after)\s+(?:the|my|our)\s+[a-z-]+\W*$", re.I)
"""Since when, closing the sentence ("... since the restructure"; not "since the gym reopened":
what reopened may be what the days are of)."""
_BARE_DAYS = frozenset("""i i'm im i've we we're we've it it's its doing do does did work works
    working am is are a per each day days week now since from here on these nowadays any more
    anymore instead this next month full part time back go gone went going to the my just only so
    been got moved bumped dropped cut up down that's which and monday tuesday wednesday
    thursday friday saturday sunday""".split()) | set(_WORDS)
"""What a statement of the speaker's days a week may say besides the number ("It's five days
a week from here on"): another word is another routine ("three days a week at the gym")."""


def work_days(new: Claim, holder: str, claims: Sequence[Claim]) -> Fit | None:
    """The one held fact of the speaker's that says how many days a week they work ("I work
    four days a week"), for a statement that gives another number of days a week as true
    from now on ("It's five days a week from here on", "Since the restructure I'm doing four
    days a week") and names nothing else it could be of (`_BARE_DAYS`)."""
    mine = _DAYS_A_WEEK.search(new.said)
    bare = _SINCE_END.sub("", _SINCE_WHAT.sub("", _PUT_ME.sub("", new.said.split(",")[0])))
    words = {w.lower() for w in re.findall(r"[A-Za-z']+", bare)}
    if mine is None or not _NOW_ON.search(new.said) or holder.rpartition("|")[2] not in \
            ("i", "?it") or not words <= _BARE_DAYS | {"week", "weeks"}:
        return None
    n, prefix = _number(mine.group(1) or mine.group(2)), holder.rpartition("|")[0]
    fits = [i for i, c in enumerate(claims) if c.holder == (f"{prefix}|i" if prefix else "i")
            and not c.ends and _WORKS.search(c.said) and (held := _DAYS_A_WEEK.search(c.said))
            and _number(held.group(1) or held.group(2)) != n]
    return (fits[0], ("the speaker's days of work a week", f"another number of days ({n}) "
                      "said as true from now on", "the only held fact of them")) \
        if len(fits) == 1 else None
