"""A context window's rows (`context_rows`, and a larger window grown from held rows) after
every kind of write, through this store or another connection on the same database, are the
rows a newly opened store reads (both engines)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memlane import Memory
from memlane.memory import Thread
from memlane.store.open import open_store

WINDOWS = [(2, 3), (4, 6), (9, 6), (40, 6)]


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "m.db")
    return str(request.getfixturevalue("pg_url"))


def _fresh_rows(path: str, w: int, lines: int) -> object:
    other = open_store(path)
    try:
        return other.context_rows("ns", "t", w, lines)
    finally:
        other.close()


def _filed(target: str, turns: int) -> tuple[Memory, Thread]:
    """A memory on `target` whose thread "t" holds `turns` question/answer turns, filed."""
    mem = Memory.open(target, namespace="ns")
    th = mem.thread("t")
    for i in range(turns):
        th.add("user", f"question {i}")
        th.add("assistant", f"answer {i}")
    th.flush()
    return mem, th


def _check(mem: Memory, path: str) -> None:
    for w, lines in WINDOWS:
        got = mem.store.context_rows("ns", "t", w, lines)
        # The budget filler's larger window, from the rows it holds.
        grown = mem.store.context_rows("ns", "t", w + 3, lines, held=got)
        assert got == _fresh_rows(path, w, lines), (w, lines)
        assert grown == _fresh_rows(path, w + 3, lines), (w + 3, lines)


def test_window_rows_stay_exact_through_every_kind_of_write(target: str) -> None:
    path = target
    mem = Memory.open(path, namespace="ns")
    other = Memory.open(path, namespace="ns")  # another process would write the same way
    th, th2 = mem.thread("t"), other.thread("t")
    rnd = random.Random(7)
    words = "boiler attic fuse cellar flight lisbon sister anna bike train".split()
    for i in range(120):
        op = rnd.random()
        text = f"turn {i}: " + " ".join(rnd.choice(words) for _ in range(6))
        if op < 0.45:
            th.add("user", text)
            th.add("assistant", "noted " + text)
        elif op < 0.55:
            th2.add("user", text)  # another connection's append
        elif op < 0.65:
            th.add("user", text)  # a turn not answered yet
        elif op < 0.75:
            th.maybe_step(turn_done=True)  # episodes, records, relevance of messages
        elif op < 0.8 and th.exists():
            rec = mem.remember(text)
            mem.pin(rec.id)
        elif op < 0.85 and th.exists():
            msgs = th.messages()
            if len(msgs) > 6:
                th.truncate(msgs[-rnd.randint(1, 5)].seq)  # an SDK's undo
        elif op < 0.9:
            recs = mem.records()
            if recs:
                mem.forget(rnd.choice(recs).id)  # redacts its sources in the log
        elif op < 0.92:
            th.delete()
        else:
            th.add("user", text)
            th.add("assistant", "x " * rnd.randint(1, 40))
        if th.exists():
            _check(mem, path)
    mem.close()
    other.close()


def test_truncated_and_appended_back_to_the_same_length(target: str) -> None:
    """Another connection undoes the last turn and a new one takes its place: the thread's
    counters are as they were (PostgreSQL's revision moves with records and episodes only), but
    the last message is a new row: the window holds it."""
    mem = Memory.open(target, namespace="ns")
    other = Memory.open(target, namespace="ns")
    th = mem.thread("t")
    for i in range(12):
        th.add("user", f"question {i}")
        th.add("assistant", f"answer {i}")
    before = mem.store.context_rows("ns", "t", 3, 6)
    last_user = th.messages()[-2]
    other.thread("t").truncate(last_user.seq)
    other.thread("t").add("user", "a different question")
    other.thread("t").add("assistant", "a different answer")
    after = mem.store.context_rows("ns", "t", 3, 6)
    assert after == _fresh_rows(target, 3, 6) and after != before
    assert after.window[-1].content == "a different answer"
    mem.close()
    other.close()
