"""Forgetting on PostgreSQL (records, threads, namespaces) and compaction.

After each forget the planner's statistics of the tables it touched are sampled again
(ANALYZE): `pg_statistic` keeps sampled column values (a message's text among a column's most
common values or histogram bounds), and a forgotten value must not stay readable there. The old
statistics rows are dead tuples of `pg_statistic` until `compact` rewrites that catalog too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
import psycopg.errors

from .core import PgCore

TABLES = ("records", "record_vectors", "record_sources", "record_history", "snapshots",
          "snapshot_vectors", "episodes", "messages", "threads")
"""memlane's tables: a forgotten thread or namespace may be in any column's statistics (its id
among a column's most common values)."""

RECORD_TEXT = ("records", "record_history (text)", "messages (content)", "episodes (line)")
"""What a forgotten record's text may be sampled from: its row, its history, the messages and
lines the redaction rewrote: only their text columns, about half the work of whole tables on
a long log (a record's forget never removes a thread or a namespace id)."""


class PgForget(PgCore):
    """Forget a record, a thread or a namespace; compact the tables."""

    def _after_forget(self, tables: Sequence[str] = TABLES) -> None:
        """After a forget has committed (the store's own, or a redaction's rewrite): nothing of
        what went stays in this process (each thread's read-ahead rows) or in the planner's
        statistics of `tables` (sampled again)."""
        self.__dict__.pop("_ahead", None)  # every thread's read-ahead goes with the object
        with self._conn() as c:
            for table in tables:
                c.execute(f"ANALYZE {table}")

    # forgetting and export ---------------------------------------------------------------------
    @staticmethod
    def _erase_records(c: psycopg.Connection[Any], namespace: str, ids: Sequence[int]) -> int:
        """Delete records with their sources, history and pointers in buffer lines (the
        tsvector is in the row; vectors cascade)."""
        if not ids:
            return 0
        args = {"ns": namespace, "ids": [int(i) for i in ids]}
        n = c.execute("DELETE FROM records WHERE namespace = %(ns)s AND id = ANY(%(ids)s)",
                      args).rowcount
        c.execute("DELETE FROM record_sources WHERE namespace = %(ns)s"
                  " AND record_id = ANY(%(ids)s)", args)
        c.execute("DELETE FROM record_history WHERE namespace = %(ns)s"
                  " AND record_id = ANY(%(ids)s)", args)
        c.execute(
            "UPDATE episodes SET record_ids = ARRAY(SELECT x FROM unnest(record_ids)"
            " WITH ORDINALITY AS u(x, i) WHERE x <> ALL(%(ids)s::bigint[]) ORDER BY i)"
            " WHERE namespace = %(ns)s AND record_ids && %(ids)s::bigint[]", args)
        return n

    def forget_record(self, namespace: str, record_id: int) -> bool:
        with self.transaction() as tx:
            found = self._erase_records(tx.conn, namespace, [record_id]) > 0
        self._after_forget(RECORD_TEXT)  # the redaction rewrote messages and lines just before
        return found

    def forget_thread(self, namespace: str, thread_id: str) -> dict[str, int]:
        with self.transaction() as tx:
            c = tx.conn
            args = {"ns": namespace, "tid": thread_id}
            # Lock the thread first, so an append in flight lands before we count and delete.
            c.execute("SELECT 1 FROM threads WHERE namespace = %(ns)s AND thread_id = %(tid)s"
                      " FOR UPDATE", args)
            rids = [r[0] for r in c.execute(
                "SELECT id FROM records WHERE namespace = %(ns)s AND thread_id = %(tid)s", args)]
            out = {"records": self._erase_records(c, namespace, rids)}
            # The history of the thread's records deleted earlier (by a step, or replaced by a
            # retry) still holds their text: it goes too.
            c.execute("DELETE FROM record_history WHERE namespace = %(ns)s AND record_id IN"
                      " (SELECT record_id FROM record_history WHERE namespace = %(ns)s"
                      " AND thread_id = %(tid)s)", args)
            # Records of other threads that cite these messages lose those source links.
            c.execute("DELETE FROM record_sources s USING messages m WHERE s.namespace = %(ns)s"
                      " AND m.namespace = %(ns)s AND m.thread_id = %(tid)s"
                      " AND s.message_id = m.id", args)
            out["snapshots"] = c.execute(
                "DELETE FROM snapshots WHERE namespace = %(ns)s AND thread_id = %(tid)s",
                args).rowcount
            # _delete_thread removes messages and episodes; count them first, as SQLite does.
            for table in ("messages", "episodes"):
                row = c.execute(f"SELECT COUNT(*) FROM {table} WHERE namespace = %(ns)s"
                                " AND thread_id = %(tid)s", args).fetchone()
                out[table] = int(row[0]) if row else 0
            out["threads"] = int(self._delete_thread(c, namespace, thread_id))
        self._after_forget()
        return out

    def forget_namespace(self, namespace: str) -> dict[str, int]:
        out: dict[str, int] = {}
        with self.transaction() as tx:
            # Children before parents (vectors would cascade anyway); every table leads with
            # namespace, so each delete is one index range (one shard, under Citus).
            for table in ("record_vectors", "record_sources", "record_history", "records",
                          "snapshot_vectors", "snapshots", "episodes", "messages", "threads"):
                out[table] = tx.conn.execute(f"DELETE FROM {table} WHERE namespace = %s",
                                             (namespace,)).rowcount
        self._after_forget()
        return {k: out[k] for k in ("threads", "messages", "episodes", "records", "snapshots")}

    def compact(self) -> None:
        """Rewrite memlane's tables from live rows only (VACUUM FULL) and checkpoint.

        VACUUM FULL takes an exclusive lock on each table while it rewrites it: run it in a
        maintenance window. Deleted rows may survive outside the tables, in WAL segments not yet
        recycled, in WAL archives and in backups and replicas: those follow the server's own
        retention, which memlane cannot shorten."""
        with self._conn() as c:
            for table in TABLES:
                c.execute(f"VACUUM (FULL, ANALYZE) {table}")
            try:
                # The statistics ANALYZE replaced are dead rows of the catalog: rewrite it.
                c.execute("VACUUM FULL pg_statistic")
            except psycopg.errors.InsufficientPrivilege:
                pass  # needs the catalog's owner (a superuser); docs/SAFETY.md says so
            try:
                c.execute("CHECKPOINT")
            except psycopg.errors.InsufficientPrivilege:
                pass  # needs superuser or pg_checkpoint; the server checkpoints on its own
