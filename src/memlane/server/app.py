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

This module is the factory, `create_app`; the parts it puts together each have their own:
`guard.py` (the middleware every request passes: size, auth, browser checks), `operations.py`
(the REST operation table, from which the routes and the OpenAPI document come), `endpoints.py`
(an operation made a Starlette endpoint: parameters coerced, body validated), `rest.py` (the
handlers), and the mounted `proxy.py` and `mcp.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from .._version import __version__
from ..errors import MemlaneError
from ..memory import Memory
from .auth import Auth
from .base import ApiError, ServerConfig, Service, error_response
from .endpoints import path_endpoint
from .guard import Guard
from .openapi import Operation
from .operations import OPERATIONS, openapi_spec

__all__ = ["ServerConfig", "Service", "create_app"]


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

    from .proxy import Proxy

    proxy = Proxy(svc, model)
    routes: list[Route | Mount] = [
        # First: the router tries routes in order, and a proxied turn is the busiest request
        # (its own path, so nothing after it is shadowed, and it matches without trying the rest).
        Route("/v1/chat/completions", proxy.endpoint, methods=["POST"]),
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
