"""What the turn memoises between calls (record sources, postings of the bounded search, the line
index) stays exact when the rows change: through this store, and through a second store or
`Memory` on the same database (another process would write the same way: SQLite's
`data_version`, PostgreSQL's revision counter of migration 6)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memlane import Memory
from memlane.store.open import open_store
from memlane.store.protocol import SearchBounds, SearchFilters
from memlane.store.sqlite import SQLiteStore


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
    # Each call as a turn makes it (PostgreSQL memoises only inside `revision_held`).
    with a.revision_held():
        assert a.records("ns", [rid])[0].source_ids == (mids[0],)
        assert a.search_records("ns", "spare key", 5)[0][0].source_ids == (mids[0],)
        assert a.records("ns", limit=1)[0].source_ids == (mids[0],)
    with b.transaction() as tx:
        tx.update_record("ns", rid, "the spare key is under the blue mat", time.time(), False,
                         mids[1:])
    with a.revision_held():
        assert a.records("ns", [rid])[0].source_ids == tuple(mids)
        assert a.records("ns", [rid])[0].text == "the spare key is under the blue mat"
        assert a.records("ns", limit=1)[0].text == "the spare key is under the blue mat"
        assert a.search_records("ns", "spare key", 5)[0][0].source_ids == tuple(mids)
    # and through this store's own write, inside one held scope
    with a.revision_held():
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
    with a.store.revision_held():  # as `context` calls it
        before = ta.matched_lines("what about the lighthouse keeper", policy)
    assert before == []
    assert a.caches.line_index  # memoised (PostgreSQL too: it has a revision now)
    tb.add("user", "my uncle was the lighthouse keeper on the island of Sark")
    tb.add("assistant", "what a job")
    tb.add("user", "ok")
    tb.flush()
    with a.store.revision_held():
        got = ta.matched_lines("what about the lighthouse keeper", policy)
    assert got and "lighthouse" in got[0].line.lower()
    a.close()
    b.close()


def test_memoised_candidates_rank_as_the_sql_does(tmp_path: Path) -> None:
    import random

    from memlane.store.common import bm25_idf

    s = SQLiteStore(tmp_path / "m.db")
    rng = random.Random(5)
    words = [f"w{i}" for i in range(30)]
    for i in range(300):
        s.add_record("ns" if i % 5 else "other", " ".join(rng.sample(words, rng.randint(2, 9))))
    for q in range(40):
        terms = rng.sample(words, rng.randint(1, 5))
        weights = [(t, bm25_idf(300, rng.randint(1, 200)), rng.randint(1, 80)) for t in terms]
        for _ in range(2):  # read, then from the memo
            got = s._memo_candidates("ns", weights, 10)
            want = s._sql_candidates("ns", weights, 10, SearchFilters())
            assert [r.id for r, _ in got] == [r.id for r, _ in want], q
            assert [round(x, 9) for _, x in got] == [round(x, 9) for _, x in want], q
            assert got == [(r, x) for r, x in got if r.namespace == "ns"]


def test_memoised_exact_branch_ranks_as_fts5(tmp_path: Path) -> None:
    import random

    s = SQLiteStore(tmp_path / "m.db")
    rng = random.Random(7)
    words = [f"w{i}" for i in range(40)]
    for i in range(400):
        s.add_record("ns" if i % 3 else "other",
                     " ".join(rng.choices(words, k=rng.randint(2, 12))))
    for q in range(60):
        terms = rng.sample(words, rng.randint(1, 6))
        for _ in range(2):  # read, then from the memo
            got = s._memo_exact("ns", terms, 15)
            want = s._search_records("ns", terms, 15, SearchFilters(), narrow=True)
            assert [(r.id, x) for r, x in got] == [(r.id, x) for r, x in want], q


def test_memoised_exact_branch_keeps_ties_at_the_kth(tmp_path: Path) -> None:
    """Many records scoring alike around the k-th (`_memo_exact` orders only the scores at
    least the k-th best's): the same ids, order and scores as FTS5's exact ranking."""
    s = SQLiteStore(tmp_path / "m.db")
    for i in range(90):
        s.add_record("ns", ["kiln glaze", "kiln glaze fired", "kiln"][i % 3])
    for terms, k in ((["kiln"], 10), (["glaze", "kiln"], 31), (["fired", "kiln"], 7)):
        for _ in range(2):  # read, then from the memo
            got = s._memo_exact("ns", terms, k)
            want = s._search_records("ns", terms, k, SearchFilters(), narrow=True)
            assert [(r.id, x) for r, x in got] == [(r.id, x) for r, x in want], terms
    for weights, k in (([("kiln", 1.5, 60)], 10), ([("glaze", 2.0, 50), ("kiln", 0.5, 80)], 9),
                       ([("fired", 1.0, 40), ("kiln", 1.0, 90)], 25)):
        for _ in range(2):
            got = s._memo_candidates("ns", weights, k)
            want = s._sql_candidates("ns", weights, k, SearchFilters())
            assert [r.id for r, _ in got] == [r.id for r, _ in want], weights
            assert [round(x, 9) for _, x in got] == [round(x, 9) for _, x in want], weights


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


def test_a_forget_leaves_nothing_in_the_memos(stores: Callable[[], Any]) -> None:
    s = stores()
    rid = s.add_record("ns", "the vault code is 4417").id
    with s.revision_held():
        assert s.search_records("ns", "vault code", 3)[0][0].id == rid
        assert s.records("ns", [rid]) and s._memos.records  # memoised
        assert s.records("ns", limit=1) and (s._memos.pages or isinstance(s, SQLiteStore))
        s.forget_record("ns", rid)
        m = s._memos
        assert not m.records and not m.postings and not m.counts and not m.sources
        assert not m.pages and m.size is None
        assert s.records("ns", [rid]) == [] and s.records("ns", limit=1) == []


def test_revision_held_checks_other_writers_once_and_own_writes_always(
        stores: Callable[[], Any]) -> None:
    a, b = stores(), stores()
    _msgs(a, 1)
    with a.revision_held():
        r0 = a.revision()
        b.add_record("ns", "the fuse box is in the cellar")
        assert a.revision() == r0  # held: another writer is seen from the next call on
        a.add_record("ns", "the boiler is in the attic")
        r1 = a.revision()
        assert r1 != r0  # its own write moves it at once
        with a.revision_held():  # nested: the outer check stands
            assert a.revision() == r1
    r2 = a.revision()
    assert r2 != r1  # out of the scope: the other writer's commit is seen
    with a.revision_held():
        assert a.revision() == r2
    # The memos answer inside the scope with what this store wrote, and after it with both.
    assert {r.text for r, _ in a.search_records("ns", "fuse boiler", 5)} == {
        "the fuse box is in the cellar", "the boiler is in the attic"}


def test_memoised_candidates_rank_as_the_sql_does_on_postgres(pg_url: str) -> None:
    import random

    from memlane.store.common import bm25_idf
    from memlane.store.postgres import PostgresStore

    s = PostgresStore(pg_url)
    try:
        rng = random.Random(5)
        words = [f"w{i}" for i in range(30)]
        for i in range(300):
            s.add_record("ns" if i % 5 else "other",
                         " ".join(rng.sample(words, rng.randint(2, 9))))
        for q in range(40):
            terms = rng.sample(words, rng.randint(1, 5))
            weights = [(t, bm25_idf(300, rng.randint(1, 200)), rng.randint(1, 80))
                       for t in terms]
            want = s._scored_candidates("ns", weights, 10, SearchFilters())  # the SQL
            for _ in range(2):  # read, then from the memo
                with s.revision_held():
                    got = s._scored_candidates("ns", weights, 10, SearchFilters())
                assert [r.id for r, _ in got] == [r.id for r, _ in want], q
                assert [round(x, 9) for _, x in got] == [round(x, 9) for _, x in want], q
        assert s._memos.postings  # the second round came from the memo
    finally:
        s.close()


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
    real = a.search

    def counting(query: str, k: int = 5, **kw: Any) -> Any:
        calls.append(query)
        return real(query, k, **kw)

    a.search = counting  # type: ignore[method-assign]
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
    assert not a.caches.searches  # a forgotten fact leaves no search result behind
    ctx = t.context(budget, "Any news on it?")
    assert f"#{approved[0].id} " not in "".join(m.content for m in ctx.messages)
    a.close()
    b.close()


def test_the_fill_starts_where_the_threads_last_one_ended(target: str) -> None:
    """A second context of an unchanged thread reads its window once (the fill starts at the
    working turns the first one ended on) and is the same context; a new message far longer
    than the last is still within the budget."""
    mem = Memory.open(target)
    _long_thread(mem, 200)
    t = mem.thread("t")
    reads: list[int] = []
    real = mem.store.context_rows

    def counting(*args: Any, **kw: Any) -> Any:
        reads.append(args[2])
        return real(*args, **kw)

    mem.store.context_rows = counting  # type: ignore[method-assign]
    first = t.context(3000, "What about the boiler?")
    assert len(reads) >= 2  # the policy's window, then a larger one
    reads.clear()
    again = t.context(3000, "What about the boiler?")
    assert len(reads) == 1 and reads[0] > mem.policy.window_turns
    assert again.messages == first.messages
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
    """The opened turns' reads (where a cited message is, an evicted stretch's messages) are
    memoised under the revision: a forget through another store object (another process),
    which redacts the fact's words in its source messages, is seen by the next context."""
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
    assert a.caches.stretches  # memoised
    again = t.context(1500, question, policy=opened)
    assert again.trace.buffer_turns == first.trace.buffer_turns
    cat = [r for r in b.records() if "Biscuit" in r.text]
    assert cat
    assert b.forget(cat[0].id)  # redacts "Biscuit" in its source message
    after = t.context(1500, question, policy=opened)
    assert not any("Biscuit" in m.content for m in after.messages)
    a.close()
    b.close()


