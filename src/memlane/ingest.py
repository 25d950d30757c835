"""Replaying a conversation into a thread as an agent would have lived it: append each message,
and after each complete turn file whatever stretches are due. Used by `memlane ingest`, the demo
and the tests that need a filed thread."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .memory import Memory


def ingest(
    memory: Memory, thread_id: str, msgs: list[dict[str, Any]], step: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Append messages one by one; after each complete turn (the next message is a user's, or
    the input ends), file whatever stretches are due, as an agent would after its reply.
    `progress(done, total)` is called after each turn (messages done of all)."""
    t = memory.thread(thread_id)
    steps = 0
    for i, m in enumerate(msgs):
        t.add(m["role"], m["content"], ts=m.get("ts"), name=m.get("name"))
        turn_done = i + 1 == len(msgs) or msgs[i + 1]["role"] == "user"
        if step and turn_done:
            steps += len(t.maybe_step())
        if progress is not None and turn_done:
            progress(i + 1, len(msgs))
    return {"thread": thread_id, "messages": len(msgs), "steps": steps,
            "episodes": len(t.episodes())}
