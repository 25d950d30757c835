"""The Agents SDK session read: `MemlaneSession.get_items` vs the SDK's `SQLiteSession.get_items`.

Both hold the same conversation (N messages, bench_peers' generator) in a SQLite file; each call
is what `Runner.run` does at the start of a turn: read the session. `SQLiteSession` returns every
item; `MemlaneSession` returns memlane's context for a 4000-token budget (notes, buffer lines,
window). Also `SQLiteSession.get_items(limit=40)`, the SDK's own way to bound the read (a fixed
item count, not tokens, and nothing of the evicted past). Timings alternate between the systems in
blocks, so load on the machine hits all alike; per-call wall time, p50 and p95.

    python benchmarks/bench_integrations.py                 # 10k messages, prints the table
    python benchmarks/bench_integrations.py --sizes 1000,10000 --calls 50
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_peers  # noqa: E402
from _report import machine, pct  # noqa: E402
from agents import SQLiteSession  # noqa: E402

from memlane import AsyncMemory  # noqa: E402
from memlane.integrations.openai_agents import MemlaneSession  # noqa: E402

BUDGET = 4000


async def build(n: int, d: Path) -> tuple[MemlaneSession, SQLiteSession, AsyncMemory]:
    msgs = bench_peers.conversation(n)
    mem = await AsyncMemory.open(d / "memlane.db")
    thread = mem.thread("bench")
    for k in range(0, n, 1000):
        await thread.extend([{"role": m["role"], "content": m["content"], "ts": m["ts"]}
                             for m in msgs[k:k + 1000]])
    await thread.maybe_step(max_steps=100_000)  # filed, as a session's background steps leave it
    sdk = SQLiteSession("bench", str(d / "agents.db"))
    for k in range(0, n, 1000):
        await sdk.add_items([{"role": m["role"], "content": m["content"]}
                             for m in msgs[k:k + 1000]])
    return MemlaneSession("bench", memory=mem, budget=BUDGET), sdk, mem


async def run(sizes: list[int], calls: int) -> str:
    rows = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            mine, sdk, mem = await build(n, Path(tmp))
            systems = {
                "memlane `MemlaneSession.get_items()` (4000-token context)": mine.get_items,
                "Agents SDK `SQLiteSession.get_items()` (all items)": sdk.get_items,
                "Agents SDK `SQLiteSession.get_items(limit=40)`":
                    functools.partial(sdk.get_items, limit=40),
            }
            times: dict[str, list[float]] = {k: [] for k in systems}
            sizes_out: dict[str, int] = {}
            for name, fn in systems.items():  # warm up
                sizes_out[name] = len(await fn())
            block = max(1, calls // 10)
            while min(len(v) for v in times.values()) < calls:
                for name, fn in systems.items():
                    for _ in range(block):
                        t0 = time.perf_counter()
                        await fn()
                        times[name].append(time.perf_counter() - t0)
            base = pct(times[next(iter(systems))], 50)
            for name in systems:
                p50, p95 = pct(times[name], 50), pct(times[name], 95)
                rows.append(f"| {n:,} | {name} | {sizes_out[name]:,} | {p50 * 1e3:.2f} | "
                            f"{p95 * 1e3:.2f} | {p50 / base:.1f}x |")
            await mem.close()
            sdk.close()
    head = ("| messages | read | items returned | p50 ms | p95 ms | vs memlane |\n"
            "|---:|---|---:|---:|---:|---:|")
    return f"{head}\n" + "\n".join(rows) + f"\n\nMachine: {machine()}."


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000")
    ap.add_argument("--calls", type=int, default=100)
    a = ap.parse_args()
    print(asyncio.run(run([int(s) for s in a.sizes.split(",")], a.calls)))


if __name__ == "__main__":
    main()
