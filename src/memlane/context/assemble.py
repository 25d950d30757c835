"""Context assembly: a pure function of (stored rows, policy, budget, now).

No I/O happens here: the store reads a bounded set of rows (`ContextRows`, sized by the window,
not by the thread), and this module decides what the model sees. That keeps it easy to test, to
time, and to run over a grid of policies in the evaluation.

Order of the assembled messages (DESIGN.md section 3):
  1. system prompt + memory instructions (+ tool schemas, counted in the budget)
  2. pinned core records
  2b. notes: the records relevant to the new message (chosen by the caller, e.g. a search in
     `Thread.context`), up to `Policy.notes_share` of the budget, each once, with its id
  3. the buffer block, only when the history does not fit, where the evicted messages were: lines
     for stretches, and the evicted turns the new message matches quoted under their line
  4. working-memory turns, oldest first; pruned ones replaced by a short elision marker
  5. short-term turns verbatim
  6. the new message

When the budget is tight, things are given up in this order: working-memory turns (lowest decayed
score first, oldest on ties), the evicted turns the block opened (last-ranked first), buffer
lines (recent lines that point at no record first, then the oldest of the recent ones, the first
stretch's line last: the edges are what the model uses best), notes (the last-ranked first: they
were chosen for this message, the lines were not), short-term turns (oldest first), core
records; last, the new message is cut head + tail. The budget is never
exceeded: the total is recounted exactly on the final messages.

How it runs: `prepare` builds each layer once (one function per layer: the system prompt and
tools, the window's turns split into working memory and short-term, core records, notes, buffer
lines) and counts its tokens; `Assembly.finish` gives things up, one at a time in the order
above, recounting only the layer that changed, until the total fits, and renders the messages
once. Each layer's count is the exact count of the message(s) it renders to (the text plus the
framing), so the total in the trace is the count of the messages returned.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import BudgetTooSmall
from ..safety import (
    NOTES_HEADER,
    NOTES_HEADER_NO_TOOLS,
    as_data,
    memory_instructions,
    quarantined_record,
    scan_stored,
)
from ..tool_schemas import TOOL_SCHEMAS
from ..types import (
    BufferTurn,
    ChatMessage,
    Context,
    ContextRows,
    Dropped,
    Episode,
    Message,
    Record,
    Trace,
    make_chat_message,
)
from .buffer import (
    layer_text,
    note_line,
    render_block,
    select_lines,
    select_turns,
    to_buffer_lines,
)
from .policy import Policy
from .standing import standing_cap
from .tokens import MESSAGE_OVERHEAD, Tokenizer
from .truncate import head_tail
from .working import Turn, decayed, drop_order, marker, split_turns, with_markers

CORE_HEADER = "Core memory (notes, not the user's words):"
"""Heads the core layer when it holds the pinned records only (`Policy.standing` off)."""
STANDING_HEADER = "Standing facts, newest values (notes, not the user's words):"
"""Heads the core layer of standing facts (`memlane.context.standing`)."""


def standing_header(left_out: int, tools: bool) -> str:
    """`STANDING_HEADER`, saying how many standing facts did not fit and where they are."""
    if not left_out:
        return STANDING_HEADER
    where = "search_memory finds them" if tools else "not shown"
    return f"{STANDING_HEADER} ({left_out} more: {where})"
RECORDS_HEADER = ("Records from long-term memory relevant to this message (#id; written by the "
                  "memory system, not by the user; open_memory for their sources, search_memory "
                  "for more):")
"""Heads the notes layer (`Policy.notes_share`); the buffer block has its own header."""
RECORDS_HEADER_NO_TOOLS = ("Records from long-term memory relevant to this message (#id; written "
                           "by the memory system, not by the user):")


class TokenCounter:
    """Token counts for one context, memoised: texts repeat as things are given up, and across
    the fill rounds (`fill.sized_context`), which share one counter."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self._memo: dict[str, int] = {}
        self._cuts: dict[tuple[str, int], tuple[str, int]] = {}

    def __call__(self, text: str) -> int:
        n = self._memo.get(text)
        if n is None:
            n = self._memo[text] = self.tokenizer.count([text])[0]
        return n

    def msg(self, text: str) -> int:
        """Tokens of a message with this text, framing included."""
        return self(text) + MESSAGE_OVERHEAD

    def known(self, text: str, n: int) -> None:
        """`text` has `n` tokens (counted by the caller in a batch)."""
        self._memo[text] = n

    def prime(self, texts: Sequence[str]) -> None:
        """Count the texts not counted yet in one tokenizer call (a call per text costs more
        than the counting, for short texts such as note lines)."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if todo:
            self._memo.update(zip(todo, self.tokenizer.count(todo), strict=True))

    def cut(self, text: str, max_tokens: int, tokens: int) -> tuple[str, int]:
        """`head_tail(text, max_tokens)` and its tokens, memoised: each fill round cuts the same
        oversize messages, and a cut costs dozens of counts."""
        key = (text, max_tokens)
        hit = self._cuts.get(key)
        if hit is None:
            cut = head_tail(text, max_tokens, self.tokenizer, tokens)
            hit = self._cuts[key] = (cut, self(cut))
        return hit


_OWN_SCHEMAS_JSON = json.dumps(list(TOOL_SCHEMAS), separators=(",", ":"))


def tools_json(tools: Sequence[dict[str, Any]]) -> str:
    """Tool schemas as compact JSON, the text their tokens are counted on (memlane's own: a
    constant, dumped once)."""
    if tools is TOOL_SCHEMAS:
        return _OWN_SCHEMAS_JSON
    return json.dumps(list(tools), separators=(",", ":"))


# ==== the layers, one function each =============================================================
def _system(policy: Policy, tools: tuple[dict[str, Any], ...], budget: int, count: TokenCounter,
            new_message: str | None) -> tuple[str, int, int]:
    """The system prompt (with the memory instructions), its tokens and the tools' tokens;
    `BudgetTooSmall` when they and the new message's framing alone do not fit."""
    system = policy.system_prompt
    if policy.memory_instructions:
        text = memory_instructions(bool(tools))
        system = f"{system}\n\n{text}" if system else text
    # Tool schemas are counted as compact JSON: providers bill their own rendering of them,
    # which is terser than JSON, so this stays an upper bound without padding the budget.
    tools_tokens = count(tools_json(tools)) if tools else 0
    system_tokens = count.msg(system)
    fixed = system_tokens + tools_tokens
    if fixed + (MESSAGE_OVERHEAD + 1 if new_message else 0) > budget:
        raise BudgetTooSmall(
            f"budget {budget} is too small: the system prompt and tool schemas alone take "
            f"{fixed} tokens; raise the budget or shorten Policy.system_prompt"
        )
    return system, system_tokens, tools_tokens


