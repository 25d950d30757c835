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
`/v1/...` endpoints are passed through (`Proxy.passthrough`). docs/AGENT.md has the rules in
full.

Why not `memlane.agent.Agent`: the agent speaks the `Model` protocol, which reduces an answer to
text and tool calls. The proxy must hand back the upstream's own chunks and fields, and hand the
client's tool calls back to the client, so it keeps its own compact loop over raw JSON; the
round that runs memlane's tools is the agent's (`tools.rounds.tool_round`). The memory step
is the same one (`Service.submit_step`, then the `StepRunner` every surface files through, with
the extractor `memlane serve` configured: the upstream model with the heuristic as fallback, or
the heuristic alone).
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import queue
import re
import threading
import time
import urllib.error
import urllib.request
import uuid
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Match

from .._version import __version__
from ..errors import MemlaneError, ModelError, NotFound, UpstreamTimeout, UsageError
from ..memory import Memory, Thread
from ..models.base import Model, ModelReply, ToolCall, error_message, iter_sse, parse_arguments
from ..models.openai import wire_messages
from ..recall.schemas import MEMORY_TOOL_NAMES, TOOL_SCHEMAS
from ..tools.rounds import run_memory_call, tool_round
from ..types import ThreadInfo
from ..validate import clean_text
from .base import ApiError, Service, namespace_of, read_json
from .openapi import ERROR_SCHEMA, problems

log = logging.getLogger("memlane.proxy")

THREAD_HEADER = "x-memlane-thread"
BUDGET_HEADER = "x-memlane-budget"
PROXY_VERSION = f"memlane-proxy/{__version__}"
TOOL_RESULT_TOKENS = 800
"""A memory tool's result is cut (head + tail) to this many tokens before the model sees it."""

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