def test_a_memory_step_keeps_the_records_it_did_not_write(tmp_path: Path) -> None:
    """A step's transaction (tracked writes only) empties the memoised records it wrote and the
    index's statistics, and keeps the others under the new revision: the next context reads
    only what changed. Any other write (a forget, a message redaction, another connection's
    commit) empties them all, as before."""
    mem = Memory.open(tmp_path / "m.db")
    s = mem.store
    t = mem.thread("t")
    for i in range(6):
        t.add("user", f"My colleague number {i} is called Person{i} and works in Lisbon.")
        t.add("assistant", "Noted.")
    t.flush()
    ids = [r.id for r in mem.records()]
    assert ids
    with s.revision_held():
        before = s.records(mem.ns, ids)
    assert all(s._memos.records.get(i) is r for i, r in zip(ids, before, strict=True))
    t.add("user", "My sister Ana moved to Porto last spring.")
    t.add("assistant", "Nice!")
    t.add("user", "She works at a bakery near the river.")
    t.add("assistant", "Lovely.")
    assert t.step() is not None  # a step: tracked writes only
    new = [r for r in mem.records() if r.id not in ids]
    assert new
    kept = s._memos.records
    assert all(kept.get(i) is r for i, r in zip(ids, before, strict=True))  # not re-read
    assert not s._memos.postings and not s._memos.counts  # the index moved
    # A record the step updated is read again (its text and sources are new).
    rid = ids[0]
    with s.transaction() as tx:
        tx.update_record(mem.ns, rid, "My colleague number 0 is called Person0, in Faro now.",
                         time.time(), False, [])
    assert rid not in s._memos.records
    assert "Faro" in s.records(mem.ns, [rid])[0].text
    # A forget (untracked writes: redaction, history) empties every memoised record.
    s.records(mem.ns, ids)
    assert s._memos.records
    mem.forget(ids[1])
    assert not s._memos.records
    # Another connection's commit between the read and this store's write: all emptied.
    s.records(mem.ns, ids[2:])
    other = Memory.open(tmp_path / "m.db")
    other.remember("The office moved to Braga.")
    with s.transaction() as tx:
        tx.update_record(mem.ns, ids[2], "My colleague number 2 is called Person2.",
                         time.time(), False, [])
    assert not s._memos.records
    other.close()
    mem.close()


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


