"""Numbered schema migrations, one list per engine.

Each migration runs in the same transaction as the row that records it in `_migrations`, so a
crash mid-migration leaves the schema at the previous number. Append new migrations; never edit
one that has shipped.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ...errors import StoreError


@dataclass(frozen=True)
class Migration:
    """One numbered schema change."""

    number: int
    """Its place in the order; recorded once applied."""
    name: str
    """A short label for messages."""
    sql: str
    """The statements (a script; see `split_sql`)."""


def split_sql(script: str) -> list[str]:
    """A SQLite migration script as statements (`sqlite3.complete_statement` knows about strings
    and trigger bodies). Lines of comments between statements are dropped."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        if not buf and line.strip().startswith("--"):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


def julianday() -> float:
    """Now as a Julian day number (what SQLite's `julianday('now')` gives)."""
    return time.time() / 86400.0 + 2440587.5


def apply_sqlite(
    conn: sqlite3.Connection,
    migrations: list[Migration],
    table: str,
    lock: threading.RLock,
    now: Callable[[], float] = julianday,
) -> list[int]:
    """Apply the `migrations` that `table` does not record yet, each in one transaction with the
    row that records it (a crash mid-migration leaves the schema at the previous number), and
    return the numbers applied. The one runner of SQLite files: the store's and the ledger's.
    `now()` is what the `applied` column gets. A failing statement raises `StoreError` naming the
    migration, with nothing of it applied."""
    run: list[int] = []
    with lock:
        conn.execute(f"CREATE TABLE IF NOT EXISTS {table} (number INTEGER PRIMARY KEY,"
                     " name TEXT NOT NULL, applied REAL NOT NULL)")
        for m in migrations:
            conn.execute("BEGIN IMMEDIATE")
            try:
                done = conn.execute(f"SELECT 1 FROM {table} WHERE number = ?",
                                    (m.number,)).fetchone()
                if done is None:
                    # executescript would COMMIT first; run statement by statement instead so
                    # the migration and its bookkeeping share one transaction.
                    for stmt in split_sql(m.sql):
                        conn.execute(stmt)
                    conn.execute(f"INSERT INTO {table} (number, name, applied) VALUES (?, ?, ?)",
                                 (m.number, m.name, now()))
                    run.append(m.number)
                conn.execute("COMMIT")
            except BaseException as e:
                conn.execute("ROLLBACK")
                if isinstance(e, sqlite3.Error):
                    raise StoreError(f"migration {m.number} ({m.name}) failed: {e}") from e
                raise
    return run


_SETTINGS = """
-- Properties of the memory as a whole, written once when first chosen and read by every
-- surface that opens it: `embedder` (which model the vectors come from, so ingest, serve, chat
-- and search all use the same one). The same SQL on both engines.
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

_HISTORY_THREAD = """
-- Which thread a record came from, kept on its history, so forgetting a thread also erases the
-- history of its records that a step already deleted or a retry replaced (their row is gone).
-- The same SQL on both engines.
ALTER TABLE record_history ADD COLUMN thread_id TEXT;
UPDATE record_history SET thread_id = (SELECT r.thread_id FROM records r
    WHERE r.namespace = record_history.namespace AND r.id = record_history.record_id);
CREATE INDEX record_history_thread ON record_history (namespace, thread_id);
"""

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

-- AUTOINCREMENT on messages and records: ids are pointers (record sources, buffer lines, ids a
-- model saw earlier), so a deleted id must never be handed out again. Plain INTEGER PRIMARY KEY
-- reuses the highest id once its row is deleted (a retried step, an evicted thread).
CREATE TABLE messages (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
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
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
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
-- context() reads the pinned core set every turn: keep that read independent of namespace size.
CREATE INDEX records_pinned ON records (namespace, id) WHERE pinned = 1;

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
    Migration(
        2,
        "search and recall",
        """
-- Lexical index over record text. External content: the text lives once, in `records`; triggers
-- keep the index in step. `namespace` is indexed too, so a query can restrict its doclists to one
-- namespace inside FTS5 (it is tokenized, so that filter is a superset: every query also checks
-- records.namespace exactly). bm25() is given weight 0 for it.
CREATE VIRTUAL TABLE records_fts USING fts5(
    text, namespace, content = 'records', content_rowid = 'id', tokenize = 'porter unicode61'
);
INSERT INTO records_fts (records_fts) VALUES ('rebuild');

