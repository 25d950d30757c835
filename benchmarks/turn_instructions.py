"""The real turn's CPU work in instructions, not time: two or more source trees, each running
`bench_peers.py`'s memlane call (`Thread.context(budget=4000, new_message=...)`, the thread's
own user turns, a fresh process: 5 untimed calls, then `--calls`) under valgrind's callgrind,
and the same process with no timed call; the difference over `--calls` is one turn's
instructions. Deterministic (one hash seed, one order of calls), so a change of 1% shows on a
shared, loaded machine where timings move by 30% from one run to the next. It counts work, not
time: a cache miss or a system call costs no more than any instruction here, so confirm a
change with a timed run (`bench_peers.py`, `bench_turn_trees.py`) on a quiet machine.

    python benchmarks/turn_instructions.py --tree before=/tmp/before/src --tree after=src \\
        --dir .bench-data/peers --sizes 10000 100000

With `--own-files`, each tree reads a file it built itself (`DIR/NAME/memlane-N.db`): a change
to safety.py changes the scanner's tag, and on a file an older tree built every stored clean
verdict is then stale for the new tree (each shown text is scanned again once).

Needs valgrind (`apt-get install valgrind`) and the files `bench_peers.py --dir DIR` builds.
Each run takes about a minute (valgrind is ~50x slower than the process it runs).

With `--live`, the turn of a conversation going on, as a proxied one is (the user message and a
reply appended after each call, the memory step filed when due, on a copy of the file): the
same loop is run with and without the context calls, and their difference over `--calls` is a
turn. It includes the turns right after a step, which catch the search's memos up.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ONE = """
import sys
sys.path.insert(0, {bench!r})
from pathlib import Path
import bench_peers
from memlane import Memory
path = Path(sys.argv[1]); calls = int(sys.argv[2])
news = bench_peers.new_messages(path)
mem = Memory.open(str(path)); th = mem.thread(bench_peers.THREAD)
for i in range(5 + calls):
    th.context(budget=4000, new_message=news[i % len(news)])
mem.close()
"""


LIVE = """
import os, shutil, sys, tempfile
sys.path.insert(0, {bench!r})
import bench_peers
from _conversation import go_on, user_turns
from memlane import Memory
calls, with_context = int(sys.argv[2]), sys.argv[3] == "1"
d = tempfile.mkdtemp()
db = os.path.join(d, "live.db")
shutil.copy(sys.argv[1], db)  # the conversation writes: a copy each run
mem = Memory.open(db); th = mem.thread(bench_peers.THREAD)
users = user_turns(th)
for u in users[:5]:
    th.context(budget=4000, new_message=u)
for u in (users[20:] * 3)[:calls]:
    if with_context:
        th.context(budget=4000, new_message=u)
    go_on(th, u)
mem.close()
shutil.rmtree(d)
"""


def instructions(src: str, db: Path, calls: int, live: int | None = None) -> int:
    """Instructions callgrind counts for the whole process (imports, open, 5 + `calls`);
    `live` 1 / 0: the conversation going on (`--live`) with / without the context calls."""
    code = (ONE if live is None else LIVE).format(bench=str(Path(__file__).resolve().parent))
    env = {**os.environ, "PYTHONPATH": src, "PYTHONHASHSEED": "0"}
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         "-c", code, str(db), str(calls), *([] if live is None else [str(live)])],
        env=env, capture_output=True, text=True, check=True)
    m = re.search(r"Collected : (\d+)", out.stderr)
    if m is None:
        raise SystemExit(f"no instruction count from valgrind:\n{out.stderr[-2000:]}")
    return int(m.group(1))


def own_file(d: Path, src: str, n: int) -> Path:
    """`d`/memlane-`n`.db as `bench_peers.build` makes it with the tree `src`, built when
    missing. A store keeps each text's clean scan verdict with the tag of the scanner that
    gave it (`safety.SCANNER`, a hash of safety.py): a tree whose scanner differs from the one
    that built the file scans every shown text again, which is not the turn's own cost."""
    db = d / f"memlane-{n}.db"
    done = Path(f"{db}.done")
    if not done.exists():
        d.mkdir(parents=True, exist_ok=True)
        bench = str(Path(__file__).resolve().parent)
        code = (f"import sys; sys.path.insert(0, {bench!r}); from pathlib import Path; "
                f"import bench_peers; bench_peers.build('memlane', Path({str(db)!r}), {n})")
        subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": src},
                       check=True)
        done.write_text("ok")
    return db


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=SRC",
                    help="a source tree to measure (repeat)")
    ap.add_argument("--dir", required=True, help="the files bench_peers.py --dir built")
    ap.add_argument("--own-files", action="store_true",
                    help="each tree reads a file it built itself (DIR/NAME/memlane-N.db, built "
                         "when missing): needed when the trees' scanners differ")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--live", action="store_true",
                    help="a conversation going on (as bench_turn_trees.py --live): each turn's "
                         "user message and a reply appended, the memory step filed when due; "
                         "one turn is the difference from the same loop without the context "
                         "calls, over --calls")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed: apt-get install valgrind")
    trees = [t.split("=", 1) for t in args.tree]
    print("| messages | tree | instructions per turn | vs first |")
    print("|---:|---|---:|---:|")
    for n in args.sizes:
        first = None
        for name, src in trees:
            db = (own_file(Path(args.dir) / name, src, n) if args.own_files
                  else Path(args.dir) / f"memlane-{n}.db")
            if args.live:
                per = (instructions(src, db, args.calls, 1)
                       - instructions(src, db, args.calls, 0)) / args.calls
            else:
                per = (instructions(src, db, args.calls) - instructions(src, db, 0)) / args.calls
            first = first or per
            print(f"| {n:,} | {name} | {per / 1e6:.2f} M | {per / first:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
