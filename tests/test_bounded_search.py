"""The bounded lexical search (`memlane.store.protocol.SearchBounds`), on both engines: the same
results as the exhaustive ranking where every kept term is rare, and no more than `per_term`
postings of a common term read, however many records hold it."""

from __future__ import annotations

import random
from typing import Any

from memlane import Memory
from memlane.store.protocol import BOUNDED, SearchBounds

WORDS = ["harbour", "violin", "quinoa", "glacier", "lantern", "origami", "saffron", "tundra",
         "mosaic", "falcon", "cobalt", "juniper", "meadow", "prism", "walnut", "zephyr"]


def _ids(hits: list[tuple[Any, float]]) -> list[int]:
    return [r.id for r, _ in hits]


def _both(store: Any, ns: str, q: str, k: int, bounds: SearchBounds | None = BOUNDED,
          **kw: Any) -> tuple[list[tuple[Any, float]], list[tuple[Any, float]]]:
    store.search_bounds = bounds
    got = store.search_records(ns, q, k, **kw)
    store.search_bounds = None
    want = store.search_records(ns, q, k, **kw)
    store.search_bounds = bounds
    return got, want


def test_rare_terms_rank_exactly_as_the_exhaustive_search(store: Any) -> None:
    rng = random.Random(3)
    for i in range(60):
        store.add_record("ns", " ".join(rng.sample(WORDS, 4)) + f" item{i}")
    for q in ["violin glacier", "saffron prism walnut", "item7 harbour", "zephyr",
              "mosaic falcon cobalt juniper meadow"]:
        got, want = _both(store, "ns", q, 10)
        assert got, q
        assert _ids(got) == _ids(want), q
        assert [round(s, 9) for _, s in got] == [round(s, 9) for _, s in want], q


def test_a_common_term_reads_only_its_newest_postings(store: Any) -> None:
    ids = [store.add_record("ns", f"apple note number {i}").id for i in range(40)]
    bounds = SearchBounds(per_term=5, common_take=4, exact_postings=4)
    got, want = _both(store, "ns", "apple", 20, bounds)
    assert len(want) == 20  # exhaustive: ranks every match
    assert _ids(got) == ids[::-1][:4]  # bounded: the newest common_take, newest first
    # a rare term beside it still retrieves its (old) record, ranked first
    old = store.add_record("ns", "apple pie recipe from grandma").id
    for i in range(10):
        store.add_record("ns", f"apple later note {i}")
    got, want = _both(store, "ns", "apple grandma", 5, bounds)
    assert _ids(got)[0] == old == _ids(want)[0]


def test_long_queries_keep_their_rarest_terms(store: Any) -> None:
    for _i in range(30):
        store.add_record("ns", "we talked about the weather and the garden and dinner plans")
    target = store.add_record("ns", "the locksmith code is 4417").id
    common = "weather garden dinner plans talked " * 3
    bounds = SearchBounds(max_terms=2, per_term=5, common_take=5, exact_postings=5)
    store.search_bounds = bounds
    hits = store.search_records("ns", common + " locksmith", 3)
    assert _ids(hits)[0] == target


def test_bounded_search_keeps_to_the_namespace_and_filters(store: Any) -> None:
    bounds = SearchBounds(per_term=3, common_take=3, exact_postings=3)
    mine = [store.add_record("ns", f"kiwi fact {i}", thread_id="t1" if i < 3 else "t2").id
            for i in range(10)]
    for i in range(10):
        store.add_record("other", f"kiwi fact {i}")
    store.search_bounds = bounds
    got = store.search_records("ns", "kiwi", 10)
    assert got and {r.namespace for r, _ in got} == {"ns"}
    assert sorted(_ids(got)) == mine[-3:]  # the newest common_take of this namespace
    # filters apply while the postings are walked: the newest that pass them
    got = store.search_records("ns", "kiwi", 10, thread_id="t1")
    assert sorted(_ids(got)) == mine[:3]


