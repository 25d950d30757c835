"""The OpenAI-compatible `/v1/chat/completions` proxy: memory for any agent by changing its
base URL.

One request, one turn:

1. The thread is the `X-Memlane-Thread` header, else the `user` field. The client may send only
   the new message or its whole history each time: the messages it sends are aligned with the
   tail of the stored log (the longest prefix of what was sent that equals the log's last
   messages), and only the rest is appended.
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
   due, the memory step runs on the background worker, out of the reply's latency path.

Why not `memlane.agent.Agent`: the agent speaks the `Model` protocol, which reduces an answer to
text and tool calls. The proxy must hand back the upstream's own chunks and fields, and hand the
client's tool calls back to the client, so it keeps its own compact loop over raw JSON. The
memory step is the same one (`Thread.maybe_step`, with the extractor `memlane serve` configured:
the upstream model with the heuristic as fallback, or the heuristic alone).
"""

from __future__ import annotations

import hashlib
import json
import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from .._version import __version__
from ..context.truncate import head_tail
from ..errors import MemlaneError, ModelError, NotFound, UsageError
from ..memory import Memory, Thread
from ..models.base import HttpEndpoint, Model, ModelReply, iter_sse, parse_arguments
from ..recall.schemas import TOOL_SCHEMAS
from ..types import ThreadInfo
from ..validate import clean_text
from .openapi import ERROR_SCHEMA, problems

if TYPE_CHECKING:
    from .app import Service

log = logging.getLogger("memlane.proxy")

MEMORY_TOOL_NAMES = frozenset(t["function"]["name"] for t in TOOL_SCHEMAS)
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


def aligned(sent: list[dict[str, Any]], stored: list[tuple[str, str]]) -> int:
    """How many of the sent messages are already the log's last ones: the largest `j` such that
    `sent[:j]` equals the last `j` stored messages (role and text).

    The longest prefix of one sequence that is a suffix of another, found with the KMP prefix
    function over `sent + [separator] + stored`: linear, so a client that sends thousands of
    identical messages cannot make this quadratic.
    """
    keys: list[object] = [(m["role"], m["content"]) for m in sent]
    seq: list[object] = [*keys, object(), *stored]
    pi = [0] * len(seq)
    for i in range(1, len(seq)):
        k = pi[i - 1]
        while k and seq[i] != seq[k]:
            k = pi[k - 1]
        if seq[i] == seq[k]:
            k += 1
        pi[i] = k
    return pi[-1] if stored else 0


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
    stream_options: Any = None
    tool_calls: list[str] = field(default_factory=list)

    def is_memory_tool(self, name: str) -> bool:
        """memlane's call, never the client's: executed here, or taken out of the answer."""
        client = {_call_name(t) for t in self.client_tools}
        return name in MEMORY_TOOL_NAMES and name not in client


