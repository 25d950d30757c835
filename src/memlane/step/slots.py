"""A fact's slot, read without a list of attributes: the thing it is about (a noun it shares
with the held fact) and its value by type (a name, an amount with its unit, a time, a day).

The supersede rule (`step/supersede.py`) names the attributes people state most often (where
they live, whom they work for, their age, their rent ...) and reads each with its own pattern.
A correction of anything else ("Our broadband provider is Virgin Media" / "We're with BT for
broadband now", "Our weekly standup is at 9:30" / "The standup got pushed to 10:15") names no
attribute the rule knows. This module answers for those, the way a reader would: the two
statements are about the same thing when they share its noun (`anchor`: "broadband",
"standup", "plan", "floor"), and the new one gives another value of the same type
(`changed_type`: a name for a name, 30GB for 10GB, 10:15 for 9:30, the fifth floor for the
third). Never across things: "my yoga class" is not "my pottery class" (the same noun, other
modifiers), "my phone" is not "my phone contract" (another noun is the subject). It is pure
and reads only the two texts; the holder and the change cue are the rule's to check.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable

from . import endings, lexicon
from .brands import lower_brand
from .endings import _ENDED, _ENDED_PIECE, _STILL, _ended_by_it, _pieces, names_another, root

try:  # Python 3.11+; `sre_compile` before
    _SRE = importlib.import_module("re._compiler")
except ImportError:  # pragma: no cover
    _SRE = importlib.import_module("sre_compile")


def search_user(pattern: str, text: str, flags: int = 0) -> re.Match[str] | None:
    """`re.search` for a pattern built from a user's words (a held value, a name), compiled
    outside `re`'s module cache: the cache would keep the words in the process after a forget."""
    compiled: re.Pattern[str] = _SRE.compile(pattern, flags)
    return compiled.search(text)


_NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_TIME = re.compile(r"\b\d{1,2}[:.]\d{2}\s*(?:am|pm|a\.m\.|p\.m\.)?(?!\d)|\b\d{1,2}\s*(?:am|pm)\b",
                   re.I)
# A bare hour where only a clock time fits: "bed at 7", "stays up till 8", "asleep by 9".
_CLOCK = re.compile(r"\b(?:bed|up|asleep)\s+(?:\w+\s+)?(?:at|around|about|by|till|until|before)"
                    r"\s+(?:about\s+)?(\d{1,2})(?!\d|[:.,]\d|\s*(?:am|pm|a\.m|p\.m|%|k\b|p\b))",
                    re.I)
_MONEY = re.compile(r"[£$€]\s?\d[\d,]*(?:\.\d+)?k?|\b\d[\d,]*(?:\.\d+)?\s?(?:pounds|dollars|"
                    r"euros|quid|grand)\b", re.I)
_MONEY_BARE = re.compile(f"{_MONEY.pattern}|{lexicon.BARE_SUM}", re.I)
_UNITS = {"kilo": "kg", "kilos": "kg", "kgs": "kg", "lb": "lbs", "hr": "hour", "hrs": "hour",
          "min": "minute", "mins": "minute", "mile": "miles"}
_QUANTITY = re.compile(r"\b(\d+(?:\.\d+)?)\s?(kg|kgs|kilos?|lbs?|stone|mg|mcg|ml|gb|mb|tb|mbps|"
                       r"km|miles?|cm|%|hours?|hrs?|minutes?|mins?|days?|weeks?|months?|years?"
                       r"|nights?|times?|k)(?![\w])", re.I)


def unit(word: str) -> bool:
    """Whether `word` is a unit of an amount ("kg", "miles", "k")."""
    return _QUANTITY.fullmatch("1 " + word) is not None


_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                      r"eleventh|twelfth|\d{1,2}(?:st|nd|rd|th)"
                      # "last" as a place in order ("the last train"), not when ("last month")
                      r"|last(?!\s+(?:week|month|year|night|time|weekend|term|season|summer|"
                      r"winter|spring|autumn|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b))\b",
                      re.I)
_WEEKDAY = re.compile(r"\b((?:mon|tues|wednes|thurs|fri|satur|sun)day|weekday|weekend)s?\b",
                      re.I)
_MONTH = re.compile(r"\b(january|february|march|april|may|june|july|august|september|october|"
                    r"november|december)\b(?:\s+\d{1,2}\b)?|\b\d{1,2}\s+(?:january|february|"
                    r"march|april|may|june|july|august|september|october|november|december)\b",
                    re.I)
_DIGITS = re.compile(r"\b\d[\d,]*(?:\.\d+)?\b")
_CAPITAL = re.compile(r"(?-i:\b(?:[A-Z]|[a-z][A-Z])[\w'&.-]*)")  # (and "iPhone", "eBay")
_NOT_NAMES = frozenset("i i'm i've i'd i'll dr mr mrs ms st year".split())


