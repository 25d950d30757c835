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

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import psycopg.errors
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import ConnectionPool, PoolTimeout

from ..errors import StoreError
from ..types import ContextRows, Episode, Message, Record
from .base import Capabilities, HistoryPolicy, NewMessage, SearchFilters, Snapshot
from .common import (
    EP_COLS,
    MSG_COLS,
    SNAP_COLS,
    CommonStore,
    CommonTx,
    ThreadLocks,
    VecTable,
    grown_rows,
    held_turns,
    message_row,
    pg_params,
    snapshot_row,
    window_rows,
)
from .migrations import POSTGRES, Migration

_REC_COLS = (
    "r.id, r.namespace, r.text, r.kind, r.thread_id, r.created, r.updated, r.pinned, r.suspect,"
    " ARRAY(SELECT s.message_id FROM record_sources s WHERE s.namespace = r.namespace"
    " AND s.record_id = r.id ORDER BY s.message_id), r.stated"
)

# Everything context() reads, as one statement: one round trip and one snapshot (a statement
# sees one), so the reads agree with each other as SQLite's read transaction makes them. Each
# part is an index range sized by the window, never by the thread:
# - the thread row, and the seq where the window of the last %(w)s user turns starts (one probe
#   of the (namespace, thread_id, turn) index; 1 if the thread is shorter);
# - the window's messages plus one before it: if that one comes back, history did not fit;
# - the first episode, and the newest %(k)s that start before the window; `n` numbers episodes
#   1, 2, ... in filing order, so the newest one before the window tells how many there are
#   without counting rows (that is the buffer's gap proof);
# - the namespace's pinned records (a partial index).
# The lists come back as JSON arrays of arrays (float8 prints round-trip exact in JSON).
_CONTEXT_ROWS = f"""
WITH t AS (
    SELECT t.filed_to,
           COALESCE(CASE
               WHEN %(w)s <= 0 THEN t.next_seq  -- no window: every message is history
               -- The first entry of messages_turn at or after (thread, turn T): that index's
               -- order is the only one that serves this ORDER BY, so the planner cannot pick the
               -- primary key instead, which with equality on turn it does (even without fresh
               -- statistics): it walks the thread in seq order from its start, filtering on
               -- turn, a scan of the whole thread. Turn T exists: turns are numbered 1..turns.
               WHEN t.turns > %(w)s THEN (
                   SELECT m.seq FROM messages m
                   WHERE (m.namespace, m.thread_id, m.turn)
                         >= (t.namespace, t.thread_id, t.turns - %(w)s + 1)
                   ORDER BY m.namespace, m.thread_id, m.turn, m.seq LIMIT 1) END, 1) AS start
    FROM threads t WHERE t.namespace = %(ns)s AND t.thread_id = %(tid)s
)
SELECT t.filed_to, t.start,
    (SELECT json_agg(json_build_array({MSG_COLS}) ORDER BY seq) FROM messages
     WHERE namespace = %(ns)s AND thread_id = %(tid)s AND seq >= t.start - 1),
    (SELECT json_agg(json_build_array({EP_COLS}, n, is_first)) FROM (
        (SELECT {EP_COLS}, n, TRUE AS is_first FROM episodes
         WHERE namespace = %(ns)s AND thread_id = %(tid)s ORDER BY "end" LIMIT 1)
        UNION ALL
        (SELECT {EP_COLS}, n, FALSE FROM episodes
         WHERE namespace = %(ns)s AND thread_id = %(tid)s AND start < t.start
         ORDER BY "end" DESC LIMIT %(k)s)) e),
    (SELECT json_agg(json_build_array({_REC_COLS}) ORDER BY r.id) FROM (
        SELECT * FROM records WHERE namespace = %(ns)s AND pinned ORDER BY id LIMIT 1000) r)
FROM (SELECT 1) AS one LEFT JOIN t ON TRUE
"""

# A larger window given the rows of a smaller one (`held`): one statement too, reading only what
# the larger window adds. The held window's first message (checked by id: the rows may be gone)
# gives its turn, and so the turn the larger window starts at; then the older messages up to the
# held window, plus the probe, and the newest %(k)s episodes that start before the new start.
_OLDER_ROWS = f"""
WITH s AS (
    SELECT CASE WHEN m.turn + %(have)s - %(w)s >= 2 THEN (
               SELECT m2.seq FROM messages m2
               WHERE (m2.namespace, m2.thread_id, m2.turn)
                     >= (m.namespace, m.thread_id, m.turn + %(have)s - %(w)s)
               ORDER BY m2.namespace, m2.thread_id, m2.turn, m2.seq LIMIT 1)
           ELSE 1 END AS start
    FROM messages m
    WHERE m.namespace = %(ns)s AND m.thread_id = %(tid)s AND m.seq = %(seq)s AND m.id = %(id)s
)
SELECT s.start,
    (SELECT json_agg(json_build_array({MSG_COLS}) ORDER BY seq) FROM messages
     WHERE namespace = %(ns)s AND thread_id = %(tid)s AND seq >= s.start - 1
       AND seq < %(seq)s),
    (SELECT json_agg(json_build_array({EP_COLS}, n) ORDER BY "end" DESC) FROM (
        SELECT {EP_COLS}, n FROM episodes
        WHERE namespace = %(ns)s AND thread_id = %(tid)s AND start < s.start
        ORDER BY "end" DESC LIMIT %(k)s) e)
FROM (SELECT 1) AS one LEFT JOIN s ON TRUE
"""

