"""The service's outermost middleware, `Guard`: what every request must pass before routing.

In order: no WebSocket; no header that must come once sent twice; a body within
`ServerConfig.max_body` (by Content-Length); then, except for the public paths (the inspector's
static files, `/openapi.json`, `/healthz`), dev mode only for requests addressed to loopback,
no cross-site request a web page could have made (`browser_refusal`), and a valid API key,
which sets the namespace (`scope["memlane.namespace"]`).
"""

from __future__ import annotations

import re
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from .auth import is_loopback
from .base import ApiError, Service, error_response, too_large


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
