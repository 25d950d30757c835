"""Corrections read by broad mechanisms, for wordings no phrase rule of `step/supersede.py`
names (each guarded by its near-misses in `tests/test_supersede_broad.py`):

- an age by a birthday ordinal ("my grandson had his fifth birthday", "my mum's 70th") replaces
  the held age of that holder, one to five years on;
- an amount moved by any verb form ("I've had to drop the food budget to £45 a week", "they
  cut my hours, it's only 22 a week now") replaces the one held amount of the same unit and
  the same thing (a noun both say, or the held unit itself with nothing else said);
- the last clause of a comma-joined sentence ("Gareth got moved to another project, Sophie is
  my team lead now") is read for the holder's attribute (`last_clause`), not the sentence's
  first subject.

A weak holder ("they", "it", the speaker) does not block the amount when the thing is shared
and exactly one held fact fits; another person named in the sentence ("my brother's gym")
always does. A maybe, an addition or a one-off replaces nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..text import fact_terms, stem
from . import slots
from .claim import Claim
from .clauses import clauses
from .endings import _ADDITIVE, _CUE_TERMS, _LIGHT, _ONE_OFF, _TIME_WORDS, _loose
from .holders import PAYEES, RELATIONS, pronoun
from .lexicon import BARE_SUM, NUMBER_WORD, NUMBER_WORDS, sums_bare

Fit = tuple[int, tuple[str, ...]]
"""The index of the one held fact replaced, and why."""

_ORDINAL_WORDS = {w: n for n, w in enumerate(
    """first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth
    thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth
    twentieth""".split(), start=1)}
_REL = "|".join(sorted(RELATIONS, key=len, reverse=True))
_BIRTHDAY = re.compile(
    rf"(?:\b(?:my|our)\s+(?P<rel>{_REL})['\u2019]s|\b(?P<pro>his|her))\s+"
    rf"(?P<n>\d{{1,3}}(?:st|nd|rd|th)|{'|'.join(_ORDINAL_WORDS)})"
    r"(?=\s+birthday\b|\s+(?:on|at|in|last|this|yesterday|party|bash|over)\b|\s*[.,!;]|\s*$)",
    re.I)


def _age(word: str) -> int:
    w = word.lower()
    return _ORDINAL_WORDS[w] if w in _ORDINAL_WORDS else int(re.sub(r"\D", "", w))


def birthday(new: Claim, holder: str, claims: Sequence[Claim]) -> Fit | None:
    """The held age of the holder a birthday ordinal is of ("My daughter had her 17th"): the
    relation named with it ("my son's 10th"), else the sentence's own holder (a relation,
    never the speaker) for "his" / "her". Only an age one to five years on."""
    m = _BIRTHDAY.search(new.said)
    if m is None or slots.hypothetical(new.said):
        return None
    prefix, _, who = holder.rpartition("|")
    if m.group("rel"):
        who = RELATIONS[m.group("rel").lower()]
    elif who in ("i", "") or "?" in who or who.startswith("named "):
        # ("We threw Pepper a party for her fourth birthday": the one held holder named)
        named = {c.holder.rpartition("|")[2] for c in claims for w in
                 _CAPITALISED.findall(new.context or new.said)[1:]
                 if c.holder.rpartition("|")[2].endswith(" " + w.lower())}
        if not m.group("pro") or len(named) != 1:
            return None
        who = named.pop()
    age = _age(m.group("n"))
    owner = f"{prefix}|{who}" if prefix else who
    fits = [i for i, c in enumerate(claims) if c.holder == owner
            and (n := _held_age(c)) is not None and 0 < age - n <= 5]
    if len(fits) != 1:
        return None
    return fits[0], (f"same holder ({owner})", f"a birthday ordinal ({m.group('n')}) after the "
                     "held age", "the only held age of this holder")


_AGE_IN_WORDS = re.compile(rf"\b(?:is|'s)\s+(?:now\s+)?({NUMBER_WORD})"
                           r"(?:\s+(?:now|years?\s+old))?\W*$", re.I)


def _held_age(c: Claim) -> int | None:
    """The age a held fact gives: its one number ("is 7", "turned 8"), or a number word closing
    "is ..." ("Our cat Pepper is three")."""
    if c.attribute not in ("age", None):
        return None
    words = _AGE_IN_WORDS.search(c.said)
    if words:
        return NUMBER_WORDS[words.group(1).lower()]
    nums = [int(t) for t in c.key if t.isdigit()] if c.attribute == "age" else []
    return nums[0] if len(nums) == 1 else None


_CHANGE = re.compile(
    r"\b(?:drop|cut|rais|increas|reduc|bump|lower|hik|slash|trim|upp|doubl|halv|chang|mov|shift|"
    r"switch|resched|"
    r"brought|bring|knock|push|jack|risen|rose|went|gone|goes|fell|fall|come|came)\w*\b"
    r"|\bput\w*\b[^.,;]*\b(?:up|down)\b|\bnow\b|\bthese\s+days\b|\bfrom\s+now\s+on\b"
    r"|\b(?:price|rent)\s+rise\b|\bonwards\b", re.I)
_AMOUNT = re.compile(
    r"(?P<cur>[£$€])\s?(?P<sum>\d[\d,.]*)(?:k\b)?|\b(?P<num>\d+(?:\.\d+)?)(?:\s+(?P<unit>"
    r"(?!a\b|an\b|per\b|each\b|every\b|to\b|from\b|now\b|and\b|or\b|(?:january|february|march|"
    r"april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|"
    r"aug|sept?|oct|nov|dec)\b)[a-z]+))?", re.I)  # ("23 June" is a date, not 23 of a unit)
_PERIOD = re.compile(r"\b(?:a|an|per|each|every)\s+(day|night|week|fortnight|month|year|"
                     r"hour|term|session)\b", re.I)
_OTHER = re.compile(rf"\b(?:my|our|your)\s+(?:{_REL})\b|\b(?:he|she|he's|she's|his|her)\b"
                    r"|(?-i:\b(?!(?:It|That|There|Here|What|Who|Where|Let|Everything|Something|"
                    r"Nothing|Anything|Everyone|Someone|Everybody|Somebody|Nobody|"
                    + "|".join(w.capitalize() for w in sorted(PAYEES) if " " not in w)
                    + r")['\u2019])"
                    r"[A-Z][a-z]+"
                    r"['\u2019]s\b)", re.I)  # (someone's, not "It's")
_FILLER = frozenset(stem(w) for w in """only just about around roughly nearly almost now
    these days been had to have got getting get it it's its i'm i've they they've we we've
    the a an my our up down back over per each every all total""".split())


def _amounts(text: str) -> list[tuple[str, str]]:
    """The amounts `text` gives, each as (unit, number): "£" for a sum, else the word after
    the number ("30 hours" -> ("hour", "30")), "" when none."""
    out = []
    for m in _AMOUNT.finditer(text):
        if m.group("cur"):
            out.append((m.group("cur"), m.group("sum").rstrip(".,")))
        elif not re.match(r"\d{1,2}(?::|am|pm)", text[m.start():m.start() + 5], re.I):
            bare = not m.group("unit") and _BARE.match(text, m.start()) is not None and \
                sums_bare(text)
            out.append(("£" if bare else stem(m.group("unit").lower()) if m.group("unit") else "",
                        m.group("num")))
    return out


def _content(text: str) -> set[str]:
    return {_loose(t) for t in fact_terms(text) if not t[0].isdigit()} - \
        {_loose(t) for t in _FILLER | _LIGHT | _TIME_WORDS | _CUE_TERMS}


_NAMED_THING = re.compile(r"\b(?:the|my|our|its|their|his|her)\s+([a-z]+)", re.I)
_PRICE_WORDS = frozenset("price prices rise bill bills cost costs charge payment tariff deal "
                         "contract direct debit".split())
_BARE = re.compile(BARE_SUM, re.I)  # ("we pay 1200 a month": a sum)
_LANDLORD = re.compile(rf"\b(?:{'|'.join(sorted(PAYEES, key=len, reverse=True))})\b", re.I)
_IT_IS = re.compile(r"\b(?:it'?s|it\s+is)\s+(?:now\s+|gone\s+up\s+to\s+)?(?:[£$€]\d|"
                    rf"{BARE_SUM})", re.I)


def amount(new: Claim, holder: str, claims: Sequence[Claim], skip: frozenset[str]) -> Fit | None:
    """The one held amount `new` moves to another value of its unit, by any change word."""
    said = new.context or new.said
    own = new.said if _amounts(new.said) else said  # (a one-off of another clause is its own:
    if new.additive or _ADDITIVE.search(said) or slots.hypothetical(said) or \
            _ONE_OFF.search(own) or not _CHANGE.search(said):  # "I got the letter this morning")
        return None
    mine = _amounts(said)
    if not mine:
        return None
    period = {p.lower() for p in _PERIOD.findall(said)}
    fits: list[tuple[int, str]] = []
    for i, c in enumerate(claims):
        if not c.said or c.ends or not _holder_fits(holder, c.holder, said):
            continue
        theirs = _amounts(c.said)
        if len(theirs) != 1:
            continue
        unit, value = theirs[0]
        if not unit:
            continue  # "room 204", "desk 14": a label, not an amount
        held_period = {p.lower() for p in _PERIOD.findall(c.said)}
        if period and held_period and period != held_period:
            continue  # "£40 a month" / "£460 a year": two sums
        given = [v for u, v in mine if (u == unit or (not u and unit and
                                                      _loose(unit) in _content(said)))]
        if not given or value in given:
            continue
        thing = _thing(said, c.said, unit, skip) or (
            _IT_IS.search(said) and period and period == held_period and
            not {n.lower() for n in _NAMED_THING.findall(said)} - _PRICE_WORDS - c.terms and
            f"it, a {unit} a {next(iter(period))}")  # ("The price rise has kicked in, it's £35")
        if not thing and _LANDLORD.search(said) and re.search(r"\brent\b", c.said, re.I):
            thing = "the rent, by the landlord"  # ("Landlord's put it up to £925")
        if thing:
            fits.append((i, thing))
    if len(fits) != 1:
        return None
    i, thing = fits[0]
    return i, (f"the same thing ({thing})", "another amount of the held unit",
               "worded as a change", "the only held amount that fits")


def _holder_fits(holder: str, theirs: str, said: str) -> bool:
    """The same holder, or a weak one ("they", "it", the speaker) for a held fact of the
    speaker, when the sentence names no other person."""
    if holder == theirs:
        return not (theirs.rpartition("|")[2] == "i" and _OTHER.search(said))
    weak = holder.rpartition("|")[2] in ("?they", "?it", "i")
    return weak and theirs.rpartition("|")[2] == "i" and not _OTHER.search(said)


def _thing(new: str, held: str, unit: str, skip: frozenset[str]) -> str | None:
    """What both amounts are of: a content word both say, no word before it differing
    ("water bill" / "gas bill"), or the held unit itself when nothing else is said."""
    mine, theirs = _content(new), _content(held)
    skipped = {_loose(stem(w)) for w in skip}
    shared = (mine & theirs) - skipped - {_loose(unit)}
    shared |= {a for a in mine - skipped for b in theirs - skipped  # ("electric" / "electricity")
               if min(len(a), len(b)) >= 6 and (a.startswith(b) or b.startswith(a))}
    for word in sorted(shared):
        if not _other_modifier(new, held, word):
            return word
    extra = {w for w in mine - theirs - {_loose(unit)} - skipped if not _CHANGE.match(w)}
    if unit and unit not in "£$€" and _loose(unit) in mine and not extra:
        return unit
    return None


def _other_modifier(new: str, held: str, word: str) -> bool:
    """Whether `word` is said with another word beside it on each side: "water bill" / "gas
    bill", "water bill" / "water prices": two things."""
    plain = {_loose(stem(w)) for w in """the a my our your their his her is are was were has
        have had to at on in for of up down now went gone""".split()}

    def beside(text: str, step: int) -> set[str]:
        terms = [_loose(stem(w.lower())) for w in re.findall(r"[A-Za-z']+", text)]
        return {terms[k + step] for k in range(len(terms)) if terms[k] == word and
                0 <= k + step < len(terms)} - plain
    return any(bool(a) and bool(b) and not (a & b)
               for a, b in ((beside(new, -1), beside(held, -1)), (beside(new, 1), beside(held, 1))))


