"""Store methods that are the same on every engine, written once against `StoreTx`.

Each store class keeps its SQL; what is only bookkeeping around the transactional primitives
lives here, so SQLite and PostgreSQL cannot drift apart on it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from ..errors import NotFound
from ..types import ContextRows, Episode, Message, Record

# The filing claim's check (`StoreTx.overlapping_episodes`): the same SQL on both engines, with
# each engine's placeholder. Uses the episodes_start index; a thread has few episodes anyway.
OVERLAPPING_EPISODES = (
    'SELECT start, "end" FROM episodes WHERE namespace = {p} AND thread_id = {p}'
    ' AND start <= {p} AND "end" >= {p} AND NOT (start = {p} AND "end" = {p}) ORDER BY start'
)


class TxStoreMixin:
    """Record edits and thread deletion through `transaction()`; needs `records()` and
    `_delete_thread(conn, namespace, thread_id)` from the engine."""

    def transaction(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def records(self, namespace: str, ids: Sequence[int] | None = None, limit: int = 1000,
                offset: int = 0, pinned_only: bool = False) -> list[Record]:
        raise NotImplementedError

    @staticmethod
    def _delete_thread(c: Any, namespace: str, thread_id: str) -> bool:
        raise NotImplementedError

    def update_record(
        self, namespace: str, record_id: int, text: str, now: float | None = None,
        suspect: bool = False,
    ) -> Record:
        now = time.time() if now is None else now
        with self.transaction() as tx:
            if tx.record_owner(namespace, record_id) != namespace:
                raise NotFound(f"no record #{record_id} in namespace {namespace!r}")
            tx.update_record(namespace, record_id, text, now, suspect)
        return self.records(namespace, [record_id])[0]

    def delete_record(self, namespace: str, record_id: int, now: float | None = None) -> bool:
        now = time.time() if now is None else now
        with self.transaction() as tx:
            if tx.record_owner(namespace, record_id) != namespace:
                return False
            tx.delete_record(namespace, record_id, now)
            return True

    def record_sources(self, namespace: str, record_ids: Sequence[int]) -> dict[int, list[int]]:
        return {r.id: list(r.source_ids) for r in self.records(namespace, record_ids)}

    def delete_thread(self, namespace: str, thread_id: str) -> bool:
        with self.transaction() as tx:
            return self._delete_thread(tx.conn, namespace, thread_id)

    PARAM = "?"
    """The engine's query parameter marker: the SQL below is written with `?`."""

    def truncate(self, namespace: str, thread_id: str, from_seq: int,
                 now: float | None = None) -> int:
        """Drop the thread's messages from `from_seq` on; returns how many went.

        The seqs are handed out again (the log stays 1..N, which windows and stretches rely
        on). A memory step whose stretch reaches a dropped message is withdrawn with it: its
        episode (buffer line) and the records it added go, so the kept part of its stretch is
        filed again with what follows. Records it *updated* keep the new text.
        """
        now = time.time() if now is None else now

        def q(sql: str) -> str:
            return sql.replace("?", self.PARAM)

        with self.transaction() as tx:
            # Touching the thread row first takes its row lock on PostgreSQL (SQLite holds the
            # write lock already): an append or a step in flight on this thread lands first.
            tx.conn.execute(q("UPDATE threads SET last_active = ? WHERE namespace = ?"
                              " AND thread_id = ?"), (now, namespace, thread_id))
            ends = [int(r[0]) for r in tx.conn.execute(q(
                'SELECT "end" FROM episodes WHERE namespace = ? AND thread_id = ? AND "end" >= ?'
            ), (namespace, thread_id, from_seq)).fetchall()]
            for end in ends:
                for rid in tx.records_of_step(namespace, thread_id, end):
                    tx.delete_record(namespace, rid, now)
            tx.conn.execute(q('DELETE FROM episodes WHERE namespace = ? AND thread_id = ?'
                              ' AND "end" >= ?'), (namespace, thread_id, from_seq))
            gone = tx.conn.execute(q(
                "DELETE FROM messages WHERE namespace = ? AND thread_id = ? AND seq >= ?"
            ), (namespace, thread_id, from_seq)).rowcount
            tx.conn.execute(q(
                "UPDATE threads SET next_seq = ?,"
                " turns = COALESCE((SELECT MAX(turn) FROM messages"
                "   WHERE namespace = ? AND thread_id = ?), 0),"
                ' filed_to = COALESCE((SELECT MAX("end") FROM episodes'
                "   WHERE namespace = ? AND thread_id = ?), 0)"
                " WHERE namespace = ? AND thread_id = ? AND next_seq > ?"
            ), (from_seq, namespace, thread_id, namespace, thread_id, namespace, thread_id,
                from_seq))
            return int(gone or 0)