def test_memoised_candidates_stay_exact_through_memory_steps(tmp_path: Path) -> None:
    """Through this store's own tracked writes (a memory step's records added, updated,
    deleted), which keep the memoised records they did not touch, the memoised postings rank
    as the SQL does after every write."""
    import random

    from memlane.store.common import bm25_idf

    s = SQLiteStore(tmp_path / "m.db")
    rng = random.Random(11)
    words = [f"w{i}" for i in range(20)]
    live: list[int] = []
    for i in range(120):
        live.append(s.add_record("ns" if i % 4 else "other",
                                 " ".join(rng.sample(words, rng.randint(2, 8)))).id)
    queries = [[(t, bm25_idf(120, rng.randint(1, 100)), rng.randint(1, 60))
                for t in rng.sample(words, rng.randint(1, 4))] for _ in range(12)]
    for step in range(40):
        for weights in queries:
            with s._lock:
                assert s._memos_fresh(s.conn)
                got = s._memo_candidates("ns", weights, 8)
            want = s._sql_candidates("ns", weights, 8, SearchFilters())
            assert [r.id for r, _ in got] == [r.id for r, _ in want], (step, weights)
            assert [round(x, 9) for _, x in got] == [round(x, 9) for _, x in want]
        _random_step(s, rng, live, lambda: " ".join(rng.sample(words, rng.randint(2, 8))), 0.5)
    s.close()


