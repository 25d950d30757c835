"""One broad mechanism of the supersede rule (`step/supersede.py`): **a value read by its type**,
whatever the words around it, so that any wording of a new value meets the held one.

The attribute is read from the type of the value and its holder, not from a verb or a noun both
sentences share:

- a street address ("22 Fenwick Terrace", "the new place on Elder Road"), said as where the
  holder lives now ("got the keys to", "all moved in", "that's home now", "from now on"): the
  holder's held street address (`moved_home`); never an offer, a viewing, an office or a shop,
  nor someone else's ("my sister just moved into 40 Poplar Avenue");
- a range of working hours ("8 till 4", "7am to 3pm", "nine to five"), said as the holder's
  pattern now ("these days", "signed off on", "starting this month"): the holder's held range
  (`work_hours`); never a one-off ("tonight", "next week", an extra shift), another day's hours
  ("on Saturdays"), a place's opening hours, or another person's;
- an amount paid to a payee the new sentence names ("Rang Plusnet and they knocked it down to
  £39", "Spotify hiked the price, it's $11.99 now"): the held amount of that payee (`by_payee`),
  the period agreeing when both say one; never another payee, a one-off ("a day pass"), or
  someone else's bill;
- a routine said with a new pattern ("I'm in the office every day now", "fortnightly now"):
  the held pattern of the same routine (`step/routines.py`);
- an event's date moved ("pushed my operation back to 17 March", "they've shifted us to 9
  August"): the held date of the same event, by any of its words ("operation" / "surgery"), or,
  when the sentence moves "us" or "it", the holder's only held dated event (`rescheduled`); never
  another event ("the stag do has been moved to ..."), one the vocabulary does not know, or a
  maybe.

Exactly one held fact must fit; two: `related` to the newest (both kept), never a guess. The
replace is still settled by `step/numbered.py` (not yet true, someone else's). Pure: reads the
claims' texts only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import routines, slots
from .attributes import _STREET, other_days
from .claim import Claim
from .endings import _ADDITIVE, _ONE_OFF
from .lexicon import NUMBER_WORD
from .sentences import dropped_subject

Verdict = tuple[str, int, tuple[str, ...]]
"""("supersedes" or "related", the index of the held fact, why)."""

_SUFFIX = (r"(?-i:Road|Rd|Street|St|Lane|Ln|Avenue|Ave|Close|Drive|Way|Crescent|Place|Grove|"
           r"Terrace|Gardens|Court|Row|Square|Mews|Walk|Rise|Parade|Boulevard|Blvd)")
_ADDRESS = re.compile(rf"{_STREET}|\b(?:on|in|at|along)\s+(?:the\s+)?"
                      rf"(?-i:[A-Z][\w'-]+)(?:\s+(?-i:[A-Z][\w'-]+)){{0,2}}\s+{_SUFFIX}\b")
"""A street address by its shape: a house number and a street, or a street "on Elder Road"."""
_STREET_NAME = re.compile(rf"((?-i:[A-Z][\w'-]+)(?:\s+(?-i:[A-Z][\w'-]+)){{0,2}}\s+{_SUFFIX})\b")
_SETTLED = re.compile(
    r"\b(?:moved\s+(?:in|into|to)|all\s+moved|got\s+the\s+keys|keys\s+to|closed\s+on|"
    r"completed\s+on|from\s+now\s+on|(?:that|it)['\u2019]?s\s+(?:home|where\s+we|where\s+i|"
    r"our\s+address|my\s+address)|home\s+now|new\s+(?:place|house|flat|home|address|pad)|"
    r"settled\s+in|living\s+(?:at|on)|live\s+(?:at|on)|we['\u2019]re\s+(?:now\s+)?(?:at|on))\b",
    re.I)
"""Said as the holder's home now."""
_NOT_HOME = re.compile(
    r"\b(?:offers?|viewing|view|viewed|looking\s+at|look\s+round|bid|valuation|office|work|"
    r"shop|studio|salon|surgery|clinic|warehouse|depot|site|unit|store|branch|school|gym|"
    r"holiday|airbnb|hotel|staying|visit\w*|party|meet\w*|used\s+to|before\s+we|previous|"
    r"old\s+(?:place|house|flat|address)|grew\s+up|will|going\s+to|next\s+(?:week|month|year)|"
    r"soon|once\s+we)\b|['\u2019]ll\b", re.I)
"""An address that is not one's home now: an offer, a viewing, a workplace, a stay, a past or
a coming one."""

