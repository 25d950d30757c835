"""What a read sees, and what the memory's read cache keeps between calls (the notes searches,
the line index, the opened turns' stretches), stays exact when the rows change: through this
store, and through a second store or `Memory` on the same database (another process would write
the same way: SQLite's `data_version`, PostgreSQL's revision counter of migration 6)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memlane import Memory
from memlane.store.open import open_store
from memlane.store.protocol import SearchBounds
from memlane.store.sqlite import SQLiteStore


def _kept(mem: Memory, what: str) -> bool:
    """Whether the memory's read cache holds an entry of kind `what`."""
    return any(key[0] == what for key in mem.caches.memos()["reads"])


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """One database, on each engine: its path or URL (open it as often as a test needs: each
    store object is its own connection, as another process's would be)."""
    if request.param == "sqlite":
        return str(tmp_path / "m.db")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def stores(target: str) -> Iterator[Callable[[], Any]]:
    opened: list[Any] = []

    def make() -> Any:
        opened.append(open_store(target))
        return opened[-1]

    yield make
    for s in opened:
        s.close()


def _msgs(store: Any, n: int) -> list[int]:
    from memlane.store.protocol import HistoryPolicy, NewMessage

    got = store.append("ns", "t", [NewMessage("user", f"message {i}", time.time(), 3)
                                   for i in range(n)], time.time(), HistoryPolicy())
    return [m.id for m in got]


def test_revision_moves_on_own_and_other_writes_not_on_appends(stores: Callable[[], Any]
                                                               ) -> None:
    a, b = stores(), stores()
    _msgs(a, 1)  # a new thread (it may evict idle ones)
    r0 = a.revision()
    _msgs(a, 2)
    assert a.revision() == r0  # appending messages changes no record or episode
    a.add_record("ns", "the boiler is in the attic")
    r1 = a.revision()
    assert r1 != r0
    b.add_record("ns", "the fuse box is in the cellar")
    assert a.revision() != r1  # another connection's commit
    if isinstance(a, SQLiteStore):
        r2 = a.revision()
        _msgs(b, 1)
        assert a.revision() != r2  # another connection's append: it cannot tell, so it moves
    else:
        r2 = a.revision()
        _msgs(b, 1)
        assert a.revision() == r2  # the counter moves with records and episodes only
        with b.transaction() as tx:
            tx.conn.execute("DELETE FROM record_sources")  # no such rows: nothing moves
        assert a.revision() == r2
        ep_writer = Memory(b, namespace="ns")
        ep_writer.thread("t").flush()  # files a stretch: an episode
        assert a.revision() != r2


def test_sources_seen_through_a_second_store(stores: Callable[[], Any]) -> None:
    a, b = stores(), stores()
    mids = _msgs(a, 3)
    rid = a.add_record("ns", "the spare key is under the mat", source_ids=mids[:1]).id
    assert a.records("ns", [rid])[0].source_ids == (mids[0],)
    assert a.search_records("ns", "spare key", 5)[0][0].source_ids == (mids[0],)
    assert a.records("ns", limit=1)[0].source_ids == (mids[0],)
    with b.transaction() as tx:
        tx.update_record("ns", rid, "the spare key is under the blue mat", time.time(), False,
                         mids[1:])
    assert a.records("ns", [rid])[0].source_ids == tuple(mids)
    assert a.records("ns", [rid])[0].text == "the spare key is under the blue mat"
    assert a.records("ns", limit=1)[0].text == "the spare key is under the blue mat"
    assert a.search_records("ns", "spare key", 5)[0][0].source_ids == tuple(mids)
    # and through this store's own write
    assert a.records("ns", [rid])
    with a.transaction() as tx:
        tx.delete_record("ns", rid, time.time())
    assert a.records("ns", [rid]) == []
    assert a.records("ns", limit=1) == []


