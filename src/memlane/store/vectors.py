"""Nearest-neighbour search over a namespace's stored vectors, for the SQLite store.

The vectors live in SQLite (`record_vectors`, `snapshot_vectors`); this module keeps a small
in-process index over them and answers "the k stored vectors closest to q, among rows that pass
these filters".

Why not HNSW (hnswlib / usearch)? Measured on this project's 2-core machine, at 1M x 384 float32:
an exact numpy scan takes ~150-250 ms, too slow; HNSW answers in ~1 ms but takes many minutes to
build, must be persisted beside the database and kept coherent with other processes' writes, and
filtering by kind / thread / time inside a graph walk needs per-node Python callbacks (or
over-fetching that fails for selective filters). What we do instead:

1. **Binary pre-selection.** Each vector is reduced to one bit per dimension (the sign after
   subtracting the namespace's mean vector: embedding models put every vector in a narrow cone,
   and signs taken around the origin would be nearly all equal). 384 dims = 48 bytes a row, held
   as 64-bit words, column by column. A query XORs and popcounts every row: ~6 ms at 1M rows.
2. **Exact filters.** Kind, thread and creation time are kept as arrays beside the bits, so a
   filter is a boolean mask applied before selection, not a guess made after it.
3. **Exact re-ranking.** The `rerank` rows with the smallest Hamming distance (a histogram
   threshold, not a full sort) are re-scored with their float32 vectors read back from SQLite by
   primary key. A namespace with at most `rerank` rows is therefore searched exactly.

Memory: ~70 bytes a row (bits, id, filter columns) instead of 1.5 KB for float32.

Coherence: every vector write stamps the row with a store-wide, ever-growing `seq`. Before each
query the index asks SQLite for the namespace's `MAX(seq)` (one index probe) and loads only newer
rows, so writes by other processes are picked up. Deleted rows are not tracked eagerly: the caller
re-checks candidates against the live tables and reports ids that are gone (`discard`).

Without numpy, `exact_scan` does the same job in pure Python (fine for small namespaces).
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

try:  # numpy comes with the `embed` extra; lexical search never needs it
    import numpy as np
except ImportError:  # pragma: no cover - exercised only without the extra
    np = None  # type: ignore[assignment]

HAVE_NUMPY = np is not None

# Rows loaded from SQLite per batch when (re)building an index: bounds peak memory while loading.
LOAD_BATCH = 50_000


@dataclass(frozen=True)
class VecFilter:
    """Which rows a vector query may return (None: no constraint)."""

    kinds: tuple[str, ...] | None = None
    thread_id: str | None = None
    since: float | None = None
    until: float | None = None

    def empty(self) -> bool:
        return self.kinds is None and self.thread_id is None and self.since is None \
            and self.until is None


class NamespaceIndex:
    """Binary codes + filter columns of one (table, namespace, model)."""

    def __init__(self, dim: int) -> None:
        assert np is not None
        self.dim = dim
        self.words = (dim + 63) // 64
        self.seq = 0
        self.n = 0
        cap = 1024
        self.ids = np.zeros(cap, dtype=np.int64)
        self.cols = [np.zeros(cap, dtype=np.uint64) for _ in range(self.words)]
        self.kind = np.zeros(cap, dtype=np.int32)
        self.thread = np.zeros(cap, dtype=np.int32)
        self.created = np.zeros(cap, dtype=np.float64)
        self.alive = np.zeros(cap, dtype=bool)
        self.pos: dict[int, int] = {}
        self.kind_codes: dict[str | None, int] = {}
        self.thread_codes: dict[str | None, int] = {}
        self.mean: Any = None
        self.lock = threading.Lock()

    # building --------------------------------------------------------------------------------
    def _grow(self, need: int) -> None:
        cap = len(self.ids)
        if need <= cap:
            return
        new = max(need, cap * 2)

        def g(a: Any) -> Any:
            b = np.zeros(new, dtype=a.dtype)
            b[: self.n] = a[: self.n]
            return b

        self.ids, self.kind, self.thread = g(self.ids), g(self.kind), g(self.thread)
        self.created, self.alive = g(self.created), g(self.alive)
        self.cols = [g(c) for c in self.cols]

    def _code(self, table: dict[str | None, int], value: str | None) -> int:
        c = table.get(value)
        if c is None:
            c = table[value] = len(table)
        return c

    def add(self, rows: Sequence[tuple[int, bytes, int, str | None, str | None, float]]) -> None:
        """Add or replace rows `(id, float32 blob, seq, kind, thread_id, created)`."""
        if not rows:
            return
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows),
                                                                               self.dim)
        if self.mean is None:
            # The first load fixes the centre; later rows reuse it so old codes stay valid.
            self.mean = mat.mean(axis=0) if len(rows) >= 50 else np.zeros(self.dim, np.float32)
        bits = self._bits(mat)
        idx = np.empty(len(rows), dtype=np.int64)
        for i, r in enumerate(rows):
            p = self.pos.get(r[0])
            if p is None:
                p = self.n
                self._grow(p + 1)
                self.pos[r[0]] = p
                self.n += 1
            idx[i] = p
            self.ids[p] = r[0]
            self.kind[p] = self._code(self.kind_codes, r[3])
            self.thread[p] = self._code(self.thread_codes, r[4])
            self.created[p] = r[5]
            self.seq = max(self.seq, r[2])
        for w in range(self.words):
            self.cols[w][idx] = bits[:, w]
        self.alive[idx] = True

    def _bits(self, mat: Any) -> Any:
        signs = (mat - self.mean) > 0
        packed = np.packbits(signs, axis=1, bitorder="little")
        pad = self.words * 8 - packed.shape[1]
        if pad:
            packed = np.pad(packed, ((0, 0), (0, pad)))
        return packed.view(np.uint64).reshape(len(mat), self.words)

    def discard(self, ids: Iterable[int]) -> None:
        for i in ids:
            p = self.pos.get(int(i))
            if p is not None:
                self.alive[p] = False

    # querying --------------------------------------------------------------------------------
    def mask(self, f: VecFilter) -> Any:
        m = self.alive[: self.n].copy()
        if f.kinds is not None:
            codes = [self.kind_codes[k] for k in f.kinds if k in self.kind_codes]
            m &= np.isin(self.kind[: self.n], codes)
        if f.thread_id is not None:
            c = self.thread_codes.get(f.thread_id, -1)
            m &= self.thread[: self.n] == c
        if f.since is not None:
            m &= self.created[: self.n] >= f.since
        if f.until is not None:
            m &= self.created[: self.n] <= f.until
        return m

    def preselect(self, q: Sequence[float], f: VecFilter, rerank: int) -> list[int]:
        """Ids of up to about `rerank` rows nearest to `q` in Hamming distance."""
        n = self.n
        if n == 0:
            return []
        m = self.mask(f)
        alive = int(m.sum())
        if alive <= rerank:
            return [int(i) for i in self.ids[:n][m]]
        qv = np.asarray(q, dtype=np.float32).reshape(1, self.dim)
        qb = self._bits(qv)[0]
        # Distances fit in uint16 (dim <= 65535); accumulate word by word to avoid n x words temps.
        dist = np.zeros(n, dtype=np.uint16)
        buf = np.empty(n, dtype=np.uint64)
        for w in range(self.words):
            np.bitwise_xor(self.cols[w][:n], qb[w], out=buf)
            dist += _popcount(buf)
        dist[~m] = np.iinfo(np.uint16).max
        # Threshold from a histogram of distances: O(n), no sort of the whole array.
        hist = np.bincount(dist[m], minlength=self.dim + 1)
        cum = np.cumsum(hist)
        thr = int(np.searchsorted(cum, rerank))
        pick = np.flatnonzero(dist <= thr)
        if len(pick) > 2 * rerank:  # many ties at the threshold: keep the closest `rerank`
            pick = pick[np.argpartition(dist[pick], rerank)[:rerank]]
        return [int(i) for i in self.ids[pick]]


_LUT: Any = None


def _popcount(words: Any) -> Any:
    """Set bits per uint64 (numpy >= 2 has it built in; older numpy uses a byte table)."""
    global _LUT
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words)
    if _LUT is None:
        _LUT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
    return _LUT[words.view(np.uint8)].reshape(-1, 8).sum(axis=1, dtype=np.uint16)


Loader = Callable[[int], Iterable[tuple[int, bytes, int, str | None, str | None, float]]]


class VectorIndexes:
    """All namespace indexes of one store, least recently used evicted past `max_indexes`."""

    def __init__(self, max_indexes: int = 64) -> None:
        self.max_indexes = max_indexes
        self._items: OrderedDict[tuple[str, str, str], NamespaceIndex] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def available() -> bool:
        return HAVE_NUMPY

    def get(self, key: tuple[str, str, str], dim: int, latest_seq: int,
            load: Loader) -> NamespaceIndex:
        """The index for `key` (table, namespace, model), refreshed up to `latest_seq`.
        `load(after_seq)` yields rows with a larger seq."""
        with self._lock:
            ix = self._items.get(key)
            if ix is None or ix.dim != dim:
                ix = NamespaceIndex(dim)
                self._items[key] = ix
            self._items.move_to_end(key)
            while len(self._items) > self.max_indexes:
                self._items.popitem(last=False)
        with ix.lock:
            if latest_seq > ix.seq:
                batch: list[tuple[int, bytes, int, str | None, str | None, float]] = []
                for row in load(ix.seq):
                    if len(row[1]) != 4 * dim:
                        continue  # a vector of another size: skipped, re-embed to fix
                    batch.append(row)
                    if len(batch) >= LOAD_BATCH:
                        ix.add(batch)
                        batch = []
                ix.add(batch)
                ix.seq = max(ix.seq, latest_seq)
        return ix

    def drop(self, table: str | None = None, namespace: str | None = None) -> None:
        """Forget cached indexes (all, or of one table / namespace)."""
        with self._lock:
            for key in list(self._items):
                if (table is None or key[0] == table) and \
                        (namespace is None or key[1] == namespace):
                    del self._items[key]


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    return math.fsum(x * y for x, y in zip(a, b, strict=True))