def test_caught_up_postings_match_as_fts5_does_whatever_the_words(tmp_path: Path) -> None:
    """A touched record holds a one-token term when its tokens (kept per record, read from
    the index's tokenizer) have the term's: stems ("running" finds "runs"), case, accents,
    digits and apostrophes as FTS5 has them; a term of several tokens ("e-mail") is a phrase,
    asked of the index. Through random steps the caught-up postings rank as the SQL does."""
    import random

    s = SQLiteStore(tmp_path / "m.db")
    rng = random.Random(5)
    words = ["running", "runs", "ran", "Runner", "café", "cafe", "CAFÉS", "e-mail", "email",
             "mail", "don't", "dont", "C++", "2024", "x2", "naïve", "naive", "straße",
             "strasse", "plums", "plum", "Plum's", "a.b", "ab", "over-the-top", "top"]
    live = [s.add_record("ns", " ".join(rng.sample(words, rng.randint(2, 7)))).id
            for _ in range(60)]
    terms = ["run", "running", "cafe", "café", "e-mail", "mail", "don't", "dont", "c",
             "2024", "naive", "strasse", "plum", "plum's", "a.b", "over-the-top", "top",
             "RUNS", "absent"]
    for step in range(30):
        for _ in range(4):
            weights = [(t, 1.0 + i, rng.randint(1, 40))
                       for i, t in enumerate(rng.sample(terms, rng.randint(1, 4)))]
            # Every candidate (k past the records' count), each score to 9 places: the sums
            # may differ in the last bit (SQLite's SUM adds in its own order), the terms each
            # record holds may not.
            with s._lock:
                assert s._memos_fresh(s.conn)
                got = s._memo_candidates("ns", weights, 500)
            want = s._sql_candidates("ns", weights, 500, SearchFilters())
            assert {r.id: round(x, 9) for r, x in got} == {r.id: round(x, 9) for r, x in want
                                                            }, (step, weights)
        _random_step(s, rng, live, lambda: " ".join(rng.sample(words, rng.randint(1, 6))), 0.4)
    assert all(toks for _, _, toks in s._touched_meta.values())  # tokens read for the touched...
    s.forget_record("ns", live[0])
    assert not s._touched_meta and not s._term_tokens  # ...records, and go with the memos
    s.close()


def test_a_kept_prefix_of_newest_postings_stays_a_prefix(tmp_path: Path) -> None:
    """A term's newest postings only are memoised: a step deletes one of them and gives an
    older record the term; the search ranks as the SQL does."""
    s = SQLiteStore(tmp_path / "m.db")
    ids = [s.add_record("ns", f"plum note {i}").id for i in range(12)]
    plain = s.add_record("ns", "an older note about pears").id  # newest id, no plum yet
    weights = [("plum", 1.0, 4)]

    def both() -> tuple[list[int], list[int]]:
        with s._lock:
            assert s._memos_fresh(s.conn)
            got = s._memo_candidates("ns", weights, 4)
        want = s._sql_candidates("ns", weights, 4, SearchFilters())
        return [r.id for r, _ in got], [r.id for r, _ in want]

    got, want = both()
    assert got == want == ids[::-1][:4]
    with s.transaction() as tx:
        tx.delete_record("ns", ids[-1], time.time())  # one of the prefix
        tx.update_record("ns", ids[0], "plum note 0, plum again", time.time(), False, [])
    got, want = both()
    assert got == want
    with s.transaction() as tx:
        tx.update_record("ns", plain, "a plum at last", time.time(), False, [])
    got, want = both()
    assert got == want and plain in got
    s.close()


