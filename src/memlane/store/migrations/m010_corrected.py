"""Migration 10: a record's history indexed by operation, for the corrected facts.

A value the user changed ("the council tax has gone up to £156") is a standing fact: a later
request that needs it rarely names it, and the stale value may still stand in a turn in view
(`memlane.context.standing`). The read (`Store.corrected_records`) takes the namespace's newest
records with an `update` in their history, a walk of this index from its end.
"""

from __future__ import annotations

from .runner import Migration

_SQL = "CREATE INDEX record_history_op ON record_history (namespace, op, record_id);"

SQLITE = Migration(10, "history indexed by operation", _SQL)
POSTGRES = Migration(10, "history indexed by operation", _SQL)
