"""The real turn on PostgreSQL beside SQLite: `Thread.context(budget=4000, new_message=...)` on
the same rows in each store, the calls alternating store by store (load from other jobs hits
both alike); p50 of each, their ratio (#22: PostgreSQL within 2x of SQLite), and the calling
thread's CPU p50 (which load moves less than wall time). Several sizes in one run.

The rows: for each size a source thread (`bench_assemble.build`: a heuristic memory step every 4
user turns), taken from `--from DIR/memlane-N.db` when that file exists (bench_peers keeps them)
or built once under `--data`; then exported (`Memory.export`) and imported (`Memory.restore`)
into a PostgreSQL database and a fresh SQLite file, so both stores hold the same rows, put there
by the same code. Everything is kept under `--data` with the pgserver data directory, so a
second run (another source tree: `PYTHONPATH=/other/src`) measures the same rows. New messages:
the thread's last 500 user turns, shuffled with a fixed seed.

    python benchmarks/bench_pg_turn.py --messages 1000,10000,100000 --data /work/bench-data/pgturn \
        --from /work/bench-data/peers [--statements]

`--versus OLD/src` also times the PostgreSQL turn of another source tree (a child process on the
same databases), alternating call by call with this tree's: before and after in one run.
`--dump FILE` writes what the turn shows instead (60 new messages a size, both engines), to
compare two trees: `cmp before.json after.json`.
`--statements` then lists the PostgreSQL turn's statements at each size: how many a turn and the
time in them (each `execute` timed: its round trip and its rows' decoding).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_assemble  # noqa: E402  (same folder: the thread builder)
import bench_postgres  # noqa: E402  (same folder: database helpers)

from memlane import Memory  # noqa: E402


def prepare(server_url: str, base: Path, n: int, source_dir: Path | None) -> tuple[Path, str]:
    """The SQLite file and PostgreSQL URL holding the `n`-message thread, made on first use."""
    name = f"turn{n}"
    pg = bench_postgres.bench_url(server_url, name)
    sq = base / f"{name}.db"
    done = base / f"{name}.done"  # written last: a run cut short starts the copy again
    if done.exists():
        return sq, pg
    src = source_dir / f"memlane-{n}.db" if source_dir is not None else None
    if src is None or not src.exists():
        src = base / f"source-{n}.db"
        if not src.exists():
            t0 = time.perf_counter()
            bench_assemble.build(str(src), n)
            print(f"built {src} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    with Memory.open(src) as m:
        data = m.export()
    bench_postgres.new_database(server_url, name)
    sq.unlink(missing_ok=True)
    for target in (pg, str(sq)):
        t0 = time.perf_counter()
        with Memory.open(target) as m:
            counts = m.restore(data)
        print(f"imported {counts} into {name} ({'PostgreSQL' if target == pg else 'SQLite'})"
              f" in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    bench_postgres.settle(pg)  # the statistics autovacuum gathers after a bulk load
    done.write_text("1\n")
    return sq, pg


# `--versus`: the same PostgreSQL turn in a child process running another source tree, one call
# per line on stdin (the index of the new message), its wall and CPU ms back on stdout. The
# calls of the three alternate one by one, so load hits them alike.
CHILD = """
import json, random, sys, time
from memlane import Memory
sq, pg = sys.argv[1], sys.argv[2]
with Memory.open(sq) as m:
    news = [x.content for x in m.thread("bench").messages() if x.role == "user"][-500:]
random.Random(11).shuffle(news)
mem = Memory.open(pg)
print("ready", flush=True)
for line in sys.stdin:
    th = mem.thread("bench")
    c0, t0 = time.thread_time(), time.perf_counter()
    th.context(budget=4000, new_message=news[int(line) % len(news)])
    t1, c1 = time.perf_counter(), time.thread_time()
    print(json.dumps([(t1 - t0) * 1000, (c1 - c0) * 1000]), flush=True)