def test_newest_postings_follow_own_steps_and_a_forget_empties_their_index(tmp_path: Path
                                                                            ) -> None:
    """The newest postings are kept through this store's own steps, caught up from an index of
    the touched records' texts (`_catch_up`); a forget empties both: no forgotten word stays."""
    s = SQLiteStore(tmp_path / "m.db")
    for i in range(30):
        s.add_record("ns", f"plum jam batch {i} for the market")
    weights = [("plum", 1.0, 50), ("market", 1.0, 50)]

    def ranked() -> list[int]:
        with s._lock:
            assert s._memos_fresh(s.conn)
            got = s._memo_candidates("ns", weights, 40)
        want = s._sql_candidates("ns", weights, 40, SearchFilters())
        assert [r.id for r, _ in got] == [r.id for r, _ in want]
        return [r.id for r, _ in got]

    ranked()
    with s.transaction() as tx:  # a step: tracked writes only
        secret = tx.add_record("ns", "the plum tree code is 7781", "fact", [], None,
                               time.time(), None, False)
    assert s._memos.newest  # kept through the step...
    assert secret in ranked()  # ...and caught up with it

    def indexed() -> int:
        return int(s.conn.execute("SELECT count(*) FROM memlane_mem.touched").fetchone()[0])

    assert indexed() > 0  # the records this store wrote since the memos were emptied
    s.forget_record("ns", secret)
    assert not s._memos.newest and not s._memos.touched and indexed() == 0
    assert secret not in ranked()
    s.close()


def _exact_both(s: SQLiteStore, ns: str, terms: list[str], k: int
                ) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """The exact branch from the kept lists, and FTS5's own ranking (the SQL path)."""
    with s._lock:
        assert s._memos_fresh(s.conn)
        got = s._memo_exact(ns, terms, k)
    want = s._search_records(ns, terms, k, SearchFilters(), narrow=True)
    return [(r.id, x) for r, x in got], [(r.id, x) for r, x in want]


ODD_WORDS = ["running", "runs", "ran", "Runner", "café", "cafe", "CAFÉS", "e-mail", "email",
             "mail", "don't", "dont", "C++", "2024", "x2", "naïve", "naive", "straße",
             "strasse", "plums", "plum", "Plum's", "over-the-top", "top"]


@pytest.mark.parametrize("words", [[f"w{i}" for i in range(24)], ODD_WORDS],
                         ids=["plain", "stems-accents-phrases"])
