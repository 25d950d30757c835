"""The model seam: one Protocol with one method that matters.

Every adapter (OpenAI-compatible HTTP, Anthropic, the local GGUF model, the scripted test model)
turns a list of chat messages plus optional tool schemas into a `ModelReply`. Streaming is a
callback, so the agent loop stays one code path whether or not the user sees tokens as they come.

Below the seam sit the helpers the two HTTP adapters share: the SSE reader here, and the one
HTTP transport (`models/transport.py`: timeouts, retries) that the embedder and the proxy use too.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from memlane.errors import ModelError


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


# --- Helpers shared by the HTTP adapters ------------------------------------------------------
# They live here, beside the seam, so `openai.py` and `anthropic.py` stay one idea each (the
# provider's wire format); the POST with timeouts and retries is `transport.Transport`.


def iter_sse(response: Any, provider: str = "The server") -> Iterator[tuple[str, str]]:
    """Yield `(event, data)` for each server-sent event in a streamed HTTP response.

    Follows the SSE rules that matter here: `data:` lines of one event are joined with newlines,
    an empty line ends the event, lines starting with `:` are comments (keep-alive pings).
    A connection that stalls or dies mid-stream raises `ModelError`. It is not retried: tokens
    already reached `on_token`, and starting over would show the user the same words twice.
    """
    event = ""
    data: list[str] = []
    lines = iter(response)
    while True:
        try:
            raw = next(lines, None)
            line = None if raw is None else raw.decode("utf-8").rstrip("\r\n")
        except (OSError, http.client.HTTPException, ValueError) as exc:
            problem = "stalled" if isinstance(exc, TimeoutError) else f"failed ({exc!r})"
            raise ModelError(f"{provider} stream broke off: the connection {problem}") from None
        if line is None:
            break
        if not line:
            if data:
                yield event or "message", "\n".join(data)
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    if data:
        yield event or "message", "\n".join(data)


def sse_json(data: str, provider: str = "The server") -> Any:
    """One SSE event's JSON payload; `ModelError` when it is not JSON."""
    try:
        return json.loads(data)
    except ValueError:
        raise ModelError(f"{provider} streamed an event that is not JSON: {data[:200]!r}") from None


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict; text that is not a JSON object is kept as `{"_raw": text}`.

    Small models and truncated answers send broken JSON; keeping the text lets the caller show
    or repair it instead of losing the whole reply.
    """
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return {"_raw": str(raw)}
    return value if isinstance(value, dict) else {"_raw": str(raw)}
