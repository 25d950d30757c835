"""One broad mechanism of the supersede rule (`step/supersede.py`): **what one studies, learns,
plays or does as a pastime**, and when it changes.

The value's kind is read from a packaged lexicon (data/pastimes.txt, built by
scripts/build_pastimes.py): a language ("Portuguese"), an instrument ("viola"), a voice part
("alto"), a school or university subject ("Archaeology"), a sport ("padel") or a pastime
("crochet"). A person holds several of most of these at once, so a statement replaces a held
one only when it is worded as a change ("instead", "switched", "swapped", "gave up X", "dropped
X", "quit X", "no longer X", "moved on to", "it's Y now") and names one other member of a kind
the held fact's member is of, for the same holder:

    "I'm learning Spanish on Duolingo" / "I've dropped Spanish and gone for Portuguese instead"
    "My son does karate" / "He's moved on to judo now" (the son's, never the speaker's)

Never when:
- it adds ("also", "as well", "started guitar too"), may be ("might switch to", "thinking of"),
  wishes, asks, or tells of once ("played padel with work on Friday", "today");
- another holder is said ("my brother's switched from hurling to rugby");
- the member stands negated or as what ended ("I'm not switching to squash"), or what is
  replaced is something else ("tap dancing instead of the gym");
- one side teaches what the other studies ("I teach Physics to GCSE kids"), or watches or
  supports a sport it does not play;
- a language word qualifies a noun ("Spanish food", "an Italian restaurant");
- the sport is how one gets to work ("switched to cycling to work": `families.py`'s commute);
- two held facts of the holder are of the kind and the statement names neither as ended: both
  kept, the new one linked to the newest (`related`), never a guess.

A subject or a language counts in a held fact only said as studied or learnt ("I'm studying
Maths", "learning German at evening classes"; not "my wife is French"). Pure: reads the claims'
texts and the packaged lexicon only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from . import slots
from .broad import _OTHER
from .claim import Claim
from .endings import _ADDITIVE, _ONE_OFF
from .families import _REFUSE
from .lexicon import data_rows

Verdict = tuple[str, int, tuple[str, ...]]
"""("supersedes" or "related", the index of the held fact, why)."""


@dataclass(frozen=True)
class Member:
    """A member of the lexicon as a text names it."""

    term: str
    """The lexicon's term, lower case ("tin whistle", "spanish")."""
    kinds: frozenset[str]
    """The kinds the term is of ("english": language and subject)."""
    at: int
    """Where it stands in the text."""
    ended: bool
    """Said as what ended, was replaced or is not so ("gave up squash", "from pilates",
    "instead of French", "not switching to squash")."""


def _load() -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """Each term of the lexicon (lower case) with its kinds, and the terms written capitalised
    (the languages: "Spanish", "BSL"), which count as a language only so written."""
    kinds: dict[str, set[str]] = {}
    cased: set[str] = set()
    for kind, term in data_rows("pastimes.txt"):
        kinds.setdefault(term.lower(), set()).add(kind)
        if kind == "language":
            cased.add(term)
    return {t: frozenset(k) for t, k in kinds.items()}, frozenset(cased)


_KINDS, _CASED = _load()
_LONGEST = max(len(t.split()) for t in _KINDS)
_OPENING = frozenset(t.split()[0] for t in _KINDS if " " in t)
"""The first words of the terms of several words ("tin" of "tin whistle")."""
_WORD = re.compile(r"[\w'&-]+")
"""A word as the lexicon's terms are made of ("five-a-side", "d&d"): a term is looked up by
its words, not by one pattern of the 600 terms (one such pattern cost a step 0.1 ms a text)."""


_CHANGE = re.compile(
    r"\b(?:instead(?!\s+of)|switch(?:ed|ing)?|swap(?:ped|ping)?|(?:chang|transferr)(?:ed|ing)\s+"
    r"(?:(?:my|our|his|her|their)\s+)?(?:course|major|minor|degree|subject|instrument|"
    r"language|sport|options?|to)|gave\s+up|given\s+up|giving\s+up|dropp(?:ed|ing)|quit|"
    r"ditched|packed\s+in|jacked\s+in|stopped|no\s+longer|moved\s+on\s+to|"
    r"mov(?:ed|ing)\s+(?:(?:me|him|her|us|them)\s+)?(?:up\s+|down\s+|over\s+|across\s+)?to|"
    r"(?:gone|went|going)\s+over\s+to|(?:now|these\s+days|nowadays)\s+it['\u2019]s|"
    r"it['\u2019]s\s+[^,.;!?]*?\b(?:now|these\s+days|nowadays))\b", re.I)