def test_memoised_exact_branch_stays_exact_through_memory_steps(tmp_path: Path,
                                                                words: list[str]) -> None:
    """The exact branch's scored lists are kept through this store's own tracked writes
    (records added, updated, deleted, in this namespace and others), caught up and scored
    again for the index's new statistics: ids and scores equal FTS5's bm25() to the bit
    (`==`), and the lists are the ones read before the steps, not read again. With words
    FTS5 stems, folds and splits: a one-token term's hits are counted from the touched
    records' tokens, a phrase's read from the index."""
    import random

    from memlane.store.sqlite.memo_search import bm25_reproduced

    assert bm25_reproduced()
    s = SQLiteStore(tmp_path / "m.db")
    rng = random.Random(13)

    def text() -> str:  # repeated words: hit counts above 1
        return " ".join(rng.choices(words[:rng.randint(3, 24)], k=rng.randint(1, 14)))

    live: list[int] = []
    for _ in range(150):
        live.append(s.add_record(rng.choice(["ns", "ns", "other", "a b c"]), text()).id)
    queries = [rng.sample(words, rng.randint(1, 5)) for _ in range(14)]
    for q in queries:
        got, want = _exact_both(s, "ns", q, 12)
        assert got == want, q
    kept = dict(s._memos.scored)
    assert kept and all(e.kept for e in kept.values())
    for step in range(40):
        with s.transaction() as tx:  # tracked writes only, as a memory step's
            for _ in range(rng.randint(1, 4)):
                op = rng.random()
                ns = rng.choice(["ns", "other", "a b c"])
                if op < 0.5 or not live:
                    live.append(tx.add_record(ns, text(), "fact", [], None, time.time(),
                                              None, False))
                elif op < 0.8:
                    rid = rng.choice(live)
                    owner = tx.record_owner("ns", rid) or "ns"
                    tx.update_record(owner, rid, text(), time.time(), False, [])
                else:
                    rid = live.pop(rng.randrange(len(live)))
                    tx.delete_record(tx.record_owner("ns", rid) or "ns", rid, time.time())
        for q in queries:
            for ns in ("ns", "other"):
                got, want = _exact_both(s, ns, q, 12)
                assert got == want, (step, ns, q)
        assert all(s._memos.scored.get(t) is e for t, e in kept.items())  # not read again
    s.close()


def test_a_step_elsewhere_moves_every_kept_score(tmp_path: Path) -> None:
    """A step that writes only in another namespace leaves the kept list's matches here as
    they were, but moves the index's row count, average length and the term's document
    count, so every score here moves: none of the scores read before the step survives it."""
    s = SQLiteStore(tmp_path / "m.db")
    for i in range(20):
        s.add_record("ns", f"kiln glaze batch {i}" + " kiln" * (i % 3))
    for i in range(10):
        s.add_record("other", f"notes on the weather, day {i}")
    terms = ["kiln", "glaze"]
    before, want = _exact_both(s, "ns", terms, 30)
    assert before == want and len(before) == 20
    with s.transaction() as tx:  # a step elsewhere: more rows, longer ones, a kiln hit
        for i in range(6):
            tx.add_record("other", "the kiln in the shared studio was fired twice this week"
                          f" at last, batch {i}", "fact", [], None, time.time(), None, False)
    assert s._memos.scored["kiln"].kept  # kept through the step
    got, want = _exact_both(s, "ns", terms, 30)
    assert got == want
    old = dict(before)
    assert all(old[i] != x for i, x in got)  # every score moved
    s.close()


def test_kept_scored_lists_go_with_a_forget_and_another_connections_commit(tmp_path: Path
                                                                           ) -> None:
    """Anything but this store's own tracked writes empties the scored lists, as it empties
    every memo: a forget, another connection's commit."""
    path = tmp_path / "m.db"
    s, other = SQLiteStore(path), SQLiteStore(path)
    rid = s.add_record("ns", "the kiln code is 4411").id
    s.add_record("ns", "the kiln is in the shed")
    got, want = _exact_both(s, "ns", ["kiln"], 5)
    assert got == want and s._memos.scored
    other.add_record("ns", "a kiln of our own")
    got, want = _exact_both(s, "ns", ["kiln"], 5)
    assert got == want and len(got) == 3
    s.forget_record("ns", rid)
    assert not s._memos.scored
    got, want = _exact_both(s, "ns", ["kiln"], 5)
    assert got == want and rid not in [i for i, _ in got]
    s.close()
    other.close()


def test_a_step_that_keeps_the_index_totals_still_moves_the_kept_matches(tmp_path: Path
                                                                         ) -> None:
    """A step that moves a word from one record to another, texts of the same length: the
    index's row count, token total and the term's document count stay, yet the matches
    moved; the kept list follows them (a score kept for its totals alone would be stale)."""
    s = SQLiteStore(tmp_path / "m.db")
    a = s.add_record("ns", "kiln alpha beta").id
    b = s.add_record("ns", "gamma delta epsilon").id
    for i in range(5):
        s.add_record("ns", f"plain words number{i}")
    before, want = _exact_both(s, "ns", ["kiln"], 5)
    assert before == want and [i for i, _ in before] == [a]
    totals = s._memos.totals
    with s.transaction() as tx:
        tx.update_record("ns", a, "zeta alpha beta", time.time(), False, [])
        tx.update_record("ns", b, "gamma kiln epsilon", time.time(), False, [])
    got, want = _exact_both(s, "ns", ["kiln"], 5)
    assert s._memos.totals == totals  # the statistics did not move
    assert got == want and [i for i, _ in got] == [b]
    assert s._memos.scored["kiln"].kept
    s.close()


