"""How long the memory step worker holds the SQLite store's lock, and how long a proxied turn
waits for it: the store has one connection, guarded by one lock (`SQLiteStore._lock`), that
every request thread and the step worker go through. In-process, as `bench_proxy_own.py` runs
the proxy (`Proxy._answer` against an instant upstream, 50 threads, the step worker on); the
lock is wrapped to time each hold and each wait, by thread (the benchmark's own thread is the
request's, the others the step worker's).

    PYTHONPATH=<tree>/src python benchmarks/bench_step_lock.py [--long-turns] [--turns 400]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _report import machine, pct
from bench_proxy_own import ASK, long_turn

from memlane import Memory
from memlane.ledger import Ledger
from memlane.server.app import create_app
from memlane.server.auth import Auth, KeyRing
from memlane.server.base import ServerConfig
from memlane.server.proxy import Proxy
from memlane.testing import FakeUpstream, Reply


class TimedLock:
    """The store's lock, timing each hold and each wait, by who took it."""

    def __init__(self, lock: Any, main: int) -> None:
        self.lock, self.main = lock, main
        self.holds: dict[str, list[float]] = {"request": [], "step worker": []}
        self.waits: dict[str, list[float]] = {"request": [], "step worker": []}
        self._since: dict[int, list[float]] = {}

    def _who(self) -> str:
        return "request" if threading.get_ident() == self.main else "step worker"

    def acquire(self, *a: Any, **k: Any) -> bool:
        t0 = time.perf_counter()
        got = bool(self.lock.acquire(*a, **k))
        t1 = time.perf_counter()
        if got:
            self._since.setdefault(threading.get_ident(), []).append(t1)
            self.waits[self._who()].append((t1 - t0) * 1000)
        return got

    def release(self) -> None:
        t0 = self._since[threading.get_ident()].pop()
        self.holds[self._who()].append((time.perf_counter() - t0) * 1000)
        self.lock.release()

    def __enter__(self) -> TimedLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=400, help="timed turns (after 400 warm-up)")
    ap.add_argument("--long-turns", action="store_true", help="as bench_proxy_own.py's")
    args = ap.parse_args()
    d = Path(tempfile.mkdtemp(prefix="memlane-step-lock-"))
    mem = Memory.open(d / "m.db")
    ring = KeyRing.load(d / "keys.json")
    ring.add("acme")
    ledger = Ledger(d / "ledger.db")
    lock = TimedLock(mem.store._lock, threading.get_ident())  # type: ignore[attr-defined]
    mem.store._lock = lock  # type: ignore[attr-defined]
    with FakeUpstream(lambda body: Reply(content="Sure, noted.")) as up:
        app = create_app(mem, Auth(ring), ServerConfig(upstream=up.url), ledger=ledger,
                         mcp=False)
        svc = app.state.service
        proxy, m = Proxy(svc), svc.mem("acme")
        for i in range(400 + args.turns):
            if i == 400:  # warm-up done: 8 turns a thread, steps filed
                for xs in (*lock.holds.values(), *lock.waits.values()):
                    xs.clear()
            ask = long_turn(i) if args.long_turns else ASK
            proxy._answer(m, {"model": "bench", "messages": [{"role": "user", "content": ask}],
                              "user": f"proxy-{i % 50}"}, {})
        svc.close()  # the queued steps filed, counted
    print("| who | holds per turn | held ms per turn | hold p50 / p99 / max ms | "
          "waited ms per turn | longest wait ms |\n|---|---:|---:|---:|---:|---:|")
    for who in lock.holds:
        h, w = lock.holds[who], lock.waits[who]
        print(f"| {who} | {len(h) / args.turns:.1f} | {sum(h) / args.turns:.2f} | "
              f"{statistics.median(h):.3f} / {pct(h, 99):.2f} / {max(h):.2f} | "
              f"{sum(w) / args.turns:.2f} | {max(w):.2f} |")
    print(f"\nMachine: {machine()}.")
    mem.close()
    ledger.close()


if __name__ == "__main__":
    main()
