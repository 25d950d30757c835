"""Forgetting a fact from what the model sees: redact it from the conversation it came from.

Erasing a record leaves the sentence the user said in the message log, where working memory and
short-term turns replay it verbatim, and leaves its words in the buffer line that pointed at it.
`plan_redaction` works out, as a pure function of the record and the rows, what to change:

- in the record's **source messages**, every sentence that states the fact: it contains the
  record's text, or one of its specific tokens (anything with a digit, such as "X9981234" or
  "TP 1353"'s "1353"), or most of its content words;
- in the **other messages of those threads**, of every role (an assistant that repeated the
  number or the name back), its specific tokens and its **names** (`names`: the names, places
  and codes it states that no other current record holds), word by word: "Zacharias and Moss,
  lovely names!" keeps "Moss" when only Zacharias is forgotten (a sentence that still states the
  fact, a word of it left, or that says nothing else goes whole);
- in the **buffer lines** that pointed at the record, cover a redacted message or hold one of its
  names, the parts naming it.

Precision: a name is a capitalised word inside a sentence or a word with a digit, never a
stopword, a title, a month or a day, and a word another current record holds is not one of the
fact's names (forgetting "the kitten is called Crumbworth" takes "Crumbworth" out of every
message of the thread, but not "kitten": redacting a common word would destroy other facts).

User words never become regular expressions here: Python's `re` module caches every pattern it
compiles, and a pattern holding a forgotten value would keep it in the process.

A redacted sentence becomes `[forgotten]`, so the turn still reads as a turn and the model can
see that something was removed on request. Sentence-level, not message-level, so the rest of what
the user said in that message stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from dataclasses import dataclass, field

from .text import CODE_WORD, FACT_STOPWORDS, QUERY_STOPWORDS, listing, stem
from .types import Episode, Message, Record

MARK = "[forgotten]"
_SENTENCE = re.compile(r"[^.!?\n]*[.!?]+|[^.!?\n]+|\n+")  # covers every character
_NAME_PREFIX = re.compile(r"^[^:\s]{1,40}:\s+")  # the heuristic writes "Ravi: My passport ..."


@dataclass(frozen=True)
class Redaction:
    """What forgetting a record changed in the conversation, beyond the record itself."""

    messages: dict[int, str] = field(default_factory=dict)
    """New text by message id, for the messages that had a sentence redacted."""
    sentences: int = 0
    """How many sentences were replaced by `[forgotten]`."""
    episodes: tuple[Episode, ...] = ()
    """Buffer lines rewritten without the record's words."""
    words: tuple[str, ...] = ()
    """The words taken out of those lines."""


@dataclass(frozen=True)
class Forgotten:
    """The outcome of `Memory.forget_record`: what was erased and what was redacted."""

    record_id: int
    """The record asked for."""
    found: bool
    """False when there was no such record (then nothing changed)."""
    text: str = ""
    """The record's text as it was (for the caller's report; it is no longer stored)."""
    redacted_messages: tuple[tuple[str, int], ...] = ()
    """`(thread_id, seq)` of each message whose text was redacted."""
    redacted_sentences: int = 0
    """How many sentences were replaced by `[forgotten]`."""
    redacted_lines: tuple[tuple[str, int, int], ...] = ()
    """`(thread_id, start, end)` of each buffer line rewritten."""
    removed_words: tuple[str, ...] = ()
    """Words taken out of those lines."""

    def summary(self) -> str:
        """One line for people: what went, what was redacted."""
        if not self.found:
            return f"no record #{self.record_id}"
        out = f"erased record #{self.record_id}"
        if self.redacted_messages:
            where = ", ".join(f"{t}#{s}" for t, s in self.redacted_messages)
            n = self.redacted_sentences
            out += (f"; redacted {n} sentence{'' if n == 1 else 's'} in "
                    f"{len(self.redacted_messages)} message"
                    f"{'' if len(self.redacted_messages) == 1 else 's'} ({where})")
        if self.redacted_lines:
            n = len(self.redacted_lines)
            out += (f"; took {', '.join(repr(w) for w in self.removed_words)} out of {n} "
                    f"buffer line{'' if n == 1 else 's'}")
        return out


