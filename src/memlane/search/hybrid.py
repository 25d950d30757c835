"""Hybrid search over long-term records (and recall snapshots): BM25 + vectors, fused by rank.

    hits = search(store, "alice", "when is the dentist appointment?", k=5, embedder=e)

Two candidate lists are drawn from the store, both scoped to the namespace and to the filters:
lexical (FTS5 / full-text BM25) and, when an embedder is configured, vector similarity. They are
merged by reciprocal rank fusion (Cormack et al., 2009): each candidate scores
`sum(1 / (RRF_K + rank))` over the lists it appears in. RRF needs no score calibration between
BM25 and cosine (their scales have nothing in common) and is robust when one list is weak.

Without an embedder the result is the lexical list as it is. Either way each hit's `score` is
its relevance from 0 to 1 (`relevance`: the share of the query's words it holds, its cosine
placed in the embedder's band, or both combined), and a vector-only candidate no closer than an
unrelated text is not returned: a query about nothing the memory holds finds nothing.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import UsageError
from ..store.protocol import SearchFilters, Snapshot, Store, snapshot_text
from ..types import Record
from . import relevance
from .embed import Embedder, embed_query
from .relevance import FLOOR, WEAK

RRF_K = 60
"""The rank constant of reciprocal rank fusion; 60 is the value of the original paper."""

POOL = 50
"""Candidates drawn from each list before fusion."""

MAX_K = 100

_T = TypeVar("_T")


class SearchWorkers:
    """The worker threads the vector half of a hybrid search runs on while the calling thread
    does the lexical half (SQLite and numpy both release the GIL). Owned by one `Memory` (and
    shared by its `namespace()` views), shut down by its `close()`: no thread outlives the
    memory that started it. Started on first use; a forked child starts its own (the parent's
    worker threads do not exist there)."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._pool: tuple[int, ThreadPoolExecutor] | None = None  # (the pid that made it, pool)
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., _T], *args: Any, **kwargs: Any) -> Future[_T] | None:
        """`fn` started on a worker, or None once closed (the caller then runs it itself)."""
        pid = os.getpid()
        with self._lock:
            if self._closed:
                return None
            if self._pool is None or self._pool[0] != pid:
                self._pool = (pid, ThreadPoolExecutor(max_workers=self.size,
                                                      thread_name_prefix="memlane-search"))
            return self._pool[1].submit(fn, *args, **kwargs)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None and pool[0] == os.getpid():
            pool[1].shutdown(wait=True)


@dataclass(frozen=True)
class Hit:
    """One search result."""

    record: Record
    score: float
    """Relevance from 0.01 to 1, the same scale in lexical, vector and hybrid search
    (`memlane.search.relevance`): 1.0 holds every word of the query, or is as close as the
    embedder puts a paraphrase. Results are ordered by the search's ranking, not by this."""
    lexical_rank: int | None = None
    """1-based rank in the lexical list (None: not in it)."""
    vector_rank: int | None = None
    """1-based rank in the vector list (None: not in it, or no embedder)."""

    @property
    def weak(self) -> bool:
        """Scores under `relevance.WEAK`: shares little with the query."""
        return self.score < WEAK


_new = object.__new__


def make_hit(record: Record, score: float, lexical_rank: int | None = None,
             vector_rank: int | None = None) -> Hit:
    """`Hit(...)` built without the frozen `__init__` (as `types.make_message`): every turn's
    notes search makes a few dozen, and `object.__setattr__` per field was a sixth of it.
    tests/test_types.py checks it against the dataclass constructor."""
    h = _new(Hit)
    d = h.__dict__
    d["record"] = record
    d["score"] = score
    d["lexical_rank"] = lexical_rank
    d["vector_rank"] = vector_rank
    return h


@dataclass(frozen=True)
class SnapshotHit:
    """One recall result."""

    snapshot: Snapshot
    score: float
    """Relevance from 0.01 to 1, as `Hit.score`."""
    lexical_rank: int | None = None
    """1-based rank in the lexical list (None: not in it)."""
    vector_rank: int | None = None
    """1-based rank in the vector list (None: not in it, or no embedder)."""


