"""The unfiltered searches of the SQLite store's bounded top-k, answered from the per-term
reads it memoises under its revision (`memos.RowMemos`)."""

from __future__ import annotations

import bisect
import math
import sqlite3
from collections import Counter
from typing import Any

from ...types import Record
from ..common.memos import Newest, Scored
from ..common.scores import best_k, summed, summed_by_length
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
        results. `exact`: for the exact branch's scored lists (store-wide: a term's list read
        for another namespace is there). Lists and what was asked of them stay through this
        store's own memory steps. Call under `_lock`, the memos fresh."""
        seen = self._memos.seen_exact if exact else self._memos.seen
        kept = self._memos.scored if exact else {}  # store-wide: read for any namespace
        new = sum((namespace, t) not in seen and t not in kept for t in terms)
        seen.update((namespace, t) for t in terms)
        return new <= FIRST_SIGHT

    def _memo_exact(self, namespace: str, terms: list[str], k: int
                    ) -> list[tuple[Record, float]]:
        """The bounded search's exact branch (the kept terms match few records store-wide)
        from memoised per-term scores: FTS5's bm25() of an OR query is the sum over its terms
        of each term's own bm25() (each term's IDF, frequency and the record's length), so
        each term's scored matches are read once (one statement for every term missing) and
        kept. Store-wide (the branch is taken for terms rare store-wide), with what bm25()
        needs of each match (`Scored`), so that through this store's own steps a list is
        caught up with the records they touched (`_catch_up_scored`) and scored again for
        the index's new statistics, to the bit (`bm25_part`), instead of read again; any other
        write empties it, as it empties every memo. Summed in query order, as FTS5 does; ties
        go to the older record, as its scan has it."""
        with self._lock:
            memos = self._memos
            lists = memos.scored
            behind = [(t, e) for t in dict.fromkeys(terms)
                      if (e := lists.get(t)) is not None and e.kept
                      and e.upto < len(memos.touched)]
            if behind:
                self._catch_up_scored(behind)
            totals = self._memo_totals()
            need = [t for t in dict.fromkeys(terms)
                    if (e := lists.get(t)) is None or (not e.kept and e.totals != totals)]
            if need:
                self._read_scored(need)
                totals = self._memo_totals()
            scored = [_parts(lists[t], namespace, totals) for t in terms]
        score = summed(scored)
        # Best first, the older record first on ties, as FTS5's scan has it.
        return self._with_records(namespace, best_k(score, k, older_first=True))

    def _read_scored(self, need: list[str]) -> None:
        """`need`'s scored matches read (`_memo_exact`), in one read transaction with the
        index's totals: each match's bm25() as FTS5 computes it, its record's namespace and
        length in tokens (`records_fts_docsize`). Each score is then reproduced from the
        match's hit count (read back from its score) before the list is kept through steps:
        a list with any score not reproduced is kept for this revision only. Call under
        `_lock`, the memos fresh."""
        # CROSS JOIN: the index drives. Left to itself, with so few columns of `records`
        # wanted, the planner walks the namespace's covering index and probes the index once
        # per record (a second on 10k records, not 1 ms).
        sub = ("SELECT ? AS i, records_fts.rowid, r.namespace, bm25(records_fts, 1.0, 0.0),"
               " d.sz FROM records_fts CROSS JOIN records r ON r.id = records_fts.rowid"
               " CROSS JOIN records_fts_docsize d ON d.id = records_fts.rowid"
               " WHERE records_fts MATCH ?")
        args: list[Any] = []
        for i, t in enumerate(need):
            args += [i, fts5_match([t], ("text",))]
        got: list[list[tuple[int, str, float, int]]] = [[] for _ in need]
        c = self.conn
        length: dict[bytes, int] = {}  # by size record: a few dozen distinct
        c.execute("BEGIN")  # one snapshot: the scores and the totals they were computed with
        try:
            totals = _index_totals(c)
            for i, rid, ns, bm, sz in c.execute(" UNION ALL ".join([sub] * len(need)), args):
                d = length.get(sz)
                if d is None:
                    d = length[sz] = sum(_varints(sz or b""))
                got[i].append((rid, ns, -float(bm), d))  # flipped: higher is better
        finally:
            c.execute("COMMIT")
        memos = self._memos
        if memos.totals is None:
            memos.totals = totals
        exact = memos.totals == totals and bm25_reproduced()
        for t, matches in zip(need, got, strict=True):
            matches.sort()  # id order (UNION ALL keeps none)
            parts: dict[str, list[tuple[int, float]]] = {}
            for rid, ns, s, _ in matches:
                parts.setdefault(ns, []).append((rid, s))
            rows = _hit_counts(matches, totals, len(matches)) if exact else None
            memos.scored[t] = Scored(rows or [], len(memos.touched), rows is not None, totals,
                                     parts)

    def _catch_up_scored(self, behind: list[tuple[str, Scored]]) -> None:
        """The kept scored matches of `behind`'s terms, caught up with the records this
        store's own steps touched since each was read (`RowMemos.touched`): those records
        leave each list and come back where they hold the term now, with their hit count and
        their length in tokens from `records_fts_docsize`. A one-token term's hits in a
        record are its token's count in the record's tokens (kept per touched record, read
        from the index's tokenizer: `_touched_index`); a phrase's are read back from the
        touched records' index's own bm25() (the same tokenizer: the same hits). Their scores
        are computed again when the list is next used, for the index's totals then
        (`_parts`). A hit count not reproduced drops the list (read again). Call under
        `_lock`, the memos fresh."""
        memos = self._memos
        log = memos.touched
        self._touched_index(log)
        meta = self._touched_meta
        c = self.conn
        words = _tokens(c, self._term_tokens, [t for t, _ in behind])
        phrases = [i for i, w in enumerate(words) if len(w) != 1]
        holds: list[list[tuple[int, float, bytes, int]]] = [[] for _ in behind]
        if phrases:
            # Only the rows in the span of the records moved since the list was read (a
            # step's new records are the newest ids) are scored; bm25() counts the term's
            # rows in the whole index itself, and so does the subquery, for reading its IDF
            # back.
            sub = ("SELECT ? AS i, touched.rowid, bm25(touched), d.sz, (SELECT count(*) FROM"
                   " memlane_mem.touched AS h WHERE h.touched MATCH ?) FROM"
                   " memlane_mem.touched CROSS JOIN memlane_mem.touched_docsize d ON"
                   " d.id = touched.rowid WHERE touched MATCH ? AND touched.rowid BETWEEN ?"
                   " AND ?")
            args: list[Any] = []
            for i in phrases:
                t, e = behind[i]
                m = fts5_match([t], ("text",))
                moved_ids = log[e.upto:]
                args += [i, m, m, min(moved_ids), max(moved_ids)]
            for i, rid, bm, sz, n in c.execute(" UNION ALL ".join([sub] * len(phrases)),
                                               args):
                holds[i].append((rid, -float(bm), sz or b"", n))
        own = _index_totals(c, "memlane_mem.touched_data") if phrases else (0, 0)
        back: list[tuple[str, Scored, set[int], list[tuple[int, str, float, int]]]] = []
        want: set[int] = set()
        for (t, e), has, w in zip(behind, holds, words, strict=True):
            moved = set(log[e.upto:])
            add: list[tuple[int, str, float, int]] | None
            if len(w) == 1:
                add = [(rid, meta[rid][0], float(meta[rid][2][w[0]]), 0) for rid in sorted(moved)
                       if rid in meta and w[0] in meta[rid][2]]
            else:
                # Hit counts from the touched records' index (its statistics, its lengths:
                # the text alone): the hits are the records index's.
                add = _hit_counts([(rid, meta[rid][0], bm, sum(_varints(sz)))
                                   for rid, bm, sz, _ in has if rid in moved], own,
                                  has[0][3] if has else 0)
            if add is None:
                del memos.scored[t]
                continue
            back.append((t, e, moved, add))
            want.update(r[0] for r in add)
        # The added records' lengths in the records' index (text and namespace).
        length: dict[int, int] = {}
        ids = sorted(want)
        for part in chunks(ids):
            marks = ",".join("?" * len(part))
            length.update((i, sum(_varints(sz or b""))) for i, sz in c.execute(
                f"SELECT id, sz FROM records_fts_docsize WHERE id IN ({marks})", part))
        for t, e, moved, add in back:
            rows = [r for r in e.rows if r[0] not in moved]
            if add:
                if any(r[0] not in length for r in add):
                    del memos.scored[t]
                    continue
                rows = sorted(rows + [(rid, ns, tf, length[rid]) for rid, ns, tf, _ in add])
            e.rows = rows
            e.totals = None  # scored again when next used (`_parts`)
            e.upto = len(log)

    def _memo_totals(self) -> tuple[int, int]:
        """The index's totals (`_index_totals`), read once a revision. Call under `_lock`, the
        memos fresh."""
        memos = self._memos
        if memos.totals is None:
            memos.totals = _index_totals(self.conn)
        return memos.totals

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
            # BM25 at tf = 1 as `_sql_candidates` has it, times the term's weight, a part per
            # distinct length (`_scaled`): the average length is the index's, which moves only
            # with the revision.
            avgdl = _avg_length(self._memo_totals())
            postings = []
            for t, w, n in weights:
                e = memo[(namespace, t)]
                postings.append((_scaled(e, w, avgdl), e.pairs[:n]))
        score = summed_by_length(postings)
        # Best first, the newer record first on ties: (score, id) descending.
        return self._with_records(namespace, best_k(score, k))

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
        # A term of one token (nearly all) is held by a record whose tokens have it: asked of
        # the tokens kept per touched record, in Python (a MATCH costs a cursor on the index,
        # ~70 us a term); a term of several tokens is a phrase, asked of the index.
        words = _tokens(self.conn, self._term_tokens, [t for t, _ in behind])
        holds: list[set[int]] = [set() for _ in behind]
        phrases = [i for i, w in enumerate(words) if len(w) != 1]
        if phrases:
            sub = "SELECT ? AS i, rowid FROM memlane_mem.touched WHERE touched MATCH ?"
            args: list[Any] = []
            for i in phrases:
                args += [i, fts5_match([behind[i][0]], ("text",))]
            for i, rid in self.conn.execute(" UNION ALL ".join([sub] * len(phrases)), args):
                holds[i].add(rid)
        for (_, e), has, w in zip(behind, holds, words, strict=True):
            moved = set(log[e.upto:])
            if len(w) == 1:
                has.update(rid for rid in moved if rid in meta and w[0] in meta[rid][2])
            pairs = e.pairs
            # Records newer than the list's newest (a step's new ones) cannot be in it: the
            # list is walked only for the older ones a step updated or deleted.
            top = pairs[0][0] if pairs else -1
            older = {rid for rid in moved if rid <= top}
            kept = _without(pairs, older) if older else pairs
            changed, pairs = kept is not pairs, kept
            reach = None if e.complete else (pairs[-1][0] if pairs else None)
            back = sorted(((rid, meta[rid][1]) for rid in moved & has
                           if meta[rid][0] == namespace
                           and (e.complete or (reach is not None and rid > reach))),
                          reverse=True)
            if back:
                pairs = (back + pairs if not pairs or back[-1][0] > pairs[0][0]
                         else sorted(pairs + back, reverse=True))
            if changed or back:
                e.pairs, e.lengths, e.scaled = pairs, None, None
            e.upto = len(log)

    def _touched_index(self, log: list[int]) -> dict[int, tuple[str, int, Counter[str]]]:
        """`memlane_mem.touched`, an FTS5 index of the current texts of the records in `log`
        (`RowMemos.touched`), brought up to date; returns each indexed record's (namespace,
        words, tokens counted: `_tokenized`). Lives in an in-memory database attached to the
        connection; emptied with the newest postings (`_forget_touched`)."""
        if self._touched_done == 0 and log:
            # In memory, never in a file (SQLite's temporary database may be one): the texts
            # must go when the memos do. The records' index's tokenizer (migration 2): the same
            # words, stemmed the same.
            if not any(r[1] == "memlane_mem" for r in self.conn.execute("PRAGMA database_list")):
                self.conn.execute("ATTACH DATABASE ':memory:' AS memlane_mem")
            self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS memlane_mem.touched"
                              " USING fts5(text, tokenize = 'porter unicode61')")
            # What `_tokenized` writes texts into and reads their tokens back from.
            self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS memlane_mem.words USING"
                              " fts5(text, content = '', tokenize = 'porter unicode61')")
            self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS memlane_mem.words_v USING"
                              " fts5vocab(words, 'instance')")
        fresh = sorted(set(log[self._touched_done:]))
        meta = self._touched_meta
        # One transaction: one new segment of the index, not one per record (each segment
        # is one more b-tree every query of it walks).
        self.conn.execute("BEGIN")
        try:
            self._index_touched(fresh)
        finally:
            self.conn.execute("COMMIT")
        self._touched_done = len(log)
        return meta

    def _index_touched(self, fresh: list[int]) -> None:
        """`fresh`'s current texts into `memlane_mem.touched` (`_touched_index`)."""
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
            tokens = _tokenized(self.conn, [r[2] for r in rows])
            meta.update((r[0], (r[1], r[3], Counter(t))) for r, t in zip(rows, tokens,
                                                                        strict=True))

    def _with_records(self, namespace: str, best: list[tuple[int, float]]
                      ) -> list[tuple[Record, float]]:
        """(record, score) for ranked (id, score) pairs, in their order (one read)."""
        recs = {r.id: r for r in self.records(namespace, [rid for rid, _ in best])}
        return [(recs[rid], s) for rid, s in best if rid in recs]

    def _avgdl(self) -> float:
        """The index's average document length in tokens (both columns, as FTS5's bm25() has
        it), from its totals (`_memo_totals` while the memos are fresh)."""
        with self._lock:
            fresh = self._memos_fresh(self.conn)
            return _avg_length(self._memo_totals() if fresh else _index_totals(self.conn))


