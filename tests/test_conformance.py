"""One conformance suite for every `Store`: the same assertions on SQLite and on PostgreSQL.

Everything goes through the public API (`memlane.Memory(store, namespace)`) or the `Store` /
`StoreTx` protocol, so a third store passes by adding it to the `store` fixture's parameters
(tests/conftest.py). Engine-specific checks (the PostgreSQL error messages, concurrent opens)
sit at the end, marked as such.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

import memlane
from memlane import HistoryPolicy, Memory, Policy, StepError, UsageError
from memlane.store.migrations import POSTGRES, SQLITE
from memlane.store.protocol import NewMessage
from memlane.types import public_dict


def _user_turns_after(store: Any, ns: str, thread_id: str, seq: int) -> int:
    """How many user messages have seq > `seq` (what `Store.user_turns_after` answered before
    it was removed as unused: the memory step's cadence reads the unfiled messages instead)."""
    return sum(1 for m in store.messages(ns, thread_id, start=seq + 1) if m.role == "user")


def _record_sources(store: Any, ns: str, ids: list[int]) -> dict[int, list[int]]:
    """Source message ids by record (the removed `Store.record_sources`)."""
    return {r.id: list(r.source_ids) for r in store.records(ns, ids)}


def _namespaces(store: Any) -> list[str]:
    """Every namespace with a thread or a record (the removed `Store.namespaces`), through the
    store's shared SQL reader."""
    return [r[0] for r in store._read(
        "SELECT namespace FROM threads UNION SELECT namespace FROM records ORDER BY 1")]


def fill(t: memlane.Thread, turns: int, start: int = 0) -> None:
    """`turns` user/assistant pairs, in one append."""
    t.extend(m for i in range(start, start + turns) for m in (
        {"role": "user", "content": f"Question {i}: my locker code is {1000 + i}."},
        {"role": "assistant", "content": f"Noted, locker code {1000 + i}."},
    ))


def step_out(
    adds: list[str] | None = None,
    line: str = "Talked about lockers.",
    relevance: dict[int, float] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """An explicit memory step output (what a model would return)."""
    out: dict[str, Any] = {
        "records": [{"op": "add", "text": a} for a in (adds or [])],
        "episode": line,
        "relevance": [{"seq": s, "score": v} for s, v in (relevance or {}).items()],
    }
    out.update(extra)
    return out


def known_migrations(store: Any) -> list[int]:
    from memlane.store.sqlite import SQLiteStore

    return [m.number for m in (SQLITE if isinstance(store, SQLiteStore) else POSTGRES)]


# message log ---------------------------------------------------------------------------------


def test_append_assigns_gapless_seqs_and_counts_turns(store: Any) -> None:
    t = Memory(store, "ns").thread("t")
    first = t.add("user", "hello there")
    assert (first.seq, first.thread_id, first.role) == (1, "t", "user")
    msgs = t.extend([
        {"role": "assistant", "content": "hi"},
        {"role": "user", "content": "my name is Ada", "name": "ada", "ts": 1000.5},
        {"role": "tool", "content": "{}", "name": "lookup"},
    ])
    assert [m.seq for m in msgs] == [2, 3, 4]
    assert msgs[1].ts == 1000.5 and msgs[1].name == "ada"
    stored = t.messages()
    assert [m.seq for m in stored] == [1, 2, 3, 4]
    assert [m.content for m in stored] == ["hello there", "hi", "my name is Ada", "{}"]
    assert [m.id for m in stored] == [first.id] + [m.id for m in msgs]
    assert len({m.id for m in stored}) == 4
    assert all(m.tokens > 0 for m in stored)
    assert stored[2].name == "ada" and stored[0].name is None
    assert t.info().messages == 4 and t.info().filed_to == 0
    # user turns after a seq: the cadence counter
    assert _user_turns_after(store, "ns", "t", 0) == 2
    assert _user_turns_after(store, "ns", "t", 1) == 1
    assert _user_turns_after(store, "ns", "t", 3) == 0
    assert _user_turns_after(store, "ns", "missing", 0) == 0


def test_messages_ranges_limits_and_ids(store: Any) -> None:
    t = Memory(store, "ns").thread("t")
    fill(t, 10)
    assert [m.seq for m in t.messages(5, 8)] == [5, 6, 7, 8]
    assert [m.seq for m in t.messages(15)] == [15, 16, 17, 18, 19, 20]
    assert [m.seq for m in t.messages(3, limit=2)] == [3, 4]
    assert t.messages(21) == []
    some = t.messages(4, 6)
    got = store.messages_by_id("ns", [m.id for m in reversed(some)] + [10**9])
    assert got == some
    assert store.messages_by_id("ns", []) == []


def test_threads_listing_and_delete(store: Any) -> None:
    mem = Memory(store, "ns")
    for name in ("a", "b", "c"):
        mem.thread(name).add("user", f"hi from {name}")
    mem.thread("a").add("user", "a again")  # most recently written now
    assert [i.thread_id for i in mem.threads()] == ["a", "c", "b"]
    assert [i.thread_id for i in mem.threads(limit=1, offset=1)] == ["c"]
    info = mem.thread("a").info()
    assert info.namespace == "ns" and info.messages == 2 and info.last_active >= info.created
    assert store.thread("ns", "zzz") is None
    assert mem.thread("b").delete() is True
    assert mem.thread("b").delete() is False
    assert not mem.thread("b").exists()
    assert mem.thread("b").messages() == []
    with pytest.raises(memlane.NotFound):
        mem.thread("b").info()
    # a deleted thread starts again at seq 1
    assert mem.thread("b").add("user", "back").seq == 1


def test_transaction_rolls_back_on_error(store: Any) -> None:
    t = Memory(store, "ns").thread("t")
    fill(t, 1)
    with pytest.raises(RuntimeError), store.transaction() as tx:
        tx.add_record("ns", "should vanish", "fact", [1], "t", time.time(), None, False)
        raise RuntimeError("boom")
    assert store.records("ns") == []


# context rows: the bounded read ---------------------------------------------------------------


def test_context_rows_reads_window_plus_one_probe(store: Any) -> None:
    t = Memory(store, "ns").thread("t")
    fill(t, 5)  # 10 messages, 5 user turns
    rows = store.context_rows("ns", "t", window_turns=5, buffer_lines=12)
    assert not rows.truncated and [m.seq for m in rows.window] == list(range(1, 11))
    rows = store.context_rows("ns", "t", window_turns=6, buffer_lines=12)
    assert not rows.truncated and len(rows.window) == 10
    # one turn fewer than the thread: the probe (seq 2) comes back, so history did not fit
    rows = store.context_rows("ns", "t", window_turns=4, buffer_lines=12)
    assert rows.truncated
    assert [m.seq for m in rows.window] == list(range(3, 11))
    assert rows.window == tuple(t.messages(3))  # the same rows, to the last bit of ts
    assert rows.first_episode is None and rows.recent_episodes == ()
    assert rows.episodes_before_window == 0
    assert rows.unfiled_before_window == 2
    # no window at all: every message is history, none is replayed
    rows = store.context_rows("ns", "t", window_turns=0, buffer_lines=12)
    assert rows.truncated and rows.window == () and rows.unfiled_before_window == 10
    empty = store.context_rows("ns", "nothing", window_turns=4, buffer_lines=12)
    assert empty.window == () and not empty.truncated


def test_context_rows_episodes_and_gap_proof(store: Any) -> None:
    mem = Memory(store, "ns")
    t = mem.thread("t")
    fill(t, 40)  # 80 messages
    for k in range(10):  # ten stretches of 4 turns (8 messages) each
        r = t.step(step_out([f"Fact number {k}."], line=f"Stretch {k}."),
                   start=8 * k + 1, end=8 * k + 8)
        assert r is not None and r.episode is not None
    assert t.info().filed_to == 80
    rows = store.context_rows("ns", "t", window_turns=8, buffer_lines=3)
    assert rows.truncated
    assert rows.window[0].seq == 65  # turns 33..40
    assert rows.first_episode is not None and rows.first_episode.line == "Stretch 0."
    # newest first, only stretches that start before the window, at most buffer_lines
    assert [e.line for e in rows.recent_episodes] == ["Stretch 7.", "Stretch 6.", "Stretch 5."]
    assert rows.episodes_before_window == 8  # proven by episode numbering, not counted
    assert rows.unfiled_before_window == 0
    # dedupe_lines off: every record is a note here, and the lines' selection is tested.
    ctx = t.context(budget=8000, policy=Policy(short_term_turns=3, working_turns=5,
                                               buffer_lines=3, fill_budget=False,
                                               dedupe_lines=False))
    lines = [b.line for b in ctx.trace.buffer_lines]
    assert lines == ["Stretch 0.", "Stretch 6.", "Stretch 7."]
    assert ctx.trace.gap == 5  # stretches 1..5 not listed
    # every buffer line points at the record its step wrote
    assert all(len(b.record_ids) == 1 for b in ctx.trace.buffer_lines)


def test_context_without_overflow_has_no_buffer_block(store: Any) -> None:
    t = Memory(store, "ns").thread("t")
    fill(t, 4)
    t.step()
    ctx = t.context(budget=8000, new_message="What is my locker code?")
    assert ctx.trace.buffer_lines == () and ctx.trace.gap is None
    assert ctx.messages[-1].content == "What is my locker code?"
    assert sum(1 for m in ctx.messages if m.layer in ("working", "short_term")) == 8


def test_pinned_records_come_with_context_rows(store: Any) -> None:
    t = Memory(store, "ns").thread("t")
    fill(t, 1)
    with store.transaction() as tx:
        pid = tx.add_record("ns", "User is called Ada.", "profile", [], None, time.time(), None,
                            False, pinned=True)
        tx.add_record("ns", "Not pinned.", "fact", [], None, time.time(), None, False)
        tx.add_record("other", "Other tenant's pin.", "fact", [], None, time.time(), None,
                      False, pinned=True)
    rows = store.context_rows("ns", "t", window_turns=4, buffer_lines=4)
    assert [(r.id, r.text, r.pinned) for r in rows.pinned] == [(pid, "User is called Ada.", True)]
    assert [r.id for r in store.records("ns", pinned_only=True)] == [pid]


# memory steps ----------------------------------------------------------------------------------


def test_heuristic_step_files_stretches_on_cadence(store: Any) -> None:
    mem = Memory(store, "ns")
    t = mem.thread("t")
    t.extend([
        {"role": "user", "content": "My name is Ada Lovelace and I live in London."},
        {"role": "assistant", "content": "Nice to meet you, Ada."},
        {"role": "user", "content": "I prefer tea over coffee in the morning."},
        {"role": "assistant", "content": "Tea it is."},
        {"role": "user", "content": "My flight to Oslo leaves on 2024-05-03 at 09:40."},
        {"role": "assistant", "content": "Got it."},
    ])
    assert not t.step_due()
    t.extend([{"role": "user", "content": "I adopted a cat named Pixel last week."},
              {"role": "assistant", "content": "Congratulations!"}])
    assert not t.step_due(), "the 4th turn is still open: a reply may follow"
    assert t.maybe_step() == []
    done = t.maybe_step(turn_done=True)  # what the agent says after its answer
    assert len(done) == 1
    r = done[0]
    assert (r.start, r.end) == (1, 8) and r.added and not r.replaced
    assert r.episode is not None and set(r.episode.record_ids) == set(r.added)
    eps = t.episodes()
    assert len(eps) == 1 and eps[0].record_ids == r.episode.record_ids
    recs = mem.records()
    assert [x.id for x in recs] == sorted(r.added)
    assert any("Oslo" in x.text for x in recs)
    assert all(x.thread_id == "t" and x.namespace == "ns" and x.source_ids for x in recs)
    assert t.info().filed_to == 8 and not t.step_due() and t.pending() == []
    # the heuristic scored every turn
    assert all(m.relevance is not None for m in t.messages() if m.role == "user")


def test_explicit_step_records_episode_and_relevance(store: Any) -> None:
    mem = Memory(store, "ns")
    t = mem.thread("t")
    fill(t, 4)
    out = step_out(relevance={1: 0.9, 3: 0.25, 99: 1.0})
    out["records"] = [
        {"op": "add", "text": "Locker code is 1000.", "source": [1, 2], "kind": "fact"},
        {"op": "add", "text": "User likes lockers.", "kind": "preference", "source": [3, 42]},
    ]
    out["episode"] = {"line": "Set up lockers.", "record_ids": [777]}
    r = t.step(out, start=1, end=8)
    assert r is not None and len(r.added) == 2
    assert r.episode is not None and r.episode.record_ids == ()  # 777 was invented: dropped
    assert "777" in r.dropped_ids
    assert any("outside the stretch" in w for w in r.warnings)
    assert any(w.startswith("relevance:") for w in r.warnings)
    recs = {x.text: x for x in mem.records()}
    a, b = recs["Locker code is 1000."], recs["User likes lockers."]
    seq_ids = {m.seq: m.id for m in t.messages()}
    assert a.source_ids == (seq_ids[1], seq_ids[2]) and a.kind == "fact"
    assert b.source_ids == (seq_ids[3],) and b.kind == "preference"
    assert _record_sources(store, "ns", [a.id]) == {a.id: [seq_ids[1], seq_ids[2]]}
    rel = {m.seq: m.relevance for m in t.messages()}
    assert rel[1] == pytest.approx(0.9) and rel[3] == pytest.approx(0.25) and rel[5] is None
    ep = t.episodes()[0]
    assert (ep.start, ep.end, ep.line) == (1, 8, "Set up lockers.")
    assert ep.date == t.messages(8, 8)[0].ts


def test_retried_step_overwrites_never_duplicates(store: Any) -> None:
    mem = Memory(store, "ns")
    t = mem.thread("t")
    fill(t, 8)
    t.step(step_out(["Stretch one fact."], line="First stretch."), start=1, end=8)
    first = t.step(step_out(["Attempt one."], line="Attempt one."), start=9, end=16)
    again = t.step(step_out(["Attempt two.", "Another."], line="Attempt two."), start=9, end=16)
    assert first is not None and again is not None
    assert not first.replaced and again.replaced
    eps = t.episodes()
    assert [(e.start, e.end, e.line) for e in eps] == [(1, 8, "First stretch."),
                                                       (9, 16, "Attempt two.")]
    texts = sorted(x.text for x in mem.records())
    assert texts == ["Another.", "Attempt two.", "Stretch one fact."]
    assert set(eps[1].record_ids) == set(again.added)
    # the overwritten episode keeps its number: the gap proof still counts 2 episodes
    rows = store.context_rows("ns", "t", window_turns=1, buffer_lines=1)
    assert rows.episodes_before_window == 2


def test_truncate_drops_the_tail_and_keeps_every_fact_whose_source_remains(store: Any) -> None:
    mem = Memory(store, "ns")
    t = mem.thread("t")
    fill(t, 4)  # seqs 1..8
    t.step(step_out(["Kept fact."], line="Kept."), start=1, end=4)
    t.step({"records": [{"op": "add", "text": "Stated at 5.", "source": [5]},
                        {"op": "add", "text": "Stated at 5 and 7.", "source": [5, 7]},
                        {"op": "add", "text": "Stated at 7.", "source": [7]},
                        {"op": "add", "text": "Pinned, stated at 8.", "source": [8]}],
            "episode": "Second stretch.", "relevance": []}, start=5, end=8)
    ids = {r.text: r.id for r in mem.records()}
    mem.pin(ids["Pinned, stated at 8."])
    assert t.truncate(7) == 2
    assert [m.seq for m in t.messages()] == [1, 2, 3, 4, 5, 6]
    info = t.info()
    # The withdrawn step is re-filed over what remains: 5..6, same line, kept records.
    assert (info.messages, info.filed_to) == (6, 6)
    eps = t.episodes()
    assert [(e.start, e.end, e.line) for e in eps] == [(1, 4, "Kept."), (5, 6, "Second stretch.")]
    kept = {r.text: r for r in mem.records()}
    # Only the record stated wholly in the cut part goes (unless the user pinned it); ids,
    # pins and texts of the others survive, and the line points at exactly them.
    assert set(kept) == {"Kept fact.", "Stated at 5.", "Stated at 5 and 7.",
                         "Pinned, stated at 8."}
    assert all(kept[x].id == ids[x] for x in kept) and kept["Pinned, stated at 8."].pinned
    assert set(eps[1].record_ids) == {ids["Stated at 5."], ids["Stated at 5 and 7."],
                                      ids["Pinned, stated at 8."]}
    # The cut messages are no one's source any more; the remaining ones still are.
    five = t.messages(5, 5)[0].id
    assert kept["Stated at 5 and 7."].source_ids == (five,)
    assert kept["Pinned, stated at 8."].source_ids == ()
    # The seqs are handed out again, the turn counter follows, and what follows is filed
    # after the kept stretch, never over it.
    new = t.extend([{"role": "assistant", "content": "A new answer."},
                    {"role": "user", "content": "And then?"}])
    assert [m.seq for m in new] == [7, 8]
    assert _user_turns_after(store, "ns", "t", 6) == 1
    assert [m.seq for m in t.pending()] == [7, 8]
    assert t.truncate(20) == 0 and t.info().messages == 8
    # A cut before a whole stretch removes its episode; its kept records stand alone.
    t.truncate(5)
    assert [(e.start, e.end) for e in t.episodes()] == [(1, 4)] and t.info().filed_to == 4
    assert {r.text for r in mem.records()} == {"Kept fact.", "Pinned, stated at 8."}
    # Another thread's messages are untouched.
    other = mem.thread("u")
    fill(other, 1)
    t.truncate(1)
    assert t.info().messages == 0 and other.info().messages == 2


def test_a_step_read_before_a_cut_is_not_applied_to_what_replaced_it(store: Any) -> None:
    from memlane.errors import StepConflict

    mem = Memory(store, "ns")
    t = mem.thread("t")
    fill(t, 2)  # seqs 1..4
    stretch = t.messages(1, 4)  # a worker reads the stretch...
    t.truncate(4)  # ...the answer is regenerated meanwhile (same seq, another message)
    t.add("assistant", "A regenerated answer.")
    with pytest.raises(StepConflict):
        mem.step_runner().file_stretch("t", stretch, step_out(["Old answer's fact."]))
    assert mem.records() == [] and t.info().filed_to == 0
    assert mem.step_runner().file_stretch("t", t.messages(1, 4), step_out(["Fact."]))


def test_hold_thread_serialises_one_thread_not_others(store: Any) -> None:
    mem = Memory(store, "ns")
    order: list[str] = []
    inside = threading.Event()

    def holder() -> None:
        with mem.thread("t").hold():
            inside.set()
            time.sleep(0.2)
            order.append("first out")

    th = threading.Thread(target=holder)
    th.start()
    inside.wait(5)
    with mem.thread("other").hold():  # another thread's key: no wait
        order.append("other")
    with mem.thread("t").hold():
        order.append("second in")
    th.join()
    assert order == ["other", "first out", "second in"]


def test_malformed_step_leaves_the_store_unchanged(store: Any) -> None:
    mem = Memory(store, "ns")
    t = mem.thread("t")
    fill(t, 4)
    with pytest.raises(StepError) as e:
        t.step({"records": [{"op": "add"}], "episode": "", "relevance": "x"}, start=1, end=8)
    assert len(e.value.problems) == 3
    with pytest.raises(StepError):
        t.step("not json", start=1, end=8)
    assert mem.records() == [] and t.episodes() == [] and t.info().filed_to == 0
    assert len(t.messages()) == 8
    with pytest.raises(UsageError):
        t.step(step_out(), start=20, end=30)


def test_update_and_delete_records_strip_buffer_pointers(store: Any) -> None:
    mem = Memory(store, "ns")
    t = mem.thread("t")
    fill(t, 8)
    r1 = t.step(step_out(["Locker code is 1000.", "Gym opens at 6."], line="Lockers."),
                start=1, end=8)
    assert r1 is not None
    code, gym = r1.added
    out = step_out(line="Updated and removed.")
    out["records"] = [
        {"op": "update", "id": code, "text": "Locker code is 2000 now.", "source": [9]},
        {"op": "delete", "id": gym},
        {"op": "delete", "id": 10**6},
    ]
    r2 = t.step(out, start=9, end=16)
    assert r2 is not None
    assert r2.updated == (code,) and r2.deleted == (gym,) and str(10**6) in r2.dropped_ids
    recs = mem.records()
    assert [(x.id, x.text) for x in recs] == [(code, "Locker code is 2000 now.")]
    seq9 = t.messages(9, 9)[0].id
    assert seq9 in recs[0].source_ids and recs[0].updated >= recs[0].created
    eps = t.episodes()
    # the first line lost its pointer to the deleted record and kept the other one
    assert eps[0].record_ids == (code,)
    assert eps[1].record_ids == (code,)  # the update is what the second step wrote
    # deleting the last pointed-at record leaves the line with no pointers, not no line
    out = step_out(line="Forgot the code.")
    out["records"] = [{"op": "delete", "id": code}]
    fill(t, 4, start=8)
    t.step(out, start=17, end=24)
    assert [e.record_ids for e in t.episodes()] == [(), (), ()]
    assert mem.records() == []


def test_records_listing_ids_paging(store: Any) -> None:
    mem = Memory(store, "ns")
    now = time.time()
    with store.transaction() as tx:
        ids = [tx.add_record("ns", f"fact {i}", "fact", [], None, now, None, False)
               for i in range(5)]
    assert ids == sorted(ids)
    assert [r.id for r in mem.records(limit=2, offset=1)] == ids[1:3]
    assert [r.id for r in mem.records(ids=[ids[3], ids[0], 10**9])] == [ids[0], ids[3]]
    assert store.records("ns", ids=[]) == []


# bounded history -------------------------------------------------------------------------------


def test_ttl_expiry(store: Any) -> None:
    hist = HistoryPolicy(ttl_seconds=3600, max_threads=None)
    mem = Memory(store, "ns", history=hist)
    other = mem.namespace("other")
    for name in ("old", "new"):
        mem.thread(name).add("user", "hi")
    other.thread("old").add("user", "hi")
    future = time.time() + 3 * 3600
    assert mem.expire(now=time.time()) == 0
    assert mem.expire(now=future) == 2  # only this namespace
    assert mem.threads() == [] and mem.thread("old").messages() == []
    assert [i.thread_id for i in other.threads()] == ["old"]
    assert store.expire(future, hist) == 1  # every namespace
    assert store.expire(future, HistoryPolicy(ttl_seconds=None)) == 0


def test_lru_ceiling_evicts_least_recently_written(store: Any) -> None:
    mem = Memory(store, "ns", history=HistoryPolicy(ttl_seconds=None, max_threads=3))
    for name in ("a", "b", "c"):
        mem.thread(name).add("user", f"hello {name}")
    mem.thread("a").add("user", "a is busy")  # b is now the least recently written
    t = mem.thread("d")
    fill(t, 2)
    t.step(step_out(["d fact"]), start=1, end=4)
    assert sorted(i.thread_id for i in mem.threads()) == ["a", "c", "d"]
    assert mem.thread("b").messages() == [] and mem.thread("b").episodes() == []
    # records outlive the thread they came from
    assert [r.text for r in mem.records()] == ["d fact"]
    # the ceiling is per namespace
    mem.namespace("other").thread("x").add("user", "hi")
    assert len(mem.threads()) == 3 and len(mem.namespace("other").threads()) == 1


# namespaces --------------------------------------------------------------------------------------


def test_namespace_isolation(store: Any) -> None:
    a = Memory(store, "alice")
    b = a.namespace("bob")
    ta, tb = a.thread("same"), b.thread("same")
    fill(ta, 4)
    tb.add("user", "bob's only message")
    ra = ta.step(step_out(["Alice's secret is 42."]), start=1, end=8)
    assert ra is not None
    (secret,) = ra.added
    assert tb.info().messages == 1 and ta.info().messages == 8
    assert b.records() == [] and b.records(ids=[secret]) == []
    assert store.messages_by_id("bob", [m.id for m in ta.messages()]) == []
    assert _record_sources(store, "bob", [secret]) == {}
    assert tb.episodes() == []
    # bob's step cannot touch alice's record: the id reads as missing, nothing leaks
    out = step_out(line="Bob tries.")
    out["records"] = [{"op": "update", "id": secret, "text": "hacked"},
                      {"op": "delete", "id": secret}]
    rb = tb.step(out, start=1, end=1)
    assert rb is not None and rb.updated == () and rb.deleted == ()
    assert [r.text for r in a.records()] == ["Alice's secret is 42."]
    with store.transaction() as tx:
        # What apply_step relies on. (PostgreSQL answers None for another namespace's id, since
        # every query there is scoped; SQLite answers "alice". Neither lets bob act on it.)
        assert tx.record_owner("bob", secret) != "bob"
        assert tx.record_owner("alice", secret) == "alice"
        assert tx.record_owner("alice", 10**9) is None
    assert store.context_rows("bob", "same", 1, 1).window[0].content == "bob's only message"
    assert _namespaces(store) == ["alice", "bob"]


# migrations and the CLI ----------------------------------------------------------------------


def test_migrations_applied_once(store: Any) -> None:
    assert store.migrations_applied() == known_migrations(store)


def test_migrate_cli(store: Any, capsys: pytest.CaptureFixture[str],
                     monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from memlane.cli import main

    target = getattr(store, "path", None) or store._dsn
    assert main(["--db", target, "migrate", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    monkeypatch.setenv("MEMLANE_DB", target)  # the same store named by the environment
    assert main(["migrate", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == data
    assert data["applied"] == known_migrations(store)
    assert data["new"] == [] and data["unknown"] == []
    assert data["latest"] == max(known_migrations(store))
    if data["engine"] == "postgresql":
        assert "***" in data["store"]  # the password is never printed


# PostgreSQL only --------------------------------------------------------------------------------


def test_pg_hold_thread_holds_across_store_objects(pg_url: str) -> None:
    """Two store objects stand for two service processes sharing the database."""
    from memlane.store.postgres import PostgresStore

    a, b = PostgresStore(pg_url), PostgresStore(pg_url)
    try:
        order: list[str] = []
        inside = threading.Event()

        def holder() -> None:
            with Memory(a, "ns").thread("t").hold():
                inside.set()
                time.sleep(0.3)
                order.append("a out")

        th = threading.Thread(target=holder)
        th.start()
        inside.wait(5)
        with Memory(b, "ns").thread("other").hold():
            order.append("b other")
        with Memory(b, "ns").thread("t").hold():
            order.append("b in")
        th.join()
        assert order == ["b other", "a out", "b in"]
    finally:
        a.close()
        b.close()


def test_pg_fresh_database_migrates_once_under_concurrent_opens(pg_database: Any) -> None:
    from memlane.store.postgres import PostgresStore

    url = pg_database(migrated=False)
    results: list[list[int]] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            s = PostgresStore(url, max_size=1)
            results.append(s.migrations_run)
            s.close()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=open_one) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    numbers = [m.number for m in POSTGRES]
    assert sorted(results, key=len) == [[]] * 5 + [numbers]  # exactly one opener applied them
    s = PostgresStore(url, max_size=1)
    try:
        assert s.migrations_applied() == numbers and s.migrations_run == []
    finally:
        s.close()


def test_pg_unreachable_server_names_url_without_password() -> None:
    pytest.importorskip("psycopg")
    from memlane.store.postgres import PostgresStore

    url = "postgresql://memlane:s3cret-pw@127.0.0.1:9/nodb?connect_timeout=2"
    with pytest.raises(memlane.StoreError) as e:
        PostgresStore(url)
    msg = str(e.value)
    assert "s3cret-pw" not in msg
    assert "postgresql://memlane:***@127.0.0.1:9/nodb" in msg
    assert "check that the server is running" in msg


def test_pg_open_store_routes_urls(pg_url: str) -> None:
    with Memory.open(pg_url, namespace="ns") as mem:
        assert type(mem.store).__name__ == "PostgresStore"
        mem.thread("t").add("user", "hi")
        assert mem.thread("t").info().messages == 1


def test_pg_read_only_server_serves_reads(pg_url: str) -> None:
    """What a read replica sees: a current schema opens without DDL; reads work; writes fail
    with a StoreError that says where to send them."""
    from urllib.parse import quote

    from memlane.store.postgres import PostgresStore

    with Memory.open(pg_url, namespace="ns") as mem:
        fill(mem.thread("t"), 2)
    sep = "&" if "?" in pg_url else "?"
    ro = PostgresStore(pg_url + sep + "options=" + quote("-c default_transaction_read_only=on"),
                       max_size=1)
    try:
        mem = Memory(ro, "ns")
        assert len(mem.thread("t").messages()) == 4
        assert mem.thread("t").context(budget=4000).trace.window_start == 1
        with pytest.raises(memlane.StoreError, match="read-only"):
            mem.thread("t").add("user", "lost?")
    finally:
        ro.close()


def test_pg_service_role_needs_no_ddl(pg_url: str) -> None:
    """A migrated database serves a role with data privileges only (as docs/SCALING.md says)."""
    import os
    import uuid
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    from memlane.store.postgres import PostgresStore

    if os.environ.get("MEMLANE_TEST_PG_URL"):
        pytest.skip("logs in as a new role without a password: pgserver's trust auth only")
    role = f"svc_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute(f"CREATE ROLE {role} LOGIN")
        c.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}")
        c.execute(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {role}")
    parts = urlsplit(pg_url)
    url = urlunsplit(parts._replace(netloc=f"{role}@{parts.hostname or ''}"
                                    + (f":{parts.port}" if parts.port else "")))
    s = PostgresStore(url, max_size=1)
    try:
        assert s.migrations_run == []
        t = Memory(s, "ns").thread("t")
        fill(t, 4)
        assert t.step() is not None and s.search_records("ns", "locker", 3)
    finally:
        s.close()
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute(f"DROP OWNED BY {role}")
        c.execute(f"DROP ROLE {role}")


def test_append_large_batch(store: Any) -> None:
    """A large batch (one INSERT on PostgreSQL) keeps order and ids."""
    now = time.time()
    msgs = [NewMessage("user" if i % 2 == 0 else "assistant", f"m{i}", now, 2)
            for i in range(1200)]
    out = store.append("ns", "big", msgs, now, HistoryPolicy())
    assert [m.seq for m in out] == list(range(1, 1201))
    assert [m.content for m in store.messages("ns", "big")] == [f"m{i}" for i in range(1200)]
    assert [m.id for m in store.messages("ns", "big")] == [m.id for m in out]
    assert _user_turns_after(store, "ns", "big", 0) == 600


# search and recall (the Store protocol's "search and recall" section) --------------------------

SEARCH_RECORDS = [
    ("Ada's locker code is 4417.", "fact", "t1"),
    ("The gym opens at six in the morning.", "event", "t1"),
    ("Ada prefers green tea over coffee.", "preference", "t2"),
    ("Lockers on floor two were repainted.", "fact", "t2"),
]


def _seed_records(store: Any, ns: str = "ns") -> list[int]:
    mem = Memory(store, ns)
    for tid in ("t1", "t2"):
        fill(mem.thread(tid), 1)
    ids = []
    for i, (text, kind, tid) in enumerate(SEARCH_RECORDS):
        ids.append(store.add_record(ns, text, kind, thread_id=tid, now=1000.0 + i).id)
    return ids


def test_search_records_lexical(store: Any) -> None:
    code, gym, tea, paint = _seed_records(store)
    store.add_record("other", "Bob's locker code is 1234.", now=1000.0)
    hits = store.search_records("ns", "locker code", k=10)
    assert [r.id for r, _ in hits][:1] == [code]  # both terms beat one
    assert {r.id for r, _ in hits} == {code, paint}  # "lockers" stems to "locker"
    assert all(r.namespace == "ns" for r, _ in hits)
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    assert store.search_records("ns", "locker", k=1)[0][0].id in (code, paint)
    # filters
    assert [r.id for r, _ in store.search_records("ns", "locker", 10, kinds=["fact"],
                                                  thread_id="t2")] == [paint]
    assert store.search_records("ns", "locker", 10, kinds=["event"]) == []
    assert [r.id for r, _ in store.search_records("ns", "locker", 10, since=1001.0)] == [paint]
    assert [r.id for r, _ in store.search_records("ns", "locker", 10, until=1000.0)] == [code]
    # any text is safe: no query syntax gets through
    for q in ['locker" OR *', "NEAR(locker code)", "text:locker", "(((", "-locker", "a & b | !c"]:
        store.search_records("ns", q, 5)
    assert [r.id for r, _ in store.search_records("ns", 'tea" OR *', 5)] == [tea]
    assert store.search_records("ns", "", 5) == [] and store.search_records("ns", "...", 5) == []
    assert store.search_records("ns", "locker", 0) == []
    assert gym not in {r.id for r, _ in store.search_records("ns", "tea coffee locker", 10)}
    # an updated record is found by its new text only
    store.update_record("ns", tea, "Ada switched to black coffee.")
    assert store.search_records("ns", "green tea", 5) == []
    assert [r.id for r, _ in store.search_records("ns", "black", 5)] == [tea]
    store.delete_record("ns", tea)
    assert store.search_records("ns", "coffee", 5) == []


def test_vectors_put_search_and_follow_their_record(store: Any) -> None:
    from memlane.search.embed import HashEmbedder

    ids = _seed_records(store)
    alien = store.add_record("other", "Ada's locker code is 4417.").id
    for emb in (HashEmbedder(256), HashEmbedder(12)):  # HNSW-indexed size on PG, and not
        model = emb.name
        missing = store.missing_vectors("ns", model)
        assert [i for i, _ in missing] == ids and missing[0][1] == SEARCH_RECORDS[0][0]
        vecs = emb.embed([t for _, t in missing])
        n = store.put_vectors("ns", list(zip(ids, vecs, strict=True)) + [(alien, vecs[0])],
                              model)
        assert n == 4  # the other namespace's id is skipped
        assert store.missing_vectors("ns", model) == []
        q = emb.embed_one("Ada's locker code is 4417.")
        got = store.vector_candidates("ns", q, 2, model=model)
        assert got[0][0] == ids[0] and got[0][1] == pytest.approx(1.0, abs=1e-4)
        assert len(got) == 2 and got[0][1] >= got[1][1]
        assert alien not in [i for i, _ in store.vector_candidates("ns", q, 10, model=model)]
        assert len(store.vector_candidates("ns", q, 10, model=model)) == 4
        # filters apply before the k best are chosen
        from memlane.store.protocol import SearchFilters

        f = SearchFilters(kinds=("preference",))
        assert [i for i, _ in store.vector_candidates("ns", q, 3, f, model=model)] == [ids[2]]
        f = SearchFilters(thread_id="t2", since=1003.0)
        assert [i for i, _ in store.vector_candidates("ns", q, 3, f, model=model)] == [ids[3]]
        assert store.vector_candidates("ns", q, 3, model="no-such-model") == []
    # one vector per record: the last model's replaced the first's
    assert len(store.missing_vectors("ns", "hash-256")) == 4
    # new text drops the old vector (it must be embedded again); deletion drops it too
    store.update_record("ns", ids[0], "Ada's locker code changed to 9000.")
    assert [i for i, _ in store.missing_vectors("ns", "hash-12")] == [ids[0]]
    store.delete_record("ns", ids[1])
    q = HashEmbedder(12).embed_one("gym opens")
    assert ids[1] not in [i for i, _ in store.vector_candidates("ns", q, 10, model="hash-12")]


def test_record_tools_history_and_pins(store: Any) -> None:
    mem = Memory(store, "ns")
    t = mem.thread("t")
    fill(t, 1)
    mine = [m.id for m in t.messages()]
    other = Memory(store, "other").thread("x").add("user", "not yours").id
    r = store.add_record("ns", "Ada likes chess.", "preference", source_ids=mine + [other],
                         thread_id="t", now=50.0)
    assert r.source_ids == tuple(mine)  # the other namespace's message is not linked
    assert (r.kind, r.thread_id, r.created, r.updated, r.pinned) == ("preference", "t", 50.0,
                                                                     50.0, False)
    r2 = store.update_record("ns", r.id, "Ada likes chess and go.", now=60.0)
    assert (r2.text, r2.updated, r2.created) == ("Ada likes chess and go.", 60.0, 50.0)
    with pytest.raises(memlane.NotFound):
        store.update_record("other", r.id, "hijack")
    with pytest.raises(memlane.NotFound):
        store.pin("other", r.id)
    assert store.pin("ns", r.id).pinned is True
    assert [x.id for x in store.records("ns", pinned_only=True)] == [r.id]
    assert store.pin("ns", r.id, False).pinned is False
    assert store.delete_record("other", r.id) is False
    assert store.delete_record("ns", r.id, now=70.0) is True
    assert store.delete_record("ns", r.id) is False
    hist = store.record_history("ns", r.id)
    assert [(h["op"], h["text"], h["changed"]) for h in hist] == [
        ("add", "Ada likes chess.", 50.0), ("update", "Ada likes chess and go.", 60.0),
        ("delete", "Ada likes chess and go.", 70.0)]
    assert store.record_history("other", r.id) == []


def test_snapshots_dedup_search_and_vectors(store: Any) -> None:
    from memlane.search.embed import HashEmbedder

    s1, new1 = store.save_snapshot("ns", "weather", {"city": "Oslo", "day": 2},
                                   "Oslo: 4 C, light snow", 9, thread_id="t", now=5.0)
    s2, new2 = store.save_snapshot("ns", "weather", {"day": 2, "city": "Oslo"},
                                   "Oslo: 4 C, light snow", 9, now=6.0)
    assert new1 and not new2 and s2 == s1  # same result: the stored one comes back
    assert (s1.tool, s1.args, s1.thread_id, s1.created, s1.tokens, s1.namespace) == (
        "weather", {"city": "Oslo", "day": 2}, "t", 5.0, 9, "ns")
    s3, new3 = store.save_snapshot("ns", "flights", {"to": "Lima"}, "LA2041 departs 09:40", 7)
    s4, _ = store.save_snapshot("other", "weather", {"city": "Oslo"}, "Oslo: 4 C, light snow", 9)
    assert new3 and s4.id != s1.id
    assert store.snapshots("ns") == [s1, s3]
    assert store.snapshots("ns", ids=[s3.id, s4.id]) == [s3]
    assert store.snapshots("ns", limit=1, offset=1) == [s3]
    hits = store.search_snapshots("ns", "snow in oslo", 5)
    assert [s.id for s, _ in hits] == [s1.id] and hits[0][1] > 0
    assert [s.id for s, _ in store.search_snapshots("ns", "flights", 5)] == [s3.id]  # the tool
    assert [s.id for s, _ in store.search_snapshots("ns", "Lima", 5)] == [s3.id]  # the args
    assert store.search_snapshots("ns", '"', 5) == []
    emb = HashEmbedder(256)
    missing = store.missing_vectors("ns", emb.name, target="snapshots")
    assert [i for i, _ in missing] == [s1.id, s3.id]
    assert "weather" in missing[0][1] and "light snow" in missing[0][1]
    assert store.put_vectors("ns", [(i, emb.embed_one(t)) for i, t in missing], emb.name,
                             target="snapshots") == 2
    got = store.vector_candidates("ns", emb.embed_one(missing[1][1]), 1, model=emb.name,
                                  target="snapshots")
    assert got[0][0] == s3.id
    with pytest.raises(UsageError):
        store.missing_vectors("ns", emb.name, target="nope")


def test_forget_record_thread_namespace(store: Any) -> None:
    from memlane.search.embed import HashEmbedder

    mem = Memory(store, "ns")
    t = mem.thread("t")
    fill(t, 8)
    r1 = t.step(step_out(["Code is 1000.", "Gym at six."], line="Lockers."), start=1, end=8)
    assert r1 is not None
    keep, gone = r1.added
    emb = HashEmbedder(256)
    store.put_vectors("ns", [(i, emb.embed_one(x)) for i, x in
                             store.missing_vectors("ns", emb.name)], emb.name)
    assert store.forget_record("ns", gone) is True
    assert store.forget_record("ns", gone) is False
    assert store.forget_record("other", keep) is False
    assert store.record_history("ns", gone) == []  # no trace, unlike delete
    assert t.episodes()[0].record_ids == (keep,)
    assert store.search_records("ns", "gym", 5) == []
    q = emb.embed_one("Gym at six.")
    assert gone not in [i for i, _ in store.vector_candidates("ns", q, 5, model=emb.name)]

    # a thread: its messages, episodes, records and snapshots; other threads' records lose
    # source links into it
    other_t = mem.thread("u")
    fill(other_t, 1)
    cross = store.add_record("ns", "Cites both threads.",
                             source_ids=[t.messages(1, 1)[0].id, other_t.messages(1, 1)[0].id],
                             thread_id="u")
    store.save_snapshot("ns", "tool", {}, "result of t", 3, thread_id="t")
    store.save_snapshot("ns", "tool", {}, "result of u", 3, thread_id="u")
    counts = store.forget_thread("ns", "t")
    assert counts == {"records": 1, "snapshots": 1, "messages": 16, "episodes": 1,
                      "threads": 1}
    assert not t.exists() and t.messages() == [] and t.episodes() == []
    assert [r.id for r in mem.records()] == [cross.id]
    assert mem.records()[0].source_ids == (other_t.messages(1, 1)[0].id,)
    assert [s.result for s in store.snapshots("ns")] == ["result of u"]

    Memory(store, "keep").thread("k").add("user", "untouched")
    counts = store.forget_namespace("ns")
    assert counts == {"threads": 1, "messages": 2, "episodes": 0, "records": 1, "snapshots": 1}
    assert _namespaces(store) == ["keep"]
    assert store.export_namespace("ns")["threads"] == []
    store.compact()
    assert Memory(store, "keep").thread("k").messages()[0].content == "untouched"


def test_export_namespace(store: Any) -> None:
    mem = Memory(store, "ns")
    t = mem.thread("t")
    fill(t, 4)
    r = t.step(step_out(["Code is 1000."], line="Lockers."), start=1, end=8)
    assert r is not None
    store.update_record("ns", r.added[0], "Code is 2000.", now=time.time() + 10)
    snap, _ = store.save_snapshot("ns", "tool", {"a": 1}, "out", 1, now=7.0)
    Memory(store, "other").thread("x").add("user", "not exported")
    data = store.export_namespace("ns")
    assert data["namespace"] == "ns" and data["format"] == "memlane-export/1"
    (th,) = data["threads"]
    assert th["thread_id"] == "t" and th["filed_to"] == 8
    assert [m["seq"] for m in th["messages"]] == list(range(1, 9))
    # As the message reads, less what only the store keeps for itself (a scan verdict).
    assert th["messages"][0] == public_dict(t.messages(1, 1)[0])
    assert "scanned" not in th["messages"][0] and "scanned" not in data["records"][0]
    assert [(e["start"], e["end"], e["line"], e["record_ids"]) for e in th["episodes"]] == [
        (1, 8, "Lockers.", [r.added[0]])]
    (rec,) = data["records"]
    assert rec["text"] == "Code is 2000." and rec["source_ids"] == [
        m.id for m in t.messages()]
    assert [h["op"] for h in rec["history"]] == ["add", "update"]
    assert data["snapshots"] == [dict(vars(snap))]
    import json

    json.dumps(data)  # JSON-ready as it is


def test_creating_a_thread_expires_idle_threads_of_its_namespace(store: Any) -> None:
    from memlane.store.protocol import HistoryPolicy, NewMessage

    hist = HistoryPolicy(ttl_seconds=100, max_threads=None)
    msg = [NewMessage("user", "hi", 0.0, 1)]
    store.append("ns", "old", msg, 1000.0, hist)
    store.append("other", "old", msg, 1000.0, hist)
    store.append("ns", "recent", msg, 1050.0, hist)
    store.append("ns", "new", msg, 1120.0, hist)  # 'old' idle 120 s > TTL; 'recent' 70 s
    assert sorted(t.thread_id for t in store.threads("ns")) == ["new", "recent"]
    assert [t.thread_id for t in store.threads("other")] == ["old"]


def test_memlane_db_env_may_name_a_postgres_url(store_kind: str, request: Any,
                                                monkeypatch: Any) -> None:
    if store_kind != "postgres":
        pytest.skip("the URL routing is what is tested")
    from memlane.memory import open_store

    url = request.getfixturevalue("pg_url")
    monkeypatch.setenv("MEMLANE_DB", url)
    s = open_store(None)
    try:
        assert type(s).__name__ == "PostgresStore"
    finally:
        s.close()


def test_lexical_plan_is_one_rule() -> None:
    """The rule both engines run (`memlane.store.common.plan.lexical_plan`), on counted documents:
    small index, every term; common terms give way to rarer ones up to the document budget; only
    common terms, AND (the empty plan); nothing common, every term."""
    from memlane.store.common import plan as common

    df = {"rare": 5, "mid": 1_500, "often": common.COMMON_DF, "always": 50_000}.__getitem__
    big = common.LARGE_INDEX
    assert common.lexical_plan(["rare", "always"], big - 1, df) is None
    assert common.lexical_plan(["always", "rare", "often"], big, df) == ["rare"]
    assert common.lexical_plan(["always", "often"], big, df) == []
    assert common.lexical_plan(["mid", "rare"], big, df) == ["rare", "mid"]
    many = {f"t{i}": 1_900 for i in range(8)}.__getitem__  # 8 x 1,900 > DOC_BUDGET
    assert common.lexical_plan([f"t{i}" for i in range(8)], big, many) == \
        [f"t{i}" for i in range(5)]  # 5 x 1,900 fits DOC_BUDGET (10,000); a sixth would not


def test_episode_lines_and_episodes_ending(store: Any) -> None:
    # What the line index reads: ends and lines of the newest episodes, then whole rows for
    # the few it picks, in the order it asks.
    mem = Memory(store, "ns")
    t = mem.thread("t")
    fill(t, 12)
    for j in range(3):
        t.step({"records": [], "episode": f"Line {j}.", "relevance": []},
               start=8 * j + 1, end=8 * j + 8)
    assert store.episode_lines("ns", "t", 2) == [(16, "Line 1."), (24, "Line 2.")]
    assert store.episode_lines("ns", "t", 10) == [(8, "Line 0."), (16, "Line 1."),
                                                  (24, "Line 2.")]
    got = store.episodes_ending("ns", "t", [24, 5, 8])
    assert [(e.end, e.line) for e in got] == [(24, "Line 2."), (8, "Line 0.")]
    assert store.episodes_ending("ns", "t", []) == []
    assert store.episode_lines("other", "t", 5) == [] and \
        store.episodes_ending("other", "t", [8]) == []


def test_a_page_of_every_record_is_the_same_on_both_engines(store: Any) -> None:
    """`limit=-1` (every record, `validate.count(..., allow_all=True)`) on either engine."""
    mem = Memory(store, "all")
    ids = [mem.remember(f"Fact number {i}.").id for i in range(5)]
    assert [r.id for r in mem.records(limit=-1)] == ids
    assert [r.id for r in mem.records(limit=-1, offset=2)] == ids[2:]
