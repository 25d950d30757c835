"""The offline memory step: a deterministic heuristic extractor, no model.

It is good enough for tests, demos and the offline evaluation, and it is named for what it is: it
keeps sentences that look like facts (first person, names, numbers, dates, preferences) verbatim,
writes the episode line from the stretch's most salient words and how it ended, and scores each
turn by how much it said. It produces the same JSON a model would, so its output goes through the
same validation and apply path.

Records worth pointing at:
- sentences are split by `split_sentences`, which knows abbreviations ("Dr. Okafor", "St. Mary's",
  "e.g."), initials and decimals ("3.5"), so a fact is not cut in two;
- questions and requests ("Tell me more about...", "Can you...", "Please...") are not facts;
- one copy of each fact per namespace: given the related records a model step is shown
  (`Memory.related`), a near-duplicate of one of them (or of a fact written earlier in the same
  step) writes no new record; the step updates the existing record with its own text and the new
  source turn, so the episode points at the existing id;
- a later statement about the same subject with a correction cue ("correction", "actually",
  "moved to", "changed", "no longer", ...) updates the related record instead of adding one
  beside it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..types import Message, Record
from .schema import EPISODE_MAX_WORDS

STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
    don't down during each few for from further had hadn't has hasn't have haven't having he he'd
    he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into
    is isn't it it's its itself let's me more most mustn't my myself no nor not of off on once only
    or other ought our ours ourselves out over own same shan't she she'd she'll she's should
    shouldn't so some such than that that's the their theirs them themselves then there there's
    these they they'd they'll they're they've this those through to too under until up very was
    wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while
    who who's whom why why's with won't would wouldn't you you'd you'll you're you've your yours
    yourself yourselves yes yeah ok okay oh hey hi hello thanks thank really just like also lot
    much well so get got go going know think thing things good great nice sure right yep wow cool
    awesome amazing glad totally definitely maybe actually pretty one way time still even always
    will would could should can might must shall may said say says tell told make made lol haha
    feel feeling love hope anything something everything else worth use need sort set recommend
    try best look away nicer stay without day days let let's talk talked ask asked want wanted
    help tips tip idea question around getting give take""".split()
)


_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]+|\d[\d:/.\-]*")
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


def is_request(sentence: str) -> bool:
    """Whether a sentence asks for something (a question, a request, an imperative) rather than
    stating a fact."""
    s = sentence.strip()
    return s.rstrip("\"')]\u201d\u2019").endswith("?") or bool(_REQUEST.match(s)) or \
        bool(_PLEASE.search(s))


# --- one copy of each fact -------------------------------------------------------------------

_CORRECTION = re.compile(
    r"\b(correction|actually|moved|changed|no\s+longer|not\s+anymore|any\s*more|instead|"
    r"rescheduled|postponed|updated?|now|switched|turns\s+out|was\s+wrong|wrong\s+earlier|"
    r"my\s+mistake|scratch\s+that|i\s+meant)\b", re.I)
_LEAD_IN = re.compile(
    r"^\W*(?:(?:oh|ah|um|so|well|ok|okay|sorry|wait|oops|also|and|but|quick\s+update|update"
    r"|actually|correction|to\s+correct\s+myself|i\s+mean|i\s+meant|my\s+mistake"
    r"|scratch\s+that|i\s+was\s+wrong(?:\s+(?:earlier|before))?)\b[\s,:;!.-]*)+",
    re.I)
_CUE_WORDS = frozenset("correction actually moved changed change longer anymore instead "
                       "rescheduled postponed update updated now switched turns out wrong "
                       "earlier mistake scratch meant".split())
_CUE_WORDS = _CUE_WORDS | {w[:-2] for w in _CUE_WORDS if w.endswith("ed")}  # as stemmed
DUPLICATE = 0.75
"""Term overlap (Jaccard) at or above which a sentence is a near-duplicate of a record."""