def test_memoised_postings_see_new_and_forgotten_records(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    a, b = SQLiteStore(path), SQLiteStore(path)
    bounds = SearchBounds(per_term=3, common_take=3, exact_postings=3)
    a.search_bounds = b.search_bounds = bounds
    ids = [a.add_record("ns", f"kiwi fact number {i}").id for i in range(8)]

    def top(s: SQLiteStore) -> list[int]:
        return [r.id for r, _ in s.search_records("ns", "kiwi", 3)]

    assert top(a) == ids[::-1][:3]
    assert top(a) == ids[::-1][:3]  # from the memo now
    new = b.add_record("ns", "kiwi fact number b").id
    assert top(a)[0] == new
    b.forget_record("ns", new)
    assert top(a) == ids[::-1][:3]
    newer = a.add_record("ns", "kiwi fact number a").id
    assert top(a)[0] == newer


def test_the_line_index_sees_an_episode_filed_by_a_second_memory(target: str) -> None:
    a, b = Memory.open(target), Memory.open(target)
    ta, tb = a.thread("t"), b.thread("t")
    for i in range(40):
        ta.add("user", f"small talk about the weather, day {i}")
        ta.add("assistant", "sure")
    ta.flush()
    policy = a.policy
    before = ta.matched_lines("what about the lighthouse keeper", policy)
    assert before == []
    assert _kept(a, "line_index")  # kept in the read cache (PostgreSQL too)
    tb.add("user", "my uncle was the lighthouse keeper on the island of Sark")
    tb.add("assistant", "what a job")
    tb.add("user", "ok")
    tb.flush()
    got = ta.matched_lines("what about the lighthouse keeper", policy)
    assert got and "lighthouse" in got[0].line.lower()
    a.close()
    b.close()


def test_memoised_term_counts_see_a_second_store(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    a, b = SQLiteStore(path), SQLiteStore(path)
    a.add_record("ns", "the boiler is in the attic")
    assert a.term_counts(["boiler", "cellar"], 10) == [1, 0]
    assert a.term_counts(["boiler", "cellar"], 10) == [1, 0]  # memoised, zero too
    b.add_record("ns", "the boiler key is in the cellar")
    assert a.term_counts(["boiler", "cellar"], 10) == [2, 1]
    a.forget_record("ns", 1)
    assert a.term_counts(["boiler", "cellar"], 10) == [1, 1]


def _long_thread(mem: Memory, turns: int = 120) -> None:
    t = mem.thread("t")
    topics = ["the boiler in the attic", "my sister Ana in Porto", "the loan at Harbor Bank",
              "a trip to Lisbon in May", "the cat's vet visit", "the garden's tomatoes"]
    for i in range(turns):
        t.add("user", f"Turn {i}: a few words about {topics[i % len(topics)]}, note {i}.")
        t.add("assistant", f"Noted, turn {i}.")
    t.flush()


def test_a_follow_up_search_is_the_last_turns_own_search(target: str) -> None:
    """The second notes search (the user's last turn) is the search that turn ran for its own
    message: one search a turn while the records stay; a record written by another store (as a
    second process would) and a forget are seen at once."""
    a, b = Memory.open(target), Memory.open(target)
    _long_thread(a)
    t = a.thread("t")
    calls: list[str] = []
    real = a._found  # the notes search (`Memory.search`'s, its records' sources capped)

    def counting(query: str, k: int) -> Any:
        calls.append(query)
        return real(query, k)

    a._found = counting  # type: ignore[method-assign]
    budget = 1500
    t.add("user", "How is the loan at Harbor Bank going?")
    t.context(budget, "How is the loan at Harbor Bank going?")
    t.add("assistant", "Still pending.")
    calls.clear()
    t.add("user", "Any news on it?")
    ctx = t.context(budget, "Any news on it?")
    # The new message searched; the follow-up (the last turn) answered from the memo.
    assert calls == ["Any news on it?"]
    notes = "".join(m.content for m in ctx.messages if m.layer == "notes")
    assert "Harbor Bank" in notes
    calls.clear()
    b.remember("The loan at Harbor Bank was approved on Friday.")  # another store writes
    ctx = t.context(budget, "Any news on it?")
    assert calls == ["Any news on it?", "How is the loan at Harbor Bank going?"]
    approved = [r for r in a.records() if "approved" in r.text]
    assert approved and f"#{approved[0].id} " in "".join(m.content for m in ctx.messages)
    a.forget(approved[0].id)
    assert not _kept(a, "search")  # a forgotten fact leaves no search result behind
    ctx = t.context(budget, "Any news on it?")
    assert f"#{approved[0].id} " not in "".join(m.content for m in ctx.messages)
    a.close()
    b.close()


def test_a_second_context_of_an_unchanged_thread_is_the_same(target: str) -> None:
    """A second context of an unchanged thread (from the read cache where it kept anything)
    is the same context; a new message far longer than the last is still within the budget."""
    mem = Memory.open(target)
    _long_thread(mem, 200)
    t = mem.thread("t")
    first = t.context(3000, "What about the boiler?")
    again = t.context(3000, "What about the boiler?")
    assert again.messages == first.messages and again.trace == first.trace
    big = t.context(3000, "Read this: " + "lorem ipsum dolor " * 500)
    assert big.trace.tokens_total <= 3000
    mem.close()


def test_a_filing_leaves_its_scans_for_the_context(tmp_path: Path) -> None:
    """The memory step scans every message of its stretch and every record it writes; the
    context that first shows them finds those scans in the memory's memo (no scan mid-turn),
    and a forget empties it."""
    mem = Memory.open(tmp_path / "m.db")
    t = mem.thread("t")
    t.add("user", "My sister Ana moved to Porto last spring.")
    t.add("assistant", "Nice!")
    t.add("user", "She works at a bakery near the river.")
    t.add("assistant", "Lovely.")
    assert t.step() is not None
    scans = mem.caches.scans
    assert "My sister Ana moved to Porto last spring." in scans
    written = mem.records()
    assert written and all(r.text in scans for r in written)
    mem.forget(written[0].id)
    assert not scans
    mem.close()


def test_the_opened_turns_memos_see_a_forget_by_a_second_memory(target: str) -> None:
    """A forget through another store object (another process), which redacts the fact's
    words in its source messages, is seen by the next context's opened turns."""
    from memlane import Policy

    a, b = Memory.open(target), Memory.open(target)
    t = a.thread("t")
    for i in range(40):
        if i == 3:
            t.add("user", "My sister's cat is called Biscuit and she is a ginger tabby.")
            t.add("assistant", "A ginger tabby, lovely.")
        t.add("user", f"The weather turned grey again, so I stayed inside reading ({i}).")
        t.add("assistant", f"A quiet afternoon with a book sounds nice ({i}).")
    t.flush()
    opened = Policy(dedupe_lines=False)
    question = "What is the name of my sister's cat?"
    first = t.context(1500, question, policy=opened)
    assert any("Biscuit" in q.text for q in first.trace.buffer_turns)
    again = t.context(1500, question, policy=opened)
    assert again.trace.buffer_turns == first.trace.buffer_turns
    cat = [r for r in b.records() if "Biscuit" in r.text]
    assert cat
    assert b.forget(cat[0].id)  # redacts "Biscuit" in its source message
    after = t.context(1500, question, policy=opened)
    assert not any("Biscuit" in m.content for m in after.messages)
    a.close()
    b.close()


def _random_step(s: SQLiteStore, rng: Any, live: list[int], text: Callable[[], str],
                 adds: float) -> None:
    """One memory step's tracked writes in "ns": 1-3 records added (share `adds`), updated or
    deleted at random; `live` follows the records that exist."""
    with s.transaction() as tx:
        for _ in range(rng.randint(1, 3)):
            op, said = rng.random(), text()
            if op < adds or not live:
                live.append(tx.add_record("ns", said, "fact", [], None, time.time(), None,
                                          False))
            elif op < 0.8:
                tx.update_record("ns", rng.choice(live), said, time.time(), False, [])
            else:
                tx.delete_record("ns", live.pop(rng.randrange(len(live))), time.time())


ODD_WORDS = ["running", "runs", "ran", "Runner", "café", "cafe", "CAFÉS", "e-mail", "email",
             "mail", "don't", "dont", "C++", "2024", "x2", "naïve", "naive", "straße",
             "strasse", "plums", "plum", "Plum's", "over-the-top", "top"]


def test_the_opened_turns_stay_exact_through_memory_steps(tmp_path: Path) -> None:
    """Through turns and the memory steps between them, the contexts of a memory that keeps
    its read cache are those of a memory that reads everything afresh (a new `Memory` on the
    same file each turn)."""
    path = str(tmp_path / "m.db")
    mem = Memory.open(path)
    t = mem.thread("t")
    pets = ["cat Biscuit", "dog Pepper", "parrot Kiwi", "rabbit Clover", "goldfish Nemo"]
    for i in range(60):
        t.add("user", f"My neighbour's {pets[i % 5]} visited on day {i}; it likes the garden.")
        t.add("assistant", f"Day {i}: the {pets[i % 5].split()[0]} in the garden, noted.")
        t.maybe_step(turn_done=True)
    kept_any = False
    for i in range(24):
        question = f"What is the name of my neighbour's {pets[i % 5].split()[0]}?"
        got = t.context(1200, question)
        with Memory.open(path) as fresh:
            want = fresh.thread("t").context(1200, question)
        assert got.messages == want.messages, i
        assert got.trace.buffer_turns == want.trace.buffer_turns, i
        kept_any = kept_any or _kept(mem, "line_index")
        if i % 8 == 5:
            # An SDK's undo reaching before the window: the seqs come back with other words.
            t.truncate(t.messages()[-14].seq)
            for j in range(7):
                t.add("user", f"Scratch that: the {pets[(i + j) % 5].split()[0]} is called "
                              f"Zed{j} now ({i}).")
                t.add("assistant", f"Renamed to Zed{j}.")
        t.add("user", f"Also, {pets[(i + 2) % 5]} came by again today ({i}).")
        t.add("assistant", "Noted.")
        t.maybe_step(turn_done=True)
    assert kept_any
    mem.close()
