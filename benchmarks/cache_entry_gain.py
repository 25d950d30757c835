"""What one kind of read-cache entry buys (`memlane/caches.py` quotes it): the real turn,
`Thread.context(budget=4000, new_message=...)` with the thread's own user turns as new
messages, the entry kept and not kept (every lookup of that kind misses) in alternate blocks
of 10 turns in one run; the CPU median of each.

    python benchmarks/cache_entry_gain.py --entry piece \\
        --db .bench-data/peers/memlane-1000.db .bench-data/peers/memlane-100000.db

The databases are `bench_peers.py --dir .bench-data/peers`'s (thread "bench"), each opened as
a copy.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _conversation import user_turns

from memlane import Memory
from memlane.caches import Caches


def gain(path: str, entry: str, turns: int) -> tuple[float, float]:
    """(CPU median kept, not kept) in ms."""
    skip = [False]
    real = Caches.get

    def get(self: Caches, what: str, *args: Any) -> Any:
        return None if skip[0] and what == entry else real(self, what, *args)

    Caches.get = get  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory() as d:
            copy = str(Path(d) / "m.db")
            shutil.copy(path, copy)
            with Memory.open(copy) as mem:
                t = mem.thread("bench")
                users = user_turns(t)
                for u in users[:20]:
                    t.context(budget=4000, new_message=u)
                xs: dict[bool, list[float]] = {False: [], True: []}
                us = (users[20:] * 3)[:turns]
                for i in range(0, len(us), 10):
                    for mode in ((False, True) if (i // 10) % 2 else (True, False)):
                        skip[0] = mode
                        for u in us[i:i + 10]:
                            c = time.thread_time()
                            t.context(budget=4000, new_message=u)
                            xs[mode].append((time.thread_time() - c) * 1000)
    finally:
        Caches.get = real  # type: ignore[method-assign]
    return statistics.median(xs[False]), statistics.median(xs[True])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entry", required=True, help="piece, search or line_index")
    ap.add_argument("--db", nargs="+", required=True)
    ap.add_argument("--turns", type=int, default=240)
    a = ap.parse_args()
    for path in a.db:
        kept, not_kept = gain(path, a.entry, a.turns)
        print(f"{path}: {a.entry} kept {kept:.2f} ms, not kept {not_kept:.2f} ms a turn (CPU)")


if __name__ == "__main__":
    main()
