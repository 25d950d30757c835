"""How long a connection may take: the options `memlane serve` (and the test server) give
uvicorn, so a slow or idle client cannot hold connections open; and which HTTP parser reads
the requests.

uvicorn's `timeout_keep_alive` closes a connection idle *between* requests, but nothing bounds
the time a client takes to send a request's head: a client that sends a byte every few seconds
(slowloris) keeps its connection, and enough of them exhaust the server's sockets. `Deadlines`
adds one more timer to uvicorn's protocol: from the connection's first byte (or the end of the
previous response) the request line and headers must arrive within `HEAD_TIMEOUT` seconds, or
the connection is closed; the head may be at most `MAX_HEAD` bytes. A second timer bounds the
body the same way: once the head is in, the whole body (what `Content-Length` or chunking
announces) must arrive within `BODY_TIMEOUT` seconds, or the connection is closed (the app sees
a disconnect). A response that streams for minutes is not bounded: the clock stops when the
request's body is complete.

The parser is `httptools` (llhttp, in C) when it is installed (the `server` extra has it), else
uvicorn's pure-Python h11: the same rules over either (`GuardedHttpTools`, `GuardedH11`). On
the proxy's turn, h11 took a large share of the event loop's CPU (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from ..errors import MissingExtra, UsageError

HEAD_TIMEOUT = 10.0
"""Seconds a client has to send a request's line and headers (a browser or an SDK needs
milliseconds)."""
BODY_TIMEOUT = 30.0
"""Seconds a client has, once its head is in, to send the request's body (the largest body the
server takes, `ServerConfig.max_body`, needs well under a second on any link an agent uses)."""
KEEP_ALIVE = 5
"""Seconds an idle keep-alive connection stays open between requests (uvicorn's default)."""
MAX_HEAD = 64 * 1024
"""Bytes of request line and headers (h11's default is 16 KiB; keys and cookies fit)."""


class Deadlines:
    """The head and body deadlines, over either uvicorn protocol (see the module). Both keep the
    request being answered in `cycle`, with `response_complete` and `more_body`."""

    cycle: Any
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    _head_timer: asyncio.TimerHandle | None = None
    _body_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._between_requests():
            self._arm()  # a new head is starting (or trickling): its clock runs
        self._parse(data)
        if not self._between_requests():
            self._disarm()  # the head arrived: the app has it
            if self._body_pending():
                if self._body_timer is None:  # the body's clock starts with the head
                    self._body_timer = self.loop.call_later(BODY_TIMEOUT, self._body_too_slow)
            else:
                self._disarm_body()

    def _parse(self, data: bytes) -> None:
        super().data_received(data)  # type: ignore[misc]

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._disarm_body()
        super().connection_lost(exc)  # type: ignore[misc]

    def _between_requests(self) -> bool:
        return self.cycle is None or bool(self.cycle.response_complete)

    def _body_pending(self) -> bool:
        return self.cycle is not None and bool(self.cycle.more_body)

    def _disarm_body(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _body_too_slow(self) -> None:
        self._body_timer = None
        if self._body_pending() and not self.transport.is_closing():
            self.transport.close()

    def _arm(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(HEAD_TIMEOUT, self._too_slow)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_slow(self) -> None:
        self._head_timer = None
        if self._between_requests() and not self.transport.is_closing():
            self.transport.close()


class GuardedH11(Deadlines, H11Protocol):
    """uvicorn's h11 protocol with the deadlines; h11's `max_incomplete_event_size` bounds the
    head's size (`uvicorn_options`)."""


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools is not installed: h11 serves
    HttpToolsProtocol = None  # type: ignore[assignment,misc]

if HttpToolsProtocol is not None:
    class GuardedHttpTools(Deadlines, HttpToolsProtocol):
        """uvicorn's httptools protocol with the deadlines, and the head's size bounded here:
        llhttp has no limit of its own (uvicorn's h11 answers 400 to an oversized head, and so
        does this)."""

        _head_bytes = 0

        def _parse(self, data: bytes) -> None:
            between = self._between_requests()
            super()._parse(data)
            if not self._between_requests():
                self._head_bytes = 0  # the head is complete: its count starts again after
            elif between:
                # Still inside a head: counted across reads, so a head trickled in small
                # pieces is bounded as one sent at once.
                self._head_bytes += len(data)
                if self._head_bytes > MAX_HEAD and not self.transport.is_closing():
                    self.send_400_response("Request head too large.")

        def send_400_response(self, msg: str) -> None:
            """A request the parser refuses (a malformed or oversized head) answered as every
            other error is, JSON (`{"error": ...}`), not uvicorn's plain text: the API's spec
            documents JSON errors only. The connection closes, as uvicorn's does."""
            body = json.dumps({"error": {"message": msg, "type": "invalid_request"}}).encode()
            head = [b"HTTP/1.1 400 Bad Request\r\n"]
            head += [name + b": " + value + b"\r\n"
                     for name, value in self.server_state.default_headers]
            head += [b"content-type: application/json\r\n",
                     b"content-length: " + str(len(body)).encode() + b"\r\n",
                     b"connection: close\r\n\r\n"]
            self.transport.write(b"".join(head) + body)
            self.transport.close()
else:
    GuardedHttpTools = None  # type: ignore[assignment,misc]

PARSERS = ("httptools", "h11")


def parser() -> str:
    """The HTTP parser `auto` picks: httptools when installed, else h11."""
    return "h11" if GuardedHttpTools is None else "httptools"


def uvicorn_options(http: str = "auto") -> dict[str, Any]:
    """Keyword arguments for `uvicorn.run` / `uvicorn.Config` (`memlane serve`, the tests).
    `http`: the parser, "httptools", "h11" or "auto" (`parser()`; `memlane serve --http`)."""
    if http == "auto":
        http = parser()
    if http not in PARSERS:
        raise UsageError(f"unknown HTTP parser {http!r}: use auto, {', '.join(PARSERS)}")
    if http == "httptools" and GuardedHttpTools is None:
        raise MissingExtra("--http httptools", "server", "httptools")
    protocol = GuardedHttpTools if http == "httptools" else GuardedH11
    return {"http": protocol, "timeout_keep_alive": KEEP_ALIVE,
            "h11_max_incomplete_event_size": MAX_HEAD}