def _shown_texts(window: Sequence[Message], counts: Sequence[int], max_tokens: int,
                 count: TokenCounter) -> tuple[list[tuple[str, int]], list[Dropped]]:
    """(text, tokens) each window message is shown with: an oversize one as head + tail (the
    full text stays in the store), with a `Dropped` saying so."""
    texts: list[tuple[str, int]] = []
    dropped: list[Dropped] = []
    ordered = True  # seqs strictly increasing, as a store returns them
    last = -(2**63)
    for m, n in zip(window, counts, strict=False):
        ordered = ordered and m.seq > last
        last = m.seq
        if n > max_tokens:
            cut, c = count.cut(m.content, max_tokens, n)
            dropped.append(Dropped("truncated", f"msg {m.seq}", "oversize", n - c))
            texts.append((cut, c))
        else:
            texts.append((m.content, n))
    if not ordered:
        # Hand-made rows may repeat a seq: a message then shows the text of the last one
        # with its seq (what a mapping by seq gives).
        by_seq = {m.seq: t for m, t in zip(window, texts, strict=False)}
        texts = [by_seq[m.seq] for m in window]
    return texts, dropped


def _working(turns: Sequence[Turn], n_turns: int, policy: Policy
             ) -> tuple[list[float], list[bool], list[str]]:
    """Scores of the working turns (decayed relevance, age counted back from the newest turn),
    which are kept, and why not (`Policy.prune_below`)."""
    scores, kept, reason = [], [], []
    default, half_life = policy.default_relevance, policy.half_life_turns
    prune_below = policy.prune_below if policy.use_working else None
    for i, t in enumerate(turns):
        s = decayed(default if t.relevance is None else t.relevance, n_turns - 1 - i, half_life)
        pruned = prune_below is not None and s < prune_below
        scores.append(s)
        kept.append(not pruned)
        reason.append("low_relevance" if pruned else "")
    return scores, kept, reason


