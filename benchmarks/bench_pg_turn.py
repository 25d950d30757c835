"""The real turn on PostgreSQL beside SQLite: `Thread.context(budget=4000, new_message=...)` on
the same thread built on each store, the calls alternating store by store (load from other jobs
hits both alike); p50 of each and their ratio (#22: PostgreSQL within 2x of SQLite).

The threads are built once (`bench_assemble.build`: a heuristic memory step every 4 user turns)
and kept under `--data` with the pgserver data directory, so a second run (another source tree:
`PYTHONPATH=/other/src`) measures the same rows. New messages: the thread's last 500 user turns,
shuffled with a fixed seed.

    python benchmarks/bench_pg_turn.py --messages 1000 --data /tmp/pgturn
    python benchmarks/bench_pg_turn.py --messages 10000 --data /tmp/pgturn --calls 150
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_assemble  # noqa: E402  (same folder: the thread builder)
import bench_postgres  # noqa: E402  (same folder: database helpers)

from memlane import Memory  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--calls", type=int, default=150)
    ap.add_argument("--data", required=True, help="directory kept between runs (server, files)")
    a = ap.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
    base = Path(a.data)
    base.mkdir(parents=True, exist_ok=True)
    base.chmod(0o755)  # pgserver runs postgres as an unprivileged user when we are root
    srv = pgserver.get_server(base / "pg", cleanup_mode=None)  # left running for the next run
    name = f"turn{a.messages}"
    pg = bench_postgres.bench_url(srv.get_uri(), name)
    sq = base / f"{name}.db"
    if not sq.exists():
        bench_postgres.new_database(srv.get_uri(), name)
        bench_postgres.set_synchronous_commit(srv.get_uri(), "off")
        bench_assemble.build(pg, a.messages)
        bench_postgres.settle(pg)
        bench_assemble.build(str(sq), a.messages)
    mems = {"SQLite": Memory.open(sq), "PostgreSQL": Memory.open(pg)}
    first = mems["SQLite"].thread("bench")
    news = [m.content for m in first.messages() if m.role == "user"][-500:]
    random.Random(11).shuffle(news)
    times: dict[str, list[float]] = {k: [] for k in mems}
    for i in range(20 + a.calls):
        for k, m in mems.items():
            th = m.thread("bench")
            t0 = time.perf_counter()
            th.context(budget=4000, new_message=news[i % len(news)])
            if i >= 20:  # after the warm-up
                times[k].append((time.perf_counter() - t0) * 1000)
    p50 = {k: statistics.median(v) for k, v in times.items()}
    print(f"{a.messages:,} messages, {a.calls} calls each: SQLite p50 {p50['SQLite']:.2f} ms, "
          f"PostgreSQL p50 {p50['PostgreSQL']:.2f} ms, "
          f"ratio {p50['PostgreSQL'] / p50['SQLite']:.2f}")
    for m in mems.values():
        m.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