def values(text: str) -> dict[str, frozenset[str]]:
    """The values `text` states, by type: "time" (10:15, 7pm), "money" (£1,240), "qty kg"
    (an amount with its unit), "ordinal" (third, 5th), "weekday", "date", "number" (a bare
    number) and "name" (capitalised words past the first; "Virgin Media" gives "virgin" and
    "media"). Each value is found once: a time is not also a number."""
    # "four days" is 4 days; "Three" (capitalised past the first word) is a name.
    s = " " + re.sub(r"\b(?:" + "|".join(_NUMBER_WORDS) + r")\b",
                     lambda m: _NUMBER_WORDS[m.group(0)], text) + " "
    out: dict[str, set[str]] = {}

    def take(kind: str, rx: re.Pattern[str], val: int = 0) -> None:
        nonlocal s
        for m in rx.finditer(s):
            v = m.group(val).lower().replace(" ", "").replace(",", "").rstrip(".")
            out.setdefault(kind, set()).add(v)
        s = rx.sub(lambda m: " " * len(m.group(0)), s)

    take("time", _TIME)
    take("time", _CLOCK, 1)
    take("money", _MONEY_BARE if lexicon.sums_bare(text) else _MONEY)
    for m in _QUANTITY.finditer(s):
        unit = m.group(2).lower()
        unit = _UNITS.get(unit, unit.rstrip("s") if len(unit) > 3 else unit)
        out.setdefault("qty " + unit, set()).add(m.group(1))
    s = _QUANTITY.sub(lambda m: " " * len(m.group(0)), s)
    take("date", _MONTH)
    take("weekday", _WEEKDAY, 1)
    take("ordinal", _ORDINAL)
    take("number", _DIGITS)
    brand = lower_brand(text)
    if brand is not None:
        out.setdefault("name", set()).add(brand)
    words = _CAPITAL.findall(s)
    first = re.match(r"\W*([\w'-]+)", text)
    opener = first.group(1) if first else ""
    for i, w in enumerate(words):
        if (i == 0 and s.lstrip().startswith(w) and w == opener) or w.lower() in _NOT_NAMES:
            continue
        out.setdefault("name", set()).add(w.lower().strip("'.").removesuffix("'s"))
    return {k: frozenset(v) for k, v in out.items() if v}


def changed_type(new: str, held: str) -> str | None:
    """The type of value (`values`) that `new` gives anew in place of the one `held` gives: both
    state one of that type, each one the other does not. None: no value of one type replaced."""
    a, b = values(new), values(held)
    for kind in sorted(a.keys() & b.keys()):
        if a[kind] - b[kind] and b[kind] - a[kind]:
            return kind
    return None


# --- the thing a statement is about ----------------------------------------------------------

_FUNCTION = frozenset("""is are was were be been being am has have had having got get gets going
    go goes gone went to in on at of for with from into onto up down over by as and or but so now
    then than also just still really very this that these those it its not no never any more
    again back away out off which who whom when where while if because since until after before
    about instead anymore there here i we you he she they me us him them his her their my our
    your will would can could should might may must do does did a an the some every each all
    per s 'd 'm 're 've 'll 's both other another one ones thing things lot bit way kind sort
    usual i'm i've we're we've it's she's he's they're they've you're that's there's""".split())
# Verbs in -s a phrase runs into ("my commute takes 40 minutes", "the office opens at 7").
_FUNCTION = _FUNCTION | frozenset("""takes makes gets comes costs runs leaves starts opens closes
    meets lasts pays needs uses works lives goes sits stays""".split())
_LIGHT_VERBS = frozenset("go goes going gone went get gets got have has had do does did".split())
_TIME_NOUNS = frozenset("""day days week weeks month months year years morning mornings evening
    evenings night nights weekend weekends time times moment minute minutes hour hours today
    tomorrow yesterday tonight term season spring summer autumn winter fall start end""".split())
_NEUTRAL = frozenset("new old current former latest previous usual regular same".split())
_DETERMINER = re.compile(r"\b(my|our|the|a|an|for|his|her|their|its)\s+", re.I)
_VERBISH = re.compile(r"^[a-z]{3,}ed$|^(?:got|went|left|sold|took|came|became|began|grew|rose|"
                      r"fell|put|set|cut|quit)$")
_BARE_SUBJECT = re.compile(r"^\W*((?:[A-Za-z][a-z-]+\s+){0,2}[a-z][a-z-]+)\s+(?=(?:is|are|was|"
                           r"were|has|have|had|got|moved|changed|went|goes|go|rose|fell|"
                           r"dropped|increased|starts|started)\b)")


def _word(w: str) -> str:
    w = w.lower().strip("'-")
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"  # "groceries" / "grocery"
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def _phrase(words: Iterable[str]) -> tuple[str, ...]:
    """The noun words of a phrase: from its first, up to the first function word, verb, name,
    number or punctuation; values (an ordinal, "10GB") inside are skipped."""
    out: list[str] = []
    for w in words:
        low = w.lower()
        if (_ORDINAL.fullmatch(low) or re.fullmatch(r"[£$€]?\d[\w.:,]*", low)) and out:
            break  # a value after the noun is no longer its phrase: "my commute takes 40"
        if _ORDINAL.fullmatch(low) or re.fullmatch(r"[£$€]?\d[\w.:,]*", low) or low in _NEUTRAL \
                or _WEEKDAY.fullmatch(low):
            continue  # (a value, or the day a routine is on: "my Monday pottery class")
        if not re.fullmatch(r"[a-z][a-z'-]*", w) or low in _FUNCTION or _VERBISH.match(low):
            break
        out.append(_word(low))
        if len(out) == 4:
            break
    return tuple(out)


def phrases(text: str, skip: frozenset[str] = frozenset()) -> list[tuple[str, ...]]:
    """The noun phrases of `text` ("my parking space at work": ("parking", "space")), less the
    ones whose last word is in `skip` (people and pets: a holder, not a thing) or a time."""
    out: list[tuple[str, ...]] = []
    bare = _BARE_SUBJECT.match(text)
    if bare is not None and bare.group(1).split()[0].lower() not in _FUNCTION:
        out.append(_phrase(bare.group(1).lower().split()))
    for m in _DETERMINER.finditer(text):
        words = re.findall(r"\d[\d:.,]*\w*|[\w'-]+|[^\w\s]", text[m.end():])[:8]
        p = _phrase(words)
        if p and not (len(words) > len(p) and re.fullmatch(r"[A-Z][a-z]+", words[len(p)]) and
                      words[0].lower() == p[0]):
            out.append(p)  # (not "black" of "a black Labrador": the name is the noun; "zone"
            # of "zone C" is a label's)
    return [p for p in out if p and not _held(p[-1], skip) and p[-1] not in _TIME_NOUNS]


