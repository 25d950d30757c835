"""A readable reference for `Thread.context` under the default policy: what it shows, written
from DESIGN.md section 3 and the assembler's documented behaviour, in plain Python, no memos.

It lives with the tests, not in `src/`, on purpose: it reads the whole thread (every message,
every episode) to decide, so its cost grows with the thread; shipped, it would be a second read
path a surface could call, and the project keeps one path per job. It drives only public API
(`Memory.records`, `Memory.search`, `Thread.messages`, `Thread.episodes`) and the text helpers
that say how a layer *reads* (a note's line, a buffer line, the fence, the scan): choices are
made here, formats are shared. Two bounding rules are shared too, named where they are used:
the candidate stretches the opened turns are read from (`context.turns.stretch_votes`, a bound
on reads, not a choice of what to show), and the fill's size estimate (`_grown`).

What it does, in the order of DESIGN.md section 3:
  1. system prompt with the memory instructions, tool schemas (counted);
  2. the standing facts (core): pinned records, then the namespace's records of a standing kind
     (constraint, decision, profile, preference) in that order, within a kind the ones sharing
     the most terms with the new message, then the newest; a record another one says it is
     newer than is left out; within the larger of `core_tokens` and `standing_share` of the
     budget, the header saying how many did not fit; then notes: the namespace whole when it fits
     the notes share, else the search of the new message (a few results of the user's last turn
     after it);
  3. the buffer block only when the history does not fit: the first stretch's line (always),
     the lines the new message matches,
     the latest `recent_lines`, at most `buffer_lines`, and the evicted turns the new message
     matches quoted under their line (a turn a shown note was filed from is not quoted), of
     the stretches the best notes cite, the matched lines and the newest evicted ones;
  4. working-memory turns, decayed relevance, elided runs as one marker;
  5. short-term turns verbatim; 6. the new message.
The window grows past `working_turns` while the budget has room (the fill), then things are
given up in the assembler's order until the total fits.

Not here: where a later call's fill starts (`reference_context` is a thread's first call under
a budget); only the default policy is compared (`tests/test_reference_assembler.py`), though
the switches it reads (`use_buffer`, `use_working`, `fill_budget`, ...) are honoured.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from memlane import Memory, Policy
from memlane.context.assemble import (
    CORE_HEADER,
    RECORDS_HEADER,
    RECORDS_HEADER_NO_TOOLS,
    STANDING_HEADER,
)
from memlane.context.buffer import note_line, render_block
from memlane.context.line_index import INDEXED_LINES
from memlane.context.tokens import MESSAGE_OVERHEAD
from memlane.context.truncate import head_tail
from memlane.context.turns import (
    CITED_IDS,
    CITED_PER_RECORD,
    CITED_RECORDS,
    NAMED_BOOST,
    STRETCH_READ,
    stretch_votes,
)
from memlane.errors import BudgetTooSmall, MemlaneError
from memlane.safety import (
    NOTES_HEADER,
    NOTES_HEADER_NO_TOOLS,
    as_data,
    fenced,
    memory_instructions,
    quarantined_record,
    scan_stored,
    why,
)
from memlane.text import fact_terms  # the read path's vocabulary
from memlane.tool_schemas import TOOL_SCHEMAS
from memlane.types import BufferTurn, Episode, Message, Record
from memlane.validate import STANDING_KINDS, clean_text


# ---- the thread as the store holds it ---------------------------------------------------------
@dataclass
class Rows:
    window: list[Message]
    truncated: bool
    first: Episode | None
    recent: list[Episode]  # newest first, start before the window
    before: int  # episodes starting before the window
    unfiled: int  # evicted messages no episode covers


def read_rows(msgs: list[Message], eps: list[Episode], turns: int, max_lines: int) -> Rows:
    """The window of the last `turns` user turns and what lies before it."""
    users = [i for i, m in enumerate(msgs) if m.role == "user"]
    i0 = users[-turns] if len(users) >= turns else 0
    window = msgs[i0:]
    start = window[0].seq if window else 2**62
    first = eps[0] if eps else None
    older = [e for e in eps if e.start < start and e is not first]
    filed_to = max((e.end for e in eps), default=0)
    return Rows(window, i0 > 0, first, sorted(older, key=lambda e: -e.end)[:max_lines],
                len([e for e in eps if e.start < start]),
                sum(1 for m in msgs[:i0] if m.seq > filed_to))


# ---- what the new message selects -------------------------------------------------------------
def bm25(pool: list[Message], want: frozenset[str], k: int,
         named: frozenset[str] = frozenset()) -> list[Message]:
    """The `k` messages of `pool` sharing the most weight with `want` (BM25, a term once per
    message, length in characters; ties to the older); a message by a speaker in `named`
    scores `1 + NAMED_BOOST` times as much."""
    n = len(pool)
    docs = [(m, fact_terms(m.content) & want) for m in pool]
    df: dict[str, int] = {}
    for _, hit in docs:
        for t in hit:
            df[t] = df.get(t, 0) + 1
    avg = (sum(len(m.content) for m in pool) / n if n else 1.0) or 1.0
    scored = []
    for m, hit in docs:
        if hit:
            idf = sum(math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in hit)
            s = idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * len(m.content) / avg))
            if m.name in named:
                s *= 1 + NAMED_BOOST
            scored.append((-s, m.seq, m))
    return [m for _, _, m in sorted(scored, key=lambda x: (x[0], x[1]))[:k]]


def matched_lines(eps: list[Episode], want: frozenset[str], k: int) -> list[Episode]:
    """The stretches whose lines best match `want` (a term weighs log(n / lines holding it),
    nothing when in half the lines or more), of the newest `INDEXED_LINES` but the first."""
    lines = eps[1:] if len(eps) <= INDEXED_LINES + 1 else eps[-INDEXED_LINES:]
    bags = [fact_terms(e.line) for e in lines]
    n = len(bags)
    weight = {}
    for t in want:
        c = sum(1 for b in bags if t in b)
        if c and (2 * c < n or n < 3):
            weight[t] = math.log(n / c)
    scored = []
    for p, b in enumerate(bags):
        s = 0.0
        for t in sorted(weight):
            if t in b:
                s += weight[t]
        if s > 0:
            scored.append((s, -p))
    return [lines[-q] for _, q in sorted(scored, reverse=True)[:k]]


def opened_turns(msgs: list[Message], eps: list[Episode], searched: list[Record],
                 matched: list[Episode], before: int, want: frozenset[str], k: int,
                 p: Policy) -> list[Message]:
    """The evicted messages the new message matches, best first: ranked over the stretches
    the best notes cite, the matched lines and, with working memory, the newest
    `reach_stretches` stretches that start before the window (at most `buffer_lines`: the
    ones read for the block) (`stretch_votes`, shared: a bound on reads)."""
    ids: list[int] = []
    for r in searched[:CITED_RECORDS]:
        for m in r.source_ids[:CITED_PER_RECORD]:
            if m not in ids and len(ids) < CITED_IDS:
                ids.append(m)
    seq_of = {m.id: m.seq for m in msgs if m.id in ids}
    cited = [(r, seq_of[m]) for r, rec in enumerate(searched[:CITED_RECORDS])
             for m in rec.source_ids[:CITED_PER_RECORD] if m in seq_of]
    ends = sorted({e.end for e in eps})
    pool: list[Message] = []
    near = sorted((e for e in eps if e.start < before), key=lambda e: -e.end)[
        :min(p.reach_stretches, p.buffer_lines)] if p.use_working else []
    for s, e in stretch_votes(cited, matched, ends, before, near):
        pool += [m for m in msgs if s <= m.seq <= e][:STRETCH_READ]
    pool = [m for m in pool if m.role in ("user", "assistant")]
    names = frozenset(t for m in pool if m.name for t in fact_terms(m.name))
    # The speakers the new message names (all of a name's terms in it): their messages weigh more.
    named = frozenset(m.name for m in pool
                      if m.name and fact_terms(m.name) and fact_terms(m.name) <= want)
    return bm25(pool, want - names, k, named)


def notes(mem: Memory, rows: Rows, budget: int, new: str | None, p: Policy, count: Any
          ) -> tuple[list[Record], list[Record]]:
    """(the notes best first, the search's results for the new message)."""
    cap = int(budget * p.notes_share)
    if cap <= 0:
        return [], []
    k, most = max(1, min(cap // 32, 100)), max(1, cap // 16)
    every = mem.records(limit=most + 1)
    if len(every) <= most:
        lines = [note_line(r, r.text) for r in every]
        room = cap - 40
        if sum(len(x) + 1 for x in lines) <= room or count(lines) + len(lines) <= room:
            want = fact_terms(new) if new else frozenset()
            scored = [(-len(fact_terms(r.text) & want), i) for i, r in enumerate(every)]
            return every, [every[i] for s, i in sorted(scored) if s and want]
    searched = search(mem, new, k) if new and new.strip() else []
    last = next((m.content for m in reversed(rows.window) if m.role == "user"
                 and m.content.strip() and m.content != new), "")
    recent = search(mem, last, k) if p.notes_recent and last and new and new.strip() else []
    seen = {r.id for r in searched}
    extra = [r for r in recent if r.id not in seen][:3]
    lean = bool(recent) and len(fact_terms(new or "")) <= 2
    out = [*searched[:3], *extra, *searched[3:]] if lean else [*searched, *extra]
    return out, searched


def standing(mem: Memory, new: str | None, p: Policy) -> list[Record]:
    """The core layer's records in order: the pinned ones (standing off), else every standing
    one (pinned, or of a standing kind: a need or an agreement always, the others when they
    share a term with the new message), less those another says it is newer than."""
    if not p.standing:
        return mem.records(pinned_only=True)
    changed = {r.id for r in mem.records(limit=-1)  # a value the user changed
               if any(h["op"] == "update" for h in mem.record_history(r.id))}
    every = [r for r in mem.records(limit=-1)
             if r.pinned or r.kind in STANDING_KINDS or r.id in changed]
    older = {int(x) for r in every for x in re.findall(r"\[newer than #(\d+)", r.text)}
    want = fact_terms(new) if new else frozenset()
    cost = {k: i for i, k in enumerate(STANDING_KINDS)}
    def rank(r: Record) -> float:  # a changed value: after needs and agreements
        hard = r.kind in ("constraint", "decision")
        return 1.5 if r.id in changed and not hard else cost.get(r.kind, 9)
    def shared(r: Record) -> int:  # a named speaker's "Name: " is no shared term
        return len(fact_terms(re.sub(r"^[^\s:]{1,40}: ", "", r.text, count=1)) & want)

    shown = [r for r in every if r.id not in older and (
        r.pinned or r.kind in ("constraint", "decision") or r.id in changed or shared(r))]
    return sorted(shown, key=lambda r: (not r.pinned, rank(r), -shared(r), -r.stated, -r.id))


def search(mem: Memory, query: str, k: int) -> list[Record]:
    try:
        return [h.record for h in mem.search(query, k)]
    except MemlaneError:
        return []


# ---- one assembly -------------------------------------------------------------------------
@dataclass
class Turn:
    start: int
    end: int
    messages: list[tuple[str, str]]
    tokens: int
    relevance: float | None


@dataclass
class Layers:
    system: str
    tools_tokens: int
    core: list[str]
    notes: list[str]
    note_tokens: list[int]
    header: str
    block: bool
    core_header: str
    lines: list[Episode]
    skipped: int
    unfiled: int
    first_end: int | None
    quotes: list[BufferTurn]
    working: list[Turn]
    kept: list[bool]
    scores: list[float]
    short: list[Turn]
    new: str | None
    with_tools: bool
    drop_seq: list[int] | None = None
    extra_skipped: int = 0
    gone: list[str] = field(default_factory=list)


class Counter:
    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    def __call__(self, text: str) -> int:
        return int(self.tokenizer.count([text])[0])

    def msg(self, text: str) -> int:
        return self(text) + MESSAGE_OVERHEAD

    def cut(self, text: str, most: int, n: int) -> tuple[str, int]:
        out = head_tail(text, most, self.tokenizer, n)
        return out, self(out)


def window_turns(window: list[Message], p: Policy, count: Counter) -> list[Turn]:
    """The window's turns: a user message and what follows it; an oversize message head + tail,
    a tool result as a system note."""
    turns: list[Turn] = []
    for m in window:
        n = count(m.content)
        text = count.cut(m.content, p.max_message_tokens, n)[0] if n > p.max_message_tokens \
            else m.content
        role = m.role
        if role == "tool":
            role, text = "system", f"[tool result{' ' + m.name if m.name else ''}] {text}"
        if m.role == "user" or not turns:
            turns.append(Turn(m.seq, m.seq, [], 0, None))
        t = turns[-1]
        t.end = m.seq
        t.relevance = m.relevance if t.relevance is None else t.relevance
        t.messages.append((role, text))
        t.tokens += count(text) + MESSAGE_OVERHEAD
    return turns


def record_line(r: Record) -> str:
    flags = scan_stored(r.text, r.scanned)
    return (f"- {quarantined_record(r.id, flags)}" if r.suspect or flags
            else note_line(r, as_data(r.text)))


def buffer_lines(rows: Rows, p: Policy, matched: list[Episode]) -> list[Episode]:
    """The first stretch's line, the matched ones, the latest `recent_lines`."""
    start = rows.window[0].seq if rows.window else 2**62
    many = rows.before > p.buffer_lines
    chosen: dict[int, Episode] = {}
    first = rows.first
    if first is not None and p.buffer_lines >= 1 and first.start < start:
        chosen[first.end] = first
    recent = rows.recent[:p.recent_lines] if many and p.recent_lines is not None \
        else rows.recent
    for ep in [*(e for e in matched if e.start < start), *recent]:
        if len(chosen) >= p.buffer_lines:
            break
        chosen.setdefault(ep.end, ep)
    return sorted(chosen.values(), key=lambda e: e.end)


def quotes(opened: list[Message], before: int, budget: int, p: Policy, count: Counter
           ) -> list[BufferTurn]:
    """Of the opened turns before the window, at most `buffer_turns` while they fit their
    share (one that does not is passed over for a shorter one)."""
    out: list[BufferTurn] = []
    used, cap = 0, int(budget * p.buffer_turns_share)
    for m in opened:
        if len(out) >= p.buffer_turns:
            break
        if m.seq >= before:
            continue
        flags = scan_stored(m.content, m.scanned)
        text = (f"[quarantined message: withheld, it reads like an instruction ({why(flags)})]"
                if flags else as_data(m.content))
        n, whole = count(text), not flags
        if n > p.buffer_turn_tokens:
            text, n = count.cut(text, p.buffer_turn_tokens, n)
            whole = False
        cost = n + count(f"- 2000-01-01 (msg {m.seq}) {m.name or m.role}: ") + 1
        if used + cost > cap:
            continue
        out.append(BufferTurn(m.seq, m.name or m.role, text, m.ts, whole))
        used += cost
    return out


def layers(rows: Rows, pinned: list[Record], shown_notes: list[Record], opened: list[Message],
           matched: list[Episode], budget: int, new: str | None, p: Policy, count: Counter
           ) -> Layers:
    tools = bool(p.use_tools)
    system = p.system_prompt
    if p.memory_instructions:
        text = memory_instructions(tools)
        system = f"{system}\n\n{text}" if system else text
    tools_tokens = count(json.dumps(list(TOOL_SCHEMAS), separators=(",", ":"))) if tools else 0
    if count.msg(system) + tools_tokens + (MESSAGE_OVERHEAD + 1 if new else 0) > budget:
        raise BudgetTooSmall("the system prompt and tools do not fit")
    core: list[str] = []
    in_core: list[Record] = []
    used = 0
    cap = max(p.core_tokens, int(budget * p.standing_share)) if p.standing else p.core_tokens
    for r in pinned:
        line = record_line(r)
        if used + count(line) <= cap:
            core.append(line)
            in_core.append(r)
            used += count(line)
    core_header = CORE_HEADER
    if p.standing:
        left = len(pinned) - len(in_core)
        core_header = (f"{STANDING_HEADER} ({left} more: "
                       f"{'search_memory finds them' if tools else 'not shown'})"
                       if left else STANDING_HEADER)
    if p.standing:
        pinned = in_core  # what the other layers need not repeat (else: every pinned one)
    header = RECORDS_HEADER if tools else RECORDS_HEADER_NO_TOOLS
    cap = int(budget * p.notes_share)
    if p.standing and core:  # the standing facts come out of the notes' share
        cap -= count.msg(fenced(core_header, core))
    lines_, tokens_ = [], []
    ids: set[int] = set()
    seen = {r.id for r in pinned}
    used = count.msg(fenced(header, [])) if shown_notes and cap > 0 else 0
    for r in shown_notes if cap > 0 else []:
        if r.id in seen:
            continue
        seen.add(r.id)
        line = record_line(r)
        n = count(line) + 1
        if used + n <= cap:
            lines_.append(line)
            tokens_.append(n)
            ids.add(r.id)
            used += n
    turns = window_turns(rows.window, p, count)
    n_work = len(turns) - min(p.short_term_turns, len(turns))
    scores = [(p.default_relevance if t.relevance is None else t.relevance)
              * 0.5 ** ((len(turns) - 1 - i) / p.half_life_turns) if p.half_life_turns > 0
              else (p.default_relevance if t.relevance is None else t.relevance)
              for i, t in enumerate(turns[:n_work])]
    kept = [not (p.use_working and s < p.prune_below) for s in scores]
    block = rows.truncated and p.use_buffer
    lines = buffer_lines(rows, p, matched) if block and p.buffer_lines_shown else []
    start = rows.window[0].seq if rows.window else 2**62
    if block and opened and p.buffer_turns > 0 and p.dedupe_lines:
        cited = {m.id for m in opened
                 if any(m.id in r.source_ids for r in [*shown_notes, *pinned]
                        if r.id in ids or r in pinned)}
        after = {m.seq + 1 for m in opened if m.id in cited}
        opened = [m for m in opened if m.id not in cited
                  and not (m.role != "user" and m.seq in after)]
    q = quotes(opened, start, budget, p, count) if block and p.buffer_turns > 0 else []
    if block and not p.buffer_lines_shown and not q:
        block = False
    return Layers(system, tools_tokens, core, lines_, tokens_, header, block, core_header, lines,
                  max(0, rows.before - len(lines)),
                  rows.unfiled if p.buffer_lines_shown else 0,
                  rows.first.end if rows.first else None, q, turns[:n_work], kept, scores,
                  turns[n_work:], new, tools)


# ---- giving up, in order ----------------------------------------------------------------------
def marker(n: int, a: int, b: int) -> str:
    return f"[{n} earlier turn{'s' if n > 1 else ''} elided from working memory (msgs {a}-{b})]"


def working_shown(a: Layers) -> list[Turn | str]:
    """The kept working turns, each run of elided ones as one marker."""
    out: list[Turn | str] = []
    run: list[Turn] = []
    for t, k in zip(a.working, a.kept, strict=True):
        if not k:
            run.append(t)
            continue
        if run:
            out.append(marker(len(run), run[0].start, run[-1].end))
            run = []
        out.append(t)
    if run:
        out.append(marker(len(run), run[0].start, run[-1].end))
    return out


def block_text(a: Layers) -> str:
    return render_block(a.lines, a.skipped + a.extra_skipped, a.unfiled, a.first_end,
                        NOTES_HEADER if a.with_tools else NOTES_HEADER_NO_TOOLS, a.quotes)


def total(a: Layers, count: Counter) -> int:
    n = count.msg(a.system) + a.tools_tokens
    n += count.msg(fenced(a.core_header, a.core)) if a.core else 0
    n += count.msg(fenced(a.header, a.notes)) if a.notes else 0
    n += count.msg(block_text(a)) if a.block else 0
    n += sum(count.msg(x) if isinstance(x, str) else x.tokens for x in working_shown(a))
    n += sum(t.tokens for t in a.short)
    return n + (count.msg(a.new) if a.new is not None else 0)


def give_up(a: Layers, over: int, count: Counter) -> None:
    """The next thing in order: the lowest-scored working turn (oldest on ties), then the
    markers, the last-ranked quote, a buffer line (a recent one pointing at no record, else
    the oldest recent, the first stretch's last), the block, the last-ranked notes, the older
    short-term turns, a core record, the last short-term turn; last, the new message is cut."""
    if a.drop_seq is None:
        order = sorted(range(len(a.scores)), key=lambda i: round(a.scores[i], 9))
        a.drop_seq = [i for i in order if a.kept[i]][::-1]
    if a.drop_seq:
        a.kept[a.drop_seq.pop()] = False
    elif a.working:
        a.working, a.kept, a.scores = [], [], []
    elif a.block and a.quotes:
        a.quotes.pop()
    elif a.block and len(a.lines) > 1:
        recent = [e for e in a.lines if e.end != a.first_end]
        victim = next((e for e in recent if not e.record_ids), None) or next(
            iter(recent), a.lines[0])
        a.lines.remove(victim)
        a.extra_skipped += victim.end != a.first_end
    elif a.block:
        a.block, a.lines, a.quotes = False, [], []
    elif a.notes:
        while a.notes and over > 0:
            a.notes.pop()
            over -= a.note_tokens.pop()
    elif len(a.short) > 1:
        a.short.pop(0)
    elif a.core:
        a.core.pop()
    elif a.short:
        a.short.pop(0)
    elif a.new is not None and count(a.new) > 1:
        n = count(a.new)
        a.new = count.cut(a.new, max(1, min(n - over, n - 1)), n)[0]
    else:
        raise BudgetTooSmall("nothing left to give up")


def rendered(a: Layers) -> list[tuple[str, str, str]]:
    """(role, content, layer) of each message, in order."""
    out = [("system", a.system, "system")]
    if a.core:
        out.append(("system", fenced(a.core_header, a.core), "core"))
    if a.notes:
        out.append(("system", fenced(a.header, a.notes), "notes"))
    if a.block:
        out.append(("system", block_text(a), "buffer"))
    for x in working_shown(a):
        if isinstance(x, str):
            out.append(("system", x, "working"))
        else:
            out += [(role, text, "working") for role, text in x.messages]
    for t in a.short:
        out += [(role, text, "short_term") for role, text in t.messages]
    if a.new is not None:
        out.append(("user", a.new, "new"))
    return out


# ---- the context ------------------------------------------------------------------------------
def reference_context(mem: Memory, thread_id: str, budget: int, new_message: str | None,
                      policy: Policy | None = None) -> list[tuple[str, str, str]]:
    """What `Thread.context(budget, new_message, policy=policy)` shows, as (role, content,
    layer) of each message, for a thread's first context call under this policy and budget
    (later calls start the fill where the last one ended: `fill.fill_start`)."""
    p = policy or mem.policy
    new = clean_text(new_message) if isinstance(new_message, str) else new_message
    count = Counter(mem.tokenizer)
    th = mem.thread(thread_id)
    msgs = th.messages()
    eps = sorted(th.episodes(), key=lambda e: e.end)
    pinned = standing(mem, new, p)
    rows = read_rows(msgs, eps, p.short_term_turns + p.working_turns, p.buffer_lines)
    shown, searched = notes(mem, rows, budget, new, p,
                            lambda xs: sum(mem.tokenizer.count(xs)))
    want = fact_terms(new) if new else frozenset()
    matched: list[Episode] = []
    opened: list[Message] = []
    if rows.truncated and p.use_buffer and new and want:
        if p.index_lines > 0:
            matched = matched_lines(eps, want, p.index_lines)
        if p.buffer_turns > 0 and rows.window:
            opened = opened_turns(msgs, eps, searched, matched, rows.window[0].seq, want,
                                  2 * p.buffer_turns, p)
    work = p.working_turns
    for round_ in range(4):  # the fill: at most three larger windows after the first
        a = layers(rows, pinned, shown, opened, matched, budget, new, p, count)
        if not p.fill_budget or round_ == 3 or not rows.truncated or not rows.window:
            break
        spare = budget - total(a, count)
        users = max(1, sum(1 for m in rows.window if m.role == "user"))
        per_turn = sum(m.tokens + MESSAGE_OVERHEAD for m in rows.window) / users
        extra = int(spare / max(per_turn, 1.0)) if spare > 0 else 0
        grown = min(p.max_working_turns, work + extra)
        if extra < 1 or grown == work:
            break
        work = grown
        rows = read_rows(msgs, eps, p.short_term_turns + work, p.buffer_lines)
    over = total(a, count) - budget
    while over > 0:
        give_up(a, over, count)
        over = total(a, count) - budget
    return rendered(a)
