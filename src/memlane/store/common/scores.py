"""Scoring memoised postings, for both engines' memo branches: each record's sum over the terms'
(id, part) lists, and the pairs that can be among the k best. SQLite's parts are BM25
against the index's average length, PostgreSQL's against the candidates'; the sum and the cut
are the same, and written once."""

from __future__ import annotations

from collections.abc import Iterable
from operator import itemgetter

_SCORE = itemgetter(1)
_SCORE_THEN_ID = itemgetter(1, 0)


def summed(lists: Iterable[list[tuple[int, float]]]) -> dict[int, float]:
    """Each record's score: the sum of its parts over the terms' (id, part) lists, in order
    (a term's weight is in its parts)."""
    score: dict[int, float] = {}
    get = score.get
    for ps in lists:
        if not score:
            # The first term's list in one comprehension (a record is in a term's list once):
            # `0.0 + part` is what the loop below would add, to the bit.
            score = {rid: 0.0 + part for rid, part in ps}
            get = score.get
            continue
        for rid, part in ps:
            score[rid] = get(rid, 0.0) + part
    return score


def summed_by_length(terms: Iterable[tuple[dict[int, float], list[tuple[int, int]]]]
                     ) -> dict[int, float]:
    """`summed` of the terms' (id, length) lists, each posting's part looked up by its length
    in the term's map (the term's weight times the length's factor, computed once a length,
    not once a posting): the same sums, to the bit, in the same order."""
    score: dict[int, float] = {}
    get = score.get
    for part, ps in terms:
        if not score:
            score = {rid: 0.0 + part[d] for rid, d in ps}
            get = score.get
            continue
        for rid, d in ps:
            score[rid] = get(rid, 0.0) + part[d]
    return score


def contenders(score: dict[int, float], k: int) -> Iterable[tuple[int, float]]:
    """The (id, score) pairs that can be among the `k` best: those scoring at least the k-th
    best score (ties at it included, whichever way ties are then broken). Ranking them, not
    every match, costs a sort of the bare scores (floats, no key function)."""
    if len(score) <= 2 * k:
        return score.items()
    # The k-th best value: a sort of the bare floats (in C) is 3-4x faster than a heap of k
    # over them (heapq.nlargest's loop is Python's), and the same value.
    least = sorted(score.values(), reverse=True)[k - 1]
    return [kv for kv in score.items() if kv[1] >= least]


def best_k(score: dict[int, float], k: int, *, older_first: bool = False
           ) -> list[tuple[int, float]]:
    """The `k` best (id, score) pairs, best first; on equal scores the higher id (the newer
    record: the bounded branches), or with `older_first` the lower (FTS5's own order: the exact
    branch). Sorts of the `contenders` in C: `heapq.nlargest(k, ..., key=(score, id))`, which
    is documented to equal the first, loops in Python (3x slower on the hundred or so
    contenders a search has)."""
    if older_first:
        # By id, then by score: a reverse sort is stable, so equal scores stay in id order.
        return sorted(sorted(contenders(score, k)), key=_SCORE, reverse=True)[:k]
    return sorted(contenders(score, k), key=_SCORE_THEN_ID, reverse=True)[:k]
