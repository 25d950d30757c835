"""What the engines share, written once: SQL that does not depend on the engine, the bookkeeping
around the transactional primitives, row decoding, and the rules both apply (the lexical plan, the
rows of a context read).

SQL here uses `?` placeholders; each engine runs it through its own `_read` and its
transaction's `sql` (PostgreSQL turns them into `%s`: `pg_params`), so an engine keeps only the
SQL that really differs: how it appends, locks, searches and stores vectors. SQLite and
PostgreSQL cannot drift apart on the rest.
"""

from .maintenance import CommonMaintenance
from .plan import bm25_idf
from .records import CommonRecords
from .rows import (
    CORRECTED_IDS,
    EP_COLS,
    MSG_COLS,
    SNAP_COLS,
    VecTable,
    message_row,
    pg_params,
    snapshot_row,
)
from .search import CommonSearch
from .threads import CommonThreads
from .tx import CommonTx
from .window import ThreadLocks, grown_rows, held_turns, window_rows

# What the engines (and tests) import from the package; the rest is imported from its module.
__all__ = [
    "CORRECTED_IDS", "EP_COLS", "MSG_COLS", "SNAP_COLS", "CommonStore", "CommonTx", "ThreadLocks",
    "VecTable", "bm25_idf", "grown_rows", "held_turns", "message_row", "pg_params",
    "snapshot_row", "window_rows",
]


class CommonStore(CommonThreads, CommonRecords, CommonSearch, CommonMaintenance):
    """The engine-independent half of a store, one mixin per concern: `CommonThreads` (threads,
    messages, episodes), `CommonRecords` (record edits and history), `CommonSearch` (lexical
    search, vectors, snapshots), `CommonMaintenance` (expiry, export, truncate), over
    `CommonCore` (what an engine gives: its primitives and class constants)."""
