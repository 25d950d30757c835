"""What an engine gives the shared store (its primitives), and the settings table."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from ...types import Episode, Record


class CommonCore:
    """The engine-independent half of a store. An engine gives `transaction()`, `records()`,
    `_read(sql, args)` (rows of a `?` query), `_snapshot_reads()` (a function running `?`
    queries in one consistent read, for export), `_episode(row)` (an `EP_COLS` row),
    `_delete_thread(conn, namespace, thread_id)` and the class constants below."""

    _HISTORY_ORDER = "changed"
    """ORDER BY of a record's history (the engines break ties on their own row ids)."""
    _SKIP_LOCKED = ""
    """Suffix of the idle-threads query of `expire` (PostgreSQL: leave threads being written)."""

    def transaction(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    _writes = 0
    """This object's write transactions that may have changed more than messages (an engine
    that counts them sets it in its `transaction()`, under the lock its reads take)."""

    def _changes(self) -> Hashable | None:
        """What other connections' (and processes') writes move, read with one cheap query;
        None when the engine cannot tell."""
        return None

    def revision(self) -> Hashable | None:
        outer = self._changes()
        # This object's own writes are counted too: a forget through it is seen at once.
        return None if outer is None else (outer, self._writes)

    def records(self, namespace: str, ids: Sequence[int] | None = None, limit: int = 1000,
                offset: int = 0, pinned_only: bool = False, *, sources: int | None = None,
                newest: bool = False) -> list[Record]:
        raise NotImplementedError

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    def _snapshot_reads(self) -> AbstractContextManager[Callable[[str, Sequence[Any]],
                                                                  list[Any]]]:
        raise NotImplementedError

    @staticmethod
    def _episode(row: Sequence[Any]) -> Episode:
        raise NotImplementedError

    @staticmethod
    def _delete_thread(c: Any, namespace: str, thread_id: str) -> bool:
        raise NotImplementedError

    def setting(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM settings WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def put_setting(self, key: str, value: str, *, replace: bool = False) -> str:
        # Insert-if-absent in one statement: two processes choosing at once keep the first
        # writer's value, and both read that one back.
        with self.transaction() as tx:
            tx.conn.execute(tx.sql(
                "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO "
                + ("UPDATE SET value = excluded.value" if replace else "NOTHING")), (key, value))
        held = self.setting(key)
        assert held is not None
        return held

    def set_thread_times(self, namespace: str, thread_id: str, created: float,
                         last_active: float) -> None:
        with self.transaction() as tx:
            tx.conn.execute(tx.sql("UPDATE threads SET created = ?, last_active = ?"
                                   " WHERE namespace = ? AND thread_id = ?"),
                            (created, last_active, namespace, thread_id))

    def has_records(self) -> bool:
        return bool(self._read("SELECT 1 FROM records LIMIT 1"))

    def record_namespaces(self, prefix: str = "", kinds: Sequence[str] | None = None
                          ) -> list[str]:
        """The namespaces that hold records (of `kinds`, if given), sorted: all of them, or
        `prefix` and those under it (`prefix.`...), a range of the (namespace, id) index."""
        where, args = [], []
        if prefix:
            # '/' is the character after '.', so the range is exactly the `prefix.` names.
            where.append("(namespace = ? OR (namespace >= ? AND namespace < ?))")
            args += [prefix, prefix + ".", prefix + "/"]
        if kinds is not None:
            where.append(f"kind IN ({', '.join('?' for _ in kinds) or 'NULL'})")
            args += list(kinds)
        sql = "SELECT DISTINCT namespace FROM records"
        if where:
            sql += " WHERE " + " AND ".join(where)
        return [r[0] for r in self._read(sql + " ORDER BY 1", args)]