TERM_TOKENS = 50_000
"""Query terms whose tokens are kept (`_tokens`); past it the memo starts again."""


def _tokenized(c: sqlite3.Connection, texts: list[str]) -> list[tuple[str, ...]]:
    """Each of `texts` as the records' index tokenizes it (migration 2's tokenizer: the same
    words, stemmed the same), in order: written into a contentless FTS5 table in the
    attached in-memory database and read back from its `fts5vocab` instances, then
    emptied. Call under the store's lock, after `_touched_index` (which makes the tables)."""
    if not texts:
        return []
    c.executemany("INSERT INTO memlane_mem.words (rowid, text) VALUES (?, ?)",
                  enumerate(texts, 1))
    found: list[list[tuple[int, str]]] = [[] for _ in texts]
    for term, doc, offset in c.execute("SELECT term, doc, offset FROM memlane_mem.words_v"):
        found[doc - 1].append((offset, term))
    c.execute("INSERT INTO memlane_mem.words (words) VALUES ('delete-all')")
    return [tuple(term for _, term in sorted(f)) for f in found]


def _tokens(c: sqlite3.Connection, memo: dict[str, tuple[str, ...]], terms: list[str]
            ) -> list[tuple[str, ...]]:
    """Each query term's tokens (`_tokenized`), memoised in `memo` (terms repeat)."""
    todo = list(dict.fromkeys(t for t in terms if t not in memo))
    if todo:
        if len(memo) + len(todo) > TERM_TOKENS:
            memo.clear()
        memo.update(zip(todo, _tokenized(c, todo), strict=True))
    return [memo[t] for t in terms]


