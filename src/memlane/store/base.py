"""The `Store` seam: what memlane needs from a database, as one small Protocol.

Two implementations pass one conformance suite: `SQLiteStore` (embedded, default) and
`PostgresStore` (many processes on many machines). Every method takes the namespace first and
every query is scoped by it: no call can read another namespace's rows.

Logic that must be the same on both engines (applying a memory step, bounding history) is written
once against the small transactional interface `StoreTx` and lives outside the stores
(`memlane.step.apply`), so the stores hold SQL and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from ..types import ContextRows, Episode, Message, Record, ThreadInfo


@dataclass(frozen=True)
class NewMessage:
    """A message to append; the store assigns `id` and `seq`."""

    role: str
    content: str
    ts: float
    tokens: int
    name: str | None = None


@dataclass(frozen=True)
class HistoryPolicy:
    """Bounds on the message log (bounded history)."""

    ttl_seconds: float | None = 30 * 24 * 3600
    """A thread with no write for this long is deleted (None: never). Goes by wall-clock write
    time, not by message timestamps, so importing an old conversation does not expire it."""
    max_threads: int | None = 1000
    """Per namespace; past it the least recently written thread is evicted (None: no ceiling)."""


class StoreTx(Protocol):
    """Primitive writes inside one open transaction (see `Store.transaction`)."""

    def record_owner(self, namespace: str, record_id: int) -> str | None:
        """The namespace of record `record_id`, or None if it does not exist."""
        ...

    def records_of_step(self, namespace: str, thread_id: str, end: int) -> list[int]:
        """Ids of the records added by the step filed at `(thread_id, end)`."""
        ...

    def add_record(
        self,
        namespace: str,
        text: str,
        kind: str,
        source_ids: Sequence[int],
        thread_id: str | None,
        now: float,
        step_end: int | None,
        suspect: bool,
        pinned: bool = False,
    ) -> int: ...

    def update_record(
        self, namespace: str, record_id: int, text: str, now: float, suspect: bool,
        source_ids: Sequence[int] = (),
    ) -> None: ...

    def delete_record(self, namespace: str, record_id: int, now: float) -> None: ...

    def get_episode(self, namespace: str, thread_id: str, end: int) -> Episode | None: ...

    def upsert_episode(self, namespace: str, episode: Episode, now: float) -> None:
        """Insert or overwrite the episode keyed by `(thread_id, end)`."""
        ...

    def set_relevance(
        self, namespace: str, thread_id: str, scores: dict[int, float]
    ) -> None:
        """Set relevance by message seq."""
        ...

    def message_ids(self, namespace: str, thread_id: str, start: int, end: int) -> dict[int, int]:
        """Map message id -> seq for messages of the thread with start <= seq <= end."""
        ...


class Store(Protocol):
    """A memlane database."""

    url: str

    def close(self) -> None: ...

    def transaction(self) -> AbstractContextManager[StoreTx]:
        """One write transaction: all of it lands, or none of it."""
        ...

    # message log -------------------------------------------------------------------------
    def append(
        self,
        namespace: str,
        thread_id: str,
        messages: Sequence[NewMessage],
        now: float,
        history: HistoryPolicy,
    ) -> list[Message]:
        """Append in order (seq assigned atomically); creates the thread, evicts LRU threads."""
        ...

    def thread(self, namespace: str, thread_id: str) -> ThreadInfo | None: ...

    def threads(self, namespace: str, limit: int = 100, offset: int = 0) -> list[ThreadInfo]: ...

    def messages(
        self,
        namespace: str,
        thread_id: str,
        start: int = 1,
        end: int | None = None,
        limit: int | None = None,
    ) -> list[Message]: ...

    def messages_by_id(self, namespace: str, ids: Sequence[int]) -> list[Message]: ...

    def user_turns_after(self, namespace: str, thread_id: str, seq: int) -> int:
        """How many user messages have seq > `seq` (the cadence counter)."""
        ...

    def context_rows(
        self, namespace: str, thread_id: str, window_turns: int, buffer_lines: int
    ) -> ContextRows:
        """The bounded read assembly needs: the window plus one probe message, the first and the
        latest episodes that start before the window, and counts that prove the gap."""
        ...

    def delete_thread(self, namespace: str, thread_id: str) -> bool: ...

    def expire(self, now: float, history: HistoryPolicy, namespace: str | None = None) -> int:
        """Delete threads idle past the TTL; returns how many."""
        ...

    # episodes and records -----------------------------------------------------------------
    def episodes(self, namespace: str, thread_id: str) -> list[Episode]: ...

    def records(
        self,
        namespace: str,
        ids: Sequence[int] | None = None,
        limit: int = 1000,
        offset: int = 0,
        pinned_only: bool = False,
    ) -> list[Record]: ...

    def record_sources(self, namespace: str, record_ids: Sequence[int]) -> dict[int, list[int]]:
        """Source message ids for each record."""
        ...

    def namespaces(self) -> list[str]: ...


def chunks(seq: Sequence[int], n: int = 500) -> Iterator[Sequence[int]]:
    """Split id lists so `IN (...)` queries stay under parameter limits."""
    for i in range(0, len(seq), n):
        yield seq[i : i + n]
