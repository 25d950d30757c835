"""One broad mechanism of the supersede rule (`step/supersede.py`): **the same anchor, a new
value of the same type, and a change cue**.

Two statements of one holder that share the thing they are about (an anchor: a content word,
noun or verb, other than the holder's, after light normalisation: "maths tutor", "bowls", "go
to bed" / "going to bed", "starts" / "start", "run" / "running shoes", the brand a model number
follows: "Galaxy S21" / "Galaxy S24"), and give values of one type that differ (a weekday, a
clock time, a model, a name of a place or a provider, a count of one unit), where the new one
is worded as a change ("now", "these days", "switched", "since ...", "from next week",
"upgraded", "bought", "instead"): the new one replaces the old. A dated or timed thing moved
("they've moved my physio to Fridays", "pushed the MOT back to the 3rd") compares dates too; "it"
moved with no topic of its own ("The dentist rang, it's been rebooked for the 20th instead") is
the one dated held fact of the kind changed that the rest of the sentence allows.

Never when:
- the holders differ ("Mum does aqua aerobics on Tuesdays" stays when Dad's bowls moves); a
  weak holder (the speaker, "they", a thing) stands for a held person or pet only when the
  sentence names them ("..., so that's when Maya has it");
- the statement adds ("also", "too", "a second"), is once ("tonight", "this Tuesday"), or may
  be ("might switch");
- the words beside the anchor differ on both sides ("play squash" / "play golf", "book club" /
  "running club"): two things that share a word;
- two held facts fit: both are kept, the new one linked to the newest (`related`).

Pure: reads the claims' texts only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import pairwise

from . import kindred, slots
from .claim import Claim
from .cues import CUES
from .endings import _ADDITIVE, _ONE_OFF, _loose
from .holders import RELATIONS, pronoun
from .lexicon import EVENT_WORDS

Verdict = tuple[str, int, tuple[str, ...]]
"""("supersedes" or "related", the index of the held fact, why)."""

_MORE_CUES = re.compile(
    r"\b(?:bought|traded|registered|signed\s+up|joined|swapped|replaced|can\s+only|only\s+(?:do|"
    r"does|works?)|(?:got|have|'ve)\s+(?:moved|switched|changed)|had\s+to\s+(?:move|switch|change)"
    r"|been\s+\w+ing)\b", re.I)
_RESCHEDULED = re.compile(
    r"\b(?:rebooked|re-booked|rescheduled|re-scheduled|postponed|delayed|shifted|bumped|"
    r"(?:pushed|put|moved)\s+(?:\w+\s+){0,4}?back|brought\s+(?:\w+\s+){0,4}?forward"
    # a thing pushed to a date: "had to push the wedding to 6 September"
    r"|push(?:ed|ing)?\s+(?:\w+\s+){1,4}?(?:to|till|until)(?=\s+(?:the\s+)?(?:\d|(?:jan|feb|mar|"
    r"apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)[a-z]*\b)))\b", re.I)
"""A dated or timed thing moved ("pushed the MOT back to the 3rd", "brought the check-up
forward to 9am", "rebooked for the 16th"): a change cue, and none of its words an anchor."""
_RESCHEDULE_WORDS = frozenset("""rebooked re-booked rescheduled re-scheduled postponed delayed
    shifted bumped pushed push pushing put brought forward back""".split())
_ONCE = re.compile(
    r"\b(?:(?:this|last|next)\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|weekend)|last\s+night|"
    r"just\s+the\s+once|this\s+once|on\s+this\s+occasion|one[-\s]off)\b",
    re.I)
_FROM = re.compile(r"\b(?:from|since|starting|as\s+of)\s+$", re.I)
_CLOCK = re.compile(
    r"\b(midnight|noon|midday)\b|\b(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.|o'?clock)?"
    r"(?!\s*(?:%|k\b|kg|miles?|km|minutes?|mins?|hours?|days?|weeks?|years?|times?|quid|pounds))",
    re.I)
_AT = re.compile(r"\b(?:at|around|about|by|till|until|before|after|for)\s+(?:about\s+|around\s+)?$",
                 re.I)
_MODEL = re.compile(
    r"(?=(?-i:\b((?!(?:Dr|Mr|Mrs|Ms|Miss|Coach|New|North|South|East|West|Upper|Lower|Great|"
    r"Little|St|Saint|Mount|Port|Old)\b)[A-Z][A-Za-z]+|i[A-Z][a-z]+))\s+"
    r"((?:[A-Za-z]{0,3}\d{1,4}[A-Za-z]?|(?-i:(?!(?:Watch|Buds|Tab|Tablet|Pad|Book|TV|Speaker|"
    r"Band|Ring|Pencil|Case|Mouse|Keyboard|Charger|Earbuds|Home|Hub|Station)\b)[A-Z][a-z]{1,9}))"
    r"(?:\s+(?:Pro|Plus|Max|Ultra|Mini|Lite|FE))?)(?![\w'\u2019]|\s+(?-i:[A-Z])))")
"""A model after its brand word: a number ("Galaxy S21", "iPhone 13", "XPS 13") or a name
("iPad Air", "Honda Jazz"), not another device of the brand ("Galaxy Watch")."""
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*|[,;:.!?()]|\d[\w:.]*")
_FILLER = frozenset("""usually normally always often generally mostly typically sometimes
    only can just really still every each all now these days nowadays since ever first""".split())
_GENERIC = frozenset("""place thing stuff one lot bit way time times day days week weeks month
    months year years morning mornings evening evenings night nights weekend weekends moment
    slot""".split())
_HOLDERISH = frozenset("""i me my mine we us our you your he him his she her they them their
    it its someone""".split())


def _base(word: str) -> str:
    """`word` as a plain form: lower case, a possessive off, "-ing", "-ed", "-s" off, a doubled
    last letter undone ("running", "runs": "run"; "shoes": "shoe"; "going": "go")."""
    w = re.sub(r"['\u2019]s$|['\u2019]$", "", word.lower())
    if w == "going":
        return "go"
    for suffix, least in (("ing", 3), ("ed", 3), ("es", 4), ("s", 3)):
        if w.endswith(suffix) and len(w) - len(suffix) >= least and not w.endswith("ss"):
            w = w[: -len(suffix)]
            break
    return w[:-1] if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "ls" else w


def _lemma(word: str) -> str:
    """`word` lightly normalised (`_base`, then `endings._loose`): "going to bed" / "go to
    bed", "running shoes" / "run in"."""
    return _loose(_base(word))


def _sense(word: str) -> str:
    """`_lemma`, or the one word of the thing `word` names among others (`kindred.same_thing`:
    "training" / "practice", "spend" / "budget")."""
    return kindred.same_thing(word.lower()) or _lemma(word)


def search_words(clause: str) -> list[str]:
    """The plain forms of the content words of a clause worded as a change ("Switched my
    running shoes to ...": "run", "shoe"), and other words of the same thing, searched for
    beside its own words (`step/related.py`): the held fact may say them in another form ("I
    run in ...", "my train" for "my morning service")."""
    if not (CUES.search(clause) or _MORE_CUES.search(clause)):
        return []
    return [b for w in _WORD.findall(clause) if w[0].isalpha() and len(w) > 3 and
            w.lower() not in _STOP_WORDS and (b := _base(w)) != w.lower() and len(b) > 2] + \
        kindred.search_words(clause)  # ("my morning service": "train" too)


_VERBS_IN_S = frozenset("""takes makes gets comes costs runs leaves starts opens closes meets
    lasts pays needs uses works lives goes sits stays""".split())
"""Verbs `slots` counts as function words (a phrase ends at them): here they may be the anchor."""
_STOP_WORDS = (slots._FUNCTION - _VERBS_IN_S) | _FILLER | _HOLDERISH
_STOP = frozenset(_lemma(w) for w in slots._LIGHT_VERBS | {"use", "using", "used"})


def _times(text: str) -> frozenset[str]:
    """The clock times `text` gives, as hour (mod 12) and minutes ("7am", "7 pm", "19:00": 7;
    "bed at 10", "midnight": 10, 0): a number is a time when said with am / pm / a colon, or
    after "at", "around", "by", "till"."""
    out = set()
    for m in _CLOCK.finditer(text):
        if m.group(1):
            out.add("0:00")
            continue
        if not (m.group(3) or m.group(4) or _AT.search(text[:m.start()])):
            continue
        hour = int(m.group(2))
        if hour > 24 or (m.group(3) is None and m.group(4) is None and hour == 0):
            continue
        out.add(f"{hour % 12}:{m.group(3) or '00'}")
    return frozenset(out)


def _models(text: str) -> dict[str, str]:
    """The model numbers `text` gives, by the brand word before each ("Galaxy S21": {"galaxy":
    "s21"}; "an iPhone 13": {"iphone": "13"})."""
    return {m.group(1).lower(): m.group(2).lower() for m in _MODEL.finditer(text)
            if m.group(1).lower() not in _STOP_WORDS and
            not slots._WEEKDAY.fullmatch(m.group(1)) and not slots._MONTH.fullmatch(m.group(1))
            and not re.fullmatch(r"\d+(?:k|m|g|km|kg|mb|gb|st|nd|rd|th)", m.group(2), re.I)
            and (not re.fullmatch(r"\d{1,2}", m.group(2)) or m.group(1)[0] == "i" or
                 not re.search(r"\b(?:at|on|by|till|until|around)\s*$", text[:m.start()], re.I))}


def _values(text: str, skip: frozenset[str], dated: bool = False) -> dict[str, frozenset[str]]:
    """The values `text` gives, by type, as the rule compares them: "weekday", "time"
    (`_times`), "name" (less the holder's and people's words), "qty <unit>"; "model" apart;
    `dated` (a thing said to be moved): a "date" and an "ordinal" ("the 20th") too."""
    found = slots.values(text)
    out = {k: v for k, v in found.items() if k == "weekday" or k.startswith("qty ") or
           (dated and k in ("date", "ordinal"))}
    names = frozenset(n for n in found.get("name", frozenset())
                      if _lemma(n) not in skip and n not in skip and not re.search(r"\d", n))
    if names:
        out["name"] = names
    times = _times(text)
    if times:
        out["time"] = times
    return out


def _changed(new: str, held: str, skip: frozenset[str], gone: frozenset[str] = frozenset(),
             dated: bool = False) -> tuple[str, str | None] | None:
    """The type of value `new` gives in place of one `held` gives, and the brand a model is of
    (None for other types): both give one of that type, each one the other does not (`gone`,
    what `new` says ended, is none it gives)."""
    a, b = _models(new), _models(held)
    for brand in sorted(a.keys() & b.keys()):
        if a[brand] != b[brand]:
            return "model", brand
    mine, theirs = _values(new, skip | gone, dated), _values(held, skip, dated)
    if a and b and "name" in mine and "name" in theirs:
        # a model of another brand ("an iPhone 13" / "a Pixel 8") is a name changed
        mine = {**mine, "name": mine["name"] - set(a.values())}
        theirs = {**theirs, "name": theirs["name"] - set(b.values())}
    for kind in sorted(mine.keys() & theirs.keys()):
        if mine[kind] - theirs[kind] and theirs[kind] - mine[kind]:
            return kind, None
    return None


_PHRASAL = re.compile(r"(?:get|gets|got|getting|go|goes|going|went|set|sets|setting|head|heads|"
                      r"heading|headed|clock|clocks|clocked|clocking)\s+(?:up|off|out|home|in)")
"""A light verb and its particle, one word of a routine ("get up", "head off", "clock off")."""


def _tokens(text: str, skip: frozenset[str], values: frozenset[str],
            people: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """`text` as (lemma, class): "content", "stop" (function, light, holder, filler and cue
    words), "person" (a word of people or pets, `people`, not the holders': "walk the dog"),
    "value" (a name, number, day or time), "edge" (punctuation)."""
    out: list[tuple[str, str]] = []
    words = _WORD.findall(text)
    for k, w in enumerate(words):
        low = w.lower()
        lemma = _sense(w)
        if _PHRASAL.fullmatch(f"{low} {words[k + 1].lower() if k + 1 < len(words) else ''}"):
            out.append((f"{_base(w)} {words[k + 1].lower()}", "content"))  # "get up"
        elif k and _PHRASAL.fullmatch(f"{words[k - 1].lower()} {low}"):
            out.append((low, "stop"))
        elif not w[0].isalpha():
            out.append((w, "value" if w[0].isdigit() else "edge"))
        elif low.strip("'\u2019s") in values or low in values or lemma in values or \
                slots._WEEKDAY.fullmatch(low) or low in ("midnight", "noon", "midday"):
            out.append((lemma, "value"))
        elif {lemma, low, _base(w)} & skip:
            out.append((lemma, "person" if {lemma, low, _base(w)} & people else "stop"))
        elif low in _STOP_WORDS or lemma in _STOP or low in _RESCHEDULE_WORDS or \
                CUES.fullmatch(low) or _MORE_CUES.fullmatch(low) or slots.unit(low) or \
                lemma in {_lemma(g) for g in _GENERIC} or len(lemma) < 3:
            out.append((lemma, "stop"))
        else:
            out.append((lemma, "content"))
    return out


def _beside(tokens: list[tuple[str, str]], word: str, step: int) -> set[str]:
    """The content words next to each `word` in `tokens` (stop words skipped; a value or
    punctuation ends the look) on the side `step` says."""
    out = set()
    for k, (lemma, kind) in enumerate(tokens):
        if lemma != word or kind != "content":
            continue
        j = k + step
        while 0 <= j < len(tokens) and tokens[j][1] == "stop":
            j += step
        if 0 <= j < len(tokens) and tokens[j][1] in ("content", "person"):
            out.add(tokens[j][0])
    return out


def anchor(new: str, held: str, skip: frozenset[str], holders: frozenset[str],
           brand: str | None = None) -> str | None:
    """The word both statements are about, or None: none shared, or the words beside it differ
    on both sides ("play squash" / "play golf", "book club" / "running club": two things).
    A word of a name on one side is shared with the same word said plainly on the other
    ("Abbey Road Vets" / "the vet"). `skip`: words of people and pets; `holders`: the two
    statements' holders' words (neither an anchor nor a thing beside one)."""
    names = {n for t in (new, held) for n in slots.values(t).get("name", frozenset())}
    values = frozenset(names) - ({brand} if brand else set())
    people = skip - holders
    mine, theirs = _tokens(new, skip, values, people), _tokens(held, skip, values, people)
    plain = {w for w, k in mine if k == "content"}, {w for w, k in theirs if k == "content"}
    named = {_lemma(n) for n in slots.values(new).get("name", frozenset())}, \
        {_lemma(n) for n in slots.values(held).get("name", frozenset())}
    shared = sorted((plain[0] & plain[1]) | (plain[0] & named[1]) | (plain[1] & named[0]))
    if brand:
        shared = [brand, *shared]
    if not shared:
        return None
    for word in shared:
        for step in (-1, 1):
            a, b = _beside(mine, word, step), _beside(theirs, word, step)
            if a and b and not a & b and not (a & set(shared) or b & set(shared)):
                return None
        before = {a[0] for a, b in pairwise(mine) if b == (word, "content") and
                  a[1] in ("content", "person")} - set(shared)  # (the word just before it)
        if before and not _beside(theirs, word, -1) and word != brand:
            return None  # "the window cleaner" / "our cleaner": maybe another one
    return shared[0]


def _own_words(new: str, held: str, skip: frozenset[str]) -> bool:
    """Whether `new` says a thing `held` does not (a content word of neither, not after "our"
    or "my"): "Ilse has started doing yoga on Mondays" is her own routine, not the cleaning."""
    theirs = {w for w, k in _tokens(held, skip, frozenset()) if k == "content"}
    tokens = _tokens(new, skip, frozenset())
    return any(k == "content" and w not in theirs and w not in _CHANGE_VERBS and
               not (j and tokens[j - 1][0] in ("our", "my")) for j, (w, k) in enumerate(tokens))


_CHANGE_VERBS = frozenset("switch swap move change shift".split())
"""The verb of a change, no thing of its own ("Marisol's had to switch us to Fridays")."""


def _holder_fits(holder: str, theirs: str, said: str) -> bool:
    """The same holder; or a weak one (the speaker, "they", "it", a thing by name) for a held
    person or pet whose name the sentence says ("..., so that's when Maya has it"); "she" or
    "he" for a held relation of that gender (one fit of all: `same_anchor` counts them)."""
    if holder == theirs:
        return True
    prefix, _, who = holder.rpartition("|")
    their_prefix, _, them = theirs.rpartition("|")
    if prefix == their_prefix and who in ("?she", "?he"):  # of the holders of that gender
        return pronoun(them) == who[1:]
    if prefix != their_prefix or not (who in ("i", "?they", "?it") or (
            who.startswith("named ") and re.fullmatch(r"[a-z]+", who[6:]) is not None and
            who[6:] not in RELATIONS)):
        return False  # ("Dave's wife works at Aldi now": not Dave)
    names = [w for w in them.split() if w not in ("named",)]
    capital = {w.lower() for w in re.findall(r"(?-i:\b[A-Z][a-z]+)", said)}
    return bool(names) and them != "i" and names[-1] in capital and \
        (not who.startswith("named ") or who[6:] not in capital - {names[-1]})


def naming(text: str, sentence: str, theirs: str) -> str:
    """The record text of a clause that replaces a held fact of the person or pet `theirs`
    named only elsewhere in its sentence ("The maths tutor can only do Saturdays now." of
    "..., so that's when Maya has it."): the whole sentence, so the record says whom it is
    about (and the vet, reading the text alone, finds the same holder). Else `text`."""
    name = theirs.rpartition("|")[2].split(" ")[-1]
    if not sentence or theirs.rpartition("|")[2] == "i" or len(name) < 2 or len(sentence) > 400:
        return text
    said = rf"(?-i:\b{re.escape(name[:1].upper() + name[1:])}\b)"
    return sentence if slots.search_user(said, sentence) and not slots.search_user(said, text) \
        else text


def _once(said: str) -> bool:
    """A one-off: `endings._ONE_OFF` ("today", "for once", "for a change"), or a day or night
    named as this, last or next one (`_ONCE`), not after "from" / "since"."""
    if _ONE_OFF.search(said):
        return True
    return any(not _FROM.search(said[:m.start()]) for m in _ONCE.finditer(said))


def same_anchor(new: Claim, holder: str, claims: Sequence[Claim], skip: frozenset[str],
                by_kind: Callable[..., list[tuple[int, str, str]]] | None = None) -> Verdict | None:
    """The one held fact of the holder that `new` gives a new value of the same type for, on
    the same anchor, worded as a change (see the module docstring); `by_kind`: an event named by
    a word of its kind (`occasions.moved`, given by the caller); `related` to the newest
    when two or more fit; None when none does."""
    said = new.context or new.said
    moved = bool(_RESCHEDULED.search(new.said) or re.search(r"\binstead\b(?!\s+of)", new.said, re.I)
                 or re.search(r"\b(?:moved|changed)\s+(?:\w+\s+){0,4}?to\b", new.said, re.I)
                 or kindred.moved_by_other(new.said))
    if new.additive or _ADDITIVE.search(said) or slots.hypothetical(said) or _once(said) or \
            not (CUES.search(new.said) or _MORE_CUES.search(new.said) or
                 _RESCHEDULED.search(new.said)) or slots.kept(said):
        return None  # (the cue in the statement itself: a record is vetted by its own text)
    fits: list[tuple[int, str, str]] = []
    for i, c in enumerate(claims):
        if not c.said or c.ends or c.said == new.said or c.named != new.named or \
                (new.context and c.said.rstrip(".!").lower() in new.context.lower()):
            continue
        # "since Dr Moore retired", in the statement itself (a record is vetted by its text)
        gone = frozenset(slots.ended_again(c.said, new.said))
        of_thing = moved and _thing_holder(holder, c.holder, said, c.said)
        if (helper := kindred.helper(holder, c.holder, new.said, c.said)) is not None and \
                not _own_words(kindred.clause_of(new.said, helper), c.said, skip | {helper}):
            gone = gone | {helper}  # ("Bogdana can only do Mondays" of "Our cleaner, Bogdana, ...")
        if not (of_thing or _holder_fits(holder, c.holder, said) or helper or
                (gone and _relation_of(holder, c.holder))):
            continue  # ("it" moved: what it is, the sentence names: "The dentist rang, it's ...")
        pronoun = of_thing and holder.rpartition("|")[2] in ("?it", "?they")
        other = kindred.moved_by_other(new.said) if of_thing else None  # (less the doer)
        fit = _fits(other or (said if pronoun else new.said), c.said,
                    holder if of_thing and not other else holder + " " + c.holder, skip, gone,
                    moved)
        if fit is not None:
            fits.append((i, *fit))
    if not fits and moved:
        fits = _moved_by_type(new, holder, claims, said, skip)
    if not fits and by_kind is not None:  # ("take-off has been pushed back": the flight's)
        fits = by_kind(new, holder, claims, said, skip)
    if not fits:  # ("I catch the 8:05 instead" of "I'm on the 7:40 train")
        fits = [(i, "time", "service") for i in kindred.service_by_time(
            new.said, [c.said if c.holder == holder and not c.ends else "" for c in claims])]
    if not fits:  # ("My daughter's teacher is now Mr Obi" of "... Year 3 with Miss Hughes")
        fits = [(i, "person", role) for i, role in kindred.role_changed(
            said, [c.said if not c.ends else "" for c in claims])]
    if (caller := _CALLER.search(said)) is not None and not _EVENT.search(new.said):
        fits = [f for f in fits if  # ("The garage rang, they've moved it to Monday": the
                re.search(rf"\b{caller.group(1)}", claims[f[0]].said, re.I)]  # garage's thing)
    if not fits:
        return None
    i, kind, thing = fits[-1]
    if len(fits) > 1:
        return "related", i, (f"the same anchor ({thing}) and another {kind} in "
                              f"{len(fits)} held facts: both kept, the new one marked newer",)
    return "supersedes", i, (f"same holder ({holder})", f"the same anchor ({thing})",
                             f"another {kind} given", "worded as a change",
                             "the only held fact that fits")


_CALLER = re.compile(r"^\W*(?:the\s+|my\s+|our\s+)?(?!(?:surgery|clinic|hospital|practice|gp|"
                     r"doctors?|office|school|they|someone|somebody|reception)\b)([a-z]{3,})\s+"
                     r"(?:has\s+|just\s+)?(?:rang|called|phoned|emailed|texted|messaged|wrote|"
                     r"been\s+in\s+touch)\b", re.I)
"""Who rang to move a thing ("Dentist rang, ..."): "it" moved is theirs; not a place that
books many kinds ("The surgery rang, it's been rebooked": the smear test held)."""
_EVENT = re.compile(rf"\b(?:{EVENT_WORDS})\b", re.I)
_DATED = ("weekday", "time", "date", "ordinal")
_POSSESSOR = re.compile(r"(?-i:\b(?!(?:It|That|There|Here|What|Who|Where|Let|He|She)['\u2019])"
                        r"([A-Z][a-z]+))['\u2019]s\b|\b(?:my|our|his|her|their)\s+(\w+)"
                        r"['\u2019]s\b|\b([a-z]+s)['\u2019](?=\s)", re.I)


def _thing_holder(holder: str, theirs: str, said: str, held: str, opens: bool = False) -> bool:
    """Whether a thing moved (`_RESCHEDULED`) by a weak holder (the speaker, "it", "they") is
    the held fact's: the held holder is the speaker, or a thing the sentence names in lower case
    ("Physio is on Wednesdays" / "They've moved my physio to Fridays"; "My dentist appointment
    is on the 12th" / "The dentist rang, it's been rebooked ..."), or, `opens` (a thing moved
    with no topic of its own), a thing of the speaker's the held fact opens with ("My dentist
    appointment ..."); never beside someone else's
    ("my husband's physio", "Tom's MOT")."""
    prefix, _, who = holder.rpartition("|")
    their_prefix, _, them = theirs.rpartition("|")
    if prefix != their_prefix or who not in ("i", "?it", "?they") or any(
            (m.group(1) or m.group(2) or m.group(3)).lower() not in held.lower()
            for m in _POSSESSOR.finditer(said)):
        return False
    word = them.removeprefix("named ")
    if who == "i" and them in kindred.HOUSEHOLD and (thing := kindred.moved_by_other(said)):
        his = re.match(r"(his|her)\b", thing, re.I)  # ("his swimming sessions": a son's)
        return his is None or pronoun(them) in (None, {"his": "he", "her": "she"}[his[1].lower()])
    return them == "i" or (re.fullmatch(r"[a-z]+", word) is not None and (
        opens and re.match(rf"\W*(?:my|our)\s+{word}\s+[a-z]", held, re.I) is not None or
        (re.search(rf"(?-i:\b{word}\b)", said) is not None and
         re.search(rf"(?-i:\b{word.capitalize()}\b)", said) is None)))


_NO_TOPIC = re.compile(
    r"(?:^|[,;]\s*)(?:the\s+|my\s+|our\s+)?[a-z]+(?:\s+[a-z]+)?\s+(?:has\s+|had\s+|just\s+)*"
    r"(?:rang|called|phoned|emailed|texted|messaged|wrote|got\s+in\s+touch)(?:\s+(?:me|us))?"
    r"(?=\s*(?:[,;.!]|$))|^(?:the\s+|my\s+|our\s+)?[a-z]+(?:\s+[a-z]+)?(?=\s+(?:has\s+|have\s+|"
    r"'s\s+|'ve\s+)?(?:moved|rebooked|rescheduled|pushed|put|brought|shifted|changed)\s+(?:it|that|"
    r"them|the|my|our)\b)", re.I)
"""Who only told of a move, no topic: a caller ("The dentist rang, ..."), the one who moved a
thing ("The salon moved it to Saturday", "The garage pushed the MOT back")."""


def _moved_by_type(new: Claim, holder: str, claims: Sequence[Claim], said: str,
                   skip: frozenset[str]) -> list[tuple[int, str, str]]:
    """The held facts a thing moved with no topic of its own ("it's been rebooked for the 20th
    instead", "I'm rebooked for the 16th", "The salon moved it to Saturday") may be: each of a
    holder `_thing_holder` allows, dated or timed, given another value of that type, and
    saying every word the sentence says beyond who told of it or moved it."""
    if not re.search(r"\b(?:it|that|them)\b", new.said, re.I) and \
            holder.rpartition("|")[2] != "i":
        return []
    topic = said if re.search(r"\b(?:it|that|them)\b", new.said, re.I) else new.said
    words = {_lemma(w) for w, k in _tokens(_NO_TOPIC.sub(" ", topic), skip, frozenset())
             if k == "content"}  # (a named thing's own clause: not "..., which suits me")
    out, others = [], 0
    for i, c in enumerate(claims):
        changed = _changed(new.said, c.said, skip, dated=True) if c.said and not c.ends else None
        if changed is None or changed[0] not in _DATED:
            continue
        lemmas = {_lemma(w) for w in _WORD.findall(c.said)} | set(c.holder.split())
        if not _thing_holder(holder, c.holder, said, c.said, opens=True) or not words <= lemmas:
            others += not words  # (another holder's dated thing: "it" may be that one)
            continue
        out.append((i, changed[0], sorted(words & lemmas)[0] if words else "it"))
    return out + out[:1] * others  # (two or more: `related`, both kept)


_TITLE = re.compile(r"(?-i:\b(?:Coach|Dr|Doctor|Mr|Mrs|Ms|Miss|Nurse|Sir|Professor|Prof)\b)\.?\s+"
                    r"(?-i:[A-Z][a-z]+)")


def _relation_of(holder: str, theirs: str) -> bool:
    """Whether `theirs` is a relation of `holder` ("wife gp", "mother's carer": my wife's GP, of
    "wife"): a held fact of who that is, which a statement of the holder may change."""
    for joint in (" ", "'s "):
        rest = theirs[len(holder) + len(joint):]
        if theirs.startswith(holder + joint) and (rest in RELATIONS or rest in RELATIONS.values()):
            return True
    return False


def _fits(new: str, held: str, who: str, skip: frozenset[str],
          gone: frozenset[str] = frozenset(), dated: bool = False) -> tuple[str, str] | None:
    """(the type of value replaced, the anchor) when the statement `new` gives another value of
    a type `held` gives, on the same anchor; None when it does not, or is about another thing
    for certain: a value held by another noun ("the 8:10 bus" / "the office opens at 8"),
    something done through it ("on the internet"), a day's routine beside it ("in the York
    office on Fridays"), a person where a place was ("with Coach Dana" / "at The Arch"), or a
    thing of its own as the subject ("My work phone switched ..."). `gone`: the held values
    the sentence says ended ("since Dr Moore retired"): not given anew, and what both are about
    when no word is shared."""
    words = set(who.replace("|", " ").split())
    holders = frozenset(words | {k for k, v in RELATIONS.items() if v in words})
    changed = _changed(new, held, skip | holders, gone, dated)
    if changed is None:
        return None
    kind, brand = changed
    if kind == "name":
        given = _values(new, skip | holders)["name"] - _values(held, skip | holders)["name"]
        if not gone and not slots.placed(new, "name", given) and \
                not kindred.races_swapped(new, held):
            return None  # ("Now I'm learning Italian": one more thing done, not a place)
        if bool(_TITLE.search(new)) != bool(_TITLE.search(held)):
            return None
    if kind != "weekday" and "weekday" in slots.values(new) and \
            "weekday" not in slots.values(held):
        return None
    thing = anchor(new, held, skip | holders, holders, brand) or min(gone, default=None)
    if thing is None or (slots.through(new, thing) and not slots.through(held, thing)):
        return None
    owned, owned_new = slots.owners(held), slots.owners(new)
    if owned and thing not in owned and not owned & owned_new:
        return None
    subject = slots._subject_phrase(new)
    lemmas = {_sense(w) for w in _WORD.findall(held)}
    if subject and not set(subject) & (skip | holders) and _sense(subject[-1]) not in lemmas:
        return None
    return kind, thing