_VALUE_WORD = re.compile(r"[£$€]?\d[\w.:,]*|" + _ORDINAL.pattern, re.I)


def owners(text: str) -> set[str]:
    """The nouns whose phrase holds a value ("I take the 8:05 bus": {"bus"}; "a 10GB data
    plan": {"plan"}): the value is theirs, not another noun's of the sentence."""
    out: set[str] = set()
    for m in _DETERMINER.finditer(text):
        words = re.findall(r"[£$€]?\d[\d:.,]*\w*|[\w'-]+|[^\w\s]", text[m.end():])[:8]
        p = _phrase(words)
        if p and any(_VALUE_WORD.fullmatch(w) for w in words[:words.index(next(
                (w for w in words if _word(w) == p[-1]), words[-1])) + 1]):
            out.add(p[-1])
    return out


def _held(word: str, skip: frozenset[str]) -> bool:
    return word in skip or word + "s" in skip


def subject(text: str) -> tuple[str, ...]:
    """The words of the noun phrase a statement opens with, its subject when it is a thing
    ("School pickup is at 3:15", "Our water bill is £38": ("water", "bill")); empty when it
    opens otherwise."""
    bare = _BARE_SUBJECT.match(re.sub(r"^\W*(?:my|our|the)\s+", "", text, flags=re.I))
    if bare is None or bare.group(1).split()[0].lower() in _FUNCTION:
        return ()
    return _phrase(bare.group(1).lower().split())


def copula_head(text: str, skip: frozenset[str] = frozenset()) -> str | None:
    """The noun of a statement's subject when it says what something is ("My phone contract is
    with Three": "contract"), else None; None too when it is in `skip` (a holder: "My parents
    are with Vodafone")."""
    m = re.match(r"^\W*(?:(?:my|our|the)\s+)?((?:[a-z][a-z'-]*\s+){0,3}?[a-z][a-z'-]*)"
                 r"(?=\s+(?:is|are|was|were)\b|'s\b)", text, re.I)
    if m is None or m.group(1).split()[0].lower() in _FUNCTION - {"my", "our", "the"}:
        return None
    p = _phrase(m.group(1).split())
    return p[-1] if p and len(p) == len(m.group(1).split()) and not _held(p[-1], skip) else None


def _content(text: str, stop: frozenset[str] = frozenset()) -> set[str]:
    return {_word(w) for w in re.findall(r"[A-Za-z][A-Za-z'-]+", text.replace("\u2019", "'"))
            if w.lower() not in stop}


def _clash(p: tuple[str, ...], q: tuple[str, ...]) -> bool:
    """Two phrases of one noun that name two things: "yoga class" / "pottery class"."""
    return p[-1] == q[-1] and bool(p[:-1]) and bool(q[:-1]) and not set(p[:-1]) & set(q[:-1])


def anchor(new: str, held: str, skip: frozenset[str] = frozenset()) -> str | None:
    """The noun both statements are about ("standup", "broadband"), or None: none shared, or
    they name two things for certain (two subjects' nouns differ, or one noun with other
    modifiers). `skip`: words of people and pets (holders, not things)."""
    heads = copula_head(new, skip), copula_head(held, skip)
    if heads[0] and heads[1] and heads[0] != heads[1]:
        return None  # "my phone" / "my phone contract"
    mine, theirs = phrases(new, skip), phrases(held, skip)
    if any(_clash(p, q) for p in mine for q in theirs):
        return None
    if any(p[-1] == q[-1] and set(p[:-1]) - set(q[:-1]) for p in mine for q in theirs):
        return None  # "my work laptop" is maybe not "my laptop" (the other way round it is)
    words_new, words_held = _content(new), _content(held)
    held_owners = owners(held)
    for ps, other in ((mine, words_held), (theirs, words_new)):
        for p in ps:
            if p[-1] in other and len(p[-1]) > 2 and \
                    (not held_owners or p[-1] in held_owners or held_owners & owners(new)):
                return p[-1]  # (not "the office" when the held time is "the 8:05 bus"'s)
    return None


def named_thing(text: str, noun: str) -> bool:
    """Whether `noun` follows a name in `text` ("a Dell laptop"): the name is the thing's."""
    names = values(text).get("name", frozenset())
    return any(search_user(rf"\b{re.escape(n)}\s+{re.escape(noun)}", text, re.I) for n in names)


def placed(text: str, kind: str, only: frozenset[str] | None = None) -> bool:
    """Whether `text` gives its value of `kind` where a provider or a place stands ("with
    Monzo", "to Better Gym", "at 10:15"), not as what is done ("learning Italian": one more
    thing learnt, maybe, not the other replaced). Values of other types than names always are.
    `only`: the names to look for (else every name of `text`)."""
    if kind != "name":
        return True
    names = values(text).get("name", frozenset()) if only is None else only
    return any(search_user(rf"\b(?:with|at|to|for|from|by|in|into|joined)\s+(?:the\s+)?"
                         rf"(?:(?-i:[A-Z])[\w'&.-]*\s+){{0,3}}{re.escape(n)}\b"
                         rf"|{_TITLE}\s+{re.escape(n)}\b", text, re.I) for n in names)


