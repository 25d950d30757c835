"""Primitive writes inside an open SQLite transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from ...types import Episode
from ..common import (
    EP_COLS,
    CommonTx,
)


def _episode(row: Sequence[Any]) -> Episode:
    return Episode(
        thread_id=row[0], start=row[1], end=row[2], line=row[3],
        record_ids=tuple(json.loads(row[4])), date=row[5], suspect=bool(row[6]),
        scanned=row[7],
    )


class SQLiteTx(CommonTx):
    """Primitive writes inside an open SQLite transaction (`StoreTx`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.messages_only = False
        """Set by a write that only appends messages (`SQLiteStore.revision` stays)."""

    @staticmethod
    def sql(sql: str) -> str:
        """The shared SQL (`memlane.store.common`) for this connection: `?` is SQLite's own."""
        return sql

    def record_owner(self, namespace: str, record_id: int) -> str | None:
        row = self.conn.execute(
            "SELECT namespace FROM records WHERE id = ?", (record_id,)
        ).fetchone()
        return None if row is None else str(row[0])

    def add_record(
        self, namespace: str, text: str, kind: str, source_ids: Sequence[int],
        thread_id: str | None, now: float, step_end: int | None, suspect: bool,
        pinned: bool = False,
    ) -> int:
        stated = self.stated_at(namespace, source_ids, now)
        cur = self.conn.execute(
            "INSERT INTO records (namespace, text, kind, thread_id, step_end, created, updated,"
            " pinned, suspect, stated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (namespace, text, kind, thread_id, step_end, now, now, int(pinned), int(suspect),
             stated),
        )
        rid = int(cur.lastrowid or 0)
        self.conn.executemany(
            "INSERT OR IGNORE INTO record_sources (record_id, message_id) VALUES (?, ?)",
            [(rid, m) for m in source_ids],
        )
        self.conn.execute(
            "INSERT INTO record_history (record_id, namespace, text, op, changed, thread_id,"
            " stated, sources) VALUES (?, ?, ?, 'add', ?, ?, ?, ?)",
            (rid, namespace, text, now, thread_id, stated, json.dumps(sorted(source_ids))),
        )
        return rid

    def update_record(
        self, namespace: str, record_id: int, text: str, now: float, suspect: bool,
        source_ids: Sequence[int] = (), new_kind: str | None = None,
    ) -> None:
        version = self.next_version(namespace, record_id, text, source_ids, now)
        if version is None:
            return
        kind, stated = version
        if kind != "earlier":
            self.conn.execute(
                "UPDATE records SET text = ?, updated = ?, suspect = ?, stated = ?,"
                " kind = COALESCE(?, kind) WHERE namespace = ? AND id = ?",
                (text, now, int(suspect), stated, new_kind, namespace, record_id),
            )
        self.conn.executemany(
            "INSERT OR IGNORE INTO record_sources (record_id, message_id) VALUES (?, ?)",
            [(record_id, m) for m in source_ids],
        )
        if kind != "repeat":
            # An earlier version is dated when it was said, so the history lists it before the
            # text that replaced it.
            self.conn.execute(
                "INSERT INTO record_history (record_id, namespace, text, op, changed, thread_id,"
                " stated, sources) VALUES (?, ?, ?, 'update', ?, (SELECT thread_id FROM records"
                " WHERE namespace = ? AND id = ?), ?, ?)",
                (record_id, namespace, text, stated if kind == "earlier" else now, namespace,
                 record_id, stated, json.dumps(sorted(source_ids))),
            )

    def delete_record(self, namespace: str, record_id: int, now: float) -> None:
        self.conn.execute(
            "INSERT INTO record_history (record_id, namespace, text, op, changed, thread_id,"
            " stated) SELECT id, namespace, text, 'delete', ?, thread_id, ? FROM records"
            " WHERE namespace = ? AND id = ?",
            (now, now, namespace, record_id),
        )
        self.conn.execute(
            "DELETE FROM records WHERE namespace = ? AND id = ?", (namespace, record_id)
        )
        self.conn.execute("DELETE FROM record_sources WHERE record_id = ?", (record_id,))
        # Buffer lines that pointed at it lose the pointer (the line itself stays).
        rows = self.conn.execute(
            'SELECT thread_id, "end", record_ids FROM episodes WHERE namespace = ? AND EXISTS'
            " (SELECT 1 FROM json_each(episodes.record_ids) WHERE value = ?)",
            (namespace, record_id),
        ).fetchall()
        for tid, end, ids in rows:
            kept = [i for i in json.loads(ids) if i != record_id]
            self.conn.execute(
                'UPDATE episodes SET record_ids = ? WHERE namespace = ? AND thread_id = ?'
                ' AND "end" = ?',
                (json.dumps(kept), namespace, tid, end),
            )

    def get_episode(self, namespace: str, thread_id: str, end: int) -> Episode | None:
        row = self.conn.execute(
            f'SELECT {EP_COLS} FROM episodes WHERE namespace = ? AND thread_id = ? AND "end" = ?',
            (namespace, thread_id, end),
        ).fetchone()
        return None if row is None else _episode(row)

    def upsert_episode(self, namespace: str, episode: Episode, now: float) -> None:
        row = self.conn.execute(
            'SELECT n FROM episodes WHERE namespace = ? AND thread_id = ? AND "end" = ?',
            (namespace, episode.thread_id, episode.end),
        ).fetchone()
        if row is not None:
            n = row[0]
        else:
            top = self.conn.execute(
                "SELECT COALESCE(MAX(n), 0) FROM episodes WHERE namespace = ? AND thread_id = ?",
                (namespace, episode.thread_id),
            ).fetchone()
            n = top[0] + 1
        self.conn.execute(
            'INSERT INTO episodes (namespace, thread_id, start, "end", n, date, line, record_ids,'
            " suspect, written, scanned) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            ' ON CONFLICT (namespace, thread_id, "end") DO UPDATE SET start = excluded.start,'
            " date = excluded.date, line = excluded.line, record_ids = excluded.record_ids,"
            " suspect = excluded.suspect, written = excluded.written,"
            " scanned = excluded.scanned",
            (
                namespace, episode.thread_id, episode.start, episode.end, n, episode.date,
                episode.line, json.dumps(list(episode.record_ids)), int(episode.suspect), now,
                episode.scanned,
            ),
        )
        self.conn.execute(
            "UPDATE threads SET filed_to = MAX(filed_to, ?) WHERE namespace = ? AND thread_id = ?",
            (episode.end, namespace, episode.thread_id),
        )

    def set_relevance(self, namespace: str, thread_id: str, scores: dict[int, float]) -> None:
        self.conn.executemany(
            "UPDATE messages SET relevance = ? WHERE namespace = ? AND thread_id = ? AND seq = ?",
            [(s, namespace, thread_id, seq) for seq, s in scores.items()],
        )