# Who or what a fact is about, when it is not the speaker: a relation ("my father", "my friend
# Boris") or the speaker's name ("Caroline: ..."). Two facts about different holders are never
# one fact: neither a repeat nor a correction of each other (whatever words they share).
_RELATIONS = {
    w: w for w in """mother father parents sister brother sibling siblings wife husband partner
    girlfriend boyfriend fiance fiancee son daughter kid kids child children baby friend friends
    cousin cousins aunt uncle niece nephew grandmother grandfather grandma grandpa grandparents
    boss manager colleague coworker roommate flatmate neighbor neighbour landlord teacher
    doctor dentist therapist dog cat puppy kitten pet""".split()
} | {"mom": "mother", "mum": "mother", "mommy": "mother", "dad": "father", "daddy": "father",
     "sis": "sister", "bro": "brother", "granny": "grandmother"}
_CALENDAR = frozenset("""january february march april may june july august september october
    november december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday
    thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun""".split())
_COPULA = re.compile(r"\s(?:is|are|was|were|=)\s|:\s", re.I)
_SPEAKER = re.compile(r"^([A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,3}): ")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\-]*")


def _holder(text: str) -> tuple[str, frozenset[str]]:
    """Who a fact is about beyond the speaker: (the speaker's name as prefixed on a record, the
    relations named with the name that follows each, e.g. {"friend boris"}). Dentist and
    doctor count only with "my" ("my dentist"), a relation, not "a dentist appointment"."""
    m = _SPEAKER.match(text)
    speaker = m.group(1).lower() if m else ""
    body = text[m.end():] if m else text
    words = _TOKEN.findall(body.replace("\u2019", "'"))
    out: set[str] = set()
    for i, w in enumerate(words):
        lw = w.lower()
        base = lw[:-2] if lw.endswith("'s") else lw
        rel = _RELATIONS.get(base) or _RELATIONS.get(base.rstrip("s"))
        if rel is None or (rel in ("doctor", "dentist", "teacher") and
                           (i == 0 or words[i - 1].lower() not in ("my", "our", "his", "her"))):
            continue
        name = ""
        nxt = words[i + 1:i + 3]
        if nxt and nxt[0].lower() in ("named", "called") and len(nxt) > 1:
            nxt = nxt[1:]
        if nxt and nxt[0][0].isupper() and nxt[0].lower() not in STOPWORDS and \
                nxt[0].lower() not in _CALENDAR:
            name = " " + nxt[0].lower()
        out.add(rel + name)
    return speaker, frozenset(out)


def _same_holder(a: tuple[str, frozenset[str]], b: tuple[str, frozenset[str]]) -> bool:
    """Whether two facts are about the same person or thing. A relation named without a name on
    one side ("my friend") and with one on the other ("my friend Anna") is the same holder."""
    if a[0] != b[0]:
        return False
    strip = {r.split(" ")[0] for r in a[1]}, {r.split(" ")[0] for r in b[1]}
    if strip[0] != strip[1]:
        return False
    named_a = {r for r in a[1] if " " in r}
    named_b = {r for r in b[1] if " " in r}
    return not (named_a and named_b and named_a != named_b)


