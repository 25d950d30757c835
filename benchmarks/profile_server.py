"""Where the server's time goes under load: `memlane serve` answering proxied turns from 8
clients (the `proxy` scenario of `bench_server.py`: same seeded store, same instant upstream),
with the CPU of each process read from /proc and, with `--profile`, cProfile on every thread
of the server (the event loop and each pool thread), timed in CPU time (`time.thread_time`:
waiting for a lock, the GIL or a socket does not count), summed by stage.

    python benchmarks/profile_server.py [--seconds 5] [--clients 8] [--profile]
        [--step-worker auto|process|thread] [--top 25]

Without `--profile` it only counts CPU: the server's (user + system, all its threads), its
step process's, and the client's and upstream's, per proxied turn. cProfile slows pure-Python
code about twice, so read its split as shares, not as times.
"""

from __future__ import annotations

import argparse
import os
import pstats
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _report import machine, pct
from bench_server import load, seeded_with_upstream, serve_args, warm_proxy

# Run as the server: per-thread cProfile, then the CLI; the stats are dumped when it exits.
SERVER = r"""
import cProfile, sys, threading, time
profiles = []
def _hook(frame, event, arg):
    sys.setprofile(None)  # this thread's own profiler replaces the hook
    p = cProfile.Profile(time.thread_time_ns, 1e-9)  # CPU time: lock waits do not count
    profiles.append(p)
    p.enable()
# What starting the server imports, imported before profiling starts: the stages are per turn.
import uvicorn, starlette.applications, memlane.cli, memlane.cli.serve, memlane.server.app
import memlane.server.proxy, memlane.memory, memlane.ledger
if {profile!r}:
    threading.setprofile(_hook)
    main_profile = cProfile.Profile(time.thread_time_ns, 1e-9)
    profiles.append(main_profile)
    main_profile.enable()
from memlane.cli import main
try:
    code = main(sys.argv[1:])
finally:
    if profiles:
        import pstats
        for p in profiles:
            p.disable()
        st = pstats.Stats(profiles[0])
        for p in profiles[1:]:
            st.add(p)
        st.dump_stats({out!r})
raise SystemExit(code)
"""

STAGES = [
    # (label, a function whose cumulative time is the stage), most specific first.
    ("proxy turn on the pool thread (Proxy._answer)", "proxy.py", "_answer"),
    ("  prepare: align, append the user message, context", "prepare.py", "prepare_turn"),
    ("    context assembly (Thread.context)", "memory.py", "context"),
    ("    alignment (align)", "align.py", "align"),
    ("  upstream call (HttpUpstream.post_json)", "upstream.py", "post_json"),
    ("  record the answer + ledger row + queue the step (finish)", "turns.py", "finish"),
    ("    ledger row (Ledger.append)", "ledger.py", "append"),
    ("    queue the memory step (Service.submit_step)", "base.py", "submit_step"),
    ("request body read + JSON parse (read_json)", "base.py", "read_json"),
    ("uvicorn HTTP parsing (httptools data_received)", "httptools_impl.py", "data_received"),
    ("  (h11)", "h11_impl.py", "data_received"),
    ("Starlette/ASGI app call (ServerErrorMiddleware.__call__)", "errors.py", "__call__"),
    ("Guard middleware (Guard.__call__)", "guard.py", "__call__"),
    ("JSON response body (JSONResponse.render)", "responses.py", "render"),
    ("memory step in the server (StepRunner.file_due)", "runner.py", "file_due"),
    ("event loop select (idle)", "selectors.py", "select"),
]


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(x) for x in (task / "children").read_text().split()]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--profile", action="store_true", help="cProfile every server thread")
    ap.add_argument("--step-worker", default=None, choices=("auto", "process", "thread"),
                    help="passed to `memlane serve` (default: its default)")
    ap.add_argument("--cpu", default=None,
                    help="passed to `memlane serve` (default: its default; trees before the "
                         "option have none)")
    ap.add_argument("--top", type=int, default=25, help="functions listed by own time")
    args = ap.parse_args()


    with tempfile.TemporaryDirectory(prefix="memlane-profile-server-") as d:
        out = os.path.join(d, "server.prof")
        db, keys, key, up, upstream, port = seeded_with_upstream(d)
        cmd = [sys.executable, "-c", SERVER.format(profile=args.profile, out=out),
               *serve_args(db, port, keys, upstream, cpu=args.cpu,
                           step_worker=args.step_worker)]
        srv = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
        try:
            proxy = warm_proxy(port, key, srv)
            pids = {"server": srv.pid, "upstream": up.pid}
            kids = children(srv.pid)
            if kids:
                pids["step process"] = kids[0]
            before = {k: cpu_seconds(p) for k, p in pids.items()}
            t_self = time.process_time()
            lat, ovh, elapsed = load(args.clients, args.seconds, "127.0.0.1", port, proxy)
            used = {k: cpu_seconds(p) - before[k] for k, p in pids.items()}
            used["load generator (this process)"] = time.process_time() - t_self
        finally:
            srv.send_signal(signal.SIGTERM)
            srv.wait(60)
            up.terminate()
            up.wait(10)
        n = len(lat)
        print(f"{args.clients} clients, {elapsed:.1f} s: {n} proxied turns, {n / elapsed:.0f}/s"
              f" (step worker: {args.step_worker or 'default'}, cpu: {args.cpu or 'default'}"
              f"{', profiled' if args.profile else ''}); latency p50 {pct(lat, 50):.1f}, p99 "
              f"{pct(lat, 99):.1f}, max {max(lat):.0f} ms, {sum(x > 250 for x in lat)} over "
              f"250 ms; Server-Timing p50 {pct(ovh, 50):.1f}, p99 {pct(ovh, 99):.1f} ms\n")
        print("| process | CPU s | CPU ms per turn | share of 2 CPUs |\n|---|---:|---:|---:|")
        for k, s in used.items():
            print(f"| {k} | {s:.2f} | {1000 * s / n:.2f} | {100 * s / (2 * elapsed):.0f}% |")
        if args.profile:
            report(out, n, args.top)
    print(f"\nMachine: {machine()}.")
    return 0


def report(path: str, turns: int, top: int) -> None:
    st = pstats.Stats(path)
    stats: dict[tuple[str, int, str], tuple[int, int, float, float, object]] = \
        st.stats  # type: ignore[attr-defined]
    print("\nStages (cumulative CPU over every server thread, per proxied turn):\n")
    print("| stage | ms per turn |\n|---|---:|")
    for label, file, fn in STAGES:
        cum = sum(v[3] for (f, _, name), v in stats.items()
                  if f.endswith(file) and name == fn)
        if cum:
            print(f"| {label} | {1000 * cum / turns:.2f} |")
    print(f"\nTop {top} functions by own time (ms per turn):\n")
    print("| function | own | cumulative |\n|---|---:|---:|")
    rows = sorted(stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    for (f, line, name), v in rows:
        where = "/".join(Path(f).parts[-2:]) if f != "~" else ""
        print(f"| {where}:{line} {name} | {1000 * v[2] / turns:.3f} | "
              f"{1000 * v[3] / turns:.3f} |")


if __name__ == "__main__":
    raise SystemExit(main())