_TITLE = r"\b(?-i:Dr|Mr|Mrs|Ms|Miss|Prof)\.?"
"""A person's title: the name after it is a person's, a value whatever the verb ("I'm seeing
Dr Banerjee now" / "My dentist is Dr Hughes")."""


_CUE_WORDS = frozenset("""now instead anymore any more longer these days nowadays actually
    switched changed moved new since this from next week month year last again back""".split())


def frame(text: str) -> frozenset[str]:
    """A statement's words less its values, function words, times and change cues: "I bank with
    Monzo" and "These days I bank with Barclays" both give {"bank"}."""
    text = _REASON.sub("", text)  # "... because of meetings", "... since the move": why, not what
    said = {_word(x) for vs in values(text).values() for v in vs for x in (v, *v.split())}
    text = re.sub(r"\S*\d\S*", " ", text)  # "1pm" gives no word "pm"
    return frozenset(w for w in _content(text, (_FUNCTION - _LIGHT_VERBS) | _HABIT)
                     if w not in _TIME_NOUNS and w not in _CUE_WORDS and w not in said)


_REASON = re.compile(r"[,;]?\s+(?:because|since\s+(?:the|my|our|we|i|they|he|she|it)|"
                     r"as\s+(?:the|we|i|they)|after\s+(?:the|my|our))\b.*$", re.I | re.S)
# How often, and the light verbs of a habit: "I usually have lunch at 12:30" / "I take lunch at
# 1pm these days" are both {"lunch"}.
_HABIT = frozenset("""usually normally always often generally typically regularly mostly
    have has had having take takes took taking""".split())


_HYPOTHETICAL = re.compile(
    rf"\b(?:{endings.IF_SAID}|might|(?<!\bin\s)(?-i:may)\s+(?-i:[a-z]+)|could|would|should|maybe|perhaps|"
    r"thinking\s+(?:of|about)(?!\s+(?:some|any)\w*\s+else)|considering|wondering|planning\s+to|(?:i|we)\s+plan\s+to|want\s+to|wants\s+to|"
    r"hope\s+to|probably|unless|whether|tempted|wants?\s+(?:a|an|one|some)\s|"
    r"(?:asked|asking|hoping|wishing)\s+for|look(?:ing|ed)\s+(?:at|into)\s+(?-i:[a-z]+ing)"
    # "I'm going to switch", "we're moving to York": planned; not "going to the gym"
    r"|(?:'m|am|'re|are|is|'s)\s+(?:moving|relocating|emigrating)\s+(?:\w+\s+)?(?:to|back)\b"
    r"|(?:'m|am|'re|are|is|'s)\s+going\s+to\s+(?!(?:the|a|an|my|our|his|her|their)\b)"
    r"(?-i:[a-z]+))\b", re.I)


def hypothetical(text: str) -> bool:
    """Whether `text` says what may happen, not what is ("I might switch to Octopus")."""
    return bool(_HYPOTHETICAL.search(text))


def _subject_phrase(text: str) -> tuple[str, ...]:
    m = _OPENING.match(text)
    if m is None or m.group(1).split()[0].lower().split("'")[0] in _FUNCTION:
        return ()
    words = _POSSESSIVE.sub("", m.group(1)).split()
    return _phrase([words[0].lower(), *words[1:]])  # (a name past the first word ends it)


_ANOTHER_OF = frozenset("work spare business personal backup holiday kids second joint".split())
"""Modifiers that make a thing another of its kind: "my work phone" is not "my mobile"."""


def another_of(new: str, held: str, skip: frozenset[str] = frozenset()) -> bool:
    """Whether `new` names a thing by a modifier of another of its kind ("my work phone",
    "the spare key") that `held` never says: another thing, not the held one changed."""
    said = _content(held)
    return any(w in _ANOTHER_OF and w not in said for p in phrases(new, skip) for w in p[:-1])


_AGENTS = re.compile(r"[a-z]{3,}(?:er|or|ist|ian)$")
"""Someone who does something ("cleaner", "tutor"): two of them on a day are two routines."""


def two_subjects(new: str, held: str, skip: frozenset[str] = frozenset(),
                 routine: bool = False) -> bool:
    """Whether the two statements open with one noun for two things: the same head, and each
    with a modifier the other lacks ("My yoga class" / "My pottery class", "My book club" /
    "My running club"). One modifier more is most often the same thing ("Our weekly standup" /
    "The standup", "School pickup" / "Pickup"), but not of a `routine` on a day ("Our cleaner
    comes on Tuesdays" / "The window cleaner comes on Fridays now"). People's words are no
    modifier ("My son's football training" / "His football training")."""
    p, q = _subject_phrase(new), _subject_phrase(held)
    if routine and p and q and p[-1] != q[-1] and not _held(p[-1], skip) and \
            not _held(q[-1], skip) and any(_AGENTS.match(w) for w in (p[-1], q[-1])) and \
            not {root(w) for w in p} & {root(w) for w in q}:  # ("my counsellor" / "my counselling")
        return True  # "Our gardener comes on Mondays" / "The window cleaner comes on Fridays"
    if not p or not q or p[-1] != q[-1] or _held(p[-1], skip):
        return False
    mine, theirs = {w for w in p[:-1] if not _held(w, skip)}, \
        {w for w in q[:-1] if not _held(w, skip)}
    if routine:
        return mine != theirs  # "Our cleaner" / "The window cleaner" on a day: two people
    return bool(mine - theirs) and bool(theirs - mine)


_PLACE_WORD = re.compile(r"\b(with|at|to|for|from|by|in|into|joined)\s+(?:the\s+)?"
                         r"(?:(?-i:[A-Z])[\w'&.-]*\s+){0,3}(?-i:[A-Z])", re.I)


