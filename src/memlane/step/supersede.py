"""The supersede rule: whether a new statement repeats, replaces or only resembles a held fact.

One function (`decide`) answers for both writers: the heuristic asks it for every fact it files,
and a model step's "this replaces #N" (`replaces`, or an `update`) is vetted by it in
`step/apply.py`. A fact is read as (holder, attribute, value) (`read_claim`):

- holder: who or what it is about: the speaker ("I", "we", "my rent"), a relation ("my
  daughter", "my sister Ana", "the cat"), or a pronoun ("she turned 8"), which stands for the
  one third party holding that attribute among the candidates, else for no one;
- attribute: which property: city of residence, age, employer, shift, the identity of a
  relation ("my manager is Priya"), rent, car, weight, diet, an appointment (by its kind), a
  start date, a name, or "the <thing>" a copula names ("my locker code is 4017");
- value: the numbers, dates and names the statement gives.

The verdicts:
- `same`: the same fact again (same holder, the terms nearly equal, no new number or name):
  the held record gains a source, no record is written;
- `supersedes`: the same holder and the same attribute, both read for certain, and a new value:
  the held record's text is replaced and the old one stays in its dated history;
- `related`: the same (or an unresolved) holder, an overlap of words and a correction cue, but
  the attribute is not certain on both sides: both are kept, the new one marked newer
  (`text.mark_newer`), never a replace;
- `new`: anything else.

The attributes it names are read by the patterns of `step/attributes.py`. What they do not
name is read by `step/slots.py`: the thing by its noun ("my plan" / "a 10GB data plan") and the
value by its type (a name, 30GB, 10:15), asked only of a statement worded as a change, never of
a maybe ("we should try ...") or an addition ("also", "a second").

A supersede never crosses holders or attributes: a wrong supersede is data loss, a kept
duplicate is not. Every verdict carries its reasons, for tests, warnings and the trace.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..text import FACT_WORD, fact_terms, stem, unmark_newer
from . import (
    anchored,
    apart,
    broad,
    families,
    measures,
    medicines,
    misstated,
    numbered,
    occasions,
    orgs,
    pastimes,
    people,
    placekind,
    places,
    referents,
    slots,
    topics,
)
from .attributes import (
    _APPOINTMENT,
    _APPOINTMENT_KIND,
    _ATTRIBUTES,
    _KIND_ATTRIBUTE,
    _MULTI,
    _SWITCHED,
    _TRAVEL,
    PET_FOOD,
    SAME_KIND,
    _occupation,
    event_named,
    last_occupation,
    now_occupation,
    other_days,
    work_alike,
)
from .claim import Claim as Claim  # (public here, as before it moved to claim.py)
from .cues import _BRACKETED, _LEAD, _SPAN, _TITLED
from .cues import CUES as CUES  # (public, as before it moved to cues.py)
from .ended import ended_value
from .endings import (
    _ADDITIVE,
    _CALENDAR,
    _CUE_TERMS,
    _LIGHT,
    _ONE_OFF,
    _TIME_WORDS,
    _ended,
    _loose,
    root,
)
from .holders import (
    _IDENTITY,
    _IDENTITY_SAME,
    _NEW_IDENTITY,
    _OWNED_SUBJECT,
    _PERSONAL,
    _PETS,
    _SPEAKER,
    MANY,
    RELATIONS,
    holder_attribute,
    role_me,
)

SAME = "same"
SUPERSEDES = "supersedes"
RELATED = "related"
NEW = "new"

DUPLICATE = 0.75
"""Term overlap (Jaccard) at or above which a statement repeats a held fact."""

_COPULA = re.compile(r"\s(?:is|are|was|were)\s|:\s", re.I)
_MY_NAME = re.compile(r"\bmy\s+name\b|\bcall\s+me\b|\bi'?m\s+called\b", re.I)
_BARE_AGE = re.compile(r"^\W*(?:i'?m|i\s+am)\s+(?:now\s+)?\d{1,2}(?:\s+now)?\s*[.!]*$", re.I)
# "My new job as an analyst starts on 15 September" / "... moved to 1 October": the date of the
# job, whatever verb says it.
_THING = re.compile(r"^\W*(?!(?:has|have|had|was|were|been|will|would)\b)([a-z]{3,})\s+"
                    r"(?:is|was|starts?|moved|begins?|on)\b", re.I)
_DATED_THING = re.compile(r"^\W*(?:my|our|the)\s+(?:(?:new|next|old|current|first|last|"
                          r"annual|big)\s+)*([a-z]{3,})\b(?!\s+(?:to|for)\b)", re.I)
_DATE = re.compile(r"\b(?:january|february|march|april|june|july|august|september|october|"
                   r"november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|"
                   r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
                   r"|\b\d{1,2}\s+may\b|\bmay\s+\d{1,2}\b|\b\d{1,2}(?:st|nd|rd|th)\b"
                   r"|\b\d{1,2}/\d{1,2}\b", re.I)
_HEAD = re.compile(r"^(?:my|our|the|'s)\s+((?:[a-z]+\s+){0,3}[a-z]+)$", re.I)


@dataclass(frozen=True)
class Decision:
    """What to do with a new statement, and why."""

    verdict: str
    """`same`, `supersedes`, `related` or `new`."""
    target: int | None
    """The index, in the candidates given, of the held fact it is the same as, supersedes or
    is related to (None for `new`)."""
    reasons: tuple[str, ...]
    """Why, one short sentence per check that decided."""


def _terms(text: str) -> frozenset[str]:
    return fact_terms(text)


def strip_lead(text: str) -> str:
    """`text` without a leading filler or correction cue ("Actually, ", "By the way, ")."""
    s = _LEAD.sub("", text, count=1).strip()
    return (s[0].upper() + s[1:]) if s else text


def read_claim(text: str) -> Claim:
    """`text` read as (holder, attribute, value)."""
    said = _BRACKETED.sub(" ", unmark_newer(text)).strip()  # "[shares a photo: ...]" says no fact
    text = _TITLED.sub(" is ", strip_lead(said))  # "My GP's Dr Lindqvist now": is, not whose
    m = _SPEAKER.match(text)
    who = m.group(1) + "|" if m else ""
    body = slots.counted(role_me(_lead_last(strip_lead(text[m.end():]) if m else text)))
    terms = _terms(body)
    holder, attribute, rest = holder_attribute(body)
    if attribute is None:
        attribute = _attribute(rest, holder, body)
    attribute = places.residence(body, holder, attribute)  # "I'm in Leeds", "a Bristol family"
    if attribute == "residence" and slots.lower_brand(rest):
        attribute = None  # "I moved over to voxi": a provider in lower case, not a place
    owned = _OWNED_SUBJECT.match(body) if holder == "i" and attribute in _PERSONAL else None
    if owned is not None:
        holder = "my " + owned.group(1).lower()
    skip = {stem(w.lower()) for w in holder.split()}
    names = {stem(_POSSESSIVE.sub("", w.lower())) for w in FACT_WORD.findall(body)[1:]
             if w[0].isupper()} | {stem(b) for b in [slots.lower_brand(body)] if b}
    if attribute is not None and attribute.startswith("who is my "):
        ident = _IDENTITY.match(body) or _NEW_IDENTITY.search(body)
        if ident is not None:  # "Raj is my new boss": the name opens the sentence
            names |= {stem(w.lower()) for w in " ".join(filter(None, ident.group(2, 3, 6))).split()}
    key = frozenset(t for t in terms if any(ch.isdigit() for ch in t) or t in _CALENDAR or
                    t in names) - skip
    words = frozenset(stem(_POSSESSIVE.sub("", w.lower().rstrip(".")))
                      for w in FACT_WORD.findall(rest)
                      if w.lower() not in _PLAIN and w.lower() not in _ATTRIBUTE_WORDS
                      and not CUES.fullmatch(w)) - skip - _ATTRIBUTE_STEMS
    if attribute == "job" and last_occupation(rest):
        # "I left the school in July, I'm a receptionist now": the job is the last clause's,
        # read with the sentence as its context (what ended, and when, is the sentence's)
        last = read_claim(rest.rpartition(",")[2].strip())
        return replace(last, holder=who + holder if last.holder.startswith("?") else
                       last.holder, attribute="job", context=body)
    cut = _COPULA.search(body)
    label = [p for p in re.split(r"[,;]", body[:cut.start()]) if p.strip()] if cut else []
    named = frozenset(t for t in _terms(_SPAN.sub(" ", label[-1]))  # (a label, not "3 weeks";
                      if t[0].isdigit()) if label else frozenset()  # its own clause's)
    return Claim(who + holder, attribute, key | words, key, terms, bool(CUES.search(said)),
                 corrects=misstated.corrects(said), named=named, ends=_ended(rest),
                 additive=bool(_ADDITIVE.search(rest)), said=body)


_POSSESSIVE = re.compile(r"['\u2019]s$")
"""A name's possessive ending: "Hill's" is the name Hill ("the vet put Luna on Hill's")."""
_LEAD_ENDING = re.compile(r"^((?:instead\s+of|rather\s+than)\s+[^,;.!?]+),\s*(\S.*)$", re.I | re.S)


