"""The message log on SQLite: appends (with history bounds) and the context read."""

from __future__ import annotations

import sqlite3
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from ...caches import remember
from ...types import ContextRows, Episode, Message
from ..common import (
    grown_rows,
    held_turns,
    window_rows,
)
from ..protocol import HistoryPolicy, NewMessage
from .core import SQLiteCore
from .window import _WindowReads

WINDOWS_MEMO = 64
"""Threads (namespace, thread, lines) whose last window read `context_rows` keeps."""


@dataclass(frozen=True, eq=False)
class _Window:
    """A thread's last window read (`SQLiteLog.context_rows`), valid while `rev` stays: the
    thread's counters then (`head`: turns, filed_to, next_seq), the window's turns and where it
    started, the messages held (from the window's probe on, or from further back: a window
    of fewer turns is cut from them), the episodes that start before it, and the rows."""

    rev: Hashable
    head: tuple[int, int, int]
    w: int
    start: int
    msgs: list[Message]
    recent: list[Episode]
    count: int
    rows: ContextRows


class SQLiteLog(SQLiteCore):
    """Appending messages, deleting threads, reading a context window."""

    # message log -------------------------------------------------------------------------------
    def append(
        self, namespace: str, thread_id: str, messages: Sequence[NewMessage], now: float,
        history: HistoryPolicy,
    ) -> list[Message]:
        with self.transaction() as tx:
            c = tx.conn
            row = c.execute(
                "SELECT next_seq, turns FROM threads WHERE namespace = ? AND thread_id = ?",
                (namespace, thread_id),
            ).fetchone()
            # Messages and the thread row only (a new thread may evict others, and their
            # episodes with them): the memos keyed by `revision()` stay.
            tx.messages_only = row is not None
            if row is None:
                # A new thread is when history is bounded: idle threads past the TTL go first,
                # then the least recently written ones past the ceiling.
                if history.ttl_seconds is not None:
                    for (tid,) in c.execute(
                        "SELECT thread_id FROM threads WHERE namespace = ? AND last_active < ?",
                        (namespace, now - history.ttl_seconds),
                    ).fetchall():
                        self._delete_thread(c, namespace, tid)
                if history.max_threads is not None:
                    self._evict_lru(c, namespace, history.max_threads - 1)
                c.execute(
                    "INSERT INTO threads (namespace, thread_id, created, last_active)"
                    " VALUES (?, ?, ?, ?)",
                    (namespace, thread_id, now, now),
                )
                next_seq, turns = 1, 0
            else:
                next_seq, turns = row
            out: list[Message] = []
            for m in messages:
                if m.role == "user":
                    turns += 1
                cur = c.execute(
                    "INSERT INTO messages (namespace, thread_id, seq, turn, role, content, name,"
                    " ts, tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (namespace, thread_id, next_seq, turns, m.role, m.content, m.name, m.ts,
                     m.tokens),
                )
                out.append(Message(
                    id=int(cur.lastrowid or 0), thread_id=thread_id, seq=next_seq, role=m.role,
                    content=m.content, ts=m.ts, tokens=m.tokens, name=m.name,
                ))
                next_seq += 1
            c.execute(
                "UPDATE threads SET next_seq = ?, turns = ?, last_active = ?"
                " WHERE namespace = ? AND thread_id = ?",
                (next_seq, turns, now, namespace, thread_id),
            )
            return out

    def _evict_lru(self, c: sqlite3.Connection, namespace: str, keep: int) -> None:
        rows = c.execute(
            "SELECT thread_id FROM threads WHERE namespace = ? ORDER BY last_active DESC"
            " LIMIT -1 OFFSET ?",
            (namespace, max(keep, 0)),
        ).fetchall()
        for (tid,) in rows:
            self._delete_thread(c, namespace, tid)

    @staticmethod
    def _delete_thread(c: sqlite3.Connection, namespace: str, thread_id: str) -> bool:
        c.execute("DELETE FROM messages WHERE namespace = ? AND thread_id = ?",
                  (namespace, thread_id))
        c.execute("DELETE FROM episodes WHERE namespace = ? AND thread_id = ?",
                  (namespace, thread_id))
        # The thread's records outlive it (long-term memory), but no longer belong to a step of
        # it: a thread used again under this id numbers its messages from 1, and its first
        # steps end at the seqs the old ones did (`records_of_step`), so they were taken for
        # retries of stretches filed already and refused, and filing stopped for good.
        c.execute("UPDATE records SET step_end = NULL WHERE namespace = ? AND thread_id = ?"
                  " AND step_end IS NOT NULL", (namespace, thread_id))
        cur = c.execute("DELETE FROM threads WHERE namespace = ? AND thread_id = ?",
                        (namespace, thread_id))
        return cur.rowcount > 0

    def context_rows(
        self, namespace: str, thread_id: str, window_turns: int, buffer_lines: int,
        held: ContextRows | None = None,
    ) -> ContextRows:
        with self._lock:
            c = self.conn
            # Read before the snapshot: what is memoised under it is at least that new.
            rev = self.revision() if not c.in_transaction else None
            key = (namespace, thread_id, buffer_lines)
            last: _Window | None = self._windows.get(key) if rev is not None else None
            if last is not None and last.rev != rev:
                last = None
            c.execute("BEGIN")  # one snapshot for all the reads below
            try:
                r = _WindowReads(c, namespace, thread_id, self._episodes)
                have = held_turns(held, thread_id, window_turns)
                if held is not None and have is not None:
                    first = held.window[0]
                    row = c.execute("SELECT turn FROM messages WHERE namespace = ? AND"
                                    " thread_id = ? AND seq = ? AND id = ?",
                                    (namespace, thread_id, first.seq, first.id)).fetchone()
                    if row is not None:  # else the held rows are gone: read the window whole
                        start = r.start(row[0] + have - window_turns)
                        mine = last if last is not None and last.rows is held else None
                        older = ([m for m in _from(r, mine.msgs, start - 1)
                                  if m.seq < first.seq] if mine is not None and mine.msgs
                                 else r.messages(start - 1, first.seq))
                        recent, count = r.recent(start, buffer_lines)
                        out = grown_rows(held, start, older, recent, count)
                        if mine is not None:
                            # This turn's first read came from the memo: it holds the larger
                            # window now, for the next turn's fill (and the older messages it
                            # held: the next fill may start before this one).
                            before = [m for m in mine.msgs if m.seq < start - 1]
                            self._windows[key] = _Window(rev, mine.head, window_turns, start,
                                                         [*before, *older, *held.window],
                                                         recent, count, out)
                        return out
                t = c.execute("SELECT turns, filed_to, next_seq FROM threads"
                              " WHERE namespace = ? AND thread_id = ?",
                              (namespace, thread_id)).fetchone()
                if last is not None and t is not None:
                    if last.head == t and last.w == window_turns:
                        return last.rows  # nothing written since: the same rows
                    got = self._cut(r, last, t, window_turns, buffer_lines)
                    if got is not None:
                        self._windows[key] = got
                        return got.rows
                pinned = tuple(self._records(c, namespace, None, 1000, 0, pinned_only=True))
                if t is None:
                    return ContextRows(thread_id, (), False, None, (), 0, 0, pinned)
                turns, filed_to, next_seq = t
                # No window at all: every message is history, none is replayed.
                start = next_seq if window_turns <= 0 else r.start(turns - window_turns + 1)
                # Read one message more than the window: if it comes back, history did not fit.
                msgs = r.messages(start - 1)
                if not msgs or msgs[0].seq >= start:
                    out = window_rows(thread_id, start, msgs, filed_to, None, (), 0, pinned)
                    recent, count = [], 0
                else:
                    recent, count = r.recent(start, buffer_lines)
                    out = window_rows(thread_id, start, msgs, filed_to, r.first_episode(),
                                      recent, count, pinned)
                if rev is not None:
                    remember(self._windows, key, _Window(rev, t, window_turns, start, msgs,
                                                         recent, count, out), WINDOWS_MEMO)
                return out
            finally:
                c.execute("COMMIT")

    @staticmethod
    def _cut(r: _WindowReads, last: _Window, head: tuple[int, int, int], window_turns: int,
             buffer_lines: int) -> _Window | None:
        """The window of `window_turns` turns from the rows `last` holds and the messages
        appended since it was read (the revision unmoved: nothing else was written); None when
        it must be read whole (not only appends: the thread's counters went back, or its filing
        moved; no window). A window that starts before the rows held reads only the older
        part."""
        turns, filed_to, next_seq = head
        lturns, lfiled, lnext = last.head
        if not (turns >= lturns and next_seq >= lnext and filed_to == lfiled
                and window_turns > 0 and last.msgs):
            return None
        start = r.start(turns - window_turns + 1)
        held = last.msgs
        # The held rows are every message from their first on: the window's, from start - 1
        # (its probe), are among them, or no message is older than them (no probe came back
        # when they were read: the whole thread was in view).
        if start - 1 < held[0].seq and last.rows.truncated:
            held = _from(r, held, start - 1)  # only the older part is read
        if next_seq > lnext:  # appended since: seqs from `lnext` on
            held = [*held, *r.messages(lnext)]
        first = next((i for i, m in enumerate(held) if m.seq >= start - 1), len(held))
        msgs = held[first:]
        # Kept: the window's messages and twice as many older ones at most (a long
        # conversation's appends would otherwise grow the held rows without bound; a fill's
        # window moves by a few turns either way from one turn to the next).
        held = held[max(0, first - 2 * len(msgs)):]
        rows = last.rows
        if not msgs or msgs[0].seq >= start:
            out = window_rows(rows.thread_id, start, msgs, filed_to, None, (), 0, rows.pinned)
            return _Window(last.rev, head, window_turns, start, held, [], 0, out)
        if start == last.start and rows.truncated:  # the same episodes start before it
            recent, count = last.recent, last.count
        else:
            recent, count = r.recent(start, buffer_lines)
        first_ep = rows.first_episode if rows.first_episode is not None else r.first_episode()
        out = window_rows(rows.thread_id, start, msgs, filed_to, first_ep, recent, count,
                          rows.pinned)
        return _Window(last.rev, head, window_turns, start, held, recent, count, out)


def _from(r: _WindowReads, held: list[Message], lo: int) -> list[Message]:
    """The messages from seq `lo` to the last of `held` (the held rows: every message from
    their first on, `SQLiteLog._cut`): the held ones as they are, the same objects (what
    `prepare`'s window memo is keyed by; a message does not change while the revision stays),
    and only the part older than them read."""
    if lo < held[0].seq:
        return [*r.messages(lo, held[0].seq), *held]
    return [m for m in held if m.seq >= lo]
