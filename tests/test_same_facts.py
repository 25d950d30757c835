"""Same input, same facts (issue 41): the same conversations filed on SQLite and on PostgreSQL,
filing as they go or in one batch, by a background worker or in the caller, on a quiet machine
or beside another thread writing to another namespace, leave the same current records with the
same histories."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

from memlane import Memory
from memlane.step.related import pick
from memlane.step.runner import StepWorker
from memlane.store.postgres import PostgresStore
from memlane.store.sqlite import SQLiteStore
from memlane.types import Record

SMALL = ["How was your weekend?", "The weather is nice today.", "I watched a film last night.",
         "Can you suggest a recipe for dinner?", "I'm a bit tired today.",
         "What's a good book to read?", "Tell me a joke.", "I had pasta for lunch."]


def conversations(seed: int) -> dict[str, list[str]]:
    """User messages by thread, one namespace: restated values (a locker number, a bus), a
    correction, other people's facts sharing their words, small talk between."""
    rnd = random.Random(seed)
    out: dict[str, list[str]] = {}
    # Another thread first: many records that share the words of what is restated later.
    out["others"] = [rnd.choice([
        f"Ann{i}'s locker number is {rnd.randint(1, 99)}.",
        f"Room number {i} is next to the pool.",
        f"My colleague Sam{i} takes bus number {rnd.randint(1, 99)}."]) for i in range(60)]
    turns = []
    for i in range(16):
        if i % 2 == 0:
            turns.append(f"My locker at the pool is number {rnd.randint(100, 400)}.")
        else:
            turns.append(rnd.choice(SMALL))
    out["pool"] = turns
    out["moves"] = ["I live in Leeds.", rnd.choice(SMALL), "My daughter is 7 years old.",
                    rnd.choice(SMALL), "Actually we moved to York last month.",
                    rnd.choice(SMALL), "My bus to work is the number 42.", rnd.choice(SMALL),
                    "The bus to work is the number 19 now.", rnd.choice(SMALL)]
    return out


def replay(mem: Memory, convs: dict[str, list[str]], how: str) -> None:
    """`how`: "turns" (maybe_step after each turn), "batch" (every message first, then one
    filing per thread), "worker" (a background `StepWorker` after each turn)."""
    ts = 1.7e9
    worker: StepWorker[str] | None = None
    if how == "worker":
        worker = StepWorker(lambda tid, n: mem.step_runner().file_due(tid, max_steps=n))
    for tid, said in convs.items():
        t = mem.thread(tid)
        for text in said:
            t.add("user", text, ts=ts)
            t.add("assistant", "Okay.", ts=ts + 1)
            ts += 60
            if how == "turns":
                t.maybe_step()
            elif worker is not None:
                worker.submit(tid)
        if worker is not None:
            worker.wait()
        if how == "batch":
            t.maybe_step()
        t.flush()
    if worker is not None:
        worker.close()


def facts(mem: Memory) -> list[tuple[str, tuple[str, ...]]]:
    """Current records with the texts of their histories, in a form that does not depend on ids
    (another namespace's writes take ids from the same sequence)."""
    return sorted((r.text, tuple(h["text"] for h in mem.record_history(r.id)))
                  for r in mem.records(limit=10000))


class Load:
    """Another thread writing to another namespace meanwhile (appending and filing)."""

    def __init__(self, mem: Memory) -> None:
        self.other = mem.namespace("load")
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        t = self.other.thread("busy")
        i = 0
        while not self.stop.is_set():
            t.add("user", f"My locker at the pool is number {i}. And my bus is number {i}.")
            t.add("assistant", "Okay.")
            t.maybe_step()
            i += 1

    def __enter__(self) -> Load:
        self.thread.start()
        time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


def run(store: Any, convs: dict[str, list[str]], how: str, loaded: bool) -> list[Any]:
    mem = Memory(store)
    try:
        if loaded:
            with Load(mem):
                replay(mem, convs, how)
        else:
            replay(mem, convs, how)
        return facts(mem)
    finally:
        store.close()


