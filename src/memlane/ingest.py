"""Replaying a conversation into a thread as an agent would have lived it: append each message,
and file whatever stretches are due as it goes. Used by `memlane ingest`, the demo and the tests
that need a filed thread."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .memory import Memory


def ingest(
    memory: Memory, thread_id: str, msgs: list[dict[str, Any]], step: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Append messages one by one, filing what is due each time a new turn begins (it closes
    the turn before it), then flush: the input is the whole conversation, so its last turn is
    complete and every message given ends up filed, whatever the order of roles.
    `progress(done, total)` is called after each turn (messages done of all)."""
    t = memory.thread(thread_id)
    steps = 0
    prev = None
    for i, m in enumerate(msgs):
        t.add(m["role"], m["content"], ts=m.get("ts"), name=m.get("name"))
        if step and m["role"] == "user" and prev not in (None, "user"):
            steps += len(t.maybe_step())
        prev = m["role"]
        if progress is not None and (i + 1 == len(msgs) or msgs[i + 1]["role"] == "user"):
            progress(i + 1, len(msgs))
    if step:
        steps += len(t.flush())
    return {"thread": thread_id, "messages": len(msgs), "steps": steps,
            "episodes": len(t.episodes())}
