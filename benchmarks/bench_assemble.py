"""Context assembly time as a thread grows: it must depend on the window, not the thread.

For each size (1k, 10k, 100k messages) one thread is built once in a temporary SQLite file, with a
memory step filed every 4 user turns by the heuristic extractor (so the buffer has episodes and the
namespace has records, as in real use). Then, after a warm-up, 200 calls are timed of

- `thread.context(budget=4000)`: the store read (`context_rows`) plus the pure assembler, and
- `assemble(rows, ...)`: the pure part alone, on rows read once.

p50 and p99 are reported in milliseconds. `--write` puts the table under "## Context assembly" in
docs/PERFORMANCE.md, leaving the file's other sections alone.

    python benchmarks/bench_assemble.py                 # 1k, 10k, 100k; prints the table
    python benchmarks/bench_assemble.py --write         # ...and updates docs/PERFORMANCE.md
    python benchmarks/bench_assemble.py --sizes 1000 10000 --calls 100
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _report import machine, pct, write_section

from memlane import Memory
from memlane.context.assemble import assemble
from memlane.tool_schemas import TOOL_SCHEMAS

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "PERFORMANCE.md"
SECTION = "## Context assembly"

_NAMES = ["Ana", "Bruno", "Chen", "Dara", "Emeka", "Farah", "Goran", "Hana"]
_PLACES = ["Lisbon", "Osaka", "Quito", "Tallinn", "Accra", "Hobart", "Lyon", "Denver"]
_TOPICS = ["the garden", "a marathon", "the new job", "tax forms", "a trip", "the piano",
           "a broken bike", "the wedding", "sourdough", "a chess club"]


def _user(rng: random.Random, i: int) -> str:
    name, place, topic = rng.choice(_NAMES), rng.choice(_PLACES), rng.choice(_TOPICS)
    kind = i % 4
    if kind == 0:
        return f"My friend {name} moved to {place} on day {i}. We talked about {topic} for hours."
    if kind == 1:
        return f"I really like {topic}; I spent {rng.randint(2, 90)} minutes on it yesterday."
    if kind == 2:
        return f"What do you think I should do about {topic} before visiting {place}?"
    return f"Ok, thanks. {name} said the meeting is at {rng.randint(1, 12)} pm on Friday."


def _assistant(rng: random.Random, i: int) -> str:
    topic = rng.choice(_TOPICS)
    return (f"That sounds worthwhile. For {topic}, start small, keep notes, and check back "
            f"in a week (turn {i}).")


def build(path: str, n_messages: int, seed: int = 7) -> float:
    """Build one thread of `n_messages` (user/assistant pairs), a step every 4 user turns."""
    rng = random.Random(seed)
    t0 = time.perf_counter()
    with Memory.open(path) as mem:
        th = mem.thread("bench")
        base = 1_700_000_000.0
        for k in range(0, n_messages // 2, 4):
            batch = []
            for i in range(k, min(k + 4, n_messages // 2)):
                batch.append({"role": "user", "content": _user(rng, i), "ts": base + 60 * i})
                batch.append({"role": "assistant", "content": _assistant(rng, i),
                              "ts": base + 60 * i + 5})
            th.extend(batch)
            th.maybe_step()
    return time.perf_counter() - t0


def measure(path: str, calls: int, warmup: int = 20) -> dict[str, float]:
    with Memory.open(path) as mem:
        th = mem.thread("bench")
        info = th.info()
        for _ in range(warmup):
            th.context(budget=4000)
        full = []
        for _ in range(calls):
            t0 = time.perf_counter()
            th.context(budget=4000)
            full.append((time.perf_counter() - t0) * 1000)
        p = mem.policy
        rows = mem.store.context_rows(mem.ns, th.id, p.window_turns, p.buffer_lines)
        tools = [dict(t) for t in TOOL_SCHEMAS]
        now = time.time()
        for _ in range(warmup):
            assemble(rows, p, 4000, now, mem.tokenizer, tools=tools)
        pure = []
        for _ in range(calls):
            t0 = time.perf_counter()
            assemble(rows, p, 4000, now, mem.tokenizer, tools=tools)
            pure.append((time.perf_counter() - t0) * 1000)
        episodes = len(th.episodes())
        records = len(mem.store.records(mem.ns, limit=10**9))
    return {
        "messages": info.messages, "episodes": episodes, "records": records,
        "full_p50": statistics.median(full), "full_p99": pct(full, 99),
        "pure_p50": statistics.median(pure), "pure_p99": pct(pure, 99),
    }


def table(results: list[dict[str, float]], calls: int) -> str:
    out = [
        "| thread (messages) | episodes | records | context() p50 | context() p99 "
        "| assemble() p50 | assemble() p99 |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        out.append(
            f"| {int(r['messages']):,} | {int(r['episodes']):,} | {int(r['records']):,} "
            f"| {r['full_p50']:.2f} ms | {r['full_p99']:.2f} ms "
            f"| {r['pure_p50']:.2f} ms | {r['pure_p99']:.2f} ms |"
        )
    del calls
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--write", action="store_true", help="update docs/PERFORMANCE.md")
    args = ap.parse_args(argv)

    results = []
    with tempfile.TemporaryDirectory(prefix="memlane-bench-") as d:
        for n in args.sizes:
            path = os.path.join(d, f"thread-{n}.db")
            built = build(path, n)
            r = measure(path, args.calls)
            results.append(r)
            print(f"{n:>7} messages: built in {built:5.1f} s; context() p50 {r['full_p50']:.2f} ms"
                  f" p99 {r['full_p99']:.2f} ms; assemble() p50 {r['pure_p50']:.2f} ms"
                  f" p99 {r['pure_p99']:.2f} ms", flush=True)
    tbl = table(results, args.calls)
    print()
    print(tbl)
    if args.write:
        cmd = "python benchmarks/bench_assemble.py --write"
        if args.sizes != [1_000, 10_000, 100_000] or args.calls != 200:
            cmd = ("python benchmarks/bench_assemble.py --write --sizes "
                   + " ".join(map(str, args.sizes)) + f" --calls {args.calls}")
        body = "\n".join([
            SECTION,
            "",
            "Time to assemble one context (`thread.context(budget=4000)`: the store read plus the",
            "pure assembler) and the pure assembler alone (`assemble(rows, ...)` on rows read",
            "once), for one thread of each size, with a memory step filed every 4 user turns by",
            f"the heuristic extractor. {args.calls} calls per size after a warm-up of 20;",
            "default policy (3 short-term + 8 working turns, 12 buffer lines) and the memory",
            "tools' schemas.",
            "",
            tbl,
            "",
            "The time does not grow with the thread: every read `context_rows` makes is an",
            "index range sized by the window (the window's turns, one probe message, the first",
            "episode, the newest `buffer_lines` episodes before the window, pinned records),",
            "and the count of episodes before the window comes from the filing number `n` of",
            "the newest one, so nothing is counted row by row. Three reads used to scan: the",
            "window's first seq (SQLite's planner walked the seq index from the thread's start",
            "instead of using the turn index), the newest episodes before the window (fetched",
            "through the start index, every earlier episode, then sorted), and the pinned",
            "records (no index on `pinned`, so every record of the namespace). With them,",
            "context() took 0.95 ms at 1k messages and 7.1 ms at 10k (p50), growing with the",
            "thread; the fixes are `INDEXED BY messages_turn`, `+start` so the primary key",
            "order is walked back from the newest episode, and a partial index `records_pinned`.",
            "",
            "Growing working memory into the budget's spare room used to re-read the window and",
            "re-assemble up to 4 times (1.5 ms p50 at every size). Now a larger window reads only",
            "the older rows it lacks (`context_rows(..., held=rows)`), earlier rounds only total",
            "their tokens, the final one is assembled once; token counts are memoised by the",
            "tokenizer and the memory's read cache keeps what a turn reads again (memlane.caches);",
            "the output is byte-identical (tests/test_context_equivalence.py,",
            "tests/test_read_cache.py). The pure timing is `assemble` alone. Against",
            "the libraries users would pick instead, see *Against the peers* below.",
            "",
            "p99 is scheduling noise more than assembly: the numbers above were taken on a",
            "shared 2-CPU machine with other work running (load average in the machine line).",
            "",
            f"Command: `{cmd}` (or `make bench`, which prints without writing).",
            "",
            f"Machine: {machine()}.",
        ])
        write_section(SECTION, body)
        print(f"\nwrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
