"""The embedded store: one SQLite file, WAL, hand-written parameterized SQL.

Writers take `BEGIN IMMEDIATE`, so concurrent processes appending to one thread serialize on the
database lock instead of racing for the same `seq`; readers never block in WAL mode. A process
killed mid-transaction leaves the file at the last commit (SQLite's journal guarantees it).
"""

from __future__ import annotations

import heapq
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from operator import itemgetter
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..memo import remember
from ..types import ContextRows, Episode, Message, Record, make_message
from .base import Capabilities, HistoryPolicy, NewMessage, SearchFilters, Snapshot, chunks
from .common import (
    EP_COLS,
    SNAP_COLS,
    CommonStore,
    CommonTx,
    ThreadLocks,
    VecTable,
    grown_rows,
    held_turns,
    snapshot_row,
    window_rows,
)
from .fts import fts5_match
from .migrations import SQLITE, apply_sqlite
from .vectors import VecFilter, VectorIndexes, dot, np, pack, unpack

_REC_COLS = ("id, namespace, text, kind, thread_id, created, updated, pinned, suspect,"
             " stated")


def default_path() -> str:
    """`$MEMLANE_DB`, else `~/.memlane/memlane.db`."""
    env = os.environ.get("MEMLANE_DB")
    if env:
        return env
    return str(Path.home() / ".memlane" / "memlane.db")


def _episode(row: Sequence[Any]) -> Episode:
    return Episode(
        thread_id=row[0], start=row[1], end=row[2], line=row[3],
        record_ids=tuple(json.loads(row[4])), date=row[5], suspect=bool(row[6]),
    )


# The columns of an episode `context_rows` shows (thread_id is the one asked for), then `n`.
_WINDOW_EP_COLS = 'start, "end", line, record_ids, date, suspect, n'


def _window_episode(memo: dict[Any, Episode], thread_id: str, row: tuple[Any, ...]) -> Episode:
    """The episode of a `_WINDOW_EP_COLS` row, memoised on the thread and the whole row in the
    store's `memo`: every context() shows the same few episodes again, and decoding their record
    ids costs more than reading them. A changed row is a different key, so this is exact."""
    key = (thread_id, row)
    ep = memo.get(key)
    if ep is None:
        ep = remember(memo, key, Episode(
            thread_id=thread_id, start=row[0], end=row[1], line=row[2],
            record_ids=tuple(json.loads(row[3])), date=row[4], suspect=bool(row[5]),
        ))
    return ep


# The columns of a window message; thread_id is the one asked for (the WHERE clause pins it), so
# it is not read back for every row.
_WINDOW_COLS = "id, seq, role, content, ts, tokens, relevance, name"


