"""Migration 2: search and recall (the lexical index, vectors, snapshots)."""

from __future__ import annotations

from .runner import Migration

HNSW_DIMS = (256, 384, 768, 1024, 1536)
"""The vector sizes given an HNSW index, one per size and table (HNSW needs a fixed
dimension); vectors of other sizes are searched exactly."""


def _hnsw(table: str) -> str:
    """The partial HNSW indexes of a vector table, one per size of `HNSW_DIMS`."""
    return "".join(f"CREATE INDEX {table}_hnsw_{d} ON {table}\n"
                   f"    USING hnsw ((vec::vector({d})) vector_cosine_ops) WHERE dim = {d};\n"
                   for d in HNSW_DIMS)

SQLITE = Migration(
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
)

POSTGRES = Migration(
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
""" + _hnsw("record_vectors") + """
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
""" + _hnsw("snapshot_vectors"),
)