def _words(text: str) -> list[str]:
    return CODE_WORD.findall(text)


_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
# The values a fact states, as phrases: a date ("15 September", "May 12"), a time or decimal
# ("9:30", "4.25"), or any token with a digit of 3+ characters (a code, "X9981234", "1353").
_VALUE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
    r"|\b\d+(?:[.:,]\d+)+\b|\b[A-Za-z]*\d[A-Za-z0-9\-]{2,}\b"
    # A code ending in a digit starts where its token starts (a lookbehind, not \b, which let
    # each hyphen of "a-a-a-..." start a new try: quadratic on a hostile message).
    r"|(?<![A-Za-z0-9\-])[A-Za-z0-9\-]{2,}\d\b", re.I)


def values(text: str) -> set[str]:
    """The value phrases of a fact (lower case, spaces normalised), that identify it wherever
    they appear: dates with their month, times, decimals, codes and long numbers."""
    return {" ".join(m.group(0).lower().split()) for m in _VALUE.finditer(text)}


def fact_terms(text: str) -> tuple[set[str], set[str]]:
    """(content words, specific tokens) of a record's text, lowercased. Specific tokens hold a
    digit: numbers, codes, dates; they identify the fact wherever they appear."""
    text = _NAME_PREFIX.sub("", text.strip())
    words = [w.lower() for w in _words(text)]
    specific = {w for w in words if any(c.isdigit() for c in w) and len(w) >= 3}
    content = {w for w in words if w not in FACT_STOPWORDS and len(w) > 2}
    return content, specific


@dataclass(frozen=True)
class _Statement:
    """One text a sentence may state, its terms worked out once (not once per message)."""

    core: str
    """The text less a name prefix, lower case, spaces folded: a sentence holding it states it."""
    content: frozenset[str]
    specific: frozenset[str]


def _statement(text: str) -> _Statement:
    content, specific = fact_terms(text)
    return _Statement(" ".join(_NAME_PREFIX.sub("", text.strip()).lower().split()),
                      frozenset(content), frozenset(specific))


@dataclass(frozen=True)
class _Fact:
    """The fact being forgotten (a record and its earlier versions), worked out once."""

    versions: tuple[_Statement, ...]
    values: frozenset[str]
    specific: frozenset[str]
    """Every version's specific tokens."""
    content: frozenset[str]
    """Every version's content words."""
    stems: frozenset[str]
    """Their stems (a buffer line says "dentists" for "dentist")."""
    names: frozenset[str] = frozenset()
    """Its names, places and codes that no other current record holds (`names`): a sentence
    or a line part holding one names the fact, whoever said it."""


def _fact(fact: str | Sequence[str], names: Set[str] = frozenset()) -> _Fact:
    texts = [fact] if isinstance(fact, str) else list(fact)
    versions = tuple(_statement(t) for t in texts)
    content = frozenset[str]().union(*(v.content for v in versions))
    return _Fact(versions, frozenset[str]().union(*(values(t) for t in texts)),
                 frozenset[str]().union(*(v.specific for v in versions)), content,
                 frozenset(stem(w) for w in content), frozenset(names))


_TITLES = frozenset("mr mrs ms miss mx dr prof sir dame st mt lord lady".split())
_CALENDAR = frozenset("""january february march april may june july august september october
    november december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday
    thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun""".split())


