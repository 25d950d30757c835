"""A conversation going on, for the benchmarks that time or compare the live turn
(`bench_turn_trees.py --live`, `turn_instructions.py --live`, `turns_same.py`). They run in a
child process with the tree under test first on the path, so this module imports nothing of
memlane: any tree's `Thread` will do."""

from __future__ import annotations

from typing import Any


def user_turns(th: Any) -> list[str]:
    """The thread's user messages, oldest first (the benchmark threads hold at most 6,000
    messages' worth of them read here): the new messages a conversation sends again."""
    return [m.content for m in th.messages(1, 6000) if m.role == "user"]


def go_on(th: Any, message: str) -> None:
    """What a proxied turn writes after its context call, untimed: the user's message, a reply,
    and the memory step when a stretch is due (the heuristic, in-process), so the store's
    revision moves every few turns and what the turn memoises under it is caught up."""
    th.add("user", message)
    th.add("assistant", "Noted: " + message[:60])
    if th.step_due():
        th.step()
