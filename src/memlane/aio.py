"""`AsyncMemory` and `AsyncThread`: `Memory` and `Thread` for asyncio code.

    mem = await AsyncMemory.open("agent.db")
    t = mem.thread("support-42")
    await t.add("user", "My order number is 81-3319.")
    await t.maybe_step()
    ctx = await t.context(budget=4000, new_message="Where is my order?")
    await mem.close()                       # or: async with await AsyncMemory.open(...) as mem

Design: an `AsyncMemory` wraps a `Memory` and runs each call on worker threads of its own, so the
event loop never waits on SQLite or on a PostgreSQL round trip. There is no second copy of the
core: every method awaits the very `Memory`/`Thread` method of the same name (a test checks that
every public sync method has an async counterpart with the same signature, so the two cannot
drift apart).

- SQLite: one worker thread per memory. The store has one connection behind a lock, so more
  threads would only queue on that lock; one thread keeps calls in submission order too.
- PostgreSQL: as many workers as the store's connection pool has connections, so that many
  calls run at once. This goes through the sync `psycopg` pool rather than psycopg's
  `AsyncConnectionPool`: an async pool would need every query of the store written a second time
  in `async def` form (the copy this design refuses), and the time that matters here is spent in
  the database, which runs in parallel either way. The cost is a thread per pooled connection.

A memory step (`step`, `maybe_step`, `flush`) and `reindex` run on the event loop's default executor
instead: they are mostly a model call or an embedding, and taking the memory's only SQLite
worker for seconds would hold up every other call; their store writes take the store's own lock.

The caller's `contextvars` (an OpenTelemetry span, for one) are carried into the worker. A call
whose awaiting task is cancelled still runs to its end on the worker (a thread cannot be
interrupted): a write that was started commits or rolls back as a whole, never half.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import os
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from .context.policy import Policy
from .memory import Memory, Thread
from .redact import Forgotten
from .safety import Admission
from .search.embed import Embedder
from .search.hybrid import Hit, SnapshotHit
from .step.extractor import Extractor
from .step.runner import StepRunner
from .store.protocol import Snapshot
from .types import Context, ContextRows, Episode, Message, Record, StepResult, ThreadInfo

if TYPE_CHECKING:
    from .ledger import Ledger

T = TypeVar("T")


def _workers(memory: Memory) -> int:
    """Worker threads worth having for this memory's store (see the module docstring)."""
    return max(1, memory.store.capabilities.concurrency)