-- One vector per record, from one embedder (`model`); `seq` is a store-wide counter stamped on
-- every write, so an in-process vector cache can load only what changed since it last looked.
CREATE TABLE record_vectors (
    record_id INTEGER PRIMARY KEY,
    namespace TEXT NOT NULL,
    model     TEXT NOT NULL,
    dim       INTEGER NOT NULL,
    vec       BLOB NOT NULL,
    seq       INTEGER NOT NULL
);
CREATE INDEX record_vectors_seq ON record_vectors (namespace, model, seq);

CREATE TRIGGER records_ai AFTER INSERT ON records BEGIN
    INSERT INTO records_fts (rowid, text, namespace) VALUES (new.id, new.text, new.namespace);
END;
CREATE TRIGGER records_ad AFTER DELETE ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, text, namespace)
        VALUES ('delete', old.id, old.text, old.namespace);
    DELETE FROM record_vectors WHERE record_id = old.id;
END;
CREATE TRIGGER records_au AFTER UPDATE OF text, namespace ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, text, namespace)
        VALUES ('delete', old.id, old.text, old.namespace);
    INSERT INTO records_fts (rowid, text, namespace) VALUES (new.id, new.text, new.namespace);
END;
-- A vector of the old text would be found by the new one's neighbours: drop it; the writer
-- embeds the new text after its transaction.
CREATE TRIGGER records_au_vec AFTER UPDATE OF text ON records
WHEN old.text IS NOT new.text BEGIN
    DELETE FROM record_vectors WHERE record_id = old.id;
END;

-- Recall snapshots: past tool results, one copy per distinct result per namespace.
CREATE TABLE snapshots (
    id          INTEGER PRIMARY KEY,
    namespace   TEXT NOT NULL,
    thread_id   TEXT,
    tool        TEXT NOT NULL,
    args        TEXT NOT NULL,
    result      TEXT NOT NULL,
    result_hash TEXT NOT NULL,
    created     REAL NOT NULL,
    tokens      INTEGER NOT NULL,
    UNIQUE (namespace, result_hash)
);
CREATE INDEX snapshots_thread ON snapshots (namespace, thread_id);

CREATE VIRTUAL TABLE snapshots_fts USING fts5(
    tool, args, result, namespace, content = 'snapshots', content_rowid = 'id',
    tokenize = 'porter unicode61'
);

CREATE TABLE snapshot_vectors (
    snapshot_id INTEGER PRIMARY KEY,
    namespace   TEXT NOT NULL,
    model       TEXT NOT NULL,
    dim         INTEGER NOT NULL,
    vec         BLOB NOT NULL,
    seq         INTEGER NOT NULL
);
CREATE INDEX snapshot_vectors_seq ON snapshot_vectors (namespace, model, seq);

CREATE TRIGGER snapshots_ai AFTER INSERT ON snapshots BEGIN
    INSERT INTO snapshots_fts (rowid, tool, args, result, namespace)
        VALUES (new.id, new.tool, new.args, new.result, new.namespace);
END;
CREATE TRIGGER snapshots_ad AFTER DELETE ON snapshots BEGIN
    INSERT INTO snapshots_fts (snapshots_fts, rowid, tool, args, result, namespace)
        VALUES ('delete', old.id, old.tool, old.args, old.result, old.namespace);
    DELETE FROM snapshot_vectors WHERE snapshot_id = old.id;
END;
CREATE TRIGGER snapshots_au AFTER UPDATE OF tool, args, result, namespace ON snapshots BEGIN
    INSERT INTO snapshots_fts (snapshots_fts, rowid, tool, args, result, namespace)
        VALUES ('delete', old.id, old.tool, old.args, old.result, old.namespace);
    INSERT INTO snapshots_fts (rowid, tool, args, result, namespace)
        VALUES (new.id, new.tool, new.args, new.result, new.namespace);
END;

-- The store-wide write counter behind record_vectors.seq / snapshot_vectors.seq. It only grows,
-- so "anything newer than what I loaded" is one indexed MAX() per query.
CREATE TABLE vector_seq (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL);
INSERT INTO vector_seq (id, seq) VALUES (1, 0);
""",
    ),
    Migration(3, "history knows its thread", _HISTORY_THREAD),
    Migration(4, "facts over time", _STATED_SQLITE),
    Migration(5, "store settings", _SETTINGS),
]


# PostgreSQL ------------------------------------------------------------------------------------
# The same schema concepts as SQLITE, with three differences that matter for many writers on many
# machines:
# - every primary key and lookup index leads with `namespace`, the tenant key: a Citus deployment
#   distributes each table by it and routes every query (they all name one namespace) to a shard;
# - `record_sources` carries the namespace too, so it is co-located with `records`;
# - `episodes.record_ids` is a BIGINT[] (array_remove strips a deleted record in place), and
#   `(namespace, thread_id, n)` is unique, so the numbering that proves buffer gaps cannot fork
#   under concurrent steps.
POSTGRES: list[Migration] = [
    Migration(
        1,
        "core",
        """