def _lead_last(text: str) -> str:
    """"Instead of Lidl, my neighbour shops at Aldi" read as "my neighbour shops at Aldi instead
    of Lidl": the holder is the clause's subject, not the opening phrase's."""
    m = _LEAD_ENDING.match(text)
    return f"{m.group(2).rstrip('.!')} {m.group(1)}." if m else text


# Words that are never a value ("I'm on the night shift": the value is "night").
_PLAIN = frozenset("""a an the i i'm im i've i'd i'll we've am is are was were be been being we
    we're my our on in
    at to of for with and so that this it it's me us has have had just got get gets getting
    very really still also from as by about up out there here then than do does did now""".split())


# Words that name an attribute rather than give its value ("my rent is 950": "rent").
_ATTRIBUTE_WORDS = frozenset("""rent mortgage salary earn earns weigh weighs weight kg kilos
    height tall shift shifts drive drives driving car work works working employer employed job
    company live lives lived living move moving relocated based home phone mobile number email
    name called named turned turns turning old years year age aged start starts date diet eat
    appointment school""".split())
_ATTRIBUTE_STEMS = frozenset(stem(w) for w in _ATTRIBUTE_WORDS)


def _attribute(rest: str, holder: str, body: str) -> str | None:
    """The property `rest` (the sentence after its holder) states (see `_ATTRIBUTES`), None if
    none is certain. `body`: the whole sentence (an appointment's kind may be its subject)."""
    switched = _SWITCHED.search(rest)
    if switched is not None:
        noun = stem(switched.group(1).lower())
        if noun in RELATIONS and noun not in _PETS:
            return f"who is my {_IDENTITY_SAME.get(noun, RELATIONS[noun])}"
        if noun in _KIND_ATTRIBUTE:
            return _KIND_ATTRIBUTE[noun]
    if now_occupation(rest):
        return "job"  # (what is done now, before a school: "I'm a secondary school teacher")
    if (holder.split(" ")[0] in _PETS or holder.startswith("named ")) and PET_FOOD.match(rest):
        return "food"  # "Bruno is on Royal Canin now": a pet's brand is its food
    means = _TRAVEL.search(rest)
    if means is not None:
        return f"travel to {stem(means.group(1).lower())}"
    multi = _MULTI.search(rest)
    if multi is not None:
        return f"{multi.group(1).lower()[:7]} {stem(multi.group(2).lower())}"
    appt = _APPOINTMENT.search(rest)
    if appt is not None:
        kind = _APPOINTMENT_KIND.search(body)
        word = (kind.group(1) if kind else appt.group(1)).lower()
        return f"appointment {SAME_KIND.get(word, word)}"
    for name, rx in _ATTRIBUTES:
        if name == "date of start":  # a date of the thing the sentence opens with
            if (event := event_named(rest)) and _DATE.search(rest):
                return "date of " + stem(event)  # ("getting married on 20 September")
            dated = (_DATED_THING if holder == "i" else _THING).match(rest)
            if dated is not None and _DATE.search(rest) and \
                    dated.group(1).lower() not in RELATIONS:
                return "date of " + stem(dated.group(1).lower())
        if name == "job" and _occupation(rest):
            return name
        if rx.search(rest):
            if name == "name" and holder == "i" and not _MY_NAME.search(rest):
                continue  # "a game called Xenoblade", "I named her Tilly": not the speaker's
            if name == "age" and holder == "i" and not re.search(r"\b(?:old|turned|turn|age)",
                                                                  rest, re.I) and \
                    not _BARE_AGE.match(rest):
                continue  # "I am 5 minutes away" is no age
            return name
    cut = _COPULA.search(" " + rest.strip())
    if cut is not None:
        head = _HEAD.match(" ".join(rest.strip()[:max(0, cut.start() - 1)].split()))
        if head is not None:
            return "the " + " ".join(stem(w.lower()) for w in head.group(1).split())
    return None


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _numbers(terms: frozenset[str]) -> frozenset[str]:
    return frozenset(t for t in terms if t[0].isdigit())


