"""The PostgreSQL store's own versions of the turn's reads (#22) return what the shared SQL
returns, and the window reads keep one generic plan (planning them again on every call was most
of their cost)."""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest

from memlane import Memory
from memlane.store.common.threads import CommonThreads
from memlane.store.postgres import PostgresStore
from memlane.store.postgres.log import (
    _CONTEXT_ROWS,
    _MESSAGES_AT,
    _OLDER_ROWS,
    AHEAD,
    AHEAD_MORE,
    WINDOW_STEP,
    _sql,
)
from memlane.store.protocol import HistoryPolicy, NewMessage


@pytest.fixture
def pg(pg_url: str) -> Any:
    s = PostgresStore(pg_url, min_size=1, max_size=2)
    try:
        yield s
    finally:
        s.close()


def _fill(s: PostgresStore, thread: str, n: int) -> list[int]:
    msgs = [NewMessage("user" if i % 2 == 0 else "assistant", f"{thread} message {i}",
                       time.time(), 3) for i in range(n)]
    return [m.id for m in s.append("ns", thread, msgs, time.time(), HistoryPolicy())]


CASES = [
    [(5, 9), (30, 60), (2, 3)],
    [(-3, 50)],  # a start before the first seq: the first `limit` from seq 1
    [(10, 12), (11, 14), (10, 12)],  # overlapping and repeated ranges: each one in full
    [(7, 3)],  # empty
    [(55, 70), (58, 59)],  # past the end of the thread
    [(1, 2**40)],  # long: the first `limit`
]


@pytest.mark.parametrize("ranges", CASES)
@pytest.mark.parametrize("limit", [1, 4, 40])
def test_messages_in_equals_the_shared_query(pg: PostgresStore, ranges: list[tuple[int, int]],
                                             limit: int) -> None:
    _fill(pg, "t", 60)
    _fill(pg, "u", 20)  # another thread's seqs overlap: never returned
    got = pg.messages_in("ns", "t", ranges, limit)
    assert got == CommonThreads.messages_in(pg, "ns", "t", ranges, limit)
    assert all(m.thread_id == "t" for m in got)


def test_messages_in_after_truncate_and_a_huge_limit(pg: PostgresStore) -> None:
    _fill(pg, "t", 30)
    pg.truncate("ns", "t", 21)
    _fill(pg, "t", 5)  # seqs 21..25 handed out again
    for ranges, limit in (([(18, 30)], 40), ([(1, 10**6)], 10**6), ([(3, 4)], 0)):
        assert pg.messages_in("ns", "t", ranges, limit) == \
            CommonThreads.messages_in(pg, "ns", "t", ranges, limit)


def test_messages_by_id_equals_the_shared_query(pg: PostgresStore) -> None:
    ids = _fill(pg, "t", 10) + _fill(pg, "u", 10)
    some = ids[::3] + [ids[0], 10**9]
    assert pg.messages_by_id("ns", some) == CommonThreads.messages_by_id(pg, "ns", some)
    assert pg.messages_by_id("other", some) == []


