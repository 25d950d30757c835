"""Vectors on SQLite: storing them and the exact / indexed nearest-neighbour query."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ..common import (
    VecTable,
)
from ..protocol import SearchFilters, chunks
from ..vectors import VecFilter, VectorIndexes, dot, np, pack, unpack
from .core import SQLiteCore
from .search import _record_filters

# Candidates re-ranked with exact float vectors per vector query (see memlane.store.vectors).
RERANK = 400


class SQLiteVectors(SQLiteCore):
    """Vectors stored in tables, searched through the in-process index."""

    def _put_vectors(self, namespace: str, t: VecTable,
                     items: Sequence[tuple[int, Sequence[float]]], model: str) -> int:
        with self.transaction() as tx:
            c = tx.conn
            owned: set[int] = set()
            ids = [int(i) for i, _ in items]
            for part in chunks(ids):
                marks = ",".join("?" * len(part))
                owned.update(r[0] for r in c.execute(
                    f"SELECT id FROM {t.owner} WHERE namespace = ? AND id IN ({marks})",
                    (namespace, *part)))
            seq = c.execute("UPDATE vector_seq SET seq = seq + 1 WHERE id = 1 RETURNING seq"
                            ).fetchone()[0]
            rows = [(int(i), namespace, model, len(v), pack(v), seq)
                    for i, v in items if int(i) in owned]
            c.executemany(
                f"INSERT OR REPLACE INTO {t.table} ({t.id}, namespace, model, dim, vec, seq)"
                " VALUES (?, ?, ?, ?, ?, ?)", rows)
            return len(rows)

    def _vector_candidates(self, namespace: str, t: VecTable, qvec: Sequence[float], k: int,
                           f: SearchFilters, model: str) -> list[tuple[int, float]]:
        dim = len(qvec)
        where, fargs = _record_filters("o", f, kind_col=t.kind_col)
        base = (f"SELECT v.{t.id}, v.vec FROM {t.table} v JOIN {t.owner} o ON o.id = v.{t.id}"
                # `+`: look candidates up by primary key, never by the (namespace, model) index,
                # which would walk every vector of the namespace.
                f" WHERE +v.namespace = ? AND +v.model = ? AND v.dim = ? AND o.namespace = ?"
                f"{where}")
        args = (namespace, model, dim, namespace, *fargs)
        conn, lock = self._vector_reader()
        with lock:
            if not VectorIndexes.available():
                rows = conn.execute(base, args).fetchall()
                scored = [(int(r[0]), dot(qvec, unpack(r[1]))) for r in rows]
                scored.sort(key=lambda x: -x[1])
                return scored[:k]
            latest = conn.execute(
                f"SELECT MAX(seq) FROM {t.table} WHERE namespace = ? AND model = ?",
                (namespace, model),
            ).fetchone()[0]
            if latest is None:
                return []

            def load(after: int) -> Iterator[tuple[int, bytes, int, str | None, str | None,
                                                   float]]:
                cur = conn.execute(
                    f"SELECT v.{t.id}, v.vec, v.seq, o.{t.kind_col}, o.thread_id, o.created"
                    f" FROM {t.table} v JOIN {t.owner} o ON o.id = v.{t.id}"
                    " WHERE v.namespace = ? AND v.model = ? AND v.seq > ? AND o.namespace = ?",
                    (namespace, model, after, namespace),
                )
                while True:
                    batch = cur.fetchmany(5000)
                    if not batch:
                        return
                    yield from batch

            ix = self._vectors.get((t.table, namespace, model), dim, int(latest), load)
            vf = VecFilter(f.kinds, f.thread_id, f.since, f.until)
            q = np.asarray(qvec, dtype=np.float32)
            out: list[tuple[int, float]] = []
            # The index applied the filters already; re-checking them needs the owner table,
            # so the plain primary-key read is used when there are none.
            fetch: str = base
            fetch_args: tuple[Any, ...] = args
            if f == SearchFilters():
                fetch = (f"SELECT v.{t.id}, v.vec FROM {t.table} v WHERE +v.namespace = ?"
                         " AND +v.model = ? AND v.dim = ?")
                fetch_args = (namespace, model, dim)
            for _ in range(3):
                ids = ix.preselect(qvec, vf, max(RERANK, 4 * k))
                found: dict[int, bytes] = {}
                for part in chunks(ids):
                    marks = ",".join("?" * len(part))
                    found.update(conn.execute(
                        f"{fetch} AND v.{t.id} IN ({marks})",
                        (*fetch_args, *part)).fetchall())
                gone = [i for i in ids if i not in found]
                ix.discard(gone)
                if found:
                    mat = np.frombuffer(b"".join(found.values()), dtype="<f4").reshape(
                        len(found), dim)
                    sims = mat @ q
                    order = np.argpartition(-sims, k - 1)[:k] if len(sims) > k \
                        else np.arange(len(sims))
                    order = order[np.argsort(-sims[order], kind="stable")]
                    keys = list(found)
                    out = [(int(keys[i]), float(sims[i])) for i in order]
                # Rows deleted since the index loaded them were just discarded: go again if
                # they cost us results and live candidates may remain.
                if not gone or len(out) >= k:
                    break
            return out
