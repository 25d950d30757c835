"""Where the proxy's model calls go: an OpenAI-compatible server over HTTP (`HttpUpstream`), or
a `Model` in-process (`ModelUpstream`, e.g. the local GGUF model). Both answer a chat request as
a JSON body (`post_json`) or as a stream of chunk objects (`open_stream`, then `chunks()`); what
reaches the client is the upstream's own wire format either way. Also the check of a path passed
through to the upstream (`upstream_path`)."""

from __future__ import annotations

import json
import logging
import queue
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from starlette.responses import Response

from ..errors import ModelError, UpstreamTimeout, UsageError
from ..models.base import Model, ModelReply, iter_sse
from ..models.openai import wire_messages
from ..models.transport import HttpFailed, HttpRefused, Transport, error_message
from .base import ApiError

log = logging.getLogger("memlane.proxy")


class UpstreamRefused(Exception):
    """The upstream answered 4xx: the client gets the same status, body and retry headers."""

    def __init__(self, status: int, body: bytes, headers: Mapping[str, str]) -> None:
        super().__init__(f"upstream answered HTTP {status}")
        self.status, self.body = status, body
        self.headers = {k: v for k, v in headers.items() if k.lower() in PASSED_HEADERS
                        or k.lower().startswith("x-ratelimit-")}

    def response(self) -> Response:
        return Response(self.body, status_code=self.status, headers=self.headers)


PASSED_HEADERS = frozenset({"content-type", "retry-after", "retry-after-ms"})
"""Headers of an upstream's error answer that reach the client (with `x-ratelimit-*`)."""


class HttpUpstream:
    """An OpenAI-compatible server, over the one transport (`models.transport`), with no
    retries: the client's SDK retries what it thinks worth it, and a second attempt inside the
    proxy would double the wait of a hung upstream. `timeout` seconds for the connection and for
    each read."""

    def __init__(self, base_url: str, timeout: float) -> None:
        self.base = base_url.rstrip("/")
        self.timeout = timeout
        # "the upstream": the operator's address never reaches the client, only the log.
        self.transport = Transport("the upstream", timeout, max_retries=0)

    def send(self, method: str, path: str, body: bytes | None,
             headers: Mapping[str, str]) -> Any:
        """The open 2xx response; `UpstreamRefused` for 4xx; `ModelError` (502) for 5xx or an
        unreachable server, with the upstream's own message; `UpstreamTimeout` (504)."""
        url = f"{self.base}/{path.lstrip('/')}"
        try:
            return self.transport.send(method, url, body, headers)
        except (HttpRefused, HttpFailed) as e:
            raise self._failure(e) from None

    def _failure(self, e: HttpRefused | HttpFailed) -> Exception:
        if e.status is not None and 400 <= e.status < 500:
            return UpstreamRefused(e.status, e.body, e.headers)
        if e.status is not None:
            log.warning("upstream %s answered HTTP %d", self.base, e.status)
            return ModelError(f"the upstream failed (HTTP {e.status}): {error_message(e.body)}")
        if isinstance(e, HttpFailed) and e.timed_out:
            return UpstreamTimeout(f"the upstream did not answer within {self.timeout:g} s "
                                   "(memlane serve --upstream-timeout, $MEMLANE_UPSTREAM_TIMEOUT)")
        reason = e.reason if isinstance(e, HttpFailed) else str(e)
        log.warning("cannot reach the upstream %s: %s", self.base, reason)
        return ModelError(f"cannot reach the upstream: {reason}")

    def post_json(self, body: dict[str, Any], headers: Mapping[str, str]) -> Any:
        try:
            return self.transport.post_json(f"{self.base}/chat/completions", _wire(body),
                                            headers)
        except (HttpRefused, HttpFailed) as e:
            raise self._failure(e) from None

    def open_stream(self, body: dict[str, Any], headers: Mapping[str, str]) -> HttpStream:
        try:
            return HttpStream(self.transport.open_stream(f"{self.base}/chat/completions",
                                                         _wire(body), headers))
        except (HttpRefused, HttpFailed) as e:
            raise self._failure(e) from None


def _wire(body: dict[str, Any]) -> dict[str, Any]:
    """The request as the API wants it: tool-call arguments as JSON text, not dicts."""
    return {**body, "messages": wire_messages(body["messages"])}