_PRONOUN = re.compile(r"^(?:he|she|they|it|his|her|their)\b", re.I)
_JOINER = re.compile(r"^\s*(?:so|and|but|then|now)\b\s*", re.I)


def last_clause(new: Claim) -> str | None:
    """The last clause of a comma-joined sentence, when it has a subject of its own ("...,
    Sophie is my team lead now", "..., so I'm with Dr Novak now"): read for the holder's
    attribute. None for a sentence of one clause, a last clause whose subject is a pronoun,
    or a first clause about another person."""
    said = new.said.strip()
    head, comma, tail = said.rpartition(",")
    tail = _JOINER.sub("", tail).strip()
    if not comma or len(head.split()) < 2 or len(tail.split()) < 3 or _OTHER.search(head) or \
            _PRONOUN.match(tail):
        return None  # ("Anika's brother switched schools, he's at Oakfield now": not mine)

    parts = clauses(tail[0].upper() + tail[1:])
    return parts[-1] if parts else None


_IN_PLACE = re.compile(r"\binstead\b(?!\s+of\b)|\bnow\b|\bthese\s+days\b", re.I)


def ended_before(new: Claim, holder: str, claims: Sequence[Claim]) -> Fit | None:
    """The one held fact whose value the statement filed just before this one said ended
    ("Cancelled the PureGym membership."), replaced by this one's new value of its type, said
    to be in its place ("Signed up at Anytime Fitness instead.", "It's Lidl now")."""
    said = new.context or new.said
    if len(claims) < 2 or not _IN_PLACE.search(said) or new.additive or \
            _ADDITIVE.search(said) or slots.hypothetical(said) or _ONE_OFF.search(said):
        return None
    prev = claims[-1]
    if not prev.said or prev.said == new.said or slots.hypothetical(prev.said):
        return None
    fits: list[int] = []
    for i, c in enumerate(claims[:-1]):
        if not c.said or c.ends or (holder != c.holder and _OTHER.search(said)):
            continue  # ("My brother's at Oakfield now": not the held fact's holder)
        held = {_loose(t) for t in c.terms}
        gone = slots.ended_again(c.said, prev.said) or (prev.ends and prev.ends <= held)
        if gone and (slots.another_value(new.said, c.said) or
                     slots.fresh_type(new.said, c.said)):
            fits.append(i)
    if len(fits) != 1:
        return None
    return fits[0], ("the statement before it says the held value ended",
                     "a new value of its type said to be in its place",
                     "the only held fact that fits")