async def in_executor(executor: Executor | None, fn: Callable[..., T], /, *args: Any,
                      finish_first: bool = False, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` on `executor` (None: the loop's default), awaited, with the
    caller's context variables: the one hop from a loop to a worker thread (`AsyncMemory`'s
    calls, the server's requests: `Service.in_thread`). A task cancelled meanwhile leaves the
    call to finish on its thread; with `finish_first` the cancel lands only once it has (a
    server request's work is never left running behind a response already gone; it needs an
    executor of the caller's, whose jobs it can wait for)."""
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    if not finish_first:
        return await asyncio.get_running_loop().run_in_executor(executor, call)
    if executor is None:
        raise ValueError("finish_first needs an executor: the loop's default one hands back "
                         "no job to wait for")
    job = executor.submit(call)
    try:
        return await asyncio.wrap_future(job)
    except asyncio.CancelledError:
        if not job.done():  # running: cancelling it did nothing
            await asyncio.wait([asyncio.wrap_future(job)])
        raise


class AsyncMemory:
    """Layered memory for one namespace, for asyncio code: `Memory`'s methods, awaited."""

    def __init__(self, memory: Memory, *, executor: ThreadPoolExecutor | None = None) -> None:
        """Wrap an open `Memory`. `executor`: the worker threads to run calls on (default: a
        pool of this memory's own, sized for its store, shut down by `close()`)."""
        self.sync = memory
        """The wrapped `Memory`, for code that is not async (same store, same caches)."""
        self._own_executor = executor is None
        self._executor = executor or ThreadPoolExecutor(
            max_workers=_workers(memory), thread_name_prefix="memlane")

    @classmethod
    async def open(
        cls,
        target: str | os.PathLike[str] | None = None,
        *,
        namespace: str = "default",
        embedder: Embedder | str | None = None,
        switch_embedder: bool = False,
        **kwargs: Any,
    ) -> AsyncMemory:
        """`Memory.open` without blocking the loop (opening runs the store's migrations)."""
        memory = await asyncio.to_thread(Memory.open, target, namespace=namespace,
                                         embedder=embedder, switch_embedder=switch_embedder,
                                         **kwargs)
        return cls(memory)

    async def _run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        return await in_executor(self._executor, fn, *args, **kwargs)

    async def _run_aside(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Like `_run`, on the loop's default executor (for long, mostly non-store work)."""
        return await in_executor(None, fn, *args, **kwargs)

    @property
    def ns(self) -> str:
        return self.sync.ns

    # no I/O: plain methods ---------------------------------------------------------------------
    def namespace(self, namespace: str, *,
                  on_forget: Callable[[], object] | None = None) -> AsyncMemory:
        """The same store seen as another namespace (sharing this memory's worker threads)."""
        return AsyncMemory(self.sync.namespace(namespace, on_forget=on_forget),
                           executor=self._executor)

    def thread(self, thread_id: str) -> AsyncThread:
        return AsyncThread(self, self.sync.thread(thread_id))

    def step_runner(
        self,
        extractor: Extractor | None = None,
        *,
        ledger: Ledger | None = None,
        model: str | None = None,
    ) -> StepRunner:
        """The memory's (blocking) filing path, for code that runs steps on its own workers."""
        return self.sync.step_runner(extractor, ledger=ledger, model=model)

    # Memory's methods, awaited -----------------------------------------------------------------
    async def threads(self, limit: int = 100, offset: int = 0) -> list[ThreadInfo]:
        return await self._run(self.sync.threads, limit, offset)

    async def records(
        self, ids: Sequence[int] | None = None, limit: int = 1000, offset: int = 0,
        *, pinned_only: bool = False,
    ) -> list[Record]:
        return await self._run(self.sync.records, ids, limit, offset, pinned_only=pinned_only)

    async def messages_by_id(self, ids: Sequence[int]) -> list[Message]:
        return await self._run(self.sync.messages_by_id, ids)

    async def expire(self, now: float | None = None) -> int:
        return await self._run(self.sync.expire, now)

    async def related(self, messages: Sequence[Message], limit: int = 10) -> list[Record]:
        return await self._run(self.sync.related, messages, limit)

    async def search(
        self,
        query: str,
        k: int = 5,
        *,
        kinds: Sequence[str] | None = None,
        thread_id: str | None = None,
        since: float | None = None,
        until: float | None = None,
    ) -> list[Hit]:
        return await self._run(self.sync.search, query, k, kinds=kinds, thread_id=thread_id,
                               since=since, until=until)

    async def remember(
        self,
        text: str,
        kind: str = "fact",
        *,
        source_ids: Sequence[int] = (),
        thread_id: str | None = None,
        pinned: bool = False,
        suspect: bool = False,
        said: Sequence[str] = (),
        trusted: bool = False,
        admission: Admission | None = None,
    ) -> Record:
        return await self._run(self.sync.remember, text, kind, source_ids=source_ids,
                               thread_id=thread_id, pinned=pinned, suspect=suspect, said=said,
                               trusted=trusted, admission=admission)

    async def update(self, record_id: int, text: str, *, suspect: bool = False,
                     said: Sequence[str] = (), trusted: bool = False,
                     admission: Admission | None = None) -> Record:
        return await self._run(self.sync.update, record_id, text, suspect=suspect, said=said,
                               trusted=trusted, admission=admission)

    async def admit(self, text: str, *, said: Sequence[str] = (),
                    trusted: bool = False, origin: str = "") -> Admission:
        return await self._run(self.sync.admit, text, said=said, trusted=trusted, origin=origin)

    async def record_history(self, record_id: int) -> list[dict[str, Any]]:
        return await self._run(self.sync.record_history, record_id)

    async def pin(self, record_id: int, pinned: bool = True) -> Record:
        return await self._run(self.sync.pin, record_id, pinned)

    async def forget(self, record_id: int, *, redact_sources: bool = True) -> bool:
        return await self._run(self.sync.forget, record_id, redact_sources=redact_sources)

    async def forget_to_disk(self, record_id: int) -> bool:
        return await self._run(self.sync.forget_to_disk, record_id)

    async def forget_record(self, record_id: int, *, redact_sources: bool = True) -> Forgotten:
        return await self._run(self.sync.forget_record, record_id,
                               redact_sources=redact_sources)

    async def forget_thread(self, thread_id: str) -> dict[str, int]:
        return await self._run(self.sync.forget_thread, thread_id)

    async def forget_namespace(self) -> dict[str, int]:
        return await self._run(self.sync.forget_namespace)

    async def compact(self) -> None:
        await self._run(self.sync.compact)

    async def export(self) -> dict[str, Any]:
        return await self._run(self.sync.export)

    async def restore(self, data: Mapping[str, Any], *,
                      progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
        return await self._run(self.sync.restore, data, progress=progress)

    async def save_snapshot(
        self, tool: str, args: Mapping[str, Any], result: str, *, thread_id: str | None = None
    ) -> tuple[Snapshot, bool]:
        return await self._run(self.sync.save_snapshot, tool, args, result, thread_id=thread_id)

    async def recall(self, query: str, k: int = 3) -> list[SnapshotHit]:
        return await self._run(self.sync.recall, query, k)

    async def reindex(self, batch: int = 256,
                      progress: Callable[[int, int | None], None] | None = None) -> int:
        return await self._run_aside(self.sync.reindex, batch, progress)

    async def close(self) -> None:
        """Close the store (on a worker, after the calls queued before it), then stop this
        memory's worker threads."""
        try:
            await self._run(self.sync.close)
        finally:
            if self._own_executor:
                self._executor.shutdown(wait=False)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class AsyncThread:
    """One conversation of an `AsyncMemory`: `Thread`'s methods, awaited."""

    def __init__(self, memory: AsyncMemory, thread: Thread) -> None:
        self.memory = memory
        self.sync = thread
        """The wrapped `Thread`."""

    @property
    def id(self) -> str:
        return self.sync.id

    async def add(self, role: str, content: str, *, ts: float | None = None,
                  name: str | None = None) -> Message:
        return await self.memory._run(self.sync.add, role, content, ts=ts, name=name)

    async def extend(self, messages: Iterable[Mapping[str, Any]]) -> list[Message]:
        # Materialised here: an iterator read on the worker could be one the caller is using.
        return await self.memory._run(self.sync.extend, list(messages))

    async def truncate(self, from_seq: int) -> int:
        return await self.memory._run(self.sync.truncate, from_seq)

    @contextlib.asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        """`Thread.hold` as `async with`. The wait for the lock runs on a thread of its own,
        not on the memory's workers: a waiting holder must not take the worker that the current
        holder's calls need (with SQLite's single worker that would deadlock)."""
        cm = self.sync.hold()
        entered = asyncio.ensure_future(asyncio.to_thread(cm.__enter__))
        try:
            await asyncio.shield(entered)
        except asyncio.CancelledError:
            # Cancelled while waiting: release the lock once it is granted, never leak it.
            entered.add_done_callback(
                lambda f: None if f.cancelled() or f.exception() else cm.__exit__(None, None, None))
            raise
        try:
            yield
        finally:
            await asyncio.to_thread(cm.__exit__, None, None, None)

    async def info(self) -> ThreadInfo:
        return await self.memory._run(self.sync.info)

    async def exists(self) -> bool:
        return await self.memory._run(self.sync.exists)

    async def messages(self, start: int = 1, end: int | None = None,
                       limit: int | None = None) -> list[Message]:
        return await self.memory._run(self.sync.messages, start, end, limit)

    async def episodes(self) -> list[Episode]:
        return await self.memory._run(self.sync.episodes)

    async def context(
        self,
        budget: int = 4000,
        new_message: str | None = None,
        *,
        policy: Policy | None = None,
        now: float | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> Context:
        return await self.memory._run(self.sync.context, budget, new_message, policy=policy,
                                      now=now, tools=tools)

    async def notes(self, budget: int, new_message: str | None, policy: Policy,
                    rows: ContextRows | None = None) -> list[Record]:
        return await self.memory._run(self.sync.notes, budget, new_message, policy, rows)

    async def matched_lines(self, new_message: str | None, policy: Policy) -> list[Episode]:
        return await self.memory._run(self.sync.matched_lines, new_message, policy)

    async def pending(self) -> list[Message]:
        return await self.memory._run(self.sync.pending)

    async def step_due(self) -> bool:
        return await self.memory._run(self.sync.step_due)

    async def due_stretch(self) -> list[Message]:
        return await self.memory._run(self.sync.due_stretch)

    async def step(
        self,
        output: Mapping[str, Any] | str | None = None,
        *,
        start: int | None = None,
        end: int | None = None,
        extractor: Extractor | None = None,
    ) -> StepResult | None:
        return await self.memory._run_aside(self.sync.step, output, start=start, end=end,
                                            extractor=extractor)

    async def maybe_step(self, max_steps: int = 1000, *,
                         turn_done: bool = False) -> list[StepResult]:
        return await self.memory._run_aside(self.sync.maybe_step, max_steps,
                                            turn_done=turn_done)

    async def flush(self) -> list[StepResult]:
        return await self.memory._run_aside(self.sync.flush)

    async def delete(self) -> bool:
        return await self.memory._run(self.sync.delete)
