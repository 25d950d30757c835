"""Forgetting a fact from what the model sees: redact it from the conversation it came from.

Erasing a record leaves the sentence the user said in the message log, where working memory and
short-term turns replay it verbatim, and leaves its words in the buffer line that pointed at it.
`plan_redaction` works out, as a pure function of the record and the rows, what to change:

- in the record's **source messages**, every sentence that states the fact: it contains the
  record's text, or one of its specific tokens (anything with a digit, such as "X9981234" or
  "TP 1353"'s "1353"), or most of its content words;
- in the **other messages of those threads** (an assistant that repeated the number back), the
  sentences holding one of its specific tokens;
- in the **buffer lines** that pointed at the record or cover a redacted message, the record's
  content words.

A redacted sentence becomes `[forgotten]`, so the turn still reads as a turn and the model can
see that something was removed on request. Sentence-level, not message-level, so the rest of what
the user said in that message stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .step.heuristic import STOPWORDS
from .types import Episode, Message, Record

MARK = "[forgotten]"
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)|\n+")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")
_WORD_COMMA = re.compile(r"([A-Za-z0-9][A-Za-z0-9'\-]*)(\s*,)?")
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
    return _WORD.findall(text)


def fact_terms(text: str) -> tuple[set[str], set[str]]:
    """(content words, specific tokens) of a record's text, lowercased. Specific tokens hold a
    digit: numbers, codes, dates; they identify the fact wherever they appear."""
    text = _NAME_PREFIX.sub("", text.strip())
    words = [w.lower() for w in _words(text)]
    specific = {w for w in words if any(c.isdigit() for c in w) and len(w) >= 3}
    content = {w for w in words if w not in STOPWORDS and len(w) > 2}
    return content, specific


def _states(sentence: str, fact: str, content: set[str], specific: set[str],
            source: bool) -> bool:
    words = {w.lower() for w in _words(sentence)}
    if words & specific:
        return True
    if not source:
        return False
    core = " ".join(_NAME_PREFIX.sub("", fact.strip()).lower().split())
    if core and core in " ".join(sentence.lower().split()):
        return True
    return len(content) >= 2 and len(words & content) >= max(2, 0.6 * len(content))


def redact_text(text: str, fact: str, *, source: bool) -> tuple[str, int]:
    """`text` with each sentence that states `fact` replaced by `[forgotten]` (runs of them
    merged), and how many were replaced. `source`: the message the fact came from (every rule
    applies); otherwise only its specific tokens count."""
    content, specific = fact_terms(fact)
    out: list[str] = []
    n = 0
    for m in _SENTENCE.finditer(text):
        s = m.group(0)
        if s.strip() and _states(s, fact, content, specific, source):
            n += 1
            lead = s[: len(s) - len(s.lstrip())]
            if out and out[-1].rstrip().endswith(MARK):
                continue
            out.append(lead + MARK)
        else:
            out.append(s)
    return ("".join(out) if n else text), n


def redact_line(line: str, fact: str) -> tuple[str, list[str]]:
    """A buffer line without the record's content words and specific tokens; the words taken."""
    content, specific = fact_terms(fact)
    drop = content | specific
    taken: list[str] = []

    def repl(m: re.Match[str]) -> str:
        w = m.group(1)
        if w.lower() in drop:
            taken.append(w)
            return ""  # with the comma after it: "passport, number, Oslo" -> "Oslo"
        return m.group(0)

    new = _WORD_COMMA.sub(repl, line)
    if not taken:
        return line, []
    # Tidy what the removed words leave: ", ," and "about ," and doubled spaces.
    new = re.sub(r"(\s*,\s*)+,", ",", new)
    new = re.sub(r"\s+([,;:.])", r"\1", new)
    new = re.sub(r"([,;:])\s*([,;:])", r"\2", new)
    new = re.sub(r"\s{2,}", " ", new).strip(" ,;")
    return new or MARK, list(dict.fromkeys(taken))


def plan_redaction(record: Record, messages: Sequence[Message],
                   episodes: Sequence[Episode]) -> Redaction:
    """What to rewrite so that `record`'s fact leaves the conversation: `messages` are those of
    the threads of its sources, `episodes` their buffer lines."""
    sources = set(record.source_ids)
    new_text: dict[int, str] = {}
    sentences = 0
    redacted_seqs: dict[str, set[int]] = {}
    for m in messages:
        text, n = redact_text(m.content, record.text, source=m.id in sources)
        if n:
            new_text[m.id] = text
            sentences += n
            redacted_seqs.setdefault(m.thread_id, set()).add(m.seq)
    lines: list[Episode] = []
    taken: list[str] = []
    for e in episodes:
        covers = any(e.start <= s <= e.end for s in redacted_seqs.get(e.thread_id, ()))
        if record.id not in e.record_ids and not covers:
            continue
        line, words = redact_line(e.line, record.text)
        if words:
            lines.append(Episode(thread_id=e.thread_id, start=e.start, end=e.end, line=line,
                                 record_ids=tuple(i for i in e.record_ids if i != record.id),
                                 date=e.date, suspect=e.suspect))
            taken += words
    return Redaction(messages=new_text, sentences=sentences, episodes=tuple(lines),
                     words=tuple(dict.fromkeys(taken)))