CREATE TABLE threads (
    namespace   TEXT NOT NULL,
    thread_id   TEXT NOT NULL,
    created     DOUBLE PRECISION NOT NULL,
    last_active DOUBLE PRECISION NOT NULL,
    next_seq    BIGINT NOT NULL DEFAULT 1,
    turns       BIGINT NOT NULL DEFAULT 0,
    filed_to    BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (namespace, thread_id)
);
CREATE INDEX threads_lru ON threads (namespace, last_active);

CREATE TABLE messages (
    id         BIGINT GENERATED BY DEFAULT AS IDENTITY,
    namespace  TEXT NOT NULL,
    thread_id  TEXT NOT NULL,
    seq        BIGINT NOT NULL,
    turn       BIGINT NOT NULL,
    role       TEXT NOT NULL,
    content    TEXT NOT NULL,
    name       TEXT,
    ts         DOUBLE PRECISION NOT NULL,
    tokens     INTEGER NOT NULL,
    relevance  DOUBLE PRECISION,
    PRIMARY KEY (namespace, thread_id, seq),
    UNIQUE (namespace, id)
);
-- "The first seq of turn T" (where the window starts) is one entry of this index, read in its
-- order (see _CONTEXT_ROWS in store/postgres.py): seq is in it so no sort is needed.
CREATE INDEX messages_turn ON messages (namespace, thread_id, turn, seq);

CREATE TABLE episodes (
    namespace  TEXT NOT NULL,
    thread_id  TEXT NOT NULL,
    start      BIGINT NOT NULL,
    "end"      BIGINT NOT NULL,
    n          BIGINT NOT NULL,
    date       DOUBLE PRECISION NOT NULL,
    line       TEXT NOT NULL,
    record_ids BIGINT[] NOT NULL DEFAULT '{}',
    suspect    BOOLEAN NOT NULL DEFAULT FALSE,
    written    DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (namespace, thread_id, "end"),
    UNIQUE (namespace, thread_id, n)
);
CREATE INDEX episodes_start ON episodes (namespace, thread_id, start);

CREATE TABLE records (
    id         BIGINT GENERATED BY DEFAULT AS IDENTITY,
    namespace  TEXT NOT NULL,
    text       TEXT NOT NULL,
    kind       TEXT NOT NULL DEFAULT 'fact',
    thread_id  TEXT,
    step_end   BIGINT,
    created    DOUBLE PRECISION NOT NULL,
    updated    DOUBLE PRECISION NOT NULL,
    pinned     BOOLEAN NOT NULL DEFAULT FALSE,
    suspect    BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (namespace, id)
);
CREATE INDEX records_step ON records (namespace, thread_id, step_end);
-- context() reads the pinned core set every turn: keep that read independent of namespace size.
CREATE INDEX records_pinned ON records (namespace, id) WHERE pinned;

CREATE TABLE record_sources (
    namespace  TEXT NOT NULL,
    record_id  BIGINT NOT NULL,
    message_id BIGINT NOT NULL,
    PRIMARY KEY (namespace, record_id, message_id)
);
CREATE INDEX record_sources_msg ON record_sources (namespace, message_id);

-- Earlier versions of records, for audit: one current copy lives in `records`.
CREATE TABLE record_history (
    namespace  TEXT NOT NULL,
    record_id  BIGINT NOT NULL,
    text       TEXT NOT NULL,
    op         TEXT NOT NULL,
    changed    DOUBLE PRECISION NOT NULL
);
CREATE INDEX record_history_id ON record_history (namespace, record_id);
""",
    ),
    Migration(
        2,
        "search and recall",
        """
-- Lexical search: a stored tsvector per record, kept in step by PostgreSQL itself (a generated
-- column), under a GIN index. A query names the namespace too; the planner intersects the GIN
-- bitmap with the namespace's btree range, or scans the namespace's rows when it is small.
-- The head of the text is indexed: a tsvector must stay under 1 MB.
ALTER TABLE records ADD COLUMN tsv tsvector
    GENERATED ALWAYS AS (to_tsvector('english'::regconfig, left(text, 100000))) STORED;
