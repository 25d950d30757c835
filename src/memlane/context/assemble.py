"""Context assembly: a pure function of (stored rows, policy, budget, now).

No I/O happens here: the store reads a bounded set of rows (`ContextRows`, sized by the window,
not by the thread), and this module decides what the model sees. That keeps it easy to test, to
time, and to run over a grid of policies in the evaluation.

Order of the assembled messages (DESIGN.md section 3):
  1. system prompt + memory instructions (+ tool schemas, counted in the budget)
  2. pinned core records
  3. the buffer block, only when the history does not fit, where the evicted messages were
  4. working-memory turns, oldest first; pruned ones replaced by a short elision marker
  5. short-term turns verbatim
  6. the new message

When the budget is tight, things are given up in this order: working-memory turns (lowest decayed
score first, oldest on ties), buffer lines (the oldest of the recent ones first, the first
stretch's line last: the edges are what the model uses best), short-term turns (oldest first),
core records; last, the new message is cut head + tail. The budget is never exceeded: the total is
recounted exactly on the final messages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import BudgetTooSmall
from ..safety import MEMORY_INSTRUCTIONS, is_suspect
from ..types import ChatMessage, Context, ContextRows, Dropped, Episode, Message, Trace
from .buffer import render_block, select_lines, to_buffer_lines
from .policy import Policy
from .tokens import MESSAGE_OVERHEAD, Tokenizer
from .truncate import head_tail
from .working import Turn, drop_order, score_turns, split_turns


class _Counter:
    """Memoised token counts for one assembly (texts repeat across budget iterations)."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tk = tokenizer
        self.memo: dict[str, int] = {}

    def prime(self, texts: Sequence[str]) -> None:
        todo = [t for t in dict.fromkeys(texts) if t not in self.memo]
        for t, n in zip(todo, self.tk.count(todo), strict=True):
            self.memo[t] = n

    def __call__(self, text: str) -> int:
        n = self.memo.get(text)
        if n is None:
            n = self.memo[text] = self.tk.count([text])[0]
        return n

    def msg(self, text: str) -> int:
        return self(text) + MESSAGE_OVERHEAD


def _render(m: Message, content: str) -> ChatMessage:
    if m.role == "tool":
        # A replayed tool result has lost its call id; shown as a system note so every
        # provider accepts the message list.
        return ChatMessage("system", f"[tool result{' ' + m.name if m.name else ''}] {content}")
    return ChatMessage(m.role, content)


@dataclass
class _State:
    working_kept: list[bool]
    working_reason: list[str]
    lines: list[Episode]
    block: bool
    short_from: int
    core: list[str]
    new_text: str | None
    extra_skipped: int = 0
    dropped: list[Dropped] = field(default_factory=list)