def _note(r: Record, count: TokenCounter) -> tuple[str, bool, int]:
    """A record's line in the core or notes layer, whether it is quarantined, and the line's
    tokens: scanned when written (`r.suspect`) and again now (patterns grow); a suspect one
    keeps its id and loses its text (`safety.quarantined_record`), a clean one is shown as data
    (`safety.as_data`). Not scanned again when this very scanner found the text clean when it
    was stored (`safety.scan_stored`)."""
    flags = scan_stored(r.text, r.scanned, None)
    line, suspect = ((f"- {quarantined_record(r.id, flags)}", True) if r.suspect or flags
                     else (note_line(r, as_data(r.text)), False))
    return line, suspect, count(line)


def _core(pinned: Sequence[Record], cap: int, count: TokenCounter
          ) -> tuple[list[str], int, list[Dropped], list[Record]]:
    """(lines of the core layer's records within `cap`, how many are quarantined, the ones
    over the cap, the ones shown)."""
    lines: list[str] = []
    dropped: list[Dropped] = []
    shown: list[Record] = []
    withheld = used = 0
    for r in pinned:
        line, suspect, n = _note(r, count)
        withheld += suspect
        if used + n > cap:
            dropped.append(Dropped("record", f"#{r.id}", "core_budget", n))
            continue
        lines.append(line)
        shown.append(r)
        used += n
    return lines, withheld, dropped, shown


def _notes(notes: Sequence[Record], pinned: Sequence[Record], cap: int, header: str,
           count: TokenCounter) -> tuple[list[str], list[int], int, set[int]]:
    """(lines, tokens of each, how many quarantined, the ids shown) of the notes: each record
    once (a pinned one is already shown), in the caller's order, while they fit `cap` (a shown
    record is the record: its id is what the tools take)."""
    if not notes or cap <= 0:
        return [], [], 0, set()
    seen = {r.id for r in pinned}
    lines: list[str] = []
    tokens: list[int] = []
    withheld = 0
    ids: set[int] = set()  # what a buffer line pointing only at them would repeat
    # The header and the markers alone (their tags are all 6 digits).
    used = count.msg(layer_text(header, []))
    for r in notes:
        rid = r.id
        if rid in seen:
            continue
        seen.add(rid)
        line, suspect, n = _note(r, count)
        withheld += suspect
        n += 1
        if used + n <= cap:
            lines.append(line)
            tokens.append(n)
            ids.add(rid)
            used += n
    return lines, tokens, withheld, ids


# ==== one assembly ===============================================================================
@dataclass(frozen=True, eq=False)
class _Fixed:
    """What `prepare` builds from the system prompt, the tools, the pinned records and the
    notes: none of it depends on the window, so a fill round (`fill.sized_context`: the same
    turn, a larger window) takes it from the round before instead of building it again."""

    pinned: tuple[Record, ...]
    notes_in: Sequence[Record]
    system: str
    system_tokens: int
    tools_tokens: int
    tools: tuple[dict[str, Any], ...]
    header: str
    core_header: str
    core: list[str]
    core_withheld: int
    over_cap: list[Dropped]
    notes: list[str]
    note_tokens: list[int]
    notes_withheld: int
    note_ids: frozenset[int]
    core_shown: tuple[Record, ...] = ()
    """The core layer's records that fit its cap (what the other layers need not repeat)."""