_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|me|my|we|we're|we've|us|our)\b", re.I)


def weak_holder(new: Claim, holder: str, claims: Sequence[Claim], skip: frozenset[str]) -> \
        Fit | None:
    """The one held fact of another holder (a relation) that a statement with a weak holder
    ("they", "the piano lesson", "the kids'") replaces on strong evidence of the thing: a noun
    phrase of two words both say ("piano lesson"), or the held value named as ended ("Joan
    left the agency"), and a new value of its type. Never when the statement names a person
    ("my brother's", "Mum's") or the speaker ("my piano lesson" is the speaker's own)."""
    said = new.context or new.said
    who = holder.rpartition("|")[2]
    if not (who in ("i", "?they", "?it") or who.startswith("named ")) or \
            _FIRST_PERSON.search(said) or _OTHER.search(said) or new.additive or \
            _ADDITIVE.search(said) or slots.hypothetical(said) or _ONE_OFF.search(said) or \
            not (_CHANGE.search(said) or _IN_PLACE.search(said)):
        return None
    mine = _pairs(new.said, skip)
    fits: list[tuple[int, str]] = []
    for i, c in enumerate(claims):
        if not c.said or c.ends or c.holder == holder or "?" in c.holder:
            continue
        shared = mine & _pairs(c.said, skip)
        gone = slots.ended_again(c.said, said)
        kind = slots.changed_type(new.said, c.said) or slots.fresh_type(new.said, c.said) or \
            (slots.another_value(new.said, c.said) if gone else None)
        if kind and (shared or gone):
            fits.append((i, " ".join(sorted(shared)[0]) if shared else sorted(gone)[0]))
    if len(fits) != 1:
        return None
    i, thing = fits[0]
    return i, (f"a weak holder ({who})", f"the same thing ({thing})", "another value of its type",
               "the only held fact that fits")


