"""What the engines share, written once: SQL that does not depend on the engine, the bookkeeping
around the transactional primitives, row decoding, and the rules both apply (the lexical plan, the
rows of a context read).

SQL here uses `?` placeholders; each engine runs it through its own `_read` and its
transaction's `sql` (PostgreSQL turns them into `%s`: `pg_params`), so an engine keeps only the
SQL that really differs: how it appends, locks, searches and stores vectors. SQLite and
PostgreSQL cannot drift apart on the rest.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass
from typing import Any

from ..errors import NotFound, UsageError
from ..types import ContextRows, Episode, Message, Record, ThreadInfo, make_message
from .base import (
    BOUNDED,
    HistoryPolicy,
    SearchBounds,
    SearchFilters,
    Snapshot,
    chunks,
    snapshot_text,
)
from .fts import query_terms

MSG_COLS = "id, thread_id, seq, role, content, ts, tokens, relevance, name"
EP_COLS = 'thread_id, start, "end", line, record_ids, date, suspect'
SNAP_COLS = "id, thread_id, tool, args, result, created, tokens, namespace"
_THREAD_COLS = "thread_id, created, last_active, next_seq, filed_to"

# Lexical search on large indexes (see `lexical_plan`).
LARGE_INDEX = 100_000
"""Below this many indexed records every query term retrieves (exact ranking over the query)."""
COMMON_DF = 2_000
"""A term in at least this many documents is common: it does not retrieve on a large index."""
DOC_BUDGET = 10_000
"""At most about this many documents are scored per query on a large index."""



STATS_LIFETIME = 300.0
"""Seconds a memoised document frequency is trusted (it also goes when the index grows or
shrinks by a sixteenth, or a record is deleted)."""


class TermStats:
    """Memoised document frequencies of query terms, per namespace: which terms are rare decides
    the plan before any postings are read, and a conversation repeats its words. An estimate is
    enough (it picks the terms and weighs them; it never decides what matches), so the memo
    lives `STATS_LIFETIME` seconds and until the index size, read by every search anyway, moves
    by a sixteenth; forgetting empties it (a forgotten fact's words must not stay). Counts of
    zero are never kept (`CommonStore._bounded_search`)."""

    def __init__(self) -> None:
        self._df: dict[tuple[str, str], float] = {}
        self._size = -1.0
        self._born = 0.0

    def clear(self) -> None:
        self._df = {}

    def get(self, namespace: str, terms: Sequence[str], size: float) -> dict[str, float]:
        now = time.monotonic()
        if abs(size - self._size) > max(64.0, self._size / 16) or \
                now - self._born > STATS_LIFETIME:
            self._df, self._size, self._born = {}, size, now
        df = self._df
        return {t: df[(namespace, t)] for t in terms if (namespace, t) in df}

    def put(self, namespace: str, values: Mapping[str, float]) -> None:
        df = self._df
        if len(df) >= 65536:
            df = self._df = {}
        for t, n in values.items():
            df[(namespace, t)] = n


def bm25_idf(n: float, df: float) -> float:
    """BM25's IDF as FTS5's bm25() computes it (never below 1e-6)."""
    return max(math.log((n - df + 0.5) / (df + 0.5)), 1e-6)


# The filing claim's check (`StoreTx.overlapping_episodes`): the same SQL on both engines (each
# transaction maps the placeholders: `tx.sql`). Uses the episodes_start index; a thread has few
# episodes anyway.
OVERLAPPING_EPISODES = (
    'SELECT start, "end" FROM episodes WHERE namespace = ? AND thread_id = ?'
    ' AND start <= ? AND "end" >= ? AND NOT (start = ? AND "end" = ?) ORDER BY start'
)


def pg_params(sql: str) -> str:
    """`sql` with `?` placeholders as psycopg's `%s` (no SQL here has a literal `?` or `%`)."""
    return sql.replace("?", "%s")


def message_row(row: Sequence[Any]) -> Message:
    """A `MSG_COLS` row."""
    return make_message(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8])


def thread_row(ns: str, row: Sequence[Any]) -> ThreadInfo:
    """A `_THREAD_COLS` row."""
    return ThreadInfo(namespace=ns, thread_id=row[0], created=row[1], last_active=row[2],
                      messages=row[3] - 1, filed_to=row[4])


def snapshot_row(row: Sequence[Any]) -> Snapshot:
    """A `SNAP_COLS` row."""
    return Snapshot(id=row[0], namespace=row[7], thread_id=row[1], tool=row[2],
                    args=json.loads(row[3]), result=row[4], created=row[5], tokens=row[6])


def episode_dict(e: Episode) -> dict[str, Any]:
    return asdict(e) | {"record_ids": list(e.record_ids)}