def names(texts: Sequence[str], said: Sequence[str] = ()) -> set[str]:
    """The names, places and codes a fact's `texts` state (lower case): each word with a digit
    (3+ characters) and each capitalised word that does not open its sentence, less stopwords,
    titles ("Dr"), months and days (a date is one of the fact's `values`). A capitalised word
    that opens its sentence may be any word ("Yesterday"): it is taken only when `said` (the
    messages the fact came from) has it capitalised inside a sentence ("Crumbworth is the
    user's cat." from "My cat is called Crumbworth."). The caller drops those another current
    record holds (`Forgetting.forget_record`)."""
    inner, opening = _capitalised(texts)
    return inner | (opening & _capitalised(said)[0])


def _capitalised(texts: Sequence[str]) -> tuple[set[str], set[str]]:
    """(names and codes inside sentences, capitalised words opening one) of `texts`."""
    inner: set[str] = set()
    opening: set[str] = set()
    for text in texts:
        text = _NAME_PREFIX.sub("", text.strip())
        prev, prev_end = "", 0
        for m in CODE_WORD.finditer(text):
            w, lw = m.group(0), _bare(m.group(0))
            # A sentence opens at the start and after . ! ? (not after "Dr." or an initial).
            opens = not prev or (any(c in text[prev_end:m.start()] for c in ".!?\n") and
                                 prev not in _TITLES and len(prev) > 1)
            prev, prev_end = lw, m.end()
            if (len(lw) < 3 or lw in FACT_STOPWORDS or lw in QUERY_STOPWORDS
                    or lw in _TITLES or lw in _CALENDAR):
                continue
            if any(c.isdigit() for c in lw) or (not opens and w[0].isupper()):
                inner.add(lw)
            elif w[0].isupper():
                opening.add(lw)
    return inner, opening


def words_of(text: str) -> set[str]:
    """The words of `text` as names are compared (lower case, no possessive 's)."""
    return {_bare(w) for w in _words(text)}


def _spans(text: str, phrase: str) -> list[tuple[int, int]]:
    """Where `phrase` (lower case, single spaces) stands in `text` as whole words, any case and
    any run of white space between its words: `(start, end)` offsets into `text`. A plain
    scan, not a pattern built from the phrase (see the module's note on `re`'s cache)."""
    runs = [(m.start(), m.end()) for m in _RUN.finditer(text)]
    norm, where = "", []  # the runs joined by one space; each character's offset in `text`
    for a, b in runs:
        if norm:
            norm += " "
            where.append(a)
        low = text[a:b].lower()
        norm += low
        # A character whose lower case is longer ("İ") shifts the rest: map the run's ends.
        where.extend(range(a, b) if len(low) == b - a else [a] * (len(low) - 1) + [b - 1])
    out: list[tuple[int, int]] = []
    i = norm.find(phrase)
    while i >= 0 and phrase:
        j = i + len(phrase)
        if not _wordy(norm[i - 1: i]) and not _wordy(norm[j: j + 1]):
            out.append((where[i], where[j - 1] + 1))
        i = norm.find(phrase, i + 1)
    return out


_RUN = re.compile(r"\S+")


def _wordy(c: str) -> bool:
    return bool(c) and (c.isalnum() or c == "_")


def _bare(word: str) -> str:
    """A word as a name is compared: lower case, without a possessive 's."""
    w = word.lower()
    return w[:-2] if w.endswith("'s") else w


def _has_value(sentence: str, vals: Set[str], specific: Set[str]) -> bool:
    return bool(words_of(sentence) & specific) or any(_spans(sentence, v) for v in vals)


def _states(sentence: str, st: _Statement, source: bool, vals: Set[str] = frozenset()) -> bool:
    if _has_value(sentence, vals, st.specific):
        return True
    if not source:
        return False
    if st.core and st.core in " ".join(sentence.lower().split()):
        return True
    words = {w.lower() for w in _words(sentence)}
    return len(st.content) >= 2 and len(words & st.content) >= max(2, 0.6 * len(st.content))


