"""Forgetting on SQLite (secure delete of records, threads, namespaces) and compaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from ...errors import StoreError
from ..protocol import chunks
from .core import SQLiteCore


class SQLiteForget(SQLiteCore):
    """Forget a record, a thread or a namespace; compact the file."""

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
        with self._lock:
            self.conn.execute("PRAGMA secure_delete = ON")
            with self.transaction() as tx:
                return self._erase_records(tx.conn, namespace, [record_id]) > 0

    def forget_thread(self, namespace: str, thread_id: str) -> dict[str, int]:
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
