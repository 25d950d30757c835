"""Store methods that are the same on every engine, written once against `StoreTx`.

Each store class keeps its SQL; what is only bookkeeping around the transactional primitives
lives here, so SQLite and PostgreSQL cannot drift apart on it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from ..errors import NotFound
from ..types import Record

# The filing claim's check (`StoreTx.overlapping_episodes`): the same SQL on both engines, with
# each engine's placeholder. Uses the episodes_start index; a thread has few episodes anyway.
OVERLAPPING_EPISODES = (
    'SELECT start, "end" FROM episodes WHERE namespace = {p} AND thread_id = {p}'
    ' AND start <= {p} AND "end" >= {p} AND NOT (start = {p} AND "end" = {p}) ORDER BY start'
)


class TxStoreMixin:
    """Record edits and thread deletion through `transaction()`; needs `records()` and
    `_delete_thread(conn, namespace, thread_id)` from the engine."""

    def transaction(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def records(self, namespace: str, ids: Sequence[int] | None = None, limit: int = 1000,
                offset: int = 0, pinned_only: bool = False) -> list[Record]:
        raise NotImplementedError

    @staticmethod
    def _delete_thread(c: Any, namespace: str, thread_id: str) -> bool:
        raise NotImplementedError

    def update_record(
        self, namespace: str, record_id: int, text: str, now: float | None = None,
        suspect: bool = False,
    ) -> Record:
        now = time.time() if now is None else now
        with self.transaction() as tx:
            if tx.record_owner(namespace, record_id) != namespace:
                raise NotFound(f"no record #{record_id} in namespace {namespace!r}")
            tx.update_record(namespace, record_id, text, now, suspect)
        return self.records(namespace, [record_id])[0]

    def delete_record(self, namespace: str, record_id: int, now: float | None = None) -> bool:
        now = time.time() if now is None else now
        with self.transaction() as tx:
            if tx.record_owner(namespace, record_id) != namespace:
                return False
            tx.delete_record(namespace, record_id, now)
            return True

    def record_sources(self, namespace: str, record_ids: Sequence[int]) -> dict[int, list[int]]:
        return {r.id: list(r.source_ids) for r in self.records(namespace, record_ids)}

    def delete_thread(self, namespace: str, thread_id: str) -> bool:
        with self.transaction() as tx:
            return self._delete_thread(tx.conn, namespace, thread_id)
