"""A record's sources as the read path reads them, on both engines: `records` and
`search_records` with `sources=n` carry each record's n lowest source ids (the rest of the
record as without), and `sources_among` says which of some messages each record cites, however
many it cites (`Thread.context` reads notes this way: a fact confirmed turn after turn cites
thousands of messages)."""

from __future__ import annotations

import time
from typing import Any

from memlane import HistoryPolicy
from memlane.store.protocol import NewMessage, SearchBounds


def _thread(store: Any, ns: str, n: int) -> list[int]:
    now = time.time()
    out = store.append(ns, "t", [NewMessage("user", f"m{i}", now, 2) for i in range(n)], now,
                       HistoryPolicy())
    return [m.id for m in out]


def test_sources_capped_are_the_lowest_and_the_rest_is_the_same(store: Any) -> None:
    ids = _thread(store, "ns", 40)
    other = _thread(store, "other", 3)
    many = store.add_record("ns", "the harbour crane at nine", source_ids=ids[::-1])
    few = store.add_record("ns", "the harbour ferry", source_ids=[ids[5]])
    none = store.add_record("ns", "the harbour light")
    store.add_record("other", "the harbour crane elsewhere", source_ids=other)
    whole = {r.id: r for r in store.records("ns")}
    assert whole[many.id].source_ids == tuple(sorted(ids))
    for cap in (0, 1, 3, 100):
        got = {r.id: r for r in store.records("ns", sources=cap)}
        assert set(got) == set(whole)
        for rid, r in got.items():
            assert r.source_ids == whole[rid].source_ids[:cap]
            assert (r.id, r.text, r.kind, r.stated, r.created, r.pinned) == (
                rid, whole[rid].text, whole[rid].kind, whole[rid].stated, whole[rid].created,
                whole[rid].pinned)
        picked = store.records("ns", [none.id, many.id], sources=cap)
        assert [r.source_ids for r in picked] == [tuple(sorted(ids))[:cap], ()]  # by id
    for bounds in (None, SearchBounds(), SearchBounds(per_term=1, exact_postings=1,
                                                      common_take=1)):
        store.search_bounds = bounds
        full = store.search_records("ns", "harbour crane", 5)
        capped = store.search_records("ns", "harbour crane", 5, sources=2)
        assert [(r.id, s) for r, s in capped] == [(r.id, s) for r, s in full], bounds
        assert [r.source_ids for r, _ in capped] == [r.source_ids[:2] for r, _ in full]
    assert few.source_ids == (ids[5],)


def test_sources_among_is_which_of_the_messages_each_record_cites(store: Any) -> None:
    ids = _thread(store, "ns", 30)
    other = _thread(store, "other", 5)
    a = store.add_record("ns", "alpha", source_ids=ids)
    b = store.add_record("ns", "beta", source_ids=ids[10:12])
    c = store.add_record("ns", "gamma")
    d = store.add_record("other", "delta", source_ids=other)
    ask = [ids[0], ids[11], ids[29], other[0]]
    assert store.sources_among("ns", [a.id, b.id, c.id], ask) == {
        a.id: frozenset([ids[0], ids[11], ids[29]]), b.id: frozenset([ids[11]])}
    # Another namespace's record is not this namespace's to ask about.
    assert store.sources_among("ns", [d.id], ask) == {}
    assert store.sources_among("other", [d.id], ask) == {d.id: frozenset([other[0]])}
    assert store.sources_among("ns", [], ask) == {}
    assert store.sources_among("ns", [a.id], []) == {}
