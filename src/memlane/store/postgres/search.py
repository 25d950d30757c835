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
from ..common.scores import best_k, summed
from ..protocol import SearchFilters, Snapshot
from .core import PgCore
from .rows import _REC_COLS, _record


class PgSearch(PgCore):
    """Full-text search of records and snapshots, and saving snapshots."""

    def _search_records(self, namespace: str, terms: list[str], k: int, f: SearchFilters,
                        narrow: bool = True) -> list[tuple[Record, float]]:
        # Terms are OR-ed (as on SQLite) and ranked with ts_rank, normalised by document length
        # (flag 1): per-term frequency over length, the shape of BM25 without its IDF. Cover
        # density (ts_rank_cd) ranks OR queries no better and cost 3x as much per matching row
        # (21.6 vs 6.4 ms p50 at 20k records, ~4,700 matches a query).
        where, fargs = _filters("r", f)
        memo = self.held_revision() is not None
        sql = (f"SELECT {'r.id' if memo else _REC_COLS}, ts_rank(r.tsv, q, 1) AS score"
               " FROM records r, to_tsquery('english', %(q)s) AS q"
               f" WHERE r.namespace = %(ns)s AND r.tsv @@ q{where}"
               " ORDER BY score DESC, r.id LIMIT %(k)s")
        args = {"ns": namespace, "k": k, **fargs}
        rows = self._q(sql, {**args, "q": " | ".join(terms)})
        if memo:
            return self._ranked(namespace, rows)
        return [(_record(r[:-1]), float(r[-1])) for r in rows]

    def _index_size(self) -> float:
        # The largest id: one step down the primary key (reltuples lags until ANALYZE);
        # memoised under the revision (only a write to records moves it).
        rev = self._memo_rev()
        size = self._memos.size if rev is not None else None
        if size is None:
            row = self._q("SELECT max(id) FROM records", {})
            size = float(row[0][0] or 0) if row else 0.0
            self._memo_put(rev, lambda m: setattr(m, "size", size))
        return size

    def _scored_candidates(self, namespace: str, weights: list[tuple[str, float, int]],
                           k: int, f: SearchFilters) -> list[tuple[Record, float]]:
        # Per term, the planner either walks the namespace's ids backwards and stops at the
        # LIMIT (a common term: matches are dense) or reads the term's GIN entry (a rare one);
        # no ts_rank over every match. BM25 at tf = 1 as on SQLite, a record's length being its
        # lexemes (`length(tsv)`) against the candidates' average; summed here, k rows back.
        if f == SearchFilters() and self.held_revision() is not None:
            return self._memo_candidates(namespace, weights, k)
        where, fargs = _filters("r", f)
        args: dict[str, Any] = {"ns": namespace, "k": k, **fargs}
        subs = []
        for j, (t, w, n) in enumerate(weights):
            args[f"t{j}"], args[f"w{j}"], args[f"n{j}"] = t, w, n
            subs.append(f"(SELECT r.id, %(w{j})s::float8 AS w, length(r.tsv) AS d FROM records r"
                        f" WHERE r.namespace = %(ns)s"
                        f" AND r.tsv @@ to_tsquery('english', %(t{j})s){where}"
                        f" ORDER BY r.id DESC LIMIT %(n{j})s)")
        memo = self.held_revision() is not None
        sql = ("WITH u AS (" + " UNION ALL ".join(subs) + "),"
               " a AS (SELECT greatest(avg(d), 1) AS m FROM u),"
               " cand AS (SELECT id, sum(w * 2.2 / (1 + 1.2 * (0.25 + 0.75 * d / a.m)))"
               " AS score FROM u, a GROUP BY id ORDER BY score DESC, id DESC LIMIT %(k)s)"
               f" SELECT {'r.id' if memo else _REC_COLS}, cand.score FROM cand"
               " JOIN records r ON r.namespace = %(ns)s AND r.id = cand.id"
               " ORDER BY cand.score DESC, cand.id DESC")
        rows = self._q(sql, args)
        if memo:
            return self._ranked(namespace, rows)
        return [(_record(r[:-1]), float(r[-1])) for r in rows]

    def _memo_candidates(self, namespace: str, weights: list[tuple[str, float, int]],
                         k: int) -> list[tuple[Record, float]]:
        """`_scored_candidates` without filters, from each term's newest postings memoised
        under the revision (as SQLite's `_memo_candidates`): a conversation asks for the same
        common words turn after turn, and walking their newest matches was most of a turn at
        10k messages. A term's newest `n` (id, lexemes) of the namespace are read once (one
        statement for every term missing); a shorter read is a prefix of a longer one, and one
        that came back short holds them all. Scored as the SQL does: BM25 at tf = 1 against
        the candidates' average length, summed per record, the k best, newer first on ties."""
        rev = self._memo_rev()
        with self._memo_lock:
            memo = self._memos.postings
            have = {t: memo.get((namespace, t)) for t, _, _ in weights}
        need = []
        for t, _, n in weights:
            h = have[t]
            if h is None or (len(h[0]) < n and not h[1]):
                need.append((t, n))
        if need:
            args: dict[str, Any] = {"ns": namespace}
            subs = []
            for j, (t, n) in enumerate(need):
                args[f"t{j}"], args[f"n{j}"] = t, n
                subs.append(f"(SELECT {j} AS i, r.id, length(r.tsv) AS d FROM records r"
                            " WHERE r.namespace = %(ns)s"
                            f" AND r.tsv @@ to_tsquery('english', %(t{j})s)"
                            f" ORDER BY r.id DESC LIMIT %(n{j})s)")
            lists: list[list[tuple[int, float]]] = [[] for _ in need]
            for i, rid, d in self._q(" UNION ALL ".join(subs), args):
                lists[i].append((rid, float(d)))
            got: dict[str, tuple[list[tuple[int, float]], bool]] = {}
            for (t, n), ps in zip(need, lists, strict=True):
                ps.sort(reverse=True)  # newest first (UNION ALL keeps no order)
                got[t] = (ps, len(ps) < n)
            have.update(got)
            self._memo_put(rev, lambda m: m.postings.update(
                ((namespace, t), v) for t, v in got.items()))
        parts = []
        for t, w, n in weights:
            h = have[t]
            assert h is not None
            parts.append((w, h[0][:n]))
        lengths = [d for _, ps in parts for _, d in ps]
        if not lengths:
            return []
        avg = max(sum(lengths) / len(lengths), 1.0)
        # The weight inside each part, `w * 2.2 / (...)`, as the SQL branch writes it.
        score = summed([(rid, w * 2.2 / (1 + 1.2 * (0.25 + 0.75 * d / avg))) for rid, d in ps]
                       for w, ps in parts)
        best = best_k(score, k)
        return self._ranked(namespace, best)

    def _ranked(self, namespace: str, rows: list[Any]) -> list[tuple[Record, float]]:
        """(record, score) for ranked (id, score) rows, in their order, the records from the
        memo (inside `revision_held`: the notes find the same records turn after turn, so
        reading them, with their sources, again was most of a search's statement)."""
        recs = {r.id: r for r in self.records(namespace, [row[0] for row in rows])}
        return [(recs[row[0]], float(row[1])) for row in rows if row[0] in recs]

    def _term_counts(self, terms: list[str], cap: int) -> list[int]:
        rev = self._memo_rev()
        if rev is None:
            with self._conn() as c:
                return _term_counts(c, terms, cap)
        # As on SQLite: exact while the revision stays, zeros too (a new message's words in
        # no record are counted once, not on every turn).
        with self._memo_lock:
            known = {t: self._memos.counts[(t, cap)] for t in terms
                     if (t, cap) in self._memos.counts}
        todo = list(dict.fromkeys(t for t in terms if t not in known))
        if todo:
            with self._conn() as c:
                got = dict(zip(todo, _term_counts(c, todo, cap), strict=True))
            self._memo_put(rev, lambda m: m.counts.update(((t, cap), n) for t, n in got.items()))
            known.update(got)
        return [known[t] for t in terms]

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
    rows = c.execute(
        "SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM records WHERE tsv @@"
        " to_tsquery('english', t.term) LIMIT %s) x)"
        " FROM unnest(%s::text[]) WITH ORDINALITY AS t(term, n) ORDER BY t.n",
        (cap, list(terms))).fetchall()
    return [int(r[0]) for r in rows]
