"""The message log on PostgreSQL: the one-statement append (with history bounds) and the one-
statement context read."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

import psycopg
import psycopg.errors

from ...errors import StoreError
from ...types import ContextRows, Episode, Message, Record
from ..common import (
    EP_COLS,
    MSG_COLS,
    grown_rows,
    held_turns,
    message_row,
    window_rows,
)
from ..protocol import HistoryPolicy, NewMessage
from .core import RETRIES, PgCore
from .rows import _REC_COLS, _episode, _record

# Everything context() reads, as one statement: one round trip and one snapshot (a statement
# sees one), so the reads agree with each other as SQLite's read transaction makes them. Each
# part is an index range sized by the window, never by the thread:
# - the thread row, and the seq where the window of the last {w} user turns starts (one probe
#   of the (namespace, thread_id, turn) index; 1 if the thread is shorter); the same for {a}
#   turns, the window read ahead (`_Ahead`);
# - the messages of the window read ahead, plus one before it: if that one comes back, history
#   did not fit;
# - the first episode, the ones that start inside the window read ahead (the window's own
#   too: a smaller window than {w} may be cut from these rows, `WINDOW_STEP`), and the newest
#   {k} that start before it; `n` numbers episodes 1, 2, ... in filing order, so the newest one
#   before a window tells how many there are without counting rows (the buffer's gap proof);
# - the namespace's pinned records (a partial index).
# The lists come back as JSON arrays of arrays (float8 prints round-trip exact in JSON).
# {w}, {a} and {k} are written into the text (`_sql`), not bound: with a bound LIMIT the
# generic plan looks costlier than a custom one, so PostgreSQL planned the statement again on
# every call (about 1 ms of a 1.3 ms read at 100k messages); with them written in, the prepared
# statement keeps one generic plan (every part is a key range either way). They are ints of
# the policy: a few texts per store.
#
# Where the window of the last {w} turns starts: with no window every message is history; else
# the first entry of messages_turn at or after (thread, turn T): that index's order is the only
# one that serves this ORDER BY, so the planner cannot pick the primary key instead, which with
# equality on turn it does (even without fresh statistics): it walks the thread in seq order
# from its start, filtering on turn, a scan of the whole thread. Turn T exists: turns are
# numbered 1..turns.
_WINDOW_START = """COALESCE(CASE
    WHEN {w} <= 0 THEN t.next_seq
    WHEN t.turns > {w} THEN (
        SELECT m.seq FROM messages m
        WHERE (m.namespace, m.thread_id, m.turn)
              >= (t.namespace, t.thread_id, t.turns - {w} + 1)
        ORDER BY m.namespace, m.thread_id, m.turn, m.seq LIMIT 1) END, 1)"""
_CONTEXT_ROWS = f"""
WITH t AS (
    SELECT t.filed_to, t.turns, t.next_seq,
           {_WINDOW_START} AS start,
           {_WINDOW_START.replace("{w}", "{a}")} AS far
    FROM threads t WHERE t.namespace = %(ns)s AND t.thread_id = %(tid)s
)
SELECT t.filed_to, t.start, t.far, t.turns, t.next_seq,
    -- `seq < next_seq` holds for every message (the same snapshot): it is there for the
    -- planner. With one bound of unknown value it takes a third of the thread to match and,
    -- from about 10k messages, scans the table instead of the key range (1.3 ms at 10k and
    -- growing); with both, a narrow range, the key range.
    (SELECT json_agg(json_build_array({MSG_COLS}) ORDER BY seq) FROM messages
     WHERE namespace = %(ns)s AND thread_id = %(tid)s AND seq >= t.far - 1
       AND seq < t.next_seq),
    (SELECT json_agg(json_build_array({EP_COLS}, n, is_first)) FROM (
        (SELECT {EP_COLS}, n, TRUE AS is_first FROM episodes
         WHERE namespace = %(ns)s AND thread_id = %(tid)s ORDER BY "end" LIMIT 1)
        UNION ALL
        (SELECT {EP_COLS}, n, FALSE FROM episodes
         WHERE namespace = %(ns)s AND thread_id = %(tid)s AND start >= t.far
           AND start < t.next_seq)  -- both bounds, for the planner (as for the messages)
        UNION ALL
        (SELECT {EP_COLS}, n, FALSE FROM episodes
         WHERE namespace = %(ns)s AND thread_id = %(tid)s AND start < t.far
         ORDER BY "end" DESC LIMIT {{k}})) e),
    (SELECT json_agg(json_build_array({_REC_COLS}) ORDER BY r.id) FROM (
        SELECT * FROM records WHERE namespace = %(ns)s AND pinned ORDER BY id LIMIT 1000) r)
