"""The offline reader: a deterministic stand-in for the model, and how its reach is scored.

The reader is honest in the ways that matter for a memory benchmark:
- it sees only the assembled context (the messages memlane would send) and the question;
- it opens the records of at most `m` visible buffer lines, chosen by BM25 similarity of the
  line's text to the question (a line with no word in common is never opened: the reader has no
  reason to), and pays for what it opened in tokens;
- it searches memory (top `k`) only when the policy offers the search tool, and pays for the
  results. The *eager* reader (the default) always searches then: an upper bound for search. The
  *cued* reader (`cue_terms=N`) searches only when one visible item (a replayed turn, a buffer
  line, a shown note) shares at least N content terms (`terms()`) with the question, the
  conversation's participants' names not counting: a model searches when something in view tells
  it there is something to find. One rule for every kind of item, so no layer is favoured by it;
- it never looks at the evidence or the answer to decide anything. Scoring does, afterwards.

Scoring (`classify`) puts each question in the first class that applies:
`in_view` (an evidence turn's text is among the replayed turns of the context, or quoted whole
by the buffer among the evicted turns it opened), `via_notes` (a
pinned note in view came from an evidence turn), `via_summary` (the summary in view contains every
content word of the gold answer: a proxy, since offline nothing can tell whether a summary carries
a fact), `via_pointer` (a record opened from a visible buffer line came from an evidence turn),
`via_search` (a search result came from an evidence turn), or not reached (None).

Strict temporal reach (`dated`): for a question about *when*, reaching the evidence is not
enough; its date must be in view with it. Strict means a lenient reach where the evidence
session's date (`YYYY-MM-DD`, or the data's own label in a summary) appears in the same item that
reaches the evidence: the replayed turn's text, the note's line (`- #id (YYYY-MM-DD) text` once
notes show the date a fact was stated), a visible buffer line dated that day that lists the
reached record's id (the model can join a note or result to its line by id), the record's own
`stated` date as a tool returns it, or the summary.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from ..context.tokens import Tokenizer
from ..text import terms as _text_terms
from ..types import BufferLine, Context, Record
from ..validate import date_text

__all__ = [
    "BM25",
    "READERS",
    "CLASSES",
    "LexicalIndex",
    "ModelAnswer",
    "Reading",
    "answer_in",
    "answer_with_model",
    "classify",
    "cue",
    "dated",
    "judge",
    "pointed_at",
    "read",
    "terms",
    "token_f1",
]

CLASSES = ("in_view", "via_notes", "via_summary", "via_pointer", "via_search")
"""How a question can be reached, in the order `classify` tries them."""

REPLAYED_LAYERS = frozenset({"working", "short_term"})
"""Layers that hold conversation turns verbatim."""

NOTE_LAYERS = frozenset({"core", "notes"})
"""Layers that show records as "- #id text" lines (pinned notes, relevant notes)."""

READERS = ("eager", "cued")
"""The offline readers: `eager` searches whenever the tool is offered, `cued` only when cued."""


def terms(text_: str) -> list[str]:
    """Lower-cased, stop-worded, lightly stemmed word terms of `text_` (`memlane.text.terms`)."""
    return list(_terms(text_))


@lru_cache(maxsize=1 << 16)
def _terms(text_: str) -> tuple[str, ...]:
    # Cached: the same lines and questions are read once per policy and budget.
    return tuple(_text_terms(text_))


_NOTE_LINE = re.compile(r"^- #(\d+) .*$", re.MULTILINE)


class BM25:
    """Okapi BM25 over a fixed list of documents (k1=1.2, b=0.75)."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tf = [Counter(d) for d in docs]
        self.len = [len(d) for d in docs]
        self.avg = (sum(self.len) / len(docs)) if docs else 0.0
        df: Counter[str] = Counter()
        for tf in self.tf:
            df.update(tf.keys())
        n = len(docs)
        self.idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
        self.postings: dict[str, list[int]] = {}
        for i, tf in enumerate(self.tf):
            for t in tf:
                self.postings.setdefault(t, []).append(i)

    def scores(self, query: Sequence[str]) -> dict[int, float]:
        """Score of every document sharing a term with `query` (others score 0)."""
        out: dict[int, float] = {}
        for t in dict.fromkeys(query):
            idf = self.idf.get(t)
            if idf is None:
                continue
            for i in self.postings[t]:
                f = self.tf[i][t]
                norm = self.k1 * (1 - self.b + self.b * self.len[i] / (self.avg or 1.0))
                out[i] = out.get(i, 0.0) + idf * f * (self.k1 + 1) / (f + norm)
        return out

    def top(self, query: Sequence[str], k: int) -> list[int]:
        """Indices of the `k` best documents with a positive score, best first (ties: earlier)."""
        s = self.scores(query)
        return sorted((i for i, v in s.items() if v > 0), key=lambda i: (-s[i], i))[:k]


