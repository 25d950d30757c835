"""Anthropic's Messages API over plain HTTP.

memlane speaks OpenAI's chat format everywhere else, so this adapter translates at the edge:

- system messages become the top-level `system` text (joined in order);
- an assistant's `tool_calls` become `tool_use` blocks, and `tool` messages become `tool_result`
  blocks inside a user message;
- consecutive messages of one role are merged, because the API wants user and assistant turns to
  alternate (several tool results in a row become one user turn);
- OpenAI function schemas become `tools` entries (`name`, `description`, `input_schema`).

The API has no JSON-schema response format, so structured output (the memory step) is a forced
tool call: a tool named `memory_step` whose `input_schema` is the schema, with `tool_choice`
naming it. Its input is handed back as JSON text in `ModelReply.content`, as the other adapters do.
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

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_KEY_ENV = "ANTHROPIC_API_KEY"
API_VERSION = "2023-06-01"
STEP_TOOL = "memory_step"
# The API requires max_tokens on every request; this is what a caller that names none gets.
DEFAULT_MAX_TOKENS = 4096

_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


class AnthropicModel(HttpChatModel):
    """A Claude model behind the Messages API (or a server that copies it)."""

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
            raise UsageError(
                "AnthropicModel needs a model name, e.g. AnthropicModel('claude-3-5-haiku-latest')"
            )
        self.name = f"anthropic:{model}"
        self._connect(model, base_url, api_key, timeout=timeout, max_retries=max_retries,
                      backoff=backoff,
                      provider="Anthropic" if base_url.rstrip("/") == DEFAULT_BASE_URL
                      else f"Anthropic-compatible {base_url.rstrip('/')}")

    def _url(self) -> str:
        # Accept a base_url given with or without the version path.
        return self.base_url + ("/messages" if self.base_url.endswith("/v1") else "/v1/messages")

    def _read(self, data: Any, json_mode: bool) -> ModelReply:
        return parse_message(data, json_mode)

    def _read_stream(self, events: Iterable[Any], on_token: Callable[[str], None],
                     json_mode: bool) -> ModelReply:
        return parse_stream(events, on_token, json_mode)

    def request_body(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        stream: bool = False,
    ) -> dict[str, Any]:
        """The JSON body this adapter sends (public so tests and the proxy can see it)."""
        system, converted = convert_messages(messages)
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens if max_tokens is not None else DEFAULT_MAX_TOKENS,
            "messages": converted,
        }
        if system:
            body["system"] = system
        api_tools = convert_tools(tools or [])
        if json_schema is not None:
            api_tools.append({
                "name": STEP_TOOL,
                "description": "Record the memory step. Call it once with the complete result.",
                "input_schema": json_schema,
            })
            body["tool_choice"] = {"type": "tool", "name": STEP_TOOL}
        if api_tools:
            body["tools"] = api_tools
        if stream:
            body["stream"] = True
        return body

    def _headers(self) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        elif self._official:
            raise UsageError(f"Anthropic needs an API key: pass api_key= or set {API_KEY_ENV}")
        return headers


# --- OpenAI format -> Anthropic format --------------------------------------------------------


def convert_messages(messages: Sequence[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """OpenAI-format `messages` as Anthropic's `(system, messages)`."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role in ("system", "developer"):
            text = _text(content)
            if text:
                system.append(text)
        elif role == "user":
            _add_turn(turns, "user", _blocks(content))
        elif role == "assistant":
            blocks = _blocks(content)
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                blocks.append({
                    "type": "tool_use",
                    "id": call.get("id") or "",
                    "name": function.get("name", ""),
                    "input": parse_arguments(function.get("arguments")),
                })
            _add_turn(turns, "assistant", blocks)
        elif role == "tool":
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": message.get("tool_call_id") or "",
            }
            text = _text(content)
            if text:
                result["content"] = text
            _add_turn(turns, "user", [result])
        else:
            raise UsageError(
                f"message role {role!r} is not one of system, developer, user, assistant, tool"
            )
    for turn in turns:
        if turn["role"] == "user":
            # The API wants a user turn's tool results before any text in it.
            blocks = turn["content"]
            turn["content"] = [b for b in blocks if b.get("type") == "tool_result"] + [
                b for b in blocks if b.get("type") != "tool_result"
            ]
    return "\n\n".join(system), turns


