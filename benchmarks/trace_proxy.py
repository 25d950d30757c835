"""What the proxy's slow turns are made of, over HTTP: `memlane serve` (the path users run,
the `proxy` scenario of `bench_server.py`: same seeded store, same instant upstream) with
each proxied request's stages stamped in the server, beside what else ran in the server then:
the memory step worker's jobs, the garbage collector's passes, background WAL checkpoints and
the waits for the SQLite store's lock.

    python benchmarks/trace_proxy.py [--seconds 5] [--clients 1] [--slow 1]

Per request (`perf_counter` in the server): the endpoint's entry (after the HTTP parse and
the `Guard` middleware), the pool thread's start, the thread's hold, the prepared turn (align,
append, `Thread.context`), the upstream call, the finish (answer, ledger row, step queued), the
pool thread's end, and the endpoint's return. `Server-Timing` is entry to return minus the
upstream call. For the slowest `--slow` percent of requests, and for all, it sums each stage
and what overlapped it: step-worker time, GC time, checkpoint time, store-lock wait; splits the
pool thread's time (less the upstream call) into its own CPU, its store-lock waits and the rest
(mostly the GIL); shows the step's phases (unfiled read, related search, extract, apply) during
the requests; and counts the requests whose context was read after a step's commit (the store's
memos emptied). Each step job also records how long it waited for gaps between requests.
`--keep FILE` writes the raw trace as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _report import machine, pct
from bench_server import load, seeded_with_upstream, warm_proxy

# Run as the server: stamps installed over the proxy, the step worker, gc and the store's lock,
# dumped as JSON when the server exits.
SERVER = r"""
import contextvars, gc, json, sys, threading, time
from time import perf_counter as now
import memlane.server.proxy as P, memlane.server.base as B, memlane.store.sqlite.core as C
import memlane.store.sqlite.checkpoint as K
reqs, steps, gcs, ckpts, waits, phases = [], [], [], [], [], []
_gc = {}
def on_gc(phase, info):
    if phase == "start":
        _gc["t"] = now()
    elif "t" in _gc:
        gcs.append((_gc.pop("t"), now(), info["generation"]))
gc.callbacks.append(on_gc)
CUR = contextvars.ContextVar("trace")
_endpoint = P.Proxy.endpoint
async def endpoint(self, request):
    r = {"t0": now(), "c0": time.thread_time()}
    CUR.set(r)  # the pool thread runs in a copy of this context (anyio)
    try:
        return await _endpoint(self, request)
    finally:
        r["t5"] = now()
        r["c5"] = time.thread_time()
        reqs.append(r)
P.Proxy.endpoint = endpoint
_answer = P.Proxy._answer
_prepare = P.prepare_turn
_complete = P.complete
_hold = P.Proxy._hold
def cur():
    return CUR.get({})
def answer(self, mem, body, headers):
    cur()["t1"] = now()
    c = time.thread_time()
    try:
        return _answer(self, mem, body, headers)
    finally:
        cur()["t4"] = now()
        cur()["cpu"] = time.thread_time() - c
def hold(self, mem, body, headers):
    out = _hold(self, mem, body, headers)
    cur()["th"] = now()
    return out
def prepare(*a, **k):
    out = _prepare(*a, **k)
    cur()["t2"] = now()
    return out
def complete(svc, up, turn):
    data, ups = _complete(svc, up, turn)
    r = cur()
    r["t3"] = now()
    r["up"] = ups
    return data, ups
P.Proxy._answer, P.Proxy._hold, P.prepare_turn, P.complete = answer, hold, prepare, complete
_step = B.Service._step
def step(self, key, batch):
    t, c, out = now(), time.thread_time(), []
    w = getattr(getattr(self, "foreground", None), "waited", 0.0)
    try:
        out = _step(self, key, batch)
        return out
    finally:
        steps.append((t, now(), time.thread_time() - c, len(out),
                      getattr(getattr(self, "foreground", None), "waited", 0.0) - w))
B.Service._step = step
import memlane.memory as M, memlane.step.runner as R, memlane.server.foreground as F
from contextlib import contextmanager
_waiting = F.Foreground.waiting
@contextmanager
def waiting(self):
    c = time.thread_time()
    try:
        with _waiting(self):
            yield
    finally:
        r = cur()
        r["cpu_up"] = r.get("cpu_up", 0.0) + time.thread_time() - c