def args_json(args: Mapping[str, Any]) -> str:
    """A snapshot's arguments as stored (sorted keys: equal calls store equal text)."""
    return json.dumps(dict(args), sort_keys=True, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class VecTable:
    """Where the vectors of one kind of row live."""

    table: str
    """The vector table."""
    id: str
    """Its column naming the owner row."""
    owner: str
    """The table of the rows embedded."""
    kind_col: str
    """The owner's column a `kinds` filter matches."""


VEC_TABLES = {
    "records": VecTable("record_vectors", "record_id", "records", "kind"),
    "snapshots": VecTable("snapshot_vectors", "snapshot_id", "snapshots", "tool"),
}


def vec_table(target: str) -> VecTable:
    try:
        return VEC_TABLES[target]
    except KeyError:
        raise UsageError(f"vector target {target!r}: use 'records' or 'snapshots'") from None


def lexical_plan(terms: Sequence[str], indexed: float, df: Callable[[str], int], *,
                 large: float | None = None, common: int | None = None,
                 budget: int | None = None) -> list[str] | None:
    """On a large index, the terms worth retrieving by (None: use every term, the plain query).

    Ranking costs a few microseconds per matching document, and a term found in 3% of a million
    records matches 30,000 of them: a query with a few such terms takes hundreds of
    milliseconds. As Lucene's "common terms" query does, terms in `COMMON_DF` documents or more
    then do not retrieve when rarer terms are present (their IDF is low, so they move the
    ranking little), and the rarer ones retrieve up to about `DOC_BUDGET` documents. Returns the
    selective terms, rarest first (all of them when none is common: the caller may then drop
    costly narrowing, as SQLite drops its namespace MATCH); an empty list means "AND of all
    terms" (a query made only of common terms). A caller whose planned query finds nothing falls
    back to the plain query, unless the plan was every term (the same query).

    `indexed`: how many records the index holds (store-wide); `df(term)`: how many documents
    hold the term, counted up to `COMMON_DF` (the cost is bounded however common the term;
    `batched_df` makes one round trip of all the terms' counts). `large`, `common` and `budget`
    replace `LARGE_INDEX`, `COMMON_DF` and `DOC_BUDGET` (read when called) for a caller with
    its own bounds (`Memory.related`).
    """
    large = LARGE_INDEX if large is None else large
    common = COMMON_DF if common is None else common
    budget = DOC_BUDGET if budget is None else budget
    if indexed < large:
        return None
    dfs = sorted((df(t), t) for t in terms)
    selective: list[str] = []
    total = 0
    for n, t in dfs:
        if n >= common or (selective and total + n > budget):
            break
        selective.append(t)
        total += n
    return selective


def batched_df(terms: Sequence[str], counts: Callable[[list[str]], list[int]]
               ) -> Callable[[str], int]:
    """A `df(term)` for `lexical_plan` that counts every term of `terms` in one call of
    `counts` (a store's bounded counts, one statement), on first use only: a small index makes
    no plan and counts nothing."""
    got: dict[str, int] = {}

    def df(term: str) -> int:
        if not got:
            got.update(zip(terms, counts(list(terms)), strict=True))
        return got[term]

    return df


def history_rows(rows: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    """A record's history rows (text, op, changed, stated, sources; oldest first) as dicts with
    each version's validity: a version (an `add` or an `update`) was `superseded` when the next
    version was stated, by the statement in that version's sources (`superseded_by`: message
    ids); the current version has neither. A `delete` row closes the last version."""
    out: list[dict[str, Any]] = []
    last: dict[str, Any] | None = None
    for text, op, changed, stated, sources in rows:
        entry: dict[str, Any] = {"text": text, "op": op, "changed": changed,
                                 "stated": stated or changed,
                                 "sources": json.loads(sources or "[]"),
                                 "superseded": None, "superseded_by": []}
        if last is not None and last["superseded"] is None:
            last["superseded"] = entry["stated"]
            last["superseded_by"] = entry["sources"] if op != "delete" else []
        out.append(entry)
        if op != "delete":
            last = entry
    return out


class CommonTx:
    """The engine-independent reads of a transaction (`StoreTx`). An engine's transaction gives
    `conn`, `sql(text)` (the shared SQL's `?` in its own placeholders) and `_lock_thread` (what
    serialises steps on one thread: PostgreSQL's row lock; SQLite's write lock is held already)."""

    conn: Any

    def sql(self, sql: str) -> str:
        raise NotImplementedError

    def _lock_thread(self, namespace: str, thread_id: str) -> None:
        """Nothing to take: the transaction serialises writers already (SQLite)."""

    def stated_at(self, namespace: str, source_ids: Sequence[int], fallback: float) -> float:
        """When a statement made in `source_ids` was said: the newest of those messages' times
        (a replayed conversation's own dates), or `fallback` (the write time) without them."""
        best: float | None = None
        for part in chunks([int(i) for i in source_ids]):
            marks = ",".join("?" * len(part))
            row = self.conn.execute(self.sql(
                f"SELECT MAX(ts) FROM messages WHERE namespace = ? AND id IN ({marks})"),
                (namespace, *part)).fetchone()
            if row is not None and row[0] is not None:
                best = float(row[0]) if best is None else max(best, float(row[0]))
        return fallback if best is None else best

    def next_version(self, namespace: str, record_id: int, text: str,
                     source_ids: Sequence[int], now: float) -> tuple[bool, float] | None:
        """What an update of the record to `text` is: (a new version?, when it is stated);
        None when there is no such record. The same text again is a repeat, not a new version:
        it gains the sources and is dated by its newest statement, and the history does not
        grow."""
        row = self.conn.execute(self.sql(
            "SELECT text, stated FROM records WHERE namespace = ? AND id = ?"),
            (namespace, record_id)).fetchone()
        if row is None:
            return None
        old_text, old_stated = str(row[0]), float(row[1])
        stated = self.stated_at(namespace, source_ids, now)
        if text != old_text:
            return True, stated
        return False, max(old_stated, stated) if source_ids else old_stated

    def records_of_step(self, namespace: str, thread_id: str, end: int) -> list[int]:
        self._lock_thread(namespace, thread_id)
        rows = self.conn.execute(self.sql(
            "SELECT id FROM records WHERE namespace = ? AND thread_id = ? AND step_end = ?"
            " ORDER BY id"), (namespace, thread_id, end)).fetchall()
        return [r[0] for r in rows]

    def message_ids(self, namespace: str, thread_id: str, start: int, end: int) -> dict[int, int]:
        self._lock_thread(namespace, thread_id)
        rows = self.conn.execute(self.sql(
            "SELECT id, seq FROM messages WHERE namespace = ? AND thread_id = ?"
            " AND seq BETWEEN ? AND ?"), (namespace, thread_id, start, end)).fetchall()
        return {r[0]: r[1] for r in rows}

    def rewrite_message(self, namespace: str, message_id: int, content: str, tokens: int) -> None:
        self.conn.execute(self.sql(
            "UPDATE messages SET content = ?, tokens = ? WHERE namespace = ? AND id = ?"),
            (content, tokens, namespace, message_id))

    def overlapping_episodes(
        self, namespace: str, thread_id: str, start: int, end: int
    ) -> list[tuple[int, int]]:
        # SQLite: inside BEGIN IMMEDIATE, no other writer can file between this read and the
        # apply. PostgreSQL: under the thread lock, and READ COMMITTED reads what committed
        # before this statement, so a step that applied while we waited for the lock is seen.
        self._lock_thread(namespace, thread_id)
        rows = self.conn.execute(self.sql(OVERLAPPING_EPISODES),
                                 (namespace, thread_id, end, start, start, end)).fetchall()
        return [(r[0], r[1]) for r in rows]


class CommonStore:
    """The engine-independent half of a store. An engine gives `transaction()`, `records()`,
    `_read(sql, args)` (rows of a `?` query), `_snapshot_reads()` (a function running `?`
    queries in one consistent read, for export), `_episode(row)` (an `EP_COLS` row),
    `_delete_thread(conn, namespace, thread_id)` and the class constants below."""

    _HISTORY_ORDER = "changed"
    """ORDER BY of a record's history (the engines break ties on their own row ids)."""
    _SKIP_LOCKED = ""
    """Suffix of the idle-threads query of `expire` (PostgreSQL: leave threads being written)."""

    def transaction(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def revision(self) -> Hashable | None:
        return None  # an engine that can tell when its rows changed says so

    def records(self, namespace: str, ids: Sequence[int] | None = None, limit: int = 1000,
                offset: int = 0, pinned_only: bool = False) -> list[Record]:
        raise NotImplementedError

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    def _snapshot_reads(self) -> AbstractContextManager[Callable[[str, Sequence[Any]],
                                                                  list[Any]]]:
        raise NotImplementedError

    @staticmethod
    def _episode(row: Sequence[Any]) -> Episode:
        raise NotImplementedError

    @staticmethod
    def _delete_thread(c: Any, namespace: str, thread_id: str) -> bool:
        raise NotImplementedError

    def setting(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM settings WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def put_setting(self, key: str, value: str, *, replace: bool = False) -> str:
        # Insert-if-absent in one statement: two processes choosing at once keep the first
        # writer's value, and both read that one back.
        with self.transaction() as tx:
            tx.conn.execute(tx.sql(
                "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO "
                + ("UPDATE SET value = excluded.value" if replace else "NOTHING")), (key, value))
        held = self.setting(key)
        assert held is not None
        return held

    def set_thread_times(self, namespace: str, thread_id: str, created: float,
                         last_active: float) -> None:
        with self.transaction() as tx:
            tx.conn.execute(tx.sql("UPDATE threads SET created = ?, last_active = ?"
                                   " WHERE namespace = ? AND thread_id = ?"),
                            (created, last_active, namespace, thread_id))

    def has_records(self) -> bool:
        return bool(self._read("SELECT 1 FROM records LIMIT 1"))

    def record_namespaces(self, prefix: str = "", kinds: Sequence[str] | None = None
                          ) -> list[str]:
        """The namespaces that hold records (of `kinds`, if given), sorted: all of them, or
        `prefix` and those under it (`prefix.`...), a range of the (namespace, id) index."""
        where, args = [], []
        if prefix:
            # '/' is the character after '.', so the range is exactly the `prefix.` names.
            where.append("(namespace = ? OR (namespace >= ? AND namespace < ?))")
            args += [prefix, prefix + ".", prefix + "/"]
        if kinds is not None:
            where.append(f"kind IN ({', '.join('?' for _ in kinds) or 'NULL'})")
            args += list(kinds)
        sql = "SELECT DISTINCT namespace FROM records"
        if where:
            sql += " WHERE " + " AND ".join(where)
        return [r[0] for r in self._read(sql + " ORDER BY 1", args)]

    # message log -------------------------------------------------------------------------------
    def thread(self, namespace: str, thread_id: str) -> ThreadInfo | None:
        rows = self._read(f"SELECT {_THREAD_COLS} FROM threads WHERE namespace = ? AND"
                          " thread_id = ?", (namespace, thread_id))
        return thread_row(namespace, rows[0]) if rows else None

    def threads(self, namespace: str, limit: int = 100, offset: int = 0) -> list[ThreadInfo]:
        rows = self._read(f"SELECT {_THREAD_COLS} FROM threads WHERE namespace = ?"
                          " ORDER BY last_active DESC LIMIT ? OFFSET ?",
                          (namespace, limit, offset))
        return [thread_row(namespace, r) for r in rows]

    def messages(
        self, namespace: str, thread_id: str, start: int = 1, end: int | None = None,
        limit: int | None = None,
    ) -> list[Message]:
        rows = self._read(
            f"SELECT {MSG_COLS} FROM messages WHERE namespace = ? AND thread_id = ?"
            " AND seq >= ? AND seq <= ? ORDER BY seq LIMIT ?",
            (namespace, thread_id, start, end if end is not None else 2**62,
             limit if limit is not None else 2**62),
        )
        return [message_row(r) for r in rows]

    def messages_by_id(self, namespace: str, ids: Sequence[int]) -> list[Message]:
        out: list[Message] = []
        for part in chunks([int(i) for i in ids]):
            marks = ",".join("?" * len(part))
            out.extend(message_row(r) for r in self._read(
                f"SELECT {MSG_COLS} FROM messages WHERE namespace = ? AND id IN ({marks})",
                (namespace, *part)))
        return sorted(out, key=lambda m: (m.thread_id, m.seq))

    def delete_thread(self, namespace: str, thread_id: str) -> bool:
        with self.transaction() as tx:
            return self._delete_thread(tx.conn, namespace, thread_id)

    def expire(self, now: float, history: HistoryPolicy, namespace: str | None = None) -> int:
        if history.ttl_seconds is None:
            return 0
        sql = "SELECT namespace, thread_id FROM threads WHERE last_active < ?"
        args: list[Any] = [now - history.ttl_seconds]
        if namespace is not None:
            sql += " AND namespace = ?"
            args.append(namespace)
        with self.transaction() as tx:
            rows = tx.conn.execute(tx.sql(sql + self._SKIP_LOCKED), args).fetchall()
            return sum(self._delete_thread(tx.conn, ns, tid) for ns, tid in rows)

    # episodes and records ----------------------------------------------------------------------
    def episodes(self, namespace: str, thread_id: str) -> list[Episode]:
        rows = self._read(f'SELECT {EP_COLS} FROM episodes WHERE namespace = ? AND'
                          ' thread_id = ? ORDER BY "end"', (namespace, thread_id))
        return [self._episode(r) for r in rows]

    def episode_lines(self, namespace: str, thread_id: str, latest: int
                      ) -> list[tuple[int, str]]:
        rows = self._read('SELECT "end", line FROM episodes WHERE namespace = ? AND'
                          ' thread_id = ? ORDER BY "end" DESC LIMIT ?',
                          (namespace, thread_id, max(0, int(latest))))
        return [(int(r[0]), str(r[1])) for r in reversed(rows)]

    def episodes_ending(self, namespace: str, thread_id: str, ends: Sequence[int]
                        ) -> list[Episode]:
        if not ends:
            return []
        marks = ", ".join("?" * len(ends))
        rows = self._read(f'SELECT {EP_COLS} FROM episodes WHERE namespace = ? AND'
                          f' thread_id = ? AND "end" IN ({marks})',
                          (namespace, thread_id, *ends))
        by_end = {e.end: e for e in (self._episode(r) for r in rows)}
        return [by_end[e] for e in ends if e in by_end]

    def update_record(
        self, namespace: str, record_id: int, text: str, now: float | None = None,
        suspect: bool = False,
    ) -> Record:
        now = time.time() if now is None else now
        with self.transaction() as tx:
            if tx.record_owner(namespace, record_id) != namespace:
                raise NotFound(f"no record #{record_id} in namespace {namespace!r}")
            tx.update_record(namespace, record_id, text, now, suspect)
        return self._written(namespace, record_id)

    def delete_record(self, namespace: str, record_id: int, now: float | None = None) -> bool:
        now = time.time() if now is None else now
        with self.transaction() as tx:
            if tx.record_owner(namespace, record_id) != namespace:
                return False
            tx.delete_record(namespace, record_id, now)
            return True

    def add_record(
        self, namespace: str, text: str, kind: str = "fact", source_ids: Sequence[int] = (),
        thread_id: str | None = None, pinned: bool = False, now: float | None = None,
        suspect: bool = False,
    ) -> Record:
        now = time.time() if now is None else now
        with self.transaction() as tx:
            # Never link across namespaces: keep only source ids that are this namespace's.
            src: list[int] = []
            for part in chunks([int(i) for i in source_ids]):
                marks = ",".join("?" * len(part))
                src.extend(r[0] for r in tx.conn.execute(tx.sql(
                    f"SELECT id FROM messages WHERE namespace = ? AND id IN ({marks})"),
                    (namespace, *part)).fetchall())
            rid = tx.add_record(namespace, text, kind, sorted(src), thread_id, now, None,
                                suspect, pinned)
        return self._written(namespace, rid)

    def pin(self, namespace: str, record_id: int, pinned: bool = True) -> Record:
        with self.transaction() as tx:
            cur = tx.conn.execute(tx.sql("UPDATE records SET pinned = ? WHERE namespace = ?"
                                         " AND id = ?"), (pinned, namespace, record_id))
            if cur.rowcount == 0:
                raise NotFound(f"no record #{record_id} in namespace {namespace!r}")
        return self._written(namespace, record_id)

    def _written(self, namespace: str, record_id: int) -> Record:
        """The record a write just committed, read back. A forget that commits between the
        write and this read has removed it: that is `NotFound` (REST 404), as if the forget had
        come first, never an IndexError (a 500)."""
        got = self.records(namespace, [record_id])
        if not got:
            raise NotFound(f"no record #{record_id} in namespace {namespace!r}: it was "
                           "forgotten as it was written")
        return got[0]

    def records_from(self, namespace: str, message_ids: Sequence[int]) -> list[Record]:
        ids: set[int] = set()
        for part in chunks([int(i) for i in message_ids]):
            marks = ",".join("?" * len(part))
            ids.update(r[0] for r in self._read(
                "SELECT id FROM records WHERE namespace = ? AND id IN (SELECT record_id FROM"
                f" record_sources WHERE message_id IN ({marks}))", (namespace, *part)))
        return self.records(namespace, sorted(ids)) if ids else []

    def record_history(self, namespace: str, record_id: int) -> list[dict[str, Any]]:
        rows = self._read("SELECT text, op, changed, stated, sources FROM record_history"
                          f" WHERE namespace = ? AND record_id = ? ORDER BY {self._HISTORY_ORDER}",
                          (namespace, record_id))
        return history_rows(rows)

    # search, vectors and snapshots -------------------------------------------------------------
    # The public methods check their arguments once; the engines' `_`-methods do the SQL.
    def search_records(
        self, namespace: str, query: str, k: int, kinds: Sequence[str] | None = None,
        thread_id: str | None = None, since: float | None = None, until: float | None = None,
    ) -> list[tuple[Record, float]]:
        terms = query_terms(query)
        if k <= 0 or not terms:
            return []
        filters = SearchFilters(tuple(kinds) if kinds is not None else None, thread_id, since,
                                until)
        bounds = self.search_bounds
        if bounds is None:
            return self._search_records(namespace, terms, k, filters)
        return self._bounded_search(namespace, terms, k, filters, bounds)

    search_bounds: SearchBounds | None = BOUNDED
    """The work one lexical search may do (`SearchBounds`); None: rank every match, exactly
    (what `benchmarks/bench_search_reach.py` compares the bounds with)."""

    @property
    def _term_stats(self) -> TermStats:
        ts = self.__dict__.get("_tstats")
        if ts is None:
            ts = self.__dict__["_tstats"] = TermStats()
        return ts

    def _bounded_search(self, namespace: str, terms: list[str], k: int, f: SearchFilters,
                        b: SearchBounds) -> list[tuple[Record, float]]:
        """`search_records` within `b` (see `SearchBounds`): at most `b.max_terms` postings lists
        are read, about `b.exact_postings` entries in all (each rare term's `b.per_term` at
        most, each common one's share), whatever the index holds."""
        size = self._index_size()
        stats = self._term_stats
        df = stats.get(namespace, terms, size)
        unknown = [t for t in terms if t not in df]
        if unknown:
            # Which terms are rarest needs every term's frequency: counted (bounded, one
            # statement) on first sight. A term in no record is not remembered (the next
            # record may hold it, and counting nothing is cheap): a memoised count only weighs
            # and orders terms, it never decides that one matches nothing.
            new = dict(zip(unknown, map(float, self._term_counts(unknown, b.count_cap)),
                           strict=True))
            stats.put(namespace, {t: n for t, n in new.items() if n > 0})
            df.update(new)
        # The rarest terms that match anything, in query order among equals (sorted is stable).
        kept = sorted((t for t in terms if df[t] > 0), key=lambda t: df[t])[:b.max_terms]
        if not kept:
            return []
        if sum(df[t] for t in kept) <= b.exact_postings:
            # Few matches in all: the engine ranks them exactly, at about the cost of the
            # bounded read below.
            return self._search_records(namespace, kept, k, f, narrow=False)
        # A rare term's postings are read whole; the common ones share what is left of
        # `exact_postings`, newest first, at least `common_take` each (a short question's few
        # common words each reach further back than a long one's).
        common = [t for t in kept if df[t] > b.per_term]
        left = b.exact_postings - sum(df[t] for t in kept if df[t] <= b.per_term)
        take = max(b.common_take, int(left // max(len(common), 1)))
        weights = [(t, bm25_idf(max(size, df[t]), df[t]),
                    b.per_term if df[t] <= b.per_term else take) for t in kept]
        return self._scored_candidates(namespace, weights, k, f)

    def _index_size(self) -> float:
        """How many records the lexical index holds, store-wide (an estimate is enough: it
        weighs terms); read on every bounded search, so it must be one cheap lookup."""
        raise NotImplementedError

    def _scored_candidates(self, namespace: str, weights: list[tuple[str, float, int]],
                           k: int, f: SearchFilters) -> list[tuple[Record, float]]:
        """One statement: for each `(term, weight, n)`, the newest (at most `n`) records of
        `namespace` passing `f` that hold the term; each candidate scores the sum of the weights
        of the terms it was found by; the `k` best, newest first on ties."""
        raise NotImplementedError

    def _search_records(self, namespace: str, terms: list[str], k: int, f: SearchFilters,
                        narrow: bool = True) -> list[tuple[Record, float]]:
        """The engine's exact ranking of every record matching any of `terms`. `narrow=False`:
        the caller knows the matches are few store-wide, so an engine need not narrow them to
        the namespace inside its index (SQLite's namespace phrase)."""
        raise NotImplementedError

    def term_counts(self, terms: Sequence[str], cap: int) -> list[int]:
        if not terms:
            return []
        return self._term_counts(list(terms), max(int(cap), 0))

    def _term_counts(self, terms: list[str], cap: int) -> list[int]:
        raise NotImplementedError

    def search_snapshots(self, namespace: str, query: str, k: int
                         ) -> list[tuple[Snapshot, float]]:
        terms = query_terms(query)
        if k <= 0 or not terms:
            return []
        return self._search_snapshots(namespace, terms, k)

    def _search_snapshots(self, namespace: str, terms: list[str], k: int
                          ) -> list[tuple[Snapshot, float]]:
        raise NotImplementedError

    def put_vectors(
        self, namespace: str, items: Sequence[tuple[int, Sequence[float]]], model: str,
        target: str = "records",
    ) -> int:
        t = vec_table(target)
        return self._put_vectors(namespace, t, items, model) if items else 0

    def _put_vectors(self, namespace: str, t: VecTable,
                     items: Sequence[tuple[int, Sequence[float]]], model: str) -> int:
        raise NotImplementedError

    def vector_candidates(
        self, namespace: str, qvec: Sequence[float], k: int,
        filters: SearchFilters | None = None, model: str = "", target: str = "records",
    ) -> list[tuple[int, float]]:
        t = vec_table(target)
        if k <= 0 or not qvec:
            return []
        return self._vector_candidates(namespace, t, qvec, k, filters or SearchFilters(), model)

    def _vector_candidates(self, namespace: str, t: VecTable, qvec: Sequence[float], k: int,
                           f: SearchFilters, model: str) -> list[tuple[int, float]]:
        raise NotImplementedError

    def save_snapshot(
        self, namespace: str, tool: str, args: Mapping[str, Any], result: str, tokens: int,
        thread_id: str | None = None, now: float | None = None,
    ) -> tuple[Snapshot, bool]:
        now = time.time() if now is None else now
        digest = hashlib.sha256(result.encode("utf-8")).hexdigest()
        return self._save_snapshot(namespace, (tool, args_json(args), result, digest, now,
                                               tokens), thread_id)

    def _save_snapshot(self, namespace: str, values: tuple[Any, ...], thread_id: str | None
                       ) -> tuple[Snapshot, bool]:
        """Insert `values` (tool, args, result, result_hash, created, tokens) unless the
        namespace holds that result_hash already; (the snapshot, whether it is new)."""
        raise NotImplementedError

    def missing_vectors(
        self, namespace: str, model: str, target: str = "records", limit: int = 1000
    ) -> list[tuple[int, str]]:
        t = vec_table(target)
        text = "o.text" if target == "records" else "o.tool, o.args, o.result"
        rows = self._read(
            f"SELECT o.id, {text} FROM {t.owner} o WHERE o.namespace = ? AND NOT EXISTS"
            f" (SELECT 1 FROM {t.table} v WHERE v.namespace = o.namespace AND v.{t.id} = o.id"
            " AND v.model = ?) ORDER BY o.id LIMIT ?",
            (namespace, model, limit),
        )
        if target == "records":
            return [(r[0], r[1]) for r in rows]
        return [(r[0], snapshot_text(r[1], json.loads(r[2]), r[3])) for r in rows]

    def snapshots(
        self, namespace: str, ids: Sequence[int] | None = None, limit: int = 1000,
        offset: int = 0,
    ) -> list[Snapshot]:
        if ids is None:
            return [snapshot_row(r) for r in self._read(
                f"SELECT {SNAP_COLS} FROM snapshots WHERE namespace = ?"
                " ORDER BY id LIMIT ? OFFSET ?", (namespace, limit, offset))]
        out: list[Snapshot] = []
        for part in chunks([int(i) for i in ids]):
            marks = ",".join("?" * len(part))
            out.extend(snapshot_row(r) for r in self._read(
                f"SELECT {SNAP_COLS} FROM snapshots WHERE namespace = ? AND id IN ({marks})",
                (namespace, *part)))
        return sorted(out, key=lambda s: s.id)

    # export ------------------------------------------------------------------------------------
    def export_namespace(self, namespace: str) -> dict[str, Any]:
        with self._snapshot_reads() as q:  # one consistent snapshot of the namespace
            threads = []
            for t in q(f"SELECT {_THREAD_COLS} FROM threads WHERE namespace = ?"
                       " ORDER BY created, thread_id", (namespace,)):
                info = thread_row(namespace, t)
                msgs = q(f"SELECT {MSG_COLS} FROM messages WHERE namespace = ? AND"
                         " thread_id = ? ORDER BY seq", (namespace, info.thread_id))
                eps = q(f'SELECT {EP_COLS} FROM episodes WHERE namespace = ? AND'
                        ' thread_id = ? ORDER BY "end"', (namespace, info.thread_id))
                threads.append({
                    "thread_id": info.thread_id, "created": info.created,
                    "last_active": info.last_active, "filed_to": info.filed_to,
                    "messages": [asdict(message_row(m)) for m in msgs],
                    "episodes": [episode_dict(self._episode(e)) for e in eps],
                })
            recs = self._export_records(q, namespace)
            by_id: dict[int, list[Any]] = {}
            for row in q(
                "SELECT record_id, text, op, changed, stated, sources FROM record_history"
                f" WHERE namespace = ? ORDER BY {self._HISTORY_ORDER}", (namespace,)
            ):
                by_id.setdefault(row[0], []).append(row[1:])
            hist = {rid: history_rows(rows) for rid, rows in by_id.items()}
            records = [asdict(r) | {"source_ids": list(r.source_ids),
                                    "history": hist.get(r.id, [])} for r in recs]
            snaps = [asdict(snapshot_row(r)) for r in q(
                f"SELECT {SNAP_COLS} FROM snapshots WHERE namespace = ? ORDER BY id",
                (namespace,))]
        return {"namespace": namespace, "format": "memlane-export/1", "threads": threads,
                "records": records, "snapshots": snaps}

    def _export_records(self, q: Callable[[str, Sequence[Any]], list[Any]], namespace: str
                        ) -> list[Record]:
        """Every record of the namespace with its sources, read through `q`."""
        raise NotImplementedError

    def truncate(self, namespace: str, thread_id: str, from_seq: int,
                 now: float | None = None) -> int:
        """Drop the thread's messages from `from_seq` on; returns how many went.

        The seqs are handed out again (the log stays 1..N, which windows and stretches rely
        on). Undo never loses what the user still said: a memory step whose stretch reaches a
        dropped message is withdrawn only as far as the cut. A record it added goes only when
        every one of its source messages went (and the user has not pinned it); a record with
        a source that remains is kept with its id, pin and text (a fact the user stated in a
        message still in the log), its links to the dropped messages removed. The step's
        episode is re-filed over what remains: a stretch that starts before the cut now ends
        just before it (same line, same `n`, pointing at the records it kept), so the kept
        turns are never filed twice and nothing is re-extracted; a stretch wholly past the cut
        goes, and the records of it that are kept stand on their own (no step owns them).
        Records a step *updated* keep the new text.
        """
        now = time.time() if now is None else now
        with self.transaction() as tx:
            q = tx.sql
            c = tx.conn
            # Touching the thread row first takes its row lock on PostgreSQL (SQLite holds the
            # write lock already): an append or a step in flight on this thread lands first.
            c.execute(q("UPDATE threads SET last_active = ? WHERE namespace = ?"
                        " AND thread_id = ?"), (now, namespace, thread_id))
            dropped = {int(r[0]) for r in c.execute(q(
                "SELECT id FROM messages WHERE namespace = ? AND thread_id = ? AND seq >= ?"),
                (namespace, thread_id, from_seq)).fetchall()}
            eps = [(int(r[0]), int(r[1])) for r in c.execute(q(
                'SELECT start, "end" FROM episodes WHERE namespace = ? AND thread_id = ?'
                ' AND "end" >= ? ORDER BY "end"'), (namespace, thread_id, from_seq)).fetchall()]
            for start, end in eps:
                for rid in tx.records_of_step(namespace, thread_id, end):
                    row = c.execute(q("SELECT pinned FROM records WHERE namespace = ?"
                                      " AND id = ?"), (namespace, rid)).fetchone()
                    sources = {int(r[0]) for r in c.execute(q(
                        "SELECT message_id FROM record_sources WHERE record_id = ?"),
                        (rid,)).fetchall()}
                    if sources and sources <= dropped and not (row and row[0]):
                        tx.delete_record(namespace, rid, now)
                    else:  # kept: owned by the shortened step, or by no step at all
                        c.execute(q("UPDATE records SET step_end = ? WHERE namespace = ?"
                                    " AND id = ?"),
                                  (from_seq - 1 if start < from_seq else None, namespace, rid))
                if start < from_seq:
                    c.execute(q('UPDATE episodes SET "end" = ? WHERE namespace = ?'
                                ' AND thread_id = ? AND "end" = ?'),
                              (from_seq - 1, namespace, thread_id, end))
                else:
                    c.execute(q('DELETE FROM episodes WHERE namespace = ? AND thread_id = ?'
                                ' AND "end" = ?'), (namespace, thread_id, end))
            # Links to the dropped messages go with them (a new message could reuse an id).
            for part in chunks(sorted(dropped)):
                marks = ", ".join("?" * len(part))
                c.execute(q(f"DELETE FROM record_sources WHERE message_id IN ({marks})"),
                          tuple(part))
            gone = c.execute(q(
                "DELETE FROM messages WHERE namespace = ? AND thread_id = ? AND seq >= ?"
            ), (namespace, thread_id, from_seq)).rowcount
            c.execute(q(
                "UPDATE threads SET next_seq = ?,"
                " turns = COALESCE((SELECT MAX(turn) FROM messages"
                "   WHERE namespace = ? AND thread_id = ?), 0),"
                ' filed_to = COALESCE((SELECT MAX("end") FROM episodes'
                "   WHERE namespace = ? AND thread_id = ?), 0)"
                " WHERE namespace = ? AND thread_id = ? AND next_seq > ?"
            ), (from_seq, namespace, thread_id, namespace, thread_id, namespace, thread_id,
                from_seq))
            return int(gone or 0)


class ThreadLocks:
    """One lock per (namespace, thread) key, for this process; a key's lock lives while
    someone holds or waits for it."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[tuple[str, str], tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, namespace: str, thread_id: str) -> Iterator[None]:
        key = (namespace, thread_id)
        with self._guard:
            lock, users = self._locks.get(key) or (threading.Lock(), 0)
            self._locks[key] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._locks[key]
                if users == 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)

# the context read -------------------------------------------------------------------------------
# What `Store.context_rows` returns, built from what the engine read: the engines differ in how
# they read (SQLite: a few indexed reads in one read transaction; PostgreSQL: one statement), not
# in what the rows are.

def window_rows(
    thread_id: str, start: int, msgs: Sequence[Message], filed_to: int,
    first: Episode | None, recent: Sequence[Episode], count: int, pinned: tuple[Record, ...],
) -> ContextRows:
    """The rows of the window that starts at seq `start`. `msgs`: the thread's messages from
    seq `start - 1` on (the one before the window, the probe, first if it exists); `recent`: the
    newest episodes that start before `start`, newest first; `count`: the filing number `n` of
    the newest of them (episodes are numbered 1, 2, ... in filing order, so it is how many start
    before the window, without counting rows)."""
    truncated = bool(msgs) and msgs[0].seq < start
    window = tuple(msgs[1:] if truncated else msgs)
    if not truncated:
        return ContextRows(thread_id, window, False, None, (), 0, 0, pinned)
    return ContextRows(
        thread_id=thread_id, window=window, truncated=True, first_episode=first,
        recent_episodes=tuple(recent), episodes_before_window=count,
        unfiled_before_window=max(0, (start - 1) - filed_to), pinned=pinned,
    )


def held_turns(held: ContextRows | None, thread_id: str, window_turns: int) -> int | None:
    """How many turns `held` (rows an earlier `context_rows` call returned) holds, if a window of
    `window_turns` can be read as `held` plus older rows; None if it must be read whole (no rows
    held, another thread, the whole thread in view already, no window, not a larger one)."""
    if held is None or held.thread_id != thread_id or not held.truncated or not held.window:
        return None
    # A truncated window starts at the user message of its first turn, and each of its turns
    # starts with one: the held window's turns are its user messages.
    have = [m.role for m in held.window].count("user")
    return have if window_turns > have else None


def grown_rows(
    held: ContextRows, start: int, older: Sequence[Message], recent: Sequence[Episode],
    count: int,
) -> ContextRows:
    """The rows of a larger window starting at seq `start`, from `held` (the rows of the window
    it contains) and what the engine read for it: `older`, the messages from seq `start - 1` up to
    the held window (the probe first if it exists); `recent` and `count` as in `window_rows`."""
    truncated = bool(older) and older[0].seq < start
    window = tuple(older[1:] if truncated else older) + held.window
    if not truncated:
        return ContextRows(held.thread_id, window, False, None, (), 0, 0, held.pinned)
    # held.unfiled is max(0, held_start - 1 - filed_to): the messages between the two starts
    # were unfiled ones first.
    moved = held.window[0].seq - start
    return ContextRows(
        thread_id=held.thread_id, window=window, truncated=True,
        first_episode=held.first_episode, recent_episodes=tuple(recent),
        episodes_before_window=count,
        unfiled_before_window=max(0, held.unfiled_before_window - moved), pinned=held.pinned,
    )