def _frame(c: Claim) -> frozenset[str]:
    """A statement's words less its numbers, dates, names and change cues: what two versions
    of one fact share ("my locker code is 4000" / "I changed my locker code, it is now 4017")."""
    return c.terms - c.key - _CUE_TERMS


# Attributes whose value is a plain word ("night" shift, "vegan", a "bike", a "senior" job,
# the "tram" to work, "twice" a week).
_WORD_VALUED = frozenset({"shift", "diet", "car", "job", "employer", "school", "rate",
                          "start time"})


def _word_valued(attribute: str | None) -> bool:
    return attribute is not None and (attribute in _WORD_VALUED or
                                      attribute.startswith("travel to "))


# Attributes that name only a slot (a day, a rate): filled by one routine (a word shared, "gym").
_SLOTS = frozenset({"weekday", "rate"})
_ROUTINE_COMMON = frozenset(stem(w) for w in """every each session sessions class classes lesson
    lessons meeting practice training time times day days week weeks month night""".split())


def _same_routine(a: Claim, b: Claim) -> bool:
    """Whether two statements share a word of their routine ("Zumba" too), beyond light verbs,
    cue words, numbers, days and the slot's own words."""
    loose = {_loose(t) for t in _LIGHT | _ROUTINE_COMMON | _TIME_WORDS} | _CALENDAR
    shared = {root(t) for t in _frame(a) | a.key} & {root(t) for t in _frame(b) | b.key} - loose
    return bool({t for t in shared if not t[0].isdigit()})


_BARE = frozenset(stem(w) for w in "back full part time went gone go now up down".split())


def _bare_rate(new: Claim, held: Claim) -> bool:
    """A rate said with no routine of its own, in the unit of the held one ("I went back to
    full time, five days a week" / "I work four days a week"): the held routine's rate."""
    if new.attribute != "rate" or not new.key or not held.key or new.key == held.key:
        return False
    loose = {_loose(t) for t in _LIGHT | _ROUTINE_COMMON | _TIME_WORDS | _BARE}
    if {t for t in _frame(new) if not t[0].isdigit() and _loose(t) not in loose}:
        return False
    unit = re.compile(r"\d+\s+(\w+?)s?\s+(?:a|per|each|every)\s+(\w+)", re.I)
    a, b = unit.search(new.said), unit.search(held.said)
    return a is not None and b is not None and \
        (a.group(1).lower(), a.group(2).lower()) == (b.group(1).lower(), b.group(2).lower())


def _generic(attribute: str | None) -> bool:
    return attribute is None or attribute.startswith("the ")


