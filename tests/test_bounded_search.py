"""The bounded lexical search (`memlane.store.common.SearchBounds`), on both engines: the same
results as the exhaustive ranking where every kept term is rare, and no more than `per_term`
postings of a common term read, however many records hold it."""

from __future__ import annotations

import random
from typing import Any

from memlane.store.common import BOUNDED, SearchBounds, TermStats

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
    bounds = SearchBounds(per_term=5)
    got, want = _both(store, "ns", "apple", 20, bounds)
    assert len(want) == 20  # exhaustive: ranks every match
    assert _ids(got) == ids[::-1][:5]  # bounded: the newest per_term, newest first
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
    bounds = SearchBounds(max_terms=2, per_term=5)
    store.search_bounds = bounds
    hits = store.search_records("ns", common + " locksmith", 3)
    assert _ids(hits)[0] == target


def test_bounded_search_keeps_to_the_namespace_and_filters(store: Any) -> None:
    bounds = SearchBounds(per_term=3)
    mine = [store.add_record("ns", f"kiwi fact {i}", thread_id="t1" if i < 3 else "t2").id
            for i in range(10)]
    for i in range(10):
        store.add_record("other", f"kiwi fact {i}")
    store.search_bounds = bounds
    got = store.search_records("ns", "kiwi", 10)
    assert got and {r.namespace for r, _ in got} == {"ns"}
    # the thread filter leaves none of the newest candidates: the filtered set is ranked exactly
    got = store.search_records("ns", "kiwi", 10, thread_id="t1")
    assert sorted(_ids(got)) == mine[:3]


def test_term_stats_are_memoised_and_dropped_on_forget(store: Any) -> None:
    for i in range(5):
        store.add_record("ns", f"plum jam jar {i}")
    store.search_bounds = SearchBounds(per_term=2)
    store.search_records("ns", "plum", 5)
    size = store._index_size()
    assert store._term_stats.get("ns", ["plum"], size) == {"plum": 5.0}
    rec = store.records("ns", limit=1)[0]
    store.forget_record("ns", rec.id)
    assert store._term_stats.get("ns", ["plum"], size) == {}


def test_term_stats_expire_when_the_index_moves() -> None:
    ts = TermStats()
    ts.get("ns", [], 1000.0)
    ts.put("ns", {"a": 3.0})
    assert ts.get("ns", ["a"], 1010.0) == {"a": 3.0}  # small drift: kept
    assert ts.get("ns", ["a"], 2000.0) == {}  # grew by more than a sixteenth: dropped
