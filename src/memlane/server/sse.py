"""SSE plumbing of the proxy: a chunk as an event, an error event, and the streaming response
that lets go of the upstream and the thread however the stream ends."""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import ExitStack
from typing import Any

from starlette.responses import StreamingResponse


class HeldStream(StreamingResponse):
    """A streaming response that lets go of the upstream and the thread as soon as it ends,
    however it ends. When the client leaves mid-stream the server stops iterating, and Python
    closes an abandoned generator only when it is collected: until then the thread would stay
    held and every later turn on it would wait.

    The chunks are produced on one request thread for the whole stream (`Pump`: the upstream's
    reads block) and handed to the event loop as they come, not one hop a chunk."""

    def __init__(self, chunks: Iterator[bytes], held: ExitStack,
                 in_thread: Callable[..., Awaitable[Any]], **kw: Any) -> None:
        self._pump = Pump(chunks)
        super().__init__(self._pump.relayed(in_thread), **kw)
        self._held = held

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            # Produced from: the thread closes the generator (that closes the upstream's
            # response and lets go of the conversation) once its read in flight returns.
            # Never produced from: `stop` closes it here, where no thread runs it, and a
            # generator that never started runs no `finally`, so the conversation goes here.
            try:
                self._pump.stop()
            finally:
                if not self._pump.started:
                    self._held.close()


class Pump:
    """A stream's chunks produced on one request thread and handed to the event loop: the
    thread appends each chunk to a buffer and wakes the loop only when it waits for one; the
    loop takes what the buffer holds (chunks that came together go out in one write), which
    costs the server less CPU than a hop to a worker thread a chunk, most when chunks come in
    bursts (`benchmarks/bench_stream_relay.py`, docs/PERFORMANCE.md). At most `MAX_BUFFERED`
    chunks wait for a slow client; then the thread waits too. `stop()` (the client left): the
    thread stops at its next chunk and closes the generator, whose own `finally` lets go of the
    upstream and the conversation."""

    MAX_BUFFERED = 64

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._buf: deque[bytes] = deque()
        self._cond = threading.Condition(threading.Lock())
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped = False
        self._done = False
        self._error: BaseException | None = None
        self._job: Any = None  # the producing thread's task, kept: the loop holds it weakly

    @property
    def started(self) -> bool:
        """Whether `relayed` began (a thread then runs the generator)."""
        return self._loop is not None

    def stop(self) -> None:
        """Stop producing: the thread stops at its next chunk; before `relayed` began, the
        generator is closed here."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if not self.started:
            _close(self._chunks)

    def _end(self, error: BaseException | None) -> asyncio.Future[None] | None:
        """Mark the stream ended (with `error`, unless an earlier one is kept); the waiting
        reader's future, to wake."""
        with self._cond:
            if not self._done:
                self._error = self._error or error
                self._done = True
            waiter, self._waiter = self._waiter, None
        return waiter

    def _wake(self, waiter: asyncio.Future[None] | None) -> None:
        if waiter is None or self._loop is None:
            return
        try:
            self._loop.call_soon_threadsafe(_resolve, waiter)
        except RuntimeError:  # the loop closed (the server is shutting down): no one waits
            pass

    def _run(self) -> None:
        """On a request thread: every chunk into the buffer, until the end or `stop`."""
        try:
            for chunk in self._chunks:
                with self._cond:
                    while len(self._buf) >= self.MAX_BUFFERED and not self._stopped:
                        self._cond.wait()
                    if self._stopped:
                        break
                    self._buf.append(chunk)
                    waiter, self._waiter = self._waiter, None
                self._wake(waiter)
        except BaseException as e:  # noqa: BLE001 - handed to the loop, raised there
            error: BaseException | None = e
        else:
            error = None
        try:
            _close(self._chunks)
        except BaseException as e:  # noqa: BLE001 - as above
            error = error or e
        self._wake(self._end(error))

    def _ended(self, job: asyncio.Future[Any]) -> None:
        """On the loop, when the thread's job is over: a job that never ran `_run` (the request
        threads already shut down) ends the stream with its error instead of leaving the reader
        waiting."""
        error = (asyncio.CancelledError() if job.cancelled() else job.exception())
        if error is not None:
            waiter = self._end(error)
            if waiter is not None:
                _resolve(waiter)

    async def relayed(self, in_thread: Callable[..., Awaitable[Any]]) -> AsyncIterator[bytes]:
        """The chunks, on the event loop, as the thread produces them."""
        self._loop = asyncio.get_running_loop()
        self._job = asyncio.ensure_future(in_thread(self._run))
        self._job.add_done_callback(self._ended)
        try:
            while True:
                with self._cond:
                    if self._buf:
                        out: bytes | None = b"".join(self._buf)
                        self._buf.clear()
                        self._cond.notify_all()
                    elif self._done:
                        break
                    else:
                        out = None
                        waiter = self._waiter = self._loop.create_future()
                if out is not None:
                    yield out
                else:
                    await waiter
        finally:
            self.stop()
        if self._error is not None:
            raise self._error


def _close(chunks: Iterator[bytes]) -> None:
    close = getattr(chunks, "close", None)
    if close is not None:
        close()


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def error_event(message: str) -> bytes:
    return sse({"error": {"message": message, "type": "upstream_error"}})


def sse(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n\n"


DONE = b"data: [DONE]\n\n"

__all__ = ["DONE", "HeldStream", "error_event", "sse"]