def _pairs(text: str, skip: frozenset[str]) -> set[tuple[str, str]]:
    """The two-word noun phrases of `text` (`slots.phrases`), possessives and people off."""
    out = set()
    for p in slots.phrases(text, skip):
        words = [w for w in p if not w.endswith("'") and w not in skip]
        out |= {(a, b) for a, b in zip(words, words[1:], strict=False)}
    return out


_CAPITALISED = re.compile(r"(?-i:\b[A-Z][\w-]+)")


def by_their_thing(new: Claim, claims: Sequence[Claim]) -> str | None:
    """Whom "she" or "he" stands for by a thing of theirs the sentence names ("She's got an
    MG4 after the Dacia failed its MOT": the one of that gender whose held fact names the
    Dacia), when the attribute does not say; None unless exactly one such holder."""
    prefix, _, who = new.holder.rpartition("|")
    if who not in ("?she", "?he"):
        return None
    named = {w for w in _CAPITALISED.findall(new.context or new.said)[1:]
             if w.lower() not in ("i", "i'm", "i've", "she", "he", "she's", "he's")}
    owners = {c.holder for c in claims if c.holder.rpartition("|")[0] == prefix and
              c.holder.rpartition("|")[2] not in ("i",) and "?" not in c.holder and
              pronoun(c.holder.rpartition("|")[2]) in (who[1:], None) and
              any(re.search(rf"(?-i:\b{re.escape(w)}\b)", c.said) for w in named)}
    return owners.pop() if len(owners) == 1 else None


