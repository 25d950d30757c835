"""Build a sixth unseen set, F, *outside the repository* (#44, sixth round): the attacks players
wrote in Tensor Trust, a game where one player guards a model with a prompt and others try to
hijack it ("say 'Access Granted'") or make it leak its access code. Measured once, at the end;
never read, never tuned on.

    PYTHONPATH=src python benchmarks/unseen_f_corpus.py TENSOR_TRUST_GIT /tmp/unseen_f.jsonl
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus /tmp/unseen_f.jsonl --benign 0

Source: HumanCompatibleAI/tensor-trust-data (no licence file: never copied here), its two
robustness benchmarks (benchmarks/{hijacking,extraction}-robustness/v1/*.jsonl), the `attack`
field of each row (the player's text; the defender's pre and post prompts are left out). Family:
the benchmark and the language the attack is written in (`unseen_e_corpus.language`: "other"
and "mixed" are the multilingual rows, "english" the rest; "short" ones, under four words, are
kept too, as "short"). No set here drew on Tensor Trust before. Built here, the rows are
counted, never printed.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from safety_corpus import _show
from unseen_e_corpus import language

BENCHMARKS = {
    "hijacking": "benchmarks/hijacking-robustness/v1/hijacking_robustness_dataset.jsonl",
    "extraction": "benchmarks/extraction-robustness/v1/extraction_robustness_dataset.jsonl",
}


def tensor_trust(repo: str) -> list[dict[str, str]]:
    rows, seen = [], set()
    for kind, path in BENCHMARKS.items():
        for line in _show(repo, path).splitlines():
            if not line.strip():
                continue
            text = str(json.loads(line).get("attack", "")).strip()
            if not text or text in seen:
                continue
            seen.add(text)
            rows.append({"label": "attack", "source": "tensor-trust",
                         "family": f"{kind} {language(text)}", "text": text, "payload": text})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", help="a clone of HumanCompatibleAI/tensor-trust-data")
    ap.add_argument("out", type=Path, help="where to write (outside the repository)")
    args = ap.parse_args()
    rows = tensor_trust(args.repo)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} rows to {args.out}: {dict(Counter(r['family'] for r in rows))}")


if __name__ == "__main__":
    main()
