"""Lexical search on SQLite (FTS5): the scored candidates of a search (the one scoring
expression both engines share, `common/plan.bm25_tf1`), term counts, and snapshots. Plain SQL:
every read asks the database."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from ...types import Record
from ..common import (
    SNAP_COLS,
    snapshot_row,
)
from ..common.plan import bm25_tf1
from ..fts import fts5_match
from ..protocol import SearchFilters, Snapshot
from .core import _REC_COLS, SQLiteCore, record_of, sources_column


class SQLiteSearch(SQLiteCore):
    """FTS5 search of records and snapshots, and saving snapshots."""

    def _index_size(self) -> float:
        with self._lock:
            return float(self.conn.execute(f"SELECT {_SIZE}").fetchone()[0] or 0)

    def _size_and_counts(self, terms: list[str], cap: int) -> tuple[float, list[int]]:
        # One statement: the size rides along with the first terms' counts.
        with self._lock:
            counts = _term_counts(self.conn, terms, cap, with_size=True)
        return float(counts[0] or 0), [int(n) for n in counts[1:]]

    def _scored_candidates(self, namespace: str, weights: list[tuple[str, float, int]],
                           k: int, f: SearchFilters, sources: int | None = None
                           ) -> list[tuple[Record, float]]:
        # FTS5 walks a doclist backwards for ORDER BY rowid DESC and stops at the LIMIT: no
        # bm25(), no IDF pass over the whole doclist. The namespace and the filters are checked
        # on the record's row (a primary-key lookup per posting walked), not with FTS5's
        # namespace phrase: ANDed with a doclist that holds every record of the namespace, that
        # phrase cost 3x the term's own walk. Scored (`bm25_tf1`: a record's length is
        # `records.words`, migration 7, against the candidates' average), summed and ranked in
        # SQLite, k rows back, each with its sources (no second statement).
        where, fargs = _record_filters("r", f)
        cols = ", ".join(f"r.{c.strip()}" for c in _REC_COLS.split(","))
        if sources is None:
            cols += (", (SELECT group_concat(message_id) FROM record_sources"
                     " WHERE record_id = r.id)")
        else:
            cols += ", " + sources_column("r.id")
        sub = ("SELECT * FROM (SELECT records_fts.rowid AS id, ? AS w, r.words AS d"
               " FROM records_fts JOIN records r ON r.id = records_fts.rowid"
               f" WHERE records_fts MATCH ? AND r.namespace = ?{where}"
               " ORDER BY records_fts.rowid DESC LIMIT ?)")
        args: list[Any] = []
        for t, w, n in weights:
            args += [w, fts5_match([t], ("text",)), namespace, *fargs, n]
        sql = ("WITH u AS (" + " UNION ALL ".join([sub] * len(weights)) + "),"
               " a AS (SELECT MAX(AVG(d), 1.0) AS m FROM u),"
               f" s AS (SELECT id, SUM({bm25_tf1('w', 'd', 'a.m')}) AS score FROM u, a"
               " GROUP BY id ORDER BY score DESC, id DESC LIMIT ?)"
               f" SELECT {cols}, s.score FROM s JOIN records r ON r.id = s.id"
               " ORDER BY s.score DESC, s.id DESC")
        cap = () if sources is None else (max(int(sources), 0),)
        rows = self._q(sql, (*args, k, *cap))
        return [(record_of(r, r[-2]), float(r[-1])) for r in rows]

    def _term_counts(self, terms: list[str], cap: int) -> list[int]:
        with self._lock:
            return [int(n) for n in _term_counts(self.conn, terms, cap)]

    # snapshots ---------------------------------------------------------------------------------
    def _save_snapshot(self, namespace: str, values: tuple[Any, ...], thread_id: str | None
                       ) -> tuple[Snapshot, bool]:
        with self.transaction() as tx:
            row = tx.conn.execute(
                f"SELECT {SNAP_COLS} FROM snapshots WHERE namespace = ? AND result_hash = ?",
                (namespace, values[3]),
            ).fetchone()
            if row is not None:
                return snapshot_row(row), False
            cur = tx.conn.execute(
                "INSERT INTO snapshots (namespace, thread_id, tool, args, result, result_hash,"
                " created, tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (namespace, thread_id, *values),
            )
            sid = int(cur.lastrowid or 0)
        return self.snapshots(namespace, [sid])[0], True

    def _search_snapshots(self, namespace: str, terms: list[str], k: int
                          ) -> list[tuple[Snapshot, float]]:
        match = fts5_match(terms, ("tool", "args", "result"), namespace)
        if match is None:
            return []
        cols = ", ".join(f"s.{c.strip()}" for c in SNAP_COLS.split(","))
        rows = self._q(
            f"SELECT {cols}, bm25(snapshots_fts, 1.0, 1.0, 1.0, 0.0) AS score FROM snapshots_fts"
            " JOIN snapshots s ON s.id = snapshots_fts.rowid"
            " WHERE snapshots_fts MATCH ? AND s.namespace = ? ORDER BY score LIMIT ?",
            (match, namespace, k),
        )
        return [(snapshot_row(r[:8]), -float(r[8])) for r in rows]


def _record_filters(alias: str, f: SearchFilters, kind_col: str = "kind"
                    ) -> tuple[str, list[Any]]:
    sql = ""
    args: list[Any] = []
    if f.kinds is not None:
        sql += f" AND {alias}.{kind_col} IN ({','.join('?' * len(f.kinds))})" if f.kinds \
            else " AND 0"
        args.extend(f.kinds)
    if f.thread_id is not None:
        sql += f" AND {alias}.thread_id = ?"
        args.append(f.thread_id)
    if f.since is not None:
        sql += f" AND {alias}.created >= ?"
        args.append(f.since)
    if f.until is not None:
        sql += f" AND {alias}.created <= ?"
        args.append(f.until)
    return sql, args


_SIZE = "(SELECT MAX(rowid) FROM records_fts)"
"""How many records the lexical index holds, about: its largest rowid, one step down the
index's b-tree (COUNT(*) would read it all)."""


def _term_counts(c: sqlite3.Connection, terms: Sequence[str], cap: int,
                 with_size: bool = False) -> list[Any]:
    """Records holding each term (text column, store-wide), each counted up to `cap`: one
    statement of bounded subqueries (a statement per term cost a round trip each; a
    stretch's filing plans with up to 32 terms). `with_size`: `_SIZE` first, in the same
    statement."""
    out: list[Any] = []
    terms = list(terms)
    sub = "(SELECT COUNT(*) FROM (SELECT 1 FROM records_fts WHERE records_fts MATCH ? LIMIT ?))"
    for i in range(0, max(len(terms), 1), 64):  # well under SQLite's parameter limit
        part = terms[i:i + 64]
        args: list[Any] = []
        for t in part:
            args += [fts5_match([t], ("text",)), cap]
        cols = [sub] * len(part)
        if with_size and i == 0:
            cols.insert(0, _SIZE)
        if cols:
            out += c.execute("SELECT " + ", ".join(cols), args).fetchone()
    return out
