"""CPU time of one notes-sized search (`Memory.search(q, 12)`) under several `SearchBounds`, on
a thread built by bench_assemble/bench_peers (new messages: the thread's own user turns), the
configurations alternating in blocks so load hits all alike. Thread CPU time, not wall time:
on a shared machine it moves less with other jobs.

    python benchmarks/bench_search_bounds.py .bench-data/peers/memlane-100000.db
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from bench_peers import new_messages

from memlane import Memory
from memlane.store.protocol import SearchBounds

CONFIGS = {
    "exhaustive": None,
    "default (8 terms, 40 newest)": SearchBounds(),
    "5 terms": SearchBounds(max_terms=5),
    "20 newest": SearchBounds(common_take=20),
    "5 terms, 20 newest": SearchBounds(max_terms=5, common_take=20),
    "4 terms, 16 newest": SearchBounds(max_terms=4, common_take=16),
}


def main() -> None:
    path = sys.argv[1]
    mem = Memory.open(path)
    news = new_messages(Path(path))[:150]
    cpu: dict[str, list[float]] = {k: [] for k in CONFIGS}
    for _ in range(3):
        for name, bounds in CONFIGS.items():
            mem.store.search_bounds = bounds
            for q in news[:50]:
                t = time.thread_time()
                mem.search(q, 12)
                cpu[name].append((time.thread_time() - t) * 1000)
    print("| bounds | search CPU p50 |\n|---|---:|")
    for name, t in cpu.items():
        print(f"| {name} | {statistics.median(t):.2f} ms |")
    mem.close()


if __name__ == "__main__":
    main()