"""A change said: how the new member takes the old one's place (not "took up", "started",
"joined": a hobby added)."""
_TO = re.compile(
    r"\b(?:switch\w*|swap\w*|chang\w*|transferr\w*|moved\s+on|"
    r"mov\w*\s+(?:me|him|her|us|them)(?:\s+(?:up|down|over|across))?|"
    r"(?:gone|went|going)\s+over|(?:gone|went|going|opted)\s+for)"
    r"(?:\s+(?:my|our|his|her|their)\s+[\w-]+)?\s+(?:to|for|onto)?\s*"
    r"(?:(?:the|a|doing|playing|learning|studying)\s+)?$"
    r"|\b(?:(?:now|these\s+days|nowadays)\s+)?it['\u2019]s\s+(?:(?:all|just|mostly|about|the)\s+)*$"
    r"|\binstead\b(?!\s+of).*$", re.I)
"""Before the new member: said as what the holder changed to ("switched to", "moved on to",
"gone for", "changed my course to", "it's ... now"), or after an "instead"."""
_ITS = re.compile(r"\bit['\u2019]s\s+[^,.;!?]*$", re.I)
_NOW = re.compile(r"\b(?:now|these\s+days|nowadays)\b", re.I)
_HERE = re.compile(r"\b(?:round|around|over|up|down|out)\s+(?:here|there)\b|\bin\s+(?:this|the|our)"
                   r"\s+(?:town|area|village|city|street|school|house)\b", re.I)
"""A place the change is of ("now it's all rugby round here"), not the holder."""
_INSTEAD = re.compile(r"\binstead\b(?!\s+of)", re.I)
_ENDED = re.compile(
    r"(?:\b(?:gave|given|giving)\s+up|\bdropp(?:ed|ing)|\bquit(?:ting)?|\bditched|\bstopp(?:ed|ing)"
    r"|\bswap(?:ped|ping)?|\bfrom|\binstead\s+of|\brather\s+than|\bno\s+longer|\bused\s+to"
    r"|\bpacked\s+in|\bmoved\s+on\s+from)(?:\s+(?:on|the|my|his|her|doing|playing|learning|"
    r"studying|going|up|in|with))*\s*$"
    r"|\b(?:not|n['\u2019]t|never)(?:\s+[\w'\u2019-]+){0,3}\s*$", re.I)
"""Before a member: said as what ended or is not so."""
_PARTED = re.compile(r"\b(?:gave|given|giving|packed|packing|jacked|knocked)\s+(?:(?:the|my|"
                     r"his|her)\s+)?$", re.I)
_PARTED_END = re.compile(r"\s+(?:up|in|on\s+the\s+head)\b", re.I)
"""A member said as ended with the verb around it ("given yoga up", "packed the guitar in")."""
_INSTEAD_OF = re.compile(r"\b(?:instead\s+of|rather\s+than)\s+(?:the\s+|my\s+|doing\s+|"
                         r"playing\s+)?([\w'-]+)", re.I)
_AFTER_LANGUAGE = re.compile(r"\s+(?-i:([a-z]+))")
_LANGUAGE_THEN = frozenset("""now instead and or but for at on in with lessons lesson classes
    class course courses tutor teacher homework exam exams degree gcse gcses since these every
    twice once again too as is was are were has have had at through via online app because so
    then from to by this last properly full part""".split())
