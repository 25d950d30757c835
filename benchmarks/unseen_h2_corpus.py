"""Build a second unseen set of #44's eighth round, H2, *outside the repository*: the payloads of
PALLMs ("Payloads for Attacking Large Language Models", Mikołaj Kowalczyk), a pentester's list.
Built after the round's changes and measured once, at the end; never read, never tuned on.

    PYTHONPATH=src python benchmarks/unseen_h2_corpus.py PALLMS_GIT /tmp/unseen_h2.jsonl
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus /tmp/unseen_h2.jsonl --benign 0

Source: mik0w/pallms (MIT; built here from the snapshot, not copied in, as the sets before it),
the one-a-line payload lists of plaintext/: `promptinjection.txt` (override and prompt-leak
lines, most from Lakera's gandalf_ignore_instructions; its `{NEW_INSTRUCTION}` slot kept as
written), `jailbreak.txt` (persona and mode jailbreaks, most from deadbits' vigil collection),
`insecureoutput.txt` (render-this-script requests) and `unbounded_consumption.txt` (prompts
that make a model repeat a token without end). Left out: hallucinations.txt (questions that
make a model invent package names: nothing addressed to a memory). Family: the file. No set here
drew on PALLMs before (set E1 took only the non-English rows of Gandalf's games, through
Parapet's copies, not these lists). Built here, the rows are counted, never printed.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from safety_corpus import _show

FILES = {"promptinjection": "prompt injection", "jailbreak": "jailbreak",
         "insecureoutput": "insecure output", "unbounded_consumption": "unbounded consumption"}


def pallms(repo: str) -> list[dict[str, str]]:
    rows = []
    for name, family in FILES.items():
        for line in _show(repo, f"plaintext/{name}.txt").splitlines():
            text = line.strip()
            if text:
                rows.append({"label": "attack", "source": "pallms", "family": family,
                             "text": text, "payload": text})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", help="a clone of mik0w/pallms")
    ap.add_argument("out", type=Path, help="where to write (outside the repository)")
    args = ap.parse_args()
    rows = pallms(args.repo)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} rows to {args.out}: {dict(Counter(r['family'] for r in rows))}")


if __name__ == "__main__":
    main()
