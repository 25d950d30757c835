"""The read cache changes nothing: conversations replayed on both engines, with memory steps,
records written, edited, pinned and forgotten, undone turns and other writers between the turns,
give the same contexts (message for message, trace for trace) and the same search hits with the
cache on as a memory with the cache off (`Memory(..., cache=False)`, the reference) reads."""

from __future__ import annotations

import random
from typing import Any

import pytest

from memlane import BudgetTooSmall, Cadence, Memory, Policy
from memlane.store.open import open_store

TOPICS = ["the boiler in the attic", "my sister Ana in Porto", "the loan at Harbor Bank",
          "a trip to Lisbon in May", "the cat's vet visit", "the garden's tomatoes",
          "Clara's new job at the bakery", "the o’clock train to Sintra"]
SHARED = ["Where is the boiler?", "How is Ana doing in Porto?", "Any news on the loan?",
          "When do we leave for Lisbon?", "What did the vet say about the cat?"]
"""New messages that share words with the conversation."""
FOREIGN = ["Quantum chromodynamics, briefly?", "Recommend a jazz record.", "ok", ""]
"""New messages that share none (or are empty)."""
BUDGETS = [700, 1500, 4000, 9000]
POLICIES = [Policy(), Policy(recent_lines=2, dedupe_lines=True, buffer_turns=3),
            Policy(fill_budget=False, notes_recent=False)]


def _ctx(mem: Memory, budget: int, new: str | None, policy: Policy) -> Any:
    try:
        c = mem.thread("t").context(budget, new, policy=policy, now=1_760_000_000.0)
    except BudgetTooSmall as e:
        return f"BudgetTooSmall({e})"
    return (c.messages, c.trace, c.tools)


def _same(on: Memory, off: Memory, rnd: random.Random, where: str) -> None:
    """Contexts and searches of the cached memory are the reference's, asked twice (the second
    from what the first kept)."""
    for _ in range(2):
        new = rnd.choice([*SHARED, *FOREIGN, None])
        budget, policy = rnd.choice(BUDGETS), rnd.choice(POLICIES)
        for _ in range(2):
            assert _ctx(on, budget, new, policy) == _ctx(off, budget, new, policy), (
                where, budget, new, policy)
    query = rnd.choice(SHARED)
    hits = [(h.record.id, h.record.text, h.score) for h in on.search(query, 8)]
    assert hits == [(h.record.id, h.record.text, h.score) for h in off.search(query, 8)], where


def _write(mem: Memory, other: Memory, rnd: random.Random, i: int) -> None:
    """One turn of the conversation and, now and then, another kind of write."""
    t = mem.thread("t")
    topic = TOPICS[i % len(TOPICS)]
    t.add("user", f"Turn {i}: about {topic}, {rnd.choice(['again', 'now', 'later'])}.")
    t.add("assistant", f"Noted {topic} ({i}).")
    t.maybe_step(turn_done=True)
    op = rnd.random()
    if op < 0.08:
        mem.pin(mem.remember(f"Pinned fact {i}: {topic} matters.").id)
    elif op < 0.16:
        recs = mem.records()
        if recs:
            mem.forget(rnd.choice(recs).id)
    elif op < 0.22:
        recs = mem.records()
        if recs:
            mem.update(rnd.choice(recs).id, f"Corrected {i}: {topic} changed.")
    elif op < 0.27:
        msgs = t.messages()
        if len(msgs) > 8:
            t.truncate(msgs[-rnd.randint(2, 4)].seq)  # an SDK's undo
    elif op < 0.35:
        other.thread("t").add("user", f"From elsewhere {i}: {topic}.")  # another writer


@pytest.mark.parametrize("seed", [1, 2])
def test_contexts_and_searches_are_the_same_with_the_cache_off(store: Any, seed: int) -> None:
    rnd = random.Random(seed)
    cadence = Cadence(every_user_turns=3)
    on = Memory(store, "ns", cadence=cadence)
    off = Memory(store, "ns", cadence=cadence, cache=False)
    other = Memory(open_store(store.reopen_target() if store.capabilities.engine == "sqlite"
                              else store._dsn), "ns", cadence=cadence)
    try:
        for i in range(70):
            _write(on if i % 3 else off, other, rnd, i)
            if i % 3 == 2 or i > 60:
                _same(on, off, rnd, f"turn {i}")
        assert on.caches.memos()["reads"]  # the cache was used
        assert not off.caches.memos()["reads"] and not off.caches.scans  # the reference kept none
        on.forget_thread("t")
        assert not on.caches.memos()["reads"]
        _same(on, off, rnd, "forgotten")
    finally:
        other.store.close()


def test_the_cache_off_is_the_cache_on_across_memories(tmp_path: Any) -> None:
    """`Memory.open(..., cache=False)` reads what a cached memory on the same file reads, turn
    after turn of a conversation the cached one writes."""
    path = str(tmp_path / "m.db")
    with Memory.open(path) as on, Memory.open(path, cache=False) as off:
        rnd = random.Random(9)
        for i in range(40):
            _write(on, on, rnd, i)
            if i % 4 == 3:
                _same(on, off, rnd, f"turn {i}")


