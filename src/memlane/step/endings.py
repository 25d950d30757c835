"""What a statement says was stopped, or adds: "I don't play football anymore", "sold the
Golf", "no longer take the bus", "left Waterstones", "left the choir", "dropped out of the
evening class", "cancelled the gym membership", "instead of Lidl" (`_ended`; never a pause, "for
the summer", nor another's: "even though you can't volunteer there anymore"), and the words
the supersede rule (`step/supersede.py`) reads around them: change cues, times, light verbs.
Pure; read by the rule's `read_claim`.
"""

from __future__ import annotations

import re
from itertools import pairwise

from ..text import fact_terms as _terms
from ..text import stem

MONTHS_AND_DAYS = frozenset("""january february march april may june july august september
    october november december monday tuesday wednesday thursday friday saturday sunday""".split())
"""Month and weekday names in full (never a person's name; "Jan" may be)."""
_CALENDAR = MONTHS_AND_DAYS | frozenset("jan feb mar apr jun jul aug sep sept oct nov dec".split())

_CUE_TERMS = frozenset(stem(w) for w in """correction actually moved move changed change
    longer anymore instead rescheduled postponed update updated now switched wrong earlier
    mistake scratch meant left new sold turned went since grew grown increased decreased
    dropped raised rose fell pushed promoted upgraded downgraded renamed became become
    transferred different upped ported bumped""".split())



IF_SAID = r"if(?!\s+(?:you\s+can\s+believe\s+it|you\s+ask\s+me|i'?m\s+(?:being\s+)?honest)\b)"
"""A condition's "if", not an aside's ("a Wolves fan now, if you can believe it")."""

_ONCE = r"for\s+once|for\s+a\s+change|just\s+(?:this\s+)?once"
_ONE_OFF = re.compile(r"\b(?:today|tonight|(?<!from\s)this\s+(?:morning|afternoon|evening|time"
                      rf"|week)|{_ONCE})\b", re.I)
"""Once, not a new routine ("the bins went out on Wednesday this week"; not "from this week")."""


NOT_DONE = re.compile(
    r"\b(?:didn['\u2019]?t|did\s+not|never|haven['\u2019]?t|have\s+not|hasn['\u2019]?t|has\s+not|"
    r"won['\u2019]?t|will\s+not|aren['\u2019]?t|isn['\u2019]?t|(?:are|is|am|'re|'m|'s)\s+not)\s+"
    r"(?:(?:actually|really|even|yet|now|ever|up|did|do|after\s+all|in\s+the\s+end|go\s+through\s+with|"
    r"end(?:ed)?\s+up|get\s+round\s+to|getting|going\s+to|going|be|been)\s+)*"
    r"(?:mov|relocat|switch|swap|chang|buy|bought|get|got|tak|took|join|start|sign|accept|sell|"
    r"sold|leav|left|transferr?|book|pick|go\b|went|trad|replac)\w*"
    r"|\b(?:fell|falls?|falling|fallen)\s+through\b|\b(?:was|got|been|is)\s+called\s+off\b"
    r"|\b(?:pulled|backed)\s+out\b|\bdidn['\u2019]?t\s+(?:happen|work\s+out|come\s+off)\b", re.I)
"""A change said as not made ("We didn't end up moving to Bude after all", "we're not
switching now", "the move fell through"): its value is no new value of the held fact. Not an
ending ("I don't live there any more": `_ENDS`), which `not_done` leaves out."""
_ANY_MORE = re.compile(r"\b(?:any\s*more|any\s+longer|no\s+longer)\b", re.I)


_NOT_NOW = re.compile(
    r"\b(?:almost|nearly)\s+(?:\w+\s+)?(?:mov|relocat|bought|buy|switch|took|join|sign|sold|went|"
    r"got|chang|ended)\w*"  # almost done: not done
    r"|\b(?:my|our|his|her|their|the)\s+(?:target|goal|aim|ambition)(?:\s+weight)?(?:['\u2019]s|"
    r"\s+(?:is|was|for|of))\b|\baiming\s+(?:for|to|at)\b"  # what one aims for: not yet so
    r"|(?<!from\s)(?<!starting\s)(?<!as\sof\s)\btomorrow\b|\b(?:to\s+cover|covering)\s+for\b"
    rf"|\b(?:{_ONCE})\b"  # once (as `_ONE_OFF` says it)
    r"|\b(?:this|next)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day\b(?!\s+of\b)"
    r"|\bon\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day\b(?=.*\binstead\b)"
    r"|\b(?:did|played|tried|went\s+to)\b[^.;]*?\bon\s+(?:mon|tues|wednes|thurs|fri|satur|"
    r"sun)day\b(?!s)"
    r"|\bused\s+to\s+(?!(?:it|them|him|her|the|a|an|my|our|this|that|being)\b)[a-z]+"  # past
    r"|\bback\s+when\b|\bwhen\s+i\s+was\s+(?:a|at|in|young|little|younger)\b"
    r"|\b(?:gave|given|sold|passed\s+on|handed\s+down|donated|lent)\s+(?:\w+\s+)?my\s+"
    r"(?:old|previous|former)\b", re.I)  # the old one given away: not what one has
