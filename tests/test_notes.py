"""The default context's notes layer through `Thread.context`, on both stores: all records when
they fit the share, else the ones relevant to the new message; bounded by the budget."""

from __future__ import annotations

import re
from typing import Any

from memlane import Policy
from memlane.memory import Memory


def _ids(ctx: Any) -> list[int]:
    block = next((m.content for m in ctx.messages if m.layer == "notes"), "")
    return [int(i) for i in re.findall(r"^- #(\d+) ", block, re.M)]


def test_a_small_namespace_is_shown_whole(store: Any) -> None:
    mem = Memory(store, "small")
    t = mem.thread("t")
    t.add("user", "hello there")
    recs = [mem.remember(f"Ana's fact {i}: she keeps {i} plants.") for i in range(5)]
    ctx = t.context(4000, "What is the weather like?")
    assert sorted(_ids(ctx)) == [r.id for r in recs]  # no word in common, shown all the same
    # Off: no notes layer.
    assert not _ids(t.context(4000, "weather?", policy=Policy(notes_share=0.0)))


def test_a_large_namespace_shows_what_the_new_message_is_about(store: Any) -> None:
    mem = Memory(store, "large")
    t = mem.thread("t")
    t.add("user", "hello there")
    for i in range(300):
        mem.remember(f"Filler note {i} on the quarterly budget spreadsheet, row {i}.")
    kayak = mem.remember("Ben bought a red kayak in Porto last summer.")
    ctx = t.context(2000, "Where did Ben buy his kayak?")
    ids = _ids(ctx)
    assert ids and ids[0] == kayak.id
    assert ctx.trace.tokens_by_layer["notes"] <= 2000 * Policy().notes_share
    assert ctx.trace.tokens_total <= 2000
    # Without a new message there is nothing to rank by: no notes from a large namespace.
    assert not _ids(t.context(2000))


# --- the selection itself (memlane.context.notes): pure, no store -------------------------------

def _rec(i: int) -> Any:
    from memlane.types import Record

    return Record(id=i, namespace="n", text=f"fact {i}", stated=1_700_000_000.0)


def _rows(first_ids: tuple[int, ...], first_start: int = 1, window_start: int = 50,
          truncated: bool = True, last_user: str = "the loan at Harbor Bank") -> Any:
    from memlane.types import ContextRows, Episode, Message

    window = (Message(id=1, thread_id="t", seq=window_start, role="user", content=last_user,
                      ts=0.0, tokens=5),
              Message(id=2, thread_id="t", seq=window_start + 1, role="assistant",
                      content="ok", ts=0.0, tokens=1))
    first = Episode(thread_id="t", start=first_start, end=first_start + 7, line="x",
                    record_ids=first_ids, date=0.0)
    return ContextRows(thread_id="t", window=window, truncated=truncated, first_episode=first,
                       recent_episodes=(), episodes_before_window=1, pinned=(),
                       unfiled_before_window=0)


def test_the_plan_is_bounded_by_the_budget_and_off_with_no_share() -> None:
    from memlane.context.notes import MAX_NOTES, notes_plan

    assert notes_plan(4000, Policy(notes_share=0.0)) is None
    p = notes_plan(2000, Policy(notes_share=0.4))
    assert p is not None and (p.cap, p.most, p.k, p.recent_k) == (800, 50, 25, 25)
    big = notes_plan(100_000, Policy(notes_share=0.4))
    assert big is not None and big.k == MAX_NOTES and big.recent_k == MAX_NOTES


def test_fits_whole_counts_the_lines_as_shown() -> None:
    from memlane.context.notes import fits_whole, notes_plan

    plan = notes_plan(1000, Policy(notes_share=0.4))  # 400 tokens, 40 for the header
    assert plan is not None
    words = lambda xs: [len(x.split()) for x in xs]  # noqa: E731 - a stand-in tokenizer
    assert fits_whole([_rec(i) for i in range(10)], plan, words)
    assert not fits_whole([_rec(i) for i in range(200)], plan, words)


def test_select_notes_order_best_then_follow_up_each_once() -> None:
    from memlane.context.notes import select_notes

    searched = [_rec(i) for i in (10, 11, 12, 13, 14)]
    recent = [_rec(i) for i in (11, 20, 21, 22, 23)]  # 11 is already there
    # A follow-up with few words of its own: the last turn's best right after its own best.
    got = [r.id for r in select_notes(searched, recent, lean=True)]
    assert got == [10, 11, 12, 20, 21, 22, 13, 14]
    # A message with a subject of its own: its own results first, the last turn's after.
    got = [r.id for r in select_notes(searched, recent)]
    assert got == [10, 11, 12, 13, 14, 20, 21, 22]


def test_dated_records_go_after_the_searchs_best_three_each_once() -> None:
    from memlane.context.notes import select_notes

    searched = [_rec(i) for i in (10, 11, 12, 13, 14)]
    recent = [_rec(i) for i in (20, 21)]
    dated = [_rec(i) for i in (13, 30, 11, 31, 30)]  # 13 and 11 were found, 30 twice
    got = [r.id for r in select_notes(searched, recent, dated=dated)]
    assert got == [10, 11, 12, 13, 30, 31, 14, 20, 21]
    got = [r.id for r in select_notes(searched, recent, lean=True, dated=dated)]
    assert got == [10, 11, 12, 13, 30, 31, 20, 21, 14]
    assert [r.id for r in select_notes([], [], dated=dated)] == [13, 30, 11, 31]


def test_by_overlap_most_shared_first_and_with_every_the_rest_after() -> None:
    from memlane.context.notes import by_overlap
    from memlane.text import fact_terms
    from memlane.types import Record

    recs = [Record(id=i, namespace="n", text=t) for i, t in enumerate(
        ["I joined a gym", "the gym has a pool and a sauna", "bus was late", "pool party"])]
    want = fact_terms("gym pool")
    assert [r.id for r in by_overlap(recs, want)] == [1, 0, 3]
    assert [r.id for r in by_overlap(recs, want, every=True)] == [1, 0, 3, 2]
    assert by_overlap(recs, frozenset()) == []
    assert [r.id for r in by_overlap(recs, frozenset(), every=True)] == [0, 1, 2, 3]


def test_a_message_with_few_words_of_its_own_leans_on_the_last_turn() -> None:
    from memlane.context.notes import leans_on_last_turn
    from memlane.text import fact_terms

    assert leans_on_last_turn(fact_terms("Any news on it?"))
    assert leans_on_last_turn(fact_terms("And the second one?"))
    assert not leans_on_last_turn(fact_terms("Suggest a dinner I could cook tonight."))


def test_the_follow_up_query_is_the_users_last_turn() -> None:
    from memlane.context.notes import recent_query

    rows = _rows((1, 2, 3, 4, 5, 6, 7, 8, 9))
    assert recent_query("Any news on it?", rows, Policy()) == "the loan at Harbor Bank"
    assert recent_query("Any news on it?", rows, Policy(notes_recent=False)) is None
    # The new message already stored (a proxy does): it is not its own "last turn".
    assert recent_query("the loan at Harbor Bank", rows, Policy()) is None