@pytest.mark.parametrize("seed", [0, 1])
def test_the_same_conversations_give_the_same_facts_everywhere(seed, tmp_path, pg_database):
    convs = conversations(seed)
    n = 0

    def sqlite() -> SQLiteStore:
        nonlocal n
        n += 1
        return SQLiteStore(tmp_path / f"m{n}.db")

    def postgres() -> PostgresStore:
        return PostgresStore(pg_database(), min_size=1, max_size=4)

    reference = run(sqlite(), convs, "turns", False)
    pool = [t for t, _ in reference if "My locker at the pool" in t]
    assert len(pool) == 1, pool  # the restated value is one record, its history the rest
    assert len(dict(reference)[pool[0]]) == 8
    for make, how, loaded in [(postgres, "turns", False), (sqlite, "batch", False),
                              (postgres, "batch", False), (sqlite, "worker", True),
                              (postgres, "worker", True), (postgres, "turns", True)]:
        got = run(make(), convs, how, loaded)
        assert got == reference, (make.__name__, how, loaded,
                                  sorted(set(got) ^ set(reference)))


def rec(i: int, text: str) -> Record:
    return Record(id=i, namespace="u", text=text)


def test_pick_is_a_function_of_the_texts_not_of_the_engines_order():
    pool = [rec(i, f"Ann{i}'s locker number is {i}.") for i in range(1, 30)] + [
        rec(40, "My locker at the pool is number 254."),
        rec(41, "Room number 9 is next to the pool."),
        rec(42, "I live in Leeds.")]
    said = ["My locker at the pool is number 300.", "We moved to York, I no longer live in Leeds."]
    got = pick(said, pool)
    assert {r.id for r in got[:2]} == {40, 42}  # each message's best first
    for seed in range(5):
        shuffled = pool[:]
        random.Random(seed).shuffle(shuffled)
        assert [r.id for r in pick(said, shuffled)] == [r.id for r in got]
    assert pick(said, []) == [] and pick([], pool) == []


def test_an_older_statement_filed_later_does_not_replace_a_newer_one(store):
    mem = Memory(store)
    a, b = mem.thread("a"), mem.thread("b")
    a.add("user", "My bus to work is the number 36 now.", ts=1.7e9)
    a.add("assistant", "Okay.", ts=1.7e9 + 1)
    b.add("user", "My bus to work is the number 43 now.", ts=1.7e9 + 600)
    b.add("assistant", "Okay.", ts=1.7e9 + 601)
    b.flush()  # the later statement is filed first: the worker ran late on "a"
    a.flush()
    current = [r for r in mem.records(limit=10000) if "bus" in r.text]
    assert [r.text for r in current] == ["My bus to work is the number 43 now."]
    # The older value is in the history, dated when it was said, before the newer one.
    history = [(h["text"], h["stated"]) for h in mem.record_history(current[0].id)]
    assert [t for t, _ in history] == ["My bus to work is the number 36 now.",
                                       "My bus to work is the number 43 now."]
    assert history[0][1] < history[1][1]


ROOMS = [f"Room number {i} is at the pool." for i in range(5)] + [
    "Ann5's locker number is 75.", "Ann6's locker number is 65.", "Ann7's locker number is 37.",
    "Ann8's locker number is 97.", "Room number 9 is at the pool.", "My bus number is 10.",
    "Ann11's locker number is 78."]


def test_a_search_ranks_the_same_on_both_engines(tmp_path, pg_url):
    query = ("Ann12's locker number is 40. Ann13's locker number is 94. Room number 14 is at "
             "the pool. My bus number is 15.")
    got = []
    for target in (str(tmp_path / "m.db"), pg_url):
        with Memory.open(target) as mem:
            for text in ROOMS:
                mem.remember(text)
            got.append([h.record.text for h in mem.search(query, 5)])
    assert got[0] == got[1]


def test_the_same_words_remembered_twice_are_one_record(store):
    """`remember` (the tool, REST `POST /records`, the CLI): the same words again, in another
    case or spacing, add nothing; another kind, a pin or other words are another record."""
    mem = Memory(store, "again")
    first = mem.remember("I'm allergic to shellfish.")
    assert mem.remember("i'm allergic to  shellfish").id == first.id
    assert mem.remember("I'm allergic to shellfish.", kind="constraint").id != first.id
    assert mem.remember("I'm allergic to shellfish and peanuts.").id != first.id
    assert mem.remember("I'm allergic to shellfish.", pinned=True).id != first.id
    assert len(mem.records()) == 4