_CLOCK = rf"(?:\d{{1,2}}(?:[:.]\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)?|{NUMBER_WORD}|noon|midday)"
_HOURS = re.compile(rf"(?<![\d:£$€])\b({_CLOCK})\s*(?:to|till|til|until|-|\u2013)\s*({_CLOCK})\b"
                    r"(?!\s*(?:%|kg|kilos|mg|years?|months?|weeks?|days?|miles|minutes|mins))",
                    re.I)
"""A range of the clock ("8 till 4", "7am to 3pm", "nine to five")."""
_NOT_PATTERN = re.compile(
    r"\b(?:tonight|today|tomorrow|yesterday|this\s+(?:morning|afternoon|evening|week|weekend|"
    r"saturday|sunday|friday)|next\s+(?:week|month|saturday|sunday)|extra|overtime|one-off|"
    r"covering|cover\s+for|late|open|opens|opening|closes|shut|class|lesson|session|party)\b",
    re.I)
"""A one-off, or hours that are a place's or an event's."""
_AS_NOW = re.compile(
    r"\b(?:now|these\s+days|nowadays|from\s+now\s+on|from\s+here\s+on|going\s+forward|starting|"
    r"since|from\s+(?:the\s+)?(?:new|next)\s+\w+|swapp\w*|switch\w*|moved|changed|signed\s+off|"
    r"approved|agreed|put\s+(?:me|him|her)\s+on|been\s+put|compressed|dropped|cut|rota|"
    r"anymore|any\s+more|after\s+(?:the|my|our)\s+\w+|(?:i'?m|i\s+am)\s+(?:now\s+)?(?:on|doing|"
    r"working)|i\s+(?:now\s+)?(?:work|do))\b", re.I)
"""Said as the pattern now (a present tense of one's own hours is)."""
_WORKED = re.compile(r"\b(?:work\w*|shifts?|hours|rota|job|office|contract|do|doing|on)\b|"
                     r"\b(?:gone|went|dropped|cut|moved|switched|swapped|changed|put)\s+"
                     r"(?:(?:down|up|back)\s+)?(?:on)?to\s+\d", re.I)
"""A range said of work ("I'm on 7 till 5", "doing 8am to 4pm"), not of sleep or a place."""

_DAYS_OFF = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\s+off\b|\boff\s+on\s+"
                       r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b", re.I)
"""A day off the pattern gives ("I'm on 7 till 5 and get Fridays off"): not that day's hours."""

_MONEY = re.compile(r"(?:[£$€]\s?(\d[\d,]*(?:\.\d\d)?)|\b(\d[\d,]*(?:\.\d\d)?)\s*(?:quid|pounds|"
                    r"dollars|bucks|euros)\b)", re.I)
_PERIOD = re.compile(r"\b(?:a|an|per|each|every)\s+(day|week|fortnight|month|quarter|year)\b"
                     r"|\b(monthly|weekly|quarterly|yearly|annually)\b", re.I)
_PRICE_MOVED = re.compile(
    r"\b(?:knock\w*|dropp\w*|cut|reduc\w*|lower\w*|hik\w*|rais\w*|increas\w*|upp\w*|slash\w*|"
    r"put\s+(?:\w+\s+)?(?:prices?\s+)?up|gone\s+up|went\s+up|come\s+down|came\s+down|"
    r"down\s+to|up\s+to|now|from\s+now\s+on|paying|forking\s+out)\b", re.I)
_PAID_ONCE = re.compile(r"\b(?:paid|spent|charged|cost\s+me|for\s+a|day\s+pass|one-off|ticket|"
                        r"tickets|deposit|fine|refund|tip)\b", re.I)
_NOT_PAYEE = frozenset("""i i'm i've we we're we've my our the a an it it's they they've he she
    his her this that so and but also anyway unrelated phoned rang called got had finally just
    then now actually oh ha well yes no ok okay what how why when where who mr mrs ms dr january
    february march april may june july august september october november december monday
    tuesday wednesday thursday friday saturday sunday""".split())
"""Capitalised words that name no payee (nor person)."""

_MONTH = (r"(?:january|february|march|april|may|june|july|august|september|october|november|"
          r"december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)")
_DAY_MONTH = (rf"(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b|{_MONTH}\s+\d{{1,2}}"
              rf"(?:st|nd|rd|th)?\b)")
