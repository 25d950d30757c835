"""The injection scan's verdicts, two source trees: every text of tests/data and the LoCoMo dev
conversations (and each of their sentences) scanned by each tree in its own process; exits 1
when any verdict differs. A speed change to `memlane.safety` must leave this at 0 differences.

    python benchmarks/scan_trees.py --before /work/main/src --after src
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ONE = r"""
import glob, json, sys
from memlane.safety import _scan
from memlane.step.heuristic import split_sentences
texts = []
def walk(x):
    if isinstance(x, str):
        if len(x) > 3:
            texts.append(x)
    elif isinstance(x, dict):
        for v in x.values(): walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
for f in sorted(glob.glob("tests/data/*.json*")):
    raw = open(f, encoding="utf-8").read()
    try:
        walk(json.loads(raw))
    except ValueError:
        for line in raw.split("\n"):
            if line.strip(): walk(json.loads(line))
try:
    walk(json.load(open("/work/shared/data/locomo/locomo-dev.json", encoding="utf-8")))
except OSError:
    pass
texts = sorted(set(texts + [s for t in texts for s in split_sentences(t)]))
print(json.dumps({t: list(_scan(t)) for t in texts}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="src/ of the older tree")
    ap.add_argument("--after", required=True, help="src/ of the newer tree")
    a = ap.parse_args()
    got = [json.loads(subprocess.run([sys.executable, "-c", ONE], capture_output=True,
                                     text=True, check=True,
                                     env={**os.environ, "PYTHONPATH": tree}).stdout)
           for tree in (a.before, a.after)]
    diff = [t for t in got[0] if got[0][t] != got[1].get(t)]
    flagged = sum(1 for v in got[1].values() if v)
    print(f"{len(got[1])} texts, {flagged} flagged, {len(diff)} verdicts differ")
    for t in diff[:10]:
        print(f"  {t[:80]!r}: {got[0][t]} -> {got[1].get(t)}")
    return 1 if diff else 0


if __name__ == "__main__":
    raise SystemExit(main())
