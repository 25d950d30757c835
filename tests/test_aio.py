"""`AsyncMemory`: the same core as `Memory`, awaited, never on the event loop's thread."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
from typing import Any

import pytest

from memlane import AsyncMemory, AsyncThread, HeuristicExtractor, Memory, Thread

# Methods that do no I/O stay plain (they build a view); a sync context manager becomes an async
# one; everything else is a coroutine.
PLAIN = {"namespace", "thread", "step_runner"}
CONTEXT_MANAGERS = {"hold"}


def _public(cls: type) -> dict[str, Any]:
    # Its own methods and its mixins' (`Memory` is `Forgetting` and `SnapshotsAndVectors` too).
    own: dict[str, Any] = {}
    for c in reversed(cls.__mro__[:-1]):  # not `object`
        own.update(vars(c))
    return {n: f for n, f in own.items()
            if not n.startswith("_") and callable(f) and not isinstance(f, classmethod)}


@pytest.mark.parametrize(("sync", "aio"), [(Memory, AsyncMemory), (Thread, AsyncThread)])
def test_every_public_method_has_an_async_twin_with_the_same_signature(sync, aio):
    mine, theirs = _public(aio), _public(sync)
    assert set(mine) == set(theirs), "add the missing method to memlane/aio.py"
    for name, fn in theirs.items():
        twin = mine[name]
        assert inspect.iscoroutinefunction(twin) == (name not in PLAIN | CONTEXT_MANAGERS), name
        a, b = inspect.signature(fn), inspect.signature(twin)
        assert list(a.parameters.values()) == list(b.parameters.values()), name
    assert inspect.signature(AsyncMemory.open).parameters == \
        inspect.signature(Memory.open).parameters


def _chat(n: int) -> list[dict[str, str]]:
    out = [{"role": "user", "content": "My locker code is 4471, remember it."},
           {"role": "assistant", "content": "Noted."}]
    for i in range(n):
        out += [{"role": "user", "content": f"Tell me about topic number {i} in the garden."},
                {"role": "assistant", "content": f"Topic {i} is about plants and soil."}]
    return out


def test_end_to_end_on_both_stores(store):
    async def main() -> None:
        mem = AsyncMemory(Memory(store))
        t = mem.thread("t1")
        await t.extend(_chat(30))
        assert (await t.info()).messages == 62
        steps = await t.maybe_step()
        assert len(steps) == 7 and (await t.info()).filed_to == 56
        ctx = await t.context(budget=900, new_message="What is my locker code?")
        assert ctx.messages[-1].content == "What is my locker code?"
        assert ctx.trace.tokens_total <= 900
        text = "\n".join(m.content for m in ctx.messages)
        assert "topic number 3 " not in text  # the middle is not replayed...
        first = ctx.trace.buffer_lines[0]     # ...the first stretch's line points at the fact
        hits = await mem.search("locker code")
        assert hits[0].record.id in first.record_ids and "4471" in hits[0].record.text
        other = mem.namespace("other")
        assert await other.search("locker code") == []
        rec = await other.remember("Prefers aisle seats.")
        assert [r.id for r in await other.records()] == [rec.id]
        assert await mem.forget(hits[0].record.id) is True
        assert all("4471" not in h.record.text for h in await mem.search("locker code"))
        # The sync view is the same memory: what one wrote the other reads.
        assert mem.sync.thread("t1").info().messages == 62

    asyncio.run(main())


def test_calls_run_off_the_loop_with_the_callers_contextvars(tmp_path):
    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")
    seen: list[tuple[int, str]] = []

    class Spy(HeuristicExtractor):
        def __call__(self, messages, existing):  # type: ignore[no-untyped-def]
            seen.append((threading.get_ident(), var.get()))
            return super().__call__(messages, existing)

    async def main() -> None:
        async with await AsyncMemory.open(tmp_path / "a.db", extractor=Spy()) as mem:
            var.set("from the caller")
            t = mem.thread("t")
            await t.extend(_chat(4))
            assert await t.step_due()
            # The loop keeps running while the store works: a ticker advances meanwhile.
            ticks = 0

            async def tick() -> None:
                nonlocal ticks
                while True:
                    ticks += 1
                    await asyncio.sleep(0)

            ticker = asyncio.create_task(tick())
            await t.maybe_step()
            ticker.cancel()
            assert seen and all(ident != threading.get_ident() for ident, _ in seen)
            assert {v for _, v in seen} == {"from the caller"}
            assert ticks > 0

    asyncio.run(main())


def test_concurrent_writers_keep_the_log_gapless(store):
    async def main() -> None:
        mem = AsyncMemory(Memory(store))
        threads = [mem.thread(f"t{i}") for i in range(4)]
        await asyncio.gather(*(t.add("user", f"message {j}") for j in range(10) for t in threads))
        for t in threads:
            seqs = [m.seq for m in await t.messages()]
            assert seqs == list(range(1, 11))
            assert sorted(m.content for m in await t.messages()) == \
                sorted(f"message {j}" for j in range(10))

    asyncio.run(main())


def test_usage_errors_surface_as_they_do_in_sync_code(tmp_path):
    from memlane import UsageError

    async def main() -> None:
        async with await AsyncMemory.open(tmp_path / "e.db") as mem:
            with pytest.raises(UsageError, match="role must be one of"):
                await mem.thread("t").add("robot", "hi")
            with pytest.raises(UsageError, match="budget must be a positive"):
                await mem.thread("t").context(budget=0)

    asyncio.run(main())


def test_hold_and_truncate(store):
    async def main() -> None:
        mem = AsyncMemory(Memory(store))
        t = mem.thread("h")
        await t.extend(_chat(2))
        order: list[str] = []

        async def holder(name: str) -> None:
            async with t.hold():
                order.append(f"{name} in")
                await t.add("user", f"from {name}")  # the holder's calls still run
                await asyncio.sleep(0.05)
                order.append(f"{name} out")

        await asyncio.gather(holder("a"), holder("b"))
        assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])
        assert await t.truncate(5) == 4  # 6 messages + one from each holder
        assert [m.seq for m in await t.messages()] == [1, 2, 3, 4]

    asyncio.run(main())


def test_a_slow_step_does_not_hold_up_other_calls(tmp_path):
    import time

    class Slow(HeuristicExtractor):
        def __call__(self, messages, existing):  # type: ignore[no-untyped-def]
            time.sleep(0.4)  # a model call
            return super().__call__(messages, existing)

    async def main() -> None:
        async with await AsyncMemory.open(tmp_path / "s.db", extractor=Slow()) as mem:
            t = mem.thread("t")
            await t.extend(_chat(4))
            step = asyncio.ensure_future(t.maybe_step())
            await asyncio.sleep(0.05)
            started = time.perf_counter()
            ctx = await t.context(budget=2000)  # the single SQLite worker is free meanwhile
            assert time.perf_counter() - started < 0.3 and not step.done()
            assert ctx.messages
            assert len(await step) == 1

    asyncio.run(main())


def test_the_service_calls_the_store_off_its_event_loop(tmp_path, monkeypatch):
    """The HTTP service's handlers run on worker threads: the store is never called from the
    thread running the event loop (a real server on loopback)."""
    import httpx

    from memlane.server.app import create_app
    from memlane.server.auth import Auth, KeyRing
    from memlane.testing import serve_in_thread

    mem = Memory.open(tmp_path / "svc.db")
    loop_threads: set[int] = set()
    store_threads: set[int] = set()
    app = create_app(mem, Auth.for_host(KeyRing.load(tmp_path / "none.json"), "127.0.0.1"),
                     mcp=False)

    async def outer(scope, receive, send):  # type: ignore[no-untyped-def]
        loop_threads.add(threading.get_ident())
        await app(scope, receive, send)

    real = type(mem.store).threads

    def spy(self, *a, **k):  # type: ignore[no-untyped-def]
        store_threads.add(threading.get_ident())
        return real(self, *a, **k)

    monkeypatch.setattr(type(mem.store), "threads", spy)
    mem.thread("t").add("user", "hello")
    with serve_in_thread(outer) as url:
        r = httpx.get(f"{url}/v1/memlane/threads", timeout=10)
    assert r.status_code == 200 and r.json()
    assert store_threads and loop_threads and not store_threads & loop_threads
    mem.close()
