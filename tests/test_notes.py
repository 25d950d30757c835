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