def same_attribute(new: Claim, held: Claim) -> bool | None:
    """True: the same property for certain; False: different for certain (both named, and
    not alike); None: not certain. Two statements whose frames (`_frame`) are alike, one
    within the other, at least two words and the new one adding no more than the held one has,
    a number or name on each side, are one property ("we leave the hut at 5 a.m." / "at 6 now")."""
    if new.named != held.named:
        return False  # "my locker 23 is 4423" / "my locker 5 is 4405": two lockers
    if slots.two_subjects(new.said, held.said, _SKIP) or slots.another_of(new.said, held.said):
        return False  # "my yoga class" / "my pottery class", "my work phone" / "my mobile"
    if new.attribute is not None and new.attribute == held.attribute:
        if new.attribute == "hours":  # ("8 till 12 on Saturdays": a day's hours of their own)
            return not other_days(new.said, held.said)
        return new.attribute not in _SLOTS or _bare_rate(new, held) or (
            _same_routine(new, held) and not slots.two_subjects(new.said, held.said, _SKIP, True)
            and not pastimes.two_pastimes(new.said, held.said))  # (padel on Fridays, squash ...)
    if {new.attribute, held.attribute} in ({"job", "shift"}, {"job", "employer"}):
        return work_alike(new.said, held.said, new.attribute, held.attribute)
    if {new.attribute, held.attribute} == {"car", "bike"}:
        return None  # "I ride a Trek" / "I sold the Trek and bought a Canyon": not certain
    if {new.attribute, held.attribute} in ({"transfer", "school"}, {"transfer", "employer"}):
        return True
    mine, theirs = new.attribute or "", held.attribute or ""
    if mine.startswith("date of ") and theirs.startswith("date of "):
        # "my new job starts on 15 September" / "my start date moved to 1 October"
        return mine[8:] in held.terms or theirs[8:] in new.terms
    for (a_attr, b_attr), b_terms in (((mine, theirs), held.terms), ((theirs, mine), new.terms)):
        # "My office day is Wednesday now" / "I'm in the London office on Tuesdays"
        if a_attr.startswith("date of ") and b_attr == "weekday":
            return a_attr[8:] in b_terms
        # "who is my manager" / "the phd supervisor": the same relation, by another word
        if a_attr.startswith("who is my ") and b_attr.startswith("the ") and \
                RELATIONS.get(b_attr.split()[-1], "") == a_attr[10:]:
            return True
    if mine.startswith("the ") and theirs.startswith("the "):
        # "my supervisor" / "my PhD supervisor": one noun, the one's words within the other's
        a_words, b_words = mine[4:].split(), theirs[4:].split()
        if a_words[-1] == b_words[-1] and (set(a_words) <= set(b_words) or
                                           set(b_words) <= set(a_words)):
            return True
    a, b = _frame(new), _frame(held)
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    if len(small) >= 2 and small <= large and len(a - b) <= max(2, len(b)) and new.key and \
            held.key and (_generic(new.attribute) or _generic(held.attribute)):
        return True
    for x, y in ((new, held), (held, new)):
        # "our wifi password is bluefox42" / "we changed the wifi password to greenowl77"
        if x.attribute and x.attribute.startswith("the ") and x.key and y.key and \
                y.attribute is None and set(x.attribute[4:].split()) <= y.terms and \
                not (slots.THROUGH.search(y.said) and not slots.THROUGH.search(x.said)):
            return True  # (not "I watch Sky Sports on the internet now": a use of it)
    if not _generic(new.attribute) and not _generic(held.attribute):
        return False
    if new.attribute is not None and held.attribute is not None:
        return False  # two things a copula names, not alike: "my locker code" / "my pin"
    return None


