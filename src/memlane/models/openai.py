"""OpenAI-compatible chat completions over plain HTTP: OpenAI, vLLM, llama.cpp server, Ollama.

One POST to `{base_url}/chat/completions`. Without `on_token` the answer comes back whole; with it
the answer streams as server-sent events, each carrying a small delta: text fragments, and tool
calls in pieces (the first piece of a call has its id and name, later pieces add to its
`arguments` string; pieces are matched to calls by `index`). The last event carries the usage
when the request asked for it with `stream_options.include_usage`.

No `openai` package: the wire format is small and stable, and the standard library keeps the core
install dependency-free. Transport (timeouts, retries, SSE) is shared with the Anthropic adapter
in `base.py`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from memlane.errors import ModelError, UsageError
from memlane.models.base import (
    ModelReply,
    ToolCall,
    Usage,
    parse_arguments,
    sse_json,
)
from memlane.models.http import HttpChatModel

DEFAULT_BASE_URL = "https://api.openai.com/v1"
API_KEY_ENV = "OPENAI_API_KEY"
STEP_SCHEMA_NAME = "memory_step"


class OpenAIModel(HttpChatModel):
    """A chat model behind an OpenAI-compatible `/chat/completions` endpoint."""

    DEFAULT_BASE_URL = DEFAULT_BASE_URL
    API_KEY_ENV = API_KEY_ENV

    def __init__(
        self,
        model: str,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        timeout: float = 60,
        max_retries: int = 3,
        *,
        backoff: float = 0.5,
    ) -> None:
        if not model:
            raise UsageError("OpenAIModel needs a model name, e.g. OpenAIModel('gpt-4o-mini')")
        official = base_url.rstrip("/") == DEFAULT_BASE_URL
        self.name = f"openai:{model}" if official else model
        self._connect(model, base_url, api_key, timeout=timeout, max_retries=max_retries,
                      backoff=backoff,
                      provider="OpenAI" if official
                      else f"OpenAI-compatible server at {base_url.rstrip('/')}")

    def _url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def _read(self, data: Any, json_mode: bool) -> ModelReply:
        return parse_reply(data)

    def _read_stream(self, events: Iterable[Any], on_token: Callable[[str], None],
                     json_mode: bool) -> ModelReply:
        return parse_stream(events, on_token)

    def request_body(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        stream: bool = False,
    ) -> dict[str, Any]:
        """The JSON body this adapter sends (public so the proxy and tests can see it)."""
        body: dict[str, Any] = {"model": self.model, "messages": wire_messages(messages)}
        if max_tokens is not None:
            # OpenAI itself deprecated `max_tokens` (reasoning models reject it); the servers that
            # copy its API (vLLM, Ollama, llama.cpp) all read `max_tokens`, not all the new name.
            body["max_completion_tokens" if self._official else "max_tokens"] = max_tokens
        if tools:
            body["tools"] = list(tools)
        if json_schema is not None:
            # strict=false: strict mode demands every property be required and
            # additionalProperties false everywhere, which memlane's optional fields are not.
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": STEP_SCHEMA_NAME, "schema": json_schema, "strict": False},
            }
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    def _headers(self) -> dict[str, str]:
        if self.api_key:
            return {"authorization": f"Bearer {self.api_key}"}
        if self._official:
            raise UsageError(
                f"OpenAI needs an API key: pass api_key= or set {API_KEY_ENV}"
            )
        # Local servers (llama.cpp, Ollama, vLLM without --api-key) want no key at all.
        return {}


def wire_messages(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` as the API wants them: tool-call arguments as JSON text, not dicts.

    memlane code may hold arguments parsed (as `ToolCall.arguments` are); the API rejects that.
    """
    out = []
    for message in messages:
        message = dict(message)
        if message.get("tool_calls"):
            message["tool_calls"] = [_call_as_text(c) for c in message["tool_calls"]]
        out.append(message)
    return out


