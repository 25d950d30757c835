"""memlane's six memory tools over MCP (the official `mcp` package), on stdio or streamable HTTP.

    memlane mcp --namespace acme          # stdio: an MCP client launches this command
    memlane serve                         # HTTP: POST /mcp, with `Authorization: Bearer KEY`

The tools are the ones the proxy and the agent offer the model (`tool_schemas.TOOL_SCHEMAS`),
executed by the same `MemoryTools`. Over HTTP the namespace is the API key's, read per request
from the HTTP request the MCP message arrived on, so a session cannot outlive a key's scope. The
HTTP transport is stateless (every POST stands alone, JSON answers): nothing to expire, and any
replica behind a load balancer can answer.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from starlette.routing import Route

from .._version import __version__
from ..errors import MemlaneError
from ..memory import Memory
from ..safety import _fold
from ..tool_schemas import MEMORY_TOOL_NAMES, TOOL_ARGUMENTS, TOOL_SCHEMAS
from ..validate import RECORD_ID_SCHEMA

_RUN_WORD = re.compile(r"\w+")  # (`safety.tainted`'s words)


class Service(Protocol):
    """What `/mcp` needs of the server's `Service` (app.py), named here so that this module does
    not import the app that mounts it."""

    config: Any

    def mem(self, namespace: str) -> Memory: ...


INSTRUCTIONS = (
    "Long-term memory of one user. search_memory finds records; open_memory reads records by id "
    "(ids appear in memory notes as #id); remember / update_memory / forget keep them current; "
    "recall finds results of earlier tool calls."
)


def _mcp_schema(name: str) -> dict[str, Any]:
    """The input schema an MCP client sees: what the handler takes (`TOOL_ARGUMENTS`: the
    model's schema and the extras, search_memory's `kind` filter), with a count also as text
    ("5", which the handler reads), so a schema-checking client does not refuse it before
    sending; record ids likewise ("74", "#74", as the notes show them), so `update_memory`
    takes `"id": "1"` here as through the proxy and the agent. The model's schemas stay lean:
    they are in every context."""
    out = copy.deepcopy(TOOL_ARGUMENTS[name])
    props = out["properties"]
    as_text = RECORD_ID_SCHEMA
    if "id" in props:
        props["id"] = as_text
    if "ids" in props:
        props["ids"] = {**props["ids"], "items": as_text}
    if "limit" in props:
        props["limit"] = {"type": ["integer", "string"], "default": props["limit"].get("default"),
                          "description": "how many, at most 20"}
    return out


def tools() -> list[types.Tool]:
    return [types.Tool(name=t["function"]["name"], description=t["function"]["description"],
                       input_schema=_mcp_schema(t["function"]["name"]))
            for t in TOOL_SCHEMAS]


class ShownFlagged:
    """What quarantined texts earlier MCP calls of a namespace showed, held against the calls
    that follow (`MemoryTools.carries_flagged`: a `remember` / `update_memory` carrying a run of
    4 of their words is refused). MCP builds a tools object per call, and the HTTP transport is
    stateless, so no turn spans calls: the server keeps this for each namespace instead, for
    `TTL` seconds after a text was shown.

    It keeps no text: only salted hashes of each shown text's runs of 1 to 4 words, exactly what
    `safety.tainted` compares (a run of 4 in common, or a shorter text's words whole), so a
    forget elsewhere leaves no words of the forgotten text in the process. A forget through MCP
    drops the namespace's hashes."""

    TTL = 1800.0
    RUN = 4

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._salt = os.urandom(16)
        self._held: dict[str, list[tuple[float, frozenset[bytes]]]] = {}

    def _runs(self, text: str, sizes: range) -> set[bytes]:
        words = _RUN_WORD.findall(_fold(text))
        return {hashlib.blake2b(" ".join(words[i:i + n]).encode(), digest_size=12,
                                key=self._salt).digest()
                for n in sizes for i in range(len(words) - n + 1)}

    def _live(self, namespace: str) -> list[tuple[float, frozenset[bytes]]]:
        now = self._clock()
        live = [(t, h) for t, h in self._held.get(namespace, []) if now - t < self.TTL]
        if live:
            self._held[namespace] = live
        else:
            self._held.pop(namespace, None)
        return live

    def add(self, namespace: str, texts: list[str]) -> None:
        """Hold the runs of `texts` (shown by a call now) for `TTL` seconds."""
        if not texts:
            return
        runs = frozenset().union(*(self._runs(t, range(1, self.RUN + 1)) for t in texts))
        self._live(namespace)  # (expired entries out first)
        self._held.setdefault(namespace, []).append((self._clock(), runs))

    def carries(self, namespace: str, text: str) -> bool:
        """Whether `text` carries a shown text's words, as `safety.tainted` reads it."""
        live = self._live(namespace)
        if not live:
            return False
        n = len(_RUN_WORD.findall(_fold(text)))
        size = min(n, self.RUN)  # a shorter text's words whole
        mine = self._runs(text, range(size, size + 1)) if size else set()
        return any(mine & runs for _, runs in live)

    def drop(self, namespace: str) -> None:
        self._held.pop(namespace, None)


def call(memory: Memory, name: str, arguments: dict[str, Any] | None,
         shown: ShownFlagged | None = None) -> types.CallToolResult:
    """Run one tool; a tool's failure is a result with `is_error`, which the model can read.
    `shown`: the quarantined texts earlier calls showed (`ShownFlagged`)."""
    from ..tools.handlers import MemoryTools

    class _Tools(MemoryTools):
        def carries_flagged(self, text: str) -> bool:
            return super().carries_flagged(text) or (
                shown is not None and shown.carries(memory.ns, text))

    if name not in MEMORY_TOOL_NAMES:
        result: dict[str, Any] = {"error": f"unknown tool {name!r}; available: "
                                           f"{', '.join(sorted(MEMORY_TOOL_NAMES))}"}
    else:
        tools = _Tools(memory)
        try:
            result = tools.call(name, dict(arguments or {}))
        except MemlaneError as e:
            result = {"error": str(e)}
        if shown is not None:
            if name == "forget" and not result.get("error"):
                shown.drop(memory.ns)
            shown.add(memory.ns, tools.flagged_seen)
    failed = isinstance(result, dict) and bool(result.get("error"))
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(result, ensure_ascii=False, default=str))],
        structured_content=result if isinstance(result, dict) else {"result": result},
        is_error=failed,
    )


