"""Primitive writes inside an open PostgreSQL transaction."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import psycopg
import psycopg.errors

from ...types import Episode
from ..common import (
    EP_COLS,
    CommonTx,
    pg_params,
)
from .rows import _episode


class PgTx(CommonTx):
    """Primitive writes inside an open PostgreSQL transaction (`StoreTx`)."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn
        self._locked: set[tuple[str, str]] = set()

    sql = staticmethod(pg_params)
    """The shared SQL (`memlane.store.common`) for this connection: `?` becomes `%s`."""

    def _lock_thread(self, namespace: str, thread_id: str) -> None:
        # Steps on one thread serialize here (see the module docstring). A missing thread row
        # locks nothing, which is fine: there is nothing to file then.
        if (namespace, thread_id) in self._locked:
            return
        self.conn.execute(
            "SELECT 1 FROM threads WHERE namespace = %s AND thread_id = %s FOR UPDATE",
            (namespace, thread_id),
        )
        self._locked.add((namespace, thread_id))

    def record_owner(self, namespace: str, record_id: int) -> str | None:
        # Scoped like every other query: another namespace's record reads as missing, which is
        # exactly what apply_step needs (it drops ids not owned by the step's namespace).
        row = self.conn.execute(
            "SELECT namespace FROM records WHERE namespace = %s AND id = %s",
            (namespace, record_id),
        ).fetchone()
        return None if row is None else str(row[0])

    def add_record(
        self, namespace: str, text: str, kind: str, source_ids: Sequence[int],
        thread_id: str | None, now: float, step_end: int | None, suspect: bool,
        pinned: bool = False,
    ) -> int:
        row = self.conn.execute(
            "WITH r AS (INSERT INTO records (namespace, text, kind, thread_id, step_end, created,"
            " updated, pinned, suspect, stated) VALUES (%(ns)s, %(text)s, %(kind)s, %(tid)s,"
            " %(end)s, %(now)s, %(now)s, %(pinned)s, %(suspect)s, %(stated)s) RETURNING id),"
            " s AS (INSERT INTO record_sources (namespace, record_id, message_id)"
            " SELECT DISTINCT %(ns)s, r.id, m FROM r, unnest(%(src)s::bigint[]) AS m"
            " ON CONFLICT DO NOTHING),"
            " h AS (INSERT INTO record_history (namespace, record_id, text, op, changed,"
            " thread_id, stated, sources) SELECT %(ns)s, r.id, %(text)s, 'add', %(now)s,"
            " %(tid)s, %(stated)s, %(sources)s FROM r)"
            " SELECT id FROM r",
            {"ns": namespace, "text": text, "kind": kind, "tid": thread_id, "end": step_end,
             "now": now, "pinned": pinned, "suspect": suspect, "src": list(source_ids),
             "stated": self.stated_at(namespace, source_ids, now),
             "sources": json.dumps(sorted(source_ids))},
        ).fetchone()
        assert row is not None
        return int(row[0])

    def update_record(
        self, namespace: str, record_id: int, text: str, now: float, suspect: bool,
        source_ids: Sequence[int] = (), new_kind: str | None = None,
    ) -> None:
        version = self.next_version(namespace, record_id, text, source_ids, now)
        if version is None:
            return
        kind, stated = version
        args = {"ns": namespace, "id": record_id, "text": text, "now": now, "kind": new_kind,
                "suspect": suspect, "src": list(source_ids), "stated": stated,
                "sources": json.dumps(sorted(source_ids)),
                # An earlier version is dated when it was said, so the history lists it before
                # the text that replaced it.
                "changed": stated if kind == "earlier" else now}
        if kind == "new":
            # A vector of the old text would be found by the new one's neighbours: drop it.
            self.conn.execute("DELETE FROM record_vectors WHERE namespace = %(ns)s"
                              " AND record_id = %(id)s", args)
        if kind != "earlier":
            self.conn.execute(
                "UPDATE records SET text = %(text)s, updated = %(now)s,"
                " suspect = %(suspect)s, stated = %(stated)s, kind = COALESCE(%(kind)s, kind)"
                " WHERE namespace = %(ns)s"
                " AND id = %(id)s", args)
        self.conn.execute(
            "INSERT INTO record_sources (namespace, record_id, message_id)"
            " SELECT DISTINCT %(ns)s, %(id)s, m FROM unnest(%(src)s::bigint[]) AS m"
            " WHERE EXISTS (SELECT 1 FROM records WHERE namespace = %(ns)s AND id = %(id)s)"
            " ON CONFLICT DO NOTHING", args)
        if kind != "repeat":
            self.conn.execute(
                "INSERT INTO record_history (namespace, record_id, text, op, changed, thread_id,"
                " stated, sources) VALUES (%(ns)s, %(id)s, %(text)s, 'update', %(changed)s,"
                " (SELECT thread_id FROM records WHERE namespace = %(ns)s AND id = %(id)s),"
                " %(stated)s, %(sources)s)", args)

    def delete_record(self, namespace: str, record_id: int, now: float) -> None:
        self.conn.execute(
            "WITH d AS (DELETE FROM records WHERE namespace = %(ns)s AND id = %(id)s"
            " RETURNING id, text, thread_id),"
            " s AS (DELETE FROM record_sources WHERE namespace = %(ns)s AND record_id = %(id)s)"
            " INSERT INTO record_history (namespace, record_id, text, op, changed, thread_id,"
            " stated) SELECT %(ns)s, d.id, d.text, 'delete', %(now)s, d.thread_id, %(now)s"
            " FROM d",
            {"ns": namespace, "id": record_id, "now": now},
        )
        # Buffer lines that pointed at it lose the pointer (the line itself stays).
        self.conn.execute(
            "UPDATE episodes SET record_ids = array_remove(record_ids, %(id)s::bigint)"
            " WHERE namespace = %(ns)s AND record_ids @> ARRAY[%(id)s::bigint]",
            {"ns": namespace, "id": record_id},
        )

    def get_episode(self, namespace: str, thread_id: str, end: int) -> Episode | None:
        row = self.conn.execute(
            f'SELECT {EP_COLS} FROM episodes WHERE namespace = %s AND thread_id = %s'
            ' AND "end" = %s',
            (namespace, thread_id, end),
        ).fetchone()
        return None if row is None else _episode(row)

    def upsert_episode(self, namespace: str, episode: Episode, now: float) -> None:
        # Under the thread lock, so MAX(n) + 1 is this thread's next number and no other step
        # can take it between the read and the insert; UNIQUE (namespace, thread_id, n) backs it.
        self._lock_thread(namespace, episode.thread_id)
        self.conn.execute(
            'INSERT INTO episodes (namespace, thread_id, start, "end", n, date, line, record_ids,'
            " suspect, written, scanned) VALUES (%(ns)s, %(tid)s, %(start)s, %(end)s,"
            ' COALESCE((SELECT n FROM episodes WHERE namespace = %(ns)s AND thread_id = %(tid)s'
            ' AND "end" = %(end)s), (SELECT COALESCE(MAX(n), 0) + 1 FROM episodes'
            " WHERE namespace = %(ns)s AND thread_id = %(tid)s)),"
            " %(date)s, %(line)s, %(ids)s::bigint[], %(suspect)s, %(now)s, %(scanned)s)"
            ' ON CONFLICT (namespace, thread_id, "end") DO UPDATE SET start = excluded.start,'
            " date = excluded.date, line = excluded.line, record_ids = excluded.record_ids,"
            " suspect = excluded.suspect, written = excluded.written,"
            " scanned = excluded.scanned",
            {"ns": namespace, "tid": episode.thread_id, "start": episode.start,
             "end": episode.end, "date": episode.date, "line": episode.line,
             "ids": list(episode.record_ids), "suspect": episode.suspect, "now": now,
             "scanned": episode.scanned},
        )
        self.conn.execute(
            "UPDATE threads SET filed_to = GREATEST(filed_to, %s)"
            " WHERE namespace = %s AND thread_id = %s",
            (episode.end, namespace, episode.thread_id),
        )

    def set_relevance(self, namespace: str, thread_id: str, scores: dict[int, float]) -> None:
        if not scores:
            return
        self._lock_thread(namespace, thread_id)
        self.conn.execute(
            "UPDATE messages m SET relevance = v.score"
            " FROM unnest(%s::bigint[], %s::float8[]) AS v(seq, score)"
            " WHERE m.namespace = %s AND m.thread_id = %s AND m.seq = v.seq",
            (list(scores), list(scores.values()), namespace, thread_id),
        )
