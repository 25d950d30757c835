"""Numbered schema migrations, one list per engine.

Each migration runs in the same transaction as the row that records it in `_migrations`, so a
crash mid-migration leaves the schema at the previous number. Append new migrations; never edit
one that has shipped.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    sql: str


SQLITE: list[Migration] = [
    Migration(
        1,
        "core",
        """
CREATE TABLE threads (
    namespace   TEXT NOT NULL,
    thread_id   TEXT NOT NULL,
    created     REAL NOT NULL,
    last_active REAL NOT NULL,
    next_seq    INTEGER NOT NULL DEFAULT 1,
    turns       INTEGER NOT NULL DEFAULT 0,
    filed_to    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (namespace, thread_id)
);
CREATE INDEX threads_lru ON threads (namespace, last_active);

CREATE TABLE messages (
    id         INTEGER PRIMARY KEY,
    namespace  TEXT NOT NULL,
    thread_id  TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    turn       INTEGER NOT NULL,
    role       TEXT NOT NULL,
    content    TEXT NOT NULL,
    name       TEXT,
    ts         REAL NOT NULL,
    tokens     INTEGER NOT NULL,
    relevance  REAL,
    UNIQUE (namespace, thread_id, seq)
);
CREATE INDEX messages_turn ON messages (namespace, thread_id, turn);

CREATE TABLE episodes (
    namespace  TEXT NOT NULL,
    thread_id  TEXT NOT NULL,
    start      INTEGER NOT NULL,
    "end"      INTEGER NOT NULL,
    n          INTEGER NOT NULL,
    date       REAL NOT NULL,
    line       TEXT NOT NULL,
    record_ids TEXT NOT NULL,
    suspect    INTEGER NOT NULL DEFAULT 0,
    written    REAL NOT NULL,
    PRIMARY KEY (namespace, thread_id, "end")
);
CREATE INDEX episodes_start ON episodes (namespace, thread_id, start);

CREATE TABLE records (
    id         INTEGER PRIMARY KEY,
    namespace  TEXT NOT NULL,
    text       TEXT NOT NULL,
    kind       TEXT NOT NULL DEFAULT 'fact',
    thread_id  TEXT,
    step_end   INTEGER,
    created    REAL NOT NULL,
    updated    REAL NOT NULL,
    pinned     INTEGER NOT NULL DEFAULT 0,
    suspect    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX records_ns ON records (namespace, id);
CREATE INDEX records_step ON records (namespace, thread_id, step_end);

CREATE TABLE record_sources (
    record_id  INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    PRIMARY KEY (record_id, message_id)
);
CREATE INDEX record_sources_msg ON record_sources (message_id);

-- Earlier versions of records, for audit: one current copy lives in `records`.
CREATE TABLE record_history (
    record_id  INTEGER NOT NULL,
    namespace  TEXT NOT NULL,
    text       TEXT NOT NULL,
    op         TEXT NOT NULL,
    changed    REAL NOT NULL
);
CREATE INDEX record_history_id ON record_history (namespace, record_id);
""",
    ),
]
