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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..types import Context, ContextRows, Episode, Message, Record
from .assemble import Assembly, TokenCounter, assemble, prepare
from .policy import Policy
from .tokens import MESSAGE_OVERHEAD, Tokenizer

ROUNDS = 3
"""At most this many larger windows are read after the first."""

FILL_SLACK = 4
"""Turns a fill may give up for the budget and still start the next fill where it started
(`fill_start`)."""

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
    standing: Sequence[Record] | None = None,
    cited: Mapping[int, frozenset[int]] | None = None,
) -> tuple[Context, Policy, ContextRows]:
    """The assembled context, and the policy and rows it was assembled from. `rows`: the
    rows of `policy`'s window when the caller has read them already (else `read` reads them);
    `notes`, `matched` (the buffer lines chosen for the new message, `Policy.index_lines`) and
    `opened` (the evicted messages it matches, best first, `Policy.buffer_turns`) are chosen
    once for the call from those first rows; each round passes over the ones its window
    holds. `standing`: the core layer's standing facts (`assemble`'s); `cited`: as
    `assemble.prepare`'s."""
    if rows is None:
        rows = read(policy, None)
    if not policy.fill_budget:
        ctx = assemble(rows, policy, budget, now, tokenizer, new_message=new_message,
                       tools=tools, notes=notes, matched=matched, opened=opened,
                       standing=standing, cited=cited)
        return ctx, policy, rows
    count = TokenCounter(tokenizer)  # shared by the rounds: the windows overlap
    a: Assembly | None = None
    for round_ in range(ROUNDS + 1):
        # Raises BudgetTooSmall on the first round if the fixed part alone does not fit.
        # A later round takes the layers the window does not change from the round before.
        a = prepare(rows, policy, budget, tokenizer, new_message, tools, count=count,
                    notes=notes, matched=matched, opened=opened, like=a, standing=standing,
                    cited=cited)
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


def start_policy(policy: Policy, start: int | None) -> Policy:
    """The policy a fill reads first: `policy` with `start` working turns when `start` is
    where the thread's last fill at this budget and policy ended (`fill_start`) and lies
    between the policy's working turns and `max_working_turns`.

    Not a cache: the fill's state, kept per thread by the memory whether its read cache is on
    or off. A conversation's window moves a turn at a time, so a fill started where the last
    one ended usually ends there in one read; over the budget, the last round gives up its
    lowest-scored working turns, so the window a turn shows depends on where its fill started
    (on LoCoMo at 8k tokens, starting from the policy's window every turn reached 0.7 points
    less)."""
    if (start is not None and policy.fill_budget
            and policy.working_turns < start <= policy.max_working_turns):
        return replace(policy, working_turns=start)
    return policy


def fill_start(ctx: Context, policy: Policy) -> int:
    """Where the next fill of the same thread, budget and policy starts (`start_policy`): the
    working turns `policy` (the fill's last) read, less the ones given up for the budget past
    `FILL_SLACK`, so a fill that overshot by much starts the next one smaller."""
    given_up = sum(1 for d in ctx.trace.dropped if d.what == "turn" and d.reason == "budget")
    return policy.working_turns - max(0, given_up - FILL_SLACK)
