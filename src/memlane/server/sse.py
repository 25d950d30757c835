"""SSE plumbing of the proxy: a chunk as an event, an error event, and the streaming response
that lets go of the upstream and the thread however the stream ends."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import ExitStack
from typing import Any

from starlette.responses import StreamingResponse


class HeldStream(StreamingResponse):
    """A streaming response that lets go of the upstream and the thread as soon as it ends,
    however it ends. When the client leaves mid-stream the server stops iterating, and Python
    closes an abandoned generator only when it is collected: until then the thread would stay
    held and every later turn on it would wait.

    Each chunk is produced on a request thread by `in_thread` (`Service.in_thread`: the
    upstream's reads block), one hop a chunk."""

    def __init__(self, chunks: Iterator[bytes], held: ExitStack,
                 in_thread: Callable[..., Awaitable[Any]], **kw: Any) -> None:
        super().__init__(_produced(chunks, in_thread), **kw)
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


async def _produced(chunks: Iterator[bytes], in_thread: Callable[..., Awaitable[Any]]
                    ) -> AsyncIterator[bytes]:
    """`chunks`, each `next` run by `in_thread`."""
    while True:
        chunk = await in_thread(next, chunks, None)
        if chunk is None:
            return
        yield chunk


def error_event(message: str) -> bytes:
    return sse({"error": {"message": message, "type": "upstream_error"}})


def sse(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n\n"


DONE = b"data: [DONE]\n\n"

__all__ = ["DONE", "HeldStream", "error_event", "sse"]
