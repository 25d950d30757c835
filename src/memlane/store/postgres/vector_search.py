"""Vectors on PostgreSQL (pgvector): storing them and the nearest-neighbour query."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..common import (
    VecTable,
)
from ..migrations import m002_search
from ..protocol import SearchFilters
from .core import EF_SEARCH, PgCore
from .search import _filters

HNSW_DIMS = frozenset(m002_search.HNSW_DIMS)
"""Vector sizes with an HNSW index (migration 2 made them); others are searched exactly."""


def _vec_text(v: Sequence[float]) -> str:
    """pgvector's text form; repr keeps every float exact."""
    return "[" + ",".join(repr(float(x)) for x in v) + "]"



class PgVectors(PgCore):
    """Vectors in pgvector columns, HNSW-indexed for the common sizes."""

    def _put_vectors(self, namespace: str, t: VecTable,
                     items: Sequence[tuple[int, Sequence[float]]], model: str) -> int:
        # Ids not in this namespace find no owner row in the join and are skipped.
        rows = self._q(
            f"INSERT INTO {t.table} (namespace, {t.id}, model, dim, vec)"
            f" SELECT %(ns)s, o.id, %(model)s, vector_dims(x.v::vector), x.v::vector"
            f" FROM unnest(%(ids)s::bigint[], %(vecs)s::text[]) AS x(id, v)"
            f" JOIN {t.owner} o ON o.namespace = %(ns)s AND o.id = x.id"
            f" ON CONFLICT (namespace, {t.id}) DO UPDATE SET model = excluded.model,"
            " dim = excluded.dim, vec = excluded.vec RETURNING 1",
            {"ns": namespace, "model": model, "ids": [int(i) for i, _ in items],
             "vecs": [_vec_text(v) for _, v in items]},
        )
        return len(rows)

    def _vector_candidates(self, namespace: str, t: VecTable, qvec: Sequence[float], k: int,
                           f: SearchFilters, model: str) -> list[tuple[int, float]]:
        dim = len(qvec)
        where, fargs = _filters("o", f, kind_col=t.kind_col)
        args = {"ns": namespace, "model": model, "dim": dim, "q": _vec_text(qvec), "k": k,
                **fargs}
        rows_from = (f" FROM {t.table} v JOIN {t.owner} o ON o.namespace = v.namespace"
                     f" AND o.id = v.{t.id} WHERE v.namespace = %(ns)s AND v.model = %(model)s"
                     f" AND v.dim = %(dim)s{where}")
        with self._conn() as c:
            rows: list[Any] = []
            if dim in HNSW_DIMS:
                # Through the HNSW index (when the planner picks it). The graph walk filters
                # after it finds neighbours, so for a namespace that is a small part of a big
                # table it can come back short: then the exact scan below answers.
                cast = f"v.vec::vector({dim}) <=> %(q)s::vector({dim})"
                sql = f"SELECT v.{t.id}, 1 - ({cast}){rows_from} ORDER BY {cast} LIMIT %(k)s"
                if 2 * k <= EF_SEARCH:  # the connection's setting is enough: one round trip
                    rows = c.execute(sql, args).fetchall()
                else:
                    with c.transaction():
                        c.execute(f"SET LOCAL hnsw.ef_search = {min(1000, 2 * k)}")
                        rows = c.execute(sql, args).fetchall()
            if len(rows) < k:
                # Exact: the namespace's rows (a btree range) scored one by one. MATERIALIZED
                # keeps the planner from turning this back into an index walk.
                rows = c.execute(
                    f"WITH c AS MATERIALIZED (SELECT v.{t.id} AS id, v.vec{rows_from})"
                    " SELECT id, 1 - (vec <=> %(q)s::vector) AS sim FROM c"
                    " ORDER BY sim DESC, id LIMIT %(k)s", args).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]