"""What a statement says that is not the holder's state now: a change not made (`NOT_DONE`),
almost made, a target, a one-off (tomorrow, covering for someone, for a change, this Tuesday,
on Thursday instead, did a class on Monday), the past ("used to", "back when"), an old thing
given away."""


def not_done(clause: str) -> bool:
    """Whether `clause` says a change was not made or fell through (`NOT_DONE`), not that
    something ended ("not ... any more")."""
    return bool(NOT_DONE.search(clause)) and not _ANY_MORE.search(clause)


def not_now(clause: str) -> bool:
    """Whether `clause` says what is not the holder's state now though worded with a value
    (`_NOT_NOW`): almost made, a target, a one-off, an old thing given away."""
    return bool(_NOT_NOW.search(clause))


THING_GONE = (r"died|conked\s+out|carked\s+it|packed\s+up|(?:gave|given)\s+up\s+the\s+ghost|"
              r"bit\s+the\s+dust|"
              r"gave\s+up(?=\s*(?:[,;.!]|$|\s+(?:at\s+last|in\s+the\s+end|for\s+good|on\s+(?:me|us)"
              r"|completely|altogether)\b))|(?:was|got|been|is|are)\s+(?:written\s+off|stolen|nicked|"
              r"pinched|nabbed|repossessed|totall?ed|scrapped)|went\s+(?:bust|under|kaput|into\s+"
              r"administration)|folded|(?:is|was|'s)\s+(?:dead|kaput|a\s+write-?off)")
"""A thing ended of itself, as its subject: "the Corolla died", "the Focus finally gave up (the
ghost)", "the Clio conked out", "the phone got nicked", "the gym went bust": one vocabulary for
`_ENDS`, `_ENDED` (`step/slots.py`) and `step/ended.py`."""
DISPOSED = (r"sold|flogged|scrapped|got\s+rid\s+of|got\s+shot\s+of|ditched|binned|offloaded|"
            r"part[-\s]?ex(?:ed|changed)|traded(?:\s+in)?|gave\s+away|given\s+away")
"""A thing ended by its holder, as the object: "sold the Golf", "flogged the Clio", "traded
the Picanto in", "got shot of the Astra": shared as `THING_GONE` is."""
STOLEN = r"nicked|stole|pinched|nabbed|swiped"
"""A thing ended by a thief ("someone nicked my iPhone"): the thief is no holder of it."""

GIVEN_UP = (r"retired\s+from|dropped\s+out(?:\s+of)?|(?:stepped|stood)\s+down\s+(?:as|from)|"
            r"resigned\s+(?:as|from)")
"""A role, a course or a pastime left by its holder, as the object: "retired from refereeing",
"dropped out of the evening class", "stepped down as treasurer": shared as `DISPOSED` is."""

PAUSED = (r"\bfor\s+(?:a|an|the|one|two|three|a\s+few|a\s+couple\s+of)\s+(?:bit|while|day|days|"
          r"week|weeks|fortnight|month|months|time\s+being)\b|\btemporarily\b|\bfor\s+now\b|"
          r"\bfor\s+(?:the\s+)?(?:summer|winter|holidays|christmas|lent|off[-\s]season)\b|"
          r"\b(?:until|till)\s+(?:after|next|further|(?:the\s+)?(?:spring|summer|autumn|winter|new\s+"
          r"year)|i'?m|my|it'?s|things)\b")
"""Stopped for a while ("for a few weeks", "for the summer", "until after the baby's born"):
a pause, no ending of what is held."""

