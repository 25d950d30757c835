"""The notes a turn selects, two source trees side by side: for every user message of the
thread as the new message, the ids `Thread.notes` picks (both searches, the frame), compared
id for id and in order; then the notes alone timed, the trees in interleaved rounds.

    python benchmarks/notes_trees.py --before /work/main/src --after src \\
        --db 1000=.bench-data/peers/memlane-1000.db --budgets 2000,4000,8000

A change that should not alter what is selected (Python overhead cut from the search) must
print "same" for every database and budget; the script exits 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ONE = """
import contextlib, json, statistics, sys, time
from memlane import Memory
mem = Memory.open(sys.argv[1]); t = mem.thread("bench"); st = mem.store
held = getattr(st, "revision_held", contextlib.nullcontext)  # a tree before the read cache
users = [m.content for m in t.messages(1, 6000) if m.role == "user"]
rows = st.context_rows(mem.ns, t.id, mem.policy.window_turns, mem.policy.buffer_lines)
if sys.argv[2] == "ids":
    out = {}
    for b in json.loads(sys.argv[3]):
        with held():
            out[b] = [[r.id for r in t.notes(b, u, mem.policy, rows)] for u in users]
    print(json.dumps(out))
else:
    us = (users * 3)[:int(sys.argv[3])]
    cs = []
    for u in us[:20] + us:
        c = time.thread_time()
        with held():
            t.notes(4000, u, mem.policy, rows)
        cs.append((time.thread_time() - c) * 1000)
    print(json.dumps({"cpu": statistics.median(cs[20:])}))
"""


def _run(tree: str, db: Path, *args: str) -> str:
    return subprocess.run([sys.executable, "-c", ONE, str(db), *args], capture_output=True,
                          text=True, check=True, env={**os.environ, "PYTHONPATH": tree}).stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="src/ of the older tree")
    ap.add_argument("--after", required=True, help="src/ of the newer tree")
    ap.add_argument("--db", action="append", required=True, metavar="MESSAGES=PATH")
    ap.add_argument("--budgets", default="2000,4000,8000")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    budgets = [int(b) for b in a.budgets.split(",")]
    work = Path(tempfile.mkdtemp(prefix="memlane-notes-"))
    trees = {"before": a.before, "after": a.after}
    same = True
    try:
        for spec in a.db:
            n, _, path = spec.partition("=")
            dbs = {name: Path(shutil.copy(path, work / f"{name}-{n}.db")) for name in trees}
            ids = {name: json.loads(_run(trees[name], dbs[name], "ids", json.dumps(budgets)))
                   for name in trees}
            for b in budgets:
                got = ids["before"][str(b)] == ids["after"][str(b)]
                turns = len(ids["after"][str(b)])
                print(f"{n} messages, budget {b}: {'same' if got else 'DIFFERENT'}"
                      f" ({turns} new messages)")
                same = same and got
            cpu: dict[str, list[float]] = {name: [] for name in trees}
            for _ in range(a.rounds):
                for name in trees:
                    out = _run(trees[name], dbs[name], "time", str(a.calls))
                    cpu[name].append(json.loads(out)["cpu"])
            for name in trees:
                print(f"{n} messages, {name}: notes CPU p50 ms "
                      + " / ".join(f"{x:.3f}" for x in cpu[name]))
    finally:
        shutil.rmtree(work)
    print(f"(load {os.getloadavg()[0]:.1f})")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
