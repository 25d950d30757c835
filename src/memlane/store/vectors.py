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
   as 64-bit words, column by column. A query XORs and popcounts every row, in blocks of
   `CHUNK` rows that stay in the CPU cache: ~7 ms at 1M rows on this machine. Without a filter
   (and with no row discarded) no mask is built at all.
2. **Exact filters.** Kind, thread and creation time are kept as arrays beside the bits, so a
   filter is a boolean mask applied before selection, not a guess made after it.
3. **Exact re-ranking.** The `rerank` rows with the smallest Hamming distance (a histogram
   threshold, not a full sort) are re-scored with their float32 vectors read back from SQLite by
   primary key (~2.5 ms for 400 rows at 1M). A namespace with at most `rerank` rows is
   therefore searched exactly.

Memory: ~90 bytes a row (bits 48, id 8, filter columns 17, id -> position map 16), ~90 MB at 1M
rows, instead of 1.5 KB for float32. The re-rank vectors are deliberately not held in memory:
even int8 would add 384 bytes a row (384 MB at 1M x 384) to save ~2 ms a query.

Coherence: every vector write stamps the row with a store-wide, ever-growing `seq`. Before each
query the index asks SQLite for the namespace's `MAX(seq)` (one index probe) and loads only newer
rows, so writes by other processes are picked up. Deleted rows are not tracked eagerly: the caller
re-checks candidates against the live tables and reports ids that are gone (`discard`).