class Proxy:
    """`POST /v1/chat/completions`."""

    def __init__(self, svc: Service, model: Model | None = None) -> None:
        """Forwards to `svc.config.upstream` (an OpenAI-compatible base URL), or, given `model`,
        to that model in-process (e.g. the local GGUF model)."""
        self.svc = svc
        cfg = svc.config
        self.http: HttpEndpoint | ModelUpstream
        if model is not None:
            self.url: str | None = f"model:{getattr(model, 'name', type(model).__name__)}"
            self.http = ModelUpstream(model)
        else:
            self.url = f"{cfg.upstream.rstrip('/')}/chat/completions" if cfg.upstream else None
            self.http = HttpEndpoint(provider=f"upstream {cfg.upstream}",
                                     timeout=cfg.upstream_timeout, max_retries=1,
                                     key_hint="$MEMLANE_UPSTREAM_KEY")
        self.headers = {"authorization": f"Bearer {cfg.upstream_key}"} if cfg.upstream_key \
            else {}

    async def endpoint(self, request: Request) -> Response:
        from .app import ApiError, namespace_of, read_json

        started = time.perf_counter()
        body = await read_json(request, self.svc.config.max_body)
        if self.url is None:
            raise ApiError(503, "this memlane server has no upstream model: start it with "
                                "`memlane serve --upstream URL` (or --upstream local)",
                           "upstream_not_configured")
        found = problems(CHAT_REQUEST, body, "body")
        if found:
            raise ApiError(400, "invalid chat completion request", "invalid_request_error",
                           found)
        mem = self.svc.mem(namespace_of(request))
        turn = await run_in_threadpool(self.prepare, mem, body, dict(request.headers))
        if body.get("stream"):
            # Headers go before the answer: the timing covers the preparation only.
            prepared = time.perf_counter() - started
            first = await run_in_threadpool(self._open, turn, turn.messages, False)
            return StreamingResponse(self._stream(turn, first), media_type="text/event-stream",
                                     headers={"Cache-Control": "no-cache",
                                              "Server-Timing": _timing(prepared)})
        data, upstream_s = await run_in_threadpool(self._complete, turn)
        # memlane's own time: everything from the request's arrival to the answer, except the
        # upstream calls (queueing for a pool thread included).
        own = time.perf_counter() - started - upstream_s
        return JSONResponse(data, headers={"Server-Timing": _timing(own, upstream_s)})

    # preparing ---------------------------------------------------------------------------------
    def prepare(self, mem: Memory, body: dict[str, Any], headers: Mapping[str, str]) -> Turn:
        thread_id = headers.get(THREAD_HEADER) or body.get("user")
        if not isinstance(thread_id, str) or not thread_id.strip():
            raise UsageError("name the conversation: send the X-Memlane-Thread header or the "
                             "`user` field (memlane keeps one memory thread per name)")
        budget = self.svc.config.budget
        if headers.get(BUDGET_HEADER):
            raw = headers[BUDGET_HEADER].strip()
            if not (raw.isascii() and raw.isdigit()) or not 0 < int(raw) <= 10_000_000:
                raise UsageError(f"X-Memlane-Budget must be a positive token count, got {raw!r}")
            budget = int(raw)
        thread = mem.thread(thread_id.strip())

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
        offer = mem.policy.use_tools and body.get("tool_choice") != "none"
        offered = frozenset(MEMORY_TOOL_NAMES - client_names) if offer else frozenset()
        memory_tools = [dict(t) for t in TOOL_SCHEMAS if t["function"]["name"] in offered]
        policy = replace(mem.policy, system_prompt="\n\n".join(system)) if system else None

        try:
            info: ThreadInfo | None = thread.info()
        except NotFound:
            info = None
        stored: list[tuple[str, str]] = []
        if info is not None and info.messages:
            start = max(1, info.messages - len(conv) + 1)
            stored = [(m.role, m.content) for m in thread.messages(start)]
        j = aligned(logs, stored)

        tools = memory_tools + client_tools
        if j <= u:
            # The user's message is new: history the log lacks first, then the context for the
            # new message, then the message itself (before the model is called).
            thread.extend(logs[j:u])
            ctx = thread.context(budget, logs[u]["content"], policy=policy, tools=tools)
            thread.extend([logs[u]])
        else:
            # A retry, or the client is returning results of its own tools: the user's message
            # is in the log already, and so in the context.
            ctx = thread.context(budget, None, policy=policy, tools=tools)
        messages: list[dict[str, Any]] = list(ctx.openai_messages())
        if j <= u and isinstance(conv[u].get("content"), list) and \
                ctx.messages[-1].layer == "new" and ctx.messages[-1].content == logs[u]["content"]:
            messages[-1] = dict(conv[u])  # keep image and other content parts as sent
        # The client's in-flight tool exchange goes upstream verbatim: it needs its call ids.
        messages += [dict(m) for m in conv[u + 1:]]
        base = {k: v for k, v in body.items()
                if k not in ("messages", "tools", "stream", "stream_options", "n")}
        return Turn(
            mem=mem, thread=thread, base=base, messages=messages, memory_tools=memory_tools,
            client_tools=client_tools, offered=offered, pending=logs[max(j, u + 1):],
            model=self.svc.config.upstream_model or str(body.get("model") or ""),
            stream_options=body.get("stream_options"),
        )

    def _body(self, turn: Turn, messages: list[dict[str, Any]], last: bool,
              stream: bool) -> dict[str, Any]:
        body = dict(turn.base)
        body["messages"] = messages
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
    def _run_tools(self, turn: Turn, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        from ..recall.tools import MemoryTools

        tools = MemoryTools(turn.mem, thread_id=turn.thread.id)
        out = []
        for c in calls:
            name = _call_name(c)
            fn = c.get("function") or {}
            args = parse_arguments(fn.get("arguments"))
            if set(args) == {"_raw"}:
                result: Any = {"error": "arguments are not a JSON object"}
            else:
                try:
                    result = tools.call(name, args)
                except MemlaneError as e:
                    result = {"error": str(e)}
            turn.tool_calls.append(name)
            text = json.dumps(result, ensure_ascii=False, default=str)
            out.append({"role": "tool", "tool_call_id": c.get("id") or "",
                        "content": head_tail(text, TOOL_RESULT_TOKENS, turn.mem.tokenizer)})
        return out

    # non-streaming -----------------------------------------------------------------------------
    def _complete(self, turn: Turn) -> tuple[dict[str, Any], float]:
        assert self.url is not None
        messages = list(turn.messages)
        said: list[str] = []
        upstream_s = 0.0
        rounds = max(1, self.svc.config.max_tool_rounds + 1)
        for rnd in range(rounds):
            last = rnd == rounds - 1
            t1 = time.perf_counter()
            data = self.http.post_json(self.url, self._body(turn, messages, last, False),
                                       self.headers)
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
                messages.append({"role": "assistant", "content": msg.get("content"),
                                 "tool_calls": mine})
                messages += self._run_tools(turn, mine)
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
        assert self.url is not None
        return self.http.open_stream(self.url, self._body(turn, messages, last, True),
                                     self.headers)

    def _stream(self, turn: Turn, first: Any) -> Iterator[bytes]:
        messages = list(turn.messages)
        role_sent = False
        said: list[str] = []
        resp = first
        rounds = max(1, self.svc.config.max_tool_rounds + 1)
        for rnd in range(rounds):
            last = rnd == rounds - 1
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
                    for _, data in iter_sse(resp):
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
            except (MemlaneError, OSError, ValueError) as e:
                yield _sse({"error": {"message": f"upstream failed mid-answer: {e}",
                                      "type": "upstream_error"}})
                return
            resp = None
            if text:
                said.append("".join(text))
            my_calls = [{"id": calls[i]["id"] or f"call_{i}", "type": "function",
                         "function": {"name": calls[i]["name"],
                                      "arguments": calls[i]["arguments"]}}
                        for i in sorted(mine)]
            if my_calls and not theirs and not last and turn.offered:
                messages.append({"role": "assistant", "content": "".join(text) or None,
                                 "tool_calls": my_calls})
                messages += self._run_tools(turn, my_calls)
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
            self.svc.submit_step(turn.mem.ns, turn.thread.id)

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

    def post_json(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
        reply = self._complete(body)
        msg: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            msg["tool_calls"] = self._calls(reply)
        finish = "tool_calls" if reply.tool_calls else reply.finish_reason or "stop"
        return {**self._head(False), "usage": self._usage(reply),
                "choices": [{"index": 0, "message": msg, "finish_reason": finish}]}

    def open_stream(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
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
                put(chunk({}, "tool_calls" if reply.tool_calls else "stop"))
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


class _QueueResponse:
    """Lines from a queue, read like an HTTP response body (iterable, closable)."""

    def __init__(self, lines: queue.Queue[bytes | None]) -> None:
        self._lines = lines

    def __iter__(self) -> Iterator[bytes]:
        while (line := self._lines.get()) is not None:
            yield line

    def __enter__(self) -> _QueueResponse:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _sse(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n\n"


def _timing(memlane_s: float, upstream_s: float | None = None) -> str:
    out = f"memlane;dur={memlane_s * 1000:.2f}"
    if upstream_s is not None:
        out += f", upstream;dur={upstream_s * 1000:.2f}"
    return out
