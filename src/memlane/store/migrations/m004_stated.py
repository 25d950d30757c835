"""Migration 4: facts over time."""

from __future__ import annotations

from .runner import Migration

# Facts over time. A record keeps one current text; `stated` is when that text was said (the
# newest of its source messages' times, so a replayed 2023 conversation dates its facts 2023, not
# today; the write time when it has no source). Each history row carries the version's own
# `stated` and the message ids it came from (`sources`, a JSON list), so a version's validity
# is read off the next one: superseded when the next was stated, by the statement in its sources.
# Rows written before this migration are dated by their write time.
_STATED_SQLITE = """
ALTER TABLE records ADD COLUMN stated REAL NOT NULL DEFAULT 0;
UPDATE records SET stated = COALESCE((SELECT MAX(m.ts) FROM record_sources s
    JOIN messages m ON m.id = s.message_id WHERE s.record_id = records.id), updated);
ALTER TABLE record_history ADD COLUMN stated REAL NOT NULL DEFAULT 0;
ALTER TABLE record_history ADD COLUMN sources TEXT NOT NULL DEFAULT '[]';
UPDATE record_history SET stated = changed;
"""

_STATED_POSTGRES = """
ALTER TABLE records ADD COLUMN stated DOUBLE PRECISION NOT NULL DEFAULT 0;
UPDATE records r SET stated = COALESCE((SELECT MAX(m.ts) FROM record_sources s
    JOIN messages m ON m.namespace = s.namespace AND m.id = s.message_id
    WHERE s.namespace = r.namespace AND s.record_id = r.id), r.updated);
ALTER TABLE record_history ADD COLUMN stated DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE record_history ADD COLUMN sources TEXT NOT NULL DEFAULT '[]';
UPDATE record_history SET stated = changed;
"""

SQLITE = Migration(4, "facts over time", _STATED_SQLITE)
POSTGRES = Migration(4, "facts over time", _STATED_POSTGRES)