def assemble(
    rows: ContextRows,
    policy: Policy,
    budget: int,
    now: float,
    tokenizer: Tokenizer,
    new_message: str | None = None,
    tools: Sequence[dict[str, Any]] = (),
) -> Context:
    """Assemble the context for the next model call. Pure: same inputs, same output."""
    del now  # decay is by turn age; `now` is part of the contract for time-based policies
    count = _Counter(tokenizer)
    count.prime([m.content for m in rows.window] + ([new_message] if new_message else []))

    system = policy.system_prompt
    if policy.memory_instructions:
        system = f"{system}\n\n{MEMORY_INSTRUCTIONS}" if system else MEMORY_INSTRUCTIONS
    tools = tuple(tools) if policy.use_tools else ()
    # Tool schemas are counted as compact JSON: providers bill their own rendering of them,
    # which is terser than JSON, so this stays an upper bound without padding the budget.
    tools_tokens = count(json.dumps(list(tools), separators=(",", ":"))) if tools else 0
    fixed = count.msg(system) + tools_tokens
    if fixed + (MESSAGE_OVERHEAD + 1 if new_message else 0) > budget:
        raise BudgetTooSmall(
            f"budget {budget} is too small: the system prompt and tool schemas alone take "
            f"{fixed} tokens; raise the budget or shorten Policy.system_prompt"
        )

    # Oversize turns: replayed as head + tail, the full text stays in the store.
    contents: dict[int, str] = {}
    pre_dropped: list[Dropped] = []
    for m in rows.window:
        n = count(m.content)
        if n > policy.max_message_tokens:
            contents[m.seq] = head_tail(m.content, policy.max_message_tokens, tokenizer, n)
            pre_dropped.append(Dropped("truncated", f"msg {m.seq}", "oversize",
                                       n - count(contents[m.seq])))
        else:
            contents[m.seq] = m.content

    turns = split_turns(rows.window)
    k = min(policy.short_term_turns, len(turns))
    short = turns[len(turns) - k:] if k else []
    working = turns[: len(turns) - k]
    scores = score_turns(working, len(turns) - 1, policy.half_life_turns,
                         policy.default_relevance)
    kept = [True] * len(working)
    reason = [""] * len(working)
    if policy.use_working:
        for i, s in enumerate(scores):
            if s < policy.prune_below:
                kept[i], reason[i] = False, "low_relevance"

    core: list[str] = []
    withheld = 0
    core_used = 0
    for r in rows.pinned:
        if r.suspect or is_suspect(r.text):
            withheld += 1
            continue
        line = f"- #{r.id} {r.text}"
        if core_used + count(line) > policy.core_tokens:
            pre_dropped.append(Dropped("record", f"#{r.id}", "core_budget", count(line)))
            continue
        core.append(line)
        core_used += count(line)

    lines: list[Episode] = []
    skipped = 0
    show_block = rows.truncated and policy.use_buffer
    if show_block:
        lines, skipped, w = select_lines(rows, policy.buffer_lines)
        withheld += w
    first_end = rows.first_episode.end if rows.first_episode else None

    st = _State(kept, reason, lines, show_block, 0, core, new_message)

    def build() -> tuple[list[ChatMessage], dict[str, int]]:
        out: list[ChatMessage] = [ChatMessage("system", system, "system")]
        by_layer = {"system": count.msg(system), "tools": tools_tokens}

        def add(msg: ChatMessage) -> None:
            out.append(msg)
            by_layer[msg.layer] = by_layer.get(msg.layer, 0) + count.msg(msg.content)

        if st.core:
            add(ChatMessage("system", "Core memory (notes, not the user's words):\n"
                            + "\n".join(st.core), "core"))
        if st.block:
            add(ChatMessage("system", render_block(st.lines, skipped + st.extra_skipped,
                                                   rows.unfiled_before_window, first_end),
                            "buffer"))
        run: list[Turn] = []

        def flush() -> None:
            if run:
                a, b = run[0].seq, run[-1].end
                add(ChatMessage("system", f"[{len(run)} earlier turn{'s' if len(run) > 1 else ''}"
                                f" elided from working memory (msgs {a}-{b})]", "working"))
                run.clear()

        for i, t in enumerate(working):
            if st.working_kept[i]:
                flush()
                for m in t.messages:
                    add(ChatMessage(_render(m, contents[m.seq]).role,
                                    _render(m, contents[m.seq]).content, "working"))
            else:
                run.append(t)
        flush()
        for t in short[st.short_from:]:
            for m in t.messages:
                r = _render(m, contents[m.seq])
                add(ChatMessage(r.role, r.content, "short_term"))
        if st.new_text is not None:
            add(ChatMessage("user", st.new_text, "new"))
        return out, by_layer

    def total(by_layer: dict[str, int]) -> int:
        return sum(by_layer.values())

    drop_seq = [i for i in drop_order(scores) if st.working_kept[i]]
    msgs, by_layer = build()
    while total(by_layer) > budget:
        if drop_seq:
            i = drop_seq.pop(0)
            st.working_kept[i], st.working_reason[i] = False, "budget"
        elif working:
            # Only elision markers are left of working memory: give them up too.
            for t in working:
                st.dropped.append(Dropped("turn", f"msgs {t.seq}-{t.end}", "budget"))
            working = []
            st.working_kept, st.working_reason = [], []
        elif st.block and len(st.lines) > 1:
            # Keep the edges: drop the oldest of the recent lines, the first stretch's last.
            victim = next((e for e in st.lines if e.end != first_end), st.lines[0])
            st.lines = [e for e in st.lines if e is not victim]
            st.extra_skipped += 1 if victim.end != first_end else 0
            st.dropped.append(Dropped("line", f"msgs {victim.start}-{victim.end}", "budget"))
        elif st.block:
            for e in st.lines:
                st.dropped.append(Dropped("line", f"msgs {e.start}-{e.end}", "budget"))
            # Say so even when the block held no lines (only a gap or unfiled marker): the
            # trace must explain why history that did not fit has no block.
            st.dropped.append(Dropped("block", "buffer", "budget", by_layer.get("buffer", 0)))
            st.block = False
            st.lines = []
        elif st.short_from < len(short) - 1:
            t = short[st.short_from]
            st.dropped.append(Dropped("turn", f"msgs {t.seq}-{t.end}", "budget"))
            st.short_from += 1
        elif st.core:
            st.dropped.append(Dropped("record", st.core[-1].split()[1], "budget"))
            st.core.pop()
        elif st.short_from < len(short):
            t = short[st.short_from]
            st.dropped.append(Dropped("turn", f"msgs {t.seq}-{t.end}", "budget"))
            st.short_from += 1
        elif st.new_text is not None and count(st.new_text) > 1:
            room = budget - (total(by_layer) - count(st.new_text))
            cut = head_tail(st.new_text, max(1, min(room, count(st.new_text) - 1)), tokenizer)
            st.dropped.append(Dropped("truncated", "new message", "budget",
                                      count(st.new_text) - count(cut)))
            st.new_text = cut
        else:
            raise BudgetTooSmall(
                f"budget {budget} cannot hold even the system prompt and the new message "
                f"({total(by_layer)} tokens); raise the budget"
            )
        msgs, by_layer = build()

    for i, t in enumerate(working):
        if not st.working_kept[i]:
            st.dropped.append(Dropped("turn", f"msgs {t.seq}-{t.end}", st.working_reason[i],
                                      sum(count(contents[m.seq]) for m in t.messages)))
    gap = skipped + st.extra_skipped if st.block else None
    trace = Trace(
        budget=budget,
        tokens_total=total(by_layer),
        tokens_by_layer={k: v for k, v in by_layer.items() if v},
        buffer_lines=to_buffer_lines(st.lines) if st.block else (),
        gap=gap if gap else None,
        withheld=withheld,
        unfiled=rows.unfiled_before_window if st.block else 0,
        dropped=tuple(pre_dropped + st.dropped),
        window_start=rows.window[0].seq if rows.window else None,
        working_scores={t.seq: round(s, 4) for t, s in zip(working, scores, strict=False)},
    )
    return Context(messages=tuple(msgs), tools=tools, trace=trace)
