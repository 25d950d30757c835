"""The migration record (`Migration`) and the one runner of SQLite files (`apply_sqlite`);
PostgreSQL's runner is `PgCore._migrate` (one transaction under an advisory lock)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ...errors import StoreError


@dataclass(frozen=True)
class Migration:
    """One numbered schema change."""

    number: int
    """Its place in the order; recorded once applied."""
    name: str
    """A short label for messages."""
    sql: str
    """The statements (a script; see `split_sql`)."""


def split_sql(script: str) -> list[str]:
    """A SQLite migration script as statements (`sqlite3.complete_statement` knows about strings
    and trigger bodies). Lines of comments between statements are dropped."""
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


def julianday() -> float:
    """Now as a Julian day number (what SQLite's `julianday('now')` gives)."""
    return time.time() / 86400.0 + 2440587.5


def apply_sqlite(
    conn: sqlite3.Connection,
    migrations: list[Migration],
    table: str,
    lock: threading.RLock,
    now: Callable[[], float] = julianday,
) -> list[int]:
    """Apply the `migrations` that `table` does not record yet, each in one transaction with the
    row that records it (a crash mid-migration leaves the schema at the previous number), and
    return the numbers applied. The one runner of SQLite files: the store's and the ledger's.
    `now()` is what the `applied` column gets. A failing statement raises `StoreError` naming the
    migration, with nothing of it applied."""
    run: list[int] = []
    with lock:
        conn.execute(f"CREATE TABLE IF NOT EXISTS {table} (number INTEGER PRIMARY KEY,"
                     " name TEXT NOT NULL, applied REAL NOT NULL)")
        for m in migrations:
            conn.execute("BEGIN IMMEDIATE")
            try:
                done = conn.execute(f"SELECT 1 FROM {table} WHERE number = ?",
                                    (m.number,)).fetchone()
                if done is None:
                    # executescript would COMMIT first; run statement by statement instead so
                    # the migration and its bookkeeping share one transaction.
                    for stmt in split_sql(m.sql):
                        conn.execute(stmt)
                    conn.execute(f"INSERT INTO {table} (number, name, applied) VALUES (?, ?, ?)",
                                 (m.number, m.name, now()))
                    run.append(m.number)
                conn.execute("COMMIT")
            except BaseException as e:
                conn.execute("ROLLBACK")
                if isinstance(e, sqlite3.Error):
                    raise StoreError(f"migration {m.number} ({m.name}) failed: {e}") from e
                raise
    return run
