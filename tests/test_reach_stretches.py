"""Working memory reaches past the window (`Policy.reach_stretches`): the turns of the newest
evicted stretches are candidates for the buffer's opened turns, so a turn the new message
matches just out of view is quoted even when no record the search ranks cites it and no line
matches it. Through `Thread.context` on both stores, and the pure part
(`memlane.context.turns.stretch_votes` with `near`)."""

from __future__ import annotations

from typing import Any

from memlane import Policy
from memlane.context.turns import near_stretches, stretch_votes
from memlane.memory import Memory
from memlane.types import ContextRows, Episode

CHAT = [
    ("user", "The weather turned grey again this afternoon, so I stayed inside."),
    ("assistant", "A quiet afternoon indoors sounds nice."),
    ("user", "Work was busy, lots of meetings about the quarterly plan."),
    ("assistant", "Meetings can take the whole day."),
]
SAID = "Rosalind finally repaired the lighthouse lantern with brass hinges."
ASKED = "Who repaired the lantern in the lighthouse?"
LINE = "small talk about the weather and work"
"""Every stretch's line: the line index matches none of them to the question."""


def _thread(store: Any, said_in: int, stretches: int = 30) -> tuple[Memory, Any]:
    """`stretches` stretches of chat, each filed with one record about the weather (none
    about the lighthouse) and the same line; `SAID` in stretch `said_in` (counted back from
    the newest, 1 being the newest)."""
    mem = Memory(store, "ns")
    t = mem.thread("t")
    for i in range(stretches):
        first = None
        for role, text in CHAT:
            m = t.add(role, f"{text} ({i})")
            first = first or m
        if stretches - i == said_in:
            t.add("user", SAID)
            t.add("assistant", "Good to hear it shines again.")
        last = t.messages()[-1]
        t.step({"records": [{"op": "add", "text": f"It was grey on day {i}.", "kind": "fact",
                             "source": [first.seq]}],
                "episode": LINE, "relevance": []}, start=first.seq, end=last.seq)
    return mem, t


def _quoted(ctx: Any) -> list[str]:
    return [b.text for b in ctx.trace.buffer_turns]


def test_a_matching_turn_just_out_of_view_is_quoted(store: Any) -> None:
    mem, t = _thread(store, said_in=7)
    policy = Policy(fill_budget=False)  # the window is K + W turns: the stretch is evicted
    ctx = t.context(2000, ASKED, policy=policy)
    start = ctx.trace.window_start
    said = next(m for m in t.messages() if m.content == SAID)
    assert start is not None and said.seq < start
    assert any("Rosalind" in q for q in _quoted(ctx))
    # No record cites it and no line matches: without the reach, nothing opens it.
    for off in (Policy(fill_budget=False, reach_stretches=0),
                Policy(fill_budget=False, use_working=False)):
        assert not any("Rosalind" in q for q in _quoted(t.context(2000, ASKED, policy=off)))
    mem.close()


def test_the_reach_is_the_newest_stretches_only(store: Any) -> None:
    mem, t = _thread(store, said_in=20)
    for reach in (2, 12):
        policy = Policy(fill_budget=False, reach_stretches=reach)
        assert not any("Rosalind" in q for q in _quoted(t.context(2000, ASKED, policy=policy)))
    mem.close()


def _ep(start: int, end: int) -> Episode:
    return Episode("t", start, end, "line", (), 0.0)


def test_near_stretches_come_after_the_cited_and_matched_cut_at_the_window() -> None:
    ends = [10, 20, 30, 40, 50, 60]
    cited = [(0, 5)]
    matched = [_ep(21, 30)]
    near = [_ep(51, 60), _ep(41, 50), _ep(21, 30)]  # newest first, one the index matched too
    got = stretch_votes(cited, matched, ends, before=55, near=near)
    # The stretch the window starts in is cut at the window; the one matched already is once.
    assert got == [(1, 10), (21, 30), (51, 54), (41, 50)]
    assert stretch_votes(cited, matched, ends, before=55) == [(1, 10), (21, 30)]


def test_near_stretches_are_the_rows_newest_within_the_policy() -> None:
    recent = tuple(_ep(10 * i + 1, 10 * i + 10) for i in range(5, 0, -1))
    rows = ContextRows("t", (), True, recent[-1], recent, 5, 0)
    assert near_stretches(rows, Policy(reach_stretches=2)) == recent[:2]
    assert near_stretches(rows, Policy()) == recent
    assert near_stretches(rows, Policy(use_working=False)) == ()
    assert near_stretches(rows, Policy(reach_stretches=0)) == ()