F.Foreground.waiting = waiting
def phase(label, f):
    def g(*a, **k):
        t = now()
        try:
            return f(*a, **k)
        finally:
            if threading.current_thread().name == "memlane-step":
                phases.append((t, now(), label))
    return g
M.Memory.related = phase("related search", M.Memory.related)
R.StepRunner.unfiled = phase("read unfiled", R.StepRunner.unfiled)
R.StepRunner._extract = phase("extract", R.StepRunner._extract)
R.apply_step = phase("apply", R.apply_step)

holds = []
class TimedLock:
    def __init__(self, inner):
        self.inner = inner
        self.depth = threading.local()
    def acquire(self, blocking=True, timeout=-1):
        t = now()
        ok = self.inner.acquire(blocking, timeout)
        w = now() - t
        if w > 0.0002:
            waits.append((t, t + w, threading.current_thread().name))
        d = getattr(self.depth, "n", 0)
        if d == 0:
            self.depth.t = now()
        self.depth.n = d + 1
        return ok
    def _is_owned(self):
        return self.inner._is_owned()
    def release(self):
        self.depth.n -= 1
        if self.depth.n == 0:
            holds.append((self.depth.t, now(), threading.current_thread().name))
        self.inner.release()
    def __enter__(self):
        self.acquire()
        return self
    def __exit__(self, *exc):
        self.release()
_init = C.SQLiteCore.__init__
def init(self, *a, **k):
    _init(self, *a, **k)
    self._lock = TimedLock(self._lock)
C.SQLiteCore.__init__ = init
_sq = K.sqlite3
class _Conn:
    def __init__(self, c):
        self.c = c
    def execute(self, sql, *a):
        t = now()
        try:
            return self.c.execute(sql, *a)
        finally:
            if "checkpoint" in sql:
                ckpts.append((t, now()))
    def close(self):
        self.c.close()
class _Shim:
    Error = _sq.Error
    @staticmethod
    def connect(*a, **k):
        return _Conn(_sq.connect(*a, **k))
K.sqlite3 = _Shim
from memlane.cli import main
try:
    code = main(sys.argv[1:])
finally:
    with open(OUT, "w") as f:
        json.dump({"reqs": reqs, "steps": steps, "gcs": gcs, "ckpts": ckpts,
                   "waits": waits, "holds": holds, "phases": phases}, f)
