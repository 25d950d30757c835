"""Lexical search (the bounded top-k), vectors and snapshots: the checks and plan both engines
share; each engine's `_`-methods do the SQL."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ...types import Record
from ..fts import query_terms
from ..protocol import (
    BOUNDED,
    SearchBounds,
    SearchFilters,
    Snapshot,
    chunks,
    snapshot_text,
)
from .core import CommonCore
from .plan import batched_df, bm25_idf, lexical_plan
from .rows import (
    SNAP_COLS,
    VecTable,
    args_json,
    snapshot_row,
    vec_table,
)

_ALL = 2**31 - 1
"""Counts and reads with no bound (the exhaustive search)."""


class CommonSearch(CommonCore):
    """Search, vectors and snapshots."""

    # search, vectors and snapshots -------------------------------------------------------------
    # The public methods check their arguments once; the engines' `_`-methods do the SQL.
    def search_records(
        self, namespace: str, query: str, k: int, kinds: Sequence[str] | None = None,
        thread_id: str | None = None, since: float | None = None, until: float | None = None,
        *, sources: int | None = None, counts: Mapping[str, int] | None = None,
    ) -> list[tuple[Record, float]]:
        terms = query_terms(query)
        if k <= 0 or not terms:
            return []
        filters = SearchFilters(tuple(kinds) if kinds is not None else None, thread_id, since,
                                until)
        bounds = self.search_bounds
        if bounds is None:
            return self._exact_search(namespace, terms, k, filters, _ALL, self._index_size(),
                                      sources)
        return self._bounded_search(namespace, terms, k, filters, bounds, sources, counts)

    def _exact_search(self, namespace: str, terms: list[str], k: int, f: SearchFilters,
                      reads: int, size: float, sources: int | None = None,
                      counted: dict[str, float] | None = None) -> list[tuple[Record, float]]:
        """Every record of `namespace` holding one of `terms` (at most `reads` postings each),
        ranked as the bounded search ranks its candidates (`_scored_candidates`: BM25 at tf = 1),
        so that both engines rank alike: FTS5's bm25() and PostgreSQL's ts_rank (no IDF)
        ordered a query sharing common words with many records differently. The terms are
        counted afresh (one statement, each count bounded by `reads`): a memoised count may lag
        the index, and a memory that keeps its read cache must rank as a fresh one does.
        `sources`: as `search_records`'; `counted`: the terms' counts when the caller has
        just read them, none of them cut short (they are then what a count up to `reads` is)."""
        df = counted if counted is not None else dict(
            zip(terms, map(float, self._term_counts(terms, reads)), strict=True))
        kept = [t for t in terms if df[t] > 0]
        if not kept:
            return []
        weights = [(t, bm25_idf(max(size, df[t]), df[t]), reads) for t in kept]
        return self._scored_candidates(namespace, weights, k, f, sources)

    search_bounds: SearchBounds | None = BOUNDED
    """The work one lexical search may do (`SearchBounds`); None: rank every match, exactly
    (what `benchmarks/bench_search_reach.py` compares the bounds with)."""

    def _bounded_search(self, namespace: str, terms: list[str], k: int, f: SearchFilters,
                        b: SearchBounds, sources: int | None = None,
                        counts: Mapping[str, int] | None = None
                        ) -> list[tuple[Record, float]]:
        """`search_records` within `b` (see `SearchBounds`): at most `b.max_terms` postings lists
        are read, about `b.exact_postings` entries in all (each rare term's `b.per_term` at
        most, each common one's share), whatever the index holds."""
        # Which terms are rarest needs every term's frequency: the database counts them, each
        # up to `b.count_cap`, but for those the caller counted at this revision (`counts`).
        given = counts or {}
        missing = [t for t in terms if t not in given]
        size, got = (self._size_and_counts(missing, b.count_cap) if missing
                     else (self._index_size(), []))
        df = {t: float(given[t]) for t in terms if t in given}
        df.update(zip(missing, map(float, got), strict=True))
        # The rarest terms that match anything, in query order among equals (sorted is stable).
        kept = sorted((t for t in terms if df[t] > 0), key=lambda t: df[t])[:b.max_terms]
        if not kept:
            return []
        if sum(df[t] for t in kept) <= b.exact_postings:
            # Few matches in all: every one is ranked, at about the cost of the bounded read
            # below.
            # The counts just read are exact (none reached `count_cap`): not read again.
            whole = all(df[t] < b.count_cap for t in kept)
            return self._exact_search(namespace, kept, k, f, b.exact_postings + 1, size,
                                      sources, df if whole else None)
        # A rare term's postings are read whole; the common ones share what is left of
        # `exact_postings`, newest first, at least `common_take` each (a short question's few
        # common words each reach further back than a long one's).
        common = [t for t in kept if df[t] > b.per_term]
        left = b.exact_postings - sum(df[t] for t in kept if df[t] <= b.per_term)
        take = max(b.common_take, int(left // max(len(common), 1)))
        weights = [(t, bm25_idf(max(size, df[t]), df[t]),
                    b.per_term if df[t] <= b.per_term else take) for t in kept]
        return self._scored_candidates(namespace, weights, k, f, sources)

    def _size_and_counts(self, terms: list[str], cap: int) -> tuple[float, list[int]]:
        """`_index_size()` and `_term_counts(terms, cap)` (an engine with round trips reads
        both in one statement)."""
        return self._index_size(), self._term_counts(terms, cap)

    def _index_size(self) -> float:
        """How many records the lexical index holds, store-wide (an estimate is enough: it
        weighs terms); read on every bounded search, so it must be one cheap lookup."""
        raise NotImplementedError

    def _scored_candidates(self, namespace: str, weights: list[tuple[str, float, int]],
                           k: int, f: SearchFilters, sources: int | None = None
                           ) -> list[tuple[Record, float]]:
        """One statement: for each `(term, weight, n)`, the newest (at most `n`) records of
        `namespace` passing `f` that hold the term; each candidate scores the sum of the weights
        of the terms it was found by; the `k` best, newest first on ties. `sources`: as
        `search_records`'s."""
        raise NotImplementedError

    def term_counts(self, terms: Sequence[str], cap: int) -> list[int]:
        if not terms:
            return []
        return self._term_counts(list(terms), max(int(cap), 0))

    def selective_query(self, namespace: str, query: str, docs: int) -> str:
        """`query` cut to its selective terms when `namespace` holds more than `docs` records
        (else as given): the terms in fewer than `docs` records, rarest first, up to about
        `docs` matches in all (`lexical_plan` with `docs` as its bounds; one statement counts
        the terms). A query whose terms are all rare, or all common, is kept whole."""
        if self.records(namespace, limit=1, offset=docs):
            terms = query_terms(query)
            plan = lexical_plan(
                terms, 0.0, batched_df(terms, lambda ts: self.term_counts(
                    ts, docs)), large=0, common=docs, budget=docs)
            if plan and len(plan) < len(terms):
                query = " ".join(plan)
        return query

    def _term_counts(self, terms: list[str], cap: int) -> list[int]:
        raise NotImplementedError

    def search_snapshots(self, namespace: str, query: str, k: int
                         ) -> list[tuple[Snapshot, float]]:
        terms = query_terms(query)
        if k <= 0 or not terms:
            return []
        return self._search_snapshots(namespace, terms, k)

    def _search_snapshots(self, namespace: str, terms: list[str], k: int
                          ) -> list[tuple[Snapshot, float]]:
        raise NotImplementedError

    def put_vectors(
        self, namespace: str, items: Sequence[tuple[int, Sequence[float]]], model: str,
        target: str = "records",
    ) -> int:
        t = vec_table(target)
        return self._put_vectors(namespace, t, items, model) if items else 0

    def _put_vectors(self, namespace: str, t: VecTable,
                     items: Sequence[tuple[int, Sequence[float]]], model: str) -> int:
        raise NotImplementedError

    def vector_candidates(
        self, namespace: str, qvec: Sequence[float], k: int,
        filters: SearchFilters | None = None, model: str = "", target: str = "records",
    ) -> list[tuple[int, float]]:
        t = vec_table(target)
        if k <= 0 or not qvec:
            return []
        return self._vector_candidates(namespace, t, qvec, k, filters or SearchFilters(), model)

    def _vector_candidates(self, namespace: str, t: VecTable, qvec: Sequence[float], k: int,
                           f: SearchFilters, model: str) -> list[tuple[int, float]]:
        raise NotImplementedError

    def save_snapshot(
        self, namespace: str, tool: str, args: Mapping[str, Any], result: str, tokens: int,
        thread_id: str | None = None, now: float | None = None,
    ) -> tuple[Snapshot, bool]:
        now = time.time() if now is None else now
        digest = hashlib.sha256(result.encode("utf-8")).hexdigest()
        return self._save_snapshot(namespace, (tool, args_json(args), result, digest, now,
                                               tokens), thread_id)

    def _save_snapshot(self, namespace: str, values: tuple[Any, ...], thread_id: str | None
                       ) -> tuple[Snapshot, bool]:
        """Insert `values` (tool, args, result, result_hash, created, tokens) unless the
        namespace holds that result_hash already; (the snapshot, whether it is new)."""
        raise NotImplementedError

    def missing_vectors(
        self, namespace: str, model: str, target: str = "records", limit: int = 1000
    ) -> list[tuple[int, str]]:
        t = vec_table(target)
        text = "o.text" if target == "records" else "o.tool, o.args, o.result"
        rows = self._read(
            f"SELECT o.id, {text} FROM {t.owner} o WHERE o.namespace = ? AND NOT EXISTS"
            f" (SELECT 1 FROM {t.table} v WHERE v.namespace = o.namespace AND v.{t.id} = o.id"
            " AND v.model = ?) ORDER BY o.id LIMIT ?",
            (namespace, model, limit),
        )
        if target == "records":
            return [(r[0], r[1]) for r in rows]
        return [(r[0], snapshot_text(r[1], json.loads(r[2]), r[3])) for r in rows]

    def snapshots(
        self, namespace: str, ids: Sequence[int] | None = None, limit: int = 1000,
        offset: int = 0,
    ) -> list[Snapshot]:
        if ids is None:
            return [snapshot_row(r) for r in self._read(
                f"SELECT {SNAP_COLS} FROM snapshots WHERE namespace = ?"
                " ORDER BY id LIMIT ? OFFSET ?", (namespace, limit, offset))]
        out: list[Snapshot] = []
        for part in chunks([int(i) for i in ids]):
            marks = ",".join("?" * len(part))
            out.extend(snapshot_row(r) for r in self._read(
                f"SELECT {SNAP_COLS} FROM snapshots WHERE namespace = ? AND id IN ({marks})",
                (namespace, *part)))
        return sorted(out, key=lambda s: s.id)
