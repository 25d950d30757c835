"""Leave one attack *source* out, across every source there is: does the classifier read an unseen
source better when it is trained on more of the others?

    PYTHONPATH=src python benchmarks/guard_loso_sources.py --unseen /tmp/g44g [--benign 400]
    PYTHONPATH=src python benchmarks/guard_loso_sources.py --unseen /tmp/g44g --pool licensed
    PYTHONPATH=src python benchmarks/guard_loso_sources.py --unseen /tmp/g44g --exclude E2

Sources: the sets built outside the repository by benchmarks/unseen_{c,d,e,f,g}_corpus.py
(C, D1, D2, E1, E2, F, G; read from `--unseen`, where those builders wrote unseen_<set>.jsonl;
never copied here) and the repository's own tests/data/*attacks*.jsonl, one source per file.
For each source in turn: a classifier is trained by `scripts/train_guard.py`'s procedure (its
thresholds chosen out of fold, as the shipped ones are) on the tuning corpora and every *other*
source of the pool, and the left out source is read by `safety.admit` (the verdict of the tool
paths: `remember` / `update_memory`, REST `POST /records`, recall snapshots, `open_memory`
sources) with that model and with the shipped one. `--pool licensed` trains on the sources whose
licences would let their rows be copied here (MIT / Apache: D1, E1, E2) plus the repository's
files, the pool a shipped model could be retrained on.

Benign withheld, by the same verdict: tests/data/benign_*.jsonl and guard_benign.jsonl (the
latter two trained on: benign_model_records, guard_benign), a LoCoMo sample (bench_safety's
`benign_texts`), and a source's own benign rows (E1's deepset benign prompts) when it is left out.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from memlane import guard
from memlane.safety import _fold

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import train_guard as tg  # noqa: E402
from bench_safety import benign_texts  # noqa: E402
from guard_loso import fit  # noqa: E402
from train_guard import kept_out  # noqa: E402

DATA = ROOT / "tests" / "data"
UNSEEN = ("c", "d1", "d2", "e1", "e2", "f", "g")
LICENSED = ("d1", "e1", "e2")  # MIT (Agent Security Bench), Apache-2.0 (Parapet, XSafety)
TRAINED_BENIGN = ("benign_model_records", "guard_benign")


def _rows(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def sources(unseen: Path) -> dict[str, list[dict[str, str]]]:
    """Source name -> its rows (attacks, and benign rows where the source has them)."""
    out: dict[str, list[dict[str, str]]] = {}
    for s in UNSEEN:
        path = unseen / f"unseen_{s}.jsonl"
        if not path.exists():
            raise SystemExit(f"{path} not found: build it with benchmarks/unseen_*_corpus.py "
                             "(see their help) or pass --unseen DIR")
        out[s.upper()] = _rows(path)
    for path in sorted(DATA.glob("*attacks*.jsonl")):
        out[path.stem] = _rows(path)
    return out


def pool_rows(src: dict[str, list[dict[str, str]]], leave: str, pool: str,
              exclude: tuple[str, ...] = ()) -> list[tuple[str, int, str]]:
    """The tuning corpora plus every source of the pool but `leave` (and `exclude`)."""
    # The tuning corpora alone: the sources below are added by hand, one left out.
    rows = [r for r in tg.corpora() if not r[0].startswith(("outside:", "src:", "file:"))]
    for name, rs in src.items():
        unlicensed = name.lower() in UNSEEN and name.lower() not in LICENSED
        if name == leave or name in exclude or (pool == "licensed" and unlicensed):
            continue
        rows += [(f"src:{name}", int(r.get("label", "attack") == "attack"), r["text"])
                 for r in rs]
    return rows


def benign_sets(n_locomo: int) -> dict[str, list[str]]:
    sets: dict[str, list[str]] = {"written (never trained)": [], "written (trained on)": []}
    for path in sorted(DATA.glob("benign_*.jsonl")) + [DATA / "guard_benign.jsonl"]:
        key = "written (trained on)" if path.stem in TRAINED_BENIGN else "written (never trained)"
        sets[key] += [r["text"] for r in _rows(path) if r.get("label", "benign") != "attack"]
    sets["LoCoMo"] = benign_texts(n_locomo)[:n_locomo] if n_locomo else []
    return sets


def clf_flagged(texts: list[str], weights: guard.Weights) -> int:
    """How many `texts` the classifier alone flags at its strict threshold (no patterns)."""
    t = weights.thresholds["strict"]
    return sum(guard.score(weights, guard.features(_fold(x))) >= t for x in texts)


def _pct(a: int, n: int) -> str:
    return f"{a}/{n} ({a / n:.1%})" if n else "-"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--unseen", type=Path, default=Path("/tmp/g44g"),
                    help="directory holding unseen_{c,d1,d2,e1,e2,f,g}.jsonl")
    ap.add_argument("--benign", type=int, default=400, help="LoCoMo texts (0: none)")
    ap.add_argument("--pool", choices=("all", "licensed"), default="all")
    ap.add_argument("--only", nargs="*", help="leave out only these sources")
    ap.add_argument("--exclude", nargs="*", default=[], help="never train on these sources")
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    args = ap.parse_args()
    src = sources(args.unseen)
    benign = benign_sets(args.benign)
    shipped = guard.shipped()
    ship_benign = {k: sum(kept_out(v, shipped)) for k, v in benign.items()}
    print("benign withheld, shipped: " + "; ".join(
        f"{k} {_pct(ship_benign[k], len(v))}" for k, v in benign.items()), flush=True)
    report: dict[str, object] = {"pool": args.pool, "exclude": args.exclude,
                                 "shipped_benign": ship_benign,
                                 "benign_n": {k: len(v) for k, v in benign.items()}}
    for name, rs in src.items():
        if args.only and name not in args.only:
            continue
        att = [r["text"] for r in rs if r.get("label", "attack") == "attack"]
        own = [r["text"] for r in rs if r.get("label", "attack") != "attack"]
        w = fit(pool_rows(src, name, args.pool, tuple(args.exclude)))
        res = {"n": len(att), "shipped": sum(kept_out(att, shipped)),
               "loso": sum(kept_out(att, w)), "clf_shipped": clf_flagged(att, shipped),
               "clf_loso": clf_flagged(att, w), "strict": w.thresholds["strict"],
               "turn": w.thresholds["turn"],
               "own_benign": [sum(kept_out(own, shipped)), sum(kept_out(own, w)), len(own)],
               "benign": {k: sum(kept_out(v, w)) for k, v in benign.items()}}
        report[name] = res
        bl = "; ".join(f"{k} {_pct(res['benign'][k], len(v))}" for k, v in benign.items())
        ownb = (f"; own benign shipped {_pct(res['own_benign'][0], len(own))}, LOSO "
                f"{_pct(res['own_benign'][1], len(own))}" if own else "")
        print(f"{name:<22} kept out shipped {_pct(res['shipped'], len(att)):<16} LOSO "
              f"{_pct(res['loso'], len(att)):<16} (strict {res['strict']}); "
              f"classifier alone shipped {_pct(res['clf_shipped'], len(att))}, LOSO "
              f"{_pct(res['clf_loso'], len(att))}; LOSO benign withheld: {bl}{ownb}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
