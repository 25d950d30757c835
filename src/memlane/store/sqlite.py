"""The embedded store: one SQLite file, WAL, hand-written parameterized SQL.

Writers take `BEGIN IMMEDIATE`, so concurrent processes appending to one thread serialize on the
database lock instead of racing for the same `seq`; readers never block in WAL mode. A process
killed mid-transaction leaves the file at the last commit (SQLite's journal guarantees it).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..types import ContextRows, Episode, Message, Record, ThreadInfo
from .base import HistoryPolicy, NewMessage, chunks
from .migrations import SQLITE, Migration

_MSG_COLS = "id, thread_id, seq, role, content, ts, tokens, relevance, name"
_REC_COLS = "id, namespace, text, kind, thread_id, created, updated, pinned, suspect"
_EP_COLS = 'thread_id, start, "end", line, record_ids, date, suspect'


def default_path() -> str:
    """`$MEMLANE_DB`, else `~/.memlane/memlane.db`."""
    env = os.environ.get("MEMLANE_DB")
    if env:
        return env
    return str(Path.home() / ".memlane" / "memlane.db")


def _message(row: sqlite3.Row | tuple[Any, ...]) -> Message:
    return Message(
        id=row[0], thread_id=row[1], seq=row[2], role=row[3], content=row[4], ts=row[5],
        tokens=row[6], relevance=row[7], name=row[8],
    )


def _episode(row: sqlite3.Row | tuple[Any, ...]) -> Episode:
    return Episode(
        thread_id=row[0], start=row[1], end=row[2], line=row[3],
        record_ids=tuple(json.loads(row[4])), date=row[5], suspect=bool(row[6]),
    )


def _thread(ns: str, row: sqlite3.Row | tuple[Any, ...]) -> ThreadInfo:
    return ThreadInfo(
        namespace=ns, thread_id=row[0], created=row[1], last_active=row[2],
        messages=row[3] - 1, filed_to=row[4],
    )


class SQLiteTx:
    """Primitive writes inside an open SQLite transaction (`StoreTx`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def record_owner(self, namespace: str, record_id: int) -> str | None:
        row = self.conn.execute(
            "SELECT namespace FROM records WHERE id = ?", (record_id,)
        ).fetchone()
        return None if row is None else str(row[0])

    def records_of_step(self, namespace: str, thread_id: str, end: int) -> list[int]:
        rows = self.conn.execute(
            "SELECT id FROM records WHERE namespace = ? AND thread_id = ? AND step_end = ?",
            (namespace, thread_id, end),
        ).fetchall()
        return [r[0] for r in rows]

    def add_record(
        self, namespace: str, text: str, kind: str, source_ids: Sequence[int],
        thread_id: str | None, now: float, step_end: int | None, suspect: bool,
        pinned: bool = False,
    ) -> int:
        cur = self.conn.execute(
            "INSERT INTO records (namespace, text, kind, thread_id, step_end, created, updated,"
            " pinned, suspect) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (namespace, text, kind, thread_id, step_end, now, now, int(pinned), int(suspect)),
        )
        rid = int(cur.lastrowid or 0)
        self.conn.executemany(
            "INSERT OR IGNORE INTO record_sources (record_id, message_id) VALUES (?, ?)",
            [(rid, m) for m in source_ids],
        )
        self.conn.execute(
            "INSERT INTO record_history (record_id, namespace, text, op, changed)"
            " VALUES (?, ?, ?, 'add', ?)",
            (rid, namespace, text, now),
        )
        return rid

    def update_record(
        self, namespace: str, record_id: int, text: str, now: float, suspect: bool,
        source_ids: Sequence[int] = (),
    ) -> None:
        self.conn.execute(
            "UPDATE records SET text = ?, updated = ?, suspect = ? WHERE namespace = ? AND id = ?",
            (text, now, int(suspect), namespace, record_id),
        )
        self.conn.executemany(
            "INSERT OR IGNORE INTO record_sources (record_id, message_id) VALUES (?, ?)",
            [(record_id, m) for m in source_ids],
        )
        self.conn.execute(
            "INSERT INTO record_history (record_id, namespace, text, op, changed)"
            " VALUES (?, ?, ?, 'update', ?)",
            (record_id, namespace, text, now),
        )

    def delete_record(self, namespace: str, record_id: int, now: float) -> None:
        self.conn.execute(
            "INSERT INTO record_history (record_id, namespace, text, op, changed)"
            " SELECT id, namespace, text, 'delete', ? FROM records WHERE namespace = ? AND id = ?",
            (now, namespace, record_id),
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
            f'SELECT {_EP_COLS} FROM episodes WHERE namespace = ? AND thread_id = ? AND "end" = ?',
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
            " suspect, written) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            ' ON CONFLICT (namespace, thread_id, "end") DO UPDATE SET start = excluded.start,'
            " date = excluded.date, line = excluded.line, record_ids = excluded.record_ids,"
            " suspect = excluded.suspect, written = excluded.written",
            (
                namespace, episode.thread_id, episode.start, episode.end, n, episode.date,
                episode.line, json.dumps(list(episode.record_ids)), int(episode.suspect), now,
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

    def message_ids(self, namespace: str, thread_id: str, start: int, end: int) -> dict[int, int]:
        rows = self.conn.execute(
            "SELECT id, seq FROM messages WHERE namespace = ? AND thread_id = ?"
            " AND seq BETWEEN ? AND ?",
            (namespace, thread_id, start, end),
        ).fetchall()
        return {r[0]: r[1] for r in rows}


class SQLiteStore:
    """`Store` on one SQLite file (or `:memory:`)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        path = str(path) if path is not None else default_path()
        if path != ":memory:":
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            path = str(Path(path).expanduser())
        self.path = path
        self.url = f"sqlite:///{path}"
        # One connection per store object, guarded by a lock: sqlite3 connections are not safe
        # to use from two threads at once, and the agent loop files memory on a worker thread.
        self._lock = threading.RLock()
        try:
            self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                                        timeout=60.0)
        except sqlite3.Error as e:
            raise StoreError(f"cannot open SQLite database {path!r}: {e}; check the path "
                             "and its directory's permissions") from e
        self.conn.execute("PRAGMA busy_timeout = 60000")
        if path != ":memory:":
            self.conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL in WAL mode survives a killed process (not a power cut): the right trade for
        # a conversation log that is re-sent by the caller on failure anyway.
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self._migrate(SQLITE)

    # plumbing ----------------------------------------------------------------------------------
    def _migrate(self, migrations: list[Migration]) -> None:
        with self._lock:
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS _migrations (number INTEGER PRIMARY KEY,"
                " name TEXT NOT NULL, applied REAL NOT NULL)"
            )
            for m in migrations:
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    done = self.conn.execute(
                        "SELECT 1 FROM _migrations WHERE number = ?", (m.number,)
                    ).fetchone()
                    if done is None:
                        # executescript would COMMIT first; run statement by statement instead
                        # so the migration and its bookkeeping share one transaction.
                        for stmt in _split_sql(m.sql):
                            self.conn.execute(stmt)
                        self.conn.execute(
                            "INSERT INTO _migrations (number, name, applied)"
                            " VALUES (?, ?, julianday('now'))",
                            (m.number, m.name),
                        )
                    self.conn.execute("COMMIT")
                except BaseException as e:
                    self.conn.execute("ROLLBACK")
                    if isinstance(e, sqlite3.Error):
                        raise StoreError(f"migration {m.number} ({m.name}) failed: {e}") from e
                    raise

    def migrations_applied(self) -> list[int]:
        with self._lock:
            return [r[0] for r in self.conn.execute("SELECT number FROM _migrations ORDER BY 1")]

    @contextmanager
    def transaction(self) -> Iterator[SQLiteTx]:
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield SQLiteTx(self.conn)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            else:
                self.conn.execute("COMMIT")

    def _q(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return self.conn.execute(sql, tuple(args)).fetchall()

    def close(self) -> None:
        with self._lock:
            self.conn.close()

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
            if row is None:
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
        cur = c.execute("DELETE FROM threads WHERE namespace = ? AND thread_id = ?",
                        (namespace, thread_id))
        return cur.rowcount > 0

    def thread(self, namespace: str, thread_id: str) -> ThreadInfo | None:
        rows = self._q(
            "SELECT thread_id, created, last_active, next_seq, filed_to FROM threads"
            " WHERE namespace = ? AND thread_id = ?",
            (namespace, thread_id),
        )
        return _thread(namespace, rows[0]) if rows else None

    def threads(self, namespace: str, limit: int = 100, offset: int = 0) -> list[ThreadInfo]:
        rows = self._q(
            "SELECT thread_id, created, last_active, next_seq, filed_to FROM threads"
            " WHERE namespace = ? ORDER BY last_active DESC LIMIT ? OFFSET ?",
            (namespace, limit, offset),
        )
        return [_thread(namespace, r) for r in rows]

    def messages(
        self, namespace: str, thread_id: str, start: int = 1, end: int | None = None,
        limit: int | None = None,
    ) -> list[Message]:
        rows = self._q(
            f"SELECT {_MSG_COLS} FROM messages WHERE namespace = ? AND thread_id = ?"
            " AND seq >= ? AND seq <= ? ORDER BY seq LIMIT ?",
            (namespace, thread_id, start, end if end is not None else 2**62,
             limit if limit is not None else -1),
        )
        return [_message(r) for r in rows]

    def messages_by_id(self, namespace: str, ids: Sequence[int]) -> list[Message]:
        out: list[Message] = []
        for part in chunks(list(ids)):
            marks = ",".join("?" * len(part))
            rows = self._q(
                f"SELECT {_MSG_COLS} FROM messages WHERE namespace = ? AND id IN ({marks})",
                (namespace, *part),
            )
            out.extend(_message(r) for r in rows)
        return sorted(out, key=lambda m: (m.thread_id, m.seq))

    def user_turns_after(self, namespace: str, thread_id: str, seq: int) -> int:
        rows = self._q(
            "SELECT turns - COALESCE((SELECT turn FROM messages WHERE namespace = ? AND"
            " thread_id = ? AND seq = ?), 0) FROM threads WHERE namespace = ? AND thread_id = ?",
            (namespace, thread_id, seq, namespace, thread_id),
        )
        return int(rows[0][0]) if rows else 0

    def context_rows(
        self, namespace: str, thread_id: str, window_turns: int, buffer_lines: int
    ) -> ContextRows:
        with self._lock:
            c = self.conn
            c.execute("BEGIN")  # one snapshot for all the reads below
            try:
                return self._context_rows(c, namespace, thread_id, window_turns, buffer_lines)
            finally:
                c.execute("COMMIT")

    def _context_rows(
        self, c: sqlite3.Connection, ns: str, thread_id: str, window_turns: int,
        buffer_lines: int,
    ) -> ContextRows:
        t = c.execute(
            "SELECT turns, filed_to FROM threads WHERE namespace = ? AND thread_id = ?",
            (ns, thread_id),
        ).fetchone()
        pinned = self._records(c, ns, None, 1000, 0, pinned_only=True)
        if t is None:
            return ContextRows(thread_id, (), False, None, (), 0, 0, tuple(pinned))
        turns, filed_to = t
        start = 1
        if turns > window_turns:
            first_turn = turns - window_turns + 1
            start = c.execute(
                "SELECT MIN(seq) FROM messages WHERE namespace = ? AND thread_id = ? AND turn = ?",
                (ns, thread_id, first_turn),
            ).fetchone()[0] or 1
        # Read one message more than the window: if it comes back, history did not fit.
        rows = c.execute(
            f"SELECT {_MSG_COLS} FROM messages WHERE namespace = ? AND thread_id = ?"
            " AND seq >= ? ORDER BY seq",
            (ns, thread_id, start - 1),
        ).fetchall()
        msgs = [_message(r) for r in rows]
        truncated = bool(msgs) and msgs[0].seq < start
        window = tuple(m for m in msgs if m.seq >= start)
        if not truncated:
            return ContextRows(thread_id, window, False, None, (), 0, 0, tuple(pinned))
        first = c.execute(
            f'SELECT {_EP_COLS} FROM episodes WHERE namespace = ? AND thread_id = ?'
            ' ORDER BY "end" LIMIT 1',
            (ns, thread_id),
        ).fetchone()
        recent_rows = c.execute(
            f'SELECT {_EP_COLS}, n FROM episodes WHERE namespace = ? AND thread_id = ?'
            ' AND start < ? ORDER BY "end" DESC LIMIT ?',
            (ns, thread_id, start, max(buffer_lines, 1)),
        ).fetchall()
        # Episodes are numbered 1, 2, ... in filing order, so the newest one before the window
        # tells how many there are in all without counting rows: the read stays O(window).
        count = recent_rows[0][7] if recent_rows else 0
        return ContextRows(
            thread_id=thread_id,
            window=window,
            truncated=True,
            first_episode=_episode(first) if first else None,
            recent_episodes=tuple(_episode(r[:7]) for r in recent_rows),
            episodes_before_window=count,
            unfiled_before_window=max(0, (start - 1) - filed_to),
            pinned=tuple(pinned),
        )

    def delete_thread(self, namespace: str, thread_id: str) -> bool:
        with self.transaction() as tx:
            return self._delete_thread(tx.conn, namespace, thread_id)

    def expire(self, now: float, history: HistoryPolicy, namespace: str | None = None) -> int:
        if history.ttl_seconds is None:
            return 0
        cutoff = now - history.ttl_seconds
        with self.transaction() as tx:
            sql = "SELECT namespace, thread_id FROM threads WHERE last_active < ?"
            args: list[Any] = [cutoff]
            if namespace is not None:
                sql += " AND namespace = ?"
                args.append(namespace)
            rows = tx.conn.execute(sql, args).fetchall()
            for ns, tid in rows:
                self._delete_thread(tx.conn, ns, tid)
            return len(rows)

    # episodes and records ----------------------------------------------------------------------
    def episodes(self, namespace: str, thread_id: str) -> list[Episode]:
        rows = self._q(
            f'SELECT {_EP_COLS} FROM episodes WHERE namespace = ? AND thread_id = ?'
            ' ORDER BY "end"',
            (namespace, thread_id),
        )
        return [_episode(r) for r in rows]

    def _records(
        self, c: sqlite3.Connection, ns: str, ids: Sequence[int] | None, limit: int,
        offset: int, pinned_only: bool = False,
    ) -> list[Record]:
        if ids is not None:
            out: list[Record] = []
            for part in chunks(list(ids)):
                marks = ",".join("?" * len(part))
                rows = c.execute(
                    f"SELECT {_REC_COLS} FROM records WHERE namespace = ? AND id IN ({marks})",
                    (ns, *part),
                ).fetchall()
                out.extend(self._with_sources(c, rows))
            return sorted(out, key=lambda r: r.id)
        sql = f"SELECT {_REC_COLS} FROM records WHERE namespace = ?"
        if pinned_only:
            sql += " AND pinned = 1"
        rows = c.execute(sql + " ORDER BY id LIMIT ? OFFSET ?", (ns, limit, offset)).fetchall()
        return self._with_sources(c, rows)

    @staticmethod
    def _with_sources(c: sqlite3.Connection, rows: list[Any]) -> list[Record]:
        if not rows:
            return []
        ids = [r[0] for r in rows]
        src: dict[int, list[int]] = {}
        for part in chunks(ids):
            marks = ",".join("?" * len(part))
            for rid, mid in c.execute(
                f"SELECT record_id, message_id FROM record_sources WHERE record_id IN ({marks})"
                " ORDER BY message_id",
                tuple(part),
            ):
                src.setdefault(rid, []).append(mid)
        return [
            Record(
                id=r[0], namespace=r[1], text=r[2], kind=r[3], thread_id=r[4], created=r[5],
                updated=r[6], pinned=bool(r[7]), suspect=bool(r[8]),
                source_ids=tuple(src.get(r[0], ())),
            )
            for r in rows
        ]

    def records(
        self, namespace: str, ids: Sequence[int] | None = None, limit: int = 1000,
        offset: int = 0, pinned_only: bool = False,
    ) -> list[Record]:
        with self._lock:
            return self._records(self.conn, namespace, ids, limit, offset, pinned_only)

    def record_sources(self, namespace: str, record_ids: Sequence[int]) -> dict[int, list[int]]:
        return {r.id: list(r.source_ids) for r in self.records(namespace, record_ids)}

    def namespaces(self) -> list[str]:
        rows = self._q(
            "SELECT namespace FROM threads UNION SELECT namespace FROM records ORDER BY 1"
        )
        return [r[0] for r in rows]


def _split_sql(script: str) -> list[str]:
    """Split a migration script into statements (`sqlite3.complete_statement` knows about
    strings and trigger bodies)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        if not buf and line.strip().startswith("--"):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