def same_place(new: str, held: str, kind: str) -> bool:
    """Whether a name is given after the same word in both ("I train at PureGym" / "I train at
    Anytime": "at"; not "... with Coach Mike": a coach, not another gym), or the new one is
    moved to ("switched to EDF", "bumped Netflix up to Premium"), or both are people by a
    title ("Dr Hughes" / "Dr Banerjee"). Other types: True."""
    if kind != "name":
        return True
    a = {_WHERE.get(w, w) for w in (m.group(1).lower() for m in _PLACE_WORD.finditer(new))}
    b = {_WHERE.get(w, w) for w in (m.group(1).lower() for m in _PLACE_WORD.finditer(held))}
    a |= {"a titled person"} if re.search(_TITLE + r"\s+(?-i:[A-Z])", new) else set()
    a |= {"to"} if lower_brand(new) else set()  # "ported my number over to giffgaff"
    b |= {"a titled person"} if re.search(_TITLE + r"\s+(?-i:[A-Z])", held) else set()
    return bool(a & b) or bool(a & {"to", "into"})


_WHERE = {"at": "where", "in": "where", "from": "where"}
"""Words that say where one is (at / in / from a place): one word to `same_place` ("I work
from the Manchester office" / "I'm based at the Glasgow branch")."""


# --- several weak signals --------------------------------------------------------------------

_STRICT_HEAD = re.compile(r"^\W*(?:(?:my|our|the)\s+)?((?:[a-z][a-z'-]*\s+){0,3}?[a-z][a-z'-]*)"
                          r"(?=\s+(?:is|are|was|were)\b)", re.I)


def _strict_head(text: str, skip: frozenset[str]) -> str | None:
    """The noun of a subject followed by "is/are/was/were" (not by "'s", which may be "has":
    "Water's gone up")."""
    m = _STRICT_HEAD.match(text)
    if m is None or m.group(1).split()[0].lower() in _FUNCTION - {"my", "our", "the"}:
        return None
    p = _phrase(m.group(1).split())
    return p[-1] if p and len(p) == len(m.group(1).split()) and not _held(p[-1], skip) else None


_LABELLED = re.compile(r"\b([a-z]{3,})\s+(\d{1,4}[a-z]?|(?-i:[A-Z])\d{0,2})"
                       r"(?![\w:£$%-]|[.,]\d)(?:\s+([a-z]{3,}))?")
_NOT_LABELS = frozenset("""at on in to by from for of and or is are was were the a an about
    around over under than until till since after before every each per only just now""".split())


def labelled(text: str) -> set[tuple[str, str]]:
    """The values a noun labels right before them ("row F", "plot 12", "size 3", "year 7"), as
    (label, value): {("row", "f")}; with the noun after it when there is one ("size 10
    shoes": ("size shoe", "10")), so "size 10 shoes" and "size 12 jeans" are two labels."""
    out: set[tuple[str, str]] = set()
    for m in _LABELLED.finditer(text):
        word = m.group(1).lower()
        if word in _NOT_LABELS or word in _FUNCTION or _WEEKDAY.fullmatch(word) or \
                _MONTH.fullmatch(word):
            continue
        after = (m.group(3) or "").lower()
        if after and after not in _FUNCTION and after not in _NOT_LABELS and \
                not _TIME_NOUNS & {after, _word(after)}:
            word = f"{word} {_word(after)}"
        out.add((word, m.group(2).lower()))
    return out


def labels(text: str) -> set[str]:
    """The nouns that label a value of `text` (`labelled`): {"row"}."""
    return {label for label, _ in labelled(text)}


def fresh_type(new: str, held: str) -> str | None:
    """The type of value (`values`) `new` gives one of that `held` lacks, where `held` gives
    one of that type too ("£47" where "£42" was; "Co-op" where "Boots" was): None if none.
    A bare number is no type: it may be a count, a code or part of a name."""
    a, b = values(new), values(held)
    mine, theirs = labelled(new), labelled(held)
    if any(x == y and v != w for x, v in mine for y, w in theirs) and not mine & theirs:
        return "labelled"  # "row F" / "row K", "plot 12" / "plot 27"
    for kind in sorted(a.keys() & b.keys() - {"number"}):
        if a[kind] - b[kind] and placed(new, kind, a[kind] - b[kind]) and \
                same_place(new, held, kind):
            return kind  # (a name where a provider or a place stands, the same word before
            # it: not "learning Italian", not "I train with Coach Mike" for "at PureGym")
    return "grade" if another_grade(new, held) else None


GRADES = tuple(frozenset(family.split()) for family in (
    "soprano alto tenor baritone bass mezzo",
    "basic standard premium plus pro gold silver bronze platinum free family",
    "daily weekly fortnightly monthly quarterly yearly annually annual",
    "nights days earlies lates nightshift dayshift",
    "sales marketing finance accounts hr engineering operations support legal",
    "beginner beginners intermediate advanced",
))
"""Plain words that are values of one scale (a voice part, a plan's tier, a rate, a shift, a
department, a level): "alto" / "soprano", "basic" / "Premium", a value though no name."""


OWN_GRADES = (GRADES[0], GRADES[3], GRADES[4])
"""The scales a person has one value of (a voice part, a shift, a department): two of one
scale are the same thing of the holder's. A plan's tier or a rate is a thing's ("I pay my car
insurance yearly" is not "my gym fees monthly")."""


