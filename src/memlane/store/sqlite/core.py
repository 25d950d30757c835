"""The SQLite store's connections (the main one, the vector reader), transactions and record
reads."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from ...errors import StoreError
from ...types import Record, make_record
from ...validate import STANDING_KINDS
from ..common import (
    CORRECTED_IDS,
    CommonStore,
    ThreadLocks,
)
from ..migrations import SQLITE, apply_sqlite
from ..protocol import Capabilities, chunks
from ..vectors import VectorIndexes
from .checkpoint import BACKSTOP_PAGES, Checkpointer, wal_mode
from .tx import SQLiteTx, _episode

_REC_COLS = ("id, namespace, text, kind, thread_id, created, updated, pinned, suspect,"
             " stated, scanned")


def sources_column(record_id: str) -> str:
    """An SQL expression: the lowest `?` (its one parameter) source ids of the record whose id
    is `record_id`, joined by commas (NULL for none; `record_of` reads it). The capped read
    stops at the cap, in the primary key."""
    return ("(SELECT group_concat(message_id) FROM (SELECT message_id FROM record_sources"
            f" WHERE record_id = {record_id} ORDER BY message_id LIMIT ?))")


def record_of(r: Sequence[Any], mids: str | None) -> Record:
    """The record of a `_REC_COLS` row and its source ids as SQLite joined them (None: none)."""
    # group_concat's order is unspecified (it follows the primary key in practice): sorted
    # here, a linear pass over sorted input.
    src = tuple(sorted(map(int, mids.split(",")))) if mids else ()
    return make_record(r[0], r[1], r[2], r[3], src, r[4], r[5], r[6], bool(r[7]), bool(r[8]),
                       r[9], r[10])


def default_path() -> str:
    """`$MEMLANE_DB`, else `~/.memlane/memlane.db`."""
    env = os.environ.get("MEMLANE_DB")
    if env:
        return env
    return str(Path.home() / ".memlane" / "memlane.db")


_VREADER_LOCK = threading.Lock()
"""Guards opening a store's vector-search connection (`SQLiteStore._vector_reader`)."""


def _by_id(r: Record) -> int:
    return r.id


class _YieldingLock:
    """The store's lock with a call first when a thread that holds none of it takes it
    (`SQLiteCore.yield_before_lock`)."""

    __slots__ = ("_inner", "_before")

    def __init__(self, inner: Any, before: Callable[[], None]) -> None:
        self._inner = inner
        self._before = before

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if not self._inner._is_owned():
            self._before()
        return bool(self._inner.acquire(blocking, timeout))

    def release(self) -> None:
        self._inner.release()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self._inner.release()


