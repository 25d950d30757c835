"""What the engines share, written once: SQL that does not depend on the engine, the bookkeeping
around the transactional primitives, row decoding, and the rules both apply (the lexical plan, the
rows of a context read).

SQL here uses `?` placeholders; each engine runs it through its own `_read` and its
transaction's `sql` (PostgreSQL turns them into `%s`: `pg_params`), so an engine keeps only the
SQL that really differs: how it appends, locks, searches and stores vectors. SQLite and
PostgreSQL cannot drift apart on the rest.
"""

from ..protocol import BOUNDED, SearchBounds
from .core import CommonCore
from .maintenance import CommonMaintenance
from .plan import (
    COMMON_DF,
    DOC_BUDGET,
    LARGE_INDEX,
    STATS_LIFETIME,
    TermStats,
    batched_df,
    bm25_idf,
    lexical_plan,
)
from .records import CommonRecords
from .rows import (
    EP_COLS,
    MSG_COLS,
    OVERLAPPING_EPISODES,
    SNAP_COLS,
    VEC_TABLES,
    VecTable,
    args_json,
    episode_dict,
    history_rows,
    message_row,
    pg_params,
    snapshot_row,
    thread_row,
    vec_table,
)
from .search import CommonSearch
from .threads import CommonThreads
from .tx import CommonTx
from .window import ThreadLocks, grown_rows, held_turns, window_rows

__all__ = [
    "BOUNDED", "COMMON_DF", "DOC_BUDGET", "EP_COLS", "LARGE_INDEX", "MSG_COLS",
    "OVERLAPPING_EPISODES", "SNAP_COLS", "STATS_LIFETIME", "VEC_TABLES", "CommonCore",
    "CommonStore", "CommonTx", "SearchBounds", "TermStats", "ThreadLocks", "VecTable",
    "args_json", "batched_df", "bm25_idf", "episode_dict", "grown_rows", "held_turns",
    "history_rows", "lexical_plan", "message_row", "pg_params", "snapshot_row", "thread_row",
    "vec_table", "window_rows",
]


class CommonStore(CommonThreads, CommonRecords, CommonSearch, CommonMaintenance):
    """The engine-independent half of a store, one mixin per concern: `CommonThreads` (threads,
    messages, episodes), `CommonRecords` (record edits and history), `CommonSearch` (lexical
    search, vectors, snapshots), `CommonMaintenance` (expiry, export, truncate), over
    `CommonCore` (what an engine gives: its primitives and class constants)."""
