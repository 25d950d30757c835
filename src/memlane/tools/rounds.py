"""One tool-loop round, run by the turn core (`memlane.tools.turn`) for the agent and the
proxy's JSON and streaming paths.

A round starts from a model answer that calls tools: each call is executed (memlane's memory
tools here, through `MemoryTools`; anything else by the caller's `execute`), each result is cut
to a token bound, and the round hands back what the model is sent next: the assistant message
with the calls, then one `tool` message per call, in the calls' order. The surfaces differ
only in where the calls come from (a `ModelReply`, a JSON body, SSE pieces) and in what they
do with calls that are not memlane's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..context.tokens import Tokenizer
from ..context.truncate import head_tail
from ..models.base import ToolCall
from ..tool_schemas import MEMORY_TOOL_NAMES
from .handlers import MemoryTools


@dataclass(frozen=True)
class ToolCallRecord:
    """One tool call executed during a turn."""

    id: str
    """The call id the model gave (echoed in the tool message)."""
    name: str
    """The tool's name."""
    arguments: dict[str, Any]
    """The parsed arguments (`{"_raw": text}` when they were not a JSON object)."""
    result: Any
    """What the tool returned (before it was cut to the round's bound for the model)."""
    error: str | None
    """The error the model was shown, if the call failed."""
    round: int
    """Which model call (0-based) asked for it."""
    kind: str
    """`memory`, `app` or `unknown`."""


def run_memory_call(tools: MemoryTools, call: ToolCall, rnd: int) -> ToolCallRecord:
    """Execute one call of a memory tool. Never raises: bad arguments and unknown ids come back
    as an error the model is shown, with what to do instead."""
    args = dict(call.arguments)
    if set(args) == {"_raw"}:
        return ToolCallRecord(call.id, call.name, args, None,
                              f"arguments are not a JSON object: {args['_raw'][:200]!r}",
                              rnd, "memory")
    result = tools.call(call.name, args)
    err = result.get("error") if isinstance(result, dict) else None
    return ToolCallRecord(call.id, call.name, args, result, str(err) if err else None, rnd,
                          "memory")


def result_text(rec: ToolCallRecord, max_tokens: int, tokenizer: Tokenizer) -> str:
    """A call's result as the model sees it: JSON (or the error), at most `max_tokens`."""
    body = {"error": rec.error} if rec.error else rec.result
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
    return head_tail(text, max_tokens, tokenizer)


def tool_round(
    content: str | None,
    calls: Sequence[ToolCall],
    execute: Callable[[ToolCall], ToolCallRecord | str],
    max_tokens: int,
    tokenizer: Tokenizer,
) -> tuple[list[dict[str, Any]], list[ToolCallRecord]]:
    """Run one round: `execute` each call (a record, or a result text the caller produced
    itself); returns the messages to append for the next model call, and the records.

    Arguments stay parsed in the assistant message (`wire_messages` turns them into JSON text
    for an HTTP API)."""
    results: list[str] = []
    records: list[ToolCallRecord] = []
    for c in calls:
        out = execute(c)
        if isinstance(out, str):
            results.append(out)
        else:
            records.append(out)
            results.append(result_text(out, max_tokens, tokenizer))
    messages: list[dict[str, Any]] = [{
        "role": "assistant", "content": content,
        "tool_calls": [{"id": c.id, "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments}} for c in calls],
    }]
    messages += [{"role": "tool", "tool_call_id": c.id, "content": r}
                 for c, r in zip(calls, results, strict=True)]
    return messages, records


__all__ = ["MEMORY_TOOL_NAMES", "ToolCallRecord", "result_text", "run_memory_call", "tool_round"]