# What a statement says was stopped: "stopped walking to work", "no longer take the bus",
# "don't play football anymore", "sold the Golf", "left Waterstones", "retired from Nissan",
# "no more renting in Hackney", "I've gone off oat milk", "so that's the gym done", "let The
# Times lapse", "we're out of Clarence Road", "the Fiat finally died".
_ENDS = re.compile(
    rf"\b(?:stopped|quit|quitting|(?:gave|given|giving)\s+up(?:\s+on)?|{DISPOSED}|{STOLEN}"
    r"|smashed|trashed|totalled|wrote\s+off|written\s+off"  # a thing destroyed
    r"|(?:packed|jacked|chucked)\s+in|handed\s+in\s+(?:my|our|his|her)\s+notice"
    r"(?:\s+(?:at|to|with))?|cancell?ed|swapped(?:\s+out)?|replaced|ditched|dumped"
    r"|(?:i|we)(?:'ve|\s+have)?\s+(?:gone|went|go)\s+off"  # "I've gone off oat milk"
    r"|(?:moved|switched|changed)(?:\s+(?:up|down|over|back|across))?\s+from"
    rf"|{GIVEN_UP}"
    r"|(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:(?:so|totally|completely|officially|well)\s+)?"
    r"done\s+with(?!\s+(?:work|it|this|that|them|him|her|you|today|tonight|(?:the|my|our)\s+"
    r"(?:[a-z]+ing|shift|day|week|homework|exams?|essay|chores)\b)\b)"
    r"(?=\s+(?:(?:the|my|our)\s+)?[\w'-]+(?:\s+[\w'-]+)?\s*(?:[,;.!]|$|\s+(?:now|for\s+good|"
    r"altogether)\b))"  # "done with parkrun", not "done with work for the day"
    r"|(?P<left>left|(?P<drop>dropped)))"
    r"\s+(?P<a>[^,;.!?]+)"
    r"|\bno\s+longer\s+(?P<b>[^,;.!?]+)|\b(?:instead\s+of|rather\s+than)\s+(?P<d>[^,;.!?]+)"
    r"|\bnow,?\s+not\s+(?P<e>[^,;.!?]+)"
    r"|\bno\s+more\s+(?P<f>[a-z]+ing\b[^,;.!?]*)|\bthat'?s\s+(?:the\s+|my\s+)?(?P<g>[^,;.!?]+?)\s+done\b"
    r"|\blet\s+(?:the\s+|my\s+|our\s+)?(?P<h>(?-i:[A-Z])[^,;.!?]*?)\s+(?:\w+\s+)?lapse\b"
    r"|(?:\bnot|n't|\bnever)\s+(?P<c>[^,;.!?]+?)\s+any\s*more\b"
    r"|\b(?:we're|we\s+are|i'm|i\s+am|moved)\s+out\s+of\s+(?P<j>(?-i:[A-Z])[^,;.!?]*)"
    r"|^(?:the|my|our)\s+(?:old\s+)?(?P<i>[^,;.!?]+?)\s+(?:has\s+|had\s+|finally\s+|just\s+)*"
    rf"(?:{THING_GONE}|packed\s+in)\b", re.I)
_OBJECT_END = re.compile(r"\s+(?:for|and|but|so|because|since|to|into|with|after|as|then|now|"
                         r"any\s*more|"
                         r"instead|last|this|in|on|at)\b.*$", re.I)
_DOER = re.compile(r"\b(you|he|she|they)(?:['\u2019][a-z]+)?\s+(?:[\w'\u2019]+\s+){0,2}"
                   r"[\w'\u2019]*$", re.I)
"""Another who ends it, in the words before the ending: the listener, or a pronoun past the
holder that opens the statement ("I know she quit the choir")."""
_GROUP = re.compile(r"\b(?:choir|band|orchestra|society|committee|league|union|association|"
                    r"syndicate|troupe)\s*$|\b(?:the|my|our)\s+[\w'-]+\s+(?:club|group|team|"
                    r"class|course)\s*$", re.I)
"""A body one is a member of ("left the choir", "left the book club"; not "left the club": a
night out as often), which "left" ends as it ends a named one ("left Waterstones")."""
_MANNER = re.compile(r"\s*([a-z]+ing)\s+with(?:out)?\s+(.+)", re.I)
"""An activity stopped with whom or what ("running with headphones", "swimming with my
daughter"): one way of doing it ended, not the held one unless it says that too."""
_LEFT_FOR_NOW = re.compile(r"\b(?:at\s+\d|today|tonight|early|late|this\s+(?:morning|"
                           r"afternoon|evening)|for\s+the\s+day|in\s+a\s+hurry)\b", re.I)