def test_rows_without_a_current_verdict_are_scanned_through_the_cache(tmp_path: Any) -> None:
    """Rows whose stored verdict is not the running scanner's (every row after the scanner
    changes) are scanned when shown: through the memory's verdicts with the cache on (the read
    lends them to the scanner, `caches.scans_during`), afresh with it off; the same context."""
    path = str(tmp_path / "m.db")
    with Memory.open(path) as on, Memory.open(path, cache=False) as off:
        rnd = random.Random(4)
        for i in range(30):
            _write(on, on, rnd, i)
        with on.store.transaction() as tx:
            for table in ("messages", "records", "episodes"):
                tx.conn.execute(f"UPDATE {table} SET scanned = 0")
        on.caches.clear()
        for budget in BUDGETS:
            assert _ctx(on, budget, SHARED[0], POLICIES[1]) == \
                _ctx(off, budget, SHARED[0], POLICIES[1])
        assert on.caches.scans and not off.caches.scans


def test_opened_stretches_are_read_once_a_revision(store: Any) -> None:
    """The pieces of the opened turns' stretches (`Thread._turn_pool`) are kept in the read
    cache: a second turn reads no stretch the first read, while a memory with the cache off
    reads them every turn; the contexts are the same, and a write that moves the revision
    (a record remembered) has them read again."""
    cadence = Cadence(every_user_turns=3)
    on = Memory(store, "ns", cadence=cadence)
    off = Memory(store, "ns", cadence=cadence, cache=False)
    rnd = random.Random(5)
    for i in range(60):
        t = on.thread("t")
        t.add("user", f"Turn {i}: about {TOPICS[i % len(TOPICS)]}, {rnd.random():.3f}.")
        t.add("assistant", f"Noted ({i}).")
        t.maybe_step(turn_done=True)
    reads: list[Any] = []
    real = store.messages_in

    def counting(*args: Any, **kw: Any) -> Any:
        reads.append(args[2])
        return real(*args, **kw)

    store.messages_in = counting
    try:
        # One window a turn (no fill state moving it): the same stretches each turn.
        new, policy = "When do we leave for Lisbon in May?", Policy(buffer_turns=3,
                                                                      fill_budget=False)
        first = _ctx(on, 4000, new, policy)
        assert reads and reads[-1], "the turn opened no stretch: the test reads nothing"
        reads.clear()
        assert _ctx(on, 4000, new, policy) == first
        assert reads == []  # every piece from the cache
        assert _ctx(off, 4000, new, policy) == first
        assert reads and reads[-1]  # the reference reads its stretches
        reads.clear()
        on.remember("We leave for Lisbon on the 3rd of May.")
        _ctx(on, 4000, new, policy)
        assert reads and reads[-1]  # the revision moved: read again
    finally:
        del store.messages_in


def test_terms_are_counted_once_a_revision(store: Any) -> None:
    """The document counts a bounded search ranks with (`Memory._term_counts`) are kept in the
    read cache: a new message sharing words with the last one has only its new words counted,
    a memory with the cache off has the store count every word, the contexts are the same, and
    a write that moves the revision has them counted again."""
    on = Memory(store, "ns", cadence=Cadence(every_user_turns=3))
    off = Memory(store, "ns", cadence=Cadence(every_user_turns=3), cache=False)
    for i in range(40):
        t = on.thread("t")
        t.add("user", f"Turn {i}: about {TOPICS[i % len(TOPICS)]}.")
        t.add("assistant", f"Noted ({i}).")
        t.maybe_step(turn_done=True)
    counted: list[str] = []
    real_counts, real_sized = store.term_counts, store._size_and_counts

    def counts(terms: Any, cap: int) -> Any:
        counted.extend(terms)
        return real_counts(terms, cap)

    def sized(terms: Any, cap: int) -> Any:
        counted.extend(terms)
        return real_sized(terms, cap)

    store.term_counts, store._size_and_counts = counts, sized
    policy = Policy(fill_budget=False, notes_recent=False)
    try:
        first = _ctx(on, 700, "When do we leave for Lisbon?", policy)
        assert {"lisbon", "leave"} <= set(counted), counted
        counted.clear()
        second = _ctx(on, 700, "Lisbon in May, with Ana?", policy)
        assert counted and "lisbon" not in counted, counted  # kept: only the new words
        assert second == _ctx(off, 700, "Lisbon in May, with Ana?", policy)
        assert first == _ctx(off, 700, "When do we leave for Lisbon?", policy)
        counted.clear()
        _ctx(off, 700, "Lisbon in May?", policy)
        assert "lisbon" in counted  # the reference counts every word
        counted.clear()
        on.remember("We leave for Lisbon on the 3rd of May.")
        _ctx(on, 700, "Lisbon in May, with Ana?", policy)
        assert "lisbon" in counted  # the revision moved: counted again
    finally:
        del store.term_counts, store._size_and_counts
