"""Opening a SQLite file while another connection is writing to it: SQLite refuses the switch
to WAL at once ("database is locked", without the busy handler) when the other holds its write
lock, which is how processes started together on a new file failed to open it."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from memlane import Memory
from memlane.store.sqlite.checkpoint import wal_mode


def _writer_holding_the_lock(path):
    c = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    c.execute("CREATE TABLE other (x)")
    c.execute("BEGIN IMMEDIATE")
    c.execute("INSERT INTO other VALUES (1)")
    return c


def test_open_waits_for_a_writer_instead_of_failing(tmp_path):
    path = str(tmp_path / "m.db")
    other = _writer_holding_the_lock(path)
    probe = sqlite3.connect(path, isolation_level=None, timeout=5)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        probe.execute("PRAGMA journal_mode = WAL")  # what failed before: no wait at all
    probe.close()
    released = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    released.start()
    t = time.monotonic()
    with Memory.open(path) as mem:
        waited = time.monotonic() - t
        mem.thread("t").add("user", "I live in Lisbon.")
        assert mem.store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    released.join()
    assert waited >= 0.25
    other.close()


def test_wal_mode_gives_up_after_its_timeout_with_the_error(tmp_path):
    path = str(tmp_path / "m.db")
    other = _writer_holding_the_lock(path)
    c = sqlite3.connect(path, isolation_level=None)
    t = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        wal_mode(c, 0.2)
    assert 0.1 <= time.monotonic() - t < 2.0
    other.execute("COMMIT")
    wal_mode(c, 0.2)
    assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    c.close()
    other.close()
