"""Per-thread locks for this process, and the rows of a context read."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ...types import ContextRows, Episode, Message, Record


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
