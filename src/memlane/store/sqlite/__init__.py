"""The embedded store: one SQLite file, WAL, hand-written parameterized SQL.

Writers take `BEGIN IMMEDIATE`, so concurrent processes appending to one thread serialize on the
database lock instead of racing for the same `seq`; readers never block in WAL mode. A process
killed mid-transaction leaves the file at the last commit (SQLite's journal guarantees it).
"""

from .core import default_path
from .forget import SQLiteForget
from .log import SQLiteLog
from .search import SQLiteSearch
from .tx import SQLiteTx
from .vector_search import SQLiteVectors

__all__ = ["SQLiteStore", "SQLiteTx", "default_path"]


class SQLiteStore(SQLiteLog, SQLiteSearch, SQLiteVectors, SQLiteForget):
    """`Store` on one SQLite file (or `:memory:`), one mixin per concern over `SQLiteCore`
    (connections, transactions, record reads): `SQLiteLog` (appends, the context read),
    `SQLiteSearch` (FTS5 search, snapshots), `SQLiteVectors`, `SQLiteForget` (forgetting,
    compaction)."""
