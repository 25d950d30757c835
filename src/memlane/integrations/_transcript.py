"""What the framework adapters share: tool calls in the message log, and the way back.

memlane's log holds conversation as text. A model's tool call is kept as a line
`[tool call NAME(ARGUMENTS)]` in the assistant's message (the form the OpenAI-compatible proxy
writes too), its result as a `tool` message named after the tool. Assembly replays a tool result
as a system note `[tool result NAME] ...`, which every provider accepts whatever came before it.

A framework wants more: a call and its output as two linked items (Agents SDK `function_call` +
`function_call_output`, pydantic-ai `ToolCallPart` + `ToolReturnPart`). `replay()` gives them
back, paired: a call line followed, in the same turn, by a result of the same tool becomes a
`Call` with that output. A call without its result, or a result without its call (its turn was
cut), stays text: a provider refuses a call that has no output, and text is always accepted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..types import ChatMessage

_CALL = re.compile(r"^\[tool call ([A-Za-z0-9_.:-]{1,128})\((.*)\)\]$")
_RESULT = re.compile(r"^\[tool result(?: ([A-Za-z0-9_.:-]{1,128}))?\] ?", re.S)


def call_line(name: str, arguments: object) -> str:
    """How a tool call is written into the assistant's message in the log."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return f"[tool call {name}({args})]"


@dataclass(frozen=True)
class Said:
    """A message replayed as text."""

    role: str
    """`system`, `user` or `assistant` (memlane's notes, elision markers and unpaired tool
    results are `system`)."""
    text: str
    """Its content as assembled."""
    layer: str
    """The memory layer it came from (see `ChatMessage.layer`)."""


@dataclass(frozen=True)
class Call:
    """A past tool call and its output, replayed as a linked pair."""

    call_id: str
    """An id linking the two, made up for this replay (the log does not keep wire ids)."""
    name: str
    """The tool's name."""
    arguments: str
    """The call's arguments, as the model wrote them (JSON text)."""
    output: str
    """The tool's result as assembled (a long one is cut head + tail)."""


def replay(messages: Sequence[ChatMessage]) -> list[Said | Call]:
    """An assembled context as text messages and paired tool calls, in order."""
    out: list[Said | Call] = []
    used: set[int] = set()
    n = 0
    for i, m in enumerate(messages):
        if i in used:
            continue
        if m.role != "assistant" or "[tool call " not in m.content:
            out.append(Said(m.role, m.content, m.layer))
            continue
        # The results that follow this message (before the next non-result) are its candidates.
        results: list[tuple[int, str | None, str]] = []
        j = i + 1
        while j < len(messages) and messages[j].role == "system":
            r = _RESULT.match(messages[j].content)
            if r is None:
                break
            results.append((j, r.group(1), messages[j].content[r.end():]))
            j += 1
        text: list[str] = []
        calls: list[Call] = []
        for line in m.content.split("\n"):
            c = _CALL.match(line)
            match = None
            if c is not None:
                match = next((r for r in results if r[0] not in used and r[1] == c.group(1)),
                             None)
            if c is None or match is None:
                text.append(line)
                continue
            used.add(match[0])
            n += 1
            calls.append(Call(f"memlane_call_{n}", c.group(1), c.group(2), match[2]))
        if any(t.strip() for t in text):
            out.append(Said("assistant", "\n".join(text).strip("\n"), m.layer))
        out.extend(calls)
    return out


def user_words(given: object) -> str | None:
    """The user's own words of a framework's turn, for the memory tools' rule
    (`MemoryTools.user_turn`): the last user item of an Agents SDK turn input (text or
    `input_text` parts), or a pydantic-ai prompt (text, or its text parts). None: not known."""
    if isinstance(given, str):
        return given
    if not isinstance(given, Sequence):
        return None
    users = [i for i in given if isinstance(i, dict) and i.get("role") == "user"]
    if users:
        content = users[-1].get("content")
        if isinstance(content, str):
            return content
        given = content if isinstance(content, list) else []
    parts = [p if isinstance(p, str) else p.get("text") if isinstance(p, dict) else None
             for p in given]
    texts = [p for p in parts if isinstance(p, str)]
    return "\n".join(texts) if texts else None
