"""memlane's public test support: a scripted OpenAI-compatible upstream (a real HTTP server on
loopback, not a mock) and an ASGI app run on loopback in a thread.

    def script(request: dict) -> Reply:
        return Reply(content="hello")

    with FakeUpstream(script) as up, serve_in_thread(create_app(...)) as base_url:
        OpenAI(base_url=base_url + "/v1", api_key=key).chat.completions.create(...)

Used by memlane's own tests, its benchmarks and docs/INTEGRATIONS.md; for testing an agent, or
an application behind the proxy, without a model. `FakeUpstream` and `Reply` need nothing beyond
the standard library; `serve_in_thread` needs the `server` extra (uvicorn).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """What the scripted upstream answers."""

    content: str | None = None
    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    """(name, arguments) pairs."""
    usage: tuple[int, int] = (10, 5)
    """(prompt_tokens, completion_tokens)."""
    finish_reason: str | None = None
    """The finish reason to report (default: `tool_calls` or `stop`)."""
    delay: float = 0.0
    """Seconds to wait before answering (a slow or hung upstream)."""
    status: int = 200
    """Answer with this HTTP status and `body` instead (an upstream error)."""
    body: bytes = b""
    """The raw body sent with a status other than 200."""
    headers: tuple[tuple[str, str], ...] = ()
    """Extra response headers (e.g. `Retry-After`)."""
    drop_after: int | None = None
    """Streaming: close the connection after this many chunks, without finishing."""
    plain: bool = False
    """Streaming: answer with one JSON body instead of an event stream."""
    pace: float = 0.0
    """Streaming: seconds between chunks (a slow writer)."""


@dataclass
class FakeUpstream:
    """An OpenAI-compatible `/v1/chat/completions` on 127.0.0.1 that answers from `script`.

    Streams like OpenAI does when asked: a role chunk, the content in pieces, each tool call as
    an id+name piece and argument pieces, a finish chunk, the usage chunk when
    `stream_options.include_usage` is set, then `[DONE]`. Every request body is kept in
    `requests`, in order.
    """

    script: Callable[[dict[str, Any]], Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    """The headers of every request (chat completions and the rest), in order."""
    models: tuple[str, ...] = ("fake-model",)
    """What `GET /v1/models` lists."""
    _server: ThreadingHTTPServer | None = None
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def listing(self, path: str) -> dict[str, Any] | None:
        """What `GET path` answers: the model list (/v1/models), one model (/v1/models/ID)."""
        def model(m: str) -> dict[str, Any]:
            return {"id": m, "object": "model", "created": 0, "owned_by": "fake"}

        if path == "/v1/models":
            return {"object": "list", "data": [model(m) for m in self.models]}
        name = path.removeprefix("/v1/models/")
        return model(name) if name in self.models else None

    @property
    def url(self) -> str:
        assert self._server is not None, "start the upstream first (use it as a context manager)"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeUpstream:
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # As real servers do (uvicorn, nginx, Go's net/http): headers and body go out as two
            # writes, and with Nagle on, a kept-alive client's delayed ACK holds the body 40 ms.
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, data: bytes, kind: str = "application/json",
                      extra: tuple[tuple[str, str], ...] = ()) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                for k, v in extra:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                upstream.headers.append(dict(self.headers.items()))
                found = upstream.listing(self.path.rstrip("/"))
                if found is not None:
                    self._send(200, json.dumps(found).encode())
                else:
                    self._send(404, b'{"error": {"message": "no such path", "type": "nf"}}')

            def do_DELETE(self) -> None:  # noqa: N802 - http.server's naming
                upstream.headers.append(dict(self.headers.items()))
                self._send(200, json.dumps({"deleted": self.path}).encode())

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                upstream.headers.append(dict(self.headers.items()))
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(200, json.dumps({"path": self.path, "echo": json.loads(raw)})
                               .encode())
                    return
                body = json.loads(raw)
                upstream.requests.append(body)
                reply = upstream.script(body)
                n = next(upstream._ids)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    self._send(reply.status, reply.body, extra=reply.headers)
                elif body.get("stream") and not reply.plain:
                    self._stream(body, reply, n)
                else:
                    self._send(200, json.dumps(upstream.completion(body, reply, n)).encode(),
                               extra=reply.headers)

            def _stream(self, body: dict[str, Any], reply: Reply, n: int) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                for i, chunk in enumerate(upstream.chunks(body, reply, n)):
                    if reply.drop_after is not None and i >= reply.drop_after:
                        return  # the connection closes mid-answer
                    if reply.pace and i:
                        time.sleep(reply.pace)
                    try:
                        self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                        self.wfile.flush()
                    except OSError:
                        return  # the proxy hung up (its client left)
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @staticmethod
    def _calls(reply: Reply, n: int) -> list[dict[str, Any]]:
        return [{"id": f"call_{n}_{i}", "type": "function",
                 "function": {"name": name, "arguments": json.dumps(args)}}
                for i, (name, args) in enumerate(reply.tool_calls)]

    def completion(self, body: dict[str, Any], reply: Reply, n: int) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            msg["tool_calls"] = self._calls(reply, n)
        return {
            "id": f"chatcmpl-fake-{n}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "fake"), "system_fingerprint": "fp_fake",
            "choices": [{"index": 0, "message": msg, "logprobs": None,
                         "finish_reason": reply.finish_reason or
                         ("tool_calls" if reply.tool_calls else "stop")}],
            "usage": {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1],
                      "total_tokens": sum(reply.usage)},
        }

    def chunks(self, body: dict[str, Any], reply: Reply, n: int) -> Iterator[dict[str, Any]]:
        head = {"id": f"chatcmpl-fake-{n}", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": body.get("model", "fake"),
                "system_fingerprint": "fp_fake"}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {**head, "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                         "finish_reason": finish}]}

        yield chunk({"role": "assistant", "content": ""})
        text = reply.content or ""
        for i in range(0, len(text), 7):
            yield chunk({"content": text[i:i + 7]})
        for i, c in enumerate(self._calls(reply, n)):
            args = c["function"]["arguments"]
            half = len(args) // 2
            yield chunk({"tool_calls": [{"index": i, "id": c["id"], "type": "function",
                                         "function": {"name": c["function"]["name"],
                                                      "arguments": ""}}]})
            yield chunk({"tool_calls": [{"index": i, "function": {"arguments": args[:half]}}]})
            yield chunk({"tool_calls": [{"index": i, "function": {"arguments": args[half:]}}]})
        yield chunk({}, reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"))
        if (body.get("stream_options") or {}).get("include_usage"):
            yield {**head, "choices": [], "usage": {
                "prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1],
                "total_tokens": sum(reply.usage)}}


@contextmanager
def serve_in_thread(app: Any, host: str = "127.0.0.1", timeout: float = 10.0) -> Iterator[str]:
    """Run `app` with uvicorn on a free loopback port; yields the base URL."""
    import uvicorn

    from .server.conn import uvicorn_options

    server = uvicorn.Server(uvicorn.Config(app, host=host, port=0, log_level="warning",
                                           lifespan="on", **uvicorn_options()))
    thread = threading.Thread(target=server.run, name="memlane-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)
