"""Load test of `memlane serve` on loopback: throughput and latency of the REST `context` call and
of the OpenAI-compatible proxy's own overhead.

Three processes, so that the load generator does not share a GIL with what it measures:

- the server, `memlane serve` (one uvicorn worker, SQLite store, API keys on);
- an instant upstream: the scripted OpenAI-compatible server from `memlane.testing`,
  answering every chat completion at once;
- this process: `--clients` threads, each with its own keep-alive connection, sending requests
  back to back for `--seconds` per scenario.

Scenarios:
- `context`: GET /v1/memlane/threads/{id}/context?budget=4000 over 20 seeded threads of 400
  messages (heuristic memory steps filed, so the buffer block is in the context);
- `upstream direct`: the same chat request sent straight to the instant upstream (the baseline);
- `proxy`: POST /v1/chat/completions through memlane (record the user message, assemble the
  context, forward, record the answer, queue the memory step). Its own overhead is read from the
  `Server-Timing` header the proxy sets (`memlane;dur`: time in the proxy outside the upstream
  call) and, end to end, as the proxy's latency minus the direct upstream latency.

    python benchmarks/bench_server.py                 # prints the table
    python benchmarks/bench_server.py --write         # ...and updates "## Service" in
                                                      #    docs/PERFORMANCE.md
    python benchmarks/bench_server.py --seconds 5 --clients 4
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _report import machine, pct, write_section

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "PERFORMANCE.md"
SECTION = "## Service"
THREADS = 20
MESSAGES = 400


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def seeded_with_upstream(d: str, *upstream: str
                         ) -> tuple[str, str, str, subprocess.Popen[str], str, int]:
    """For a server run in folder `d`: the seeded store (`d/m.db`), a key file holding one API
    key, the instant upstream started (with the options `upstream`: `--fake-words N`,
    `--fake-pace S`), and a free port: (db, keys file, key, the upstream's process, its URL,
    the port)."""
    db, keys = os.path.join(d, "m.db"), os.path.join(d, "keys.json")
    seed(db)
    from memlane.server.auth import KeyRing

    key = KeyRing.load(keys).add("bench")
    up = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--fake-upstream",
                           *upstream], stdout=subprocess.PIPE, text=True)
    assert up.stdout is not None
    return db, keys, key, up, up.stdout.readline().strip(), free_port()


def serve_args(db: str, port: int, keys: str, upstream: str, *, cpu: str | None = None,
               step_worker: str | None = None) -> list[str]:
    """`memlane`'s arguments for the benchmarks' server: the store, `serve` on `port` with the
    key file, the upstream, no MCP, and `--cpu` / `--step-worker` when given (else its
    defaults; trees before an option have none)."""
    return ["--db", db, "serve", "--port", str(port), "--keys", keys, "--upstream", upstream,
            "--no-mcp", *(["--cpu", cpu] if cpu else []),
            *(["--step-worker", step_worker] if step_worker else [])]


def warm_proxy(port: int, key: str, srv: subprocess.Popen[Any] | None = None
               ) -> Callable[[http.client.HTTPConnection, int], float]:
    """Once the server on `port` (process `srv`) is up: its `proxy_call` with the scenario's
    question, after two clients' 2 s of warm-up (memory steps start filing too)."""
    wait_up(f"http://127.0.0.1:{port}/healthz", proc=srv)
    proxy = proxy_call(key, {"model": "bench", "messages": [
        {"role": "user", "content": "What did Ana and I talk about last week?"}]})
    load(2, 2.0, "127.0.0.1", port, proxy)
    return proxy


def proxy_call(key: str, chat: dict[str, Any]
               ) -> Callable[[http.client.HTTPConnection, int], float]:
    """The `proxy` scenario's request: `chat` sent through memlane on thread `proxy-{n % 50}`;
    returns the proxy's own time, the `memlane;dur` of its `Server-Timing` header (ms)."""
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}

    def proxy(conn: http.client.HTTPConnection, n: int) -> float:
        conn.request("POST", "/v1/chat/completions",
                     body=json.dumps(dict(chat, user=f"proxy-{n % 50}")), headers=headers)
        r = conn.getresponse()
        r.read()
        assert r.status == 200, r.status
        m = re.search(r"memlane;dur=([\d.]+)", r.getheader("Server-Timing") or "")
        return float(m.group(1)) if m else float("nan")

    return proxy