def decide(new_text: str | Claim, held: Sequence[str | Claim], *,
           claimed: int | None = None) -> Decision:
    """What the statement `new_text` is to the held facts `held` (texts or their `read_claim`,
    oldest first): see the module docstring. `claimed`: the index of a held fact a model says
    this replaces; the claim stands unless the rule finds a different holder or a different
    attribute (then it is `related` to it, both kept), and needs no change cue."""
    new = new_text if isinstance(new_text, Claim) else read_claim(new_text)
    claims = [t if isinstance(t, Claim) else read_claim(t) for t in held]
    new = placekind.reread(new, [c.holder for c in claims], claims)
    holder = new.holder
    if "?" in holder or "|named " in holder or holder.startswith("named "):
        holder = referents.resolve(new, claims) or _gone_holder(new, claims) or \
            broad.by_their_thing(new, claims) or holder
    if claimed is not None:  # (settled as below: `step/numbered.py`)
        d = _vet_claim(new, holder, claims, claimed)
        return Decision(*numbered.settle(new, holder, claims, _SKIP, (d.verdict, d.target,
                                                                      d.reasons)))
    # The same fact again: the closest held fact of the same holder, by terms.
    best, best_j = None, 0.0
    for i, c in enumerate(claims):
        j = _jaccard(new.terms, c.terms)
        if c.holder == holder and j > best_j and \
                (new.attribute is None or c.attribute in (None, new.attribute)):
            best, best_j = i, j
    if best is not None:
        c = claims[best]
        if _numbers(new.terms) == _numbers(c.terms) and new.key <= c.key and \
                (best_j >= DUPLICATE or (len(new.terms) >= 3 and new.terms <= c.terms)):
            return Decision(SAME, best, (f"same holder ({holder}), terms {best_j:.2f} alike, "
                                         "no new number or name",))
    if slots.hypothetical(new.said):  # "we should try Oakhill Vets instead": a maybe
        return _keep_apart(_replace_or_relate(new, holder, claims))
    if (ended := _ends_held(new, holder, claims)) is not None:
        return ended
    d = _replace_or_relate(new, holder, claims)
    if d.verdict in (RELATED, NEW):
        d = _by_slot(new, holder, claims) or _by_signals(new, holder, claims) or \
            _by_swap(new, holder, claims) or _by_instead(new, holder, claims) or d
    if d.verdict in (RELATED, NEW):  # (`step/broad.py`: birthdays, amounts, a last clause)
        fit = broad.birthday(new, holder, claims) or broad.amount(
            new, holder, claims, _SKIP) or broad.ended_before(new, holder, claims) or \
            broad.weak_holder(new, holder, claims, _SKIP) or broad.one_routine(new, holder, claims)
        d = Decision(SUPERSEDES, *fit) if fit else _last_clause(new, claims) or d
    d = _unless_kept(new, claims, d)
    if d.verdict in (RELATED, NEW) and (hit := ended_value(new, claims, _SKIP) or
                                        misstated.named_wrong(new, holder, claims)):
        d = Decision(*hit)  # (`ended.py`, `misstated.py`: the held value named ended, or wrong)
    if d.verdict in (RELATED, NEW):  # (`step/anchored.py`: same anchor, new value, a cue)
        d = _unless_kept(new, claims, Decision(*a)) if (
            a := anchored.same_anchor(new, holder, claims, _SKIP, occasions.moved)) else d
    if d.verdict in (RELATED, NEW) and (f := families.one_value(new, holder, claims) or
                                        medicines.in_place(new, holder, claims) or
                                        pastimes.changed(new, holder, claims)):
        d = _unless_kept(new, claims, Decision(*f))  # (`families.py`, `medicines.py`, ...)
    if d.verdict in (RELATED, NEW) and (t := topics.by_topic(new, holder, claims) or
                                        measures.by_type(new, holder, claims)):
        d = _unless_kept(new, claims, Decision(*t))  # (`topics.py`, `measures.py`: by type)
    if d.verdict in (RELATED, NEW) and (p := people.changed(new, holder, claims) or
                                        people.thing_changed(new, holder, claims) or
                                        orgs.changed(new, holder, claims)):  # (`orgs.py`)
        d = _unless_kept(new, claims, Decision(*p))  # (`people.py`: "Kieran got poached by Dyson")
    if people.unsettled(new.context or new.said, claims, d.target) or (  # "been offered a job"
            new.attribute == "residence" and places.unsettled(new.said, holder)) or \
            misstated.once_instead(new, claims):  # "I'm in York", "this year ..., not Cornwall"
        d = _keep_apart(d)
    # (`step/numbered.py`: a number, a dose, a count or an age by its shape; not yet true: kept)
    d = Decision(*numbered.settle(new, holder, claims, _SKIP, (d.verdict, d.target, d.reasons)))
    if d.verdict == SUPERSEDES and d.target is not None and (  # (`step/apart.py`: the last word)
            why := apart.why_kept(new, claims[d.target])):  # "We didn't end up moving"
        d = Decision(NEW, None, (*d.reasons, why))
    return d


def _last_clause(new: Claim, claims: Sequence[Claim]) -> Decision | None:
    if new.additive:
        return None  # "I have a work phone too, a Pixel 7": its last clause adds, too
    tail, who = broad.last_clause(new), new.holder.rpartition("|")[0]
    d = decide(replace(read_claim(f"{who}: {tail}" if who else tail),
                       context=new.context or new.said), claims) if tail else None
    return d if d is not None and d.verdict == SUPERSEDES else None


def _gone_holder(new: Claim, claims: Sequence[Claim]) -> str | None:
    """The holder "it" or "they" stands for in a clause whose sentence first says a held value
    ended ("The Breville broke, so it's a Russell Hobbs now"): the holder of the one held fact
    whose value that is. None when no one, or more than one, fits."""
    who = new.holder.rpartition("|")[2]
    if who not in ("?it", "?they") or not new.context:
        return None
    owners = {c.holder for c in claims if c.said and "?" not in c.holder and
              "named " not in c.holder and not _clause_of(c, new.context) and
              (slots.ended_again(c.said, new.context) or
               slots.named_before(c.said, new.context, new.said))}
    return owners.pop() if len(owners) == 1 else None


def _unless_kept(new: Claim, claims: Sequence[Claim], d: Decision) -> Decision:
    """A supersede of a held fact whose values the statement says again as kept ("Yoga is
    still on Wednesdays, but the teacher changed to Priya"): the held fact stands, the new one
    is related to it (a change of something else about it)."""
    if d.verdict != SUPERSEDES or d.target is None:
        return d
    c = claims[d.target]
    if c.key and c.key <= new.key and slots.kept(new.said):
        return Decision(RELATED, d.target, (*d.reasons, "but the held value is said as kept: "
                                            "both kept, the new one marked newer"))
    return d


_CONTACTED = re.compile(r"\b(?:complain\w*\s+to|rang|phoned|emailed|wrote\s+to|messaged|"
                        r"contacted|chased|spoke\s+to|got\s+on\s+to)\s+(?-i:[A-Z])", re.I)


