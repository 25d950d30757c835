"""OpenAIModel against a real HTTP server on loopback that speaks the chat-completions format."""

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
from memlane.models import OpenAIModel, ToolCall, Usage, get_model

# --- a scripted chat-completions server --------------------------------------------------------


@dataclass
class Canned:
    """One answer the fake server gives, in order of arrival."""

    status: int = 200
    body: Any = None
    events: list[Any] | None = None
    """SSE: each item is sent as `data: <json>` (verbatim when a str; a float is a pause)."""
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
                answer = fake.answers.popleft() if fake.answers else Canned(500, {"error": {
                    "message": "test server: no answer queued"}})
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
                    for event in answer.events:
                        if isinstance(event, float):
                            time.sleep(event)
                            continue
                        text = event if isinstance(event, str) else f"data: {json.dumps(event)}"
                        self.wfile.write(f"{text}\n\n".encode())
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
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

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


def model(server: FakeServer, **kwargs: Any) -> OpenAIModel:
    kwargs.setdefault("api_key", "sk-test")
    kwargs.setdefault("backoff", 0.01)
    return OpenAIModel("gpt-test", base_url=server.url, **kwargs)


def completion(content: Any = "Hi there.", tool_calls: Any = None, finish: str = "stop",
               usage: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage or {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    }


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


HELLO = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello?"}]
SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search_memory",
        "description": "Search long-term memory.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
    },
}


# --- answers ------------------------------------------------------------------------------------


def test_plain_answer_and_usage(server: FakeServer) -> None:
    server.queue(Canned(body=completion("Hi there.")))
    reply = model(server).complete(HELLO, max_tokens=50)

    assert reply.content == "Hi there."
    assert reply.tool_calls == ()
    assert reply.usage == Usage(prompt_tokens=12, completion_tokens=3)
    assert reply.finish_reason == "stop"
    [seen] = server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer sk-test"
    assert seen.body == {"model": "gpt-test", "messages": HELLO, "max_tokens": 50}


def test_json_schema_becomes_response_format(server: FakeServer) -> None:
    schema = {"type": "object", "properties": {"episode": {"type": "string"}}}
    server.queue(Canned(body=completion('{"episode": "greeting"}')))
    reply = model(server).complete(HELLO, json_schema=schema)

    assert json.loads(reply.content) == {"episode": "greeting"}
    assert server.requests[0].body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "memory_step", "schema": schema, "strict": False},
    }


def test_official_endpoint_sends_max_completion_tokens() -> None:
    official = OpenAIModel("gpt-4o-mini", api_key="sk-x")
    body = official.request_body(HELLO, max_tokens=9)
    assert body["max_completion_tokens"] == 9 and "max_tokens" not in body


def test_tool_calls_parsed_and_broken_arguments_kept(server: FakeServer) -> None:
    calls = [
        {"id": "call_a", "type": "function",
         "function": {"name": "search_memory", "arguments": '{"query": "cats"}'}},
        {"id": "call_b", "type": "function",
         "function": {"name": "search_memory", "arguments": '{"query": "dogs'}},
    ]
    server.queue(Canned(body=completion(None, tool_calls=calls, finish="tool_calls")))
    reply = model(server).complete(HELLO, tools=[SEARCH_TOOL])

    assert reply.content == ""
    assert reply.finish_reason == "tool_calls"
    assert reply.tool_calls == (
        ToolCall("call_a", "search_memory", {"query": "cats"}),
        ToolCall("call_b", "search_memory", {"_raw": '{"query": "dogs'}),
    )
    assert server.requests[0].body["tools"] == [SEARCH_TOOL]