_TIME_WORDS = frozenset(stem(w) for w in """today yesterday week month year last ago morning
    evening night weekend recently just""".split()) | _CALENDAR
_LIGHT = frozenset(stem(w) for w in """go goes going do does doing have has get gets take takes
    make makes see use used be""".split())
_TIE_WORDS = frozenset(stem(w) for w in """job role position post work membership subscription
    place""".split())
"""One's tie to a thing, not the thing: "packed in the cafe job", "cancelled the gym
membership" end what a held fact names ("the cafe", "the gym")."""
# ("my other half" is a partner, no addition)
_ADDITIVE = re.compile(r"\b(?:also|as\s+well|another|separate|second(?![-\s]?hand\b)|"
                       # ("the other thing was too much faff": the old one, given up)
                       r"other(?!\s+half\b)(?<!\bthe\sother(?=\s+(?:thing|one|stuff|lot)\s+(?:was|"
                       r"were|got|just|wasn't|didn't|never)\b))|"
                       r"additionally|both|"
                       r"as\s+well\s+as)\b"
                       # "too" of an addition ("a Ford too"), not of degree ("too much for her")
                       # (nor of "about time too": a comment on the news)
                       r"|(?<!about\stime\s)\btoo\b(?!\s+(?!(?:and|but|so|now|though|as|for|since)\b)[a-z])",
                       re.I)


LEFT_WORK = r"left|quit|gave\s+up|given\s+up|packed\s+in|jacked\s+in|walked\s+away\s+from"
"""How a job or a workplace is said to be left, the words every reading of it shares
(`people._LEFT`, another person's; `attributes._LEFT_AFTER`, the speaker's after the job now)."""

def _loose(term: str) -> str:
    """A term stemmed further, so "cycling"/"cycle" and "swimming"/"swim" meet."""
    term = term.strip("'\u2019")  # "Toni's" is read "toni'"
    t = term.rstrip("e") if len(term) > 3 else term
    return t[:-1] if len(t) > 3 and t[-1] == t[-2] else t


_AGENT = re.compile(r"(?:or|er|ist|ian|y|ing|ion)$")


def root(term: str) -> str:
    """`_loose(term)`, and the one who does a thing met with the doing when five letters or
    more stay ("counsellor" / "counselling", "physiotherapist" / "physiotherapy")."""
    t = _loose(term)
    stem_ = _loose(_AGENT.sub("", t))
    return stem_ if len(stem_) >= 5 else t


def _ended(rest: str) -> frozenset[str]:
    """The terms (`_loose`) of what `rest` says was stopped, less times and light verbs; empty
    when it ends nothing. "left" ends only a named thing ("left Waterstones", not "left my
    keys")."""
    m = _ENDS.search(rest)
    if m is None or re.search(PAUSED, rest, re.I):
        return frozenset()
    doer = _DOER.search(rest, 0, m.start())
    if doer is not None and (doer.group(1).lower() == "you" or rest[:doer.start()].strip()):
        return frozenset()  # "..., even though you can't volunteer there anymore": not theirs
    obj = next((g for g in m.group("a", "b", "c", "d", "e", "f", "g", "i", "j") if g), "")
    if m.group("h"):  # "let the National Trust membership lapse": the name is what ended
        obj = " ".join(re.findall(r"(?-i:\b[A-Z][\w'-]*)", m.group("h")))
    if m.group("a"):
        manner = _MANNER.match(obj)  # ("stopped running with headphones": its words too)
        obj = _OBJECT_END.sub("", " " + (manner.group(2) if manner else obj))
        obj = f"{manner.group(1)} {obj}" if manner else obj
    if m.group("left") and (not (re.search(r"(?-i:\b[A-Z])", obj) or _GROUP.search(obj)) or
                            _LEFT_FOR_NOW.search(m.group("a")) or
                            re.match(r"\s*(?:my|our|his|her|their)\b", m.group("a"), re.I)):
        return frozenset()  # "left my keys", "left Tesco at 6 today", "left my Kindle on the
        # train": no ending (one leaves a place or a job, not one's own thing)
    if m.group("drop") and re.search(r"\b(?:off|at|to|in|into|round|by|down|back)\b",
                                     m.group("a"), re.I):
        return frozenset()  # "dropped Tom at the station": a lift, not a provider dropped
    if m.group("d") and _ONE_OFF.search(rest):
        return frozenset()  # "I took the bus today instead of walking": once, not a change
    # "now, not Tuesday", "instead of Tuesdays", "rather than Fridays": the day is what ended
    times = frozenset() if m.group("d") or m.group("e") else _TIME_WORDS
    terms = {t for t in _terms(obj) if t not in times and t not in _CUE_TERMS}
    if terms - _TIE_WORDS:  # (`_TIE_WORDS`)
        terms -= _TIE_WORDS
    if not terms - _LIGHT:
        return frozenset()
    return frozenset(_loose(t) for t in terms)


