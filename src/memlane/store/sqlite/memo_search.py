"""The unfiltered searches of the SQLite store's bounded top-k, answered from the per-term
reads it memoises under its revision (`memos.RowMemos`)."""

from __future__ import annotations

import heapq
from operator import itemgetter
from typing import Any

from ...types import Record
from ..common.memos import Newest
from ..common.scores import contenders, summed
from ..fts import fts5_match
from ..protocol import chunks
from .core import SQLiteCore

FIRST_SIGHT = 2
"""A search with more terms than this asked for the first time since the memos were emptied is
answered by one statement, not from per-term lists (`_memo_worth`)."""


class SQLiteMemoSearch(SQLiteCore):
    """The unfiltered searches of the bounded top-k answered from memoised per-term reads."""

    def _memo_worth(self, namespace: str, terms: list[str], exact: bool = False) -> bool:
        """Whether to answer from per-term lists (memoised, or read now to be): reading a
        term's list costs more than the one statement that ranks the query, in SQLite (4x
        for the exact branch: every match's score comes back to Python; 1.4x for the
        bounded read, #22), so a list pays only for a term asked for again before the memos
        are emptied, as a conversation's common words are. Terms asked for the first time
        since then (more than `FIRST_SIGHT` of them): one statement. Either way the same
        results. `exact`: for the exact branch's scored lists, which a memory step empties
        (the bounded read's lists, and what was asked of them, stay). Call under `_lock`, the
        memos fresh."""
        seen = self._memos.seen_exact if exact else self._memos.seen
        new = sum((namespace, t) not in seen for t in terms)
        seen.update((namespace, t) for t in terms)
        return new <= FIRST_SIGHT

    def _memo_exact(self, namespace: str, terms: list[str], k: int
                    ) -> list[tuple[Record, float]]:
        """The bounded search's exact branch (the kept terms match few records store-wide)
        from memoised per-term scores: FTS5's bm25() of an OR query is the sum over its terms
        of each term's own bm25() (each term's IDF, frequency and the record's length), so
        each term's scored matches in the namespace are read once (one statement for every
        term missing) and kept while `revision()` stays, like `_memo_candidates`' postings.
        Summed in query order, as FTS5 does; ties go to the older record, as its scan has it."""
        with self._lock:
            memo = self._memos.postings
            need = [t for t in terms if (namespace, t, "bm25") not in memo]
            if need:
                # CROSS JOIN: the index drives. Left to itself, with so few columns of
                # `records` wanted, the planner walks the namespace's covering index and
                # probes the index once per record (a second on 10k records, not 1 ms).
                sub = ("SELECT ? AS i, records_fts.rowid, bm25(records_fts, 1.0, 0.0)"
                       " FROM records_fts CROSS JOIN records r ON r.id = records_fts.rowid"
                       " WHERE records_fts MATCH ? AND r.namespace = ?")
                args: list[Any] = []
                for i, t in enumerate(need):
                    args += [i, fts5_match([t], ("text",)), namespace]
                lists: list[list[tuple[int, float]]] = [[] for _ in need]
                for i, rid, bm in self.conn.execute(" UNION ALL ".join([sub] * len(need)),
                                                    args):
                    lists[i].append((rid, -float(bm)))  # flipped: higher is better
                for t, got in zip(need, lists, strict=True):
                    memo[(namespace, t, "bm25")] = (got, True)
            scored = [memo[(namespace, t, "bm25")][0] for t in terms]
        score = summed((1.0, ps) for ps in scored)
        # Best first, the older record first on ties (a reverse sort keeps ties in order).
        return self._with_records(namespace, sorted(sorted(contenders(score, k)),
                                                    key=itemgetter(1), reverse=True)[:k])

    def _memo_candidates(self, namespace: str, weights: list[tuple[str, float, int]],
                         k: int) -> list[tuple[Record, float]]:
        """`_scored_candidates` without filters, from memoised postings: a conversation asks
        for the same common words turn after turn, and walking their newest postings was most
        of a search on a large store. A term's newest `n` postings of the namespace, with each
        record's length in words, are read once (one statement for every term missing) and
        kept while `revision()` stays, and through this store's own memory steps, caught up
        with the records they touched (`_catch_up`); a shorter read is a prefix of a longer
        one (newest first), and one that came back short holds them all. Scored as the SQL
        does, against the index's average length now."""
        with self._lock:
            memos = self._memos
            memo = memos.newest
            behind = [(t, e) for t, _, _ in weights
                      if (e := memo.get((namespace, t))) is not None
                      and e.upto < len(memos.touched)]
            if behind:
                self._catch_up(namespace, behind)
            need = []
            for t, _, n in weights:
                e = memo.get((namespace, t))
                if e is None or (len(e.pairs) < n and not e.complete):
                    need.append((t, n))
            if need:
                sub = ("SELECT * FROM (SELECT ? AS i, records_fts.rowid, r.words FROM records_fts"
                       " CROSS JOIN records r"  # the index drives (see `_memo_exact`)
                       " ON r.id = records_fts.rowid WHERE records_fts MATCH ? AND"
                       " r.namespace = ? ORDER BY records_fts.rowid DESC LIMIT ?)")
                args: list[Any] = []
                for i, (t, n) in enumerate(need):
                    args += [i, fts5_match([t], ("text",)), namespace, n]
                lists: list[list[tuple[int, int]]] = [[] for _ in need]
                for i, rid, d in self.conn.execute(" UNION ALL ".join([sub] * len(need)),
                                                   args):
                    lists[i].append((rid, d))
                for (t, n), got in zip(need, lists, strict=True):
                    got.sort(reverse=True)  # newest first (UNION ALL keeps no order)
                    memo[(namespace, t)] = Newest(got, len(got) < n, len(memos.touched))
            # BM25 at tf = 1 as `_sql_candidates` has it, but for the term's weight: the
            # average length is the index's, which moves only with the revision.
            if memos.avgdl is None:
                memos.avgdl = self._avgdl()
            avgdl = memos.avgdl
            postings = [_weighted(memo[(namespace, t)], avgdl)[:n] for t, _, n in weights]
        score = summed((w, ps) for (_, w, _), ps in zip(weights, postings, strict=True))
        # Best first, the newer record first on ties: (score, id) descending.
        return self._with_records(namespace,
                                  heapq.nlargest(k, contenders(score, k), key=itemgetter(1, 0)))

    def _catch_up(self, namespace: str, behind: list[tuple[str, Newest]]) -> None:
        """The newest postings of `behind`'s terms, caught up with the records this store's
        own steps touched since each was read (`RowMemos.touched`): those records leave each
        list and come back where they hold the term now, and where the list reaches (a prefix
        keeps every posting from its last one on). Which terms a record holds now is asked of
        an FTS5 index of the touched records' texts alone (`_touched_index`), with the same
        tokenizer as the records' index, so it answers as that index would, at the cost of a
        few rows instead of a common term's whole list. Call under `_lock`, the memos fresh."""
        memos = self._memos
        log = memos.touched
        meta = self._touched_index(log)
        sub = "SELECT ? AS i, rowid FROM memlane_mem.touched WHERE touched MATCH ?"
        args: list[Any] = []
        for i, (t, _) in enumerate(behind):
            args += [i, fts5_match([t], ("text",))]
        holds: list[set[int]] = [set() for _ in behind]
        for i, rid in self.conn.execute(" UNION ALL ".join([sub] * len(behind)), args):
            holds[i].add(rid)
        for (_, e), has in zip(behind, holds, strict=True):
            moved = set(log[e.upto:])
            pairs = e.pairs
            # Records newer than the list's newest (a step's new ones) cannot be in it: the
            # list is walked only for the older ones a step updated or deleted.
            top = pairs[0][0] if pairs else -1
            older = {rid for rid in moved if rid <= top}
            if older:
                pairs = [p for p in pairs if p[0] not in older]
            reach = None if e.complete else (pairs[-1][0] if pairs else None)
            back = sorted(((rid, meta[rid][1]) for rid in moved & has
                           if meta[rid][0] == namespace
                           and (e.complete or (reach is not None and rid > reach))),
                          reverse=True)
            if back:
                pairs = (back + pairs if not pairs or back[-1][0] > pairs[0][0]
                         else sorted(pairs + back, reverse=True))
            if older or back:
                e.pairs, e.weighted = pairs, None
            e.upto = len(log)

    def _touched_index(self, log: list[int]) -> dict[int, tuple[str, int]]:
        """`memlane_mem.touched`, an FTS5 index of the current texts of the records in `log`
        (`RowMemos.touched`), brought up to date; returns each indexed record's (namespace,
        words). Lives in an in-memory database attached to the connection; emptied with the
        newest postings (`_forget_touched`)."""
        if self._touched_done == 0 and log:
            # In memory, never in a file (SQLite's temporary database may be one): the texts
            # must go when the memos do. The records' index's tokenizer (migration 2): the same
            # words, stemmed the same.
            if not any(r[1] == "memlane_mem" for r in self.conn.execute("PRAGMA database_list")):
                self.conn.execute("ATTACH DATABASE ':memory:' AS memlane_mem")
            self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS memlane_mem.touched"
                              " USING fts5(text, tokenize = 'porter unicode61')")
        fresh = sorted(set(log[self._touched_done:]))
        meta = self._touched_meta
        for part in chunks(fresh):
            marks = ",".join("?" * len(part))
            self.conn.execute(f"DELETE FROM memlane_mem.touched WHERE rowid IN ({marks})",
                              part)
            rows = self.conn.execute(
                f"SELECT id, namespace, text, words FROM records WHERE id IN ({marks})",
                part).fetchall()
            for rid in part:
                meta.pop(rid, None)
            self.conn.executemany("INSERT INTO memlane_mem.touched (rowid, text)"
                                  " VALUES (?, ?)", [(r[0], r[2]) for r in rows])
            meta.update((r[0], (r[1], r[3])) for r in rows)
        self._touched_done = len(log)
        return meta

    def _with_records(self, namespace: str, best: list[tuple[int, float]]
                      ) -> list[tuple[Record, float]]:
        """(record, score) for ranked (id, score) pairs, in their order (one read)."""
        recs = {r.id: r for r in self.records(namespace, [rid for rid, _ in best])}
        return [(recs[rid], s) for rid, s in best if rid in recs]

    def _avgdl(self) -> float:
        """The index's average document length in tokens (both columns, as FTS5's bm25() has
        it), from its averages record: a varint row count, then a varint total per column."""
        with self._lock:
            row = self.conn.execute("SELECT block FROM records_fts_data WHERE id = 1").fetchone()
        vals: list[int] = []
        if row and row[0]:
            v = 0
            for byte in bytes(row[0]):  # SQLite varints: 7 bits a byte, high bit: more
                v = (v << 7) | (byte & 0x7F)
                if not byte & 0x80:
                    vals.append(v)
                    v = 0
        return max(sum(vals[1:]) / vals[0], 1.0) if len(vals) > 1 and vals[0] else 8.0


def _weighted(e: Newest, avgdl: float) -> list[tuple[int, float]]:
    """`e`'s pairs with BM25's length factor at tf = 1 for the average length `avgdl` (as
    `_sql_candidates` computes it), kept with `e` while the average stays."""
    if e.weighted is None or e.avgdl != avgdl:
        # One factor per distinct length (a few dozen), looked up per posting.
        factor = {d: 2.2 / (1 + 1.2 * (0.25 + 0.75 * d / avgdl)) for d in {d for _, d in e.pairs}}
        e.weighted = [(rid, factor[d]) for rid, d in e.pairs]
        e.avgdl = avgdl
    return e.weighted