# An append is this one statement, so one round trip and its own transaction. The upsert creates
# the thread row or, if it exists, locks it (ON CONFLICT DO UPDATE takes the row lock) and bumps
# next_seq/turns; concurrent appends to the thread queue on that lock until this statement
# commits, so the seqs they get follow ours without a gap. If the row is being deleted (evicted,
# expired) the upsert waits for that and then inserts a fresh row: seqs start again at 1.
_APPEND = """
WITH t AS (
    INSERT INTO threads AS th (namespace, thread_id, created, last_active, next_seq, turns)
    VALUES (%(ns)s, %(tid)s, %(now)s, %(now)s, 1 + %(n)s, %(users)s)
    ON CONFLICT (namespace, thread_id) DO UPDATE SET next_seq = th.next_seq + %(n)s,
        turns = th.turns + %(users)s, last_active = %(now)s
    RETURNING th.next_seq - %(n)s AS first_seq, th.turns - %(users)s AS turns_before
)
INSERT INTO messages (namespace, thread_id, seq, turn, role, content, name, ts, tokens)
SELECT %(ns)s, %(tid)s, t.first_seq + v.i - 1, t.turns_before + v.off, v.role, v.content,
       v.name, v.ts, v.tokens
FROM t, unnest(%(off)s::bigint[], %(role)s::text[], %(content)s::text[], %(name)s::text[],
               %(ts)s::float8[], %(tokens)s::int[]) WITH ORDINALITY
     AS v(off, role, content, name, ts, tokens, i)
RETURNING seq, id
"""

# Key of the advisory lock migrations take ("memlane" in ASCII); advisory locks are per database.
MIGRATION_LOCK = 0x6D656D6C616E65
CONNECT_TIMEOUT = 10
RETRIES = 5  # LRU eviction by two new threads at once can deadlock; the loser tries again


def redact(url: str) -> str:
    """The URL (or `key=value` conninfo) with its password replaced by `***`, fit for error
    messages and logs."""
    if "://" not in url:
        try:
            params = conninfo_to_dict(url)
        except psycopg.ProgrammingError:
            return "<unparseable conninfo>"
        if "password" in params:
            params["password"] = "***"
        return make_conninfo("", **params)
    try:
        parts = urlsplit(url)
        password, port = parts.password, parts.port
    except ValueError:
        return "<unparseable URL>"
    query = re.sub(r"(?i)(^|&)password=[^&]*", r"\1password=***", parts.query)
    if password is None:
        return urlunsplit(parts._replace(query=query))
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"  # IPv6 literal
    if port is not None:
        host += f":{port}"
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}", query=query))


def _episode(row: Sequence[Any]) -> Episode:
    return Episode(
        thread_id=row[0], start=row[1], end=row[2], line=row[3],
        record_ids=tuple(row[4]), date=row[5], suspect=bool(row[6]),
    )


def _record(row: Sequence[Any]) -> Record:
    return Record(
        id=row[0], namespace=row[1], text=row[2], kind=row[3], thread_id=row[4],
        created=row[5], updated=row[6], pinned=bool(row[7]), suspect=bool(row[8]),
        source_ids=tuple(row[9]), stated=float(row[10]),
    )