# How a sentence says a held value ended, read by `step/slots.py` (`ended_again`, `topic`).
_STILL = re.compile(r"\b(?:still|kept|keep|keeping|also|too(?=\s*(?:[.,;:!?)]|$))|as\s+well)\b",
                    re.I)
"""Said as kept: "still", "kept" (`slots.kept`); "too" at a clause's end, not "too far"."""
_CLAUSE_CUT = re.compile(r"[,;]|\b(?:so|but|and|because|while)\b")
"""Where a sentence's clauses meet, for `slots._ended_in` and `slots.ended_again`."""
_ENDED = (r"scrapped|shut|closed|cancell?ed|stopped|ended|left|retired|quit|sold|replaced|axed|"
          r"broke|broken|(?:wrote|written)\s+off|gave\s+up\s+on|"
          r"(?:moved|gone|went)\s+(?:on\s+)?to\s+(?:another|a\s+(?:different|new))|"
          r"no\s+longer|died|(?:moved|passed)\s+away|emigrated|any\s*more|instead\s+of|"
          rf"rather\s+than|(?:good)?bye|farewell|{THING_GONE}|{DISPOSED}|{STOLEN}")
"""Words that say something ended, shared by `_ENDED_PIECE` and `_GONE`."""
_ENDED_PIECE = re.compile(rf"\b(?:{_ENDED}|gone|packed|dropped|from)\b", re.I)
"""Ended, as a clause of a sentence's context says it (`_ended_in`)."""


_IT = re.compile(r"\b(?:it|them)\b", re.I)


def _pieces(sentence: str) -> list[str]:
    """The clauses of `sentence`, and each clause that names what it ends as "it" joined to
    the one before ("The Corsa failed its MOT so I scrapped it": the Corsa was scrapped)."""
    pieces = _CLAUSE_CUT.split(sentence)
    full = [p for p in pieces if p.strip()]
    return pieces + [f"{a} {b}" for a, b in pairwise(full)
                     if _IT.search(b) and _ENDED_PIECE.search(b)]


def _ended_by_it(context: str, value: str) -> bool:
    """Whether `context` names `value` in one clause and ends it as "it" in the next ("The
    Corsa failed its MOT so I scrapped it"): ended by the speaker, not a move of its own."""
    pieces = [p for p in _CLAUSE_CUT.split(context) if p.strip()]
    return any(value in a.lower() and _IT.search(b) and _ENDED_PIECE.search(b) and
               not _STILL.search(b) for a, b in pairwise(pieces))


_NOUN_ENDED = re.compile(
    r"\s+(?!(?:has|had|have|is|was|were|got|just|finally|now|recently|then|really|all|both|"
    r"(?:sad|sudden|recent|eventual|complete|total|actual|real|apparent|unfortunate|lucki|final|"
    r"official|quick|slow|obvious|literal)ly|on|in|at|by|near|off|of|for|from|and|so|but)\b)"
    rf"((?-i:(?:[a-z]+\s+){{0,2}}?[a-z]+))(?:\s+(?:in|on|at|from|of|by)\s+(?:the\s+|my\s+|our\s+)?"
    rf"[\w']+(?:\s+[\w']+)?)?\s+(?:(?:has|had|have|just|finally|"
    rf"now|recently|completely|totally)\s+)*(?:{_ENDED}|gone|packed)\b", re.I)


def names_another(value: str, piece: str, held: str) -> bool:
    """Whether `value` (a held fact's name) is said in `piece` of another thing of that name
    that ended: a noun between the name and the ending that `held` does not say ("My old
    Lenovo monitor packed up" of "My laptop is a Lenovo ThinkPad"; "the Lloyds app stopped";
    "the Samsung telly in the lounge died")."""
    at = piece.lower().find(value.lower())
    m = _NOUN_ENDED.match(piece, at + len(value)) if at >= 0 else None
    return m is not None and any(re.search(rf"\b{re.escape(w)}", held, re.I) is None
                                 for w in m.group(1).split())
