"""The offline memory step (the heuristic, as the server's worker runs it), two source trees
side by side: each tree replays the same stretches (the bundled demo conversation and LoCoMo
dev conversations) into a fresh SQLite memory in its own process, filing as it goes, and the
records, buffer lines, relevance and ids written are checked identical; the step's CPU time
(the worker thread's, p50 and p99 per stretch) is printed for both.

    python benchmarks/bench_step_trees.py --before /work/main/src --after src [--locomo N]

`--before` is the older tree's src/ (e.g. /work/main/src, or a `git worktree add` checkout).
Exits 1 when the two trees wrote anything different.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

LOCOMO = Path("/work/shared/data/locomo/locomo-dev.json")

ONE = r"""
import json, sys, tempfile, time
from pathlib import Path
from memlane import Memory
from memlane.ingest import ingest
from memlane.step import heuristic
from memlane.step.runner import StepRunner

cpu = {"step": [], "extract": []}
file_stretch, extract = StepRunner.file_stretch, heuristic.extract

def timed_file(self, *a, **k):
    c = time.thread_time()
    try:
        return file_stretch(self, *a, **k)
    finally:
        cpu["step"].append((time.thread_time() - c) * 1000)

def timed_extract(*a, **k):
    c = time.thread_time()
    try:
        return extract(*a, **k)
    finally:
        cpu["extract"].append((time.thread_time() - c) * 1000)

StepRunner.file_stretch = timed_file
import memlane.step.extractor as ex
ex.extract = timed_extract

def written(mem):
    # What the step wrote, less the clock: the wall-clock stamps differ run to run.
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items()
                    if k not in ("changed", "last_active", "created", "updated")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    return strip(mem.export())

corpora = json.loads(sys.stdin.read())
out = {}
for name, msgs in corpora.items():
    cpu["step"].clear(); cpu["extract"].clear()
    d = Path(tempfile.mkdtemp(prefix="memlane-step-trees-"))
    with Memory.open(d / "m.db") as mem:
        if name == "demo":
            ingest(mem, "t", msgs)  # a user/assistant chat: filed by the cadence
        else:
            # LoCoMo's two speakers are both users (as the eval replays them): a stretch is
            # every 8 messages, what the cadence's 4 user turns are in a chat with replies.
            t = mem.thread("t")
            for i in range(0, len(msgs), 8):
                got = t.extend(msgs[i:i + 8])
                t.step(start=got[0].seq, end=got[-1].seq)
        out[name] = {"cpu": {k: list(v) for k, v in cpu.items()}, "written": written(mem)}
print(json.dumps(out))
"""


def corpora(locomo: int) -> dict[str, list[dict[str, object]]]:
    demo = Path(__file__).resolve().parents[1] / "src/memlane/data/demo_conversation.jsonl"
    out = {"demo": [json.loads(x) for x in demo.read_text().splitlines() if x.strip()]}
    if locomo and LOCOMO.exists():
        for s in json.loads(LOCOMO.read_text())[:locomo]:
            conv = s["conversation"]
            rows: list[dict[str, object]] = []
            n = 1
            while f"session_{n}" in conv:
                for t in conv[f"session_{n}"]:
                    text = t.get("text", "")
                    if t.get("blip_caption"):
                        text = f"{text} [shares a photo: {t['blip_caption']}]"
                    rows.append({"role": "user", "content": text, "name": t["speaker"],
                                 "ts": 1.7e9 + len(rows) * 60.0})
                n += 1
            out[f"locomo {s['sample_id']}"] = rows
    return out


def run(tree: str, data: dict[str, list[dict[str, object]]]) -> dict[str, dict[str, object]]:
    proc = subprocess.run([sys.executable, "-c", ONE], input=json.dumps(data),
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": tree})
    if proc.returncode:
        raise SystemExit(f"the {tree} tree failed:\n{proc.stderr[-3000:]}")
    got: dict[str, dict[str, object]] = json.loads(proc.stdout)
    return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="src/ of the older tree")
    ap.add_argument("--after", required=True, help="src/ of the newer tree")
    ap.add_argument("--locomo", type=int, default=2, help="LoCoMo dev conversations to replay")
    ap.add_argument("--rounds", type=int, default=2, help="alternating runs of each tree")
    a = ap.parse_args()
    data = corpora(a.locomo)
    trees = {"before": a.before, "after": a.after}
    cpu: dict[tuple[str, str, str], list[float]] = {}
    written: dict[str, dict[str, object]] = {}
    for _ in range(a.rounds):
        for tree, src in trees.items():
            for name, r in run(src, data).items():
                for part, xs in r["cpu"].items():  # type: ignore[union-attr]
                    cpu.setdefault((name, part, tree), []).extend(xs)
                if written.setdefault(f"{tree} {name}", r["written"]) != r["written"]:  # type: ignore[arg-type]
                    print(f"{tree} wrote something else on a second run of {name}")
                    return 1
    same = True
    for name in data:
        if written[f"before {name}"] != written[f"after {name}"]:
            same = False
            print(f"DIFFERENT: {name}")
    print("| stretches | what | tree | CPU p50 ms | CPU p99 ms | stretches |\n"
          "|---|---|---|---:|---:|---:|")
    for (name, part, tree), xs in sorted(cpu.items(), key=lambda kv: (kv[0][0], kv[0][1],
                                                                       kv[0][2] != "before")):
        xs.sort()
        print(f"| {name} | {part} | {tree} | {statistics.median(xs):.2f} | "
              f"{xs[min(len(xs) - 1, int(len(xs) * 0.99))]:.2f} | {len(xs) // a.rounds} |")
    print("written: identical" if same else "written: DIFFERENT")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
