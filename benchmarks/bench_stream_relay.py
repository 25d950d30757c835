"""What a streamed answer costs the proxy: `memlane serve` on `bench_server.py`'s seeded store,
an upstream in its own process that streams a 300-word answer (330 SSE events), one client
asking on 10 threads in turn, `--turns` streamed turns and as many plain ones; the server's CPU
(all its threads, from /proc) and the upstream's, per turn.

    python benchmarks/bench_stream_relay.py [--turns 40] [--words 300] [--pace SECONDS] [--cpu C]

`--pace`: the upstream waits this long between chunks (a model generating tokens; without it
the chunks come in bursts, and the server may write several together).

Run it with `PYTHONPATH=<tree>/src` to measure another source tree.
"""

from __future__ import annotations

import argparse
import http.client
import json
import signal
import subprocess
import sys
import tempfile
import time

from _report import machine
from bench_server import seeded_with_upstream, serve_args, wait_up
from profile_server import cpu_seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=40)
    ap.add_argument("--words", type=int, default=300)
    ap.add_argument("--pace", type=float, default=0.0)
    ap.add_argument("--cpu", default=None,
                    help="passed to `memlane serve` (default: its default)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memlane-stream-") as d:
        # bench_server.py's store and upstream, the upstream answering `--words` words
        db, keys, key, up, url, port = seeded_with_upstream(
            d, "--fake-words", str(args.words), "--fake-pace", str(args.pace))
        srv = subprocess.Popen([sys.executable, "-m", "memlane",
                                *serve_args(db, port, keys, url, cpu=args.cpu)],
                               stderr=subprocess.DEVNULL)
        try:
            wait_up(f"http://127.0.0.1:{port}/healthz", proc=srv)
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}

            def turn(i: int, stream: bool) -> int:
                conn.request("POST", "/v1/chat/completions", headers=headers, body=json.dumps(
                    {"model": "bench", "stream": stream, "user": f"stream-{i % 10}",
                     "messages": [{"role": "user", "content": f"Tell me about day {i}."}]}))
                r = conn.getresponse()
                body = r.read()
                assert r.status == 200, (r.status, body[:200])
                return body.count(b"data:")

            for i in range(10):
                turn(i, True)
            print("| answer | events | server CPU a turn | upstream CPU a turn | wall a turn |\n"
                  "|---|---:|---:|---:|---:|")
            for stream in (True, False):
                c0, u0, t0 = cpu_seconds(srv.pid), cpu_seconds(up.pid), time.perf_counter()
                events = [turn(i, stream) for i in range(args.turns)]
                c1, u1, t1 = cpu_seconds(srv.pid), cpu_seconds(up.pid), time.perf_counter()
                n = args.turns
                print(f"| {'streamed' if stream else 'plain'} | {events[0]} | "
                      f"{(c1 - c0) / n * 1000:.1f} ms | {(u1 - u0) / n * 1000:.1f} ms | "
                      f"{(t1 - t0) / n * 1000:.1f} ms |")
        finally:
            srv.send_signal(signal.SIGTERM)
            srv.wait(60)
            up.terminate()
            up.wait(10)
    print(f"\nMachine: {machine()}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
