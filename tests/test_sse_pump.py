"""The streamed answer's producer (`memlane.server.sse.Pump`): one thread produces a stream's
chunks for the event loop. Every chunk reaches the loop once, in order; a slow reader holds the
thread back at the buffer's bound; a reader that leaves stops the thread at its next chunk and
the generator is closed there (its `finally` is what lets go of the upstream and the thread);
an error in the generator reaches the reader after the chunks before it."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("starlette")

from memlane.server.sse import Pump  # noqa: E402

POOL = ThreadPoolExecutor(4)


async def in_thread(fn, *args):
    return await asyncio.get_running_loop().run_in_executor(POOL, fn, *args)


def chunks(n: int, closed: list[str], pace: float = 0.0, fail_at: int | None = None
           ) -> Iterator[bytes]:
    try:
        for i in range(n):
            if fail_at == i:
                raise RuntimeError("the upstream broke off")
            if pace and i % 7 == 0:
                time.sleep(pace)  # some chunks come together, some apart
            yield f"data: {i}\n\n".encode()
    finally:
        closed.append(threading.current_thread().name)


def test_every_chunk_once_in_order_and_the_generator_closed():
    closed: list[str] = []

    async def go() -> bytes:
        return b"".join([b async for b in Pump(chunks(500, closed, pace=0.002)).relayed(in_thread)])

    got = asyncio.run(go())
    assert got == b"".join(f"data: {i}\n\n".encode() for i in range(500))
    assert len(closed) == 1 and closed[0] != threading.current_thread().name


def test_a_slow_reader_holds_the_thread_back_at_the_bound():
    closed: list[str] = []
    made = []

    def counted() -> Iterator[bytes]:
        for b in chunks(10 * Pump.MAX_BUFFERED, closed):
            made.append(b)
            yield b

    async def go() -> None:
        stream = Pump(counted()).relayed(in_thread)
        first = await stream.__anext__()
        assert first.startswith(b"data: 0")
        await asyncio.sleep(0.3)  # the reader takes nothing more for a while
        assert len(made) <= 2 * Pump.MAX_BUFFERED + 1
        rest = b"".join([b async for b in stream])
        assert (first + rest).count(b"data:") == 10 * Pump.MAX_BUFFERED

    asyncio.run(go())
    assert len(closed) == 1


def test_a_reader_that_leaves_stops_the_thread_and_closes_the_generator():
    closed: list[str] = []

    async def go() -> None:
        stream = Pump(chunks(10**6, closed, pace=0.001)).relayed(in_thread)
        await stream.__anext__()
        await stream.aclose()  # the client hung up
        for _ in range(200):
            if closed:
                break
            await asyncio.sleep(0.01)

    asyncio.run(go())
    assert len(closed) == 1


def test_an_error_reaches_the_reader_after_the_chunks_before_it():
    closed: list[str] = []
    got: list[bytes] = []

    async def go() -> None:
        async for b in Pump(chunks(50, closed, fail_at=30)).relayed(in_thread):
            got.append(b)

    with pytest.raises(RuntimeError, match="broke off"):
        asyncio.run(go())
    assert b"".join(got) == b"".join(f"data: {i}\n\n".encode() for i in range(30))
    assert len(closed) == 1


def test_a_job_that_never_runs_ends_the_stream_with_its_error():
    """The request threads already shut down (a stream asked for as the server stops): the
    reader gets the error instead of waiting forever."""
    closed: list[str] = []

    async def refused(fn, *args):
        raise RuntimeError("cannot schedule new futures after shutdown")

    async def go() -> None:
        async for _ in Pump(chunks(5, closed)).relayed(refused):
            pass

    with pytest.raises(RuntimeError, match="after shutdown"):
        asyncio.run(asyncio.wait_for(go(), 5))
