"""Migration 3: a record's history knows its thread (the same SQL on both engines)."""

from __future__ import annotations

from .runner import Migration

_HISTORY_THREAD = """
-- Which thread a record came from, kept on its history, so forgetting a thread also erases the
-- history of its records that a step already deleted or a retry replaced (their row is gone).
-- The same SQL on both engines.
ALTER TABLE record_history ADD COLUMN thread_id TEXT;
UPDATE record_history SET thread_id = (SELECT r.thread_id FROM records r
    WHERE r.namespace = record_history.namespace AND r.id = record_history.record_id);
CREATE INDEX record_history_thread ON record_history (namespace, thread_id);
"""

SQLITE = POSTGRES = Migration(3, "history knows its thread", _HISTORY_THREAD)