class ThreadLocks:
    """One lock per (namespace, thread) key, for this process; a key's lock lives while
    someone holds or waits for it."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[tuple[str, str], tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, namespace: str, thread_id: str) -> Iterator[None]:
        key = (namespace, thread_id)
        with self._guard:
            lock, users = self._locks.get(key) or (threading.Lock(), 0)
            self._locks[key] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._locks[key]
                if users == 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)

# the context read -------------------------------------------------------------------------------
# What `Store.context_rows` returns, built from what the engine read: the engines differ in how
# they read (SQLite: a few indexed reads in one read transaction; PostgreSQL: one statement), not
# in what the rows are.

def window_rows(
    thread_id: str, start: int, msgs: Sequence[Message], filed_to: int,
    first: Episode | None, recent: Sequence[Episode], count: int, pinned: tuple[Record, ...],
) -> ContextRows:
    """The rows of the window that starts at seq `start`. `msgs`: the thread's messages from
    seq `start - 1` on (the one before the window, the probe, first if it exists); `recent`: the
    newest episodes that start before `start`, newest first; `count`: the filing number `n` of
    the newest of them (episodes are numbered 1, 2, ... in filing order, so it is how many start
    before the window, without counting rows)."""
    truncated = bool(msgs) and msgs[0].seq < start
    window = tuple(msgs[1:] if truncated else msgs)
    if not truncated:
        return ContextRows(thread_id, window, False, None, (), 0, 0, pinned)
    return ContextRows(
        thread_id=thread_id, window=window, truncated=True, first_episode=first,
        recent_episodes=tuple(recent), episodes_before_window=count,
        unfiled_before_window=max(0, (start - 1) - filed_to), pinned=pinned,
    )


def held_turns(held: ContextRows | None, thread_id: str, window_turns: int) -> int | None:
    """How many turns `held` (rows an earlier `context_rows` call returned) holds, if a window of
    `window_turns` can be read as `held` plus older rows; None if it must be read whole (no rows
    held, another thread, the whole thread in view already, no window, not a larger one)."""
    if held is None or held.thread_id != thread_id or not held.truncated or not held.window:
        return None
    # A truncated window starts at the user message of its first turn, and each of its turns
    # starts with one: the held window's turns are its user messages.
    have = [m.role for m in held.window].count("user")
    return have if window_turns > have else None


def grown_rows(
    held: ContextRows, start: int, older: Sequence[Message], recent: Sequence[Episode],
    count: int,
) -> ContextRows:
    """The rows of a larger window starting at seq `start`, from `held` (the rows of the window
    it contains) and what the engine read for it: `older`, the messages from seq `start - 1` up to
    the held window (the probe first if it exists); `recent` and `count` as in `window_rows`."""
    truncated = bool(older) and older[0].seq < start
    window = tuple(older[1:] if truncated else older) + held.window
    if not truncated:
        return ContextRows(held.thread_id, window, False, None, (), 0, 0, held.pinned)
    # held.unfiled is max(0, held_start - 1 - filed_to): the messages between the two starts
    # were unfiled ones first.
    moved = held.window[0].seq - start
    return ContextRows(
        thread_id=held.thread_id, window=window, truncated=True,
        first_episode=held.first_episode, recent_episodes=tuple(recent),
        episodes_before_window=count,
        unfiled_before_window=max(0, held.unfiled_before_window - moved), pinned=held.pinned,
    )
