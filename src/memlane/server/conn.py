"""How long a connection may take: the options `memlane serve` (and the test server) give
uvicorn, so a slow or idle client cannot hold connections open.

uvicorn's `timeout_keep_alive` closes a connection idle *between* requests, but nothing bounds
the time a client takes to send a request's head: a client that sends a byte every few seconds
(slowloris) keeps its connection, and enough of them exhaust the server's sockets. `Guarded`
is uvicorn's h11 protocol with one more timer: from the connection's first byte (or the end of
the previous response) the request line and headers must arrive within `HEAD_TIMEOUT` seconds,
or the connection is closed. h11's `max_incomplete_event_size` bounds the head's size. A second
timer bounds the body the same way: once the head is in, the whole body (what `Content-Length`
or chunking announces) must arrive within `BODY_TIMEOUT` seconds, or the connection is closed
(the app sees a disconnect). A response that streams for minutes is not bounded: the clock stops
when the request's body is complete.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

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


class Guarded(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's head (see the module)."""

    _head_timer: asyncio.TimerHandle | None = None
    _body_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._between_requests():
            self._arm()  # a new head is starting (or trickling): its clock runs
        super().data_received(data)
        if not self._between_requests():
            self._disarm()  # the head arrived: the app has it
            if self._body_pending():
                if self._body_timer is None:  # the body's clock starts with the head
                    self._body_timer = self.loop.call_later(BODY_TIMEOUT, self._body_too_slow)
            else:
                self._disarm_body()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._disarm_body()
        super().connection_lost(exc)

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _body_pending(self) -> bool:
        return self.cycle is not None and self.cycle.more_body

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


def uvicorn_options() -> dict[str, Any]:
    """Keyword arguments for `uvicorn.run` / `uvicorn.Config` (`memlane serve`, the tests)."""
    return {"http": Guarded, "timeout_keep_alive": KEEP_ALIVE,
            "h11_max_incomplete_event_size": MAX_HEAD}
