"""The offline memory step: a deterministic heuristic extractor, no model.

It is good enough for tests, demos and the offline evaluation, and it is named for what it is: it
keeps sentences that look like facts (first person, names, numbers, dates, preferences) verbatim,
writes the episode line (`step/lines.py`: what the stretch was about and how it ended), and
scores each turn by how much it said. It produces the same JSON a model would, so its output
goes through the same validation and apply path.

Records worth pointing at:
- sentences are split by `split_sentences`, which knows abbreviations ("Dr. Okafor", "St. Mary's",
  "e.g."), initials and decimals ("3.5"), so a fact is not cut in two;
- each sentence is cut into what a person would write down (`step/clauses.py`): one record per
  fact, fillers, remember-requests and a trailing question off (the message keeps them);
- questions and requests ("Tell me more about...", "Can you...", "Please...") are not facts;
- one copy of each fact per namespace, and facts over time: given the related records a model
  step is shown (`Memory.related`, any thread of the namespace), the supersede rule
  (`step/supersede.decide`) says whether a fact repeats one (the record gains the turn as a
  source; the episode points at the existing id), supersedes one (same holder and attribute,
  a new value: an update, the old text kept as history), may update one (both kept, the new one
  marked newer), or is new.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from ..caches import remember
from ..text import ANY_WORD, FACT_STOPWORDS, FACT_WORD
from ..types import Message, Record
from .clauses import asked_to_keep, carry_holders, clauses
from .kinds import held_kind, kind_of
from .supersede import DUPLICATE as DUPLICATE  # the repeat threshold, read by eval/replay.py
from .supersede import (
    RELATED,
    RELATIONS,
    SAME,
    SUPERSEDES,
    Claim,
    decide,
    mark_related,
    read_claim,
    strip_lead,
)

_PREF = re.compile(r"\b(i|we)\s+(really\s+)?(like|love|prefer|hate|enjoy|dislike|can't stand)\b"
                   r"|\bfavou?rite\b|\ballergic\b", re.I)
_FIRST = re.compile(r"\b(i|i'm|i've|i'd|my|me|we|our|mine)\b", re.I)
_EVENT = re.compile(r"\b(yesterday|today|tomorrow|last|next|ago|went|visited|started|joined|"
                    r"moved|bought|finished|got|met|took|attended|adopted|signed|ran|won|lost|"
                    r"graduated|born|married|planning|plan|will)\b", re.I)
_GREETING = re.compile(r"^\s*(hi|hey|hello|thanks|thank you|ok|okay|sure|yes|no|bye|great|"
                       r"cool|wow|nice|lol|haha)\b[\s!.,]*$", re.I)

# --- sentences -------------------------------------------------------------------------------

ABBREVIATIONS = frozenset(
    """mr mrs ms mx dr prof sr jr st mt ft rev hon gen col capt lt sgt gov pres sen rep vs etc
    eg ie cf al approx est dept univ inc ltd co corp bros assn ave blvd rd hwy apt ste bldg no nos
    vol fig ch pp ed eds jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur
    thurs fri sat sun am pm bc ad ca min max tel ext""".split()
)
"""Words that end with a period without ending a sentence (compared lower-cased, dots removed)."""

# A candidate end: terminal punctuation (and closing quotes/brackets), then white space.
_END = re.compile(r"""[.!?\u2026]+["')\]\u201d\u2019]*(?=\s)""")
_OPENER = re.compile(r"""\s*["'(\[\u201c\u2018]*[A-Z0-9]""")


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`: split after . ! ? (or an ellipsis) followed by space and a capital or
    a digit, and at line breaks; not after an abbreviation ("Dr.", "e.g."), an initial ("J.")
    or inside a number ("3.5", "9.30" have no space after the dot).

    Written here rather than taken from a library: pysbd (last release 2021) and syntok (2022)
    are no longer kept up and slow on chat text, and NLTK's Punkt needs a separate data
    download; chat messages need only these rules."""
    out: list[str] = []
    for block in text.splitlines():
        start = 0
        for m in _END.finditer(block):
            end = m.end()
            rest = block[end:]
            if not _OPENER.match(rest):
                continue  # the next word is lower case (or nothing follows): same sentence
            if m.group().rstrip("\"')]\u201d\u2019") == ".":
                before = block[start:m.start()].split()
                word = before[-1] if before else ""
                bare = word.lstrip("\"'([\u201c\u2018").replace(".", "").lower()
                if bare in ABBREVIATIONS or (len(bare) == 1 and bare.isalpha()):
                    continue  # "Dr. Okafor", "J. Smith", "e.g. Lisbon"
            piece = block[start:end].strip()
            if piece:
                out.append(piece)
            start = end
        piece = block[start:].strip()
        if piece:
            out.append(piece)
    return out


# --- what is not a fact ----------------------------------------------------------------------

_REQUEST = re.compile(
    r"""^\W*(?:please\b|pls\b|kindly\b
    |(?:can|could|would|will|won't)\s+you\b
    |(?:i\s+(?:want|need|would\s+like|'d\s+like)|i'd\s+like)\s+you\s+to\b
    |let'?s\b|let\s+me\s+know\b|how\s+about\b|what\s+about\b
    |(?:tell|give|show|help|explain|describe|list|suggest|recommend|find|search|look\s+up|write
      |draft|summari[sz]e|translate|remind|send|book|check|plan|make|create|compare|teach|walk
      |share|name|pick|choose|imagine|go\s+on|keep\s+going|continue)\b)""",
    re.I | re.X,
)
_PLEASE = re.compile(r"\bplease\b", re.I)
# "tell me", "remind us" anywhere: a request however it starts ("SLOW3 tell me").
# `(?=(\W*))\1` is `\W*` that gives nothing back (an atomic group, which Python 3.10 lacks):
# the same matches, and a sentence of 4,000 brackets is read once, not once per bracket.
_ASK_ME = re.compile(r"^(?=(\W*))\1(?:\S+\s+)?(?:tell|show|give|send|remind|help|teach|get|"
                     r"find|bring|let)\s+(?:me|us)\b", re.I)
# Interjections, greetings and a vocative name that open a sentence ("Hey John,", "Okay, ",
# "Wow, Caroline!"), taken off before its shape is judged.
_OPENER_WORDS = re.compile(
    r"^\W*(?:(?i:hi|hey|hello|oh|ah|wow|yeah|yes|yep|no|nope|ok|okay|alright|well|so|thanks|"
    r"thank\s+you|sure|great|cool|nice|awesome|haha|lol|omg|aw+|hmm+|um+|dear|and|but|anyway|"
    r"anyways|btw|by\s+the\s+way|random\s+thing|speaking\s+of\s+which|honestly|also)\b"
    r"(?:\s+[A-Z][a-z]+)?[\s,!.:;-]*)+")
# Words a declarative sentence's subject starts with; a sentence starting with anything else
# followed by an object ("Convert 250 grams", "Write a haiku", "List the sights") is an
# imperative: its first word is the verb.
_SUBJECT_START = frozenset("""i i'm i've i'd i'll my we we're we've we'd we'll our you you're
    your he he's his she she's her it it's its they they're their this that these those the a an
    there there's here some all each every one two three no none nobody everyone someone
    something nothing anything everything morning evening last next yesterday today tomorrow
    tonight in on at after before since when while if as by for with from during about
    through until""".split())
_OBJECT_START = frozenset("""a an the me us my our this that these those some all it them him
    her your up out down about""".split())
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|mine|we|we're|we've|we'd|we'll|our|"
                           r"ours|us|me)\b", re.I)
# The speaker as subject or owner ("I ...", "my ...", "we ..."), not only as an object ("Sounds
# good to me", "It gives me an escape").
_SPEAKER_SUBJECT = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|we'd|we'll|our)\b",
                              re.I)
# An attitude toward the listener or the talk, not a fact: "I'm sure you'll find it", "I hope
# you...", "I can't believe it", "I'm so glad we talked". What follows the frame is judged.
_ATTITUDE = re.compile(
    r"^(?:i\s*'?m\s+(?:so\s+|really\s+|very\s+)?(?:sure|glad|happy|sorry|excited|thrilled|"
    r"proud|grateful|thankful|inspired|impressed|amazed|touched|here)|"
    r"i\s+(?:really\s+|do\s+)?(?:hope|think|bet|guess|believe|wish|"
    r"appreciate|agree|understand|know|can't\s+believe|cannot\s+believe|can't\s+wait))\b"
    r"(?:\s+(?:that|of|for|to|about|how))?\s*", re.I)


# Chat drops the subject: "Planning a trip there next month.", "Still working on a dance
# studio.", "Excited to try this." are the speaker's own news, not commands.
_PARTICIPLE = re.compile(r"(?:[A-Za-z]{2,}(?:ing|ed)|just|still|finally|currently|recently|"
                         r"already|been|got|went|started|finished|sold|bought|left|quit|"
                         r"took|made|found|lost|won|met|began|paid|spent|drove|flew|"
                         r"broke|sent|gave|kept|ran|saw|wrote|had)$", re.I)


def is_request(sentence: str) -> bool:
    """Whether a sentence asks for something (a question, a request, an imperative) rather than
    stating a fact."""
    s = sentence.strip()
    if s.rstrip("\"')]\u201d\u2019").endswith("?") or bool(_REQUEST.match(s)) or \
            bool(_PLEASE.search(s)) or bool(_ASK_ME.search(s)):
        return True
    body = _OPENER_WORDS.sub("", s, count=1)
    if body != s and _REQUEST.match(body):
        return True  # "Okay, let's do that."
    words = ANY_WORD.findall(body.replace("\u2019", "'"))
    if len(words) >= 2 and words[0].lower() not in _SUBJECT_START and \
            not words[0][0].isdigit() and not _PARTICIPLE.match(words[0]) and \
            not words[0].lower().endswith("ly") and words[0].lower() not in _CUE_WORDS and \
            (words[1].lower() in _OBJECT_START or words[1][0].isdigit()) and \
            not _COPULA.search(body) and \
            not (words[0][0].isupper() and words[0][1:].islower() and words[1][0].isupper()):
        return True  # an imperative: "Convert 250 grams", "Write a haiku", "Find me..."
    return False


# A pet's or a person's introduction with their name: "She's a corgi called Biscuit".
_NAMED = re.compile(r"^(?:she|he|it|they)(?:'s|\s+is|\s+are|'re)\s+(?:an?|my|our)\s+[\w\s-]{2,30}?"
                    r"\b(?:called|named)\s+(?-i:[A-Z])", re.I)


# Someone the speaker knows, by name (or someone of theirs: "Marco's son"), and what they do or
# what changed: "Lou moved to Galway in June", "Tomasz goes to Elmwood Grammar", "Dave is at
# Waitrose now". The verb is one that states a fact about a person, so a capitalised opening
# word that is no name ("Dinner was great") files nothing.
_RELATION_WORDS = "|".join(sorted(RELATIONS, key=len, reverse=True))
_NAME_FACT = re.compile(
    rf"^(?-i:([A-Z][a-z]+))(?:(?:'s|\u2019s)\s+(?:{_RELATION_WORDS})\b)?"
    r"(?:\s+|'s\s+|\u2019s\s+)(?:just\s+|has\s+|had\s+|now\s+|recently\s+|finally\s+|still\s+)?"
    r"(?:lives|works|goes|studies|attends|teaches|trains|plays|drives|runs|owns|moved|turned|"
    r"started|left|retired|switched|changed|transferred|joined|quit|relocated|got\s+(?:married|"
    r"engaged|promoted|a\s+new)|(?:is|'s|\u2019s|was)\s+(?:now\s+)?(?:at|in|with|an?|\d|(?-i:[A-Z])\w*))\b",
    re.I)


def is_fact(sentence: str, names: frozenset[str] = frozenset()) -> bool:
    """Whether a sentence states a fact worth keeping: a declarative (not a request, question or
    greeting) whose subject is the speaker ("I'm vegan", "My daughter Lies is 7", "Last year
    we moved to Lyon"), or, without first person, one that carries a number or date ("The rent
    went up to 1,250 euros"). Not an attitude toward the listener ("I'm sure you'll find the
    right spot, John"), nor small talk about the conversation ("something awesome happened
    since we talked"). `names`: the participants' names (lower case), which are not content."""
    if is_request(sentence) or _GREETING.match(sentence):
        return False
    body = _OPENER_WORDS.sub("", sentence.strip(), count=1)
    words = [w for w in FACT_WORD.findall(body.replace("\u2019", "'"))
             if w.lower() not in names]
    content = [w for w in words if w.lower() not in FACT_STOPWORDS and not w[0].isdigit()]
    first = _SPEAKER_SUBJECT.search(body)
    lead = ANY_WORD.findall(body.replace("\u2019", "'"))[:1]
    if lead and _PARTICIPLE.match(lead[0]) and lead[0].lower() not in FACT_STOPWORDS and \
            lead[0].lower() not in _SUBJECT_START and len(content) >= 2 and \
            not re.search(r"\byou(?:r|'re|'ll)?\b", body, re.I):
        return True  # the speaker's own news with the subject dropped
    if first is not None:
        frame = _ATTITUDE.match(body)
        if frame is not None:
            rest = body[frame.end():]
            rest_content = [w for w in FACT_WORD.findall(rest) if w.lower() not in FACT_STOPWORDS
                            and w.lower() not in names]
            if not _FIRST_PERSON.search(rest) or len(rest_content) < 2 or \
                    re.search(r"\byou(?:r|'re|'ll|'d)?\b", rest, re.I):
                return False
        # The speaker is the subject: first person within the first words ("Last year I ...",
        # "My ...") or opening a clause ("..., I've got news"), not deep in a trailing clause
        # ("something awesome happened since we talked").
        before = body[:first.start()]
        if content and (len(ANY_WORD.findall(before)) <= 3 or
                        re.search(r"[,;:\u2013\u2014-]\s*$", before)):
            return True
    named = _NAME_FACT.match(body)
    if (_NAMED.match(body) or (named is not None and named.group(1).lower() not in
                               FACT_STOPWORDS and named.group(1).lower() not in _CALENDAR and
                               len(content) >= 3)) and \
            (not words or words[0].lower() not in names) and \
            not re.search(r"\byou(?:r|'re|'ll)?\b", body, re.I):
        return True  # "She's a corgi called Biscuit": someone of the speaker's, named
    # Not about the speaker: kept only with specifics, and not addressed to the listener. A
    # change announced with a day or month is one ("Her teacher switched her slot to Mondays").
    low = [w.lower() for w in words]
    has_value = any(ch.isdigit() for ch in body) or (
        any(w in _CUE_WORDS for w in low)
        and any(w in _CALENDAR or w.rstrip("s") in _CALENDAR for w in low))
    return has_value and len(content) >= 2 and not re.search(r"\byou(?:r|'re|'ll)?\b", body,
                                                             re.I)


# --- one copy of each fact -------------------------------------------------------------------

_CUE_WORDS = frozenset("correction actually moved changed change longer anymore instead "
                       "rescheduled postponed update updated now switched turns out wrong "
                       "earlier mistake scratch meant".split())
_CUE_WORDS = _CUE_WORDS | {w[:-2] for w in _CUE_WORDS if w.endswith("ed")}  # as stemmed

_CALENDAR = frozenset("""january february march april may june july august september october
    november december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday
    thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun""".split())
_COPULA = re.compile(r"\s(?:is|are|was|were|=)\s|:\s", re.I)


def _words(text: str) -> list[str]:
    return FACT_WORD.findall(text)


def sentence_score(sentence: str, names: frozenset[str] = frozenset()) -> float:
    """How fact-like a sentence is: rewards specifics (numbers, names, first person, events).
    `names` (lower case) are the participants': addressing someone ("Glad I could help, John")
    is not a fact about anyone, so their names count neither as content nor as names."""
    words = _words(sentence)
    # "I'm vegan." and "Luna turned 5." say a lot
    short = 2 if _FIRST_PERSON.match(sentence.strip()) or any(ch.isdigit() for ch in sentence) \
        else 4
    if len(words) < short or _GREETING.match(sentence):
        return 0.0
    if names:
        words = [w for w in words if w.lower() not in names]
    content = [w for w in words if w.lower() not in FACT_STOPWORDS]
    score = 0.15 * min(len(content), 8) / 8
    if _FIRST.search(sentence):
        score += 0.25
    if any(ch.isdigit() for ch in sentence):
        score += 0.3
    # Capitalised words past the first are names, places, titles.
    if any(w[0].isupper() and w.lower() not in FACT_STOPWORDS for w in words[1:]):
        score += 0.2
    if _PREF.search(sentence):
        score += 0.25
    if _EVENT.search(sentence):
        score += 0.1
    if sentence.rstrip().endswith("?"):
        score -= 0.35  # questions ask for facts; they rarely state them (relevance uses this)
    return max(0.0, min(score, 1.0))


def extract(
    messages: Sequence[Message],
    existing: Sequence[Record] = (),
    *,
    min_score: float = 0.2,
    max_per_message: int = 3,
    include_assistant: bool = False,
) -> dict[str, Any]:
    """The step output (schema-shaped dict) for one stretch of messages.

    `existing` are the namespace's records related to the stretch (`Memory.related`, what a
    model step is shown): a near-duplicate of one is not added again, and a correction of one
    updates it (see the module docstring)."""
    ops: list[dict[str, Any]] = []
    # Facts this step knows of: the related records, then what it writes.
    known = [_Fact(r.text, None, r.id) for r in sorted(existing, key=lambda r: r.id)]
    updates: dict[int, dict[str, Any]] = {}
    relevance: list[dict[str, Any]] = []
    turn_best: dict[int, float] = {}
    turn_of: dict[int, int] = {}
    current_turn = messages[0].seq if messages else 0
    names = frozenset(n for m in messages if m.name for n in m.name.lower().split())
    for m in messages:
        if m.role == "user":
            current_turn = m.seq
        turn_of[m.seq] = current_turn
        if m.role not in ("user",) and not (include_assistant and m.role == "assistant"):
            continue
        sentences = carry_holders(split_sentences(m.content))
        # What is kept is decided by the clause's shape (`is_fact`); the score only ranks
        # the facts of a long message, of which the best `max_per_message` are kept. A clause
        # is what a person would write down of a sentence (`clauses`): one fact, no filler.
        # An agreement is kept whatever its shape ("Final call: the kitchen gets painted sage
        # green.", "Let's go with Nordvik"), a need unless it is asked for ("Find me a recipe
        # without gluten"), and their clauses keep the sentence's kind (`held_kind`).
        units = [(c, asked_to_keep(s) or k == "decision"
                  or (k == "constraint" and not is_request(c)), k)
                 for s in sentences for k in (kind_of(s),) for c in clauses(s)]
        scored = sorted(((max(sentence_score(c, names), 0.3 if keep else 0.0), i, c, k)
                         for i, (c, keep, k) in enumerate(units)
                         if is_fact(c, names) or (keep and _words(c))),
                        key=lambda t: (-t[0], t[1]))
        kept = [t for t in scored[:max_per_message] if t[0] >= min_score]
        for _, _, s, k in sorted(kept, key=lambda t: t[1]):
            _file(s, m, ops, known, updates, held_kind(s, k))
        # Relevance is not fact-likeness: a user's question matters to the turns that follow,
        # so questions are scored without the penalty records get for them.
        best = max((sentence_score(s.rstrip("?") + ".") for s in sentences), default=0.0)
        turn_best[current_turn] = max(turn_best.get(current_turn, 0.0), best)
    for seq in sorted({turn_of[m.seq] for m in messages if m.role == "user"}):
        relevance.append({"seq": seq, "score": round(0.2 + 0.8 * turn_best.get(seq, 0.0), 3)})
    from .lines import episode_line  # the line's module reads this one's sentence tests

    return {
        "records": finish_ops(ops, existing),
        "episode": episode_line(messages, names),
        "relevance": relevance,
    }


_READINGS: ContextVar[dict[str, tuple[Any, ...]] | None] = ContextVar(
    "memlane_fact_readings", default=None)
"""The memo `_Fact` reads texts through, while `fact_readings` holds one (else none)."""


@contextmanager
def fact_readings(memo: dict[str, tuple[Any, ...]] | None) -> Iterator[None]:
    """Within it, on this thread, the steps' readings of texts as facts (`_Fact`: terms,
    holder, values, subject, head; a pure function of the text) are memoised in `memo`: the
    memory's `Caches.facts`, which a forget empties. A conversation's related records come
    back stretch after stretch, and reading each again was a quarter of the heuristic step.
    `None`: computed every time, as without it."""
    token = _READINGS.set(memo)
    try:
        yield
    finally:
        _READINGS.reset(token)


class _Fact:
    """A fact this step knows of: a related record (`rid`) or one this step writes (`op`), as
    the supersede rule reads it (`supersede.read_claim`)."""

    __slots__ = ("claim", "op", "rid")
    claim: Claim

    def __init__(self, text: str, op: dict[str, Any] | None, rid: int | None) -> None:
        self.op = op
        self.rid = rid
        self._read(text)

    def _read(self, text: str) -> None:
        memo = _READINGS.get()
        hit = memo.get(text) if memo is not None else None
        if hit is None:
            self.claim = read_claim(text)
            if memo is not None:
                remember(memo, text, (self.claim,))
        else:
            self.claim = hit[0]


def _file(
    sentence: str,
    m: Message,
    ops: list[dict[str, Any]],
    known: list[_Fact],
    updates: dict[int, dict[str, Any]],
    kind: str = "fact",
) -> None:
    """Add `sentence` (a clause said in `m`) as a record of `kind`, or fold it into the
    fact it repeats or supersedes: the supersede rule (`supersede.decide`) decides, over every
    fact this step knows of (the related records of the namespace, any thread, and what it
    wrote)."""
    clean = strip_lead(sentence)
    text = clean if len(clean) <= 400 else clean[:397] + "..."
    if m.name and m.role == "user":
        text = f"{m.name}: {text}"
    fact = _Fact(text, None, None)
    if not fact.claim.terms:
        return
    # Read as said: the lead-in the record drops ("Actually, correction: ...") is its cue.
    said = read_claim(f"{m.name}: {sentence}" if m.name and m.role == "user" else sentence)
    d = decide(said, [k.claim for k in known])
    if d.verdict == SAME:
        assert d.target is not None
        _point_at(known[d.target], m.seq, updates, ops)
        return
    if d.verdict == SUPERSEDES:
        assert d.target is not None
        _replace(known[d.target], text, m.seq, updates, ops)
        return
    if d.verdict == RELATED:
        assert d.target is not None
        rid = known[d.target].rid
        if rid is not None:  # a record held: the new one is marked newer than it
            text = mark_related(text, rid)
    op = {"op": "add", "text": text, "kind": kind, "source": [m.seq]}
    ops.append(op)
    fact.op = op
    known.append(fact)


def _point_at(entry: _Fact, seq: int, updates: dict[int, dict[str, Any]],
              ops: list[dict[str, Any]]) -> None:
    """A repeat: the fact it repeats gains this turn as a source; nothing new is written."""
    # Rewriting the record with its own text (None: filled in by `finish_ops`) is how a step
    # says "this stretch points here": the episode then lists the existing id (apply keeps ids
    # the step wrote).
    op = _op_for(entry, None, updates, ops)
    if seq not in op["source"]:
        op["source"].append(seq)


def _op_for(entry: _Fact, text: str | None, updates: dict[int, dict[str, Any]],
            ops: list[dict[str, Any]]) -> dict[str, Any]:
    """The operation of this step that writes `entry`'s fact: the add that wrote it, or the
    one update of an existing record (made on first use)."""
    op = entry.op
    if op is None:
        assert entry.rid is not None
        op = updates.get(entry.rid)
        if op is None:
            op = updates[entry.rid] = {"op": "update", "id": entry.rid, "text": text,
                                       "source": []}
            ops.append(op)
    return op


def _replace(entry: _Fact, text: str, seq: int, updates: dict[int, dict[str, Any]],
             ops: list[dict[str, Any]]) -> None:
    """A correction: the fact it corrects now reads as the corrected sentence (the store keeps
    the old text as an earlier version, dated)."""
    op = _op_for(entry, text, updates, ops)
    if op["op"] == "update" and op["text"] is not None and op["text"] != text and \
            entry.rid is not None:
        # Superseded twice in one stretch: each version is kept (the step's ops apply in
        # order), so the history misses none of them.
        op = {"op": "update", "id": entry.rid, "text": text, "source": []}
        updates[entry.rid] = op
        ops.append(op)
    if op["op"] == "add":
        # Said and corrected in this same stretch: the earlier text goes with the add as a
        # superseded version (the record keeps it as history), not lost.
        op.setdefault("supersedes", []).append({"text": op["text"], "source": op["source"]})
    op["text"] = text
    # A correction is stated in its own turn: its sources say when the new text was said.
    op["source"] = [seq]
    entry._read(text)
    entry.op = op


def finish_ops(ops: list[dict[str, Any]], existing: Sequence[Record]) -> list[dict[str, Any]]:
    """Updates that only add a source keep the record's own text."""
    text_of = {r.id: r.text for r in existing}
    for op in ops:
        if op["op"] == "update" and op["text"] is None:
            op["text"] = text_of[op["id"]]
    return ops
