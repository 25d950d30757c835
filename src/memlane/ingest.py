"""Replaying a conversation into a thread as an agent would have lived it: append each message,
and file whatever stretches are due as it goes. Used by `memlane ingest`, `memlane import --from
chatgpt|claude`, the demo and the tests that need a filed thread.

**Messages already held are not added again.** Ingesting or importing a conversation the thread
holds already, whole or in part, appends only what it does not hold, so a second run adds
nothing: no doubled turns, no second copy of a fact, and no forgotten fact filed again from the
file's copy of the words the log no longer holds. A message is held when the thread has one
with the same role, the same text and, when the input gives a time (`ts`), the same time; a
held message whose sentences were forgotten (`[forgotten]`, `memlane.redact`) is held for any
text that reads the same around them. Messages are matched as a run, in order: the input's
first `k` messages are held when they are `k` consecutive messages of the thread that either
are all of the input (the same file again, or part of a longer thread) or reach the thread's
last message (an export that grew since: its new part is appended). The longest such run is
taken; the rest of the input is appended after the thread's last message.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .errors import StepStalled, UsageError
from .memory import Memory
from .redact import MARK
from .types import Message
from .validate import clean_text, timestamp

MAX_STARTS = 256
"""Places in the thread where the input's run is looked for (the latest ones): a thread that
repeats its first message thousands of times is not walked from each."""


def ingest(
    memory: Memory, thread_id: str, msgs: list[dict[str, Any]], step: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Append the messages the thread does not hold yet (`held_count`) one by one, filing what
    is due each time a new turn begins (it closes the turn before it), then flush: the input is
    the whole conversation, so its last turn is complete and every message given ends up filed,
    whatever the order of roles. `progress(done, total)` is called after each turn (messages
    done of all).

    Returns counts: `messages` appended, `held` (already in the thread, not added), `steps`,
    `episodes`, and `problems`: why filing could not go on (`StepStalled`); the messages are
    appended whole either way."""
    t = memory.thread(thread_id)
    log = t.messages()
    held = held_count(log, msgs)
    new = msgs[held:]
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


def held_count(log: Sequence[Message], msgs: Sequence[Mapping[str, Any]]) -> int:
    """How many of `msgs`, from the first, the thread whose messages are `log` holds already
    (the rule is in the module docstring). Pure."""
    if not log or not msgs:
        return 0
    match = _Matcher()
    starts = [s for s, h in enumerate(log) if match(h, msgs[0])][-MAX_STARTS:]
    best = 0
    for s in reversed(starts):
        k = 1
        while k < len(msgs) and s + k < len(log) and match(log[s + k], msgs[k]):
            k += 1
        if k == len(msgs):
            return k
        if s + k == len(log):
            best = max(best, k)
    return best


class _Matcher:
    """Whether a held message is an input message (`held_count`), with the patterns of
    redacted messages compiled once."""

    def __init__(self) -> None:
        self._patterns: dict[str, re.Pattern[str]] = {}

    def __call__(self, held: Message, m: Mapping[str, Any]) -> bool:
        content = m.get("content")
        if held.role != m.get("role") or not isinstance(content, str):
            return False
        try:
            ts = timestamp(m.get("ts"))
        except UsageError:
            return False  # appending it says what is wrong
        if ts is not None and abs(held.ts - ts) > 1e-3:
            return False
        text = clean_text(content)
        if held.content == text:
            return True
        if MARK not in held.content:
            return False
        pattern = self._patterns.get(held.content)
        if pattern is None:
            pattern = re.compile(".*?".join(map(re.escape, held.content.split(MARK))),
                                 re.DOTALL)
            self._patterns[held.content] = pattern
        return pattern.fullmatch(text) is not None


__all__ = ["MAX_STARTS", "held_count", "ingest"]