def test_parsed_arguments_in_history_are_sent_as_text(server: FakeServer) -> None:
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "find cats"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "search_memory", "arguments": {"query": "cats"}}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "no cats"},
    ]
    server.queue(Canned(body=completion("None found.")))
    model(server).complete(history)
    sent = server.requests[0].body["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(sent) == {"query": "cats"}


# --- streaming ------------------------------------------------------------------------------------


def test_streamed_text_and_final_usage_chunk(server: FakeServer) -> None:
    server.queue(Canned(events=[
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Hel"}),
        ": keep-alive comment",
        chunk({"content": "lo, "}),
        chunk({"content": "world."}),
        chunk({}, finish="stop"),
        {"object": "chat.completion.chunk", "choices": [],
         "usage": {"prompt_tokens": 21, "completion_tokens": 4}},
        "data: [DONE]",
    ]))
    tokens: list[str] = []
    reply = model(server).complete(HELLO, on_token=tokens.append)

    assert tokens == ["Hel", "lo, ", "world."]
    assert reply.content == "Hello, world."
    assert reply.usage == Usage(prompt_tokens=21, completion_tokens=4)
    assert reply.finish_reason == "stop"
    body = server.requests[0].body
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


def test_streamed_tool_call_argument_deltas(server: FakeServer) -> None:
    def call_piece(index: int, **piece: Any) -> dict[str, Any]:
        return chunk({"tool_calls": [{"index": index, **piece}]})

    server.queue(Canned(events=[
        chunk({"role": "assistant", "content": None}),
        call_piece(0, id="call_1", type="function",
                   function={"name": "search_memory", "arguments": ""}),
        call_piece(0, function={"arguments": '{"que'}),
        call_piece(1, id="call_2", type="function",
                   function={"name": "forget", "arguments": '{"id"'}),
        call_piece(0, function={"arguments": 'ry": "ca'}),
        call_piece(1, function={"arguments": ": 7}"}),
        call_piece(0, function={"arguments": 'ts"}'}),
        chunk({}, finish="tool_calls"),
        "data: [DONE]",
    ]))
    tokens: list[str] = []
    reply = model(server).complete(HELLO, tools=[SEARCH_TOOL], on_token=tokens.append)

    assert tokens == []
    assert reply.content == ""
    assert reply.finish_reason == "tool_calls"
    assert reply.tool_calls == (
        ToolCall("call_1", "search_memory", {"query": "cats"}),
        ToolCall("call_2", "forget", {"id": 7}),
    )
    assert reply.usage == Usage()  # this server sent no usage chunk


def test_error_event_mid_stream(server: FakeServer) -> None:
    server.queue(Canned(events=[chunk({"content": "Hi"}), {"error": {"message": "overloaded"}}]))
    with pytest.raises(ModelError, match="overloaded"):
        model(server).complete(HELLO, on_token=lambda t: None)


def test_on_token_errors_propagate_unchanged(server: FakeServer) -> None:
    class Cancelled(Exception):
        pass

    def cancel(token: str) -> None:
        raise Cancelled(token)

    server.queue(Canned(events=[chunk({"content": "Hi"}), "data: [DONE]"]))
    with pytest.raises(Cancelled, match="Hi"):
        model(server).complete(HELLO, on_token=cancel)


# --- retries and failures ---------------------------------------------------------------------


def test_429_is_retried_after_retry_after(server: FakeServer) -> None:
    server.queue(
        Canned(429, {"error": {"message": "Rate limit reached"}}, headers={"Retry-After": "0.3"}),
        Canned(body=completion("Made it.")),
    )
    reply = model(server, backoff=5.0).complete(HELLO)  # a 5 s backoff would fail the timing

    assert reply.content == "Made it."
    first, second = server.requests
    assert 0.3 <= second.at - first.at < 2.0


def test_retry_after_ms_is_preferred(server: FakeServer) -> None:
    server.queue(
        Canned(429, {"error": {"message": "slow down"}},
               headers={"retry-after-ms": "150", "Retry-After": "30"}),
        Canned(body=completion("ok")),
    )
    assert model(server).complete(HELLO).content == "ok"
    first, second = server.requests
    assert 0.15 <= second.at - first.at < 2.0


def test_500_then_success(server: FakeServer) -> None:
    server.queue(Canned(500, {"error": {"message": "boom"}}), Canned(body=completion("ok")))
    reply = model(server).complete(HELLO)
    assert reply.content == "ok"
    assert len(server.requests) == 2


def test_streamed_request_is_retried_before_the_stream_starts(server: FakeServer) -> None:
    server.queue(Canned(503, {"error": {"message": "warming up"}}),
                 Canned(events=[chunk({"content": "ok"}), "data: [DONE]"]))
    tokens: list[str] = []
    assert model(server).complete(HELLO, on_token=tokens.append).content == "ok"
    assert tokens == ["ok"] and len(server.requests) == 2


def test_retries_exhausted_names_the_last_failure(server: FakeServer) -> None:
    server.queue(*[Canned(502, {"error": {"message": "bad gateway"}}) for _ in range(3)])
    with pytest.raises(ModelError, match=r"after 3 attempts: HTTP 502: bad gateway"):
        model(server, max_retries=2).complete(HELLO)
    assert len(server.requests) == 3


def test_timeout_after_retries(server: FakeServer) -> None:
    server.queue(Canned(body=completion(), delay=2.0), Canned(body=completion(), delay=2.0))
    started = time.monotonic()
    with pytest.raises(ModelError, match="timed out after 0.3 s"):
        model(server, timeout=0.3, max_retries=1).complete(HELLO)
    assert time.monotonic() - started < 1.8  # gave up on each attempt, did not wait 2 s
    assert len(server.requests) == 2


def test_stream_stalling_mid_answer_is_not_retried(server: FakeServer) -> None:
    server.queue(Canned(events=[chunk({"content": "Hi"}), 1.0, chunk({"content": " again"})]))
    tokens: list[str] = []
    with pytest.raises(ModelError, match="stream broke off"):
        model(server, timeout=0.3).complete(HELLO, on_token=tokens.append)
    assert tokens == ["Hi"]  # a retry would have shown the user "Hi" twice
    assert len(server.requests) == 1


def test_400_is_not_retried_and_shows_the_server_message(server: FakeServer) -> None:
    server.queue(Canned(400, {"error": {"message": "Invalid value for 'messages'.",
                                        "type": "invalid_request_error"}}))
    with pytest.raises(ModelError, match=r"HTTP 400\): Invalid value for 'messages'\."):
        model(server).complete(HELLO)
    assert len(server.requests) == 1


def test_401_names_the_key_setting(server: FakeServer) -> None:
    server.queue(Canned(401, {"error": {"message": "Incorrect API key provided"}}))
    with pytest.raises(ModelError, match="Incorrect API key provided.*OPENAI_API_KEY"):
        model(server).complete(HELLO)


def test_connection_refused_is_retried_then_reported() -> None:
    fake = FakeServer()
    url = fake.url
    fake.close()  # nothing listens on that port any more
    unreachable = OpenAIModel("m", base_url=url, max_retries=1, backoff=0.01)
    with pytest.raises(ModelError, match="after 2 attempts: cannot connect"):
        unreachable.complete(HELLO)


# --- keys and specs -------------------------------------------------------------------------


def test_key_from_environment(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    server.queue(Canned(body=completion()))
    OpenAIModel("gpt-test", base_url=server.url).complete(HELLO)
    assert server.requests[0].headers["authorization"] == "Bearer sk-env"


def test_local_server_needs_no_key(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.queue(Canned(body=completion()))
    OpenAIModel("llama3.1:8b", base_url=server.url).complete(HELLO)
    assert "authorization" not in server.requests[0].headers


def test_openai_without_key_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UsageError, match="OPENAI_API_KEY"):
        OpenAIModel("gpt-4o-mini").complete(HELLO)


def test_get_model_specs(server: FakeServer) -> None:
    official = get_model("openai:gpt-4o-mini", api_key="sk-x")
    assert isinstance(official, OpenAIModel) and official.model == "gpt-4o-mini"
    assert official.name == "openai:gpt-4o-mini"

    compatible = get_model("qwen2.5:0.5b", base_url=server.url)
    assert isinstance(compatible, OpenAIModel)
    assert (compatible.model, compatible.base_url) == ("qwen2.5:0.5b", server.url)

    for spec in ("gpt-4o", "mistral:large", "openai"):
        with pytest.raises(UsageError, match="openai"):
            get_model(spec)


def test_get_model_without_a_key_fails_at_construction(monkeypatch) -> None:
    from memlane.errors import MissingKey

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(MissingKey, match="OPENAI_API_KEY") as e:
        get_model("openai:gpt-4o-mini")  # before any Agent could record a message
    assert e.value.env == "OPENAI_API_KEY"
    with pytest.raises(MissingKey, match="ANTHROPIC_API_KEY"):
        get_model("anthropic:claude-3-5-haiku-latest")
    # A server of one's own needs no key; an explicit key is enough.
    assert get_model("openai:m", base_url="http://127.0.0.1:9/v1").model == "m"
    assert get_model("openai:gpt-4o-mini", api_key="sk-x").model == "gpt-4o-mini"
    # As docs/AGENT.md says (it said "at the first call").
    from pathlib import Path

    doc = " ".join((Path(__file__).parents[1] / "docs" / "AGENT.md").read_text().split())
    assert "`get_model` refuses a hosted model without its key when the model is made" in doc
    with pytest.raises(UsageError, match="OPENAI_API_KEY"):
        OpenAIModel("gpt-4o-mini").complete([{"role": "user", "content": "hi"}])
