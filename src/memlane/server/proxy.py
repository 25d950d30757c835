"""The OpenAI-compatible `/v1/chat/completions` proxy: memory for any agent by changing its
base URL.

One request, one turn:

1. The thread is the `X-Memlane-Thread` header, else the `user` field, and the request holds it
   (`Thread.hold`) until the answer is recorded: one turn per thread at a time, across service
   processes on PostgreSQL. The client may send only the new message or its whole history each
   time: what it sends is lined up with the stored log (`align`): a new turn is appended, a
   resent turn is answered again with the new answer replacing the old, and a history that
   departs from the log continues the thread from the point of departure.
2. The history is replaced by the assembled context (`Thread.context` with the new user
   message, within the budget), the client's system message becomes the system prompt, and
   memlane's memory tools are added beside the client's own. The user's message is recorded
   before the upstream is called, so a failed call never loses it.
3. The upstream (any OpenAI-compatible server) answers. Calls of memlane's tools are executed
   here and fed back, for at most `max_tool_rounds` rounds; on the last round the memory tools
   are not offered, so the model has to answer. Calls of tools the client defined go back to the
   client untouched (memlane's own calls are taken out of that answer).
4. The answer goes back in the upstream's own format, with its `id`, `model` and `usage`:
   as one JSON body, or as the upstream's SSE chunks forwarded as they arrive. Then the answer
   (with any tool exchange the client ran during the turn) is recorded and, when a stretch is
   due, the memory step runs on the background worker, out of the reply's latency path. A
   stream is recorded only if the upstream finished it; otherwise the client gets an error
   event and no `[DONE]`.

The upstream is called once per round, within `upstream_timeout`: its 4xx answers reach the
client as they are (status, body, `Retry-After`), 5xx and unreachable upstreams are 502 with its
message, a timeout is 504; the upstream's URL is logged, never sent to the client. Other
`/v1/...` endpoints are passed through when the operator allows them (`Proxy.passthrough`:
model listing by default, `memlane serve --passthrough ROUTE` for more). docs/AGENT.md has
the rules in full.

The turn is the agent's: the proxy drives the same core (`memlane.tools.turn.TurnLoop`) and
writes the same ledger row (`memlane.tools.answer`) as `memlane.agent.Agent`; what differs is
wire format. The agent speaks the `Model` protocol, which reduces an answer to text and tool
calls; the proxy hands back the upstream's own chunks and fields, and the client's tool calls
to the client. The memory step is the same one (`Service.submit_step`, then the `StepRunner`
every surface files through, with the extractor `memlane serve` configured: the upstream model
with the heuristic as fallback, or the heuristic alone).

The modules, by job: `align` (the sent messages against the log), `prepare` (a request made into
a `Turn`), `turns` (the JSON and SSE adapters of the turn core, and recording the answer),
`upstream` (HTTP or in-process model), `sse` (event plumbing); this one is the endpoints.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Iterator, Mapping
from contextlib import ExitStack
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match

from ..errors import UsageError
from ..memory import Memory, Thread
from ..models.base import Model
from .base import ApiError, Service, namespace_of, read_json
from .openapi import ERROR_SCHEMA, problems
from .prepare import Turn, prepare_turn
from .sse import HeldStream
from .turns import complete, relay, request_body
from .upstream import (
    DELETABLE,
    PASSED_HEADERS,
    HttpUpstream,
    ModelUpstream,
    UpstreamRefused,
    passthrough_routes,
    upstream_path,
)

log = logging.getLogger("memlane.proxy")

THREAD_HEADER = "x-memlane-thread"

_ROLES = ["system", "developer", "user", "assistant", "tool", "function"]
CHAT_REQUEST: dict[str, Any] = {
    "type": "object",
    "required": ["messages"],
    "properties": {
        "model": {"type": "string", "maxLength": 200},
        "messages": {
            "type": "array", "minItems": 1, "maxItems": 100_000,
            "items": {
                "type": "object", "required": ["role"],
                "properties": {
                    "role": {"type": "string", "enum": _ROLES},
                    "content": {"anyOf": [{"type": "string"}, {"type": "null"},
                                          {"type": "array", "items": {"type": "object"}}]},
                    "name": {"type": "string", "maxLength": 200},
                    "tool_calls": {"type": "array", "items": {"type": "object"}},
                    "tool_call_id": {"type": "string"},
                },
            },
        },
        "user": {"type": "string", "minLength": 1, "maxLength": 200,
                 "description": "the memlane thread id, unless the X-Memlane-Thread header "
                                "names it"},
        "stream": {"type": ["boolean", "null"]},
        "n": {"type": ["integer", "null"], "minimum": 1, "maximum": 1},
        "tools": {
            "type": ["array", "null"], "maxItems": 128,
            "items": {"type": "object", "required": ["function"], "properties": {
                "type": {"type": "string"},
                "function": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 64}}}}},
        },
    },
}

OPENAPI_PATH: dict[str, Any] = {
    "/v1/chat/completions": {
        "post": {
            "operationId": "chatCompletions",
            "summary": "OpenAI-compatible chat completions with memory (the proxy)",
            "description": "Send what you would send to OpenAI; name the conversation with the "
                           "X-Memlane-Thread header or `user`. The answer is the upstream's, "
                           "JSON or SSE (`stream: true`).",
            "tags": ["proxy"],
            "parameters": [
                {"name": "X-Memlane-Thread", "in": "header", "required": False,
                 "schema": {"type": "string", "minLength": 1, "maxLength": 200}},
                {"name": "X-Memlane-Budget", "in": "header", "required": False,
                 "schema": {"type": "integer", "minimum": 1, "maximum": 10_000_000}},
            ],
            "requestBody": {"required": True,
                            "content": {"application/json": {"schema": CHAT_REQUEST}}},
            "responses": {
                "200": {"description": "The upstream's answer",
                        "content": {"application/json": {"schema": {"type": "object"}},
                                    "text/event-stream": {"schema": {"description":
                                        "chat.completion.chunk objects, then [DONE]"}}}},
                **{code: {"description": text,
                          "content": {"application/json": {"schema": ERROR_SCHEMA}}}
                   for code, text in (("400", "Invalid request"), ("401", "Bad API key"),
                                      ("413", "Body too large"),
                                      ("429", "The upstream's rate limit, passed through "
                                              "with its Retry-After (as are its other 4xx)"),
                                      ("502", "The upstream failed"),
                                      ("503", "No upstream configured"))},
            },
        }
    }
}


class Proxy:
    """`POST /v1/chat/completions`, and the other `/v1/...` endpoints passed to the upstream."""

    def __init__(self, svc: Service, model: Model | None = None) -> None:
        """Forwards to `svc.config.upstream` (an OpenAI-compatible base URL), or, given `model`,
        to that model in-process (e.g. the local GGUF model)."""
        self.svc = svc
        cfg = svc.config
        self.upstream: HttpUpstream | ModelUpstream | None
        if model is not None:
            self.upstream = ModelUpstream(model)
        elif cfg.upstream:
            self.upstream = HttpUpstream(cfg.upstream, cfg.upstream_timeout)
        else:
            self.upstream = None
        self.passes = passthrough_routes(cfg.passthrough)

    def _auth(self, headers: Mapping[str, str]) -> dict[str, str]:
        # memlane's own key never goes upstream. Without keys (dev mode) the client's bearer is
        # not memlane's, so it is the client's key for the upstream, passed on.
        if self.svc.config.upstream_key:
            return {"authorization": f"Bearer {self.svc.config.upstream_key}"}
        if self.svc.auth.dev and headers.get("authorization"):
            return {"authorization": headers["authorization"]}
        return {}

    def _require_upstream(self) -> HttpUpstream | ModelUpstream:
        if self.upstream is None:
            raise ApiError(503, "this memlane server has no upstream model: start it with "
                                "`memlane serve --upstream URL` (or --upstream local)",
                           "upstream_not_configured")
        return self.upstream

    async def endpoint(self, request: Request) -> Response:
        started = time.perf_counter()
        # A turn's work, from here to its answer, less its waits on the upstream: background
        # memory steps wait for it (`Service.foreground`).
        with self.svc.foreground.busy():
            return await self._endpoint(request, started)

    async def _endpoint(self, request: Request, started: float) -> Response:
        body = await read_json(request, self.svc.config.max_body)
        self._require_upstream()
        found = problems(CHAT_REQUEST, body, "body")
        if found:
            raise ApiError(400, "invalid chat completion request", "invalid_request_error",
                           found)
        mem = self.svc.mem(namespace_of(request))
        headers = dict(request.headers)
        if not body.get("stream"):
            try:
                data, upstream_s, turn = await self.svc.in_thread(self._answer, mem, body,
                                                                 headers)
            except UpstreamRefused as e:
                return e.response()
            # memlane's own time: everything from the request's arrival to the answer, except
            # the upstream calls (queueing for a pool thread and for the thread's turn included).
            own = time.perf_counter() - started - upstream_s
            return JSONResponse(data, headers={"Server-Timing": _timing(own, upstream_s),
                                               **turn.headers})
        try:
            turn, first, held = await self.svc.in_thread(self._begin_stream, mem, body,
                                                              headers)
        except UpstreamRefused as e:
            return e.response()
        try:
            # Headers go before the answer: the timing covers the preparation only.
            prepared = time.perf_counter() - started
            chunks = self._stream(turn, first, held)
            # A response that is never sent at all still lets go of the thread when collected.
            weakref.finalize(chunks, held.close)
            return HeldStream(chunks, held, self.svc.in_thread,
                              media_type="text/event-stream",
                              headers={"Cache-Control": "no-cache",
                                       "Server-Timing": _timing(prepared), **turn.headers})
        except BaseException:
            held.close()
            raise

    # one thread at a time ----------------------------------------------------------------------
    def _hold(self, mem: Memory, body: dict[str, Any], headers: Mapping[str, str]
              ) -> tuple[Thread, ExitStack]:
        """The request's thread, held until the returned stack closes: a thread's turns run one
        after another (across processes on a shared PostgreSQL), so question and answer pair."""
        thread_id = headers.get(THREAD_HEADER) or body.get("user")
        if not isinstance(thread_id, str) or not thread_id.strip():
            raise UsageError("name the conversation: send the X-Memlane-Thread header or the "
                             "`user` field (memlane keeps one memory thread per name)")
        thread = mem.thread(thread_id)  # as sent: an id with spaces at its ends is refused
        held = ExitStack()
        held.enter_context(thread.hold())
        return thread, held

    def _answer(self, mem: Memory, body: dict[str, Any], headers: Mapping[str, str]
                ) -> tuple[dict[str, Any], float, Turn]:
        thread, held = self._hold(mem, body, headers)
        with self.svc.foreground.busy(), held:
            turn = prepare_turn(self.svc, mem, thread, body, headers,
                                self._auth(headers))
            data, upstream_s = complete(self.svc, self._require_upstream(), turn)
            return data, upstream_s, turn

    def _begin_stream(self, mem: Memory, body: dict[str, Any], headers: Mapping[str, str]
                      ) -> tuple[Turn, Any, ExitStack]:
        thread, held = self._hold(mem, body, headers)
        try:
            fg = self.svc.foreground
            with fg.busy():
                turn = prepare_turn(self.svc, mem, thread, body, headers,
                                    self._auth(headers))
                with fg.waiting():
                    first = self._require_upstream().open_stream(
                        request_body(turn, turn.messages, False, True), turn.auth)
        except BaseException:
            held.close()
            raise
        return turn, first, held

    def _stream(self, turn: Turn, first: Any, held: ExitStack) -> Iterator[bytes]:
        """The relayed chunks; the thread is held until the stream ends, however it ends."""
        try:
            yield from relay(self.svc, self._require_upstream(), turn, first)
        finally:
            held.close()

    # other endpoints ---------------------------------------------------------------------------
    def _allowed(self, method: str, path: str) -> None:
        """403 unless the operator passes this route (`ServerConfig.passthrough`): a request
        passed on goes out with the operator's key, so a namespace key alone never decides."""
        if any(r.allows(method, path) for r in self.passes):
            return
        verb = "GET" if method == "HEAD" else method
        raise ApiError(403, f"{verb} /v1/{path[:80]} is not passed to the upstream by this "
                            "server (by default only GET /v1/models and /v1/models/ID): the "
                            "operator can allow it with `memlane serve --passthrough "
                            f"'{verb} {path[:80]}'` (or $MEMLANE_PASSTHROUGH)",
                       "passthrough_not_allowed")

    async def passthrough(self, request: Request) -> Response:
        """`/v1/models`, and what the operator allows (`ServerConfig.passthrough`): sent to the
        upstream unchanged (with the upstream's key), its answer returned unchanged. Only a
        normalised path under /v1/ (`upstream_path`), a method the OpenAI API uses on it, and
        a route on the operator's allowlist are forwarded: the request goes out with the
        operator's key, so it must not reach anything else upstream."""
        path = upstream_path(request.scope)
        for route in request.app.routes:
            # A path memlane serves, with another method: 405, as the router would say.
            if getattr(route, "endpoint", None) != self.passthrough and \
                    route.matches(request.scope)[0] == Match.PARTIAL:
                methods = sorted(getattr(route, "methods", None) or ())
                raise HTTPException(405, headers={"Allow": ", ".join(methods)})
        if path == "memlane" or path.startswith("memlane/"):
            raise ApiError(404, f"no such endpoint: {request.url.path} (see /openapi.json)",
                           "not_found")
        if self.upstream is None:
            raise ApiError(404, f"no such endpoint: {request.url.path} (with `memlane serve "
                                "--upstream URL`, other /v1 endpoints go to the upstream)",
                           "not_found")
        upstream = self.upstream
        if isinstance(upstream, ModelUpstream):
            if path == "models" and request.method == "GET":
                return JSONResponse({"object": "list", "data": [
                    {"id": upstream.name, "object": "model", "created": 0,
                     "owned_by": "memlane"}]})
            raise ApiError(404, f"/v1/{path} is not served by the in-process model "
                                f"{upstream.name} (only /v1/chat/completions and /v1/models)",
                           "not_found")
        if request.method == "DELETE" and not DELETABLE.fullmatch(path):
            raise HTTPException(405, headers={"Allow": "GET, POST"})
        self._allowed(request.method, path)
        data: bytes | None = None
        if request.method not in ("GET", "HEAD", "DELETE"):
            chunks = []
            size = 0
            async for chunk in request.stream():
                size += len(chunk)
                if size > self.svc.config.max_body:
                    await read_json(request, 0)  # raises the 413
                chunks.append(chunk)
            data = b"".join(chunks)
        query = request.url.query
        target = path + (f"?{query}" if query else "")
        headers = {k: v for k, v in request.headers.items()
                   if k.lower() in ("content-type", "accept", "openai-organization",
                                    "openai-project", "openai-beta")}
        headers.update(self._auth(request.headers))

        def send() -> tuple[int, bytes, dict[str, str]]:
            try:
                with upstream.send(request.method, target, data, headers) as resp:
                    return resp.status, resp.read(), dict(resp.headers)
            except UpstreamRefused as e:
                return e.status, e.body, e.headers

        status, raw, got = await self.svc.in_thread(send)
        keep = {k: v for k, v in got.items() if k.lower() in PASSED_HEADERS
                or k.lower().startswith(("x-ratelimit-", "openai-", "x-request-id"))}
        return Response(raw, status_code=status, headers=keep)


def _timing(memlane_s: float, upstream_s: float | None = None) -> str:
    out = f"memlane;dur={memlane_s * 1000:.2f}"
    if upstream_s is not None:
        out += f", upstream;dur={upstream_s * 1000:.2f}"
    return out