class ModelUpstream:
    """An in-process `Model` standing in for the HTTP upstream (the two calls of `HttpUpstream`
    the proxy makes), answering in OpenAI's wire format, which is what the client gets. The
    request's messages reach the model as the turn holds them (tool-call arguments parsed, as
    the agent sends them), and a stream hands the relay its chunk objects directly
    (`ModelStream`): no SSE text is written here only to be parsed back."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.name = str(getattr(model, "name", type(model).__name__))

    def _complete(self, body: dict[str, Any],
                  on_token: Callable[[str], None] | None = None) -> ModelReply:
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        return self.model.complete(body["messages"], tools=body.get("tools") or None,
                                   max_tokens=limit if isinstance(limit, int) else None,
                                   on_token=on_token)

    def _head(self, chunk: bool) -> dict[str, Any]:
        return {"id": f"chatcmpl-memlane-{uuid.uuid4().hex[:24]}",
                "object": "chat.completion.chunk" if chunk else "chat.completion",
                "created": int(time.time()), "model": self.name}

    @staticmethod
    def _calls(reply: ModelReply) -> list[dict[str, Any]]:
        return [{"id": c.id, "type": "function",
                 "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                for c in reply.tool_calls]

    @staticmethod
    def _usage(reply: ModelReply) -> dict[str, int]:
        u = reply.usage
        return {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
                "total_tokens": u.prompt_tokens + u.completion_tokens}

    def post_json(self, body: dict[str, Any], headers: Mapping[str, str]) -> Any:
        reply = self._complete(body)
        msg: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            msg["tool_calls"] = self._calls(reply)
        finish = "tool_calls" if reply.tool_calls else reply.finish_reason or "stop"
        return {**self._head(False), "usage": self._usage(reply),
                "choices": [{"index": 0, "message": msg, "finish_reason": finish}]}

    def open_stream(self, body: dict[str, Any], headers: Mapping[str, str]) -> ModelStream:
        """The model's answer as chunk objects, produced by a worker thread as tokens come."""
        chunks: queue.Queue[dict[str, Any] | None] = queue.Queue()
        head = self._head(True)

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        def run() -> None:
            try:
                chunks.put(chunk({"role": "assistant", "content": ""}))
                reply = self._complete(body, lambda t: chunks.put(chunk({"content": t})))
                for i, c in enumerate(self._calls(reply)):
                    chunks.put(chunk({"tool_calls": [{"index": i, **c}]}))
                chunks.put(chunk({}, "tool_calls" if reply.tool_calls
                                 else reply.finish_reason or "stop"))
                if (body.get("stream_options") or {}).get("include_usage"):
                    chunks.put({**head, "choices": [], "usage": self._usage(reply)})
            except Exception as e:  # noqa: BLE001 - reported in the stream, as an upstream would
                chunks.put({"error": {"message": f"{type(e).__name__}: {e}",
                                      "type": "upstream_error"}})
            finally:
                chunks.put(None)

        threading.Thread(target=run, name="memlane-model-stream", daemon=True).start()
        return ModelStream(chunks)


class ModelStream:
    """An in-process model's stream: its chunk objects, from a queue."""

    def __init__(self, chunks: queue.Queue[dict[str, Any] | None]) -> None:
        self._chunks = chunks

    def __enter__(self) -> ModelStream:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def chunks(self) -> Iterator[dict[str, Any]]:
        while (chunk := self._chunks.get()) is not None:
            yield chunk


class NotAStream(ModelError):
    """The upstream answered a streaming request with something else."""


class HttpStream:
    """An upstream's open SSE response, read as chunk objects."""

    def __init__(self, response: Any) -> None:
        self.response = response

    def __enter__(self) -> HttpStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.response.close()

    def chunks(self) -> Iterator[dict[str, Any]]:
        """The stream's JSON objects up to `[DONE]` (anything else on a data line is skipped);
        `NotAStream` when the body is not an event stream."""
        headers = self.response.headers
        kind = (headers.get("content-type") or "").split(";")[0].strip()
        if kind != "text/event-stream":
            raw = self.response.read(4096)
            raise NotAStream(f"the upstream answered a streaming request with {kind or 'a body'}"
                             f", not an event stream: {error_message(raw)[:300]}")
        for _, data in iter_sse(self.response, "The upstream"):
            if data.strip() == "[DONE]":
                return
            try:
                chunk = json.loads(data)
            except ValueError:
                continue
            if isinstance(chunk, dict):
                yield chunk


