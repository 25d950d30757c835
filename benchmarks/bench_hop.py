"""The server's hop from the event loop to a request thread and back, alone: `Service.in_thread`
(asyncio's executor hop, what every route's blocking work takes) against Starlette's
`run_in_threadpool` (anyio's `to_thread`, which it replaced), a no-op each, in alternating
blocks in one event loop, so load hits both alike. CPU of the whole process (the loop's side
and the thread's) and wall time per hop.

    python benchmarks/bench_hop.py [--hops 3000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from _report import machine
from starlette.concurrency import run_in_threadpool

from memlane import Memory
from memlane.server.auth import Auth, KeyRing
from memlane.server.base import ServerConfig, Service


def noop() -> int:
    return 1


async def timed(hop: Callable[[Callable[[], int]], Awaitable[int]], n: int
                ) -> tuple[float, float]:
    for _ in range(100):
        await hop(noop)
    c, t = time.process_time(), time.perf_counter()
    for _ in range(n):
        await hop(noop)
    return (time.process_time() - c) / n * 1e6, (time.perf_counter() - t) / n * 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hops", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    d = Path(tempfile.mkdtemp(prefix="memlane-hop-"))
    mem = Memory.open(d / "m.db")
    svc = Service(mem, Auth(KeyRing.load(d / "keys.json")), ServerConfig())
    rows: dict[str, list[tuple[float, float]]] = {"Service.in_thread": [],
                                                  "run_in_threadpool (anyio)": []}

    async def go() -> None:
        for _ in range(args.rounds):
            rows["run_in_threadpool (anyio)"].append(await timed(run_in_threadpool, args.hops))
            rows["Service.in_thread"].append(await timed(svc.in_thread, args.hops))

    try:
        asyncio.run(go())
    finally:
        svc.close()
        mem.close()
    print("| hop | CPU us a hop (each round) | wall us a hop (each round) |\n|---|---|---|")
    for k, v in rows.items():
        print(f"| {k} | {' / '.join(f'{c:.0f}' for c, _ in v)} | "
              f"{' / '.join(f'{w:.0f}' for _, w in v)} |")
    print(f"\nMachine: {machine()}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