raise SystemExit(code)
"""


def overlap(a: float, b: float, spans: list[Any]) -> float:
    return sum(max(0.0, min(b, s[1]) - max(a, s[0])) for s in spans)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--clients", type=int, default=1)
    ap.add_argument("--slow", type=float, default=1.0, help="percent of requests shown as slow")
    ap.add_argument("--serve-arg", action="append", default=[],
                    help="extra argument for `memlane serve` (repeat)")
    ap.add_argument("--keep", help="write the trace (JSON) to this file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memlane-trace-proxy-") as d:
        out = os.path.join(d, "trace.json")
        db, keys, key, up, upstream, port = seeded_with_upstream(d)
        cmd = [sys.executable, "-c", SERVER.replace("OUT", repr(out)), "--db", db, "serve",
               "--port", str(port), "--keys", keys, "--upstream", upstream, "--no-mcp",
               *args.serve_arg]
        srv = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
        try:
            proxy = warm_proxy(port, key, srv)
            lat, ovh, elapsed = load(args.clients, args.seconds, "127.0.0.1", port, proxy)
        finally:
            srv.send_signal(signal.SIGTERM)
            srv.wait(60)
            up.terminate()
            up.wait(10)
        tr = json.loads(Path(out).read_text())
    if args.keep:
        Path(args.keep).write_text(json.dumps({**tr, "lat": lat, "ovh": ovh}))
    report(tr, lat, ovh, elapsed, args)
    print(f"\nMachine: {machine()}.")
    return 0


def report(tr: dict[str, Any], lat: list[float], ovh: list[float], elapsed: float,
           args: argparse.Namespace) -> None:
    reqs = sorted((r for r in tr["reqs"] if "t4" in r and "up" in r), key=lambda r: r["t0"])
    reqs = reqs[-len(lat):] if len(reqs) > len(lat) else reqs  # the timed load only
    steps, gcs, ckpts, waits = tr["steps"], tr["gcs"], tr["ckpts"], tr["waits"]
    for i, r in enumerate(reqs):
        r["own"] = (r["t5"] - r["t0"] - r["up"]) * 1000
        r["prev"] = reqs[i - 1]["t2"] if i else r["t0"]  # the previous context read
    print(f"{args.clients} client(s), {elapsed:.1f} s: {len(lat)} proxied turns, "
          f"{len(lat) / elapsed:.0f}/s; Server-Timing p50 {pct(ovh, 50):.2f} / p99 "
          f"{pct(ovh, 99):.2f} ms (traced own time p50 {pct([r['own'] for r in reqs], 50):.2f}"
          f" / p99 {pct([r['own'] for r in reqs], 99):.2f} ms, {len(reqs)} joined)")
    t_lo, t_hi = reqs[0]["t0"], reqs[-1]["t5"]
    busy = sum(min(t_hi, b) - max(t_lo, a) for a, b, *_ in steps if b > t_lo and a < t_hi)
    print(f"in that time: step jobs {sum(1 for s in steps if t_lo < s[0] < t_hi)} "
          f"(worker busy {100 * busy / (t_hi - t_lo):.0f}% of the wall clock; CPU per job "
          f"p50 {1000 * statistics.median([s[2] for s in steps] or [0]):.2f} ms), GC passes "
          f"{sum(1 for g in gcs if t_lo < g[0] < t_hi)} (gen2 "
          f"{sum(1 for g in gcs if t_lo < g[0] < t_hi and g[2] == 2)}, longest "
          f"{1000 * max([g[1] - g[0] for g in gcs if t_lo < g[0] < t_hi] or [0]):.2f} ms), "
          f"checkpoints {sum(1 for c in ckpts if t_lo < c[0] < t_hi)}, store-lock waits over "
          f"0.2 ms {sum(1 for w in waits if t_lo < w[0] < t_hi)}")
    jobs = [s for s in steps if t_lo < s[0] < t_hi]
    filed = sum(s[3] for s in steps if t_lo < s[1] < t_hi)
    after = [s for s in steps if s[1] >= t_hi and s[3]]
    print(f"stretches filed during the load: {filed} ({filed / len(reqs):.3f} per turn); "
          f"after it: {sum(s[3] for s in after)}, the last "
          f"{1000 * (max(s[1] for s in after) - t_hi) if after else 0:.0f} ms after the last "
          "turn (the server is stopped right away: its close files what is due)")
    big = [s for s in jobs if s[2] > 0.001]
    if jobs:
        print(f"step jobs' CPU: {1000 * sum(s[2] for s in jobs) / len(reqs):.2f} ms per turn; "
              f"{len(big)} jobs over 1 ms of CPU: wall p50 "
              f"{1000 * pct([s[1] - s[0] for s in big], 50):.2f} / max "
              f"{1000 * max([s[1] - s[0] for s in big] or [0]):.2f} ms, CPU p50 "
              f"{1000 * pct([s[2] for s in big], 50):.2f} ms")
        sh = [h for h in tr["holds"] if h[2] == "memlane-step"]
        held = [overlap(s[0], s[1], sh) for s in big]
        print(f"  of which the store's lock held by the step: p50 {1000 * pct(held, 50):.2f} ms"
              f" per job, longest single hold {1000 * max([h[1] - h[0] for h in sh] or [0]):.2f}"
              f" ms; request threads' holds p50 "
              f"{1000 * pct([h[1] - h[0] for h in tr['holds'] if h[2] != 'memlane-step'], 50):.3f}"
              " ms")
    stages = [("entry -> pool thread", "t0", "t1"), ("hold", "t1", "th"),
              ("prepare (align, append, context)", "th", "t2"),
              ("complete minus upstream", "t2", "t3"), ("finish -> pool end", "t3", "t4"),
              ("pool end -> endpoint returns", "t4", "t5")]
    cut = pct([r["own"] for r in reqs], 100 - args.slow)
    groups = [("all", reqs), (f"slowest {args.slow:g}% (own >= {cut:.2f} ms)",
                              [r for r in reqs if r["own"] >= cut])]
    for name, rs in groups:
        n = len(rs)
        print(f"\n{name}: {n} requests, mean ms per request\n")
        print("| stage | mean | of it: step worker running | GC | checkpoint | "
              "store-lock wait |\n|---|---:|---:|---:|---:|---:|")
        for label, a, b in stages:
            tot = sum(r[b] - r[a] - (r["up"] if (a, b) == ("t2", "t3") else 0) for r in rs)
            st = sum(overlap(r[a], r[b], steps) for r in rs)
            g = sum(overlap(r[a], r[b], gcs) for r in rs)
            c = sum(overlap(r[a], r[b], ckpts) for r in rs)
            w = sum(overlap(r[a], r[b], [x for x in waits if x[2] != "memlane-step"])
                    for r in rs)
            print(f"| {label} | {1000 * tot / n:.2f} | {1000 * st / n:.2f} | "
                  f"{1000 * g / n:.2f} | {1000 * c / n:.2f} | {1000 * w / n:.2f} |")
        # The pool thread's time (its start to its end, less the upstream call): its own
        # CPU, its waits for the store's lock, and the rest, off the CPU with no lock to wait
        # for: mostly waiting for the GIL.
        wall = sum(r["t4"] - r["t1"] - r["up"] for r in rs)
        cpu = sum(r.get("cpu", 0.0) - r.get("cpu_up", 0.0) for r in rs)
        lw = sum(overlap(r["t1"], r["t4"], [x for x in waits if x[2] != "memlane-step"])
                 for r in rs)
        print(f"\npool thread, mean ms: {1000 * wall / n:.2f} outside the upstream call = CPU "
              f"{1000 * cpu / n:.2f} + store-lock wait {1000 * lw / n:.2f} + other waits "
              f"(the GIL) {1000 * (wall - cpu - lw) / n:.2f}; the event loop's CPU "
              f"{1000 * sum(r['c5'] - r['c0'] for r in rs) / n:.2f}")
        ph = tr.get("phases", [])
        labels = ["read unfiled", "related search", "extract", "apply"]
        ov = {lb: sum(overlap(r["t0"], r["t5"], [x for x in ph if x[2] == lb]) for r in rs)
              for lb in labels}
        ov["extract"] -= ov["related search"]  # the extract phase runs the related search
        applies = [x for x in ph if x[2] == "apply"]
        cold = sum(1 for r in rs if any(r.get("prev", 0.0) < x[1] < r["t2"] for x in applies))
        print(f"requests whose context was read after a step's commit (since the previous "
              f"request's context read): {cold} of {n}")
        if name == "all":
            after = [r["own"] for r in rs
                     if any(r["prev"] < x[1] < r["t2"] for x in applies)]
            rest = [r["own"] for r in rs
                    if not any(r["prev"] < x[1] < r["t2"] for x in applies)]
            if after and rest:
                print(f"  their own time p50 {pct(after, 50):.2f} / p90 {pct(after, 90):.2f} / "
                      f"p96 {pct(after, 96):.2f} ms; the others' p50 {pct(rest, 50):.2f} / "
                      f"p99 {pct(rest, 99):.2f} ms")
        print("the step's phases during the request (its arrival to its return), mean ms: "
              + ", ".join(f"{lb} {1000 * v / n:.2f}" for lb, v in ov.items()))
    print("\nslowest requests, ms: own, then each stage (as above), step overlap, GC overlap")
    for r in sorted(reqs, key=lambda r: -r["own"])[:8]:
        parts = [1000 * (r[b] - r[a] - (r["up"] if (a, b) == ("t2", "t3") else 0))
                 for _, a, b in stages]
        print(f"  {r['own']:.2f}: " + " / ".join(f"{x:.2f}" for x in parts)
              + f"; step {1000 * overlap(r['t0'], r['t5'], steps):.2f}, GC "
              f"{1000 * overlap(r['t0'], r['t5'], gcs):.2f}")


if __name__ == "__main__":
    raise SystemExit(main())
