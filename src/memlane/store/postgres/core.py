"""The PostgreSQL store's pool, its lock connection, migrations, transactions and record reads."""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import psycopg.errors
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import ConnectionPool, PoolTimeout

from ...errors import StoreError
from ...types import Record
from ...validate import STANDING_KINDS
from ..common import (
    CORRECTED_IDS,
    CommonStore,
    ThreadLocks,
    pg_params,
)
from ..migrations import POSTGRES, Migration
from ..protocol import Capabilities
from .rows import _REC_COLS, _episode, _record, rec_cols
from .tx import PgTx

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


def _conn_broken(e: psycopg.OperationalError) -> bool:
    """True for errors that mean the server could not be reached or the connection dropped
    (as opposed to, say, a query cancelled by statement_timeout)."""
    sqlstate = getattr(e, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith("08") or sqlstate in ("57P01", "57P02", "57P03")


# search and recall helpers ---------------------------------------------------------------------

EF_SEARCH = 100
"""HNSW candidate list per query (pgvector's default is 40): recall over a little latency."""


def _configure(conn: psycopg.Connection[Any]) -> None:
    """Session settings of every pooled connection (set once, not per query)."""
    conn.execute(f"SET hnsw.ef_search = {EF_SEARCH}")



class PgCore(CommonStore):
    """The pool, the advisory-lock connection, migrations and transactions; the record reads
    every concern uses."""


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
        self._writes = 0
        """This object's write transactions (appends are not: they use no `transaction()`)."""
        self._writes_lock = threading.Lock()
        """Guards `_writes`: pool threads write at once."""
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
        try:
            with self._conn() as conn, conn.transaction():
                yield PgTx(conn)
        finally:
            # Counted whatever happened (a rollback only moves the revision for nothing),
            # after the commit, so a read that sees the old count read rows at least that new.
            with self._writes_lock:
                self._writes += 1

    def _changes(self) -> Hashable:
        # Migration 6's counter: every commit that changes records, their sources or episodes
        # moves it once, whichever process made it.
        row = self._q("SELECT n FROM memlane_revision WHERE id = 1")
        return int(row[0][0]) if row else 0

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

    def reopen_target(self) -> str:
        """What another process opens this same database with (`open_store`): the URL as
        given, password included, so never print it (`url` is the printable one)."""
        return self._dsn

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


    # episodes and records ----------------------------------------------------------------------
    def records(
        self, namespace: str, ids: Sequence[int] | None = None, limit: int = 1000,
        offset: int = 0, pinned_only: bool = False, *, sources: int | None = None,
        newest: bool = False,
    ) -> list[Record]:
        return self._read_records(namespace, ids, limit, offset, pinned_only, sources, newest)

    def _read_records(self, namespace: str, ids: Sequence[int] | None, limit: int,
                      offset: int, pinned_only: bool, sources: int | None = None,
                      newest: bool = False) -> list[Record]:
        cols = rec_cols(sources)
        if ids is not None:
            # Like SQLite: an explicit id list is returned whole (no limit), sorted by id.
            rows = self._q(
                f"SELECT {cols} FROM records r WHERE r.namespace = %s"
                " AND r.id = ANY(%s::bigint[]) ORDER BY r.id",
                (namespace, list(ids)),
            )
            return [_record(r) for r in rows]
        sql = f"SELECT {cols} FROM records r WHERE r.namespace = %s"
        if pinned_only:
            sql += " AND r.pinned"
        # -1 is every record (as SQLite's LIMIT -1); PostgreSQL's LIMIT NULL says the same.
        order = " ORDER BY r.id DESC" if newest else " ORDER BY r.id"
        rows = self._q(sql + order + " LIMIT %s OFFSET %s",
                       (namespace, None if limit < 0 else limit, offset))
        return [_record(r) for r in rows]

    def sources_among(self, namespace: str, record_ids: Sequence[int],
                      message_ids: Sequence[int]) -> dict[int, frozenset[int]]:
        # One round trip: the sources carry their namespace here (`record_sources_msg` is
        # (namespace, message_id)).
        if not record_ids or not message_ids:
            return {}
        out: dict[int, set[int]] = {}
        for rid, mid in self._q(
                "SELECT record_id, message_id FROM record_sources WHERE namespace = %s"
                " AND message_id = ANY(%s::bigint[]) AND record_id = ANY(%s::bigint[])",
                (namespace, [int(i) for i in message_ids], [int(i) for i in record_ids])):
            out.setdefault(rid, set()).add(mid)
        return {rid: frozenset(m) for rid, m in out.items()}

    def standing_records(self, namespace: str, limit: int) -> list[Record]:
        # One statement: the pinned rows, then each standing kind's newest (`records_kind`),
        # the costliest kind first.
        parts = [f"(SELECT {_REC_COLS}, -1 AS k FROM records r WHERE r.namespace = %s"
                 " AND r.pinned ORDER BY r.id DESC LIMIT %s)"]
        parts += [f"(SELECT {_REC_COLS}, {i} AS k FROM records r WHERE r.namespace = %s"
                  " AND r.kind = %s AND NOT r.pinned ORDER BY r.id DESC LIMIT %s)"
                  for i in range(len(STANDING_KINDS))]
        args: list[Any] = [namespace, limit]
        for kind in STANDING_KINDS:
            args += [namespace, kind, limit]
        rows = self._q(" UNION ALL ".join(parts) + " ORDER BY k, id DESC LIMIT %s",
                       (*args, limit))
        return [_record(r[:-1]) for r in rows]

    def corrected_records(self, namespace: str, limit: int, sources: int | None = None
                          ) -> list[Record]:
        return [_record(r) for r in self._q(pg_params(
            f"{CORRECTED_IDS} SELECT {rec_cols(sources)} FROM records r WHERE r.namespace = ?"
            " AND r.id IN (SELECT id FROM ids) ORDER BY r.id DESC"),
            (namespace, namespace, limit, namespace))]

    # search and recall -------------------------------------------------------------------------
    # The lexical side is PostgreSQL full text (a generated tsvector, GIN, ts_rank); the vector
    # side is pgvector (HNSW per common dimension, exact otherwise). Derived rows follow their
    # record without triggers: the tsvector is a generated column and vectors cascade on delete.
