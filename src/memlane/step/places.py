"""Where one lives, read by a gazetteer: "I'm in Southampton", "we're a Bristol family", "I'm
London-based", "we're down in Brighton now", "we shifted down to Wellington".

The attribute list (`step/attributes.py`) reads a residence from its verbs ("live in", "moved
to", "based in"); a place said with no such verb was no attribute at all, so a move never
replaced it. Here a name is a place when the packaged gazetteer holds it (data/places.tsv,
built by scripts/build_places.py from GeoNames: towns of the UK and Ireland, cities of the US,
Canada, Australia and New Zealand, capitals and large cities, countries). A name that is also
an English word or a first name ("Reading", "Bath", "Florence") counts only written with a
capital, and every form here frames the name ("in", "to", "-based", "a ... family"): "I'm
reading" and "in March" are no place.

Read of the speaker only (the caller checks the holder): "my sister is in Leeds" is hers, and
"my brother moved to Hull" is the brother's (`step/people.py`). Not a residence: a stay
("I'm in Rome for the weekend", "in Galway this week for work", "on holiday", "till Sunday"),
a commute ("in Leeds on Tuesdays"), something added ("also"). A place said with no change
("I'm in York", a new statement against a held "I live in Leeds") may be a visit: it is kept
beside the held one (`unsettled`), never in place of it. Pure; the data is read once.
"""

from __future__ import annotations

import re

from .endings import _ADDITIVE
from .lexicon import EVENT_WORDS, data_rows

PLACE_SCAN = 200
"""How many of a namespace's newest records the step reads for a held residence when a stretch
states one (`related.held_marked`): a held "I'm in Southampton" shares no word with "We've
moved up to Sheffield", so no search finds it."""

MARK = "\x00residence"
"""The term `related.pick` gives a text that states the speaker's residence, both sides."""

_NAMES: dict[str, bool] = {}  # place -> also a word or a first name (then it needs a capital)


def _gazetteer() -> dict[str, bool]:
    if not _NAMES:
        for name, *flag in data_rows("places.tsv"):
            _NAMES[name] = flag == ["word"]
    return _NAMES


_WORD = re.compile(r"[A-Za-z][\w.']*")
_LONGEST = 4  # words ("Newcastle upon Tyne", "Saint Kitts and Nevis")


def place_at(text: str, start: int) -> str | None:
    """The place named at `start` of `text` (the longest of the gazetteer's names, as
    written), None if none is: a name that is also a word needs its capital, and a name
    followed by another capitalised word is part of a longer name ("Boston Market")."""
    names = _gazetteer()
    words: list[re.Match[str]] = []
    for m in _WORD.finditer(text, start):
        if words and (text[words[-1].end():m.start()] not in (" ", "-") or
                      len(words) == _LONGEST):
            break
        if not words and m.start() != start:
            return None
        words.append(m)
    for k in range(len(words), 0, -1):
        said = text[start:words[k - 1].end()].rstrip(".'")
        word = names.get(said.lower())
        if word is None or (word and not said[0].isupper()):
            continue
        after = text[start + len(said):]
        if re.match(r"(?:\s+(?-i:[A-Z])[a-z]|['\u2019]s\b|-(?!based\b))", after):
            return None  # "in Boston Market", "in London's best hotel"
        return said
    return None


_SPEAKER = r"(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:(?:now|currently|still|all|both|happily)\s+)*"
_OPENS = r"(?:^\W*|[,;:]\s*|\b(?:and|but|so|yeah|well)\s+)"
# "I'm in X", "we're down in X now"; "we're a X family"; "I'm (a) X-based (designer)"
_IN = re.compile(rf"{_OPENS}{_SPEAKER}(?:(?:down|up|over|out)\s+)?in\s+(?=\w)", re.I)
_FAMILY = re.compile(rf"{_OPENS}(?:we'?re|we\s+are)\s+an?\s+(?=\w)", re.I)
_BASED = re.compile(rf"{_OPENS}{_SPEAKER}(?:an?\s+)?((?:[\w.'-]+\s+){{0,3}}?[\w.'-]+?)-based\b",
                    re.I)