def _by_signals(new: Claim, holder: str, claims: Sequence[Claim]) -> Decision | None:
    """The one held fact of the same holder that `new` replaces by several weak signals that
    agree, where no attribute or noun decides alone: a change cue in its sentence, a value of
    a type the held fact has and another one ("£47" for "£42", "Co-op" for "Boots"), and the
    same thing (`slots.topic`: a word of a noun phrase both say, or the held value named again
    as the one replaced). Only when exactly one held fact of the holder fits all three; two or
    more, or a maybe, an addition or a one-off ("this morning"): None (both are kept)."""
    said = new.context or new.said
    cued = new.cue or CUES.search(said) is not None
    if "?" in holder or new.additive or slots.hypothetical(said) or _ONE_OFF.search(said) or \
            _CONTACTED.search(new.said):
        return None  # ("I complained to Monzo about ...": whom one dealt with, not one's bank)
    given = {_loose(t) for vs in slots.values(new.said).values() for v in vs for t in _terms(v)}
    if new.ends and given <= new.ends:
        return None  # "..., I cancelled PureGym": what ended, not a new value
    fits: list[tuple[int, str, str]] = []
    for i, c in enumerate(claims):
        if c.holder != holder or not c.said or c.ends or (c.cue and not c.values) or \
                same_attribute(new, c) is False or _clause_of(c, new.context):
            continue
        # The held value named again as what ended ("so the ThinkPad's gone back") is a cue,
        # and a new value of its type replaces it whatever the words around it.
        gone = slots.ended_again(c.said, said) or slots.named_before(c.said, new.context, new.said)
        if not (cued or gone):
            continue
        kind = slots.fresh_type(new.said, c.said) or \
            (slots.another_value(new.said, c.said) if gone else None)
        if kind and kind != "weekday" and "weekday" in slots.values(new.said) and \
                "weekday" not in slots.values(c.said):
            continue  # "I'm in the York office on Fridays now": a day's routine beside it
        thing = slots.topic(new.said, c.said, _SKIP, said) if kind else None
        if thing and slots.through(new.said, thing) and not slots.through(c.said, thing):
            continue  # "I stream films on the internet now": a use of it
        if kind and kind.startswith("qty ") and not thing:
            thing = _same_doing(new, c)
        if kind and thing:
            fits.append((i, kind, thing))
    if len(fits) != 1:
        return None
    i, kind, thing = fits[0]
    return Decision(SUPERSEDES, i, (
        f"same holder ({holder})", f"the same thing ({thing})", f"another {kind} given",
        "worded as a change", "the only held fact of this holder that all three fit"))


def _clause_of(c: Claim, context: str) -> bool:
    """Whether the held `c` is another clause of the sentence `context`, filed just before
    ("Dropped the iPhone in the sea" of "..., so I'm on a Pixel 8 now"): never what it replaces."""
    said = c.said.strip().rstrip(".!")
    return bool(context) and len(said) > 8 and said.lower() in context.lower()


def _by_swap(new: Claim, holder: str, claims: Sequence[Claim]) -> Decision | None:
    """The one held fact of the same holder whose thing `new` names with another modifier in
    place of one it says ended ("I always get an oat flat white" / "I've gone off oat milk,
    it's a soya flat white for me these days": "oat" ended, "soya flat white" given)."""
    if not new.ends or "?" in holder or new.additive or slots.hypothetical(new.said):
        return None
    fits = [(i, thing) for i, c in enumerate(claims) if c.holder == holder and c.said and
            not c.ends and (thing := slots.swapped(new.said, c.said, new.ends, _loose, _SKIP))]
    if len(fits) != 1:
        return None
    i, thing = fits[0]
    return Decision(SUPERSEDES, i, (
        f"same holder ({holder})", f"the same thing ({thing}) with another modifier in place "
        f"of the one it says ended ({', '.join(sorted(new.ends))})",
        "the only held fact of this holder that fits"))


_INSTEAD = re.compile(r"\binstead\b(?!\s+of\b)", re.I)


def _by_instead(new: Claim, holder: str, claims: Sequence[Claim]) -> Decision | None:
    """The one held fact of the same holder whose thing `new`, saying "instead", names with
    another modifier and another value of one type ("I'm training for a half marathon in
    October" / "I've signed up for the full marathon in April instead"): "instead" says this
    one is in place of that one. Only for a dated event (a bill by another modifier is another
    bill); not for a maybe, an addition or a one-off."""
    if "?" in holder or new.additive or not _INSTEAD.search(new.said) or \
            slots.hypothetical(new.said) or _ONE_OFF.search(new.said):
        return None
    mine = slots.phrases(new.said, _SKIP)
    fits: list[tuple[int, str]] = []
    for i, c in enumerate(claims):
        if c.holder != holder or not c.said or c.ends or same_attribute(new, c) is False:
            continue
        a, b = slots.values(new.said), slots.values(c.said)
        if not a.get("date", frozenset()) - b.get("date", frozenset()) or not b.get("date"):
            continue  # (an event, dated on both sides: "in October" / "in April")
        heads = {p[-1] for p in mine for q in slots.phrases(c.said, _SKIP)
                 if len(p) > 1 and len(q) > 1 and p[-1] == q[-1] and p[:-1] != q[:-1]}
        if heads:
            fits.append((i, sorted(heads)[0]))
    if len(fits) != 1:
        return None
    i, thing = fits[0]
    return Decision(SUPERSEDES, i, (
        f"same holder ({holder})", f"the same thing ({thing}) with another modifier and value",
        "said to be instead", "the only held fact of this holder that fits"))


def _same_doing(new: Claim, held: Claim) -> str | None:
    """An amount of one unit replaced ("5k" / "10k") in two statements of one doing: a word
    both say ("I run 5k three times a week" / "I've built up to 10k on my runs now": "run"),
    neither of them about another thing by its subject ("My suitcase weighed 23 kg"); the
    unit is no such word ("I weigh 70 kg" / "I can lift 80 kg now")."""
    if slots.subject_head(new.said) not in (None, slots.subject_head(held.said)):
        return None
    loose = {_loose(t) for t in _LIGHT | _ROUTINE_COMMON | _TIME_WORDS}
    shared = sorted(t for t in _frame(new) & _frame(held)
                    if not t[0].isdigit() and _loose(t) not in loose and not slots.unit(t))
    return shared[0] if shared else None