def _holds(value: Any, word: str, depth: int = 0) -> bool:
    """Whether `word` is a key, an item or a part of one in `value` (containers, a few levels)."""
    if isinstance(value, str):
        return word in value
    if depth > 4:
        return False
    if isinstance(value, dict):
        return any(_holds(k, word, depth + 1) or _holds(v, word, depth + 1)
                   for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_holds(v, word, depth + 1) for v in value)
    return hasattr(value, "__dict__") and _holds(vars(value), word, depth + 1)


def test_the_engine_keeps_no_term_counts(store: Any) -> None:
    """The database counts a query's terms on every bounded search: no memo of them in the
    engine (a count is never stale, and no query word stays in the store object)."""
    for i in range(5):
        store.add_record("ns", f"plum jam jar {i}")
    store.search_bounds = SearchBounds(per_term=2, exact_postings=2, common_take=1)
    assert len(store.search_records("ns", "quince plum", 5)) >= 1
    assert not any(_holds(v, "plum") or _holds(v, "quinc") for v in vars(store).values())
    # A term in no record when first searched is counted again next time: the new record is
    # found by it.
    store.add_record("ns", "quince paste")
    assert "quince paste" in [r.text for r, _ in store.search_records("ns", "quince plum", 5)]


def test_work_does_not_grow_with_the_records_sharing_a_word(tmp_path: Any) -> None:
    """SQLite's VM steps per search (a progress handler counts them): flat for the bounded
    search as the records holding the query's common word grow 10x, not for the exhaustive.
    The bounded search counts its terms every time, each up to `count_cap`: here below the
    smaller store's count of the common word, so the counting is flat too."""
    from memlane.store.sqlite import SQLiteStore

    def steps(store: SQLiteStore, q: str) -> int:
        n = [0]

        def tick() -> int:
            n[0] += 1
            return 0
        store.conn.set_progress_handler(tick, 100)
        try:
            store.search_records("ns", q, 5)
        finally:
            store.conn.set_progress_handler(None, 100)
        return n[0]

    work: dict[str, list[int]] = {"bounded": [], "exhaustive": []}
    for size in (300, 3000):
        s = SQLiteStore(str(tmp_path / f"w{size}.db"))
        try:
            for i in range(size):
                s.add_record("ns", f"dinner plan {i} with friends at {WORDS[i % 16]}")
            s.add_record("ns", "dinner with the locksmith")
            for name, b in (("bounded", SearchBounds(exact_postings=100, count_cap=200)),
                            ("exhaustive", None)):
                s.search_bounds = b
                work[name].append(steps(s, "dinner friends locksmith"))
                assert s.search_records("ns", "dinner friends locksmith", 1)[0][0].text == \
                    "dinner with the locksmith"
        finally:
            s.close()
    assert work["bounded"][1] < 1.5 * work["bounded"][0], work
    assert work["exhaustive"][1] > 5 * work["exhaustive"][0], work


def test_a_records_words_follow_its_text_whoever_writes(tmp_path):
    """`records.words` (migration 7), what the bounded search weighs a record's length by, is
    its text's spaces + 2 after every kind of write: the library's, and another tool's SQL."""
    mem = Memory.open(str(tmp_path / "m.db"))
    try:
        a = mem.remember("one two three")
        b = mem.remember("solo")
        mem.update(a.id, "one two three four five")
        with mem.store.transaction() as tx:
            tx.conn.execute("UPDATE records SET text = 'x  y' WHERE id = ?", (b.id,))
        with mem.store.transaction() as tx:
            rows = tx.conn.execute(
                "SELECT words, length(text) - length(replace(text, ' ', '')) + 2, text"
                " FROM records").fetchall()
        assert sorted((w, t) for w, _, t in rows) == [(4, "x  y"), (6, "one two three four five")]
        assert all(w == expected for w, expected, _ in rows)
    finally:
        mem.close()