@dataclass(eq=False)
class Assembly:
    """One context being assembled: its layers as prepared (`prepare`), their tokens, and what
    has been given up so far. `total` is the token total now; `finish` gives things up until it
    fits the budget and returns the `Context`."""

    budget: int
    count: TokenCounter
    rows: ContextRows
    system: str
    tools: tuple[dict[str, Any], ...]
    records_header: str
    notes_header: str
    core: list[str]
    notes: list[str]
    note_tokens: list[int]
    block: bool
    """Whether the buffer block is shown."""
    lines: list[Episode]
    skipped: int
    """Stretches before the window not listed in the block."""
    working: list[Turn]
    kept: list[bool]
    reason: list[str]
    """Why each working turn not kept was elided."""
    scores: list[float]
    short: list[Turn]
    new: str | None
    withheld: int
    dropped: list[Dropped]
    by_layer: dict[str, int] = field(default_factory=dict)
    fixed: _Fixed | None = None
    """The layers a larger window of the same turn does not change (`prepare`'s `like`)."""
    show_lines: bool = True
    """`Policy.buffer_lines_shown`."""
    block_text: str = ""
    extra_skipped: int = 0
    """Recent lines given up for the budget (they join the gap)."""
    drop_seq: list[int] | None = None
    """Working turns still to give up, the next last."""
    dropped_turn: int | None = None
    """The working turn `_working_turn` gave up last (its index), for `finish`'s recount."""
    turns: list[BufferTurn] = field(default_factory=list)
    """Evicted messages the block opened, best first (`Policy.buffer_turns`)."""
    quotes_key: tuple[Any, ...] = ()
    """What `turns` were chosen from (the candidates, those out of view), for the next round."""
    quotes_taken: tuple[BufferTurn, ...] = ()
    """`turns` as chosen, before anything was given up."""
    quotes_withheld: int = 0
    core_header: str = CORE_HEADER
    """Heads the core layer: the standing facts' header, or `CORE_HEADER` (pinned only)."""

    @property
    def total(self) -> int:
        return sum(self.by_layer.values())

    def layer_tokens(self, layer: str) -> int:
        """Tokens of the message(s) the layer renders to now (0: none)."""
        count = self.count
        if layer == "core":
            return count.msg(layer_text(self.core_header, self.core)) if self.core else 0
        if layer == "notes":
            return (count.msg(layer_text(self.records_header, self.notes))
                    if self.notes else 0)
        if layer == "buffer":
            return count.msg(self.block_text) if self.block else 0
        if layer == "working":
            n = 0
            for p in with_markers(self.working, self.kept):
                n += count.msg(p) if isinstance(p, str) else p.tokens
            return n
        if layer == "short_term":
            return sum(t.tokens for t in self.short)
        assert layer == "new"
        return count.msg(self.new) if self.new is not None else 0

    def _elided(self, i: int) -> int:
        """How the working layer's tokens (`layer_tokens("working")`: each kept turn's
        tokens, each run of elided turns one marker's) changed when turn `i`, kept until now,
        was elided: it and the runs of elided turns either side of it are one marker now."""
        w, kept, count = self.working, self.kept, self.count
        lo = i
        while lo > 0 and not kept[lo - 1]:
            lo -= 1
        hi = i
        while hi + 1 < len(w) and not kept[hi + 1]:
            hi += 1
        before = w[i].tokens
        if lo < i:
            before += count.msg(marker(i - lo, w[lo].start, w[i - 1].end))
        if hi > i:
            before += count.msg(marker(hi - i, w[i + 1].start, w[hi].end))
        return count.msg(marker(hi - lo + 1, w[lo].start, w[hi].end)) - before

    def render_block(self) -> None:
        self.block_text = render_block(self.lines, self.skipped + self.extra_skipped,
                                       self.unfiled,
                                       self.rows.first_episode.end if self.rows.first_episode
                                       else None, self.notes_header, self.turns)

    @property
    def unfiled(self) -> int:
        """Evicted messages not filed yet, as the block says them (with its lines only)."""
        return self.rows.unfiled_before_window if self.show_lines else 0

    # the result --------------------------------------------------------------------------------
    def finish(self) -> Context:
        total = self.total
        while total > self.budget:
            self.dropped_turn = None
            layer = _give_up(self, total - self.budget)
            if layer == "working" and self.dropped_turn is not None:
                # One turn became part of a marker: only its neighbourhood changed (a fill that
                # overshot gives up a dozen turns, and recounting the whole layer each time
                # cost more than the rest of the turn).
                self.by_layer[layer] = self.by_layer.get(layer, 0) + self._elided(self.dropped_turn)
            else:
                self.by_layer[layer] = self.layer_tokens(layer)
            total = self.total
        self.dropped.extend(Dropped("turn", t.ref, why, t.text_tokens)
                            for t, kept, why in zip(self.working, self.kept, self.reason,
                                                    strict=True) if not kept)
        gap = self.skipped + self.extra_skipped if self.block else None
        trace = Trace(
            budget=self.budget,
            tokens_total=total,
            tokens_by_layer={k: v for k, v in self.by_layer.items() if v},
            buffer_lines=to_buffer_lines(self.lines) if self.block else (),
            buffer_turns=tuple(sorted(self.turns, key=lambda t: t.seq)) if self.block else (),
            gap=gap if gap else None,
            withheld=self.withheld,
            unfiled=self.unfiled if self.block else 0,
            dropped=tuple(self.dropped),
            window_start=self.rows.window[0].seq if self.rows.window else None,
            working_scores={t.start: round(s, 4)
                            for t, s in zip(self.working, self.scores, strict=True)},
        )
        # The caller's copies: memlane's own schemas are shared by every turn (`tools_json`).
        tools = (tuple(dict(t) for t in self.tools) if self.tools is TOOL_SCHEMAS
                 else self.tools)
        return Context(messages=tuple(self.render()), tools=tools, trace=trace)

    def render(self) -> list[ChatMessage]:
        # `make_chat_message` is `ChatMessage(...)` without the frozen `__init__`, which costs
        # a sixth of the pure assembler (bench_assemble: a context is dozens of messages).
        chat = make_chat_message
        out = [chat("system", self.system, "system")]
        if self.core:
            out.append(chat("system", layer_text(self.core_header, self.core), "core"))
        if self.notes:
            out.append(chat("system", layer_text(self.records_header, self.notes),
                            "notes"))
        if self.block:
            out.append(chat("system", self.block_text, "buffer"))
        append = out.append
        for p in with_markers(self.working, self.kept):
            if isinstance(p, str):
                append(chat("system", p, "working"))
            else:
                for role, text in p.messages:
                    append(chat(role, text, "working"))
        for t in self.short:
            for role, text in t.messages:
                append(chat(role, text, "short_term"))
        if self.new is not None:
            append(chat("user", self.new, "new"))
        return out