class LexicalIndex:
    """BM25 over a namespace's records: the evaluation's own search, used only when
    `Memory.search` is not available (it says so in the report)."""

    name = "eval-bm25"

    def __init__(self, records: Iterable[Record]) -> None:
        self.records = list(records)
        self.bm25 = BM25([terms(r.text) for r in self.records])

    def search(self, query: str, k: int) -> list[Record]:
        return [self.records[i] for i in self.bm25.top(terms(query), k)]


@dataclass(frozen=True)
class Reading:
    """What the reader saw and did for one question."""

    context_tokens: int
    """Tokens of the assembled context (what is sent every time)."""
    visible: frozenset[str]
    """Texts of the conversation turns replayed in the context."""
    notes: tuple[Record, ...] = ()
    """Pinned notes shown in the context."""
    summary: str = ""
    """The summary shown in the context, if the policy has one."""
    opened_lines: tuple[BufferLine, ...] = ()
    """Buffer lines whose records the reader opened."""
    opened: tuple[Record, ...] = ()
    """Records opened from those lines."""
    searched: tuple[Record, ...] = ()
    """Search results."""
    opened_tokens: int = 0
    """Tokens of the opened records and the search results (what the tool calls returned)."""
    cued: bool | None = None
    """Cued reader: whether a visible item cued the search (None: eager, or no search tool)."""
    note_lines: tuple[tuple[int, str], ...] = ()
    """(id, line as shown) of every "- #id ..." note line in view, for the strict date test."""

    @property
    def tokens(self) -> int:
        return self.context_tokens + self.opened_tokens


def cue(items: Iterable[str], question: str, n: int, names: Iterable[str] = ()) -> bool:
    """Whether one of `items` shares at least `n` distinct content terms with `question`,
    terms of `names` (the participants) not counting."""
    skip = {t for name in names for t in terms(name)}
    want = set(terms(question)) - skip
    if len(want) < n:
        return False
    return any(len(want.intersection(terms(text))) >= n for text in items)


def read(
    ctx: Context,
    question: str,
    tokenizer: Tokenizer,
    *,
    open_records: Callable[[Sequence[int]], list[Record]],
    search: Callable[[str, int], list[Record]] | None = None,
    notes: dict[int, Record] | None = None,
    summary: str = "",
    m: int = 3,
    k: int = 5,
    cue_terms: int | None = None,
    names: Sequence[str] = (),
) -> Reading:
    """Read `ctx` for `question`: open up to `m` lines' records, search top `k` if allowed.

    `notes` maps record ids to records, for the "- #id" lines of the note layers. With
    `cue_terms` (the cued reader) the search runs only when a visible item cues it (`cue`);
    `names` are the participants' names, which do not count as shared terms."""
    # A turn the buffer opened is a replayed turn too (quoted whole, under its stretch's line).
    visible = frozenset([*(msg.content for msg in ctx.messages if msg.layer in REPLAYED_LAYERS),
                         *(t.text for t in ctx.trace.buffer_turns if t.whole)])
    shown_notes: tuple[Record, ...] = ()
    note_lines: tuple[tuple[int, str], ...] = ()
    if notes:
        text = "\n".join(msg.content for msg in ctx.messages if msg.layer in NOTE_LAYERS)
        note_lines = tuple((int(m.group(1)), m.group(0)) for m in _NOTE_LINE.finditer(text))
        ids = dict.fromkeys(i for i, _ in note_lines)
        shown_notes = tuple(notes[i] for i in ids if i in notes)
    lines = [b for b in ctx.trace.buffer_lines if b.record_ids]
    opened_lines: list[BufferLine] = []
    if lines and m > 0:
        ranked = BM25([terms(b.line) for b in lines]).top(terms(question), m)
        opened_lines = [lines[i] for i in ranked]
    ids_open = list(dict.fromkeys(i for b in opened_lines for i in b.record_ids))
    opened = tuple(open_records(ids_open)) if ids_open else ()
    cued: bool | None = None
    if search is not None and k > 0 and cue_terms is not None:
        items = [*visible, *(b.line for b in ctx.trace.buffer_lines),
                 *(r.text for r in shown_notes)]
        cued = cue(items, question, cue_terms, names)
    do_search = search is not None and k > 0 and cued is not False
    searched = tuple(search(question, k)) if do_search and search is not None else ()
    texts = [r.text for r in opened] + [r.text for r in searched]
    # A tool result is a message of its own: count each record as a line of it, plus framing.
    opened_tokens = sum(tokenizer.count(texts)) + 4 * (len(opened_lines) + bool(searched))
    return Reading(
        context_tokens=ctx.trace.tokens_total,
        visible=visible,
        notes=shown_notes,
        summary=summary,
        opened_lines=tuple(opened_lines),
        opened=opened,
        searched=searched,
        opened_tokens=opened_tokens,
        cued=cued,
        note_lines=note_lines,
    )