def _avg_length(totals: tuple[int, int]) -> float:
    """The average length `(rows, tokens)` give, floored at 1 (8 for an empty index)."""
    rows, tokens = totals
    return max(tokens / rows, 1.0) if rows else 8.0


def _without(pairs: list[tuple[int, int]], ids: set[int]) -> list[tuple[int, int]]:
    """`pairs` (newest first, each id once) without those whose id is in `ids`; `pairs` itself
    when none is. A step touches a few records and a common term's list holds hundreds: each is
    found by bisection then, not by a pass over the list."""
    if len(ids) * 16 > len(pairs):
        out = [p for p in pairs if p[0] not in ids]
        return pairs if len(out) == len(pairs) else out
    at = []
    for rid in ids:
        i = bisect.bisect_left(pairs, -rid, key=_newer_first)
        if i < len(pairs) and pairs[i][0] == rid:
            at.append(i)
    if not at:
        return pairs
    out = list(pairs)
    for i in sorted(at, reverse=True):
        del out[i]
    return out


def _newer_first(p: tuple[int, int]) -> int:
    return -p[0]


def _scaled(e: Newest, w: float, avgdl: float) -> dict[int, float]:
    """What a posting of `e` with each of its lengths adds to a score: the term's weight `w`
    times BM25's length factor at tf = 1 for the average length `avgdl` (as `_sql_candidates`
    computes it), one entry per distinct length (a few dozen), not one per posting; kept with
    `e` while the weight and the average stay (a memory step moves the average: then the
    lengths are scaled again, not the postings). Call under `_lock`."""
    key = (w, avgdl)
    if e.scaled is None or e.scaled_for != key:
        if e.lengths is None:
            e.lengths = {d for _, d in e.pairs}
        e.scaled = {d: w * (2.2 / (1 + 1.2 * (0.25 + 0.75 * d / avgdl))) for d in e.lengths}
        e.scaled_for = key
    return e.scaled