# ==== giving up, one thing at a time, in order ==================================================
def _give_up(a: Assembly, over: int) -> str:
    """Give up the next thing in order when the total is `over` the budget; the layer it came
    from."""
    for step in _GIVING_UP:
        layer = step(a, over)
        if layer:
            return layer
    raise BudgetTooSmall(
        f"budget {a.budget} cannot hold even the system prompt and the new message "
        f"({a.budget + over} tokens); raise the budget"
    )


def _working_turn(a: Assembly, over: int) -> str:
    """The working turn with the lowest decayed score, oldest on ties."""
    if a.drop_seq is None:
        a.drop_seq = [i for i in drop_order(a.scores) if a.kept[i]][::-1]
    if not a.drop_seq:
        return ""
    i = a.drop_seq.pop()
    a.kept[i], a.reason[i] = False, "budget"
    a.dropped_turn = i
    return "working"


def _working_markers(a: Assembly, over: int) -> str:
    """Only elision markers are left of working memory: give them up too."""
    if not a.working:
        return ""
    a.dropped.extend(Dropped("turn", t.ref, "budget") for t in a.working)
    a.working, a.kept, a.reason, a.scores = [], [], [], []
    return "working"


def _buffer_turn(a: Assembly, over: int) -> str:
    """The last-ranked opened turn: the block's quotes go before its lines (a line stands for
    a whole stretch, a quote for one message of it)."""
    if not (a.block and a.turns):
        return ""
    t = a.turns.pop()
    a.dropped.append(Dropped("turn", f"msg {t.seq}", "budget"))
    a.render_block()
    return "buffer"