class PgTx(CommonTx):
    """Primitive writes inside an open PostgreSQL transaction (`StoreTx`)."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn
        self._locked: set[tuple[str, str]] = set()

    sql = staticmethod(pg_params)
    """The shared SQL (`memlane.store.common`) for this connection: `?` becomes `%s`."""

    def _lock_thread(self, namespace: str, thread_id: str) -> None:
        # Steps on one thread serialize here (see the module docstring). A missing thread row
        # locks nothing, which is fine: there is nothing to file then.
        if (namespace, thread_id) in self._locked:
            return
        self.conn.execute(
            "SELECT 1 FROM threads WHERE namespace = %s AND thread_id = %s FOR UPDATE",
            (namespace, thread_id),
        )
        self._locked.add((namespace, thread_id))

    def record_owner(self, namespace: str, record_id: int) -> str | None:
        # Scoped like every other query: another namespace's record reads as missing, which is
        # exactly what apply_step needs (it drops ids not owned by the step's namespace).
        row = self.conn.execute(
            "SELECT namespace FROM records WHERE namespace = %s AND id = %s",
            (namespace, record_id),
        ).fetchone()
        return None if row is None else str(row[0])

    def add_record(
        self, namespace: str, text: str, kind: str, source_ids: Sequence[int],
        thread_id: str | None, now: float, step_end: int | None, suspect: bool,
        pinned: bool = False,
    ) -> int:
        row = self.conn.execute(
            "WITH r AS (INSERT INTO records (namespace, text, kind, thread_id, step_end, created,"
            " updated, pinned, suspect, stated) VALUES (%(ns)s, %(text)s, %(kind)s, %(tid)s,"
            " %(end)s, %(now)s, %(now)s, %(pinned)s, %(suspect)s, %(stated)s) RETURNING id),"
            " s AS (INSERT INTO record_sources (namespace, record_id, message_id)"
            " SELECT DISTINCT %(ns)s, r.id, m FROM r, unnest(%(src)s::bigint[]) AS m"
            " ON CONFLICT DO NOTHING),"
            " h AS (INSERT INTO record_history (namespace, record_id, text, op, changed,"
            " thread_id, stated, sources) SELECT %(ns)s, r.id, %(text)s, 'add', %(now)s,"
            " %(tid)s, %(stated)s, %(sources)s FROM r)"
            " SELECT id FROM r",
            {"ns": namespace, "text": text, "kind": kind, "tid": thread_id, "end": step_end,
             "now": now, "pinned": pinned, "suspect": suspect, "src": list(source_ids),
             "stated": self.stated_at(namespace, source_ids, now),
             "sources": json.dumps(sorted(source_ids))},
        ).fetchone()
        assert row is not None
        return int(row[0])

    def update_record(
        self, namespace: str, record_id: int, text: str, now: float, suspect: bool,
        source_ids: Sequence[int] = (),
    ) -> None:
        version = self.next_version(namespace, record_id, text, source_ids, now)
        if version is None:
            return
        new_version, stated = version
        args = {"ns": namespace, "id": record_id, "text": text, "now": now,
                "suspect": suspect, "src": list(source_ids), "stated": stated,
                "sources": json.dumps(sorted(source_ids))}
        if new_version:
            # A vector of the old text would be found by the new one's neighbours: drop it.
            self.conn.execute("DELETE FROM record_vectors WHERE namespace = %(ns)s"
                              " AND record_id = %(id)s", args)
        self.conn.execute(
            "WITH u AS (UPDATE records SET text = %(text)s, updated = %(now)s,"
            " suspect = %(suspect)s, stated = %(stated)s WHERE namespace = %(ns)s"
            " AND id = %(id)s RETURNING id)"
            " INSERT INTO record_sources (namespace, record_id, message_id)"
            " SELECT DISTINCT %(ns)s, u.id, m FROM u, unnest(%(src)s::bigint[]) AS m"
            " ON CONFLICT DO NOTHING", args)
        if new_version:
            self.conn.execute(
                "INSERT INTO record_history (namespace, record_id, text, op, changed, thread_id,"
                " stated, sources) VALUES (%(ns)s, %(id)s, %(text)s, 'update', %(now)s,"
                " (SELECT thread_id FROM records WHERE namespace = %(ns)s AND id = %(id)s),"
                " %(stated)s, %(sources)s)", args)

    def delete_record(self, namespace: str, record_id: int, now: float) -> None:
        self.conn.execute(
            "WITH d AS (DELETE FROM records WHERE namespace = %(ns)s AND id = %(id)s"
            " RETURNING id, text, thread_id),"
            " s AS (DELETE FROM record_sources WHERE namespace = %(ns)s AND record_id = %(id)s)"
            " INSERT INTO record_history (namespace, record_id, text, op, changed, thread_id,"
            " stated) SELECT %(ns)s, d.id, d.text, 'delete', %(now)s, d.thread_id, %(now)s"
            " FROM d",
            {"ns": namespace, "id": record_id, "now": now},
        )
        # Buffer lines that pointed at it lose the pointer (the line itself stays).
        self.conn.execute(
            "UPDATE episodes SET record_ids = array_remove(record_ids, %(id)s::bigint)"
            " WHERE namespace = %(ns)s AND record_ids @> ARRAY[%(id)s::bigint]",
            {"ns": namespace, "id": record_id},
        )

    def get_episode(self, namespace: str, thread_id: str, end: int) -> Episode | None:
        row = self.conn.execute(
            f'SELECT {EP_COLS} FROM episodes WHERE namespace = %s AND thread_id = %s'
            ' AND "end" = %s',
            (namespace, thread_id, end),
        ).fetchone()
        return None if row is None else _episode(row)

    def upsert_episode(self, namespace: str, episode: Episode, now: float) -> None:
        # Under the thread lock, so MAX(n) + 1 is this thread's next number and no other step
        # can take it between the read and the insert; UNIQUE (namespace, thread_id, n) backs it.
        self._lock_thread(namespace, episode.thread_id)
        self.conn.execute(
            'INSERT INTO episodes (namespace, thread_id, start, "end", n, date, line, record_ids,'
            " suspect, written) VALUES (%(ns)s, %(tid)s, %(start)s, %(end)s,"
            ' COALESCE((SELECT n FROM episodes WHERE namespace = %(ns)s AND thread_id = %(tid)s'
            ' AND "end" = %(end)s), (SELECT COALESCE(MAX(n), 0) + 1 FROM episodes'
            " WHERE namespace = %(ns)s AND thread_id = %(tid)s)),"
            " %(date)s, %(line)s, %(ids)s::bigint[], %(suspect)s, %(now)s)"
            ' ON CONFLICT (namespace, thread_id, "end") DO UPDATE SET start = excluded.start,'
            " date = excluded.date, line = excluded.line, record_ids = excluded.record_ids,"
            " suspect = excluded.suspect, written = excluded.written",
            {"ns": namespace, "tid": episode.thread_id, "start": episode.start,
             "end": episode.end, "date": episode.date, "line": episode.line,
             "ids": list(episode.record_ids), "suspect": episode.suspect, "now": now},
        )
        self.conn.execute(
            "UPDATE threads SET filed_to = GREATEST(filed_to, %s)"
            " WHERE namespace = %s AND thread_id = %s",
            (episode.end, namespace, episode.thread_id),
        )

    def set_relevance(self, namespace: str, thread_id: str, scores: dict[int, float]) -> None:
        if not scores:
            return
        self._lock_thread(namespace, thread_id)
        self.conn.execute(
            "UPDATE messages m SET relevance = v.score"
            " FROM unnest(%s::bigint[], %s::float8[]) AS v(seq, score)"
            " WHERE m.namespace = %s AND m.thread_id = %s AND m.seq = v.seq",
            (list(scores), list(scores.values()), namespace, thread_id),
        )

class PostgresStore(CommonStore):
    """`Store` on a PostgreSQL database shared by many processes (pgvector for vectors)."""

    _HISTORY_ORDER = "changed, id"
    _SKIP_LOCKED = " FOR UPDATE SKIP LOCKED"  # a thread being appended to right now is not idle
    LOCK_POLL = (0.005, 0.1)
    """First and longest wait (seconds) between tries for a thread another process holds."""

    def __init__(self, url: str, min_size: int = 1, max_size: int = 10) -> None:
        self._dsn = url
        self.url = redact(url)
        """The URL without its password: safe to print, log and show in the inspector."""
        kwargs: dict[str, Any] = {"autocommit": True}
        try:
            params = conninfo_to_dict(url)
        except psycopg.ProgrammingError as e:
            raise StoreError(f"invalid PostgreSQL URL {self.url}: {e}; expected "
                             "postgresql://USER:PASSWORD@HOST:PORT/DATABASE") from e
        if "connect_timeout" not in params:
            kwargs["connect_timeout"] = CONNECT_TIMEOUT
        self._kwargs = kwargs
        self._thread_locks = ThreadLocks()
        self._lock_conn: psycopg.Connection[Any] | None = None
        self._lock_conn_guard = threading.Lock()
        self.migrations_run: list[int] = self._migrate(POSTGRES)
        """Migration numbers this open applied (empty when the schema was already current)."""
        self.capabilities = Capabilities(engine="postgresql", path=None, parallel_search=False,
                                         concurrency=max_size)
        self.pool: ConnectionPool[Any] = ConnectionPool(
            self._dsn, min_size=min_size, max_size=max_size, kwargs=kwargs, open=False,
            name="memlane", configure=_configure,
        )
        try:
            self.pool.open(wait=True, timeout=CONNECT_TIMEOUT * 3)
        except PoolTimeout as e:
            self.pool.close()
            raise self._connection_error(e) from e

    # plumbing ----------------------------------------------------------------------------------
    def _connection_error(self, e: Exception) -> StoreError:
        return StoreError(
            f"cannot reach PostgreSQL at {self.url}: {str(e).strip()}; check that the server "
            "is running and reachable from this machine, and the user, password and database "
            "in the URL"
        )

    def _migrate(self, migrations: list[Migration]) -> list[int]:
        try:
            conn = psycopg.connect(self._dsn, **self._kwargs)
        except psycopg.OperationalError as e:
            raise self._connection_error(e) from e
        run: list[int] = []
        try:
            # Fast path, a plain read: a current schema needs no lock and no DDL, so a fleet
            # restarting does not queue, and a read replica (where DDL fails) opens too.
            known = {m.number for m in migrations}
            if conn.execute("SELECT to_regclass('_migrations')").fetchone() != (None,):
                if known <= {r[0] for r in conn.execute("SELECT number FROM _migrations")}:
                    return run
            with conn.transaction():
                # Everyone opening the store at once queues here; the first applies what is
                # missing, the rest then find every number recorded and apply nothing.
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS _migrations (number INTEGER PRIMARY KEY,"
                    " name TEXT NOT NULL, applied TIMESTAMPTZ NOT NULL DEFAULT now())"
                )
                done = {r[0] for r in conn.execute("SELECT number FROM _migrations")}
                for m in migrations:
                    if m.number in done:
                        continue
                    try:
                        conn.execute(m.sql)  # no parameters: sent as one script
                    except psycopg.errors.InsufficientPrivilege as e:
                        raise StoreError(
                            f"migration {m.number} ({m.name}) on {self.url} needs a "
                            f"privilege the user lacks: {e}; run `memlane migrate` once as the "
                            "database owner (or have an administrator create the extension)"
                        ) from e
                    conn.execute(
                        "INSERT INTO _migrations (number, name) VALUES (%s, %s)",
                        (m.number, m.name),
                    )
                    run.append(m.number)
        except StoreError:
            raise
        except psycopg.OperationalError as e:
            raise self._connection_error(e) from e
        except psycopg.Error as e:
            raise StoreError(f"migrating {self.url} failed: {e}") from e
        finally:
            conn.close()
        return run

    def migrations_applied(self) -> list[int]:
        return [r[0] for r in self._q("SELECT number FROM _migrations ORDER BY 1")]

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection; connection failures become a StoreError that names the URL."""
        try:
            with self.pool.connection() as conn:
                yield conn
        except PoolTimeout as e:
            raise StoreError(
                f"no PostgreSQL connection free within {self.pool.timeout:g}s for "
                f"{self.url}: the server is unreachable or every one of the pool's "
                f"{self.pool.max_size} connections is busy; raise max_size or check the server"
            ) from e
        except psycopg.errors.TransactionRollback as e:
            raise StoreError(f"write conflict on {self.url}: {e}; retry the call") from e
        except psycopg.errors.ReadOnlySqlTransaction as e:
            raise StoreError(
                f"{self.url} is read-only (a replica, or default_transaction_read_only): "
                "send writes (appends, memory steps, records, forgetting) to the primary"
            ) from e
        except psycopg.OperationalError as e:
            if _conn_broken(e):
                raise self._connection_error(e) from e
            raise

    @contextmanager
    def transaction(self) -> Iterator[PgTx]:
        with self._conn() as conn, conn.transaction():
            yield PgTx(conn)

    def _q(self, sql: str, args: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        with self._conn() as conn:
            return conn.execute(sql, args).fetchall()

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        return self._q(pg_params(sql), tuple(args))

    _episode = staticmethod(_episode)

    @contextmanager
    def _snapshot_reads(self) -> Iterator[Callable[[str, Sequence[Any]], list[Any]]]:
        with self._conn() as c, c.transaction():
            # One consistent snapshot, as SQLite's read transaction gives.
            c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield lambda sql, args: c.execute(pg_params(sql), tuple(args)).fetchall()

    def _export_records(self, q: Callable[[str, Sequence[Any]], list[Any]], namespace: str
                        ) -> list[Record]:
        return [_record(r) for r in q(f"SELECT {_REC_COLS} FROM records r WHERE"
                                      " r.namespace = ? ORDER BY r.id", (namespace,))]

    def clear_memos(self) -> None:
        """Nothing to drop: this store memoises nothing."""

    def close(self) -> None:
        with self._lock_conn_guard:
            if self._lock_conn is not None:
                self._lock_conn.close()
                self._lock_conn = None
        self.pool.close()

    @contextmanager
    def hold_thread(self, namespace: str, thread_id: str) -> Iterator[None]:
        # The in-process lock first: one request per thread per process polls PostgreSQL.
        with self._thread_locks.hold(namespace, thread_id):
            digest = hashlib.sha256(f"{namespace}\0{thread_id}".encode()).digest()
            key = int.from_bytes(digest[:8], "big", signed=True)
            wait, longest = self.LOCK_POLL
            while not self._lock_call("SELECT pg_try_advisory_lock(%s)", key):
                time.sleep(wait)
                wait = min(longest, wait * 2)
            try:
                yield
            finally:
                try:
                    self._lock_call("SELECT pg_advisory_unlock(%s)", key)
                except StoreError:  # the session is gone, and its locks with it
                    pass

    def _lock_call(self, sql: str, key: int) -> bool:
        with self._lock_conn_guard:
            try:
                if self._lock_conn is None or self._lock_conn.closed:
                    self._lock_conn = psycopg.connect(self._dsn, **self._kwargs)
                row = self._lock_conn.execute(sql, (key,)).fetchone()
            except psycopg.OperationalError as e:
                if self._lock_conn is not None:
                    self._lock_conn.close()
                self._lock_conn = None
                raise self._connection_error(e) from e
        return bool(row and row[0])

    # message log -------------------------------------------------------------------------------
    def append(
        self, namespace: str, thread_id: str, messages: Sequence[NewMessage], now: float,
        history: HistoryPolicy,
    ) -> list[Message]:
        offsets: list[int] = []  # user turns among messages[:i + 1]
        users = 0
        for m in messages:
            users += m.role == "user"
            offsets.append(users)
        with self._conn() as c:
            rows = c.execute(_APPEND, {
                "ns": namespace, "tid": thread_id, "now": now, "n": len(messages),
                "users": users, "off": offsets, "role": [m.role for m in messages],
                "content": [m.content for m in messages], "name": [m.name for m in messages],
                "ts": [m.ts for m in messages], "tokens": [m.tokens for m in messages],
            }).fetchall()
        rows.sort()
        if rows and rows[0][0] == 1:
            # The thread's first messages: it is new, so history is bounded now, as on SQLite:
            # idle threads past the TTL go, then the least recently written past the ceiling.
            if history.ttl_seconds is not None:
                self.expire(now, history, namespace)
            if history.max_threads is not None:
                self._evict(namespace, thread_id, history.max_threads - 1)
        return [
            Message(id=mid, thread_id=thread_id, seq=seq, role=m.role, content=m.content,
                    ts=m.ts, tokens=m.tokens, name=m.name)
            for (seq, mid), m in zip(rows, messages, strict=True)
        ]

    def _evict(self, ns: str, keep_id: str, keep: int) -> None:
        for attempt in range(RETRIES):
            try:
                with self.transaction() as tx:
                    self._evict_lru(tx.conn, ns, keep_id, keep)
                return
            except StoreError as e:
                # Two processes creating threads at once may each evict the other's victims
                # and deadlock; PostgreSQL aborts one, which tries again.
                if not isinstance(e.__cause__, psycopg.errors.TransactionRollback) or \
                        attempt == RETRIES - 1:
                    raise
                time.sleep(random.uniform(0, 0.01 * 2**attempt))

    def _evict_lru(self, c: psycopg.Connection[Any], ns: str, keep_id: str, keep: int) -> None:
        rows = c.execute(
            "SELECT thread_id FROM threads WHERE namespace = %s AND thread_id <> %s"
            " ORDER BY last_active DESC, thread_id OFFSET %s",
            (ns, keep_id, max(keep, 0)),
        ).fetchall()
        for (tid,) in rows:
            self._delete_thread(c, ns, tid)

    @staticmethod
    def _delete_thread(c: psycopg.Connection[Any], ns: str, thread_id: str) -> bool:
        # The thread row first, as its own statement: it waits for an append in flight, and the
        # deletes after it take fresh snapshots that include that append's messages. (One
        # statement with CTEs would share a snapshot taken before the wait and orphan them.)
        gone = c.execute(
            "DELETE FROM threads WHERE namespace = %s AND thread_id = %s RETURNING 1",
            (ns, thread_id),
        ).fetchone()
        c.execute("DELETE FROM messages WHERE namespace = %s AND thread_id = %s", (ns, thread_id))
        c.execute("DELETE FROM episodes WHERE namespace = %s AND thread_id = %s", (ns, thread_id))
        return gone is not None

    def context_rows(
        self, namespace: str, thread_id: str, window_turns: int, buffer_lines: int,
        held: ContextRows | None = None,
    ) -> ContextRows:
        have = held_turns(held, thread_id, window_turns)
        if held is not None and have is not None:
            first = held.window[0]
            with self._conn() as c:
                row = c.execute(_OLDER_ROWS, {
                    "ns": namespace, "tid": thread_id, "seq": first.seq, "id": first.id,
                    "have": have, "w": window_turns, "k": max(buffer_lines, 1)}).fetchone()
            assert row is not None
            start, msg_rows, ep_rows = row
            if start is not None:  # else the held rows are gone: read the window whole
                recent = [_episode(r) for r in ep_rows or ()]
                return grown_rows(held, start, [message_row(r) for r in msg_rows or ()], recent,
                                  ep_rows[0][7] if ep_rows else 0)
        with self._conn() as c:
            row = c.execute(_CONTEXT_ROWS, {"ns": namespace, "tid": thread_id,
                                            "w": window_turns, "k": max(buffer_lines, 1)}
                            ).fetchone()
        assert row is not None
        filed_to, start, msg_rows, ep_rows, pin_rows = row
        pinned = tuple(_record(r) for r in pin_rows or ())
        if start is None:  # no such thread
            return ContextRows(thread_id, (), False, None, (), 0, 0, pinned)
        msgs = [message_row(r) for r in msg_rows or ()]
        ep_rows = ep_rows or []
        first_ep = next((r for r in ep_rows if r[8]), None)
        recent_rows = [r for r in ep_rows if not r[8]]
        return window_rows(thread_id, start, msgs, filed_to,
                           _episode(first_ep) if first_ep else None,
                           [_episode(r) for r in recent_rows],
                           recent_rows[0][7] if recent_rows else 0, pinned)

    # episodes and records ----------------------------------------------------------------------
    def records(
        self, namespace: str, ids: Sequence[int] | None = None, limit: int = 1000,
        offset: int = 0, pinned_only: bool = False,
    ) -> list[Record]:
        if ids is not None:
            # Like SQLite: an explicit id list is returned whole (no limit), sorted by id.
            rows = self._q(
                f"SELECT {_REC_COLS} FROM records r WHERE r.namespace = %s"
                " AND r.id = ANY(%s::bigint[]) ORDER BY r.id",
                (namespace, list(ids)),
            )
            return [_record(r) for r in rows]
        sql = f"SELECT {_REC_COLS} FROM records r WHERE r.namespace = %s"
        if pinned_only:
            sql += " AND r.pinned"
        rows = self._q(sql + " ORDER BY r.id LIMIT %s OFFSET %s", (namespace, limit, offset))
        return [_record(r) for r in rows]

    # search and recall -------------------------------------------------------------------------
    # The lexical side is PostgreSQL full text (a generated tsvector, GIN, ts_rank); the vector
    # side is pgvector (HNSW per common dimension, exact otherwise). Derived rows follow their
    # record without triggers: the tsvector is a generated column and vectors cascade on delete.

    def _search_records(self, namespace: str, terms: list[str], k: int, f: SearchFilters,
                        narrow: bool = True) -> list[tuple[Record, float]]:
        # Terms are OR-ed (as on SQLite) and ranked with ts_rank, normalised by document length
        # (flag 1): per-term frequency over length, the shape of BM25 without its IDF. Cover
        # density (ts_rank_cd) ranks OR queries no better and cost 3x as much per matching row
        # (21.6 vs 6.4 ms p50 at 20k records, ~4,700 matches a query).
        where, fargs = _filters("r", f)
        sql = (f"SELECT {_REC_COLS}, ts_rank(r.tsv, q, 1) AS score"
               " FROM records r, to_tsquery('english', %(q)s) AS q"
               f" WHERE r.namespace = %(ns)s AND r.tsv @@ q{where}"
               " ORDER BY score DESC, r.id LIMIT %(k)s")
        args = {"ns": namespace, "k": k, **fargs}
        rows = self._q(sql, {**args, "q": " | ".join(terms)})
        return [(_record(r[:-1]), float(r[-1])) for r in rows]

    def _index_size(self) -> float:
        # The largest id: one step down the primary key (reltuples lags until ANALYZE).
        row = self._q("SELECT max(id) FROM records", {})
        return float(row[0][0] or 0) if row else 0.0

    def _scored_candidates(self, namespace: str, weights: list[tuple[str, float, int]],
                           k: int, f: SearchFilters) -> list[tuple[Record, float]]:
        # Per term, the planner either walks the namespace's ids backwards and stops at the
        # LIMIT (a common term: matches are dense) or reads the term's GIN entry (a rare one);
        # no ts_rank over every match. BM25 at tf = 1 as on SQLite, a record's length being its
        # lexemes (`length(tsv)`) against the candidates' average; summed here, k rows back.
        where, fargs = _filters("r", f)
        args: dict[str, Any] = {"ns": namespace, "k": k, **fargs}
        subs = []
        for j, (t, w, n) in enumerate(weights):
            args[f"t{j}"], args[f"w{j}"], args[f"n{j}"] = t, w, n
            subs.append(f"(SELECT r.id, %(w{j})s::float8 AS w, length(r.tsv) AS d FROM records r"
                        f" WHERE r.namespace = %(ns)s"
                        f" AND r.tsv @@ to_tsquery('english', %(t{j})s){where}"
                        f" ORDER BY r.id DESC LIMIT %(n{j})s)")
        sql = ("WITH u AS (" + " UNION ALL ".join(subs) + "),"
               " a AS (SELECT greatest(avg(d), 1) AS m FROM u),"
               " cand AS (SELECT id, sum(w * 2.2 / (1 + 1.2 * (0.25 + 0.75 * d / a.m)))"
               " AS score FROM u, a GROUP BY id ORDER BY score DESC, id DESC LIMIT %(k)s)"
               f" SELECT {_REC_COLS}, cand.score FROM cand"
               " JOIN records r ON r.namespace = %(ns)s AND r.id = cand.id"
               " ORDER BY cand.score DESC, cand.id DESC")
        rows = self._q(sql, args)
        return [(_record(r[:-1]), float(r[-1])) for r in rows]

    def _term_counts(self, terms: list[str], cap: int) -> list[int]:
        with self._conn() as c:
            return _term_counts(c, terms, cap)

    def _put_vectors(self, namespace: str, t: VecTable,
                     items: Sequence[tuple[int, Sequence[float]]], model: str) -> int:
        # Ids not in this namespace find no owner row in the join and are skipped.
        rows = self._q(
            f"INSERT INTO {t.table} (namespace, {t.id}, model, dim, vec)"
            f" SELECT %(ns)s, o.id, %(model)s, vector_dims(x.v::vector), x.v::vector"
            f" FROM unnest(%(ids)s::bigint[], %(vecs)s::text[]) AS x(id, v)"
            f" JOIN {t.owner} o ON o.namespace = %(ns)s AND o.id = x.id"
            f" ON CONFLICT (namespace, {t.id}) DO UPDATE SET model = excluded.model,"
            " dim = excluded.dim, vec = excluded.vec RETURNING 1",
            {"ns": namespace, "model": model, "ids": [int(i) for i, _ in items],
             "vecs": [_vec_text(v) for _, v in items]},
        )
        return len(rows)

    def _vector_candidates(self, namespace: str, t: VecTable, qvec: Sequence[float], k: int,
                           f: SearchFilters, model: str) -> list[tuple[int, float]]:
        dim = len(qvec)
        where, fargs = _filters("o", f, kind_col=t.kind_col)
        args = {"ns": namespace, "model": model, "dim": dim, "q": _vec_text(qvec), "k": k,
                **fargs}
        rows_from = (f" FROM {t.table} v JOIN {t.owner} o ON o.namespace = v.namespace"
                     f" AND o.id = v.{t.id} WHERE v.namespace = %(ns)s AND v.model = %(model)s"
                     f" AND v.dim = %(dim)s{where}")
        with self._conn() as c:
            rows: list[Any] = []
            if dim in HNSW_DIMS:
                # Through the HNSW index (when the planner picks it). The graph walk filters
                # after it finds neighbours, so for a namespace that is a small part of a big
                # table it can come back short: then the exact scan below answers.
                cast = f"v.vec::vector({dim}) <=> %(q)s::vector({dim})"
                sql = f"SELECT v.{t.id}, 1 - ({cast}){rows_from} ORDER BY {cast} LIMIT %(k)s"
                if 2 * k <= EF_SEARCH:  # the connection's setting is enough: one round trip
                    rows = c.execute(sql, args).fetchall()
                else:
                    with c.transaction():
                        c.execute(f"SET LOCAL hnsw.ef_search = {min(1000, 2 * k)}")
                        rows = c.execute(sql, args).fetchall()
            if len(rows) < k:
                # Exact: the namespace's rows (a btree range) scored one by one. MATERIALIZED
                # keeps the planner from turning this back into an index walk.
                rows = c.execute(
                    f"WITH c AS MATERIALIZED (SELECT v.{t.id} AS id, v.vec{rows_from})"
                    " SELECT id, 1 - (vec <=> %(q)s::vector) AS sim FROM c"
                    " ORDER BY sim DESC, id LIMIT %(k)s", args).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]

    # snapshots ---------------------------------------------------------------------------------
    def _save_snapshot(self, namespace: str, values: tuple[Any, ...], thread_id: str | None
                       ) -> tuple[Snapshot, bool]:
        # Two processes saving the same result at once: the unique key lets one insert, and the
        # other reads that row back.
        with self.transaction() as tx:
            row = tx.conn.execute(
                "INSERT INTO snapshots (namespace, thread_id, tool, args, result, result_hash,"
                " created, tokens) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
                f" ON CONFLICT (namespace, result_hash) DO NOTHING RETURNING {SNAP_COLS}",
                (namespace, thread_id, *values),
            ).fetchone()
            if row is not None:
                return snapshot_row(row), True
            row = tx.conn.execute(
                f"SELECT {SNAP_COLS} FROM snapshots WHERE namespace = %s AND result_hash = %s",
                (namespace, values[3]),
            ).fetchone()
            assert row is not None
            return snapshot_row(row), False

    def _search_snapshots(self, namespace: str, terms: list[str], k: int
                          ) -> list[tuple[Snapshot, float]]:
        tsq = " | ".join(terms)  # letters and digits only (memlane.store.fts): no tsquery syntax
        rows = self._q(
            f"SELECT {SNAP_COLS}, ts_rank(s.tsv, q, 1) AS score"
            " FROM snapshots s, to_tsquery('english', %(q)s) AS q"
            " WHERE s.namespace = %(ns)s AND s.tsv @@ q ORDER BY score DESC, s.id LIMIT %(k)s",
            {"q": tsq, "ns": namespace, "k": k},
        )
        return [(snapshot_row(r[:8]), float(r[8])) for r in rows]

    # forgetting and export ---------------------------------------------------------------------
    @staticmethod
    def _erase_records(c: psycopg.Connection[Any], namespace: str, ids: Sequence[int]) -> int:
        """Delete records with their sources, history and pointers in buffer lines (the
        tsvector is in the row; vectors cascade)."""
        if not ids:
            return 0
        args = {"ns": namespace, "ids": [int(i) for i in ids]}
        n = c.execute("DELETE FROM records WHERE namespace = %(ns)s AND id = ANY(%(ids)s)",
                      args).rowcount
        c.execute("DELETE FROM record_sources WHERE namespace = %(ns)s"
                  " AND record_id = ANY(%(ids)s)", args)
        c.execute("DELETE FROM record_history WHERE namespace = %(ns)s"
                  " AND record_id = ANY(%(ids)s)", args)
        c.execute(
            "UPDATE episodes SET record_ids = ARRAY(SELECT x FROM unnest(record_ids)"
            " WITH ORDINALITY AS u(x, i) WHERE x <> ALL(%(ids)s::bigint[]) ORDER BY i)"
            " WHERE namespace = %(ns)s AND record_ids && %(ids)s::bigint[]", args)
        return n

    def forget_record(self, namespace: str, record_id: int) -> bool:
        self._term_stats.clear()  # query words with their counts: nothing forgotten stays
        with self.transaction() as tx:
            return self._erase_records(tx.conn, namespace, [record_id]) > 0

    def forget_thread(self, namespace: str, thread_id: str) -> dict[str, int]:
        self._term_stats.clear()  # query words with their counts: nothing forgotten stays
        with self.transaction() as tx:
            c = tx.conn
            args = {"ns": namespace, "tid": thread_id}
            # Lock the thread first, so an append in flight lands before we count and delete.
            c.execute("SELECT 1 FROM threads WHERE namespace = %(ns)s AND thread_id = %(tid)s"
                      " FOR UPDATE", args)
            rids = [r[0] for r in c.execute(
                "SELECT id FROM records WHERE namespace = %(ns)s AND thread_id = %(tid)s", args)]
            out = {"records": self._erase_records(c, namespace, rids)}
            # The history of the thread's records deleted earlier (by a step, or replaced by a
            # retry) still holds their text: it goes too.
            c.execute("DELETE FROM record_history WHERE namespace = %(ns)s AND record_id IN"
                      " (SELECT record_id FROM record_history WHERE namespace = %(ns)s"
                      " AND thread_id = %(tid)s)", args)
            # Records of other threads that cite these messages lose those source links.
            c.execute("DELETE FROM record_sources s USING messages m WHERE s.namespace = %(ns)s"
                      " AND m.namespace = %(ns)s AND m.thread_id = %(tid)s"
                      " AND s.message_id = m.id", args)
            out["snapshots"] = c.execute(
                "DELETE FROM snapshots WHERE namespace = %(ns)s AND thread_id = %(tid)s",
                args).rowcount
            # _delete_thread removes messages and episodes; count them first, as SQLite does.
            for table in ("messages", "episodes"):
                row = c.execute(f"SELECT COUNT(*) FROM {table} WHERE namespace = %(ns)s"
                                " AND thread_id = %(tid)s", args).fetchone()
                out[table] = int(row[0]) if row else 0
            out["threads"] = int(self._delete_thread(c, namespace, thread_id))
            return out

    def forget_namespace(self, namespace: str) -> dict[str, int]:
        self._term_stats.clear()  # query words with their counts: nothing forgotten stays
        out: dict[str, int] = {}
        with self.transaction() as tx:
            # Children before parents (vectors would cascade anyway); every table leads with
            # namespace, so each delete is one index range (one shard, under Citus).
            for table in ("record_vectors", "record_sources", "record_history", "records",
                          "snapshot_vectors", "snapshots", "episodes", "messages", "threads"):
                out[table] = tx.conn.execute(f"DELETE FROM {table} WHERE namespace = %s",
                                             (namespace,)).rowcount
        return {k: out[k] for k in ("threads", "messages", "episodes", "records", "snapshots")}

    def compact(self) -> None:
        """Rewrite memlane's tables from live rows only (VACUUM FULL) and checkpoint.

        VACUUM FULL takes an exclusive lock on each table while it rewrites it: run it in a
        maintenance window. Deleted rows may survive outside the tables, in WAL segments not yet
        recycled, in WAL archives and in backups and replicas: those follow the server's own
        retention, which memlane cannot shorten."""
        with self._conn() as c:
            for table in ("records", "record_vectors", "record_sources", "record_history",
                          "snapshots", "snapshot_vectors", "episodes", "messages", "threads"):
                c.execute(f"VACUUM (FULL, ANALYZE) {table}")
            try:
                c.execute("CHECKPOINT")
            except psycopg.errors.InsufficientPrivilege:
                pass  # needs superuser or pg_checkpoint; the server checkpoints on its own