def pointed_at(ctx: Context, records: dict[int, Record], evidence_ids: Iterable[int]) -> bool:
    """Whether any visible buffer line points at a record from an evidence turn: the upper bound
    of `via_pointer` for a reader that opened every line (a diagnostic, not a way of reaching)."""
    ids = set(evidence_ids)
    return any(
        ids.intersection(records[i].source_ids)
        for b in ctx.trace.buffer_lines for i in b.record_ids if i in records
    )


def answer_in(text: str, answer: str) -> bool:
    """Whether every content word of `answer` occurs in `text` (and there is at least one)."""
    want = set(terms(answer))
    return bool(want) and want <= set(terms(text))


def classify(
    reading: Reading,
    evidence_texts: Iterable[str],
    evidence_ids: Iterable[int],
    answer: str = "",
) -> str | None:
    """The first way `reading` reached an evidence turn (see `CLASSES`), or None."""
    ids = set(evidence_ids)
    if any(t in reading.visible for t in evidence_texts):
        return "in_view"
    if any(ids.intersection(r.source_ids) for r in reading.notes):
        return "via_notes"
    if reading.summary and answer and answer_in(reading.summary, answer):
        return "via_summary"
    if any(ids.intersection(r.source_ids) for r in reading.opened):
        return "via_pointer"
    if any(ids.intersection(r.source_ids) for r in reading.searched):
        return "via_search"
    return None


def dated(
    reading: Reading,
    ctx: Context,
    evidence_texts: Iterable[str],
    evidence_ids: Iterable[int],
    dates: Iterable[str],
    answer: str = "",
) -> bool:
    """Strict reach for a question about when: the evidence is reached (`classify`) by an item
    that shows one of `dates` (the evidence session's date strings) with it. See the module
    docstring for what counts; the same test for every policy."""
    want = [d for d in dict.fromkeys(dates) if d]
    if not want or classify(reading, evidence_texts, evidence_ids, answer) is None:
        return False
    ids = set(evidence_ids)

    def has(text: str) -> bool:
        return any(d in text for d in want)

    if any(t in reading.visible and has(t) for t in evidence_texts):
        return True
    # A turn the buffer opened is dated as the block shows it: by its stretch's line when it is
    # quoted under one, else by its own date.
    quoted = {t.text: date_text(next((b.date for b in ctx.trace.buffer_lines
                                      if b.start <= t.seq <= b.end), t.date)) or ""
              for t in ctx.trace.buffer_turns if t.whole}
    if any(quoted.get(t, "") in want for t in evidence_texts):
        return True
    if reading.summary and answer and answer_in(reading.summary, answer) and has(reading.summary):
        return True
    reached = [r for r in (*reading.notes, *reading.opened, *reading.searched)
               if ids.intersection(r.source_ids)]
    if not reached:
        return False
    lines = dict(reading.note_lines)
    line_days = [(set(b.record_ids), date_text(b.date) or "") for b in ctx.trace.buffer_lines]
    for r in reached:
        if r.id in lines and has(lines[r.id]):
            return True
        stated = getattr(r, "stated", None)  # the date a fact was stated, when records carry it
        if stated and has(date_text(stated) or ""):
            return True
        if any(r.id in rids and day in want for rids, day in line_days):
            return True
    return False


# --- with a model: the model reads, calls the memory tools, and answers ---------------------------

ANSWER_INSTRUCTIONS = (
    "(Answer the question about the conversation above in a few words (a name, a date, a "
    "short phrase). Use the memory tools when what you need is not in view. If the conversation "
    "does not say, answer: not mentioned.)"
)
"""Appended to the question in model mode, so it is counted in the budget like the question."""

JUDGE_PROMPT = """You grade answers to questions about a long conversation.
Question: {question}
Gold answer: {gold}
Generated answer: {answer}
Is the generated answer correct: does it say the same thing as the gold answer (wording, length
and extra detail do not matter; for dates, the same date however written)? Reply with one word,
CORRECT or WRONG."""