def _keep_apart(d: Decision) -> Decision:
    """`d`, a supersede made a `related` link: what may be is no replacement."""
    return d if d.verdict != SUPERSEDES else Decision(RELATED, d.target, (
        *d.reasons, "worded as what may be (if, might, should ...): both kept, the new one newer"))


def _ends_held(new: Claim, holder: str, claims: Sequence[Claim]) -> Decision | None:
    """The newest held fact of the same holder that `new` says was stopped ("I don't play
    football anymore" / "I play five-a-side football on Wednesdays"): every term of what it
    ends is in that fact, which ends nothing itself, and is not of another attribute for
    certain."""
    if not new.ends or "?" in holder:
        return None
    for i in range(len(claims) - 1, -1, -1):
        c = claims[i]
        if c.holder != holder or c.ends or (same_attribute(new, c) is False and len(new.ends) < 2):
            continue  # (two words of it named: "so no more commuting by train" / "I commute ...")
        if new.ends <= {_loose(t) for t in c.terms} and not apart.why_kept(new, c):  # (settled)
            return Decision(*numbered.settle(new, holder, claims, _SKIP, (SUPERSEDES, i, (
                f"same holder ({holder})", f"says it ended {sorted(new.ends)}, which this held "
                "fact states"))))
    return None


def _replace_or_relate(new: Claim, holder: str, claims: Sequence[Claim]) -> Decision:
    """The newest held fact this one supersedes (same holder and attribute, a new value), else
    the newest one it is only related to, else `new`."""
    if "?" in holder:
        return Decision(NEW, None, ("the holder is a pronoun with no one fact-holder to stand "
                                    "for: nothing is replaced",))
    for i in range(len(claims) - 1, -1, -1):
        c = claims[i]
        if c.holder != holder or (c.cue and not c.values) or not same_attribute(new, c) or \
                _clause_of(c, new.context):
            continue  # (a held "My son switched schools." gives no value to replace; another
            # clause of its own sentence: "Got my pay review, I'm on 34k now")
        if not new.values or new.values <= c.values or new.additive:
            continue
        if _other_thing(new, c) or families.denied(new.said, c.said):
            continue  # (`step/families.py`: "I'm not going vegan" gives no diet)
        if _one_of_many(new, c):
            continue  # "Beth is my sister." beside "Ana is my sister.": two sisters
        if new.ends and not new.ends <= {_loose(t) for t in c.terms} and not (  # (one diet,
                new.attribute == c.attribute in ("diet", "job")):  # one job: "gave up the cafe")
            continue  # "I sold my old bike": another thing ended, not this car replaced
        # Another number or name replaces without a cue only for a property the rule names on
        # both sides: "recipe number 1 with thyme" / "... number 21 ..." are two events (a
        # weight read on a day is the weight now: "Weighed in at 87 this morning").
        # (A name the held fact lacks: "Toby is so active" names fewer, not another.)
        strong = bool(new.key - c.key and c.key and new.attribute and c.attribute) and \
            (not _ONE_OFF.search(new.said) or new.attribute == "weight") and \
            not c.key <= new.key  # (the held value said again: "plays for Hartley against ...")
        same_thing = new.attribute == c.attribute and (new.attribute or "").startswith("the ")
        if not new.key and not _word_valued(new.attribute or c.attribute) and not same_thing:
            continue  # a place, age, sum or date changes by a number or a name, never without
        if (new.cue and (new.corrects or not _ONE_OFF.search(new.said))) or strong:
            return Decision(SUPERSEDES, i, (
                f"same holder ({holder})", f"same attribute ({new.attribute or c.attribute})",
                f"new value ({', '.join(sorted(new.values - c.values))})",
                "worded as a change" if new.cue else "another number or name"))
    if new.corrects:
        for i in range(len(claims) - 1, -1, -1):
            c = claims[i]
            if c.holder != holder:
                continue
            if same_attribute(new, c) is not None:
                continue  # certainly another property (or the same value): not this fact
            shared = (new.terms & c.terms) - new.key - _CUE_TERMS
            if len(shared) >= 2 or (shared and new.key and c.key):
                return Decision(RELATED, i, (
                    f"same holder ({holder}) and a change cue, shares {sorted(shared)}",
                    "attribute not certain on both sides: both kept, the new one marked newer"))
    return Decision(NEW, None, (f"no held fact of holder {holder!r} and attribute "
                                f"{new.attribute!r} with another value",))


def _one_of_many(new: Claim, c: Claim) -> bool:
    """Whether `new` names another person of a relation one may have several of ("Ana is my
    sister." / "Beth is my sister."), not said to replace the held one (a correction, or the
    held name said to have gone)."""
    attr = new.attribute or ""
    if not attr.startswith("who is my ") or attr[10:] not in MANY or new.corrects:
        return False
    return not slots.ended_again(c.said, new.context or new.said)


_SKIP = frozenset(RELATIONS) | frozenset(RELATIONS.values())
"""Words of people and pets: a holder, never the thing a fact is about."""