# The OpenAI API deletes only these resources by id (files, models, assistants, threads and
# their messages, vector stores and their files, responses, stored chat completions,
# conversations and their items, containers and their files, evals and their runs,
# fine-tuning checkpoint permissions); every other path is read (GET) or written (POST).
DELETABLE = re.compile(
    r"(?:files|models|assistants|threads|vector_stores|responses|chat/completions|"
    r"conversations|containers|evals|fine_tuning/checkpoints)/[A-Za-z0-9_.:\-]+"
    r"(?:/(?:messages|files|items|runs|permissions)/[A-Za-z0-9_.:\-]+)?")
_SEGMENT = re.compile(r"[A-Za-z0-9_.:\-]+")

DEFAULT_PASSTHROUGH = ("GET models", "GET models/*")
"""The routes passed to the upstream when the operator names none: read-only model listing."""

_PASS_METHODS = ("GET", "POST", "DELETE")


class PassRoute:
    """One route the operator lets through to the upstream (`memlane serve --passthrough`):
    `[METHOD] PATH`, the path after /v1/ in segments, where `*` is any one segment and a last
    `**` any rest (none included). Without a method: GET and POST; DELETE is only ever passed
    when named (`DELETE files/*`). `**` alone passes every route (the old, open behaviour)."""

    def __init__(self, spec: str) -> None:
        words = spec.split()
        if not words or len(words) > 2:
            raise UsageError(f"--passthrough {spec!r}: give [METHOD] PATH, e.g. "
                             "'POST embeddings' or 'GET files/*'")
        method = words[0].upper() if len(words) == 2 else None
        if method is not None and method not in _PASS_METHODS:
            raise UsageError(f"--passthrough {spec!r}: the method is one of "
                             f"{', '.join(_PASS_METHODS)}")
        path = words[-1].removeprefix("/").removeprefix("v1/").strip("/")
        segments = tuple(path.split("/"))
        for i, seg in enumerate(segments):
            last_rest = seg == "**" and i == len(segments) - 1
            plain = bool(_SEGMENT.fullmatch(seg)) and seg not in (".", "..")
            if last_rest or seg == "*" or plain:
                continue
            raise UsageError(f"--passthrough {spec!r}: a path after /v1/ in plain segments "
                             "(letters, digits, _ . : -), `*` for one segment, `**` last for "
                             "any rest")
        self.spec, self.method, self.segments = spec, method, segments

    def allows(self, method: str, path: str) -> bool:
        method = "GET" if method == "HEAD" else method
        if method not in ((self.method,) if self.method else ("GET", "POST")):
            return False
        got = tuple(path.split("/"))
        want = self.segments
        if want[-1] == "**":
            want = want[:-1]
            if len(got) < len(want):
                return False
            got = got[:len(want)]
        return len(got) == len(want) and all(w in ("*", g) for w, g in zip(want, got, strict=True))


def passthrough_routes(specs: tuple[str, ...] | None) -> tuple[PassRoute, ...]:
    """The operator's allowlist (`None`: `DEFAULT_PASSTHROUGH`); `UsageError` on a bad one."""
    return tuple(PassRoute(s) for s in (DEFAULT_PASSTHROUGH if specs is None else specs))


def upstream_path(scope: Mapping[str, Any]) -> str:
    """The path after /v1/ to forward upstream, from the request as it came over the wire.

    Refused (400): an escaped slash, dot or backslash (`%2F`, `%2E`, `%5C`), a `.` or `..`
    segment, an empty segment, and characters outside letters, digits and `_ . : -`: the
    upstream (or a proxy in front of it) may decode or normalise them into a path outside
    /v1/ (`/v1/..%2F..%2Fadmin` -> `/admin`)."""
    raw = bytes(scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
    raw = raw.split("?", 1)[0]
    if not raw.startswith("/v1/"):
        raise ApiError(400, "only paths under /v1/ are forwarded", "invalid_request")
    rest = raw[len("/v1/"):]
    segments = rest.split("/")
    if not rest or any(seg in ("", ".", "..") or not _SEGMENT.fullmatch(seg)
                       for seg in segments):
        raise ApiError(400, f"/v1/{rest[:80]} is not forwarded: a path to the upstream is "
                            "plain segments of letters, digits and _ . : - (no '..', no "
                            "escaped characters)", "invalid_request")
    return rest


__all__ = ["DEFAULT_PASSTHROUGH", "DELETABLE", "PASSED_HEADERS", "HttpStream", "HttpUpstream",
           "ModelStream", "ModelUpstream", "NotAStream", "PassRoute", "UpstreamRefused",
           "passthrough_routes", "upstream_path"]