"""Words that may follow a language said as learnt ("Italian now", "French lessons"); any other
word makes it an adjective ("Spanish food")."""
_HELD_CONTEXT = {
    "subject": re.compile(r"\b(?:stud(?:y|ies|ying|ied)|degree|course|major(?:ing)?|"
                          r"minor(?:ing)?|a[-\s]?levels?|gcses?|leaving\s+cert|modules?|ba|bsc|"
                          r"msc|phd|uni|university|college|school|semester|year|doing|taking|"
                          r"reading|options?)\b", re.I),
    "language": re.compile(r"\b(?:learn\w*|stud(?:y|ies|ying|ied)|lessons?|class(?:es)?|"
                           r"courses?|tutor|duolingo|babbel|gcses?|a[-\s]?levels?|practi[sc]\w*|"
                           r"brushing\s+up|picking\s+up|doing|taking|night\s+school)\b", re.I),
    "instrument": re.compile(r"\b(?:play\w*|learn\w*|lessons?|grade|orchestra|band|practi[sc]\w*|"
                             r"took\s+up|taken\s+up)\b", re.I),
    "voice": re.compile(r"\b(?:sing\w*|sang|choir|chorus|part)\b", re.I),
}
"""What a held fact says of a member of the kind for it to be the holder's pastime (a sport
or a pastime needs nothing: "I do pilates", "My son does karate")."""
_STUDY = _HELD_CONTEXT["subject"]
_TEACH = re.compile(r"\b(?:teach(?:es|ing)?|taught|tutor(?:s|ing|ed)|coach(?:es|ing|ed)|"
                    r"lectur(?:e|es|ing|ed)\s+(?:in|on)|instruct(?:s|ing|or)?)\b", re.I)
_WATCH = re.compile(r"\b(?:watch\w*|support\w*|follow\w*|fan|fans|season\s+ticket|telly|tv)\b",
                    re.I)
_COMMUTE = re.compile(r"\b(?:to|into|in\s+to)\s+(?:work|school|the\s+office|uni|college|the\s+"
                      r"station)\b|\bcommut\w*", re.I)
_PAST = re.compile(r"\bused\s+to\b|\bback\s+(?:then|in)\b|\byears\s+ago\b", re.I)


def members(text: str) -> list[Member]:
    """The members of the lexicon `text` names, in order, the longest term at each word ("tin
    whistle", not "whistle"); a language that qualifies a noun ("Spanish food") is none."""
    words = list(_WORD.finditer(text))
    out: list[Member] = []
    k = 0
    while k < len(words):
        first = words[k].group(0).lower()
        for n in range(min(_LONGEST, len(words) - k) if first in _OPENING else 1, 0, -1):
            if n == 1 and first not in _KINDS:
                break
            said = " ".join(w.group(0) for w in words[k:k + n])
            kinds = _KINDS.get(said.lower())
            if kinds is None or any(text[words[j].end():words[j + 1].start()].strip()
                                    for j in range(k, k + n - 1)):
                continue  # (the words of a term stand apart only by spaces)
            if "language" in kinds:
                after = _AFTER_LANGUAGE.match(text, words[k + n - 1].end())
                if said not in _CASED or (after is not None and
                                          after.group(1) not in _LANGUAGE_THEN):
                    kinds = kinds - {"language"}  # ("spanish", "Spanish food")
            if kinds:
                at = words[k].start()
                end = words[k + n - 1].end()
                out.append(Member(said.lower(), kinds, at, bool(
                    _ENDED.search(text[:at]) or (_PARTED.search(text[:at]) and
                                                 _PARTED_END.match(text, end)))))
                k += n - 1
                break
        k += 1
    return out


def named(text: str) -> bool:
    """Whether `text` names a member of the lexicon and is worded as a change: a value the
    writer asks the rule about though it is neither a number nor a name ("He's moved on to
    judo now")."""
    return bool(_CHANGE.search(text)) and any(not m.ended for m in members(text))


_NOW_DOING = re.compile(r"^\W*(?:just\s+|mostly\s+)?(?!watching\b)[a-z]+ing\b[^,;:.!?]*\b(?:now|"
                        r"instead|these\s+days|nowadays)\W*$", re.I)


def taken_now(sentence: str) -> bool:
    """Whether `sentence` is the speaker's pastime now with the subject dropped ("Doing pilates
    now.", "Playing padel these days."): news of the speaker's, however short."""
    return "?" not in sentence and bool(_NOW_DOING.match(sentence)) and \
        any(not m.ended for m in members(sentence))


def _held(c: Claim, holder: str) -> list[Member]:
    """The members the held `c` says are its holder's pastimes (by each kind's context)."""
    if c.holder != holder or not c.said or c.ends or _WATCH.search(c.said) or \
            _PAST.search(c.said):
        return []
    return [m for m in members(c.said) if not m.ended and
            any(k not in _HELD_CONTEXT or _HELD_CONTEXT[k].search(c.said) for k in m.kinds)]


def _refused(new: Claim, holder: str, said: str) -> bool:
    """A statement that is no change of the holder's pastime: a question, a maybe, an
    addition, once, a wish, a past, a spectator's, or (the speaker's) of another person."""
    if "?" in said or "?" in holder or new.additive or _ADDITIVE.search(said) or \
            slots.hypothetical(said) or _ONE_OFF.search(said) or _REFUSE.search(said) or \
            _PAST.search(said) or _WATCH.search(said):
        return True
    return holder.rpartition("|")[2] == "i" and bool(_OTHER.search(new.said))