def _other_thing(new: Claim, c: Claim) -> bool:
    """Whether `new` is about another thing than the held `c` for certain, though the rule
    reads one attribute in both: their subjects are two nouns ("My phone is an iPhone 13" /
    "My phone contract is with Three"), their values are of no common type (a time where a
    place was), or a date stands where a name was ("She works at PwC now" / "She changed jobs
    in March": when, not where)."""
    heads = slots.copula_head(new.said, _SKIP), slots.copula_head(c.said, _SKIP)
    if heads[0] and heads[1] and heads[0] != heads[1]:
        return True
    if new.attribute == c.attribute == "team" and families.two_sports(new.said, c.said):
        return True  # "Signed for Hanwell Rovers" / "I play cricket for Ealing CC"
    periods = slots.period(new.said), slots.period(c.said)
    if periods[0] and periods[1] and periods[0] != periods[1]:
        return True  # "£30 an hour for overtime" / "£41,000 a year": two sums
    mine, theirs = slots.classes(new.said), slots.classes(c.said)
    if new.attribute == c.attribute == "job" and "name" not in mine and \
            new.values - new.key - c.values - _CUE_TERMS:
        return False  # a job is a word: "I'm a receptionist now, left the dental place in March"
    if mine and theirs and not mine & theirs and not ({"name"} in (mine, theirs) and
                                                      {"code", "number"} in (mine, theirs)):
        return True  # "The office opens at 7:30 now" / "My office is in Canary Wharf"
    fresh = new.key - c.key  # (a day for a day is the same slot: "swim on Tuesdays" / "Thursdays")
    return bool(fresh) and fresh <= _CALENDAR and bool(c.key - _CALENDAR - _numbers(c.key)) \
        and not c.key & _CALENDAR


def _by_slot(new: Claim, holder: str, claims: Sequence[Claim]) -> Decision | None:
    """The newest held fact of the same holder that `new`, worded as a change, gives another
    value of: the same thing by its noun (`slots.anchor`: "my plan" / "a 10GB data plan") or by
    the same words around the value ("I bank with Barclays" / "These days I bank with Monzo"),
    and a value of the same type replaced (`slots.changed_type`: a name, 30GB for 10GB, a
    time). For what the attribute list does not name; what it names it has decided. None:
    nothing is certain enough (a hypothetical, an addition, a pronoun no one stands for)."""
    if "?" in holder or new.additive or not (new.cue or new.corrects) or \
            slots.hypothetical(new.said) or _CONTACTED.search(new.said):
        return None  # ("I complained to Monzo about ...": whom one dealt with, not one's bank)
    for i in range(len(claims) - 1, -1, -1):
        c = claims[i]
        if c.holder != holder or (c.cue and not c.values) or not c.said or \
                same_attribute(new, c) is False or _other_thing(new, c):
            continue
        kind = slots.changed_type(new.said, c.said)
        if kind is None:
            continue
        thing = slots.anchor(new.said, c.said, _SKIP)
        if thing is not None and slots.named_thing(new.said, thing):
            thing = None  # "I switched to a Dell laptop": the name is the laptop's, not the value
        if thing is not None and slots.through(new.said, thing) and \
                not slots.through(c.said, thing):
            thing = None  # "I watch Netflix over the broadband now": a use of it
        if thing is None:
            words = slots.frame(new.said)
            if words and words == slots.frame(c.said) and (words - _LIGHT or new.corrects) \
                    and slots.same_place(new.said, c.said, kind) \
                    and slots.placed(new.said, kind):
                thing = " ".join(sorted(words))
        if thing is not None:
            return Decision(SUPERSEDES, i, (
                f"same holder ({holder})", f"the same thing ({thing})",
                f"another {kind} given", "worded as a change"))
    return None


def _vet_claim(new: Claim, holder: str, claims: Sequence[Claim], i: int) -> Decision:
    """A model's "this replaces held fact `i`", vetted: refused (`related`) when the holders or
    the attributes differ for certain. A pronoun, or a name against a relation ("Pixel" and
    "my cat"), is not a certain difference: the claim stands."""
    c = claims[i]
    if ended_value(new, [c], _SKIP):  # (`step/ended.py`: the held value named as ended)
        return Decision(SUPERSEDES, i, ("names the held value as ended",))
    if (a := decide(new, [c])).verdict == SUPERSEDES:  # (the record's text alone, as filed)
        return Decision(SUPERSEDES, i, ("a replace the rule makes itself", *a.reasons))
    if (f := families.one_value(new, holder, [c], vet=True) or
            medicines.in_place(new, holder, [c]) or topics.by_topic(new, holder, [c]) or
            pastimes.changed(new, holder, [c]) or
            people.changed(new, holder, [c])) and \
            f[0] == SUPERSEDES:
        return Decision(SUPERSEDES, i, ("a replace the rule makes itself", *f[2]))
    mine, theirs = holder.rpartition("|")[2], c.holder.rpartition("|")[2]
    unsure = "?" in mine or (mine.startswith("named ") and theirs not in ("i",))
    if c.holder != holder and not unsure:
        return Decision(RELATED, i, (f"refused: holder {holder!r} is not {c.holder!r}",
                                     "both kept, the new one marked newer"))
    if same_attribute(new, c) is False and not (len(new.ends) > 1 and _ends_held(new, holder, [c])):
        return Decision(RELATED, i, (f"refused: attribute {new.attribute!r} is not "
                                     f"{c.attribute!r}", "both kept, the new one marked newer"))
    if new.terms == c.terms:
        return Decision(SAME, i, ("the same terms: a repeat",))
    return Decision(SUPERSEDES, i, ("a model's replace, no different holder or attribute",))
