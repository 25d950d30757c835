"""Search planning both engines follow: BM25's IDF and its score at tf 1, the lexical plan on a
large index."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ...text import BM25_B, BM25_K1

# Lexical search on large indexes (see `lexical_plan`).
LARGE_INDEX = 100_000
"""Below this many indexed records every query term retrieves (exact ranking over the query)."""
COMMON_DF = 2_000
"""A term in at least this many documents is common: it does not retrieve on a large index."""
DOC_BUDGET = 10_000
"""At most about this many documents are scored per query on a large index."""


def bm25_tf1(w: str, d: str, avg: str) -> str:
    """BM25 of a term found once in a record, as an SQL expression both engines' bounded
    search sums (`_scored_candidates`): the term's IDF `w` times (k1 + 1) / (1 + k1 (1 - b +
    b d / avg)), `d` the record's length and `avg` the candidates' average length."""
    return (f"{w} * {BM25_K1 + 1} / (1 + {BM25_K1} * ({1 - BM25_B} + {BM25_B} * {d}"
            f" / {avg}))")


def bm25_idf(n: float, df: float) -> float:
    """BM25's IDF as FTS5's bm25() computes it (never below 1e-6)."""
    return max(math.log((n - df + 0.5) / (df + 0.5)), 1e-6)


def lexical_plan(terms: Sequence[str], indexed: float, df: Callable[[str], int], *,
                 large: float | None = None, common: int | None = None,
                 budget: int | None = None) -> list[str] | None:
    """On a large index, the terms worth retrieving by (None: use every term, the plain query).

    Ranking costs a few microseconds per matching document, and a term found in 3% of a million
    records matches 30,000 of them: a query with a few such terms takes hundreds of
    milliseconds. As Lucene's "common terms" query does, terms in `COMMON_DF` documents or more
    then do not retrieve when rarer terms are present (their IDF is low, so they move the
    ranking little), and the rarer ones retrieve up to about `DOC_BUDGET` documents. Returns the
    selective terms, rarest first (all of them when none is common: the caller may then drop
    costly narrowing, as SQLite drops its namespace MATCH); an empty list means "AND of all
    terms" (a query made only of common terms). A caller whose planned query finds nothing falls
    back to the plain query, unless the plan was every term (the same query).

    `indexed`: how many records the index holds (store-wide); `df(term)`: how many documents
    hold the term, counted up to `COMMON_DF` (the cost is bounded however common the term;
    `batched_df` makes one round trip of all the terms' counts). `large`, `common` and `budget`
    replace `LARGE_INDEX`, `COMMON_DF` and `DOC_BUDGET` (read when called) for a caller with
    its own bounds (`selective_query`).
    """
    large = LARGE_INDEX if large is None else large
    common = COMMON_DF if common is None else common
    budget = DOC_BUDGET if budget is None else budget
    if indexed < large:
        return None
    dfs = sorted((df(t), t) for t in terms)
    selective: list[str] = []
    total = 0
    for n, t in dfs:
        if n >= common or (selective and total + n > budget):
            break
        selective.append(t)
        total += n
    return selective


def batched_df(terms: Sequence[str], counts: Callable[[list[str]], list[int]]
               ) -> Callable[[str], int]:
    """A `df(term)` for `lexical_plan` that counts every term of `terms` in one call of
    `counts` (a store's bounded counts, one statement), on first use only: a small index makes
    no plan and counts nothing."""
    got: dict[str, int] = {}

    def df(term: str) -> int:
        if not got:
            got.update(zip(terms, counts(list(terms)), strict=True))
        return got[term]

    return df
