"""The unfiltered searches of the SQLite store's bounded top-k, answered from the per-term
reads it memoises under its revision (`memos.RowMemos`)."""

from __future__ import annotations

import heapq
from operator import itemgetter
from typing import Any

from ...types import Record
from ..common.memos import TermList
from ..common.scores import contenders, summed
from ..fts import fts5_match
from .core import SQLiteCore

DELTA_IDS = 256
"""A memoised postings list stale by more touched records than this is read again whole."""
FIRST_SIGHT = 2
"""A search with more terms than this asked for the first time since the memos were emptied is
answered by one statement, not from per-term lists (`_memo_worth`)."""


class SQLiteMemoSearch(SQLiteCore):
    """The unfiltered searches of the bounded top-k answered from memoised per-term reads."""

    def _memo_worth(self, namespace: str, terms: list[str], kept: bool = False) -> bool:
        """Whether to answer from per-term lists (memoised, or read now to be): reading a
        term's list costs more than the one statement that ranks the query, in SQLite (4x
        for the exact branch: every match's score comes back to Python; 1.4x for the
        bounded read, #22), so a list pays only for a term asked for again before the memos
        are emptied, as a conversation's common words are. Terms asked for the first time
        since then (more than `FIRST_SIGHT` of them): one statement. Either way the same
        results. `kept`: the bounded read's newest-postings lists, which a memory step does
        not empty (a term with one is not new). Call under `_lock`, the memos fresh."""
        seen = self._memos.seen
        lists = self._memos.lists if kept else {}
        new = sum((namespace, t) not in seen and (namespace, t) not in lists for t in terms)
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
        kept (`RowMemos.lists`); a shorter read is a prefix of a longer one (newest first), and
        one that came back short holds them all. This store's own memory steps do not empty
        them: a list is brought up to date when next used, from the records the steps touched
        (`RowMemos.log`; one statement for every such term), and its length factors computed
        again against the index's average length now. Scored as the SQL does."""
        with self._lock:
            memos = self._memos
            lists = memos.lists
            avgdl = memos.avgdl
            if avgdl is None:
                avgdl = memos.avgdl = self._avgdl()
            stale: list[tuple[str, TermList, frozenset[int]]] = []
            have: dict[str, TermList | None] = {}
            for t, _, _ in weights:
                got = lists.get((namespace, t))
                if got is not None and got.gen != memos.gen:
                    since = memos.touched_since(got.gen)
                    if since is None or len(since) > DELTA_IDS:
                        got = None
                    elif since:
                        stale.append((t, got, since))
                    else:
                        got = got._replace(gen=memos.gen)
                have[t] = got
            if stale:
                for t, got in zip([t for t, _, _ in stale], self._brought_up(namespace, stale),
                                  strict=True):
                    have[t] = got
            need = []
            for t, _, n in weights:
                got = have[t]
                if got is None or (len(got.lens) < n and not got.complete):
                    need.append((t, n))
            if need:
                sub = ("SELECT * FROM (SELECT ? AS i, records_fts.rowid, length(r.text)"
                       " - length(replace(r.text, ' ', '')) + 2 FROM records_fts"
                       " CROSS JOIN records r"  # the index drives (see `_memo_exact`)
                       " ON r.id = records_fts.rowid WHERE records_fts MATCH ? AND"
                       " r.namespace = ? ORDER BY records_fts.rowid DESC LIMIT ?)")
                args: list[Any] = []
                for i, (t, n) in enumerate(need):
                    args += [i, fts5_match([t], ("text",)), namespace, n]
                read: list[list[tuple[int, int]]] = [[] for _ in need]
                for i, rid, d in self.conn.execute(" UNION ALL ".join([sub] * len(need)),
                                                   args):
                    read[i].append((rid, d))
                for (t, n), got_ in zip(need, read, strict=True):
                    got_.sort(reverse=True)  # newest first (UNION ALL keeps no order)
                    have[t] = TermList(got_, [], len(got_) < n, memos.gen, 0.0)
            postings = []
            for t, _, n in weights:
                got = have[t]
                assert got is not None
                if got.avgdl != avgdl:
                    # BM25 at tf = 1 as `_sql_candidates` has it, but for the term's weight:
                    # the average length is the index's, which moves with the revision.
                    got = got._replace(avgdl=avgdl, parts=[
                        (rid, 2.2 / (1 + 1.2 * (0.25 + 0.75 * d / avgdl))) for rid, d in got.lens])
                lists[(namespace, t)] = have[t] = got
                postings.append(got.parts[:n])
        score = summed((w, ps) for (_, w, _), ps in zip(weights, postings, strict=True))
        # Best first, the newer record first on ties: (score, id) descending.
        return self._with_records(namespace,
                                  heapq.nlargest(k, contenders(score, k), key=itemgetter(1, 0)))

    def _brought_up(self, namespace: str, stale: list[tuple[str, TermList, frozenset[int]]]
                    ) -> list[TermList]:
        """Each stale list with the records touched since it was read taken out and those of
        them that hold the term now put back (one statement for all of them). A list that holds
        a term's newest postings only keeps its prefix: a touched record older than its oldest
        entry stays out (the ones between would be missing); the length check after reads it
        again if it came up short."""
        # FTS5 takes a rowid range (not an IN list) into its doclist walk: the touched ids'
        # range there (`LIMIT -1` keeps the subquery whole, so the range stays with it), the
        # ids themselves checked after.
        sub = ("SELECT ? AS i, f.id, length(r.text) - length(replace(r.text, ' ', '')) + 2"
               " FROM (SELECT rowid AS id FROM records_fts WHERE records_fts MATCH ?"
               " AND rowid >= ? AND rowid <= ? LIMIT -1) f CROSS JOIN records r"
               " ON r.id = f.id WHERE r.namespace = ? AND f.id IN ({})")
        parts, args = [], []
        for i, (t, _, since) in enumerate(stale):
            parts.append(sub.format(",".join("?" * len(since))))
            args += [i, fts5_match([t], ("text",)), min(since), max(since), namespace,
                     *sorted(since)]
        back: list[list[tuple[int, int]]] = [[] for _ in stale]
        for i, rid, d in self.conn.execute(" UNION ALL ".join(parts), args):
            back[i].append((rid, d))
        out = []
        for (_, got, since), new in zip(stale, back, strict=True):
            if not got.complete:
                floor = got.lens[-1][0] if got.lens else None
                new = [e for e in new if floor is not None and e[0] >= floor]
            lens = sorted([e for e in got.lens if e[0] not in since] + new, reverse=True)
            out.append(TermList(lens, [], got.complete, self._memos.gen, 0.0))
        return out

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
