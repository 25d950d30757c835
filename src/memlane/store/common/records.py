"""Records and their history, written through the engine's transaction primitives."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ...errors import NotFound
from ...types import Record
from ..protocol import (
    chunks,
)
from .core import CommonCore
from .rows import (
    history_rows,
)


class CommonRecords(CommonCore):
    """Record edits (add, update, delete, pin) and what a record was (its history)."""

    def update_record(
        self, namespace: str, record_id: int, text: str, now: float | None = None,
        suspect: bool = False, scanned: int = 0,
    ) -> Record:
        now = time.time() if now is None else now
        with self.transaction() as tx:
            if tx.record_owner(namespace, record_id) != namespace:
                raise NotFound(f"no record #{record_id} in namespace {namespace!r}")
            tx.update_record(namespace, record_id, text, now, suspect)
            tx.mark_scanned(namespace, "records", [(record_id, text)], scanned)
        return self._written(namespace, record_id)

    def delete_record(self, namespace: str, record_id: int, now: float | None = None) -> bool:
        now = time.time() if now is None else now
        with self.transaction() as tx:
            if tx.record_owner(namespace, record_id) != namespace:
                return False
            tx.delete_record(namespace, record_id, now)
            return True

    def add_record(
        self, namespace: str, text: str, kind: str = "fact", source_ids: Sequence[int] = (),
        thread_id: str | None = None, pinned: bool = False, now: float | None = None,
        suspect: bool = False, scanned: int = 0,
    ) -> Record:
        now = time.time() if now is None else now
        with self.transaction() as tx:
            # Never link across namespaces: keep only source ids that are this namespace's.
            src: list[int] = []
            for part in chunks([int(i) for i in source_ids]):
                marks = ",".join("?" * len(part))
                src.extend(r[0] for r in tx.conn.execute(tx.sql(
                    f"SELECT id FROM messages WHERE namespace = ? AND id IN ({marks})"),
                    (namespace, *part)).fetchall())
            rid = tx.add_record(namespace, text, kind, sorted(src), thread_id, now, None,
                                suspect, pinned)
            tx.mark_scanned(namespace, "records", [(rid, text)], scanned)
        return self._written(namespace, rid)

    def pin(self, namespace: str, record_id: int, pinned: bool = True) -> Record:
        with self.transaction() as tx:
            cur = tx.conn.execute(tx.sql("UPDATE records SET pinned = ? WHERE namespace = ?"
                                         " AND id = ?"), (pinned, namespace, record_id))
            if cur.rowcount == 0:
                raise NotFound(f"no record #{record_id} in namespace {namespace!r}")
        return self._written(namespace, record_id)

    def _written(self, namespace: str, record_id: int) -> Record:
        """The record a write just committed, read back. A forget that commits between the
        write and this read has removed it: that is `NotFound` (REST 404), as if the forget had
        come first, never an IndexError (a 500)."""
        got = self.records(namespace, [record_id])
        if not got:
            raise NotFound(f"no record #{record_id} in namespace {namespace!r}: it was "
                           "forgotten as it was written")
        return got[0]

    def records_from(self, namespace: str, message_ids: Sequence[int]) -> list[Record]:
        ids: set[int] = set()
        for part in chunks([int(i) for i in message_ids]):
            marks = ",".join("?" * len(part))
            ids.update(r[0] for r in self._read(
                "SELECT id FROM records WHERE namespace = ? AND id IN (SELECT record_id FROM"
                f" record_sources WHERE message_id IN ({marks}))", (namespace, *part)))
        return self.records(namespace, sorted(ids)) if ids else []

    def sources_among(self, namespace: str, record_ids: Sequence[int],
                      message_ids: Sequence[int]) -> dict[int, frozenset[int]]:
        out: dict[int, set[int]] = {}
        # Found by message (`record_sources_msg`: the few records each message is a source
        # of; `+` keeps SQLite from probing every (record, message) pair instead), never by
        # how many messages a record cites; the namespace checked on the record's row, by its
        # primary key, in the same statement.
        for mids in chunks([int(i) for i in message_ids]):
            for rids in chunks([int(i) for i in record_ids]):
                for rid, mid in self._read(
                        "SELECT s.record_id, s.message_id FROM record_sources s JOIN records r"
                        " ON r.id = s.record_id WHERE s.message_id IN"
                        f" ({','.join('?' * len(mids))}) AND +s.record_id IN"
                        f" ({','.join('?' * len(rids))}) AND r.namespace || '' = ?",
                        (*mids, *rids, namespace)):
                    out.setdefault(rid, set()).add(mid)
        return {rid: frozenset(m) for rid, m in out.items()}

    def record_history(self, namespace: str, record_id: int) -> list[dict[str, Any]]:
        rows = self._read("SELECT text, op, changed, stated, sources FROM record_history"
                          f" WHERE namespace = ? AND record_id = ? ORDER BY {self._HISTORY_ORDER}",
                          (namespace, record_id))
        return history_rows(rows)