# A move to a place ("shifted down to", "upped sticks to", "made the move to", "settled in"):
# the verbs `attributes` lacks or reads only with a capital ("moved down to Stirling"). Not
# "went to" (a trip) nor "moving to" (not yet).
_MOVED = re.compile(r"\b(?:moved|relocated|shifted|emigrated|upped\s+sticks"
                    r"(?:\s+and\s+moved)?|made\s+the\s+move|settled)\s+"
                    r"(?:(?:back|down|up|over|out|across|away|home|all\s+the\s+way)\s+)*"
                    r"(?:to|in)\s+(?=\w)", re.I)
_FAMILY_TAIL = re.compile(r"\s+(?:family|household|lot|clan)\b", re.I)
# What is not where one lives now: a plan, the past, an addition, a while ("might move to York",
# "we moved to Leeds when I was ten", "we've also got a flat in Oban", "for the summer").
_NOT_NOW = re.compile(
    r"\b(?:might|could|if|thinking|hoping|planning|considering|maybe|perhaps|would|"
    r"when\s+(?:i|we)\s+(?:was|were)|as\s+a\s+(?:kid|child)|(?:i|we)\s+used\s+to|grew\s+up|"
    r"temporar\w*|till|until|"
    r"for\s+(?:the|a|a\s+few|a\s+couple\s+of|\w+)?\s*(?:week|weeks|weekend|fortnight|month|"
    r"months|summer|winter|term|season|while|now))\b", re.I)
# A stay or a commute, said of being somewhere: no residence ("in Rome for the weekend", "in
# Galway this week for work", "on holiday", "back Friday", "in Leeds on Tuesdays").
_STAY = re.compile(
    r"\b(?:week|weekend|weekends|fortnight|night|holiday|holidays|vacation|trip|conference|"
    r"wedding|funeral|festival|gig|hotel|visit|visiting|staying|layover|stopover|airport|"
    r"today|tonight|tomorrow|yesterday|right\s+now|at\s+the\s+moment|for\s+(?:work|business)|"
    r"on\s+(?:business|tour|placement|secondment)|back\s+(?:on|by|at|for|home|next|in)|"
    r"passing\s+through|on\s+(?:mon|tues|wednes|thurs|fri|satur|sun)days?|every|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|commut\w*)\b", re.I)


def _not_now(text: str) -> bool:
    """A plan, the past, a while (`_NOT_NOW`) or an addition (`endings._ADDITIVE`: "also", "a
    second", "too" of an addition, not "too much")."""
    return bool(_NOT_NOW.search(text) or _ADDITIVE.search(text))


_CHANGE = re.compile(r"\b(?:now|these\s+days|nowadays|since|finally|for\s+good|permanently|"
                     r"any\s*more|no\s+longer|moved|relocated|new\s+(?:place|home|house|flat))\b",
                     re.I)


