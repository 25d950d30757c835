"""Full-text search on PostgreSQL (tsvector): ranking, the bounded top-k's candidates, term
counts, and snapshots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
import psycopg.errors

from ...types import Record
from ..common import (
    SNAP_COLS,
    snapshot_row,
)
from ..common.plan import bm25_tf1
from ..protocol import SearchFilters, Snapshot
from .core import PgCore
from .rows import _record, rec_cols

_WORDS = "(length(r.text) - length(replace(r.text, ' ', '')) + 2)"
"""A record's length in words as SQLite's `records.words` holds it (migration 7)."""


class PgSearch(PgCore):
    """Full-text search of records and snapshots, and saving snapshots."""

    def _index_size(self) -> float:
        # The largest id: one step down the primary key (reltuples lags until ANALYZE).
        row = self._q("SELECT max(id) FROM records", {})
        return float(row[0][0] or 0) if row else 0.0

    def _scored_candidates(self, namespace: str, weights: list[tuple[str, float, int]],
                           k: int, f: SearchFilters, sources: int | None = None
                           ) -> list[tuple[Record, float]]:
        # Per term, the planner either walks the namespace's ids backwards and stops at the
        # LIMIT (a common term: matches are dense) or reads the term's GIN entry (a rare one);
        # no ts_rank over every match. Scored as on SQLite (`bm25_tf1`), a record's length
        # counted as SQLite's `records.words` counts it (spaces + 2, migration 7) against the
        # candidates' average, so both engines rank alike; k rows back.
        where, fargs = _filters("r", f)
        args: dict[str, Any] = {"ns": namespace, "k": k, **fargs}
        subs = []
        for j, (t, w, n) in enumerate(weights):
            args[f"t{j}"], args[f"w{j}"], args[f"n{j}"] = t, w, n
            subs.append(f"(SELECT r.id, %(w{j})s::float8 AS w, {_WORDS} AS d FROM records r"
                        f" WHERE r.namespace = %(ns)s"
                        f" AND r.tsv @@ to_tsquery('english', %(t{j})s){where}"
                        f" ORDER BY r.id DESC LIMIT %(n{j})s)")
        sql = ("WITH u AS (" + " UNION ALL ".join(subs) + "),"
               " a AS (SELECT greatest(avg(d), 1) AS m FROM u),"
               f" cand AS (SELECT id, sum({bm25_tf1('w', 'd', 'a.m')})"
               " AS score FROM u, a GROUP BY id ORDER BY score DESC, id DESC LIMIT %(k)s)"
               f" SELECT {rec_cols(sources)}, cand.score FROM cand"
               " JOIN records r ON r.namespace = %(ns)s AND r.id = cand.id"
               " ORDER BY cand.score DESC, cand.id DESC")
        rows = self._q(sql, args)
        return [(_record(r[:-1]), float(r[-1])) for r in rows]

    def _term_counts(self, terms: list[str], cap: int) -> list[int]:
        with self._conn() as c:
            return _term_counts(c, terms, cap)

    def _size_and_counts(self, terms: list[str], cap: int) -> tuple[float, list[int]]:
        # One round trip for the two (`_index_size`, `_term_counts`): a bounded search reads
        # both every time.
        row = self._q(
            f"SELECT (SELECT max(id) FROM records), ARRAY({_COUNTS})", (cap, list(terms)))[0]
        return float(row[0] or 0), [int(n) for n in row[1]]

    # snapshots ---------------------------------------------------------------------------------
    def _save_snapshot(self, namespace: str, values: tuple[Any, ...], thread_id: str | None
                       ) -> tuple[Snapshot, bool]:
        # Two processes saving the same result at once: the unique key lets one insert, and the
        # other reads that row back.
        with self.transaction() as tx:
            row = tx.conn.execute(
                "INSERT INTO snapshots (namespace, thread_id, tool, args, result, result_hash,"
                " created, tokens) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
                f" ON CONFLICT (namespace, result_hash) DO NOTHING RETURNING {SNAP_COLS}",
                (namespace, thread_id, *values),
            ).fetchone()
            if row is not None:
                return snapshot_row(row), True
            row = tx.conn.execute(
                f"SELECT {SNAP_COLS} FROM snapshots WHERE namespace = %s AND result_hash = %s",
                (namespace, values[3]),
            ).fetchone()
            assert row is not None
            return snapshot_row(row), False

    def _search_snapshots(self, namespace: str, terms: list[str], k: int
                          ) -> list[tuple[Snapshot, float]]:
        tsq = " | ".join(terms)  # letters and digits only (memlane.store.fts): no tsquery syntax
        rows = self._q(
            f"SELECT {SNAP_COLS}, ts_rank(s.tsv, q, 1) AS score"
            " FROM snapshots s, to_tsquery('english', %(q)s) AS q"
            " WHERE s.namespace = %(ns)s AND s.tsv @@ q ORDER BY score DESC, s.id LIMIT %(k)s",
            {"q": tsq, "ns": namespace, "k": k},
        )
        return [(snapshot_row(r[:8]), float(r[8])) for r in rows]


def _filters(alias: str, f: SearchFilters, kind_col: str = "kind"
             ) -> tuple[str, dict[str, Any]]:
    sql, args = "", dict[str, Any]()
    if f.kinds is not None:
        sql += f" AND {alias}.{kind_col} = ANY(%(f_kinds)s::text[])"
        args["f_kinds"] = list(f.kinds)
    if f.thread_id is not None:
        sql += f" AND {alias}.thread_id = %(f_thread)s"
        args["f_thread"] = f.thread_id
    if f.since is not None:
        sql += f" AND {alias}.created >= %(f_since)s"
        args["f_since"] = f.since
    if f.until is not None:
        sql += f" AND {alias}.created <= %(f_until)s"
        args["f_until"] = f.until
    return sql, args


def _term_counts(c: psycopg.Connection[Any], terms: Sequence[str], cap: int) -> list[int]:
    """Records holding each term (store-wide), each counted up to `cap`, in one statement (a
    bounded count per term, as a LATERAL subquery per array element)."""
    rows = c.execute(_COUNTS, (cap, list(terms))).fetchall()
    return [int(r[0]) for r in rows]


_COUNTS = ("SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM records WHERE tsv @@"
           " to_tsquery('english', t.term) LIMIT %s) x)"
           " FROM unnest(%s::text[]) WITH ORDINALITY AS t(term, n) ORDER BY t.n")
"""Each term's records (store-wide), counted up to a cap: one row a term, in order."""