def another_grade(new: str, held: str, scales: tuple[frozenset[str], ...] = GRADES) -> bool:
    """Whether `new` gives a word of a `scales` family where `held` gave another one of it
    and `new` does not repeat it ("moved me up to soprano" / "I sing alto")."""
    a = {w.lower() for w in re.findall(r"[A-Za-z]+", new)}
    b = {w.lower() for w in re.findall(r"[A-Za-z]+", held)}
    return any(f & a and f & b and not f & a & b for f in scales)


def _graded(text: str, skip: frozenset[str]) -> set[tuple[str, ...]]:
    """The phrases a grade word (`GRADES`) qualifies in `text` ("daily lenses": ("lens",);
    "the basic Spotify plan": ("spotify", "plan"))."""
    out: set[tuple[str, ...]] = set()
    for m in _GRADE_WORD.finditer(text):
        p = _phrase(w.lower() for w in re.findall(r"[\w'-]+|[^\w\s]", text[m.end():])[:5])
        if p and not _held(p[-1], skip) and p[-1] not in _TIME_NOUNS:
            out.add(p)
    return out


_POSSESSIVE = re.compile(r"['\u2019]s\b")
_GRADE_WORD = re.compile(r"\b(?:" + "|".join(sorted(w for f in GRADES for w in f)) + r")\b\s*",
                         re.I)


def topic(new: str, held: str, skip: frozenset[str] = frozenset(), context: str = "") -> \
        str | None:
    """What both statements are about: a word of a noun phrase of either that the other says
    too ("Our water bill is £42" / "Water's gone up to £47": "water"), or a value of the held
    one that the new sentence (`context`, the whole sentence the statement was cut from) names
    again as the one it replaces ("They scrapped the 7:42, so I'm on the 7:15"; "Since Boots
    shut, my repeat prescriptions go to the Co-op"). None when there is none, or when the two
    name two things for certain: two subjects' nouns differ ("my phone" / "my phone
    contract"), or one noun with other modifiers ("the water bill" / "the gas bill"; not two
    levels of one scale: "the beginners group" / "the intermediate group")."""
    if another_grade(new, held, OWN_GRADES):  # one a person has: their voice part, shift
        return "a value of one scale"
    if another_grade(new, held):
        mine_g, theirs_g = _graded(new, skip), _graded(held, skip)
        if any(_clash(p, q) for p in mine_g for q in theirs_g):
            return None  # "the monthly gym plan" / "the annual Netflix plan": two plans
        graded = {p[-1] for p in mine_g} & {q[-1] for q in theirs_g}
        if len(graded) == 1:  # "daily lenses" / "monthly contact lenses": the lenses' grade
            return graded.pop()
        new, held = _GRADE_WORD.sub("", new), _GRADE_WORD.sub("", held)
    heads = _strict_head(new, skip), _strict_head(held, skip)
    if heads[0] and heads[1] and heads[0] != heads[1] and \
            heads[0] not in values(held).get("name", frozenset()):
        return None  # (not the held value itself: "The Corsa failed its MOT, so ...")
    mine, theirs = phrases(new, skip), phrases(held, skip)
    if any(_clash(p, q) for p in mine for q in theirs):
        return None
    owned, owned_new = owners(held), owners(new)
    if owned and owned_new and not owned & owned_new:
        return None  # each value a thing's of its own: "the 7:42 train" / "my meeting at 10:15"
    was, own = values(held), values(new)
    said = {k: frozenset(v for v in vs if _ended_in(context, v)) for k, vs in
            values(context).items()}  # "They scrapped the 7:42", "Since Boots shut"
    # (a held name the sentence opens with: "Oakfield closed down, so ...")
    said["name"] = said.get("name", frozenset()) | {
        v for v in was.get("name", frozenset()) if context and _ended_in(context, v)}
    if not _STILL.search(new):  # "We downgraded to Spotify Duo": a name of both, not "still"
        said["name"] = said.get("name", frozenset()) | own.get("name", frozenset())
    opening = _opening_words(new)
    again = sorted(v for kind in said.keys() & was.keys() - {"number"}
                   for v in said[kind] & was[kind]
                   if len(v) > 2 and v not in _FUNCTION and
                   (v not in opening or _ended_by_it(context, v)))
    # (the held value named again, not as what changed itself: "The Smile Clinic moved to
    # Harbour Street" is the clinic's move, not a new dentist)
    if again:
        return again[0]
    if owned and not owned & owned_new:
        return None  # the held value is a thing's of its own: "the 8:05 bus", not "the office"
    if any(p[-1] == q[-1] and set(p[:-1]) - set(q[:-1]) for p in mine for q in theirs):
        return None  # "my work laptop" is maybe not "my laptop"
    words_new, words_held = (_content(_POSSESSIVE.sub("", t), _FUNCTION) for t in (new, held))
    subjects = {h for h in (_subject_head(new), _subject_head(held)) if h}
    nouns = subjects | {p[-1] for p in mine + theirs}
    for ps, other in ((theirs, words_new), (mine, words_held)):
        for p in ps:
            for w in p:
                if w in other and len(w) > 2 and w not in _NEUTRAL and not _held(w, skip) \
                        and w in nouns and (len(subjects) < 2 or w in subjects):
                    return w
    # (a noun, not a word that only qualifies one: "my work laptop" / "I work at Tesco";
    # of two things' subjects, one's: "the gym's opening time" / "my gym class")
    mover, was_mover = _subject_head(new), _subject_head(held)
    for word in sorted(labels(new) & labels(held)):
        if not _held(word, skip) and (mover is None or mover == was_mover):
            return word  # "in row F" / "to row K": the label of the value (not "The printer
            # moved to desk 20": the printer's move, not the speaker's desk)
    words_new |= {"bedtime"} if _UP_LATE.search(new) else set()  # "stays up till 8"
    words_held |= {"bedtime"} if _UP_LATE.search(held) else set()
    for family in FAMILIES:
        if family & words_new and family & words_held and len(subjects) < 2:
            return sorted(family & words_held)[0]  # "I bank with ..." / "my current account"
    return None


