"""What a new message costs the real turn: `bench_peers.py`'s memlane call
(`Thread.context(budget=4000, new_message=...)`, the thread's own user turns) over `--calls`
messages, then the same messages again in the same process, where every memo keyed by the
message (its notes search, its terms, its opened turns) already holds them. The first pass is
the turn users run (each message is new); the second is what the rest of the turn costs. Each
part is timed by a wrapper (wall time, one process, so both passes see the same load), and the
difference per part says where a new message's time goes.

    python benchmarks/turn_first_sight.py --dir .bench-data/peers --sizes 1000 100000

Needs the files `bench_peers.py --dir DIR` builds. Wrappers add a few microseconds a call, so
read the parts as shares of the turn, and the turn's p50 from `bench_peers.py`.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bench_peers

import memlane.context.fill as fill
import memlane.context.turns as turns
import memlane.memory as mm
import memlane.store.common.search as common_search
import memlane.store.sqlite.memo_search as memo_search
from memlane import Memory
from memlane.context import assemble

PARTS: list[tuple[Any, str, str]] = [
    (mm.Thread, "_notes", "notes layer (search + choice)"),
    (mm.Thread, "_search_notes", "  notes search (Memory.search, memoised)"),
    (common_search.CommonSearch, "_bounded_search", "    bounded top-k"),
    (memo_search.SQLiteMemoSearch, "_memo_candidates", "      from memoised postings"),
    (memo_search.SQLiteMemoSearch, "_with_records", "        the k records read"),
    (fill, "prepare", "prepare (every layer built and counted)"),
    (assemble, "_notes", "  notes block"),
    (mm.Thread, "_opened_turns", "opened turns"),
    (mm.Thread, "_turn_pool", "  their candidate messages"),
    (turns, "rank_pieces", "  ranked for the message"),
    (mm.Thread, "matched_lines", "buffer lines matched"),
    (assemble.Assembly, "finish", "finish (give up to fit, render)"),
]


def wrap(spent: dict[str, float]) -> None:
    for owner, name, label in PARTS:
        fn: Callable[..., Any] = getattr(owner, name)

        def timed(*a: Any, _fn: Callable[..., Any] = fn, _label: str = label, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return _fn(*a, **k)
            finally:
                spent[_label] = spent.get(_label, 0.0) + time.perf_counter() - t

        setattr(owner, name, timed)
    mm.rank_pieces = turns.rank_pieces  # the module's own reference, wrapped


def run(path: Path, calls: int, spent: dict[str, float]) -> list[tuple[float, dict[str, float]]]:
    news = bench_peers.new_messages(path)
    out = []
    with Memory.open(str(path)) as mem:
        th = mem.thread(bench_peers.THREAD)
        for m in news[:5]:
            th.context(budget=4000, new_message=m)
        for _ in range(2):
            spent.clear()
            times = []
            for m in news[5:5 + calls]:
                t = time.perf_counter()
                th.context(budget=4000, new_message=m)
                times.append((time.perf_counter() - t) * 1000)
            out.append((statistics.median(times), dict(spent)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", required=True, help="where bench_peers.py --dir built its files")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 100000])
    ap.add_argument("--calls", type=int, default=200)
    args = ap.parse_args()
    spent: dict[str, float] = {}
    wrap(spent)
    for n in args.sizes:
        path = Path(args.dir) / f"memlane-{n}.db"
        if not path.exists():
            raise SystemExit(f"no {path}: build it with bench_peers.py --dir {args.dir} "
                             f"--sizes {n} --systems memlane")
        (first, a), (again, b) = run(path, args.calls, spent)
        print(f"\n{n:,} messages, {args.calls} messages: p50 {first:.2f} ms new, "
              f"{again:.2f} ms asked again\n")
        print("| part | new message | asked again | difference |\n|---|---:|---:|---:|")
        for _, _, label in PARTS:
            x, y = a.get(label, 0.0) * 1000 / args.calls, b.get(label, 0.0) * 1000 / args.calls
            print(f"| {label.strip()} | {x:.3f} ms | {y:.3f} ms | {x - y:.3f} ms |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
