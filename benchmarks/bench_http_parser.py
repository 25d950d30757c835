"""The server's CPU per request with each HTTP parser (`memlane serve --http httptools|h11`),
one client, so no request waits for another: what the parser costs, apart from the load.

For each round and parser, in turn: `memlane serve` on an empty SQLite store (API keys on,
the instant upstream of `bench_server.py`), a warm-up, then `--requests` of each kind sent
back to back on one keep-alive connection, the server's CPU (user + system, all its threads,
from /proc) read before and after:

- `GET /healthz`: the HTTP layer and the middleware, nothing else;
- `POST /v1/chat/completions`: a proxied turn (50 threads, one short question each turn),
  with its `Server-Timing` (memlane's own time) p50 / p99.

    python benchmarks/bench_http_parser.py [--requests 1000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _report import machine, pct
from bench_server import free_port, wait_up
from profile_server import children, cpu_seconds

ASK = "What did Ana and I talk about last week?"


def run(parser: str, n: int, upstream: str, d: str, key: str) -> dict[str, float]:
    db, keys = os.path.join(d, f"{parser}-{time.monotonic_ns()}.db"), os.path.join(d, "keys.json")
    port = free_port()
    srv = subprocess.Popen([sys.executable, "-m", "memlane", "--db", db, "serve", "--port",
                            str(port), "--keys", keys, "--upstream", upstream, "--no-mcp",
                            "--http", parser], stderr=subprocess.DEVNULL)
    out: dict[str, float] = {}
    try:
        wait_up(f"http://127.0.0.1:{port}/healthz")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        auth = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        i = iter(range(10**9))

        def turn() -> float:
            body = {"model": "bench", "messages": [{"role": "user", "content": ASK}],
                    "user": f"proxy-{next(i) % 50}"}
            conn.request("POST", "/v1/chat/completions", body=json.dumps(body), headers=auth)
            r = conn.getresponse()
            r.read()
            assert r.status == 200, r.status
            m = re.search(r"memlane;dur=([\d.]+)", r.getheader("Server-Timing") or "")
            return float(m.group(1)) if m else float("nan")

        def health() -> None:
            conn.request("GET", "/healthz")
            r = conn.getresponse()
            r.read()
            assert r.status == 200, r.status

        for _ in range(400):  # warm-up: 8 turns a thread, memory steps filed
            turn()
        time.sleep(0.5)  # the queued steps finish outside the timed part
        pids = [srv.pid, *children(srv.pid)]
        c0 = sum(cpu_seconds(p) for p in pids)
        t0 = time.perf_counter()
        for _ in range(n):
            health()
        out["healthz CPU ms"] = 1000 * (sum(cpu_seconds(p) for p in pids) - c0) / n
        out["healthz /s"] = n / (time.perf_counter() - t0)
        c0 = sum(cpu_seconds(p) for p in pids)
        t0 = time.perf_counter()
        own = [turn() for _ in range(n)]
        time.sleep(0.5)  # the steps those turns queued, counted with them
        out["proxy CPU ms"] = 1000 * (sum(cpu_seconds(p) for p in pids) - c0) / n
        out["proxy /s"] = n / (time.perf_counter() - t0 - 0.5)
        out["Server-Timing p50"] = statistics.median(own)
        out["Server-Timing p99"] = pct(own, 99)
        conn.close()
    finally:
        srv.terminate()
        srv.wait(30)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=1000, help="per kind, per run")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    here = Path(__file__).resolve().parent
    up = subprocess.Popen([sys.executable, str(here / "bench_server.py"), "--fake-upstream"],
                          stdout=subprocess.PIPE, text=True)
    rows: list[tuple[int, str, dict[str, float], float]] = []
    try:
        assert up.stdout is not None
        upstream = up.stdout.readline().strip()
        with tempfile.TemporaryDirectory(prefix="memlane-bench-http-") as d:
            from memlane.server.auth import KeyRing

            key = KeyRing.load(os.path.join(d, "keys.json")).add("bench")
            for r in range(1, args.rounds + 1):
                for parser in ("h11", "httptools"):
                    res = run(parser, args.requests, upstream, d, key)
                    rows.append((r, parser, res, os.getloadavg()[0]))
                    print(r, parser, res, file=sys.stderr)
    finally:
        up.terminate()
        up.wait(10)
    print("| round | parser | healthz CPU ms | proxied turn CPU ms | turns/s (1 client) | "
          "Server-Timing p50 / p99 ms | load |\n|---|---|---:|---:|---:|---:|---:|")
    for r, parser, x, load in rows:
        print(f"| {r} | {parser} | {x['healthz CPU ms']:.3f} | {x['proxy CPU ms']:.2f} | "
              f"{x['proxy /s']:.0f} | {x['Server-Timing p50']:.2f} / "
              f"{x['Server-Timing p99']:.2f} | {load:.1f} |")
    print(f"\nMachine: {machine()}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