_UP_LATE = re.compile(r"\bstay(?:s|ed|ing)?\s+up\b", re.I)
FAMILIES = tuple(frozenset(_word(w) for w in family.split()) for family in (
    "bank banking account",
    "gym member membership train training",
    "mortgage remortgage remortgaged",
    "phone mobile number sim",
    "salary earn earns wage",
    "diet food eat eats feed fed pouch pouches kibble",
    "broadband wifi internet fibre",
    "office branch site depot workplace",
    "bed bedtime asleep",
))
"""Words of one thing said in other words ("I bank with ..." / "my current account"): the
same topic though no word is shared (`topic`), and searched for together (`step/related.py`)."""


def swapped(new: str, held: str, ended: frozenset[str], loose: Callable[[str], str],
            skip: frozenset[str] = frozenset()) -> str | None:
    """The noun of a phrase both say with a modifier of `held`'s that `new` says ended
    (`ended`, terms made `loose`) replaced by one of its own ("an oat flat white" / "I've gone
    off oat milk, it's a soya flat white": "white"); None if none."""
    for p in phrases(new, skip):
        for q in phrases(held, skip):
            if p[-1] != q[-1] or len(p) < 2 or len(q) < 2:
                continue
            gone = {w for w in set(q[:-1]) - set(p[:-1]) if loose(w) in ended}
            if gone and set(p[:-1]) - set(q[:-1]) and not {loose(w) for w in p} & ended:
                return " ".join(q[q.index(sorted(gone)[0]) + 1:])
    return None


def kept(said: str) -> bool:
    """Whether `said` says something stays as it was ("still on Wednesdays", "kept the
    Tuesday slot")."""
    return _STILL.search(said) is not None


def _ended_in(context: str, value: str) -> bool:
    """Whether `context` names `value` in a clause that says it ended ("They scrapped the
    7:42, so ...", "Since Boots shut, ..."), not one that keeps it ("Water is still £42")."""
    for piece in _pieces(context):
        if value in piece.lower().replace(",", "") and _ENDED_PIECE.search(piece) and \
                not _STILL.search(piece):
            return True
    return False


_GONE = re.compile(rf"\b(?:{_ENDED}|(?:'s|\bhas|\bhave|\bis|\bare)\s+gone\b|packed\s+(?:up|in)|"
                   r"(?:is|are|'s)\s+(?:done|over|finished)|(?:gone|went)\s+off)\b", re.I)
"""Ended, said of a held value named again (`ended_again`): "gone" and "packed" only as a
verb, no "from" or "dropped"."""


_OWNS = r"['\u2019]s\s+(?!(?:gone|been|got|died|done|over|finished|closed|shut|packed|sold|left|" \
    r"retired|broken|stopped|ended|moved|no|not|now|just|finally)\b)[a-z]"
"""A name owning the next noun ("the Golf's roof box"), not "the Kindle's gone"."""
_OWNS_AT = re.compile(_OWNS)


