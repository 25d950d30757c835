"""The shared store: PostgreSQL through psycopg 3 and a connection pool, pgvector for vectors.

Many agent processes on many machines write one memory here, so the SQL is written for
concurrency rather than translated from the SQLite store:

- **Appends to one thread get a gapless total order.** The thread row is the lock. An append is
  one statement: an upsert of the thread row (`INSERT ... ON CONFLICT DO UPDATE`, which creates the
  row or locks it, like `SELECT ... FOR UPDATE` would, and bumps `next_seq`) feeding the insert of
  the messages. Writers to one thread queue on that row until the writer ahead commits; writers to
  different threads never wait for each other. One statement is one round trip and its own
  transaction (the lock and the seqs cannot outlive a failed call).
- **Memory steps serialize per thread too.** Every `PgTx` primitive that names a thread first
  takes the same row lock (`SELECT ... FOR UPDATE`), so two steps on one thread, or a step and an
  append, cannot interleave: a retried step sees the records the first attempt added and replaces
  them, and the episode number `n` (what proves a buffer gap without counting) is never handed out
  twice (`UNIQUE (namespace, thread_id, n)` backs that up).
- **Every query names one namespace** and every primary key and lookup index leads with it: the
  tenant key a Citus deployment distributes by (see docs/SCALING.md).
- **context() is one statement**: one round trip and one snapshot, index ranges sized by the
  window (see `_CONTEXT_ROWS`).
- **A proxied turn holds its thread** (`hold_thread`) across processes: a session advisory lock
  on a hash of (namespace, thread), taken with `pg_try_advisory_lock` on one connection per
  store object kept for locks alone. Polling (rather than a blocking `pg_advisory_lock` on a
  pooled connection per waiter) keeps a crowd of requests on one thread from emptying the
  pool that the holder needs for its own writes. A crashed process's session ends, and with it
  its locks.
- **Migrations** run in one transaction under `pg_advisory_xact_lock`, so a fleet starting at once
  applies each migration exactly once and the others wait, then find nothing to do.

The pool hands out autocommit connections; multi-statement operations open explicit transactions.
`url` is the URL with its password masked; connection failures raise `StoreError` naming it.
"""

from .core import redact
from .forget import PgForget
from .log import PgLog
from .search import PgSearch
from .tx import PgTx
from .vector_search import PgVectors

__all__ = ["PgTx", "PostgresStore", "redact"]


class PostgresStore(PgLog, PgSearch, PgVectors, PgForget):
    """`Store` on a PostgreSQL database shared by many processes (pgvector for vectors), one
    mixin per concern over `PgCore` (pool, locks, migrations, transactions, record reads):
    `PgLog` (appends, the context read), `PgSearch` (full-text search, snapshots), `PgVectors`,
    `PgForget` (forgetting, compaction)."""
