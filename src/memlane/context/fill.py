"""Sizing the window to the budget: read K + W turns, and while the budget has room and older
turns exist, read more into working memory.

This is the read path of `Thread.context`, top to bottom:

1. `read(policy, None)`: the store returns the rows of the policy's window (`ContextRows`: the
   window plus one probe message, the episodes before it, the pinned records), one bounded read.
2. Without `Policy.fill_budget` the rows are assembled (`assemble`) and that is the context.
3. Otherwise the rows are prepared for assembly (`prepare`: every layer built and counted) and
   the token total before anything is given up is taken. Over budget, or the whole thread already in
   view: done. Under: working memory grows by the room left over the tokens per turn seen so far,
   and `read(bigger, rows)` returns the rows of the larger window; the store reads only the older
   messages it lacks (the caller hands back what it has). At most `ROUNDS` times.
4. The last prepared assembly gives things up until it fits and renders (`finish`).

The store is called and returns: sizing and assembling never run inside its lock or transaction.
Rounds before the last do not render messages; the token counter is shared by the rounds, whose
windows overlap. The rows read are bounded by the budget, never by the thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..types import Context, ContextRows, Episode, Message, Record
from .assemble import Assembly, TokenCounter, assemble, prepare
from .policy import Policy
from .tokens import MESSAGE_OVERHEAD, Tokenizer

ROUNDS = 3
"""At most this many larger windows are read after the first."""

Read = Callable[[Policy, "ContextRows | None"], ContextRows]
"""`read(policy, held)`: the rows of `policy`'s window; `held`, when given, are the rows of a
smaller window of the same thread read just before, which the store may extend instead of reading
them again (`Store.context_rows(..., held=...)`)."""


def sized_context(
    read: Read,
    policy: Policy,
    budget: int,
    now: float,
    tokenizer: Tokenizer,
    new_message: str | None = None,
    tools: Sequence[dict[str, Any]] = (),
    *,
    rows: ContextRows | None = None,
    notes: Sequence[Record] = (),
    matched: Sequence[Episode] = (),
    opened: Sequence[Message] = (),
) -> tuple[Context, Policy, ContextRows]:
    """The assembled context, and the policy and rows it was assembled from. `rows`: the
    rows of `policy`'s window when the caller has read them already (else `read` reads them);
    `notes`, `matched` (the buffer lines chosen for the new message, `Policy.index_lines`) and
    `opened` (the evicted messages it matches, best first, `Policy.buffer_turns`) are chosen
    once for the call from those first rows; each round passes over the ones its window
    holds."""
    if rows is None:
        rows = read(policy, None)
    if not policy.fill_budget:
        ctx = assemble(rows, policy, budget, now, tokenizer, new_message=new_message,
                       tools=tools, notes=notes, matched=matched, opened=opened)
        return ctx, policy, rows
    count = TokenCounter(tokenizer)  # shared by the rounds: the windows overlap
    a: Assembly | None = None
    for round_ in range(ROUNDS + 1):
        # Raises BudgetTooSmall on the first round if the fixed part alone does not fit.
        # A later round takes the layers the window does not change from the round before.
        a = prepare(rows, policy, budget, tokenizer, new_message, tools, count=count,
                    notes=notes, matched=matched, opened=opened, like=a)
        grown = None if round_ == ROUNDS else _grown(a, rows, policy, budget)
        if grown is None:
            break
        policy = replace(policy, working_turns=grown)
        rows = read(policy, rows)
    assert a is not None
    return a.finish(), policy, rows


def _grown(a: Assembly, rows: ContextRows, policy: Policy, budget: int) -> int | None:
    """The working turns of the next, larger window, or None when `rows` are the ones to
    assemble (the whole thread is in view, or the budget has no room for one more turn)."""
    if not rows.truncated or not rows.window:
        return None
    # Over budget, something is given up for it: at capacity already. At it: no room.
    spare = budget - a.total
    if spare <= 0:
        return None
    window = rows.window
    turns = max(1, [m.role for m in window].count("user"))
    per_turn = sum([m.tokens + MESSAGE_OVERHEAD for m in window]) / turns
    extra = int(spare / max(per_turn, 1.0))
    if extra < 1:
        return None
    grown = min(policy.max_working_turns, policy.working_turns + extra)
    return None if grown == policy.working_turns else grown
