"""Threads, their message log and their episodes, read the same way on both engines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...types import Episode, Message, ThreadInfo
from ..protocol import (
    chunks,
)
from .core import CommonCore
from .rows import (
    _THREAD_COLS,
    EP_COLS,
    MSG_COLS,
    message_row,
    thread_row,
)


class CommonThreads(CommonCore):
    """Threads, messages and episodes."""

    # message log -------------------------------------------------------------------------------
    def thread(self, namespace: str, thread_id: str) -> ThreadInfo | None:
        rows = self._read(f"SELECT {_THREAD_COLS} FROM threads WHERE namespace = ? AND"
                          " thread_id = ?", (namespace, thread_id))
        return thread_row(namespace, rows[0]) if rows else None

    def threads(self, namespace: str, limit: int = 100, offset: int = 0) -> list[ThreadInfo]:
        rows = self._read(f"SELECT {_THREAD_COLS} FROM threads WHERE namespace = ?"
                          " ORDER BY last_active DESC LIMIT ? OFFSET ?",
                          (namespace, limit, offset))
        return [thread_row(namespace, r) for r in rows]

    def messages(
        self, namespace: str, thread_id: str, start: int = 1, end: int | None = None,
        limit: int | None = None,
    ) -> list[Message]:
        rows = self._read(
            f"SELECT {MSG_COLS} FROM messages WHERE namespace = ? AND thread_id = ?"
            " AND seq >= ? AND seq <= ? ORDER BY seq LIMIT ?",
            (namespace, thread_id, start, end if end is not None else 2**62,
             limit if limit is not None else 2**62),
        )
        return [message_row(r) for r in rows]

    def messages_in(self, namespace: str, thread_id: str,
                    ranges: Sequence[tuple[int, int]], limit: int) -> list[Message]:
        """The messages of each (start, end) seq range, at most `limit` of each (its first), in
        one query (`Thread._opened` reads a few candidate stretches per turn, and a query
        per range cost a round trip each)."""
        if not ranges:
            return []
        part = (f"SELECT * FROM (SELECT {MSG_COLS} FROM messages WHERE namespace = ? AND"
                " thread_id = ? AND seq >= ? AND seq <= ? ORDER BY seq LIMIT ?) AS r{}")
        sql = " UNION ALL ".join(part.format(i) for i in range(len(ranges)))
        args: list[Any] = []
        for start, end in ranges:
            args += [namespace, thread_id, int(start), int(end), int(limit)]
        return [message_row(r) for r in self._read(sql, args)]

    def message_seqs(self, namespace: str, thread_id: str, ids: Sequence[int]
                     ) -> dict[int, int]:
        out: dict[int, int] = {}
        for part in chunks([int(i) for i in ids]):
            marks = ",".join("?" * len(part))
            # By primary key, as `messages_by_id`; two columns of the row, no text.
            out.update(self._read(
                f"SELECT id, seq FROM messages WHERE id IN ({marks}) AND namespace || '' = ?"
                " AND thread_id || '' = ?", (*part, namespace, thread_id)))
        return out

    def messages_by_id(self, namespace: str, ids: Sequence[int]) -> list[Message]:
        out: list[Message] = []
        for part in chunks([int(i) for i in ids]):
            marks = ",".join("?" * len(part))
            out.extend(message_row(r) for r in self._read(
                # `namespace || ''`: not an indexable term, so SQLite looks the ids up by primary
                # key instead of walking the namespace's index (24 ms for 20 ids at 100k
                # messages, 0.2 ms by key). PostgreSQL has no key on id alone: its store
                # overrides this with the (namespace, id) key.
                f"SELECT {MSG_COLS} FROM messages WHERE id IN ({marks}) AND namespace || '' = ?",
                (*part, namespace)))
        return sorted(out, key=lambda m: (m.thread_id, m.seq))

    def delete_thread(self, namespace: str, thread_id: str) -> bool:
        with self.transaction() as tx:
            return self._delete_thread(tx.conn, namespace, thread_id)

    # episodes ----------------------------------------------------------------------------------
    def episodes(self, namespace: str, thread_id: str) -> list[Episode]:
        rows = self._read(f'SELECT {EP_COLS} FROM episodes WHERE namespace = ? AND'
                          ' thread_id = ? ORDER BY "end"', (namespace, thread_id))
        return [self._episode(r) for r in rows]

    def episode_lines(self, namespace: str, thread_id: str, latest: int
                      ) -> list[tuple[int, str]]:
        rows = self._read('SELECT "end", line FROM episodes WHERE namespace = ? AND'
                          ' thread_id = ? ORDER BY "end" DESC LIMIT ?',
                          (namespace, thread_id, max(0, int(latest))))
        # Both engines hand rows back as (int, str) tuples: reversed as they are (the line index
        # reads 257 of them after every memory step).
        return rows[::-1]

    def episodes_ending(self, namespace: str, thread_id: str, ends: Sequence[int]
                        ) -> list[Episode]:
        if not ends:
            return []
        marks = ", ".join("?" * len(ends))
        rows = self._read(f'SELECT {EP_COLS} FROM episodes WHERE namespace = ? AND'
                          f' thread_id = ? AND "end" IN ({marks})',
                          (namespace, thread_id, *ends))
        by_end = {e.end: e for e in (self._episode(r) for r in rows)}
        return [by_end[e] for e in ends if e in by_end]
