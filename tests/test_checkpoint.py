"""WAL checkpoints run on the store's background thread, not in a writer's commit."""

from __future__ import annotations

import time
from pathlib import Path

from memlane.store.protocol import HistoryPolicy, NewMessage
from memlane.store.sqlite import SQLiteStore
from memlane.store.sqlite.checkpoint import BACKSTOP_PAGES, EVERY


def test_checkpoints_run_in_the_background_and_keep_the_log_short(tmp_path: Path) -> None:
    s = SQLiteStore(tmp_path / "m.db")
    try:
        assert s.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == BACKSTOP_PAGES
        cp = s._checkpointer
        assert cp is not None and cp.runs == 0
        for i in range(EVERY * 3):
            s.append("ns", "t", [NewMessage("user", f"message {i} " + "x" * 2000, time.time(),
                                            500)], time.time(), HistoryPolicy())
        deadline = time.time() + 10
        while cp.runs < 1 and time.time() < deadline:
            time.sleep(0.01)
        assert cp.runs >= 1
        assert cp.last is not None and cp.last[2] > 0  # it copied the log into the database
    finally:
        s.close()
    assert cp._thread is None or not cp._thread.is_alive()  # closed with the store


def test_memory_databases_have_no_checkpointer() -> None:
    s = SQLiteStore(":memory:")
    assert s._checkpointer is None
    s.close()


def test_the_ledger_checkpoints_in_the_background_too(tmp_path: Path) -> None:
    from memlane.ledger import Ledger

    led = Ledger(tmp_path / "ledger.db")
    try:
        assert led.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == BACKSTOP_PAGES
        for i in range(EVERY * 2):
            led.append("answer", namespace="ns", thread_id="t", seq=i, signals={"n": i})
        cp = led._checkpointer
        assert cp is not None
        deadline = time.time() + 10
        while cp.runs < 1 and time.time() < deadline:
            time.sleep(0.01)
        assert cp.runs >= 1 and cp.last is not None and cp.last[2] > 0
    finally:
        led.close()
