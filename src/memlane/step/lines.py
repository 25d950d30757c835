"""The offline buffer line: one readable sentence on what a stretch was about and how it ended.

    "Caroline and Melanie talked about the adoption agency, the support group and their kids;
     it ended with Melanie talking about the beach."

The heuristic extractor (`step/heuristic.py`) writes it with no model, so it has no grammar to
lean on, only cues: a noun phrase is what follows a determiner ("a support group", "my kids")
or a name inside a sentence ("Lisbon"); the line names at most `MAX_SUBJECTS` of them, each with
its article, never a bare word list ("Lisbon, bringing, adapter, jacket, hills and plugs" was
what the salient words alone gave). It speaks in the memory system's words: no number, code,
credential, link or run of four of a user's words (`_quotes`), for the record holds the value
and the line points at the record. Its nouns are also what the line index (`context/
line_index.py`) matches a later question against, so they are the stretch's most salient ones.

`readable(line)` is the check these lines are held to (tests, `benchmarks/episode_lines.py`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from ..safety import scan
from ..text import ANY_WORD, FACT_STOPWORDS, TYPED_WORD, listing, stem
from ..types import Message
from .schema import EPISODE_MAX_WORDS
from .sentences import (
    _CALENDAR,
    _COPULA,
    _CUE_WORDS,
    _OPENER_WORDS,
    _words,
    is_fact,
    is_request,
    split_sentences,
)

MAX_SUBJECTS = 5
"""Noun phrases a line names, as room allows: more read as a list of keywords."""

MAX_BARE = 2
"""A list may name this many bare words (no article, not a name): more is a keyword list."""

# --- kinds of fact and of request ------------------------------------------------------------
# What a line says when a stretch gives no noun fit to name, in the memory system's words: the
# kinds of fact the speakers gave ("diet", "a code") and what they asked for.
_TOPICS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(rx, re.I)) for name, rx in (
    ("a code", r"\b(?:code|password|passcode|pin|combination|passport|login|account\s+number|"
               r"order\s+number|number|wifi|key)\b"),
    ("their name", r"^\W*(?:hi\W+|hello\W+|hey\W+)?(?:i'?m|i\s+am|my\s+name\s+is|call\s+me)"
                   r"\s+(?-i:[A-Z][a-z]+)\W*$|\bmy\s+name\s+is\b"),
    ("health", r"\b(?:allerg\w*|intoleran\w*|disease|diabet\w*|asthma|mg|medication|"
               r"medicine|blood|doctor|dentist|therap\w*|diagnos\w*|surgery|pain|sick|ill)\b"),
    ("diet", r"\b(?:vegan|vegetarian|gluten|dairy|lactose|alcohol|diet|halal|kosher|eat|eats|"
             r"drink|drinks|food|cook\w*|recipe\w*)\b"),
    ("their plans", r"\b(?:plan\w*|going\s+to|will|next|tomorrow|trip|flight|visit\w*|appointment|"
              r"schedul\w*|meeting|leave|leaving|training|expecting)\b"),
    ("where they live", r"\b(?:live|lives|living|moved|move|home|house|apartment|flat|address|rent|"
             r"neighbou?rhood)\b"),
    ("their work", r"\b(?:work\w*|job|career|company|office|boss|manager|student|phd|study\w*|"
             r"school|business|shift)\b"),
    ("their family", r"\b(?:mother|father|mom|mum|dad|parents|sister|brother|wife|husband|partner|"
               r"son|daughter|kids?|children|baby|family|cousin|aunt|uncle|grand\w+)\b"),
    ("their pets", r"\b(?:dog|dogs|cat|cats|puppy|pup|pups|pet|pets|beagle|kitten)\b"),
    ("their hobbies", r"\b(?:paint\w*|music|guitar|piano|book|books|read\w*|hik\w*|run\w*|"
                r"marathon|game|games|sport\w*|danc\w*|art|photo\w*|garden\w*|travel\w*)\b"),
    ("what they like", r"\b(?:like|love|prefer|enjoy|favou?rite|hate)\b"),
))
_ASKS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(rx, re.I)) for name, rx in (
    ("a conversion", r"\b(?:convert|how\s+many|calculate|ounces|grams|miles|km)\b"),
    ("writing", r"\b(?:write|draft|poem|haiku|summari[sz]e|translate|rewrite|email|letter)\b"),
    ("ideas", r"\b(?:ideas?|suggest\w*|recommend\w*|find|recipe|options)\b"),
    ("an explanation", r"\b(?:explain|why|how|what|difference)\b"),
))


_PREPOSITIONS = frozenset("at in on for of from with to by near since during".split())
_POSSESSIVE_START = re.compile(r"^\W*(?:(?:my|our|the|his|her|their)\s+)+", re.I)


def _topic(sentence: str) -> str:
    """What a fact is about, never its value: the thing it names before "is" ("My locker
    combination is 4-19-27" -> "their locker combination"), else its kind ("health")."""
    body = _OPENER_WORDS.sub("", sentence.strip(), count=1)
    cut = _COPULA.search(body)
    if cut is not None:
        clause = re.split(r"[,;:\u2013\u2014]\s|\s-\s", body[:cut.start()])[-1]
        head = _POSSESSIVE_START.sub("", clause)
        if head != clause:  # "my ...", "the ...": a thing of the speaker's
            words: list[str] = []
            for w in ANY_WORD.findall(head):
                if w.lower() in _PREPOSITIONS:
                    break  # "wifi password at the cabin": the thing is before "at"
                # Not names ("my daughter Lies"), not numbers or codes: kinds, not values.
                if w[0].isupper() or any(ch.isdigit() for ch in w) or w.lower() in FACT_STOPWORDS:
                    continue
                words.append(w[:-2] if w.endswith("'s") else w)
            words = words[:3]
            if words:
                return "their " + " ".join(words)
    for name, rx in _TOPICS:
        if rx.search(sentence):
            return name
    return "personal news"


def _ask(sentence: str) -> str:
    for name, rx in _ASKS:
        if rx.search(sentence):
            return name
    return "help"


# --- the nouns a line names ------------------------------------------------------------------
# Words a line never names: they are the stretch's wording, not its subject ("today",
# "kids" is kept; "pretty", "ended" are not), or they belong to a credential's sentence.
_LINE_SKIP = frozenset("""today tomorrow yesterday tonight week weeks month months year years
    ago last next first new old lots bit kind kinds people person everyone someone anyone
    thing things stuff guys guy hear heard happy sounds sound looks looking went going gone
    came come coming doing done sorry wonderful fantastic incredible super exciting excited
    beautiful lovely fun cool proud totally absolutely especially honestly seriously soon
    agree agreed continue continued keep keeping kept taking took takes trying tried start
    started starting seems seem seemed felt found makes making means mean meant wish wished
    enjoyed enjoying loved loving glad important different hard easy true real whole little
    big special awesome fine better inspiring inspired powerful thankful grateful vital
    together lately sometimes often never ever since already again able sure means share
    shared sharing happen happened thought thinking remember means wanna gonna yeah""".split())
# Verbs that follow a noun phrase's head ("my kids love painting"): where the phrase ends. No
# tagger offline; these and an -ly word are the cheap cues.
_VERBS = frozenset("""love loves like likes want wants need needs bring brings get gets got make
    made give gives gave take see saw look feel feels tell told ask asked help helps show shows
    reminds remind run runs play plays work works live lives move moved keep try tries let
    believe believes call calls use uses hope hopes think knows know means seems helped goes
    going went come comes became become has have had is are was were be been being do does did
    can could will would should may might must shall""".split())
# Words a determiner or possessive leads ("a support group", "my kids"): noun phrases, the
# likeliest subjects of a sentence.
_DETERMINER = frozenset("a an the my our your his her their this that these those some".split())
_POSSESSIVE = frozenset("my our your his her their".split())
_CREDENTIAL = re.compile(r"\b(?:code|password|passcode|passphrase|pin|combination|passport|"
                         r"login|username|account|number|wifi|key|token|secret|ssn|iban|card)s?\b",
                         re.I)
# Linear time: the address and bare-domain forms start only where a token starts (past its
# leading punctuation), which is where their leftmost match starts anyway; unanchored, each
# position of a 60,000-character token rescanned the rest of it (14 s; tests/test_tenants.py).
_LINK = re.compile(r"(?<!\S)\S+@\S+|\b(?:https?://|www\.)\S+|"
                   r"(?<!\S)[^\w\s]*\b\S+\.(?:com|org|net|io|dev)\b\S*", re.I)


# Heads that name nothing on their own ("the ones", "a blast", "makes a difference").
_VAGUE = frozenset("""ones others way ways lot lots time times day days moment moments part parts
    place side end point reason words word back blast difference start starts idea ideas chance
    chances question questions advice news""".split())
# A shared picture as chat exports (and the LoCoMo replay) write it: "[shares a photo: a photo
# of a dog on a beach]". The marker is not a subject; the caption is.
_MEDIA = re.compile(r"\[\s*shares?\s+an?\s+(?:photo|picture|image|video|link)\b:?"
                    r"(?:\s*an?\s+(?:photo|photograph|photography|picture|image)\s+of\b)?", re.I)


_NUMBER_WORDS = frozenset("""one two three four five six seven eight nine ten eleven twelve
    thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty
    seventy eighty ninety hundred thousand million first second third fourth fifth sixth seventh
    eighth ninth tenth eleventh twelfth twentieth thirtieth half dozen""".split())
"""A value spelled out is a value: "the fourth floor" would show a number the user may since
have changed (a line is not the place for a value: the record is)."""


def _nameable(w: str, skip: frozenset[str], shortest: int = 4) -> bool:
    """Whether a typed word may be named in a line (a content word, never a number or code,
    digits or spelled out); `shortest`: its fewest letters (3 inside a noun phrase: "a guinea
    pig")."""
    lw = w.lower()
    return not (len(lw) < shortest or lw in _VAGUE or lw in _NUMBER_WORDS
                or any(ch.isdigit() or ch in "'\u2019" for ch in w)
                or lw in FACT_STOPWORDS or lw in _LINE_SKIP or lw in _CALENDAR or lw in skip
                or lw in _CUE_WORDS or lw in _VERBS or lw.endswith("ly")
                or (w.isupper() and len(w) > 6))


class _Nouns:
    """The noun phrases of a stretch's user sentences, scored: a phrase's head (the last word
    after a determiner, or a name inside a sentence) counts once per mention, more when it is
    a name or in a fact; its article is "their" when a possessive led it most often, else
    "the"; the word that led the head most often joins it ("the support group")."""

    def __init__(self) -> None:
        self.score: dict[str, float] = {}
        self.shown: dict[str, str] = {}
        self.proper: set[str] = set()
        self.owned: Counter[str] = Counter()
        self.pairs: Counter[tuple[str, str]] = Counter()

    def add(self, sentence: str, skip: frozenset[str], fact: bool) -> None:
        body = _MEDIA.sub(" ", _LINK.sub(" ", sentence))
        words = list(TYPED_WORD.finditer(body))
        det: str | None = None
        run: list[str] = []  # the phrase since the determiner
        for i, mm in enumerate(words):
            w = re.sub(r"['\u2019]s$", "", mm.group().strip("'\u2019-"))
            lw = w.lower()
            broke = body[mm.start() - 1:mm.start()] in ",;:" if mm.start() else True
            if broke or lw in _DETERMINER:
                self._close(det, run, fact)
                det, run = (lw if lw in _DETERMINER else None), []
                if lw in _DETERMINER:
                    continue
            proper = i > 0 and w[:1].isupper() and _nameable(w, skip)
            if proper:
                self._close(det, run, fact)
                det, run = None, []
                self._mention(w, None, fact, proper=True)
                continue
            if det is not None and len(run) < 2 and _nameable(w, skip, 3) and \
                    not (lw.endswith("ing") and run):
                run.append(w)
                continue
            if det is not None and not run and lw not in FACT_STOPWORDS and lw not in _VERBS \
                    and not any(ch.isdigit() for ch in lw):
                continue  # "my first painting", "a really big deal": the head is yet to come
            self._close(det, run, fact)
            det, run = None, []
        self._close(det, run, fact)

    def _close(self, det: str | None, run: list[str], fact: bool) -> None:
        if det is None or not run:
            return
        head = run[-1]
        self._mention(head, det, fact, proper=False)
        if len(run) == 2:
            lead = stem(run[0].lower())
            self.pairs[(lead, stem(head.lower()))] += 1
            self.shown.setdefault(lead, run[0].lower())

    def _mention(self, w: str, det: str | None, fact: bool, proper: bool) -> None:
        key = stem(w.lower())
        gain = 1.0 + (0.6 if proper else 0.8) + (0.3 if fact else 0.0) + min(len(w), 10) / 40
        self.score[key] = self.score.get(key, 0.0) + gain
        if proper:
            self.proper.add(key)
            self.shown[key] = w
        else:
            self.shown.setdefault(key, w.lower())
            if det in _POSSESSIVE:
                self.owned[key] += 1
            else:
                self.owned[key] -= 1

    def phrases(self, n: int, avoid: frozenset[str] = frozenset()
                ) -> tuple[list[str], frozenset[str]]:
        """The `n` best phrases, with their articles, none led by a word of `avoid`; and the
        words (stemmed) they name."""
        out: list[str] = []
        used: set[str] = set(avoid)
        for key, _ in sorted(self.score.items(), key=lambda kv: (-kv[1], kv[0])):
            if key in used:
                continue
            used.add(key)
            out.append(self._render(key, used))
            if len(out) == n:
                break
        return out, frozenset(used - avoid)

    def _render(self, key: str, used: set[str]) -> str:
        if key in self.proper:
            return self.shown[key]
        lead = max((p for p in self.pairs if p[1] == key and self.pairs[p] >= 1
                    and p[0] in self.shown and p[0] not in self.proper),
                   key=lambda p: self.pairs[p], default=None)
        words = [self.shown[key]]
        if lead is not None:
            used.add(lead[0])
            words.insert(0, self.shown[lead[0]])
        return ("their " if self.owned[key] > 0 else "the ") + " ".join(words)


def _nouns(said: Sequence[Message], skip: frozenset[str],
           scans: dict[str, tuple[str, ...]] | None = None) -> _Nouns:
    """The noun phrases of `said`'s sentences, never from a sentence about a credential or one
    the injection scan flags (the record, screened, holds those)."""
    nouns = _Nouns()
    for m in said:
        for x in split_sentences(m.content):
            if _CREDENTIAL.search(x) or scan(x, scans):
                continue
            nouns.add(x, skip, is_fact(x, skip))
    return nouns


def _quotes(line: str, said: Sequence[Message], run: int = 4) -> bool:
    """Whether `line` repeats `run` consecutive words of a user message (case folded)."""
    low = " ".join(re.findall(r"\w+", line.lower()))
    for m in said:
        w = re.findall(r"\w+", m.content.lower())
        if any(" ".join(w[i:i + run]) in low for i in range(len(w) - run + 1)):
            return True
    return False


# --- the line --------------------------------------------------------------------------------
def episode_line(messages: Sequence[Message], names: frozenset[str] = frozenset()) -> str:
    """One sentence of at most `EPISODE_MAX_WORDS` words: who spoke, what the stretch was about
    (at most `MAX_SUBJECTS` noun phrases) and how it ended ("Caroline and Melanie talked about
    the adoption agency and their kids; it ended with thanks."). Never the user's sentences: no
    number, code, credential, link or run of four of their words. Without a noun to name it
    names the kinds of fact given ("The user shared their wifi password and their locker code;
    ..."). `names`: the speakers' names (lower case), which are not subjects."""
    said = [m for m in messages if m.role == "user"]
    speakers = list(dict.fromkeys(m.name for m in said if m.name))
    who = listing(speakers[:2]) if speakers else "The user"
    skip = names | {s.lower() for sp in speakers for s in sp.split()}
    # The last turn's sentences are read twice (its own subjects below) and a credential's once
    # more: scanned once each. The memo lives for this call only, so it holds no text past it
    # (a forget cannot miss it).
    scans: dict[str, tuple[str, ...]] = {}
    nouns = _nouns(said, skip, scans)
    # A credential's sentence gives no words, but its kind still indexes the stretch ("shared
    # their passport number": a later "what's my passport number?" finds the line).
    # Only a thing the speaker named ("their passport number"): "a code", the fallback kind,
    # is mostly a false alarm ("the key is patience") and would mislead.
    kinds = [k for k in dict.fromkeys(
        _topic(x) for m in said for x in split_sentences(m.content)
        if _CREDENTIAL.search(x) and is_fact(x, names) and not scan(x, scans))
        if k.startswith("their ")][:2]
    shared = f", and shared {listing(kinds)}" if kinds else ""
    subjects, named = nouns.phrases(MAX_SUBJECTS)
    if subjects:
        endings = _endings(said, skip, names, scans, named)
        for n in range(len(subjects), 0, -1):
            for ending in endings:
                line = f"{who} talked about {listing(subjects[:n])}{shared}; it ended with " \
                       f"{ending}."
                if len(line.split()) <= EPISODE_MAX_WORDS and not _quotes(line, said):
                    return line
    return _kinds_line(said, who, names)


def _kinds_line(said: Sequence[Message], who: str, names: frozenset[str]) -> str:
    """The line in kinds of fact only (a stretch with no noun fit to name)."""
    topics: list[str] = []
    asks: list[str] = []
    for m in said:
        for x in split_sentences(m.content):
            if is_request(x):
                asks.append(_ask(x))
            elif is_fact(x, names):
                topics.append(_topic(x))
    # As many kinds as fit the line, most frequent first (the line keeps its ending).
    ranked = [t for t, _ in Counter(topics).most_common(MAX_SUBJECTS)]
    asks = [a for a, _ in Counter(asks).most_common(2)]
    room = EPISODE_MAX_WORDS - 10 - len(who.split()) - sum(len(a.split()) for a in asks)
    topics = []
    for t in ranked:
        if sum(len(x.split()) + 1 for x in topics) + len(t.split()) <= room:
            topics.append(t)
    if ranked and not topics:
        topics = ["personal news"]
    if topics and asks:
        head = f"{who} shared {listing(topics)}, and asked for {listing(asks)}"
    elif topics:
        head = f"{who} shared {listing(topics)}"
    elif asks:
        head = f"{who} asked for {listing(asks)}"
    else:
        head = f"{who} made small talk"
    line = f"{head}; it ended with {_ending(said, names)}."
    words = line.split()
    if len(words) > EPISODE_MAX_WORDS:  # several speakers' names: keep the head's start
        line = " ".join(words[:EPISODE_MAX_WORDS - 1]).rstrip(",;") + "."
    return line


def _endings(said: Sequence[Message], skip: frozenset[str], names: frozenset[str],
             scans: dict[str, tuple[str, ...]], named: frozenset[str]) -> list[str]:
    """How the stretch ended, best first: in the last turn's own subject when it has one the
    line does not already name ("a question from Melanie about the trip", "Melanie talking
    about the beach"), then in kinds (`_ending`)."""
    kind = _ending(said, names)
    last = next((m for m in reversed(said) if _words(m.content)), None)
    if last is None:
        return [kind]
    own, _ = _nouns([last], skip, scans).phrases(1, avoid=named)
    who = last.name or "the user"
    out = []
    if own and kind.startswith("a question"):
        out.append(f"a question from {who} about {own[0]}")
    elif own and (kind == "small talk" or " talking about " in kind):
        out.append(f"{who} talking about {own[0]}")
    return [*out, kind]


def _ending(said: Sequence[Message], names: frozenset[str]) -> str:
    """How the stretch ended, from its last user turn that said anything, in kinds."""
    last = next((m for m in reversed(said) if _words(m.content)), None)
    if last is None:
        return "no reply"
    who = last.name or "the user"
    sentences = [x for x in split_sentences(last.content) if _words(x)]
    facts = [x for x in sentences if is_fact(x, names)]
    if facts:
        topic = _topic(facts[-1])
        return f"news from {who}" if topic == "personal news" else f"{who} talking about {topic}"
    tail = sentences[-1] if sentences else last.content
    if tail.rstrip().endswith("?"):
        return f"a question from {who}"
    if is_request(tail):
        return f"a request for {_ask(tail)}"
    if re.search(r"\b(?:thanks?|thank\s+you|bye|good\s*night|see\s+you|take\s+care|cheers)\b",
                 tail, re.I):
        return "thanks" if re.search(r"\bthank", tail, re.I) else "a goodbye"
    return "small talk"


# --- the check ------------------------------------------------------------------------------
_PAST = frozenset("made told said gave took went had spoke met got brought".split())
# `_VERBS` that are nouns as often ("asked for help", "their work"): not flagged in a list.
_NOUNS_TOO = frozenset("help work play plays call calls run runs love need needs hope hopes use "
                       "uses show shows look feel move try".split())
_FRAME = re.compile(r"^(?:The user|[A-Z][\w'\u2019-]*(?: and [A-Z][\w'\u2019-]*)?) ([a-z]+)\b")
_BARE = re.compile(r"^[a-z][a-z'\u2019-]*$")


def readable(line: str) -> list[str]:
    """What keeps `line` from reading as one sentence a person would write (empty: nothing):
    under 25 words; one sentence (a capital first, one full stop, at the end); a subject and a
    past-tense verb first ("Caroline and Melanie talked", "The user shared"); and in every list
    (items split at commas and "and"), at most `MAX_BARE` bare words, and none that is a verb
    form standing as a noun ("bringing", "bring")."""
    out = []
    if len(line.split()) >= 25:
        out.append("25 words or more")
    if not line[:1].isupper() or not line.endswith(".") or re.search(r"[.!?](?:\s|$)", line[:-1]):
        out.append("not one sentence")
    m = _FRAME.match(line)
    if m is None or not (m.group(1).endswith("ed") or m.group(1) in _PAST):
        out.append("no subject and verb")
    for clause in line.rstrip(".").split(";"):
        items = [x.strip() for x in re.split(r",\s*(?:and\s+)?|\s+and\s+", clause) if x.strip()]
        if len(items) < 2:
            continue
        tail = items[1:]  # the first item carries the clause's own subject and verb
        bare = [x for x in tail if _BARE.match(x)]
        if len(bare) > MAX_BARE:
            out.append(f"a list of {len(bare)} bare words")
        if any(x.endswith(("ing", "ed")) or (x in _VERBS and x not in _NOUNS_TOO)
               for x in bare):
            out.append("a verb as a noun")
    return out