@dataclass(frozen=True)
class ModelAnswer:
    """What a model answered and which records it read on the way."""

    text: str
    reading: Reading
    """Same shape as the offline reader's: what the model opened from lines and searched."""
    calls: int
    """Model calls made for this answer (1 + one per tool round)."""


def _norm_words(text: str) -> list[str]:
    # SQuAD/LoCoMo-style normalisation: lower case, no punctuation, no articles.
    words = re.findall(r"[a-z0-9]+", text.lower())
    return [w for w in words if w not in ("a", "an", "the", "and")]


def token_f1(answer: str, gold: str) -> float:
    """Token-overlap F1 between an answer and the gold answer (LoCoMo's answer metric)."""
    a, g = _norm_words(answer), _norm_words(gold)
    if not a or not g:
        return float(a == g)
    common = sum((Counter(a) & Counter(g)).values())
    if common == 0:
        return 0.0
    p, r = common / len(a), common / len(g)
    return 2 * p * r / (p + r)


def answer_with_model(
    model: Any,
    ctx: Context,
    tokenizer: Tokenizer,
    *,
    open_records: Callable[[Sequence[int]], list[Record]],
    search: Callable[[str, int], list[Record]] | None,
    speaker_of: dict[str, str] | None = None,
    notes: dict[int, Record] | None = None,
    summary: str = "",
    max_rounds: int = 3,
    max_results: int = 10,
) -> ModelAnswer:
    """Ask `model` (a `memlane.models.Model`) the context's question, running the read-only
    memory tools it calls (`search_memory`, `open_memory`; the writing tools answer with an
    error: memory is frozen during an evaluation).

    `speaker_of` maps a replayed turn's text to its speaker: assembled messages carry no names,
    so turns are shown to the model as "Name: text" (a two-person conversation makes no sense
    otherwise).
    """
    base = read(ctx, "", tokenizer, open_records=open_records, notes=notes, summary=summary,
                m=0, k=0)
    line_ids = {i for b in ctx.trace.buffer_lines for i in b.record_ids}
    messages: list[dict[str, Any]] = []
    for msg in ctx.messages:
        content = msg.content
        if speaker_of and msg.layer in REPLAYED_LAYERS and content in speaker_of:
            content = f"{speaker_of[content]}: {content}"
        messages.append({"role": msg.role, "content": content})
    tools = [dict(t) for t in ctx.tools]
    opened: dict[int, Record] = {}
    searched: dict[int, Record] = {}
    tool_tokens = 0
    calls = 0
    text = ""
    for rnd in range(max_rounds + 1):
        offer = tools if (tools and rnd < max_rounds) else None
        reply = model.complete(messages, tools=offer, max_tokens=200)
        calls += 1
        text = reply.content or ""
        if not reply.tool_calls or offer is None:
            break
        messages.append({
            "role": "assistant", "content": reply.content or "",
            "tool_calls": [{"id": c.id, "type": "function",
                            "function": {"name": c.name, "arguments": c.arguments}}
                           for c in reply.tool_calls],
        })
        for c in reply.tool_calls:
            result: Any
            if c.name == "search_memory" and search is not None:
                limit = int(c.arguments.get("limit") or 5)
                hits = search(str(c.arguments.get("query", "")), max(1, min(limit, max_results)))
                for r in hits:
                    searched.setdefault(r.id, r)
                result = [{"id": r.id, "text": r.text} for r in hits]
            elif c.name == "open_memory":
                raw = c.arguments.get("ids") or []
                ids = [int(i) for i in raw if str(i).isascii() and str(i).isdigit()]
                recs = open_records(ids[:max_results])
                for r in recs:
                    # Opening an id a visible line listed is following a pointer; opening one
                    # a search returned is part of the search.
                    (opened if r.id in line_ids else searched).setdefault(r.id, r)
                result = [{"id": r.id, "text": r.text} for r in recs]
            else:
                result = {"error": f"{c.name} is not available: memory is read-only here"}
            body = json.dumps(result, ensure_ascii=False)
            tool_tokens += tokenizer.count([body])[0] + 4
            messages.append({"role": "tool", "tool_call_id": c.id, "content": body})
    reading = replace(base, opened=tuple(opened.values()), searched=tuple(searched.values()),
                      opened_tokens=tool_tokens)
    return ModelAnswer(text.strip(), reading, calls)


def judge(model: Any, question: str, gold: str, answer: str) -> bool:
    """An LLM judge's verdict: does `answer` say what `gold` says?"""
    reply = model.complete(
        [{"role": "user",
          "content": JUDGE_PROMPT.format(question=question, gold=gold, answer=answer)}],
        max_tokens=5,
    )
    return (reply.content or "").strip().upper().startswith("CORRECT")