"""


def measure(sq: Path, pg: str, calls: int, versus: str | None = None,
            warmup: int = 20) -> dict[str, dict[str, float]]:
    mems = {"SQLite": Memory.open(sq), "PostgreSQL": Memory.open(pg)}
    child = None
    if versus is not None:
        env = {**os.environ, "PYTHONPATH": versus}
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(sq), pg], env=env,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "ready"
    try:
        first = mems["SQLite"].thread("bench")
        news = [m.content for m in first.messages() if m.role == "user"][-500:]
        random.Random(11).shuffle(news)
        names = [*mems, *(["PostgreSQL (versus)"] if child is not None else [])]
        wall: dict[str, list[float]] = {k: [] for k in names}
        cpu: dict[str, list[float]] = {k: [] for k in names}
        for i in range(warmup + calls):
            for k in names:
                if k in mems:
                    th = mems[k].thread("bench")
                    c0, t0 = time.thread_time(), time.perf_counter()
                    th.context(budget=4000, new_message=news[i % len(news)])
                    t1, c1 = time.perf_counter(), time.thread_time()
                    w, c = (t1 - t0) * 1000, (c1 - c0) * 1000
                else:
                    assert child is not None and child.stdin and child.stdout
                    child.stdin.write(f"{i}\n")
                    child.stdin.flush()
                    w, c = json.loads(child.stdout.readline())
                if i >= warmup:
                    wall[k].append(w)
                    cpu[k].append(c)
        return {k: {"p50": statistics.median(wall[k]), "cpu": statistics.median(cpu[k])}
                for k in names}
    finally:
        for m in mems.values():
            m.close()
        if child is not None:
            assert child.stdin is not None
            child.stdin.close()
            child.wait()


def statements(pg: str, sq: Path, calls: int) -> list[tuple[str, float, float]]:
    """The PostgreSQL turn's statements: (the statement's start, how many a turn, ms a turn),
    most time first, over `calls` turns after a warm-up (each `execute` timed: a round trip
    and the rows' decoding)."""
    import psycopg

    with Memory.open(sq) as m:
        news = [x.content for x in m.thread("bench").messages() if x.role == "user"][-500:]
    random.Random(11).shuffle(news)
    seen: dict[str, list[float]] = {}
    real = psycopg.Connection.execute
    on = False

    def timed(self: Any, query: Any, *a: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return real(self, query, *a, **kw)
        finally:
            if on:
                key = " ".join(str(query).split())[:100]
                seen.setdefault(key, []).append((time.perf_counter() - t0) * 1000)

    psycopg.Connection.execute = timed  # type: ignore[method-assign]
    try:
        with Memory.open(pg) as mem:
            for i in range(20 + calls):
                on = i >= 20
                mem.thread("bench").context(budget=4000, new_message=news[i % len(news)])
    finally:
        psycopg.Connection.execute = real  # type: ignore[method-assign]
    return sorted(((k, len(v) / calls, sum(v) / calls) for k, v in seen.items()),
                  key=lambda x: -x[2])


def dump(stores: dict[str, tuple[Path, str]], path: Path, count: int = 60) -> None:
    """What the turn shows, for `count` new messages at each size on each engine, as JSON (the
    rendered messages, data markers' random ids blanked, `now` fixed): two trees' files are
    byte-identical when their contexts are."""
    out: dict[str, list[list[str]]] = {}
    for n, (sq, pg) in stores.items():
        for engine, target in (("sqlite", str(sq)), ("postgresql", pg)):
            with Memory.open(target) as mem:
                news = [x.content for x in mem.thread("bench").messages()
                        if x.role == "user"][-500:]
                random.Random(11).shuffle(news)
                for i, new in enumerate(news[:count]):
                    ctx = mem.thread("bench").context(budget=4000, new_message=new,
                                                      now=1_800_000_000.0)
                    out[f"{engine}/{n}/{i}"] = [
                        [m.role, re.sub(r"«/?data \d+»", "«data»", m.content or "")]
                        for m in ctx.messages]
    path.write_text(json.dumps(out, sort_keys=True, ensure_ascii=False))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", default="1000",
                    help="thread sizes, comma-separated (e.g. 1000,10000,100000)")
    ap.add_argument("--calls", type=int, default=150)
    ap.add_argument("--data", required=True, help="directory kept between runs (server, files)")
    ap.add_argument("--from", dest="source", type=Path, default=None,
                    help="folder of bench_peers' memlane-N.db files to copy the rows from")
    ap.add_argument("--versus", metavar="SRC", default=None,
                    help="also time the PostgreSQL turn of another source tree (its src/), in a"
                         " child process, alternating call by call with this tree's")
    ap.add_argument("--dump", type=Path, default=None, metavar="FILE",
                    help="write what the turn shows (60 new messages a size, both engines) to"
                         " FILE, to compare two trees' (`cmp`), and measure nothing")
    ap.add_argument("--statements", action="store_true",
                    help="also list the PostgreSQL turn's statements (count and time a turn)")
    a = ap.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
    base = Path(a.data)
    base.mkdir(parents=True, exist_ok=True)
    base.chmod(0o755)  # pgserver runs postgres as an unprivileged user when we are root
    srv = pgserver.get_server(base / "pg", cleanup_mode=None)  # left running for the next run
    sizes = [int(s) for s in a.messages.split(",")]
    stores = [prepare(srv.get_uri(), base, n, a.source) for n in sizes]
    if a.dump is not None:
        dump(dict(zip(sizes, stores, strict=True)), a.dump)
        return 0
    print(f"{'messages':>9} | SQLite p50 (CPU) | PostgreSQL p50 (CPU) | ratio p50 (CPU)"
          + (" | versus: PostgreSQL p50 (CPU), ratio p50" if a.versus else ""))
    for n, (sq, pg) in zip(sizes, stores, strict=True):
        r = measure(sq, pg, a.calls, a.versus)
        s, p = r["SQLite"], r["PostgreSQL"]
        line = (f"{n:>9,} | {s['p50']:6.2f} ({s['cpu']:5.2f}) ms | {p['p50']:6.2f} "
                f"({p['cpu']:5.2f}) ms     | {p['p50'] / s['p50']:.2f} "
                f"({p['cpu'] / s['cpu']:.2f})")
        if a.versus:
            v = r["PostgreSQL (versus)"]
            line += f"     | {v['p50']:6.2f} ({v['cpu']:5.2f}) ms, {v['p50'] / s['p50']:.2f}"
        print(line, flush=True)
    if a.statements:
        for n, (sq, pg) in zip(sizes, stores, strict=True):
            got = statements(pg, sq, a.calls)
            print(f"\n{n:,} messages, PostgreSQL: {sum(c for _, c, _ in got):.2f} statements"
                  f" a turn, {sum(t for _, _, t in got):.2f} ms in them")
            for key, count, ms in got:
                print(f"  {count:5.2f} a turn  {ms:5.2f} ms  {key[:100]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
