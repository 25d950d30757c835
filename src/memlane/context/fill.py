"""Sizing the window to the budget: read K + W turns, and while the budget has room and older
turns exist, read more into working memory.

This is the shell around the pure assembler: `read` does the I/O (the store's bounded
`context_rows`), `assemble` decides. Each extra read is sized from the tokens per turn seen so
far, so a few rounds suffice; the rows read are bounded by the budget, never by the thread.

A round only needs the token total the assembly would reach before giving anything up (over
budget: the window is full, stop; under: grow by the room left over the tokens per turn), so
rounds before the last do not render messages: only the last assembly is finished. With
`read_sized` the store drives the rounds itself (`Store.context_rows(..., grow=...)`): it asks
the sizer after each read and extends the window it holds by the older rows it lacks, in one read
transaction, instead of reading the whole larger window again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..errors import BudgetTooSmall
from ..types import Context, ContextRows, Record
from .assemble import _Assembly, _Counter, assemble
from .policy import Policy
from .tokens import MESSAGE_OVERHEAD, Tokenizer

ROUNDS = 3


class Sizer:
    """The fill loop as a function of rows: `sizer(rows)` is the window (in turns, short-term
    included) to read next, or None when `rows` are the ones to assemble. `policy` is the policy
    the latest rows were read for."""

    def __init__(
        self,
        policy: Policy,
        budget: int,
        tokenizer: Tokenizer,
        new_message: str | None,
        tools: Sequence[dict[str, Any]],
        notes: Sequence[Record] = (),
    ) -> None:
        self.policy = policy
        self.notes = notes
        self.budget = budget
        self.tokenizer = tokenizer
        self.new_message = new_message
        self.tools = tools
        self.count = _Counter(tokenizer)  # shared by the rounds: the windows overlap
        self.rounds = 0
        self.rows: ContextRows | None = None
        self.assembly: _Assembly | None = None

    def __call__(self, rows: ContextRows) -> int | None:
        policy = self.policy
        self.rows = rows
        try:
            self.assembly = a = _Assembly(rows, policy, self.budget, self.tokenizer,
                                          self.new_message, self.tools, self.count, self.notes)
        except BudgetTooSmall:
            self.assembly = None  # `finish` assembles again and raises it
            return None
        if self.rounds >= ROUNDS or not rows.truncated or not rows.window:
            return None
        # Over budget, something is given up for it: at capacity already. At it: no room.
        spare = self.budget - a.first_total()
        if spare <= 0:
            return None
        window = rows.window
        turns = max(1, [m.role for m in window].count("user"))
        per_turn = sum([m.tokens + MESSAGE_OVERHEAD for m in window]) / turns
        extra = int(spare / max(per_turn, 1.0))
        if extra < 1:
            return None
        grown = min(policy.max_working_turns, policy.working_turns + extra)
        if grown == policy.working_turns:
            return None
        self.policy = replace(policy, working_turns=grown)
        self.rounds += 1
        return self.policy.window_turns

    def finish(self, rows: ContextRows, now: float) -> Context:
        """The context assembled from `rows`, the rows of the last call."""
        if rows is not self.rows:
            raise RuntimeError("the store returned rows the sizer did not see last")
        if self.assembly is None:
            return assemble(rows, self.policy, self.budget, now, self.tokenizer,
                            new_message=self.new_message, tools=self.tools, notes=self.notes)
        a, self.assembly = self.assembly, None
        return a.finish()


def sized_context(
    read: Callable[[Policy], ContextRows],
    policy: Policy,
    budget: int,
    now: float,
    tokenizer: Tokenizer,
    new_message: str | None = None,
    tools: Sequence[dict[str, Any]] = (),
    *,
    read_sized: Callable[[Policy, Callable[[ContextRows], int | None]], ContextRows]
    | None = None,
    notes: Sequence[Record] = (),
) -> tuple[Context, Policy, ContextRows]:
    """The assembled context, and the policy and rows it was assembled from.

    `read_sized(policy, grow)`, if given, reads the rows for `policy` and then, while
    `grow(rows)` names a larger window (in turns), the rows for that window; it returns the rows
    it gave `grow` last. Without it, each round is a separate `read`.
    """
    if not policy.fill_budget:
        rows = read(policy)
        ctx = assemble(rows, policy, budget, now, tokenizer, new_message=new_message,
                       tools=tools, notes=notes)
        return ctx, policy, rows
    sizer = Sizer(policy, budget, tokenizer, new_message, tools, notes)
    if read_sized is not None:
        rows = read_sized(policy, sizer)
    else:
        rows = read(policy)
        while sizer(rows) is not None:
            rows = read(sizer.policy)
    return sizer.finish(rows, now), sizer.policy, rows