FROM (SELECT 1) AS one LEFT JOIN t ON TRUE
"""

AHEAD = 4
"""The first read takes AHEAD times the window's turns (`_Ahead`), at most `AHEAD_MORE` more:
the budget filler's larger windows then need no second round trip. In the bench threads (#22)
the filler grows an 11-turn window to 26-50 turns."""
AHEAD_MORE = 64
"""At most this many turns read ahead (a policy with a long window does not read 4x of it)."""
WINDOW_STEP = 8
"""The first read's window is rounded up to a multiple of this in the statement's text (the
exact window is cut from what it read): few texts, each planned once."""


class _Ahead:
    """What one context read read: the messages and episodes of a window up to `AHEAD` times
    as large as asked (rounded up to `WINDOW_STEP` turns), in one snapshot; the window asked
    for is cut from them (`start_of`, `rows`)."""

    def __init__(self, thread_id: str, far: int, turns: int, msg_rows: list[Any],
                 episodes: list[tuple[Episode, int]], first: Episode | None, filed_to: int,
                 pinned: tuple[Record, ...], k: int) -> None:
        self.thread_id, self.far, self.turns = thread_id, far, turns
        self.msg_rows = msg_rows  # `MSG_COLS` rows, in seq order, decoded when cut (`rows`)
        self.episodes = episodes  # (episode, n), newest first
        self.first, self.filed_to, self.pinned, self.k = first, filed_to, pinned, k
        # The user messages of the window read ahead, oldest first: each starts a turn.
        self.users = [r[2] for r in msg_rows if r[2] >= far and r[3] == "user"]

    def start_of(self, window_turns: int) -> int | None:
        """Where the window of the last `window_turns` turns starts, if the rows read ahead
        hold it (as `_WINDOW_START` finds it)."""
        if window_turns <= 0:
            return None
        if self.turns <= window_turns:
            return 1 if self.far <= 1 else None
        i = len(self.users) - window_turns
        return self.users[i] if i >= 0 else None

    def rows(self, start: int) -> ContextRows:
        msgs = [message_row(r) for r in self.msg_rows if r[2] >= start - 1]
        recent = [(e, n) for e, n in self.episodes if e.start < start][:self.k]
        return window_rows(self.thread_id, start, msgs, self.filed_to, self.first,
                           [e for e, _ in recent], recent[0][1] if recent else 0, self.pinned)


# A larger window given the rows of a smaller one (`held`): one statement too, reading only what
# the larger window adds. The held window's first message (checked by id: the rows may be gone)
# gives its turn, and so the turn the larger window starts at; then the older messages up to the
# held window, plus the probe, and the newest {k} episodes that start before the new start.
# {k} written in, as above; the held and wanted window sizes vary turn by turn, so stay bound.
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
        ORDER BY "end" DESC LIMIT {{k}}) e)
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


def _sql(template: str, w: int, k: int) -> str:
    """`template` with the window `w`, the window read ahead and the line count `k` written in
    (see _CONTEXT_ROWS); a few microseconds, so not cached (the library keeps no module-level
    caches)."""
    return template.format(w=int(w), a=min(AHEAD * int(w), int(w) + AHEAD_MORE), k=int(k))


# The messages of a few seq ranges of one thread, by their seqs: `seq = ANY(array)` has the same
# estimate whatever the values, so the prepared statement keeps one generic plan (a range bound
# per part planned it again on every call). The log is gapless (seqs 1..N), so a range's first
# `limit` messages are the seqs start .. start + limit - 1.
_MESSAGES_AT = f"""
SELECT {MSG_COLS} FROM messages
WHERE namespace = %s AND thread_id = %s AND seq = ANY(%s::bigint[])
"""


class PgLog(PgCore):
    """Appending messages, evicting and deleting threads, reading a context window."""

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
        # Its records stay, detached from its steps (see the SQLite store's `_delete_thread`).
        c.execute("UPDATE records SET step_end = NULL WHERE namespace = %s AND thread_id = %s"
                  " AND step_end IS NOT NULL", (ns, thread_id))
        return gone is not None

    def messages_in(self, namespace: str, thread_id: str,
                    ranges: Sequence[tuple[int, int]], limit: int) -> list[Message]:
        if not ranges or limit <= 0:
            return []
        parts = [range(a, min(int(b), a + int(limit) - 1) + 1)
                 for a, b in ((max(int(a), 1), b) for a, b in ranges)]
        if sum(map(len, parts)) > 4096:  # not what a turn asks: the ranges, as SQLite reads them
            return super().messages_in(namespace, thread_id, ranges, limit)
        rows = self._q(_MESSAGES_AT, (namespace, thread_id,
                                      sorted({s for p in parts for s in p})))
        by_seq = {m.seq: m for m in map(message_row, rows)}
        # Range by range, each in seq order, as the shared query's UNION ALL returns them.
        return [by_seq[s] for p in parts for s in p if s in by_seq]

    def messages_by_id(self, namespace: str, ids: Sequence[int]) -> list[Message]:
        # By the (namespace, id) key, one statement whatever the count (an array, no IN list).
        # The shared SQL hides the namespace from SQLite's planner (`namespace || ''`), which
        # here left no index on id alone: a scan of every message (21 ms a turn at 100k).
        if not ids:
            return []
        rows = self._q(f"SELECT {MSG_COLS} FROM messages WHERE namespace = %s"
                       " AND id = ANY(%s::bigint[])", (namespace, [int(i) for i in ids]))
        return sorted((message_row(r) for r in rows), key=lambda m: (m.thread_id, m.seq))

    def message_seqs(self, namespace: str, thread_id: str, ids: Sequence[int]
                     ) -> dict[int, int]:
        # By the (namespace, id) key, as `messages_by_id`.
        if not ids:
            return {}
        rows = self._q("SELECT id, seq FROM messages WHERE namespace = %s"
                       " AND id = ANY(%s::bigint[]) AND thread_id = %s",
                       (namespace, [int(i) for i in ids], thread_id))
        return {int(i): int(seq) for i, seq in rows}

    def context_rows(
        self, namespace: str, thread_id: str, window_turns: int, buffer_lines: int,
        held: ContextRows | None = None,
    ) -> ContextRows:
        have = held_turns(held, thread_id, window_turns)
        if held is not None and have is not None:
            first = held.window[0]
            with self._conn() as c:
                row = c.execute(_sql(_OLDER_ROWS, 0, max(buffer_lines, 1)), {
                    "ns": namespace, "tid": thread_id, "seq": first.seq, "id": first.id,
                    "have": have, "w": window_turns}).fetchone()
            assert row is not None
            start, msg_rows, ep_rows = row
            if start is not None:  # else the held rows are gone: read the window whole
                recent = [_episode(r) for r in ep_rows or ()]
                return grown_rows(held, start, [message_row(r) for r in msg_rows or ()], recent,
                                  ep_rows[0][8] if ep_rows else 0)
        k = max(buffer_lines, 1)
        # The window's size is written into the statement (its plan is kept), and a caller's
        # window moves turn by turn: the statement reads the window rounded up to
        # `WINDOW_STEP` turns and the exact one is cut from the rows, so a handful of
        # statement texts serve every size.
        wq = -(-window_turns // WINDOW_STEP) * WINDOW_STEP if window_turns > 0 else window_turns
        for w in dict.fromkeys((wq, window_turns)):  # the exact window if it is not in wq's rows
            with self._conn() as c:
                row = c.execute(_sql(_CONTEXT_ROWS, w, k),
                                {"ns": namespace, "tid": thread_id}).fetchone()
            assert row is not None
            filed_to, start, far, turns, next_seq, msg_rows, ep_rows, pin_rows = row
            pinned = tuple(_record(r) for r in pin_rows or ())
            if start is None:  # no such thread
                return ContextRows(thread_id, (), False, None, (), 0, 0, pinned)
            ep_rows = ep_rows or []
            first_ep = next((r for r in ep_rows if r[9]), None)
            # Newest first; the first episode may also be among them (as its own row).
            eps = sorted(((_episode(r), int(r[8])) for r in ep_rows if not r[9]),
                         key=lambda en: -en[0].end)
            ahead = _Ahead(thread_id, far, turns, msg_rows or [], eps,
                           _episode(first_ep) if first_ep else None, filed_to, pinned, k)
            if w != window_turns:
                start = ahead.start_of(window_turns)
            if start is not None:
                break
        assert start is not None
        return ahead.rows(start)
