"""Migration 9: an index of the standing records (`validate.STANDING_KINDS`, and pinned ones).

The context shows a namespace's standing facts on every turn (`memlane.context.standing`); the
read (`Store.records(..., standing_only=True)`) asks for exactly this predicate, so it walks
the standing records only, however many other records the namespace holds. The kinds are
written out here as shipped: a change of `STANDING_KINDS` needs a new migration that rebuilds
this index (the stores' `STANDING_WHERE` must stay the same expression).
"""

from __future__ import annotations

from .runner import Migration

SQLITE_WHERE = ("(pinned = 1 OR kind IN ('constraint', 'decision', 'profile', 'preference'))")
POSTGRES_WHERE = "(pinned OR kind IN ('constraint', 'decision', 'profile', 'preference'))"

SQLITE = Migration(9, "standing records indexed",
                   f"CREATE INDEX records_standing ON records (namespace, id)"
                   f" WHERE {SQLITE_WHERE};")
POSTGRES = Migration(9, "standing records indexed",
                     f"CREATE INDEX records_standing ON records (namespace, id)"
                     f" WHERE {POSTGRES_WHERE};")
