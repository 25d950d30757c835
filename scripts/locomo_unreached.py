"""Where the evidence of the questions a policy does not reach is (docs/RESULTS.md, issue 21).

    PYTHONPATH=src python scripts/locomo_unreached.py --data locomo-dev.json \
        --source annotations FILE.jsonl [--policy memlane] [--budget 2000]

FILE.jsonl is a `memlane eval locomo --per-question` file of the same data and source. The
conversations are replayed again (the same records, deterministically), and for each question
the policy did not reach (categories 1-4) this counts:
- whether any record cites an evidence turn (when none does, only a replayed turn reaches it);
- where the best such record ranks in `Memory.search(question, 100)`: top 25 (about what the
  notes show at 2k), 26-50 (at 4k), 51-100, or lower;
- whether an evidence turn is among the top 5 / 10 turns of a BM25 search of the question over
  the whole thread's turns: what a layer of turns retrieved from the evicted history could reach
  (memlane has no such layer; this is its upper bound under the offline reader's rules).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from memlane.context.tokens import default_tokenizer
from memlane.eval.locomo import load_locomo
from memlane.eval.reader import BM25, terms
from memlane.eval.replay import replay
from memlane.memory import Memory, open_store


def rank_bucket(rank: int | None) -> str:
    if rank is None:
        return "below 100"
    return "top 25" if rank < 25 else "26-50" if rank < 50 else "51-100"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("file")
    p.add_argument("--data", required=True)
    p.add_argument("--source", choices=("annotations", "heuristic"), required=True)
    p.add_argument("--policy", default="memlane")
    p.add_argument("--budget", type=int, default=None, help="default: the file's first budget")
    args = p.parse_args()
    with open(args.file, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    budget = args.budget or rows[0]["budget"]
    mine = {(r["conversation"], r["q"]): r for r in rows
            if r["policy"] == args.policy and r["budget"] == budget
            and r["category"] != "adversarial"}
    if not mine:
        raise SystemExit(f"no rows of {args.policy!r} at {budget} in {args.file}")
    store = open_store(":memory:")
    counts: Counter[str] = Counter()
    for conv in load_locomo(args.data):
        mem = Memory(store, conv.sample_id, tokenizer=default_tokenizer())
        rep = replay(mem, conv, args.source)
        turns = [t for s in conv.sessions for t in s.turns]
        at = {t.dia_id: i for i, t in enumerate(turns)}
        bm25 = BM25([terms(t.text) for t in turns])
        for i, q in enumerate(x for x in conv.questions if x.evidence):
            r = mine.get((conv.sample_id, i))
            if r is None or r["reached"] is not None:
                continue
            counts["unreached"] += 1
            ids = {rep.by_dia[d].id for d in q.evidence if d in rep.by_dia}
            cited = {x.id for x in rep.records.values() if ids.intersection(x.source_ids)}
            if cited:
                hits = [h.record.id for h in mem.search(q.question, 100)]
                rank = next((j for j, h in enumerate(hits) if h in cited), None)
                counts[f"record, ranked {rank_bucket(rank)}"] += 1
            else:
                counts["no record"] += 1
            top = bm25.top(terms(q.question), 10)
            turn_at = {at[d] for d in q.evidence if d in at}
            kind = "record" if cited else "no record"
            if turn_at.intersection(top[:5]):
                counts[f"{kind}: evidence turn in the top 5 turns"] += 1
            elif turn_at.intersection(top):
                counts[f"{kind}: evidence turn in the top 6-10 turns"] += 1
    print(f"{args.policy} at {budget} ({args.source}), questions not reached: "
          f"{counts.pop('unreached')}")
    for k, v in sorted(counts.items()):
        print(f"  {k}: {v}")


if __name__ == "__main__":
    main()