def _buffer_line(a: Assembly, over: int) -> str:
    """A line that points at nothing has only its words to offer: the oldest such recent
    line goes first. Then keep the edges: drop the oldest of the recent lines, the first
    stretch's last."""
    if not (a.block and len(a.lines) > 1):
        return ""
    first_end = a.rows.first_episode.end if a.rows.first_episode else None
    recent = [e for e in a.lines if e.end != first_end]
    victim = next((e for e in recent if not e.record_ids), None) or next(iter(recent),
                                                                         a.lines[0])
    a.lines = [e for e in a.lines if e is not victim]
    a.extra_skipped += 1 if victim.end != first_end else 0
    a.dropped.append(Dropped("line", f"msgs {victim.start}-{victim.end}", "budget"))
    a.render_block()
    return "buffer"


def _buffer_block(a: Assembly, over: int) -> str:
    if not a.block:
        return ""
    a.dropped.extend(Dropped("line", f"msgs {e.start}-{e.end}", "budget") for e in a.lines)
    # Said even when the block held no lines (only a gap or unfiled marker): the trace must
    # explain why history that did not fit has no block.
    a.dropped.append(Dropped("block", "buffer", "budget", a.by_layer.get("buffer", 0)))
    a.block, a.lines, a.turns = False, [], []
    return "buffer"


def _notes_from_the_last(a: Assembly, over: int) -> str:
    """The last-ranked notes, as many as the excess needs (then recounted). After the
    block: these records were chosen for this message, the lines were not."""
    if not a.notes:
        return ""
    while a.notes and over > 0:
        line = a.notes.pop()
        over -= a.note_tokens.pop()
        a.dropped.append(Dropped("record", line.split()[1], "budget"))
    return "notes"


def _older_short_turn(a: Assembly, over: int) -> str:
    return _short_turn(a) if len(a.short) > 1 else ""


def _last_short_turn(a: Assembly, over: int) -> str:
    return _short_turn(a) if a.short else ""


def _short_turn(a: Assembly) -> str:
    a.dropped.append(Dropped("turn", a.short.pop(0).ref, "budget"))
    return "short_term"


def _core_record(a: Assembly, over: int) -> str:
    if not a.core:
        return ""
    a.dropped.append(Dropped("record", a.core.pop().split()[1], "budget"))
    return "core"


def _cut_new_message(a: Assembly, over: int) -> str:
    """Last: the new message, cut head + tail to the room left."""
    new = a.new
    if new is None or a.count(new) <= 1:
        return ""
    n = a.count(new)
    cut, c = a.count.cut(new, max(1, min(n - over, n - 1)), n)
    a.dropped.append(Dropped("truncated", "new message", "budget", n - c))
    a.new = cut
    return "new"


_GIVING_UP: tuple[Callable[[Assembly, int], str], ...] = (
    _working_turn, _working_markers, _buffer_turn, _buffer_line, _buffer_block,
    _notes_from_the_last, _older_short_turn, _core_record, _last_short_turn, _cut_new_message)
"""The order things are given up in (the module docstring says why); each returns the layer
it gave something up from, or "" when it has nothing left to give."""