def _plans(url: str, sql: str, args: dict[str, Any], times: int = 8) -> tuple[int, int]:
    """(generic, custom) plans PostgreSQL made for `sql` prepared and run `times` times."""
    with psycopg.connect(url, autocommit=True) as c:
        for _ in range(times):
            c.execute(sql, args, prepare=True).fetchall()
        row = c.execute("SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                        " WHERE from_sql = false").fetchall()
    assert len(row) == 1
    return int(row[0][0]), int(row[0][1])


@pytest.mark.parametrize("n", [10_000, 100_000])
def test_window_reads_keep_a_generic_plan_on_the_keys(pg: PostgresStore, pg_url: str,
                                                       n: int) -> None:
    # The shapes where it mattered: a thread of 10k or 100k messages, a stretch every 8
    # (written here by SQL: the plans depend on the sizes and the layout, not on the texts).
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO threads (namespace, thread_id, created, last_active, next_seq,"
                  " turns, filed_to) VALUES ('ns', 't', 0, 0, %s, %s, %s)", (n + 1, n // 2, n))
        c.execute("INSERT INTO messages (namespace, thread_id, seq, turn, role, content, ts,"
                  " tokens) SELECT 'ns', 't', s, (s + 1) / 2, CASE WHEN s %% 2 = 1 THEN 'user'"
                  " ELSE 'assistant' END, 'message ' || s || repeat(' words', 20), s, 3"
                  " FROM generate_series(1, %s) s",
                  (n,))
        c.execute('INSERT INTO episodes (namespace, thread_id, start, "end", n, date, line,'
                  " written) SELECT 'ns', 't', (e - 1) * 8 + 1, e * 8, e, 0, 'line ' || e, 0"
                  " FROM generate_series(1, %s) e", (n // 8,))
        # Memory steps score the turns they file (an UPDATE: a new row version elsewhere in
        # the table), so the log's physical order follows seq only loosely.
        c.execute("UPDATE messages SET relevance = 0.5 WHERE seq % 2 = 0")
        c.execute("ANALYZE")
    reads: list[tuple[str, dict[str, Any]]] = [
        (_sql(_CONTEXT_ROWS, 11, 12), {"ns": "ns", "tid": "t"}),
        (_sql(_OLDER_ROWS, 0, 12), {"ns": "ns", "tid": "t", "seq": n - 20, "id": n - 20,
                                    "have": 11, "w": 27}),
        (_MESSAGES_AT.replace("%s", "%(ns)s", 1).replace("%s", "%(tid)s", 1)
         .replace("%s", "%(seqs)s", 1), {"ns": "ns", "tid": "t",
                                         "seqs": list(range(n - 500, n - 470))}),
    ]
    for sql, args in reads:
        # After five custom plans PostgreSQL compares a generic one and keeps it if it is no
        # costlier. With the window and the line count bound (a LIMIT of unknown size) it never
        # was at 100k: the statement was planned again on every call.
        generic, _ = _plans(pg_url, sql, args)
        assert generic >= 2
        # Key ranges of the large tables, never a scan (the window's messages were one at
        # 10k; the tiny ones, threads and records here, may be scanned).
        with psycopg.connect(pg_url, autocommit=True) as c:
            plan = "\n".join(r[0] for r in c.execute("EXPLAIN " + sql, args).fetchall())
        assert "Seq Scan on messages" not in plan and "Seq Scan on episodes" not in plan, plan
    # The rows read are the store's (the same statements, through it).
    rows = pg.context_rows("ns", "t", 11, 12)
    assert rows.window[0].seq == n - 21 and len(rows.recent_episodes) == 12


def _conversation(pg_url: str, users: int) -> Memory:
    """A thread opening with a system message (turn 0), some turns with a tool message or two
    assistant messages, filed by the heuristic step as it goes (episodes to cut)."""
    mem = Memory.open(pg_url)
    t = mem.thread("t")
    t.add("system", "You are a helpful assistant.")
    for i in range(users):
        batch = [{"role": "user", "content": f"Turn {i}: my sister Ana moved to Quito on day {i}."}]
        if i % 5 == 0:
            batch.append({"role": "tool", "content": f"lookup result {i}"})
        batch.append({"role": "assistant", "content": f"Noted, day {i}."})
        if i % 7 == 0:
            batch.append({"role": "assistant", "content": "Anything else?"})
        t.extend(batch)
        if i % 4 == 3:
            t.maybe_step()
    return mem


@pytest.mark.parametrize("users", [7, 30, 130])
def test_larger_windows_grown_from_held_rows_equal_a_read(pg_url: str, users: int) -> None:
    """A window grown from held rows (`context_rows(..., held=...)`: only the older messages
    read) is the window a plain read returns, round after round, at sizes cut from the rows
    the statement reads ahead (`AHEAD`, `WINDOW_STEP`) and past them."""
    mem = _conversation(pg_url, users)
    s: Any = mem.store
    assert users < 30 or s.episodes("default", "t")
    for w in (3, 11, 30):  # 30: read ahead by AHEAD_MORE turns, not AHEAD times
        wq = -(-w // WINDOW_STEP) * WINDOW_STEP  # the read's window, rounded up
        ahead = min(AHEAD * wq, wq + AHEAD_MORE)
        for grown in range(w + 1, ahead + 6, 3):
            first = s.context_rows("default", "t", w, 12)
            cut = s.context_rows("default", "t", grown, 12, held=first)
            again = s.context_rows("default", "t", grown + 3, 12, held=cut)
            assert cut == s.context_rows("default", "t", grown, 12), (w, grown)
            assert again == s.context_rows("default", "t", grown + 3, 12)
    mem.close()


def test_held_rows_of_a_thread_that_went_are_read_again(pg_url: str) -> None:
    """Held rows whose first message is gone (the thread deleted and written again under the
    same name) are not extended: the window is read whole."""
    mem = _conversation(pg_url, 40)
    s: Any = mem.store
    first = s.context_rows("default", "t", 11, 12)
    mem.thread("t").delete()
    mem.thread("t").extend([{"role": "user", "content": f"n{i}"} for i in range(30)])
    assert s.context_rows("default", "t", 20, 12, held=first) == \
        s.context_rows("default", "t", 20, 12)
    mem.close()
