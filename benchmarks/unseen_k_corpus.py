"""Build a tenth unseen set, K, *outside the repository* (#44, guard44k), measured on the round's
starting code before any change, then once after.

    PYTHONPATH=src python benchmarks/unseen_k_corpus.py GPTFUZZ_GIT /tmp/k.jsonl
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus /tmp/k.jsonl --benign 0

NOTICE. Source (MIT, Copyright (c) 2023 Jiahao YU; built here from the snapshot, not copied in,
as the sets before it): sherdencooper/GPTFuzz's `datasets/prompts/GPTFuzzer.csv` (77 jailbreak
templates collected from jailbreakchat.com), `datasets/prompts/seed_short_25.csv` (25 templates
from verazuo/jailbreak_llms shortened by GPT-4) and `datasets/questions/question_list.csv` (100
harmful questions). Each template is filled at its `[INSERT PROMPT HERE]` with one question (the
template's index modulo 100, so the set is the same on every build); the questions alone are a
second family, requests addressed to an assistant. No builder before this one reads GPTFuzz.
Built here, the rows are counted, never printed.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from collections import Counter
from pathlib import Path

from safety_corpus import _show

SLOT = "[INSERT PROMPT HERE]"
TEMPLATES = {"datasets/prompts/GPTFuzzer.csv": "jailbreak template",
             "datasets/prompts/seed_short_25.csv": "short jailbreak template"}


def _rows(repo: str, path: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(_show(repo, path))))


def gptfuzz(repo: str) -> list[dict[str, str]]:
    questions = [r["text"].strip() for r in _rows(repo, "datasets/questions/question_list.csv")]
    rows, n = [], 0
    for path, family in TEMPLATES.items():
        for r in _rows(repo, path):
            template = r["text"].strip()
            text = template.replace(SLOT, questions[n % len(questions)])
            n += 1
            rows.append({"label": "attack", "source": "gptfuzz", "family": family,
                         "text": text, "payload": text})
    rows += [{"label": "attack", "source": "gptfuzz", "family": "harmful question",
              "text": q, "payload": q} for q in questions]
    return list({r["text"]: r for r in reversed(rows)}.values())[::-1]  # each text once, first kept


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("gptfuzz", help="a clone of sherdencooper/GPTFuzz")
    ap.add_argument("out", type=Path, help="where to write (outside the repository)")
    args = ap.parse_args()
    rows = gptfuzz(args.gptfuzz)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} rows to {args.out}: "
          f"{dict(Counter((r['label'], r['family']) for r in rows))}")


if __name__ == "__main__":
    main()
