"""The reads of a context window (`SQLiteStore.context_rows`)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ...types import Episode, Message, make_message

# The columns of an episode `context_rows` shows (thread_id is the one asked for), then `n`.
_WINDOW_EP_COLS = 'start, "end", line, record_ids, date, suspect, scanned, n'


def _window_episode(thread_id: str, row: tuple[Any, ...]) -> Episode:
    """The episode of a `_WINDOW_EP_COLS` row."""
    return Episode(
        thread_id=thread_id, start=row[0], end=row[1], line=row[2],
        record_ids=tuple(json.loads(row[3])), date=row[4], suspect=bool(row[5]),
        scanned=row[6],
    )


# The columns of a window message; thread_id is the one asked for (the WHERE clause pins it), so
# it is not read back for every row.
_WINDOW_COLS = "id, seq, role, content, ts, tokens, relevance, name"


class _WindowReads:
    """The reads of `context_rows` on one connection, inside the caller's read transaction."""

    def __init__(self, c: sqlite3.Connection, ns: str, thread_id: str) -> None:
        self.c, self.ns, self.thread_id = c, ns, thread_id

    def start(self, turn: int) -> int:
        """The seq of turn `turn`'s user message (1 for the thread's start)."""
        if turn <= 1:
            return 1
        # INDEXED BY: left alone, the planner answers MIN(seq) by walking the seq index from
        # the start of the thread until it meets the turn, a scan of the whole thread.
        return self.c.execute(
            "SELECT MIN(seq) FROM messages INDEXED BY messages_turn"
            " WHERE namespace = ? AND thread_id = ? AND turn = ?",
            (self.ns, self.thread_id, turn),
        ).fetchone()[0] or 1

    def messages(self, lo: int, below: int | None = None) -> list[Message]:
        """The messages with `lo <= seq < below`, in order."""
        sql = (f"SELECT {_WINDOW_COLS} FROM messages WHERE namespace = ? AND thread_id = ?"
               " AND seq >= ?")
        args: tuple[Any, ...] = (self.ns, self.thread_id, lo)
        if below is not None:
            sql += " AND seq < ?"
            args = (*args, below)
        tid = self.thread_id
        new = make_message
        return [new(i, tid, seq, role, content, ts, tokens, rel, name)
                for i, seq, role, content, ts, tokens, rel, name
                in self.c.execute(sql + " ORDER BY seq", args).fetchall()]

    def first_episode(self) -> Episode | None:
        row = self.c.execute(
            f'SELECT {_WINDOW_EP_COLS} FROM episodes WHERE namespace = ? AND thread_id = ?'
            ' ORDER BY "end" LIMIT 1',
            (self.ns, self.thread_id),
        ).fetchone()
        return _window_episode(self.thread_id, row) if row else None

    def recent(self, start: int, buffer_lines: int) -> tuple[list[Episode], int]:
        """The newest `buffer_lines` episodes that start before `start`, newest first, and the
        filing number of the newest (how many start before it)."""
        rows = self.c.execute(
            # `+start`: walk the primary key back from the newest episode and stop after LIMIT
            # rows; through the start index SQLite would fetch every earlier episode and sort.
            f'SELECT {_WINDOW_EP_COLS} FROM episodes WHERE namespace = ? AND thread_id = ?'
            ' AND +start < ? ORDER BY "end" DESC LIMIT ?',
            (self.ns, self.thread_id, start, max(buffer_lines, 1)),
        ).fetchall()
        tid = self.thread_id
        return [_window_episode(tid, r) for r in rows], (rows[0][7] if rows else 0)