K1 = 1.2
"""FTS5's bm25() constants (ext/fts5/fts5_aux.c, `fts5Bm25Function`): k1 ..."""
B = 0.75
"""... and b."""


def fts5_idf(rows: int, hits: int) -> float:
    """FTS5's IDF of a phrase in `hits` of the index's `rows` rows (`fts5Bm25GetData`): the
    same operations in the same order, on the same doubles; a floor of 1e-6."""
    idf = math.log((rows - hits + 0.5) / (hits + 0.5))
    return 1e-6 if idf <= 0.0 else idf


def bm25_part(idf: float, tf: float, d: int, avgdl: float) -> float:
    """One phrase's share of FTS5's bm25() score, flipped (higher is better): `tf` its
    weighted hits in the row, `d` the row's tokens in all columns, `avgdl` the index's
    tokens over its rows. The C expression's operations in its order (`fts5Bm25Function`:
    `score += idf * ((tf * (k1 + 1.0)) / (tf + k1 * (1 - b + b * D / avgdl)))` from 0.0),
    so Python's doubles give the same bits wherever the C code is compiled as written
    (`bm25_reproduced` checks)."""
    return 0.0 + idf * ((tf * (K1 + 1.0)) / (tf + K1 * (1 - B + B * d / avgdl)))


def _hit_counts(matches: list[tuple[int, str, float, int]], totals: tuple[int, int],
                hits: int) -> list[tuple[int, str, float, int]] | None:
    """`(id, namespace, score, D)` matches as `(id, namespace, tf, D)`: each match's hit count
    read back from its score, for an index of `totals` (rows, tokens) in which the term is
    in `hits` rows; None unless every score is reproduced from it to the bit."""
    if not matches:
        return []
    rows, tokens = totals
    if not rows:
        return None
    idf = fts5_idf(rows, hits)
    avgdl = tokens / rows
    out = []
    tfs: dict[tuple[float, int], float] = {}  # by (score, D): a few dozen distinct
    for rid, ns, s, d in matches:
        tf = tfs.get((s, d))
        if tf is None:
            r = s / idf
            k = K1 * (1 - B + B * d / avgdl)
            tf = float(round(r * k / ((K1 + 1.0) - r))) if r < K1 + 1.0 else 0.0
            if tf < 1.0 or bm25_part(idf, tf, d, avgdl) != s:
                return None
            tfs[(s, d)] = tf
        out.append((rid, ns, tf, d))
    return out


