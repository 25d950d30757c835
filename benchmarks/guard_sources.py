"""Copy the attack rows of the unseen sets whose licences allow it into the repository, as
tests/data/guard_sources.jsonl: what `scripts/train_guard.py` trains the shipped classifier on
besides its tuning corpora (#44, guard44m), so that retraining needs no snapshot and no network.

    PYTHONPATH=src python benchmarks/guard_sources.py /tmp/guard44m      # then train_guard.py

The directory holds unseen_<set>.jsonl as benchmarks/unseen_<set>_corpus.py wrote them. Kept:
D1 (ASB, MIT), E2 (XSafety, Apache-2.0), H (Arcanum taxonomy, CC BY 4.0), H2 (pallms, MIT), I
(FuzzyAI, Apache-2.0), I2 (ToolSword, Apache-2.0), J's TakSec rows (MIT; not its InjecGuard rows,
which are drawn from PINT and WildGuard) and K (GPTFuzz, MIT): at most `PER_SOURCE` attacks a
source, a fixed-seed sample. The other sets (C, D2, E1, F, G: no licence, non-commercial or GPL)
are never copied: `train_guard.py --unseen DIR` reads them as measurement only. Set L and its
sources are never read. tests/data/guard_sources.NOTICE names each source and its licence.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "guard_sources.jsonl"
SETS = {"d1": ("asb",), "e2": ("xsafety",), "h": ("arcanum",), "h2": ("pallms",),
        "i": ("fuzzyai",), "i2": ("toolsword",), "j": ("taksec",), "k": ("gptfuzz",)}
PER_SOURCE = 400
SEED = 23


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("unseen", type=Path, help="directory of unseen_<set>.jsonl")
    args = ap.parse_args()
    out: list[dict[str, str]] = []
    for s, sources in SETS.items():
        rows = [json.loads(x) for x in (args.unseen / f"unseen_{s}.jsonl").read_text().splitlines()
                if x.strip()]
        for source in sources:
            mine = [{"label": "attack", "source": source, "family": r["family"], "text": r["text"]}
                    for r in rows if r.get("label", "attack") == "attack"
                    and r.get("source") == source]
            if len(mine) > PER_SOURCE:
                keep = set(random.Random(SEED).sample(range(len(mine)), PER_SOURCE))
                mine = [r for i, r in enumerate(mine) if i in keep]
            out += mine
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out))
    print(f"wrote {len(out)} rows to {OUT.relative_to(ROOT)}: "
          f"{dict(Counter(r['source'] for r in out))}")


if __name__ == "__main__":
    main()