def fuse(lists: Sequence[Sequence[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Reciprocal rank fusion of ranked id lists: `(id, score)`, best first (ties: the order of
    first appearance, so the lexical list wins ties when it is passed first)."""
    scores: dict[int, float] = {}
    for ids in lists:
        for rank, i in enumerate(ids, 1):
            scores[i] = scores.get(i, 0.0) + 1.0 / (k + rank)
    order = {i: n for n, i in enumerate(dict.fromkeys(i for ids in lists for i in ids))}
    return sorted(scores.items(), key=lambda x: (-x[1], order[x[0]]))


def _check(query: str, k: int) -> None:
    if not isinstance(query, str):
        raise UsageError(f"query must be a string, got {type(query).__name__}")
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
        raise UsageError(f"k must be an integer from 1 to {MAX_K}, got {k!r}")


def search(
    store: Store,
    namespace: str,
    query: str,
    k: int = 5,
    *,
    embedder: Embedder | None = None,
    kinds: Sequence[str] | None = None,
    thread_id: str | None = None,
    since: float | None = None,
    until: float | None = None,
    pool: int = POOL,
    workers: SearchWorkers | None = None,
    sources: int | None = None,
    counts: Mapping[str, int] | None = None,
) -> list[Hit]:
    """The `k` records of `namespace` that best match `query`, best first. `workers`: where the
    vector half may run beside the lexical half, when the store allows it (without: one after
    the other). `sources`: each record carries at most this many of its source ids, the lowest
    (`Store.records`; None: all). `counts`: as `Store.search_records`'."""
    _check(query, k)
    kinds_t = tuple(kinds) if kinds is not None else None
    pool = max(pool, k)
    stems = relevance.query_stems(query)
    if embedder is None or not query.strip():
        ranked = _lexical(store, namespace, query, k, kinds_t, thread_id, since, until,
                          sources, counts)
        hit, lex = make_hit, relevance.lexical
        return [hit(r, lex(stems, r.text), n) for n, r in enumerate(ranked, 1)]
    qvec = embed_query(embedder, query)
    vargs = (namespace, qvec, pool, SearchFilters(kinds_t, thread_id, since, until))
    fut = None
    if workers is not None and store.capabilities.parallel_search:
        # The two halves at once: the vector half on a worker, the lexical one here.
        fut = workers.submit(store.vector_candidates, *vargs, model=embedder.name)
    if fut is not None:
        try:
            lexical = store.search_records(namespace, query, pool, kinds_t, thread_id, since,
                                           until, sources=sources, counts=counts)
        finally:
            vec = fut.result()
    else:
        lexical = store.search_records(namespace, query, pool, kinds_t, thread_id, since, until,
                                       sources=sources, counts=counts)
        vec = store.vector_candidates(*vargs, model=embedder.name)
    by_id = {r.id: r for r, _ in lexical}
    scored = _fused(stems, {r.id: r.text for r, _ in lexical}, vec, relevance.band_of(embedder),
                    k)
    need = [i for i, _, _, _ in scored if i not in by_id]
    if need:
        by_id.update({r.id: r for r in store.records(namespace, need, sources=sources)})
    # A record deleted between the two reads is simply left out.
    return [make_hit(by_id[i], s, lr, vr) for i, s, lr, vr in scored if i in by_id]


def search_records(store: Store, namespace: str, query: str, k: int, *,
                   embedder: Embedder | None = None, workers: SearchWorkers | None = None,
                   sources: int | None = None, counts: Mapping[str, int] | None = None
                   ) -> list[Record]:
    """The records `search` returns, in its order, without their relevance: what the read
    path's notes take (`Memory._found`). Lexical only, that relevance is a score no ranking
    uses (it splits and stems every hit's text), so it is not made; hybrid, it decides which
    vector candidates pass `FLOOR`, so the search runs whole."""
    if embedder is not None and query.strip():
        return [h.record for h in search(store, namespace, query, k, embedder=embedder,
                                         workers=workers, sources=sources, counts=counts)]
    _check(query, k)
    return _lexical(store, namespace, query, k, None, None, None, None, sources, counts)


def _lexical(store: Store, namespace: str, query: str, k: int, kinds: tuple[str, ...] | None,
             thread_id: str | None, since: float | None, until: float | None,
             sources: int | None, counts: Mapping[str, int] | None = None) -> list[Record]:
    """The lexical list's first `k` records, best first, ties to the newest (a lexical-only
    search's ranking)."""
    # The pool is for fusion; the first k of a longer list are the k best (ties keep the
    # index's order either way), so only k are read, with their sources.
    ranked = store.search_records(namespace, query, k, kinds, thread_id, since, until,
                                  sources=sources, counts=counts)[:k]
    # Equal scores (common in a small namespace, where BM25 barely tells records apart): the
    # newest record first (ids grow with time), whatever order the index gave. A list already
    # best first with no two scores equal (the bounded search's, mostly) is in that order as
    # it is: not sorted again, a key built per hit.
    scores = [s for _, s in ranked]
    if len(set(scores)) < len(scores) or scores != sorted(scores, reverse=True):
        ranked = sorted(ranked, key=lambda h: (-h[1], -h[0].id))
    return [r for r, _ in ranked]


def _fused(stems: list[str], lexical: dict[int, str], vec: Sequence[tuple[int, float]],
           band: tuple[float, float], k: int
           ) -> list[tuple[int, float, int | None, int | None]]:
    """The fused ranking's first `k` candidates that reach `FLOOR`, as (id, relevance, lexical
    rank, vector rank): `lexical` the lexical list's texts by id, in its order; `vec` the
    vector list's (id, cosine), best first."""
    lex_rank = {i: n for n, i in enumerate(lexical, 1)}
    vec_rank = {i: n for n, (i, _) in enumerate(vec, 1)}
    cos = dict(vec)
    out: list[tuple[int, float, int | None, int | None]] = []
    for i, _ in fuse([list(lexical), [i for i, _ in vec]]):
        lex = relevance.lexical(stems, lexical[i]) if i in lexical else 0.0
        score = relevance.combine(lex, relevance.vector(cos[i], band) if i in cos else 0.0)
        if score >= FLOOR:
            out.append((i, score, lex_rank.get(i), vec_rank.get(i)))
            if len(out) == k:
                break
    return out


def search_snapshots(
    store: Store,
    namespace: str,
    query: str,
    k: int = 3,
    *,
    embedder: Embedder | None = None,
    pool: int = POOL,
) -> list[SnapshotHit]:
    """Recall: past tool results of `namespace` that match `query` (semantic when an embedder
    is configured, fused with BM25; lexical otherwise)."""
    _check(query, k)
    pool = max(pool, k)
    stems = relevance.query_stems(query)
    lexical = store.search_snapshots(namespace, query, pool)
    if embedder is None or not query.strip():
        return [SnapshotHit(s, relevance.lexical(stems, _snap_text(s)), lexical_rank=n)
                for n, (s, _) in enumerate(lexical[:k], 1)]
    qvec = embed_query(embedder, query)
    vec = store.vector_candidates(namespace, qvec, pool, None, model=embedder.name,
                                  target="snapshots")
    by_id = {s.id: s for s, _ in lexical}
    scored = _fused(stems, {s.id: _snap_text(s) for s, _ in lexical}, vec,
                    relevance.band_of(embedder), k)
    need = [i for i, _, _, _ in scored if i not in by_id]
    if need:
        by_id.update({s.id: s for s in store.snapshots(namespace, need)})
    return [SnapshotHit(by_id[i], s, lr, vr) for i, s, lr, vr in scored if i in by_id]


def _snap_text(s: Snapshot) -> str:
    """The text a snapshot's lexical relevance counts words in (what its index holds)."""
    return snapshot_text(s.tool, s.args, s.result)
