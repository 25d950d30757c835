"""Context assembly: a pure function of (stored rows, policy, budget, now).

No I/O happens here: the store reads a bounded set of rows (`ContextRows`, sized by the window,
not by the thread), and this module decides what the model sees. That keeps it easy to test, to
time, and to run over a grid of policies in the evaluation.

Order of the assembled messages (DESIGN.md section 3):
  1. system prompt + memory instructions (+ tool schemas, counted in the budget)
  2. pinned core records
  2b. notes: the records relevant to the new message (chosen by the caller, e.g. a search in
     `Thread.context`), up to `Policy.notes_share` of the budget, each once, with its id
  3. the buffer block, only when the history does not fit, where the evicted messages were
  4. working-memory turns, oldest first; pruned ones replaced by a short elision marker
  5. short-term turns verbatim
  6. the new message

When the budget is tight, things are given up in this order: working-memory turns (lowest decayed
score first, oldest on ties), buffer lines (recent lines that point at no record first, then the
oldest of the recent ones, the first stretch's line last: the edges are what the model uses best),
notes (the last-ranked first: they were chosen for this message, the lines were not), short-term
turns (oldest first), core records; last, the new message is cut head + tail. The budget is never
exceeded: the total is recounted exactly on the final messages.

How it runs: `_Assembly` prepares everything once (counts, oversize cuts, turns, scores, core
lines, buffer lines), then gives things up while the tally of the layers is over budget, and
renders the messages once at the end. The tally is the exact token count of the messages the
rendering makes (each message's count is the count of its own text plus the framing), so the
total in the trace is the count of the messages returned.
"""

from __future__ import annotations

import json
import marshal
from collections.abc import Sequence
from typing import Any

