"""Ten prompts through the offline local model with the agent loop: does it end its answers?

Prints, per prompt, the completion tokens, whether the answer hit the token limit, and the
seconds; then the totals that docs/AGENT.md quotes. `--old` replays the sampling used before
issue 17 (temperature 0.2, no repeat penalty, no stop sequences, 1024 tokens), for comparison.

    PYTHONPATH=src python scripts/measure_local.py [--old] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from memlane import Agent, Memory
from memlane.models.local import LocalModel

PROMPTS = [
    "hello",
    "What can you help me with?",
    "My name is Sam and I live in Porto. Nice to meet you!",
    "Give me three tips for sleeping better.",
    "What is the capital of France?",
    "Write a two-line poem about the sea.",
    "How do I boil an egg?",
    "Thanks, that's all for today.",
    "What's a good name for a goldfish?",
    "Explain what a database index is in one sentence.",
]

# llama.cpp's own defaults, which is what the model ran with before: no repeat penalty, no DRY.
OLD = {"temperature": 0.2, "max_tokens": 1024, "repeat_penalty": 1.0, "top_p": 0.95,
       "dry_multiplier": 0.0, "stop": []}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", action="store_true", help="the sampling used before issue 17")
    ap.add_argument("--options", default=None, metavar="JSON",
                    help="llama.cpp sampling fields over the defaults, to try others")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.old:
        model = LocalModel(seed=7, temperature=OLD["temperature"],
                           options={k: v for k, v in OLD.items()
                                    if k not in ("temperature", "max_tokens")})
        max_tokens: int | None = int(OLD["max_tokens"])
    else:
        model = LocalModel(seed=7, options=json.loads(args.options) if args.options else None)
        max_tokens = None
    model.load()
    rows = []
    with Memory.open(":memory:") as mem:
        agent = Agent(mem, model, background=False, extractor=mem.extractor,
                      max_tokens=max_tokens)
        for i, prompt in enumerate(PROMPTS):
            t0 = time.monotonic()
            r = agent.turn(f"p{i}", prompt)
            limit = max_tokens if max_tokens is not None else model.max_tokens
            rows.append({"prompt": prompt, "tokens": r.usage.completion_tokens,
                         "hit_limit": r.usage.completion_tokens >= limit,
                         "seconds": round(time.monotonic() - t0, 1),
                         "answer": r.answer[:120]})
            if not args.json:
                row = rows[-1]
                print(f"{row['tokens']:>5} tok {'LIMIT' if row['hit_limit'] else '     '} "
                      f"{row['seconds']:>6.1f}s  {prompt[:40]!r} -> {row['answer'][:60]!r}",
                      flush=True)
    tokens = [r["tokens"] for r in rows]
    summary = {"sampling": "old" if args.old else "new", "prompts": len(rows),
               "mean_tokens": round(statistics.mean(tokens), 1),
               "median_tokens": statistics.median(tokens), "max_tokens": max(tokens),
               "hit_limit": sum(r["hit_limit"] for r in rows),
               "seconds": round(sum(r["seconds"] for r in rows), 1)}
    if args.json:
        print(json.dumps({"summary": summary, "rows": rows}, indent=2))
    else:
        print(json.dumps(summary))


if __name__ == "__main__":
    main()