def _text(content: Any) -> str:
    """A message's text: a string, or the text parts of a content list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content
                         if isinstance(p, dict) and isinstance(p.get("text"), str))
    return json.dumps(content, ensure_ascii=False)


def _call_name(call: Any) -> str:
    fn = call.get("function") if isinstance(call, dict) else None
    return str(fn.get("name") or "") if isinstance(fn, dict) else ""


def log_form(message: Mapping[str, Any]) -> dict[str, Any]:
    """How a client message is kept in the message log (and compared with it): role and text;
    an assistant's tool calls become text lines, since the log holds conversation, not wire
    format."""
    role = message.get("role")
    role = "tool" if role == "function" else role
    text = _text(message.get("content"))
    if role == "assistant" and message.get("tool_calls"):
        lines = []
        for c in message["tool_calls"]:
            fn = c.get("function") if isinstance(c, dict) else None
            fn = fn if isinstance(fn, dict) else {}
            args = fn.get("arguments", "")
            args = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            lines.append(f"[tool call {fn.get('name', '?')}({args})]")
        text = "\n".join([text, *lines]) if text else "\n".join(lines)
    name = message.get("name")
    # Cleaned as the log stores it (NUL -> U+FFFD), so a resent message matches its stored copy.
    return {"role": role, "content": clean_text(text),
            "name": name if isinstance(name, str) and name else None}


RESEND_WINDOW = 64
"""How many log messages beyond the ones the client sent are searched for a resend or an edit
(besides the thread's first messages, where a full history starts)."""
EDIT_REACH = 2
"""How many of the log's last user messages an edit may replace. A request that departs from
the log further back is taken for a new turn (nothing is cut): a client that trimmed its history,
started a new conversation on the same thread (a shared `user`), or sends an old request again
looks exactly like such an edit, and taking it for one would delete the turns after it."""
RETRY_HEADER = "x-stainless-retry-count"
"""Sent by the official OpenAI SDKs on every request; above 0 on their own retries."""


@dataclass(frozen=True)
class Alignment:
    """How a request's messages line up with the stored log, and so what to record."""

    kind: str
    """`new` (a turn after the log's last message), `retry` (the user's message is the log's
    last, unanswered), `resend` (an answered turn sent again: its answer is replaced), `edit`
    (the history departs from the log) or `history` (none of it is in the log)."""
    cut: int | None
    """Drop the log from this seq on before recording (None: keep it all)."""
    record_from: int
    """Index of the first sent message to record before the user's message (messages from
    here up to the user's are history the log lacks)."""
    in_log: bool = False
    """The user's message is the log's already (a retry, a regeneration): it is kept where it
    is, with the records filed from it, and not recorded again."""


def _z(seq: Sequence[object]) -> list[int]:
    """Z-function: z[i] is the length of the longest common prefix of `seq` and `seq[i:]`."""
    n = len(seq)
    z = [0] * n
    lo = hi = 0
    for i in range(1, n):
        if i < hi:
            z[i] = min(hi - i, z[i - lo])
        while i + z[i] < n and seq[z[i]] == seq[i + z[i]]:
            z[i] += 1
        if i + z[i] > hi:
            lo, hi = i, i + z[i]
    return z


def _prefix_matches(sent: Sequence[object], log: Sequence[object]) -> list[int]:
    """For each log position p: how many of `sent`'s first messages equal `log[p:]`'s first.
    Linear (Z-function over `sent + separator + log`), so thousands of identical messages
    cannot make alignment quadratic."""
    z = _z([*sent, object(), *log])
    return z[len(sent) + 1:]


def align(sent: Sequence[tuple[str, str]], log: Sequence[tuple[str, str]], first_seq: int,
          *, retry: bool = False, head: Sequence[tuple[str, str]] = ()) -> Alignment:
    """Line up the client's conversation (`sent`: role and text, system messages left out;
    its last user message is the turn's) with the log's last messages (`log`, the first of them
    at seq `first_seq`; `head`: the thread's first messages when `log` does not reach them).

    The rule, in order:

    1. **Resend**: the user's message and the history just before it equal a stretch of the log
       that ends at the log's last user message. If that message is the log's last
       (unanswered: the first attempt failed, or the client is returning its own tools'
       results), the turn goes on; if it was answered, the log is cut after it and the turn
       is answered again: the new answer replaces the old (a regeneration). An older answered
       turn sent again is not a regeneration: it is a new turn (nothing is cut).
       The user's message alone counts only when it is the log's last message or the request
       is marked as a retry (`X-Stainless-Retry-Count` of the OpenAI SDKs): otherwise a client
       that sends only its new message and says the same thing twice would lose a turn.
    2. **New turn**: the history ends with the log's last messages (or the client sent only
       its new message): the user's message is recorded after them. History further back that
       is not in the log (a client's summary, trimmed turns) is not recorded. A history that is
       the log's tail in full is a new turn before anything else is tried.
    3. **Edit**, only when it is shown: the client's messages match a stretch of the log up to
       a point, and there the client sends a *user* message where the log holds a different
       user message, one of its last `EDIT_REACH` user messages. The log is cut there and
       what the client sent from there on is recorded. A history that just stops (a prefix of
       the log, an old request sent again), departs at a reply, or departs further back is
       not an edit: the user's message is recorded as a new turn and nothing is cut (when in
       doubt, never lose what the log holds). A history none of which is in the log (a new
       thread, a conversation started elsewhere) is recorded whole.

    The longest match wins (a resend over a new turn only when it explains more of what was
    sent); ties go to a new turn, then to the later position in the log.
    """
    users = [i for i, m in enumerate(sent) if m[0] == "user"]
    if not users:
        raise UsageError("messages has no user message: the proxy answers a user's turn")
    u = users[-1]
    n = len(log)
    # Trailing history equal to the log's tail; all of it: a new turn, whatever else matches.
    k = 0
    while k < u and k < n and sent[u - 1 - k] == log[n - 1 - k]:
        k += 1
    if u and k == u:
        return Alignment("new", None, u)
    # 1. common suffix of sent[:u + 1] with the log ending at each position (reversed prefixes).
    ends = _prefix_matches(list(reversed(sent[:u + 1])), list(reversed(log)))
    log_users = [i for i, m in enumerate(log) if m[0] == "user"]
    best, best_len = None, 0
    for i, r in enumerate(ends):
        s = n - 1 - i  # the log position the match ends at
        if not log_users or s != log_users[-1] or r == 0:
            continue
        if r >= (1 if s == n - 1 or retry else 2) and r > best_len:
            best, best_len = s, r
    if best is not None and best_len > k:
        # The user's message stays (its seq, and the records filed from it); only what came
        # after it, the answer being replaced, is cut.
        if best == n - 1:
            return Alignment("retry", None, u, True)
        return Alignment("resend", first_seq + best + 1, u, True)
    if k or u == 0 or not (n or head):
        return Alignment("new", None, u if (k or u == 0) else 0)
    # 3. the history departs: where it stops matching the log (its tail window, or its head).
    hist = sent[:u]
    where, m = None, 0
    for start, part in ((1, head), (first_seq, log)):
        for p, length in enumerate(_prefix_matches(hist, part)):
            if length >= m and length:
                where, m = start + p, length
    if where is None:
        return Alignment("history", None, 0)
    end = first_seq + n  # the seq the next message would get
    cut = where + m
    # The edit must be shown: a stored user message at the departure, replaced by a different
    # user message, among the log's last EDIT_REACH user messages.
    at = cut - first_seq  # the departure's index in `log` (< 0: in the head, far back)
    ours = sent[m] if m < u else sent[u]
    if (cut < end and 0 <= at < n and log[at][0] == "user" and ours[0] == "user"
            and ours != log[at] and sum(1 for i in log_users if i >= at) <= EDIT_REACH):
        return Alignment("edit", cut, m)
    return Alignment("new", None, u)


@dataclass
class Turn:
    """One proxied request, prepared: what to send upstream and what to record afterwards."""

    mem: Memory
    thread: Thread
    base: dict[str, Any]
    """The client's request body without messages and tools (temperature, max_tokens, ...)."""
    messages: list[dict[str, Any]]
    """Round 0's messages: the assembled context, then the client's in-flight tool exchange."""
    memory_tools: list[dict[str, Any]]
    client_tools: list[dict[str, Any]]
    offered: frozenset[str]
    """Names of memlane's tools offered this turn (a client tool of the same name wins; none
    when the client said `tool_choice: "none"`)."""
    pending: list[dict[str, Any]]
    """Messages the client sent after its last user message, not yet in the log: recorded
    with the answer."""
    model: str
    auth: dict[str, str]
    """The upstream's Authorization header (empty: none)."""
    stream_options: Any = None
    alignment: Alignment | None = None
    headers: dict[str, str] = field(default_factory=dict)
    """Response headers that tell the client what memlane did (alignment, truncation)."""
    tool_calls: list[str] = field(default_factory=list)

    def is_memory_tool(self, name: str) -> bool:
        """memlane's call, never the client's: executed here, or taken out of the answer."""
        client = {_call_name(t) for t in self.client_tools}
        return name in MEMORY_TOOL_NAMES and name not in client


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
    """An OpenAI-compatible server: one attempt per call, `timeout` seconds for the connection
    and for each read. No retries here: the client's SDK retries what it thinks worth it, and a
    second attempt inside the proxy would double the wait of a hung upstream."""

    def __init__(self, base_url: str, timeout: float) -> None:
        self.base = base_url.rstrip("/")
        self.timeout = timeout

    def send(self, method: str, path: str, body: bytes | None,
             headers: Mapping[str, str]) -> Any:
        """The open 2xx response; `UpstreamRefused` for 4xx; `ModelError` (502) for 5xx, a
        timeout or an unreachable server, with the upstream's own message."""
        url = f"{self.base}/{path.lstrip('/')}"
        request = urllib.request.Request(url, data=body, headers=dict(headers), method=method)
        try:
            return urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            try:
                raw = exc.read()
            except OSError:
                raw = b""
            finally:
                exc.close()
            if 400 <= exc.code < 500:
                raise UpstreamRefused(exc.code, raw, dict(exc.headers.items())) from None
            log.warning("upstream %s answered HTTP %d", self.base, exc.code)
            raise ModelError(f"the upstream failed (HTTP {exc.code}): "
                             f"{error_message(raw)}") from None
        except (TimeoutError, urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
            if isinstance(reason, TimeoutError):
                raise UpstreamTimeout(f"the upstream did not answer within "
                                      f"{self.timeout:g} s (memlane serve --upstream-timeout, "
                                      "$MEMLANE_UPSTREAM_TIMEOUT)") from None
            # The upstream's address is the operator's, not the client's: in the log only.
            log.warning("cannot reach the upstream %s: %s", self.base, reason)
            raise ModelError(f"cannot reach the upstream: {reason}") from None

    def _post(self, body: dict[str, Any], headers: Mapping[str, str]) -> Any:
        data = json.dumps(body).encode("utf-8")
        return self.send("POST", "chat/completions", data,
                         {"content-type": "application/json", **headers})

    def post_json(self, body: dict[str, Any], headers: Mapping[str, str]) -> Any:
        with self._post(body, headers) as resp:
            try:
                raw = resp.read()
            except (OSError, http.client.HTTPException) as exc:
                raise ModelError(f"the upstream broke off its answer: {exc!r}"
                                 ) from None
        try:
            return json.loads(raw)
        except ValueError:
            raise ModelError(f"the upstream answered with a body that is not "
                             f"JSON: {raw[:200]!r}") from None

    def open_stream(self, body: dict[str, Any], headers: Mapping[str, str]) -> Any:
        return self._post(body, headers)


# The OpenAI API deletes only these resources by id (files, models, assistants, threads and
# their messages, vector stores and their files, responses, stored chat completions,
# conversations and their items, containers and their files, evals and their runs,
# fine-tuning checkpoint permissions); every other path is read (GET) or written (POST).
_DELETABLE = re.compile(
    r"(?:files|models|assistants|threads|vector_stores|responses|chat/completions|"
    r"conversations|containers|evals|fine_tuning/checkpoints)/[A-Za-z0-9_.:\-]+"
    r"(?:/(?:messages|files|items|runs|permissions)/[A-Za-z0-9_.:\-]+)?")
_SEGMENT = re.compile(r"[A-Za-z0-9_.:\-]+")


def _user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The text of the last user message (the turn's), parts joined; "" when there is none."""
    for m in reversed(messages):
        if m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, str):
                return c
            if isinstance(c, list):
                return " ".join(p.get("text", "") for p in c
                                if isinstance(p, dict) and isinstance(p.get("text"), str))
            return ""
    return ""


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
                data, upstream_s, turn = await run_in_threadpool(self._answer, mem, body,
                                                                 headers)
            except UpstreamRefused as e:
                return e.response()
            # memlane's own time: everything from the request's arrival to the answer, except
            # the upstream calls (queueing for a pool thread and for the thread's turn included).
            own = time.perf_counter() - started - upstream_s
            return JSONResponse(data, headers={"Server-Timing": _timing(own, upstream_s),
                                               **turn.headers})
        try:
            turn, first, held = await run_in_threadpool(self._begin_stream, mem, body, headers)
        except UpstreamRefused as e:
            return e.response()
        try:
            # Headers go before the answer: the timing covers the preparation only.
            prepared = time.perf_counter() - started
            chunks = self._stream(turn, first, held)
            # A response that is never sent at all still lets go of the thread when collected.
            weakref.finalize(chunks, held.close)
            return _Stream(chunks, held, media_type="text/event-stream",
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
        thread = mem.thread(thread_id.strip())
        held = ExitStack()
        held.enter_context(thread.hold())
        return thread, held

    def _answer(self, mem: Memory, body: dict[str, Any], headers: Mapping[str, str]
                ) -> tuple[dict[str, Any], float, Turn]:
        thread, held = self._hold(mem, body, headers)
        with held:
            turn = self.prepare(mem, thread, body, headers)
            data, upstream_s = self._complete(turn)
            return data, upstream_s, turn

    def _begin_stream(self, mem: Memory, body: dict[str, Any], headers: Mapping[str, str]
                      ) -> tuple[Turn, Any, ExitStack]:
        thread, held = self._hold(mem, body, headers)
        try:
            turn = self.prepare(mem, thread, body, headers)
            first = self._open(turn, turn.messages, False)
        except BaseException:
            held.close()
            raise
        return turn, first, held

    # preparing ---------------------------------------------------------------------------------
    def prepare(self, mem: Memory, thread: Thread, body: dict[str, Any],
                headers: Mapping[str, str]) -> Turn:
        budget = self.svc.config.budget
        if headers.get(BUDGET_HEADER):
            raw = headers[BUDGET_HEADER].strip()
            if not (raw.isascii() and raw.isdigit()) or not 0 < int(raw) <= 10_000_000:
                raise UsageError(f"X-Memlane-Budget must be a positive token count, got {raw!r}")
            budget = int(raw)

        system: list[str] = []
        conv: list[dict[str, Any]] = []
        for m in body["messages"]:
            if m["role"] in ("system", "developer"):
                system.append(_text(m.get("content")))
            else:
                conv.append(m)
        users = [i for i, m in enumerate(conv) if m["role"] == "user"]
        if not users:
            raise UsageError("messages has no user message: the proxy answers a user's turn")
        u = users[-1]
        logs = [log_form(m) for m in conv]

        client_tools = list(body.get("tools") or [])
        client_names = {_call_name(t) for t in client_tools}
        # An in-process model that cannot call tools (the local one) is offered none, so its
        # memory instructions name none either.
        offer = mem.policy.use_tools and body.get("tool_choice") != "none" and \
            getattr(self.svc.model, "supports_tools", True)
        offered = frozenset(MEMORY_TOOL_NAMES - client_names) if offer else frozenset()
        memory_tools = [dict(t) for t in TOOL_SCHEMAS if t["function"]["name"] in offered]
        policy = replace(mem.policy, system_prompt="\n\n".join(system)) if system else None

        al = self._align(thread, logs, headers)
        if al.cut is not None:
            thread.truncate(al.cut)
        # History the log lacks first, then the context for the user's message, then the
        # message itself (recorded before the model is called: a failed call never loses it).
        if not al.in_log:
            thread.extend(logs[al.record_from:u])
        tools = memory_tools + client_tools
        ctx = thread.context(budget, logs[u]["content"], policy=policy, tools=tools)
        chat = list(ctx.messages)
        if al.in_log:
            # The log ends with the user's message already: the window shows it once more
            # just before the new message. Sent once (the count stays on the safe side).
            if len(chat) > 1 and chat[-2].layer != "new" and chat[-2].role == "user" \
                    and chat[-2].content == chat[-1].content:
                del chat[-2]
        else:
            thread.extend([logs[u]])
        self.svc.note_sent_system(mem.ns, thread.id, (policy or mem.policy).system_prompt)
        messages: list[dict[str, Any]] = [m.to_dict() for m in chat]
        if isinstance(conv[u].get("content"), list) and ctx.messages[-1].layer == "new" \
                and ctx.messages[-1].content == logs[u]["content"]:
            messages[-1] = dict(conv[u])  # keep image and other content parts as sent
        # The client's in-flight tool exchange goes upstream verbatim: it needs its call ids.
        messages += [dict(m) for m in conv[u + 1:]]
        base = {k: v for k, v in body.items()
                if k not in ("messages", "tools", "stream", "stream_options", "n")}
        out_headers = {"X-Memlane-Alignment": al.kind}
        cut = [d for d in ctx.trace.dropped if d.what == "truncated" and d.ref == "new message"]
        if cut:
            total = mem.tokenizer.count([logs[u]["content"]])[0]
            out_headers["X-Memlane-Truncated"] = (
                f"current message: {total} tokens, {total - cut[0].tokens} sent upstream "
                f"(head and tail; the log keeps it whole; raise X-Memlane-Budget to send more)")
            log.info("thread %r: the current message was cut from %d tokens to fit budget %d",
                     thread.id, total, budget)
        return Turn(
            mem=mem, thread=thread, base=base, messages=messages, memory_tools=memory_tools,
            client_tools=client_tools, offered=offered, pending=logs[u + 1:],
            model=self.svc.config.upstream_model or str(body.get("model") or ""),
            auth=self._auth(headers), stream_options=body.get("stream_options"),
            alignment=al, headers=out_headers,
        )

    def _align(self, thread: Thread, logs: list[dict[str, Any]],
               headers: Mapping[str, str]) -> Alignment:
        """Read the log's messages the sent ones can line up with, and `align` them."""
        try:
            info: ThreadInfo | None = thread.info()
        except NotFound:
            info = None
        n = info.messages if info is not None else 0
        sent = [(m["role"], m["content"]) for m in logs]
        retry = headers.get(RETRY_HEADER, "0").strip() not in ("", "0")
        u = max(i for i, m in enumerate(sent) if m[0] == "user")
        # The common cases read no more than before: a client sending only its new message
        # needs the log's last message (is it this one, unanswered?); a full or trimmed history
        # that is the log's tail needs that tail.
        if n and u == 0 and not retry:
            return align(sent, [(m.role, m.content) for m in thread.messages(n)], n)
        if n and 0 < u <= n:
            tail = [(m.role, m.content) for m in thread.messages(n - u + 1)]
            if tail == sent[:u]:
                return Alignment("new", None, u)
        first = max(1, n - len(sent) - RESEND_WINDOW + 1)
        log_rows = [(m.role, m.content) for m in thread.messages(first)] if n else []
        head: list[tuple[str, str]] = []
        if first > 1 and len(sent) > 1:
            head = [(m.role, m.content) for m in thread.messages(1, min(len(sent), first - 1))]
        return align(sent, log_rows, first, retry=retry, head=head)

    def _body(self, turn: Turn, messages: list[dict[str, Any]], last: bool,
              stream: bool) -> dict[str, Any]:
        body = dict(turn.base)
        body["messages"] = wire_messages(messages)
        if turn.model:
            body["model"] = turn.model
        tools = ([] if last else turn.memory_tools) + turn.client_tools
        if tools:
            body["tools"] = tools
        else:
            body.pop("tool_choice", None)
            body.pop("parallel_tool_calls", None)
        if stream:
            body["stream"] = True
            if turn.stream_options is not None:
                body["stream_options"] = turn.stream_options
        return body

    # memory tools ------------------------------------------------------------------------------
    def _memory_round(self, turn: Turn, content: Any, calls: list[dict[str, Any]],
                      rnd: int) -> list[dict[str, Any]]:
        """Run memlane's calls of one round (the shared `tool_round`); the messages to send
        next."""
        from ..tools.handlers import MemoryTools

        tools = MemoryTools(turn.mem, thread_id=turn.thread.id)
        tools.user_turn = _user_text(turn.messages)  # writes and forgets need the user's words
        parsed = [ToolCall(str(c.get("id") or f"call_{i}"), _call_name(c),
                           parse_arguments((c.get("function") or {}).get("arguments")))
                  for i, c in enumerate(calls)]
        sent, records = tool_round(content, parsed, lambda c: run_memory_call(tools, c, rnd),
                                   TOOL_RESULT_TOKENS, turn.mem.tokenizer)
        turn.tool_calls += [r.name for r in records]
        return sent

    # non-streaming -----------------------------------------------------------------------------
    def _complete(self, turn: Turn) -> tuple[dict[str, Any], float]:
        upstream = self._require_upstream()
        messages = list(turn.messages)
        said: list[str] = []
        upstream_s = 0.0
        rounds = max(1, self.svc.config.max_tool_rounds + 1)
        for rnd in range(rounds):
            last = rnd == rounds - 1
            t1 = time.perf_counter()
            data = upstream.post_json(self._body(turn, messages, last, False), turn.auth)
            upstream_s += time.perf_counter() - t1
            choices = data.get("choices") if isinstance(data, dict) else None
            if not choices or not isinstance(choices[0], dict):
                raise ModelError(f"the upstream answered without choices: {str(data)[:200]}")
            choice = choices[0]
            msg = choice.get("message") or {}
            calls = [c for c in msg.get("tool_calls") or [] if isinstance(c, dict)]
            mine = [c for c in calls if turn.is_memory_tool(_call_name(c))]
            theirs = [c for c in calls if not turn.is_memory_tool(_call_name(c))]
            if mine and not theirs and not last and turn.offered:
                if _text(msg.get("content")).strip():
                    said.append(_text(msg.get("content")).strip())
                messages += self._memory_round(turn, msg.get("content"), mine, rnd)
                continue
            if len(theirs) != len(calls):
                # memlane's calls are not the client's business (nor executable by it).
                if theirs:
                    msg["tool_calls"] = theirs
                else:
                    msg.pop("tool_calls", None)
                    if choice.get("finish_reason") == "tool_calls":
                        choice["finish_reason"] = "stop"
            if said and isinstance(msg.get("content"), str):
                msg["content"] = "\n\n".join([*said, msg["content"]])
            self._finish(turn, msg)
            return data, upstream_s
        raise AssertionError("unreachable")  # pragma: no cover

    # streaming ---------------------------------------------------------------------------------
    def _open(self, turn: Turn, messages: list[dict[str, Any]], last: bool) -> Any:
        return self._require_upstream().open_stream(self._body(turn, messages, last, True),
                                                    turn.auth)

    def _stream(self, turn: Turn, first: Any, held: ExitStack) -> Iterator[bytes]:
        """The upstream's chunks as they come; the thread is held until the stream ends.

        Recorded only when the upstream finished its answer (a `finish_reason`): a stream that
        breaks off, or a body that is not a stream, ends with an error event and no `[DONE]`,
        and nothing is recorded as the answer."""
        try:
            yield from self._relay(turn, first)
        finally:
            held.close()

    def _relay(self, turn: Turn, first: Any) -> Iterator[bytes]:
        messages = list(turn.messages)
        role_sent = False
        said: list[str] = []
        resp = first
        rounds = max(1, self.svc.config.max_tool_rounds + 1)
        for rnd in range(rounds):
            last = rnd == rounds - 1
            finished = False
            try:
                if resp is None:
                    resp = self._open(turn, messages, last)
                calls: dict[int, dict[str, Any]] = {}
                theirs: dict[int, int] = {}
                mine: set[int] = set()
                held: list[dict[str, Any]] = []
                text: list[str] = []
                opening: dict[str, Any] | None = None
                with resp:
                    kind = (resp.headers.get("content-type") or "").split(";")[0].strip()
                    if kind != "text/event-stream":
                        raw = resp.read(4096)
                        yield _error_event(
                            f"the upstream answered a streaming request with {kind or 'a body'}"
                            f", not an event stream: {error_message(raw)[:300]}")
                        return
                    for _, data in iter_sse(resp, "The upstream"):
                        if data.strip() == "[DONE]":
                            break
                        try:
                            chunk = json.loads(data)
                        except ValueError:
                            continue
                        if not isinstance(chunk, dict):
                            continue
                        if "error" in chunk:
                            yield _sse(chunk)
                            return
                        choices = chunk.get("choices") or []
                        if not choices or not isinstance(choices[0], dict):
                            held.append(chunk)  # the usage chunk: sent at the very end
                            continue
                        ch = dict(choices[0])
                        delta = dict(ch.get("delta") or {})
                        keep = []
                        for tc in delta.get("tool_calls") or []:
                            i = tc.get("index", 0)
                            fn = tc.get("function") or {}
                            c = calls.setdefault(i, {"id": None, "name": "", "arguments": ""})
                            c["id"] = tc.get("id") or c["id"]
                            c["name"] += fn.get("name") or ""
                            c["arguments"] += fn.get("arguments") or ""
                            if i not in theirs and i not in mine:
                                if turn.is_memory_tool(c["name"]):
                                    mine.add(i)
                                else:
                                    theirs[i] = len(theirs)
                            if i in theirs:
                                keep.append({**tc, "index": theirs[i]})
                        if keep:
                            delta["tool_calls"] = keep
                        else:
                            delta.pop("tool_calls", None)
                        if delta.get("content"):
                            if not text and said:
                                delta["content"] = "\n\n" + delta["content"]
                            text.append(delta["content"])
                        if role_sent:
                            delta.pop("role", None)
                        out = {**chunk, "choices": [{**ch, "delta": delta}]}
                        if ch.get("finish_reason"):
                            finished = True
                            held.append(out)
                            continue
                        if not any(v for k, v in delta.items() if k != "role") \
                                and not ch.get("logprobs"):
                            # The opening role chunk waits for the round's first real delta: a
                            # round that only calls memlane's tools never reaches the client.
                            if "role" in delta:
                                opening = out
                            continue
                        if opening is not None and "role" not in delta:
                            yield _sse(opening)
                        opening = None
                        role_sent = True
                        yield _sse(out)
            except UpstreamRefused as e:
                yield _error_event(f"the upstream refused a tool round (HTTP {e.status}): "
                                   f"{error_message(e.body)}")
                return
            except (MemlaneError, OSError, ValueError) as e:
                yield _error_event(f"upstream failed mid-answer: {e}")
                return
            if not finished:
                yield _error_event("the upstream's stream ended before its answer did (no "
                                   "finish_reason); nothing was recorded: send the request "
                                   "again")
                return
            resp = None
            if text:
                said.append("".join(text))
            my_calls = [{"id": calls[i]["id"] or f"call_{i}", "type": "function",
                         "function": {"name": calls[i]["name"],
                                      "arguments": calls[i]["arguments"]}}
                        for i in sorted(mine)]
            if my_calls and not theirs and not last and turn.offered:
                messages += self._memory_round(turn, "".join(text) or None, my_calls, rnd)
                continue
            answer: dict[str, Any] = {"role": "assistant", "content": "".join(said)}
            if theirs:
                answer["tool_calls"] = [
                    {"id": calls[i]["id"], "type": "function",
                     "function": {"name": calls[i]["name"], "arguments": calls[i]["arguments"]}}
                    for i in sorted(theirs, key=theirs.__getitem__)]
            self._finish(turn, answer)
            if opening is not None:
                yield _sse(opening)
            for c in held:
                for ch in c.get("choices") or []:
                    if ch.get("finish_reason") == "tool_calls" and not theirs:
                        ch["finish_reason"] = "stop"
                yield _sse(c)
            yield b"data: [DONE]\n\n"
            return

    # other endpoints ---------------------------------------------------------------------------
    async def passthrough(self, request: Request) -> Response:
        """`/v1/models`, `/v1/embeddings`, ...: sent to the upstream unchanged (with the
        upstream's key), its answer returned unchanged. Only a normalised path under /v1/
        (`upstream_path`) and a method the OpenAI API uses on it are forwarded: the request
        goes out with the operator's key, so it must not reach anything else upstream."""
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
        if request.method == "DELETE" and not _DELETABLE.fullmatch(path):
            raise HTTPException(405, headers={"Allow": "GET, POST"})
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

        status, raw, got = await run_in_threadpool(send)
        keep = {k: v for k, v in got.items() if k.lower() in PASSED_HEADERS
                or k.lower().startswith(("x-ratelimit-", "openai-", "x-request-id"))}
        return Response(raw, status_code=status, headers=keep)

    # recording ---------------------------------------------------------------------------------
    def _finish(self, turn: Turn, answer: Mapping[str, Any]) -> None:
        """Record the answer; file due stretches in the background. An answer that calls the
        client's tools is not recorded yet: it comes back, with the tools' results, as part of
        the client's next request, and is recorded with the answer that ends the turn."""
        if answer.get("tool_calls"):
            return
        try:
            added = turn.thread.extend(turn.pending + [log_form(answer)])
        except MemlaneError:
            log.exception("could not record the answer of thread %r", turn.thread.id)
            return
        if self.svc.ledger is not None:
            self._ledger(turn, added[-1])
        if self.svc.config.background_steps:
            # The turn is whole: an answer that calls the client's tools never gets here.
            self.svc.submit_step(turn.mem.ns, turn.thread.id, turn_done=True)

    def _ledger(self, turn: Turn, answer: Any) -> None:
        try:
            signals = {"tool_calls": turn.tool_calls} if turn.tool_calls else {}
            prompt = hashlib.sha256(json.dumps(turn.messages[0], sort_keys=True)
                                    .encode()).hexdigest()[:10]
            self.svc.ledger.record_answer(
                namespace=turn.mem.ns, thread_id=turn.thread.id, seq=answer.seq,
                agent_version=PROXY_VERSION, prompt_version=prompt, model=turn.model,
                answer_tokens=answer.tokens, signals=signals)
        except Exception:  # noqa: BLE001 - the ledger is for engineers; never fail the turn
            log.warning("could not write to the quality ledger", exc_info=True)


class ModelUpstream:
    """An in-process `Model` standing in for the HTTP upstream (the two methods of
    `HttpEndpoint` the proxy uses), answering in OpenAI's wire format, so the proxy's loop is
    the same for a local model as for a server."""

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

    def open_stream(self, body: dict[str, Any], headers: Mapping[str, str]) -> Any:
        """The model's answer as SSE lines, produced by a worker thread as tokens come."""
        lines: queue.Queue[bytes | None] = queue.Queue()
        head = self._head(True)

        def put(obj: Any) -> None:
            lines.put(_sse(obj)[:-1])
            lines.put(b"\n")

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        def run() -> None:
            try:
                put(chunk({"role": "assistant", "content": ""}))
                reply = self._complete(body, lambda t: put(chunk({"content": t})))
                for i, c in enumerate(self._calls(reply)):
                    put(chunk({"tool_calls": [{"index": i, **c}]}))
                put(chunk({}, "tool_calls" if reply.tool_calls else reply.finish_reason or "stop"))
                if (body.get("stream_options") or {}).get("include_usage"):
                    put({**head, "choices": [], "usage": self._usage(reply)})
            except Exception as e:  # noqa: BLE001 - reported in the stream, as an upstream would
                put({"error": {"message": f"{type(e).__name__}: {e}", "type": "upstream_error"}})
            finally:
                lines.put(b"data: [DONE]\n")
                lines.put(b"\n")
                lines.put(None)

        threading.Thread(target=run, name="memlane-model-stream", daemon=True).start()
        return _QueueResponse(lines)


class _Stream(StreamingResponse):
    """A streaming response that lets go of the upstream and the thread as soon as it ends,
    however it ends. When the client leaves mid-stream the server stops iterating, and Python
    closes an abandoned generator only when it is collected: until then the thread would stay
    held and every later turn on it would wait."""

    def __init__(self, chunks: Iterator[bytes], held: ExitStack, **kw: Any) -> None:
        super().__init__(chunks, **kw)
        self._chunks, self._held = chunks, held

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            # No chunk is being produced now (a worker thread's `next` is waited for even on
            # cancellation), so the generator can be closed here: that closes the upstream's
            # response and releases the thread.
            close = getattr(self._chunks, "close", None)
            try:
                if close is not None:
                    close()
            finally:
                self._held.close()


class _QueueResponse:
    """Lines from a queue, read like an HTTP response body (iterable, closable)."""

    headers = {"content-type": "text/event-stream"}

    def __init__(self, lines: queue.Queue[bytes | None]) -> None:
        self._lines = lines

    def read(self, n: int = -1) -> bytes:
        return b""

    def __iter__(self) -> Iterator[bytes]:
        while (line := self._lines.get()) is not None:
            yield line

    def __enter__(self) -> _QueueResponse:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _error_event(message: str) -> bytes:
    return _sse({"error": {"message": message, "type": "upstream_error"}})


def _sse(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n\n"


def _timing(memlane_s: float, upstream_s: float | None = None) -> str:
    out = f"memlane;dur={memlane_s * 1000:.2f}"
    if upstream_s is not None:
        out += f", upstream;dur={upstream_s * 1000:.2f}"
    return out