Without numpy, the store scans exactly in pure Python (fine for small namespaces).
"""

from __future__ import annotations

import math
import sys
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import StoreError

try:  # numpy comes with the `embed` extra; lexical search never needs it
    import numpy

    np = numpy  # the engines' vector search takes numpy from here (None without the extra)
except ImportError:  # pragma: no cover - exercised only without the extra
    np = None  # type: ignore[assignment]

HAVE_NUMPY = np is not None

_BIG_ENDIAN = sys.byteorder == "big"


def pack(vec: Sequence[float]) -> bytes:
    """A vector as float32 little-endian bytes, for a SQLite blob (4 bytes per component)."""
    arr = array("f", vec)
    if _BIG_ENDIAN:  # the stored format is fixed so a database file moves between machines
        arr.byteswap()
    return arr.tobytes()


def unpack(blob: bytes) -> list[float]:
    """The vector `pack` wrote."""
    if len(blob) % 4:
        raise StoreError(
            f"a stored vector has {len(blob)} bytes, not a multiple of 4: the blob is corrupt; "
            "re-embed the records (drop their vectors and index again)"
        )
    arr = array("f")
    arr.frombytes(blob)
    if _BIG_ENDIAN:
        arr.byteswap()
    return arr.tolist()

# Rows loaded from SQLite per batch when (re)building an index: bounds peak memory while loading
# (the blobs, their join and the sign matrix: ~3.5 KB a row at 384 dims). Measured at 1M x 384:
# 4,096 loads as fast as 50,000 and leaves the process ~70 MB smaller (freed batches of small
# blobs are not all given back to the OS).
LOAD_BATCH = 4_096

# Ids added since the id -> position arrays were merged, kept in a dict up to this many.
MAP_DICT_MAX = 4_096

# Rows per block of the Hamming scan: 32k rows keep its temporaries (~330 KB) in L2 cache.
CHUNK = 32_768


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
        self.dead = 0  # rows below n that are not alive: no mask is needed while it is 0
        # id -> position: sorted arrays for the bulk (16 bytes a row; a dict of a million ints
        # takes ~100 MB), plus a dict for rows added since the arrays were last merged.
        self.sid = np.zeros(0, dtype=np.int64)
        self.spos = np.zeros(0, dtype=np.int64)
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
        """Add or replace rows `(id, float32 blob, seq, kind, thread_id, created)`; an id
        appears at most once per call (they come from one query over a primary key)."""
        if not rows:
            return
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows),
                                                                               self.dim)
        if self.mean is None:
            # The first batch loaded (LOAD_BATCH rows) fixes the centre; later rows reuse it so
            # old codes stay valid.
            self.mean = mat.mean(axis=0) if len(rows) >= 50 else np.zeros(self.dim, np.float32)
        bits = self._bits(mat)
        kc, tc = self.kind_codes, self.thread_codes
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        idx = self._find(ids)
        new = idx < 0
        n0 = self.n
        fresh = int(np.count_nonzero(new))
        old = idx[~new]
        if len(old):  # replaced rows discarded earlier come back to life
            self.dead -= int(np.count_nonzero(~self.alive[old]))
        idx[new] = np.arange(n0, n0 + fresh)
        self._grow(n0 + fresh)
        self.n = n0 + fresh
        self._remember(ids[new], idx[new])
        self.ids[idx] = ids
        self.kind[idx] = [self._code(kc, r[3]) for r in rows]
        self.thread[idx] = [self._code(tc, r[4]) for r in rows]
        self.created[idx] = [r[5] for r in rows]
        self.seq = max(self.seq, max(r[2] for r in rows))
        for w in range(self.words):
            self.cols[w][idx] = bits[:, w]
        self.alive[idx] = True

    def _find(self, ids: Any) -> Any:
        """Positions of `ids` (an int64 array), -1 where absent."""
        out = np.full(len(ids), -1, dtype=np.int64)
        if len(self.sid):
            j = np.minimum(np.searchsorted(self.sid, ids), len(self.sid) - 1)
            hit = self.sid[j] == ids
            out[hit] = self.spos[j[hit]]
        if self.pos:
            for k in np.flatnonzero(out < 0).tolist():
                out[k] = self.pos.get(int(ids[k]), -1)
        return out

    def _remember(self, ids: Any, places: Any) -> None:
        """Add new ids to the id -> position map: a few to the dict, many merged into the
        sorted arrays (O(n) copy), so neither a bulk load nor a single write costs much."""
        if len(ids) == 0:
            return
        if len(ids) + len(self.pos) <= MAP_DICT_MAX:
            self.pos.update(zip(ids.tolist(), places.tolist(), strict=True))
            return
        if self.pos:
            ids = np.concatenate([ids, np.fromiter(self.pos.keys(), np.int64, len(self.pos))])
            places = np.concatenate([places, np.fromiter(self.pos.values(), np.int64,
                                                         len(self.pos))])
            self.pos = {}
        o = np.argsort(ids, kind="stable")
        at = np.searchsorted(self.sid, ids[o])
        self.sid = np.insert(self.sid, at, ids[o])
        self.spos = np.insert(self.spos, at, places[o])

    def trim(self) -> None:
        """Give back the spare capacity left by doubling (after a large load)."""
        cap = self.n + max(1024, self.n // 64)
        if len(self.ids) <= cap:
            return

        def t(a: Any) -> Any:
            b = np.zeros(cap, dtype=a.dtype)
            b[: self.n] = a[: self.n]
            return b

        self.ids, self.kind, self.thread = t(self.ids), t(self.kind), t(self.thread)
        self.created, self.alive = t(self.created), t(self.alive)
        self.cols = [t(c) for c in self.cols]

    def _bits(self, mat: Any) -> Any:
        signs = mat > self.mean  # the sign of (mat - mean), without the float temporary
        packed = np.packbits(signs, axis=1, bitorder="little")
        pad = self.words * 8 - packed.shape[1]
        if pad:
            packed = np.pad(packed, ((0, 0), (0, pad)))
        return packed.view(np.uint64).reshape(len(mat), self.words)

    def discard(self, ids: Iterable[int]) -> None:
        places = self._find(np.fromiter((int(i) for i in ids), dtype=np.int64))
        places = np.unique(places[places >= 0])
        if len(places):
            self.dead += int(np.count_nonzero(self.alive[places]))
            self.alive[places] = False

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
        # No filter and nothing discarded: every row is a candidate, no mask at all.
        m = None if f.empty() and self.dead == 0 else self.mask(f)
        alive = n if m is None else int(np.count_nonzero(m))
        if alive <= rerank:
            return [int(i) for i in (self.ids[:n] if m is None else self.ids[:n][m])]
        qv = np.asarray(q, dtype=np.float32).reshape(1, self.dim)
        qb = self._bits(qv)[0]
        far = self.dim + 1  # the distance given to masked-out rows: past any real one
        dist = np.empty(n, dtype=np.uint16)
        hist = np.zeros(far + 1, dtype=np.int64)
        size = min(n, CHUNK)
        buf = np.empty(size, dtype=np.uint64)
        cnt = np.empty(size, dtype=np.uint8)
        acc = np.empty(size, dtype=np.uint8)
        cols = self.cols
        # Blocks of CHUNK rows, so the XOR / popcount temporaries stay in the CPU cache; up to
        # three words' counts are summed in uint8 (at most 192), then widened into uint16.
        for s in range(0, n, CHUNK):
            e = min(n, s + CHUNK)
            d, b, c, a = dist[s:e], buf[: e - s], cnt[: e - s], acc[: e - s]
            for g in range(0, self.words, 3):
                np.bitwise_xor(cols[g][s:e], qb[g], out=b)
                _popcount(b, a)
                for w in range(g + 1, min(g + 3, self.words)):
                    np.bitwise_xor(cols[w][s:e], qb[w], out=b)
                    np.add(a, _popcount(b, c), out=a)
                if g == 0:
                    np.copyto(d, a)
                else:
                    np.add(d, a, out=d)
            if m is not None:
                d[~m[s:e]] = far
            # Threshold from a histogram of distances: O(n), no sort of the whole array.
            hist += np.bincount(d, minlength=far + 1)
        cum = np.cumsum(hist[:far])
        thr = int(np.searchsorted(cum, rerank))
        pick = np.flatnonzero(dist <= thr)
        if len(pick) > 2 * rerank:  # many ties at the threshold: keep the closest `rerank`
            pick = pick[np.argpartition(dist[pick], rerank)[:rerank]]
        return [int(i) for i in self.ids[pick]]


_LUT: Any = None


def _popcount(words: Any, out: Any = None) -> Any:
    """Set bits per uint64, as uint8 (numpy >= 2 has it built in; older numpy: a byte table)."""
    global _LUT
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words, out=out)
    if _LUT is None:
        _LUT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
    counts = _LUT[words.view(np.uint8)].reshape(-1, 8).sum(axis=1, dtype=np.uint8)
    if out is None:
        return counts
    np.copyto(out, counts)
    return out


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
                ix.trim()
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
