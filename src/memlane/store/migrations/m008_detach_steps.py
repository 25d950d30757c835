"""Migration 8: records of a deleted thread no longer belong to one of its steps.

A record's `(thread_id, step_end)` names the step that wrote it, so a retry of that stretch can
replace it (`Store.records_of_step`). Deleting a thread (TTL expiry, eviction, a session that is
cleared) removed its episodes but left that key on its records; the thread used again under the
same id numbers its messages from 1, so its steps ended at the same seqs, were taken for retries
of stretches filed already, and were refused: filing stopped for good. Deleting a thread now
clears the key (`_delete_thread`); this clears it where a store deleted threads before, on every
record whose step has no episode (a step always writes one, in the same transaction).
"""

from __future__ import annotations

from .runner import Migration

_SQL = """
UPDATE records SET step_end = NULL
WHERE step_end IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM episodes e WHERE e.namespace = records.namespace
    AND e.thread_id = records.thread_id AND e."end" = records.step_end);
"""

SQLITE = Migration(8, "records of deleted threads detached from their steps", _SQL)
POSTGRES = Migration(8, "records of deleted threads detached from their steps", _SQL)