def _parts(e: Scored, namespace: str, totals: tuple[int, int]) -> list[tuple[int, float]]:
    """`e`'s (id, score) pairs in `namespace`, for the index's `totals` (rows, tokens): as
    read, or computed from the hit counts and lengths as FTS5 computes them (`bm25_part`).
    A list not kept has only what was read (for this revision's totals)."""
    if not e.kept:
        return e.parts.get(namespace, [])
    if e.totals != totals:
        e.parts = {}
        e.totals = totals
    got = e.parts.get(namespace)
    if got is None and not e.rows:
        got = e.parts[namespace] = []  # no match left (an index with no rows: no average)
    if got is None:
        rows, tokens = totals
        idf = fts5_idf(rows, len(e.rows))
        avgdl = tokens / rows
        part: dict[tuple[float, int], float] = {}  # one per distinct (tf, D): a few dozen
        got = []
        for rid, ns, tf, d in e.rows:
            if ns == namespace:
                s = part.get((tf, d))
                if s is None:
                    s = part[(tf, d)] = bm25_part(idf, tf, d, avgdl)
                got.append((rid, s))
        e.parts[namespace] = got
    return got


def _varints(blob: bytes) -> list[int]:
    """SQLite's varints (7 bits a byte, the high bit: more), as FTS5 writes its averages and
    sizes (values under 2**56: the ninth byte's form never comes up)."""
    vals: list[int] = []
    v = 0
    for byte in bytes(blob):
        v = (v << 7) | (byte & 0x7F)
        if not byte & 0x80:
            vals.append(v)
            v = 0
    return vals


