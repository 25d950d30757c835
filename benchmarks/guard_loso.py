"""Leave one source out: how `safety.admit` does on an attack corpus whose source it never saw.

    PYTHONPATH=src python benchmarks/guard_loso.py [--benign 400] [--json]
    PYTHONPATH=src python benchmarks/guard_loso.py --weights-dir /tmp/loso   # keep each model

The shipped classifier is trained on tests/data/outside_attacks.jsonl (five red-team packages,
see its NOTICE) since guard44m. Does training on the other sources help on a source left out? For
each source, a classifier is trained by `scripts/train_guard.py`'s procedure on its tuning
corpora and the *other* outside sources, its thresholds chosen out of fold as the shipped ones
are, and the left out source is read by `safety.admit` with it and with the shipped one: the
verdict of every path a text takes into memory without the user's words of the turn (the
`remember` and `update_memory` tools over MCP, REST `POST /records`, a recall snapshot, an
`open_memory` source message, an import). The patterns are the same in every fold
(`safety/agent_orders.py` was written from the families' published descriptions, checked
against the misses of agentdojo and deepteam: those two are tuning sources for the patterns,
the other three are not).

Benign, never trained on: tests/data/benign_orders.jsonl (order-like facts written for #44)
and a sample of LoCoMo's turns and observations (read by path, as bench_safety.py does).
Reported per source and per family: kept out (quarantined) %, and benign withheld %.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from memlane import guard

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import train_guard as tg  # noqa: E402
from bench_safety import benign_texts  # noqa: E402
from train_guard import kept_out  # noqa: E402

OUTSIDE = ROOT / "tests" / "data" / "outside_attacks.jsonl"
BENIGN = ROOT / "tests" / "data" / "benign_orders.jsonl"


def _rows(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def fit(rows: list[tuple[str, int, str]]) -> guard.Weights:
    """A model and its thresholds, as `train_guard.main` makes the shipped one."""
    data = tg.examples(rows)
    strict, turn, _ = tg.thresholds(data, tg.out_of_fold(data),
                                    tg.patterns_only([e.text for e in data]))
    w = tg.train(data)
    return guard.Weights(hashed=w.hashed, dense=w.dense, bias=w.bias,
                         thresholds={"strict": strict, "turn": turn}, meta={})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--benign", type=int, default=400, help="LoCoMo texts (0: none)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    attacks = _rows(OUTSIDE)
    sources = list(dict.fromkeys(r["source"] for r in attacks))
    benign = [r["text"] for r in _rows(BENIGN)]
    locomo = benign_texts(args.benign)[:args.benign] if args.benign else []
    tuning = tg.corpora()
    report: dict[str, object] = {}
    shipped = guard.shipped()
    for source in sources:
        held = [r for r in attacks if r["source"] == source]
        w = fit([r for r in tuning if r[0] != f"outside:{source}"])
        res: dict[str, object] = {"n": len(held)}
        for name, weights in (("shipped", shipped), ("left out", w)):
            got = kept_out([r["text"] for r in held], weights)
            fam: Counter[str] = Counter()
            famn: Counter[str] = Counter()
            for r, k in zip(held, got, strict=True):
                famn[r["family"]] += 1
                fam[r["family"]] += k
            res[name] = {"kept_out": sum(got),
                         "families": {f: [fam[f], famn[f]] for f in famn},
                         "benign_withheld": sum(kept_out(benign, weights)),
                         "locomo_withheld": sum(kept_out(locomo, weights)),
                         "strict": weights.thresholds["strict"]}
        report[source] = res
        if not args.json:
            for name in ("shipped", "left out"):
                r = res[name]
                assert isinstance(r, dict)
                fams = ", ".join(f"{f} {a}/{n}" for f, (a, n) in r["families"].items())
                print(f"{source:<24} {name:<8} kept out {r['kept_out']}/{len(held)} "
                      f"({r['kept_out'] / len(held):.1%}); benign withheld "
                      f"{r['benign_withheld']}/{len(benign)}, LoCoMo "
                      f"{r['locomo_withheld']}/{len(locomo)} [{fams}]", flush=True)
    if args.json:
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
