"""What an engine gives the shared store (its primitives), and the settings table."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import Any

from ...types import Episode, Record

_HELD: ContextVar[dict[int, Hashable] | None] = ContextVar("memlane_revision_held", default=None)
"""Per thread (and task): the other connections' revision each store read when this thread
entered its `revision_held()`, by the store's id (`_UNREAD` until read, for an engine that
reads it lazily)."""
_UNREAD: Any = object()


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
        None when the engine cannot tell (then nothing is memoised across calls)."""
        return None

    _revision_lazily = False
    """True for an engine whose `_changes()` is never None and that reads it with the first
    read of a turn (`_revision_unread` / `_revision_read`: PostgreSQL's context read), saving
    a round trip: `revision_held()` then reads nothing on entry, and the first `revision()` or
    `held_revision()` in the scope reads it if that read has not given it yet."""

    def _held_outer(self) -> Hashable | None:
        held = _HELD.get()
        outer = held.get(id(self)) if held else None
        if outer is _UNREAD:
            assert held is not None
            outer = held[id(self)] = self._changes()
        return outer

    def _revision_unread(self) -> bool:
        """Inside `revision_held()`, with the revision not read yet (`_revision_lazily`)."""
        held = _HELD.get()
        return held is not None and held.get(id(self)) is _UNREAD

    def _revision_read(self, outer: Hashable) -> None:
        """The other connections' revision, read by the engine's first read of the scope
        before any memoised read (so what is memoised after is at least that new)."""
        held = _HELD.get()
        if held and held.get(id(self)) is _UNREAD:
            held[id(self)] = outer

    def revision(self) -> Hashable | None:
        outer = self._held_outer()
        if outer is None:
            outer = self._changes()
            if outer is None:
                return None
        # This object's own writes are counted fresh even when held: a forget through it is
        # seen at once.
        return outer, self._writes

    def log_revision(self) -> Hashable | None:
        return self.revision()

    def held_revision(self) -> Hashable | None:
        """`revision()` inside this thread's `revision_held()` (no query, unless the engine
        reads it lazily and nothing has yet); None outside it."""
        outer = self._held_outer()
        return None if outer is None else (outer, self._writes)

    def held_scope(self) -> object | None:
        """The `revision_held()` scope this thread (or task) is in, as an object no other
        scope shares; None outside one. What a store may reuse its own reads within: one
        `Thread.context` call."""
        return _HELD.get()

    @contextmanager
    def revision_held(self) -> Iterator[None]:
        held = _HELD.get()
        if held is not None and id(self) in held:
            yield  # nested: the outer scope's check stands
            return
        outer = _UNREAD if self._revision_lazily else self._changes()
        if outer is None:
            yield
            return
        token = _HELD.set({**(held or {}), id(self): outer})
        try:
            yield
        finally:
            _HELD.reset(token)

    def records(self, namespace: str, ids: Sequence[int] | None = None, limit: int = 1000,
                offset: int = 0, pinned_only: bool = False) -> list[Record]:
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