_DATE = re.compile(_DAY_MONTH, re.I)
_MOVED = re.compile(
    rf"\b(?:(?:mov\w*|shift\w*|push\w*|put|brought|bring\w*|resched\w*|chang\w*|bump\w*|"
    rf"switch\w*)\s+(.{{0,40}}?)\s*(?:back\s+|forward\s+)?(?:to|till|until)|"
    rf"(?:rebook\w*|re-book\w*|resched\w*|rearrang\w*)\s+(.{{0,40}}?)\s*for)\s+(?:the\s+)?"
    rf"{_DAY_MONTH}", re.I)
"""A date moved: what was moved (a phrase), then the new date."""
_EVENTS: tuple[frozenset[str], ...] = tuple(frozenset(g.split()) for g in (
    "wedding reception ceremony nuptials",
    "surgery operation op procedure replacement",
    "hen hens bachelorette",
    "stag bachelor",
    "christening baptism naming",
    "graduation",
    "funeral memorial",
    "exam exams test",
    "interview",
    "scan",
    "court hearing",
    "move completion",
    "renewal renews renew renewed",
))
"""Words for one event, each group one kind (a wedding is never its hen do)."""
_US = re.compile(r"^\W*(?:(?:us|it|me|them|everything|things|the\s+date|our\s+date|the\s+"
                 r"booking|our\s+booking|the\s+whole\s+thing)\b)", re.I)
"""A moved object that names no event: the holder's one dated event."""


_MONTHISH = re.compile(r"\d\D{0,12}(?i:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))|"
                       r"(?i:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))\w*\s+\d")
_WORD_RANGE = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                         r"noon|midday)\s*(?:to|till|til|until|-|\u2013)\s*(?:one|two|three|four|"
                         r"five|six|seven|eight|nine|ten|eleven|twelve|noon|midday|\d)\b", re.I)
_STREET_WORD = re.compile(rf"\b{_SUFFIX}\b")
_CLOCK_RANGE = re.compile(r"\d(?:[:.]\d\d)?\s*(?:am|pm)?\s*(?:to|till|til|until|-|\u2013)\s*\d"
                          r"(?![\d.,]*\s*(?:%|kg|kilos|mg|years?|months?|weeks?|days?|miles|"
                          r"minutes|mins|seconds|secs|times|reps|people|hours)\b)", re.I)
"""A range of the clock in figures, for the search mark ("8am to 4pm", "9-5")."""
STREET_MARK = "\x00street"
"""A search mark (`step/marks.py`): a street address shares no word with another one."""
DATED_MARK = "\x00dated"
"""A search mark: a dated event, or a date moved ("they've shifted us to 9 August")."""
HOURS_MARK = "\x00hours"
"""A search mark: a range of the clock ("I'm on 8am to 4pm"); the "hours" family's mark too
(full-time, part-time): both are working hours."""
MARKS = frozenset({STREET_MARK, DATED_MARK, HOURS_MARK})


def marks(text: str) -> frozenset[str]:
    """The search marks of `text` (`STREET_MARK`, `DATED_MARK`, `HOURS_MARK`), for
    `step/marks.py`: a held value its new one shares no word with."""
    text = text[:2000]  # (each pattern behind a cheap one: every record shown is marked)
    return frozenset(mark for mark, said in (
        (STREET_MARK, _STREET_WORD.search(text) and _ADDRESS.search(text)),
        (DATED_MARK, _MONTHISH.search(text) and _DATE.search(text) and
         (_events(text) or _MOVED.search(text))),
        (HOURS_MARK, _CLOCK_RANGE.search(text))) if said)


def by_type(new: Claim, holder: str, claims: Sequence[Claim]) -> Verdict | None:
    """The one held fact `new` gives another value of, by the value's type (see the module
    docstring); None when none fits or the statement is refused."""
    said = new.context or new.said
    if "?" in new.said or new.additive or _ADDITIVE.search(said) or slots.hypothetical(said):
        return None
    prefix, _, who = holder.rpartition("|")
    if who.startswith("named ") and (_OPENS_MINE.match(new.said) or dropped_subject(new.said)):
        holder = f"{prefix}|i" if prefix else "i"  # ("Got moved onto 2 till 10": the speaker)
    return moved_home(new, holder, claims) or work_hours(new, holder, claims) or \
        by_payee(new, holder, claims) or rescheduled(new, holder, claims) or \
        routines.new_pattern(new, holder, claims)


