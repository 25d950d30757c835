"""Reach with the bounded lexical search against the same policies with an exhaustive one, side
by side in one run (LoCoMo dev split, eager reader, heuristic records).

The bounded search (`memlane.store.protocol.SearchBounds`) reads at most `max_terms` postings
lists of at most `per_term` entries; the exhaustive one ranks every match of every term, as
before. Every search of the run goes through the switch: the notes `Thread.context` searches for
each question, and the reader's `search_memory`. At the LoCoMo scale (1.6k records in one store)
most searches match under `exact_postings` and are ranked exactly; `--stress` adds a third
column with every bound (`per_term`, `common_take`, `exact_postings`) divided by 16, about the
ratio of the dev split's 1.6k records to the 100k-message benchmark thread's 25k, so the
approximation is exercised as often as it is there.

    python benchmarks/bench_search_reach.py --data ../shared/data/locomo/locomo-dev.json
    python benchmarks/bench_search_reach.py --data D --budgets 2000 --policies memlane --stress
"""

from __future__ import annotations

import argparse
import json
import time

from memlane.eval.replay import run_locomo
from memlane.store.protocol import BOUNDED, SearchBounds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--budgets", default="2000,4000,8000")
    ap.add_argument("--policies", default="memlane,window+search,buffer+search")
    ap.add_argument("--source", default="heuristic", choices=("heuristic", "annotations"))
    ap.add_argument("--stress", action="store_true",
                    help="also a run with every bound scaled down 16x (see the module doc)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    runs: dict[str, SearchBounds | None] = {"exhaustive": None, "bounded": BOUNDED}
    if args.stress:
        runs["bounded/16"] = SearchBounds(max_terms=BOUNDED.max_terms,
                                          per_term=max(1, BOUNDED.per_term // 16),
                                          common_take=max(1, BOUNDED.common_take // 16),
                                          exact_postings=max(1, BOUNDED.exact_postings // 16),
                                          count_cap=BOUNDED.count_cap)
    reach: dict[str, dict[tuple[int, str], float]] = {}
    secs: dict[str, float] = {}
    for name, bounds in runs.items():
        t0 = time.perf_counter()
        rep = run_locomo(args.data, budgets, source=args.source, policies=args.policies,
                         progress=False, search_bounds=bounds)
        secs[name] = time.perf_counter() - t0
        reach[name] = {(b["budget"], p): v["reach"]
                       for b in rep["budgets"] for p, v in b["policies"].items()}
    if args.json:
        print(json.dumps({n: {f"{b}/{p}": v for (b, p), v in r.items()}
                          for n, r in reach.items()}, indent=1))
        return
    names = list(runs)
    print("| policy | budget | " + " | ".join(names) + " | bounded - exhaustive |")
    print("|---|---:|" + "---:|" * len(names) + "---:|")
    for key in reach["exhaustive"]:
        cells = " | ".join(f"{100 * reach[n][key]:.1f}%" for n in names)
        diff = 100 * (reach["bounded"][key] - reach["exhaustive"][key])
        print(f"| {key[1]} | {key[0]} | {cells} | {diff:+.1f} |")
    print("\nwall: " + ", ".join(f"{n} {s:.0f} s" for n, s in secs.items()))


if __name__ == "__main__":
    main()
