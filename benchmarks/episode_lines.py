"""How readable the offline episode lines are: the share of LoCoMo sessions whose line passes
`memlane.step.lines.readable`, and that none quotes four words of a user message or a number.

    PYTHONPATH=src python benchmarks/episode_lines.py --data ../shared/data/locomo/locomo-dev.json

Each session is one stretch, as `memlane eval locomo --source heuristic` files it (both speakers'
turns as user messages with their names). `--show N` prints N lines, and every failing one.
"""

from __future__ import annotations

import argparse
from collections import Counter

from memlane.eval.locomo import load_locomo
from memlane.step.lines import _quotes, episode_line, readable
from memlane.types import Message


def session_lines(path: str) -> list[tuple[str, list[Message]]]:
    out = []
    for conv in load_locomo(path):
        seq = 0
        for s in conv.sessions:
            msgs = []
            for tr in s.turns:
                seq += 1
                msgs.append(Message(id=seq, thread_id=conv.sample_id, seq=seq, role="user",
                                    content=tr.text, ts=tr.ts, tokens=0, name=tr.speaker))
            names = frozenset(n for m in msgs if m.name for n in m.name.lower().split())
            out.append((episode_line(msgs, names), msgs))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="a LoCoMo JSON file")
    ap.add_argument("--show", type=int, default=0, help="print this many lines")
    args = ap.parse_args()
    lines = session_lines(args.data)
    problems = Counter(p for line, _ in lines for p in readable(line))
    passing = sum(1 for line, _ in lines if not readable(line))
    print(f"{passing}/{len(lines)} lines readable ({passing / len(lines):.1%}); "
          f"problems: {dict(problems) or 'none'}")
    print(f"quoting four words of a user message: {sum(_quotes(x, m) for x, m in lines)}; "
          f"with a digit: {sum(any(c.isdigit() for c in x) for x, _ in lines)}; "
          f"longest: {max(len(x.split()) for x, _ in lines)} words")
    for line, _ in lines[:args.show]:
        print(" ", line)
    for line, _ in lines:
        if readable(line):
            print("  FAIL", readable(line), line)


if __name__ == "__main__":
    main()
