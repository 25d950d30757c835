"""The engine-independent reads of a transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..protocol import (
    chunks,
)
from .rows import OVERLAPPING_EPISODES

_SCANNED_TEXT = {"messages": "content", "records": "text"}
"""The text a `scanned` tag is about, by table (`CommonTx.mark_scanned`)."""


class CommonTx:
    """The engine-independent reads of a transaction (`StoreTx`). An engine's transaction gives
    `conn`, `sql(text)` (the shared SQL's `?` in its own placeholders) and `_lock_thread` (what
    serialises steps on one thread: PostgreSQL's row lock; SQLite's write lock is held already)."""

    conn: Any

    def sql(self, sql: str) -> str:
        raise NotImplementedError

    def _lock_thread(self, namespace: str, thread_id: str) -> None:
        """Nothing to take: the transaction serialises writers already (SQLite)."""

    def stated_at(self, namespace: str, source_ids: Sequence[int], fallback: float) -> float:
        """When a statement made in `source_ids` was said: the newest of those messages' times
        (a replayed conversation's own dates), or `fallback` (the write time) without them."""
        best: float | None = None
        for part in chunks([int(i) for i in source_ids]):
            marks = ",".join("?" * len(part))
            row = self.conn.execute(self.sql(
                f"SELECT MAX(ts) FROM messages WHERE namespace = ? AND id IN ({marks})"),
                (namespace, *part)).fetchone()
            if row is not None and row[0] is not None:
                best = float(row[0]) if best is None else max(best, float(row[0]))
        return fallback if best is None else best

    def next_version(self, namespace: str, record_id: int, text: str,
                     source_ids: Sequence[int], now: float) -> tuple[str, float] | None:
        """What an update of the record to `text` is: (kind, when it is stated); None when there
        is no such record. Kinds: `"new"`, a new current version; `"repeat"`, the same text
        again: it gains the sources and is dated by its newest statement, and the history does
        not grow; `"earlier"`, another text stated before the current one was (its sources are
        older: a stretch filed late, an old conversation imported after a newer one): it goes
        into the history at its own date and the current text stays, so what is current never
        depends on the order statements were filed in."""
        row = self.conn.execute(self.sql(
            "SELECT text, stated FROM records WHERE namespace = ? AND id = ?"),
            (namespace, record_id)).fetchone()
        if row is None:
            return None
        old_text, old_stated = str(row[0]), float(row[1])
        stated = self.stated_at(namespace, source_ids, now)
        if text != old_text:
            return ("earlier" if source_ids and stated < old_stated else "new"), stated
        return "repeat", max(old_stated, stated) if source_ids else old_stated

    def records_of_step(self, namespace: str, thread_id: str, end: int) -> list[int]:
        self._lock_thread(namespace, thread_id)
        rows = self.conn.execute(self.sql(
            "SELECT id FROM records WHERE namespace = ? AND thread_id = ? AND step_end = ?"
            " ORDER BY id"), (namespace, thread_id, end)).fetchall()
        return [r[0] for r in rows]

    def message_ids(self, namespace: str, thread_id: str, start: int, end: int) -> dict[int, int]:
        self._lock_thread(namespace, thread_id)
        rows = self.conn.execute(self.sql(
            "SELECT id, seq FROM messages WHERE namespace = ? AND thread_id = ?"
            " AND seq BETWEEN ? AND ?"), (namespace, thread_id, start, end)).fetchall()
        return {r[0]: r[1] for r in rows}

    def rewrite_message(self, namespace: str, message_id: int, content: str, tokens: int) -> None:
        self.conn.execute(self.sql(
            "UPDATE messages SET content = ?, tokens = ? WHERE namespace = ? AND id = ?"),
            (content, tokens, namespace, message_id))

    def mark_scanned(self, namespace: str, table: str, items: Sequence[tuple[int, str]],
                     tag: int) -> None:
        # The text is in the condition: a verdict is about one text, and never lands on a row
        # whose text changed after it was scanned.
        column = _SCANNED_TEXT[table]
        if tag and items:
            self.conn.cursor().executemany(self.sql(
                f"UPDATE {table} SET scanned = ? WHERE namespace = ? AND id = ?"
                f" AND {column} = ?"), [(tag, namespace, i, text) for i, text in items])

    def overlapping_episodes(
        self, namespace: str, thread_id: str, start: int, end: int
    ) -> list[tuple[int, int]]:
        # SQLite: inside BEGIN IMMEDIATE, no other writer can file between this read and the
        # apply. PostgreSQL: under the thread lock, and READ COMMITTED reads what committed
        # before this statement, so a step that applied while we waited for the lock is seen.
        self._lock_thread(namespace, thread_id)
        rows = self.conn.execute(self.sql(OVERLAPPING_EPISODES),
                                 (namespace, thread_id, end, start, start, end)).fetchall()
        return [(r[0], r[1]) for r in rows]
