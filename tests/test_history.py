"""Bounded history: TTL by wall-clock write time, a thread ceiling with LRU eviction, oversize
turns replayed head + tail while the store keeps every word."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from memlane import HistoryPolicy, Memory, Policy
from memlane.context.tokens import default_tokenizer

TK = default_tokenizer()
HOUR = 3600.0


class Clock:
    """Wall clock for the store's writes (`time.time`), moved by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock(1_800_000_000.0)
    monkeypatch.setattr(time, "time", c)
    return c


def _mem(tmp_path: Path, **history: Any) -> Memory:
    return Memory.open(tmp_path / "m.db", history=HistoryPolicy(**history))


def ids(mem: Memory) -> set[str]:
    return {t.thread_id for t in mem.threads()}


# --- TTL ----------------------------------------------------------------------------------------
def test_ttl_goes_by_write_time_not_message_time(tmp_path, clock):
    mem = _mem(tmp_path, ttl_seconds=HOUR, max_threads=None)
    t0 = clock.now
    clock.now = t0 - 2 * HOUR
    # Written two hours ago, though its messages claim to be from the future.
    mem.thread("quiet").add("user", "hello", ts=t0 + 10 * HOUR)
    clock.now = t0
    # An imported conversation: message times from 1970, written now.
    imported = mem.thread("imported")
    imported.extend([{"role": "user", "content": "a fact from long ago", "ts": 0.0},
                     {"role": "assistant", "content": "ok", "ts": 1.0}])
    assert imported.messages()[0].ts == 0.0

    # Creating "imported" already expired "quiet" (idle past the TTL), by write time alone.
    assert ids(mem) == {"imported"} and mem.expire(now=t0) == 0
    assert mem.thread("quiet").messages() == []
    assert not mem.thread("quiet").exists()

    assert mem.expire(now=t0 + HOUR - 1) == 0  # just inside the TTL
    assert mem.expire(now=t0 + HOUR + 1) == 1
    assert ids(mem) == set()
    mem.close()


def test_writing_keeps_a_thread_alive_reading_does_not(tmp_path, clock):
    mem = _mem(tmp_path, ttl_seconds=HOUR, max_threads=None)
    t0 = clock.now
    a, b = mem.thread("a"), mem.thread("b")
    a.add("user", "hi")
    b.add("user", "hi")
    clock.now = t0 + 50 * 60
    a.add("user", "still here")  # a write
    b.context(budget=2000)  # a read
    b.messages()
    assert mem.expire(now=t0 + 70 * 60) == 1
    assert ids(mem) == {"a"}
    mem.close()


def test_expiry_deletes_the_log_and_keeps_long_term_records(tmp_path, clock):
    mem = _mem(tmp_path, ttl_seconds=HOUR, max_threads=None)
    t = mem.thread("t")
    for i in range(4):
        t.add("user", f"My sister Ana moved to Lisbon in {2010 + i}.")
        t.add("assistant", "Noted.")
    [r] = t.flush()
    assert r.added and t.episodes()
    assert mem.expire(now=clock.now + 2 * HOUR) == 1
    assert t.messages() == [] and t.episodes() == []
    # Records are per namespace and outlive the conversation they came from.
    assert {x.id for x in mem.records()} == set(r.added)
    mem.close()


def test_expiry_is_scoped_to_the_namespace(tmp_path, clock):
    mem = _mem(tmp_path, ttl_seconds=HOUR, max_threads=None)
    other = mem.namespace("other")
    mem.thread("mine").add("user", "hi")
    other.thread("theirs").add("user", "hi")
    assert mem.expire(now=clock.now + 2 * HOUR) == 1
    assert ids(other) == {"theirs"}
    mem.close()


def test_no_ttl_means_no_expiry(tmp_path, clock):
    mem = _mem(tmp_path, ttl_seconds=None, max_threads=None)
    mem.thread("t").add("user", "hi")
    assert mem.expire(now=clock.now + 10**9) == 0
    assert ids(mem) == {"t"}
    mem.close()