def stem(w: str) -> str:
    """A few English suffixes off, enough that "painting" meets "paint" and "dogs" meets "dog"
    (shared with the evaluation's reader, so both compare terms alike)."""
    for suffix in ("ing", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


def fact_terms(text: str) -> frozenset[str]:
    """Content terms of a fact (lower-cased, stop-worded, lightly stemmed), for comparing facts."""
    out = set()
    for w in _WORD.findall(text.replace("\u2019", "'")):
        lw = w.lower().strip("'-.")
        if lw.endswith("'s"):
            lw = lw[:-2]
        if not lw or lw in STOPWORDS:
            continue
        out.add(stem(lw))
    return frozenset(out)


def _numbers(terms: frozenset[str]) -> frozenset[str]:
    return frozenset(t for t in terms if t[0].isdigit())


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _strip_lead_in(sentence: str) -> str:
    s = _LEAD_IN.sub("", sentence, count=1).strip()
    return (s[0].upper() + s[1:]) if s else sentence


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def sentence_score(sentence: str, names: frozenset[str] = frozenset()) -> float:
    """How fact-like a sentence is: rewards specifics (numbers, names, first person, events).
    `names` (lower case) are the participants': addressing someone ("Glad I could help, John")
    is not a fact about anyone, so their names count neither as content nor as names."""
    words = _words(sentence)
    if len(words) < 4 or _GREETING.match(sentence):
        return 0.0
    if names:
        words = [w for w in words if w.lower() not in names]
    content = [w for w in words if w.lower() not in STOPWORDS]
    score = 0.15 * min(len(content), 8) / 8
    if _FIRST.search(sentence):
        score += 0.25
    if any(ch.isdigit() for ch in sentence):
        score += 0.3
    # Capitalised words past the first are names, places, titles.
    if any(w[0].isupper() and w.lower() not in STOPWORDS for w in words[1:]):
        score += 0.2
    if _PREF.search(sentence):
        score += 0.25
    if _EVENT.search(sentence):
        score += 0.1
    if sentence.rstrip().endswith("?"):
        score -= 0.35  # questions ask for facts; they rarely state them (relevance uses this)
    return max(0.0, min(score, 1.0))


def _kind(sentence: str) -> str:
    if _PREF.search(sentence):
        return "preference"
    if _EVENT.search(sentence):
        return "event"
    return "fact"


def extract(
    messages: Sequence[Message],
    existing: Sequence[Record] = (),
    *,
    min_score: float = 0.35,
    max_per_message: int = 2,
    include_assistant: bool = False,
) -> dict[str, Any]:
    """The step output (schema-shaped dict) for one stretch of messages.

    `existing` are the namespace's records related to the stretch (`Memory.related`, what a
    model step is shown): a near-duplicate of one is not added again, and a correction of one
    updates it (see the module docstring)."""
    ops: list[dict[str, Any]] = []
    # Facts this step knows of: the related records, then what it writes.
    known = [_Fact(r.text, None, r.id) for r in existing]
    updates: dict[int, dict[str, Any]] = {}
    relevance: list[dict[str, Any]] = []
    keywords: Counter[str] = Counter()
    display: dict[str, str] = {}
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
        sentences = split_sentences(m.content)
        scored = sorted(((sentence_score(s, names), i, s) for i, s in enumerate(sentences)
                         if not is_request(s)),
                        key=lambda t: (-t[0], t[1]))
        kept = [t for t in scored[:max_per_message] if t[0] >= min_score]
        for _, _, s in sorted(kept, key=lambda t: t[1]):
            _file(s, m, ops, known, updates)
        # Relevance is not fact-likeness: a user's question matters to the turns that follow,
        # so questions are scored without the penalty records get for them.
        best = max((sentence_score(s.rstrip("?") + ".") for s in sentences), default=0.0)
        turn_best[current_turn] = max(turn_best.get(current_turn, 0.0), best)
        for w in _words(m.content):
            lw = w.lower()
            if lw not in STOPWORDS and len(lw) > 2 and not lw[0].isdigit():
                keywords[lw] += 1
                # Keep the capitalised spelling if one was seen (names read better).
                if w[0].isupper() or lw not in display:
                    display[lw] = w
    for seq in sorted({turn_of[m.seq] for m in messages if m.role == "user"}):
        relevance.append({"seq": seq, "score": round(0.2 + 0.8 * turn_best.get(seq, 0.0), 3)})
    return {
        "records": finish_ops(ops, existing),
        "episode": episode_line(messages, keywords, display, skip=names),
        "relevance": relevance,
    }


class _Fact:
    """A fact this step knows of: a related record (`rid`) or one this step writes (`op`)."""

    __slots__ = ("terms", "op", "rid", "holder", "subject", "values", "head")

    def __init__(self, text: str, op: dict[str, Any] | None, rid: int | None) -> None:
        self.op = op
        self.rid = rid
        self._read(text)

    def _read(self, text: str) -> None:
        self.terms = fact_terms(text)
        self.holder = _holder(text)
        # Values: what a new statement of the fact changes (numbers, dates, times, and names
        # other than the holder's: "lives in Utrecht" -> "Amsterdam"). Subject: the rest, less
        # cue words and the holder's own words (equal on both sides of any comparison).
        held = {w for r in self.holder[1] for w in r.split(" ")} | set(self.holder[0].split())
        m = _SPEAKER.match(text)
        body = text[m.end():] if m else text
        names = {stem(w.lower()) for w in _TOKEN.findall(body)[1:]
                 if w[0].isupper() and w.lower() not in STOPWORDS}
        self.values = frozenset(t for t in self.terms
                                if t[0].isdigit() or t in _CALENDAR or t in names) - held
        self.subject = frozenset(t for t in self.terms if t not in _CUE_WORDS
                                 and t not in self.values and t not in held
                                 and _RELATIONS.get(t) is None)
        # What comes before the verb "is" (or a colon) names the thing; a number there is part
        # of its name ("locker 23 is 4423" is not "locker 5 is 4405"), not its value.
        cut = _COPULA.search(body)
        self.head = fact_terms(body[:cut.start()]) - _CUE_WORDS if cut else None


def _file(
    sentence: str,
    m: Message,
    ops: list[dict[str, Any]],
    known: list[_Fact],
    updates: dict[int, dict[str, Any]],
) -> None:
    """Add `sentence` (said in `m`) as a record, or fold it into the fact it repeats or
    supersedes. Only facts about the same holder (`_holder`) are compared at all."""
    correction = bool(_CORRECTION.search(sentence))
    clean = _strip_lead_in(sentence) if correction else sentence
    text = clean if len(clean) <= 400 else clean[:397] + "..."
    if m.name and m.role == "user":
        text = f"{m.name}: {text}"
    fact = _Fact(text, None, None)
    terms = fact.terms
    if not terms:
        return
    same = [k for k in known if _same_holder(fact.holder, k.holder)]
    # The fact it repeats: the closest known one by term overlap.
    best, best_j = None, 0.0
    for entry in same:
        j = _jaccard(terms, entry.terms)
        if j > best_j:
            best, best_j = entry, j
    # Numbers and dates are what tell two otherwise alike facts apart ("turns 30" is not "turns
    # 34"): a repeat says the same ones.
    if best is not None and _numbers(terms) == _numbers(best.terms) and \
            (best_j >= DUPLICATE or (len(terms) >= 3 and terms <= best.terms)):
        _point_at(best, m.seq, updates, ops)
        return
    target = _superseded(fact, same, correction)
    if target is not None:
        _replace(target, text, fact, m.seq, known, updates, ops)
        return
    op = {"op": "add", "text": text, "kind": _kind(clean), "source": [m.seq]}
    ops.append(op)
    fact.op = op
    known.append(fact)


def _superseded(fact: _Fact, same: list[_Fact], correction: bool) -> _Fact | None:
    """The known fact (about the same holder) that `fact` replaces, or None.

    With a correction cue ("actually", "moved", "now", "I was wrong", ...): the fact sharing the
    most of its subject (its terms that are not cue words, values or the holder), at least half
    of that subject and, when only one term is shared, a value on both sides ("My start date
    moved to 1 October" replaces "...starts on 15 September"). Without a cue only a new value
    for exactly the same subject ("My locker code is 4017" after "...is 4000") replaces.
    Anything less certain stays a second, dated record rather than a wrong overwrite."""
    mine = fact.subject
    cues = {t for t in fact.terms if t in _CUE_WORDS}
    best, best_n = None, 0
    for entry in same:
        theirs = entry.subject
        if fact.head is not None and entry.head is not None and \
                _numbers(fact.head) != _numbers(entry.head):
            continue  # numbered things: "locker 23" and "locker 5" are two lockers
        if correction:
            # Cue verbs count as shared subject ("moved to Berlin" after "moved to Lisbon").
            n = len(mine & theirs) + len(cues & entry.terms)
            ok = n >= 1 and 2 * n >= len(mine) and (
                n >= 2 or bool(fact.values and entry.values))
        else:
            n = len(mine)
            ok = n >= 2 and mine == theirs and bool(fact.values) and \
                fact.values != entry.values and fact.head is not None and \
                bool(fact.head) and fact.head == entry.head
        if ok and n >= best_n:  # ties go to the newest fact
            best, best_n = entry, n
    return best


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


def _replace(entry: _Fact, text: str, fact: _Fact, seq: int, known: list[_Fact],
             updates: dict[int, dict[str, Any]], ops: list[dict[str, Any]]) -> None:
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
    op["text"] = text
    # A correction is stated in its own turn: its sources say when the new text was said.
    op["source"] = [seq] if op["op"] == "update" else [*op["source"], seq]
    entry._read(text)
    entry.op = op


def finish_ops(ops: list[dict[str, Any]], existing: Sequence[Record]) -> list[dict[str, Any]]:
    """Updates that only add a source keep the record's own text."""
    text_of = {r.id: r.text for r in existing}
    for op in ops:
        if op["op"] == "update" and op["text"] is None:
            op["text"] = text_of[op["id"]]
    return ops


_CLAUSE = re.compile(r"[,;:\u2014]\s")


def _ending(text: str, room: int) -> str:
    """The words of `text` that fit in `room` words: the whole sentence, else up to its last
    clause break that fits, else whole words with an ellipsis; never part of a word."""
    words = text.split()
    if len(words) <= room:
        return " ".join(words).rstrip(".!?,;:")
    cut = " ".join(words[:room])
    breaks = [mm.start() for mm in _CLAUSE.finditer(cut)]
    if breaks and len(cut[: breaks[-1]].split()) >= 4:
        return cut[: breaks[-1]].rstrip(".!?,;:")
    return " ".join(words[: max(1, room - 1)]).rstrip(".!?,;:") + "\u2026"


def episode_line(
    messages: Sequence[Message], keywords: Counter[str], display: dict[str, str],
    skip: frozenset[str] | set[str] = frozenset(),
) -> str:
    """One sentence of at most `EPISODE_MAX_WORDS` words: "Talked about A, B and C; it ended with
    NAME: <the last user turn's most fact-like sentence>." (`skip`: words not to list as topics,
    the speakers' names)."""
    skip = set(skip) | _CUE_WORDS
    top = [display[w] for w, _ in keywords.most_common(3 + len(skip)) if w not in skip][:3]
    if not top:
        topics = "small talk"
    elif len(top) == 1:
        topics = top[0]
    else:
        topics = ", ".join(top[:-1]) + " and " + top[-1]
    head = f"Talked about {topics}"
    # Where it ended: the last user turn that said something (not a bare "Thanks!").
    users = [m for m in messages if m.role == "user"]
    last_user = next((m for m in reversed(users)
                      if any(len(_words(x)) >= 3 for x in split_sentences(m.content))),
                     users[-1] if users else None)
    if last_user is None:
        return head + "."
    sentences = [x for x in split_sentences(last_user.content) if _words(x)]
    if not sentences:
        return head + "."
    said = max(sentences, key=lambda x: (sentence_score(x), -sentences.index(x)))
    who = last_user.name or "the user"
    lead = f"; it ended with {who}:"
    room = EPISODE_MAX_WORDS - len(head.split()) - len(lead.split())
    if room < 3:
        return " ".join(head.split()[:EPISODE_MAX_WORDS - 1]) + "."
    ending = _ending(said, room)
    # A question stays a question; anything else ends the line with a period.
    if ending.endswith("\u2026"):
        return f"{head}{lead} {ending}"
    return f"{head}{lead} {ending}" + ("?" if said.rstrip().endswith("?") else ".")