def redact_text(text: str, fact: str | Sequence[str], *, source: bool,
                keep: Sequence[str] = (), keep_values: Set[str] = frozenset(),
                names: Set[str] = frozenset()) -> tuple[str, int]:
    """`text` with each sentence that states `fact` replaced by `[forgotten]` (runs of them
    merged), and how many were replaced. `fact`: its text, or every version of it (a record
    that was superseded: each version is forgotten). `source`: the message the fact came from
    (every rule applies); otherwise only its values count. `keep`: texts of surviving records
    that came from this message: a sentence stating one of them stays (only the forgotten
    fact's values are taken out of it), so forgetting one fact never redacts another's.
    `keep_values`: values of the surviving records; a sentence that holds one as well ("1
    October then, not 15 September") loses only the forgotten value. `names`: the fact's
    names (see `names`); a sentence holding one is redacted in any message."""
    return _redact_text(text, _fact(fact, names), source, [_statement(k) for k in keep],
                        keep_values)


def _redact_text(text: str, f: _Fact, source: bool, keep: Sequence[_Statement],
                 keep_values: Set[str]) -> tuple[str, int]:
    out: list[str] = []
    n = 0
    for m in _SENTENCE.finditer(text):
        s = m.group(0)
        hit = bool(s.strip()) and (
            any(_states(s, v, source, f.values) for v in f.versions)
            or bool(f.names and words_of(s) & f.names))
        if hit and (any(_states(s, k, True) for k in keep) or
                    _has_value(s, keep_values, set())):
            # Another record's statement: keep it, less the forgotten values and names.
            cut = _cut_values(s, f.values, f.specific | f.names)
            if cut != s:
                n += 1
            out.append(cut)
            continue
        if hit and not source:
            # Another message (the assistant's echo "Zacharias and Moss, lovely names!"): it
            # only repeats the fact's names and values, so only they go; the rest of what it
            # says may be about something else the memory holds ("Moss").
            cut = _cut_values(s, f.values, f.specific | f.names)
            if cut != s and _says_more(cut, f):
                n += 1
                out.append(cut)
                continue
        if hit:
            n += 1
            lead = s[: len(s) - len(s.lstrip())]
            if out and out[-1].rstrip().endswith(MARK):
                continue
            out.append(lead + MARK)
        else:
            out.append(s)
    return ("".join(out) if n else text), n


def _says_more(sentence: str, f: _Fact) -> bool:
    """Whether a sentence with the fact's values cut out still says something else: two
    content words besides the marks ("[forgotten] sounds delicious!"), none of them the fact's
    own ("Your code is [forgotten]" still states the fact; "Noted [forgotten]." says nothing)."""
    words = [w.lower() for w in _words(sentence.replace(MARK, " "))
             if w.lower() not in FACT_STOPWORDS]
    return len(words) >= 2 and not any(stem(w) in f.stems or w in f.content for w in words)


def _cut_values(sentence: str, vals: Set[str], specific: Set[str]) -> str:
    """`sentence` with each of `vals` and `specific` (codes, names) replaced by `[forgotten]`."""
    out = sentence
    for v in sorted(vals | specific, key=len, reverse=True):
        for a, b in reversed(_spans(out, v)):
            out = out[:a] + MARK + out[b:]
        for w in reversed(list(CODE_WORD.finditer(out))):  # "Zqvorblax's": the word with its 's
            if _bare(w.group(0)) == v:
                out = out[:w.start()] + MARK + out[w.end():]
    return out


_PART = re.compile(r";\s*")
_LIST = re.compile(r"^(.*?\b(?:about|shared|discussed|gave|mentioned|covered))\s+(.+)$", re.I)


def redact_line(line: str, fact: str | Sequence[str], names: Set[str] = frozenset()
                ) -> tuple[str, list[str]]:
    """A buffer line without the parts that name the forgotten fact, and the words taken.

    A line is one sentence of parts joined by ";" ("The user shared their start date; it ended
    with thanks."). A part that holds one of the fact's values, or two of its content words,
    is dropped whole, and what stays is still a sentence ("It ended with thanks."): words are
    never cut out of a part (that left "Also, my is."). A part holding one of the fact's
    `names` goes too. Nothing left: `[forgotten]`."""
    return _redact_line(line, _fact(fact, names))


