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
Rounds before the last do not render messages; the counter (and the memory's `cache`) is shared
by the rounds, whose windows overlap. The rows read are bounded by the budget, never by the
thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..caches import Caches, held, hold
from ..types import Context, ContextRows, Episode, Message, Record
from .assemble import Assembly, TokenCounter, assemble, prepare
from .policy import Policy
from .tokens import MESSAGE_OVERHEAD, Tokenizer

ROUNDS = 3
"""At most this many larger windows are read after the first."""

FILL_SLACK = 4
"""Turns a fill may give up for the budget and still start the next fill where it started
(`fill_start`): a start a little over the budget ends in one round (the last round gives up its
lowest-scored working turns, as any last round does), one under it reads and prepares twice.
Measured: 4 against 0, 0.2-0.25 ms less CPU a turn at 1k and 100k messages."""

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
    cache: Caches | None = None,
    notes: Sequence[Record] | Callable[[ContextRows], Sequence[Record]] = (),
    matched: Callable[[], Sequence[Episode]] | None = None,
    opened: Callable[[ContextRows, Sequence[Episode]], Sequence[Message]] | None = None,
    start: int | None = None,
) -> tuple[Context, Policy, ContextRows]:
    """The assembled context, and the policy and rows it was assembled from. `notes` may be a
    function of the first rows read (the newest turns, the first stretch), called once;
    `matched()`, called once when the history does not fit, gives the buffer lines chosen for
    the new message (`Policy.index_lines`); `opened(rows, lines)`, called once after it, the
    evicted messages the new message matches, best first (`Policy.buffer_turns`): chosen once
    for the turn, each round passes over the ones its window holds.

    `start`: the working turns to read first instead of `policy.working_turns` (more of them,
    at most `max_working_turns`), with `fill_budget`: where the thread's last fill ended
    (`fill_start`). A conversation's window moves a turn at a time, so the fill usually ends
    where it starts, in one read and one assembly instead of two of each; from there it grows
    as it would, and over the budget it gives up what any last round gives up."""
    if (start is not None and policy.fill_budget
            and policy.working_turns < start <= policy.max_working_turns):
        policy = _with_turns(policy, start, cache)
    rows = read(policy, None)
    if callable(notes):
        notes = notes(rows)
    lines: Sequence[Episode] = matched() if matched is not None and rows.truncated else ()
    turns: Sequence[Message] = (opened(rows, lines) if opened is not None and rows.truncated
                                else ())
    if not policy.fill_budget:
        ctx = assemble(rows, policy, budget, now, tokenizer, new_message=new_message,
                       tools=tools, cache=cache, notes=notes, matched=lines, opened=turns)
        return ctx, policy, rows
    count = TokenCounter(tokenizer)  # shared by the rounds: the windows overlap
    a: Assembly | None = None
    for round_ in range(ROUNDS + 1):
        # Raises BudgetTooSmall on the first round if the fixed part alone does not fit.
        # A later round takes the layers the window does not change from the round before.
        a = prepare(rows, policy, budget, tokenizer, new_message, tools, count=count,
                    cache=cache, notes=notes, matched=lines, opened=turns, like=a)
        grown = None if round_ == ROUNDS else _grown(a, rows, policy, budget)
        if grown is None:
            break
        policy = _with_turns(policy, grown, cache)
        rows = read(policy, rows)
    assert a is not None
    return a.finish(), policy, rows


def _with_turns(policy: Policy, turns: int, cache: Caches | None) -> Policy:
    """`replace(policy, working_turns=turns)`, memoised by the policy's identity (the policy
    kept in the entry; policies are frozen): a frozen dataclass of 25 fields costs ~30 us to
    build, once or twice a turn for the same few sizes."""
    if cache is None:
        return replace(policy, working_turns=turns)
    key = (id(policy), turns)
    other: Policy | None = held(cache.policies, key, policy)
    if other is None:
        other = hold(cache.policies, key, policy, replace(policy, working_turns=turns))
    return other


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


def fill_start(ctx: Context, policy: Policy) -> int:
    """Where the next fill of the same thread, budget and policy starts (`sized_context`'s
    `start`): the working turns `policy` (the fill's last) read, less the ones given up for the
    budget past `FILL_SLACK`, so a fill that overshot by much starts the next one smaller."""
    given_up = sum(1 for d in ctx.trace.dropped if d.what == "turn" and d.reason == "budget")
    return policy.working_turns - max(0, given_up - FILL_SLACK)