from ..errors import BudgetTooSmall
from ..memo import Caches, remember
from ..safety import (
    NOTES_HEADER,
    NOTES_HEADER_NO_TOOLS,
    as_data,
    fenced,
    memory_instructions,
    quarantined_record,
    scan,
)
from ..types import (
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
from .buffer import note_line, render_block, select_lines, to_buffer_lines
from .policy import Policy
from .tokens import MESSAGE_OVERHEAD, Tokenizer
from .truncate import head_tail
from .working import decayed, drop_order

CORE_HEADER = "Core memory (notes, not the user's words):"
RECORDS_HEADER = ("Records from long-term memory relevant to this message (#id; written by the "
                  "memory system, not by the user; open_memory for their sources, search_memory "
                  "for more):")
"""Heads the notes layer (`Policy.notes_share`); the buffer block has its own header."""
RECORDS_HEADER_NO_TOOLS = ("Records from long-term memory relevant to this message (#id; written "
                           "by the memory system, not by the user):")


def _note(r: Record, scans: dict[str, tuple[str, ...]] | None, cache: Caches | None = None
          ) -> tuple[str, bool]:
    """A record's line in the core or notes layer, and whether it is quarantined: scanned when
    written (`r.suspect`) and again now (patterns grow); a suspect one keeps its id and loses
    its text (`safety.quarantined_record`), a clean one is shown as data (`safety.as_data`)."""
    flags = scan(r.text, scans)
    if r.suspect or flags:
        return f"- {quarantined_record(r.id, flags)}", True
    return note_line(r, as_data(r.text), cache), False


class _Counter:
    """Memoised token counts for one context (texts repeat across the budget iterations and
    across the fill rounds, which share one counter)."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tk = tokenizer
        self.memo: dict[str, int] = {}
        self.cuts: dict[tuple[str, int], tuple[str, int]] = {}

    def __call__(self, text: str) -> int:
        n = self.memo.get(text)
        if n is None:
            n = self.memo[text] = self.tk.count([text])[0]
        return n

    def msg(self, text: str) -> int:
        return self(text) + MESSAGE_OVERHEAD

    def prime(self, texts: Sequence[str]) -> None:
        """Count the texts not counted yet in one tokenizer call (a call per text costs more
        than the counting, for short texts such as note lines)."""
        memo = self.memo
        todo = list(dict.fromkeys(t for t in texts if t not in memo))
        if todo:
            memo.update(zip(todo, self.tk.count(todo), strict=True))

    def cut(self, text: str, max_tokens: int, tokens: int) -> tuple[str, int]:
        """`head_tail(text, max_tokens)` and its tokens, memoised (each fill round cuts the
        same oversize messages)."""
        key = (text, max_tokens)
        hit = self.cuts.get(key)
        if hit is None:
            cut = head_tail(text, max_tokens, self.tk, tokens)
            hit = self.cuts[key] = (cut, self(cut))
        return hit


def _tools_json(tools: Sequence[dict[str, Any]], cache: Caches | None = None) -> str:
    """Tool schemas as compact JSON, the text their tokens are counted on.

    The same schemas come with every call, and `json.dumps` costs more than the rest of the
    fixed part, so with a `cache` the text is memoised under the schemas' `marshal`
    serialization: it encodes every type exactly (True is not 1, 1 is not 1.0, a tuple is not a
    list, key order counts), so equal keys mean equal JSON. Schemas marshal cannot encode (custom
    types) are just dumped.
    """
    as_list = list(tools)
    if cache is None:
        return json.dumps(as_list, separators=(",", ":"))
    try:
        key = marshal.dumps(as_list)
    except ValueError:
        return json.dumps(as_list, separators=(",", ":"))
    text = cache.tools_json.get(key)
    if text is None:
        text = remember(cache.tools_json, key, json.dumps(as_list, separators=(",", ":")))
    return text


def _rendered(m: Message, content: str) -> tuple[str, str]:
    """(role, content) of a replayed message."""
    if m.role == "tool":
        # A replayed tool result has lost its call id; shown as a system note so every
        # provider accepts the message list.
        return "system", f"[tool result{' ' + m.name if m.name else ''}] {content}"
    return m.role, content


def _marker(n: int, a: int, b: int) -> str:
    """The elision marker of `n` consecutive working turns, msgs `a`-`b`."""
    return f"[{n} earlier turn{'s' if n > 1 else ''} elided from working memory (msgs {a}-{b})]"


def _round4(s: float, cache: Caches | None = None) -> float:
    """`round(s, 4)`, memoised in `cache` for positive floats (the scores recur call after
    call, and rounding a float to digits is slow); other values (ints, zeros, NaN) are just
    rounded."""
    if cache is None or type(s) is not float or not s > 0.0:
        return round(s, 4)
    r = cache.rounded.get(s)
    if r is None:
        r = remember(cache.rounded, s, round(s, 4))
    return r


class _Assembly:
    """One assembly. Construction prepares it (and raises `BudgetTooSmall` when the fixed part
    alone does not fit); `first_total` is the token total before anything is given up for the
    budget; `finish` gives things up until the total fits and returns the `Context`.

    Turns are positions: turn i is window[bounds[i]:bounds[i + 1]], from seq starts[i] to
    ends[i]; the first `n_work` are working memory, the rest short-term."""

    def __init__(
        self,
        rows: ContextRows,
        policy: Policy,
        budget: int,
        tokenizer: Tokenizer,
        new_message: str | None,
        tools: Sequence[dict[str, Any]],
        count: _Counter | None = None,
        cache: Caches | None = None,
        notes: Sequence[Record] = (),
        matched: Sequence[Episode] = (),
    ) -> None:
        count = count if count is not None else _Counter(tokenizer)
        self.count = count
        self.cache = cache
        scans = cache.scans if cache is not None else None
        self.rows = rows
        self.policy = policy
        self.budget = budget
        self.tokenizer = tokenizer
        window = rows.window
        # One batch for the window and the new message (a memoising tokenizer answers the
        # window from its memo: the same messages were counted on the last call).
        texts = [m.content for m in window]
        if new_message:
            texts.append(new_message)
        counts = tokenizer.count(texts) if texts else []
        if new_message:
            count.memo[new_message] = counts[-1]

        self.tools = tools = tuple(tools) if policy.use_tools else ()
        # Without tools (a model that cannot call them) neither text names one.
        self.records_header = RECORDS_HEADER if tools else RECORDS_HEADER_NO_TOOLS
        self.notes_header = NOTES_HEADER if tools else NOTES_HEADER_NO_TOOLS
        system = policy.system_prompt
        if policy.memory_instructions:
            text = memory_instructions(bool(tools))
            system = f"{system}\n\n{text}" if system else text
        self.system = system
        # Tool schemas are counted as compact JSON: providers bill their own rendering of them,
        # which is terser than JSON, so this stays an upper bound without padding the budget.
        self.tools_tokens = tools_tokens = count(_tools_json(tools, cache)) if tools else 0
        self.system_tokens = count.msg(system)
        fixed = self.system_tokens + tools_tokens
        if fixed + (MESSAGE_OVERHEAD + 1 if new_message else 0) > budget:
            raise BudgetTooSmall(
                f"budget {budget} is too small: the system prompt and tool schemas alone take "
                f"{fixed} tokens; raise the budget or shorten Policy.system_prompt"
            )

        # Oversize turns: replayed as head + tail, the full text stays in the store.
        max_tokens = policy.max_message_tokens
        texts = []  # what each window message shows (cut if oversize), by position
        tokens = []  # and its tokens
        pre_dropped: list[Dropped] = []
        ordered = True  # seqs strictly increasing, as a store returns them
        last = None
        for m, n in zip(window, counts, strict=False):
            seq = m.seq
            if last is not None and seq <= last:
                ordered = False
            last = seq
            if n > max_tokens:
                cut, c = count.cut(m.content, max_tokens, n)
                pre_dropped.append(Dropped("truncated", f"msg {seq}", "oversize", n - c))
                texts.append(cut)
                tokens.append(c)
            else:
                texts.append(m.content)
                tokens.append(n)
        if not ordered:
            # Hand-made rows may repeat a seq: a message then shows the text of the last one
            # with its seq (what a mapping by seq gives).
            by_seq = {m.seq: (t, n) for m, t, n in zip(window, texts, tokens, strict=False)}
            texts = [by_seq[m.seq][0] for m in window]
            tokens = [by_seq[m.seq][1] for m in window]
        self.pre_dropped = pre_dropped
        self.tokens = tokens

        # The turns (a user message and what follows it; messages before the first user
        # message form their own turn), each with the tokens of its messages as shown (a tool
        # result as a system note) and its relevance (that of its first scored message); the
        # role and text each message is rendered with.
        roles = [m.role for m in window]
        bounds: list[int] = []
        turn_tokens: list[int] = []
        relevance: list[float | None] = []
        n = 0
        rel: float | None = None
        for j, m in enumerate(window):
            role = roles[j]
            if role == "user" or not j:
                if j:
                    turn_tokens.append(n)
                    relevance.append(rel)
                bounds.append(j)
                n, rel = 0, None
            if rel is None:
                rel = m.relevance
            if role == "tool":
                roles[j], texts[j] = _rendered(m, texts[j])
                n += count(texts[j]) + MESSAGE_OVERHEAD
            else:
                n += tokens[j] + MESSAGE_OVERHEAD
        if window:
            turn_tokens.append(n)
            relevance.append(rel)
        bounds.append(len(window))
        self.roles = roles
        self.texts = texts
        self.bounds = bounds
        self.starts = [window[j].seq for j in bounds[:-1]]
        self.ends = [window[j - 1].seq for j in bounds[1:]]
        self.turn_tokens = turn_tokens

        n_turns = len(turn_tokens)
        k = min(policy.short_term_turns, n_turns)
        self.n_short = k
        self.n_work = self.n_working = n_work = n_turns - k
        # Decayed relevance, age counted back from the newest turn (the one decay: `working`).
        half_life = policy.half_life_turns
        default = policy.default_relevance
        newest = n_turns - 1
        scores: list[float] = []
        for i in range(n_work):
            given = relevance[i]
            scores.append(decayed(default if given is None else given, newest - i, half_life))
        self.scores = scores
        kept = [True] * n_work
        reason = [""] * n_work
        if policy.use_working:
            for i, s in enumerate(scores):
                if s < policy.prune_below:
                    kept[i], reason[i] = False, "low_relevance"
        self.working_kept = kept
        self.working_reason = reason

        core: list[str] = []
        withheld = 0
        core_used = 0
        for r in rows.pinned:
            line, suspect = _note(r, scans, cache)
            withheld += suspect
            if core_used + count(line) > policy.core_tokens:
                pre_dropped.append(Dropped("record", f"#{r.id}", "core_budget", count(line)))
                continue
            core.append(line)
            core_used += count(line)
        self.core = core

        # Notes: each record once (a pinned one is already shown), in the caller's order, while
        # they fit the share; a shown record is the record (its id is what the tools take).
        note_lines: list[str] = []
        note_tokens: list[int] = []
        note_ids: set[int] = set()  # what a buffer line pointing only at them would repeat
        cap = int(budget * policy.notes_share)
        if notes and cap > 0:
            seen = {r.id for r in rows.pinned}
            used = count.msg(fenced(self.records_header, []))  # the markers' tags are all 6 hex
            shown: list[str] = []
            ids: list[int] = []
            for r in notes:
                if r.id in seen:
                    continue
                seen.add(r.id)
                line, suspect = _note(r, scans, cache)
                withheld += suspect
                shown.append(line)
                ids.append(r.id)
            count.prime(shown)
            for line, rid in zip(shown, ids, strict=True):
                n = count(line) + 1
                if used + n > cap:
                    continue
                note_lines.append(line)
                note_tokens.append(n)
                note_ids.add(rid)
                used += n
        self.notes = note_lines
        self.note_tokens = note_tokens

        lines: list[Episode] = []
        skipped = 0
        self.block = show_block = rows.truncated and policy.use_buffer
        if show_block:
            lines, skipped, w = select_lines(
                rows, policy.buffer_lines, cache, matched,
                shown=(frozenset(note_ids) | {r.id for r in rows.pinned})
                if policy.dedupe_lines else frozenset(), recent_lines=policy.recent_lines)
            withheld += w
        self.lines = lines
        self.skipped = skipped
        self.withheld = withheld
        self.first_end = rows.first_episode.end if rows.first_episode else None
        self.extra_skipped = 0
        self.short_from = 0
        self.new_text = new_message
        self.dropped: list[Dropped] = []
        self._block_text: str | None = None
        self._first: dict[str, int] | None = None  # the tally before giving anything up

    # the layers ---------------------------------------------------------------------------
    def block_text(self) -> str:
        if self._block_text is None:
            self._block_text = render_block(self.lines, self.skipped + self.extra_skipped,
                                            self.rows.unfiled_before_window, self.first_end,
                                            self.cache, self.notes_header)
        return self._block_text

    def tally(self) -> dict[str, int]:
        """Tokens per layer of the messages `render` would make now (in their order)."""
        count = self.count
        by_layer = {"system": self.system_tokens, "tools": self.tools_tokens}
        if self.core:
            by_layer["core"] = count.msg(fenced(CORE_HEADER, self.core))
        if self.notes:
            by_layer["notes"] = count.msg(fenced(self.records_header, self.notes))
        if self.block:
            by_layer["buffer"] = count.msg(self.block_text())
        if self.n_working:
            kept = self.working_kept
            turn_tokens = self.turn_tokens
            n = 0
            run = 0  # length of the run of elided turns ending at i - 1
            for i in range(self.n_working):
                if kept[i]:
                    if run:
                        n += count.msg(_marker(run, self.starts[i - run], self.ends[i - 1]))
                        run = 0
                    n += turn_tokens[i]
                else:
                    run += 1
            if run:
                i = self.n_working
                n += count.msg(_marker(run, self.starts[i - run], self.ends[i - 1]))
            by_layer["working"] = n
        if self.short_from < self.n_short:
            by_layer["short_term"] = sum(self.turn_tokens[self.n_work + self.short_from:])
        if self.new_text is not None:
            by_layer["new"] = count.msg(self.new_text)
        return by_layer

    def first_total(self) -> int:
        """The total before anything is given up for the budget."""
        if self._first is None:
            self._first = self.tally()
        return sum(self._first.values())

    def render(self) -> list[ChatMessage]:
        chat = make_chat_message
        out: list[ChatMessage] = [chat("system", self.system, "system")]
        if self.core:
            out.append(chat("system", fenced(CORE_HEADER, self.core), "core"))
        if self.notes:
            out.append(chat("system", fenced(self.records_header, self.notes), "notes"))
        if self.block:
            out.append(chat("system", self.block_text(), "buffer"))
        roles, texts, bounds = self.roles, self.texts, self.bounds
        kept = self.working_kept
        append = out.append
        run = 0
        for i in range(self.n_working):
            if kept[i]:
                if run:
                    out.append(chat("system", _marker(run, self.starts[i - run],
                                                      self.ends[i - 1]), "working"))
                    run = 0
                for j in range(bounds[i], bounds[i + 1]):
                    append(chat(roles[j], texts[j], "working"))
            else:
                run += 1
        if run:
            i = self.n_working
            out.append(chat("system", _marker(run, self.starts[i - run], self.ends[i - 1]),
                            "working"))
        for j in range(bounds[self.n_work + self.short_from], bounds[-1]):
            append(chat(roles[j], texts[j], "short_term"))
        if self.new_text is not None:
            out.append(chat("user", self.new_text, "new"))
        return out

    def _turn(self, i: int) -> str:
        return f"msgs {self.starts[i]}-{self.ends[i]}"

    # giving up ----------------------------------------------------------------------------
    def finish(self) -> Context:
        budget = self.budget
        count = self.count
        rows = self.rows
        first_end = self.first_end
        short_turn = self.n_work  # index of the first short-term turn
        drop_seq: list[int] | None = None  # worked out when the budget first overflows
        next_drop = 0
        by_layer = self._first if self._first is not None else self.tally()
        total = sum(by_layer.values())
        while total > budget:
            if drop_seq is None:
                drop_seq = [i for i in drop_order(self.scores) if self.working_kept[i]]
            if next_drop < len(drop_seq):
                i = drop_seq[next_drop]
                next_drop += 1
                self.working_kept[i], self.working_reason[i] = False, "budget"
            elif self.n_working:
                # Only elision markers are left of working memory: give them up too.
                for i in range(self.n_working):
                    self.dropped.append(Dropped("turn", self._turn(i), "budget"))
                self.n_working = 0
                self.working_kept, self.working_reason = [], []
            elif self.block and len(self.lines) > 1:
                # A line that points at nothing has only its words to offer: the oldest such
                # recent line goes first. Then keep the edges: drop the oldest of the recent
                # lines, the first stretch's last.
                victim = next((e for e in self.lines if e.end != first_end and not e.record_ids),
                              None) or next((e for e in self.lines if e.end != first_end),
                                            self.lines[0])
                self.lines = [e for e in self.lines if e is not victim]
                self.extra_skipped += 1 if victim.end != first_end else 0
                self._block_text = None
                self.dropped.append(Dropped("line", f"msgs {victim.start}-{victim.end}",
                                            "budget"))
            elif self.block:
                for e in self.lines:
                    self.dropped.append(Dropped("line", f"msgs {e.start}-{e.end}", "budget"))
                # Say so even when the block held no lines (only a gap or unfiled marker): the
                # trace must explain why history that did not fit has no block.
                self.dropped.append(Dropped("block", "buffer", "budget",
                                            by_layer.get("buffer", 0)))
                self.block = False
                self.lines = []
                self._block_text = None
            elif self.notes:
                # The last-ranked notes first, as many as the excess needs (then recounted). After
                # the block: these records were chosen for this message, the lines were not.
                over = total - budget
                while self.notes and over > 0:
                    line = self.notes.pop()
                    over -= self.note_tokens.pop()
                    self.dropped.append(Dropped("record", line.split()[1], "budget"))
            elif self.short_from < self.n_short - 1:
                self.dropped.append(Dropped("turn", self._turn(short_turn + self.short_from),
                                            "budget"))
                self.short_from += 1
            elif self.core:
                self.dropped.append(Dropped("record", self.core[-1].split()[1], "budget"))
                self.core.pop()
            elif self.short_from < self.n_short:
                self.dropped.append(Dropped("turn", self._turn(short_turn + self.short_from),
                                            "budget"))
                self.short_from += 1
            elif self.new_text is not None and count(self.new_text) > 1:
                new_text = self.new_text
                room = budget - (total - count(new_text))
                cut = head_tail(new_text, max(1, min(room, count(new_text) - 1)),
                                self.tokenizer)
                self.dropped.append(Dropped("truncated", "new message", "budget",
                                            count(new_text) - count(cut)))
                self.new_text = cut
            else:
                raise BudgetTooSmall(
                    f"budget {budget} cannot hold even the system prompt and the new message "
                    f"({total} tokens); raise the budget"
                )
            by_layer = self.tally()
            total = sum(by_layer.values())

        msgs = self.render()
        tokens, bounds = self.tokens, self.bounds
        for i in range(self.n_working):
            if not self.working_kept[i]:
                self.dropped.append(Dropped("turn", self._turn(i), self.working_reason[i],
                                            sum(tokens[bounds[i]:bounds[i + 1]])))
        gap = self.skipped + self.extra_skipped if self.block else None
        starts, scores = self.starts, self.scores
        trace = Trace(
            budget=budget,
            tokens_total=total,
            tokens_by_layer={k: v for k, v in by_layer.items() if v},
            buffer_lines=to_buffer_lines(self.lines, self.cache) if self.block else (),
            gap=gap if gap else None,
            withheld=self.withheld,
            unfiled=rows.unfiled_before_window if self.block else 0,
            dropped=tuple(self.pre_dropped + self.dropped),
            window_start=rows.window[0].seq if rows.window else None,
            working_scores={starts[i]: _round4(scores[i], self.cache)
                            for i in range(self.n_working)},
        )
        return Context(messages=tuple(msgs), tools=self.tools, trace=trace)


def assemble(
    rows: ContextRows,
    policy: Policy,
    budget: int,
    now: float,
    tokenizer: Tokenizer,
    new_message: str | None = None,
    tools: Sequence[dict[str, Any]] = (),
    cache: Caches | None = None,
    notes: Sequence[Record] = (),
    matched: Sequence[Episode] = (),
) -> Context:
    """Assemble the context for the next model call. Pure: same inputs, same output.
    `cache` (a `Memory`'s `Caches`) only saves work: the output is the same without it.
    `notes` are the records to show as notes, best first (see `Policy.notes_share`);
    `matched` the buffer lines chosen for the new message (`Policy.index_lines`)."""
    del now  # decay is by turn age; `now` is part of the contract for time-based policies
    return _Assembly(rows, policy, budget, tokenizer, new_message, tools, cache=cache,
                     notes=notes, matched=matched).finish()