def _stands(value: str, text: str) -> bool:
    """Whether `value` stands in `text` as whole words and not as the owner of the next noun
    (`_OWNS`): a plain search, no pattern built from the value (`search_user`)."""
    at = text.find(value)
    while at >= 0:
        end = at + len(value)
        if (at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_")) and \
                (end == len(text) or not (text[end].isalnum() or text[end] == "_")) and \
                not _OWNS_AT.match(text, end):
            return True
        at = text.find(value, at + 1)
    return False


def ended_again(held: str, said: str) -> set[str]:
    """The values of `held` (names, times, amounts; not bare numbers) that `said` names in a
    clause saying they ended ("Work gave me a MacBook so the ThinkPad's gone back", "I
    cancelled PureFit and joined ...", "Dr Hughes retired, so ..."), not kept ("still"), nor
    the owner of what ended ("sold the Golf's roof box")."""
    out: set[str] = set()
    pieces = _pieces(said)
    for kind, vs in values(held).items():
        for v in vs:
            if kind != "number" and len(v) > 2 and v not in _FUNCTION and any(
                    _stands(v, piece.lower().replace(",", "")) and not names_another(v, piece, held)
                    and _GONE.search(piece) and not _STILL.search(piece) for piece in pieces):
                out.add(v)
    return out


_NOW = re.compile(r"\b(?:now|these\s+days|nowadays|from\s+now\s+on)\b", re.I)
"""What a value given in place of another is said with: "now", "these days", ..."""


def named_before(held: str, context: str, said: str) -> set[str]:
    """The names of `held` that the sentence `context` names before its clause `said`, which
    gives something "now" ("Dropped the iPhone in the sea, so I'm on a Pixel 8 now"; "Tom went
    on maternity cover, so I see Aisha at Riverside now"): what the held value became is told
    first, then what replaced it. Empty when `said` is the whole sentence or says no "now"."""
    if not context or not _NOW.search(said) or _STILL.search(context):
        return set()
    at = context.lower().find(said.lower().rstrip(".!").strip()[:20])
    before = context[:at] if at > 0 else ""
    return {v for v in values(held).get("name", frozenset()) if len(v) > 2 and
            v not in _FUNCTION and v not in said.lower() and
            _stands(v, before.lower())}


def another_value(new: str, held: str) -> str | None:
    """The type of a value `new` gives that `held` lacks, where `held` gives one of that type
    (not a bare number), whatever the words around it: for a statement that says the held one
    ended (`ended_again`)."""
    a, b = values(new), values(held)
    for kind in sorted(a.keys() & b.keys() - {"number"}):
        if a[kind] - b[kind]:
            return kind
    return None


def _opening_words(text: str) -> set[str]:
    """The words of what a statement opens with, up to its verb ("The Smile Clinic moved to":
    {"the", "smile", "clinic"}; "We downgraded to ...": {"we"})."""
    out: set[str] = set()
    for i, w in enumerate(re.findall(r"[\w'&.-]+", text)):
        low = w.lower().strip("'.").removesuffix("'s")
        if i and w[0].islower() and (low in _FUNCTION or _VERBISH.match(low)):
            break
        out.add(low)
    return out


_OPENING = re.compile(r"^\W*(?:(?:my|our|the|his|her|their)\s+)?([A-Za-z][\w'\u2019-]*"
                      r"(?:\s+[A-Za-z][\w'\u2019-]*){0,4})", re.I)


def _subject_head(text: str) -> str | None:
    """The noun a statement's opening phrase ends in ("The gym's opening time moved": "time";
    "Water's gone up": "water"), None when it opens with a pronoun or a verb."""
    m = _OPENING.match(text)
    if m is None or m.group(1).split()[0].lower().split("'")[0] in _FUNCTION or \
            _ACTS_ON_ME.match(text):
        return None  # ("The club moved me to row K": the speaker's, whoever moved them)
    p = _subject_phrase(text)
    return p[-1] if p else None


subject_head = _subject_head


_ACTS_ON_ME = re.compile(r"^\W*(?:\S+\s+){1,4}?(?:has\s+|have\s+)?(?:[a-z]+ed|gave|got|put|"
                         r"sent|let|took|given|sent)\s+(?:me|us)\b", re.I)


# A thing named as what one does something through ("I watch Netflix over the broadband"):
# the name is of what is done, not the thing's value.
THROUGH = re.compile(r"\b(?:over|on|via|through|using|across)\s+(?:the|my|our)\s+(?-i:[a-z])", re.I)


def through(said: str, thing: str) -> bool:
    """Whether `said` names `thing` as what something is done through ("over the broadband",
    "on the internet"): where the held fact names it as its subject, another thing is meant
    ("Our internet is with Sky" / "I watch Sky Sports on the internet now")."""
    head = thing.split()[-1] if thing.split() else ""
    return bool(head) and search_user(
        rf"\b(?:over|on|via|through|using|across)\s+(?:the|my|our)\s+(?-i:[a-z]+\s+)?"
        rf"{re.escape(head)}", said, re.I) is not None


_COUNT_WORD = re.compile(
    r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?=\s+(?:full\s+|half\s+|"
    r"long\s+|short\s+)?(?:days?|nights?|times?|hours?|weeks?|months?|evenings?|mornings?|"
    r"afternoons?|shifts?|sessions?|classes|lessons?)\b)", re.I)
_TWICE = re.compile(r"\b(?:twice|once)(?=\s+(?:a|per|each|every)\s+(?:day|week|month|year)\b)",
                    re.I)


def counted(text: str) -> str:
    """`text` with a count said in words given as digits ("four days a week": "4 days a
    week", "twice a week": "2 times a week"), so that two counts are two numbers, told apart
    as values are."""
    text = _COUNT_WORD.sub(lambda m: _NUMBER_WORDS[m.group(1).lower()], text)
    return _TWICE.sub(lambda m: "2 times" if m.group(0).lower() == "twice" else "1 time", text)


_PER = re.compile(r"\b(?:an?|per|each|every)\s+(hour|day|week|month|year|annum)\b|/\s*(hr|hour)\b",
                  re.I)
_BIG_SUM = re.compile(r"[£$€]\s?\d{1,3}(?:,\d{3})+|(?<!\d)[£$€]?\d+(?:\.\d+)?k\b", re.I)
"""A yearly sum ("£41,000", "31k"); a number is read from its first digit only, so a long run
of digits is one try, not one a digit."""


def period(said: str) -> str | None:
    """The time a sum of money is paid over ("£19 an hour": hour; "£41,000", "31k": year),
    None when it gives no sum or says no period."""
    m = _PER.search(said)
    if m is not None and re.search(r"[£$€]\s?\d|\d\s?(?:k|pounds|quid)\b", said, re.I):
        unit = (m.group(1) or m.group(2) or "").lower()
        return {"annum": "year", "hr": "hour"}.get(unit, unit)
    return "year" if _BIG_SUM.search(said) else None


def classes(text: str) -> set[str]:
    """The classes of the values `text` gives (`values`): "number" (a time, a sum, an amount,
    an ordinal: "at 7" is a time, "turned 4" an age), "day" (a date, a weekday), "name", and
    "code" for a bare number, which may be either (a model: "an iPhone 15")."""
    kinds = values(text)
    return {"name" if k == "name" else "code" if k == "number" else
            "day" if k in ("date", "weekday") else "number" for k in kinds} | \
        ({"number"} if "number" in kinds else set())


__all__ = ["FAMILIES", "GRADES", "anchor", "another_grade", "another_of", "another_value",
           "changed_type", "classes", "counted", "ended_again", "named_before", "period",
           "THROUGH", "through",
           "copula_head", "frame", "fresh_type",
           "hypothetical", "named_thing", "owners", "phrases", "placed", "same_place", "subject",
           "subject_head", "swapped", "unit", "lower_brand",
           "topic", "two_subjects", "values"]