_SPEAKS = re.compile(r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\b", re.I)


def _static(text: str) -> str | None:
    """The place `text` says the speaker is in, by "in" / "-based" / "a ... family"."""
    for m in _IN.finditer(text):
        if (place := place_at(text, m.end())) is not None:
            return place
    for m in _FAMILY.finditer(text):
        place = place_at(text, m.end())
        if place is not None and _FAMILY_TAIL.match(text, m.end() + len(place)):
            return place
    for m in _BASED.finditer(text):
        words = m.group(1).split()
        for k in range(1, min(len(words), _LONGEST) + 1):  # "a small London-based firm"
            start = m.end(1) - len(" ".join(words[-k:]))
            if (place := place_at(text, start)) is not None:
                return place
    return None


_HOME = re.compile(r"^\W*(?:(?:our|my)\s+)?home(?:['\u2019]s|\s+is)\s+(?:(?:now|these\s+days|"
                   r"nowadays)\s+)?(?=\w)", re.I)


def _home(text: str) -> str | None:
    """The place `text` says is home ("Home is Aberdeen these days", "Home's Leeds now")."""
    m = _HOME.match(text)
    return place_at(text, m.end()) if m is not None else None


def _moved(text: str) -> str | None:
    """The place `text` says the speaker moved to ("shifted down to Wellington")."""
    for m in _MOVED.finditer(text):
        if (place := place_at(text, m.end())) is not None:
            return place
    return None


def lives(text: str) -> str | None:
    """The place a statement of the speaker (`text`, their holder checked by the caller) says
    they live in now, or None: a stay, a commute, a plan or an addition says none."""
    # (the place first, the words that unsay it only then: most statements name none)
    place = _moved(text) or _home(text)
    if place is None and _SPEAKS.search(text):
        place = _static(text)
        if place is not None and _STAY.search(text):
            return None
    return None if place is None or _not_now(text) else place


def unsettled(text: str, holder: str) -> bool:
    """Whether a statement of the speaker's residence (`text`) may not be where they live now:
    a place with no change said ("I'm in York", not "we're in York now" or "we moved to York":
    a visit?), or a plan, the past, an addition, a while ("we moved to Ennis when I was ten").
    It replaces nothing. Of another holder, only a plan, the past or a while ("Torin moved to
    Ullapool for the summer season"); the rest is `step/people.py`'s."""
    if holder.rpartition("|")[2] != "i":
        return _NOT_NOW.search(text) is not None
    if _not_now(text):
        return True
    return lives(text) is not None and _moved(text) is None and not _CHANGE.search(text)


_AN_EVENT = re.compile(rf"^\W*(?:the|my|our)\s+(?:[a-z-]+\s+){{0,2}}?(?:{EVENT_WORDS})"
                       r"(?:['\u2019]?s)?\b", re.I)


def residence(body: str, holder: str, attribute: str | None) -> str | None:
    """The attribute of the statement `body` of `holder` (`supersede.read_claim`'s reading,
    `attribute`), "residence" in place of none, or of "rent" read from a later clause
    ("I've relocated to Newcastle, the rent's half what it was"), when the speaker says where
    they live, or another says they moved (no "I'm in X" of theirs); else `attribute`."""
    if attribute == "residence" and _AN_EVENT.match(body):
        return None  # ("The workshop's been moved to the hall on Pine Street": its venue)
    if holder != "i":  # another's home by a move only ("Oonagh has settled in Tenby now")
        moved = attribute is None and _moved(body) is not None and not _not_now(body)
        return "residence" if moved else attribute
    if attribute not in (None, "rent") or lives(body) is None:
        return attribute
    if attribute == "rent" and "," in body and lives(body.split(",", 1)[0]) is None:
        return attribute
    return "residence"


def marks(text: str) -> frozenset[str]:
    """`MARK` when a sentence of `text` states the speaker's residence by a place of the
    gazetteer (opening with "I" or "we", or with the move itself: "Just moved to Dublin"), for
    `related.pick`; else nothing."""
    for sentence in _SENTENCE.split(text)[:20]:
        said = _LEAD.sub("", sentence[:1000])
        if _OPENS_SPEAKER.match(said) and (lives(said) or _lives_verb(said)):
            return frozenset({MARK})
    return frozenset()


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_LEAD = re.compile(r"^\W*(?:(?:actually|so|well|yeah|oh|ok|okay|anyway|big\s+news|update)\W+)*",
                   re.I)
_OPENS_SPEAKER = re.compile(r"\W*(?:i|i'm|i've|i'd|we|we're|we've|we'd|just|moved|relocated|"
                            r"based)\b", re.I)
_LIVE = re.compile(r"\b(?:live|living|lived|based)\s+in\s+(?=\w)", re.I)


def _lives_verb(text: str) -> bool:
    """A residence said by its verb with a place of the gazetteer ("I live in Norwich")."""
    return not _not_now(text) and any(place_at(text, m.end()) for m in _LIVE.finditer(text))


__all__ = ["MARK", "PLACE_SCAN", "lives", "marks", "place_at", "residence", "unsettled"]