def _index_totals(c: sqlite3.Connection, table: str = "records_fts_data") -> tuple[int, int]:
    """An FTS5 index's row count and token total in all columns, from its averages record (a
    varint row count, then a varint total per column): FTS5's `xRowCount` and
    `xColumnTotalSize(-1)`, what its bm25() averages lengths by."""
    row = c.execute(f"SELECT block FROM {table} WHERE id = 1").fetchone()
    vals = _varints(row[0]) if row and row[0] else []
    return (vals[0], sum(vals[1:])) if vals else (0, 0)


_REPRODUCED: bool | None = None
"""`bm25_reproduced`'s answer once known: a fact of the SQLite library this process loaded
(no user data; not a memo of a memory's reads)."""


def bm25_reproduced() -> bool:
    """Whether this process's SQLite computes FTS5's bm25() as `bm25_part` does, to the bit
    (checked once, on an in-memory index of varied lengths, hit counts and document counts):
    a build that fused or reordered the C expression's operations would not, and then scored
    lists are never kept through a step (`_read_scored`)."""
    global _REPRODUCED
    if _REPRODUCED is None:
        _REPRODUCED = _bm25_check()
    return _REPRODUCED


def _bm25_check() -> bool:
    import random

    c = sqlite3.connect(":memory:", isolation_level=None)
    try:
        c.execute("CREATE VIRTUAL TABLE t USING fts5(text, namespace)")
        rng = random.Random(22)
        words = "abcdefgh"
        c.execute("BEGIN")  # one segment, not one per row
        c.executemany("INSERT INTO t (text, namespace) VALUES (?, ?)", [
            (" ".join(rng.choices(words, k=rng.randint(1, 40))),
             rng.choice(["a", "b c", "d e f"])) for _ in range(100)])
        c.execute("COMMIT")
        totals = _index_totals(c, "t_data")
        for w in words:
            got = [(rid, "", -float(bm), sum(_varints(sz))) for rid, bm, sz in c.execute(
                "SELECT t.rowid, bm25(t, 1.0, 0.0), d.sz FROM t CROSS JOIN t_docsize d"
                " ON d.id = t.rowid WHERE t MATCH ?", (fts5_match([w], ("text",)),))]
            if not got or _hit_counts(got, totals, len(got)) is None:
                return False
        return True
    except sqlite3.Error:
        return False
    finally:
        c.close()
