"""Models for tests: a queue of canned replies, and a plain function.

`ScriptedModel` answers each call with the next reply queued by `enqueue()` and records what it
was asked, so a test can assert both what the agent did with an answer and what it sent. Running
out of replies is an error, not a default answer: a test that calls the model more often than it
planned should fail loudly.

`FunctionModel` wraps a function of `(messages, tools, json_schema)` for tests whose answer
depends on the question.
"""

from __future__ import annotations

import copy
import re
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from memlane.errors import ModelError
from memlane.models.base import ModelReply

Reply = str | ModelReply | Callable[[Sequence[dict[str, Any]]], ModelReply | str]
"""What `ScriptedModel.enqueue` takes: text, a whole reply, or a function of the messages."""

ReplyFunction = Callable[
    [Sequence[dict[str, Any]], Sequence[dict[str, Any]] | None, dict[str, Any] | None],
    ModelReply | str,
]
"""What `FunctionModel` wraps: `(messages, tools, json_schema) -> reply`."""


@dataclass(frozen=True)
class ScriptedCall:
    """One call a test model received."""

    messages: list[dict[str, Any]]
    """A deep copy of the messages, as they were at call time."""
    tools: list[dict[str, Any]] | None
    json_schema: dict[str, Any] | None
    max_tokens: int | None
    streamed: bool
    """Whether the caller passed `on_token`."""


class ScriptedModel:
    """Answers from a queue of replies, in order, and records every call in `.calls`."""

    def __init__(self, *replies: Reply, name: str = "scripted") -> None:
        self.name = name
        self.calls: list[ScriptedCall] = []
        self._queue: deque[Reply] = deque(replies)
        # Agents may call the model from worker threads (the memory step runs in the background).
        self._lock = threading.Lock()

    def enqueue(self, *replies: Reply) -> ScriptedModel:
        """Queue replies for the next calls; returns the model, for chaining."""
        with self._lock:
            self._queue.extend(replies)
        return self

    @property
    def pending(self) -> int:
        """Replies queued and not yet used."""
        return len(self._queue)

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> ModelReply:
        call = _record(messages, tools, json_schema, max_tokens, on_token)
        with self._lock:
            self.calls.append(call)
            if not self._queue:
                raise ModelError(
                    f"ScriptedModel has no reply queued for call #{len(self.calls)} "
                    f"(last message: {_last_text(messages)!r}); enqueue() one reply per call "
                    "the test expects"
                )
            reply = self._queue.popleft()
        if callable(reply):
            reply = reply(call.messages)
        return _deliver(reply, on_token)


class FunctionModel:
    """Answers with `fn(messages, tools, json_schema)`; records every call in `.calls`."""

    def __init__(self, fn: ReplyFunction, name: str = "function") -> None:
        self.name = name
        self.fn = fn
        self.calls: list[ScriptedCall] = []
        self._lock = threading.Lock()

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> ModelReply:
        call = _record(messages, tools, json_schema, max_tokens, on_token)
        with self._lock:
            self.calls.append(call)
        return _deliver(self.fn(call.messages, call.tools, call.json_schema), on_token)


def words(text: str) -> list[str]:
    """`text` cut into word-sized fragments (each with its leading whitespace) that join back."""
    return [piece for piece in re.split(r"(?=(?<=\S)\s)", text) if piece]


def _record(
    messages: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]] | None,
    json_schema: dict[str, Any] | None,
    max_tokens: int | None,
    on_token: Callable[[str], None] | None,
) -> ScriptedCall:
    # Deep copies: callers reuse and mutate their message lists, and a test asserting on what
    # was sent must see it as it was at call time.
    return ScriptedCall(
        messages=copy.deepcopy(list(messages)),
        tools=copy.deepcopy(list(tools)) if tools is not None else None,
        json_schema=copy.deepcopy(json_schema),
        max_tokens=max_tokens,
        streamed=on_token is not None,
    )


def _deliver(reply: Any, on_token: Callable[[str], None] | None) -> ModelReply:
    if isinstance(reply, str):
        reply = ModelReply(content=reply)
    if not isinstance(reply, ModelReply):
        raise ModelError(
            f"a scripted reply must be a str or ModelReply, got {type(reply).__name__}; "
            "fix the enqueued reply or function"
        )
    if on_token is not None:
        for fragment in words(reply.content):
            on_token(fragment)
    return reply


def _last_text(messages: Sequence[dict[str, Any]]) -> str:
    if not messages:
        return ""
    content = messages[-1].get("content")
    text = content if isinstance(content, str) else str(content)
    return text if len(text) <= 80 else text[:77] + "..."