def wait_up(url: str, timeout: float = 30.0, proc: subprocess.Popen[Any] | None = None
            ) -> None:
    """Until `url` answers; a clear error when `proc` (the server) exits first or it never
    does (the usual cause: the server extra is not installed)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            exited = proc is not None and proc.poll() is not None
            if exited or time.monotonic() > deadline:
                why = (f"exited with code {proc.returncode}" if exited and proc is not None
                       else f"did not answer in {timeout:.0f} s")
                raise SystemExit(
                    f"memlane serve {why} ({url}); it needs the server extra: pip install -e "
                    "'.[server]' (or run with .venv-bench/bin/python, which `make bench` "
                    "sets up); run `memlane serve` by hand to see its error") from None
            time.sleep(0.1)


def run_fake_upstream(words: int = 0, pace: float = 0.0) -> int:
    """`--fake-upstream`: serve the instant upstream until killed; print its URL first. Its
    answer is "ok, noted.", or `words` words (`--fake-words`, streamed with `pace` seconds
    between chunks: `--fake-pace`, for `bench_stream_relay.py`)."""
    from memlane.testing import FakeUpstream, Reply

    text = " ".join(f"word{i}" for i in range(words)) if words else "ok, noted."
    up = FakeUpstream(lambda body: Reply(content=text, pace=pace)).__enter__()
    up.requests = _Discard()  # keep no history: this runs for the whole benchmark
    print(up.url, flush=True)
    threading.Event().wait()
    return 0


class _Discard(list):  # type: ignore[type-arg]
    def append(self, item: object) -> None:
        pass


def seed(db: str) -> None:
    from memlane import Memory
    from memlane.cli.core import ingest

    topics = ["the garden", "a marathon", "the new job", "tax forms", "a trip", "the piano"]
    with Memory.open(db, namespace="bench") as mem:
        for t in range(THREADS):
            msgs = []
            for i in range(MESSAGES // 2):
                msgs.append({"role": "user", "content": f"On day {i} my friend Ana and I talked "
                             f"about {topics[i % len(topics)]} in Lisbon; it took {i % 7 + 1} "
                             "hours."})
                msgs.append({"role": "assistant", "content": "That sounds worthwhile; keep "
                             f"notes and check back in a week (turn {i})."})
            ingest(mem, f"thread-{t}", msgs)


def load(clients: int, seconds: float, host: str, port: int,
         request: Callable[[http.client.HTTPConnection, int], float | None]
         ) -> tuple[list[float], list[float], float]:
    """Run `clients` threads for `seconds`; each calls `request(conn, n)`, which returns the
    server-reported overhead in ms (or None). Returns (latencies ms, overheads ms, elapsed s)."""
    lat: list[list[float]] = [[] for _ in range(clients)]
    ovh: list[list[float]] = [[] for _ in range(clients)]
    start = threading.Barrier(clients + 1)
    stop = [0.0]

    def worker(k: int) -> None:
        conn = http.client.HTTPConnection(host, port, timeout=30)
        start.wait()
        n = 0
        while time.perf_counter() < stop[0]:
            t0 = time.perf_counter()
            o = request(conn, k * 1_000_000 + n)
            lat[k].append((time.perf_counter() - t0) * 1000)
            if o is not None:
                ovh[k].append(o)
            n += 1
        conn.close()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    stop[0] = time.perf_counter() + seconds
    t0 = time.perf_counter()
    start.wait()
    for t in threads:
        t.join()
    return [x for xs in lat for x in xs], [x for xs in ovh for x in xs], time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="per scenario (default 10)")
    ap.add_argument("--clients", type=int, default=8, help="concurrent clients (default 8)")
    ap.add_argument("--write", action="store_true", help="update docs/PERFORMANCE.md")
    ap.add_argument("--cpu", default=None,
                    help="passed to `memlane serve --cpu` (default: its default)")
    ap.add_argument("--fake-upstream", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--fake-words", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--fake-pace", type=float, default=0.0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.fake_upstream:
        return run_fake_upstream(args.fake_words, args.fake_pace)

    procs: list[subprocess.Popen[str]] = []
    with tempfile.TemporaryDirectory(prefix="memlane-bench-server-") as d:
        db, keys = os.path.join(d, "m.db"), os.path.join(d, "keys.json")
        t0 = time.perf_counter()
        seed(db)
        print(f"seeded {THREADS} threads x {MESSAGES} messages in "
              f"{time.perf_counter() - t0:.1f} s", file=sys.stderr)
        from memlane.server.auth import KeyRing

        key = KeyRing.load(keys).add("bench")
        try:
            up = subprocess.Popen([sys.executable, __file__, "--fake-upstream"],
                                  stdout=subprocess.PIPE, text=True)
            procs.append(up)
            assert up.stdout is not None
            upstream = up.stdout.readline().strip()
            port = free_port()
            srv = subprocess.Popen(
                [sys.executable, "-m", "memlane", *serve_args(db, port, keys, upstream,
                                                              cpu=args.cpu)],
                stderr=subprocess.DEVNULL)
            procs.append(srv)
            wait_up(f"http://127.0.0.1:{port}/healthz", proc=srv)
            results = run_scenarios(args, port, upstream, key)
        finally:
            for p in procs:
                p.terminate()
                p.wait(10)
    table = render(results, args)
    print(table)
    if args.write:
        write_section(SECTION, table)
        print(f"wrote {SECTION!r} in {DOC}", file=sys.stderr)
    return 0


def run_scenarios(args: argparse.Namespace, port: int, upstream: str, key: str
                  ) -> dict[str, dict[str, float]]:
    auth = {"Authorization": f"Bearer {key}"}
    chat = {"model": "bench", "messages": [{"role": "user", "content":
                                            "What did Ana and I talk about last week?"}]}

    def context(conn: http.client.HTTPConnection, n: int) -> None:
        conn.request("GET", f"/v1/memlane/threads/thread-{n % THREADS}/context?budget=4000",
                     headers=auth)
        r = conn.getresponse()
        r.read()
        assert r.status == 200, r.status

    up_url = upstream.split("://", 1)[1]
    up_host, up_port = up_url.split("/", 1)[0].split(":")

    def direct(conn: http.client.HTTPConnection, n: int) -> None:
        conn.request("POST", "/v1/chat/completions", body=json.dumps(chat),
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        r.read()
        assert r.status == 200, r.status
        conn.close()  # the fake upstream closes after each answer, like the proxy's client

    proxy = proxy_call(key, chat)

    out: dict[str, dict[str, float]] = {}
    # The one-client runs show the cost of a request alone; the concurrent ones add the wait
    # for the server's one worker process (2 CPUs here, shared with the client and upstream).
    for name, clients, host, p, fn in [
        ("context", args.clients, "127.0.0.1", port, context),
        ("context, 1 client", 1, "127.0.0.1", port, context),
        ("upstream direct", args.clients, up_host, int(up_port), direct),
        ("upstream direct, 1 client", 1, up_host, int(up_port), direct),
        ("proxy", args.clients, "127.0.0.1", port, proxy),
        ("proxy, 1 client", 1, "127.0.0.1", port, proxy),
    ]:
        load(2, 1.0, host, p, fn)  # warm-up
        seconds = args.seconds if clients > 1 else args.seconds / 2
        lat, ovh, elapsed = load(clients, seconds, host, p, fn)
        out[name] = {"n": len(lat), "rps": len(lat) / elapsed, "p50": pct(lat, 50),
                     "p99": pct(lat, 99), "ovh50": pct(ovh, 50), "ovh99": pct(ovh, 99)}
        print(f"{name}: {out[name]}", file=sys.stderr)
    return out


def render(r: dict[str, dict[str, float]], args: argparse.Namespace) -> str:
    def row(label: str, key: str) -> str:
        x = r[key]
        return (f"| {label} | {x['n']:,} | {x['rps']:,.0f}/s | {x['p50']:.1f} ms | "
                f"{x['p99']:.1f} ms |")

    def overhead(label: str, key: str, base: str) -> list[str]:
        p, d = r[key], r[base]
        return [f"| {label}: in the proxy, outside the upstream call (`Server-Timing`) | "
                f"{p['ovh50']:.1f} ms | {p['ovh99']:.1f} ms |",
                f"| {label}: end to end, proxy minus upstream alone | "
                f"{p['p50'] - d['p50']:.1f} ms | {p['p99'] - d['p99']:.1f} ms |"]

    c = args.clients
    lines = [
        SECTION, "",
        f"`memlane serve` on loopback (one uvicorn worker, SQLite, API keys on); {c} concurrent "
        f"clients with keep-alive connections for {args.seconds:g} s per scenario, and one "
        f"client for {args.seconds / 2:g} s, after a warm-up. The load generator, the server and "
        f"the upstream are separate processes. `context` reads {THREADS} threads of {MESSAGES} "
        "messages (memory steps filed, so the buffer block is assembled). The proxy is sent one "
        "new user message per request on 50 threads, against an upstream that answers at once; "
        "each request records both messages and queues the memory step.",
        "",
        "| scenario | requests | throughput | p50 | p99 |",
        "|---|---:|---:|---:|---:|",
        row(f"`GET .../context?budget=4000`, {c} clients", "context"),
        row("`GET .../context?budget=4000`, 1 client", "context, 1 client"),
        row(f"upstream alone (baseline), {c} clients", "upstream direct"),
        row("upstream alone (baseline), 1 client", "upstream direct, 1 client"),
        row(f"`POST /v1/chat/completions` via memlane, {c} clients", "proxy"),
        row("`POST /v1/chat/completions` via memlane, 1 client", "proxy, 1 client"),
        "",
        "The proxy's own overhead per request:",
        "",
        "| measure | p50 | p99 |",
        "|---|---:|---:|",
        *overhead("1 client", "proxy, 1 client", "upstream direct, 1 client"),
        *overhead(f"{c} clients", "proxy", "upstream direct"),
        "",
        "The `Server-Timing` figure is the work memlane adds to a turn, from the request's "
        "arrival to the answer minus the upstream call: parse, align the sent messages with the "
        "log, append the user message, assemble the context, and after the answer append it and "
        "queue the memory step. With one client that is the cost itself; with "
        f"{c} it includes waiting for the one worker, which shares 2 CPUs with the load "
        "generator and the upstream. The end-to-end figure adds the proxy's own HTTP hop to the "
        "upstream. A real model takes hundreds of milliseconds to seconds per answer, so this is "
        "the floor memlane adds to a turn, not a share of it; more throughput comes from more "
        "worker processes on a shared store (PostgreSQL), since the service keeps no state.",
        "",
        "Command: `python benchmarks/bench_server.py --write` (defaults: --clients 8 "
        "--seconds 10).",
        "",
        f"Machine: {machine('after the run')}.",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
