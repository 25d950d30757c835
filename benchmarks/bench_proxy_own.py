"""The proxy's own time per turn, in-process: `Proxy._answer` (what the request's pool thread
runs: align, append, context with the new message, the upstream call, record the answer, the
ledger row, queue the memory step) minus the upstream call, against an instant upstream.

Variants are timed in alternating blocks in one run, so load on the machine hits them alike:
- `ledger FULL`: the quality ledger's SQLite file with `synchronous = FULL` (before),
- `ledger NORMAL`: with `synchronous = NORMAL`, as the ledger now opens it,
- `exhaustive search`: NORMAL, with the store's search unbounded (`search_bounds = None`),
- `no memory steps`: NORMAL, with no memory step queued after a turn (`background_steps`
  off): how much of the tail is the step worker's (its GIL, its hold on the store).

`--full-history`: each client sends its whole conversation every turn (as the OpenAI SDKs'
callers do) instead of its new message alone, so the body check and the alignment with the log
read it all.

    python benchmarks/bench_proxy_own.py [--turns 600] [--long-turns] [--full-history]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import tempfile
import time
from pathlib import Path

from _report import machine, pct

from memlane import Memory
from memlane.ledger import Ledger
from memlane.server.app import create_app
from memlane.server.auth import Auth, KeyRing
from memlane.server.base import ServerConfig
from memlane.server.openapi import problems
from memlane.server.proxy import CHAT_REQUEST, Proxy
from memlane.store.protocol import BOUNDED
from memlane.testing import FakeUpstream, Reply

ASK = "What did Ana and I talk about last week?"


PEOPLE = ["Ana", "Ben", "Chloe", "Dev", "Eli", "Fay", "Gus", "Hana"]
PLACES = ["Lisbon", "Porto", "Oslo", "Kyoto", "Lima", "Cork", "Graz", "Tunis"]
THINGS = ["a pottery class", "the marathon", "a new bike", "the garden", "tax forms",
          "a piano recital", "the move", "a job interview"]


def long_turn(i: int) -> str:
    """A user message with facts in it, different each turn (names, places, numbers)."""
    p, q = PEOPLE[i % 8], PEOPLE[(i * 3 + 1) % 8]
    return (f"Quick update: my friend {p} moved to {PLACES[i % 8]} last month and started "
            f"{THINGS[i % 8]}; {q} says it cost {120 + i} euros. I finally booked my flight "
            f"to {PLACES[(i + 3) % 8]} for the {i % 28 + 1}th, and my sister's phone number "
            f"is now 555-{1000 + i}. Also, I prefer window seats and I am allergic to "
            f"peanuts. Can you remind me what {p} told me about {THINGS[(i + 2) % 8]}?")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=600, help="timed turns per variant")
    ap.add_argument("--step-worker", choices=("auto", "process", "thread"), default=None,
                    help="where the service files memory steps (default: the tree's default; "
                         "trees before the option have a thread only)")
    ap.add_argument("--long-turns", action="store_true",
                    help="each user message a different ~60-word account of facts (the "
                         "heuristic step then costs what a real conversation's does) instead "
                         "of one short question")
    ap.add_argument("--full-history", action="store_true",
                    help="each client resends its whole conversation every turn")
    args = ap.parse_args()
    config = ({} if args.step_worker is None else {"step_worker": args.step_worker})
    d = Path(tempfile.mkdtemp(prefix="memlane-proxy-own-"))
    mem = Memory.open(d / "m.db")
    ring = KeyRing.load(d / "keys.json")
    ring.add("acme")
    ledger = Ledger(d / "ledger.db")
    with FakeUpstream(lambda body: Reply(content="Sure, noted.")) as up:
        app = create_app(mem, Auth(ring), ServerConfig(upstream=up.url, **config), ledger=ledger,
                         mcp=False)
        svc = app.state.service
        proxy = Proxy(svc)
        m = svc.mem("acme")
        n = iter(range(10**9))
        history: dict[int, list[dict[str, str]]] = {k: [] for k in range(50)}
        shipped = svc.config

        def turn() -> float:
            i = next(n)
            ask = long_turn(i) if args.long_turns else ASK
            sent = history[i % 50] if args.full_history else []
            sent.append({"role": "user", "content": ask})
            body = {"model": "bench", "messages": list(sent), "user": f"proxy-{i % 50}"}
            t = time.perf_counter()
            if args.full_history:  # what the endpoint checks before the pool thread runs
                assert not problems(CHAT_REQUEST, body, "body")
            data, upstream_s, _ = proxy._answer(m, body, {})
            took = (time.perf_counter() - t - upstream_s) * 1000
            if args.full_history:
                sent.append({"role": "assistant",
                             "content": data["choices"][0]["message"]["content"]})
            return took

        def setup(name: str) -> None:
            ledger.conn.execute("PRAGMA synchronous = "
                                + ("FULL" if name == "ledger FULL" else "NORMAL"))
            m.store.search_bounds = None if name == "exhaustive search" else BOUNDED
            svc.config = dataclasses.replace(shipped,
                                             background_steps=name != "no memory steps")

        names = ["ledger FULL", "ledger NORMAL", "exhaustive search", "no memory steps"]
        for _ in range(400):  # warm-up: 8 turns a thread, memory steps filed
            turn()
        times: dict[str, list[float]] = {k: [] for k in names}
        while min(len(t) for t in times.values()) < args.turns:
            for k in names:
                setup(k)
                times[k] += [turn() for _ in range(20)]
        svc.close()  # the queued steps filed (and a step process stopped)
    where = getattr(svc, "step_worker_kind", "thread")
    print(f"memory step worker: {where}")
    print("| variant | turns | own p50 | own p99 |\n|---|---:|---:|---:|")
    for k, t in times.items():
        print(f"| {k} | {len(t)} | {statistics.median(t):.2f} ms | {pct(t, 99):.2f} ms |")
    print(f"\nMachine: {machine()}.")
    mem.close()
    ledger.close()


if __name__ == "__main__":
    main()