def _verdict(fits: list[int], what: str, *why: str) -> Verdict | None:
    if not fits:
        return None
    if len(fits) > 1:
        return "related", fits[-1], (f"another {what}, but {len(fits)} held facts give one: "
                                     "both kept, the new one marked newer",)
    return "supersedes", fits[0], (f"another {what}", *why, f"the only held {what} that fits")


def _who(holder: str) -> str:
    return holder.rpartition("|")[2]


def _mine(holder: str, said: str) -> bool:
    """Whether a weak holder ("it", "they", a subject-dropped clause) is the speaker's."""
    who = _who(holder)
    return who == "i" or who.startswith("?") and bool(_FIRST.search(said))


_OPENS_MINE = re.compile(r"^\W*(?:(?:so|and|but|well|finally|actually|just|now|also)\s+)*"
                         r"(?:i|we|i'm|we're|we've|i've|i'd|we'd|my|our|moved|got|closed|"
                         r"completed|signed)\b", re.I)
_FIRST = re.compile(r"\b(?:i|i'm|i've|me|my|we|we're|we've|us|our)\b", re.I)


def _speaker_says(clause: str, anywhere: bool = False) -> bool:
    """Whether the speaker is the clause's subject ("We got the keys", "Got the keys": a
    dropped subject; "The new place is ...": no one else's; not "New neighbours moved in at 3
    Willow Close"), or, `anywhere`, is named in it at all ("it's 6 till 2 for me")."""
    return bool(_OPENS_MINE.match(clause) or dropped_subject(clause) or
                re.match(rf"\W*{_NEW_HOME.pattern}", clause, re.I) or
                anywhere and _FIRST.search(clause))


_NEW_HOME = re.compile(r"\b(?:the|our|my)\s+new\s+(?:place|house|flat|home|pad|apartment)\b",
                       re.I)
_IT_IS = re.compile(r"^\W*(?:it|that)(?:['\u2019]s|\s+is)\s+(?=(?:number\s+)?\d)", re.I)


def home_named(before: str, sentence: str) -> str:
    """`sentence` with "It's" said as the new home the sentence before it names, the speaker's
    ("Finally got the keys to the new place! It's 7 Brackenbury Lane." -> "The new place is 7
    Brackenbury Lane."); as is otherwise (not "her new place", a viewing, a holiday let)."""
    m, home = _IT_IS.match(sentence), _NEW_HOME.search(before)
    if m is None or home is None or _street(sentence) is None or "?" in before + sentence or \
            _NOT_HOME.search(before + " " + sentence) or not _speaker_says(before):
        return sentence
    return f"{home.group(0)[0].upper()}{home.group(0)[1:]} is {sentence[m.end():]}"


def _street(text: str) -> str | None:
    m = _ADDRESS.search(text) if _STREET_WORD.search(text) else None
    if m is None:
        return None
    name = _STREET_NAME.search(m.group(0))
    return name.group(1).lower() if name else None


def moved_home(new: Claim, holder: str, claims: Sequence[Claim]) -> Verdict | None:
    """A street address said as the holder's home now replaces their held street address."""
    said = new.context or new.said
    street = _street(new.said)  # (in the clause itself: not "..., we're all moved in")
    if street is None or not _SETTLED.search(said) or _NOT_HOME.search(said) or \
            _ONE_OFF.search(said):
        return None
    who = _who(holder)
    if who.startswith("?") and not _mine(holder, said) or who == "i" and \
            not _speaker_says(new.said):
        return None
    mine = "i" if who.startswith("?") else who
    fits = [i for i, c in enumerate(claims) if c.said and not c.ends and
            _who(c.holder) == mine and (held := _street(c.said)) and held != street and
            not _NOT_HOME.search(c.said)]
    return _verdict(fits, "street address", f"same holder ({mine})",
                    "said as where the holder lives now")


def _hours(text: str) -> tuple[str, str] | None:
    m = _HOURS.search(text) if _CLOCK_RANGE.search(text) or _WORD_RANGE.search(text) else None
    return (m.group(1).lower().replace(" ", ""), m.group(2).lower().replace(" ", "")) \
        if m else None