def prepare(
    rows: ContextRows,
    policy: Policy,
    budget: int,
    tokenizer: Tokenizer,
    new_message: str | None = None,
    tools: Sequence[dict[str, Any]] = (),
    *,
    count: TokenCounter | None = None,
    notes: Sequence[Record] = (),
    matched: Sequence[Episode] = (),
    opened: Sequence[Message] = (),
    like: Assembly | None = None,
    standing: Sequence[Record] | None = None,
    cited: Mapping[int, frozenset[int]] | None = None,
) -> Assembly:
    """Every layer built and counted, nothing given up yet (`BudgetTooSmall` when the fixed
    part alone does not fit). `count`: a counter shared with other assemblies of the same
    thread (the fill rounds); `notes`: as `assemble`'s; `matched`: buffer lines chosen
    for the new message (`select_lines`); `opened`: evicted messages the new message matches,
    best first (`Policy.buffer_turns`; the ones in this window are passed over). `like`: an
    assembly prepared just before for the same call with a smaller window (the fill round
    before; only `Policy.working_turns` may differ): its system, core and notes layers are
    taken when its pinned records and notes are these (they are built from nothing else).
    `standing`: the core layer's records in the order to show them (`context.standing`), within
    `standing_cap`; None: the pinned records of `rows` within `Policy.core_tokens`.
    `cited`: which of `opened` each of `notes` was filed from, by record id, when the notes
    carry only some of their sources (`Store.sources_among`; None: their `source_ids`)."""
    count = count if count is not None else TokenCounter(tokenizer)
    window = rows.window
    # One batch for the window and the new message.
    counts = tokenizer.count([m.content for m in window]
                             + ([new_message] if new_message else []))
    if new_message:
        count.known(new_message, counts[-1])
    texts, dropped = _shown_texts(window, counts, policy.max_message_tokens, count)
    turns = split_turns(window, texts, count)
    core_in = rows.pinned if standing is None else tuple(standing)
    f = like.fixed if like is not None else None
    if f is None or f.notes_in is not notes or not (f.pinned is core_in or f.pinned == core_in):
        f = _fixed(core_in, policy, budget, tools, count, new_message, notes,
                   standing is not None)
    n_work = len(turns) - min(policy.short_term_turns, len(turns))
    work = _working(turns[:n_work], len(turns), policy)
    scores, kept, reason = work[0], list(work[1]), list(work[2])
    block = rows.truncated and policy.use_buffer
    show_lines = policy.buffer_lines_shown
    lines, skipped, w2 = (select_lines(rows, policy.buffer_lines, matched,
                                       recent_lines=policy.recent_lines)
                          if block and show_lines else ([], 0, 0))
    quotes: list[BufferTurn] = []
    quotes_key: tuple[Any, ...] = ()
    w3 = 0
    given = opened
    if block and opened and policy.buffer_turns > 0 and policy.dedupe_lines:
        opened = _not_cited(opened, f, f.core_shown, cited)
    if block and opened and policy.buffer_turns > 0:
        quotes, quotes_key, w3 = _quotes(window, given, opened, policy, budget, count, like)
        w2 += w3
    if block and not show_lines and not quotes:
        block = False  # turns only, and none opened: nothing to show
    a = Assembly(budget, count, rows, f.system, f.tools, f.header,
                 NOTES_HEADER if f.tools else NOTES_HEADER_NO_TOOLS, list(f.core),
                 list(f.notes), list(f.note_tokens), block, lines, skipped, turns[:n_work], kept,
                 reason, scores, turns[n_work:], new_message,
                 f.core_withheld + f.notes_withheld + w2, dropped + f.over_cap, fixed=f,
                 show_lines=show_lines, turns=quotes, quotes_key=quotes_key,
                 quotes_taken=tuple(quotes), quotes_withheld=w3, core_header=f.core_header)
    if block:
        a.render_block()
    a.by_layer = {"system": f.system_tokens, "tools": f.tools_tokens}
    for layer in ("core", "notes", "buffer", "working", "short_term", "new"):
        n = a.layer_tokens(layer)
        if n:
            a.by_layer[layer] = n
    return a


def _not_cited(opened: Sequence[Message], f: _Fixed, core: Sequence[Record],
               of_notes: Mapping[int, frozenset[int]] | None = None) -> Sequence[Message]:
    """One copy of each fact in view: a turn a shown note or core record was filed from is
    already there in that record's words (its date too); its slot goes to another turn. Only
    the opened turns' ids are asked about: a record may cite a thousand messages (a fact
    confirmed turn after turn), so each record's sources are intersected (in C), never walked;
    `of_notes` (`prepare`'s `cited`) says it for the notes."""
    ids = {m.id for m in opened}
    cited: set[int] = set()
    for r in f.notes_in:
        if r.id in f.note_ids:
            cited |= ids.intersection(r.source_ids if of_notes is None
                                      else of_notes.get(r.id, ()))
    for r in core:
        cited |= ids.intersection(r.source_ids)
    if not cited:
        return opened
    # A turn is its user message and the replies after it: the reply right after a cited
    # message (an assistant's "Got it: TP 1353 ...") repeats the same fact.
    after = {m.seq + 1 for m in opened if m.id in cited}
    unshown = [m for m in opened if m.id not in cited
               and not (m.role != "user" and m.seq in after)]
    return unshown if len(unshown) < len(opened) else opened