def _call_as_text(call: dict[str, Any]) -> dict[str, Any]:
    function = call.get("function") or {}
    if isinstance(function.get("arguments"), dict):
        function = {**function, "arguments": json.dumps(function["arguments"])}
    return {**call, "function": function}


def parse_reply(data: Any) -> ModelReply:
    """A whole (non-streamed) chat completion as a `ModelReply`."""
    if not isinstance(data, dict):
        raise ModelError(f"OpenAI-compatible server answered {type(data).__name__}, not an object")
    if data.get("error") and not data.get("choices"):
        raise ModelError(f"OpenAI-compatible server answered with an error: {data['error']}")
    choices = data.get("choices") or []
    if not choices:
        raise ModelError(f"OpenAI-compatible server answered with no choices: {str(data)[:300]}")
    choice = choices[0]
    message = choice.get("message") or {}
    calls = tuple(
        ToolCall(
            id=call.get("id") or f"call_{i}",
            name=(call.get("function") or {}).get("name", ""),
            arguments=parse_arguments((call.get("function") or {}).get("arguments")),
        )
        for i, call in enumerate(message.get("tool_calls") or [])
    )
    return ModelReply(
        content=_text(message.get("content")),
        tool_calls=calls,
        usage=_usage(data.get("usage")),
        finish_reason=choice.get("finish_reason") or ("tool_calls" if calls else "stop"),
        raw=data,
    )


def parse_stream(events: Any, on_token: Callable[[str], None]) -> ModelReply:
    """Assemble a streamed chat completion from its `(event, data)` SSE pairs."""
    parts: list[str] = []
    # index -> [id, name, argument fragments]; a dict because deltas for several calls may
    # interleave and each names its call only by index.
    calls: dict[int, list[Any]] = {}
    usage = Usage()
    finish_reason: str | None = None
    chunks: list[Any] = []
    for _event, data in events:
        if data.strip() == "[DONE]":
            break
        chunk = sse_json(data, "OpenAI-compatible server")
        chunks.append(chunk)
        if chunk.get("error"):
            raise ModelError(f"OpenAI-compatible server sent an error mid-stream: {chunk['error']}")
        if chunk.get("usage"):
            usage = _usage(chunk["usage"])
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            text = delta.get("content")
            if text:
                parts.append(text)
                on_token(text)
            for piece in delta.get("tool_calls") or []:
                _add_call_piece(calls, piece)
            if choice.get("finish_reason"):
                finish_reason = choice["finish_reason"]
    tool_calls = tuple(
        ToolCall(id=cid or f"call_{i}", name=name, arguments=parse_arguments("".join(args)))
        for i, (cid, name, args) in sorted(calls.items())
    )
    return ModelReply(
        content="".join(parts),
        tool_calls=tool_calls,
        usage=usage,
        finish_reason=finish_reason or ("tool_calls" if tool_calls else "stop"),
        raw=chunks,
    )


def _add_call_piece(calls: dict[int, list[Any]], piece: dict[str, Any]) -> None:
    index = piece.get("index")
    if index is None:
        # Some servers send each call whole, without an index: a new id starts a new call.
        known = {entry[0]: i for i, entry in calls.items()}
        if piece.get("id") and piece["id"] not in known:
            index = len(calls)
        else:
            index = known.get(piece.get("id"), max(calls, default=0))
    entry = calls.setdefault(index, ["", "", []])
    if piece.get("id"):
        entry[0] = piece["id"]
    function = piece.get("function") or {}
    if function.get("name"):
        entry[1] = function["name"]
    arguments = function.get("arguments")
    if isinstance(arguments, dict):  # a few servers send parsed arguments
        arguments = json.dumps(arguments)
    if arguments:
        entry[2].append(arguments)


def _usage(data: Any) -> Usage:
    if not isinstance(data, dict):
        return Usage()
    return Usage(
        prompt_tokens=int(data.get("prompt_tokens") or 0),
        completion_tokens=int(data.get("completion_tokens") or 0),
    )


def _text(content: Any) -> str:
    # `content` is a string, null (tool calls only), or, from a few servers, a list of parts.
    if content is None:
        return ""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)
