"""The model seam: one Protocol with one method that matters.

Every adapter (OpenAI-compatible HTTP, Anthropic, the local GGUF model, the scripted test model)
turns a list of chat messages plus optional tool schemas into a `ModelReply`. Streaming is a
callback, so the agent loop stays one code path whether or not the user sees tokens as they come.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model asked for."""

    id: str
    """The provider's call id (echoed back with the result)."""
    name: str
    """Tool name, e.g. `search_memory`."""
    arguments: dict[str, Any]
    """Parsed JSON arguments (`{}` when the model sent none)."""


@dataclass(frozen=True)
class Usage:
    """Tokens the provider billed for one call."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class ModelReply:
    """One model answer."""

    content: str
    """The text of the answer (may be empty when the model only called tools)."""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str = "stop"
    raw: Any = None
    """The provider's response body, for debugging."""


class Model(Protocol):
    """Anything that answers chat messages."""

    name: str

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> ModelReply:
        """Answer `messages` (OpenAI chat format: role, content, and tool_calls / tool_call_id).

        `tools` are OpenAI-style function schemas (`{"type": "function", "function": {...}}`).
        `json_schema`, when given, asks for structured output matching it (the memory step).
        `on_token`, when given, is called with each text fragment as it streams.
        """
        ...
