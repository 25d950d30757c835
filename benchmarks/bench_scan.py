"""The injection scan's speed, two source trees in one run: `memlane.safety._scan` over the texts
`benchmarks/scan_trees.py` checks (every text of tests/data and the LoCoMo dev conversations, and
each of their sentences), each tree in a process of its own, the trees taking turns round by
round (before, after, before, after, ...) so that the machine's load falls on both alike.

    python benchmarks/bench_scan.py --before /tmp/scan-base/src --after src --rounds 4

Each round times every text once (`time.perf_counter_ns` around one `_scan` call; `_scan` keeps
no memo, so every call does the whole scan, as a never-seen text does behind `Caches.scans`),
after one untimed pass over all of them in that process (the `re` cache, the imports). Printed
per round and tree: the median time per text and the total, over all texts and by length
(the short ones are what a turn scans: messages, one-line records, buffer lines); then the
median over rounds, and after/before. The verdicts themselves are checked by scan_trees.py.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from scan_trees import CORPUS

WORKER = CORPUS + r"""
import time
for t in texts:
    _scan(t)
print(json.dumps([len(t) for t in texts]), flush=True)
clock = time.perf_counter_ns
for line in sys.stdin:
    out = []
    for t in texts:
        t0 = clock()
        _scan(t)
        out.append(clock() - t0)
    print(json.dumps(out), flush=True)
"""

BUCKETS = [("all", 0, 10**9), ("<= 300 chars", 0, 300), ("<= 100 chars", 0, 100),
           ("101-300 chars", 101, 300), ("> 300 chars", 301, 10**9)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="src/ of the older tree")
    ap.add_argument("--after", required=True, help="src/ of the newer tree")
    ap.add_argument("--rounds", type=int, default=4)
    a = ap.parse_args()
    trees = {"before": a.before, "after": a.after}
    procs = {name: subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True,
                                    env={**os.environ, "PYTHONPATH": tree})
             for name, tree in trees.items()}
    lengths = {name: json.loads(p.stdout.readline()) for name, p in procs.items()}  # type: ignore[union-attr]
    if lengths["before"] != lengths["after"]:
        print("the trees read different texts")
        return 1
    sizes = lengths["after"]
    print(f"{len(sizes)} texts; rounds alternate before/after; ms per text (p50) and total s")
    rows: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for r in range(a.rounds):
        for name, p in procs.items():
            p.stdin.write("run\n")  # type: ignore[union-attr]
            p.stdin.flush()  # type: ignore[union-attr]
            times = json.loads(p.stdout.readline())  # type: ignore[union-attr]
            cells = []
            for label, lo, hi in BUCKETS:
                sel = [ns for ns, n in zip(times, sizes, strict=True) if lo <= n <= hi]
                p50, total = statistics.median(sel) / 1e6, sum(sel) / 1e9
                rows.setdefault((label, name), []).append((p50, total))
                cells.append(f"{label}: {p50:.3f} ms / {total:.2f} s")
            print(f"round {r + 1} {name:6s} " + "; ".join(cells), flush=True)
    for p in procs.values():
        p.stdin.close()  # type: ignore[union-attr]
        p.wait()
    print("\nmedian over rounds | texts | before p50 | after p50 | before total | after total "
          "| after/before (p50, total)")
    for label, lo, hi in BUCKETS:
        n = sum(1 for x in sizes if lo <= x <= hi)
        b, f = rows[(label, "before")], rows[(label, "after")]
        bp, ap_ = statistics.median(x[0] for x in b), statistics.median(x[0] for x in f)
        bt, at = statistics.median(x[1] for x in b), statistics.median(x[1] for x in f)
        print(f"{label} | {n} | {bp:.4f} ms | {ap_:.4f} ms | {bt:.2f} s | {at:.2f} s | "
              f"{ap_ / bp:.2f}, {at / bt:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