class _WindowReads:
    """The reads of `context_rows` on one connection, inside the caller's read transaction."""

    def __init__(self, c: sqlite3.Connection, ns: str, thread_id: str,
                 memo: dict[Any, Episode]) -> None:
        self.c, self.ns, self.thread_id, self.memo = c, ns, thread_id, memo

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
        return _window_episode(self.memo, self.thread_id, row) if row else None

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
        memo, tid = self.memo, self.thread_id
        return [_window_episode(memo, tid, r) for r in rows], (rows[0][6] if rows else 0)


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
        source_ids: Sequence[int] = (),
    ) -> None:
        version = self.next_version(namespace, record_id, text, source_ids, now)
        if version is None:
            return
        new_version, stated = version
        self.conn.execute(
            "UPDATE records SET text = ?, updated = ?, suspect = ?, stated = ?"
            " WHERE namespace = ? AND id = ?",
            (text, now, int(suspect), stated, namespace, record_id),
        )
        self.conn.executemany(
            "INSERT OR IGNORE INTO record_sources (record_id, message_id) VALUES (?, ?)",
            [(record_id, m) for m in source_ids],
        )
        if new_version:
            self.conn.execute(
                "INSERT INTO record_history (record_id, namespace, text, op, changed, thread_id,"
                " stated, sources) VALUES (?, ?, ?, 'update', ?, (SELECT thread_id FROM records"
                " WHERE namespace = ? AND id = ?), ?, ?)",
                (record_id, namespace, text, now, namespace, record_id, stated,
                 json.dumps(sorted(source_ids))),
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

class SQLiteStore(CommonStore):
    """`Store` on one SQLite file (or `:memory:`)."""

    _HISTORY_ORDER = "changed, rowid"

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        path = str(path) if path is not None else default_path()
        if path != ":memory:":
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            path = str(Path(path).expanduser())
        self.path = path
        self.url = f"sqlite:///{path}"
        self._episodes: dict[Any, Episode] = {}
        """Decoded episode rows of `context_rows` (see `_window_episode`); `clear_memos`."""
        self._writes = 0
        """This object's write transactions that may have changed more than messages."""
        # Memos of rows that only a write to records or episodes changes, valid for the
        # `revision()` in `_memo_rev` (`_memos_fresh`), bounded, emptied by `clear_memos`.
        self._memo_rev: tuple[int, int] | None = None
        self._sources: dict[int, tuple[int, ...]] = {}
        """Source message ids by record id (`_with_sources`)."""
        self._recs: dict[int, Record] = {}
        """Records by id (`_records` with ids)."""
        self._counts: dict[tuple[str, int], int] = {}
        """Records holding a term, counted up to a cap: `(term, cap) -> n` (`_term_counts`)."""
        self._postings: dict[tuple[str, ...], tuple[list[tuple[int, float]], bool]] = {}
        """Newest postings by (namespace, term) (`_memo_candidates`); by (namespace, term,
        "bm25"), a term's scored matches (`_memo_exact`)."""
        # One connection per store object, guarded by a lock: sqlite3 connections are not safe
        # to use from two threads at once, and the agent loop files memory on a worker thread.
        self._lock = threading.RLock()
        self._thread_locks = ThreadLocks()
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
        # 64 MB of page cache (the default is 2 MB): BM25 reads a size row per matching record,
        # and on a large namespace those reads dominate search time when they miss the cache.
        self.conn.execute("PRAGMA cache_size = -65536")
        self.migrations_run: list[int] = apply_sqlite(self.conn, SQLITE, "_migrations", self._lock)
        """Migration numbers this open applied (empty when the schema was already current)."""
        self.capabilities = Capabilities(
            engine="sqlite", path=None if path == ":memory:" else path,
            # Vector queries get their own connection and lock on a file database (see
            # `_vector_reader`); numpy does the scoring.
            parallel_search=path != ":memory:" and VectorIndexes.available())

    # plumbing ----------------------------------------------------------------------------------
    def hold_thread(self, namespace: str, thread_id: str) -> AbstractContextManager[None]:
        # In-process only: two processes on one file each serialise their own requests, and
        # the file's write lock orders each single write, but their turns on one thread can
        # interleave (serve one process per SQLite file, or use PostgreSQL to scale out).
        return self._thread_locks.hold(namespace, thread_id)

    def migrations_applied(self) -> list[int]:
        with self._lock:
            return [r[0] for r in self.conn.execute("SELECT number FROM _migrations ORDER BY 1")]

    @contextmanager
    def transaction(self) -> Iterator[SQLiteTx]:
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            tx = SQLiteTx(self.conn)
            try:
                yield tx
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            else:
                self.conn.execute("COMMIT")
            finally:
                # Counted whatever happened (a rollback only costs a memo); under the lock, so
                # no read of this connection sees the rows without the count.
                if not tx.messages_only:
                    self._writes += 1
                    # Emptied now, not at the next read: a forgotten text must not stay.
                    self._drop_memos()

    def revision(self) -> tuple[int, int]:
        # `data_version` moves when another connection (any process) commits to the file;
        # this connection's own commits are counted by `transaction()`.
        with self._lock:
            return int(self.conn.execute("PRAGMA data_version").fetchone()[0]), self._writes

    def _q(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return self.conn.execute(sql, tuple(args)).fetchall()

    _read = _q  # the shared SQL's `?` placeholders are SQLite's own
    _episode = staticmethod(_episode)

    @contextmanager
    def _snapshot_reads(self) -> Iterator[Callable[[str, Sequence[Any]], list[Any]]]:
        with self._lock:
            c = self.conn
            c.execute("BEGIN")  # one read transaction: one snapshot
            try:
                yield lambda sql, args: c.execute(sql, tuple(args)).fetchall()
            finally:
                c.execute("COMMIT")

    def _export_records(self, q: Callable[[str, Sequence[Any]], list[Any]], namespace: str
                        ) -> list[Record]:
        return self._records(self.conn, namespace, None, -1, 0)  # inside `_snapshot_reads`

    def clear_memos(self) -> None:
        """Drop the memoised episode rows and what is memoised under the revision (a memory's
        `Caches.clear()` calls this on forget)."""
        self._episodes.clear()
        self._drop_memos()

    def _drop_memos(self) -> None:
        self._memo_rev = None
        for memo in (self._sources, self._recs, self._postings, self._counts):
            memo.clear()

    def _memos_fresh(self, c: sqlite3.Connection) -> bool:
        """Whether the memos may answer a read on `c` now, emptied first if the revision
        moved. Never on another connection, nor inside a transaction: its snapshot may be
        older than the revision, or its own writes newer. Call under `_lock`, before the
        reads whose results are memoised (they are then at least as new as the revision)."""
        if c is not self.conn or c.in_transaction:
            return False
        rev = self.revision()
        if rev != self._memo_rev:
            self._drop_memos()
            self._memo_rev = rev
        # Bounded each on its own (a full one starts again; the others keep what they hold).
        for memo, most in ((self._sources, RECORDS_MEMO), (self._recs, RECORDS_MEMO),
                           (self._postings, POSTINGS_MEMO), (self._counts, RECORDS_MEMO)):
            if len(memo) > most:
                memo.clear()
        return True

    def close(self) -> None:
        with self._lock:
            self._close_vector_reader()
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
                r = _WindowReads(c, namespace, thread_id, self._episodes)
                have = held_turns(held, thread_id, window_turns)
                if held is not None and have is not None:
                    first = held.window[0]
                    row = c.execute("SELECT turn FROM messages WHERE namespace = ? AND"
                                    " thread_id = ? AND seq = ? AND id = ?",
                                    (namespace, thread_id, first.seq, first.id)).fetchone()
                    if row is not None:  # else the held rows are gone: read the window whole
                        start = r.start(row[0] + have - window_turns)
                        older = r.messages(start - 1, first.seq)
                        recent, count = r.recent(start, buffer_lines)
                        return grown_rows(held, start, older, recent, count)
                pinned = tuple(self._records(c, namespace, None, 1000, 0, pinned_only=True))
                t = c.execute("SELECT turns, filed_to, next_seq FROM threads"
                              " WHERE namespace = ? AND thread_id = ?",
                              (namespace, thread_id)).fetchone()
                if t is None:
                    return ContextRows(thread_id, (), False, None, (), 0, 0, pinned)
                turns, filed_to, next_seq = t
                # No window at all: every message is history, none is replayed.
                start = next_seq if window_turns <= 0 else r.start(turns - window_turns + 1)
                # Read one message more than the window: if it comes back, history did not fit.
                msgs = r.messages(start - 1)
                if not msgs or msgs[0].seq >= start:
                    return window_rows(thread_id, start, msgs, filed_to, None, (), 0, pinned)
                recent, count = r.recent(start, buffer_lines)
                return window_rows(thread_id, start, msgs, filed_to, r.first_episode(), recent,
                                   count, pinned)
            finally:
                c.execute("COMMIT")

    # episodes and records ----------------------------------------------------------------------
    def _records(
        self, c: sqlite3.Connection, ns: str, ids: Sequence[int] | None, limit: int,
        offset: int, pinned_only: bool = False, memo: bool = True,
    ) -> list[Record]:
        if ids is not None:
            out: list[Record] = []
            if memo and self._memos_fresh(c):
                known = self._recs
                want = list(dict.fromkeys(ids))  # as `IN` has them: each once
                mine = [known[i] for i in want if i in known and known[i].namespace == ns]
                rest = [i for i in want if i not in known]
                if rest:
                    for r in self._records(self.conn, ns, rest, limit, offset, memo=False):
                        known[r.id] = r
                        mine.append(r)
                return sorted(mine, key=lambda r: r.id)
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

    def _with_sources(self, c: sqlite3.Connection, rows: list[Any]) -> list[Record]:
        if not rows:
            return []
        # A fact restated over a long thread has a thousand sources, and reading them cost more
        # than the search that found it, on every turn that shows it: they are memoised by
        # record id while the store's revision stays (only a write to records moves them).
        # Not inside a read or write transaction: its snapshot may be older (or its writes
        # newer) than the revision says.
        memo = self._memos_fresh(c)
        known = self._sources if memo else {}
        ids = [r[0] for r in rows if r[0] not in known]
        src: dict[int, tuple[int, ...]] = {i: () for i in ids}  # no sources: no row below
        # One row per record, its sources joined by SQLite (a Python row each cost more).
        for part in chunks(ids):
            marks = ",".join("?" * len(part))
            for rid, mids in c.execute(
                "SELECT record_id, group_concat(message_id) FROM record_sources"
                f" WHERE record_id IN ({marks}) GROUP BY record_id",
                tuple(part),
            ):
                # group_concat's order is unspecified (it follows the primary key in practice):
                # sorted here, a linear pass over sorted input.
                src[rid] = tuple(sorted(map(int, mids.split(","))))
        if memo:
            known.update(src)
        src.update((i, known[i]) for i in (r[0] for r in rows) if i not in src)
        return [
            Record(
                id=r[0], namespace=r[1], text=r[2], kind=r[3], thread_id=r[4], created=r[5],
                updated=r[6], pinned=bool(r[7]), suspect=bool(r[8]),
                source_ids=src[r[0]], stated=r[9],
            )
            for r in rows
        ]

    def records(
        self, namespace: str, ids: Sequence[int] | None = None, limit: int = 1000,
        offset: int = 0, pinned_only: bool = False,
    ) -> list[Record]:
        with self._lock:
            return self._records(self.conn, namespace, ids, limit, offset, pinned_only)

    # search and recall -------------------------------------------------------------------------
    # Appended for long-term records and recall. Index rows and vectors are kept in
    # step by the triggers of migration 2, so every path that deletes a record (a memory step,
    # a tool, forgetting) also drops what was derived from it.

    @property
    def _vectors(self) -> VectorIndexes:
        vi = self.__dict__.get("_vindex")
        if vi is None:
            vi = self.__dict__["_vindex"] = VectorIndexes()
        return vi

    def _vector_reader(self) -> tuple[sqlite3.Connection, Any]:
        """The connection and lock vector queries use. On a file database: a second, read-only
        connection, so loading an index or re-ranking never waits on the main connection's lock
        (nor the other way round), and its reads do not evict the lexical index from the main
        connection's page cache. WAL lets it read while the main connection writes; each of its
        statements sees what was committed when it began. `:memory:` has one connection."""
        if self.path == ":memory:":
            return self.conn, self._lock
        vr = self.__dict__.get("_vreader")
        if vr is not None:
            return vr
        # Not self._lock: a search on a worker thread must never wait for a caller that holds
        # it (a search run inside `transaction()` waits for its worker).
        with _VREADER_LOCK:
            vr = self.__dict__.get("_vreader")
            if vr is None:
                try:
                    c = sqlite3.connect(self.path, isolation_level=None,
                                        check_same_thread=False, timeout=60.0)
                    c.execute("PRAGMA busy_timeout = 60000")
                    c.execute("PRAGMA query_only = 1")
                    c.execute("PRAGMA cache_size = -16384")
                except sqlite3.Error as e:
                    raise StoreError(f"cannot open SQLite database {self.path!r} for vector"
                                     f" search: {e}") from e
                vr = self.__dict__["_vreader"] = (c, threading.Lock())
            return vr

    def _close_vector_reader(self) -> None:
        vr = self.__dict__.pop("_vreader", None)
        if vr is not None:
            with vr[1]:
                vr[0].close()

    def _search_records(self, namespace: str, terms: list[str], k: int, f: SearchFilters,
                        narrow: bool = True) -> list[tuple[Record, float]]:
        with self._lock:  # re-entrant: held on through the memoised reads
            if not narrow and f == SearchFilters() and self._memos_fresh(self.conn):
                return self._memo_exact(namespace, terms, k)
        where, fargs = _record_filters("r", f)
        cols = ", ".join(f"r.{c.strip()}" for c in _REC_COLS.split(","))
        sql = (f"SELECT {cols}, bm25(records_fts, 1.0, 0.0) AS score FROM records_fts"
               " JOIN records r ON r.id = records_fts.rowid"
               f" WHERE records_fts MATCH ? AND r.namespace = ?{where}"
               " ORDER BY score LIMIT ?")
        with self._lock:
            c = self.conn
            # The namespace phrase narrows a big index's matches to the namespace, at the cost
            # of a seek in its doclist per match (3x a term's own walk): not worth it for the
            # few matches of a bounded search's exact branch (`r.namespace` checks them).
            match = fts5_match(terms, ("text",), namespace if narrow else None)
            rows = c.execute(sql, (match, namespace, *fargs, k)).fetchall()
            recs = self._with_sources(c, [r[:-1] for r in rows])
        # bm25() is lower-is-better; flip it so every score in memlane is higher-is-better.
        return [(rec, -float(r[-1])) for rec, r in zip(recs, rows, strict=True)]

    def _memo_exact(self, namespace: str, terms: list[str], k: int
                    ) -> list[tuple[Record, float]]:
        """The bounded search's exact branch (the kept terms match few records store-wide)
        from memoised per-term scores: FTS5's bm25() of an OR query is the sum over its terms
        of each term's own bm25() (each term's IDF, frequency and the record's length), so
        each term's scored matches in the namespace are read once (one statement for every
        term missing) and kept while `revision()` stays, like `_memo_candidates`' postings.
        Summed in query order, as FTS5 does; ties go to the older record, as its scan has it."""
        with self._lock:
            memo = self._postings
            need = [t for t in terms if (namespace, t, "bm25") not in memo]
            if need:
                # CROSS JOIN: the index drives. Left to itself, with so few columns of
                # `records` wanted, the planner walks the namespace's covering index and
                # probes the index once per record (a second on 10k records, not 1 ms).
                sub = ("SELECT ? AS i, records_fts.rowid, bm25(records_fts, 1.0, 0.0)"
                       " FROM records_fts CROSS JOIN records r ON r.id = records_fts.rowid"
                       " WHERE records_fts MATCH ? AND r.namespace = ?")
                args: list[Any] = []
                for i, t in enumerate(need):
                    args += [i, fts5_match([t], ("text",)), namespace]
                lists: list[list[tuple[int, float]]] = [[] for _ in need]
                for i, rid, bm in self.conn.execute(" UNION ALL ".join([sub] * len(need)),
                                                    args):
                    lists[i].append((rid, -float(bm)))  # flipped: higher is better
                for t, got in zip(need, lists, strict=True):
                    memo[(namespace, t, "bm25")] = (got, True)
            scored = [memo[(namespace, t, "bm25")][0] for t in terms]
        score: dict[int, float] = {}
        get = score.get
        for ps in scored:
            for rid, part in ps:
                score[rid] = get(rid, 0.0) + part
        # Best first, the older record first on ties (a reverse sort keeps ties in order).
        best = sorted(sorted(score.items()), key=itemgetter(1), reverse=True)[:k]
        recs = {r.id: r for r in self.records(namespace, [rid for rid, _ in best])}
        return [(recs[rid], s) for rid, s in best if rid in recs]

    def _index_size(self) -> float:
        # The largest rowid: one step down the index's b-tree (COUNT(*) would read it all).
        with self._lock:
            return float(self.conn.execute("SELECT MAX(rowid) FROM records_fts").fetchone()[0]
                         or 0)

    def _scored_candidates(self, namespace: str, weights: list[tuple[str, float, int]],
                           k: int, f: SearchFilters) -> list[tuple[Record, float]]:
        with self._lock:  # re-entrant: held on through the memoised reads
            if f == SearchFilters() and self._memos_fresh(self.conn):
                return self._memo_candidates(namespace, weights, k)
        return self._sql_candidates(namespace, weights, k, f)

    def _memo_candidates(self, namespace: str, weights: list[tuple[str, float, int]],
                         k: int) -> list[tuple[Record, float]]:
        """`_scored_candidates` without filters, from memoised postings: a conversation asks
        for the same common words turn after turn, and walking their newest postings was most
        of a search on a large store. A term's newest `n` postings of the namespace, with each
        record's length in words, are read once (one statement for every term missing) and
        kept while `revision()` stays; a shorter read is a prefix of a longer one (newest
        first), and one that came back short holds them all. Scored as the SQL does."""
        with self._lock:
            memo = self._postings
            need = []
            for t, _, n in weights:
                got = memo.get((namespace, t))
                if got is None or (len(got[0]) < n and not got[1]):
                    need.append((t, n))
            if need:
                sub = ("SELECT * FROM (SELECT ? AS i, records_fts.rowid, length(r.text)"
                       " - length(replace(r.text, ' ', '')) + 2 FROM records_fts"
                       " CROSS JOIN records r"  # the index drives (see `_memo_exact`)
                       " ON r.id = records_fts.rowid WHERE records_fts MATCH ? AND"
                       " r.namespace = ? ORDER BY records_fts.rowid DESC LIMIT ?)")
                args: list[Any] = []
                for i, (t, n) in enumerate(need):
                    args += [i, fts5_match([t], ("text",)), namespace, n]
                # BM25 at tf = 1 as `_sql_candidates` has it, but for the term's weight: the
                # average length is the index's, which moves only with the revision.
                avgdl = self._avgdl()
                lists: list[list[tuple[int, float]]] = [[] for _ in need]
                for i, rid, d in self.conn.execute(" UNION ALL ".join([sub] * len(need)),
                                                   args):
                    lists[i].append((rid, 2.2 / (1 + 1.2 * (0.25 + 0.75 * d / avgdl))))
                for (t, n), got_ in zip(need, lists, strict=True):
                    got_.sort(reverse=True)  # newest first (UNION ALL keeps no order)
                    memo[(namespace, t)] = (got_, len(got_) < n)
            postings = [memo[(namespace, t)][0][:n] for t, _, n in weights]
        score: dict[int, float] = {}
        get = score.get
        for (_, w, _), ps in zip(weights, postings, strict=True):
            for rid, part in ps:
                score[rid] = get(rid, 0.0) + w * part
        # Best first, the newer record first on ties: (score, id) descending.
        best = heapq.nlargest(k, score.items(), key=itemgetter(1, 0))
        recs = {r.id: r for r in self.records(namespace, [rid for rid, _ in best])}
        return [(recs[rid], s) for rid, s in best if rid in recs]

    def _sql_candidates(self, namespace: str, weights: list[tuple[str, float, int]],
                        k: int, f: SearchFilters) -> list[tuple[Record, float]]:
        # FTS5 walks a doclist backwards for ORDER BY rowid DESC and stops at the LIMIT: no
        # bm25(), no IDF pass over the whole doclist. The namespace and the filters are checked
        # on the record's row (a primary-key lookup per posting walked), not with FTS5's
        # namespace phrase: ANDed with a doclist that holds every record of the namespace, that
        # phrase cost 3x the term's own walk. Summed and ranked in SQLite, k rows back.
        where, fargs = _record_filters("r", f)
        cols = ", ".join(f"r.{c.strip()}" for c in _REC_COLS.split(","))
        # BM25 at tf = 1: a term's IDF times (k1 + 1) / (1 + k1 (1 - b + b D / avgdl)), with
        # D the record's words (spaces + 1, close to FTS5's token count for one-line facts).
        sub = ("SELECT id, ? * 2.2 / (1 + 1.2 * (0.25 + 0.75 * d / ?)) AS w FROM ("
               "SELECT records_fts.rowid AS id, length(r.text) - length(replace(r.text, ' ', ''))"
               " + 2 AS d FROM records_fts JOIN records r ON r.id = records_fts.rowid"
               f" WHERE records_fts MATCH ? AND r.namespace = ?{where}"
               " ORDER BY records_fts.rowid DESC LIMIT ?)")
        avgdl = self._avgdl()
        args: list[Any] = []
        for t, w, n in weights:
            args += [w, avgdl, fts5_match([t], ("text",)), namespace, *fargs, n]
        sql = (f"SELECT {cols}, s.score FROM (SELECT id, SUM(w) AS score FROM ("
               + " UNION ALL ".join([sub] * len(weights))
               + ") GROUP BY id ORDER BY score DESC, id DESC LIMIT ?) s"
               " JOIN records r ON r.id = s.id ORDER BY s.score DESC, s.id DESC")
        with self._lock:
            c = self.conn
            rows = c.execute(sql, (*args, k)).fetchall()
            recs = self._with_sources(c, [r[:-1] for r in rows])
        return [(rec, float(r[-1])) for rec, r in zip(recs, rows, strict=True)]

    def _avgdl(self) -> float:
        """The index's average document length in tokens (both columns, as FTS5's bm25() has
        it), from its averages record: a varint row count, then a varint total per column."""
        with self._lock:
            row = self.conn.execute("SELECT block FROM records_fts_data WHERE id = 1").fetchone()
        vals: list[int] = []
        if row and row[0]:
            v = 0
            for byte in bytes(row[0]):  # SQLite varints: 7 bits a byte, high bit: more
                v = (v << 7) | (byte & 0x7F)
                if not byte & 0x80:
                    vals.append(v)
                    v = 0
        return max(sum(vals[1:]) / vals[0], 1.0) if len(vals) > 1 and vals[0] else 8.0

    def _term_counts(self, terms: list[str], cap: int) -> list[int]:
        with self._lock:
            if not self._memos_fresh(self.conn):
                return _term_counts(self.conn, terms, cap)
            # Exact while the revision stays, zeros too (`TermStats` keeps no zero: it cannot
            # tell when a record brings the word): a new message's words in no record are
            # counted once, not on every turn.
            memo = self._counts
            todo = list(dict.fromkeys(t for t in terms if (t, cap) not in memo))
            if todo:
                memo.update(zip(((t, cap) for t in todo), _term_counts(self.conn, todo, cap),
                                strict=True))
            return [memo[(t, cap)] for t in terms]

    def _put_vectors(self, namespace: str, t: VecTable,
                     items: Sequence[tuple[int, Sequence[float]]], model: str) -> int:
        with self.transaction() as tx:
            c = tx.conn
            owned: set[int] = set()
            ids = [int(i) for i, _ in items]
            for part in chunks(ids):
                marks = ",".join("?" * len(part))
                owned.update(r[0] for r in c.execute(
                    f"SELECT id FROM {t.owner} WHERE namespace = ? AND id IN ({marks})",
                    (namespace, *part)))
            seq = c.execute("UPDATE vector_seq SET seq = seq + 1 WHERE id = 1 RETURNING seq"
                            ).fetchone()[0]
            rows = [(int(i), namespace, model, len(v), pack(v), seq)
                    for i, v in items if int(i) in owned]
            c.executemany(
                f"INSERT OR REPLACE INTO {t.table} ({t.id}, namespace, model, dim, vec, seq)"
                " VALUES (?, ?, ?, ?, ?, ?)", rows)
            return len(rows)

    def _vector_candidates(self, namespace: str, t: VecTable, qvec: Sequence[float], k: int,
                           f: SearchFilters, model: str) -> list[tuple[int, float]]:
        dim = len(qvec)
        where, fargs = _record_filters("o", f, kind_col=t.kind_col)
        base = (f"SELECT v.{t.id}, v.vec FROM {t.table} v JOIN {t.owner} o ON o.id = v.{t.id}"
                # `+`: look candidates up by primary key, never by the (namespace, model) index,
                # which would walk every vector of the namespace.
                f" WHERE +v.namespace = ? AND +v.model = ? AND v.dim = ? AND o.namespace = ?"
                f"{where}")
        args = (namespace, model, dim, namespace, *fargs)
        conn, lock = self._vector_reader()
        with lock:
            if not VectorIndexes.available():
                rows = conn.execute(base, args).fetchall()
                scored = [(int(r[0]), dot(qvec, unpack(r[1]))) for r in rows]
                scored.sort(key=lambda x: -x[1])
                return scored[:k]
            latest = conn.execute(
                f"SELECT MAX(seq) FROM {t.table} WHERE namespace = ? AND model = ?",
                (namespace, model),
            ).fetchone()[0]
            if latest is None:
                return []

            def load(after: int) -> Iterator[tuple[int, bytes, int, str | None, str | None,
                                                   float]]:
                cur = conn.execute(
                    f"SELECT v.{t.id}, v.vec, v.seq, o.{t.kind_col}, o.thread_id, o.created"
                    f" FROM {t.table} v JOIN {t.owner} o ON o.id = v.{t.id}"
                    " WHERE v.namespace = ? AND v.model = ? AND v.seq > ? AND o.namespace = ?",
                    (namespace, model, after, namespace),
                )
                while True:
                    batch = cur.fetchmany(5000)
                    if not batch:
                        return
                    yield from batch

            ix = self._vectors.get((t.table, namespace, model), dim, int(latest), load)
            vf = VecFilter(f.kinds, f.thread_id, f.since, f.until)
            q = np.asarray(qvec, dtype=np.float32)
            out: list[tuple[int, float]] = []
            # The index applied the filters already; re-checking them needs the owner table,
            # so the plain primary-key read is used when there are none.
            fetch: str = base
            fetch_args: tuple[Any, ...] = args
            if f == SearchFilters():
                fetch = (f"SELECT v.{t.id}, v.vec FROM {t.table} v WHERE +v.namespace = ?"
                         " AND +v.model = ? AND v.dim = ?")
                fetch_args = (namespace, model, dim)
            for _ in range(3):
                ids = ix.preselect(qvec, vf, max(RERANK, 4 * k))
                found: dict[int, bytes] = {}
                for part in chunks(ids):
                    marks = ",".join("?" * len(part))
                    found.update(conn.execute(
                        f"{fetch} AND v.{t.id} IN ({marks})",
                        (*fetch_args, *part)).fetchall())
                gone = [i for i in ids if i not in found]
                ix.discard(gone)
                if found:
                    mat = np.frombuffer(b"".join(found.values()), dtype="<f4").reshape(
                        len(found), dim)
                    sims = mat @ q
                    order = np.argpartition(-sims, k - 1)[:k] if len(sims) > k \
                        else np.arange(len(sims))
                    order = order[np.argsort(-sims[order], kind="stable")]
                    keys = list(found)
                    out = [(int(keys[i]), float(sims[i])) for i in order]
                # Rows deleted since the index loaded them were just discarded: go again if
                # they cost us results and live candidates may remain.
                if not gone or len(out) >= k:
                    break
            return out

    # snapshots ---------------------------------------------------------------------------------
    def _save_snapshot(self, namespace: str, values: tuple[Any, ...], thread_id: str | None
                       ) -> tuple[Snapshot, bool]:
        with self.transaction() as tx:
            row = tx.conn.execute(
                f"SELECT {SNAP_COLS} FROM snapshots WHERE namespace = ? AND result_hash = ?",
                (namespace, values[3]),
            ).fetchone()
            if row is not None:
                return snapshot_row(row), False
            cur = tx.conn.execute(
                "INSERT INTO snapshots (namespace, thread_id, tool, args, result, result_hash,"
                " created, tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (namespace, thread_id, *values),
            )
            sid = int(cur.lastrowid or 0)
        return self.snapshots(namespace, [sid])[0], True

    def _search_snapshots(self, namespace: str, terms: list[str], k: int
                          ) -> list[tuple[Snapshot, float]]:
        match = fts5_match(terms, ("tool", "args", "result"), namespace)
        if match is None:
            return []
        cols = ", ".join(f"s.{c.strip()}" for c in SNAP_COLS.split(","))
        rows = self._q(
            f"SELECT {cols}, bm25(snapshots_fts, 1.0, 1.0, 1.0, 0.0) AS score FROM snapshots_fts"
            " JOIN snapshots s ON s.id = snapshots_fts.rowid"
            " WHERE snapshots_fts MATCH ? AND s.namespace = ? ORDER BY score LIMIT ?",
            (match, namespace, k),
        )
        return [(snapshot_row(r[:8]), -float(r[8])) for r in rows]

    # forgetting and export ---------------------------------------------------------------------
    def _erase_records(self, c: sqlite3.Connection, namespace: str, ids: Sequence[int]) -> int:
        """Delete records with their sources, history and pointers in buffer lines (index rows
        and vectors go by trigger)."""
        n = 0
        for part in chunks(list(ids)):
            marks = ",".join("?" * len(part))
            n += c.execute(f"DELETE FROM records WHERE namespace = ? AND id IN ({marks})",
                           (namespace, *part)).rowcount
            c.execute(f"DELETE FROM record_sources WHERE record_id IN ({marks})", tuple(part))
            c.execute(f"DELETE FROM record_history WHERE namespace = ? AND record_id IN ({marks})",
                      (namespace, *part))
            rows = c.execute(
                'SELECT thread_id, "end", record_ids FROM episodes WHERE namespace = ? AND EXISTS'
                f" (SELECT 1 FROM json_each(episodes.record_ids) WHERE value IN ({marks}))",
                (namespace, *part),
            ).fetchall()
            drop = set(part)
            for tid, end, rids in rows:
                kept = [i for i in json.loads(rids) if i not in drop]
                c.execute('UPDATE episodes SET record_ids = ? WHERE namespace = ?'
                          ' AND thread_id = ? AND "end" = ?',
                          (json.dumps(kept), namespace, tid, end))
        return n

    def forget_record(self, namespace: str, record_id: int) -> bool:
        self._term_stats.clear()  # query words with their counts: nothing forgotten stays
        with self._lock:
            self.conn.execute("PRAGMA secure_delete = ON")
            with self.transaction() as tx:
                return self._erase_records(tx.conn, namespace, [record_id]) > 0

    def forget_thread(self, namespace: str, thread_id: str) -> dict[str, int]:
        self._term_stats.clear()  # query words with their counts: nothing forgotten stays
        with self._lock:
            self.conn.execute("PRAGMA secure_delete = ON")
            with self.transaction() as tx:
                c = tx.conn
                rids = [r[0] for r in c.execute(
                    "SELECT id FROM records WHERE namespace = ? AND thread_id = ?",
                    (namespace, thread_id))]
                mids = [r[0] for r in c.execute(
                    "SELECT id FROM messages WHERE namespace = ? AND thread_id = ?",
                    (namespace, thread_id))]
                out = {"records": self._erase_records(c, namespace, rids)}
                # The history of the thread's records deleted earlier (by a step, or replaced
                # by a retry) still holds their text: it goes too.
                c.execute("DELETE FROM record_history WHERE namespace = ? AND record_id IN"
                          " (SELECT record_id FROM record_history WHERE namespace = ?"
                          " AND thread_id = ?)", (namespace, namespace, thread_id))
                # Records of other threads that cite these messages lose those source links.
                for part in chunks(mids):
                    marks = ",".join("?" * len(part))
                    c.execute(f"DELETE FROM record_sources WHERE message_id IN ({marks})",
                              tuple(part))
                out["snapshots"] = c.execute(
                    "DELETE FROM snapshots WHERE namespace = ? AND thread_id = ?",
                    (namespace, thread_id)).rowcount
                out["messages"] = len(mids)
                out["episodes"] = c.execute(
                    "SELECT COUNT(*) FROM episodes WHERE namespace = ? AND thread_id = ?",
                    (namespace, thread_id)).fetchone()[0]
                out["threads"] = int(self._delete_thread(c, namespace, thread_id))
                return out

    def forget_namespace(self, namespace: str) -> dict[str, int]:
        self._term_stats.clear()  # query words with their counts: nothing forgotten stays
        with self._lock:
            self.conn.execute("PRAGMA secure_delete = ON")
            with self.transaction() as tx:
                c = tx.conn
                out: dict[str, int] = {}
                c.execute("DELETE FROM record_sources WHERE record_id IN"
                          " (SELECT id FROM records WHERE namespace = ?)", (namespace,))
                for table in ("records", "record_vectors", "record_history", "snapshots",
                              "snapshot_vectors", "episodes", "messages", "threads"):
                    out[table] = c.execute(f"DELETE FROM {table} WHERE namespace = ?",
                                           (namespace,)).rowcount
            self._vectors.drop(namespace=namespace)
            return {k: out[k] for k in ("threads", "messages", "episodes", "records",
                                        "snapshots")}

    def compact(self) -> None:
        with self._lock:
            c = self.conn
            c.execute("PRAGMA secure_delete = ON")
            # FTS5 keeps deleted documents' terms in old index segments until they are merged;
            # 'optimize' merges everything into one segment of live documents.
            for fts in ("records_fts", "snapshots_fts"):
                c.execute(f"INSERT INTO {fts} ({fts}) VALUES ('optimize')")
            if self.path == ":memory:":
                return
            # VACUUM rewrites the file from live rows only (in WAL mode through the log), then
            # the checkpoint copies it back and truncates the log to zero bytes.
            c.execute("VACUUM")
            busy, _, _ = c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if busy:
                raise StoreError(
                    "compact: another connection kept the write-ahead log open, so it could not "
                    "be truncated; close other memlane processes on this file and run it again"
                )


# search and recall helpers ---------------------------------------------------------------------

# Candidates re-ranked with exact float vectors per vector query (see memlane.store.vectors).
RERANK = 400

POSTINGS_MEMO = 1024
"""Terms whose postings `SQLiteStore._memo_candidates` memoises before it starts again (a
term's list holds at most `SearchBounds.exact_postings` (id, length factor) pairs)."""
RECORDS_MEMO = 8192
"""Records (and records' sources) the SQLite store memoises before it starts again."""
_VREADER_LOCK = threading.Lock()
"""Guards opening a store's vector-search connection (`SQLiteStore._vector_reader`)."""

def _record_filters(alias: str, f: SearchFilters, kind_col: str = "kind"
                    ) -> tuple[str, list[Any]]:
    sql = ""
    args: list[Any] = []
    if f.kinds is not None:
        sql += f" AND {alias}.{kind_col} IN ({','.join('?' * len(f.kinds))})" if f.kinds \
            else " AND 0"
        args.extend(f.kinds)
    if f.thread_id is not None:
        sql += f" AND {alias}.thread_id = ?"
        args.append(f.thread_id)
    if f.since is not None:
        sql += f" AND {alias}.created >= ?"
        args.append(f.since)
    if f.until is not None:
        sql += f" AND {alias}.created <= ?"
        args.append(f.until)
    return sql, args


def _term_counts(c: sqlite3.Connection, terms: Sequence[str], cap: int) -> list[int]:
    """Records holding each term (text column, store-wide), each counted up to `cap`: one
    statement of bounded subqueries (a statement per term cost a round trip each; a
    stretch's filing plans with up to 32 terms)."""
    out: list[int] = []
    terms = list(terms)
    for i in range(0, len(terms), 64):  # well under SQLite's parameter limit
        part = terms[i:i + 64]
        sub = ("(SELECT COUNT(*) FROM (SELECT 1 FROM records_fts WHERE records_fts MATCH ?"
               " LIMIT ?))")
        args: list[Any] = []
        for t in part:
            args += [fts5_match([t], ("text",)), cap]
        out += c.execute("SELECT " + ", ".join([sub] * len(part)), args).fetchone()
    return [int(n) for n in out]
