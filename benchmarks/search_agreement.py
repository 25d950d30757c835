"""How much of the exhaustive search's top 5 the bounded search returns, over the LoCoMo dev
split's questions (one in-memory store of the six conversations, heuristic records, as
`memlane eval locomo` replays them), for the default `SearchBounds` and every bound / 16 (about
the dev split against the 25k-record benchmark thread).

    python benchmarks/search_agreement.py --data ../shared/data/locomo/locomo-dev.json
"""

from __future__ import annotations

import argparse

from memlane.context.tokens import default_tokenizer
from memlane.eval.locomo import load_locomo
from memlane.eval.policies import CachedTokenizer
from memlane.eval.replay import replay
from memlane.memory import Memory, open_store
from memlane.store.protocol import SearchBounds

CONFIGS = {
    "default": SearchBounds(),
    "every bound / 16": SearchBounds(per_term=6, common_take=2, exact_postings=37),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    args = ap.parse_args()
    store = open_store(":memory:")
    store.search_bounds = None
    tk = CachedTokenizer(default_tokenizer())
    qs: list[tuple[str, str]] = []
    for conv in load_locomo(args.data):
        replay(Memory(store, conv.sample_id, tokenizer=tk), conv, "heuristic")
        qs += [(conv.sample_id, q.question) for q in conv.questions if q.evidence]

    def run(bounds: SearchBounds | None) -> list[list[int]]:
        store.search_bounds = bounds
        return [[r.id for r, _ in store.search_records(ns, q, 5)] for ns, q in qs]

    base = run(None)
    print(f"| bounds | exhaustive top 5 found ({len(qs)} questions) |\n|---|---:|")
    for name, bounds in CONFIGS.items():
        got = run(bounds)
        hit = sum(len(set(a) & set(g)) for a, g in zip(base, got, strict=True))
        print(f"| {name} | {hit / max(1, sum(map(len, base))):.1%} |")


if __name__ == "__main__":
    main()
