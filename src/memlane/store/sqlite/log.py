"""The message log on SQLite: appends (with history bounds) and the context read."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ...types import ContextRows, Message
from ..common import (
    grown_rows,
    held_turns,
    window_rows,
)
from ..protocol import HistoryPolicy, NewMessage
from .core import SQLiteCore
from .window import _WindowReads


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
            c.execute("BEGIN")  # one snapshot for all the reads below
            try:
                r = _WindowReads(c, namespace, thread_id)
                have = held_turns(held, thread_id, window_turns)
                if held is not None and have is not None:
                    first = held.window[0]
                    row = c.execute("SELECT turn FROM messages WHERE namespace = ? AND"
                                    " thread_id = ? AND seq = ? AND id = ?",
                                    (namespace, thread_id, first.seq, first.id)).fetchone()
                    if row is not None:  # else the held rows are gone: read the window whole
                        # Only the older messages the larger window adds are read.
                        start = r.start(row[0] + have - window_turns)
                        older = r.messages(start - 1, first.seq)
                        recent, count = r.recent(start, buffer_lines)
                        return grown_rows(held, start, older, recent, count)
                t = c.execute("SELECT turns, filed_to, next_seq FROM threads"
                              " WHERE namespace = ? AND thread_id = ?",
                              (namespace, thread_id)).fetchone()
                pinned = tuple(self._records(c, namespace, None, 1000, 0, pinned_only=True))
                if t is None:
                    return ContextRows(thread_id, (), False, None, (), 0, 0, pinned)
                turns, filed_to, next_seq = t
                # No window at all: every message is history, none is replayed.
                start = next_seq if window_turns <= 0 else r.start(turns - window_turns + 1)
                # Read one message more than the window: if it comes back, history did not fit.
                msgs: list[Message] = r.messages(start - 1)
                if not msgs or msgs[0].seq >= start:
                    return window_rows(thread_id, start, msgs, filed_to, None, (), 0, pinned)
                recent, count = r.recent(start, buffer_lines)
                return window_rows(thread_id, start, msgs, filed_to, r.first_episode(),
                                   recent, count, pinned)
            finally:
                c.execute("COMMIT")
