"""Migration 9: records indexed by kind, for the standing facts (`validate.STANDING_KINDS`).

The context shows a namespace's standing facts on every turn (`memlane.context.standing`); the
read (`Store.standing_records`) takes the newest records of each standing kind in turn, each a
walk of this index from its end, so it reads at most what it returns however many records of
other kinds (or of the same kind, past the limit) the namespace holds.
"""

from __future__ import annotations

from .runner import Migration

_SQL = "CREATE INDEX records_kind ON records (namespace, kind, id);"

SQLITE = Migration(9, "records indexed by kind", _SQL)
POSTGRES = Migration(9, "records indexed by kind", _SQL)
