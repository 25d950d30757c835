"""Per-question differences between two policies of one `memlane eval locomo --per-question` run.

    python -m memlane.eval.diff FILE.jsonl memlane retrieval [--budget 4000] [--show 20]

For each budget: reach by category for both policies, the questions only one of them reaches
(with how the other reached them), and what the first policy's buffer lines bought: questions
with a line pointing at the evidence (`listed`), reached through a line (`via_pointer`), and
questions where lines were shown but none reached anything the other layers had not; the
questions no record cites the evidence of (only a replayed turn reaches them); and the mean
context tokens per question of each layer, for both.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from ..errors import UsageError


def load(path: str) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except (OSError, json.JSONDecodeError) as e:
        raise UsageError(f"cannot read {path!r} ({e}): write it with `memlane eval locomo "
                         "--per-question FILE.jsonl`") from e


def compare(rows: Sequence[dict[str, Any]], a: str, b: str, budget: int | None = None,
            show: int = 20) -> str:
    """The report text (see the module docstring)."""
    by: dict[tuple[int, str], dict[tuple[str, int], dict[str, Any]]] = defaultdict(dict)
    for r in rows:
        by[(r["budget"], r["policy"])][(r["conversation"], r["q"])] = r
    budgets = sorted({r["budget"] for r in rows if budget is None or r["budget"] == budget})
    out: list[str] = []
    for bud in budgets:
        ra, rb = by.get((bud, a)), by.get((bud, b))
        if not ra or not rb:
            have = sorted({p for (x, p) in by if x == bud})
            raise UsageError(f"budget {bud}: need rows of {a!r} and {b!r}; the file has {have}")
        keys = sorted(set(ra) & set(rb))
        main = [k for k in keys if ra[k]["category"] != "adversarial"]
        out.append(f"== budget {bud}: {a} vs {b}, {len(main)} questions (categories 1-4)")
        cats = sorted({ra[k]["category"] for k in main})
        for c in [*cats, "all"]:
            ks = [k for k in main if c == "all" or ra[k]["category"] == c]
            na = sum(ra[k]["reached"] is not None for k in ks)
            nb = sum(rb[k]["reached"] is not None for k in ks)
            da = sum(bool(ra[k]["dated"]) for k in ks)
            db = sum(bool(rb[k]["dated"]) for k in ks)
            strict = f"  strict {da} vs {db}" if c == "temporal" else ""
            out.append(f"  {c:12s} {100 * na / max(len(ks), 1):5.1f}% vs "
                       f"{100 * nb / max(len(ks), 1):5.1f}%  ({na - nb:+d} of {len(ks)}){strict}")
        lost = [k for k in main if ra[k]["reached"] is None and rb[k]["reached"] is not None]
        won = [k for k in main if ra[k]["reached"] is not None and rb[k]["reached"] is None]
        out.append(f"  only {b}: {len(lost)} by {dict(Counter(rb[k]['reached'] for k in lost))}")
        if main and all("recorded" in ra[k] for k in main):
            # Files written before `recorded` was have none: the line is left out.
            bare = [k for k in main if not ra[k]["recorded"]]
            out.append(
                f"  no record cites the evidence of {len(bare)} (only a replayed turn reaches "
                f"them): {a} reaches {sum(ra[k]['reached'] is not None for k in bare)}, {b} "
                f"{sum(rb[k]['reached'] is not None for k in bare)}; of the {len(lost)} only "
                f"{b} reaches, {sum(not ra[k]['recorded'] for k in lost)}")
        out.append(f"  only {a}: {len(won)} by {dict(Counter(ra[k]['reached'] for k in won))}")
        ways = Counter(ra[k]["reached"] for k in main)
        out.append(f"  {a} reached by {dict(ways)}")
        with_lines = [k for k in main if ra[k].get("lines")]
        listed = sum(bool(ra[k].get("listed")) for k in with_lines)
        pointer = sum(ra[k]["reached"] == "via_pointer" for k in with_lines)
        idle = sum(not ra[k].get("listed") for k in with_lines)
        out.append(f"  {a} lines: shown for {len(with_lines)}, a line lists the evidence for "
                   f"{listed}, reached through a line {pointer}, no line lists it {idle}; "
                   f"opened per question "
                   f"{sum(ra[k].get('opened_lines', 0) for k in main) / max(len(main), 1):.2f}")
        tok_a = sum(ra[k]["tokens"] for k in main) / max(len(main), 1)
        tok_b = sum(rb[k]["tokens"] for k in main) / max(len(main), 1)
        out.append(f"  tokens/q {tok_a:.0f} vs {tok_b:.0f}")
        for name, of in ((a, ra), (b, rb)):
            # Files written before the layers were recorded have none: the line is left out.
            if main and all("layers" in of[k] for k in main):
                per = Counter[str]()
                for k in main:
                    per.update(of[k]["layers"])
                out.append(f"  {name} context tokens/q by layer: " + ", ".join(
                    f"{layer} {n / len(main):.0f}" for layer, n in per.items()))
        for title, ks, other in ((f"lost to {b}", lost, rb), (f"won over {b}", won, ra)):
            if ks and show:
                out.append(f"  {title} (first {min(show, len(ks))}):")
                for k in ks[:show]:
                    r = other[k]
                    out.append(f"    {k[0]}#{k[1]} [{r['category']}] {r['reached']}: "
                               f"{r['question'][:90]}")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m memlane.eval.diff", description=__doc__)
    p.add_argument("file", help="a `memlane eval locomo --per-question` file")
    p.add_argument("a", help="policy name, e.g. memlane")
    p.add_argument("b", help="policy name, e.g. retrieval")
    p.add_argument("--budget", type=int, default=None, help="one budget only")
    p.add_argument("--show", type=int, default=20, help="questions listed each way")
    args = p.parse_args(argv)
    try:
        print(compare(load(args.file), args.a, args.b, args.budget, args.show))
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
