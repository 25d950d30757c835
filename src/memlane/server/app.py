"""`memlane serve`: one small ASGI app (Starlette) in front of one store.

    /v1/memlane/...          REST API (threads, messages, context, memory steps, records,
                             search, forget, export), described by /openapi.json
    /v1/chat/completions     OpenAI-compatible proxy that gives any agent memory (`proxy.py`)
    /mcp                     the memory tools over MCP streamable HTTP (`mcp.py`)
    /                        the web inspector (static files in `inspector/`)

Every request under /v1 and /mcp carries `Authorization: Bearer KEY`; the key alone decides the
namespace (`auth.py`), so no parameter can reach another tenant's rows. The store is blocking
(SQLite, psycopg), so handlers run in the thread pool; the event loop only moves bytes.

Errors are JSON, `{"error": {"message", "type"}}`, the shape OpenAI clients already parse:
memlane's `UsageError` is 400, `NotFound` 404, `StepConflict` 409, a malformed memory step
(`StepError`) 422 with its `problems`, an upstream model failure (`ModelError`) 502. Bad input
never yields a 5xx.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import asdict, replace
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from .._version import __version__
from ..errors import MemlaneError, NotFound, UsageError
from ..memory import Memory
from ..step.schema import STEP_SCHEMA
from ..types import Message, Record, StepResult
from ..validate import INT64_MAX, KINDS, finite
from .auth import Auth, is_loopback
from .base import (
    ApiError,
    ServerConfig,
    Service,
    error_response,
    namespace_of,
    read_json,
    too_large,
)
from .openapi import Operation, Param, build_spec, coerce, problems

log = logging.getLogger("memlane.server")

API = "/v1/memlane"


# --- request plumbing ---------------------------------------------------------------------------


class Guard:
    """Outermost middleware: body size (by Content-Length) and authentication.

    Sets `scope["memlane.namespace"]` from the API key. Public: the inspector's static files,
    `/openapi.json` and `/healthz`; everything else needs a key (except in dev mode).
    """

    PUBLIC_PREFIXES = ("/inspector/",)
    PUBLIC = frozenset({"/", "/openapi.json", "/healthz", "/favicon.ico"})

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app = app
        self.svc = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # nothing here speaks WebSocket; refuse before routing
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return
        raw_headers = scope.get("headers", [])
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in raw_headers}
        if len(headers) < len(raw_headers):
            twice = _repeated(raw_headers)
            if twice:
                # Two keys, or two hosts: which one a proxy in front and this server each read
                # would be a guess (one may check the first, the other use the last).
                await _send_error(send, scope, ApiError(
                    400, f"the {twice} header is sent more than once: send it once",
                    "invalid_request"))
                return
        length = headers.get("content-length")
        if length is not None:
            if not (length.isascii() and length.isdigit()):
                await _send_error(send, scope, ApiError(400, "Content-Length is not a number",
                                                        "invalid_request"))
                return
            if int(length) > self.svc.config.max_body:
                await _send_error(send, scope, too_large(self.svc.config.max_body))
                return
        path = scope["path"]
        if path in self.PUBLIC or path.startswith(self.PUBLIC_PREFIXES):
            await self.app(scope, receive, send)
            return
        if self.svc.auth.dev and not _addressed_to_loopback(headers.get("host", "")):
            # Without keys, the Host check is what stops a web page from reaching this server
            # through DNS rebinding and reading every memory.
            await _send_error(send, scope, ApiError(
                403, "dev mode (no API keys) only answers requests addressed to localhost, "
                     "127.0.0.1 or [::1]; add a key to serve other names", "forbidden"))
            return
        refused = browser_refusal(scope["method"], headers, scope.get("scheme", "http"),
                                  self.svc.config.allowed_origins)
        if refused is not None:
            await _send_error(send, scope, refused)
            return
        ns = self.svc.auth.namespace(headers.get("authorization"))
        if ns is None:
            await _send_error(send, scope, ApiError(
                401, "missing or invalid API key: send `Authorization: Bearer KEY` (create one "
                     "with `memlane keys add NAMESPACE`)", "unauthorized"))
            return
        scope["memlane.namespace"] = ns
        await self.app(scope, receive, send)


STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def browser_refusal(method: str, headers: dict[str, str], scheme: str,
                    allowed_origins: tuple[str, ...] = ()) -> ApiError | None:
    """Why a request that a web page could have sent is refused, or None.

    A page on another site can make a browser send a "simple" cross-origin POST (`text/plain`,
    form encodings) without a CORS preflight; with a dev-mode server (no key) or a key in a
    cookie-less client that is enough to write or forget. So: a request that carries an
    `Origin` must come from this server's own origin (the inspector) or one listed in
    `ServerConfig.allowed_origins`, and a request with a body that changes state must declare
    `application/json`, which a page can only send after a preflight this server never grants.
    Clients that are not browsers (SDKs, curl, agents) send no `Origin` and are unaffected.
    """
    origin = headers.get("origin")
    if origin is not None:
        own = f"{scheme}://{headers.get('host', '')}".lower()
        if origin.lower().rstrip("/") not in {own, *(o.lower().rstrip("/")
                                                     for o in allowed_origins)}:
            return ApiError(403, f"requests from the web origin {origin[:100]!r} are refused: "
                                 "only this server's own pages may call it from a browser (add "
                                 "the origin to ServerConfig.allowed_origins to trust it)",
                            "forbidden")
    if method in STATE_CHANGING:
        ctype = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        has_body = headers.get("content-length", "0") != "0" or "transfer-encoding" in headers
        if (has_body or ctype) and ctype != "application/json":
            return ApiError(415, f"{method} bodies must be sent as `Content-Type: "
                                 f"application/json` (got {ctype or 'none'!r})",
                            "unsupported_media_type")
    return None


# Headers that must not come twice: which copy counts would differ between a proxy in front,
# this server and the upstream.
_SINGLE = (b"authorization", b"host", b"content-length", b"content-type", b"x-thread-id")
# A Host header as RFC 9110 allows it: a name or an IP literal, an optional port, nothing else
# (so "localhost:8799@evil.com" or "localhost evil" is not taken for localhost).
_HOST = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9.\-]+))(?::\d{1,5})?")


def _repeated(raw: list[tuple[bytes, bytes]]) -> str | None:
    seen: set[bytes] = set()
    for k, _ in raw:
        k = k.lower()
        if k in seen and k in _SINGLE:
            return k.decode("latin-1").title()
        seen.add(k)
    return None


def _addressed_to_loopback(host: str) -> bool:
    m = _HOST.fullmatch(host)
    if m is None:
        return False
    return is_loopback(m.group("v6") or m.group("name"))


async def _send_error(send: Send, scope: Scope, exc: ApiError) -> None:
    async def no_receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    await error_response(exc)(scope, no_receive, send)


def _query_value(p: Param, raw: str) -> Any:
    t = p.schema.get("type")
    if t == "integer":
        s = raw.strip()
        if not (s.isascii() and s.lstrip("-").isdigit() and len(s) < 20):
            raise ApiError(400, f"{p.name}: must be an integer, got {raw[:40]!r}",
                           "invalid_request")
        return int(s)
    if t == "boolean":
        if raw.lower() in ("true", "1", "yes"):
            return True
        if raw.lower() in ("false", "0", "no"):
            return False
        raise ApiError(400, f"{p.name}: must be true or false, got {raw[:40]!r}",
                       "invalid_request")
    return raw


def endpoint(svc: Service, op: Operation) -> Callable[[Request], Any]:
    """A Starlette endpoint for `op`: parse and validate, then run the handler in the pool."""
    validator = op.body_validator()
    known = {p.name for p in op.params if p.where == "query"}

    async def run(request: Request) -> Response:
        args: dict[str, Any] = {}
        bad: list[str] = []
        # Unknown or repeated query parameters are refused: `?budgte=100` silently meaning the
        # default budget is the kind of mistake that should fail loudly.
        names = [k for k, _ in request.query_params.multi_items()]
        bad += [f"{k[:60]}: unknown query parameter (known: {', '.join(sorted(known)) or 'none'})"
                for k in dict.fromkeys(names) if k not in known]
        bad += [f"{k}: given more than once" for k in known if names.count(k) > 1]
        for p in op.params:
            raw = request.path_params.get(p.name) if p.where == "path" else \
                request.query_params.get(p.name)
            if raw is None:
                if "default" in p.schema:
                    args[p.name] = p.schema["default"]
                elif p.required:
                    bad.append(f"{p.name}: is required")
                continue
            try:
                value = _query_value(p, raw)
                found = problems(p.schema, value, p.name)
            except ApiError as e:
                value, found = None, [e.message]
            if found and p.where == "path":
                raise ApiError(404, f"no such {p.name.replace('_', ' ')}: {'; '.join(found)}",
                               "not_found")
            bad += found
            args[p.name] = value
        if bad:
            raise ApiError(400, "invalid query parameters", "invalid_request", bad)
        if op.body is not None:
            body = await read_json(request, svc.config.max_body)
            found = problems(validator or {}, body, "body")
            if found:
                raise ApiError(422, "request body failed validation", "invalid_request", found)
            args["body"] = coerce(validator or {}, body)
        mem = svc.mem(namespace_of(request))
        result = await run_in_threadpool(op.handler, svc, mem, args)
        return StrictJSONResponse(result, status_code=op.status)

    return run


class StrictJSONResponse(JSONResponse):
    """JSON that renders rows stored before timestamps were checked (an infinite `ts`) with
    null in their place, instead of failing the whole answer (`export` must always work)."""

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except ValueError:
            return super().render(finite(content))


def path_endpoint(svc: Service, ops: list[Operation]) -> Callable[[Request], Any]:
    """One route per path, dispatching on the method, so a 405 lists every allowed method."""
    by_method = {op.method: endpoint(svc, op) for op in ops}
    if "GET" in by_method:
        by_method.setdefault("HEAD", by_method["GET"])

    async def run(request: Request) -> Response:
        response: Response = await by_method[request.method](request)
        return response

    return run


# --- REST handlers ------------------------------------------------------------------------------


def dataclass_json(obj: Any) -> Any:
    """A dataclass as JSON-ready data (tuples become lists)."""
    return json.loads(json.dumps(asdict(obj), default=list))


def _message(m: Message) -> dict[str, Any]:
    return asdict(m)


def _record(r: Record) -> dict[str, Any]:
    d = asdict(r)
    d["source_ids"] = list(r.source_ids)
    return d


def _get_record(mem: Memory, record_id: int) -> Record:
    found = mem.records([record_id])
    if not found:
        raise NotFound(f"no record #{record_id} in this namespace")
    return found[0]


def h_threads(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    return {"threads": [asdict(t) for t in mem.threads(limit=a["limit"], offset=a["offset"])]}


def h_thread(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    t = mem.thread(a["thread_id"])
    info = t.info()
    return {
        "thread": asdict(info),
        "messages": [_message(m) for m in t.messages(a["start"], limit=a["limit"])],
        "episodes": [asdict(e) for e in t.episodes()],
    }


def _erased(svc: Service, mem: Memory, deleted: dict[str, Any],
            thread_id: str | None = None, ledger: bool = False) -> dict[str, Any]:
    """A forget's answer, once its text is gone from disk: the ledger's notes of the thread or
    namespace are erased and the store is compacted (`compacted` says whether it was)."""
    if ledger and svc.ledger is not None:
        svc.ledger.forget(mem.ns, thread_id)
    return {"deleted": deleted, "compacted": svc.compact_after_forget()}


def h_delete_thread(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    t = mem.thread(a["thread_id"])
    if not t.exists():
        raise NotFound(f"no thread {t.id!r} in this namespace")
    svc.note_sent_system(mem.ns, t.id, None)
    return _erased(svc, mem, {"thread_id": t.id, **mem.forget_thread(t.id)}, t.id, ledger=True)


def h_append(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    t = mem.thread(a["thread_id"])
    body = a["body"]
    added = t.extend(body["messages"])
    steps: list[StepResult] = []
    if body.get("step"):
        steps = svc.step_runner(mem.ns).file_due(t.id, max_steps=50)
        if len(steps) == 50:  # a long import: the rest is filed in the background
            svc.submit_step(mem.ns, t.id)
    return {"messages": [_message(m) for m in added],
            "steps": [_step_result(s) for s in steps]}


def h_context(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    t = mem.thread(a["thread_id"])
    # A proxied thread's model got the client's system prompt, not memlane's: show that one.
    sent = svc.sent_system(mem.ns, t.id)
    policy = replace(mem.policy, system_prompt=sent) if sent is not None else None
    ctx = t.context(budget=a["budget"], new_message=a.get("message"),
                    tools=None if a["tools"] else [], policy=policy)
    return {"thread_id": t.id, "system_prompt_from": "proxy" if sent is not None else "memory"
            } | ctx.to_dict()


def _step_result(r: StepResult) -> dict[str, Any]:
    out: dict[str, Any] = dataclass_json(r)
    return out


def h_step(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    t = mem.thread(a["thread_id"])
    t.info()  # 404 for a thread that does not exist
    body = a["body"]
    start, end = body.get("start"), body.get("end")
    if (start is None) != (end is None):
        raise UsageError("give both start and end (the stretch's seqs), or neither for the "
                         "next pending stretch")
    res = svc.step_runner(mem.ns).file(t.id, body.get("output"), start=start, end=end)
    return {"result": None if res is None else _step_result(res)}


def h_records(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    ids = [int(x) for x in a["ids"].split(",")] if a.get("ids") else None
    if ids is not None and any(i > INT64_MAX for i in ids):
        raise NotFound("no such record ids")
    return {"records": [_record(r) for r in mem.records(ids, limit=a["limit"],
                                                        offset=a["offset"])]}


def h_record(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    r = _get_record(mem, a["record_id"])
    out: dict[str, Any] = {"record": _record(r)}
    if a["sources"]:
        out["sources"] = [_message(m) for m in
                          mem.messages_by_id(list(r.source_ids))]
    if a["history"]:
        out["history"] = mem.record_history(r.id)
    return out


def h_add_record(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    b = a["body"]
    rec = mem.remember(b["text"], b.get("kind", "fact"), thread_id=b.get("thread_id"),
                       pinned=bool(b.get("pinned", False)))
    return {"record": _record(rec)}


def h_update_record(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    b = a["body"]
    if "text" in b:
        rec = mem.update(a["record_id"], b["text"])
    else:
        rec = _get_record(mem, a["record_id"])
    if "pinned" in b:
        rec = mem.pin(rec.id, bool(b["pinned"]))
    return {"record": _record(rec)}


def h_delete_record(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    rid = a["record_id"]
    if not mem.forget(rid):
        raise NotFound(f"no record #{rid} in this namespace")
    return _erased(svc, mem, {"record_id": rid})


def h_search(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    if not a["q"].strip():
        raise UsageError("q is empty: give some words to search for")
    hits = mem.search(a["q"], a["limit"])
    return {"query": a["q"], "results": [{"record": _record(h.record), "score": h.score}
                                         for h in hits]}


def h_forget(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    b = a["body"]  # validated: exactly one of the three
    if "record_id" in b:
        return h_delete_record(svc, mem, {"record_id": b["record_id"]})
    if "thread_id" in b:
        return h_delete_thread(svc, mem, {"thread_id": b["thread_id"]})
    return _erased(svc, mem, {"namespace": mem.ns, **mem.forget_namespace()}, ledger=True)


def h_export(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    return mem.export()


def h_ledger(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    if svc.ledger is None:
        return {"enabled": False, "rows": []}
    rows = svc.ledger.rows(namespace=mem.ns, thread_id=a.get("thread_id"))
    return {"enabled": True, "rows": [r.to_dict() for r in rows[-a["limit"]:]]}


def h_whoami(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    return {"namespace": mem.ns, "dev_mode": svc.auth.dev, "version": __version__,
            "proxy": svc.config.upstream is not None or svc.model is not None}


# --- the operation table: routes and the OpenAPI document come from it ---------------------------

_THREAD = Param("thread_id", "path", {"type": "string", "minLength": 1, "maxLength": 200},
                "Thread (conversation) id")
_RECORD = Param("record_id", "path", {"type": "integer", "minimum": 1, "maximum": INT64_MAX},
                "Record id")
_LIMIT = Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 1000,
                                  "default": 100})
_OFFSET = Param("offset", "query", {"type": "integer", "minimum": 0, "maximum": 10**9,
                                    "default": 0})
_SEQ = {"type": "integer", "minimum": 1, "maximum": 2**62}
_TEXT = {"type": "string", "minLength": 1, "maxLength": 100_000}

MESSAGE_IN: dict[str, Any] = {
    "type": "object",
    "required": ["role", "content"],
    "additionalProperties": False,
    "properties": {
        "role": {"type": "string", "enum": ["system", "user", "assistant", "tool"]},
        "content": {"type": "string", "maxLength": 1_000_000},
        "ts": {"type": ["number", "null"], "minimum": 0, "maximum": 1e11,
               "description": "epoch seconds (default: now)"},
        "name": {"type": ["string", "null"], "maxLength": 200},
    },
}
MESSAGE_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["id", "thread_id", "seq", "role", "content", "ts", "tokens"],
    "properties": {
        "id": {"type": "integer"}, "thread_id": {"type": "string"}, "seq": {"type": "integer"},
        "role": {"type": "string"}, "content": {"type": "string"}, "ts": {"type": "number"},
        "tokens": {"type": "integer"}, "relevance": {"type": ["number", "null"]},
        "name": {"type": ["string", "null"]},
    },
}
THREAD_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["namespace", "thread_id", "created", "last_active", "messages", "filed_to"],
    "properties": {
        "namespace": {"type": "string"}, "thread_id": {"type": "string"},
        "created": {"type": "number"}, "last_active": {"type": "number"},
        "messages": {"type": "integer"}, "filed_to": {"type": "integer"},
    },
}
EPISODE_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["thread_id", "start", "end", "line", "record_ids", "date"],
    "properties": {
        "thread_id": {"type": "string"}, "start": {"type": "integer"},
        "end": {"type": "integer"}, "line": {"type": "string"},
        "record_ids": {"type": "array", "items": {"type": "integer"}},
        "date": {"type": "number"}, "suspect": {"type": "boolean"},
    },
}
RECORD_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["id", "namespace", "text", "kind", "source_ids"],
    "properties": {
        "id": {"type": "integer"}, "namespace": {"type": "string"}, "text": {"type": "string"},
        "kind": {"type": "string"}, "source_ids": {"type": "array", "items": {"type": "integer"}},
        "thread_id": {"type": ["string", "null"]}, "created": {"type": "number"},
        "updated": {"type": "number"}, "pinned": {"type": "boolean"},
        "suspect": {"type": "boolean"}, "stated": {"type": "number"},
    },
}
HISTORY_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["text", "op", "stated"],
    "properties": {
        "text": {"type": "string"}, "op": {"type": "string"}, "changed": {"type": "number"},
        "stated": {"type": "number"}, "superseded": {"type": ["number", "null"]},
        "superseded_by": {"type": "array", "items": {"type": "integer"}},
        "sources": {"type": "array", "items": {"type": "integer"}},
    },
}
STEP_RESULT_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["thread_id", "start", "end", "added", "updated", "deleted", "episode"],
    "properties": {
        "thread_id": {"type": "string"}, "start": {"type": "integer"}, "end": {"type": "integer"},
        "added": {"type": "array", "items": {"type": "integer"}},
        "updated": {"type": "array", "items": {"type": "integer"}},
        "deleted": {"type": "array", "items": {"type": "integer"}},
        "episode": {"anyOf": [EPISODE_OUT, {"type": "null"}]},
        "dropped_ids": {"type": "array", "items": {"type": "string"}},
        "warnings": {"type": "array", "items": {"type": "string"}},
        "replaced": {"type": "boolean"},
    },
}
CONTEXT_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["thread_id", "messages", "tools", "trace"],
    "properties": {
        "thread_id": {"type": "string"},
        "system_prompt_from": {
            "enum": ["memory", "proxy"],
            "description": "proxy: the system prompt is the one the proxy last sent upstream "
                           "for this thread (the client's own); memory: memlane's policy's"},
        "messages": {"type": "array", "items": {
            "type": "object", "required": ["role", "content", "layer"],
            "properties": {"role": {"type": "string"}, "content": {"type": "string"},
                           "layer": {"type": "string"}}}},
        "tools": {"type": "array", "items": {"type": "object"}},
        "trace": {
            "type": "object",
            "required": ["budget", "tokens_total", "tokens_by_layer", "buffer"],
            "properties": {
                "budget": {"type": "integer"}, "tokens_total": {"type": "integer"},
                "tokens_by_layer": {"type": "object",
                                    "additionalProperties": {"type": "integer"}},
                "buffer": {"type": "object"}, "dropped": {"type": "array"},
                "window_start": {"type": ["integer", "null"]},
                "working_scores": {"type": "object",
                                   "additionalProperties": {"type": "number"}},
            },
        },
    },
}


_COMPACTED = {"type": ["boolean", "null"], "description": "whether the store was compacted "
              "after the forget, so the text is gone from its files (null: compaction is off)"}


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "required": list(props), "properties": props}


OPERATIONS: list[Operation] = [
    Operation("GET", f"{API}/threads", h_threads, "List threads, most recently active first",
              "listThreads", (_LIMIT, _OFFSET),
              response=_obj(threads={"type": "array", "items": THREAD_OUT}), tags=("threads",)),
    Operation("GET", f"{API}/threads/{{thread_id}}", h_thread,
              "A thread: its bookkeeping, messages (paged by seq) and buffer lines", "getThread",
              (_THREAD, Param("start", "query", {**_SEQ, "default": 1}, "first seq"),
               Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 10000,
                                        "default": 1000})),
              response=_obj(thread=THREAD_OUT,
                            messages={"type": "array", "items": MESSAGE_OUT},
                            episodes={"type": "array", "items": EPISODE_OUT}),
              tags=("threads",)),
    Operation("DELETE", f"{API}/threads/{{thread_id}}", h_delete_thread,
              "Forget a thread: its messages, buffer lines, the records filed from it and its "
              "snapshots (counts by kind)", "deleteThread",
              (_THREAD,), response=_obj(deleted=_obj(thread_id={"type": "string"}),
                                              compacted=_COMPACTED),
              tags=("threads", "forget")),
    Operation("POST", f"{API}/threads/{{thread_id}}/messages", h_append,
              "Append messages in order (creates the thread); `step: true` files due stretches",
              "appendMessages", (_THREAD,),
              body={"type": "object", "required": ["messages"], "additionalProperties": False,
                    "properties": {
                        "messages": {"type": "array", "items": MESSAGE_IN, "minItems": 1,
                                     "maxItems": 1000},
                        "step": {"type": "boolean", "default": False,
                                 "description": "run due memory steps now (offline "
                                                "heuristic unless a model is configured)"}}},
              response=_obj(messages={"type": "array", "items": MESSAGE_OUT},
                            steps={"type": "array", "items": STEP_RESULT_OUT}),
              tags=("threads",)),
    Operation("GET", f"{API}/threads/{{thread_id}}/context", h_context,
              "The assembled context for the next model call, by layer, with its trace",
              "getContext",
              (_THREAD,
               Param("budget", "query", {"type": "integer", "minimum": 1, "maximum": 10**7,
                                         "default": 4000}, "token budget"),
               Param("message", "query", {"type": "string", "maxLength": 100_000},
                     "the new user message, if any"),
               Param("tools", "query", {"type": "boolean", "default": True},
                     "offer (and count) memlane's memory tools")),
              response=CONTEXT_OUT, tags=("context",)),
    Operation("POST", f"{API}/threads/{{thread_id}}/step", h_step,
              "Apply a memory step: `output` is the step JSON (STEP_SCHEMA), validated, applied "
              "in one transaction; without it the configured extractor files the next stretch. "
              "Malformed output is 422 with `problems` and changes nothing; a stretch that is "
              "filed already (or overlaps one), or an output with nothing left to file, is 409.",
              "applyStep", (_THREAD,),
              body={"type": "object", "additionalProperties": False, "properties": {
                  "output": {"anyOf": [STEP_SCHEMA | {"additionalProperties": True},
                                       {"type": "string"}, {"type": "null"}]},
                  "start": _SEQ, "end": _SEQ}},
              response=_obj(result={"anyOf": [STEP_RESULT_OUT, {"type": "null"}]}),
              tags=("memory step",),
              errors=(("409", "The stretch overlaps one filed already, or an output was given "
                              "with nothing left to file; nothing was applied"),),
              checked_by_handler=(("output", {"type": ["object", "string", "null"]}),)),
    Operation("GET", f"{API}/records", h_records, "List long-term records", "listRecords",
              (_LIMIT, _OFFSET,
               Param("ids", "query", {"type": "string", "pattern": r"^[0-9]{1,19}(,[0-9]{1,19})"
                                      r"{0,199}$"}, "only these ids, comma-separated")),
              response=_obj(records={"type": "array", "items": RECORD_OUT}), tags=("records",)),
    Operation("POST", f"{API}/records", h_add_record, "Add a record", "addRecord",
              body={"type": "object", "required": ["text"], "additionalProperties": False,
                    "properties": {"text": _TEXT,
                                   "kind": {"type": "string", "enum": list(KINDS)},
                                   "pinned": {"type": "boolean"},
                                   "thread_id": {"type": "string", "minLength": 1,
                                                 "maxLength": 200}}},
              response=_obj(record=RECORD_OUT), status=201, tags=("records",)),
    Operation("GET", f"{API}/records/{{record_id}}", h_record,
              "A record, and with `sources=true` the messages it came from, with "
              "`history=true` its versions (when each was stated and superseded)", "getRecord",
              (_RECORD, Param("sources", "query", {"type": "boolean", "default": False}),
               Param("history", "query", {"type": "boolean", "default": False})),
              response={**_obj(record=RECORD_OUT),
                        "properties": {"record": RECORD_OUT,
                                       "sources": {"type": "array", "items": MESSAGE_OUT},
                                       "history": {"type": "array", "items": HISTORY_OUT}}},
              tags=("records",)),
    Operation("PATCH", f"{API}/records/{{record_id}}", h_update_record,
              "Replace a record's text (its history keeps the old one), or pin it",
              "updateRecord", (_RECORD,),
              body={"type": "object", "additionalProperties": False, "minProperties": 1,
                    "properties": {"text": _TEXT, "pinned": {"type": "boolean"}}},
              response=_obj(record=RECORD_OUT), tags=("records",)),
    Operation("DELETE", f"{API}/records/{{record_id}}", h_delete_record, "Delete a record",
              "deleteRecord", (_RECORD,),
              response=_obj(deleted=_obj(record_id={"type": "integer"}),
                            compacted=_COMPACTED),
              tags=("records", "forget")),
    Operation("GET", f"{API}/search", h_search,
              "Search long-term records (hybrid lexical + vector when an embedder is set)",
              "search",
              (Param("q", "query", {"type": "string", "minLength": 1, "maxLength": 2000},
                     required=True),
               Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 100,
                                        "default": 10})),
              response=_obj(query={"type": "string"}, results={"type": "array", "items": _obj(
                  record=RECORD_OUT, score={"type": "number"})}), tags=("records",)),
    Operation("POST", f"{API}/forget", h_forget,
              "Forget one record, one thread, or the whole namespace (exactly one)", "forget",
              body={"anyOf": [
                  {"type": "object", "required": ["record_id"], "additionalProperties": False,
                   "properties": {"record_id": {"type": "integer", "minimum": 1,
                                                "maximum": INT64_MAX}}},
                  {"type": "object", "required": ["thread_id"], "additionalProperties": False,
                   "properties": {"thread_id": {"type": "string", "minLength": 1,
                                                "maxLength": 200}}},
                  {"type": "object", "required": ["namespace"], "additionalProperties": False,
                   "properties": {"namespace": {"type": "boolean", "enum": [True],
                                                "description": "forget everything of this "
                                                               "namespace"}}}]},
              response=_obj(deleted={"type": "object"}, compacted=_COMPACTED),
              tags=("forget",)),
    Operation("GET", f"{API}/export", h_export, "Everything this namespace holds, as JSON",
              "export", response=_obj(namespace={"type": "string"}, format={"type": "string"},
                                      threads={"type": "array"}, records={"type": "array"}),
              tags=("export",)),
    Operation("GET", f"{API}/ledger", h_ledger,
              "Quality ledger rows of this namespace (when the ledger exists)", "ledger",
              (Param("thread_id", "query", {"type": "string", "minLength": 1, "maxLength": 200}),
               Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 10000,
                                        "default": 500})),
              response=_obj(enabled={"type": "boolean"},
                            rows={"type": "array", "items": {"type": "object"}}),
              tags=("ledger",)),
    Operation("GET", f"{API}/whoami", h_whoami, "The namespace this key reads and writes",
              "whoami", response=_obj(namespace={"type": "string"},
                                      dev_mode={"type": "boolean"},
                                      version={"type": "string"}, proxy={"type": "boolean"}),
              tags=("meta",)),
]


def openapi_spec(dev: bool = False) -> dict[str, Any]:
    from .proxy import OPENAPI_PATH

    return build_spec(
        OPERATIONS, title="memlane", version=__version__, auth=not dev,
        description="Memory and context engine for LLM agents: REST API, plus an "
                    "OpenAI-compatible proxy at /v1/chat/completions and MCP at /mcp.",
        extra_paths=OPENAPI_PATH,
    )


# --- the app ------------------------------------------------------------------------------------


def _static(name: str, media_type: str) -> Callable[[Request], Any]:
    data = resources.files("memlane.server").joinpath("inspector").joinpath(name).read_bytes()

    async def serve(request: Request) -> Response:
        return Response(data, media_type=media_type,
                        headers={"Cache-Control": "no-cache",
                                 "Content-Security-Policy": "default-src 'self'; "
                                 "style-src 'self' 'unsafe-inline'"})

    return serve


def create_app(
    memory: Memory,
    auth: Auth,
    config: ServerConfig | None = None,
    *,
    ledger: Any = None,
    mcp: bool = True,
    model: Any = None,
) -> Starlette:
    """The ASGI app. `memory` gives the store, policy and extractor; its namespace is replaced
    per request by the key's. `model`, an in-process `Model`, answers the proxy instead of the
    HTTP upstream of `config`. `app.state.service` holds the `Service` (e.g. `drain()`)."""
    config = config or ServerConfig()
    svc = Service(memory, auth, config, ledger=ledger)
    svc.model = model
    spec = openapi_spec(dev=auth.dev)

    async def openapi(request: Request) -> Response:
        return JSONResponse(spec)

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True, "version": __version__})

    routes: list[Route | Mount] = [
        Route("/", _static("index.html", "text/html; charset=utf-8")),
        Route("/inspector/app.js", _static("app.js", "text/javascript; charset=utf-8")),
        Route("/openapi.json", openapi),
        Route("/healthz", healthz),
    ]
    by_path: dict[str, list[Operation]] = {}
    for op in OPERATIONS:
        by_path.setdefault(op.path, []).append(op)
    for path, ops in by_path.items():
        routes.append(Route(path, path_endpoint(svc, ops), methods=[op.method for op in ops]))

    from .proxy import Proxy

    proxy = Proxy(svc, model)
    routes.append(Route("/v1/chat/completions", proxy.endpoint, methods=["POST"]))
    # Last: what memlane does not answer itself under /v1 (models, embeddings, ...) goes to the
    # upstream unchanged. /v1/memlane stays memlane's, so a typo there is memlane's 404.
    # The methods the OpenAI API uses (it has no PUT or PATCH); DELETE only on the resources it
    # deletes (`upstream.upstream_path`, `DELETABLE`).
    routes.append(Route("/v1/{path:path}", proxy.passthrough, methods=["GET", "POST", "DELETE"]))

    lifespan = None
    if mcp:
        from .mcp import mount_http

        route, lifespan = mount_http(svc)
        routes.append(route)

    async def on_error(request: Request, exc: Exception) -> Response:
        return error_response(exc)

    app = Starlette(
        routes=routes,
        middleware=[Middleware(Guard, service=svc)],
        exception_handlers={Exception: on_error, HTTPException: on_error, ApiError: on_error,
                            MemlaneError: on_error},
        lifespan=lifespan,
    )
    app.state.service = svc
    return app