def work_hours(new: Claim, holder: str, claims: Sequence[Claim]) -> Verdict | None:
    """A range of working hours said as the holder's pattern now replaces their held range."""
    said = new.context or new.said
    mine = _hours(new.said)
    if mine is None or _NOT_PATTERN.search(said) or not _AS_NOW.search(said) or \
            not _WORKED.search(said):
        return None
    who = _who(holder)
    if who.startswith("?") or who == "i":
        if not _speaker_says(new.said, anywhere=True):
            return None  # (not "New starters do 8 till 4 now")
        who = "i"
    fits = [i for i, c in enumerate(claims) if c.said and not c.ends and
            _who(c.holder) == who and (held := _hours(c.said)) and held != mine and
            not _NOT_PATTERN.search(c.said) and not other_days(_DAYS_OFF.sub("", new.said),
                                                               c.said)]
    return _verdict(fits, "range of working hours", f"same holder ({who})",
                    "said as the pattern now")


def _amount(text: str) -> list[float]:
    return [float((m.group(1) or m.group(2)).replace(",", "")) for m in _MONEY.finditer(text)]


def _payees(text: str) -> set[str]:
    """The names a sentence gives that could be a payee ("EE", "Plusnet", "Spotify")."""
    return {w.lower() for w in re.findall(r"(?-i:\b[A-Z][\w&+-]*[A-Za-z0-9])", text)
            if w.lower() not in _NOT_PAYEE}


def by_payee(new: Claim, holder: str, claims: Sequence[Claim]) -> Verdict | None:
    """An amount moved by a payee the sentence names replaces the held amount of that payee."""
    said = new.context or new.said
    mine = _amount(new.said)
    if len(mine) != 1 or not _PRICE_MOVED.search(said) or _PAID_ONCE.search(said) or \
            _ONE_OFF.search(said) or re.search(r"\b\w+['\u2019]s\s+(?:bill|contract|plan)\b",
                                                said, re.I):
        return None
    who = _who(holder)
    if not (who == "i" or who.startswith("?") or who.startswith("named ")):
        return None
    payees = _payees(said)
    period = {p.lower() for g in _PERIOD.findall(new.said) for p in g if p}
    fits = []
    for i, c in enumerate(claims):
        theirs = _amount(c.said) if c.said and not c.ends else []
        if len(theirs) != 1 or theirs[0] == mine[0] or not 0.4 <= mine[0] / theirs[0] <= 2.5 \
                or not _payees(c.said) & payees or not (
                    _who(c.holder) == "i" or _who(c.holder).startswith("named ")):
            continue
        held_period = {p.lower() for g in _PERIOD.findall(c.said) for p in g if p}
        if period and held_period and not period & held_period:
            continue
        fits.append(i)
    return _verdict(fits, "amount of the payee named", "the payee named in both",
                    "worded as a new price")


def _events(text: str) -> set[int]:
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    return {k for k, group in enumerate(_EVENTS) if group & words}


_COVERED = re.compile(r"\b(car|van|home|house|contents|buildings|pet|dog|cat|travel|life|health|"
                      r"bike|boiler|phone|gadget|landlord)\s+(?:insurance|cover|policy|renewal|"
                      r"membership|warranty)", re.I)
"""What a renewal is of ("car insurance", "home cover"): a renewal of one is not of another."""


def _covers(text: str) -> set[str]:
    return {m.lower() for m in _COVERED.findall(text)}


def rescheduled(new: Claim, holder: str, claims: Sequence[Claim]) -> Verdict | None:
    """An event's date moved replaces the held date of the same event (or, when "us" or "it"
    is moved, of the holder's one held dated event)."""
    said = new.context or new.said
    m = (_MOVED.search(new.said) or _MOVED.search(said)) if _MONTHISH.search(said) else None
    if m is None or re.search(r"\b\w+['\u2019]s\s+(?:wedding|operation|surgery|party|exam)\b",
                              said, re.I):
        return None
    who = _who(holder)
    if not (who == "i" or who.startswith("?") or who.startswith("named ")):
        return None
    moved, kinds = m.group(1) or m.group(2) or "", _events(said)
    named = [w for w in re.findall(r"[a-z']+", moved.lower()) if w not in ("my", "our", "the")]
    if not _US.match(moved) and (not kinds or named and not _events(moved)):
        return None  # (what was moved is no event this knows: "moved parents' evening")
    new_date = _DATE.findall(m.group(0))
    fits = [i for i, c in enumerate(claims) if c.said and not c.ends and
            _who(c.holder) == "i" and (held := _DATE.findall(c.said)) and
            held != new_date and _events(c.said) and
            (_events(c.said) & kinds if kinds else True) and
            not (_covers(c.said) and _covers(said) and not _covers(c.said) & _covers(said))]
    return _verdict(fits, "date of the event", "the same event",
                    "worded as moved to a new date")
