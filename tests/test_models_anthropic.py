"""AnthropicModel: message conversion, and calls against a real loopback server speaking the
Messages API (whole and streamed answers, tool use, the forced memory_step tool, retries)."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from memlane.errors import ModelError, UsageError
from memlane.models import AnthropicModel, ToolCall, Usage, get_model
from memlane.models.anthropic import convert_messages, convert_tools

# --- a scripted Messages API server --------------------------------------------------------------
# (The same shape as the OpenAI test's server; kept separate so each test file reads alone.)


@dataclass
class Canned:
    status: int = 200
    body: Any = None
    events: list[tuple[str, Any]] | None = None
    """SSE: `(event name, payload)` pairs."""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any
    at: float


class FakeServer:
    def __init__(self) -> None:
        self.answers: deque[Canned] = deque()
        self.requests: list[Seen] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"null")
                fake.requests.append(
                    Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body,
                         time.monotonic())
                )
                answer = fake.answers.popleft() if fake.answers else Canned(500, {
                    "type": "error", "error": {"type": "api_error", "message": "nothing queued"}})
                time.sleep(answer.delay)
                try:
                    self._send(answer)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

            def _send(self, answer: Canned) -> None:
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                if answer.events is not None:
                    self.send_header("content-type", "text/event-stream")
                    self.end_headers()
                    for name, payload in answer.events:
                        data = json.dumps({"type": name, **payload})
                        self.wfile.write(f"event: {name}\ndata: {data}\n\n".encode())
                        self.wfile.flush()
                    return
                payload = json.dumps(answer.body).encode()
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def queue(self, *answers: Canned) -> None:
        self.answers.extend(answers)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    fake = FakeServer()
    yield fake
    fake.close()


def model(server: FakeServer, **kwargs: Any) -> AnthropicModel:
    kwargs.setdefault("api_key", "sk-ant-test")
    kwargs.setdefault("backoff", 0.01)
    return AnthropicModel("claude-test", base_url=server.url, **kwargs)


def message(*content: dict[str, Any], stop: str = "end_turn", usage: Any = None) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": list(content),
        "stop_reason": stop,
        "usage": usage or {"input_tokens": 25, "output_tokens": 6},
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def api_error(kind: str, msg: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": msg}}


HELLO = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello?"}]
SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search_memory",
        "description": "Search long-term memory.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
    },
}
STEP_SCHEMA = {"type": "object", "properties": {"episode": {"type": "string"}}}


# --- conversion -------------------------------------------------------------------------------


def test_messages_convert_to_anthropic_turns() -> None:
    system, turns = convert_messages([
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "Find my cat's name."},
        {"role": "system", "content": "Memory: the user has a cat."},
        {"role": "user", "content": [{"type": "text", "text": "Please."}]},
        {"role": "assistant", "content": "Searching.", "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "search_memory", "arguments": '{"query": "cat"}'}},
            {"id": "c2", "type": "function",
             "function": {"name": "search_memory", "arguments": {"query": "pet"}}},
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": "Luna"},
        {"role": "tool", "tool_call_id": "c2", "content": "a cat"},
        {"role": "user", "content": "Well?"},
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": "Her name is Luna."},
    ])

    assert system == "You are helpful.\n\nMemory: the user has a cat."
    assert turns == [
        {"role": "user", "content": [text("Find my cat's name."), text("Please.")]},
        {"role": "assistant", "content": [
            text("Searching."),
            {"type": "tool_use", "id": "c1", "name": "search_memory", "input": {"query": "cat"}},
            {"type": "tool_use", "id": "c2", "name": "search_memory", "input": {"query": "pet"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": "Luna"},
            {"type": "tool_result", "tool_use_id": "c2", "content": "a cat"},
            text("Well?"),
        ]},
        {"role": "assistant", "content": [text("Her name is Luna.")]},
    ]


def test_tool_results_come_first_in_a_merged_user_turn() -> None:
    _, turns = convert_messages([
        {"role": "user", "content": "note this"},
        {"role": "tool", "tool_call_id": "c9", "content": "done"},
    ])
    assert [b["type"] for b in turns[0]["content"]] == ["tool_result", "text"]


def test_unknown_role_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="'narrator'"):
        convert_messages([{"role": "narrator", "content": "Once upon a time"}])


def test_tools_convert_to_input_schema() -> None:
    assert convert_tools([SEARCH_TOOL]) == [{
        "name": "search_memory",
        "description": "Search long-term memory.",
        "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}},
    }]
    bare = {"type": "function", "function": {"name": "now"}}
    assert convert_tools([bare]) == [
        {"name": "now", "input_schema": {"type": "object", "properties": {}}}
    ]


# --- answers ----------------------------------------------------------------------------------


def test_plain_answer_headers_and_usage(server: FakeServer) -> None:
    server.queue(Canned(body=message(text("Hi "), text("there."))))
    reply = model(server).complete(HELLO, max_tokens=64)

    assert reply.content == "Hi there."
    assert reply.usage == Usage(prompt_tokens=25, completion_tokens=6)
    assert reply.finish_reason == "stop"
    [seen] = server.requests
    assert seen.path == "/v1/messages"
    assert seen.headers["x-api-key"] == "sk-ant-test"
    assert seen.headers["anthropic-version"] == "2023-06-01"
    assert seen.body == {
        "model": "claude-test",
        "max_tokens": 64,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": [text("Hello?")]}],
    }


def test_cached_prompt_tokens_count_as_prompt(server: FakeServer) -> None:
    usage = {"input_tokens": 5, "cache_read_input_tokens": 100,
             "cache_creation_input_tokens": 20, "output_tokens": 7}
    server.queue(Canned(body=message(text("ok"), usage=usage)))
    assert model(server).complete(HELLO).usage == Usage(125, 7)


def test_tool_use_answer(server: FakeServer) -> None:
    server.queue(Canned(body=message(
        text("Let me look."),
        {"type": "tool_use", "id": "toolu_1", "name": "search_memory", "input": {"query": "cat"}},
        stop="tool_use",
    )))
    reply = model(server).complete(HELLO, tools=[SEARCH_TOOL])

    assert reply.content == "Let me look."
    assert reply.tool_calls == (ToolCall("toolu_1", "search_memory", {"query": "cat"}),)
    assert reply.finish_reason == "tool_calls"
    assert server.requests[0].body["tools"] == convert_tools([SEARCH_TOOL])
    assert "tool_choice" not in server.requests[0].body


def test_json_schema_is_a_forced_memory_step_tool(server: FakeServer) -> None:
    server.queue(Canned(body=message(
        {"type": "tool_use", "id": "toolu_2", "name": "memory_step",
         "input": {"episode": "said hello"}},
        stop="tool_use",
    )))
    reply = model(server).complete(HELLO, json_schema=STEP_SCHEMA)

    assert json.loads(reply.content) == {"episode": "said hello"}
    assert reply.tool_calls == ()
    assert reply.finish_reason == "stop"
    body = server.requests[0].body
    assert body["tool_choice"] == {"type": "tool", "name": "memory_step"}
    assert body["tools"][-1]["name"] == "memory_step"
    assert body["tools"][-1]["input_schema"] == STEP_SCHEMA


# --- streaming ---------------------------------------------------------------------------------


def stream_start(input_tokens: int = 30) -> tuple[str, Any]:
    return ("message_start", {"message": {
        "id": "msg_2", "type": "message", "role": "assistant", "content": [],
        "stop_reason": None, "usage": {"input_tokens": input_tokens, "output_tokens": 1}}})


def test_streamed_text(server: FakeServer) -> None:
    server.queue(Canned(events=[
        stream_start(30),
        ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
        ("ping", {}),
        ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "Hel"}}),
        ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "lo!"}}),
        ("content_block_stop", {"index": 0}),
        ("message_delta", {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}}),
        ("message_stop", {}),
    ]))
    tokens: list[str] = []
    reply = model(server).complete(HELLO, on_token=tokens.append)

    assert tokens == ["Hel", "lo!"]
    assert reply.content == "Hello!"
    assert reply.usage == Usage(prompt_tokens=30, completion_tokens=9)
    assert reply.finish_reason == "stop"
    assert server.requests[0].body["stream"] is True


def test_streamed_tool_use_input_json_deltas(server: FakeServer) -> None:
    server.queue(Canned(events=[
        stream_start(),
        ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "Looking."}}),
        ("content_block_stop", {"index": 0}),
        ("content_block_start", {"index": 1, "content_block": {
            "type": "tool_use", "id": "toolu_9", "name": "search_memory", "input": {}}}),
        ("content_block_delta", {"index": 1, "delta": {
            "type": "input_json_delta", "partial_json": '{"query": '}}),
        ("content_block_delta", {"index": 1, "delta": {
            "type": "input_json_delta", "partial_json": '"cat"}'}}),
        ("content_block_stop", {"index": 1}),
        ("content_block_start", {"index": 2, "content_block": {
            "type": "tool_use", "id": "toolu_10", "name": "search_memory", "input": {}}}),
        ("content_block_delta", {"index": 2, "delta": {
            "type": "input_json_delta", "partial_json": '{"query": "d'}}),
        ("content_block_stop", {"index": 2}),
        ("message_delta", {"delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 40}}),
        ("message_stop", {}),
    ]))
    tokens: list[str] = []
    reply = model(server).complete(HELLO, tools=[SEARCH_TOOL], on_token=tokens.append)

    assert tokens == ["Looking."]
    assert reply.content == "Looking."
    assert reply.tool_calls == (
        ToolCall("toolu_9", "search_memory", {"query": "cat"}),
        ToolCall("toolu_10", "search_memory", {"_raw": '{"query": "d'}),
    )
    assert reply.finish_reason == "tool_calls"
    assert reply.usage == Usage(prompt_tokens=30, completion_tokens=40)


def test_streamed_memory_step_fragments_add_up_to_content(server: FakeServer) -> None:
    server.queue(Canned(events=[
        stream_start(),
        ("content_block_start", {"index": 0, "content_block": {
            "type": "tool_use", "id": "toolu_3", "name": "memory_step", "input": {}}}),
        ("content_block_delta", {"index": 0, "delta": {
            "type": "input_json_delta", "partial_json": '{"episode": "sa'}}),
        ("content_block_delta", {"index": 0, "delta": {
            "type": "input_json_delta", "partial_json": 'id hello"}'}}),
        ("content_block_stop", {"index": 0}),
        ("message_delta", {"delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 12}}),
        ("message_stop", {}),
    ]))
    tokens: list[str] = []
    reply = model(server).complete(HELLO, json_schema=STEP_SCHEMA, on_token=tokens.append)

    assert "".join(tokens) == reply.content
    assert json.loads(reply.content) == {"episode": "said hello"}
    assert reply.tool_calls == () and reply.finish_reason == "stop"


def test_error_event_mid_stream(server: FakeServer) -> None:
    server.queue(Canned(events=[
        stream_start(),
        ("error", {"error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ]))
    with pytest.raises(ModelError, match="Overloaded"):
        model(server).complete(HELLO, on_token=lambda t: None)


# --- retries and failures ---------------------------------------------------------------------


def test_429_is_retried_after_retry_after(server: FakeServer) -> None:
    server.queue(
        Canned(429, api_error("rate_limit_error", "Too many requests"),
               headers={"retry-after": "0.3"}),
        Canned(body=message(text("ok"))),
    )
    assert model(server, backoff=5.0).complete(HELLO).content == "ok"
    first, second = server.requests
    assert 0.3 <= second.at - first.at < 2.0


def test_529_overloaded_then_success(server: FakeServer) -> None:
    server.queue(Canned(529, api_error("overloaded_error", "Overloaded")),
                 Canned(body=message(text("ok"))))
    assert model(server).complete(HELLO).content == "ok"
    assert len(server.requests) == 2


def test_500_then_streamed_success(server: FakeServer) -> None:
    server.queue(
        Canned(500, api_error("api_error", "Internal server error")),
        Canned(events=[
            stream_start(),
            ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
            ("message_stop", {}),
        ]),
    )
    assert model(server).complete(HELLO, on_token=lambda t: None).content == "ok"
    assert len(server.requests) == 2


def test_timeout_after_retries(server: FakeServer) -> None:
    server.queue(Canned(body=message(text("late")), delay=2.0),
                 Canned(body=message(text("late")), delay=2.0))
    started = time.monotonic()
    with pytest.raises(ModelError, match="timed out after 0.3 s"):
        model(server, timeout=0.3, max_retries=1).complete(HELLO)
    assert time.monotonic() - started < 1.8  # gave up on each attempt, did not wait 2 s
    assert len(server.requests) == 2


def test_400_shows_the_server_message_without_retrying(server: FakeServer) -> None:
    server.queue(Canned(400, api_error("invalid_request_error",
                                       "messages: roles must alternate")))
    with pytest.raises(ModelError, match=r"HTTP 400\): messages: roles must alternate"):
        model(server).complete(HELLO)
    assert len(server.requests) == 1


# --- keys and specs -------------------------------------------------------------------------


def test_key_from_environment(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    server.queue(Canned(body=message(text("ok"))))
    AnthropicModel("claude-test", base_url=server.url + "/v1").complete(HELLO)
    assert server.requests[0].headers["x-api-key"] == "sk-ant-env"
    assert server.requests[0].path == "/v1/messages"  # a base_url ending in /v1 works too


def test_anthropic_without_key_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(UsageError, match="ANTHROPIC_API_KEY"):
        AnthropicModel("claude-3-5-haiku-latest").complete(HELLO)


def test_get_model_anthropic() -> None:
    claude = get_model("anthropic:claude-3-5-haiku-latest", api_key="k")
    assert isinstance(claude, AnthropicModel)
    assert (claude.model, claude.name) == ("claude-3-5-haiku-latest",
                                           "anthropic:claude-3-5-haiku-latest")
    with pytest.raises(UsageError, match="names no model"):
        get_model("anthropic:")