class SQLiteCore(CommonStore):
    """One SQLite file's connection, lock and migrations; the reads every concern uses."""

    _HISTORY_ORDER = "changed, rowid"

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        path = str(path) if path is not None else default_path()
        if path != ":memory:":
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            path = str(Path(path).expanduser())
        self.path = path
        self.url = f"sqlite:///{path}"
        self._writes = 0
        """This object's write transactions that may have changed more than messages."""
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
            try:
                wal_mode(self.conn, 60.0)
            except sqlite3.Error as e:
                raise StoreError(f"cannot open SQLite database {path!r}: {e}; another process "
                                 "holds it locked (a migration, a VACUUM): retry, or stop that "
                                 "process") from e
        # NORMAL in WAL mode survives a killed process (not a power cut): the right trade for
        # a conversation log that is re-sent by the caller on failure anyway.
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self._checkpointer: Checkpointer | None = None
        if path != ":memory:":
            # Checkpoints (and their fsyncs) on a background thread, not in a request's commit.
            self.conn.execute(f"PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES}")
            self._checkpointer = Checkpointer(path)
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

    def yield_before_lock(self, before: Callable[[], None]) -> None:
        """Call `before()` whenever a thread that holds none of the store's lock is about to
        take it, never while it holds it: the server's background memory steps wait there
        for a gap between requests (`memlane.server.foreground`). A second call replaces the
        first's function. The lock itself stays the same, so a thread already waiting on it
        is not affected."""
        with self._lock:
            if isinstance(self._lock, _YieldingLock):
                self._lock._before = before
            else:
                self._lock = _YieldingLock(self._lock, before)  # type: ignore[assignment]

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
                # Counted whatever happened (a rollback only moves the revision for nothing);
                # under the lock, so no read of this connection sees the rows without the count.
                if self._checkpointer is not None:
                    self._checkpointer.wrote()
                if not tx.messages_only:
                    self._writes += 1

    def _changes(self) -> Hashable:
        # `data_version` moves when another connection (any process) commits to the file;
        # this connection's own commits are counted by `transaction()` (`_writes`).
        with self._lock:
            return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

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

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
        with self._lock:
            self._close_vector_reader()
            self.conn.close()

    # episodes and records ----------------------------------------------------------------------
    def _records(
        self, c: sqlite3.Connection, ns: str, ids: Sequence[int] | None, limit: int,
        offset: int, pinned_only: bool = False, sources: int | None = None,
        newest: bool = False,
    ) -> list[Record]:
        if ids is not None:
            out: list[Record] = []
            for part in chunks(list(dict.fromkeys(ids))):
                marks = ",".join("?" * len(part))
                # By primary key (`namespace || ''` is no indexable term): one lookup an id, not
                # one in the namespace's index and another in the table.
                rows = c.execute(
                    f"SELECT {_REC_COLS} FROM records WHERE id IN ({marks})"
                    " AND namespace || '' = ?", (*part, ns),
                ).fetchall()
                out.extend(self._with_sources(c, rows, sources))
            return sorted(out, key=_by_id)
        sql = f"SELECT {_REC_COLS} FROM records WHERE namespace = ?"
        if pinned_only:
            # The pinned rows' own index (migration 1): the planner took the standing records'
            # (migration 9, pinned or of a standing kind) and walked every preference of the
            # namespace each turn (1.2 ms at 100k messages, 4 us by this one).
            sql = (f"SELECT {_REC_COLS} FROM records INDEXED BY records_pinned"
                   " WHERE namespace = ? AND pinned = 1")
        order = " ORDER BY id DESC" if newest else " ORDER BY id"
        rows = c.execute(sql + order + " LIMIT ? OFFSET ?", (ns, limit, offset)).fetchall()
        return self._with_sources(c, rows, sources)

    def _with_sources(self, c: sqlite3.Connection, rows: list[Any],
                      sources: int | None = None) -> list[Record]:
        """`rows` (`_REC_COLS`) as records with their source ids, ascending; `sources`: at most
        that many of each record's, the lowest (a fact confirmed turn after turn cites
        thousands of messages: the capped read stops at the cap, in the primary key)."""
        if not rows or sources == 0:
            return [record_of(r, None) for r in rows]
        src: dict[int, str] = {}  # no sources: no row below
        if sources is None:
            # One row per record, its sources joined by SQLite (a Python row each cost more).
            sql = ("SELECT record_id, group_concat(message_id) FROM record_sources"
                   " WHERE record_id IN ({}) GROUP BY record_id")
            cap: tuple[int, ...] = ()
        else:
            sql = (f"SELECT id, {sources_column('records.id')} FROM records"
                   " WHERE id IN ({})")
            cap = (max(int(sources), 0),)
        for part in chunks([r[0] for r in rows]):
            for rid, mids in c.execute(sql.format(",".join("?" * len(part))), (*cap, *part)):
                if mids:
                    src[rid] = mids
        return [record_of(r, src.get(r[0])) for r in rows]

    def records(
        self, namespace: str, ids: Sequence[int] | None = None, limit: int = 1000,
        offset: int = 0, pinned_only: bool = False, *, sources: int | None = None,
        newest: bool = False,
    ) -> list[Record]:
        with self._lock:
            return self._records(self.conn, namespace, ids, limit, offset, pinned_only,
                                 sources, newest)

    def standing_records(self, namespace: str, limit: int) -> list[Record]:
        with self._lock:
            c = self.conn
            rows = c.execute(f"SELECT {_REC_COLS} FROM records INDEXED BY records_pinned"
                             " WHERE namespace = ? AND pinned = 1 ORDER BY id DESC LIMIT ?",
                             (namespace, limit)).fetchall()
            for kind in STANDING_KINDS:  # the costliest first, each by `records_kind`
                if len(rows) >= limit:
                    break
                rows += [r for r in c.execute(
                    f"SELECT {_REC_COLS} FROM records WHERE namespace = ? AND kind = ?"
                    " AND pinned = 0 ORDER BY id DESC LIMIT ?",
                    (namespace, kind, limit - len(rows)))]
            return self._with_sources(c, rows)

    def corrected_records(self, namespace: str, limit: int, sources: int | None = None
                          ) -> list[Record]:
        with self._lock:
            c = self.conn
            rows = c.execute(
                f"{CORRECTED_IDS} SELECT {_REC_COLS} FROM records WHERE namespace = ? AND id IN"
                " (SELECT id FROM ids) ORDER BY id DESC",
                (namespace, namespace, limit, namespace)).fetchall()
            return self._with_sources(c, rows, sources)

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

    def reopen_target(self) -> str | None:
        """What another process opens this same database with (`open_store`): the file's
        path; None for a database that lives in this process only (`:memory:`, a URI)."""
        return None if self.path == ":memory:" or self.path.startswith("file:") else self.path

    def _vector_reader(self) -> tuple[sqlite3.Connection, Any]:
        """The connection and lock vector queries use. On a file database: a second, read-only
        connection, so loading an index or re-ranking never waits on the main connection's lock
        (nor the other way round), and its reads do not evict the lexical index from the main
        connection's page cache. WAL lets it read while the main connection writes; each of its
        statements sees what was committed when it began. `:memory:` has one connection."""
        if self.path == ":memory:":
            return self.conn, self._lock
        vr: tuple[sqlite3.Connection, Any] | None = self.__dict__.get("_vreader")
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
