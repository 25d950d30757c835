"""What rewrites or reads a namespace whole: expiry, export and truncation (undo)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from ...types import Record, public_dict
from ..protocol import (
    HistoryPolicy,
    chunks,
)
from .core import CommonCore
from .rows import (
    _THREAD_COLS,
    EP_COLS,
    MSG_COLS,
    SNAP_COLS,
    episode_dict,
    history_rows,
    message_row,
    snapshot_row,
    thread_row,
)


class CommonMaintenance(CommonCore):
    """Expire idle threads, export a namespace, truncate a thread."""

    def expire(self, now: float, history: HistoryPolicy, namespace: str | None = None) -> int:
        if history.ttl_seconds is None:
            return 0
        sql = "SELECT namespace, thread_id FROM threads WHERE last_active < ?"
        args: list[Any] = [now - history.ttl_seconds]
        if namespace is not None:
            sql += " AND namespace = ?"
            args.append(namespace)
        with self.transaction() as tx:
            rows = tx.conn.execute(tx.sql(sql + self._SKIP_LOCKED), args).fetchall()
            return sum(self._delete_thread(tx.conn, ns, tid) for ns, tid in rows)

    # export ------------------------------------------------------------------------------------
    def export_namespace(self, namespace: str) -> dict[str, Any]:
        with self._snapshot_reads() as q:  # one consistent snapshot of the namespace
            threads = []
            for t in q(f"SELECT {_THREAD_COLS} FROM threads WHERE namespace = ?"
                       " ORDER BY created, thread_id", (namespace,)):
                info = thread_row(namespace, t)
                msgs = q(f"SELECT {MSG_COLS} FROM messages WHERE namespace = ? AND"
                         " thread_id = ? ORDER BY seq", (namespace, info.thread_id))
                eps = q(f'SELECT {EP_COLS} FROM episodes WHERE namespace = ? AND'
                        ' thread_id = ? ORDER BY "end"', (namespace, info.thread_id))
                threads.append({
                    "thread_id": info.thread_id, "created": info.created,
                    "last_active": info.last_active, "filed_to": info.filed_to,
                    "messages": [public_dict(message_row(m)) for m in msgs],
                    "episodes": [episode_dict(self._episode(e)) for e in eps],
                })
            recs = self._export_records(q, namespace)
            by_id: dict[int, list[Any]] = {}
            for row in q(
                "SELECT record_id, text, op, changed, stated, sources FROM record_history"
                f" WHERE namespace = ? ORDER BY {self._HISTORY_ORDER}", (namespace,)
            ):
                by_id.setdefault(row[0], []).append(row[1:])
            hist = {rid: history_rows(rows) for rid, rows in by_id.items()}
            records = [public_dict(r) | {"source_ids": list(r.source_ids),
                                    "history": hist.get(r.id, [])} for r in recs]
            snaps = [public_dict(snapshot_row(r)) for r in q(
                f"SELECT {SNAP_COLS} FROM snapshots WHERE namespace = ? ORDER BY id",
                (namespace,))]
        return {"namespace": namespace, "format": "memlane-export/1", "threads": threads,
                "records": records, "snapshots": snaps}

    def _export_records(self, q: Callable[[str, Sequence[Any]], list[Any]], namespace: str
                        ) -> list[Record]:
        """Every record of the namespace with its sources, read through `q`."""
        raise NotImplementedError

    def truncate(self, namespace: str, thread_id: str, from_seq: int,
                 now: float | None = None) -> int:
        """Drop the thread's messages from `from_seq` on; returns how many went.

        The seqs are handed out again (the log stays 1..N, which windows and stretches rely
        on). Undo never loses what the user still said: a memory step whose stretch reaches a
        dropped message is withdrawn only as far as the cut. A record it added goes only when
        every one of its source messages went (and the user has not pinned it); a record with
        a source that remains is kept with its id, pin and text (a fact the user stated in a
        message still in the log), its links to the dropped messages removed. The step's
        episode is re-filed over what remains: a stretch that starts before the cut now ends
        just before it (same line, same `n`, pointing at the records it kept), so the kept
        turns are never filed twice and nothing is re-extracted; a stretch wholly past the cut
        goes, and the records of it that are kept stand on their own (no step owns them).
        Records a step *updated* keep the new text.
        """
        now = time.time() if now is None else now
        with self.transaction() as tx:
            q = tx.sql
            c = tx.conn
            # Touching the thread row first takes its row lock on PostgreSQL (SQLite holds the
            # write lock already): an append or a step in flight on this thread lands first.
            c.execute(q("UPDATE threads SET last_active = ? WHERE namespace = ?"
                        " AND thread_id = ?"), (now, namespace, thread_id))
            dropped = {int(r[0]) for r in c.execute(q(
                "SELECT id FROM messages WHERE namespace = ? AND thread_id = ? AND seq >= ?"),
                (namespace, thread_id, from_seq)).fetchall()}
            eps = [(int(r[0]), int(r[1])) for r in c.execute(q(
                'SELECT start, "end" FROM episodes WHERE namespace = ? AND thread_id = ?'
                ' AND "end" >= ? ORDER BY "end"'), (namespace, thread_id, from_seq)).fetchall()]
            for start, end in eps:
                for rid in tx.records_of_step(namespace, thread_id, end):
                    row = c.execute(q("SELECT pinned FROM records WHERE namespace = ?"
                                      " AND id = ?"), (namespace, rid)).fetchone()
                    sources = {int(r[0]) for r in c.execute(q(
                        "SELECT message_id FROM record_sources WHERE record_id = ?"),
                        (rid,)).fetchall()}
                    if sources and sources <= dropped and not (row and row[0]):
                        tx.delete_record(namespace, rid, now)
                    else:  # kept: owned by the shortened step, or by no step at all
                        c.execute(q("UPDATE records SET step_end = ? WHERE namespace = ?"
                                    " AND id = ?"),
                                  (from_seq - 1 if start < from_seq else None, namespace, rid))
                if start < from_seq:
                    c.execute(q('UPDATE episodes SET "end" = ? WHERE namespace = ?'
                                ' AND thread_id = ? AND "end" = ?'),
                              (from_seq - 1, namespace, thread_id, end))
                else:
                    c.execute(q('DELETE FROM episodes WHERE namespace = ? AND thread_id = ?'
                                ' AND "end" = ?'), (namespace, thread_id, end))
            # Links to the dropped messages go with them (a new message could reuse an id).
            for part in chunks(sorted(dropped)):
                marks = ", ".join("?" * len(part))
                c.execute(q(f"DELETE FROM record_sources WHERE message_id IN ({marks})"),
                          tuple(part))
            gone = c.execute(q(
                "DELETE FROM messages WHERE namespace = ? AND thread_id = ? AND seq >= ?"
            ), (namespace, thread_id, from_seq)).rowcount
            c.execute(q(
                "UPDATE threads SET next_seq = ?,"
                " turns = COALESCE((SELECT MAX(turn) FROM messages"
                "   WHERE namespace = ? AND thread_id = ?), 0),"
                ' filed_to = COALESCE((SELECT MAX("end") FROM episodes'
                "   WHERE namespace = ? AND thread_id = ?), 0)"
                " WHERE namespace = ? AND thread_id = ? AND next_seq > ?"
            ), (from_seq, namespace, thread_id, namespace, thread_id, namespace, thread_id,
                from_seq))
            return int(gone or 0)