# --- thread ceiling, LRU ------------------------------------------------------------------------
def test_thread_ceiling_evicts_the_least_recently_written(tmp_path, clock):
    mem = _mem(tmp_path, ttl_seconds=None, max_threads=3)
    other = mem.namespace("other")
    for i, tid in enumerate(["a", "b", "c"]):
        clock.now += 1
        mem.thread(tid).add("user", f"hello from {tid}", ts=100.0 - i)  # ts is irrelevant
    clock.now += 1
    other.thread("x").add("user", "another namespace has its own ceiling")
    clock.now += 1
    mem.thread("a").add("user", "a is written again")  # now b is the least recently written
    clock.now += 1
    mem.thread("b").context(budget=2000)  # reading does not count as use
    mem.thread("b").messages()
    clock.now += 1
    mem.thread("d").add("user", "a fourth thread")
    assert ids(mem) == {"a", "c", "d"}
    assert mem.thread("b").messages() == []
    clock.now += 1
    mem.thread("e").add("user", "a fifth")
    assert ids(mem) == {"a", "d", "e"}
    assert ids(other) == {"x"}
    # An evicted thread id can start over: a new log from seq 1.
    clock.now += 1
    m = mem.thread("b").add("user", "back again")
    assert m.seq == 1 and len(mem.thread("b").messages()) == 1
    assert len(ids(mem)) == 3
    mem.close()


def test_appending_to_an_existing_thread_never_evicts(tmp_path, clock):
    mem = _mem(tmp_path, ttl_seconds=None, max_threads=2)
    for tid in ["a", "b"]:
        clock.now += 1
        mem.thread(tid).add("user", "hi")
    for _ in range(5):
        clock.now += 1
        mem.thread("a").add("user", "more")
        mem.thread("b").add("user", "more")
    assert ids(mem) == {"a", "b"}
    mem.close()


# --- oversize turns -----------------------------------------------------------------------------
def test_oversize_turn_is_replayed_head_and_tail_and_stored_whole(tmp_path, clock):
    mem = Memory.open(tmp_path / "m.db", policy=Policy(max_message_tokens=120))
    t = mem.thread("t")
    big = ("REPORT START. " + " ".join(f"line {i}: value {i * 7 % 101} units;" for i in range(600))
           + " REPORT END.")
    full_tokens = TK.count_one(big)
    assert full_tokens > 3000
    t.add("user", "Please read this log.")
    t.add("tool", big, name="fetch_log")
    t.add("assistant", "Read it.")

    [stored] = [m for m in t.messages() if m.role == "tool"]
    assert stored.content == big and stored.tokens == full_tokens

    ctx = t.context(budget=4000, new_message="What was at the end?")
    [shown] = [m.content for m in ctx.messages if "REPORT START" in m.content]
    assert shown.startswith("[tool result fetch_log] REPORT START.")
    body = shown[len("[tool result fetch_log] "):]
    head, rest = body.split("\n[... ", 1)
    cut_s, tail = rest.split(" tokens truncated ...]\n", 1)
    assert big.startswith(head) and big.endswith(tail) and tail.endswith("REPORT END.")
    assert TK.count_one(body) <= 120
    cut = int(cut_s)
    assert cut == full_tokens - TK.count_one(head) - TK.count_one(tail)
    assert re.search(rf"\[\.\.\. {cut} tokens truncated \.\.\.\]", shown)
    [d] = [d for d in ctx.trace.dropped if d.reason == "oversize"]
    assert d.ref == f"msg {stored.seq}" and d.tokens == full_tokens - TK.count_one(body)
    assert ctx.trace.tokens_total <= 4000
    mem.close()


def test_creating_a_thread_expires_idle_ones_in_its_namespace(tmp_path):
    from memlane.store.protocol import HistoryPolicy, NewMessage
    from memlane.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path / "ttl.db")
    hist = HistoryPolicy(ttl_seconds=100, max_threads=None)
    msg = [NewMessage("user", "hi", 0.0, 1)]
    store.append("ns", "old", msg, 1000.0, hist)
    store.append("other", "old", msg, 1000.0, hist)
    store.append("ns", "recent", msg, 1050.0, hist)
    store.append("ns", "new", msg, 1120.0, hist)  # 'old' idle 120 s > TTL; 'recent' 70 s
    assert sorted(t.thread_id for t in store.threads("ns")) == ["new", "recent"]
    assert [t.thread_id for t in store.threads("other")] == ["old"]  # other namespaces untouched
