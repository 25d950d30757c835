"""Sizing the window to the budget: read K + W turns, and while the budget has room and older
turns exist, read more into working memory.

This is the shell around the pure assembler: `read` does the I/O (the store's bounded
`context_rows`), `assemble` decides. Each extra read is sized from the tokens per turn seen so
far, so a few rounds suffice; the rows read are bounded by the budget, never by the thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..types import Context, ContextRows
from .assemble import assemble
from .policy import Policy
from .tokens import MESSAGE_OVERHEAD, Tokenizer

ROUNDS = 3


def sized_context(
    read: Callable[[Policy], ContextRows],
    policy: Policy,
    budget: int,
    now: float,
    tokenizer: Tokenizer,
    new_message: str | None = None,
    tools: Sequence[dict[str, Any]] = (),
) -> tuple[Context, Policy, ContextRows]:
    """The assembled context, and the policy and rows it was assembled from."""
    rows = read(policy)
    ctx = assemble(rows, policy, budget, now, tokenizer, new_message=new_message, tools=tools)
    if not policy.fill_budget:
        return ctx, policy, rows
    for _ in range(ROUNDS):
        spare = budget - ctx.trace.tokens_total
        if not rows.truncated or spare <= 0 or not rows.window:
            break
        if any(d.reason == "budget" for d in ctx.trace.dropped):
            break  # already at capacity
        turns = max(1, sum(1 for m in rows.window if m.role == "user"))
        per_turn = sum(m.tokens + MESSAGE_OVERHEAD for m in rows.window) / turns
        extra = int(spare / max(per_turn, 1.0))
        if extra < 1:
            break
        grown = min(policy.max_working_turns, policy.working_turns + extra)
        if grown == policy.working_turns:
            break
        bigger = replace(policy, working_turns=grown)
        rows2 = read(bigger)
        ctx2 = assemble(rows2, bigger, budget, now, tokenizer, new_message=new_message,
                        tools=tools)
        policy, rows, ctx = bigger, rows2, ctx2
    return ctx, policy, rows