def convert_tools(tools: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function schemas as Anthropic tools; tools already in Anthropic form pass through."""
    out = []
    for tool in tools:
        if "input_schema" in tool:
            out.append(dict(tool))
            continue
        function = tool.get("function", tool)
        if not function.get("name"):
            raise UsageError(f"tool schema has no function name: {tool!r}")
        entry: dict[str, Any] = {
            "name": function["name"],
            "input_schema": function.get("parameters") or {"type": "object", "properties": {}},
        }
        if function.get("description"):
            entry["description"] = function["description"]
        out.append(entry)
    return out


def _add_turn(turns: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    if not blocks:
        return  # the API rejects empty turns and empty text blocks
    if turns and turns[-1]["role"] == role:
        turns[-1]["content"].extend(blocks)
    else:
        turns.append({"role": role, "content": blocks})


def _blocks(content: Any) -> list[dict[str, Any]]:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks = []
    for part in content:
        kind = part.get("type")
        if kind == "text":
            if part.get("text"):
                blocks.append({"type": "text", "text": part["text"]})
        elif kind == "image_url":
            blocks.append(_image(part.get("image_url") or {}))
        else:
            blocks.append(dict(part))  # already an Anthropic block (image, document, ...)
    return blocks


def _image(image_url: Any) -> dict[str, Any]:
    url = image_url.get("url", "") if isinstance(image_url, dict) else str(image_url)
    if url.startswith("data:") and ";base64," in url:
        media_type, data = url[5:].split(";base64,", 1)
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": media_type, "data": data},
        }
    return {"type": "image", "source": {"type": "url", "url": url}}


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if isinstance(p, dict))


# --- Anthropic answers -> ModelReply ----------------------------------------------------------


def parse_message(data: Any, json_mode: bool = False) -> ModelReply:
    """A whole Messages API answer as a `ModelReply`.

    With `json_mode`, the forced `memory_step` call's input becomes `content` (JSON text) and is
    not listed among the tool calls.
    """
    if not isinstance(data, dict):
        raise ModelError(f"Anthropic answered {type(data).__name__}, not a message object")
    if data.get("type") == "error":
        raise ModelError(f"Anthropic answered with an error: {data.get('error')}")
    texts: list[str] = []
    calls: list[ToolCall] = []
    step: str | None = None
    for block in data.get("content") or []:
        kind = block.get("type")
        if kind == "text":
            texts.append(block.get("text", ""))
        elif kind == "tool_use":
            arguments = parse_arguments(block.get("input"))
            if json_mode and block.get("name") == STEP_TOOL:
                step = json.dumps(arguments, ensure_ascii=False)
            else:
                calls.append(ToolCall(block.get("id", ""), block.get("name", ""), arguments))
    return ModelReply(
        content=step if step is not None else "".join(texts),
        tool_calls=tuple(calls),
        usage=_usage(data.get("usage") or {}, Usage()),
        finish_reason=_finish(data.get("stop_reason"), bool(calls)),
        raw=data,
    )


def parse_stream(
    events: Iterable[tuple[str, str]], on_token: Callable[[str], None], json_mode: bool = False
) -> ModelReply:
    """Assemble a streamed Messages API answer from its `(event, data)` SSE pairs.

    Text arrives as `text_delta`s and tool input as `input_json_delta` fragments of one JSON
    document per block. In `json_mode` the `memory_step` fragments go to `on_token` too, so the
    streamed fragments always add up to `content`, whichever mode.
    """
    blocks: dict[int, dict[str, Any]] = {}
    usage = Usage()
    stop_reason: str | None = None
    raw: list[Any] = []
    for event, data in events:
        payload = sse_json(data, "Anthropic")
        raw.append(payload)
        kind = payload.get("type", event)
        if kind == "message_start":
            usage = _usage((payload.get("message") or {}).get("usage") or {}, usage)
        elif kind == "content_block_start":
            block = dict(payload.get("content_block") or {})
            block["parts"] = [block.pop("text", "")] if block.get("type") == "text" else []
            blocks[payload.get("index", len(blocks))] = block
        elif kind == "content_block_delta":
            block = blocks.setdefault(payload.get("index", 0), {"type": "text", "parts": []})
            delta = payload.get("delta") or {}
            if delta.get("type") == "text_delta" and delta.get("text"):
                block["parts"].append(delta["text"])
                on_token(delta["text"])
            elif delta.get("type") == "input_json_delta" and delta.get("partial_json"):
                block["parts"].append(delta["partial_json"])
                if json_mode and block.get("name") == STEP_TOOL:
                    on_token(delta["partial_json"])
        elif kind == "message_delta":
            stop_reason = (payload.get("delta") or {}).get("stop_reason") or stop_reason
            usage = _usage(payload.get("usage") or {}, usage)
        elif kind == "error":
            raise ModelError(f"Anthropic sent an error mid-stream: {payload.get('error')}")
        elif kind == "message_stop":
            break
    texts: list[str] = []
    calls: list[ToolCall] = []
    step: str | None = None
    for _, block in sorted(blocks.items()):
        joined = "".join(block["parts"])
        if block.get("type") == "text":
            texts.append(joined)
        elif block.get("type") == "tool_use":
            # No fragments means the server sent the input whole in content_block_start.
            source = joined if block["parts"] else block.get("input")
            if json_mode and block.get("name") == STEP_TOOL:
                step = joined or json.dumps(block.get("input") or {})
            else:
                calls.append(
                    ToolCall(block.get("id", ""), block.get("name", ""), parse_arguments(source))
                )
    return ModelReply(
        content=step if step is not None else "".join(texts),
        tool_calls=tuple(calls),
        usage=usage,
        finish_reason=_finish(stop_reason, bool(calls)),
        raw=raw,
    )


def _usage(data: dict[str, Any], previous: Usage) -> Usage:
    # Prompt tokens include the cached ones: they are part of what the model read, and billed.
    # In a stream, message_start carries the prompt count and message_delta the final output
    # count; a field missing (or zero) in a later event keeps the earlier value.
    prompt = sum(
        int(data.get(k) or 0)
        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    completion = int(data.get("output_tokens") or 0)
    return Usage(
        prompt_tokens=prompt or previous.prompt_tokens,
        completion_tokens=completion or previous.completion_tokens,
    )


def _finish(stop_reason: str | None, has_calls: bool) -> str:
    if stop_reason == "tool_use" and not has_calls:
        return "stop"  # the only call was the forced memory_step, handed back as content
    return _FINISH_REASONS.get(stop_reason or "end_turn", stop_reason or "stop")