_ROUTINE_NAMED = re.compile(r"\b(?:sessions?|appointments?)\b|\b(?:seeing|see)\s+(?:her|him|"
                            r"them)\b", re.I)
_FROM_NOW = re.compile(r"\bfrom\s+(?:next\s+week|now\s+on|here\s+on|this\s+week)\b|"
                       r"\bgoing\s+forward\b|\b(?:moved|switched|changed)\s+(?:it\s+|them\s+|"
                       r"us\s+)?to\b|\binstead\b", re.I)
_EVERY = re.compile(r"\bevery\s+|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days\b|\bsessions?\b",
                    re.I)


def one_routine_said(clause: str) -> bool:
    """Whether `clause` may move a routine named by no noun of its own (`one_routine`): its
    held fact is searched for by every day's name (`step/related.py`)."""
    return bool(_ROUTINE_NAMED.search(clause)) and bool(_FROM_NOW.search(clause))


def one_routine(new: Claim, holder: str, claims: Sequence[Claim]) -> Fit | None:
    """The holder's one weekly routine moved to another day, named by no noun of its own ("so
    from next week I'm seeing her on Thursdays", "Our sessions are Thursday mornings from next
    week" / "I see my counsellor every Wednesday"): only when one routine of the holder's is
    held with a day, and the sentence says the change is from now on."""
    said = new.context or new.said
    days = slots.values(new.said).get("weekday", frozenset())
    if not days or not _ROUTINE_NAMED.search(new.said) or not _FROM_NOW.search(said) or \
            slots.hypothetical(said) or _ONE_OFF.search(said) or _ADDITIVE.search(said):
        return None
    routines = [i for i, c in enumerate(claims) if c.said and not c.ends and
                _holder_fits(holder, c.holder, _ROUTINE_NAMED.sub(" ", said)) and  # (her: seen)
                _EVERY.search(c.said) and
                slots.values(c.said).get("weekday")]
    if len(routines) != 1 or not days - slots.values(claims[routines[0]].said)["weekday"]:
        return None
    return routines[0], ("the holder's one weekly routine held", "another day from now on, "
                         "the routine named by no noun of its own")
