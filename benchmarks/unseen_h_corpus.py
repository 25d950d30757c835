"""Build an eighth unseen set, H, *outside the repository* (#44, eighth round): the example
prompts of the Arcanum Prompt Injection Taxonomy (Jason Haddix, Arcanum Information Security),
a practitioner's catalogue of prompt injection by technique, evasion and intent. Measured first on
unchanged code, then its misses looked at and fixed by family.

    PYTHONPATH=src python benchmarks/unseen_h_corpus.py ARC_PI_TAXONOMY_GIT /tmp/unseen_h.jsonl
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus /tmp/unseen_h.jsonl --benign 0

Source: Arcanum-Sec/arc_pi_taxonomy (CC BY 4.0; built here from the snapshot, not copied in:
the rows are data to measure, and the taxonomy changes), docs/data/taxonomy.json: the `examples`
of each entry of `techniques`, `evasions` and `intents` (the `inputs`, where an attack enters,
have none). Left out: the two techniques marked `local` (gradient search, weight ablation: work
on model weights, not texts). Family: the part and the entry's `delivery` ("technique direct",
"evasion direct", "intent indirect", ...; `both` is its own). Every example is an attack by the
taxonomy's own account; a few are sketches that end in "..." and are kept as written. No set here
drew on Arcanum's taxonomy before. Built here, the rows are counted, never printed.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from safety_corpus import _show

TAXONOMY = "docs/data/taxonomy.json"
PARTS = {"techniques": "technique", "evasions": "evasion", "intents": "intent"}


def arcanum(repo: str) -> list[dict[str, str]]:
    data = json.loads(_show(repo, TAXONOMY))
    rows = []
    for part, name in PARTS.items():
        for entry in data.get(part, []):
            if entry.get("local"):
                continue
            family = f"{name} {entry.get('delivery', 'direct')}"
            for example in entry.get("examples", []):
                text = str(example).strip()
                if text:
                    rows.append({"label": "attack", "source": "arcanum", "family": family,
                                 "entry": str(entry.get("id", "")), "text": text,
                                 "payload": text})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", help="a clone of Arcanum-Sec/arc_pi_taxonomy")
    ap.add_argument("out", type=Path, help="where to write (outside the repository)")
    args = ap.parse_args()
    rows = arcanum(args.repo)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} rows to {args.out}: {dict(Counter(r['family'] for r in rows))}")


if __name__ == "__main__":
    main()
