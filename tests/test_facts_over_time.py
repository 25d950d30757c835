"""Facts over time: a statement that updates an earlier fact supersedes its record, which keeps
the earlier versions, dated, as its history; facts about different people stay apart.

Conversations written for this (the issue's cases), filed by the offline heuristic and by a
model step's `update`, on both stores (the `store` fixture). Dates are the conversation's own
(replayed 2023 messages), never the wall clock.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from memlane.memory import Memory
from memlane.store.migrations import SQLITE, apply_sqlite
from memlane.store.sqlite import SQLiteStore
from memlane.tools.handlers import MemoryTools

DAY = 86400.0
T0 = 1683500000.0  # 2023-05-07 22:53 UTC
FILLER = ["What should I keep in mind?", "Okay.", "Sounds fine."]


def converse(mem: Memory, tid: str, facts: list[str], t0: float = T0) -> None:
    """Each fact opens a stretch of four user turns (the default cadence), one day apart, so
    every later statement is filed after the one it updates."""
    t = mem.thread(tid)
    ts = t0
    for fact in facts:
        for text in [fact, *FILLER]:
            t.add("user", text, ts=ts)
            t.add("assistant", "Noted.", ts=ts + 5)
            ts += DAY / 4
        t.maybe_step()
    t.flush()


def day(ts: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(ts))


CORRECTIONS = [
    ("I have a dentist appointment with Dr. Okafor on 12 May at 9:30.",
     "The dentist moved my appointment to 19 May at 11:00.", "12 May"),
    ("My new job as a data analyst starts on 15 September.",
     "My start date moved to 1 October.", "15 September"),
    ("Our mortgage loan is 3.5 percent fixed for ten years.",
     "I was wrong earlier: the loan is 4.25 percent.", "3.5 percent"),
    ("We leave the hut at 5 a.m. to reach the summit.",
     "Update: we now leave the hut at 6 a.m.", "5 a.m."),
]


def test_each_correction_supersedes_its_record_with_a_dated_history(store: Any) -> None:
    for n, (first, second, stale) in enumerate(CORRECTIONS):
        mem = Memory(store, f"user-{n}")
        converse(mem, "t", [first, second])
        recs = mem.records()
        assert len(recs) == 1, [r.text for r in recs]
        rec = recs[0]
        assert stale not in rec.text
        # Dated by the correction's own message (day 2 of the conversation), not by now.
        assert day(rec.stated) == day(T0 + DAY)
        hist = [h for h in mem.record_history(rec.id) if h["op"] != "delete"]
        assert [h["text"] for h in hist][0] == first and hist[-1]["text"] == rec.text
        assert day(hist[0]["stated"]) == day(T0)
        assert hist[0]["superseded"] == hist[1]["stated"] == rec.stated
        # Superseded by the correction's message.
        said = mem.messages_by_id(hist[0]["superseded_by"])
        assert [m.content for m in said] == [second]
        assert hist[-1]["superseded"] is None
        # Notes and search show the current text only, with the date it was stated (a value
        # the user changed is a standing fact: the core layer shows it, the notes do not again).
        ctx = mem.thread("t").context(4000, "What is the plan?")
        notes = "\n".join(m.content for m in ctx.messages if m.layer in ("core", "notes"))
        assert stale not in notes
        assert f"- #{rec.id} ({day(rec.stated)}) " in notes
        assert all(stale not in h.record.text
                   for h in mem.search(" ".join(first.split()[1:5]), 5))


def test_a_code_changed_twelve_times_is_one_record_with_eleven_earlier_versions(
        store: Any) -> None:
    mem = Memory(store, "locker")
    # Other facts of the namespace, so the search ranks against something.
    converse(mem, "other", ["My sister Ana lives in Lisbon and works at a bakery.",
                            "I run 10 km every Sunday morning along the river."], t0=T0 - 30 * DAY)
    codes = [4000 + 17 * i for i in range(12)]
    converse(mem, "t", [f"My locker code is {codes[0]}."] +
             [f"I changed my locker code, it is now {c}." for c in codes[1:]])
    lockers = [r for r in mem.records() if "locker" in r.text]
    assert len(lockers) == 1 and str(codes[-1]) in lockers[0].text
    rec = lockers[0]
    out = MemoryTools(mem).call("open_memory", {"ids": [rec.id], "history": True})
    view = out["records"][0]
    assert view["date"].startswith(day(rec.stated))
    earlier = view["history"]
    assert len(earlier) == 11
    assert [str(c) in h["text"] for h, c in zip(earlier, codes[:-1], strict=True)] == [True] * 11
    assert all(h["superseded"] is not None for h in earlier)
    hits = mem.search("locker code", 5)
    assert [h.record.id for h in hits][:1] == [rec.id]
    assert hits[0].score > 0.0 and round(hits[0].score, 4) != 0.0
    assert not [h for h in hits if str(codes[0]) in h.record.text]
    found = MemoryTools(mem).call("search_memory", {"query": "locker code"})["results"]
    assert found[0]["id"] == rec.id and found[0]["score"] != 0.0
    # Forgetting the record forgets its history too.
    assert mem.forget(rec.id)
    assert mem.record_history(rec.id) == []
    assert mem.records([rec.id]) == []


def test_a_model_steps_update_supersedes_with_the_statements_date(store: Any) -> None:
    mem = Memory(store, "model")
    t = mem.thread("t")
    t.add("user", "My flat is on the 3rd floor.", ts=T0)
    t.add("assistant", "Noted.", ts=T0 + 1)
    res = t.step({"records": [{"op": "add", "text": "The user's flat is on the 3rd floor.",
                               "source": [1]}], "episode": "Flat floor.", "relevance": []},
                 start=1, end=2)
    rid = res.added[0]
    t.add("user", "We moved: the flat is on the 5th floor now.", ts=T0 + 40 * DAY)
    t.add("assistant", "Noted.", ts=T0 + 40 * DAY + 1)
    t.step({"records": [{"op": "update", "id": rid, "text": "The user's flat is on the 5th "
                         "floor.", "source": [3]}], "episode": "Moved.", "relevance": []},
           start=3, end=4)
    rec = mem.records([rid])[0]
    assert rec.text.endswith("5th floor.") and day(rec.stated) == day(T0 + 40 * DAY)
    hist = mem.record_history(rid)
    assert [h["op"] for h in hist] == ["add", "update"]
    assert day(hist[0]["superseded"]) == day(T0 + 40 * DAY)
    assert [m.seq for m in mem.messages_by_id(hist[0]["superseded_by"])] == [3]
    # A repeat (same text) is no new version: the history does not grow.
    store.update_record(mem.ns, rid, rec.text)
    assert len(mem.record_history(rid)) == 2


def test_facts_about_different_people_stay_apart(store: Any) -> None:
    mem = Memory(store, "people")
    converse(mem, "t", ["My mother takes 10mg of lisinopril every morning.",
                        "My father takes 20mg of lisinopril every morning.",
                        "My friend Anna moved to Lisbon last year.",
                        "My friend Boris moved to Berlin."])
    texts = sorted(r.text for r in mem.records())
    assert texts == sorted(["My mother takes 10mg of lisinopril every morning.",
                            "My father takes 20mg of lisinopril every morning.",
                            "My friend Anna moved to Lisbon last year.",
                            "My friend Boris moved to Berlin."])
    # A correction about the same friend does supersede.
    converse(mem, "t2", ["Actually, my friend Anna moved to Porto."], t0=T0 + 10 * DAY)
    anna = [r.text for r in mem.records() if "Anna" in r.text]
    assert anna == ["My friend Anna moved to Porto."]


def test_different_cousins_in_another_thread_are_not_repeats(store: Any) -> None:
    mem = Memory(store, "cousins")
    names = ["Maria", "Lucia", "Pedro", "Joana"]
    converse(mem, "a", [f"My cousin {n} lives in Porto and works as a nurse." for n in names])
    converse(mem, "b", [f"My cousin {n} lives in Porto and works as a nurse."
                        for n in ["Tomas", "Ines", "Rui", "Marta"]], t0=T0 + 20 * DAY)
    texts = [r.text for r in mem.records()]
    # one record per fact: where each cousin lives, what each does
    assert len(texts) == 16 and len(set(texts)) == 16
    assert "My cousin Ines works as a nurse." in texts
    # The same cousin's facts again in a third thread are repeats: no new record.
    converse(mem, "c", ["My cousin Maria lives in Porto and works as a nurse."],
             t0=T0 + 40 * DAY)
    assert len(mem.records()) == 16


def test_migration_dates_existing_records_by_their_sources(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    apply_sqlite(conn, SQLITE[:3], "_migrations", threading.RLock())
    conn.execute("INSERT INTO threads VALUES ('ns', 't', 1, 1, 2, 1, 0)")
    conn.execute("INSERT INTO messages (namespace, thread_id, seq, turn, role, content, ts,"
                 " tokens) VALUES ('ns', 't', 1, 1, 'user', 'My code is 12.', ?, 5)", (T0,))
    conn.execute("INSERT INTO records (namespace, text, created, updated) VALUES"
                 " ('ns', 'My code is 12.', ?, ?)", (T0 + 99 * DAY, T0 + 99 * DAY))
    conn.execute("INSERT INTO record_sources VALUES (1, 1)")
    conn.execute("INSERT INTO records (namespace, text, created, updated) VALUES"
                 " ('ns', 'No source.', ?, ?)", (T0 + 5 * DAY, T0 + 5 * DAY))
    conn.execute("INSERT INTO record_history (record_id, namespace, text, op, changed) VALUES"
                 " (2, 'ns', 'No source.', 'add', ?)", (T0 + 5 * DAY,))
    conn.close()
    s = SQLiteStore(path)
    try:
        assert 4 in s.migrations_run
        a, b = s.records("ns")
        assert a.stated == T0 and b.stated == T0 + 5 * DAY
        assert s.record_history("ns", 2)[0]["stated"] == T0 + 5 * DAY
    finally:
        s.close()
