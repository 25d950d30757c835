"""WAL checkpoints off the writer's path.

In WAL mode with `synchronous = NORMAL` a commit does not wait for the disk, but the commit that
fills SQLite's auto-checkpoint (1,000 pages by default) copies the log into the database and
waits for its fsyncs, there and then: on this machine that was one proxied turn in a hundred
taking 15-20 ms more (the proxy's own p99; `benchmarks/bench_proxy_own.py`). So a store hands
checkpoints to a daemon thread with its own connection: every `EVERY` write transactions it is
woken and runs a PASSIVE checkpoint (it never blocks readers or writers; the fsync is its own).
The main connection's auto-checkpoint stays as a backstop at `BACKSTOP_PAGES`, which the thread
keeps the log under, so the log stays bounded if the thread cannot keep up.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time

log = logging.getLogger("memlane.store")

EVERY = 64
"""Write transactions between background checkpoints (a turn's append writes a few pages)."""
BACKSTOP_PAGES = 10_000
"""The writer's own auto-checkpoint, for a log the background thread did not keep short."""


def wal_mode(conn: sqlite3.Connection, timeout: float) -> None:
    """`PRAGMA journal_mode = WAL` on a new connection, waiting up to `timeout` seconds for
    other processes: when another one is creating the same file (its schema) or changing its
    journal mode, SQLite answers "database is locked" at once, without calling the busy
    handler the connection's timeout sets, so processes started together on a new file failed
    to open it (tests/test_crash.py's concurrent writers did, under load). Retried with a
    short growing wait; any other error, or the same past `timeout`, is raised."""
    deadline = time.monotonic() + timeout
    wait = 0.001
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() + wait > deadline:
                raise
        time.sleep(wait)
        wait = min(wait * 2, 0.05)


class Checkpointer:
    """Background PASSIVE checkpoints of one database file (`SQLiteStore` owns one)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._writes = 0
        self._wake = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()
        self.runs = 0
        """Checkpoints run (tests read it)."""
        self.last: tuple[int, int, int] | None = None
        """The last one's (busy, frames in the log, frames copied)."""

    def wrote(self) -> None:
        """A write transaction committed (called under the store's lock)."""
        self._writes += 1
        if self._writes % EVERY:
            return
        with self._start:
            if self._closed:
                return
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="memlane-checkpoint",
                                                daemon=True)
                self._thread.start()
        self._wake.set()

    def _loop(self) -> None:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                   timeout=60.0)
        except sqlite3.Error:
            log.exception("cannot open %s for checkpoints; the writer's own will run", self.path)
            return
        try:
            conn.execute("PRAGMA busy_timeout = 60000")
            conn.execute("PRAGMA synchronous = NORMAL")
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._closed:
                    return
                try:
                    self.last = tuple(conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone())
                    self.runs += 1
                except sqlite3.Error:  # retried at the next wake; the backstop bounds the log
                    log.exception("background checkpoint of %s failed", self.path)
        finally:
            conn.close()

    def close(self) -> None:
        with self._start:
            self._closed = True
            thread = self._thread
        self._wake.set()
        if thread is not None:
            thread.join(timeout=30)