def build_server(memory_for: Callable[[ServerRequestContext[Any]], Memory]) -> Server[Any]:
    """An MCP server whose tools act on `memory_for(ctx)` (the request's namespace)."""

    async def list_tools(ctx: ServerRequestContext[Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools())

    shown = ShownFlagged()

    async def call_tool(ctx: ServerRequestContext[Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        memory = memory_for(ctx)
        # The store blocks; keep it off the event loop.
        return await anyio.to_thread.run_sync(call, memory, params.name, params.arguments,
                                              shown)

    # memlane's memory is reached through its tools, which search and open records on demand;
    # there are no resources or prompts to list. Clients (e.g. inspectors, desktop apps) ask
    # anyway, and "method not found" reads as a broken server: answer with empty lists.
    async def list_resources(ctx: ServerRequestContext[Any],
                             params: types.PaginatedRequestParams | None
                             ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])

    async def list_resource_templates(ctx: ServerRequestContext[Any],
                                      params: types.PaginatedRequestParams | None
                                      ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[])

    async def list_prompts(ctx: ServerRequestContext[Any],
                           params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[])

    return Server("memlane", version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_resources=list_resources,
                  on_list_resource_templates=list_resource_templates,
                  on_list_prompts=list_prompts)


def mount_http(
    svc: Service,
) -> tuple[Route, Callable[[Any], AbstractAsyncContextManager[None]]]:
    """The `/mcp` route and the lifespan that runs its session manager."""
    from mcp.server.streamable_http_manager import (
        StreamableHTTPASGIApp,
        StreamableHTTPSessionManager,
    )

    def memory_for(ctx: ServerRequestContext[Any]) -> Memory:
        request = ctx.request
        ns = getattr(request, "scope", {}).get("memlane.namespace")
        if not ns:  # the Guard middleware always sets it; refuse rather than guess
            raise MemlaneError("MCP request without an authenticated namespace")
        return svc.mem(str(ns))

    manager = StreamableHTTPSessionManager(
        app=build_server(memory_for), json_response=True, stateless=True,
        max_request_body_size=svc.config.max_body,
    )

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with manager.run():
            yield

    # An ASGI app (not a function) as the endpoint: Starlette hands it the raw scope.
    route = Route("/mcp", endpoint=StreamableHTTPASGIApp(manager), methods=["GET", "POST",
                                                                            "DELETE"])
    return route, lifespan


def run_stdio(memory: Memory) -> None:
    """Serve the tools on stdin/stdout for one namespace (`memlane mcp`)."""
    from mcp.server.stdio import stdio_server

    server = build_server(lambda ctx: memory)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