def _conn_broken(e: psycopg.OperationalError) -> bool:
    """True for errors that mean the server could not be reached or the connection dropped
    (as opposed to, say, a query cancelled by statement_timeout)."""
    sqlstate = getattr(e, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith("08") or sqlstate in ("57P01", "57P02", "57P03")


# search and recall helpers ---------------------------------------------------------------------

HNSW_DIMS = frozenset({256, 384, 768, 1024, 1536})
"""Vector sizes with an HNSW index (migration 2); others are searched exactly."""

EF_SEARCH = 100
"""HNSW candidate list per query (pgvector's default is 40): recall over a little latency."""


def _configure(conn: psycopg.Connection[Any]) -> None:
    """Session settings of every pooled connection (set once, not per query)."""
    conn.execute(f"SET hnsw.ef_search = {EF_SEARCH}")

def _vec_text(v: Sequence[float]) -> str:
    """pgvector's text form; repr keeps every float exact."""
    return "[" + ",".join(repr(float(x)) for x in v) + "]"


def _filters(alias: str, f: SearchFilters, kind_col: str = "kind"
             ) -> tuple[str, dict[str, Any]]:
    sql, args = "", dict[str, Any]()
    if f.kinds is not None:
        sql += f" AND {alias}.{kind_col} = ANY(%(f_kinds)s::text[])"
        args["f_kinds"] = list(f.kinds)
    if f.thread_id is not None:
        sql += f" AND {alias}.thread_id = %(f_thread)s"
        args["f_thread"] = f.thread_id
    if f.since is not None:
        sql += f" AND {alias}.created >= %(f_since)s"
        args["f_since"] = f.since
    if f.until is not None:
        sql += f" AND {alias}.created <= %(f_until)s"
        args["f_until"] = f.until
    return sql, args


def _term_counts(c: psycopg.Connection[Any], terms: Sequence[str], cap: int) -> list[int]:
    """Records holding each term (store-wide), each counted up to `cap`, in one statement (a
    bounded count per term, as a LATERAL subquery per array element)."""
    rows = c.execute(
        "SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM records WHERE tsv @@"
        " to_tsquery('english', t.term) LIMIT %s) x)"
        " FROM unnest(%s::text[]) WITH ORDINALITY AS t(term, n) ORDER BY t.n",
        (cap, list(terms))).fetchall()
    return [int(r[0]) for r in rows]