def _said_changed(said: str, member: Member) -> bool:
    """Whether `said` names `member` as what the holder changed to ("switched to yoga", "it's
    padel now"), not of a place ("now it's all rugby round here")."""
    before = said[:member.at]
    if _ITS.search(before) and not (_NOW.search(said) and _TO.search(before)):
        return False  # ("it's ... now": the member right after "it's")
    return bool(_TO.search(before)) and not _HERE.search(said[member.at:])


def changed(new: Claim, holder: str, claims: Sequence[Claim]) -> Verdict | None:
    """The one held fact of the holder whose pastime `new`, worded as a change, names another
    member of its kind in place of (see the module docstring); `related` to the newest when two
    or more held facts of the holder are of the kind and none is named as ended; None when
    nothing fits."""
    said = new.context or new.said
    if not _CHANGE.search(said) or _refused(new, holder, said):
        return None
    found = members(said)
    clause_at = said.find(new.said)
    fresh = {m.term: m for m in found if not m.ended and
             (clause_at < 0 or clause_at <= m.at < clause_at + len(new.said))}
    held = [(i, _held(c, holder)) for i, c in enumerate(claims)]
    held_terms = {m.term for _, ms in held for m in ms}
    fresh = {t: m for t, m in fresh.items() if t not in held_terms}
    if len(fresh) != 1:
        return None
    new_member = next(iter(fresh.values()))
    if "sport" in new_member.kinds and _COMMUTE.search(said):
        return None  # ("I've switched to cycling to work": how one gets in)
    ended = {m.term for m in found if m.ended}
    if not (ended or _INSTEAD.search(said) or _said_changed(said, new_member)):
        return None  # (the change said is of something else: "We moved to Chelsea, ...")
    replaced = _INSTEAD_OF.search(said)
    if replaced is not None and not any(replaced.group(1).lower() in t.split() for t in ended):
        return None  # ("tap dancing instead of the gym": something else replaced)
    fits = []
    for i, ms in held:
        kinds = {k for m in ms for k in m.kinds if not ended or m.term in ended} & \
            new_member.kinds
        if not kinds or bool(_TEACH.search(said)) != bool(_TEACH.search(claims[i].said)):
            continue  # ("I teach Physics now" / "I'm studying Maths": another role)
        if kinds <= {"subject"} and not ended and not _STUDY.search(said):
            continue  # (a subject changed is said as studied: "changed my course to ...")
        fits.append((i, sorted(kinds)[0]))
    if ended and ended - held_terms:
        return None  # ("Gave up squash, it's padel now" with no squash held)
    if not fits:
        return None
    i, kind = fits[-1]
    if len(fits) > 1:
        return "related", i, (f"another {kind} given ({new_member.term}), but {len(fits)} "
                              "held facts of the holder are of the kind: both kept, the new "
                              "one marked newer",)
    return "supersedes", i, (
        f"same holder ({holder})", f"one {kind} held", f"another {kind} given "
        f"({new_member.term})", "worded as a change", "the only held fact of this holder "
        "of the kind")


def two_pastimes(new: str, held: str) -> bool:
    """Whether `new` and `held` name members of the lexicon and none in common ("Played padel
    with work on Friday" / "I play squash on Thursdays"): two routines, whatever day each is
    on."""
    a, b = {m.term for m in members(new)}, {m.term for m in members(held)}
    return bool(a and b and not a & b)


_HINTS = {"language": "learning learn lessons classes taking", "instrument": "play plays playing",
          "voice": "sing sings choir", "subject": "studying study degree course major",
          "sport": "play plays playing", "pastime": "hobby"}
"""Words a held fact of each kind is said with, searched for (`step/related.py`): "Gave up
squash, it's padel now" shares no word with "I play squash on Thursdays"."""


def search_words(clause: str) -> list[str]:
    """The words held facts of the kinds a change `clause` names a member of are said with
    (`_HINTS`), searched for beside its own; none for a clause worded as no change."""
    if not _CHANGE.search(clause):
        return []
    kinds = {k for m in members(clause) for k in m.kinds}
    return [w for k in sorted(kinds) for w in _HINTS.get(k, "").split()]
