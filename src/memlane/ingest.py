"""Replaying a conversation into a thread as an agent would have lived it: append each message,
and file whatever stretches are due as it goes. Used by `memlane ingest`, `memlane import --from
chatgpt|claude`, the demo and the tests that need a filed thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import StepStalled
from .memory import Memory
from .types import Message


def ingest(
    memory: Memory, thread_id: str, msgs: list[dict[str, Any]], step: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Append the messages one by one, filing what
    is due each time a new turn begins (it closes the turn before it), then flush: the input is
    the whole conversation, so its last turn is complete and every message given ends up filed,
    whatever the order of roles. `progress(done, total)` is called after each turn (messages
    done of all).

    Returns counts: `messages` appended, `held` (0), `steps`,
    `episodes`, and `problems`: why filing could not go on (`StepStalled`); the messages are
    appended whole either way."""
    t = memory.thread(thread_id)
    log: list[Message] = []
    held = 0
    new = msgs
    steps = 0
    problems: list[str] = []
    filing = step
    prev = log[-1].role if log else None
    for i, m in enumerate(new, held):
        t.add(m["role"], m["content"], ts=m.get("ts"), name=m.get("name"))
        if filing and m["role"] == "user" and prev not in (None, "user"):
            done, filing = _file(t.maybe_step, problems)
            steps += done
        prev = m["role"]
        if progress is not None and (i + 1 == len(msgs) or msgs[i + 1]["role"] == "user"):
            progress(i + 1, len(msgs))
    if filing:
        steps += _file(t.flush, problems)[0]
    return {"thread": thread_id, "messages": len(new), "held": held, "steps": steps,
            "episodes": len(t.episodes()), "problems": problems}


def _file(file: Callable[[], list[Any]], problems: list[str]) -> tuple[int, bool]:
    """Steps filed by `file()`, and whether filing can go on (not after a `StepStalled`, whose
    message goes to `problems`: the rest of the input is appended, not filed)."""
    try:
        return len(file()), True
    except StepStalled as e:
        problems.append(str(e))
        return len(e.results), False


__all__ = ["ingest"]