def _redact_line(line: str, f: _Fact) -> tuple[str, list[str]]:
    content, specific, vals, stems = f.content, f.specific | f.names, f.values, f.stems
    named = content | specific
    end = line.rstrip()[-1:] if line.rstrip()[-1:] in ".!?" else "."
    parts = [p for p in _PART.split(line.rstrip().rstrip(".!?")) if p.strip()]
    kept: list[str] = []
    taken: list[str] = []

    def names_it(text: str, least: int) -> bool:
        hits = {stem(w.lower()) for w in _words(text)} & stems
        return _has_value(text, vals, specific) or len(hits) >= least

    for p in parts:
        if not names_it(p, 2):
            kept.append(p.strip())
            continue
        taken += [w for w in _words(p) if _bare(w) in named or
                  stem(w.lower()) in stems] or [p.strip()]
        # A list ("shared their start date, their work and health"): only its items that name
        # the fact go, and the rest is listed again.
        m = _LIST.match(p.strip())
        if m:
            items = [i for i in re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group(2)) if i]
            rest = [i for i in items if not names_it(i, 1)]
            if rest and len(rest) < len(items):
                kept.append(f"{m.group(1)} {listing(rest)}")
    if not taken:
        return line, []
    if not kept:
        return MARK, list(dict.fromkeys(taken))
    new = "; ".join(kept)
    return new[0].upper() + new[1:] + end, list(dict.fromkeys(taken))


def plan_redaction(record: Record, messages: Sequence[Message],
                   episodes: Sequence[Episode], *, earlier: Sequence[str] = (),
                   keep: Sequence[Record] = (), names: Set[str] = frozenset()) -> Redaction:
    """What to rewrite so that `record`'s fact leaves the conversation: `messages` are those of
    the threads of its sources, `episodes` their buffer lines. `earlier`: the texts of its
    superseded versions (forgotten with it). `keep`: the other records that came from these
    messages; their statements stay. `names`: the fact's names no other current record holds
    (`names`), redacted wherever they stand in these messages and lines."""
    sources = set(record.source_ids)
    fact = _fact(list(dict.fromkeys([record.text, *earlier])), names)  # once, for every message
    keep_by_msg: dict[int, list[_Statement]] = {}
    for k in keep:
        if k.id == record.id:
            continue
        st = _statement(k.text)
        for mid in k.source_ids:
            keep_by_msg.setdefault(mid, []).append(st)
    keep_values = {v for k in keep if k.id != record.id for v in values(k.text)} - fact.values
    new_text: dict[int, str] = {}
    sentences = 0
    redacted_seqs: dict[str, set[int]] = {}
    for m in messages:
        text, n = _redact_text(m.content, fact, m.id in sources, keep_by_msg.get(m.id, ()),
                               keep_values)
        if n:
            new_text[m.id] = text
            sentences += n
            redacted_seqs.setdefault(m.thread_id, set()).add(m.seq)
    lines: list[Episode] = []
    taken: list[str] = []
    for e in episodes:
        covers = any(e.start <= s <= e.end for s in redacted_seqs.get(e.thread_id, ()))
        if (record.id not in e.record_ids and not covers
                and not words_of(e.line) & fact.names):
            continue
        line, words = _redact_line(e.line, fact)
        if words:
            lines.append(Episode(thread_id=e.thread_id, start=e.start, end=e.end, line=line,
                                 record_ids=tuple(i for i in e.record_ids if i != record.id),
                                 date=e.date, suspect=e.suspect))
            taken += words
    return Redaction(messages=new_text, sentences=sentences, episodes=tuple(lines),
                     words=tuple(dict.fromkeys(taken)))
