"""Replaying a conversation into a thread as an agent would have lived it: append each message,
and file whatever stretches are due as it goes. Used by `memlane ingest`, the demo and the tests
that need a filed thread."""

from __future__ import annotations

from typing import Any

from .memory import Memory


def ingest(
    memory: Memory, thread_id: str, msgs: list[dict[str, Any]], step: bool = True
) -> dict[str, Any]:
    """Append messages one by one, filing what is due each time a new turn begins (it closes
    the turn before it), then flush: the input is the whole conversation, so its last turn is
    complete and every message given ends up filed, whatever the order of roles."""
    t = memory.thread(thread_id)
    steps = 0
    prev = None
    for m in msgs:
        t.add(m["role"], m["content"], ts=m.get("ts"), name=m.get("name"))
        if step and m["role"] == "user" and prev not in (None, "user"):
            steps += len(t.maybe_step())
        prev = m["role"]
    if step:
        steps += len(t.flush())
    return {"thread": thread_id, "messages": len(msgs), "steps": steps,
            "episodes": len(t.episodes())}