CREATE INDEX records_tsv ON records USING gin (tsv);
CREATE INDEX records_created ON records (namespace, created);

-- A history row's own order (two changes can share a timestamp).
ALTER TABLE record_history ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY;

CREATE EXTENSION IF NOT EXISTS vector;

-- One vector per record from one embedder (`model`). Deleting a record deletes its vector (the
-- foreign key); changing its text deletes it too (PgTx.update_record), and the writer embeds the
-- new text after its transaction. HNSW needs a fixed dimension, so each common size has a partial
-- index over `vec` cast to it; vectors of other sizes are searched exactly.
CREATE TABLE record_vectors (
    namespace TEXT NOT NULL,
    record_id BIGINT NOT NULL,
    model     TEXT NOT NULL,
    dim       INTEGER NOT NULL,
    vec       vector NOT NULL,
    PRIMARY KEY (namespace, record_id),
    FOREIGN KEY (namespace, record_id) REFERENCES records (namespace, id) ON DELETE CASCADE
);
CREATE INDEX record_vectors_model ON record_vectors (namespace, model);
CREATE INDEX record_vectors_hnsw_256 ON record_vectors
    USING hnsw ((vec::vector(256)) vector_cosine_ops) WHERE dim = 256;
CREATE INDEX record_vectors_hnsw_384 ON record_vectors
    USING hnsw ((vec::vector(384)) vector_cosine_ops) WHERE dim = 384;
CREATE INDEX record_vectors_hnsw_768 ON record_vectors
    USING hnsw ((vec::vector(768)) vector_cosine_ops) WHERE dim = 768;
CREATE INDEX record_vectors_hnsw_1024 ON record_vectors
    USING hnsw ((vec::vector(1024)) vector_cosine_ops) WHERE dim = 1024;
CREATE INDEX record_vectors_hnsw_1536 ON record_vectors
    USING hnsw ((vec::vector(1536)) vector_cosine_ops) WHERE dim = 1536;

-- Recall snapshots: past tool results, one copy per distinct result per namespace. `args` is
-- the JSON text as given (sorted keys), like SQLite's, not jsonb (which would reorder it).
CREATE TABLE snapshots (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY,
    namespace   TEXT NOT NULL,
    thread_id   TEXT,
    tool        TEXT NOT NULL,
    args        TEXT NOT NULL,
    result      TEXT NOT NULL,
    result_hash TEXT NOT NULL,
    created     DOUBLE PRECISION NOT NULL,
    tokens      INTEGER NOT NULL,
    tsv         tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig,
                    left(tool || ' ' || args || ' ' || result, 100000))) STORED,
    PRIMARY KEY (namespace, id),
    UNIQUE (namespace, result_hash)
);
CREATE INDEX snapshots_thread ON snapshots (namespace, thread_id);
CREATE INDEX snapshots_tsv ON snapshots USING gin (tsv);

CREATE TABLE snapshot_vectors (
    namespace   TEXT NOT NULL,
    snapshot_id BIGINT NOT NULL,
    model       TEXT NOT NULL,
    dim         INTEGER NOT NULL,
    vec         vector NOT NULL,
    PRIMARY KEY (namespace, snapshot_id),
    FOREIGN KEY (namespace, snapshot_id) REFERENCES snapshots (namespace, id) ON DELETE CASCADE
);
CREATE INDEX snapshot_vectors_model ON snapshot_vectors (namespace, model);
CREATE INDEX snapshot_vectors_hnsw_256 ON snapshot_vectors
    USING hnsw ((vec::vector(256)) vector_cosine_ops) WHERE dim = 256;
CREATE INDEX snapshot_vectors_hnsw_384 ON snapshot_vectors
    USING hnsw ((vec::vector(384)) vector_cosine_ops) WHERE dim = 384;
CREATE INDEX snapshot_vectors_hnsw_768 ON snapshot_vectors
    USING hnsw ((vec::vector(768)) vector_cosine_ops) WHERE dim = 768;
CREATE INDEX snapshot_vectors_hnsw_1024 ON snapshot_vectors
    USING hnsw ((vec::vector(1024)) vector_cosine_ops) WHERE dim = 1024;
CREATE INDEX snapshot_vectors_hnsw_1536 ON snapshot_vectors
    USING hnsw ((vec::vector(1536)) vector_cosine_ops) WHERE dim = 1536;
""",
    ),
    Migration(3, "history knows its thread", _HISTORY_THREAD),
    Migration(4, "facts over time", _STATED_POSTGRES),
    Migration(5, "store settings", _SETTINGS),
]