def _quotes(window: Sequence[Message], given: Sequence[Message], opened: Sequence[Message],
            policy: Policy, budget: int, count: TokenCounter, like: Assembly | None,
            ) -> tuple[list[BufferTurn], tuple[Any, ...], int]:
    """The opened turns quoted under their lines: (quotes, the key a later fill round compares,
    how many were withheld)."""
    start = window[0].seq if window else 2**62
    # A fill round whose window leaves the same candidates out of view opens the same turns as
    # the round before (the rest of the policy is the same): taken from it.
    quotes_key = (id(given), tuple(m.seq for m in opened if m.seq < start))
    if like is not None and like.quotes_key == quotes_key:
        return list(like.quotes_taken), quotes_key, like.quotes_withheld
    quotes, _, w3 = select_turns(
        opened, start, policy.buffer_turns, int(budget * policy.buffer_turns_share),
        policy.buffer_turn_tokens, count, count.cut, count.prime)
    return quotes, quotes_key, w3


def _fixed(pinned: tuple[Record, ...], policy: Policy, budget: int,
           tools: Sequence[dict[str, Any]], count: TokenCounter, new_message: str | None,
           notes: Sequence[Record], standing: bool = False) -> _Fixed:
    """The layers `prepare` builds from neither the window nor the buffer. `pinned`: the core
    layer's records (the standing facts when `standing`)."""
    tools = tuple(tools) if policy.use_tools else ()
    system, system_tokens, tools_tokens = _system(policy, tools, budget, count, new_message)
    cap = standing_cap(budget, policy) if standing else policy.core_tokens
    core, withheld, over_cap, in_core = _core(pinned, cap, count)
    if not standing:
        # Pinned only: a pinned record is never a note, shown in the core or not.
        in_core = list(pinned)
    core_header = (standing_header(sum(d.reason == "core_budget" for d in over_cap),
                                   bool(tools)) if standing else CORE_HEADER)
    # Without tools (a model that cannot call them) neither header names one.
    header = RECORDS_HEADER if tools else RECORDS_HEADER_NO_TOOLS
    # The standing facts are the first of the records shown: they come out of the notes'
    # share, not the turns' (on LoCoMo, 2k, taking them from the turns cost 2 points).
    notes_cap = int(budget * policy.notes_share)
    if standing and core:
        notes_cap -= count.msg(layer_text(core_header, core))
    note_lines, note_tokens, w, note_ids = _notes(notes, in_core, notes_cap, header, count)
    return _Fixed(pinned, notes, system, system_tokens, tools_tokens, tools, header,
                  core_header, core, withheld, over_cap, note_lines, note_tokens, w,
                  frozenset(note_ids), tuple(in_core))


def assemble(
    rows: ContextRows,
    policy: Policy,
    budget: int,
    now: float,
    tokenizer: Tokenizer,
    new_message: str | None = None,
    tools: Sequence[dict[str, Any]] = (),
    notes: Sequence[Record] = (),
    matched: Sequence[Episode] = (),
    opened: Sequence[Message] = (),
    standing: Sequence[Record] | None = None,
    cited: Mapping[int, frozenset[int]] | None = None,
) -> Context:
    """Assemble the context for the next model call. Pure: same inputs, same output.
    `notes` are the records to show as notes, best first (see `Policy.notes_share`);
    `matched` the buffer lines chosen for the new message (`Policy.index_lines`); `opened` the
    evicted messages it matches, best first (`Policy.buffer_turns`); `standing` the core
    layer's standing facts in order (`memlane.context.standing`; None: the pinned records of
    `rows`); `cited` as `prepare`'s."""
    del now  # decay is by turn age; `now` is part of the contract for time-based policies
    return prepare(rows, policy, budget, tokenizer, new_message, tools, notes=notes,
                   matched=matched, opened=opened, standing=standing, cited=cited).finish()