def test_scores_not_reproduced_are_kept_for_one_revision_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where this SQLite's bm25() is not reproduced to the bit (another build), the scored
    lists are what was read, for this revision only: a step empties them, as before."""
    from memlane.store.sqlite import memo_search

    monkeypatch.setattr(memo_search, "bm25_reproduced", lambda: False)
    s = SQLiteStore(tmp_path / "m.db")
    for i in range(12):
        s.add_record("ns" if i % 3 else "other", f"kiln glaze batch {i}" + " kiln" * (i % 4))
    for step in range(4):
        got, want = _exact_both(s, "ns", ["kiln", "glaze"], 10)
        assert got == want, step
        e = s._memos.scored["kiln"]
        assert not e.kept and not e.rows
        with s.transaction() as tx:
            tx.add_record("ns", f"a kiln again {step}", "fact", [], None, time.time(), None,
                          False)
        assert "kiln" not in s._memos.scored
    s.close()


def test_a_kept_list_whose_every_match_a_step_deleted(tmp_path: Path) -> None:
    """A step deletes every record (the index is left with no row, no average length): the
    kept list is caught up to nothing, and a record added later is found and scored as FTS5
    scores it."""
    s = SQLiteStore(tmp_path / "m.db")
    ids = [s.add_record("ns", f"kiln glaze batch {i}").id for i in range(3)]
    got, want = _exact_both(s, "ns", ["kiln"], 5)
    assert got == want and len(got) == 3
    kept = s._memos.scored["kiln"]
    with s.transaction() as tx:
        for rid in ids:
            tx.delete_record("ns", rid, time.time())
    got, want = _exact_both(s, "ns", ["kiln"], 5)
    assert got == want == []
    with s.transaction() as tx:
        tx.add_record("ns", "a kiln at last, kiln", "fact", [], None, time.time(), None, False)
    got, want = _exact_both(s, "ns", ["kiln"], 5)
    assert got == want and len(got) == 1
    assert s._memos.scored["kiln"] is kept and kept.kept  # caught up, never read again
    s.close()


def test_log_revision_stays_through_own_steps_only(tmp_path: Path) -> None:
    """SQLite: what the opened turns memoise of messages (their places, an evicted stretch's
    messages) is kept under `log_revision()`, which this store's own memory step (tracked
    writes: records, episodes, messages' relevance and scan tags) leaves as it is; a
    truncation, a forget (it redacts source messages), a deleted thread and another
    connection's write move it."""
    path = str(tmp_path / "m.db")
    mem, other = Memory.open(path), Memory.open(path)
    t = mem.thread("t")
    for i in range(12):
        t.add("user", f"My bike number {i} is kept in the shed behind the house.")
        t.add("assistant", f"Noted, bike {i} in the shed.")
    store = mem.store
    r0 = store.log_revision()
    rev0 = store.revision()
    assert t.flush()  # memory steps: records, episodes, relevance, scan tags
    assert store.revision() != rev0
    assert store.log_revision() == r0
    t.truncate(t.messages()[-2].seq)  # an SDK's undo
    r1 = store.log_revision()
    assert r1 != r0
    rec = mem.records()[0]
    assert mem.forget(rec.id)
    r2 = store.log_revision()
    assert r2 != r1
    other.thread("u").add("user", "hello from another process")
    r3 = store.log_revision()
    assert r3 != r2
    other.thread("u").delete()
    assert store.log_revision() != r3
    mem.close()
    other.close()


def test_the_opened_turns_memos_stay_exact_through_memory_steps(tmp_path: Path) -> None:
    """Through turns and the memory steps between them, the contexts of a memory whose opened
    turns' memos were kept across its own steps are those of a memory that reads everything
    afresh (a new `Memory` on the same file each turn)."""
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
        kept_any = kept_any or bool(mem.caches.stretches)
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
