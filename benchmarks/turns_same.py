"""The turn's output, two source trees side by side, in a conversation going on: on a copy of
the same database each, from the thread's 21st user message on, each turn searches memory for
the message (`Memory.search(message, 50)`: ids and scores), assembles the context with it
(`Thread.context(budget=4000, new_message=...)`: every message's role and text), then appends
the message and a reply and files a stretch when one is due (the heuristic step), so the
memoised postings are caught up after every step as in a proxied conversation. The two trees'
outputs are compared turn by turn, scores to the bit.

    python benchmarks/turns_same.py --before /tmp/before/src --after src \\
        --db .bench-data/peers/memlane-10000.db --turns 120

A change that should not alter what a turn shows (work cut from the read path) must print
"same" for every database; the script exits 1 otherwise.
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
import json, sys
from _conversation import go_on, user_turns
from memlane import Memory
mem = Memory.open(sys.argv[1]); t = mem.thread("bench")
users = user_turns(t)
out = []
for u in users[20:20 + int(sys.argv[2])]:
    hits = mem.search(u, 50)
    ctx = t.context(budget=4000, new_message=u)
    out.append([[h.record.id for h in hits], [h.score.hex() for h in hits],
                [[m.role, m.content] for m in ctx.messages]])
    go_on(t, u)
mem.close()
print(json.dumps(out))
"""


def _run(tree: str, db: Path, turns: int) -> list[list[object]]:
    out = subprocess.run([sys.executable, "-c", ONE, str(db), str(turns)], capture_output=True,
                         text=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": os.pathsep.join(
                             [tree, str(Path(__file__).resolve().parent)])}).stdout
    got: list[list[object]] = json.loads(out)
    return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="src/ of the older tree")
    ap.add_argument("--after", required=True, help="src/ of the newer tree")
    ap.add_argument("--db", action="append", required=True,
                    help="a database bench_peers.py --dir built (repeat)")
    ap.add_argument("--turns", type=int, default=120)
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memlane-same-"))
    same = True
    try:
        for i, path in enumerate(a.db):
            runs = {}
            for name, tree in (("before", a.before), ("after", a.after)):
                db = Path(shutil.copy(path, work / f"{i}-{name}.db"))
                runs[name] = _run(tree, db, a.turns)
            b, f = runs["before"], runs["after"]
            parts = {"hits": 0, "scores": 1, "contexts": 2}
            differ = {what: sum(x[j] != y[j] for x, y in zip(b, f, strict=False))
                      for what, j in parts.items()}
            ok = len(b) == len(f) and not any(differ.values())
            same = same and ok
            print(f"{path}: {'same' if ok else 'DIFFERENT'} over {len(f)} turns"
                  + ("" if ok else " (turns that differ: "
                     + ", ".join(f"{k} {v}" for k, v in differ.items()) + ")"))
    finally:
        shutil.rmtree(work)
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
