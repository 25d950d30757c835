"""How much a one-pass fill could save: `Thread.context(budget, new_message)` as it is (a first
read of K + W turns, then a larger window sized from that round's tokens) against the same call
told the final window in advance (`working_turns` = what the fill chose, `fill_budget` off: one
read, one prepare; the same context). Also the first sight of each new message against a
repeat (the memos then hold its terms, postings and counted layers).

    python benchmarks/bench_fill_bound.py .bench-data/peers/memlane-1000.db

Prints the calling thread's CPU p50 per call, ms, for each pass; passes alternate.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import memlane.memory as memory_module
from memlane import Memory
from memlane.context import fill


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="memlane-fill-"))
    try:
        mem = Memory.open(shutil.copy(sys.argv[1], work / "m.db"))
        t = mem.thread("bench")
        users = [m.content for m in t.messages(1, 6000) if m.role == "user"]
        for u in users[:20]:
            t.context(budget=4000, new_message=u)
        calls = users[20:220]
        chosen: dict[str, int] = {}
        original = fill.sized_context

        def spy(*a, **k):  # type: ignore[no-untyped-def]
            out = original(*a, **k)
            chosen[k["new_message"]] = out[1].working_turns
            return out

        def run(policy_for) -> float:  # type: ignore[no-untyped-def]
            cs = []
            for u in calls:
                p = policy_for(u)
                c = time.thread_time()
                t.context(budget=4000, new_message=u, policy=p)
                cs.append((time.thread_time() - c) * 1000)
            return statistics.median(cs)

        base = mem.policy
        memory_module.sized_context = spy  # type: ignore[assignment]
        first = run(lambda u: base)  # first sight of each message; records the fill's choice
        memory_module.sized_context = original  # type: ignore[assignment]
        oracle = lambda u: replace(base, working_turns=chosen[u], fill_budget=False)  # noqa: E731
        for u in calls:  # the same context either way
            assert t.context(4000, u) == t.context(4000, u, policy=oracle(u))
        print(f"first sight, as is: {first:.3f}")
        for _ in range(3):
            print(f"repeat, as is: {run(lambda u: base):.3f}   "
                  f"repeat, final window known: {run(oracle):.3f}")
    finally:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
