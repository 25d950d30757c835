"""People's view of a context (`memlane context`, the demo, chat's /context): what was dropped
is said in words, counted by kind and reason. A real assembled context on SQLite."""

from __future__ import annotations

from pathlib import Path

from memlane import Memory
from memlane.render import render_context


def test_dropped_turns_are_said_in_words(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m.db") as mem:
        t = mem.thread("t")
        for i in range(12):
            t.add("user", f"Question {i}: how do I keep my sourdough starter alive in week {i}?")
            t.add("assistant", f"In week {i}, feed it daily and keep it somewhere warm. " * 3)
        ctx = t.context(budget=600, tools=[])
        turns = sum(1 for d in ctx.trace.dropped if (d.what, d.reason) == ("turn", "budget"))
        assert turns >= 2  # the case this test is about
        line = next(x for x in render_context(ctx).splitlines() if x.startswith("  dropped: "))
        assert f"{turns} turns (over the budget)" in line
        assert "turn/budget" not in line and " x" not in line
